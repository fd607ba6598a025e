/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * p11spy.c -- for t/apache/pin.t: a PKCS#11 module that is another one
 * (SPY_MODULE, a library path given at build time) with every C_Login
 * written down: one line per call, appended to SPY_LOG,
 *
 *   C_Login pid=1234 user=1 len=4 rv=0xa0
 *
 * so that a test counts the PINs a token was sent (SoftHSM2 has no
 * counter of wrong PINs to read) -- never the PIN itself.  Built with
 *
 *   cc -shared -fPIC -DSPY_MODULE='"/usr/lib/softhsm/libsofthsm2.so"' \
 *      -DSPY_LOG='"/tmp/spy.log"' -o p11spy.so p11spy.c -ldl
 *
 * No PKCS#11 header: CK_FUNCTION_LIST laid out as every Unix module does
 * (natural alignment), as p11value.c and tack_pkcs11_token.c do.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef unsigned long ck_ulong;
typedef ck_ulong (*ck_fn)();
typedef struct {
    unsigned char version[2];
    ck_fn fn[68]; /* C_Initialize ... in the order of PKCS#11 v2.40 */
} ck_functions;

enum { C_Login = 18 };
#define CKR_GENERAL_ERROR 0x5UL

static ck_functions spy;
static const ck_functions *real;

static ck_ulong spy_login(ck_ulong session, ck_ulong user,
                          const unsigned char *pin, ck_ulong len)
{
    ck_ulong rv = real->fn[C_Login](session, user, pin, len);
    char line[128];
    int fd = open(SPY_LOG, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

    if (fd >= 0) {
        int n = snprintf(line, sizeof(line),
                         "C_Login pid=%ld user=%lu len=%lu rv=0x%lx\n",
                         (long)getpid(), user, len, rv);

        if (n > 0 && write(fd, line, (size_t)n) < 0) {
            n = 0;
        }
        close(fd);
    }
    return rv;
}

__attribute__((visibility("default"))) ck_ulong
C_GetFunctionList(ck_functions **out)
{
    ck_ulong (*get)(const ck_functions **);
    void *h;

    if (real == NULL) {
        h = dlopen(SPY_MODULE, RTLD_NOW | RTLD_LOCAL);
        get = h ? (ck_ulong(*)(const ck_functions **))dlsym(h,
                                                            "C_GetFunctionList")
                : NULL;
        if (get == NULL || get(&real) != 0 || real == NULL) {
            real = NULL;
            return CKR_GENERAL_ERROR;
        }
        spy = *real;
        spy.fn[C_Login] = (ck_fn)spy_login;
    }
    *out = &spy;
    return 0;
}
