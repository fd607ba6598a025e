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
 *
 * The same for a file read from a directory another user can write (the
 * staged certificates of mod_md, which root's background reads): right
 * after readdir(3) returns a "pubcert*" entry that is a regular file, in a
 * directory whose path contains $SWAP_FIFO_DIR, the file becomes a FIFO
 * ("fifo PATH"); in one whose path contains $SWAP_LINK_DIR, a symbolic link
 * to $SWAP_TARGET ("link PATH").  Code that then opens the name it listed
 * blocks in open(2) (the FIFO) or opens the target (the link); code that
 * opens it with O_NOFOLLOW|O_NONBLOCK and looks at what it opened does not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int in_shim;

static void swap_log(const char *what, const char *path)
{
    const char *log = getenv("SWAP_LOG");
    int lfd;

    if (!log || (lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                            0644)) < 0) {
        return;
    }
    dprintf(lfd, "%s %s\n", what, path);
    close(lfd);
}

static void swap_fd(int fd)
{
    const char *match = getenv("SWAP_MATCH"), *target = getenv("SWAP_TARGET");
    const char *base;
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
    if (unlink(path) == 0 && symlink(target, path) == 0) {
        swap_log("swap", path);
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

/* swap_entry replaces the regular file |name| of the directory |dir| as
 * $SWAP_FIFO_DIR or $SWAP_LINK_DIR ask. */
static void swap_entry(DIR *dir, const char *name)
{
    const char *fifo = getenv("SWAP_FIFO_DIR"), *ldir = getenv("SWAP_LINK_DIR");
    const char *target = getenv("SWAP_TARGET");
    char link[64], path[PATH_MAX], full[PATH_MAX + 256];
    struct stat sb;
    ssize_t n;

    if ((!fifo && !ldir) || strncmp(name, "pubcert", 7) != 0) {
        return;
    }
    snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd(dir));
    n = readlink(link, path, sizeof(path) - 1);
    if (n <= 0) {
        return;
    }
    path[n] = '\0';
    snprintf(full, sizeof(full), "%s/%s", path, name);
    if (lstat(full, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        return;
    }
    if (fifo && strstr(path, fifo)) {
        if (unlink(full) == 0 && mkfifo(full, 0644) == 0) {
            swap_log("fifo", full);
        }
    } else if (ldir && target && strstr(path, ldir)) {
        if (unlink(full) == 0 && symlink(target, full) == 0) {
            swap_log("link", full);
        }
    }
}

struct dirent *readdir(DIR *dir)
{
    static struct dirent *(*real)(DIR *);
    struct dirent *e;

    if (!real) {
        real = (struct dirent * (*)(DIR *)) dlsym(RTLD_NEXT, "readdir");
    }
    e = real(dir);
    if (e && !in_shim) {
        in_shim = 1;
        swap_entry(dir, e->d_name);
        in_shim = 0;
    }
    return e;
}
