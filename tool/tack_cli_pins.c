/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_pins.c -- the client's pin store (draft-perrin-tls-tack-00
 * section 5, summarised in the spec's section 8); `tack pins`, which lists
 * and edits it, is in tack_cli_pins_cmd.c.
 *
 * The store is a JSON file:
 *   { "format": "tack-pins-1",
 *     "keys":  { HEX(public_key): { "tack_id", "min_generation" } },
 *     "names": { NAME: { "key": HEX, "first_seen": SECONDS,
 *                        "active_until": SECONDS, ...readable copies } },
 *     "broken_keys": { HEX(public_key): { "tack_id", "seen": SECONDS,
 *                                         "seen_utc" } } }
 * Name records point at key records.  "broken_keys" (optional) lists the
 * keys whose preload entries a break signature lifted (tack_cli_preload.c),
 * so that they stay lifted once the server stops serving it.  The store is
 * locked (flock on FILE.lock) while a check reads and rewrites it, and
 * replaced atomically.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tack_cli.h"
#include "tack_cli_pins.h"
#include "tack_util.h"
#include "tack_ext.h"

#define PINS_FORMAT "tack-pins-1"
#define PINS_MAX_ACTIVE (30 * 86400) /* draft-00 5.3: MIN(30 days, ...) */

void cli_pins_close(cli_pins_t *p)
{
    json_decref(p->root);
    if (p->lock_fd >= 0) {
        close(p->lock_fd); /* releases the flock */
    }
    free(p->real);
    p->root = NULL;
    p->real = NULL;
    p->lock_fd = -1;
}

/* pins_resolve sets p->path to the store's real file: |path|, or when
 * |path| is a symbolic link, the file it leads to (realpath).  A check used
 * to rename its new store over the link, which made the link a file of its
 * own and left the target without updates, and to lock the link's name,
 * so that the link and the target took different locks.  A link whose
 * target is missing is refused: which file it would make is unclear. */
static int pins_resolve(cli_pins_t *p, const char *path)
{
    struct stat st;

    p->path = path;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
        return CLI_EXIT_OK;
    }
    p->real = realpath(path, NULL);
    if (p->real == NULL) {
        cli_err("%s: a symbolic link whose target cannot be used: %s", path,
                strerror(errno));
        return CLI_EXIT_USAGE;
    }
    p->path = p->real;
    return CLI_EXIT_OK;
}

/* pins_lock takes an exclusive lock beside the store: the store itself is
 * replaced by rename, so it cannot carry the lock. */
static int pins_lock(cli_pins_t *p)
{
    size_t len = strlen(p->path) + sizeof(".lock");
    char *name = malloc(len);

    if (name == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    snprintf(name, len, "%s.lock", p->path);
    p->lock_fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (p->lock_fd < 0 || flock(p->lock_fd, LOCK_EX) != 0) {
        cli_err("%s: cannot lock: %s", name, strerror(errno));
        free(name);
        return CLI_EXIT_USAGE;
    }
    free(name);
    return CLI_EXIT_OK;
}

/* The latest time a store may hold: 9999-12-31T23:59:59Z. */
#define PINS_TIME_MAX ((json_int_t)253402300799LL)

static int pins_time_ok(json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 &&
           json_integer_value(v) <= PINS_TIME_MAX;
}

/* pins_id_ok checks that the tack_id |id| of the |what| (a key record or
 * a broken key record) named |k| is the fingerprint of its key |key|.
 * Returns 1, or 0 with |why|. */
static int pins_id_ok(const char *what, const char *k, const uint8_t *key,
                      json_t *id, char *why, size_t why_size)
{
    char fpr[TACK_FINGERPRINT_SIZE];

    tack_fingerprint(key, fpr);
    if (strcmp(json_string_value(id), fpr) != 0) {
        snprintf(why, why_size, "%s \"%.32s...\": tack_id is not its key's",
                 what, k);
        return 0;
    }
    return 1;
}

/* pins_valid checks the shape of a loaded store, so that the rules below
 * can trust it. */
static int pins_valid(cli_pins_t *p, char *why, size_t why_size)
{
    const char *k;
    json_t *v;

    p->keys = json_object_get(p->root, "keys");
    p->names = json_object_get(p->root, "names");
    if (!json_is_object(p->root) ||
        !json_is_string(json_object_get(p->root, "format")) ||
        strcmp(json_string_value(json_object_get(p->root, "format")),
               PINS_FORMAT) != 0) {
        snprintf(why, why_size, "no \"format\": \"%s\"", PINS_FORMAT);
        return 0;
    }
    if (!json_is_object(p->keys) || !json_is_object(p->names)) {
        snprintf(why, why_size, "\"keys\" and \"names\" must be objects");
        return 0;
    }
    json_object_foreach(p->keys, k, v)
    {
        uint8_t key[TACK_KEY_LEN];
        json_t *id = json_object_get(v, "tack_id");
        json_t *mg = json_object_get(v, "min_generation");

        /* Everything the rules and the listing read is checked here, once:
         * the key, its TACK ID (which must be the key's), a generation that
         * fits a byte. */
        if (tack_hex_decode(key, sizeof(key), k) != TACK_OK ||
            !json_is_object(v) || !json_is_string(id) || !json_is_integer(mg) ||
            json_integer_value(mg) < 0 || json_integer_value(mg) > 255) {
            snprintf(why, why_size, "bad key record \"%.32s...\"", k);
            return 0;
        }
        if (!pins_id_ok("key record", k, key, id, why, why_size)) {
            return 0;
        }
    }
    json_object_foreach(p->names, k, v)
    {
        json_t *key = json_object_get(v, "key");

        /* Times within 1970..9999, so that the activation arithmetic
         * (now - first_seen, now + 30 days) cannot overflow. */
        if (!json_is_object(v) || !json_is_string(key) ||
            json_object_get(p->keys, json_string_value(key)) == NULL ||
            !pins_time_ok(json_object_get(v, "first_seen")) ||
            !pins_time_ok(json_object_get(v, "active_until"))) {
            snprintf(why, why_size, "bad name record \"%s\"", k);
            return 0;
        }
    }
    p->broken = json_object_get(p->root, "broken_keys");
    if (p->broken != NULL && !json_is_object(p->broken)) {
        snprintf(why, why_size, "\"broken_keys\" must be an object");
        return 0;
    }
    json_object_foreach(p->broken, k, v)
    {
        uint8_t key[TACK_KEY_LEN];
        json_t *id = json_object_get(v, "tack_id");

        if (tack_hex_decode(key, sizeof(key), k) != TACK_OK ||
            !json_is_object(v) || !json_is_string(id) ||
            !pins_time_ok(json_object_get(v, "seen"))) {
            snprintf(why, why_size, "bad broken key record \"%.32s...\"", k);
            return 0;
        }
        if (!pins_id_ok("broken key record", k, key, id, why, why_size)) {
            return 0;
        }
    }
    return 1;
}

/* cli_pins_open locks and loads the store; a missing file is an empty store. */
int cli_pins_open(cli_pins_t *p, const char *path, int lock)
{
    json_error_t jerr;
    char why[256];
    char *text = NULL;
    size_t len = 0;

    memset(p, 0, sizeof(*p));
    p->lock_fd = -1;
    if (pins_resolve(p, path) != CLI_EXIT_OK ||
        (lock && pins_lock(p) != CLI_EXIT_OK)) {
        cli_pins_close(p);
        return CLI_EXIT_USAGE;
    }
    path = p->path;
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        p->root = json_pack("{s:s, s:{}, s:{}}", "format", PINS_FORMAT, "keys",
                            "names");
        p->keys = json_object_get(p->root, "keys");
        p->names = json_object_get(p->root, "names");
        return CLI_EXIT_OK;
    }
    if (cli_read_file_max(path, PINS_FILE_MAX, &text, &len) != CLI_EXIT_OK) {
        cli_pins_close(p);
        return CLI_EXIT_USAGE;
    }
    p->root = json_loadb(text, len, 0, &jerr);
    free(text);
    if (p->root == NULL) {
        cli_err("%s: not a pin store: line %d: %s", path, jerr.line, jerr.text);
        cli_pins_close(p);
        return CLI_EXIT_USAGE;
    }
    if (!pins_valid(p, why, sizeof(why))) {
        cli_err("%s: not a pin store: %s", path, why);
        cli_pins_close(p);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_pins_save(cli_pins_t *p)
{
    char *text = json_dumps(p->root, JSON_INDENT(2) | JSON_SORT_KEYS);
    size_t len;
    int rc;

    if (text == NULL) {
        cli_err("%s: cannot encode the store", p->path);
        return CLI_EXIT_USAGE;
    }
    len = strlen(text);
    if (len > PINS_FILE_MAX) {
        cli_err("%s: not updated: the store would be %zu bytes, more than "
                "the %zu the tool reads (" TACK_PROG
                " pins --delete NAME makes room)",
                p->path, len, PINS_FILE_MAX);
        free(text);
        return CLI_EXIT_USAGE;
    }
    rc = cli_write_atomic(p->path, text, len, 0600);
    free(text);
    return rc;
}

json_int_t cli_pins_int(json_t *obj, const char *key)
{
    return json_integer_value(json_object_get(obj, key));
}

/* pins_set_times stores the times as numbers, with readable copies. */
static void pins_set_times(json_t *rec, time_t first_seen, time_t active_until)
{
    char a[32], b[32];

    cli_format_time(first_seen, 1, a, sizeof(a));
    cli_format_time(active_until, 1, b, sizeof(b));
    json_object_set_new(rec, "first_seen", json_integer(first_seen));
    json_object_set_new(rec, "active_until", json_integer(active_until));
    json_object_set_new(rec, "first_seen_utc", json_string(a));
    json_object_set_new(rec, "active_until_utc",
                        json_string(active_until ? b : "never active"));
}

/* pins_new_name creates an inactive pin of |name| on |tack|'s key, with a
 * key record if there is none. */
static void pins_new_name(cli_pins_t *p, const char *name, const tack_t *tack,
                          time_t now)
{
    char hex[2 * TACK_KEY_LEN + 1], fpr[TACK_FINGERPRINT_SIZE];
    json_t *rec;

    tack_hex_encode(hex, sizeof(hex), tack->public_key, TACK_KEY_LEN);
    if (json_object_get(p->keys, hex) == NULL) {
        tack_fingerprint(tack->public_key, fpr);
        json_object_set_new(p->keys, hex,
                            json_pack("{s:s, s:i}", "tack_id", fpr,
                                      "min_generation",
                                      (int)tack->min_generation));
    }
    rec = json_pack("{s:s}", "key", hex);
    pins_set_times(rec, now, 0);
    json_object_set_new(p->names, name, rec);
}

/* cli_pins_gc drops key records no name points at. */
void cli_pins_gc(cli_pins_t *p)
{
    const char *k, *n;
    json_t *v, *nv, *used = json_object();
    void *tmp;

    /* One pass over the names, then one over the keys: a browser-sized
     * store (100,000 names, as many keys) took minutes when each key
     * looked through every name. */
    if (used == NULL) {
        return; /* out of memory: the unused records stay, harmless */
    }
    json_object_foreach(p->names, n, nv)
    {
        json_object_set(used, json_string_value(json_object_get(nv, "key")),
                        json_true());
    }
    json_object_foreach_safe(p->keys, tmp, k, v)
    {
        if (json_object_get(used, k) == NULL) {
            json_object_del(p->keys, k);
        }
    }
    json_decref(used);
}

/* pins_note prints one "pin = ..." line and keeps it in the report. */
#define pins_note(fp, report, ...) cli_note((fp), (report), "pin", __VA_ARGS__)

char *cli_pins_normalise(const char *name)
{
    char *s = strdup(name);
    size_t i, len;

    if (s == NULL) {
        return NULL;
    }
    for (i = 0; s[i] != '\0'; i++) {
        s[i] = (char)tolower((unsigned char)s[i]);
    }
    len = strlen(s);
    if (len > 1 && s[len - 1] == '.') {
        s[len - 1] = '\0';
    }
    return s;
}

/* pins_step_t is what the steps of pins_rules share: the store, the name
 * being checked, where notes go, and the reply's TACKs left once its break
 * signatures are applied (at most two: draft-02 serves two). */
typedef struct {
    cli_pins_t *p;
    const char *name;
    time_t now;
    FILE *fp;
    json_t *report;
    const char **alert;
    int *changed;
    const tack_t *tacks[2];
    int active[2];
    size_t ntacks;
} pins_step_t;

/* pins_apply_breaksigs (draft-00 5.2): every key record named by a valid
 * break signature goes, with the name records pointing at it. */
static void pins_apply_breaksigs(pins_step_t *s, const cli_pin_input_t *in)
{
    char hex[2 * TACK_KEY_LEN + 1], fpr[TACK_FINGERPRINT_SIZE];
    size_t i;

    for (i = 0; i < in->num_breaksigs; i++) {
        const char *n;
        json_t *v;
        void *tmp;

        tack_hex_encode(hex, sizeof(hex), in->breaksigs[i].public_key,
                        TACK_KEY_LEN);
        tack_fingerprint(in->breaksigs[i].public_key, fpr);
        if (json_object_get(s->p->keys, hex) == NULL) {
            continue;
        }
        json_object_foreach_safe(s->p->names, tmp, n, v)
        {
            if (strcmp(json_string_value(json_object_get(v, "key")), hex) ==
                0) {
                pins_note(s->fp, s->report,
                          "%s: discarded (break signature for "
                          "%s)",
                          n, fpr);
                json_object_del(s->p->names, n);
            }
        }
        json_object_del(s->p->keys, hex);
        *s->changed = 1;
    }
}

/* pins_keep_unbroken keeps in |s| the reply's TACKs whose key the same
 * reply does not break: those are not pinned. */
static void pins_keep_unbroken(pins_step_t *s, const cli_pin_input_t *in)
{
    size_t i, j;

    for (i = 0; i < in->num_tacks; i++) {
        int broken = 0;

        for (j = 0; j < in->num_breaksigs; j++) {
            if (memcmp(in->breaksigs[j].public_key, in->tacks[i]->public_key,
                       TACK_KEY_LEN) == 0) {
                broken = 1;
            }
        }
        if (!broken) {
            s->tacks[s->ntacks] = in->tacks[i];
            s->active[s->ntacks] = in->active[i];
            s->ntacks++;
        }
    }
}

/* pins_generations (draft-00 5.3): a TACK below its key's pinned
 * min_generation is revoked; a higher min_generation raises the floor.
 * Returns 0, or 1 when rejected (|*s->alert| set). */
static int pins_generations(pins_step_t *s)
{
    char hex[2 * TACK_KEY_LEN + 1], fpr[TACK_FINGERPRINT_SIZE];
    json_t *krec;
    size_t i;

    for (i = 0; i < s->ntacks; i++) {
        const tack_t *t = s->tacks[i];

        tack_hex_encode(hex, sizeof(hex), t->public_key, TACK_KEY_LEN);
        krec = json_object_get(s->p->keys, hex);
        if (krec == NULL) {
            continue;
        }
        if (t->generation < cli_pins_int(krec, "min_generation")) {
            tack_fingerprint(t->public_key, fpr);
            *s->alert = "certificate_revoked";
            json_object_set_new(
                s->report, "reason",
                json_sprintf("TACK generation %u of %s is below the pinned "
                             "min_generation %d",
                             t->generation, fpr,
                             (int)cli_pins_int(krec, "min_generation")));
            return 1;
        }
        if (t->min_generation > cli_pins_int(krec, "min_generation")) {
            pins_note(
                s->fp, s->report, "min_generation of %s raised from %d to %u",
                json_string_value(json_object_get(krec, "tack_id")),
                (int)cli_pins_int(krec, "min_generation"), t->min_generation);
            json_object_set_new(krec, "min_generation",
                                json_integer(t->min_generation));
            *s->changed = 1;
        }
    }
    return 0;
}

/* pins_matched handles a pin whose key the server's TACK |m| (of the
 * unbroken ones) has: with activation on, the period grows with the pin's
 * age, capped at 30 days (spec section 8's table). */
static void pins_matched(pins_step_t *s, json_t *pin, size_t m)
{
    time_t first = (time_t)cli_pins_int(pin, "first_seen");
    time_t until = (time_t)cli_pins_int(pin, "active_until");
    int is_active = until > s->now;
    char when[32];

    if (s->active[m]) {
        time_t age = s->now - first;
        time_t ext = age < PINS_MAX_ACTIVE ? age : PINS_MAX_ACTIVE;
        time_t end = s->now + (ext > 0 ? ext : 0);

        if (end > until) {
            pins_set_times(pin, first, end);
            *s->changed = 1;
            until = end;
        }
        cli_format_time(until, 1, when, sizeof(when));
        pins_note(s->fp, s->report, "%s: %s until %s", s->name,
                  until > s->now
                      ? (is_active ? "active, extended" : "activated")
                      : "inactive (seen for the first time "
                        "just now)",
                  when);
    } else if (is_active) {
        cli_format_time(until, 1, when, sizeof(when));
        pins_note(s->fp, s->report,
                  "%s: active until %s (activation "
                  "off: not extended)",
                  s->name, when);
    } else {
        pins_note(s->fp, s->report, "%s: inactive (activation off)", s->name);
    }
}

/* pins_mismatched handles a pin whose key no TACK of the reply has: an
 * active pin rejects the server (returns 1, |*s->alert| set); an inactive
 * one is replaced by a pin on the new TACK, or deleted when there is none
 * (returns 0). */
static int pins_mismatched(pins_step_t *s, json_t *pin)
{
    const char *key = json_string_value(json_object_get(pin, "key"));
    time_t until = (time_t)cli_pins_int(pin, "active_until");
    json_t *krec = json_object_get(s->p->keys, key);
    char when[32], fpr[TACK_FINGERPRINT_SIZE];

    if (until > s->now) {
        cli_format_time(until, 1, when, sizeof(when));
        *s->alert = "access_denied";
        json_object_set_new(
            s->report, "reason",
            json_sprintf(
                "%s is pinned to %s until %s, and the server "
                "presents %s",
                s->name, json_string_value(json_object_get(krec, "tack_id")),
                when, s->ntacks ? "a TACK with another key" : "no TACK"));
        return 1;
    }
    if (s->ntacks > 0) {
        tack_fingerprint(s->tacks[0]->public_key, fpr);
        pins_note(s->fp, s->report,
                  "%s: inactive pin on %s replaced by a new "
                  "inactive pin on %s",
                  s->name, json_string_value(json_object_get(krec, "tack_id")),
                  fpr);
        pins_new_name(s->p, s->name, s->tacks[0], s->now);
    } else {
        pins_note(s->fp, s->report, "%s: inactive pin on %s deleted (no TACK)",
                  s->name, json_string_value(json_object_get(krec, "tack_id")));
        json_object_del(s->p->names, s->name);
    }
    *s->changed = 1;
    return 0;
}

/* pins_activation (draft-00 5.3, the table in the spec's section 8): a
 * name without a pin gets an inactive one on the first TACK; a pin is then
 * matched against the TACKs or not.  Returns 0, or 1 when rejected. */
static int pins_activation(pins_step_t *s)
{
    char hex[2 * TACK_KEY_LEN + 1], fpr[TACK_FINGERPRINT_SIZE];
    json_t *pin = json_object_get(s->p->names, s->name);
    const char *key;
    size_t i;

    if (pin == NULL) {
        if (s->ntacks > 0) {
            tack_fingerprint(s->tacks[0]->public_key, fpr);
            pins_new_name(s->p, s->name, s->tacks[0], s->now);
            pins_note(s->fp, s->report, "%s: new inactive pin on %s", s->name,
                      fpr);
            *s->changed = 1;
        } else {
            pins_note(s->fp, s->report, "%s: no pin", s->name);
        }
        return 0;
    }
    key = json_string_value(json_object_get(pin, "key"));
    for (i = 0; i < s->ntacks; i++) {
        tack_hex_encode(hex, sizeof(hex), s->tacks[i]->public_key,
                        TACK_KEY_LEN);
        if (strcmp(hex, key) == 0) {
            pins_matched(s, pin, i);
            return 0;
        }
    }
    return pins_mismatched(s, pin);
}

/* pins_rules applies draft-00 section 5 to the loaded store: break
 * signatures (5.2), then generations and pin activation (5.3).  Returns 0
 * (accepted) or 1 (rejected, |*alert| set); |*changed| tells whether the
 * store must be written. */
static int pins_rules(cli_pins_t *p, const cli_pin_input_t *in,
                      const char *name, FILE *fp, json_t *report,
                      const char **alert, int *changed)
{
    pins_step_t s;

    memset(&s, 0, sizeof(s));
    s.p = p;
    s.name = name;
    s.now = in->now;
    s.fp = fp;
    s.report = report;
    s.alert = alert;
    s.changed = changed;
    pins_apply_breaksigs(&s, in);
    pins_keep_unbroken(&s, in);
    if (pins_generations(&s)) {
        return 1;
    }
    return pins_activation(&s);
}

/* pins_record_lifted remembers the keys whose preload entries a break
 * signature of this reply lifted: the break signature proves the key's
 * holder gave it up, and the server may stop serving it long before a
 * preload list expires. */
static void pins_record_lifted(cli_pins_t *p, const cli_pin_input_t *in,
                               FILE *fp, json_t *report, int *changed)
{
    char hex[2 * TACK_KEY_LEN + 1], fpr[TACK_FINGERPRINT_SIZE], when[32];
    size_t i;

    for (i = 0; i < in->num_lifted; i++) {
        tack_hex_encode(hex, sizeof(hex), in->lifted[i], TACK_KEY_LEN);
        if (p->broken != NULL && json_object_get(p->broken, hex) != NULL) {
            continue;
        }
        if (p->broken == NULL) {
            p->broken = json_object();
            json_object_set_new(p->root, "broken_keys", p->broken);
        }
        tack_fingerprint(in->lifted[i], fpr);
        cli_format_time(in->now, 1, when, sizeof(when));
        json_object_set_new(p->broken, hex,
                            json_pack("{s:s, s:I, s:s}", "tack_id", fpr, "seen",
                                      (json_int_t)in->now, "seen_utc", when));
        pins_note(fp, report,
                  "%s: broken key recorded (its preload entries stay "
                  "lifted)",
                  fpr);
        *changed = 1;
    }
}

/* pins_raise_to_preload raises the key record of the preload entry just
 * enforced to the entry's min_generation: a revocation the list announced
 * outlives the list. */
static void pins_raise_to_preload(cli_pins_t *p, const cli_pin_input_t *in,
                                  FILE *fp, json_t *report, int *changed)
{
    char hex[2 * TACK_KEY_LEN + 1];
    json_t *krec;
    json_int_t old;

    if (in->preload_key == NULL) {
        return;
    }
    tack_hex_encode(hex, sizeof(hex), in->preload_key, TACK_KEY_LEN);
    krec = json_object_get(p->keys, hex);
    if (krec == NULL) {
        return;
    }
    old = cli_pins_int(krec, "min_generation");
    if (in->preload_min_generation > old) {
        pins_note(fp, report,
                  "min_generation of %s raised from %d to %d (preload list)",
                  json_string_value(json_object_get(krec, "tack_id")), (int)old,
                  in->preload_min_generation);
        json_object_set_new(krec, "min_generation",
                            json_integer(in->preload_min_generation));
        *changed = 1;
    }
}

int cli_pins_key_state(const char *path, const uint8_t key[TACK_KEY_LEN],
                       int *broken, int *min_generation)
{
    char hex[2 * TACK_KEY_LEN + 1];
    json_t *krec;
    cli_pins_t p;
    int rc;

    *broken = 0;
    *min_generation = -1;
    /* No lock: the store is only ever replaced whole, so this reads one
     * consistent version. */
    rc = cli_pins_open(&p, path, 0);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    tack_hex_encode(hex, sizeof(hex), key, TACK_KEY_LEN);
    *broken = p.broken != NULL && json_object_get(p.broken, hex) != NULL;
    krec = json_object_get(p.keys, hex);
    if (krec != NULL) {
        *min_generation = (int)cli_pins_int(krec, "min_generation");
    }
    cli_pins_close(&p);
    return CLI_EXIT_OK;
}

int cli_pins_apply(const char *path, const cli_pin_input_t *in, FILE *fp,
                   const char **alert, json_t *report)
{
    cli_pins_t p;
    char *name;
    int changed = 0, verdict, rc;

    name = cli_pins_normalise(in->name);
    if (name == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    rc = cli_pins_open(&p, path, 1);
    if (rc != CLI_EXIT_OK) {
        json_object_set_new(report, "error",
                            json_string("the pin store cannot be used"));
        free(name);
        return rc;
    }
    json_object_set_new(report, "file", json_string(path));
    json_object_set_new(report, "name", json_string(name));
    pins_record_lifted(&p, in, fp, report, &changed);
    verdict = pins_rules(&p, in, name, fp, report, alert, &changed);
    if (verdict == 0) {
        pins_raise_to_preload(&p, in, fp, report, &changed);
    }
    if (changed) {
        cli_pins_gc(&p);
        rc = cli_pins_save(&p);
        if (rc != CLI_EXIT_OK) {
            json_object_set_new(report, "error",
                                json_string("the pin store was not updated"));
        }
    }
    cli_pins_close(&p);
    free(name);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    return verdict ? CLI_EXIT_CHECK : CLI_EXIT_OK;
}
