/*
 * mod_tack_status.c -- what the module serves, seen from outside: the
 * handshake counters in shared memory, the "tack-status" handler (HTML for
 * people, ?json for monitoring) and a section of mod_status's page.
 *
 * Counters.  Each certificate of each SSL vhost (and, per vhost, "a
 * certificate not in the table") has a slot of two 64-bit counters:
 * handshakes whose ClientHello asked for TACK and, of those, the ones that
 * received a TACK.  tack_cb_ext_add adds to them with relaxed atomic adds
 * (__atomic_fetch_add, one "lock xadd" each on x86-64): no lock, no
 * allocation, no system call, nothing that grows with the number of vhosts.
 * Relaxed ordering is enough: each counter is independent, and a reader
 * only needs every increment to land eventually, not an order between them.
 *
 * The slots live in one anonymous shared-memory segment (apr_shm, mmap'd
 * MAP_SHARED|MAP_ANONYMOUS), created in post_config in the parent before
 * the children fork, so every child process and thread adds to the same
 * numbers.  The slot of each vhost/certificate is fixed at configuration
 * time (tack_status_post_config), so a handshake follows one pointer.
 *
 * Restarts.  A graceful (or full) restart builds a new generation of
 * vhosts, so a new segment is created, sized for it, and each slot takes
 * over the previous values of the slot with the same vhost name and
 * certificate (SHA-256 of its public key): counters survive restarts, a
 * new certificate starts from zero.  The old segment is unmapped in the
 * parent only; children of the old generation still finishing their
 * connections keep it mapped, and what they count after the copy is lost
 * (a few handshakes per graceful restart at most).  Counters restart from
 * zero when httpd is stopped and started.  The segment and the previous
 * generation's index are kept in a subpool of the process pool (found
 * again through pool userdata, since the DSO itself is unloaded and
 * reloaded on restart).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "apr_shm.h"
#include "apr_strings.h"
#include "mod_status.h"

#include <openssl/evp.h>

#include <jansson.h>

#include "mod_tack.h"

APLOG_USE_MODULE(tack);

#define TACK_STATUS_HANDLER "tack-status"
#define TACK_CTR_USERDATA "mod_tack-counters"

/* Each slot's counters are found again after a restart by a key: the first
 * TACK_CTR_KEY_LEN bytes of SHA-256(vhost name, NUL, certificate SPKI hash
 * or "other").  The keys live in the segment, after the counters, so that
 * nothing per slot stays in process memory (bench/findings.md, memory). */
#define TACK_CTR_KEY_LEN 16

/* One generation of counters, kept in the process pool. */
typedef struct {
    apr_pool_t *pool; /* holds the segment */
    size_t n;         /* slots */
    tack_ctr_t *ctrs; /* n counters, then n keys, in the segment */
    const uint8_t (*keys)[TACK_CTR_KEY_LEN];
    apr_time_t since; /* when counting started */
} tack_ctrgen_t;

/* The vhosts of this configuration generation, in pconf. */
static apr_array_header_t *tack_rts;
static apr_time_t tack_ctr_since;
static int tack_ctr_shared;

tack_ctr_t tack_ctr_unset;

static apr_status_t tack_status_forget(void *unused)
{
    tack_rts = NULL;
    tack_ctr_shared = 0;
    return APR_SUCCESS;
}

void tack_status_add(apr_pool_t *pconf, tack_rt_t *rt)
{
    if (!tack_rts) {
        tack_rts = apr_array_make(pconf, 16, sizeof(tack_rt_t *));
        apr_pool_cleanup_register(pconf, NULL, tack_status_forget,
                                  apr_pool_cleanup_null);
    }
    APR_ARRAY_PUSH(tack_rts, tack_rt_t *) = rt;
}

static const char *tack_hex(apr_pool_t *p, const uint8_t *in, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char *out = apr_palloc(p, 2 * len + 1);
    size_t i;

    for (i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * len] = '\0';
    return out;
}

static void tack_ctr_key(const tack_rt_t *rt, const tack_slot_t *slot,
                         uint8_t out[TACK_CTR_KEY_LEN])
{
    uint8_t md[EVP_MAX_MD_SIZE], spki[TACK_HASH_LEN];
    char name[TACK_NAME_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();

    memset(md, 0, sizeof(md));
    memset(spki, 0, sizeof(spki));
    tack_rt_name(rt, name);
    if (slot->cert) {
        tack_spki_hash(slot->cert, spki);
    }
    if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
        EVP_DigestUpdate(ctx, name, strlen(name) + 1) &&
        (slot->cert ? EVP_DigestUpdate(ctx, spki, sizeof(spki))
                    : EVP_DigestUpdate(ctx, "other", 5))) {
        EVP_DigestFinal_ex(ctx, md, &mdlen);
    }
    EVP_MD_CTX_free(ctx);
    memcpy(out, md, TACK_CTR_KEY_LEN); /* all zero if SHA-256 failed */
}

static int tack_ctr_key_cmp(const void *a, const void *b)
{
    return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b,
                  TACK_CTR_KEY_LEN);
}

/* tack_ctr_carry copies the previous generation's values into the slots of
 * the new one with the same key; each old slot is taken once.  The index
 * (a sorted array of pointers to the old keys) lives in |ptemp|. */
static void tack_ctr_carry(apr_pool_t *ptemp, const tack_ctrgen_t *prev,
                           tack_ctrgen_t *gen)
{
    const uint8_t **idx = apr_palloc(ptemp, prev->n * sizeof(*idx) + 1);
    char *taken = apr_pcalloc(ptemp, prev->n + 1);
    size_t i;

    for (i = 0; i < prev->n; i++) {
        idx[i] = prev->keys[i];
    }
    qsort(idx, prev->n, sizeof(*idx), tack_ctr_key_cmp);
    for (i = 0; i < gen->n; i++) {
        const uint8_t *key = gen->keys[i];
        const uint8_t **hit =
            bsearch(&key, idx, prev->n, sizeof(*idx), tack_ctr_key_cmp);
        size_t j;

        if (!hit) {
            continue;
        }
        j = (size_t)(*hit - prev->keys[0]) / TACK_CTR_KEY_LEN;
        if (taken[j]) {
            continue;
        }
        taken[j] = 1;
        gen->ctrs[i] = prev->ctrs[j];
    }
}

int tack_status_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s)
{
    apr_pool_t *proc = s->process->pool, *gp;
    tack_ctrgen_t *prev = NULL, *gen;
    apr_shm_t *shm;
    uint8_t(*keys)[TACK_CTR_KEY_LEN];
    apr_status_t rv;
    size_t n = 0, next = 0, size;
    int i, k;

    /* The first pass of an initial start is thrown away: no segment. */
    if (tack_config_quiet() || !tack_rts) {
        return OK;
    }
    for (i = 0; i < tack_rts->nelts; i++) {
        n += (size_t)APR_ARRAY_IDX(tack_rts, i, tack_rt_t *)->nslots + 1;
    }
    size = n * (sizeof(tack_ctr_t) + TACK_CTR_KEY_LEN);
    apr_pool_userdata_get((void **)&prev, TACK_CTR_USERDATA, proc);
    apr_pool_create(&gp, proc);
    apr_pool_tag(gp, "mod_tack_counters");
    rv = apr_shm_create(&shm, size, NULL, gp);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s,
                     "TACK00100: cannot create the shared-memory segment "
                     "for the handshake counters (%" APR_SIZE_T_FMT
                     " bytes); each child process counts on its own",
                     size);
        apr_pool_destroy(gp);
        for (i = 0; i < tack_rts->nelts; i++) {
            tack_rt_t *rt = APR_ARRAY_IDX(tack_rts, i, tack_rt_t *);

            for (k = 0; k <= rt->nslots; k++) {
                rt->slots[k].ctr = apr_pcalloc(pconf, sizeof(tack_ctr_t));
            }
        }
        tack_ctr_since = apr_time_now();
        return OK;
    }
    gen = apr_pcalloc(gp, sizeof(*gen));
    gen->pool = gp;
    gen->n = n;
    gen->ctrs = apr_shm_baseaddr_get(shm);
    keys = (uint8_t(*)[TACK_CTR_KEY_LEN])(gen->ctrs + n);
    gen->keys = (const uint8_t(*)[TACK_CTR_KEY_LEN])keys;
    gen->since = prev ? prev->since : apr_time_now();
    memset(gen->ctrs, 0, size);
    for (i = 0; i < tack_rts->nelts; i++) {
        tack_rt_t *rt = APR_ARRAY_IDX(tack_rts, i, tack_rt_t *);

        for (k = 0; k <= rt->nslots; k++) {
            tack_ctr_key(rt, &rt->slots[k], keys[next]);
            rt->slots[k].ctr = &gen->ctrs[next++];
        }
    }
    if (prev) {
        tack_ctr_carry(ptemp, prev, gen);
        apr_pool_destroy(prev->pool); /* unmaps it here, not in children */
    }
    apr_pool_userdata_set(gen, TACK_CTR_USERDATA, apr_pool_cleanup_null, proc);
    tack_ctr_since = gen->since;
    tack_ctr_shared = 1;
    ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s,
                 "TACK00101: handshake counters: %" APR_SIZE_T_FMT
                 " slots (%" APR_SIZE_T_FMT " bytes) in shared memory",
                 n, size);
    return OK;
}

/* ---- reading the table --------------------------------------------------- */

static apr_uint64_t tack_load(const apr_uint64_t *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* Totals over the whole server, for summaries. */
typedef struct {
    int vhosts;   /* SSL vhosts */
    int serving;  /* of them, serving at least one TACK */
    int tacks;    /* TACKs served, counting each (vhost, cert) */
    int expiring; /* of them, expiring within 30 days */
    int expired;  /* of them, expired (no longer served) */
    const tack_item_t *soonest;
    apr_uint64_t requested, served;
} tack_totals_t;

static void tack_totals(tack_totals_t *t, time_t now)
{
    int i, k, j;

    memset(t, 0, sizeof(*t));
    for (i = 0; tack_rts && i < tack_rts->nelts; i++) {
        const tack_rt_t *rt = APR_ARRAY_IDX(tack_rts, i, tack_rt_t *);
        int serving = 0;

        t->vhosts++;
        for (k = 0; k <= rt->nslots; k++) {
            const tack_slot_t *slot = &rt->slots[k];

            t->requested += tack_load(&slot->ctr->requested);
            t->served += tack_load(&slot->ctr->served);
            for (j = 0; j < slot->ntacks; j++) {
                const tack_item_t *item = slot->tacks[j];

                t->tacks++;
                if (item->expires <= now) {
                    t->expired++;
                    continue;
                }
                serving = 1;
                if (item->expires - now < TACK_EXPIRY_WARN_SECS) {
                    t->expiring++;
                }
                if (!t->soonest || item->expires < t->soonest->expires) {
                    t->soonest = item;
                }
            }
        }
        t->serving += serving;
    }
}

static const char *tack_format_name(int format)
{
    return format == TACK_FORMAT_02 ? "draft-02" : "draft-00";
}

/* Days left, rounded down; negative once expired. */
static long tack_days_left(time_t expires, time_t now)
{
    long secs = (long)(expires - now);

    return secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
}

static const char *tack_iso_time(apr_pool_t *p, apr_time_t t)
{
    apr_time_exp_t tm;

    apr_time_exp_gmt(&tm, t);
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                        tm.tm_sec);
}

static int tack_tack_active(const tack_rt_t *rt, const tack_item_t *item)
{
    return rt->pin_activation && !item->file->inactive;
}

/* ---- text ---------------------------------------------------------------- */

/* tack_utf8 returns |s| as valid UTF-8 by the rule of tack_utf8_escape (each
 * byte that is not UTF-8 as \xNN, a backslash as \\): |s| itself when
 * nothing changes, else a copy in |p|; NULL stays NULL.  Every string of the
 * JSON and of the HTML page goes through it: a ServerName or a path is
 * bytes, jansson refuses a string that is not UTF-8, and the page says it is
 * UTF-8. */
static const char *tack_utf8(apr_pool_t *p, const char *s)
{
    size_t len, n;
    char *out;

    if (!s) {
        return NULL;
    }
    len = strlen(s);
    n = tack_utf8_escape((const uint8_t *)s, len, NULL, 0);
    if (n == len) {
        return s; /* each escape is longer than the byte it stands for */
    }
    out = apr_palloc(p, n + 1);
    tack_utf8_escape((const uint8_t *)s, len, out, n + 1);
    return out;
}

/* ---- JSON (jansson) ------------------------------------------------------ */

/* Each tack_json_* builder returns a new value or NULL when jansson could
 * not build it (it takes the references of what it packs either way). */

static json_t *tack_json_counters(apr_uint64_t requested, apr_uint64_t served)
{
    return json_pack("{s:I, s:I}", "requested", (json_int_t)requested, "served",
                     (json_int_t)served);
}

static json_t *tack_json_tack(apr_pool_t *p, const tack_rt_t *rt,
                              const tack_item_t *item, time_t now)
{
    return json_pack(
        "{s:s, s:i, s:i, s:s, s:I, s:b, s:s, s:s, s:s, s:b}", "key",
        tack_utf8(p, item->fingerprint), "min_generation",
        (int)item->tack.min_generation, "generation",
        (int)item->tack.generation, "expires", tack_utf8(p, item->expiry),
        "days_left", (json_int_t)tack_days_left(item->expires, now), "expired",
        item->expires <= now, "target_hash",
        tack_hex(p, item->tack.target_hash, TACK_HASH_LEN), "file",
        tack_utf8(p, item->file->path), "source",
        item->file->store ? "TackStore" : "TackFile", "active",
        tack_tack_active(rt, item));
}

static json_t *tack_json_cert(apr_pool_t *p, const tack_rt_t *rt,
                              const tack_slot_t *slot, apr_uint64_t r,
                              apr_uint64_t s, time_t now)
{
    char subject[TACK_SUBJECT_SIZE];
    uint8_t spki[TACK_HASH_LEN];
    json_t *tacks = json_array(), *ctrs;
    int i;

    for (i = 0; tacks && i < slot->ntacks; i++) {
        if (json_array_append_new(tacks,
                                  tack_json_tack(p, rt, slot->tacks[i], now))) {
            json_decref(tacks);
            return NULL;
        }
    }
    ctrs = tack_json_counters(r, s);
    if (!tacks || !ctrs) {
        json_decref(tacks);
        json_decref(ctrs);
        return NULL;
    }
    memset(spki, 0, sizeof(spki));
    tack_spki_hash(slot->cert, spki);
    return json_pack("{s:s, s:s?, s:s, s:o, s:o}", "subject",
                     tack_utf8(p, tack_slot_subject(slot, subject)),
                     "key_type", tack_utf8(p, slot->key_type), "spki_sha256",
                     tack_hex(p, spki, sizeof(spki)), "tacks", tacks,
                     "handshakes", ctrs);
}

static json_t *tack_json_vhost(apr_pool_t *p, const tack_rt_t *rt, time_t now)
{
    char name[TACK_NAME_SIZE];
    json_t *certs = json_array(), *sigs = json_array(), *ctrs;
    apr_uint64_t req = 0, srv = 0;
    size_t j;
    int k;

    for (k = 0; certs && k <= rt->nslots; k++) {
        const tack_slot_t *slot = &rt->slots[k];
        apr_uint64_t r = tack_load(&slot->ctr->requested);
        apr_uint64_t s = tack_load(&slot->ctr->served);

        req += r;
        srv += s;
        if (k == rt->nslots) {
            break; /* counted in the vhost's totals only */
        }
        if (json_array_append_new(certs,
                                  tack_json_cert(p, rt, slot, r, s, now))) {
            json_decref(certs);
            certs = NULL;
        }
    }
    for (j = 0; sigs && j < rt->nsigs; j++) {
        if (json_array_append_new(
                sigs, json_pack("{s:s, s:s}", "key",
                                tack_utf8(p, rt->sig_keys[j]), "file",
                                tack_utf8(p, rt->sig_files[j])))) {
            json_decref(sigs);
            sigs = NULL;
        }
    }
    ctrs = tack_json_counters(req, srv);
    if (!certs || !sigs || !ctrs) {
        json_decref(certs);
        json_decref(sigs);
        json_decref(ctrs);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:b, s:b, s:s?, s:b, s:o, s:o, s:o}", "name",
                     tack_utf8(p, tack_rt_name(rt, name)), "format",
                     tack_format_name(rt->format), "pin_activation",
                     rt->pin_activation, "tls13", rt->tls13, "store",
                     rt->store ? tack_utf8(p, rt->store->path) : NULL,
                     "registered", rt->registered, "break_signatures", sigs,
                     "certificates", certs, "handshakes", ctrs);
}

static int tack_json_write(const char *buf, size_t size, void *data)
{
    return ap_rwrite(buf, (int)size, (request_rec *)data) < 0 ? -1 : 0;
}

/* tack_json_dump writes |value| (a reference it takes) as JSON and returns
 * 1, or 0 when it could not be written: the client went away, or (logged)
 * jansson failed.  A value jansson could not build (NULL) is logged and
 * written as null, so that the document stays valid; |what| names it. */
static int tack_json_dump(request_rec *r, json_t *value, size_t flags,
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
    rc = json_dump_callback(value, tack_json_write, r, flags);
    json_decref(value);
    if (rc && !r->connection->aborted) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "TACK00103: tack-status: cannot write the JSON of %s; "
                      "the response is cut short",
                      what);
    }
    return rc == 0;
}

/* tack_json_member writes one member of the top-level object: |key| and
 * |value| (a reference it takes) encoded by jansson.  It returns 0 when the
 * response cannot go on (tack_json_dump). */
static int tack_json_member(request_rec *r, const char *key, json_t *value,
                            int first)
{
    ap_rputs(first ? "{" : ",\n", r);
    if (!tack_json_dump(r, json_string(key), JSON_ENCODE_ANY, key)) {
        json_decref(value);
        return 0;
    }
    ap_rputs(": ", r);
    return tack_json_dump(r, value, JSON_ENCODE_ANY, key);
}

/* tack_status_json streams the document: the summary members, then the
 * "vhosts" array one element at a time, one line each.  jansson encodes
 * every key and value; only the separators between them are written here.
 * Building the whole tree instead would cost about 5 KB of heap per vhost
 * in the serving child (55 MB at 10,000 vhosts, which glibc keeps).  Every
 * string is made UTF-8 first (tack_utf8), so jansson refuses none; what it
 * still cannot build is logged and written as null (tack_json_dump). */
static int tack_status_json(request_rec *r, time_t now)
{
    const char *soonest;
    tack_totals_t t;
    int i;

    ap_set_content_type(r, "application/json");
    if (r->header_only) {
        return OK;
    }
    tack_totals(&t, now);
    soonest = t.soonest ? tack_utf8(r->pool, t.soonest->expiry) : NULL;
    if (!tack_json_member(
            r, "server",
            json_string(tack_utf8(r->pool, ap_get_server_description())),
            1) ||
        !tack_json_member(r, "time",
                          json_string(tack_iso_time(r->pool, apr_time_now())),
                          0) ||
        !tack_json_member(r, "counters_since",
                          json_string(tack_iso_time(r->pool, tack_ctr_since)),
                          0) ||
        !tack_json_member(r, "counters_shared", json_boolean(tack_ctr_shared),
                          0) ||
        !tack_json_member(
            r, "summary",
            json_pack("{s:i, s:i, s:i, s:i, s:i, s:s?}", "vhosts", t.vhosts,
                      "serving", t.serving, "tacks", t.tacks,
                      "expiring_30_days", t.expiring, "expired", t.expired,
                      "soonest_expiry", soonest),
            0) ||
        !tack_json_member(r, "handshakes",
                          tack_json_counters(t.requested, t.served), 0)) {
        return OK;
    }
    ap_rputs(",\n\"vhosts\": [", r);
    for (i = 0; tack_rts && i < tack_rts->nelts; i++) {
        const tack_rt_t *rt = APR_ARRAY_IDX(tack_rts, i, tack_rt_t *);
        char name[TACK_NAME_SIZE];

        ap_rputs(i ? ",\n" : "\n", r);
        if (!tack_json_dump(r, tack_json_vhost(r->pool, rt, now), JSON_COMPACT,
                            apr_pstrcat(r->pool, "vhost ",
                                        tack_utf8(r->pool,
                                                  tack_rt_name(rt, name)),
                                        NULL))) {
            return OK;
        }
    }
    ap_rputs("\n]}\n", r);
    return OK;
}

/* ---- HTML ---------------------------------------------------------------- */

/* tack_esc returns |s| for the HTML page: made UTF-8 (tack_utf8), then
 * HTML-escaped; NULL becomes "". */
static const char *tack_esc(request_rec *r, const char *s)
{
    return ap_escape_html2(r->pool, s ? tack_utf8(r->pool, s) : "", 0);
}

static void tack_html_tack_cells(request_rec *r, const tack_rt_t *rt,
                                 const tack_item_t *item, time_t now)
{
    long days = tack_days_left(item->expires, now);

    ap_rprintf(r,
               "<td><code>%s</code>%s</td><td>%u / %u</td>"
               "<td>%s</td><td class=\"%s\">%s</td>"
               "<td><code>%s</code></td><td>%s <code>%s</code></td>",
               tack_esc(r, item->fingerprint),
               item->file->inactive ? " (inactive)" : "",
               (unsigned)item->tack.min_generation,
               (unsigned)item->tack.generation, tack_esc(r, item->expiry),
               days < 0    ? "bad"
               : days < 30 ? "warn"
                           : "ok",
               days < 0 ? "expired, not served"
                        : apr_psprintf(r->pool, "%ld", days),
               tack_hex(r->pool, item->tack.target_hash, TACK_HASH_LEN),
               item->file->store ? "TackStore" : "TackFile",
               tack_esc(r, item->file->path));
}

static void tack_html_vhost(request_rec *r, const tack_rt_t *rt, time_t now)
{
    char subject[TACK_SUBJECT_SIZE], name[TACK_NAME_SIZE];
    apr_uint64_t req = 0, srv = 0;
    size_t j;
    int k, i;

    for (k = 0; k <= rt->nslots; k++) {
        req += tack_load(&rt->slots[k].ctr->requested);
        srv += tack_load(&rt->slots[k].ctr->served);
    }
    ap_rprintf(
        r,
        "<h2>%s</h2>\n<p>Format %s, pin activation %s, TLS 1.3 %s, "
        "store %s%s. Handshakes: %" APR_UINT64_T_FMT
        " requested, %" APR_UINT64_T_FMT " served a TACK.</p>\n",
        tack_esc(r, tack_rt_name(rt, name)), tack_format_name(rt->format),
        rt->pin_activation ? "on" : "off", rt->tls13 ? "on" : "off",
        rt->store ? tack_esc(r, rt->store->path) : "none",
        rt->registered ? "" : ". <b>Extension not registered</b>", req, srv);
    ap_rputs("<table>\n<tr><th>Certificate</th><th>TACK key</th>"
             "<th>min gen. / gen.</th><th>Expires</th><th>Days left</th>"
             "<th>Target hash</th><th>From</th><th>Requested</th>"
             "<th>Served</th></tr>\n",
             r);
    for (k = 0; k < rt->nslots; k++) {
        const tack_slot_t *slot = &rt->slots[k];
        int rows = slot->ntacks ? slot->ntacks : 1;

        ap_rprintf(r, "<tr><td rowspan=\"%d\">%s %s</td>", rows,
                   tack_esc(r, slot->key_type),
                   tack_esc(r, tack_slot_subject(slot, subject)));
        if (!slot->ntacks) {
            ap_rputs("<td colspan=\"6\">no TACK</td>", r);
        }
        for (i = 0; i < slot->ntacks; i++) {
            if (i) {
                ap_rputs("<tr>", r);
            }
            tack_html_tack_cells(r, rt, slot->tacks[i], now);
            if (i == 0) {
                ap_rprintf(r,
                           "<td rowspan=\"%d\">%" APR_UINT64_T_FMT "</td>"
                           "<td rowspan=\"%d\">%" APR_UINT64_T_FMT "</td>",
                           rows, tack_load(&slot->ctr->requested), rows,
                           tack_load(&slot->ctr->served));
            }
            ap_rputs("</tr>\n", r);
        }
        if (!slot->ntacks) {
            ap_rprintf(r,
                       "<td>%" APR_UINT64_T_FMT "</td><td>%" APR_UINT64_T_FMT
                       "</td></tr>\n",
                       tack_load(&slot->ctr->requested),
                       tack_load(&slot->ctr->served));
        }
    }
    ap_rputs("</table>\n", r);
    if (rt->nsigs) {
        ap_rputs("<p>Break signatures:</p>\n<ul>\n", r);
        for (j = 0; j < rt->nsigs; j++) {
            ap_rprintf(r, "<li>key <code>%s</code> from %s</li>\n",
                       tack_esc(r, rt->sig_keys[j]),
                       tack_esc(r, rt->sig_files[j]));
        }
        ap_rputs("</ul>\n", r);
    } else {
        ap_rputs("<p>Break signatures: none.</p>\n", r);
    }
}

static int tack_status_html(request_rec *r, time_t now)
{
    tack_totals_t t;
    int i;

    tack_totals(&t, now);
    ap_set_content_type(r, "text/html; charset=utf-8");
    if (r->header_only) {
        return OK;
    }
    ap_rputs("<!DOCTYPE html>\n<html><head><title>TACK status</title>\n"
             "<style>body{font-family:sans-serif}table{border-collapse:"
             "collapse}td,th{border:1px solid #999;padding:2px 6px;"
             "text-align:left}td.warn{background:#fd8}td.bad{background:"
             "#f88}code{font-size:90%}</style></head>\n<body>\n"
             "<h1>TACK status</h1>\n",
             r);
    ap_rprintf(r,
               "<p>Server: %s<br>Time: %s<br>Counters since %s (%s)</p>\n"
               "<p>%d SSL virtual host%s, %d serving a TACK; %d TACK%s, %d "
               "expiring within 30 days, %d expired. Soonest expiry: %s. "
               "Handshakes: %" APR_UINT64_T_FMT " requested a TACK, "
               "%" APR_UINT64_T_FMT " received one.</p>\n"
               "<p><a href=\"?json\">JSON</a></p>\n",
               tack_esc(r, ap_get_server_description()),
               tack_iso_time(r->pool, apr_time_now()),
               tack_iso_time(r->pool, tack_ctr_since),
               tack_ctr_shared ? "shared by all processes"
                               : "per process: no shared memory",
               t.vhosts, t.vhosts == 1 ? "" : "s", t.serving, t.tacks,
               t.tacks == 1 ? "" : "s", t.expiring, t.expired,
               t.soonest ? tack_esc(r, t.soonest->expiry) : "none", t.requested,
               t.served);
    for (i = 0; tack_rts && i < tack_rts->nelts; i++) {
        tack_html_vhost(r, APR_ARRAY_IDX(tack_rts, i, tack_rt_t *), now);
    }
    ap_rputs("</body></html>\n", r);
    return OK;
}

/* tack_args_json returns 1 when the query string holds the word "json"
 * ("?json", "?json&x", "?x&json"). */
static int tack_args_json(const char *args)
{
    const char *p = args;

    while (p && *p) {
        size_t n = strcspn(p, "&;");

        if (n == 4 && !strncmp(p, "json", 4)) {
            return 1;
        }
        p += n;
        p += *p ? 1 : 0;
    }
    return 0;
}

static int tack_status_handler(request_rec *r)
{
    if (!r->handler || strcmp(r->handler, TACK_STATUS_HANDLER)) {
        return DECLINED;
    }
    r->allowed |= (AP_METHOD_BIT << M_GET);
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    if (tack_args_json(r->args)) {
        return tack_status_json(r, time(NULL));
    }
    return tack_status_html(r, time(NULL));
}

/* ---- mod_status ---------------------------------------------------------- */

/* tack_status_hook adds a short section to mod_status's page (and key:
 * value lines to its ?auto form). */
static int tack_status_hook(request_rec *r, int flags)
{
    tack_totals_t t;

    tack_totals(&t, time(NULL));
    if (flags & AP_STATUS_SHORT) {
        ap_rprintf(r,
                   "TackVhosts: %d\nTackServingVhosts: %d\n"
                   "TackExpiringSoon: %d\nTackExpired: %d\n"
                   "TackHandshakesRequested: %" APR_UINT64_T_FMT "\n"
                   "TackHandshakesServed: %" APR_UINT64_T_FMT "\n",
                   t.vhosts, t.serving, t.expiring, t.expired, t.requested,
                   t.served);
        return OK;
    }
    ap_rprintf(r,
               "<hr />\n<h2>TACK (mod_tack)</h2>\n<dl>\n"
               "<dt>%d SSL virtual host%s, %d serving a TACK</dt>\n"
               "<dt>%d TACKs expiring within 30 days, %d expired; soonest "
               "expiry %s</dt>\n"
               "<dt>Handshakes since %s: %" APR_UINT64_T_FMT
               " requested a TACK, %" APR_UINT64_T_FMT " received one</dt>\n"
               "</dl>\n<p>Details: the <code>tack-status</code> handler "
               "(see docs/directives.md).</p>\n",
               t.vhosts, t.vhosts == 1 ? "" : "s", t.serving, t.expiring,
               t.expired, t.soonest ? tack_esc(r, t.soonest->expiry) : "none",
               tack_iso_time(r->pool, tack_ctr_since), t.requested, t.served);
    return OK;
}

void tack_status_register_hooks(apr_pool_t *p)
{
    ap_hook_handler(tack_status_handler, NULL, NULL, APR_HOOK_MIDDLE);
    APR_OPTIONAL_HOOK(ap, status_hook, tack_status_hook, NULL, NULL,
                      APR_HOOK_MIDDLE);
}
