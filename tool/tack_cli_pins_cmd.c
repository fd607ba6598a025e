/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_pins_cmd.c -- `tack pins` (docs/tack.1, PINS): list the pin
 * store (tack_cli_pins.c) as a table or as JSON, or delete a name's pin.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tack_cli.h"
#include "tack_cli_pins.h"

/* What `tack pins`'s options say (docs/tack.1, PINS). */
typedef struct {
    const char *path, *del;
    int json;
} pins_opts_t;

/* pins_parse_options fills |po|.  Returns -1 when the command goes on,
 * else the exit status (help printed, or a usage error). */
static int pins_parse_options(int argc, char **argv, pins_opts_t *po)
{
    static const struct option longopts[] = {
        {"pins", required_argument, NULL, CLI_OPT_PINS},
        {"json", no_argument, NULL, CLI_OPT_JSON},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"delete", required_argument, NULL, CLI_OPT_DELETE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case CLI_OPT_PINS:
            po->path = optarg;
            break;
        case CLI_OPT_JSON:
            po->json = 1;
            break;
        case CLI_OPT_DELETE:
            po->del = optarg;
            break;
        case CLI_OPT_NOW:
            if (cli_opt_now("pins", optarg) != CLI_EXIT_OK) {
                return CLI_EXIT_USAGE;
            }
            break;
        case 'h':
            return cli_help(stdout, "pins");
        default:
            return cli_usage_hint("pins");
        }
    }
    if (optind == argc - 1 && po->path == NULL) {
        po->path = argv[optind++];
    }
    if (po->path == NULL || optind != argc) {
        return cli_usage_error("pins", "want --pins FILE");
    }
    return -1;
}

/* pins_delete removes the pin of |del| (--delete) and the key records no
 * pin uses any more, and saves the store. */
static int pins_delete(cli_pins_t *p, const char *path, const char *del)
{
    char *name = cli_pins_normalise(del);

    if (name == NULL || json_object_get(p->names, name) == NULL) {
        cli_err("%s: no pin for \"%s\"", path, del);
        free(name);
        return CLI_EXIT_CHECK;
    }
    json_object_del(p->names, name);
    free(name);
    cli_pins_gc(p);
    return cli_pins_save(p);
}

/* pins_list_json prints the pins as a JSON array, one object a name. */
static void pins_list_json(const cli_pins_t *p, time_t now)
{
    json_t *out = json_array(), *v;
    const char *n;

    json_object_foreach(p->names, n, v)
    {
        json_t *krec = json_object_get(
            p->keys, json_string_value(json_object_get(v, "key")));

        json_array_append_new(
            out,
            json_pack("{s:s, s:O, s:O, s:O, s:O, s:O, s:b}", "name", n,
                      "tack_id", json_object_get(krec, "tack_id"), "public_key",
                      json_object_get(v, "key"), "min_generation",
                      json_object_get(krec, "min_generation"), "first_seen",
                      json_object_get(v, "first_seen"), "active_until",
                      json_object_get(v, "active_until"), "active",
                      cli_pins_int(v, "active_until") > now));
    }
    json_dumpf(out, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(out);
}

/* pins_list_table prints the pins as a table, then the broken keys. */
static void pins_list_table(const cli_pins_t *p, time_t now)
{
    const char *n;
    json_t *v;

    printf("%-30s %-29s %-3s %-17s %s\n", "NAME", "TACK ID", "MIN",
           "FIRST SEEN", "ACTIVE UNTIL");
    json_object_foreach(p->names, n, v)
    {
        json_t *krec = json_object_get(
            p->keys, json_string_value(json_object_get(v, "key")));
        char first[32], until[32];
        time_t u = (time_t)cli_pins_int(v, "active_until");

        cli_format_time((time_t)cli_pins_int(v, "first_seen"), 0, first,
                        sizeof(first));
        cli_format_time(u, 0, until, sizeof(until));
        printf("%-30s %-29s %-3d %-17s %s\n", n,
               json_string_value(json_object_get(krec, "tack_id")),
               (int)cli_pins_int(krec, "min_generation"), first,
               u > now ? until
               : u     ? "inactive"
                       : "inactive (new)");
    }
    /* Keys a break signature retired: their preload entries stay
     * lifted (tack_cli_preload.c).  --json keeps its list of names. */
    if (p->broken != NULL && json_object_size(p->broken) > 0) {
        printf("\n%-30s %s\n", "BROKEN TACK KEY", "BREAK SIGNATURE SEEN");
        json_object_foreach(p->broken, n, v)
        {
            char seen[32];

            cli_format_time((time_t)cli_pins_int(v, "seen"), 0, seen,
                            sizeof(seen));
            printf("%-30s %s\n",
                   json_string_value(json_object_get(v, "tack_id")), seen);
        }
    }
}

int cmd_pins(int argc, char **argv)
{
    pins_opts_t po = {NULL, NULL, 0};
    cli_pins_t p;
    int rc;

    rc = pins_parse_options(argc, argv, &po);
    if (rc != -1) {
        return rc;
    }
    if (po.del == NULL && access(po.path, F_OK) != 0) {
        cli_err("%s: %s", po.path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    rc = cli_pins_open(&p, po.path, po.del != NULL);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (po.del != NULL) {
        rc = pins_delete(&p, po.path, po.del);
    } else if (po.json) {
        pins_list_json(&p, cli_now());
    } else {
        pins_list_table(&p, cli_now());
    }
    cli_pins_close(&p);
    return rc;
}
