/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * fuzz_cli.h -- shared by the libFuzzer targets of the tool's own code
 * (fuzz_pins, fuzz_preload): the three functions the tool's commands need
 * from tool/tack.c, which holds main and cannot be linked in, and the set-up
 * that keeps the tool's stdio reports out of the fuzzer's output.
 * Included once, by each target's single source file.
 */
#ifndef FUZZ_CLI_H
#define FUZZ_CLI_H

#include <stdio.h>

#include "tack_cli.h"

/* From tool/tack.c: the commands call them for option errors only. */
int cli_help(FILE *fp, const char *cmd)
{
    return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    return CLI_EXIT_USAGE;
}

int cli_usage_hint(const char *cmd)
{
    return CLI_EXIT_USAGE;
}

/* fuzz_cli_init silences the tool's stdout and stderr (ASan, UBSan and
 * libFuzzer write to file descriptor 2, or their own FILE, and stay
 * visible) and makes cli_now() the fuzzed "now". */
static void fuzz_cli_init(void)
{
    FILE *null = fopen("/dev/null", "w");

    if (null != NULL) {
        stdout = null;
        stderr = null;
    }
    cli_now_set = 1;
}

#endif
