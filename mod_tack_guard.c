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
 * guard then acts at the start.  Only the parent reads and writes the
 * file, atomically, at the end of a real pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_file_io.h"
#include "apr_lib.h"
#include "apr_strings.h"

#include <openssl/crypto.h>

#include "mod_tack_guard.h"
#include "mod_tack_load.h"
#include "tack_file.h"
#include "tack_state.h"

APLOG_USE_MODULE(tack);

/* Where the memory lives when TackStateFile says nothing: a persistent
 * directory (not the runtime directory, a tmpfs wiped at every boot). */
#define TACK_STATE_DEFAULT "/var/lib/apache2/tack/state.json"
/* Pins that can be active for less than this are not worth an error: a
 * TACK served for a few minutes (a mistake put right at once) has pins
 * that lapse within as many minutes. */
#define TACK_GUARD_MIN_SECS (10L * 60)
/* A state file larger than this is not read: about 150,000 remembered
 * keys; reading more would cost seconds of every restart. */
#define TACK_STATE_MAX (64 * 1024 * 1024)

/* What one certificate of one vhost serves in this pass. */
typedef struct {
    server_rec *s;
    int served;              /* a real start serves it (not -t) */
    int slot;                /* the certificate's index in the vhost's */
    const mt_conf_t *conf;   /* its TackLetPinsLapse, its TackSigningKey */
    const char *id;          /* "name:port TYPE", the memory's key */
    const char *label;       /* the certificate, for messages */
    uint8_t hash[TACK_HASH_LEN];
    int activation;
    int nkeys;
    uint8_t keys[TACK_EXT02_MAX_TACKS][TACK_KEY_LEN];
    const uint8_t *tacks[TACK_EXT02_MAX_TACKS]; /* their 166 bytes */
    int nbroken;
    uint8_t broken[TACK_MAX_BREAKSIGS][TACK_KEY_LEN];
    /* Under -t: the public key of the vhost's TackSigningKey, which the
     * start signs a missing TACK under, or NULL. */
    const uint8_t *signing;
} mt_guard_note_t;

/* The pass's state: a pool (a child of pconf, destroyed at the end of the
 * pass), the memory read from the file (id -> apr_array of
 * tack_state_key_t), and the notes of this pass. */
/* This pass's memory and what it serves (mt_gen_t.guard): made at its
 * first use, in a pool of its own under pconf, and dropped by mt_guard_end
 * (or with the generation). */
struct mt_guard {
    apr_pool_t *pool;
    apr_hash_t *mem;
    apr_hash_t *names; /* "name:port" of every id in mem */
    apr_array_header_t *notes;
    int loaded;
    int missing;    /* the file was not there: said when created */
    int keep;       /* it could not be read: never overwritten */
    long ahead;     /* its latest time, when later than the clock */
    int clock_back; /* the clock is earlier: said, not rewritten */
};

static struct mt_guard *mt_guard_get(void)
{
    mt_gen_t *gen = mt_gen();

    if (!gen->guard) {
        apr_pool_t *p;
        struct mt_guard *gd;

        apr_pool_create(&p, gen->pconf);
        apr_pool_tag(p, "tack_guard");
        gd = apr_pcalloc(p, sizeof(*gd));
        gd->pool = p;
        gd->mem = apr_hash_make(p);
        gd->names = apr_hash_make(p);
        gd->notes = apr_array_make(p, 16, sizeof(mt_guard_note_t));
        gen->guard = gd;
    }
    return gen->guard;
}

static apr_pool_t *mt_guard_pool(server_rec *s)
{
    return mt_guard_get()->pool;
}

/* mt_state_file is where the memory lives: TackStateFile of the main
 * server, or the default. */
static const char *mt_state_file(void)
{
    const mt_conf_t *conf = mt_conf_get(ap_server_conf);

    return conf->state_file ? conf->state_file : TACK_STATE_DEFAULT;
}

const char *mt_guard_state_path(apr_pool_t *p, const char *suffix)
{
    return apr_pstrcat(p, mt_state_file(), suffix, NULL);
}

/* ---- the state file ------------------------------------------------------ */

/* mt_guard_name returns "NAME:PORT" as a client reaches it: |name| as
 * SNI matches it (case-folded, without a trailing dot) and |port|. */
static const char *mt_guard_name(apr_pool_t *p, const char *name, unsigned port)
{
    char *n = apr_pstrdup(p, name), *c;
    size_t len = strlen(n);

    if (len > 1 && n[len - 1] == '.') {
        n[len - 1] = '\0';
    }
    for (c = n; *c; c++) {
        *c = (char)apr_tolower(*c);
    }
    return apr_psprintf(p, "%s:%u", n, port);
}

/* mt_guard_vhost_names returns the "NAME:PORT"s that reach |s|: its
 * ServerName and each ServerAlias that is not a wildcard, on each port it
 * listens on (the ServerName's port when it listens on any).  The memory
 * is keyed by them, not by how the configuration spells the vhost: a
 * vhost renamed "A.TEST", "a.test.", or made a ServerAlias of another
 * vhost still answers the same clients, who still hold their pins. */
static apr_array_header_t *mt_guard_vhost_names(apr_pool_t *p, server_rec *s)
{
    apr_array_header_t *out = apr_array_make(p, 2, sizeof(const char *));
    apr_array_header_t *names = apr_array_make(p, 2, sizeof(const char *));
    apr_array_header_t *ports = apr_array_make(p, 1, sizeof(unsigned));
    server_addr_rec *a;
    int i, j, k;

    APR_ARRAY_PUSH(names, const char *) =
        s->server_hostname ? s->server_hostname : "(unnamed)";
    for (i = 0; s->names && i < s->names->nelts; i++) {
        APR_ARRAY_PUSH(names, const char *) = APR_ARRAY_IDX(s->names, i, char *);
    }
    for (a = s->addrs; a; a = a->next) {
        unsigned port = a->host_port ? a->host_port : s->port;

        for (k = 0; k < ports->nelts; k++) {
            if (APR_ARRAY_IDX(ports, k, unsigned) == port) {
                break;
            }
        }
        if (k == ports->nelts) {
            APR_ARRAY_PUSH(ports, unsigned) = port;
        }
    }
    if (!ports->nelts) {
        APR_ARRAY_PUSH(ports, unsigned) = s->port;
    }
    for (i = 0; i < names->nelts; i++) {
        for (k = 0; k < ports->nelts; k++) {
            const char *id =
                mt_guard_name(p, APR_ARRAY_IDX(names, i, const char *),
                              APR_ARRAY_IDX(ports, k, unsigned));

            for (j = 0; j < out->nelts; j++) {
                if (!strcmp(APR_ARRAY_IDX(out, j, const char *), id)) {
                    break;
                }
            }
            if (j == out->nelts) {
                APR_ARRAY_PUSH(out, const char *) = id;
            }
        }
    }
    return out;
}

/* mt_mem_add remembers |keys| for |id| ("NAME:PORT TYPE"), its name
 * normalized as clients reach it (files written before were keyed by the
 * ServerName as spelled); keys already remembered under the same
 * normalized id are merged. */
static void mt_mem_add(apr_pool_t *p, const char *id, apr_array_header_t *keys)
{
    struct mt_guard *gd = mt_guard_get();
    const char *sp = strrchr(id, ' '), *colon;
    apr_array_header_t *have;
    const char *name;
    unsigned port;
    int i, j;

    if (!sp || !(colon = memchr(id, ':', (size_t)(sp - id)))) {
        return;
    }
    while (strchr(colon + 1, ':') && strchr(colon + 1, ':') < sp) {
        colon = strchr(colon + 1, ':'); /* the last ':' before the type */
    }
    port = (unsigned)strtoul(colon + 1, NULL, 10);
    name = mt_guard_name(p, apr_pstrndup(p, id, (size_t)(colon - id)), port);
    id = apr_pstrcat(p, name, sp, NULL);
    have = apr_hash_get(gd->mem, id, APR_HASH_KEY_STRING);
    if (have) {
        for (i = 0; i < keys->nelts; i++) {
            const tack_state_key_t *k =
                &APR_ARRAY_IDX(keys, i, tack_state_key_t);

            for (j = 0; j < have->nelts; j++) {
                if (mt_key_equal(APR_ARRAY_IDX(have, j, tack_state_key_t).key,
                                 k->key)) {
                    break;
                }
            }
            if (j == have->nelts) {
                APR_ARRAY_PUSH(have, tack_state_key_t) = *k;
            }
        }
        return;
    }
    apr_hash_set(gd->mem, id, APR_HASH_KEY_STRING, keys);
    apr_hash_set(gd->names, name, APR_HASH_KEY_STRING, "");
}

/* mt_mem_merge takes into the memory what another writer of the same
 * state file (a second httpd with the same TackStateFile: Debian's
 * apache2@INSTANCE share /var/lib/apache2) remembered since this pass read
 * it: entries and keys it lacks, and for a key both remember the earlier
 * first sight and the later last confirmation (never a shorter pin).  Keys
 * whose pins have lapsed by |now| are not taken back. */
static void mt_mem_merge(apr_pool_t *p, const char *id,
                         const tack_state_key_t *keys, size_t nkeys, long now)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *fresh = apr_array_make(p, (int)nkeys + 1,
                                               sizeof(tack_state_key_t));
    apr_array_header_t *have = apr_hash_get(gd->mem, id, APR_HASH_KEY_STRING);
    size_t i;
    int j;

    for (i = 0; i < nkeys; i++) {
        const tack_state_key_t *k = &keys[i];

        for (j = 0; have && j < have->nelts; j++) {
            tack_state_key_t *m = &APR_ARRAY_IDX(have, j, tack_state_key_t);

            if (mt_key_equal(m->key, k->key)) {
                if (k->first_seen && k->first_seen < m->first_seen) {
                    m->first_seen = k->first_seen;
                }
                if (k->last_served > m->last_served && !m->serving) {
                    m->last_served = k->last_served;
                }
                break;
            }
        }
        if ((!have || j == have->nelts) &&
            tack_state_pins_until(k, now) > now) {
            APR_ARRAY_PUSH(fresh, tack_state_key_t) = *k;
            APR_ARRAY_IDX(fresh, fresh->nelts - 1, tack_state_key_t).serving = 0;
        }
    }
    if (fresh->nelts) {
        mt_mem_add(p, apr_pstrdup(p, id), fresh);
    }
}

/* mt_state_read reads the state file's text into |*text| (free with
 * free()); returns NULL, or why it is not read.  The file is judged like
 * a TackFile (tack_file_read: regular files only, never a FIFO that would
 * block the parent, no pseudo-file, at most TACK_STATE_MAX bytes), and a
 * symbolic link is not followed: whoever could plant one would make the
 * parent, as root, read any file of the machine. */
static const char *mt_state_read(apr_pool_t *p, const char *path, char **text,
                                 size_t *len)
{
    struct stat sb;
    tack_status_t st;

    if (lstat(path, &sb) != 0) {
        return apr_psprintf(p, "%s", strerror(errno));
    }
    if (S_ISLNK(sb.st_mode)) {
        return "a symbolic link, not followed (name the file itself)";
    }
    st = tack_file_read(path, TACK_STATE_MAX, text, len);
    if (st == TACK_ERR_IO) {
        return apr_psprintf(p, "%s", strerror(errno));
    }
    if (st == TACK_ERR_FILE_TOO_LARGE) {
        return apr_psprintf(p, "larger than %d MiB", TACK_STATE_MAX >> 20);
    }
    return st == TACK_OK ? NULL : tack_status_str(st);
}

/* mt_guard_load reads the memory once per pass.  A missing file means no
 * memory yet.  A file that cannot be read or is not a state file means no
 * memory for this pass, said once, and the file is left as it is, never
 * overwritten (mt_guard.keep): it may be the only record of the pins clients
 * hold.  Nothing of its content is quoted, only its format's field names.
 * A malformed entry costs that entry alone. */
static void mt_guard_load(server_rec *s)
{
    struct mt_guard *gd = mt_guard_get();
    const char *path = mt_state_file(), *why;
    apr_pool_t *p = mt_guard_pool(s);
    tack_state_t *state;
    tack_status_t st;
    char *text = NULL, err[64];
    size_t len = 0, i;
    const char *id;
    int bad = 0;

    if (gd->loaded) {
        return;
    }
    gd->loaded = 1;
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        gd->missing = 1;
        return;
    }
    why = mt_state_read(p, path, &text, &len);
    if (why) {
        gd->keep = 1;
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00045: TackStateFile %s: cannot be read (%s); "
                     "starting with no memory of TACKs served before, so the "
                     "pin-continuity guard cannot warn about them; the file "
                     "is left as it is (move it away to start afresh)",
                     path, why);
        return;
    }
    st = tack_state_parse(text, len, &state, err, sizeof(err));
    free(text);
    if (st != TACK_OK) {
        gd->keep = 1;
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00047: TackStateFile %s: not a version 1 state "
                     "file (%s); starting with no memory of TACKs served "
                     "before; the file is left as it is (move it away to "
                     "start afresh)",
                     path,
                     st == TACK_ERR_NOT_STATE_FILE ? err : tack_status_str(st));
        return;
    }
    gd->ahead = tack_state_ahead(state, (long)time(NULL));
    for (i = 0; i < tack_state_count(state); i++) {
        const tack_state_key_t *keys;
        size_t nkeys;
        apr_array_header_t *mem;

        if (!tack_state_entry(state, i, &id, &keys, &nkeys)) {
            if (!bad++) {
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                             "TACK00048: TackStateFile %s: entry %s%s%s is "
                             "malformed; it is left out (the pins it "
                             "remembered are forgotten), the other entries "
                             "are kept",
                             path, id ? "\"" : "",
                             id ? id : "(a name that is not a vhost's)",
                             id ? "\"" : "");
            }
            continue;
        }
        mem = apr_array_make(p, (int)nkeys + 1, sizeof(tack_state_key_t));
        while (nkeys--) {
            APR_ARRAY_PUSH(mem, tack_state_key_t) = *keys++;
        }
        mt_mem_add(p, apr_pstrdup(p, id), mem);
    }
    if (bad > 1) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00063: TackStateFile %s: %d malformed entries left "
                     "out in all, %d kept",
                     path, bad, (int)apr_hash_count(gd->mem));
    }
    tack_state_free(state);
}

/* mt_guard_now returns the pass's time for the guard: the clock, always.
 * A state file holding a later time (its last write under a clock that
 * ran ahead, an NTP mistake, a VM's clock; or a clock behind now, a board
 * without a real-time clock before NTP) cannot say which clock was wrong,
 * and judging at the file's time would let pins lapse that clients still
 * hold (ten years ahead, every remembered TACK looks expired).  So pins
 * are judged at the clock, every later time in the memory counting as now
 * (tack_state_pins_until: never a shorter pin than clients can hold), the
 * file is not rewritten by this pass (mt_guard.clock_back: the memory never
 * moves backwards), and an error says how to recover, once a pass. */
static long mt_guard_now(server_rec *s)
{
    struct mt_guard *gd = mt_guard_get();
    long now = (long)time(NULL);
    char clock[TACK_TIME_SIZE], last[TACK_TIME_SIZE];

    mt_guard_load(s);
    if (!gd->ahead || gd->clock_back) {
        return now;
    }
    gd->clock_back = 1;
    tack_time_format((uint32_t)(now / 60), clock);
    tack_time_format((uint32_t)(gd->ahead / 60), last);
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                 "TACK00064: TackStateFile %s: it holds a time (%s) later "
                 "than the clock (%s); pins are judged at the clock, each "
                 "remembered key counted as served until now, and the file "
                 "is not rewritten, so what is served now is not "
                 "remembered: if the clock is wrong, set it (NTP) and "
                 "restart; if it is right (the file was written while the "
                 "clock ran ahead), run \"" TACK_PROG " state --redate %s\" "
                 "and restart",
                 mt_state_file(), last, clock, mt_state_file());
    return now;
}

/* ---- what this pass serves ------------------------------------------------- */

int mt_guard_remembers(server_rec *s)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *names;
    int i;

    mt_guard_pool(s);
    mt_guard_load(s);
    names = mt_guard_vhost_names(gd->pool, s);
    for (i = 0; i < names->nelts; i++) {
        if (apr_hash_get(gd->names, APR_ARRAY_IDX(names, i, const char *),
                         APR_HASH_KEY_STRING)) {
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
 * certificate for the status page (mt_conf_t.problems). */
static void mt_guard_problem(const mt_guard_note_t *n, const char *msg)
{
    mt_conf_t *conf = mt_conf_get(n->s);
    mt_problem_t *pr;

    if (!conf->problems) {
        conf->problems =
            apr_array_make(n->s->process->pconf, 1, sizeof(mt_problem_t));
    }
    pr = apr_array_push(conf->problems);
    pr->severity = TACK_PROBLEM_ERROR;
    pr->kind = "pin_continuity";
    pr->slot = n->slot;
    pr->message = msg;
}

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
    p = mt_guard_pool(s);
    mt_guard_load(s);
    names = mt_guard_vhost_names(p, s);
    for (c = 0; c < sel->ncerts * names->nelts; c++) {
        const mt_certsel_t *cert = &sel->certs[c % sel->ncerts];
        const char *id = apr_psprintf(
            p, "%s %s", APR_ARRAY_IDX(names, c / sel->ncerts, const char *),
            cert->key_type ? cert->key_type : "?");
        mt_guard_note_t *n;

        if (!sel->pin_activation &&
            !apr_hash_get(gd->mem, id, APR_HASH_KEY_STRING)) {
            continue; /* nothing pinned here, and nothing remembered */
        }
        n = apr_array_push(gd->notes);
        memset(n, 0, sizeof(*n));
        n->s = s;
        n->served = served;
        n->slot = c % sel->ncerts;
        n->conf = conf;
        n->id = id;
        n->label = apr_pstrdup(p, cert->label);
        memcpy(n->hash, cert->hash, TACK_HASH_LEN);
        n->activation = sel->pin_activation;
        for (k = 0; k < cert->ntacks; k++) {
            uint8_t *raw = apr_palloc(p, TACK_LEN);

            tack_encode(&cert->tacks[k]->tack, raw);
            memcpy(n->keys[k], cert->tacks[k]->tack.public_key, TACK_KEY_LEN);
            n->tacks[k] = raw;
        }
        n->nkeys = cert->ntacks;
        for (j = 0; j < sel->nsigs; j++) {
            memcpy(n->broken[j], sel->sigs[j].public_key, TACK_KEY_LEN);
        }
        n->nbroken = (int)sel->nsigs;
        n->signing = signing ? apr_pmemdup(p, signing, TACK_KEY_LEN) : NULL;
        if (cert->pending && n->signing && n->nkeys < TACK_EXT02_MAX_TACKS &&
            !mt_keys_have(n->keys, n->nkeys, n->signing)) {
            /* The background signs it under the key the pass loaded,
             * right after the start: served, for the memory (its bytes
             * are remembered at the next pass, from the store). */
            memcpy(n->keys[n->nkeys], n->signing, TACK_KEY_LEN);
            n->tacks[n->nkeys++] = NULL;
        }
    }
}

/* ---- the guard ------------------------------------------------------------- */


/* mt_lapsed returns 1 when a TackLetPinsLapse of |conf| names |key|. */
static int mt_lapsed(const mt_conf_t *conf, const uint8_t *key)
{
    char fpr[TACK_FINGERPRINT_SIZE];
    int i;

    if (!conf->lapse) {
        return 0;
    }
    tack_fingerprint(key, fpr);
    for (i = 0; i < conf->lapse->nelts; i++) {
        if (!strcmp(APR_ARRAY_IDX(conf->lapse, i, const char *), fpr)) {
            return 1;
        }
    }
    return 0;
}

/* mt_guard_pinned says whether clients can hold an active pin on |key|
 * for a name |s| answers, for its |key_type| certificate: remembered as
 * served with pin activation, for long enough, and not let lapse.  Returns
 * until when (seconds), or 0. */
long mt_guard_pinned(server_rec *s, const mt_conf_t *conf, const char *key_type,
                     const uint8_t *key)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *names;
    long now, until = 0;
    int i, j;

    if (mt_quiet() || mt_lapsed(conf, key)) {
        return 0;
    }
    mt_guard_pool(s);
    now = mt_guard_now(s);
    names = mt_guard_vhost_names(gd->pool, s);
    for (i = 0; i < names->nelts; i++) {
        const apr_array_header_t *mem = apr_hash_get(
            gd->mem,
            apr_psprintf(gd->pool, "%s %s", APR_ARRAY_IDX(names, i, const char *),
                         key_type ? key_type : "?"),
            APR_HASH_KEY_STRING);

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

/* mt_guard_note_vhost writes how messages name |n|'s vhost: "NAME:PORT",
 * and the name clients reach it by when that is another one (an alias,
 * another spelling, the port it listens on): "www.a.test:443 (as
 * a.test:443)". */
static void mt_guard_note_vhost(const mt_guard_note_t *n,
                                char buf[TACK_NAME_SIZE])
{
    char vname[TACK_NAME_SIZE];
    const char *sp = strrchr(n->id, ' ');
    size_t len = sp ? (size_t)(sp - n->id) : strlen(n->id);

    mt_vhost_name_buf(n->s, vname);
    if (strlen(vname) == len && !strncmp(vname, n->id, len)) {
        apr_cpystrn(buf, vname, TACK_NAME_SIZE);
    } else {
        apr_snprintf(buf, TACK_NAME_SIZE, "%s (as %.*s)", vname, (int)len,
                     n->id);
    }
}

/* mt_guard_report logs one broken continuity; returns 1 when it is a
 * problem that refuses the configuration (under -t, not an expiry). */
static int mt_guard_report(const mt_guard_note_t *n, const tack_state_key_t *m,
                           long now)
{
    char fpr[TACK_FINGERPRINT_SIZE], from[TACK_TIME_SIZE], until[TACK_TIME_SIZE];
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
    ways = apr_psprintf(n->s->process->pconf,
                        "ways out: serve a TACK under %s for this certificate "
                        "(" TACK_PROG
                        " sign -k KEY -c CERT into its TackFile or "
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
        apr_array_header_t *vn = mt_guard_vhost_names(gd->pool, s);
        int k;

        for (k = 0; k < vn->nelts; k++) {
            apr_hash_set(names, APR_ARRAY_IDX(vn, k, const char *),
                         APR_HASH_KEY_STRING, "");
        }
    }
    for (hi = apr_hash_first(gd->pool, gd->mem); hi; hi = apr_hash_next(hi)) {
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
                mt_lapsed(mconf, m->key)) {
                continue;
            }
            tack_fingerprint(m->key, fpr);
            tack_time_format((uint32_t)(tack_state_pins_until(m, now) / 60), until);
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
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
 * refuse every change).  Owned by root and writable by root only, or it is
 * refused under -t (TACK00069) and warned about at a start (TACK00070).
 * A directory not made yet is made by the start, mode 0755.  Returns the
 * number of problems. */
static int mt_guard_check_dir(server_rec *s_main)
{
    struct mt_guard *gd = mt_guard_get();
    char *dir = apr_pstrdup(gd->pool, mt_state_file()), *slash;
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
    if (sb.st_uid != 0) {
        why = apr_psprintf(gd->pool, "owned by uid %ld, not by root: chown "
                                       "root %s",
                           (long)sb.st_uid, dir);
    } else if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
        why = apr_psprintf(gd->pool, "writable by %s: chmod go-w %s",
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
                     mt_state_file(), why);
        return 1;
    }
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                 "TACK00070: TackStateFile %s: its directory is %s (whoever "
                 "can write it can replace the memory of pins clients hold)",
                 mt_state_file(), why);
    return 0;
}

int mt_guard_check(server_rec *s_main)
{
    struct mt_guard *gd = mt_guard_get();
    long now;
    int problems = 0, i, j;

    if (mt_quiet()) {
        return 0;
    }
    mt_guard_pool(s_main);
    problems += mt_guard_check_dir(s_main);
    now = mt_guard_now(s_main); /* loads, even with nothing noted */
    mt_guard_gone(s_main, now);
    for (i = 0; i < gd->notes->nelts; i++) {
        const mt_guard_note_t *n =
            &APR_ARRAY_IDX(gd->notes, i, mt_guard_note_t);
        const apr_array_header_t *mem =
            apr_hash_get(gd->mem, n->id, APR_HASH_KEY_STRING);

        for (j = 0; mem && j < mem->nelts; j++) {
            const tack_state_key_t *m =
                &APR_ARRAY_IDX(mem, j, tack_state_key_t);

            if (tack_state_pins_until(m, now) <= now + TACK_GUARD_MIN_SECS ||
                mt_keys_have(n->keys, n->nkeys, m->key) ||
                mt_keys_have(n->broken, n->nbroken, m->key) ||
                mt_lapsed(n->conf, m->key)) {
                continue;
            }
            /* The start signs under TackSigningKey only for a certificate
             * with no TACK at all (one under another key, a file dropped
             * into the store, is served instead): -t takes that into
             * account, and the key's loading was checked under -t. */
            if (mt_strict() && n->nkeys == 0 && n->signing &&
                mt_key_equal(n->signing, m->key)) {
                continue; /* the start or the background signs one */
            }
            problems += mt_guard_report(n, m, now);
        }
    }
    return problems;
}

/* ---- remembering ----------------------------------------------------------- */

/* mt_mem_find returns the entry of |mem| for |key|, or NULL. */
static tack_state_key_t *mt_mem_find(apr_array_header_t *mem,
                                     const uint8_t *key)
{
    int j;

    for (j = 0; j < mem->nelts; j++) {
        tack_state_key_t *m = &APR_ARRAY_IDX(mem, j, tack_state_key_t);

        if (mt_key_equal(m->key, key)) {
            return m;
        }
    }
    return NULL;
}

/* mt_mem_update records what |n| serves now, at |now|. */
static void mt_mem_update(const mt_guard_note_t *n, long now)
{
    struct mt_guard *gd = mt_guard_get();
    apr_array_header_t *mem =
        apr_hash_get(gd->mem, n->id, APR_HASH_KEY_STRING);
    int j, k;

    if (!mem) {
        mem = apr_array_make(gd->pool, 2, sizeof(tack_state_key_t));
        apr_hash_set(gd->mem, n->id, APR_HASH_KEY_STRING, mem);
    }
    for (j = 0; j < mem->nelts; j++) {
        tack_state_key_t *m = &APR_ARRAY_IDX(mem, j, tack_state_key_t);

        if (m->serving) {
            m->last_served = now; /* served until this restart */
        }
        m->serving = 0;
    }
    for (k = 0; k < n->nkeys && n->activation; k++) {
        tack_state_key_t *m = mt_mem_find(mem, n->keys[k]);

        if (!m) {
            m = apr_array_push(mem);
            memset(m, 0, sizeof(*m));
            memcpy(m->key, n->keys[k], TACK_KEY_LEN);
            m->first_seen = now;
        }
        m->last_served = now;
        m->serving = 1;
        if (n->tacks[k]) { /* NULL: signed in the background */
            m->has_tack = 1;
            memcpy(m->tack, n->tacks[k], TACK_LEN);
        }
    }
    for (j = 0; j < mem->nelts; j++) {
        tack_state_key_t *m = &APR_ARRAY_IDX(mem, j, tack_state_key_t);

        if (mt_lapsed(n->conf, m->key) ||
            (!m->serving && tack_state_pins_until(m, now) <= now)) {
            /* let go: the decision is recorded, or no pin can be left */
            *m = APR_ARRAY_IDX(mem, mem->nelts - 1, tack_state_key_t);
            mem->nelts--;
            j--;
        }
    }
}

/* mt_mem_json builds the file's contents. */
/* mt_mem_dump returns the memory as the state file's text (malloc'd), or
 * NULL (out of memory). */
static char *mt_mem_dump(long now)
{
    struct mt_guard *gd = mt_guard_get();
    tack_state_t *state = tack_state_new(now);
    apr_hash_index_t *hi;
    char *text;

    if (!state) {
        return NULL;
    }
    for (hi = apr_hash_first(gd->pool, gd->mem); hi;
         hi = apr_hash_next(hi)) {
        apr_array_header_t *mem = apr_hash_this_val(hi);
        tack_state_key_t *keys = (tack_state_key_t *)mem->elts;
        int j;

        for (j = 0; j < mem->nelts; j++) {
            keys[j].pins_until = tack_state_pins_until(&keys[j], now);
        }
        if (tack_state_add(state, apr_hash_this_key(hi), keys,
                           (size_t)mem->nelts) == TACK_ERR_NOMEM) {
            tack_state_free(state);
            return NULL;
        }
    }
    text = tack_state_dump(state);
    tack_state_free(state);
    return text;
}

/* mt_state_dir_make makes the state file's directory when it is missing,
 * rwxr-xr-x (APR's permission bits, not a Unix mode). */
static void mt_state_dir_make(apr_pool_t *p, const char *dir)
{
    apr_dir_make_recursive(dir,
                           APR_FPROT_UREAD | APR_FPROT_UWRITE |
                               APR_FPROT_UEXECUTE | APR_FPROT_GREAD |
                               APR_FPROT_GEXECUTE | APR_FPROT_WREAD |
                               APR_FPROT_WEXECUTE,
                           p);
}

/* mt_state_lock takes the state file's lock: flock on the directory it is
 * in (no file of its own to leave behind), held by every writer of the
 * file from reading what others wrote to its rename, waited for at most
 * 10 seconds; returns the descriptor, or -1 with |*why|. */
static int mt_state_lock(apr_pool_t *p, const char *path, const char **why)
{
    char *dir = apr_pstrdup(p, path), *slash = strrchr(dir, '/');
    int fd, tries;

    if (!slash) {
        dir = ".";
    } else if (slash == dir) {
        dir = "/";
    } else {
        *slash = '\0';
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        /* the first write makes the directory (mt_mem_write) */
        mt_state_dir_make(p, dir);
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd < 0) {
        *why = apr_psprintf(p, "%s: %s", dir, strerror(errno));
        return -1;
    }
    for (tries = 0; tries < 100; tries++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            return fd;
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            break;
        }
        apr_sleep(apr_time_from_msec(100));
    }
    *why = apr_psprintf(p, "%s: %s", dir,
                        errno == EWOULDBLOCK ? "held by another writer for "
                                               "10 seconds"
                                             : strerror(errno));
    close(fd);
    return -1;
}

/* mt_mem_reread merges what the state file holds now (mt_mem_merge): what
 * another httpd wrote since this pass read it.  The entries of what this
 * pass serves are its own to decide (a key let lapse stays gone); a file
 * that is gone or cannot be parsed now adds nothing. */
static void mt_mem_reread(apr_pool_t *p, const char *path, long now)
{
    struct mt_guard *gd = mt_guard_get();
    tack_state_t *state = NULL;
    char *text = NULL, err[128];
    size_t len, i, nkeys;
    const tack_state_key_t *keys;
    const char *id;
    apr_hash_t *ours = apr_hash_make(p);
    int j;

    if (mt_state_read(p, path, &text, &len)) {
        return;
    }
    for (j = 0; j < gd->notes->nelts; j++) {
        apr_hash_set(ours, APR_ARRAY_IDX(gd->notes, j, mt_guard_note_t).id,
                     APR_HASH_KEY_STRING, "");
    }
    if (tack_state_parse(text, len, &state, err, sizeof(err)) == TACK_OK) {
        for (i = 0; i < tack_state_count(state); i++) {
            if (tack_state_entry(state, i, &id, &keys, &nkeys) &&
                !apr_hash_get(ours, id, APR_HASH_KEY_STRING)) {
                mt_mem_merge(p, id, keys, nkeys, now);
            }
        }
        tack_state_free(state);
    }
    free(text);
}

/* mt_mem_write writes the memory atomically (tack_file_replace: a new
 * file beside it, mode 0644 set on its descriptor, synced, renamed over the
 * old one, the directory synced). */
static const char *mt_mem_write(apr_pool_t *p, const char *path, long now)
{
    char *text = mt_mem_dump(now);
    char *dir = apr_pstrdup(p, path), *slash = strrchr(dir, '/');
    tack_status_t st;

    if (!text) {
        return "out of memory";
    }
    if (slash && slash != dir) {
        *slash = '\0';
        mt_state_dir_make(p, dir);
    }
    st = tack_file_replace(path, text, strlen(text), 0644, 1);
    free(text);
    if (st != TACK_OK) {
        return st == TACK_ERR_IO ? strerror(errno) : tack_status_str(st);
    }
    return NULL;
}

void mt_guard_end(server_rec *s_main)
{
    struct mt_guard *gd = mt_gen()->guard;
    long now;
    const char *err, *lockwhy = NULL;
    int i, lockfd;

    if (!gd) {
        return;
    }
    now = gd->loaded ? mt_guard_now(s_main) : (long)time(NULL);
    if (!mt_strict() && !mt_quiet() && gd->loaded && !gd->keep &&
        !gd->clock_back &&
        (gd->notes->nelts || apr_hash_count(gd->mem))) {
        apr_hash_index_t *hi;

        for (i = 0; i < gd->notes->nelts; i++) {
            mt_mem_update(&APR_ARRAY_IDX(gd->notes, i, mt_guard_note_t), now);
        }
        /* vhosts gone from the configuration: what they served stopped
         * being served now; their pins keep counting */
        for (hi = apr_hash_first(gd->pool, gd->mem); hi;
             hi = apr_hash_next(hi)) {
            apr_array_header_t *mem = apr_hash_this_val(hi);
            int j;

            for (j = 0; j < mem->nelts; j++) {
                tack_state_key_t *m = &APR_ARRAY_IDX(mem, j, tack_state_key_t);

                if (m->serving && m->last_served < now) {
                    m->last_served = now;
                    m->serving = 0;
                }
            }
        }
        /* Another httpd may share the file: under its lock, what it wrote
         * since this pass read the file is merged, then written. */
        lockfd = mt_state_lock(gd->pool, mt_state_file(), &lockwhy);
        if (lockfd < 0) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                         "TACK00141: TackStateFile %s: cannot take its lock "
                         "(%s); written without it, so what another httpd "
                         "sharing the file wrote meanwhile may be lost",
                         mt_state_file(), lockwhy);
        }
        mt_mem_reread(gd->pool, mt_state_file(), now);
        err = mt_mem_write(gd->pool, mt_state_file(), now);
        if (lockfd >= 0) {
            close(lockfd);
        }
        if (!err && gd->missing) {
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s_main,
                         "TACK00044: TackStateFile %s: created (there was no "
                         "memory of TACKs served before this start)",
                         mt_state_file());
        }
        if (err) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                         "TACK00046: TackStateFile %s: cannot be written "
                         "(%s); what is served now is not remembered, so "
                         "the pin-continuity guard cannot warn about it "
                         "later",
                         mt_state_file(), err);
        }
    }
    apr_pool_destroy(gd->pool);
    mt_gen()->guard = NULL;
}

/* ---- keeping the last good bytes --------------------------------------------- */

/* mt_failed_file returns a TackFile or TackStore file of |conf| that
 * could not be loaded in this pass for another reason than its expiry. */
static const mt_file_t *mt_failed_file(const mt_conf_t *conf)
{
    mt_file_t **f = mt_elts(conf->files);
    int i;

    for (i = 0; i < mt_nelts(conf->files); i++) {
        if (f[i]->error && !f[i]->expired) {
            return f[i];
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
    item =
        mt_load_item(p, s, "TackStateFile", mt_state_file(), failed->where,
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
                 item->file->path, item->expiry);
}

void mt_guard_recover(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                      mt_sel_t *sel)
{
    struct mt_guard *gd = mt_guard_get();
    const mt_file_t *failed;
    char name[TACK_NAME_SIZE];
    apr_array_header_t *names;
    long now;
    int c, j;

    if (mt_strict() || mt_quiet() || !(failed = mt_failed_file(conf))) {
        return;
    }
    mt_guard_pool(s);
    now = mt_guard_now(s);
    mt_vhost_name_buf(s, name);
    names = mt_guard_vhost_names(gd->pool, s);
    for (c = 0; c < sel->ncerts; c++) {
        mt_certsel_t *cert = &sel->certs[c];
        const apr_array_header_t *mem = NULL;
        int k;

        /* the memory of any name the vhost answers */
        for (k = 0; !mem && k < names->nelts; k++) {
            mem = apr_hash_get(
                gd->mem,
                apr_psprintf(gd->pool, "%s %s",
                             APR_ARRAY_IDX(names, k, const char *),
                             cert->key_type ? cert->key_type : "?"),
                APR_HASH_KEY_STRING);
        }

        for (j = 0; mem && j < mem->nelts; j++) {
            const tack_state_key_t *m =
                &APR_ARRAY_IDX(mem, j, tack_state_key_t);
            int t, have = 0;

            for (t = 0; t < cert->ntacks; t++) {
                have |= mt_key_equal(cert->tacks[t]->tack.public_key, m->key);
            }
            if (!have && cert->x509 &&
                cert->ntacks < (sel->format == TACK_FORMAT_02 ? 2 : 1)) {
                mt_recover_one(p, s, failed, sel, cert, m, now);
            }
        }
    }
}
