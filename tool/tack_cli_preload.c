/*
 * tack_cli_preload.c -- preload lists (docs/preload.md): TACK keys known
 * for host names before the first connection, so that the first one is not
 * trust-on-first-use; `tack preload build|view` and what `tack check
 * --preload` does with a list.
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
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "tack_cli.h"

#define PRELOAD_FORMAT "tack-preload"
#define PRELOAD_VERSION 1
#define PRELOAD_DAY 86400
/* HPKP's lesson: a list that is never refreshed must stop binding anyone.
 * 90 days by default; never more than a year after it was built. */
#define PRELOAD_DEFAULT_LIFETIME (90 * PRELOAD_DAY)
#define PRELOAD_MAX_LIFETIME (365 * PRELOAD_DAY)
/* The latest time a list may hold: 9999-12-31T23:59:59Z (as the store). */
#define PRELOAD_TIME_MAX ((json_int_t)253402300799LL)
/* Lists are bigger than the tool's other files: about 330 bytes a host. */
#define PRELOAD_FILE_MAX (64 * 1024 * 1024)
#define PRELOAD_NAME_MAX 253
#define PRELOAD_LABEL_MAX 63

/* ---- names --------------------------------------------------------------- */

/* preload_host_ok accepts a normalised DNS name (ASCII letters, digits,
 * hyphens, underscores; labels of 1 to 63; at most 253 characters) and IPv4
 * literals, which have the same shape.  No wildcards: TACK pins exact
 * names. */
static int preload_host_ok(const char *h)
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

static int preload_cmp_host(const void *a, const void *b)
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
    json_t *key = json_object_get(v, "public_key");
    json_t *id = json_object_get(v, "tack_id");
    json_t *mg = json_object_get(v, "min_generation");
    json_t *obs = json_object_get(v, "observed");
    const char *bad = NULL, *h;
    char show[48];
    EVP_PKEY *pk = NULL;

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
    if (!preload_host_ok(h)) {
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
    if (!json_is_string(key) ||
        !cli_unhex(json_string_value(key), e->public_key, TACK_KEY_LEN)) {
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

int cli_preload_parse(cli_preload_t *out, const char *text, size_t len,
                      char *why, size_t why_size)
{
    static const char *const known[] = {
        "format",  "version",     "generated", "generated_utc",
        "expires", "expires_utc", "entries",   NULL};
    json_error_t jerr;
    json_t *root, *fmt, *ver, *gen, *exp, *entries, *v;
    const char *bad = NULL;
    char show[48];
    size_t i;
    int ok = 0;

    memset(out, 0, sizeof(*out));
    /* Duplicate members are refused: which one would count is not
     * obvious to whoever edits the file. */
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        return preload_why(why, why_size, "line %d: %s", jerr.line, jerr.text);
    }
    fmt = json_object_get(root, "format");
    ver = json_object_get(root, "version");
    gen = json_object_get(root, "generated");
    exp = json_object_get(root, "expires");
    entries = json_object_get(root, "entries");
    /* The version first: a newer list is refused as such, not for a member
     * this tool does not know. */
    if (!json_is_object(root) || !json_is_string(fmt) ||
        strcmp(json_string_value(fmt), PRELOAD_FORMAT) != 0) {
        preload_why(why, why_size, "no \"format\": \"%s\"", PRELOAD_FORMAT);
    } else if (!json_is_integer(ver) || json_integer_value(ver) < 1) {
        preload_why(why, why_size, "no \"version\" (a number from 1)");
    } else if (json_integer_value(ver) > PRELOAD_VERSION) {
        preload_why(why, why_size,
                    "version %lld is newer than this tool reads (%d): "
                    "upgrade tack",
                    (long long)json_integer_value(ver), PRELOAD_VERSION);
    } else if (!preload_fields_ok(root, known, &bad)) {
        preload_why(why, why_size, "unknown member \"%s\"",
                    preload_printable(bad, show, sizeof(show)));
    } else if (!preload_time_ok(gen) || !preload_time_ok(exp)) {
        preload_why(why, why_size,
                    "\"generated\" and \"expires\" must be times (seconds "
                    "since 1970, up to 9999)");
    } else if (json_integer_value(exp) <= json_integer_value(gen) ||
               json_integer_value(exp) - json_integer_value(gen) >
                   PRELOAD_MAX_LIFETIME) {
        preload_why(why, why_size,
                    "\"expires\" must be after \"generated\", by at most "
                    "%d days",
                    PRELOAD_MAX_LIFETIME / PRELOAD_DAY);
    } else if (!preload_copy_ok(root, "generated_utc",
                                (time_t)json_integer_value(gen))) {
        preload_why(why, why_size,
                    "\"generated_utc\" does not say the same as "
                    "\"generated\"");
    } else if (!preload_copy_ok(root, "expires_utc",
                                (time_t)json_integer_value(exp))) {
        preload_why(why, why_size,
                    "\"expires_utc\" does not say the same as \"expires\"");
    } else if (!json_is_array(entries)) {
        preload_why(why, why_size, "\"entries\" must be an array");
    } else {
        ok = 1;
    }
    if (!ok) {
        json_decref(root);
        return 0;
    }
    out->version = (int)json_integer_value(ver);
    out->generated = (time_t)json_integer_value(gen);
    out->expires = (time_t)json_integer_value(exp);
    if (json_array_size(entries) > 0) {
        out->entries = calloc(json_array_size(entries), sizeof(*out->entries));
        if (out->entries == NULL) {
            json_decref(root);
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
            json_decref(root);
            cli_preload_free(out);
            return 0;
        }
    }
    json_decref(root);
    if (out->num_entries > 1) {
        qsort(out->entries, out->num_entries, sizeof(*out->entries),
              preload_cmp_host);
    }
    for (i = 1; i < out->num_entries; i++) {
        if (strcmp(out->entries[i - 1].host, out->entries[i].host) == 0) {
            preload_why(why, why_size,
                        "host %s is listed twice (names compare without "
                        "case and trailing dot)",
                        out->entries[i].host);
            cli_preload_free(out);
            return 0;
        }
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
                   preload_cmp_host);
}

/* preload_json is the list in its file form. */
static json_t *preload_json(const cli_preload_t *l)
{
    char a[32], b[32], hex[2 * TACK_KEY_LEN + 1];
    json_t *root, *arr = json_array();
    size_t i;

    for (i = 0; i < l->num_entries; i++) {
        const cli_preload_entry_t *e = &l->entries[i];

        cli_hex(e->public_key, TACK_KEY_LEN, hex);
        cli_format_time(e->observed, 1, a, sizeof(a));
        json_array_append_new(
            arr, json_pack("{s:s, s:s, s:s, s:i, s:I, s:s}", "host", e->host,
                           "public_key", hex, "tack_id", e->tack_id,
                           "min_generation", e->min_generation, "observed",
                           (json_int_t)e->observed, "observed_utc", a));
    }
    cli_format_time(l->generated, 1, a, sizeof(a));
    cli_format_time(l->expires, 1, b, sizeof(b));
    root = json_pack("{s:s, s:i, s:I, s:s, s:I, s:s, s:o}", "format",
                     PRELOAD_FORMAT, "version", PRELOAD_VERSION, "generated",
                     (json_int_t)l->generated, "generated_utc", a, "expires",
                     (json_int_t)l->expires, "expires_utc", b, "entries", arr);
    return root;
}

/* ---- the client rules ---------------------------------------------------- */

/* preload_note prints one "preload = ..." line and keeps it in the report. */
#define preload_note(fp, report, ...) cli_note((fp), (report), "preload", __VA_ARGS__)

/* preload_rules decides for the loaded list |l|.  Returns CLI_EXIT_OK,
 * CLI_EXIT_CHECK (|*alert| and the report's "reason" set) or
 * CLI_EXIT_USAGE (the pin store is unusable). */
static int preload_rules(const cli_preload_t *l, const char *path,
                         const char *pins, cli_pin_input_t *in,
                         const char *name, FILE *fp, const char **alert,
                         json_t *report)
{
    const cli_preload_entry_t *e;
    const tack_t *match = NULL;
    char when[32], fpr[TACK_FINGERPRINT_SIZE];
    int broken = 0, store_min = -1, lifted = 0, floor;
    size_t i, j;

    cli_format_time(l->expires, 1, when, sizeof(when));
    if (in->now >= l->expires) {
        /* An old list binds no one: it could pin keys the sites have long
         * given up. */
        json_object_set_new(report, "status", json_string("expired"));
        preload_note(fp, report, "%s expired at %s: not enforced", path, when);
        return CLI_EXIT_OK;
    }
    /* Break signatures (draft-00 5.2) lift every entry on their key, as
     * they discard every pin on it.  They were verified by the caller. */
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
                         name, e->tack_id, path, when,
                         in->num_tacks ? "a TACK with another key"
                                       : "no TACK"));
        return CLI_EXIT_CHECK;
    }
    /* The revocation floor is the higher of the list's and the store's
     * (draft-00 5.3, with the list as one more source of floors). */
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

/* ---- tack preload view --------------------------------------------------- */

static int preload_view(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, CLI_OPT_JSON},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    cli_preload_t l;
    char gen[32], exp[32], obs[32];
    int json = 0, c, rc;
    time_t now;
    size_t i;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case CLI_OPT_JSON:
            json = 1;
            break;
        case CLI_OPT_NOW:
            if (!cli_parse_when(optarg, time(NULL), &cli_now_value)) {
                return cli_usage_error("preload", "--now: bad time \"%s\"",
                                       optarg);
            }
            cli_now_set = 1;
            break;
        case 'h':
            return cli_help(stdout, "preload");
        default:
            return cli_usage_error("preload", "unknown option");
        }
    }
    if (optind + 1 != argc) {
        return cli_usage_error("preload", "view: want one FILE");
    }
    rc = cli_preload_load(argv[optind], &l);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    now = cli_now();
    if (json) {
        json_t *root = preload_json(&l);

        json_dumpf(root, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(root);
    } else {
        cli_format_time(l.generated, 0, gen, sizeof(gen));
        cli_format_time(l.expires, 0, exp, sizeof(exp));
        printf("%-14s = %s\n", "preload list", argv[optind]);
        printf("%-14s = %d\n", "version", l.version);
        printf("%-14s = %s\n", "generated", gen);
        if (now >= l.expires) {
            printf("%-14s = %s (EXPIRED: not enforced)\n", "expires", exp);
        } else {
            printf("%-14s = %s (in %lld days)\n", "expires", exp,
                   (long long)((l.expires - now) / PRELOAD_DAY));
        }
        printf("%-14s = %zu\n\n", "entries", l.num_entries);
        printf("%-30s %-29s %-3s %s\n", "HOST", "TACK ID", "MIN", "OBSERVED");
        for (i = 0; i < l.num_entries; i++) {
            cli_format_time(l.entries[i].observed, 0, obs, sizeof(obs));
            printf("%-30s %-29s %-3d %s\n", l.entries[i].host,
                   l.entries[i].tack_id, l.entries[i].min_generation, obs);
        }
    }
    rc = now >= l.expires ? CLI_EXIT_CHECK : CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK) {
        cli_err("%s: the preload list expired at %s", argv[optind], exp);
    }
    cli_preload_free(&l);
    return rc;
}

/* ---- tack preload build -------------------------------------------------- */

typedef struct {
    cli_preload_t l;
    size_t cap;
} preload_builder_t;

/* preload_add appends an entry for |host| (checked and normalised here);
 * duplicates are found when the list is checked at the end. */
static int preload_add(preload_builder_t *b, const char *host,
                       const uint8_t key[TACK_KEY_LEN], int min_generation,
                       time_t observed)
{
    cli_preload_entry_t *e;
    char *h = cli_pins_normalise(host);

    if (h == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    if (!preload_host_ok(h)) {
        cli_err("\"%s\" is not a host name (one exact DNS name, no "
                "wildcards)",
                host);
        free(h);
        return CLI_EXIT_USAGE;
    }
    if (b->l.num_entries == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        cli_preload_entry_t *n = realloc(b->l.entries, cap * sizeof(*n));

        if (n == NULL) {
            free(h);
            cli_err("out of memory");
            return CLI_EXIT_USAGE;
        }
        b->l.entries = n;
        b->cap = cap;
    }
    e = &b->l.entries[b->l.num_entries++];
    memset(e, 0, sizeof(*e));
    e->host = h;
    memcpy(e->public_key, key, TACK_KEY_LEN);
    tack_fingerprint(key, e->tack_id);
    e->min_generation = min_generation;
    e->observed = observed;
    return CLI_EXIT_OK;
}

/* preload_add_tack_file: --tack HOST=FILE.  The file must hold one TACK
 * whose signature verifies; its key and min_generation make the entry. */
static int preload_add_tack_file(preload_builder_t *b, const char *arg,
                                 time_t now)
{
    const char *eq = strchr(arg, '=');
    tack_t tacks[2];
    size_t n = 0;
    char *host;
    char when[TACK_TIME_SIZE];
    tack_status_t st;
    int rc;

    if (eq == NULL || eq == arg || eq[1] == '\0') {
        return cli_usage_error("preload",
                               "--tack: want HOST=FILE, not "
                               "\"%s\"",
                               arg);
    }
    rc = cli_load_tacks(eq + 1, tacks, 2, &n);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (n != 1) {
        cli_err("%s: holds %zu TACKs; a preload entry pins one key (give "
                "the file of the one to pin)",
                eq + 1, n);
        return CLI_EXIT_USAGE;
    }
    st = tack_verify(&tacks[0]);
    if (st == TACK_OK) {
        st = tack_check_generation(&tacks[0]);
    }
    if (st != TACK_OK) {
        cli_err("%s: the TACK fails its check: %s", eq + 1,
                tack_status_str(st));
        return CLI_EXIT_CHECK;
    }
    if (tack_check_expiration(&tacks[0], now) != TACK_OK) {
        tack_time_format(tacks[0].expiration, when);
        cli_warn("%s: the TACK expired at %s; its key is listed all the "
                 "same",
                 eq + 1, when);
    }
    host = strndup(arg, (size_t)(eq - arg));
    if (host == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    rc =
        preload_add(b, host, tacks[0].public_key, tacks[0].min_generation, now);
    free(host);
    return rc;
}

/* preload_host_tack picks the key to list from a check's report: the TACK
 * the server serves (draft-02: the first active one, else the first).
 * Returns 1 with |key| and |*min_generation|, or 0 with |why|. */
static int preload_host_tack(json_t *report, uint8_t key[TACK_KEY_LEN],
                             int *min_generation, char *why, size_t why_size)
{
    json_t *tacks = json_object_get(report, "tacks");
    json_t *sigs = json_object_get(report, "break_sigs");
    json_t *ext = json_object_get(report, "extension");
    json_t *t = NULL, *v;
    json_int_t flags =
        json_integer_value(json_object_get(ext, "activation_flags"));
    size_t i;

    json_array_foreach(tacks, i, v)
    {
        if (t == NULL) {
            t = v;
        }
        if (i < 2 && ((flags >> i) & 1)) {
            t = v;
            break;
        }
    }
    if (t == NULL) {
        snprintf(why, why_size, "serves no TACK");
        return 0;
    }
    if (!json_is_string(json_object_get(t, "public_key")) ||
        !cli_unhex(json_string_value(json_object_get(t, "public_key")), key,
                   TACK_KEY_LEN) ||
        !json_is_integer(json_object_get(t, "min_generation"))) {
        snprintf(why, why_size, "the check's report has no TACK key");
        return 0;
    }
    *min_generation =
        (int)json_integer_value(json_object_get(t, "min_generation"));
    json_array_foreach(sigs, i, v)
    {
        const char *k = json_string_value(json_object_get(v, "public_key"));
        uint8_t bk[TACK_KEY_LEN];

        if (k != NULL && cli_unhex(k, bk, TACK_KEY_LEN) &&
            memcmp(bk, key, TACK_KEY_LEN) == 0) {
            snprintf(why, why_size,
                     "serves the break signature of its own TACK's key");
            return 0;
        }
    }
    return 1;
}

/* preload_add_hosts: --hosts FILE.  Each line is checked as `tack check
 * HOST[:PORT] --servername NAME` does, without a pin store; a host that
 * fails or serves no TACK fails the build, so that a list never silently
 * misses a host it was asked for. */
static int preload_add_hosts(preload_builder_t *b, const char *path,
                             int timeout)
{
    char *text = NULL, *line, *save = NULL;
    size_t len = 0, lineno = 0, failed = 0, checked = 0;
    int rc;

    rc = cli_read_file(path, &text, &len);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#'), *words[3], *w, *wsave = NULL;
        size_t nwords = 0;
        cli_check_opts_t o;
        json_t *report = NULL;
        char why[256];
        uint8_t key[TACK_KEY_LEN];
        int min_gen = 0;

        lineno++;
        if (hash != NULL) {
            *hash = '\0';
        }
        for (w = strtok_r(line, " \t\r", &wsave); w != NULL && nwords < 3;
             w = strtok_r(NULL, " \t\r", &wsave)) {
            words[nwords++] = w;
        }
        if (nwords == 0) {
            continue;
        }
        memset(&o, 0, sizeof(o));
        if (nwords > 2 || !cli_split_hostport(words[0], &o.host, &o.port)) {
            cli_err("%s:%zu: want HOST[:PORT] [SERVERNAME]", path, lineno);
            free(text);
            return CLI_EXIT_USAGE;
        }
        o.servername = nwords == 2             ? words[1]
                       : cli_is_ip(o.host) ? NULL
                                               : o.host;
        o.min_version = o.max_version = TLS1_2_VERSION;
        o.timeout = timeout;
        o.quiet = 1;
        checked++;
        rc = cli_check_run(&o, NULL, NULL, &report);
        if (rc == CLI_EXIT_OK &&
            preload_host_tack(report, key, &min_gen, why, sizeof(why))) {
            rc = preload_add(b, o.servername ? o.servername : o.host, key,
                             min_gen, cli_now());
            if (rc != CLI_EXIT_OK) {
                json_decref(report);
                free(text);
                return rc;
            }
        } else {
            const char *r =
                json_string_value(json_object_get(report, "reason"));
            const char *e = json_string_value(json_object_get(report, "error"));
            const char *a = json_string_value(json_object_get(report, "alert"));

            if (rc == CLI_EXIT_OK) {
                r = why;
            }
            cli_err("%s:%zu: %s port %s: %s%s%s", path, lineno,
                    o.servername ? o.servername : o.host, o.port, a ? a : "",
                    a ? ": " : "",
                    r   ? r
                    : e ? e
                        : "check failed");
            failed++;
        }
        json_decref(report);
    }
    free(text);
    if (failed > 0) {
        cli_err("%s: %zu of %zu hosts failed; nothing written", path, failed,
                checked);
        return CLI_EXIT_CHECK;
    }
    if (checked == 0) {
        cli_err("%s: no host in it", path);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

static int preload_build(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"tack", required_argument, NULL, 't'},
        {"hosts", required_argument, NULL, CLI_OPT_HOSTS},
        {"expires", required_argument, NULL, 'e'},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"timeout", required_argument, NULL, CLI_OPT_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    preload_builder_t b;
    const char *out = NULL, *expires = NULL, *hosts = NULL;
    char **tacks;
    size_t ntacks = 0, i;
    int force = 0, c, rc = CLI_EXIT_OK, timeout = 10;
    unsigned long ul;
    char why[384];
    char *text = NULL, *nl;
    json_t *root;
    time_t now;
    cli_preload_t check;

    memset(&b, 0, sizeof(b));
    tacks = calloc((size_t)argc + 1, sizeof(*tacks));
    if (tacks == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    while ((c = getopt_long(argc, argv, "o:ft:e:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'f':
            force = 1;
            break;
        case 't':
            tacks[ntacks++] = optarg;
            break;
        case CLI_OPT_HOSTS:
            hosts = optarg;
            break;
        case 'e':
            expires = optarg;
            break;
        case CLI_OPT_NOW:
            if (!cli_parse_when(optarg, time(NULL), &cli_now_value)) {
                free(tacks);
                return cli_usage_error("preload", "--now: bad time \"%s\"",
                                       optarg);
            }
            cli_now_set = 1;
            break;
        case CLI_OPT_TIMEOUT:
            if (!cli_parse_uint(optarg, 1, 3600, &ul)) {
                free(tacks);
                return cli_usage_error("preload", "--timeout: 1 to 3600 "
                                                  "seconds");
            }
            timeout = (int)ul;
            break;
        case 'h':
            free(tacks);
            return cli_help(stdout, "preload");
        default:
            free(tacks);
            return cli_usage_error("preload", "unknown option");
        }
    }
    if (optind != argc || (ntacks == 0 && hosts == NULL)) {
        free(tacks);
        return cli_usage_error("preload", "build: want --tack HOST=FILE "
                                          "or --hosts FILE, and no other "
                                          "arguments");
    }
    now = cli_now();
    b.l.version = PRELOAD_VERSION;
    b.l.generated = now;
    b.l.expires = now + PRELOAD_DEFAULT_LIFETIME;
    if (expires != NULL && !cli_parse_when(expires, now, &b.l.expires)) {
        free(tacks);
        return cli_usage_error("preload", "--expires: bad time \"%s\"",
                               expires);
    }
    if (b.l.expires <= now || b.l.expires - now > PRELOAD_MAX_LIFETIME) {
        free(tacks);
        return cli_usage_error("preload",
                               "--expires: after now, and at most %d days "
                               "from now",
                               PRELOAD_MAX_LIFETIME / PRELOAD_DAY);
    }
    for (i = 0; i < ntacks && rc == CLI_EXIT_OK; i++) {
        rc = preload_add_tack_file(&b, tacks[i], now);
    }
    free(tacks);
    if (rc == CLI_EXIT_OK && hosts != NULL) {
        rc = preload_add_hosts(&b, hosts, timeout);
    }
    if (rc != CLI_EXIT_OK) {
        cli_preload_free(&b.l);
        return rc;
    }
    /* The generation time is when the last observation ended. */
    b.l.generated = cli_now();
    if (b.l.generated < now) {
        b.l.generated = now;
    }
    if (b.l.num_entries > 1) {
        qsort(b.l.entries, b.l.num_entries, sizeof(*b.l.entries),
              preload_cmp_host);
    }
    root = preload_json(&b.l);
    cli_preload_free(&b.l);
    text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
    json_decref(root);
    if (text == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    /* What is written must load: the same checks as every reader (this
     * also finds a host given twice). */
    if (!cli_preload_parse(&check, text, strlen(text), why, sizeof(why))) {
        cli_err("the list would not be usable: %s", why);
        free(text);
        return CLI_EXIT_USAGE;
    }
    nl = realloc(text, strlen(text) + 2);
    if (nl == NULL) {
        free(text);
        cli_preload_free(&check);
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    text = nl;
    strcat(text, "\n");
    rc = cli_write_output(out, text, strlen(text), 0644, force);
    if (rc == CLI_EXIT_OK && out != NULL && strcmp(out, "-") != 0) {
        cli_format_time(check.expires, 0, why, sizeof(why));
        fprintf(stderr, "tack: wrote %s: %zu %s, expires %s\n", out,
                check.num_entries, check.num_entries == 1 ? "host" : "hosts",
                why);
    }
    cli_preload_free(&check);
    free(text);
    return rc;
}

/* ---- tack preload -------------------------------------------------------- */

int cmd_preload(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "build") == 0) {
        return preload_build(argc - 1, argv + 1);
    }
    if (argc >= 2 && strcmp(argv[1], "view") == 0) {
        return preload_view(argc - 1, argv + 1);
    }
    if (argc >= 2 &&
        (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        return cli_help(stdout, "preload");
    }
    return cli_usage_error("preload", "want build or view");
}
