/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_preload.c -- preload lists (docs/preload.md): TACK keys known
 * for host names before the first connection, so that the first one is not
 * trust-on-first-use.  This file reads and checks a list and applies it as
 * `tack check --preload` does (the engine calls cli_preload_apply);
 * tack_cli_preload_cmd.c builds and shows lists (`tack preload`).
 *
 * The list is a JSON file:
 *   { "format": "tack-preload", "version": 1,
 *     "generated": SECONDS, "expires": SECONDS, ...readable copies,
 *     "entries": [ { "host", "public_key": HEX, "tack_id",
 *                    "min_generation", "observed": SECONDS,
 *                    ...readable copy } ] }
 * It is checked whole when it is loaded (cli_preload_parse), so that the
 * rules below can trust it; an expired list is not enforced.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "tack_cli.h"
#include "tack_cli_preload.h"
#include "tack_util.h"
#include "tack_file.h"
#include "tack_key.h"
#include "tack_ext.h"

/* ---- names --------------------------------------------------------------- */

/* cli_preload_host_ok accepts a normalised DNS name (ASCII letters, digits,
 * hyphens, underscores; labels of 1 to 63; at most 253 characters) and IPv4
 * literals, which have the same shape.  No wildcards: TACK pins exact
 * names. */
int cli_preload_host_ok(const char *h)
{
    size_t len = strlen(h), label = 0, i;

    if (len == 0 || len > PRELOAD_NAME_MAX) {
        return 0;
    }
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)h[i];

        if (c == '.') {
            if (label == 0) {
                return 0;
            }
            label = 0;
            continue;
        }
        if (!(islower(c) || isdigit(c) || c == '-' || c == '_') ||
            ++label > PRELOAD_LABEL_MAX) {
            return 0;
        }
    }
    return label > 0;
}

/* ---- loading and checking ------------------------------------------------ */

/* preload_printable copies at most |out_size| - 1 bytes of |in| for a
 * message, each byte that is not printable ASCII as '?': a list may come
 * from anyone, and its text must not drive the terminal. */
static const char *preload_printable(const char *in, char *out, size_t out_size)
{
    size_t i;

    for (i = 0; in[i] != '\0' && i + 1 < out_size; i++) {
        out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
    }
    out[i] = '\0';
    return out;
}

static int preload_time_ok(json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 &&
           json_integer_value(v) <= PRELOAD_TIME_MAX;
}

/* preload_copy_ok: a readable copy of a time, when present, must say the
 * same as the number (which is what the tool reads). */
static int preload_copy_ok(json_t *obj, const char *key, time_t t)
{
    json_t *v = json_object_get(obj, key);
    char when[32];

    if (v == NULL) {
        return 1;
    }
    cli_format_time(t, 1, when, sizeof(when));
    return json_is_string(v) && strcmp(json_string_value(v), when) == 0;
}

/* preload_fields_ok refuses members the format does not have: a reader of
 * version 1 that skipped a member meant to restrict would enforce less than
 * the list says. */
static int preload_fields_ok(json_t *obj, const char *const *known,
                             const char **bad)
{
    const char *k;
    json_t *v;
    size_t i;

    json_object_foreach(obj, k, v)
    {
        for (i = 0; known[i] != NULL; i++) {
            if (strcmp(known[i], k) == 0) {
                break;
            }
        }
        if (known[i] == NULL) {
            *bad = k;
            return 0;
        }
    }
    return 1;
}

int cli_preload_cmp_host(const void *a, const void *b)
{
    return strcmp(((const cli_preload_entry_t *)a)->host,
                  ((const cli_preload_entry_t *)b)->host);
}

void cli_preload_free(cli_preload_t *l)
{
    size_t i;

    for (i = 0; i < l->num_entries; i++) {
        free(l->entries[i].host);
    }
    free(l->entries);
    memset(l, 0, sizeof(*l));
}

static int preload_why(char *why, size_t why_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* preload_why writes the reason a list is refused; returns 0. */
static int preload_why(char *why, size_t why_size, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, why_size, fmt, ap);
    va_end(ap);
    return 0;
}

/* preload_entry_key checks the key of entry |idx| (host |h|): its
 * "public_key", 64 bytes in hex that are a P-256 point, and its "tack_id",
 * which must be the key's fingerprint; both go to |e|.  Returns 1, or 0
 * with |why|. */
static int preload_entry_key(json_t *v, size_t idx, const char *h,
                             cli_preload_entry_t *e, char *why, size_t why_size)
{
    json_t *key = json_object_get(v, "public_key");
    json_t *id = json_object_get(v, "tack_id");
    EVP_PKEY *pk = NULL;

    if (!json_is_string(key) ||
        tack_hex_decode(e->public_key, TACK_KEY_LEN, json_string_value(key)) !=
            TACK_OK) {
        return preload_why(why, why_size,
                           "entry %zu (%s): \"public_key\" is not %d hex "
                           "digits",
                           idx, h, 2 * TACK_KEY_LEN);
    }
    if (tack_key_from_public(&pk, e->public_key) != TACK_OK) {
        return preload_why(why, why_size,
                           "entry %zu (%s): \"public_key\" is not a P-256 "
                           "point",
                           idx, h);
    }
    EVP_PKEY_free(pk);
    tack_fingerprint(e->public_key, e->tack_id);
    if (!json_is_string(id) || strcmp(json_string_value(id), e->tack_id)) {
        return preload_why(why, why_size,
                           "entry %zu (%s): \"tack_id\" is not its "
                           "public_key's (%s)",
                           idx, h, e->tack_id);
    }
    return 1;
}

/* preload_entry_parse checks entry |idx| (counted from 1 in messages) and
 * fills |e| (its host malloc'd).  Returns 1, or 0 with |why|. */
static int preload_entry_parse(json_t *v, size_t idx, time_t generated,
                               cli_preload_entry_t *e, char *why,
                               size_t why_size)
{
    static const char *const known[] = {
        "host",     "public_key",   "tack_id", "min_generation",
        "observed", "observed_utc", NULL};
    json_t *host = json_object_get(v, "host");
    json_t *mg = json_object_get(v, "min_generation");
    json_t *obs = json_object_get(v, "observed");
    const char *bad = NULL, *h;
    char show[48];

    if (!json_is_object(v)) {
        return preload_why(why, why_size, "entry %zu is not an object", idx);
    }
    if (!json_is_string(host)) {
        return preload_why(why, why_size, "entry %zu has no \"host\"", idx);
    }
    e->host = cli_pins_normalise(json_string_value(host));
    if (e->host == NULL) {
        return preload_why(why, why_size, "out of memory");
    }
    h = e->host;
    if (!cli_preload_host_ok(h)) {
        return preload_why(
            why, why_size,
            "entry %zu: \"%s\" is not a host name (one "
            "exact DNS name, no wildcards)",
            idx,
            preload_printable(json_string_value(host), show, sizeof(show)));
    }
    if (!preload_fields_ok(v, known, &bad)) {
        return preload_why(why, why_size,
                           "entry %zu (%s): unknown member \"%s\"%s", idx, h,
                           preload_printable(bad, show, sizeof(show)),
                           strcmp(bad, "include_subdomains") == 0
                               ? " (TACK pins exact names: list each one)"
                               : "");
    }
    if (!preload_entry_key(v, idx, h, e, why, why_size)) {
        return 0;
    }
    if (!json_is_integer(mg) || json_integer_value(mg) < 0 ||
        json_integer_value(mg) > 255) {
        return preload_why(why, why_size,
                           "entry %zu (%s): \"min_generation\" is not 0 to "
                           "255",
                           idx, h);
    }
    e->min_generation = (int)json_integer_value(mg);
    if (!preload_time_ok(obs) || json_integer_value(obs) > generated) {
        return preload_why(why, why_size,
                           "entry %zu (%s): \"observed\" is not a time "
                           "before \"generated\"",
                           idx, h);
    }
    e->observed = (time_t)json_integer_value(obs);
    if (!preload_copy_ok(v, "observed_utc", e->observed)) {
        return preload_why(why, why_size,
                           "entry %zu (%s): \"observed_utc\" does not say "
                           "\"observed\"",
                           idx, h);
    }
    return 1;
}

/* preload_head_ok checks the list's own members (docs/preload.md, "The
 * format"): the format, the version first (a newer list is refused as
 * such, not for a member this tool does not know), no unknown member, the
 * times and their readable copies, an entries array.  Returns 1, or 0 with
 * |why|. */
static int preload_head_ok(json_t *root, char *why, size_t why_size)
{
    static const char *const known[] = {
        "format",  "version",     "generated", "generated_utc",
        "expires", "expires_utc", "entries",   NULL};
    json_t *fmt = json_object_get(root, "format");
    json_t *ver = json_object_get(root, "version");
    json_t *gen = json_object_get(root, "generated");
    json_t *exp = json_object_get(root, "expires");
    const char *bad = NULL;
    char show[48];

    if (!json_is_object(root) || !json_is_string(fmt) ||
        strcmp(json_string_value(fmt), PRELOAD_FORMAT) != 0) {
        return preload_why(why, why_size, "no \"format\": \"%s\"",
                           PRELOAD_FORMAT);
    }
    if (!json_is_integer(ver) || json_integer_value(ver) < 1) {
        return preload_why(why, why_size, "no \"version\" (a number from 1)");
    }
    if (json_integer_value(ver) > PRELOAD_VERSION) {
        return preload_why(why, why_size,
                           "version %lld is newer than this tool reads (%d): "
                           "upgrade " TACK_PROG,
                           (long long)json_integer_value(ver), PRELOAD_VERSION);
    }
    if (!preload_fields_ok(root, known, &bad)) {
        return preload_why(why, why_size, "unknown member \"%s\"",
                           preload_printable(bad, show, sizeof(show)));
    }
    if (!preload_time_ok(gen) || !preload_time_ok(exp)) {
        return preload_why(why, why_size,
                           "\"generated\" and \"expires\" must be times "
                           "(seconds since 1970, up to 9999)");
    }
    if (json_integer_value(exp) <= json_integer_value(gen) ||
        json_integer_value(exp) - json_integer_value(gen) >
            PRELOAD_MAX_LIFETIME) {
        return preload_why(why, why_size,
                           "\"expires\" must be after \"generated\", by at "
                           "most %d days",
                           PRELOAD_MAX_LIFETIME / PRELOAD_DAY);
    }
    if (!preload_copy_ok(root, "generated_utc",
                         (time_t)json_integer_value(gen))) {
        return preload_why(why, why_size,
                           "\"generated_utc\" does not say the same as "
                           "\"generated\"");
    }
    if (!preload_copy_ok(root, "expires_utc",
                         (time_t)json_integer_value(exp))) {
        return preload_why(why, why_size,
                           "\"expires_utc\" does not say the "
                           "same as \"expires\"");
    }
    if (!json_is_array(json_object_get(root, "entries"))) {
        return preload_why(why, why_size, "\"entries\" must be an array");
    }
    return 1;
}

/* preload_entries_parse fills out->entries from the array |entries|, each
 * checked by preload_entry_parse.  Returns 1, or 0 with |why| (|out| then
 * holds what was made, for cli_preload_free). */
static int preload_entries_parse(cli_preload_t *out, json_t *entries, char *why,
                                 size_t why_size)
{
    json_t *v;
    size_t i;

    if (json_array_size(entries) > 0) {
        out->entries = calloc(json_array_size(entries), sizeof(*out->entries));
        if (out->entries == NULL) {
            return preload_why(why, why_size, "out of memory");
        }
    }
    json_array_foreach(entries, i, v)
    {
        /* Counted first, so that cli_preload_free releases a half-made
         * entry's host too. */
        out->num_entries = i + 1;
        if (!preload_entry_parse(v, i + 1, out->generated, &out->entries[i],
                                 why, why_size)) {
            return 0;
        }
    }
    return 1;
}

/* preload_sort_unique sorts the entries by host, for cli_preload_find,
 * and refuses a host listed twice.  Returns 1, or 0 with |why|. */
static int preload_sort_unique(cli_preload_t *out, char *why, size_t why_size)
{
    size_t i;

    if (out->num_entries > 1) {
        qsort(out->entries, out->num_entries, sizeof(*out->entries),
              cli_preload_cmp_host);
    }
    for (i = 1; i < out->num_entries; i++) {
        if (strcmp(out->entries[i - 1].host, out->entries[i].host) == 0) {
            return preload_why(why, why_size,
                               "host %s is listed twice (names compare "
                               "without case and trailing dot)",
                               out->entries[i].host);
        }
    }
    return 1;
}

int cli_preload_parse(cli_preload_t *out, const char *text, size_t len,
                      char *why, size_t why_size)
{
    json_error_t jerr;
    json_t *root;
    int ok;

    memset(out, 0, sizeof(*out));
    /* Duplicate members are refused: which one would count is not
     * obvious to whoever edits the file. */
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        return preload_why(why, why_size, "line %d: %s", jerr.line, jerr.text);
    }
    if (!preload_head_ok(root, why, why_size)) {
        json_decref(root);
        return 0;
    }
    out->version = (int)json_integer_value(json_object_get(root, "version"));
    out->generated =
        (time_t)json_integer_value(json_object_get(root, "generated"));
    out->expires = (time_t)json_integer_value(json_object_get(root, "expires"));
    ok = preload_entries_parse(out, json_object_get(root, "entries"), why,
                               why_size);
    json_decref(root);
    if (!ok || !preload_sort_unique(out, why, why_size)) {
        cli_preload_free(out);
        return 0;
    }
    return 1;
}

int cli_preload_load(const char *path, cli_preload_t *out)
{
    char why[384];
    char *text = NULL;
    size_t len = 0;
    tack_status_t st;
    int ok;

    memset(out, 0, sizeof(*out));
    errno = 0;
    st = tack_file_read(path, PRELOAD_FILE_MAX, &text, &len);
    if (st != TACK_OK) {
        cli_err("%s: %s", path,
                st == TACK_ERR_IO && errno ? strerror(errno)
                                           : tack_status_str(st));
        return CLI_EXIT_USAGE;
    }
    ok = cli_preload_parse(out, text, len, why, sizeof(why));
    free(text);
    if (!ok) {
        cli_err("%s: not a usable preload list: %s", path, why);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

const cli_preload_entry_t *cli_preload_find(const cli_preload_t *l,
                                            const char *host)
{
    cli_preload_entry_t key;

    if (l->num_entries == 0) {
        return NULL;
    }
    memset(&key, 0, sizeof(key));
    key.host = (char *)host;
    return bsearch(&key, l->entries, l->num_entries, sizeof(*l->entries),
                   cli_preload_cmp_host);
}

/* ---- the client rules ---------------------------------------------------- */

/* preload_note prints one "preload = ..." line and keeps it in the report. */
#define preload_note(fp, report, ...)                                          \
    cli_note((fp), (report), "preload", __VA_ARGS__)

/* preload_lift (step 2 of docs/preload.md's rules; draft-00 5.2): a break
 * signature lifts every entry on its key, as it discards every pin on it.
 * Each key so lifted is added to in->lifted once.  The signatures were
 * verified by the caller. */
static void preload_lift(const cli_preload_t *l, cli_pin_input_t *in, FILE *fp,
                         json_t *report)
{
    char fpr[TACK_FINGERPRINT_SIZE];
    size_t i, j;

    for (i = 0; i < in->num_breaksigs; i++) {
        const uint8_t *k = in->breaksigs[i].public_key;
        size_t n = 0;

        for (j = 0; j < l->num_entries; j++) {
            n += memcmp(l->entries[j].public_key, k, TACK_KEY_LEN) == 0;
        }
        for (j = 0; j < in->num_lifted; j++) {
            if (memcmp(in->lifted[j], k, TACK_KEY_LEN) == 0) {
                n = 0;
            }
        }
        if (n == 0 || in->num_lifted >= TACK_MAX_BREAKSIGS) {
            continue;
        }
        in->lifted[in->num_lifted++] = k;
        tack_fingerprint(k, fpr);
        preload_note(fp, report,
                     "break signature for %s: its %zu preload %s lifted", fpr,
                     n, n == 1 ? "entry is" : "entries are");
    }
}

/* preload_listed (step 4 of docs/preload.md's rules) enforces the entry
 * |e| for |name|: the server must present a TACK under its key
 * (access_denied), at a generation no lower than the higher of the list's
 * and the store's floors (certificate_revoked; draft-00 5.3, with the list
 * as one more source of floors).  |store_min| is the store's floor, -1 for
 * none.  Returns CLI_EXIT_OK or CLI_EXIT_CHECK (|*alert| and the report's
 * "reason" set). */
static int preload_listed(const cli_preload_entry_t *e, const char *path,
                          const char *until, int store_min, cli_pin_input_t *in,
                          const char *name, FILE *fp, const char **alert,
                          json_t *report)
{
    const tack_t *match = NULL;
    int floor;
    size_t i;

    for (i = 0; i < in->num_tacks && match == NULL; i++) {
        if (memcmp(in->tacks[i]->public_key, e->public_key, TACK_KEY_LEN) ==
            0) {
            match = in->tacks[i];
        }
    }
    if (match == NULL) {
        *alert = "access_denied";
        json_object_set_new(report, "status", json_string("rejected"));
        json_object_set_new(
            report, "reason",
            json_sprintf("%s is preloaded with %s (%s, until %s), and the "
                         "server presents %s",
                         name, e->tack_id, path, until,
                         in->num_tacks ? "a TACK with another key"
                                       : "no TACK"));
        return CLI_EXIT_CHECK;
    }
    floor = e->min_generation > store_min ? e->min_generation : store_min;
    if (match->generation < floor) {
        *alert = "certificate_revoked";
        json_object_set_new(report, "status", json_string("rejected"));
        json_object_set_new(
            report, "reason",
            json_sprintf("TACK generation %u of %s is below the %s "
                         "min_generation %d",
                         match->generation, e->tack_id,
                         floor == e->min_generation ? "preloaded" : "pinned",
                         floor));
        return CLI_EXIT_CHECK;
    }
    /* The key is the TACK's, not the list's: the list is freed before the
     * store reads it. */
    in->preload_key = match->public_key;
    in->preload_min_generation = e->min_generation;
    json_object_set_new(report, "status", json_string("enforced"));
    preload_note(fp, report,
                 "%s: preloaded on %s (min_generation %d): the server's "
                 "TACK matches",
                 name, e->tack_id, e->min_generation);
    return CLI_EXIT_OK;
}

/* preload_rules decides for the loaded list |l| (docs/preload.md, "What
 * `tack check --preload` does", numbered as there): an expired list, break
 * signatures, a name not listed, a listed one, lifted (by this reply or by
 * the pin store) or enforced.  Returns CLI_EXIT_OK, CLI_EXIT_CHECK
 * (|*alert| and the report's "reason" set) or CLI_EXIT_USAGE (the pin
 * store is unusable). */
static int preload_rules(const cli_preload_t *l, const char *path,
                         const char *pins, cli_pin_input_t *in,
                         const char *name, FILE *fp, const char **alert,
                         json_t *report)
{
    const cli_preload_entry_t *e;
    char when[32];
    int broken = 0, store_min = -1, lifted = 0;
    size_t i;

    cli_format_time(l->expires, 1, when, sizeof(when));
    if (in->now >= l->expires) {
        /* An old list binds no one: it could pin keys the sites have long
         * given up. */
        json_object_set_new(report, "status", json_string("expired"));
        preload_note(fp, report, "%s expired at %s: not enforced", path, when);
        return CLI_EXIT_OK;
    }
    preload_lift(l, in, fp, report);
    e = cli_preload_find(l, name);
    if (e == NULL) {
        json_object_set_new(report, "status", json_string("not listed"));
        preload_note(fp, report, "%s: not in the list", name);
        return CLI_EXIT_OK;
    }
    json_object_set_new(report, "tack_id", json_string(e->tack_id));
    json_object_set_new(report, "min_generation",
                        json_integer(e->min_generation));
    for (i = 0; i < in->num_lifted; i++) {
        lifted |= memcmp(in->lifted[i], e->public_key, TACK_KEY_LEN) == 0;
    }
    if (pins != NULL && cli_pins_key_state(pins, e->public_key, &broken,
                                           &store_min) != CLI_EXIT_OK) {
        return CLI_EXIT_USAGE;
    }
    if (lifted || broken) {
        json_object_set_new(report, "status", json_string("lifted"));
        preload_note(fp, report,
                     "%s: preload entry on %s lifted (%s): not enforced", name,
                     e->tack_id,
                     lifted ? "the server sent its break signature"
                            : "a break signature recorded in the pin store");
        return CLI_EXIT_OK;
    }
    return preload_listed(e, path, when, store_min, in, name, fp, alert,
                          report);
}

int cli_preload_apply(const char *path, const char *pins, cli_pin_input_t *in,
                      FILE *fp, const char **alert, json_t *report)
{
    cli_preload_t l;
    char when[32];
    char *name;
    int rc;

    rc = cli_preload_load(path, &l);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    name = cli_pins_normalise(in->name);
    if (name == NULL) {
        cli_preload_free(&l);
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    cli_format_time(l.expires, 1, when, sizeof(when));
    json_object_set_new(report, "file", json_string(path));
    json_object_set_new(report, "name", json_string(name));
    json_object_set_new(report, "expires", json_integer(l.expires));
    json_object_set_new(report, "expires_utc", json_string(when));
    rc = preload_rules(&l, path, pins, in, name, fp, alert, report);
    free(name);
    cli_preload_free(&l);
    return rc;
}
