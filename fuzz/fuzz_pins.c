/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * fuzz_pins.c -- the tool's pin store (tack_cli_pins.c): loading and
 * validating a store file an attacker may have edited, applying the
 * draft-00 section 5 rules to it, saving it, and listing it (`tack pins`,
 * tack_cli_pins_cmd.c; human and JSON forms).
 *
 * The tool reads its store only from a file (cli_pins_open is private; the
 * public entry points are cli_pins_apply and cmd_pins), so the input is
 * written to a private file on tmpfs first.  The input is:
 *
 *   byte 0      bits 0-1: number of TACKs (3 counts as 2); bit 2, 3: the
 *               activation flag of TACK 1, 2; bits 4-7: break signatures
 *               (0-8, higher values wrap)
 *   byte 1      bits 0-1: host name (one of four spellings)
 *   bytes 2-7   per TACK: key selector, min_generation, generation
 *   byte 8      key selector of the first break signature (the next ones
 *               use the following selectors)
 *   bytes 9-12  "now", big-endian seconds added to 1,700,000,000
 *   the rest    the store file
 *
 * A key selector k stands for the public key of 64 bytes of value k, so a
 * seed store whose key record is "0101...01" (128 hex digits) is hit by
 * selector 1.  The TACKs' signatures are not checked here: the tool checks
 * them before it consults the store (fuzz_tack and fuzz_validate cover
 * that).
 */
#include "fuzz_common.h"

#include <stdio.h>
#include <unistd.h>

#include "fuzz_cli.h"
#include "tack_ext.h"

#define PINS_HEADER 13

static char store_path[64];
static char lock_path[72];

static void remove_files(void)
{
    unlink(store_path);
    unlink(lock_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_cli_init();
    snprintf(store_path, sizeof(store_path), "/dev/shm/fuzz_pins.%ld.json",
             (long)getpid());
    snprintf(lock_path, sizeof(lock_path), "%s.lock", store_path);
    atexit(remove_files);
    return 0;
}

static void write_store(const uint8_t *data, size_t size)
{
    FILE *fp = fopen(store_path, "wb");

    fuzz_require(fp != NULL);
    if (size > 0) {
        fuzz_require(fwrite(data, 1, size, fp) == size);
    }
    fuzz_require(fclose(fp) == 0);
}

static int list_store(int json)
{
    char *argv[] = {"pins", json ? "--json" : store_path,
                    json ? store_path : NULL, NULL};

    optind = 0; /* glibc: restart getopt from scratch */
    return cmd_pins(json ? 3 : 2, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {"a.test", "A.Test.", "b.test", "."};
    tack_t tacks[2];
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    cli_pin_input_t in;
    const char *alert = NULL;
    json_t *report;
    size_t i;
    int rc;

    if (size < PINS_HEADER) {
        return 0;
    }
    memset(&in, 0, sizeof(in));
    memset(tacks, 0, sizeof(tacks));
    memset(sigs, 0, sizeof(sigs));
    in.num_tacks = data[0] & 3;
    if (in.num_tacks > 2) {
        in.num_tacks = 2;
    }
    for (i = 0; i < in.num_tacks; i++) {
        memset(tacks[i].public_key, data[2 + 3 * i], TACK_KEY_LEN);
        tacks[i].min_generation = data[3 + 3 * i];
        tacks[i].generation = data[4 + 3 * i];
        in.tacks[i] = &tacks[i];
        in.active[i] = (data[0] >> (2 + i)) & 1;
    }
    in.num_breaksigs = (size_t)(data[0] >> 4) % (TACK_MAX_BREAKSIGS + 1);
    for (i = 0; i < in.num_breaksigs; i++) {
        memset(sigs[i].public_key, (uint8_t)(data[8] + i), TACK_KEY_LEN);
    }
    in.breaksigs = sigs;
    in.name = names[data[1] & 3];
    in.now = (time_t)1700000000 +
             (time_t)((uint32_t)data[9] << 24 | (uint32_t)data[10] << 16 |
                      (uint32_t)data[11] << 8 | (uint32_t)data[12]);
    cli_now_value = in.now;

    write_store(data + PINS_HEADER, size - PINS_HEADER);
    report = json_object();
    fuzz_require(report != NULL);
    rc = cli_pins_apply(store_path, &in, stdout, &alert, report);
    fuzz_require(rc == CLI_EXIT_OK || rc == CLI_EXIT_CHECK ||
                 rc == CLI_EXIT_USAGE);
    fuzz_require((rc == CLI_EXIT_CHECK) == (alert != NULL));
    json_decref(report);

    /* Whatever the store holds now (rewritten or not), listing it must
     * neither crash nor leak. */
    rc = list_store(0);
    fuzz_require(rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE);
    rc = list_store(1);
    fuzz_require(rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE);
    remove_files();
    return 0;
}
