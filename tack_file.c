/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_file.c -- reading and writing files safely: a whole file read with
 * no way to block or touch a device, a file replaced atomically, the
 * durability of what was written.  The one way every part of mod_tack
 * reads a configured file and writes one.
 */
#include "tack_ext.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
        PROC_SUPER_MAGIC,   SYSFS_MAGIC,      DEBUGFS_MAGIC,
        TRACEFS_MAGIC,      SECURITYFS_MAGIC, SELINUX_MAGIC,
        SMACK_MAGIC,        CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
        BPF_FS_MAGIC,       PSTOREFS_MAGIC,   EFIVARFS_MAGIC,
        DEVPTS_SUPER_MAGIC, BINFMTFS_MAGIC,   NSFS_MAGIC,
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

tack_status_t tack_file_write_temp(const char *path, const void *data,
                                   size_t len, mode_t mode, int sync,
                                   char **tmp)
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
    /* mkstemp: O_CREAT|O_EXCL, mode 0600 until the fchmod below. */
    fd = mkstemp(name);
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
        unlink(name);
        free(name);
        errno = saved;
        return TACK_ERR_IO;
    }
    if (close(fd) != 0) {
        saved = errno;
        unlink(name);
        free(name);
        errno = saved;
        return TACK_ERR_IO;
    }
    *tmp = name;
    return TACK_OK;
}

tack_status_t tack_file_commit(const char *tmp, const char *path, int replace)
{
    int saved;

    if (tmp == NULL || path == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    if (replace) {
        if (rename(tmp, path) == 0) {
            return TACK_OK;
        }
    } else if (link(tmp, path) == 0) {
        unlink(tmp);
        return TACK_OK;
    } else if ((errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP ||
                errno == EMLINK) &&
               rename(tmp, path) == 0) {
        /* No hard links on this file system (vfat, some FUSE ones). */
        return TACK_OK;
    }
    saved = errno;
    unlink(tmp);
    errno = saved;
    return TACK_ERR_IO;
}

tack_status_t tack_file_replace(const char *path, const void *data,
                                size_t len, mode_t mode, int sync)
{
    char *tmp = NULL;
    tack_status_t st;
    int saved;

    st = tack_file_write_temp(path, data, len, mode, sync, &tmp);
    if (st != TACK_OK) {
        return st;
    }
    st = tack_file_commit(tmp, path, 1);
    saved = errno;
    free(tmp);
    errno = saved;
    if (st != TACK_OK) {
        return st;
    }
    if (sync && tack_file_sync_dir(path) != 0) {
        return TACK_ERR_IO;
    }
    return TACK_OK;
}
