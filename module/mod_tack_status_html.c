/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_status_html.c -- the tack-status handler's HTML page, for people,
 * laid out as mod_md's md-status and httpd's server-status are: a summary
 * line, the problems first and each one named (vhost, certificate, what is
 * wrong), then one compact row per vhost and certificate in configuration
 * order.  Long values are shortened on the page and kept whole in a title
 * attribute (hashes, paths, subjects), so that 1,000 vhosts read at 1,280
 * pixels without a sideways scroll.
 */
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_protocol.h"
#include "apr_strings.h"

#include "mod_tack_status.h"
#include "mod_tack_background.h"
#include "mod_tack_runtime.h"

/* Characters of a target hash shown on the page (the rest in its title). */
#define TACK_HTML_HASH_SHOWN 8

static const char mt_html_head[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
    "<title>TACK status</title>\n<style>\n"
    "body{font:12px/1.35 sans-serif;margin:8px 12px;color:#222}\n"
    "h1{font-size:18px;margin:4px 0}h2{font-size:15px;margin:14px 0 4px}\n"
    "p{margin:3px 0}table{border-collapse:collapse;width:100%}\n"
    "td,th{border:1px solid #ccc;padding:1px 5px;text-align:left;"
    "vertical-align:top;white-space:nowrap}\n"
    "th{background:#e8e8e8;position:sticky;top:0}\n"
    "td.n{text-align:right}td.m{white-space:normal}\n"
    "tr.bad td{background:#fdd}tr.warn td{background:#fec}\n"
    "td.bad,span.bad{background:#f99;font-weight:bold}\n"
    "td.warn{background:#fc6}td.v{background:#fff}\n"
    ".e{display:inline-block;max-width:16em;overflow:hidden;"
    "text-overflow:ellipsis;vertical-align:bottom}\n"
    ".c{max-width:13em}.f{max-width:9em}code{font:11px monospace}\n"
    "</style></head>\n<body>\n<h1>TACK status</h1>\n";

/* mt_esc returns |s| for the page: made UTF-8, then HTML-escaped
 * (ap_escape_html2 escapes quotes too: it can go into attributes); NULL
 * becomes "". */
static const char *mt_esc(apr_pool_t *p, const char *s)
{
    return ap_escape_html2(p, s ? mt_status_utf8(p, s) : "", 0);
}

/* mt_html_short writes |shown| cut to the width of its class |cls|, and
 * |whole| in its title. */
static void mt_html_short2(request_rec *r, apr_pool_t *p, const char *cls,
                           const char *shown, const char *whole)
{
    ap_rprintf(r, "<span class=\"%s\" title=\"%s\">%s</span>", cls,
               mt_esc(p, whole), mt_esc(p, shown));
}

static void mt_html_short(request_rec *r, apr_pool_t *p, const char *cls,
                          const char *s)
{
    mt_html_short2(r, p, cls, s, s);
}

static const char *mt_html_subject(apr_pool_t *p, const mt_slot_t *slot)
{
    char subject[TACK_SUBJECT_SIZE];
    const char *type = mt_slot_key_type(slot);

    return apr_pstrcat(p, type ? type : "?", " ",
                       mt_slot_subject(slot, subject), NULL);
}

/* ---- problems ------------------------------------------------------------ */

/* Where a callback writes: the response, and a pool for its strings. */
typedef struct {
    request_rec *r;
    apr_pool_t *p;
} mt_html_out_t;

static void mt_html_problem(void *data, const mt_rt_t *rt, const mt_store_t *st,
                            const mt_problem_t *pr)
{
    request_rec *r = ((mt_html_out_t *)data)->r;
    apr_pool_t *p = ((mt_html_out_t *)data)->p;
    char name[TACK_NAME_SIZE];

    ap_rprintf(r, "<tr class=\"%s\"><td>%s</td><td>",
               pr->severity == TACK_PROBLEM_ERROR ? "bad" : "warn",
               pr->severity == TACK_PROBLEM_ERROR ? "error" : "warning");
    if (rt) {
        ap_rprintf(r, "<a href=\"#v%pp\">%s</a>", (const void *)rt,
                   mt_esc(p, mt_rt_name(rt, name)));
    } else {
        ap_rputs("TackStore ", r);
        mt_html_short(r, p, "e", st->path);
    }
    ap_rputs("</td><td>", r);
    if (rt && pr->slot >= 0) {
        mt_html_short(r, p, "e", mt_html_subject(p, &rt->slots[pr->slot]));
    }
    ap_rprintf(r, "</td><td class=\"m\">%s</td></tr>\n",
               mt_esc(p, pr->message));
}

/* mt_html_problems writes the table of problems, errors first; each vhost
 * and store in configuration order.  Messages are made in a pool cleared
 * after each vhost: nothing grows with the number of vhosts. */
static void mt_html_problems(request_rec *r, const mt_totals_t *t, time_t now)
{
    const apr_array_header_t *vhosts = mt_status_vhosts();
    apr_array_header_t *stores = mt_status_stores(r->pool);
    mt_html_out_t out = {r, NULL};
    int sev, i;

    if (!t->errors && !t->warnings) {
        ap_rputs("<h2 id=\"problems\">Problems: none</h2>\n", r);
        return;
    }
    ap_rprintf(r,
               "<h2 id=\"problems\">Problems: %d error%s, %d warning%s</h2>\n"
               "<table class=\"problems\">\n<tr><th>Severity</th>"
               "<th>Virtual host or store</th><th>Certificate</th>"
               "<th>Problem</th></tr>\n",
               t->errors, t->errors == 1 ? "" : "s", t->warnings,
               t->warnings == 1 ? "" : "s");
    apr_pool_create(&out.p, r->pool);
    for (sev = TACK_PROBLEM_ERROR; sev >= TACK_PROBLEM_WARNING; sev--) {
        for (i = 0; vhosts && i < vhosts->nelts; i++) {
            mt_status_problems(out.p, APR_ARRAY_IDX(vhosts, i, mt_rt_t *), now,
                               sev, mt_html_problem, &out);
            apr_pool_clear(out.p);
        }
        for (i = 0; i < stores->nelts; i++) {
            mt_status_store_problems(
                out.p, APR_ARRAY_IDX(stores, i, const mt_store_t *), sev,
                mt_html_problem, &out);
            apr_pool_clear(out.p);
        }
    }
    apr_pool_destroy(out.p);
    ap_rputs("</table>\n", r);
}

/* ---- the vhosts ---------------------------------------------------------- */

/* What mt_html_mark_slot collects: the worst severity per slot, the
 * vhost's own in the last. */
static void mt_html_mark_slot(void *data, const mt_rt_t *rt,
                              const mt_store_t *st, const mt_problem_t *pr)
{
    int *worst = data;
    int k = pr->slot >= 0 ? pr->slot : rt->nslots;

    if (pr->severity > worst[k]) {
        worst[k] = pr->severity;
    }
}

static const char *mt_html_class(int severity)
{
    return severity == TACK_PROBLEM_ERROR     ? "bad"
           : severity == TACK_PROBLEM_WARNING ? "warn"
                                              : "";
}

/* mt_html_tacks writes the cells of the TACKs of |slot|: one line each
 * in the same cells (a draft-02 pair), so the row stays one row. */
static void mt_html_tacks(request_rec *r, apr_pool_t *p, const mt_rt_t *rt,
                          const mt_slot_t *slot, time_t now)
{
    static const char *const cols[] = {"", "", "", " class=\"n\"", "", ""};
    const mt_item_t *tacks[TACK_EXT02_MAX_TACKS];
    int c, j, n = mt_status_slot_tacks(p, rt, slot, tacks);

    if (!n) {
        ap_rputs(mt_background_waiting(slot->pending)
                     ? "<td colspan=\"6\" class=\"bad\">no TACK: "
                       "waits for TackSigningKey</td>"
                     : "<td colspan=\"6\" class=\"bad\">no TACK</td>",
                 r);
        return;
    }
    for (c = 0; c < 6; c++) {
        ap_rprintf(r, "<td%s>", cols[c]);
        for (j = 0; j < n; j++) {
            const mt_item_t *it = tacks[j];
            long days = mt_status_days_left(it->expires, now);
            const char *file = strrchr(it->file->path, '/');

            ap_rputs(j ? "<br>" : "", r);
            if (c == 0) {
                ap_rprintf(r, "<code>%s</code>%s", mt_esc(p, it->fingerprint),
                           it->file->inactive ? " (inactive)" : "");
            } else if (c == 1) {
                ap_rprintf(r, "%u/%u", (unsigned)mt_item_min_gen(it),
                           (unsigned)mt_item_gen(it));
            } else if (c == 2) {
                ap_rprintf(r, "<span title=\"%s\">%.10s</span>",
                           mt_esc(p, MT_ITEM_EXPIRY(it)),
                           mt_esc(p, MT_ITEM_EXPIRY(it)));
            } else if (c == 3) {
                if (days < 0) {
                    ap_rputs("<span class=\"bad\">expired</span>", r);
                } else {
                    ap_rprintf(r, "%ld", days);
                }
            } else if (c == 4) {
                ap_rputs(it->file->store ? "store " : "file ", r);
                mt_html_short2(r, p, "e f", file ? file + 1 : it->file->path,
                               it->file->path);
            } else {
                const char *hex = mt_hex(p, mt_item_target(it), TACK_HASH_LEN);

                ap_rprintf(r, "<code title=\"%s\">%.*s&hellip;</code>", hex,
                           TACK_HTML_HASH_SHOWN, hex);
            }
        }
        ap_rputs("</td>", r);
    }
}

/* mt_html_vhost_cells writes the cells of the first row of |rt| that
 * span all its certificates: name, settings, break signatures. */
static void mt_html_vhost_cells(request_rec *r, apr_pool_t *p,
                                const mt_rt_t *rt, int rows, int worst)
{
    char name[TACK_NAME_SIZE];
    const char *sigs = "";
    size_t j;

    for (j = 0; j < rt->nsigs; j++) {
        sigs = apr_pstrcat(p, sigs, j ? "\n" : "", rt->sigs[2 * j], " from ",
                           rt->sigs[2 * j + 1], NULL);
    }
    ap_rprintf(r,
               "<td rowspan=\"%d\" class=\"v %s\" id=\"v%pp\">%s%s</td>"
               "<td rowspan=\"%d\" class=\"v\" title=\"%s\">%s%s%s%s</td>"
               "<td rowspan=\"%d\" class=\"v n\" title=\"%s\">%d</td>",
               rows, mt_html_class(worst), (const void *)rt,
               mt_esc(p, mt_rt_name(rt, name)),
               rt->registered ? "" : " <b>(not registered)</b>", rows,
               rt->store ? mt_esc(p, rt->store->path) : "no TackStore",
               rt->format == TACK_FORMAT_02 ? "draft-02" : "draft-00",
               rt->pin_activation ? ", pins" : "", rt->tls13 ? ", TLS 1.3" : "",
               rt->required ? "" : ", not required", rows, mt_esc(p, sigs),
               (int)rt->nsigs);
}

static void mt_html_vhost(request_rec *r, apr_pool_t *p, const mt_rt_t *rt,
                          time_t now)
{
    int *worst = apr_pcalloc(p, sizeof(int) * (rt->nslots + 1));
    int rows = rt->nslots ? rt->nslots : 1, k;

    mt_status_problems(p, rt, now, 0, mt_html_mark_slot, worst);
    for (k = 0; k < rows; k++) {
        mt_slot_t tmp;
        const mt_slot_t *slot = mt_rt_slot(rt, k, &tmp);

        ap_rprintf(r, "<tr class=\"%s\">",
                   mt_html_class(k < rt->nslots ? worst[k] : 0));
        if (k == 0) {
            mt_html_vhost_cells(r, p, rt, rows, worst[rt->nslots]);
        }
        if (!rt->nslots) {
            ap_rputs("<td colspan=\"7\">no certificate</td>", r);
        } else {
            ap_rputs("<td>", r);
            mt_html_short(r, p, "e c", mt_html_subject(p, slot));
            ap_rputs("</td>", r);
            mt_html_tacks(r, p, rt, slot, now);
        }
        ap_rprintf(r,
                   "<td class=\"n\">%" APR_UINT64_T_FMT "</td>"
                   "<td class=\"n\">%" APR_UINT64_T_FMT "</td></tr>\n",
                   mt_ctr_load(&slot->ctr->requested),
                   mt_ctr_load(&slot->ctr->served));
    }
}

/* ---- the page ------------------------------------------------------------ */

static void mt_html_summary(request_rec *r, const mt_totals_t *t)
{
    char name[TACK_NAME_SIZE];

    ap_rprintf(
        r,
        "<p>Server %s &middot; %s &middot; counters since %s (%s) &middot; "
        "<a href=\"?json\">JSON</a> &middot; <a href=\"?metrics\">metrics"
        "</a></p>\n"
        "<p><b>%d</b> SSL virtual host%s, <b>%d</b> serving a TACK &middot; "
        "<b>%d</b> TACK%s: <b>%d</b> expiring within 30 days, <b>%d</b> "
        "expired &middot; soonest expiry %s%s%s%s &middot; handshakes "
        "%" APR_UINT64_T_FMT " requested a TACK, %" APR_UINT64_T_FMT
        " received one</p>\n",
        mt_esc(r->pool, ap_get_server_description()),
        mt_status_iso_time(r->pool, apr_time_now()),
        mt_status_iso_time(r->pool, mt_status_counters_since()),
        mt_status_counters_shared() ? "shared by all processes"
                                    : "per process: no shared memory",
        t->vhosts, t->vhosts == 1 ? "" : "s", t->serving, t->tacks,
        t->tacks == 1 ? "" : "s", t->expiring, t->expired,
        t->soonest ? mt_esc(r->pool, MT_ITEM_EXPIRY(t->soonest)) : "none",
        t->soonest ? " (" : "",
        t->soonest ? mt_esc(r->pool, mt_rt_name(t->soonest_rt, name)) : "",
        t->soonest ? ")" : "", t->requested, t->served);
}

int mt_status_html(request_rec *r, time_t now)
{
    const apr_array_header_t *vhosts = mt_status_vhosts();
    apr_pool_t *tmp;
    mt_totals_t t;
    int i;

    ap_set_content_type(r, "text/html; charset=utf-8");
    if (r->header_only) {
        return OK;
    }
    mt_status_totals(r->pool, &t, now);
    ap_rputs(mt_html_head, r);
    mt_html_summary(r, &t);
    mt_html_problems(r, &t, now);
    ap_rputs("<h2>Virtual hosts, in configuration order</h2>\n"
             "<table class=\"vhosts\">\n<tr><th>Virtual host</th>"
             "<th title=\"format (draft-00/02), pin activation, TLS 1.3, "
             "TackRequired off; the store in the title\">Settings</th>"
             "<th title=\"break signatures (listed in the title)\">Breaks"
             "</th><th>Certificate</th><th>TACK key</th>"
             "<th title=\"min_generation/generation\">Gen.</th>"
             "<th>Expires</th><th>Days</th><th>From</th>"
             "<th>Target hash</th><th>Requested</th><th>Served</th></tr>\n",
             r);
    apr_pool_create(&tmp, r->pool);
    for (i = 0; vhosts && i < vhosts->nelts; i++) {
        mt_html_vhost(r, tmp, APR_ARRAY_IDX(vhosts, i, mt_rt_t *), now);
        apr_pool_clear(tmp); /* one vhost's strings at a time */
    }
    apr_pool_destroy(tmp);
    ap_rputs("</table>\n</body></html>\n", r);
    return OK;
}
