/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_status.c -- what the module serves, seen from outside: the
 * handshake counters in shared memory, the "tack-status" handler (HTML for
 * people, ?json and ?metrics for monitoring: mod_tack_status_html.c,
 * mod_tack_status_json.c, mod_tack_metrics.c), the problems all three
 * show first, and a section of mod_status's page.
 *
 * Counters.  Each certificate of each SSL vhost (and, per vhost, "a
 * certificate not in the table") has a slot of two 64-bit counters:
 * handshakes whose ClientHello asked for TACK and, of those, the ones that
 * received a TACK.  mt_cb_ext_add adds to them with relaxed atomic adds
 * (__atomic_fetch_add, one "lock xadd" each on x86-64): no lock, no
 * allocation, no system call, nothing that grows with the number of vhosts.
 * Relaxed ordering is enough: each counter is independent, and a reader
 * only needs every increment to land eventually, not an order between them.
 *
 * The slots live in one anonymous shared-memory segment (apr_shm, mmap'd
 * MAP_SHARED|MAP_ANONYMOUS), created in post_config in the parent before
 * the children fork, so every child process and thread adds to the same
 * numbers.  The slot of each vhost/certificate is fixed at configuration
 * time (mt_status_post_config), so a handshake follows one pointer.
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
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "http_protocol.h"
#include "apr_shm.h"
#include "apr_strings.h"
#include "mod_status.h"

#include <openssl/evp.h>

#include "mod_tack_status.h"
#include "mod_tack_load.h"
#include "mod_tack_store.h"
#include "mod_tack_guard.h"
#include "mod_tack_signer.h"
#include "mod_tack_background.h"
#include "mod_tack_runtime.h"
#include "tack_utf8.h"

APLOG_USE_MODULE(tack);

#define TACK_STATUS_HANDLER "tack-status"

/* Each slot's counters are found again after a restart by a key: the first
 * TACK_CTR_KEY_LEN bytes of SHA-256(vhost name, NUL, certificate SPKI hash
 * or "other").  The keys live in the segment, after the counters, so that
 * nothing per slot stays in process memory (bench/findings.md, memory). */
#define TACK_CTR_KEY_LEN 16

/* One generation of counters, kept by the process (mt_proc_t.counters)
 * for the next generation to carry on. */
typedef struct mt_ctrgen {
    apr_pool_t *pool; /* holds the segment */
    size_t n;         /* slots */
    mt_ctr_t *ctrs;   /* n counters, then n keys, in the segment */
    const uint8_t (*keys)[TACK_CTR_KEY_LEN];
    apr_time_t since; /* when counting started */
} mt_ctrgen_t;

/* The status of this configuration generation (mt_gen_t.status): its
 * vhosts' tables, in pconf, and its counters' start and whether they are
 * shared. */
struct mt_status {
    apr_array_header_t *rts; /* mt_rt_t * */
    apr_time_t since;
    int shared;
};

void mt_status_gen_init(mt_gen_t *gen)
{
    struct mt_status *ms = apr_pcalloc(gen->pconf, sizeof(*ms));

    ms->rts = apr_array_make(gen->pconf, 1, sizeof(mt_rt_t *));
    gen->status = ms;
}

static struct mt_status *mt_status_get(void)
{
    return mt_gen()->status;
}

void mt_status_add(apr_pool_t *pconf, mt_rt_t *rt)
{
    struct mt_status *ms = mt_status_get();

    if (!ms->rts->nelts) {
        /* Sized once to every server of the configuration (each has at
         * most one table): grown by doubling, the arrays it outgrew stay
         * in pconf, about 26 bytes a vhost at 10,000 against 8. */
        const server_rec *s;
        int n = 0;

        for (s = ap_server_conf; s; s = s->next) {
            n++;
        }
        ms->rts = apr_array_make(pconf, n, sizeof(mt_rt_t *));
    }
    APR_ARRAY_PUSH(ms->rts, mt_rt_t *) = rt;
}

static void mt_ctr_key(const mt_rt_t *rt, const mt_slot_t *slot,
                       uint8_t out[TACK_CTR_KEY_LEN])
{
    uint8_t md[EVP_MAX_MD_SIZE], spki[TACK_HASH_LEN];
    char name[TACK_NAME_SIZE];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();

    memset(md, 0, sizeof(md));
    memset(spki, 0, sizeof(spki));
    mt_rt_name(rt, name);
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

static int mt_ctr_key_cmp(const void *a, const void *b)
{
    return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b,
                  TACK_CTR_KEY_LEN);
}

/* mt_ctr_carry copies the previous generation's values into the slots of
 * the new one with the same key; each old slot is taken once.  The index
 * (a sorted array of pointers to the old keys) lives in |ptemp|. */
static void mt_ctr_carry(apr_pool_t *ptemp, const mt_ctrgen_t *prev,
                         mt_ctrgen_t *gen)
{
    const uint8_t **idx = apr_palloc(ptemp, prev->n * sizeof(*idx) + 1);
    char *taken = apr_pcalloc(ptemp, prev->n + 1);
    size_t i;

    for (i = 0; i < prev->n; i++) {
        idx[i] = prev->keys[i];
    }
    qsort(idx, prev->n, sizeof(*idx), mt_ctr_key_cmp);
    for (i = 0; i < gen->n; i++) {
        const uint8_t *key = gen->keys[i];
        const uint8_t **hit =
            bsearch(&key, idx, prev->n, sizeof(*idx), mt_ctr_key_cmp);
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

typedef struct {
    int rank;
    const server_rec *s; /* the list's, by which a table finds its rank */
    mt_rt_t *rt;         /* a table, once ranked */
} mt_ranked_t;

static int mt_ranked_cmp(const void *a, const void *b)
{
    return ((const mt_ranked_t *)a)->rank - ((const mt_ranked_t *)b)->rank;
}

static int mt_ranked_key_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const mt_ranked_t *)a)->s;
    uintptr_t y = (uintptr_t)((const mt_ranked_t *)b)->s;

    return x < y ? -1 : x > y;
}

/* mt_status_order puts the vhosts in configuration order, for the page,
 * the JSON and the metrics.  httpd links each <VirtualHost> in front of
 * the ones read before it (core.c, virtualhost_section: s->next =
 * main_server->next) and mod_ssl initialises them in list order, so they
 * arrive as: the main server, the last vhost, ..., the first.  The rank
 * comes from the list, not from the order of arrival.  The two arrays are
 * malloc'd, not the pass's: at 10,000 vhosts what ptemp holds at the end
 * of the pass stays mapped in the parent (APR keeps what its pools free),
 * while malloc_trim gives this back. */
static void mt_status_order(server_rec *s_main)
{
    struct mt_status *ms = mt_status_get();
    mt_ranked_t *list, *v, *hit;
    size_t n = 0, i;
    server_rec *s;

    for (s = s_main->next; s; s = s->next) {
        n++;
    }
    list = malloc(sizeof(*list) * (n + 1));
    v = malloc(sizeof(*v) * ((size_t)ms->rts->nelts + 1));
    if (!list || !v) {
        free(list);
        free(v);
        return; /* the order of arrival, then */
    }
    i = 0;
    for (s = s_main->next; s; s = s->next, i++) {
        list[i].s = s;
        list[i].rank = (int)(n - i); /* the first vhost read is last: 1 */
    }
    qsort(list, n, sizeof(*list), mt_ranked_key_cmp);
    for (i = 0; i < (size_t)ms->rts->nelts; i++) {
        mt_rt_t *rt = APR_ARRAY_IDX(ms->rts, i, mt_rt_t *);
        mt_ranked_t want = {0, rt->s, NULL};

        hit = n ? bsearch(&want, list, n, sizeof(*list), mt_ranked_key_cmp)
                : NULL;
        v[i].rank = rt->s == s_main ? 0 : hit ? hit->rank : INT_MAX - 1;
        v[i].rt = rt;
    }
    qsort(v, (size_t)ms->rts->nelts, sizeof(*v), mt_ranked_cmp);
    for (i = 0; i < (size_t)ms->rts->nelts; i++) {
        APR_ARRAY_IDX(ms->rts, i, mt_rt_t *) = v[i].rt;
    }
    free(list);
    free(v);
}

/* |ptemp| holds what only the hand-over needs; a failure costs shared
 * counters only (each process counts its own). */
int mt_status_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s)
{
    struct mt_status *ms = mt_status_get();
    apr_pool_t *proc = s->process->pool, *gp;
    mt_ctrgen_t *prev = NULL, *gen;
    apr_shm_t *shm;
    uint8_t(*keys)[TACK_CTR_KEY_LEN];
    apr_status_t rv;
    size_t n = 0, next = 0, size;
    int i, k;

    /* The first pass of an initial start is thrown away: no segment. */
    if (mt_quiet() || !ms->rts->nelts) {
        return OK;
    }
    mt_status_order(s);
    for (i = 0; i < ms->rts->nelts; i++) {
        n += (size_t)APR_ARRAY_IDX(ms->rts, i, mt_rt_t *)->nslots + 1;
    }
    size = n * (sizeof(mt_ctr_t) + TACK_CTR_KEY_LEN);
    prev = mt_proc()->counters;
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
        for (i = 0; i < ms->rts->nelts; i++) {
            mt_rt_t *rt = APR_ARRAY_IDX(ms->rts, i, mt_rt_t *);

            mt_handshake_counters(
                rt, apr_pcalloc(pconf,
                                sizeof(mt_ctr_t) * ((size_t)rt->nslots + 1)));
        }
        ms->since = apr_time_now();
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
    for (i = 0; i < ms->rts->nelts; i++) {
        mt_rt_t *rt = APR_ARRAY_IDX(ms->rts, i, mt_rt_t *);

        for (k = 0; k <= rt->nslots; k++) {
            mt_slot_t tmp;

            mt_ctr_key(rt, mt_rt_slot(rt, k, &tmp), keys[next + (size_t)k]);
        }
        mt_handshake_counters(rt, &gen->ctrs[next]);
        next += (size_t)rt->nslots + 1;
    }
    if (prev) {
        mt_ctr_carry(ptemp, prev, gen);
        apr_pool_destroy(prev->pool); /* unmaps it here, not in children */
    }
    mt_proc()->counters = gen;
    ms->since = gen->since;
    ms->shared = 1;
    ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s,
                 "TACK00101: handshake counters: %" APR_SIZE_T_FMT
                 " slots (%" APR_SIZE_T_FMT " bytes) in shared memory",
                 n, size);
    return OK;
}

/* ---- reading the table --------------------------------------------------- */

const apr_array_header_t *mt_status_vhosts(void)
{
    const struct mt_status *ms = mt_status_get();
    return ms->rts;
}

apr_time_t mt_status_counters_since(void)
{
    const struct mt_status *ms = mt_status_get();
    return ms->since;
}

int mt_status_counters_shared(void)
{
    const struct mt_status *ms = mt_status_get();
    return ms->shared;
}

int mt_status_activates_pins(const mt_rt_t *rt, const mt_item_t *item)
{
    return rt->pin_activation && !item->file->inactive;
}

/* By the rule of tack_utf8_escape (each byte that is not UTF-8 as \xNN, a
 * backslash as \\; NULL stays NULL).  Every string of the JSON, the HTML page
 * and the metrics goes through it: a ServerName or a path is bytes, jansson
 * refuses a string that is not UTF-8, and the page and the metrics say they are
 * UTF-8. */
const char *mt_status_utf8(apr_pool_t *p, const char *s)
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

#define mt_utf8 mt_status_utf8
#define mt_hex mt_hex

/* ---- problems ------------------------------------------------------------ */

/* One pass of mt_status_problems: where to send what it finds. */
typedef struct {
    apr_pool_t *p;
    const mt_rt_t *rt;
    int severity;
    mt_status_problem_fn *fn;
    void *data;
    int n;
} mt_pass_t;

static void mt_emit(mt_pass_t *ps, int severity, const char *kind, int slot,
                    const char *message)
{
    mt_problem_t pr;

    if (ps->severity && ps->severity != severity) {
        return;
    }
    pr.severity = severity;
    pr.kind = kind;
    pr.slot = slot;
    pr.message = message;
    ps->fn(ps->data, ps->rt, NULL, &pr);
    ps->n++;
}

/* mt_status_late_item makes the item of the TACK the background signed
 * for |slot|, |late| its published answer. */
static const mt_item_t *mt_status_late_item(apr_pool_t *p, const mt_rt_t *rt,
                                            const mt_slot_t *slot,
                                            const mt_late_t *late)
{
    const mt_conf_t *conf = mt_conf_get(rt->s);
    const char *path = late->written && rt->store && slot->cert
                           ? mt_store_path(p, rt->store, slot->cert)
                           : NULL;
    mt_item_t *it = mt_load_item(
        p, rt->s, "TackSigningKey", path ? path : mt_conf_sign(conf)->key,
        mt_conf_sign(conf)->key_where, path ? rt->store : NULL, &late->tack);

    it->ends_with_cert = 1;
    return it;
}

int mt_status_slot_tacks(apr_pool_t *p, const mt_rt_t *rt,
                         const mt_slot_t *slot, const mt_item_t **out)
{
    const mt_late_t *late = mt_background_answer(slot->pending);
    int j;

    if (late) {
        out[0] = mt_status_late_item(p, rt, slot, late);
        return 1;
    }
    for (j = 0; j < slot->ntacks; j++) {
        out[j] = slot->tacks[j];
    }
    return slot->ntacks;
}

/* mt_problems_waiting reports certificate |k|, waiting for the TACK the
 * background signs: a warning while it is young and nothing failed, an
 * error once the signing key failed or it waits for longer than two
 * retries. */
static void mt_problems_waiting(mt_pass_t *ps, int k)
{
    apr_time_t since = mt_background_waiting(ps->rt->slots[k].pending);
    char error[512];
    apr_time_t now = apr_time_now(),
               failed = mt_background_last_error(error, sizeof(error));
    long waited = (long)apr_time_sec(now - since);
    const char *key = mt_conf_sign(mt_conf_get(ps->rt->s))->key;

    mt_emit(ps,
            failed || waited > 2 * mt_signer_retry_secs()
                ? TACK_PROBLEM_ERROR
                : TACK_PROBLEM_WARNING,
            "waiting_signature", k,
            apr_psprintf(ps->p,
                         "waits for its TACK from TackSigningKey %s since %s "
                         "(%s), served without one until then%s%s",
                         mt_utf8(ps->p, key), mt_status_iso_time(ps->p, since),
                         mt_duration(ps->p, waited), failed ? ": " : "",
                         failed ? mt_utf8(ps->p, error) : ""));
}

/* mt_problems_slot reports the TACKs of certificate |k|: expired ones
 * and, when none is left and the vhost is |required| to serve one
 * (TackRequired, mt_resolve_required), that it serves no TACK: an error.
 * A vhost not required to serve one is "not configured": no problem. */
static void mt_problems_slot(mt_pass_t *ps, int k, int required, time_t now)
{
    const mt_slot_t *slot = &ps->rt->slots[k];
    const mt_item_t *tacks[TACK_EXT02_MAX_TACKS];
    int j, live = 0, expired = 0;
    int n = mt_status_slot_tacks(ps->p, ps->rt, slot, tacks);

    if (mt_background_waiting(slot->pending)) {
        mt_problems_waiting(ps, k);
        if (!slot->ntacks) {
            return;
        }
    }
    for (j = 0; j < n; j++) {
        const mt_item_t *it = tacks[j];

        if (it->expires > now) {
            live++;
            if (it->expires - now < TACK_EXPIRY_WARN_SECS) {
                mt_emit(
                    ps, TACK_PROBLEM_WARNING, "expiring", k,
                    apr_psprintf(ps->p, "TACK key %s expires in %s (%s): %s",
                                 it->fingerprint,
                                 mt_duration(ps->p, (long)(it->expires - now)),
                                 MT_ITEM_EXPIRY(it),
                                 mt_utf8(ps->p, it->file->path)));
            }
            continue;
        }
        expired++;
        mt_emit(ps, TACK_PROBLEM_ERROR, "expired", k,
                apr_psprintf(ps->p,
                             "TACK key %s expired %s, no longer served: %s",
                             it->fingerprint, MT_ITEM_EXPIRY(it),
                             mt_utf8(ps->p, it->file->path)));
    }
    if (!live && !expired && slot->lapsed && !n) {
        /* expired before this start: left out, and counted as expired */
        mt_emit(ps, TACK_PROBLEM_ERROR, "expired", k,
                apr_psprintf(ps->p, "TACK key %s expired %s, not served: %s",
                             slot->lapsed->fingerprint,
                             MT_ITEM_EXPIRY(slot->lapsed),
                             mt_utf8(ps->p, slot->lapsed->file->path)));
    } else if (!live && !expired && required) {
        mt_emit(ps, TACK_PROBLEM_ERROR, "no_tack", k,
                "no TACK for this certificate");
    }
}

/* The problems: expired TACKs, certificates serving no TACK, the
 * extension not registered, those the guard recorded for the vhost
 * (mt_guard_problems), TACKs expiring within 30 days. */
int mt_status_problems(apr_pool_t *p, const mt_rt_t *rt, time_t now,
                       int severity, mt_status_problem_fn *fn, void *data)
{
    mt_pass_t ps = {p, rt, severity, fn, data, 0};
    const apr_array_header_t *found = mt_guard_problems(rt->s);
    int k;

    if (!rt->registered) {
        mt_emit(&ps, TACK_PROBLEM_ERROR, "not_registered", -1,
                "the TLS extension could not be registered on this "
                "vhost (TACK00055): nothing is served");
    }
    for (k = 0; k < rt->nslots; k++) {
        mt_problems_slot(&ps, k, rt->required, now);
    }
    for (k = 0; found && k < found->nelts; k++) {
        const mt_problem_t *pr = &APR_ARRAY_IDX(found, k, mt_problem_t);

        mt_emit(&ps, pr->severity, pr->kind,
                pr->slot < rt->nslots ? pr->slot : -1, pr->message);
    }
    return ps.n;
}

static void mt_emit_store(mt_pass_t *ps, const mt_store_t *st, int severity,
                          const char *kind, const char *msg)
{
    mt_problem_t pr = {severity, kind, -1, msg};

    if (!ps->severity || ps->severity == severity) {
        ps->fn(ps->data, NULL, st, &pr);
        ps->n++;
    }
}

/* Unreadable or malformed files, expired files, warnings (a file others
 * may write...). */
int mt_status_store_problems(apr_pool_t *p, const mt_store_t *st, int severity,
                             mt_status_problem_fn *fn, void *data)
{
    mt_pass_t ps = {p, NULL, severity, fn, data, 0};
    int j;

    if (st->error) {
        mt_emit_store(&ps, st, TACK_PROBLEM_ERROR, "unreadable",
                      mt_utf8(p, st->error));
    }
    for (j = 0; st->bad && j < st->bad->nelts; j++) {
        mt_emit_store(
            &ps, st, TACK_PROBLEM_ERROR, "malformed",
            mt_utf8(p, APR_ARRAY_IDX(st->bad, j, mt_file_t *)->error));
    }
    for (j = 0; st->expired && j < st->expired->nelts; j++) {
        const mt_file_t *f = APR_ARRAY_IDX(st->expired, j, mt_file_t *);

        if (!f->removed && f->items && f->items[0].matched) {
            mt_emit_store(&ps, st, TACK_PROBLEM_WARNING, "expired_file",
                          mt_utf8(p, f->error));
        }
    }
    for (j = 0; st->warnings && j < st->warnings->nelts; j++) {
        mt_emit_store(&ps, st, TACK_PROBLEM_WARNING, "warning",
                      mt_utf8(p, APR_ARRAY_IDX(st->warnings, j, const char *)));
    }
    return ps.n;
}

apr_array_header_t *mt_status_stores(apr_pool_t *p)
{
    const struct mt_status *ms = mt_status_get();
    apr_array_header_t *out = apr_array_make(p, 2, sizeof(mt_store_t *));
    apr_hash_t *seen = apr_hash_make(p);
    int i;

    for (i = 0; ms->rts && i < ms->rts->nelts; i++) {
        const mt_store_t *st = APR_ARRAY_IDX(ms->rts, i, mt_rt_t *)->store;

        if (st && !apr_hash_get(seen, &st, sizeof(st))) {
            apr_hash_set(seen, apr_pmemdup(p, &st, sizeof(st)), sizeof(st), st);
            APR_ARRAY_PUSH(out, const mt_store_t *) = st;
        }
    }
    return out;
}

static void mt_count_problem(void *data, const mt_rt_t *rt,
                             const mt_store_t *store, const mt_problem_t *pr)
{
    mt_totals_t *t = data;

    if (pr->severity == TACK_PROBLEM_ERROR) {
        t->errors++;
    } else {
        t->warnings++;
    }
}

/* mt_totals_vhost adds the TACKs and counters of |rt| to |t|. */
static void mt_totals_vhost(apr_pool_t *p, mt_totals_t *t, const mt_rt_t *rt,
                            time_t now)
{
    const mt_item_t *tacks[TACK_EXT02_MAX_TACKS];
    int k, j, n, serving = 0;
    apr_time_t since;

    t->vhosts++;
    for (k = 0; k <= rt->nslots; k++) {
        mt_slot_t tmp;
        const mt_slot_t *slot = mt_rt_slot(rt, k, &tmp);

        t->requested += mt_ctr_load(&slot->ctr->requested);
        t->served += mt_ctr_load(&slot->ctr->served);
        n = mt_status_slot_tacks(p, rt, slot, tacks);
        since = mt_background_waiting(slot->pending);
        if (since) {
            t->waiting++;
            if (!t->waiting_since || since < t->waiting_since) {
                t->waiting_since = since;
            }
        }
        if (slot->lapsed && !n) {
            t->expired++; /* expired before this start, not served */
        }
        for (j = 0; j < n; j++) {
            const mt_item_t *item = tacks[j];

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
                t->soonest_rt = rt;
            }
        }
    }
    t->serving += serving;
}

void mt_status_totals(apr_pool_t *p, mt_totals_t *t, time_t now)
{
    const struct mt_status *ms = mt_status_get();
    apr_array_header_t *stores;
    apr_pool_t *tmp;
    int i;

    memset(t, 0, sizeof(*t));
    apr_pool_create(&tmp, p);
    for (i = 0; ms->rts && i < ms->rts->nelts; i++) {
        const mt_rt_t *rt = APR_ARRAY_IDX(ms->rts, i, mt_rt_t *);

        mt_totals_vhost(p, t, rt, now);
        mt_status_problems(tmp, rt, now, 0, mt_count_problem, t);
        apr_pool_clear(tmp); /* the messages are not kept */
    }
    stores = mt_status_stores(tmp);
    for (i = 0; i < stores->nelts; i++) {
        mt_status_store_problems(tmp,
                                 APR_ARRAY_IDX(stores, i, const mt_store_t *),
                                 0, mt_count_problem, t);
    }
    apr_pool_destroy(tmp);
}

const char *mt_status_format_name(int format)
{
    return format == TACK_FORMAT_02 ? "draft-02" : "draft-00";
}

long mt_status_days_left(time_t expires, time_t now)
{
    long secs = (long)(expires - now);

    return secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
}

const char *mt_status_iso_time(apr_pool_t *p, apr_time_t t)
{
    apr_time_exp_t tm;

    apr_time_exp_gmt(&tm, t);
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                        tm.tm_sec);
}

/* mt_args_has returns 1 when the query string holds |word| ("?json",
 * "?json&x", "?x&json"). */
static int mt_args_has(const char *args, const char *word)
{
    const char *p = args;
    size_t len = strlen(word);

    while (p && *p) {
        size_t n = strcspn(p, "&;");

        if (n == len && !strncmp(p, word, len)) {
            return 1;
        }
        p += n;
        p += *p ? 1 : 0;
    }
    return 0;
}

static int mt_status_handler(request_rec *r)
{
    if (!r->handler || strcmp(r->handler, TACK_STATUS_HANDLER)) {
        return DECLINED;
    }
    r->allowed |= (AP_METHOD_BIT << M_GET);
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    if (mt_args_has(r->args, "json")) {
        return mt_status_json(r, time(NULL));
    }
    if (mt_args_has(r->args, "metrics")) {
        return mt_status_metrics(r, time(NULL));
    }
    return mt_status_html(r, time(NULL));
}

/* ---- mod_status ---------------------------------------------------------- */

/* mt_status_hook adds a short section to mod_status's page (and key:
 * value lines to its ?auto form). */
static int mt_status_hook(request_rec *r, int flags)
{
    const struct mt_status *ms = mt_status_get();
    mt_totals_t t;

    mt_status_totals(r->pool, &t, time(NULL));
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
    ap_rprintf(
        r,
        "<hr />\n<h2>TACK (mod_tack)</h2>\n<dl>\n"
        "<dt>%d SSL virtual host%s, %d serving a TACK</dt>\n"
        "<dt>%d TACKs expiring within 30 days, %d expired; soonest "
        "expiry %s</dt>\n"
        "<dt>Handshakes since %s: %" APR_UINT64_T_FMT
        " requested a TACK, %" APR_UINT64_T_FMT " received one</dt>\n"
        "</dl>\n<p>Details: the <code>tack-status</code> handler "
        "(see docs/directives.md).</p>\n",
        t.vhosts, t.vhosts == 1 ? "" : "s", t.serving, t.expiring, t.expired,
        t.soonest ? ap_escape_html2(r->pool, MT_ITEM_EXPIRY(t.soonest), 0)
                  : "none",
        mt_status_iso_time(r->pool, ms->since), t.requested, t.served);
    return OK;
}

void mt_status_register_hooks(apr_pool_t *p)
{
    ap_hook_handler(mt_status_handler, NULL, NULL, APR_HOOK_MIDDLE);
    APR_OPTIONAL_HOOK(ap, status_hook, mt_status_hook, NULL, NULL,
                      APR_HOOK_MIDDLE);
}
