/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_preload_cmd.c -- `tack preload` (docs/tack.1, PRELOAD;
 * docs/preload.md): `view` shows a list, `build` writes one from TACK
 * files and from hosts checked through the engine (tack_cli_engine.c).
 * Reading and checking a list is tack_cli_preload.c's.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/ssl.h>

#include "tack_cli.h"
#include "tack_cli_preload.h"
#include "tack_util.h"
#include "tack_ext.h"

/* ---- the file form ------------------------------------------------------- */

/* preload_json is the list in its file form. */
static json_t *preload_json(const cli_preload_t *l)
{
    char a[32], b[32], hex[2 * TACK_KEY_LEN + 1];
    json_t *root, *arr = json_array();
    size_t i;

    for (i = 0; i < l->num_entries; i++) {
        const cli_preload_entry_t *e = &l->entries[i];

        tack_hex_encode(hex, sizeof(hex), e->public_key, TACK_KEY_LEN);
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
            if (cli_opt_now("preload", optarg) != CLI_EXIT_OK) {
                return CLI_EXIT_USAGE;
            }
            break;
        case 'h':
            return cli_help(stdout, "preload");
        default:
            return cli_usage_hint("preload");
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
    cli_format_time(l.expires, 0, exp, sizeof(exp)); /* --json's error too */
    if (json) {
        json_t *root = preload_json(&l);

        json_dumpf(root, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(root);
    } else {
        cli_format_time(l.generated, 0, gen, sizeof(gen));
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
    if (!cli_preload_host_ok(h)) {
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
        tack_hex_decode(key, TACK_KEY_LEN,
                        json_string_value(json_object_get(t, "public_key"))) !=
            TACK_OK ||
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

        if (k != NULL && tack_hex_decode(bk, TACK_KEY_LEN, k) == TACK_OK &&
            memcmp(bk, key, TACK_KEY_LEN) == 0) {
            snprintf(why, why_size,
                     "serves the break signature of its own TACK's key");
            return 0;
        }
    }
    return 1;
}

/* preload_host_line checks the host on line |lineno| of |path| (HOST[:PORT]
 * [SERVERNAME], docs/preload.md; |line| is cut up) and adds its TACK to
 * |b|; a blank or comment line adds nothing.  A host that fails is said
 * and counted in |*failed|, each host checked in |*checked|.  Returns
 * CLI_EXIT_OK to go on, else the status to stop with. */
static int preload_host_line(preload_builder_t *b, const char *path,
                             size_t lineno, char *line, int timeout,
                             size_t *checked, size_t *failed)
{
    char *hash = strchr(line, '#'), *words[3], *w, *wsave = NULL;
    const char *r, *e, *a;
    size_t nwords = 0;
    cli_check_opts_t o;
    json_t *report = NULL;
    char why[256];
    uint8_t key[TACK_KEY_LEN];
    int min_gen = 0, rc;

    if (hash != NULL) {
        *hash = '\0';
    }
    for (w = strtok_r(line, " \t\r", &wsave); w != NULL && nwords < 3;
         w = strtok_r(NULL, " \t\r", &wsave)) {
        words[nwords++] = w;
    }
    if (nwords == 0) {
        return CLI_EXIT_OK;
    }
    memset(&o, 0, sizeof(o));
    if (nwords > 2 || !cli_split_hostport(words[0], &o.host, &o.port)) {
        cli_err("%s:%zu: want HOST[:PORT] [SERVERNAME]", path, lineno);
        return CLI_EXIT_USAGE;
    }
    if (!cli_port_valid(o.port)) {
        cli_err("%s:%zu: bad port \"%s\": want 1 to 65535", path, lineno,
                o.port);
        return CLI_EXIT_USAGE;
    }
    o.servername = nwords == 2 ? words[1] : cli_is_ip(o.host) ? NULL : o.host;
    o.min_version = o.max_version = TLS1_2_VERSION;
    o.timeout = timeout;
    o.quiet = 1;
    (*checked)++;
    rc = cli_check_run(&o, NULL, NULL, &report);
    if (rc == CLI_EXIT_OK &&
        preload_host_tack(report, key, &min_gen, why, sizeof(why))) {
        rc = preload_add(b, o.servername ? o.servername : o.host, key, min_gen,
                         cli_now());
        json_decref(report);
        return rc;
    }
    r = rc == CLI_EXIT_OK
            ? why
            : json_string_value(json_object_get(report, "reason"));
    e = json_string_value(json_object_get(report, "error"));
    a = json_string_value(json_object_get(report, "alert"));
    cli_err("%s:%zu: %s port %s: %s%s%s", path, lineno,
            o.servername ? o.servername : o.host, o.port, a ? a : "",
            a ? ": " : "",
            r   ? r
            : e ? e
                : "check failed");
    (*failed)++;
    json_decref(report);
    return CLI_EXIT_OK;
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
        rc = preload_host_line(b, path, ++lineno, line, timeout, &checked,
                               &failed);
        if (rc != CLI_EXIT_OK) {
            free(text);
            return rc;
        }
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

/* What `tack preload build`'s options say (docs/tack.1, PRELOAD). */
typedef struct {
    const char *out, *expires, *hosts;
    char **tacks; /* --tack HOST=FILE, malloc'd */
    size_t ntacks;
    int force, timeout;
} preload_build_opts_t;

/* preload_build_parse_options fills |bo| (bo->tacks malloc'd: the caller
 * frees it).  Returns -1 when the command goes on, else the exit status
 * (help printed, or a usage error). */
static int preload_build_parse_options(int argc, char **argv,
                                       preload_build_opts_t *bo)
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
    unsigned long ul;
    int c;

    bo->tacks = calloc((size_t)argc + 1, sizeof(*bo->tacks));
    if (bo->tacks == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    while ((c = getopt_long(argc, argv, "o:ft:e:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            bo->out = optarg;
            break;
        case 'f':
            bo->force = 1;
            break;
        case 't':
            bo->tacks[bo->ntacks++] = optarg;
            break;
        case CLI_OPT_HOSTS:
            bo->hosts = optarg;
            break;
        case 'e':
            bo->expires = optarg;
            break;
        case CLI_OPT_NOW:
            if (cli_opt_now("preload", optarg) != CLI_EXIT_OK) {
                return CLI_EXIT_USAGE;
            }
            break;
        case CLI_OPT_TIMEOUT:
            if (!cli_parse_uint(optarg, 1, 3600, &ul)) {
                return cli_usage_error("preload", "--timeout: 1 to 3600 "
                                                  "seconds");
            }
            bo->timeout = (int)ul;
            break;
        case 'h':
            return cli_help(stdout, "preload");
        default:
            return cli_usage_hint("preload");
        }
    }
    if (optind != argc || (bo->ntacks == 0 && bo->hosts == NULL)) {
        return cli_usage_error("preload", "build: want --tack HOST=FILE "
                                          "or --hosts FILE, and no other "
                                          "arguments");
    }
    return -1;
}

/* preload_build_times sets the new list's version and times (--expires:
 * after now and at most PRELOAD_MAX_LIFETIME ahead).  Returns -1 when
 * they are usable, else CLI_EXIT_USAGE. */
static int preload_build_times(cli_preload_t *l, const char *expires,
                               time_t now)
{
    l->version = PRELOAD_VERSION;
    l->generated = now;
    l->expires = now + PRELOAD_DEFAULT_LIFETIME;
    if (expires != NULL && !cli_parse_when(expires, now, &l->expires)) {
        return cli_usage_error("preload", "--expires: bad time \"%s\"",
                               expires);
    }
    if (l->expires <= now || l->expires - now > PRELOAD_MAX_LIFETIME) {
        return cli_usage_error("preload",
                               "--expires: after now, and at most %d days "
                               "from now",
                               PRELOAD_MAX_LIFETIME / PRELOAD_DAY);
    }
    return -1;
}

/* preload_build_text turns the built list into its file text (malloc'd,
 * ending in a newline) and checks that it loads as every reader loads it
 * (this also finds a host given twice); the loaded copy goes to |check|.
 * Frees the list.  Returns CLI_EXIT_OK or CLI_EXIT_USAGE. */
static int preload_build_text(cli_preload_t *l, time_t now,
                              cli_preload_t *check, char **out)
{
    char why[384];
    char *text, *nl;
    json_t *root;

    /* The generation time is when the last observation ended. */
    l->generated = cli_now();
    if (l->generated < now) {
        l->generated = now;
    }
    if (l->num_entries > 1) {
        qsort(l->entries, l->num_entries, sizeof(*l->entries),
              cli_preload_cmp_host);
    }
    root = preload_json(l);
    cli_preload_free(l);
    text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
    json_decref(root);
    if (text == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    if (!cli_preload_parse(check, text, strlen(text), why, sizeof(why))) {
        cli_err("the list would not be usable: %s", why);
        free(text);
        return CLI_EXIT_USAGE;
    }
    nl = realloc(text, strlen(text) + 2);
    if (nl == NULL) {
        free(text);
        cli_preload_free(check);
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    strcat(nl, "\n");
    *out = nl;
    return CLI_EXIT_OK;
}

static int preload_build(int argc, char **argv)
{
    preload_build_opts_t bo;
    preload_builder_t b;
    size_t i;
    int rc = CLI_EXIT_OK;
    char when[32];
    char *text = NULL;
    time_t now = 0;
    cli_preload_t check;

    memset(&bo, 0, sizeof(bo));
    memset(&b, 0, sizeof(b));
    bo.timeout = 10;
    rc = preload_build_parse_options(argc, argv, &bo);
    if (rc == -1) {
        now = cli_now();
        rc = preload_build_times(&b.l, bo.expires, now);
    }
    if (rc != -1) {
        free(bo.tacks);
        return rc;
    }
    rc = CLI_EXIT_OK;
    for (i = 0; i < bo.ntacks && rc == CLI_EXIT_OK; i++) {
        rc = preload_add_tack_file(&b, bo.tacks[i], now);
    }
    free(bo.tacks);
    if (rc == CLI_EXIT_OK && bo.hosts != NULL) {
        rc = preload_add_hosts(&b, bo.hosts, bo.timeout);
    }
    if (rc != CLI_EXIT_OK) {
        cli_preload_free(&b.l);
        return rc;
    }
    rc = preload_build_text(&b.l, now, &check, &text);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = cli_write_output(bo.out, text, strlen(text), 0644, bo.force);
    if (rc == CLI_EXIT_OK && bo.out != NULL && strcmp(bo.out, "-") != 0) {
        cli_format_time(check.expires, 0, when, sizeof(when));
        cli_done("wrote %s: %zu %s, expires %s", bo.out, check.num_entries,
                 check.num_entries == 1 ? "host" : "hosts", when);
    }
    cli_preload_free(&check);
    free(text);
    return rc;
}

/* ---- tack preload -------------------------------------------------------- */

int cmd_preload(int argc, char **argv)
{
    /* getopt_long's messages start with argv[0] (see main). */
    static char build_prog[] = TACK_PROG " preload build";
    static char view_prog[] = TACK_PROG " preload view";

    if (argc >= 2 && strcmp(argv[1], "build") == 0) {
        argv[1] = build_prog;
        return preload_build(argc - 1, argv + 1);
    }
    if (argc >= 2 && strcmp(argv[1], "view") == 0) {
        argv[1] = view_prog;
        return preload_view(argc - 1, argv + 1);
    }
    if (argc >= 2 &&
        (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        return cli_help(stdout, "preload");
    }
    return cli_usage_error("preload", "want build or view");
}
