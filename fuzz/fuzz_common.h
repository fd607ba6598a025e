/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * fuzz_common.h -- shared by the libFuzzer targets of the core library.
 * Each target is built with -fsanitize=fuzzer,address,undefined; a finding
 * aborts, and every fixed crash becomes a unit test under t/unit/.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tack_base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_require aborts (a finding) when an invariant of the library breaks. */
#define fuzz_require(cond)                                                     \
    do {                                                                       \
        if (!(cond)) {                                                         \
            __builtin_trap();                                                  \
        }                                                                      \
    } while (0)

/* fuzz_status_ok: every status has a string. */
static inline void fuzz_check_status(tack_status_t st)
{
    const char *s = tack_status_str(st);

    fuzz_require(s != NULL && s[0] != '\0');
}

#endif
