/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_memory.c -- TackStateFile: the module's memory of the TACK keys
 * each vhost served, since when, whether with pin activation, and the
 * highest min_generation served under each, which the guard
 * (mod_tack_guard.c) judges a pass by.  Read once a pass, written at the
 * end of a real start's pass, atomically, under a lock shared with any
 * other httpd that names the same file; never through a link, never a
 * FIFO or a pseudo-file, never overwritten when it could not be read.
 * The files the signers keep beside it (mod_tack_secret.c) are named from
 * it (mt_memory_path).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_file_io.h"
#include "apr_lib.h"
#include "apr_strings.h"

#include "mod_tack_memory.h"
#include "mod_tack_load.h"
#include "tack_file.h"
#include "tack_state.h"

APLOG_USE_MODULE(tack);

/* A state file larger than this is not read: about 150,000 remembered
 * keys; reading more would cost seconds of every restart. */
#define TACK_STATE_MAX (64 * 1024 * 1024)

/* The memory's part (mt_gen_t.memory), made in pre_config: the file's
 * entries (id -> apr_array of tack_state_key_t), read once a pass into a
 * pool of its own, which mt_memory_end clears (a later use reads the file
 * again). */
struct mt_memory {
    apr_pool_t *pool;
    apr_hash_t *mem;
    apr_hash_t *names; /* "name:port" of every id in mem with a key served
                        * with activation */
    int loaded;
    int missing;         /* the file was not there: said when created */
    int keep;            /* it could not be read: never overwritten */
    long ahead;          /* its latest time, when later than the clock */
    int clock_back;      /* the clock is earlier: said, not rewritten */
    struct stat read_as; /* the file this pass read, st_ino 0: none */
};

/* mt_memory_reset empties |mm| for the next pass's reading. */
static void mt_memory_reset(struct mt_memory *mm)
{
    apr_pool_t *p = mm->pool;

    apr_pool_clear(p);
    memset(mm, 0, sizeof(*mm));
    mm->pool = p;
    mm->mem = apr_hash_make(p);
    mm->names = apr_hash_make(p);
}

void mt_memory_gen_init(mt_gen_t *gen)
{
    struct mt_memory *mm = apr_pcalloc(gen->pconf, sizeof(*mm));

    mm->pool = mt_pool_apart(gen->pconf, "tack_memory");
    mt_memory_reset(mm);
    gen->memory = mm;
}

static struct mt_memory *mt_memory_get(void)
{
    return mt_gen()->memory;
}

const char *mt_memory_file(void)
{
    const char *file = mt_main_conf()->state_file;

    return file ? file : MT_STATE_DEFAULT;
}

const char *mt_memory_path(apr_pool_t *p, const char *suffix)
{
    return apr_pstrcat(p, mt_memory_file(), suffix, NULL);
}

const apr_array_header_t *mt_memory_keys(const char *id)
{
    return apr_hash_get(mt_memory_get()->mem, id, APR_HASH_KEY_STRING);
}

int mt_memory_knows(const char *name)
{
    return apr_hash_get(mt_memory_get()->names, name, APR_HASH_KEY_STRING) !=
           NULL;
}

apr_hash_t *mt_memory_entries(void)
{
    return mt_memory_get()->mem;
}

/* ---- the state file ------------------------------------------------------ */

/* mt_memory_name returns "NAME:PORT" as a client reaches it: |name| as
 * SNI matches it (case-folded, without a trailing dot) and |port|. */
static const char *mt_memory_name(apr_pool_t *p, const char *name,
                                  unsigned port)
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

/* Its ServerName and each ServerAlias that is not a wildcard, case-folded
 * and without a trailing dot, on each port it listens on (the
 * ServerName's port when it listens on any).  The memory is keyed by them, not
 * by how the configuration spells the vhost: a vhost renamed "A.TEST",
 * "a.test.", or made a ServerAlias of another vhost still answers the same
 * clients, who still hold their pins. */
apr_array_header_t *mt_memory_vhost_names(apr_pool_t *p, server_rec *s)
{
    apr_array_header_t *out = apr_array_make(p, 2, sizeof(const char *));
    apr_array_header_t *names = apr_array_make(p, 2, sizeof(const char *));
    apr_array_header_t *ports = apr_array_make(p, 1, sizeof(unsigned));
    server_addr_rec *a;
    int i, j, k;

    APR_ARRAY_PUSH(names, const char *) =
        s->server_hostname ? s->server_hostname : "(unnamed)";
    for (i = 0; s->names && i < s->names->nelts; i++) {
        APR_ARRAY_PUSH(names, const char *) =
            APR_ARRAY_IDX(s->names, i, char *);
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
                mt_memory_name(p, APR_ARRAY_IDX(names, i, const char *),
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
    struct mt_memory *mm = mt_memory_get();
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
    name = mt_memory_name(p, apr_pstrndup(p, id, (size_t)(colon - id)), port);
    id = apr_pstrcat(p, name, sp, NULL);
    for (i = 0; i < keys->nelts; i++) {
        if (APR_ARRAY_IDX(keys, i, tack_state_key_t).activation) {
            apr_hash_set(mm->names, name, APR_HASH_KEY_STRING, "");
            break;
        }
    }
    have = apr_hash_get(mm->mem, id, APR_HASH_KEY_STRING);
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
    apr_hash_set(mm->mem, id, APR_HASH_KEY_STRING, keys);
}

/* mt_mem_merge takes into the memory what another writer of the same
 * state file (a second httpd with the same TackStateFile: Debian's
 * apache2@INSTANCE share /var/lib/apache2) remembered since this pass read
 * it: entries and keys it lacks, and for a key both remember the earlier
 * first sight, the later last confirmation (never a shorter pin) and the
 * higher min_generation (never a lower floor).  Keys the memory no longer
 * needs by |now| (tack_state_keep_until) are not taken back. */
static void mt_mem_merge(apr_pool_t *p, const char *id,
                         const tack_state_key_t *keys, size_t nkeys, long now)
{
    struct mt_memory *mm = mt_memory_get();
    apr_array_header_t *fresh =
        apr_array_make(p, (int)nkeys + 1, sizeof(tack_state_key_t));
    apr_array_header_t *have = apr_hash_get(mm->mem, id, APR_HASH_KEY_STRING);
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
                m->activation |= k->activation;
                if (k->min_generation > m->min_generation) {
                    m->min_generation = k->min_generation;
                }
                if (k->min_generation_until > m->min_generation_until) {
                    m->min_generation_until = k->min_generation_until;
                }
                break;
            }
        }
        if ((!have || j == have->nelts) &&
            tack_state_keep_until(k, now) > now) {
            APR_ARRAY_PUSH(fresh, tack_state_key_t) = *k;
            APR_ARRAY_IDX(fresh, fresh->nelts - 1, tack_state_key_t).serving =
                0;
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
                                 size_t *len, struct stat *as)
{
    struct stat sb;
    tack_status_t st;

    if (lstat(path, &sb) != 0) {
        return apr_psprintf(p, "%s", strerror(errno));
    }
    if (as) {
        *as = sb;
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

/* mt_mem_bad_time judges a key of entry |id| whose times are not of 1970
 * to 9999 (tack_state_key_t.bad_time: a hand edit, a clock far off, a
 * file not ours): nothing says how long its pins last, so it counts as
 * pinned for 30 days from now, with activation, its floor kept as long.
 * The first such key of the file is kept in |first| for the message. */
static void mt_mem_bad_time(apr_pool_t *p, const char *id, tack_state_key_t *m,
                            int *count, const char **first)
{
    long now = (long)time(NULL);
    char fpr[TACK_FINGERPRINT_SIZE];

    if (!m->bad_time) {
        return;
    }
    m->bad_time = 0;
    m->first_seen = now - TACK_STATE_PIN_MAX_SECS;
    m->last_served = now;
    m->serving = 0;
    m->activation = 1;
    m->min_generation_until = now + TACK_STATE_FLOOR_SECS;
    if (!(*count)++) {
        tack_fingerprint(m->key, fpr);
        *first = apr_psprintf(p, "entry \"%s\", key %s", id, fpr);
    }
}

/* A missing file means no memory yet.  A file that cannot be read or is not
 * a state file means no memory for this pass, said once, and the file is
 * left as it is, never overwritten (mt_memory.keep): it may be the only
 * record of the pins clients hold.  Nothing of its content is quoted, only
 * its format's field names.  A malformed entry costs that entry alone. */
void mt_memory_load(server_rec *s)
{
    struct mt_memory *mm = mt_memory_get();
    const char *path = mt_memory_file(), *why;
    apr_pool_t *p = mm->pool;
    tack_state_t *state;
    tack_status_t st;
    char *text = NULL, err[64];
    size_t len = 0, i;
    const char *id;
    int bad = 0, bad_times = 0;
    const char *bad_first = NULL;

    if (mm->loaded) {
        return;
    }
    mm->loaded = 1;
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        mm->missing = 1;
        return;
    }
    why = mt_state_read(p, path, &text, &len, &mm->read_as);
    if (why) {
        mm->keep = 1;
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
        mm->keep = 1;
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00047: TackStateFile %s: not a version 1 state "
                     "file (%s); starting with no memory of TACKs served "
                     "before; the file is left as it is (move it away to "
                     "start afresh)",
                     path,
                     st == TACK_ERR_NOT_STATE_FILE ? err : tack_status_str(st));
        return;
    }
    mm->ahead = tack_state_ahead(state, (long)time(NULL));
    for (i = 0; i < tack_state_count(state); i++) {
        const tack_state_key_t *keys;
        size_t nkeys;
        apr_array_header_t *mem;
        int j;

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
        for (j = 0; j < mem->nelts; j++) {
            mt_mem_bad_time(p, id, &APR_ARRAY_IDX(mem, j, tack_state_key_t),
                            &bad_times, &bad_first);
        }
        mt_mem_add(p, apr_pstrdup(p, id), mem);
    }
    if (bad > 1) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00063: TackStateFile %s: %d malformed entries left "
                     "out in all, %d kept",
                     path, bad, (int)apr_hash_count(mm->mem));
    }
    if (bad_times) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00144: TackStateFile %s: %d remembered key%s a time "
                     "outside 1970 to 9999 (the first: %s); each is counted "
                     "as pinned for 30 days from now, and the rest of the "
                     "file is used (a file edited by hand or written under a "
                     "wrong clock; \"" TACK_PROG " state FILE\" shows it)",
                     path, bad_times, bad_times == 1 ? " holds" : "s hold",
                     bad_first);
    }
    tack_state_free(state);
}

/* The clock, always.  A state file holding a later time (its last write
 * under a clock that ran ahead, an NTP mistake, a VM's clock; or a clock
 * behind now, a board without a real-time clock before NTP) cannot say
 * which clock was wrong, and judging at the file's time would let pins
 * lapse that clients still hold (ten years ahead, every remembered TACK
 * looks expired).  So pins are judged at the clock, every later time in the
 * memory counting as now (tack_state_pins_until: never a shorter pin than
 * clients can hold), the file is not rewritten by this pass
 * (mt_memory.clock_back: the memory never moves backwards), and an error
 * says how to recover, once a pass. */
long mt_memory_now(server_rec *s)
{
    struct mt_memory *mm = mt_memory_get();
    long now = (long)time(NULL);
    char clock[TACK_TIME_SIZE], last[TACK_TIME_SIZE];

    mt_memory_load(s);
    if (!mm->ahead || mm->clock_back) {
        return now;
    }
    mm->clock_back = 1;
    tack_time_format((uint32_t)(now / 60), clock);
    tack_time_format((uint32_t)(mm->ahead / 60), last);
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                 "TACK00064: TackStateFile %s: it holds a time (%s) later "
                 "than the clock (%s); pins are judged at the clock, each "
                 "remembered key counted as served until now, and the file "
                 "is not rewritten, so what is served now is not "
                 "remembered: if the clock is wrong, set it (NTP) and "
                 "restart; if it is right (the file was written while the "
                 "clock ran ahead), run \"" TACK_PROG " state --redate %s\" "
                 "and restart",
                 mt_memory_file(), last, clock, mt_memory_file());
    return now;
}

int mt_memory_lapsed(const mt_conf_t *conf, const uint8_t *key)
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

/* ---- remembering -----------------------------------------------------------
 */

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

/* mt_mem_serves says whether |n| serves |key| now. */
static int mt_mem_serves(const mt_served_t *n, const uint8_t *key)
{
    int k;

    for (k = 0; k < n->nkeys; k++) {
        if (mt_key_equal(n->keys[k], key)) {
            return 1;
        }
    }
    return 0;
}

/* mt_mem_update records what |n| serves now, at |now|: every key it
 * serves, with its floor (the highest min_generation served under it:
 * clients raise their key record from any TACK they see, with activation
 * on or off), and for the pins, with activation on, since when and until
 * when it is confirmed. */
static void mt_mem_update(const mt_served_t *n, long now)
{
    struct mt_memory *mm = mt_memory_get();
    apr_array_header_t *mem = apr_hash_get(mm->mem, n->id, APR_HASH_KEY_STRING);
    int j, k;

    if (!mem) {
        mem = apr_array_make(mm->pool, 2, sizeof(tack_state_key_t));
        apr_hash_set(mm->mem, n->id, APR_HASH_KEY_STRING, mem);
    }
    for (j = 0; j < mem->nelts; j++) {
        tack_state_key_t *m = &APR_ARRAY_IDX(mem, j, tack_state_key_t);

        if (m->serving) {
            m->last_served = now; /* served until this restart */
        }
        m->serving = 0;
    }
    for (k = 0; k < n->nkeys; k++) {
        tack_state_key_t *m = mt_mem_find(mem, n->keys[k]);
        tack_t t;

        if (!m) {
            m = apr_array_push(mem);
            memset(m, 0, sizeof(*m));
            memcpy(m->key, n->keys[k], TACK_KEY_LEN);
            m->first_seen = now; /* clients' pins start at first sight */
            m->last_served = now;
        }
        if (n->activation) {
            m->activation = 1;
            m->last_served = now;
            m->serving = 1;
        }
        m->min_generation_until = now + TACK_STATE_FLOOR_SECS;
        if (n->tacks[k]) { /* NULL: signed in the background */
            m->has_tack = 1;
            memcpy(m->tack, n->tacks[k], TACK_LEN);
            if (tack_parse(&t, n->tacks[k], TACK_LEN) == TACK_OK &&
                t.min_generation > m->min_generation) {
                m->min_generation = t.min_generation;
            }
        }
    }
    for (j = 0; j < mem->nelts; j++) {
        tack_state_key_t *m = &APR_ARRAY_IDX(mem, j, tack_state_key_t);

        if ((mt_memory_lapsed(n->conf, m->key) && !mt_mem_serves(n, m->key)) ||
            (!m->serving && tack_state_keep_until(m, now) <= now)) {
            /* let go: the decision is recorded, or no pin can be left */
            *m = APR_ARRAY_IDX(mem, mem->nelts - 1, tack_state_key_t);
            mem->nelts--;
            j--;
        }
    }
}

/* mt_mem_dump returns the memory as the state file's text (malloc'd), or
 * NULL (out of memory). */
static char *mt_mem_dump(long now)
{
    struct mt_memory *mm = mt_memory_get();
    tack_state_t *state = tack_state_new(now);
    apr_hash_index_t *hi;
    char *text;

    if (!state) {
        return NULL;
    }
    for (hi = apr_hash_first(mm->pool, mm->mem); hi; hi = apr_hash_next(hi)) {
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

/* mt_state_lock takes the state file's lock (tack_state_lock: flock on
 * STATEFILE.lock, a file only root opens), held by every writer of the
 * file from reading what others wrote to its rename, waited for at most
 * 10 seconds; returns the descriptor, or -1 with |*why|.  A lock file that
 * was not root's own, mode 0600 (anyone who could open it could hold it,
 * and stall every start), is replaced and said (TACK00147). */
static int mt_state_lock(apr_pool_t *p, server_rec *s, const char *path,
                         const char **why)
{
    char *dir = apr_pstrdup(p, path), *slash = strrchr(dir, '/');
    int replaced = 0, fd = tack_state_lock(path, 10 * 1000, &replaced);

    if (slash && slash != dir) {
        *slash = '\0';
    }
    if (fd < 0 && errno == ENOENT && slash && slash != dir) {
        /* the first write makes the directory (mt_mem_write) */
        mt_state_dir_make(p, dir);
        fd = tack_state_lock(path, 10 * 1000, &replaced);
    }
    if (replaced) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00147: TackStateFile %s: its lock file %s%s was "
                     "not a regular file of root's, mode 0600 (whoever can "
                     "open it can hold it and stall every start); replaced "
                     "by one that is: find out who made it (the directory "
                     "%s should be writable by root only)",
                     path, path, TACK_STATE_LOCK_SUFFIX, slash ? dir : ".");
    }
    if (fd < 0) {
        *why = apr_psprintf(
            p, "%s%s: %s", path, TACK_STATE_LOCK_SUFFIX,
            errno == EWOULDBLOCK ? "held by another writer for 10 seconds"
            : errno == EPERM     ? "not a regular file of root's, mode "
                                   "0600, and it cannot be replaced"
                                 : strerror(errno));
    }
    return fd;
}

/* mt_mem_reread merges what the state file holds now (mt_mem_merge): what
 * another httpd wrote since this pass read it.  The entries of what this
 * pass serves are its own to decide (a key let lapse stays gone); a file
 * that is gone or cannot be parsed now adds nothing. */
static void mt_mem_reread(apr_pool_t *p, const char *path,
                          const apr_array_header_t *served, long now,
                          const struct stat *read_as)
{
    tack_state_t *state = NULL;
    char *text = NULL, err[128];
    size_t len, i, nkeys;
    const tack_state_key_t *keys;
    const char *id;
    apr_hash_t *ours = apr_hash_make(p);
    struct stat sb;
    int j;

    /* The file this pass read, unchanged (a writer replaces it: a new
     * inode), holds nothing new: not parsed twice. */
    if (read_as->st_ino && lstat(path, &sb) == 0 &&
        sb.st_ino == read_as->st_ino && sb.st_dev == read_as->st_dev &&
        sb.st_size == read_as->st_size &&
        sb.st_mtim.tv_sec == read_as->st_mtim.tv_sec &&
        sb.st_mtim.tv_nsec == read_as->st_mtim.tv_nsec &&
        sb.st_ctim.tv_sec == read_as->st_ctim.tv_sec &&
        sb.st_ctim.tv_nsec == read_as->st_ctim.tv_nsec) {
        return;
    }
    if (mt_state_read(p, path, &text, &len, NULL)) {
        return;
    }
    for (j = 0; j < served->nelts; j++) {
        apr_hash_set(ours, APR_ARRAY_IDX(served, j, const mt_served_t *)->id,
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

/* Merged, under the file's lock, with what another httpd sharing it wrote
 * meanwhile; never written under -t, in the quiet pass, or over a file
 * that could not be read. */
void mt_memory_end(server_rec *s_main, const apr_array_header_t *served)
{
    struct mt_memory *mm = mt_memory_get();
    long now;
    const char *err, *lockwhy = NULL;
    int i, lockfd;

    if (!served) {
        served = apr_array_make(mm->pool, 1, sizeof(const mt_served_t *));
    }
    now = mm->loaded ? mt_memory_now(s_main) : (long)time(NULL);
    if (!mt_strict() && !mt_quiet() && mm->loaded && !mm->keep &&
        !mm->clock_back && (served->nelts || apr_hash_count(mm->mem))) {
        apr_hash_index_t *hi;

        for (i = 0; i < served->nelts; i++) {
            mt_mem_update(APR_ARRAY_IDX(served, i, const mt_served_t *), now);
        }
        /* vhosts gone from the configuration: what they served stopped
         * being served now; their pins keep counting */
        for (hi = apr_hash_first(mm->pool, mm->mem); hi;
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
        lockfd = mt_state_lock(mm->pool, s_main, mt_memory_file(), &lockwhy);
        if (lockfd < 0) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                         "TACK00141: TackStateFile %s: cannot take its lock "
                         "(%s); written without it, so what another httpd "
                         "sharing the file wrote meanwhile may be lost",
                         mt_memory_file(), lockwhy);
        }
        mt_mem_reread(mm->pool, mt_memory_file(), served, now, &mm->read_as);
        err = mt_mem_write(mm->pool, mt_memory_file(), now);
        if (lockfd >= 0) {
            close(lockfd);
        }
        if (!err && mm->missing) {
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s_main,
                         "TACK00044: TackStateFile %s: created (there was no "
                         "memory of TACKs served before this start)",
                         mt_memory_file());
        }
        if (err) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                         "TACK00046: TackStateFile %s: cannot be written "
                         "(%s); what is served now is not remembered, so "
                         "the pin-continuity guard cannot warn about it "
                         "later",
                         mt_memory_file(), err);
        }
    }
    mt_memory_reset(mm);
}
