/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_state.c -- the state file, read and written (tack_state.h), with
 * jansson.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <jansson.h>

#include "tack_state.h"
#include "tack_ext.h"
#include "tack_util.h"

typedef struct {
    char *id; /* NULL: a name that is not one (never quoted) */
    int ok;   /* 0: malformed, left out */
    size_t nkeys;
    tack_state_key_t *keys;
} tack_state_entry_t;

struct tack_state {
    long written;
    size_t n, cap;
    tack_state_entry_t *entries;
};

tack_state_t *tack_state_new(long written)
{
    tack_state_t *st = calloc(1, sizeof(*st));

    if (st) {
        st->written = written;
    }
    return st;
}

void tack_state_free(tack_state_t *st)
{
    size_t i;

    if (!st) {
        return;
    }
    for (i = 0; i < st->n; i++) {
        free(st->entries[i].id);
        free(st->entries[i].keys);
    }
    free(st->entries);
    free(st);
}

int tack_state_id_ok(const char *id)
{
    size_t i, n = strlen(id);

    if (n == 0 || n >= TACK_STATE_ID_MAX || !strchr(id, ':') ||
        !strchr(id, ' ')) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)id[i];

        if ((c < 0x21 && c != ' ') || c >= 0x7f || c == '"' || c == '\\') {
            return 0;
        }
    }
    return 1;
}

/* tack_state_push appends an entry (its id copied), or returns NULL. */
static tack_state_entry_t *tack_state_push(tack_state_t *st, const char *id)
{
    tack_state_entry_t *e;

    if (st->n == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 16;
        tack_state_entry_t *grown =
            realloc(st->entries, cap * sizeof(*st->entries));

        if (!grown) {
            return NULL;
        }
        st->entries = grown;
        st->cap = cap;
    }
    e = &st->entries[st->n];
    memset(e, 0, sizeof(*e));
    if (id && !(e->id = strdup(id))) {
        return NULL;
    }
    st->n++;
    return e;
}

/* tack_state_hex_field decodes |len| bytes of hex at |name| of |obj| into
 * |out|; 0 when absent, not a string, or not exactly that
 * (tack_hex_decode). */
static int tack_state_hex_field(json_t *obj, const char *name, uint8_t *out,
                                size_t len)
{
    const char *in = json_string_value(json_object_get(obj, name));

    return tack_hex_decode(out, len, in) == TACK_OK;
}

/* tack_state_time reads the time |t| into |*out|: 1 when it is one of
 * 1970 to 9999, else 0 (and |*out| 0). */
static int tack_state_time(json_t *t, long *out)
{
    json_int_t v = json_integer_value(t);

    *out = 0;
    if (v < 0 || v > TACK_STATE_TIME_MAX) {
        return 0;
    }
    *out = (long)v;
    return 1;
}

/* tack_state_keys reads one entry's keys; 0 when malformed. */
static int tack_state_keys(json_t *arr, tack_state_entry_t *e)
{
    size_t i;
    json_t *k;

    if (!json_is_array(arr)) {
        return 0;
    }
    e->keys = calloc(json_array_size(arr) + 1, sizeof(*e->keys));
    if (!e->keys) {
        return 0;
    }
    json_array_foreach(arr, i, k)
    {
        tack_state_key_t *m = &e->keys[i];
        json_t *first = json_object_get(k, "first_seen");
        json_t *last = json_object_get(k, "last_served");
        json_t *act = json_object_get(k, "activation");
        json_t *gen = json_object_get(k, "min_generation");

        if (!json_is_integer(first) || !json_is_integer(last) ||
            !tack_state_hex_field(k, "key", m->key, TACK_KEY_LEN) ||
            (act && !json_is_boolean(act)) ||
            (gen && (!json_is_integer(gen) || json_integer_value(gen) < 0 ||
                     json_integer_value(gen) > 255))) {
            return 0;
        }
        if (!tack_state_time(first, &m->first_seen) ||
            !tack_state_time(last, &m->last_served) ||
            (json_object_get(k, "min_generation_until") &&
             !tack_state_time(json_object_get(k, "min_generation_until"),
                              &m->min_generation_until))) {
            m->first_seen = m->last_served = m->min_generation_until = 0;
            m->bad_time = 1;
        }
        /* Files written before 0.1.1 remember only keys served with
         * activation on, and say nothing of it. */
        m->activation = !act || json_is_true(act);
        m->min_generation = gen ? (int)json_integer_value(gen) : 0;
        m->serving = json_is_true(json_object_get(k, "serving"));
        m->has_tack = tack_state_hex_field(k, "tack", m->tack, TACK_LEN);
    }
    e->nkeys = json_array_size(arr);
    return 1;
}

tack_status_t tack_state_parse(const char *text, size_t len, tack_state_t **out,
                               char *err, size_t err_len)
{
    json_error_t jerr;
    json_t *root, *slots, *slot;
    const char *id;
    tack_state_t *st;

    *out = NULL;
    if (err_len) {
        err[0] = '\0';
    }
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    slots = root ? json_object_get(root, "slots") : NULL;
    if (!root || json_integer_value(json_object_get(root, "version")) != 1 ||
        !json_is_object(slots)) {
        /* jansson's own text quotes the file ("near 'hunter2'"): the
         * position only. */
        if (root) {
            snprintf(err, err_len, "no \"version\": 1 with \"slots\"");
        } else {
            snprintf(err, err_len, "not JSON: line %d, column %d", jerr.line,
                     jerr.column);
        }
        json_decref(root);
        return TACK_ERR_NOT_STATE_FILE;
    }
    if (!(st = tack_state_new(
              (long)json_integer_value(json_object_get(root, "written"))))) {
        json_decref(root);
        return TACK_ERR_NOMEM;
    }
    json_object_foreach(slots, id, slot)
    {
        int shaped = tack_state_id_ok(id);
        tack_state_entry_t *e = tack_state_push(st, shaped ? id : NULL);

        if (!e) {
            tack_state_free(st);
            json_decref(root);
            return TACK_ERR_NOMEM;
        }
        e->ok = shaped && tack_state_keys(slot, e);
    }
    json_decref(root);
    *out = st;
    return TACK_OK;
}

long tack_state_written(const tack_state_t *st)
{
    return st->written;
}

size_t tack_state_count(const tack_state_t *st)
{
    return st->n;
}

int tack_state_entry(const tack_state_t *st, size_t i, const char **id,
                     const tack_state_key_t **keys, size_t *nkeys)
{
    const tack_state_entry_t *e = &st->entries[i];

    *id = e->id;
    *keys = e->ok ? e->keys : NULL;
    *nkeys = e->ok ? e->nkeys : 0;
    return e->ok;
}

tack_status_t tack_state_add(tack_state_t *st, const char *id,
                             const tack_state_key_t *keys, size_t nkeys)
{
    tack_state_entry_t *e;

    if (!nkeys) {
        return TACK_OK;
    }
    if (!tack_state_id_ok(id)) {
        return TACK_ERR_INVALID_ARG;
    }
    if (!(e = tack_state_push(st, id)) ||
        !(e->keys = malloc(nkeys * sizeof(*keys)))) {
        return TACK_ERR_NOMEM;
    }
    memcpy(e->keys, keys, nkeys * sizeof(*keys));
    e->nkeys = nkeys;
    e->ok = 1;
    return TACK_OK;
}

/* tack_state_add_secs returns |t| + |secs| (secs >= 0), LONG_MAX when
 * that is beyond it. */
static long tack_state_add_secs(long t, long secs)
{
    return t > LONG_MAX - secs ? LONG_MAX : t + secs;
}

/* tack_state_last returns |m|'s last confirmation judged at |now|: |now|
 * while it is served, and never later than |now|. */
static long tack_state_last(const tack_state_key_t *m, long now)
{
    return m->serving || m->last_served > now ? now : m->last_served;
}

long tack_state_pins_until(const tack_state_key_t *m, long now)
{
    long last = tack_state_last(m, now);
    long span = TACK_STATE_PIN_MAX_SECS;

    if (!m->activation) {
        return 0;
    }
    /* last - first_seen, in unsigned arithmetic (the difference of two
     * longs, the first not above the second, fits): a first sight later
     * than the last confirmation, or longer ago than the longest span,
     * counts as the longest span. */
    if (m->first_seen <= last) {
        unsigned long d = (unsigned long)last - (unsigned long)m->first_seen;

        if (d < (unsigned long)TACK_STATE_PIN_MAX_SECS) {
            span = (long)d;
        }
    }
    return tack_state_add_secs(last, span);
}

long tack_state_keep_until(const tack_state_key_t *m, long now)
{
    long pins = tack_state_pins_until(m, now);

    return pins > m->min_generation_until ? pins : m->min_generation_until;
}

long tack_state_ahead(const tack_state_t *st, long now)
{
    long latest = st->written;
    size_t i, j;

    for (i = 0; i < st->n; i++) {
        for (j = 0; st->entries[i].ok && j < st->entries[i].nkeys; j++) {
            const tack_state_key_t *m = &st->entries[i].keys[j];

            if (m->first_seen > latest) {
                latest = m->first_seen;
            }
            if (m->last_served > latest) {
                latest = m->last_served;
            }
        }
    }
    return latest > tack_state_add_secs(now, TACK_STATE_CLOCK_SLACK_SECS)
               ? latest
               : 0;
}

size_t tack_state_redate(tack_state_t *st, long now)
{
    size_t i, j, changed = 0;

    for (i = 0; i < st->n; i++) {
        for (j = 0; st->entries[i].ok && j < st->entries[i].nkeys; j++) {
            tack_state_key_t *m = &st->entries[i].keys[j];
            int moved = 0;

            if (m->last_served > now) {
                m->last_served = now;
                moved = 1;
            }
            if (m->first_seen > now) {
                m->first_seen =
                    m->last_served < LONG_MIN + TACK_STATE_PIN_MAX_SECS
                        ? LONG_MIN
                        : m->last_served - TACK_STATE_PIN_MAX_SECS;
                moved = 1;
            }
            changed += (size_t)moved;
            m->pins_until = tack_state_pins_until(m, now);
        }
    }
    if (st->written > now) {
        st->written = now;
    }
    return changed;
}

/* tack_state_key_json returns one key as the file holds it. */
static json_t *tack_state_key_json(const tack_state_key_t *m)
{
    char fpr[TACK_FINGERPRINT_SIZE], key[2 * TACK_KEY_LEN + 1],
        tack[2 * TACK_LEN + 1];
    json_t *k = json_object();

    if (!k) {
        return NULL;
    }
    tack_fingerprint(m->key, fpr);
    tack_hex_encode(key, sizeof(key), m->key, TACK_KEY_LEN);
    json_object_set_new(k, "tack_id", json_string(fpr));
    json_object_set_new(k, "key", json_string(key));
    json_object_set_new(k, "first_seen", json_integer(m->first_seen));
    json_object_set_new(k, "last_served", json_integer(m->last_served));
    json_object_set_new(k, "serving", json_boolean(m->serving));
    json_object_set_new(k, "activation", json_boolean(m->activation));
    json_object_set_new(k, "min_generation", json_integer(m->min_generation));
    json_object_set_new(k, "min_generation_until",
                        json_integer(m->min_generation_until));
    json_object_set_new(k, "pins_until", json_integer(m->pins_until));
    if (m->has_tack) {
        tack_hex_encode(tack, sizeof(tack), m->tack, TACK_LEN);
        json_object_set_new(k, "tack", json_string(tack));
    }
    return k;
}

char *tack_state_dump(const tack_state_t *st)
{
    json_t *root = json_object(), *slots = json_object();
    char *text = NULL;
    size_t i, j;

    if (!root || !slots) {
        goto done;
    }
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "written", json_integer(st->written));
    for (i = 0; i < st->n; i++) {
        const tack_state_entry_t *e = &st->entries[i];
        json_t *keys;

        if (!e->ok || !e->nkeys || !(keys = json_array())) {
            continue;
        }
        for (j = 0; j < e->nkeys; j++) {
            json_array_append_new(keys, tack_state_key_json(&e->keys[j]));
        }
        json_object_set_new(slots, e->id, keys);
    }
    json_object_set(root, "slots", slots);
    text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
done:
    json_decref(slots);
    json_decref(root);
    return text;
}

/* tack_state_lock_open opens the lock file |lock|, made 0600 when it is
 * missing; -1 with errno, EPERM when it is there but not a regular file
 * of ours, mode 0600. */
static int tack_state_lock_open(const char *lock)
{
    struct stat sb;
    int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                  0600);

    if (fd < 0) {
        if (errno == ELOOP || errno == ENXIO || errno == EISDIR) {
            errno = EPERM; /* a link, a socket, a directory */
        }
        return -1;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
        (sb.st_mode & 07777) != 0600) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

int tack_state_lock(const char *path, int wait_ms, int *replaced)
{
    char lock[4096];
    int fd, waited = 0;

    if (replaced) {
        *replaced = 0;
    }
    if ((size_t)snprintf(lock, sizeof(lock), "%s%s", path,
                         TACK_STATE_LOCK_SUFFIX) >= sizeof(lock)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = tack_state_lock_open(lock);
    if (fd < 0 && errno == EPERM) {
        /* Not ours: made by someone who could then hold it.  Removed (a
         * directory is not: rmdir it by hand) and made anew. */
        if (unlink(lock) != 0 || (fd = tack_state_lock_open(lock)) < 0) {
            errno = EPERM;
            return -1;
        }
        if (replaced) {
            *replaced = 1;
        }
    }
    if (fd < 0) {
        return -1;
    }
    for (;;) {
        struct timespec tick = {0, 100L * 1000 * 1000};
        int e;

        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            return fd;
        }
        e = errno;
        if ((e != EWOULDBLOCK && e != EINTR) || waited >= wait_ms) {
            close(fd);
            errno = e == EINTR ? EWOULDBLOCK : e;
            return -1;
        }
        nanosleep(&tick, NULL);
        waited += 100;
    }
}
