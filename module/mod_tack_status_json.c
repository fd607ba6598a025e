/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_status_json.c -- the tack-status handler's JSON (?json), written
 * with jansson and streamed: the summary members, the stores, then the
 * vhosts one line each, in configuration order.
 */
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "apr_strings.h"

#include <jansson.h>

#include "mod_tack_status.h"
#include "mod_tack_background.h"
#include "mod_tack_runtime.h"

APLOG_USE_MODULE(tack);

#define mt_utf8 mt_status_utf8
#define mt_hex mt_hex
#define mt_format_name mt_status_format_name
#define mt_days_left mt_status_days_left
#define mt_iso_time mt_status_iso_time

static const char *mt_severity_name(int severity)
{
    return severity == TACK_PROBLEM_ERROR ? "error" : "warning";
}

/* ---- JSON (jansson) ------------------------------------------------------ */

/* Each mt_json_* builder returns a new value or NULL when jansson could
 * not build it (it takes the references of what it packs either way). */

static json_t *mt_json_counters(apr_uint64_t requested, apr_uint64_t served)
{
    return json_pack("{s:I, s:I}", "requested", (json_int_t)requested, "served",
                     (json_int_t)served);
}

static json_t *mt_json_tack(apr_pool_t *p, const mt_rt_t *rt,
                            const mt_item_t *item, time_t now)
{
    return json_pack("{s:s, s:i, s:i, s:s, s:I, s:b, s:s, s:s, s:s, s:b}",
                     "key", mt_utf8(p, item->fingerprint), "min_generation",
                     (int)mt_item_min_gen(item), "generation",
                     (int)mt_item_gen(item), "expires",
                     mt_utf8(p, MT_ITEM_EXPIRY(item)), "days_left",
                     (json_int_t)mt_days_left(item->expires, now), "expired",
                     item->expires <= now, "target_hash",
                     mt_hex(p, mt_item_target(item), TACK_HASH_LEN), "file",
                     mt_utf8(p, item->file->path), "source", item->file->kind,
                     "activates_pins", mt_status_activates_pins(rt, item));
}

static json_t *mt_json_cert(apr_pool_t *p, const mt_rt_t *rt,
                            const mt_slot_t *slot, apr_uint64_t r,
                            apr_uint64_t s, time_t now)
{
    char subject[TACK_SUBJECT_SIZE];
    uint8_t spki[TACK_HASH_LEN];
    json_t *tacks = json_array(), *ctrs;
    const mt_item_t *items[TACK_EXT02_MAX_TACKS];
    int i, n = mt_status_slot_tacks(p, rt, slot, items);

    for (i = 0; tacks && i < n; i++) {
        if (json_array_append_new(tacks, mt_json_tack(p, rt, items[i], now))) {
            json_decref(tacks);
            return NULL;
        }
    }
    ctrs = mt_json_counters(r, s);
    if (!tacks || !ctrs) {
        json_decref(tacks);
        json_decref(ctrs);
        return NULL;
    }
    memset(spki, 0, sizeof(spki));
    tack_spki_hash(slot->cert, spki);
    return json_pack("{s:s, s:s?, s:s, s:o, s:o}", "subject",
                     mt_utf8(p, mt_slot_subject(slot, subject)), "key_type",
                     mt_utf8(p, mt_slot_key_type(slot)), "spki_sha256",
                     mt_hex(p, spki, sizeof(spki)), "tacks", tacks,
                     "handshakes", ctrs);
}

/* What mt_json_problem collects into: the array, and a pool. */
typedef struct {
    apr_pool_t *p;
    json_t *list; /* NULL once jansson failed */
} mt_json_problems_t;

static void mt_json_problem(void *data, const mt_rt_t *rt,
                            const mt_store_t *store, const mt_problem_t *pr)
{
    mt_json_problems_t *jp = data;
    char subject[TACK_SUBJECT_SIZE];
    const mt_slot_t *slot = rt && pr->slot >= 0 ? &rt->slots[pr->slot] : NULL;
    json_t *v;

    if (!jp->list) {
        return;
    }
    v = json_pack("{s:s, s:s, s:s?, s:s?, s:s}", "severity",
                  mt_severity_name(pr->severity), "kind",
                  mt_utf8(jp->p, pr->kind), "certificate",
                  slot ? mt_utf8(jp->p, mt_slot_subject(slot, subject)) : NULL,
                  "key_type",
                  slot ? mt_utf8(jp->p, mt_slot_key_type(slot)) : NULL,
                  "message", mt_utf8(jp->p, pr->message));
    if (json_array_append_new(jp->list, v)) {
        json_decref(jp->list);
        jp->list = NULL;
    }
}

/* mt_json_problems returns the problems of |rt| (or of the store |st|),
 * errors first, as an array. */
static json_t *mt_json_problems(apr_pool_t *p, const mt_rt_t *rt,
                                const mt_store_t *st, time_t now)
{
    mt_json_problems_t jp = {p, json_array()};
    int sev;

    for (sev = TACK_PROBLEM_ERROR; sev >= TACK_PROBLEM_WARNING; sev--) {
        if (rt) {
            mt_status_problems(p, rt, now, sev, mt_json_problem, &jp);
        } else {
            mt_status_store_problems(p, st, sev, mt_json_problem, &jp);
        }
    }
    return jp.list;
}

static json_t *mt_json_sigs(apr_pool_t *p, const mt_rt_t *rt)
{
    json_t *sigs = json_array();
    size_t j;

    for (j = 0; sigs && j < rt->nsigs; j++) {
        if (json_array_append_new(sigs,
                                  json_pack("{s:s, s:s}", "key",
                                            mt_utf8(p, rt->sigs[2 * j]), "file",
                                            mt_utf8(p, rt->sigs[2 * j + 1])))) {
            json_decref(sigs);
            sigs = NULL;
        }
    }
    return sigs;
}

static json_t *mt_json_vhost(apr_pool_t *p, const mt_rt_t *rt, time_t now)
{
    char name[TACK_NAME_SIZE];
    json_t *certs = json_array(), *sigs = mt_json_sigs(p, rt), *ctrs, *probs;
    apr_uint64_t req = 0, srv = 0;
    int k;

    for (k = 0; certs && k <= rt->nslots; k++) {
        mt_slot_t tmp;
        const mt_slot_t *slot = mt_rt_slot(rt, k, &tmp);
        apr_uint64_t r = mt_ctr_load(&slot->ctr->requested);
        apr_uint64_t s = mt_ctr_load(&slot->ctr->served);

        req += r;
        srv += s;
        if (k == rt->nslots) {
            break; /* counted in the vhost's totals only */
        }
        if (json_array_append_new(certs,
                                  mt_json_cert(p, rt, slot, r, s, now))) {
            json_decref(certs);
            certs = NULL;
        }
    }
    ctrs = mt_json_counters(req, srv);
    probs = mt_json_problems(p, rt, NULL, now);
    if (!certs || !sigs || !ctrs || !probs) {
        json_decref(certs);
        json_decref(sigs);
        json_decref(ctrs);
        json_decref(probs);
        return NULL;
    }
    return json_pack(
        "{s:s, s:s, s:b, s:b, s:b, s:s?, s:b, s:o, s:o, s:o, s:o}", "name",
        mt_utf8(p, mt_rt_name(rt, name)), "format", mt_format_name(rt->format),
        "pin_activation", rt->pin_activation, "tls13", rt->tls13,
        "tack_required", rt->required, "store",
        rt->store ? mt_utf8(p, rt->store->path) : NULL, "registered",
        rt->registered, "problems", probs, "break_signatures", sigs,
        "certificates", certs, "handshakes", ctrs);
}

/* mt_json_stores returns the stores the vhosts use, each with its path,
 * the number of files served and its problems. */
static json_t *mt_json_stores(apr_pool_t *p, time_t now)
{
    apr_array_header_t *stores = mt_status_stores(p);
    json_t *out = json_array();
    int i;

    for (i = 0; out && i < stores->nelts; i++) {
        const mt_store_t *st = APR_ARRAY_IDX(stores, i, const mt_store_t *);
        json_t *probs = mt_json_problems(p, NULL, st, now);

        if (!probs ||
            json_array_append_new(
                out, json_pack("{s:s, s:i, s:o}", "path", mt_utf8(p, st->path),
                               "files", st->nfiles, "problems", probs))) {
            json_decref(out);
            out = NULL;
        }
    }
    return out;
}
static int mt_json_write(const char *buf, size_t size, void *data)
{
    return ap_rwrite(buf, (int)size, (request_rec *)data) < 0 ? -1 : 0;
}

/* mt_json_dump writes |value| (a reference it takes) as JSON and returns
 * 1, or 0 when it could not be written: the client went away, or (logged)
 * jansson failed.  A value jansson could not build (NULL) is logged and
 * written as null, so that the document stays valid; |what| names it. */
static int mt_json_dump(request_rec *r, json_t *value, size_t flags,
                        const char *what)
{
    int rc;

    if (!value) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "TACK00102: tack-status: cannot build the JSON of %s "
                      "(out of memory?); it is written as null",
                      what);
        return ap_rputs("null", r) >= 0;
    }
    rc = json_dump_callback(value, mt_json_write, r, flags);
    json_decref(value);
    if (rc && !r->connection->aborted) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "TACK00103: tack-status: cannot write the JSON of %s; "
                      "the response is cut short",
                      what);
    }
    return rc == 0;
}

/* mt_json_member writes one member of the top-level object: |key| and
 * |value| (a reference it takes) encoded by jansson.  It returns 0 when the
 * response cannot go on (mt_json_dump). */
static int mt_json_member(request_rec *r, const char *key, json_t *value,
                          int first)
{
    ap_rputs(first ? "{" : ",\n", r);
    if (!mt_json_dump(r, json_string(key), JSON_ENCODE_ANY, key)) {
        json_decref(value);
        return 0;
    }
    ap_rputs(": ", r);
    return mt_json_dump(r, value, JSON_ENCODE_ANY, key);
}

/* mt_json_signing: the certificates waiting for TackSigningKey's
 * background, since when, and its last error. */
static json_t *mt_json_signing(apr_pool_t *p, const mt_totals_t *t)
{
    char error[512];
    apr_time_t at = mt_background_last_error(error, sizeof(error));

    return json_pack("{s:i, s:s?, s:s?, s:s?}", "waiting", t->waiting,
                     "waiting_since",
                     t->waiting_since ? mt_iso_time(p, t->waiting_since) : NULL,
                     "last_error", at ? mt_utf8(p, error) : NULL,
                     "last_error_at", at ? mt_iso_time(p, at) : NULL);
}

/* The document is streamed: the summary members, then the
 * "vhosts" array one element at a time, one line each.  jansson encodes
 * every key and value; only the separators between them are written here.
 * Building the whole tree instead would cost about 5 KB of heap per vhost
 * in the serving child (55 MB at 10,000 vhosts, which glibc keeps).  Every
 * string is made UTF-8 first (mt_utf8), so jansson refuses none; what it
 * still cannot build is logged and written as null (mt_json_dump). */
int mt_status_json(request_rec *r, time_t now)
{
    const char *soonest, *soonest_vhost;
    char name[TACK_NAME_SIZE];
    const apr_array_header_t *vhosts = mt_status_vhosts();
    mt_totals_t t;
    int i;

    ap_set_content_type(r, "application/json");
    if (r->header_only) {
        return OK;
    }
    mt_status_totals(r->pool, &t, now);
    soonest = t.soonest ? mt_utf8(r->pool, MT_ITEM_EXPIRY(t.soonest)) : NULL;
    soonest_vhost =
        t.soonest ? mt_utf8(r->pool, mt_rt_name(t.soonest_rt, name)) : NULL;
    if (!mt_json_member(
            r, "server",
            json_string(mt_utf8(r->pool, ap_get_server_description())), 1) ||
        !mt_json_member(r, "time",
                        json_string(mt_iso_time(r->pool, apr_time_now())), 0) ||
        !mt_json_member(
            r, "counters_since",
            json_string(mt_iso_time(r->pool, mt_status_counters_since())), 0) ||
        !mt_json_member(r, "counters_shared",
                        json_boolean(mt_status_counters_shared()), 0) ||
        !mt_json_member(
            r, "summary",
            json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s?, s:s?}",
                      "vhosts", t.vhosts, "serving", t.serving, "tacks",
                      t.tacks, "expiring_30_days", t.expiring, "expired",
                      t.expired, "errors", t.errors, "warnings", t.warnings,
                      "soonest_expiry", soonest, "soonest_vhost",
                      soonest_vhost),
            0) ||
        !mt_json_member(r, "signing", mt_json_signing(r->pool, &t), 0) ||
        !mt_json_member(r, "handshakes",
                        mt_json_counters(t.requested, t.served), 0) ||
        !mt_json_member(r, "stores", mt_json_stores(r->pool, now), 0)) {
        return OK;
    }
    ap_rputs(",\n\"vhosts\": [", r);
    for (i = 0; vhosts && i < vhosts->nelts; i++) {
        const mt_rt_t *rt = APR_ARRAY_IDX(vhosts, i, mt_rt_t *);

        ap_rputs(i ? ",\n" : "\n", r);
        if (!mt_json_dump(r, mt_json_vhost(r->pool, rt, now), JSON_COMPACT,
                          apr_pstrcat(r->pool, "vhost ",
                                      mt_utf8(r->pool, mt_rt_name(rt, name)),
                                      NULL))) {
            return OK;
        }
    }
    ap_rputs("\n]}\n", r);
    return OK;
}
