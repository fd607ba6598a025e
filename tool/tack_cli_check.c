/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_check.c -- `tack check` (docs/tack.1, CHECK): its options, the
 * preload list found usable before connecting, then one connection through
 * the check engine (tack_cli_engine.c) or, with --all-addresses, every
 * address of the name (tack_cli_fleet.c).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/ssl.h>

#include "tack_cli.h"

/* What `tack check`'s options say besides cli_check_opts_t's. */
typedef struct {
    char **resolve; /* --resolve HOST:ADDR, malloc'd */
    size_t num_resolve;
    int all;                         /* --all-addresses */
    char addr[INET6_ADDRSTRLEN + 2]; /* a single check's --resolve address */
} check_args_t;

/* check_parse_option applies one option |c| (docs/tack.1, CHECK).
 * Returns -1 when the command goes on, else the exit status (help
 * printed, or a usage error). */
static int check_parse_option(int c, cli_check_opts_t *o, check_args_t *a)
{
    unsigned long ul;
    int v;

    switch (c) {
    case CLI_OPT_SERVERNAME:
        o->servername = optarg;
        break;
    case CLI_OPT_TLS12:
    case CLI_OPT_TLS13:
        v = c == CLI_OPT_TLS12 ? TLS1_2_VERSION : TLS1_3_VERSION;
        if (o->max_version != 0 && o->max_version != v) {
            /* One handshake speaks one version: the last one given
             * would otherwise win without a word. */
            return cli_usage_error("check", "--tls1_2 and --tls1_3: one "
                                            "handshake, one version; give "
                                            "one of them");
        }
        o->min_version = o->max_version = v;
        break;
    case CLI_OPT_PINS:
        o->pins = optarg;
        break;
    case CLI_OPT_PRELOAD:
        o->preload = optarg;
        break;
    case CLI_OPT_CA:
        o->ca = optarg;
        break;
    case CLI_OPT_FORMAT:
        if (strcmp(optarg, "draft-00") == 0) {
            o->format = CLI_CHECK_FMT_00;
        } else if (strcmp(optarg, "draft-02") == 0) {
            o->format = CLI_CHECK_FMT_02;
        } else if (strcmp(optarg, "auto") == 0) {
            o->format = CLI_CHECK_FMT_AUTO;
        } else {
            return cli_usage_error("check",
                                   "--format: draft-00, draft-02 or "
                                   "auto, not \"%s\"",
                                   optarg);
        }
        break;
    case CLI_OPT_NOW:
        if (cli_opt_now("check", optarg) != CLI_EXIT_OK) {
            return CLI_EXIT_USAGE;
        }
        break;
    case CLI_OPT_REQUIRE:
        o->require = 1;
        break;
    case CLI_OPT_JSON:
        o->json = 1;
        break;
    case CLI_OPT_TIMEOUT:
        if (!cli_parse_uint(optarg, 1, 3600, &ul)) {
            return cli_usage_error("check", "--timeout: 1 to 3600 "
                                            "seconds");
        }
        o->timeout = (int)ul;
        break;
    case CLI_OPT_ALL_ADDRESSES:
        a->all = 1;
        break;
    case CLI_OPT_KEY_TYPE:
        if (strcmp(optarg, "ecdsa") == 0) {
            o->key_type = EVP_PKEY_EC;
        } else if (strcmp(optarg, "rsa") == 0) {
            o->key_type = EVP_PKEY_RSA;
        } else {
            return cli_usage_error("check",
                                   "--key-type: ecdsa or rsa, not "
                                   "\"%s\"",
                                   optarg);
        }
        break;
    case CLI_OPT_WARN_DAYS:
        if (!cli_parse_uint(optarg, 0, 3650, &ul)) {
            return cli_usage_error("check", "--warn-days: 0 to 3650 days");
        }
        o->warn_days = (int)ul;
        break;
    case CLI_OPT_RESOLVE:
        a->resolve[a->num_resolve++] = optarg;
        break;
    case 'h':
        return cli_help(stdout, "check");
    default:
        return cli_usage_hint("check");
    }
    return -1;
}

/* check_resolve_one takes a single check's --resolve HOST:ADDR (curl's
 * spelling): HOST must be the one checked, as for the fleet check, and
 * ADDR (IPv6 in brackets or not) goes to a->addr, where the engine
 * connects.  Returns -1, or the usage error's exit status. */
static int check_resolve_one(const cli_check_opts_t *o, check_args_t *a)
{
    const char *arg = a->resolve[0], *colon = strchr(arg, ':');
    char buf[INET6_ADDRSTRLEN + 2];
    unsigned char bin[sizeof(struct in6_addr)];
    size_t len;

    if (a->num_resolve > 1) {
        return cli_usage_error("check",
                               "%zu --resolve addresses: a single "
                               "check connects to one; add "
                               "--all-addresses to check each",
                               a->num_resolve);
    }
    if (colon == NULL || colon == arg || colon[1] == '\0') {
        return cli_usage_error("check",
                               "--resolve \"%s\": want HOST:ADDR, e.g. "
                               "www.example.org:192.0.2.10 or "
                               "www.example.org:[2001:db8::10]",
                               arg);
    }
    len = (size_t)(colon - arg);
    if (strlen(o->host) != len || strncasecmp(arg, o->host, len) != 0) {
        return cli_usage_error("check",
                               "--resolve \"%s\": names %.*s, but the "
                               "check is of %s",
                               arg, (int)len, arg, o->host);
    }
    len = strlen(colon + 1);
    if (len >= 2 && len < sizeof(buf) && colon[1] == '[' && colon[len] == ']') {
        memcpy(buf, colon + 2, len - 2);
        buf[len - 2] = '\0';
    } else {
        snprintf(buf, sizeof(buf), "%s", colon + 1);
    }
    if (inet_pton(AF_INET, buf, bin) != 1 &&
        inet_pton(AF_INET6, buf, bin) != 1) {
        return cli_usage_error("check",
                               "--resolve \"%s\": \"%s\" is not an IPv4 "
                               "or IPv6 address",
                               arg, colon + 1);
    }
    snprintf(a->addr, sizeof(a->addr), "%s", buf);
    return -1;
}

/* check_parse_options fills |o| and |a| from the command line; the
 * HOST[:PORT] is split in |*target| (malloc'd: the caller frees it).
 * Returns -1 when the command goes on, else the exit status. */
static int check_parse_options(int argc, char **argv, cli_check_opts_t *o,
                               check_args_t *a, char **target)
{
    static const struct option longopts[] = {
        {"servername", required_argument, NULL, CLI_OPT_SERVERNAME},
        {"tls1_2", no_argument, NULL, CLI_OPT_TLS12},
        {"tls1_3", no_argument, NULL, CLI_OPT_TLS13},
        {"pins", required_argument, NULL, CLI_OPT_PINS},
        {"preload", required_argument, NULL, CLI_OPT_PRELOAD},
        {"ca", required_argument, NULL, CLI_OPT_CA},
        {"format", required_argument, NULL, CLI_OPT_FORMAT},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"require", no_argument, NULL, CLI_OPT_REQUIRE},
        {"json", no_argument, NULL, CLI_OPT_JSON},
        {"timeout", required_argument, NULL, CLI_OPT_TIMEOUT},
        {"all-addresses", no_argument, NULL, CLI_OPT_ALL_ADDRESSES},
        {"resolve", required_argument, NULL, CLI_OPT_RESOLVE},
        {"key-type", required_argument, NULL, CLI_OPT_KEY_TYPE},
        {"warn-days", required_argument, NULL, CLI_OPT_WARN_DAYS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, rc;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        rc = check_parse_option(c, o, a);
        if (rc != -1) {
            return rc;
        }
    }
    if (optind + 1 != argc) {
        return cli_usage_error("check", "want one HOST[:PORT]");
    }
    if (a->all && o->pins != NULL) {
        /* One store written by parallel checks of one name would record
         * whichever address answered last. */
        return cli_usage_error("check", "--pins does not go with "
                                        "--all-addresses");
    }
    *target = strdup(argv[optind]);
    if (*target == NULL || !cli_split_hostport(*target, &o->host, &o->port)) {
        return cli_usage_error("check", "bad HOST[:PORT] \"%s\"", argv[optind]);
    }
    if (!cli_port_valid(o->port)) {
        return cli_usage_error("check",
                               "bad port \"%s\" in \"%s\": want 1 to 65535",
                               o->port, argv[optind]);
    }
    if (a->num_resolve > 0 && !a->all) {
        rc = check_resolve_one(o, a);
        if (rc != -1) {
            return rc;
        }
    }
    /* By default TLS 1.2: the drafts define TACK for the ServerHello, and a
     * server with the TLS 1.3 mapping off (mod_tack's default) answers a
     * TLS 1.3 handshake without it; --tls1_3 checks the mapping. */
    if (o->max_version == 0) {
        o->max_version = TLS1_2_VERSION;
    }
    if (o->servername == NULL && !cli_is_ip(o->host)) {
        o->servername = o->host;
    }
    return -1;
}

/* check_preload_usable: a list that cannot be used is a usage error, found
 * before connecting; an expired one is said once here, not by every check
 * of a fleet.  Returns CLI_EXIT_OK or CLI_EXIT_USAGE. */
static int check_preload_usable(const char *path)
{
    cli_preload_t l;

    if (cli_preload_load(path, &l) != CLI_EXIT_OK) {
        return CLI_EXIT_USAGE;
    }
    if (cli_now() >= l.expires) {
        char when[32];

        cli_format_time(l.expires, 1, when, sizeof(when));
        cli_warn("%s: the preload list expired at %s: not enforced", path,
                 when);
    }
    cli_preload_free(&l);
    return CLI_EXIT_OK;
}

/* check_one runs the engine against the one address (|addr|, from
 * --resolve, else the host's) and prints its
 * report (JSON with --json). */
static int check_one(const cli_check_opts_t *o, const char *addr)
{
    json_t *report = NULL;
    int rc;

    rc = cli_check_run(o, addr[0] != '\0' ? addr : NULL,
                       o->json ? NULL : stdout, &report);
    if (o->json && report != NULL) {
        json_dumpf(report, stdout, JSON_INDENT(2));
        putchar('\n');
    }
    fflush(stdout);
    json_decref(report);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    cli_check_opts_t o;
    check_args_t a;
    char *target = NULL;
    int rc;

    memset(&o, 0, sizeof(o));
    memset(&a, 0, sizeof(a));
    o.timeout = 10;
    o.warn_days = 30;
    a.resolve = calloc((size_t)argc, sizeof(*a.resolve));
    if (a.resolve == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    rc = check_parse_options(argc, argv, &o, &a, &target);
    if (rc == -1 && o.preload != NULL) {
        rc = check_preload_usable(o.preload) == CLI_EXIT_OK ? -1
                                                            : CLI_EXIT_USAGE;
    }
    if (rc == -1) {
        rc = a.all ? cli_fleet_check(&o, a.resolve, a.num_resolve)
                   : check_one(&o, a.addr);
    }
    free(a.resolve);
    free(target);
    return rc;
}
