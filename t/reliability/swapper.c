/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * swapper.c -- an LD_PRELOAD shim for files.t: the symbolic-link race on a
 * file the parent writes, made deterministic.
 *
 * After each write(2) to a file whose name starts with "." and whose path
 * contains $SWAP_MATCH (the temporary file of an atomic replacement in a
 * TackStore), the shim does what a user who can write the directory could
 * do at that moment: it removes the file and puts a symbolic link to
 * $SWAP_TARGET in its place.  Code that then sets the file's mode by name
 * (chmod) changes the target's; code that set it on the descriptor does
 * not.  Each swap is logged to $SWAP_LOG ("swap PATH").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int in_shim;

static void swap_fd(int fd)
{
    const char *match = getenv("SWAP_MATCH"), *target = getenv("SWAP_TARGET");
    const char *log = getenv("SWAP_LOG"), *base;
    char link[64], path[PATH_MAX];
    ssize_t n;

    if (!match || !target) {
        return;
    }
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof(path) - 1);
    if (n <= 0) {
        return;
    }
    path[n] = '\0';
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (base[0] != '.' || !strstr(path, match)) {
        return;
    }
    if (unlink(path) == 0 && symlink(target, path) == 0 && log) {
        int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

        if (lfd >= 0) {
            char line[PATH_MAX + 8];
            int len = snprintf(line, sizeof(line), "swap %s\n", path);

            if (len > 0 && write(lfd, line, (size_t)len) < 0) {
                /* nothing to do */
            }
            close(lfd);
        }
    }
}

ssize_t write(int fd, const void *buf, size_t count)
{
    static ssize_t (*real)(int, const void *, size_t);
    ssize_t r;

    if (!real) {
        real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    }
    r = real(fd, buf, count);
    if (!in_shim && r > 0) {
        in_shim = 1;
        swap_fd(fd);
        in_shim = 0;
    }
    return r;
}
