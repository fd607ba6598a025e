/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_file.h -- reading and writing files safely (tack_file.c): a whole
 * file read with no way to block or touch a device, a file replaced
 * atomically, relative to a directory's descriptor, the durability of what
 * was written.
 */
#ifndef TACK_FILE_H
#define TACK_FILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tack_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest file tack_file_read accepts by default: TACK files are a few
 * hundred bytes; a megabyte is certainly a mistake. */
#define TACK_FILE_MAX_DEFAULT (1024 * 1024)

/* tack_file_read reads the whole of |path| into a malloc'd buffer (free with
 * free(); a NUL is appended but not counted in |*out_len|).  No file name
 * may stall the caller (httpd's parent reads these at a restart), so only
 * regular files of ordinary filesystems are read, and their type is checked
 * before they are opened: anything else (a FIFO nobody writes to would block
 * httpd forever, /dev/zero never ends) is TACK_ERR_NOT_REGULAR_FILE, and a
 * file of proc, sysfs, debugfs and their kin (/proc/kmsg blocks in read())
 * is TACK_ERR_PSEUDO_FILE.  The descriptor stays non-blocking while it is
 * read.  Files larger than |max_len| give TACK_ERR_FILE_TOO_LARGE; open/read
 * failures give TACK_ERR_IO with errno set (EISDIR for a directory).  A file
 * on a network filesystem whose server hangs can still block: no flag of
 * open(2) bounds that. */
tack_status_t tack_file_read(const char *path, size_t max_len, char **out,
                             size_t *out_len);

/* tack_file_read_at reads the whole of the file |name| of the directory
 * |dirfd| (or a path relative to it; AT_FDCWD for the working directory),
 * like tack_file_read, for a directory another user can write: the entry
 * itself is judged (fstatat, AT_SYMLINK_NOFOLLOW) before it is opened, and
 * opened with O_NOFOLLOW|O_NONBLOCK, then judged again on its descriptor,
 * so that nothing swapped in between (a symbolic link to a device, a FIFO)
 * is followed or can block.  A symbolic link is TACK_ERR_NOT_REGULAR_FILE
 * with errno ELOOP; the other returns are tack_file_read's.  When |sb| is
 * not NULL it gets the entry's status (the opened file's once opened:
 * its owner and mode are those of the bytes read), also on failure when
 * the entry could be looked at. */
tack_status_t tack_file_read_at(int dirfd, const char *name, size_t max_len,
                                char **out, size_t *out_len, struct stat *sb);

/* tack_dir_open opens the directory |path| (absolute) for reading and
 * returns its descriptor (O_CLOEXEC; the caller closes it), or -1 with
 * errno set.  It is walked one component at a time, each opened relative
 * to the one before with O_NOFOLLOW: the directory itself is never a
 * symbolic link, and a link on the way is followed only when it sits in a
 * directory only root can change (owned by root, writable by no group and
 * no one else), where no one but root could have put it.  Any other link
 * is ELOOP, and its path (as walked) is written into |link| (|link_len|
 * bytes; may be NULL).  What is then done relative to the descriptor
 * (openat, renameat, unlinkat) stays in that directory, whatever is later
 * renamed or swapped along |path|. */
int tack_dir_open(const char *path, char *link, size_t link_len);

/* tack_file_write_temp writes |len| bytes at |data| into a new file beside
 * |path|, named ".BASENAME.XXXXXX" (hidden: a TackStore never reads it),
 * created by mkstemp (O_CREAT|O_EXCL: no name that exists, and so no
 * symbolic link, is ever followed or reused) and given |mode| with fchmod on
 * its descriptor, never by name (a name can be swapped for a link between
 * two calls; the umask does not apply: pass the mode wanted); synced when
 * |sync|.  On success |*tmp| (free with free()) names it, for
 * tack_file_commit or unlink.  On failure nothing is left behind and
 * TACK_ERR_IO (errno set) or TACK_ERR_NOMEM is returned. */
tack_status_t tack_file_write_temp(const char *path, const void *data,
                                   size_t len, mode_t mode, int sync,
                                   char **tmp);

/* tack_file_write_temp_at is tack_file_write_temp for |path| relative to
 * the directory |dirfd| (tack_dir_open's; AT_FDCWD: the working
 * directory): the file is created there, and |*tmp| is relative to it. */
tack_status_t tack_file_write_temp_at(int dirfd, const char *path,
                                      const void *data, size_t len, mode_t mode,
                                      int sync, char **tmp);

/* tack_file_commit puts the temporary file |tmp| (tack_file_write_temp's)
 * in place as |path|, whole: with |replace|, rename(2) over whatever is
 * there; without, link(2), which fails with EEXIST when |path| exists or
 * appears meanwhile (where rename would silently replace it), and falls
 * back to rename only on a file system without hard links (EPERM, ENOTSUP,
 * EOPNOTSUPP, EMLINK), where a file that appears in between is replaced.
 * The directory is not synced: tack_file_sync_dir, once for many files.
 * On success and on failure the name |tmp| is gone (|tmp| itself is the
 * caller's to free).  Returns TACK_OK, or TACK_ERR_IO with errno set
 * (EEXIST: |path| exists and |replace| is 0), or TACK_ERR_INVALID_ARG. */
tack_status_t tack_file_commit(const char *tmp, const char *path, int replace);

/* tack_file_commit_at is tack_file_commit with |tmp| and |path| relative to
 * the directory |dirfd| (renameat, linkat, unlinkat). */
tack_status_t tack_file_commit_at(int dirfd, const char *tmp, const char *path,
                                  int replace);

/* tack_file_replace replaces |path| atomically with |len| bytes at |data|:
 * tack_file_write_temp, then rename over |path| (tack_file_commit: a reader
 * sees the old file or the new one, whole), then, when |sync|, fsync of the
 * directory so the rename survives a crash.  The one way every part of
 * mod_tack writes a file: the module's TackStore and state file, the tool's
 * outputs (with tack_file_write_temp and tack_file_commit for many files).
 * Returns TACK_OK, or TACK_ERR_IO with errno set (the temporary file
 * removed), or TACK_ERR_NOMEM. */
tack_status_t tack_file_replace(const char *path, const void *data, size_t len,
                                mode_t mode, int sync);

/* tack_file_replace_at is tack_file_replace for |path| relative to the
 * directory |dirfd| (tack_dir_open's; AT_FDCWD: the working directory):
 * the temporary file, the rename and, when |sync|, the fsync are all of
 * that directory (|dirfd| itself is synced when |path| is a plain name),
 * whatever has been renamed or swapped since it was opened. */
tack_status_t tack_file_replace_at(int dirfd, const char *path,
                                   const void *data, size_t len, mode_t mode,
                                   int sync);

/* tack_file_sync_fs makes every file written so far on the file system of
 * the directory |dir| durable with one syncfs(2), for a writer of many
 * files (a TackStore's signing pass, `tack sign -o DIR`): one call instead
 * of one fsync per file.  Returns 0, or -1 with errno set. */
int tack_file_sync_fs(const char *dir);

/* tack_file_sync_dir fsyncs the directory that holds |path|; returns 0, or
 * -1 with errno set.  File systems that cannot sync a directory (EINVAL)
 * count as success: the rename is then as durable as they make it. */
int tack_file_sync_dir(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* TACK_FILE_H */
