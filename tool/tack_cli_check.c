/*
 * tack_cli_check.c -- `tack check` (docs/tack.1, CHECK): its options, the
 * preload list found usable before connecting, then one connection through
 * the check engine (tack_cli_engine.c) or, with --all-addresses, every
 * address of the name (tack_cli_fleet.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/ssl.h>

#include "tack_cli.h"

int cmd_check(int argc, char **argv)
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
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    cli_check_opts_t o;
    json_t *report = NULL;
    char *target = NULL;
    char **resolve = NULL;
    size_t num_resolve = 0;
    unsigned long ul;
    int c, rc, all = 0;

    memset(&o, 0, sizeof(o));
    o.timeout = 10;
    resolve = calloc((size_t)argc, sizeof(*resolve));
    if (resolve == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case CLI_OPT_SERVERNAME:
            o.servername = optarg;
            break;
        case CLI_OPT_TLS12:
            o.min_version = o.max_version = TLS1_2_VERSION;
            break;
        case CLI_OPT_TLS13:
            o.min_version = o.max_version = TLS1_3_VERSION;
            break;
        case CLI_OPT_PINS:
            o.pins = optarg;
            break;
        case CLI_OPT_PRELOAD:
            o.preload = optarg;
            break;
        case CLI_OPT_CA:
            o.ca = optarg;
            break;
        case CLI_OPT_FORMAT:
            if (strcmp(optarg, "draft-00") == 0) {
                o.format = CLI_CHECK_FMT_00;
            } else if (strcmp(optarg, "draft-02") == 0) {
                o.format = CLI_CHECK_FMT_02;
            } else if (strcmp(optarg, "auto") == 0) {
                o.format = CLI_CHECK_FMT_AUTO;
            } else {
                rc = cli_usage_error("check",
                                     "--format: draft-00, draft-02 or "
                                     "auto, not \"%s\"",
                                     optarg);
                goto out;
            }
            break;
        case CLI_OPT_NOW:
            if (!cli_parse_when(optarg, time(NULL), &cli_now_value)) {
                rc = cli_usage_error("check", "--now: bad time \"%s\"", optarg);
                goto out;
            }
            cli_now_set = 1;
            break;
        case CLI_OPT_REQUIRE:
            o.require = 1;
            break;
        case CLI_OPT_JSON:
            o.json = 1;
            break;
        case CLI_OPT_TIMEOUT:
            if (!cli_parse_uint(optarg, 1, 3600, &ul)) {
                rc = cli_usage_error("check", "--timeout: 1 to 3600 "
                                              "seconds");
                goto out;
            }
            o.timeout = (int)ul;
            break;
        case CLI_OPT_ALL_ADDRESSES:
            all = 1;
            break;
        case CLI_OPT_RESOLVE:
            resolve[num_resolve++] = optarg;
            break;
        case 'h':
            rc = cli_help(stdout, "check");
            goto out;
        default:
            rc = cli_usage_error("check", "unknown option");
            goto out;
        }
    }
    if (optind + 1 != argc) {
        rc = cli_usage_error("check", "want one HOST[:PORT]");
        goto out;
    }
    if (num_resolve > 0 && !all) {
        rc = cli_usage_error("check", "--resolve goes with "
                                      "--all-addresses");
        goto out;
    }
    if (all && o.pins != NULL) {
        /* One store written by parallel checks of one name would record
         * whichever address answered last. */
        rc = cli_usage_error("check", "--pins does not go with "
                                      "--all-addresses");
        goto out;
    }
    target = strdup(argv[optind]);
    if (target == NULL || !cli_split_hostport(target, &o.host, &o.port)) {
        rc = cli_usage_error("check", "bad HOST[:PORT] \"%s\"", argv[optind]);
        goto out;
    }
    /* By default TLS 1.2: the drafts define TACK for the ServerHello, and a
     * server with the TLS 1.3 mapping off (mod_tack's default) answers a
     * TLS 1.3 handshake without it; --tls1_3 checks the mapping. */
    if (o.max_version == 0) {
        o.max_version = TLS1_2_VERSION;
    }
    if (o.servername == NULL && !cli_is_ip(o.host)) {
        o.servername = o.host;
    }
    /* A list that cannot be used is a usage error, found before
     * connecting. */
    if (o.preload != NULL) {
        cli_preload_t l;

        if (cli_preload_load(o.preload, &l) != CLI_EXIT_OK) {
            rc = CLI_EXIT_USAGE;
            goto out;
        }
        /* Said once here, not by every check of a fleet. */
        if (cli_now() >= l.expires) {
            char when[32];

            cli_format_time(l.expires, 1, when, sizeof(when));
            cli_warn("%s: the preload list expired at %s: not enforced",
                     o.preload, when);
        }
        cli_preload_free(&l);
    }
    if (all) {
        rc = cli_fleet_check(&o, resolve, num_resolve);
        goto out;
    }
    rc = cli_check_run(&o, NULL, o.json ? NULL : stdout, &report);
    if (o.json && report != NULL) {
        json_dumpf(report, stdout, JSON_INDENT(2));
        putchar('\n');
    }
    fflush(stdout);
    json_decref(report);

out:
    free(resolve);
    free(target);
    return rc;
}
