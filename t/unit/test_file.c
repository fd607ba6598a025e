/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_file.c -- tack_file.c: every file read and written; whole, without
 * blocking on a FIFO or a pseudo-file, atomically, relative to a directory
 * another user can write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "tests.h"
#include "tack_file.h"

/* ---- reading a file whole (tack_file_read) ------------------------------- */

/* Writes |len| bytes of |data| to a new temporary file; returns its path
 * (free with free() after unlink()). */
static char *temp_file(const void *data, size_t len)
{
    const char *dir = getenv("TMPDIR");
    char *path = malloc(4096);
    int fd;

    ck_assert_ptr_nonnull(path);
    snprintf(path, 4096, "%s/check_tack.XXXXXX",
             dir != NULL && *dir != '\0' ? dir : "/tmp");
    fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp %s: %s", path, strerror(errno));
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    ck_assert_int_eq(close(fd), 0);
    return path;
}

START_TEST(file_read_returns_the_whole_file_with_a_nul)
{
    static const char text[] = "Created by\n-----BEGIN TACK-----\n";
    char *path = temp_file(text, sizeof(text) - 1);
    char *out = NULL;
    size_t out_len = 0;

    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, sizeof(text) - 1);
    ck_assert_mem_eq(out, text, out_len);
    ck_assert_int_eq(out[out_len], '\0');
    free(out);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(file_read_of_a_vector_matches_stdio)
{
    char path[4096];
    size_t want_len, out_len = 0;
    char *want = tt_read_vector("draft00/TACK_Break_Sigs.pem", &want_len);
    char *out = NULL;

    tt_vector_path(path, sizeof(path), "draft00/TACK_Break_Sigs.pem");
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, want_len);
    ck_assert_mem_eq(out, want, want_len);
    free(out);
    free(want);
}
END_TEST

START_TEST(file_read_of_an_empty_file_is_empty)
{
    char *path = temp_file("", 0);
    char *out = NULL;
    size_t out_len = 1;

    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, 0);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(out[0], '\0');
    free(out);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(file_read_of_a_missing_file_is_an_io_error)
{
    char path[4096];
    char *out = NULL;
    size_t out_len = 0;

    tt_vector_path(path, sizeof(path), "draft00/no-such-file.pem");
    errno = 0;
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(file_read_of_a_directory_is_an_io_error)
{
    char path[4096];
    char *out = NULL;
    size_t out_len = 0;

    tt_vector_path(path, sizeof(path), "draft00");
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_IO);
}
END_TEST

/* A FIFO that nobody writes to must not block the caller (httpd -t would
 * hang on it), and a device that never ends must not be read at all. */
START_TEST(file_read_refuses_fifos_and_devices_without_blocking)
{
    char dir[] = "/tmp/tack-unit-fifo-XXXXXX", path[64];
    char *out = NULL;
    size_t out_len = 0;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/f.pem", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    alarm(5); /* a hang fails the test instead of the whole run */
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_NOT_REGULAR_FILE);
    ck_assert_status(
        tack_file_read("/dev/zero", TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_NOT_REGULAR_FILE);
    alarm(0);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* mounted(dir, magic): dir is a mount of that pseudo-filesystem.  A build
 * chroot (dpkg-buildpackage in debootstrap, sbuild) may have no /sys, or
 * no /proc: the package build's make check says so and goes on; make test
 * fails there. */
static int mounted(const char *dir, long magic)
{
    struct statfs fs;

    if (statfs(dir, &fs) == 0 && (long)fs.f_type == magic) {
        return 1;
    }
    /* make test requires both (TACK_TEST_PSEUDO_FS=required). */
    if (getenv("TACK_TEST_PSEUDO_FS") &&
        strcmp(getenv("TACK_TEST_PSEUDO_FS"), "required") == 0) {
        ck_abort_msg("%s is not mounted, and make test needs it", dir);
    }
    fprintf(stderr,
            "note: %s is not mounted here: its pseudo-file case of "
            "file_read_refuses_pseudo_filesystems_before_reading is "
            "not run\n",
            dir);
    return 0;
}

/* The "regular" files of proc and sysfs are kernel interfaces: /proc/kmsg
 * blocks in read() (as root it would also consume the kernel log), so they
 * are refused before they are opened. */
START_TEST(file_read_refuses_pseudo_filesystems_before_reading)
{
    char *out = NULL;
    size_t out_len = 0;

    alarm(5); /* a hang fails the test instead of the whole run */
    if (mounted("/proc", PROC_SUPER_MAGIC)) {
        ck_assert_status(
            tack_file_read("/proc/kmsg", TACK_FILE_MAX_DEFAULT, &out, &out_len),
            TACK_ERR_PSEUDO_FILE);
        ck_assert_status(tack_file_read("/proc/self/status",
                                        TACK_FILE_MAX_DEFAULT, &out, &out_len),
                         TACK_ERR_PSEUDO_FILE);
    }
    if (mounted("/sys", SYSFS_MAGIC)) {
        ck_assert_status(tack_file_read("/sys/kernel/uevent_seqnum",
                                        TACK_FILE_MAX_DEFAULT, &out, &out_len),
                         TACK_ERR_PSEUDO_FILE);
    }
    alarm(0);
    ck_assert_ptr_null(out);
}
END_TEST

START_TEST(file_read_refuses_files_over_the_maximum)
{
    char data[1000];
    char *path, *out = NULL;
    size_t out_len = 0;

    memset(data, 'a', sizeof(data));
    path = temp_file(data, sizeof(data));
    ck_assert_status(tack_file_read(path, 999, &out, &out_len),
                     TACK_ERR_FILE_TOO_LARGE);
    ck_assert_status(tack_file_read(path, 1, &out, &out_len),
                     TACK_ERR_FILE_TOO_LARGE);
    ck_assert_status(tack_file_read(path, 1000, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, 1000);
    free(out);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(file_read_with_a_maximum_of_zero_reads_only_empty_files)
{
    char *empty = temp_file("", 0), *one = temp_file("x", 1);
    char *out = NULL;
    size_t out_len = 0;

    ck_assert_status(tack_file_read(empty, 0, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, 0);
    free(out);
    out = NULL;
    ck_assert_status(tack_file_read(one, 0, &out, &out_len),
                     TACK_ERR_FILE_TOO_LARGE);
    unlink(one);
    unlink(empty);
    free(one);
    free(empty);
}
END_TEST

/* ---- writing files (tack_file.c: tack_file_commit, tack_file_sync_fs) ---- */

/* ut_dir makes a fresh directory; ut_rmdir removes it and what is in it
 * (plain files only). */
static char *ut_dir(void)
{
    static char dir[64];

    snprintf(dir, sizeof(dir), "/tmp/tack-unit-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

static void ut_rm(const char *dir, const char *name)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unlink(path);
}

static char *ut_text(const char *path)
{
    char *text = NULL;
    size_t len = 0;

    ck_assert_status(tack_file_read(path, 1024, &text, &len), TACK_OK);
    return text;
}

START_TEST(file_commit_puts_the_file_in_place_and_drops_the_temporary_name)
{
    char *dir = ut_dir(), path[256], *tmp = NULL, *text;

    snprintf(path, sizeof(path), "%s/a.tack.pem", dir);
    ck_assert_status(tack_file_write_temp(path, "new\n", 4, 0644, 0, &tmp),
                     TACK_OK);
    ck_assert_status(tack_file_commit(tmp, path, 0), TACK_OK);
    ck_assert_int_eq(access(tmp, F_OK), -1);
    text = ut_text(path);
    ck_assert_str_eq(text, "new\n");
    free(text);
    free(tmp);
    ck_assert_int_eq(tack_file_sync_dir(path), 0);
    ut_rm(dir, "a.tack.pem");
    rmdir(dir);
}
END_TEST

START_TEST(file_commit_without_replace_keeps_an_existing_file)
{
    char *dir = ut_dir(), path[256], *tmp = NULL, *text;

    snprintf(path, sizeof(path), "%s/a.tack.pem", dir);
    ck_assert_status(tack_file_replace(path, "old\n", 4, 0644, 0), TACK_OK);
    ck_assert_status(tack_file_write_temp(path, "new\n", 4, 0644, 0, &tmp),
                     TACK_OK);
    errno = 0;
    ck_assert_status(tack_file_commit(tmp, path, 0), TACK_ERR_IO);
    ck_assert_int_eq(errno, EEXIST);
    ck_assert_int_eq(access(tmp, F_OK), -1); /* removed on failure too */
    text = ut_text(path);
    ck_assert_str_eq(text, "old\n");
    free(text);
    free(tmp);
    /* With replace: the new one. */
    ck_assert_status(tack_file_write_temp(path, "new\n", 4, 0644, 0, &tmp),
                     TACK_OK);
    ck_assert_status(tack_file_commit(tmp, path, 1), TACK_OK);
    text = ut_text(path);
    ck_assert_str_eq(text, "new\n");
    free(text);
    free(tmp);
    ck_assert_status(tack_file_commit(NULL, path, 1), TACK_ERR_INVALID_ARG);
    ut_rm(dir, "a.tack.pem");
    rmdir(dir);
}
END_TEST

START_TEST(file_sync_fs_syncs_a_directory_and_refuses_a_missing_one)
{
    char *dir = ut_dir(), missing[256];

    ck_assert_int_eq(tack_file_sync_fs(dir), 0);
    snprintf(missing, sizeof(missing), "%s/missing", dir);
    errno = 0;
    ck_assert_int_eq(tack_file_sync_fs(missing), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(tack_file_sync_fs(NULL), -1);
    rmdir(dir);
}
END_TEST

/* ---- directories another user can write (tack_file.c: tack_file_read_at,
 * tack_dir_open, tack_file_replace_at) ---------------------------------- */

static void ut_path(char *out, size_t out_len, const char *dir,
                    const char *name)
{
    snprintf(out, out_len, "%s/%s", dir, name);
}

START_TEST(file_read_at_never_follows_a_link_nor_blocks_on_a_fifo)
{
    char *dir = ut_dir(), path[256], *text = NULL;
    struct stat sb;
    size_t len = 0;
    int fd;

    ut_path(path, sizeof(path), dir, "pubcert.pem");
    ck_assert_status(tack_file_replace(path, "cert\n", 5, 0644, 0), TACK_OK);
    ut_path(path, sizeof(path), dir, "zero.pem");
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    ut_path(path, sizeof(path), dir, "fifo.pem");
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    ut_path(path, sizeof(path), dir, "sub");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);

    ck_assert_status(
        tack_file_read_at(fd, "pubcert.pem", 1024, &text, &len, &sb), TACK_OK);
    ck_assert_str_eq(text, "cert\n");
    ck_assert(S_ISREG(sb.st_mode) && sb.st_uid == geteuid());
    free(text);
    /* a link is not followed, even to something harmless to open */
    errno = 0;
    ck_assert_status(tack_file_read_at(fd, "zero.pem", 1024, &text, &len, &sb),
                     TACK_ERR_NOT_REGULAR_FILE);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert(S_ISLNK(sb.st_mode));
    /* a FIFO nobody writes to: refused at once (the unit's timeout would
     * end a read that blocks) */
    ck_assert_status(tack_file_read_at(fd, "fifo.pem", 1024, &text, &len, NULL),
                     TACK_ERR_NOT_REGULAR_FILE);
    errno = 0;
    ck_assert_status(tack_file_read_at(fd, "sub", 1024, &text, &len, NULL),
                     TACK_ERR_IO);
    ck_assert_int_eq(errno, EISDIR);
    ck_assert_status(tack_file_read_at(fd, "pubcert.pem", 4, &text, &len, NULL),
                     TACK_ERR_FILE_TOO_LARGE);
    ck_assert_status(
        tack_file_read_at(fd, "missing.pem", 1024, &text, &len, NULL),
        TACK_ERR_IO);
    ck_assert_status(tack_file_read_at(fd, NULL, 1024, &text, &len, NULL),
                     TACK_ERR_INVALID_ARG);
    close(fd);
    ut_rm(dir, "pubcert.pem");
    ut_rm(dir, "zero.pem");
    ut_rm(dir, "fifo.pem");
    ut_path(path, sizeof(path), dir, "sub");
    rmdir(path);
    rmdir(dir);
}
END_TEST

START_TEST(dir_open_refuses_a_link_as_the_directory_and_one_others_could_make)
{
    char *dir = ut_dir(), real[256], lnk[256], via[256], through[256],
         seen[512];
    int fd;

    ut_path(real, sizeof(real), dir, "real");
    ut_path(lnk, sizeof(lnk), dir, "link");
    ut_path(via, sizeof(via), dir, "via");
    snprintf(through, sizeof(through), "%s/via/real", dir);
    ck_assert_int_eq(mkdir(real, 0755), 0);
    ck_assert_int_eq(symlink(real, lnk), 0);
    ck_assert_int_eq(symlink(".", via), 0);
    chmod(dir, 0755);

    fd = tack_dir_open(real, seen, sizeof(seen));
    ck_assert_int_ge(fd, 0);
    close(fd);
    /* the directory itself a link: refused, and named */
    errno = 0;
    ck_assert_int_eq(tack_dir_open(lnk, seen, sizeof(seen)), -1);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_str_eq(seen, lnk);
    if (geteuid() == 0) {
        /* a link on the way, in a directory only root can change: root's
         * own layout, followed */
        fd = tack_dir_open(through, seen, sizeof(seen));
        ck_assert_int_ge(fd, 0);
        close(fd);
    }
    /* ... but not where another user could have made it */
    chmod(dir, 0777);
    errno = 0;
    ck_assert_int_eq(tack_dir_open(through, seen, sizeof(seen)), -1);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_str_eq(seen, via);
    chmod(dir, 0700);
    errno = 0;
    ck_assert_int_eq(tack_dir_open("relative/path", NULL, 0), -1);
    ck_assert_int_eq(errno, EINVAL);
    ut_rm(dir, "link");
    ut_rm(dir, "via");
    rmdir(real);
    rmdir(dir);
}
END_TEST

START_TEST(file_replace_at_writes_where_the_directory_was_opened)
{
    char *dir = ut_dir(), store[256], moved[256], other[256], path[512], *text;
    int fd;

    ut_path(store, sizeof(store), dir, "store");
    ut_path(moved, sizeof(moved), dir, "moved");
    ut_path(other, sizeof(other), dir, "other");
    ck_assert_int_eq(mkdir(store, 0755), 0);
    ck_assert_int_eq(mkdir(other, 0700), 0);
    fd = tack_dir_open(store, NULL, 0);
    ck_assert_int_ge(fd, 0);
    /* the owner of the parent swaps the store for a link elsewhere */
    ck_assert_int_eq(rename(store, moved), 0);
    ck_assert_int_eq(symlink(other, store), 0);
    ck_assert_status(
        tack_file_replace_at(fd, "a.tack.pem", "tack\n", 5, 0644, 1), TACK_OK);
    snprintf(path, sizeof(path), "%s/a.tack.pem", other);
    ck_assert_int_eq(access(path, F_OK), -1);
    snprintf(path, sizeof(path), "%s/a.tack.pem", moved);
    text = ut_text(path);
    ck_assert_str_eq(text, "tack\n");
    free(text);
    ck_assert_int_eq(unlinkat(fd, "a.tack.pem", 0), 0);
    close(fd);
    rmdir(moved); /* empty: no temporary file left behind */
    ck_assert_int_eq(access(moved, F_OK), -1);
    ut_rm(dir, "store");
    rmdir(other);
    rmdir(dir);
}
END_TEST

Suite *file_suite(void)
{
    Suite *s = suite_create("file");
    TCase *read = tcase_create("read");
    TCase *write = tcase_create("write");

    tcase_add_test(read, file_read_returns_the_whole_file_with_a_nul);
    tcase_add_test(read, file_read_of_a_vector_matches_stdio);
    tcase_add_test(read, file_read_of_an_empty_file_is_empty);
    tcase_add_test(read, file_read_of_a_missing_file_is_an_io_error);
    tcase_add_test(read, file_read_of_a_directory_is_an_io_error);
    tcase_add_test(read, file_read_refuses_fifos_and_devices_without_blocking);
    tcase_add_test(read, file_read_refuses_pseudo_filesystems_before_reading);
    tcase_add_test(read, file_read_refuses_files_over_the_maximum);
    tcase_add_test(read,
                   file_read_with_a_maximum_of_zero_reads_only_empty_files);
    suite_add_tcase(s, read);

    tcase_add_test(
        write, file_commit_puts_the_file_in_place_and_drops_the_temporary_name);
    tcase_add_test(write, file_commit_without_replace_keeps_an_existing_file);
    tcase_add_test(write,
                   file_sync_fs_syncs_a_directory_and_refuses_a_missing_one);
    tcase_add_test(write,
                   file_read_at_never_follows_a_link_nor_blocks_on_a_fifo);
    tcase_add_test(
        write,
        dir_open_refuses_a_link_as_the_directory_and_one_others_could_make);
    tcase_add_test(write,
                   file_replace_at_writes_where_the_directory_was_opened);
    suite_add_tcase(s, write);
    return s;
}
