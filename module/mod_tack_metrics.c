/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_metrics.c -- the tack-status handler's Prometheus metrics
 * (?metrics), in the text exposition format 0.0.4: per vhost and
 * certificate the TACKs served (expiry, seconds left, generations, pin
 * activation), the handshake counters, and the problems of the status page
 * as gauges, so that an alert needs no JSON parsing.
 *
 * The format wants every sample of a family under its one HELP and TYPE
 * lines, so the vhosts are walked once per family; each walk is a few
 * loads and a printf per certificate.  Label values are made UTF-8
 * (mt_status_utf8), then a backslash, a double quote and a newline are
 * escaped as the format says (\\, \", \n); HELP texts are constants.
 */
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_protocol.h"
#include "apr_strings.h"

#include "mod_tack_status.h"
#include "mod_tack_background.h"
#include "mod_tack_runtime.h"

/* mt_prom_label returns |s| as the inside of a label value, in |p|. */
static const char *mt_prom_label(apr_pool_t *p, const char *s)
{
    const char *u = mt_status_utf8(p, s ? s : "");
    size_t n = 0;
    const char *c;
    char *out, *o;

    for (c = u; *c; c++) {
        n += (*c == '\\' || *c == '"' || *c == '\n') ? 2 : 1;
    }
    o = out = apr_palloc(p, n + 1);
    for (c = u; *c; c++) {
        if (*c == '\\' || *c == '"' || *c == '\n') {
            *o++ = '\\';
            *o++ = *c == '\n' ? 'n' : *c;
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    return out;
}

/* One family: its lines are written for each vhost, certificate or TACK
 * (|level|), |value| giving the sample. */
enum { TACK_PROM_VHOST, TACK_PROM_CERT, TACK_PROM_SLOT, TACK_PROM_TACK };

typedef struct {
    const char *name;
    const char *type;
    const char *help;
    int level;
    apr_int64_t (*value)(const mt_rt_t *rt, const mt_slot_t *slot,
                         const mt_item_t *item, time_t now);
} mt_prom_family_t;

static apr_int64_t mt_v_pins(const mt_rt_t *rt, const mt_slot_t *slot,
                             const mt_item_t *item, time_t now)
{
    return rt->pin_activation;
}

static apr_int64_t mt_v_tls13(const mt_rt_t *rt, const mt_slot_t *slot,
                              const mt_item_t *item, time_t now)
{
    return rt->tls13;
}

static apr_int64_t mt_v_required(const mt_rt_t *rt, const mt_slot_t *slot,
                                 const mt_item_t *item, time_t now)
{
    return rt->required;
}

static apr_int64_t mt_v_registered(const mt_rt_t *rt, const mt_slot_t *slot,
                                   const mt_item_t *item, time_t now)
{
    return rt->registered;
}

static apr_int64_t mt_v_sigs(const mt_rt_t *rt, const mt_slot_t *slot,
                             const mt_item_t *item, time_t now)
{
    return (apr_int64_t)rt->nsigs;
}

static apr_int64_t mt_v_tacks(const mt_rt_t *rt, const mt_slot_t *slot,
                              const mt_item_t *item, time_t now)
{
    const mt_late_t *late = mt_background_answer(slot->pending);
    int j, n = 0;

    if (late) {
        /* signed in the background since the start */
        return (time_t)late->expires * 60 > now;
    }
    for (j = 0; j < slot->ntacks; j++) {
        n += slot->tacks[j]->expires > now;
    }
    return n;
}

static apr_int64_t mt_v_requested(const mt_rt_t *rt, const mt_slot_t *slot,
                                  const mt_item_t *item, time_t now)
{
    return (apr_int64_t)mt_ctr_load(&slot->ctr->requested);
}

static apr_int64_t mt_v_served(const mt_rt_t *rt, const mt_slot_t *slot,
                               const mt_item_t *item, time_t now)
{
    return (apr_int64_t)mt_ctr_load(&slot->ctr->served);
}

static apr_int64_t mt_v_expiry(const mt_rt_t *rt, const mt_slot_t *slot,
                               const mt_item_t *item, time_t now)
{
    return (apr_int64_t)item->expires;
}

static apr_int64_t mt_v_left(const mt_rt_t *rt, const mt_slot_t *slot,
                             const mt_item_t *item, time_t now)
{
    return (apr_int64_t)(item->expires - now);
}

static apr_int64_t mt_v_gen(const mt_rt_t *rt, const mt_slot_t *slot,
                            const mt_item_t *item, time_t now)
{
    return mt_item_gen(item);
}

static apr_int64_t mt_v_min_gen(const mt_rt_t *rt, const mt_slot_t *slot,
                                const mt_item_t *item, time_t now)
{
    return mt_item_min_gen(item);
}

static apr_int64_t mt_v_activates(const mt_rt_t *rt, const mt_slot_t *slot,
                                  const mt_item_t *item, time_t now)
{
    return mt_status_activates_pins(rt, item) && item->expires > now;
}

static const mt_prom_family_t mt_prom_families[] = {
    {"tack_vhost_pin_activation", "gauge",
     "1 when the virtual host's TACKs ask clients to activate pins "
     "(TackPinActivation On).",
     TACK_PROM_VHOST, mt_v_pins},
    {"tack_vhost_tls13", "gauge",
     "1 when the virtual host serves its TACK in TLS 1.3 too (TackTLS13 On).",
     TACK_PROM_VHOST, mt_v_tls13},
    {"tack_vhost_required", "gauge",
     "1 when a certificate of the virtual host serving no TACK is a problem "
     "(TackRequired); 0: not configured yet.",
     TACK_PROM_VHOST, mt_v_required},
    {"tack_vhost_registered", "gauge",
     "1 when the TACK extension is registered on the virtual host's TLS "
     "context; 0: nothing is served (TACK00055).",
     TACK_PROM_VHOST, mt_v_registered},
    {"tack_vhost_break_signatures", "gauge",
     "Break signatures the virtual host serves.", TACK_PROM_VHOST, mt_v_sigs},
    {"tack_certificate_tacks", "gauge",
     "Unexpired TACKs served with the certificate; 0: it serves no TACK.",
     TACK_PROM_CERT, mt_v_tacks},
    {"tack_handshakes_requested_total", "counter",
     "Full TLS handshakes whose ClientHello asked for a TACK "
     "(key_type=\"other\": a certificate not in the table).",
     TACK_PROM_SLOT, mt_v_requested},
    {"tack_handshakes_served_total", "counter",
     "Of the handshakes that asked, those that received a TACK.",
     TACK_PROM_SLOT, mt_v_served},
    {"tack_expiry_timestamp_seconds", "gauge",
     "When the TACK expires, in seconds since the epoch.", TACK_PROM_TACK,
     mt_v_expiry},
    {"tack_expiry_seconds_left", "gauge",
     "Seconds until the TACK expires; negative once expired (it is then no "
     "longer served).",
     TACK_PROM_TACK, mt_v_left},
    {"tack_generation", "gauge", "The TACK's generation.", TACK_PROM_TACK,
     mt_v_gen},
    {"tack_min_generation", "gauge", "The TACK's min_generation.",
     TACK_PROM_TACK, mt_v_min_gen},
    {"tack_activates_pins", "gauge",
     "1 when the TACK is served with pin activation on (TackPinActivation "
     "On and not marked inactive).",
     TACK_PROM_TACK, mt_v_activates},
};

static void mt_prom_head(request_rec *r, const char *name, const char *type,
                         const char *help)
{
    ap_rprintf(r, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* mt_prom_cert_labels returns the labels of |slot| of |rt| (without the
 * braces), in |p|. */
static const char *mt_prom_cert_labels(apr_pool_t *p, const char *vhost,
                                       const mt_rt_t *rt, const mt_slot_t *slot)
{
    char subject[TACK_SUBJECT_SIZE];

    if (!slot->cert) {
        return apr_pstrcat(p, "vhost=\"", vhost,
                           "\",key_type=\"other\",subject=\"\"", NULL);
    }
    return apr_pstrcat(
        p, "vhost=\"", vhost, "\",key_type=\"",
        mt_prom_label(p, mt_slot_key_type(slot)), "\",subject=\"",
        mt_prom_label(p, mt_slot_subject(slot, subject)), "\"", NULL);
}

static void mt_prom_vhost(request_rec *r, apr_pool_t *p,
                          const mt_prom_family_t *f, const mt_rt_t *rt,
                          time_t now)
{
    char name[TACK_NAME_SIZE];
    const char *vhost = mt_prom_label(p, mt_rt_name(rt, name));
    const mt_item_t *tacks[TACK_EXT02_MAX_TACKS];
    int k, j, n,
        last = f->level == TACK_PROM_SLOT ? rt->nslots : rt->nslots - 1;

    if (f->level == TACK_PROM_VHOST) {
        ap_rprintf(r, "%s{vhost=\"%s\"} %" APR_INT64_T_FMT "\n", f->name, vhost,
                   f->value(rt, NULL, NULL, now));
        return;
    }
    for (k = 0; k <= last; k++) {
        mt_slot_t tmp;
        const mt_slot_t *slot = mt_rt_slot(rt, k, &tmp);
        const char *labels = mt_prom_cert_labels(p, vhost, rt, slot);

        if (f->level != TACK_PROM_TACK) {
            ap_rprintf(r, "%s{%s} %" APR_INT64_T_FMT "\n", f->name, labels,
                       f->value(rt, slot, NULL, now));
            continue;
        }
        n = mt_status_slot_tacks(p, rt, slot, tacks);
        for (j = 0; j < n; j++) {
            const mt_item_t *it = tacks[j];

            ap_rprintf(r, "%s{%s,key=\"%s\"} %" APR_INT64_T_FMT "\n", f->name,
                       labels, mt_prom_label(p, it->fingerprint),
                       f->value(rt, slot, it, now));
        }
    }
}

/* ---- problems ------------------------------------------------------------ */

/* The kinds always written (0 when there is none), so that an alert on
 * "> 0" has a series to watch; others (the guard's) are
 * written when present. */
static const char *const mt_prom_kinds[] = {
    "expired", "expiring", "no_tack", "not_registered", "waiting_signature"};
static const char *const mt_prom_store_kinds[] = {"unreadable", "malformed",
                                                  "expired_file", "warning"};
#define TACK_PROM_MAX_KINDS 16

typedef struct {
    int n;
    const char *kind[TACK_PROM_MAX_KINDS];
    int count[TACK_PROM_MAX_KINDS];
} mt_prom_counts_t;

static void mt_prom_count_kind(mt_prom_counts_t *c, const char *kind, int add)
{
    int i;

    for (i = 0; i < c->n; i++) {
        if (!strcmp(c->kind[i], kind)) {
            c->count[i] += add;
            return;
        }
    }
    if (c->n < TACK_PROM_MAX_KINDS) {
        c->kind[c->n] = kind;
        c->count[c->n++] = add;
    }
}

static void mt_prom_count(void *data, const mt_rt_t *rt, const mt_store_t *st,
                          const mt_problem_t *pr)
{
    mt_prom_count_kind(data, pr->kind, 1);
}

static void mt_prom_problems(request_rec *r, apr_pool_t *p, time_t now)
{
    const apr_array_header_t *vhosts = mt_status_vhosts();
    apr_array_header_t *stores;
    char name[TACK_NAME_SIZE];
    mt_prom_counts_t c;
    int i, k;

    mt_prom_head(r, "tack_vhost_problems", "gauge",
                 "Problems of the virtual host shown on the status page, "
                 "by kind (expired, expiring within 30 days, no_tack, "
                 "not_registered, and those of other checks).");
    for (i = 0; vhosts && i < vhosts->nelts; i++) {
        const mt_rt_t *rt = APR_ARRAY_IDX(vhosts, i, mt_rt_t *);
        const char *vhost = mt_prom_label(p, mt_rt_name(rt, name));

        memset(&c, 0, sizeof(c));
        for (k = 0; k < (int)(sizeof(mt_prom_kinds) / sizeof(char *)); k++) {
            mt_prom_count_kind(&c, mt_prom_kinds[k], 0);
        }
        mt_status_problems(p, rt, now, 0, mt_prom_count, &c);
        for (k = 0; k < c.n; k++) {
            ap_rprintf(r, "tack_vhost_problems{vhost=\"%s\",kind=\"%s\"} %d\n",
                       vhost, mt_prom_label(p, c.kind[k]), c.count[k]);
        }
        apr_pool_clear(p);
    }
    stores = mt_status_stores(p);
    mt_prom_head(r, "tack_store_files", "gauge",
                 "TACK files a TackStore directory serves.");
    for (i = 0; i < stores->nelts; i++) {
        const mt_store_t *st = APR_ARRAY_IDX(stores, i, const mt_store_t *);

        ap_rprintf(r, "tack_store_files{store=\"%s\"} %d\n",
                   mt_prom_label(p, st->path), st->nfiles);
    }
    mt_prom_head(r, "tack_store_problems", "gauge",
                 "Problems of a TackStore directory, by kind (unreadable, "
                 "malformed files, expired files, other warnings).");
    for (i = 0; i < stores->nelts; i++) {
        const mt_store_t *st = APR_ARRAY_IDX(stores, i, const mt_store_t *);
        const char *path = mt_prom_label(p, st->path);

        memset(&c, 0, sizeof(c));
        for (k = 0; k < 4; k++) {
            mt_prom_count_kind(&c, mt_prom_store_kinds[k], 0);
        }
        mt_status_store_problems(p, st, 0, mt_prom_count, &c);
        for (k = 0; k < c.n; k++) {
            ap_rprintf(r, "tack_store_problems{store=\"%s\",kind=\"%s\"} %d\n",
                       path, mt_prom_label(p, c.kind[k]), c.count[k]);
        }
    }
}

/* mt_prom_info writes one series per vhost whose labels carry its
 * settings: the format and the store. */
static void mt_prom_info(request_rec *r, apr_pool_t *p)
{
    const apr_array_header_t *vhosts = mt_status_vhosts();
    char name[TACK_NAME_SIZE];
    int i;

    mt_prom_head(r, "tack_vhost_info", "gauge",
                 "An SSL virtual host (value 1), with its TACK format and "
                 "TackStore directory (\"\": none) as labels.");
    for (i = 0; vhosts && i < vhosts->nelts; i++) {
        const mt_rt_t *rt = APR_ARRAY_IDX(vhosts, i, mt_rt_t *);

        ap_rprintf(
            r, "tack_vhost_info{vhost=\"%s\",format=\"%s\",store=\"%s\"} 1\n",
            mt_prom_label(p, mt_rt_name(rt, name)),
            mt_status_format_name(rt->format),
            rt->store ? mt_prom_label(p, rt->store->path) : "");
        apr_pool_clear(p);
    }
}

/* mt_prom_signing: the certificates waiting for TackSigningKey's
 * background, since when, and when it last failed. */
static void mt_prom_signing(request_rec *r, apr_pool_t *p, time_t now)
{
    char error[512];
    apr_time_t at = mt_background_last_error(error, sizeof(error));
    mt_totals_t t;

    mt_status_totals(p, &t, now);
    apr_pool_clear(p);
    mt_prom_head(r, "tack_signing_waiting_certificates", "gauge",
                 "Certificates served without a TACK while TackSigningKey's "
                 "background signs it (or waits for the signing key).");
    ap_rprintf(r, "tack_signing_waiting_certificates %d\n", t.waiting);
    mt_prom_head(r, "tack_signing_waiting_since_timestamp_seconds", "gauge",
                 "Since when the longest-waiting certificate waits (0: none "
                 "waits).");
    ap_rprintf(
        r, "tack_signing_waiting_since_timestamp_seconds %" APR_TIME_T_FMT "\n",
        t.waiting_since ? apr_time_sec(t.waiting_since) : 0);
    mt_prom_head(r, "tack_signing_last_error_timestamp_seconds", "gauge",
                 "When the background last could not use TackSigningKey (0: "
                 "it can now); the reason is in the status JSON and the "
                 "error log (TACK00076).");
    ap_rprintf(
        r, "tack_signing_last_error_timestamp_seconds %" APR_TIME_T_FMT "\n",
        at ? apr_time_sec(at) : 0);
}

int mt_status_metrics(request_rec *r, time_t now)
{
    const apr_array_header_t *vhosts = mt_status_vhosts();
    apr_pool_t *p;
    size_t f;
    int i;

    ap_set_content_type(r, "text/plain; version=0.0.4; charset=utf-8");
    if (r->header_only) {
        return OK;
    }
    apr_pool_create(&p, r->pool);
    mt_prom_head(r, "tack_counters_shared", "gauge",
                 "1 when the handshake counters are shared by all child "
                 "processes (0: each process counts on its own).");
    ap_rprintf(r, "tack_counters_shared %d\n", mt_status_counters_shared());
    mt_prom_head(r, "tack_counters_since_timestamp_seconds", "gauge",
                 "When the handshake counters started from zero.");
    ap_rprintf(r, "tack_counters_since_timestamp_seconds %" APR_TIME_T_FMT "\n",
               apr_time_sec(mt_status_counters_since()));
    mt_prom_signing(r, p, now);
    mt_prom_info(r, p);
    for (f = 0; f < sizeof(mt_prom_families) / sizeof(*mt_prom_families); f++) {
        const mt_prom_family_t *fam = &mt_prom_families[f];

        mt_prom_head(r, fam->name, fam->type, fam->help);
        for (i = 0; vhosts && i < vhosts->nelts; i++) {
            mt_prom_vhost(r, p, fam, APR_ARRAY_IDX(vhosts, i, mt_rt_t *), now);
            apr_pool_clear(p); /* one vhost's labels at a time */
        }
    }
    mt_prom_problems(r, p, now);
    apr_pool_destroy(p);
    return OK;
}
