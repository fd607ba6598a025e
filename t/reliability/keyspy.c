/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * keyspy.c -- an LD_PRELOAD library for t/reliability/secrets.t: it watches
 * a process (apache2) for two things the module must never do, and says
 * whether mod_tack was on the call stack when they happened:
 *
 *   - decoding a PEM block labelled "... PRIVATE KEY" (OpenSSL's
 *     PEM_read_bio_ex, through which every PEM reader of libcrypto goes);
 *   - opening a file whose name is in $KEYSPY_PATHS (colon-separated: the
 *     SSLCertificateKeyFile paths).
 *
 * Each event is one line appended to $KEYSPY_LOG:
 *   pem-private-key LABEL mod_tack=0|1
 *   open PATH mod_tack=0|1
 * "mod_tack=1" means a frame of the stack lies in a shared object whose
 * file is named mod_tack.so.  The events themselves are left alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <openssl/bio.h>

static int in_spy;

static int from_mod_tack(void)
{
    void *frames[64];
    int n = backtrace(frames, 64), i;

    for (i = 0; i < n; i++) {
        Dl_info info;

        const char *base;

        /* The object's file name, not its path: a tree cloned under
         * /srv/mod_tack puts this spy itself under a "mod_tack" path. */
        if (dladdr(frames[i], &info) && info.dli_fname) {
            base = strrchr(info.dli_fname, '/');
            base = base ? base + 1 : info.dli_fname;
            if (!strcmp(base, "mod_tack.so")) {
                return 1;
            }
        }
    }
    return 0;
}

static void note(const char *what, const char *detail)
{
    const char *path = getenv("KEYSPY_LOG");
    char line[1200];
    int fd, len;

    if (path == NULL) {
        return;
    }
    len = snprintf(line, sizeof(line), "%s %s mod_tack=%d\n", what, detail,
                   from_mod_tack());
    fd = ((int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open"))(
        path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)len) < 0) {
            /* nothing to do */
        }
        close(fd);
    }
}

static void check_path(const char *file)
{
    const char *list = getenv("KEYSPY_PATHS");
    char abs[PATH_MAX];
    size_t n;

    if (list == NULL || file == NULL || in_spy) {
        return;
    }
    /* The list holds absolute paths; resolve relative names and links. */
    if (realpath(file, abs) != NULL) {
        file = abs;
    }
    n = strlen(file);
    while (*list) {
        const char *end = strchr(list, ':');
        size_t len = end ? (size_t)(end - list) : strlen(list);

        if (len == n && memcmp(list, file, n) == 0) {
            in_spy = 1;
            note("open", file);
            in_spy = 0;
            return;
        }
        if (!end) {
            break;
        }
        list = end + 1;
    }
}

int open(const char *file, int flags, ...);
int open(const char *file, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    mode_t mode = 0;

    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;

        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    if (!real) {
        real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    }
    check_path(file);
    return real(file, flags, mode);
}

int open64(const char *file, int flags, ...);
int open64(const char *file, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    mode_t mode = 0;

    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;

        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    if (!real) {
        real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
    }
    check_path(file);
    return real(file, flags, mode);
}

FILE *fopen(const char *file, const char *mode);
FILE *fopen(const char *file, const char *mode)
{
    static FILE *(*real)(const char *, const char *);

    if (!real) {
        real =
            (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    }
    check_path(file);
    return real(file, mode);
}

FILE *fopen64(const char *file, const char *mode);
FILE *fopen64(const char *file, const char *mode)
{
    static FILE *(*real)(const char *, const char *);

    if (!real) {
        real = (FILE * (*)(const char *, const char *))
            dlsym(RTLD_NEXT, "fopen64");
    }
    check_path(file);
    return real(file, mode);
}

int PEM_read_bio_ex(BIO *bp, char **name, char **header, unsigned char **data,
                    long *len, unsigned int flags);
int PEM_read_bio_ex(BIO *bp, char **name, char **header, unsigned char **data,
                    long *len, unsigned int flags)
{
    static int (*real)(BIO *, char **, char **, unsigned char **, long *,
                       unsigned int);
    int r;

    if (!real) {
        real = (int (*)(BIO *, char **, char **, unsigned char **, long *,
                        unsigned int))dlsym(RTLD_NEXT, "PEM_read_bio_ex");
    }
    r = real(bp, name, header, data, len, flags);
    if (r > 0 && name && *name && strstr(*name, "PRIVATE KEY")) {
        char label[128];
        size_t i;

        snprintf(label, sizeof(label), "%s", *name);
        for (i = 0; label[i]; i++) {
            if (label[i] == ' ') {
                label[i] = '_';
            }
        }
        note("pem-private-key", label);
    }
    return r;
}
