/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_state.c -- `tack state` (docs/tack.1): show the module's state
 * file (TackStateFile: the TACK keys each vhost served with pin activation,
 * tack_state.h), and date it back with --redate when it was written while
 * the clock ran ahead (TACK00064).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tack_cli.h"
#include "tack_ext.h"
#include "tack_file.h"
#include "tack_state.h"

/* The module reads at most this much (mod_tack_guard.c, TACK_STATE_MAX). */
#define CLI_STATE_MAX (64 * 1024 * 1024)
/* How long --redate waits for the lock a starting httpd holds while it
 * writes the file (as long as httpd waits for another writer). */
#define CLI_STATE_LOCK_MS (10 * 1000)

static void state_unlock(int fd)
{
    if (fd >= 0) {
        close(fd);
    }
}

/* state_link_refused says that --redate does not follow the link |path|
 * and returns CLI_EXIT_USAGE. */
static int state_link_refused(const char *path)
{
    cli_err("%s: a symbolic link, not followed (the module does not read "
            "one either, TACK00045); nothing changed: name the file itself",
            path);
    return CLI_EXIT_USAGE;
}

/* state_read_own reads the state file |path| that --redate rewrites, as
 * the module reads it (TACK00045): a symbolic link is not followed
 * (tack_file_read_at: the name itself, opened with O_NOFOLLOW), for the
 * rename that replaces the file would replace the link with a regular file
 * and leave its target as it was.  Returns CLI_EXIT_OK, or says why and
 * returns CLI_EXIT_USAGE with nothing changed. */
static int state_read_own(const char *path, char **text, size_t *len)
{
    tack_status_t st;

    errno = 0;
    st = tack_file_read_at(AT_FDCWD, path, CLI_STATE_MAX, text, len, NULL);
    if (st == TACK_OK) {
        return CLI_EXIT_OK;
    }
    if (st == TACK_ERR_NOT_REGULAR_FILE && errno == ELOOP) {
        return state_link_refused(path);
    } else if (st == TACK_ERR_IO) {
        cli_err("%s: %s; nothing changed", path,
                errno ? strerror(errno) : "cannot read");
    } else {
        cli_err("%s: %s; nothing changed", path, tack_status_str(st));
    }
    return CLI_EXIT_USAGE;
}

/* state_show prints |st|'s entries, pins judged at |now|. */
static void state_show(const tack_state_t *st, time_t now)
{
    char when[32], first[32], last[32], until[32];
    size_t i, j;

    cli_format_time((time_t)tack_state_written(st), 0, when, sizeof(when));
    printf("written = %s\n", when);
    for (i = 0; i < tack_state_count(st); i++) {
        const tack_state_key_t *keys;
        const char *id;
        size_t n;

        if (!tack_state_entry(st, i, &id, &keys, &n)) {
            printf("%s: malformed (the module leaves it out)\n",
                   id ? id : "(a name that is not a vhost's)");
            continue;
        }
        printf("%s\n", id);
        for (j = 0; j < n; j++) {
            char fpr[TACK_FINGERPRINT_SIZE];
            long end = tack_state_pins_until(&keys[j], (long)now);

            tack_fingerprint(keys[j].key, fpr);
            cli_format_time((time_t)keys[j].first_seen, 0, first,
                            sizeof(first));
            cli_format_time((time_t)keys[j].last_served, 0, last, sizeof(last));
            cli_format_time((time_t)end, 0, until, sizeof(until));
            if (!keys[j].activation) {
                printf("  %s  first seen %s, served with activation off, "
                       "no pins",
                       fpr, first);
            } else {
                printf("  %s  first seen %s, last served %s%s, pins %s %s", fpr,
                       first, last, keys[j].serving ? " (serving)" : "",
                       end > (long)now ? "until" : "lapsed at", until);
            }
            if (keys[j].min_generation > 0) {
                printf(", min_generation %d", keys[j].min_generation);
            }
            if (keys[j].bad_time) {
                printf(" (a time outside 1970 to 9999: the module counts it "
                       "as pinned for 30 days, TACK00144)");
            }
            putchar('\n');
        }
    }
}

int cmd_state(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"redate", no_argument, NULL, 'r'},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *path;
    char *text = NULL, *out, err[64], clock[32], ahead_s[32];
    size_t len = 0, changed;
    tack_state_t *st;
    tack_status_t rc;
    int c, redate = 0, ret, lockfd = -1, replaced = 0;
    struct stat sb;
    time_t now;
    long ahead;

    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            redate = 1;
            break;
        case CLI_OPT_NOW:
            if (cli_opt_now("state", optarg) != CLI_EXIT_OK) {
                return CLI_EXIT_USAGE;
            }
            break;
        case 'h':
            return cli_help(stdout, "state");
        default:
            return cli_usage_hint("state");
        }
    }
    if (optind != argc - 1) {
        return cli_usage_error("state", "want one state file");
    }
    path = argv[optind];
    if (redate && strcmp(path, "-") == 0) {
        return cli_usage_error("state", "--redate rewrites FILE: name the "
                                        "file, not - (standard input)");
    }
    if (redate && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        return state_link_refused(path); /* before its lock file is made */
    }
    if (redate &&
        (lockfd = tack_state_lock(path, CLI_STATE_LOCK_MS, &replaced)) < 0) {
        /* httpd writes the file at the end of a start under this lock:
         * dating it back meanwhile would lose one of the two writes */
        cli_err("%s: cannot take the state file's lock, %s%s (%s); nothing "
                "changed: try again once the server has started",
                path, path, TACK_STATE_LOCK_SUFFIX,
                errno == EWOULDBLOCK ? "another writer, a starting httpd, held "
                                       "it for 10 seconds"
                : errno == EPERM     ? "not a regular file of yours, mode "
                                       "0600, and it cannot be replaced"
                                     : strerror(errno));
        return CLI_EXIT_USAGE;
    }
    if (replaced) {
        cli_warn("%s%s: the lock file was not a regular file of yours, mode "
                 "0600 (whoever can open it can hold it); replaced",
                 path, TACK_STATE_LOCK_SUFFIX);
    }
    ret = redate ? state_read_own(path, &text, &len)
                 : cli_read_file_max(path, CLI_STATE_MAX, &text, &len);
    if (ret != CLI_EXIT_OK) {
        state_unlock(lockfd);
        return ret;
    }
    rc = tack_state_parse(text, len, &st, err, sizeof(err));
    free(text);
    if (rc != TACK_OK) {
        state_unlock(lockfd);
        cli_err("%s: not a version 1 state file (%s)", path,
                rc == TACK_ERR_NOT_STATE_FILE ? err : tack_status_str(rc));
        return CLI_EXIT_USAGE;
    }
    now = cli_now();
    cli_format_time(now, 0, clock, sizeof(clock));
    ahead = tack_state_ahead(st, (long)now);
    if (ahead) {
        cli_format_time((time_t)ahead, 0, ahead_s, sizeof(ahead_s));
    }
    if (!redate) {
        state_show(st, now);
        tack_state_free(st);
        if (ahead) {
            cli_warn("%s: it holds a time (%s) later than the clock (%s): if "
                     "the clock is right, `" TACK_PROG
                     " state --redate %s` dates it back",
                     path, ahead_s, clock, path);
            return CLI_EXIT_CHECK;
        }
        return CLI_EXIT_OK;
    }
    if (!ahead) {
        cli_done("%s: nothing in it is later than the clock (%s); left as it "
                 "is",
                 path, clock);
        tack_state_free(st);
        state_unlock(lockfd);
        return CLI_EXIT_OK;
    }
    changed = tack_state_redate(st, (long)now);
    out = tack_state_dump(st);
    tack_state_free(st);
    if (out == NULL) {
        cli_err("%s: out of memory", path);
        state_unlock(lockfd);
        return CLI_EXIT_USAGE;
    }
    ret = cli_write_atomic(path, out, strlen(out), 0644);
    free(out);
    state_unlock(lockfd);
    if (ret != CLI_EXIT_OK) {
        return ret;
    }
    cli_done("%s: dated back from %s to the clock (%s): %zu key%s counted as "
             "served until now, pins as long as clients can hold them; "
             "restart the server to use it",
             path, ahead_s, clock, changed, changed == 1 ? "" : "s");
    return CLI_EXIT_OK;
}
