/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_guard.c -- pin continuity: never drop a pinned TACK silently.
 *
 * A client that holds an active pin for a name refuses it when it no
 * longer shows a TACK under the pinned key, for up to 30 days (draft-00
 * section 5: a pin seen with activation on lives until the last time it
 * was confirmed plus MIN(30 days, that time minus when it was first
 * seen)).  So the module remembers, per SSL virtual host (name:port) and
 * certificate type, the TACK keys it served with pin activation on and
 * since when, in a small state file (TackStateFile) that survives
 * restarts and reboots, as clients' pins do.
 *
 * It also remembers, per name and TACK key, the highest min_generation
 * served, with activation on or off: a client raises its key record from
 * any TACK it sees, and from then on refuses a lower generation under that
 * key (certificate_revoked).  A TACK below that floor is refused under
 * "apache2 -t"; at a start it is logged, and the TACK served before is
 * served again where it still matches the certificate.
 *
 * At every configuration pass the guard compares what each vhost is about
 * to serve with that memory.  When a key whose pins can still be active
 * would no longer be served for a certificate (a renewed certificate
 * without a TACK, a new TACK key, a TACK left out), and no break signature
 * of the vhost breaks it, and no TackLetPinsLapse records the decision:
 *   - under "apache2 -t" it refuses the configuration (it warns instead
 *     when the cause is the TACK's expiry: a condition of time, which must
 *     not block every later reload);
 *   - at a real start or restart it logs one error per certificate and
 *     serves what it can.
 * Certificates known only at start-up (mod_md's) are invisible to -t; the
 * guard then acts at the start.  The memory itself, its file and its
 * writing, is mod_tack_memory.c's; the guard notes what each certificate
 * serves and judges it against the memory.
 */
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"

#include "mod_tack_guard.h"
#include "mod_tack_memory.h"
#include "mod_tack_load.h"
#include "tack_state.h"

APLOG_USE_MODULE(tack);

/* Pins that can be active for less than this are not worth an error: a
 * TACK served for a few minutes (a mistake put right at once) has pins
 * that lapse within as many minutes. */
#define TACK_GUARD_MIN_SECS (10L * 60)
/* What one certificate of one vhost serves in this pass. */
typedef struct {
    mt_served_t sv; /* what it serves, as the memory records it
                     * (sv.conf: also its TackSigningKey) */
    server_rec *s;
    int served;        /* a real start serves it (not -t) */
    int slot;          /* the certificate's index in the vhost's */
    const char *label; /* the certificate, for messages */
    uint8_t hash[TACK_HASH_LEN];
    int nbroken;
    uint8_t broken[TACK_MAX_BREAKSIGS][TACK_KEY_LEN];
    /* Under -t: the public key of the vhost's TackSigningKey, which the
     * start signs a missing TACK under, or NULL. */
    const uint8_t *signing;
} mt_guard_note_t;

/* The guard's part (mt_gen_t.guard), made in pre_config: this pass's
 * notes, what each certificate serves, in a pool of its own that
 * mt_guard_end clears (the background judges its floor afresh after the
 * pass); and what a real start found wrong with each vhost for the
 * status page (server_rec * -> apr_array of mt_problem_t, in pconf). */
struct mt_guard {
    apr_pool_t *pool;
    apr_array_header_t *notes; /* mt_guard_note_t */
    apr_hash_t *problems;
};

void mt_guard_gen_init(mt_gen_t *gen)
{
    struct mt_guard *gd = apr_pcalloc(gen->pconf, sizeof(*gd));

    gd->pool = mt_pool_apart(gen->pconf, "tack_guard");
    gd->notes = apr_array_make(gd->pool, 16, sizeof(mt_guard_note_t));
    gd->problems = apr_hash_make(gen->pconf);
    gen->guard = gd;
}

static struct mt_guard *mt_guard_get(void)
{
    return mt_gen()->guard;
}

const apr_array_header_t *mt_guard_problems(server_rec *s)
{
    return apr_hash_get(mt_guard_get()->problems, &s, sizeof(s));
}

/* ---- what this pass serves -------------------------------------------------
 */

int mt_guard_remembers(server_rec *s)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *names;
    int i;

    mt_memory_load(s);
    names = mt_memory_vhost_names(gd->pool, s);
    for (i = 0; i < names->nelts; i++) {
        if (mt_memory_knows(APR_ARRAY_IDX(names, i, const char *))) {
            return 1;
        }
    }
    return 0;
}

static int mt_keys_have(const uint8_t (*keys)[TACK_KEY_LEN], int n,
                        const uint8_t *key)
{
    int i;

    for (i = 0; i < n; i++) {
        if (mt_key_equal(keys[i], key)) {
            return 1;
        }
    }
    return 0;
}

/* mt_guard_problem records |msg| as an error of |n|'s vhost and
 * certificate for the status page (mt_guard_problems). */
static void mt_guard_problem(const mt_guard_note_t *n, const char *msg)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *list = apr_hash_get(gd->problems, &n->s, sizeof(n->s));
    mt_problem_t *pr;

    if (!list) {
        apr_pool_t *pconf = mt_gen()->pconf;
        server_rec **key = apr_pmemdup(pconf, &n->s, sizeof(n->s));

        list = apr_array_make(pconf, 1, sizeof(mt_problem_t));
        apr_hash_set(gd->problems, key, sizeof(*key), list);
    }
    pr = apr_array_push(list);
    pr->severity = TACK_PROBLEM_ERROR;
    pr->kind = "pin_continuity";
    pr->slot = n->slot;
    pr->message = msg;
}

/* Nothing is noted when the vhost has no pin activation and nothing is
 * remembered of it.  A certificate with no TACK gets one under |signing|
 * at the start, so a pin on that key is not lost. */
void mt_guard_note(server_rec *s, const mt_conf_t *conf, const mt_sel_t *sel,
                   int served, const uint8_t *signing)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *names;
    apr_pool_t *p;
    size_t j;
    int c, k;

    if (mt_quiet() || !sel->ncerts) {
        return;
    }
    p = gd->pool;
    mt_memory_load(s);
    names = mt_memory_vhost_names(p, s);
    for (c = 0; c < sel->ncerts * names->nelts; c++) {
        const mt_certsel_t *cert = &sel->certs[c % sel->ncerts];
        const char *id = apr_psprintf(
            p, "%s %s", APR_ARRAY_IDX(names, c / sel->ncerts, const char *),
            cert->key_type ? cert->key_type : "?");
        mt_guard_note_t *n;

        if (!sel->pin_activation && !mt_memory_keys(id) && !cert->ntacks &&
            !(cert->pending && signing)) {
            continue; /* nothing served, nothing pinned, nothing remembered */
        }
        n = apr_array_push(gd->notes);
        memset(n, 0, sizeof(*n));
        n->s = s;
        n->served = served;
        n->slot = c % sel->ncerts;
        n->sv.conf = conf;
        n->sv.id = id;
        n->label = apr_pstrdup(p, cert->label);
        memcpy(n->hash, cert->hash, TACK_HASH_LEN);
        n->sv.activation = sel->pin_activation;
        for (k = 0; k < cert->ntacks; k++) {
            uint8_t *raw = apr_palloc(p, TACK_LEN);

            memcpy(raw, cert->tacks[k]->wire, TACK_LEN);
            memcpy(n->sv.keys[k], mt_item_key(cert->tacks[k]), TACK_KEY_LEN);
            n->sv.tacks[k] = raw;
        }
        n->sv.nkeys = cert->ntacks;
        for (j = 0; j < sel->nsigs; j++) {
            memcpy(n->broken[j], sel->sigs[j].public_key, TACK_KEY_LEN);
        }
        n->nbroken = (int)sel->nsigs;
        n->signing = signing ? apr_pmemdup(p, signing, TACK_KEY_LEN) : NULL;
        if (cert->pending && n->signing && n->sv.nkeys < TACK_EXT02_MAX_TACKS &&
            !mt_keys_have(n->sv.keys, n->sv.nkeys, n->signing)) {
            /* The background signs it under the key the pass loaded,
             * right after the start: served, for the memory (its bytes
             * are remembered at the next pass, from the store). */
            memcpy(n->sv.keys[n->sv.nkeys], n->signing, TACK_KEY_LEN);
            n->sv.tacks[n->sv.nkeys++] = NULL;
        }
    }
}

/* ---- the guard -------------------------------------------------------------
 */

/* Remembered as served with pin activation, for long enough, and not let
 * lapse: what TackSigningKey keeps served against a TACK under another
 * key. */
long mt_guard_pinned(server_rec *s, const mt_conf_t *conf, const char *key_type,
                     const uint8_t *key)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *names;
    long now, until = 0;
    int i, j;

    if (mt_quiet() || mt_memory_lapsed(conf, key)) {
        return 0;
    }
    now = mt_memory_now(s);
    names = mt_memory_vhost_names(gd->pool, s);
    for (i = 0; i < names->nelts; i++) {
        const apr_array_header_t *mem = mt_memory_keys(apr_psprintf(
            gd->pool, "%s %s", APR_ARRAY_IDX(names, i, const char *),
            key_type ? key_type : "?"));

        for (j = 0; mem && j < mem->nelts; j++) {
            const tack_state_key_t *m =
                &APR_ARRAY_IDX(mem, j, tack_state_key_t);
            long end = tack_state_pins_until(m, now);

            if (mt_key_equal(m->key, key) && end > now + TACK_GUARD_MIN_SECS &&
                end > until) {
                until = end;
            }
        }
    }
    return until;
}

/* mt_guard_floor_in returns the floor |mem| remembers for |key| at |now|
 * (the highest min_generation served under it, while the memory keeps
 * it), or -1; |*m| is its entry. */
static int mt_guard_floor_in(const apr_array_header_t *mem, const uint8_t *key,
                             long now, const tack_state_key_t **m)
{
    int j;

    for (j = 0; mem && j < mem->nelts; j++) {
        const tack_state_key_t *k = &APR_ARRAY_IDX(mem, j, tack_state_key_t);

        if (mt_key_equal(k->key, key) && tack_state_keep_until(k, now) > now) {
            *m = k;
            return k->min_generation;
        }
    }
    return -1;
}

/* With pin activation on or off, while the memory keeps it: clients that
 * saw it refuse a lower generation, so TackSigningKey signs at least at
 * it. */
int mt_guard_floor(server_rec *s, const char *key_type, const uint8_t *key)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *names;
    const tack_state_key_t *m;
    long now;
    int i, floor = 0, f;

    if (mt_quiet()) {
        return 0;
    }
    now = mt_memory_now(s);
    names = mt_memory_vhost_names(gd->pool, s);
    for (i = 0; i < names->nelts; i++) {
        f = mt_guard_floor_in(
            mt_memory_keys(apr_psprintf(gd->pool, "%s %s",
                                        APR_ARRAY_IDX(names, i, const char *),
                                        key_type ? key_type : "?")),
            key, now, &m);
        if (f > floor) {
            floor = f;
        }
    }
    return floor;
}

/* mt_guard_note_vhost writes how messages name |n|'s vhost: "NAME:PORT",
 * and the name clients reach it by when that is another one (an alias,
 * another spelling, the port it listens on): "www.a.test:443 (as
 * a.test:443)". */
static void mt_guard_note_vhost(const mt_guard_note_t *n,
                                char buf[TACK_NAME_SIZE])
{
    char vname[TACK_NAME_SIZE];
    const char *sp = strrchr(n->sv.id, ' ');
    size_t len = sp ? (size_t)(sp - n->sv.id) : strlen(n->sv.id);

    mt_vhost_name_buf(n->s, vname);
    if (strlen(vname) == len && !strncmp(vname, n->sv.id, len)) {
        apr_cpystrn(buf, vname, TACK_NAME_SIZE);
    } else {
        apr_snprintf(buf, TACK_NAME_SIZE, "%s (as %.*s)", vname, (int)len,
                     n->sv.id);
    }
}

/* mt_guard_report logs one broken continuity; returns 1 when it is a
 * problem that refuses the configuration (under -t, not an expiry). */
static int mt_guard_report(const mt_guard_note_t *n, const tack_state_key_t *m,
                           long now)
{
    char fpr[TACK_FINGERPRINT_SIZE], from[TACK_TIME_SIZE],
        until[TACK_TIME_SIZE];
    char expired[TACK_TIME_SIZE] = "";
    char name[TACK_NAME_SIZE];
    long end = tack_state_pins_until(m, now);
    tack_t t;
    int expiry = 0, strict = mt_strict();
    const char *ways, *msg;

    tack_fingerprint(m->key, fpr);
    tack_time_format((uint32_t)(m->first_seen / 60), from);
    tack_time_format((uint32_t)(end / 60), until);
    if (m->has_tack && tack_parse(&t, m->tack, TACK_LEN) == TACK_OK &&
        tack_expiration_time(&t) <= now &&
        tack_check_target_hash(&t, n->hash) == TACK_OK) {
        expiry = 1; /* the same certificate: only the TACK's time ran out */
        tack_time_format(t.expiration, expired);
    }
    ways =
        apr_psprintf(n->s->process->pconf,
                     "ways out: serve a TACK under %s for this certificate "
                     "(" TACK_PROG " sign -k KEY -c CERT into its TackFile or "
                     "TackStore, or TackSigningKey with that key), a "
                     "break signature for %s (TackBreakSigsFile), or "
                     "\"TackLetPinsLapse %s\" to let those pins lapse",
                     fpr, fpr, fpr);
    mt_guard_note_vhost(n, name);
    if (strict && expiry) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, n->s,
                     "TACK00041: vhost %s: %s: its TACK under key %s expired "
                     "at %s; clients that pinned that key here (served with "
                     "pin activation since %s) refuse this name until %s; %s",
                     name, n->label, fpr, expired, from, until, ways);
        return 0;
    }
    msg = apr_psprintf(n->s->process->pconf,
                       "%s would be served without a TACK under key %s%s%s: "
                       "clients that pinned that key here (served with pin "
                       "activation since %s) refuse this name until %s; %s",
                       n->label, fpr, expiry ? ", whose TACK expired at " : "",
                       expired, from, until, ways);
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, n->s, "%s: vhost %s: %s",
                 strict ? "TACK00040" : "TACK00042", name, msg);
    if (n->served) {
        mt_guard_problem(n, msg);
    }
    return strict;
}

/* mt_guard_gone warns about vhosts the memory holds pinned keys for that
 * are no longer configured: their name may now reach another vhost, which
 * pinned clients refuse.  A warning: removing a site is a decision (a
 * server-level TackLetPinsLapse silences it). */
static void mt_guard_gone(server_rec *s_main, long now)
{
    struct mt_guard *gd = mt_guard_get();
    apr_hash_t *names = apr_hash_make(gd->pool);
    const mt_conf_t *mconf = mt_conf_get(s_main);
    apr_hash_index_t *hi;
    server_rec *s;

    for (s = s_main; s; s = s->next) {
        apr_array_header_t *vn = mt_memory_vhost_names(gd->pool, s);
        int k;

        for (k = 0; k < vn->nelts; k++) {
            apr_hash_set(names, APR_ARRAY_IDX(vn, k, const char *),
                         APR_HASH_KEY_STRING, "");
        }
    }
    for (hi = apr_hash_first(gd->pool, mt_memory_entries()); hi;
         hi = apr_hash_next(hi)) {
        const char *id = apr_hash_this_key(hi);
        const apr_array_header_t *mem = apr_hash_this_val(hi);
        const char *sp = strrchr(id, ' ');
        int j;

        if (!sp || apr_hash_get(names, id, (apr_ssize_t)(sp - id))) {
            continue;
        }
        for (j = 0; j < mem->nelts; j++) {
            const tack_state_key_t *m =
                &APR_ARRAY_IDX(mem, j, tack_state_key_t);
            char fpr[TACK_FINGERPRINT_SIZE], until[TACK_TIME_SIZE];

            if (tack_state_pins_until(m, now) <= now + TACK_GUARD_MIN_SECS ||
                mt_memory_lapsed(mconf, m->key)) {
                continue;
            }
            tack_fingerprint(m->key, fpr);
            tack_time_format((uint32_t)(tack_state_pins_until(m, now) / 60),
                             until);
            ap_log_error(
                APLOG_MARK, APLOG_WARNING, 0, s_main,
                "TACK00043: vhost %.*s (%s certificate) is no longer "
                "configured; it served TACK key %s with pin "
                "activation, and clients that pinned it refuse the "
                "name until %s wherever it now leads (\"TackLetPinsLapse "
                "%s\" in the server config records the decision)",
                (int)(sp - id), id, sp + 1, fpr, until, fpr);
        }
    }
}

/* mt_guard_check_dir judges the state file's directory: whoever can
 * write it can replace the memory (and so silence the guard, or make it
 * refuse every change).  Owned by root (or by the user an httpd started
 * without root runs as, who can write the file anyway) and writable by its
 * owner only, or it is refused under -t (TACK00069) and warned about at a
 * start (TACK00070).
 * A directory not made yet is made by the start, mode 0755.  Returns the
 * number of problems. */
static int mt_guard_check_dir(server_rec *s_main)
{
    struct mt_guard *gd = mt_guard_get();
    char *dir = apr_pstrdup(gd->pool, mt_memory_file()), *slash;
    const char *why = NULL;
    struct stat sb;

    slash = strrchr(dir, '/');
    if (!slash) {
        return 0;
    }
    *(slash == dir ? slash + 1 : slash) = '\0';
    if (stat(dir, &sb) != 0) {
        return 0;
    }
    if (sb.st_uid != 0 && sb.st_uid != geteuid()) {
        why = apr_psprintf(gd->pool,
                           "owned by uid %ld, not by root: chown "
                           "root %s",
                           (long)sb.st_uid, dir);
    } else if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
        why =
            apr_psprintf(gd->pool, "writable by %s: chmod go-w %s",
                         sb.st_mode & S_IWOTH ? "everyone" : "its group", dir);
    }
    if (!why) {
        return 0;
    }
    if (mt_strict()) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                     "TACK00069: TackStateFile %s: its directory is %s "
                     "(whoever can write it can replace the memory of pins "
                     "clients hold)",
                     mt_memory_file(), why);
        return 1;
    }
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                 "TACK00070: TackStateFile %s: its directory is %s (whoever "
                 "can write it can replace the memory of pins clients hold)",
                 mt_memory_file(), why);
    return 0;
}

/* mt_guard_floor_report logs each TACK |n| serves whose generation is
 * below the floor the memory holds for its name and key, and under -t a
 * TackSigningGeneration below it; returns the number of problems (under
 * -t: a TACK below the floor refuses the configuration). */
static int mt_guard_floor_report(const mt_guard_note_t *n, long now)
{
    const apr_array_header_t *mem = mt_memory_keys(n->sv.id);
    const tack_state_key_t *m;
    char fpr[TACK_FINGERPRINT_SIZE], name[TACK_NAME_SIZE];
    const char *msg;
    int k, floor, problems = 0;
    tack_t t;

    mt_guard_note_vhost(n, name);
    for (k = 0; k < n->sv.nkeys; k++) {
        if (!n->sv.tacks[k] ||
            tack_parse(&t, n->sv.tacks[k], TACK_LEN) != TACK_OK ||
            (floor = mt_guard_floor_in(mem, n->sv.keys[k], now, &m)) < 0 ||
            t.generation >= floor) {
            continue;
        }
        tack_fingerprint(n->sv.keys[k], fpr);
        msg = apr_psprintf(
            n->s->process->pconf,
            "%s: its TACK under key %s has generation %u, below "
            "min_generation %d, which a TACK under that key served here "
            "raised: clients that saw it refuse this one "
            "(certificate_revoked); sign it again at that generation "
            "(" TACK_PROG " sign -g %d, or TackSigningGeneration %d %d)",
            n->label, fpr, t.generation, floor, floor, floor, floor);
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, n->s, "TACK00142: vhost %s: %s",
                     name, msg);
        if (n->served) {
            mt_guard_problem(n, msg);
        }
        problems += mt_strict();
    }
    /* What TackSigningKey signs: at the higher of TackSigningGeneration
     * and the floor (mod_tack_sign.c), said here under -t. */
    if (mt_strict() && n->signing &&
        (floor = mt_guard_floor_in(mem, n->signing, now, &m)) > 0 &&
        mt_conf_sign_gen(n->sv.conf, 0) < floor) {
        tack_fingerprint(n->signing, fpr);
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, n->s,
                     "TACK00146: vhost %s: TackSigningGeneration %d is below "
                     "min_generation %d, which a TACK under key %s served "
                     "here raised; TackSigningKey signs at %d instead (say "
                     "TackSigningGeneration %d %d to make it so)",
                     name, mt_conf_sign_gen(n->sv.conf, 0), floor, fpr, floor,
                     floor, floor);
    }
    return problems;
}

/* A TACK's expiry is only a warning, even under -t (mt_guard_report). */
int mt_guard_check(server_rec *s_main)
{
    struct mt_guard *gd = mt_guard_get();
    long now;
    int problems = 0, i, j;

    if (mt_quiet()) {
        return 0;
    }
    problems += mt_guard_check_dir(s_main);
    now = mt_memory_now(s_main); /* loads, even with nothing noted */
    mt_guard_gone(s_main, now);
    for (i = 0; i < gd->notes->nelts; i++) {
        const mt_guard_note_t *n =
            &APR_ARRAY_IDX(gd->notes, i, mt_guard_note_t);
        const apr_array_header_t *mem = mt_memory_keys(n->sv.id);

        problems += mt_guard_floor_report(n, now);
        for (j = 0; mem && j < mem->nelts; j++) {
            const tack_state_key_t *m =
                &APR_ARRAY_IDX(mem, j, tack_state_key_t);

            if (tack_state_pins_until(m, now) <= now + TACK_GUARD_MIN_SECS ||
                mt_keys_have(n->sv.keys, n->sv.nkeys, m->key) ||
                mt_keys_have(n->broken, n->nbroken, m->key) ||
                mt_memory_lapsed(n->sv.conf, m->key)) {
                continue;
            }
            /* The start signs under TackSigningKey only for a certificate
             * with no TACK at all (one under another key, a file dropped
             * into the store, is served instead): -t takes that into
             * account, and the key's loading was checked under -t. */
            if (mt_strict() && n->sv.nkeys == 0 && n->signing &&
                mt_key_equal(n->signing, m->key)) {
                continue; /* the start or the background signs one */
            }
            problems += mt_guard_report(n, m, now);
        }
    }
    return problems;
}

void mt_guard_end(server_rec *s_main)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *served;
    int i;

    served = apr_array_make(gd->pool, gd->notes->nelts + 1,
                            sizeof(const mt_served_t *));
    for (i = 0; i < gd->notes->nelts; i++) {
        APR_ARRAY_PUSH(served, const mt_served_t *) =
            &APR_ARRAY_IDX(gd->notes, i, mt_guard_note_t).sv;
    }
    mt_memory_end(s_main, served);
    apr_pool_clear(gd->pool);
    gd->notes = apr_array_make(gd->pool, 16, sizeof(mt_guard_note_t));
}

/* ---- keeping the last good bytes
 * --------------------------------------------- */

/* mt_failed_file returns a TackFile or TackStore file of |conf| that
 * could not be loaded in this pass for another reason than its expiry. */
static const mt_file_t *mt_failed_file(const mt_conf_t *conf)
{
    const mt_file_t *f;

    for (f = conf->files; f; f = f->next) {
        if (f->error && !f->expired) {
            return f;
        }
    }
    if (conf->store && conf->store->loaded && conf->store->bad->nelts) {
        return APR_ARRAY_IDX(conf->store->bad, 0, mt_file_t *);
    }
    return NULL;
}

/* mt_recover_one serves |m|'s TACK for |cert| when it is still valid. */
static void mt_recover_one(apr_pool_t *p, server_rec *s,
                           const mt_file_t *failed, mt_sel_t *sel,
                           mt_certsel_t *cert, const tack_state_key_t *m,
                           long now)
{
    char name[TACK_NAME_SIZE];
    mt_item_t *item;
    tack_t t;
    size_t j;

    if (!m->has_tack || tack_state_pins_until(m, now) <= now ||
        tack_parse(&t, m->tack, TACK_LEN) != TACK_OK ||
        tack_check_target_hash(&t, cert->hash) != TACK_OK ||
        tack_expiration_time(&t) <= now || tack_verify(&t) != TACK_OK) {
        return;
    }
    for (j = 0; j < sel->nsigs; j++) {
        if (mt_key_equal(sel->sigs[j].public_key, m->key)) {
            return; /* broken since: never vouch with it */
        }
    }
    item = mt_load_item(p, s, "TackStateFile", mt_memory_file(), failed->where,
                        NULL, &t);
    cert->tacks[cert->ntacks++] = item;
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                 "TACK00049: vhost %s: %s %s cannot be loaded (%s); for %s, "
                 "whose clients may have pinned key %s, the TACK served "
                 "before is served again from TackStateFile %s (it expires "
                 "%s): fix the file, or remove the directive to stop serving "
                 "it",
                 mt_vhost_name_buf(s, name), failed->kind, failed->path,
                 failed->error, cert->label, item->fingerprint,
                 item->file->path, MT_ITEM_EXPIRY(item));
}

/* mt_recover_floor serves again, in place of |cert|'s TACK number |t|
 * whose generation is below the floor remembered for its key, the TACK
 * the memory holds for that key when it still vouches for |cert| at or
 * above the floor (TACK00143); else the TACK stays, and the guard's check
 * says so (TACK00142). */
static void mt_recover_floor(apr_pool_t *p, server_rec *s, mt_sel_t *sel,
                             mt_certsel_t *cert, int t,
                             const apr_array_header_t *names, long now)
{
    struct mt_guard *gd = mt_guard_get();
    mt_item_t *low = cert->tacks[t], *item;
    const tack_state_key_t *m, *best = NULL;
    int i, floor = -1, f;
    char name[TACK_NAME_SIZE];
    size_t j;
    tack_t good;

    for (i = 0; i < names->nelts; i++) {
        f = mt_guard_floor_in(
            mt_memory_keys(apr_psprintf(gd->pool, "%s %s",
                                        APR_ARRAY_IDX(names, i, const char *),
                                        cert->key_type ? cert->key_type : "?")),
            mt_item_key(low), now, &m);
        if (f > floor) {
            floor = f;
        }
        if (f >= 0 && m->has_tack &&
            tack_parse(&good, m->tack, TACK_LEN) == TACK_OK &&
            good.generation > mt_item_gen(low)) {
            best = m;
        }
    }
    if (mt_item_gen(low) >= floor || !best ||
        tack_parse(&good, best->tack, TACK_LEN) != TACK_OK ||
        good.generation < floor ||
        tack_check_target_hash(&good, cert->hash) != TACK_OK ||
        tack_expiration_time(&good) <= now || tack_verify(&good) != TACK_OK) {
        return;
    }
    for (j = 0; j < sel->nsigs; j++) {
        if (mt_key_equal(sel->sigs[j].public_key, good.public_key)) {
            return; /* broken since: never vouch with it */
        }
    }
    item = mt_load_item(p, s, "TackStateFile", mt_memory_file(),
                        low->file->where, NULL, &good);
    cert->tacks[t] = item;
    ap_log_error(
        APLOG_MARK, APLOG_ERR, 0, s,
        "TACK00143: vhost %s: %s: the TACK of %s %s under key %s has "
        "generation %u, below min_generation %d, which a TACK under "
        "that key served here raised (clients that saw it would "
        "refuse it: certificate_revoked); the TACK served before, "
        "generation %u, is served again from TackStateFile %s (it "
        "expires %s): sign one at generation %d (" TACK_PROG " sign -g %d)",
        mt_vhost_name_buf(s, name), cert->label, low->file->kind,
        low->file->path, low->fingerprint, mt_item_gen(low), floor,
        good.generation, item->file->path, MT_ITEM_EXPIRY(item), floor, floor);
}

/* A file broken between the configuration test and a restart must not
 * cut pinned clients off: the TACK served before comes back while it is
 * valid for the certificate. */
void mt_guard_recover(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                      mt_sel_t *sel)
{
    struct mt_guard *gd = mt_guard_get();
    const mt_file_t *failed;
    char name[TACK_NAME_SIZE];
    apr_array_header_t *names;
    long now;
    int c, j;

    if (mt_strict() || mt_quiet()) {
        return;
    }
    mt_memory_load(s);
    if (!apr_hash_count(mt_memory_entries())) {
        return; /* nothing remembered: nothing to serve again */
    }
    failed = mt_failed_file(conf);
    now = mt_memory_now(s);
    mt_vhost_name_buf(s, name);
    names = mt_memory_vhost_names(gd->pool, s);
    for (c = 0; c < sel->ncerts; c++) {
        mt_certsel_t *cert = &sel->certs[c];
        const apr_array_header_t *mem = NULL;
        int k;

        for (k = 0; k < cert->ntacks; k++) {
            mt_recover_floor(p, s, sel, cert, k, names, now);
        }
        if (!failed) {
            continue;
        }

        /* the memory of any name the vhost answers */
        for (k = 0; !mem && k < names->nelts; k++) {
            mem = mt_memory_keys(apr_psprintf(
                gd->pool, "%s %s", APR_ARRAY_IDX(names, k, const char *),
                cert->key_type ? cert->key_type : "?"));
        }

        for (j = 0; mem && j < mem->nelts; j++) {
            const tack_state_key_t *m =
                &APR_ARRAY_IDX(mem, j, tack_state_key_t);
            int t, have = 0;

            for (t = 0; t < cert->ntacks; t++) {
                have |= mt_key_equal(mt_item_key(cert->tacks[t]), m->key);
            }
            if (!have && cert->x509 &&
                cert->ntacks < (sel->format == TACK_FORMAT_02 ? 2 : 1)) {
                mt_recover_one(p, s, failed, sel, cert, m, now);
            }
        }
    }
}
