/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * check_main.c -- the one runner of the TACK core's Check unit tests.
 *
 *   TACK_TOP=<repository root> build/check_tack
 *
 * Fork mode stays on (Check's default), so a crash in the library is a failed
 * test rather than a dead runner.  The exit status is 0 only when at least
 * one test ran and none failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "tests.h"

int main(void)
{
    const char *top = getenv("TACK_TOP");
    char readme[4096];
    struct stat st;
    SRunner *sr;
    int run, failed;

    /* Every test reads vectors: without them nothing meaningful can run, and
     * skipping would look like success. */
    if (top == NULL || *top == '\0') {
        fprintf(stderr,
                "check_tack: TACK_TOP is not set; run as "
                "TACK_TOP=<repository root> %s\n",
                "build/check_tack");
        return 2;
    }
    snprintf(readme, sizeof(readme), "%s/t/vectors/README.md", top);
    if (stat(readme, &st) != 0) {
        fprintf(stderr, "check_tack: TACK_TOP=%s: no %s\n", top, readme);
        return 2;
    }

    sr = srunner_create(base_suite());
    srunner_add_suite(sr, util_suite());
    srunner_add_suite(sr, utf8_suite());
    srunner_add_suite(sr, file_suite());
    srunner_add_suite(sr, key_suite());
    srunner_add_suite(sr, ext_suite());
    srunner_add_suite(sr, pem_suite());
    srunner_add_suite(sr, keyfile_suite());
    srunner_add_suite(sr, pkcs11_uri_suite());
    srunner_add_suite(sr, pkcs11_token_suite());
    srunner_add_suite(sr, pkcs11_suite());
    srunner_add_suite(sr, store_suite());
    srunner_add_suite(sr, state_suite());

    srunner_run_all(sr, CK_SILENT);
    srunner_print(sr, CK_NORMAL);
    run = srunner_ntests_run(sr);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);

    if (run == 0) {
        fprintf(stderr, "check_tack: no test ran\n");
        return 1;
    }
    return failed == 0 ? 0 : 1;
}
