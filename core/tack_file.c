/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_file.c -- reading and writing files safely: a whole file read with
 * no way to block or touch a device, a file replaced atomically, the
 * durability of what was written.  The one way every part of mod_tack
 * reads a configured file and writes one.
 */
#include "tack_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

/* file_pseudo_fs returns 1 when |fs| is a kernel interface dressed as a
 * filesystem: its "regular" files are not data, and reading one may block
 * for ever (/proc/kmsg), change the kernel's state or never end. */
static int file_pseudo_fs(const struct statfs *fs)
{
    static const unsigned long types[] = {
        PROC_SUPER_MAGIC,    SYSFS_MAGIC,    DEBUGFS_MAGIC,  TRACEFS_MAGIC,
        SECURITYFS_MAGIC,    SELINUX_MAGIC,  SMACK_MAGIC,    CGROUP_SUPER_MAGIC,
        CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC,   PSTOREFS_MAGIC, EFIVARFS_MAGIC,
        DEVPTS_SUPER_MAGIC,  BINFMTFS_MAGIC, NSFS_MAGIC,
    };
    size_t i;

    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if ((unsigned long)fs->f_type == types[i]) {
            return 1;
        }
    }
    return 0;
}

/* file_check_kind judges what |sb| and |fs| describe: TACK_OK for a regular
 * file of an ordinary filesystem no larger than |max_len|. */
static tack_status_t file_check_kind(const struct stat *sb,
                                     const struct statfs *fs, size_t max_len)
{
    if (S_ISDIR(sb->st_mode)) {
        errno = EISDIR;
        return TACK_ERR_IO;
    }
    if (!S_ISREG(sb->st_mode)) {
        return TACK_ERR_NOT_REGULAR_FILE;
    }
    if (file_pseudo_fs(fs)) {
        return TACK_ERR_PSEUDO_FILE;
    }
    if (sb->st_size > 0 && (uintmax_t)sb->st_size > max_len) {
        return TACK_ERR_FILE_TOO_LARGE;
    }
    return TACK_OK;
}

/* file_read_all reads |fd| to EOF into a malloc'd, NUL-terminated buffer,
 * whatever st_size said, but never more than max_len + 1 bytes: a file that
 * grows is bounded all the same.  The buffer tops out at max_len + 2 (one
 * byte over the limit, and the NUL). */
static tack_status_t file_read_all(int fd, size_t max_len, char **out,
                                   size_t *out_len)
{
    char *buf = NULL, *nb;
    size_t len = 0, cap = 0, ncap;
    ssize_t n;
    int saved;

    for (;;) {
        if (len + 1 >= cap) {
            ncap = cap != 0 ? cap * 2 : 4096;
            if (ncap > max_len + 2) {
                ncap = max_len + 2;
            }
            nb = realloc(buf, ncap);
            if (nb == NULL) {
                free(buf);
                return TACK_ERR_NOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            saved = errno; /* EAGAIN: it would have blocked */
            free(buf);
            errno = saved;
            return TACK_ERR_IO;
        }
        if (n == 0) {
            break;
        }
        len += (size_t)n;
        if (len > max_len) {
            free(buf);
            return TACK_ERR_FILE_TOO_LARGE;
        }
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return TACK_OK;
}

tack_status_t tack_file_read(const char *path, size_t max_len, char **out,
                             size_t *out_len)
{
    struct stat sb;
    struct statfs fs;
    tack_status_t st;
    int fd, saved;

    if (path == NULL || out == NULL || out_len == NULL ||
        max_len > SIZE_MAX / 4) {
        return TACK_ERR_INVALID_ARG;
    }
    /* The kind of file is judged before it is opened: opening a device can
     * have effects of its own, and a pseudo-file must not be touched. */
    if (stat(path, &sb) != 0 || statfs(path, &fs) != 0) {
        return TACK_ERR_IO;
    }
    st = file_check_kind(&sb, &fs, max_len);
    if (st != TACK_OK) {
        return st;
    }
    /* O_NONBLOCK, kept while reading: a FIFO put in the file's place since
     * would otherwise wait for a writer.  The opened file is judged again,
     * as it may not be the one stat() saw. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return TACK_ERR_IO;
    }
    if (fstat(fd, &sb) != 0 || fstatfs(fd, &fs) != 0) {
        st = TACK_ERR_IO;
    } else {
        st = file_check_kind(&sb, &fs, max_len);
    }
    if (st == TACK_OK) {
        st = file_read_all(fd, max_len, out, out_len);
    }
    saved = errno;
    close(fd);
    errno = saved;
    return st;
}

tack_status_t tack_file_read_at(int dirfd, const char *name, size_t max_len,
                                char **out, size_t *out_len, struct stat *sb)
{
    struct stat own;
    struct statfs fs;
    tack_status_t st;
    int fd, saved;

    if (name == NULL || out == NULL || out_len == NULL ||
        max_len > SIZE_MAX / 4) {
        return TACK_ERR_INVALID_ARG;
    }
    if (sb == NULL) {
        sb = &own;
    }
    /* The entry itself, never where a link leads: judged before it is
     * opened (opening a device can have effects of its own). */
    if (fstatat(dirfd, name, sb, AT_SYMLINK_NOFOLLOW) != 0) {
        return TACK_ERR_IO;
    }
    if (S_ISLNK(sb->st_mode)) {
        errno = ELOOP;
        return TACK_ERR_NOT_REGULAR_FILE;
    }
    if (!S_ISREG(sb->st_mode)) {
        return S_ISDIR(sb->st_mode) ? (errno = EISDIR, TACK_ERR_IO)
                                    : TACK_ERR_NOT_REGULAR_FILE;
    }
    /* O_NOFOLLOW and O_NONBLOCK: what was put in its place since (a link
     * to a device, a FIFO nobody writes to) is not followed and cannot
     * block; the opened file is judged again. */
    fd = openat(dirfd, name,
                O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ELOOP) {
            return TACK_ERR_NOT_REGULAR_FILE;
        }
        return TACK_ERR_IO;
    }
    if (fstat(fd, sb) != 0 || fstatfs(fd, &fs) != 0) {
        st = TACK_ERR_IO;
    } else {
        st = file_check_kind(sb, &fs, max_len);
    }
    if (st == TACK_OK) {
        st = file_read_all(fd, max_len, out, out_len);
    }
    saved = errno;
    close(fd);
    errno = saved;
    return st;
}

/* The most symbolic links tack_dir_open follows (the kernel's limit). */
#define TACK_DIR_MAX_LINKS 40

/* dir_root_only says whether only root can change the entries of the
 * directory |fd|: owned by root, writable by no group and no one else. */
static int dir_root_only(int fd)
{
    struct stat sb;

    return fstat(fd, &sb) == 0 && sb.st_uid == 0 &&
           !(sb.st_mode & (S_IWGRP | S_IWOTH));
}

/* dir_note writes |walked|, "/" and the |comp_len| bytes of |comp| into
 * |out| (|out_len| bytes; may be NULL). */
static void dir_note(char *out, size_t out_len, const char *walked,
                     const char *comp, size_t comp_len)
{
    if (out != NULL && out_len > 0) {
        snprintf(out, out_len, "%s/%.*s", walked, (int)comp_len, comp);
    }
}

int tack_dir_open(const char *path, char *link, size_t link_len)
{
    size_t cap = 2 * (size_t)PATH_MAX;
    char *rest = NULL, *walked = NULL, *target = NULL;
    int fd = -1, nfd, hops = 0, saved;

    if (link != NULL && link_len > 0) {
        link[0] = '\0';
    }
    if (path == NULL || path[0] != '/' || strlen(path) >= cap) {
        errno = EINVAL;
        return -1;
    }
    rest = malloc(cap);
    walked = calloc(1, cap);
    target = malloc(PATH_MAX);
    if (rest == NULL || walked == NULL || target == NULL) {
        errno = ENOMEM;
        goto fail;
    }
    strcpy(rest, path);
    fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        goto fail;
    }
    /* One component at a time, each relative to the descriptor of the
     * directory before it (O_NOFOLLOW covers only the last component of a
     * path).  openat2's RESOLVE_NO_SYMLINKS would refuse every link, the
     * administrator's own (/var/www -> /srv/www) included. */
    for (;;) {
        const char *comp = rest + strspn(rest, "/");
        size_t clen = strcspn(comp, "/");
        const char *after = comp + clen;
        int last = after[strspn(after, "/")] == '\0';
        char name[NAME_MAX + 1];
        struct stat sb;
        size_t wl;
        ssize_t n;

        if (clen == 0) {
            break; /* the whole path walked */
        }
        if (clen > NAME_MAX) {
            errno = ENAMETOOLONG;
            goto fail;
        }
        memcpy(name, comp, clen);
        name[clen] = '\0';
        nfd = strcmp(name, ".") == 0
                  ? dup(fd)
                  : openat(fd, name,
                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC |
                               O_NONBLOCK);
        if (nfd >= 0) {
            wl = strlen(walked);
            if (wl + 1 + clen < cap) {
                walked[wl] = '/';
                memcpy(walked + wl + 1, name, clen + 1);
            }
            close(fd);
            fd = nfd;
            memmove(rest, after, strlen(after) + 1);
            continue;
        }
        saved = errno;
        if ((saved != ELOOP && saved != ENOTDIR) ||
            fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISLNK(sb.st_mode)) {
            errno = saved;
            goto fail;
        }
        /* A link: followed only on the way (never the directory itself)
         * and only where no one but root could have made it. */
        if (last || !dir_root_only(fd) || ++hops > TACK_DIR_MAX_LINKS) {
            dir_note(link, link_len, walked, name, clen);
            errno = ELOOP;
            goto fail;
        }
        n = readlinkat(fd, name, target, PATH_MAX - 1);
        if (n <= 0) {
            goto fail;
        }
        target[n] = '\0';
        if (strlen(after) + (size_t)n + 2 >= cap) {
            errno = ENAMETOOLONG;
            goto fail;
        }
        /* what is left to walk: the link's target, then the rest */
        memmove(rest + n + 1, after, strlen(after) + 1);
        memcpy(rest, target, (size_t)n);
        rest[n] = '/';
        if (target[0] == '/') {
            close(fd);
            walked[0] = '\0';
            if ((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
                goto fail;
            }
        }
    }
    free(rest);
    free(walked);
    free(target);
    return fd;

fail:
    saved = errno;
    if (fd >= 0) {
        close(fd);
    }
    free(rest);
    free(walked);
    free(target);
    errno = saved;
    return -1;
}

int tack_file_sync_fs(const char *dir)
{
    int fd, rc, saved;

    if (dir == NULL) {
        errno = EINVAL;
        return -1;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    rc = syncfs(fd);
    saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int tack_file_sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd, rc = 0, saved;

    if (slash == NULL) {
        dir = strdup(".");
    } else {
        dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
    }
    if (dir == NULL) {
        errno = ENOMEM;
        return -1;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        rc = -1;
    } else {
        if (fsync(fd) != 0 && errno != EINVAL) {
            rc = -1;
        }
        saved = errno;
        close(fd);
        errno = saved;
    }
    free(dir);
    return rc;
}

/* file_write_all writes |len| bytes to |fd|; returns 0, or -1 with errno. */
static int file_write_all(int fd, const uint8_t *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = EIO;
            }
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* file_temp_open creates |name|, whose last six characters are replaced by
 * random ones until a name that does not exist is found, in |dirfd|, with
 * O_CREAT|O_EXCL (mkstemp's rule: no name that exists, and so no symbolic
 * link, is ever followed or reused) and mode 0600; returns the descriptor,
 * or -1 with errno set. */
static int file_temp_open(int dirfd, char *name)
{
    static const char chars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t n = strlen(name), i;
    int tries, fd;

    if (n < 6) {
        errno = EINVAL;
        return -1;
    }
    for (tries = 0; tries < 100; tries++) {
        uint8_t rnd[6];

        if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
            return -1;
        }
        for (i = 0; i < 6; i++) {
            name[n - 6 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
        }
        fd = openat(dirfd, name,
                    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) {
            return fd;
        }
    }
    errno = EEXIST;
    return -1;
}

tack_status_t tack_file_write_temp_at(int dirfd, const char *path,
                                      const void *data, size_t len, mode_t mode,
                                      int sync, char **tmp)
{
    const char *slash, *base;
    size_t dlen, blen;
    char *name;
    int fd, saved;

    if (path == NULL || (data == NULL && len > 0) || tmp == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    slash = strrchr(path, '/');
    base = slash ? slash + 1 : path;
    dlen = (size_t)(base - path);
    blen = strlen(base);
    name = malloc(dlen + 1 + blen + sizeof(".XXXXXX"));
    if (name == NULL) {
        return TACK_ERR_NOMEM;
    }
    memcpy(name, path, dlen);
    name[dlen] = '.';
    memcpy(name + dlen + 1, base, blen);
    memcpy(name + dlen + 1 + blen, ".XXXXXX", sizeof(".XXXXXX"));
    /* mode 0600 until the fchmod below */
    fd = file_temp_open(dirfd, name);
    if (fd < 0) {
        saved = errno;
        free(name);
        errno = saved;
        return TACK_ERR_IO;
    }
    if (fchmod(fd, mode) != 0 || file_write_all(fd, data, len) != 0 ||
        (sync && fsync(fd) != 0)) {
        saved = errno;
        close(fd);
        unlinkat(dirfd, name, 0);
        free(name);
        errno = saved;
        return TACK_ERR_IO;
    }
    if (close(fd) != 0) {
        saved = errno;
        unlinkat(dirfd, name, 0);
        free(name);
        errno = saved;
        return TACK_ERR_IO;
    }
    *tmp = name;
    return TACK_OK;
}

tack_status_t tack_file_write_temp(const char *path, const void *data,
                                   size_t len, mode_t mode, int sync,
                                   char **tmp)
{
    return tack_file_write_temp_at(AT_FDCWD, path, data, len, mode, sync, tmp);
}

tack_status_t tack_file_commit_at(int dirfd, const char *tmp, const char *path,
                                  int replace)
{
    int saved;

    if (tmp == NULL || path == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    if (replace) {
        if (renameat(dirfd, tmp, dirfd, path) == 0) {
            return TACK_OK;
        }
    } else if (linkat(dirfd, tmp, dirfd, path, 0) == 0) {
        unlinkat(dirfd, tmp, 0);
        return TACK_OK;
    } else if ((errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP ||
                errno == EMLINK) &&
               renameat(dirfd, tmp, dirfd, path) == 0) {
        /* No hard links on this file system (vfat, some FUSE ones). */
        return TACK_OK;
    }
    saved = errno;
    unlinkat(dirfd, tmp, 0);
    errno = saved;
    return TACK_ERR_IO;
}

tack_status_t tack_file_commit(const char *tmp, const char *path, int replace)
{
    return tack_file_commit_at(AT_FDCWD, tmp, path, replace);
}

tack_status_t tack_file_replace_at(int dirfd, const char *path,
                                   const void *data, size_t len, mode_t mode,
                                   int sync)
{
    char *tmp = NULL;
    tack_status_t st;
    int saved;

    st = tack_file_write_temp_at(dirfd, path, data, len, mode, sync, &tmp);
    if (st != TACK_OK) {
        return st;
    }
    st = tack_file_commit_at(dirfd, tmp, path, 1);
    saved = errno;
    free(tmp);
    errno = saved;
    if (st != TACK_OK) {
        return st;
    }
    if (!sync) {
        return TACK_OK;
    }
    if (dirfd == AT_FDCWD || strchr(path, '/') != NULL) {
        return tack_file_sync_dir(path) == 0 ? TACK_OK : TACK_ERR_IO;
    }
    /* |path| is a name in |dirfd|: the directory itself is synced */
    return fsync(dirfd) == 0 || errno == EINVAL ? TACK_OK : TACK_ERR_IO;
}

tack_status_t tack_file_replace(const char *path, const void *data, size_t len,
                                mode_t mode, int sync)
{
    return tack_file_replace_at(AT_FDCWD, path, data, len, mode, sync);
}
