/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * fuzz_preload.c -- the tool's preload lists (tack_cli_preload.c): a list
 * file as anyone may hand a client, checked by cli_preload_parse, then
 * loaded from a file and applied to fuzzed TACKs and break signatures as
 * `tack check --preload` does, and shown by `tack preload view` (human and
 * JSON forms).
 *
 * The input is:
 *
 *   byte 0      bits 0-1: number of TACKs (3 counts as 2); bits 4-7: break
 *               signatures (0-8, higher values wrap)
 *   byte 1      bits 0-1: host name (one of four spellings); bit 2: give a
 *               pin store path (a missing file: an empty store)
 *   bytes 2-5   per TACK: key selector, generation
 *   byte 6      key selector of the first break signature (the next ones
 *               use the following selectors)
 *   bytes 7-10  "now", big-endian seconds added to 1,700,000,000
 *   the rest    the list
 *
 * A key selector k stands for the public key of entry k mod n of the list
 * when it parses with n > 0 entries (so that the rules' matching paths are
 * reached: a list only holds keys on the curve), else for 64 bytes of value
 * k.  Signatures are not checked here: the tool checks them before it
 * consults the list (fuzz_tack covers that).
 */
#include "fuzz_common.h"

#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_cli.h"
#include "tack_ext.h"

#define PRELOAD_HEADER 11

static char list_path[64];
static char store_path[64];

static void remove_files(void)
{
    unlink(list_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_cli_init();
    snprintf(list_path, sizeof(list_path), "/dev/shm/fuzz_preload.%ld.json",
             (long)getpid());
    /* Never created: cli_preload_apply only reads the store. */
    snprintf(store_path, sizeof(store_path), "/dev/shm/fuzz_preload.%ld.none",
             (long)getpid());
    atexit(remove_files);
    return 0;
}

static void write_list(const uint8_t *data, size_t size)
{
    FILE *fp = fopen(list_path, "wb");

    fuzz_require(fp != NULL);
    if (size > 0) {
        fuzz_require(fwrite(data, 1, size, fp) == size);
    }
    fuzz_require(fclose(fp) == 0);
}

static void pick_key(const cli_preload_t *l, int ok, uint8_t sel,
                     uint8_t out[TACK_KEY_LEN])
{
    if (ok && l->num_entries > 0) {
        memcpy(out, l->entries[sel % l->num_entries].public_key, TACK_KEY_LEN);
    } else {
        memset(out, sel, TACK_KEY_LEN);
    }
}

static int view_list(int json)
{
    char *argv[] = {"preload", "view", json ? "--json" : list_path,
                    json ? list_path : NULL, NULL};

    optind = 0; /* glibc: restart getopt from scratch */
    return cmd_preload(json ? 4 : 3, argv);
}

/* check_list: what every loaded list must be, so that the rules can trust
 * it. */
static void check_list(const cli_preload_t *l)
{
    char fpr[TACK_FINGERPRINT_SIZE];
    size_t i;

    fuzz_require(l->version == 1);
    fuzz_require(l->generated < l->expires);
    for (i = 0; i < l->num_entries; i++) {
        const cli_preload_entry_t *e = &l->entries[i];

        fuzz_require(e->host != NULL && e->host[0] != '\0');
        fuzz_require(i == 0 || strcmp(l->entries[i - 1].host, e->host) < 0);
        fuzz_require(cli_preload_find(l, e->host) == e);
        fuzz_require(e->min_generation >= 0 && e->min_generation <= 255);
        fuzz_require(e->observed >= 0 && e->observed <= l->generated);
        tack_fingerprint(e->public_key, fpr);
        fuzz_require(strcmp(fpr, e->tack_id) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {"a.test", "A.Test.", "b.test", "."};
    tack_t tacks[2];
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    cli_pin_input_t in;
    cli_preload_t l;
    const char *alert = NULL;
    char why[384];
    json_t *report;
    size_t i;
    int ok, rc;

    if (size < PRELOAD_HEADER) {
        return 0;
    }
    why[0] = '\0';
    ok = cli_preload_parse(&l, (const char *)data + PRELOAD_HEADER,
                           size - PRELOAD_HEADER, why, sizeof(why));
    fuzz_require(ok || why[0] != '\0');
    if (ok) {
        check_list(&l);
    } else {
        fuzz_require(l.num_entries == 0 && l.entries == NULL);
    }

    memset(&in, 0, sizeof(in));
    memset(tacks, 0, sizeof(tacks));
    memset(sigs, 0, sizeof(sigs));
    in.num_tacks = data[0] & 3;
    if (in.num_tacks > 2) {
        in.num_tacks = 2;
    }
    for (i = 0; i < in.num_tacks; i++) {
        pick_key(&l, ok, data[2 + 2 * i], tacks[i].public_key);
        tacks[i].generation = data[3 + 2 * i];
        in.tacks[i] = &tacks[i];
    }
    in.num_breaksigs = (size_t)(data[0] >> 4) % (TACK_MAX_BREAKSIGS + 1);
    for (i = 0; i < in.num_breaksigs; i++) {
        pick_key(&l, ok, (uint8_t)(data[6] + i), sigs[i].public_key);
    }
    in.breaksigs = sigs;
    in.name = names[data[1] & 3];
    in.now = (time_t)1700000000 +
             (time_t)((uint32_t)data[7] << 24 | (uint32_t)data[8] << 16 |
                      (uint32_t)data[9] << 8 | (uint32_t)data[10]);
    cli_now_value = in.now;
    cli_preload_free(&l);

    /* The same bytes from a file: the same verdict on the list. */
    write_list(data + PRELOAD_HEADER, size - PRELOAD_HEADER);
    report = json_object();
    fuzz_require(report != NULL);
    rc = cli_preload_apply(list_path, (data[1] & 4) ? store_path : NULL, &in,
                           stdout, &alert, report);
    fuzz_require(ok ? rc != CLI_EXIT_USAGE : rc == CLI_EXIT_USAGE);
    fuzz_require((rc == CLI_EXIT_CHECK) == (alert != NULL));
    fuzz_require(in.num_lifted <= in.num_breaksigs);
    if (in.preload_key != NULL) {
        fuzz_require(rc == CLI_EXIT_OK);
    }
    json_decref(report);

    rc = view_list(0);
    fuzz_require(ok ? rc != CLI_EXIT_USAGE : rc == CLI_EXIT_USAGE);
    rc = view_list(1);
    fuzz_require(ok ? rc != CLI_EXIT_USAGE : rc == CLI_EXIT_USAGE);
    remove_files();
    return 0;
}
