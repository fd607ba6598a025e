/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_secret.c -- what TackSigningKey's signer (mod_tack_signer.c)
 * needs besides the key: TackSigningPassword's sources (file:, exec:,
 * env:, fetched in the signer process only; env: values wiped in every
 * httpd child), and the files kept for the signers beside TackStateFile,
 * each owned here alone: the PINs a token refused (".pin-refused", under
 * the HMAC key ".pin-key") and each key's public key from its last load
 * (".signing-keys").
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_strings.h"

#include <jansson.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "mod_tack_secret.h"
#include "mod_tack_memory.h"
#include "tack_util.h"
#include "tack_file.h"

APLOG_USE_MODULE(tack);

/* ---- passwords ----------------------------------------------------------- */

const char *mt_secret_pw_syntax(apr_pool_t *p, const char *arg)
{
    if ((!strncmp(arg, "file:", 5) || !strncmp(arg, "exec:", 5)) && arg[5]) {
        return NULL;
    }
    if (!strncmp(arg, "env:", 4) && arg[4]) {
        return NULL;
    }
    return apr_psprintf(
        p,
        "TackSigningPassword %s: not a password source; "
        "write file:PATH (a file only root can read), "
        "exec:PROGRAM (prints it) or env:NAME -- never the "
        "password itself",
        strlen(arg) > 5 ? apr_pstrcat(p, apr_pstrndup(p, arg, 3), "...", NULL)
                        : arg);
}

/* mt_secret_pw_file reads a password file that only its owner can read. */
static const char *mt_secret_pw_file(apr_pool_t *p, const char *path, char *buf,
                                     size_t *len)
{
    apr_finfo_t fi;
    char *text;
    size_t n;
    tack_status_t st;

    if (apr_stat(&fi, path, APR_FINFO_PROT, p) == APR_SUCCESS &&
        (fi.protection & (APR_GREAD | APR_WREAD | APR_GWRITE | APR_WWRITE))) {
        return apr_psprintf(p,
                            "file:%s can be read or written by %s; a password "
                            "file must be readable by root only (chmod 600)",
                            path,
                            fi.protection & (APR_WREAD | APR_WWRITE)
                                ? "everyone"
                                : "its group");
    }
    st = tack_file_read(path, TACK_PW_MAX - 1, &text, &n);
    if (st == TACK_ERR_FILE_TOO_LARGE) {
        return apr_psprintf(p, "file:%s: longer than %d bytes", path,
                            TACK_PW_MAX - 1);
    }
    if (st != TACK_OK) {
        return apr_psprintf(p, "file:%s: cannot read it: %s", path,
                            st == TACK_ERR_IO ? strerror(errno)
                                              : tack_status_str(st));
    }
    memcpy(buf, text, n);
    OPENSSL_cleanse(text, n);
    free(text);
    *len = n;
    *len = tack_password_line(buf, *len);
    return NULL;
}

/* The password program of the signer process, while it runs: the
 * reaper's process (mt_secret_pw_reaper), which is also its process group,
 * ended with everything it started whatever happens (mt_secret_pw_exec, and the
 * signer's SIGTERM handler when the parent gives up on the signer). */
static volatile pid_t mt_pw_pgid;

void mt_secret_pw_end_group(void)
{
    /* the reaper kills and reaps every descendant, then exits */
    if (mt_pw_pgid > 0) {
        kill(mt_pw_pgid, SIGTERM);
    }
}

/* mt_secret_pw_kill_children kills, with SIGKILL, every child of |self| that
 * /proc shows (PPid == self; a kernel without /proc/PID/task/TID/children
 * is common).  Async-signal-safe, nothing allocated: it runs in a process
 * forked from one that may have threads. */
static void mt_secret_pw_kill_children(pid_t self)
{
    long ents[4096 / sizeof(long)];
    char path[64], st[512];
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ssize_t n;

    if (dir < 0) {
        return;
    }
    while ((n = getdents64(dir, ents, sizeof(ents))) > 0) {
        ssize_t off = 0;

        while (off < n) {
            struct dirent64 *e =
                (struct dirent64 *)(void *)((char *)ents + off);
            const char *c, *close_paren = NULL;
            long pid = 0, ppid = 0;
            ssize_t len;
            int fd;

            off += e->d_reclen;
            for (c = e->d_name; *c >= '0' && *c <= '9'; c++) {
                pid = pid * 10 + (*c - '0');
            }
            if (*c || !pid || pid == self ||
                snprintf(path, sizeof(path), "/proc/%ld/stat", pid) < 0 ||
                (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
                continue;
            }
            len = read(fd, st, sizeof(st) - 1);
            close(fd);
            if (len <= 0) {
                continue;
            }
            st[len] = '\0';
            /* "PID (COMM) S PPID ...": COMM may hold anything, ')' too */
            for (c = st; *c; c++) {
                close_paren = *c == ')' ? c : close_paren;
            }
            if (!close_paren || strlen(close_paren) < 5) {
                continue;
            }
            for (c = close_paren + 4; *c >= '0' && *c <= '9'; c++) {
                ppid = ppid * 10 + (*c - '0');
            }
            if (ppid == self) {
                kill((pid_t)pid, SIGKILL);
            }
        }
    }
    close(dir);
}

/* mt_secret_pw_reaper is the process forked for a password program: it runs
 * |prog| as its child, its standard output |out_w|, and when the program
 * exits, or at SIGTERM (the signer's deadline, or the signer gone: its
 * parent-death signal), kills and reaps every descendant left, then
 * exits as the program did.  A child subreaper: whatever the program
 * started becomes its child when orphaned, even out of the process group
 * (setsid), and is found there.  Never httpd's parent: it would inherit
 * every orphan of every child (a daemonised CGI's, PHP's workers). */
static void mt_secret_pw_reaper(const char *prog, const char *key, int out_r,
                                int out_w, pid_t signer)
{
    sigset_t set, old;
    struct rlimit none = {0, 0};
    struct timespec tick = {0, 50000000};
    pid_t self = getpid(), pid, r;
    int status = 0, have = 0, st, term = 0;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old);
    signal(SIGCHLD, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != signer) {
        _exit(126);
    }
    setpgid(0, 0);
    close(out_r);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        _exit(126);
    }
    pid = fork();
    if (pid < 0) {
        _exit(126);
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);

        /* it dies with the reaper, whatever ends the reaper */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self) {
            _exit(126);
        }
        if (null < 0 || dup2(null, 0) < 0 || dup2(out_w, 1) < 0) {
            _exit(126);
        }
        signal(SIGTERM, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        execl(prog, prog, key, (char *)NULL);
        fprintf(stderr, "exec:%s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    close(out_w);
    while (!have && !term) {
        siginfo_t si;

        term = sigtimedwait(&set, &si, &tick) == SIGTERM;
        while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
            if (r == pid) {
                status = st;
                have = 1;
            }
        }
    }
    /* everything left: killed, and reaped, until there is no child; a
     * child's orphans are this process's before its exit can be reaped */
    for (;;) {
        mt_secret_pw_kill_children(self);
        r = waitpid(-1, &st, 0);
        if (r == pid && !have) {
            status = st;
            have = 1;
        }
        if (r < 0 && errno != EINTR) {
            break;
        }
    }
    if (term || !have) {
        _exit(125);
    }
    if (WIFSIGNALED(status)) {
        /* ended as the program was, without a core of the reaper */
        setrlimit(RLIMIT_CORE, &none);
        signal(WTERMSIG(status), SIG_DFL);
        sigemptyset(&set);
        sigprocmask(SIG_SETMASK, &set, NULL);
        raise(WTERMSIG(status));
        _exit(128 + WTERMSIG(status));
    }
    _exit(WEXITSTATUS(status));
}

/* mt_secret_pw_exec runs |prog| with the key's path or URI as its argument and
 * takes the first line of its standard output, as mod_ssl's
 * SSLPassPhraseDialog exec: does.  Its standard error goes to the error
 * log.  It has TACK_PW_EXEC_SECS in all, from its start to its exit.  It
 * runs under a reaper of its own (mt_secret_pw_reaper), which at its exit or at
 * the deadline ends everything it started, setsid or not: a program that
 * prints the password and then waits, or leaves a daemon behind, would
 * otherwise hold the restart, and outlive it as an orphan running as
 * root. */
static const char *mt_secret_pw_exec(apr_pool_t *p, const char *prog,
                                     const char *key, char *buf, size_t *len)
{
    long deadline = mt_ms_now() + TACK_PW_EXEC_SECS * 1000L, grace;
    int out[2], status = 0, late = 0, eof = 0, done = 0;
    pid_t pid, signer = getpid();
    siginfo_t si;

    *len = 0;
    if (pipe2(out, O_CLOEXEC) != 0) {
        return apr_psprintf(p, "exec:%s: cannot run it: pipe: %s", prog,
                            strerror(errno));
    }
    pid = fork();
    if (pid < 0) {
        close(out[0]);
        close(out[1]);
        return apr_psprintf(p, "exec:%s: cannot run it: fork: %s", prog,
                            strerror(errno));
    }
    if (pid == 0) {
        mt_secret_pw_reaper(prog, key, out[0], out[1], signer);
    }
    setpgid(pid, pid); /* as the reaper does: whichever runs first */
    mt_pw_pgid = pid;
    close(out[1]);
    while (!done) {
        struct pollfd pfd = {out[0], POLLIN, 0};
        int r =
            eof ? 0
                : poll(&pfd, 1,
                       mt_ms_left(deadline) < 50 ? mt_ms_left(deadline) : 50);
        if (r > 0) {
            ssize_t n = *len < TACK_PW_MAX - 1
                            ? read(out[0], buf + *len, TACK_PW_MAX - 1 - *len)
                            : 0;

            if (n > 0) {
                *len += (size_t)n;
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                eof = 1;
            }
        }
        /* WNOWAIT: the exited reaper stays a zombie, so its process
         * group's number cannot be reused before the group is killed. */
        memset(&si, 0, sizeof(si));
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid == pid) {
            done = 1;
        } else if (!mt_ms_left(deadline)) {
            late = 1;
            done = 1;
        } else if (eof) {
            usleep(10000);
        }
    }
    close(out[0]);
    if (late) {
        /* the reaper ends the program and what it started; 2 s for it */
        kill(pid, SIGTERM);
        grace = mt_ms_now() + 2000;
        do {
            memset(&si, 0, sizeof(si));
            if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
                    0 &&
                si.si_pid == pid) {
                break;
            }
            usleep(10000);
        } while (mt_ms_left(grace));
    }
    /* what is left of the reaper's group, if anything */
    kill(-pid, SIGKILL);
    mt_pw_pgid = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (late) {
        return apr_psprintf(p,
                            "exec:%s: did not %s within %d seconds; it and "
                            "what it started were killed",
                            prog, *len ? "exit" : "answer", TACK_PW_EXEC_SECS);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return apr_psprintf(
            p, "exec:%s: %s %d", prog,
            WIFEXITED(status) ? "exited with status" : "killed by signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    *len = tack_password_line(buf, *len);
    return NULL;
}

const char *mt_secret_password(apr_pool_t *p, const char *src, const char *key,
                               char *buf, size_t *len)
{

    if (!strncmp(src, "file:", 5)) {
        return mt_secret_pw_file(p, src + 5, buf, len);
    }
    if (!strncmp(src, "exec:", 5)) {
        return mt_secret_pw_exec(p, src + 5, key, buf, len);
    }
    if (!getenv(src + 4)) {
        return apr_psprintf(p,
                            "env:%s: httpd's environment has no such "
                            "variable (on Debian, export it in "
                            "/etc/apache2/envvars)",
                            src + 4);
    }
    *len = strlen(getenv(src + 4));
    if (*len >= TACK_PW_MAX) {
        return apr_psprintf(p, "env:%s: longer than %d bytes", src + 4,
                            TACK_PW_MAX - 1);
    }
    memcpy(buf, getenv(src + 4), *len);
    return NULL;
}

/* mt_secret_child_init wipes, in a new httpd child, the value of every
 * variable a TackSigningPassword env: names: in place, so that neither a
 * request handler (mod_lua's os.getenv, a CGI's inherited environment) nor
 * /proc/PID/environ shows it.  Only the parent keeps it: every restart
 * reads it again. */
static void mt_secret_child_init(apr_pool_t *p, server_rec *s_main)
{
    server_rec *s;

    for (s = s_main; s; s = s->next) {
        const char *pw = mt_conf_sign(mt_conf_get(s))->pw;
        char *v;

        if (pw && !strncmp(pw, "env:", 4) && (v = getenv(pw + 4)) != NULL &&
            *v) {
            OPENSSL_cleanse(v, strlen(v));
        }
    }
}

void mt_secret_register_hooks(apr_pool_t *p)
{
    ap_hook_child_init(mt_secret_child_init, NULL, NULL, APR_HOOK_REALLY_FIRST);
}

/* ---- PINs a token refused ---------------------------------------------------
 * A token counts wrong PINs and locks itself after a few (smart cards and
 * PIV tokens after 3), and in the fleet recipe one token serves every
 * server: a PIN the token refused must not be sent again at every
 * TackSigningRetry, restart and configtest.  A refusal is remembered
 * beside TackStateFile (".pin-refused", root's only, JSON: URI -> a keyed
 * hash of the PIN and of where it came from), whatever its source (file:,
 * exec:, env:, the URI's pin-source), until the PIN, its source or the
 * configuration changes; a login that succeeds forgets it.  The hash is an
 * HMAC-SHA-256 under a random key kept beside it (".pin-key", root's
 * only): never the PIN, nor anything a short PIN could be found from
 * without the key. */

/* The HMAC key's size, and a digest's as stored ("hmac-sha256:" + hex). */
#define TACK_PIN_KEY_LEN 32
#define TACK_PIN_TAG "hmac-sha256:"
/* An entry of .pin-refused: TACK_PIN_TAG and the PIN's HMAC, then which
 * key made it and a hash of the PIN's source, so that an entry made under
 * a key that is gone is still known for what it is. */
#define TACK_PIN_KEY_PART " key:"
#define TACK_PIN_SRC_PART " source:"

/* mt_secret_pin_file_id returns what identifies the PIN file of |pw|'s current
 * version (device, inode, size, modification time), or "" when |pw| is
 * not a file: source: rewriting the file is trying again. */
static const char *mt_secret_pin_file_id(apr_pool_t *p, const char *pw)
{
    struct stat sb;

    if (!pw || strncmp(pw, "file:", 5) || stat(pw + 5, &sb) != 0) {
        return "";
    }
    /* apr_psprintf knows APR_INT64_T_FMT, not %lld */
    return apr_psprintf(
        p, "%lu %lu %" APR_INT64_T_FMT " %" APR_INT64_T_FMT ".%09ld",
        (unsigned long)sb.st_dev, (unsigned long)sb.st_ino,
        (apr_int64_t)sb.st_size, (apr_int64_t)sb.st_mtim.tv_sec,
        (long)sb.st_mtim.tv_nsec);
}

/* mt_secret_pin_key_read reads the HMAC key from |path|: a regular file of
 * exactly TACK_PIN_KEY_LEN bytes, not a link, this process's user's and
 * mode 0600.  Returns 1; or 0 with |*what| NULL (there is none yet), or
 * what is wrong with the file that is there. */
static int mt_secret_pin_key_read(apr_pool_t *p, const char *path, uint8_t *key,
                                  const char **what)
{
    struct stat sb;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    *what = NULL;
    if (fd < 0) {
        if (errno == ENOENT) {
            return 0;
        }
        *what = errno == ELOOP
                    ? "a symbolic link"
                    : apr_psprintf(p, "cannot be opened: %s", strerror(errno));
        return 0;
    }
    if (fstat(fd, &sb) != 0) {
        *what = apr_psprintf(p, "fstat: %s", strerror(errno));
    } else if (S_ISDIR(sb.st_mode)) {
        *what = "a directory";
    } else if (!S_ISREG(sb.st_mode)) {
        *what = S_ISFIFO(sb.st_mode) ? "a FIFO" : "not a regular file";
    } else if (sb.st_uid != geteuid()) {
        *what =
            apr_psprintf(p, "owned by uid %lu, not %lu",
                         (unsigned long)sb.st_uid, (unsigned long)geteuid());
    } else if ((sb.st_mode & 07777) != 0600) {
        *what = apr_psprintf(p, "mode %04o, not 0600",
                             (unsigned)(sb.st_mode & 07777));
    } else if (sb.st_size != TACK_PIN_KEY_LEN) {
        *what = apr_psprintf(p, "%" APR_INT64_T_FMT " bytes, not %d",
                             (apr_int64_t)sb.st_size, TACK_PIN_KEY_LEN);
    } else if ((n = read(fd, key, TACK_PIN_KEY_LEN)) != TACK_PIN_KEY_LEN) {
        *what = n < 0 ? apr_psprintf(p, "read: %s", strerror(errno))
                      : "shorter than its size";
    }
    close(fd);
    if (*what) {
        OPENSSL_cleanse(key, TACK_PIN_KEY_LEN);
        return 0;
    }
    return 1;
}

/* mt_secret_state_object reads a JSON object kept beside TackStateFile (an
 * empty one when there is none); mt_secret_state_object_write writes it back.
 */
static json_t *mt_secret_state_object(apr_pool_t *p, const char *path)
{
    char *text = NULL;
    size_t len;
    json_t *root = NULL;

    if (tack_file_read(path, 1 << 20, &text, &len) == TACK_OK) {
        root = json_loadb(text, len, 0, NULL);
        free(text);
    }
    if (!json_is_object(root)) {
        json_decref(root);
        root = json_object();
    }
    return root;
}

static void mt_secret_state_object_write(const char *path, json_t *root)
{
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);

    if (text) {
        tack_file_replace(path, text, strlen(text), 0600, 1);
        free(text);
    }
    json_decref(root);
}

/* mt_secret_pin_key_orphan marks each entry of .pin-refused made before the
 * key had its name in entries (an earlier mod_tack's) as made under a key
 * that is gone: the new key cannot recognise its PIN. */
static void mt_secret_pin_key_orphan(apr_pool_t *p)
{
    const char *path = mt_memory_path(p, ".pin-refused");
    json_t *root = mt_secret_state_object(p, path), *v;
    const char *uri;
    int changed = 0;

    json_object_foreach(root, uri, v)
    {
        const char *had = json_string_value(v);

        if (had && !strstr(had, TACK_PIN_KEY_PART)) {
            json_object_set_new(root, uri,
                                json_string(apr_pstrcat(
                                    p, had, TACK_PIN_KEY_PART "gone", NULL)));
            changed = 1;
        }
    }
    if (changed) {
        mt_secret_state_object_write(path, root);
    } else {
        json_decref(root);
    }
}

/* mt_secret_pin_key gets the HMAC key kept beside TackStateFile, made (random,
 * 0600) the first time, and made anew, logged, when the file there cannot
 * be used.  Returns 1, or 0 with |*why|: then no PIN can be checked
 * against the refusals remembered, and none is to be sent (a token locks
 * itself after a few wrong ones). */
static int mt_secret_pin_key(apr_pool_t *p, uint8_t *key, const char **why)
{
    const char *path = mt_memory_path(p, ".pin-key"), *what, *now = NULL;
    char *tmp = NULL;
    int err = 0, made, rnd;

    if (mt_secret_pin_key_read(p, path, key, &what)) {
        return 1;
    }
    /* A new key: written whole beside it, then put in place, a missing
     * one with link (a key another signer made meanwhile wins), an
     * unusable one with rename (which never replaces a directory) */
    rnd = RAND_bytes(key, TACK_PIN_KEY_LEN) == 1;
    made = rnd && tack_file_write_temp(path, key, TACK_PIN_KEY_LEN, 0600, 1,
                                       &tmp) == TACK_OK;
    err = made || !rnd ? 0 : errno;
    OPENSSL_cleanse(key, TACK_PIN_KEY_LEN);
    if (made) {
        made = tack_file_commit(tmp, path, what != NULL) == TACK_OK ||
               (!what && errno == EEXIST);
        err = made ? 0 : errno;
        free(tmp);
        tack_file_sync_dir(path);
    }
    if (made && mt_secret_pin_key_read(p, path, key, &now)) {
        if (what) {
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, ap_server_conf,
                         "TACK00150: %s: cannot be used as the key of the "
                         "PINs a token refused (%s): replaced by a new key. "
                         "A PIN refused under the old key is not sent again "
                         "until the configuration or the PIN's source "
                         "changes (to send it once more, remove its URI's "
                         "line from %s)",
                         path, what, mt_memory_path(p, ".pin-refused"));
        }
        mt_secret_pin_key_orphan(p);
        return 1;
    }
    *why =
        apr_psprintf(p,
                     "%s: %s, and no new key could be put in its place "
                     "(%s): no PIN is sent to the token until it is "
                     "removed, since a PIN the token refused could not be "
                     "recognised",
                     path, what ? what : "missing",
                     err   ? strerror(err)
                     : now ? apr_pstrcat(p, "the file put there is ", now, NULL)
                           : "no random bytes");
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, ap_server_conf, "TACK00151: %s",
                 *why);
    return 0;
}

/* mt_secret_pin_hmac writes into |hex| (2 * EVP_MAX_MD_SIZE + 1) the
 * HMAC-SHA-256 under |key| of the |n| NUL-terminated strings |parts|, each with
 * its NUL (no two inputs run together) but the last, |last_len| bytes.  Returns
 * 1 or 0. */
static int mt_secret_pin_hmac(const uint8_t *key, const char *const *parts,
                              int n, size_t last_len, char *hex)
{
    uint8_t mac[EVP_MAX_MD_SIZE];
    OSSL_PARAM params[2];
    EVP_MAC *hmac = NULL;
    EVP_MAC_CTX *ctx = NULL;
    size_t mac_len = 0;
    int i, ok;

    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
                                                 (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    ok = (hmac = EVP_MAC_fetch(NULL, "HMAC", NULL)) != NULL &&
         (ctx = EVP_MAC_CTX_new(hmac)) != NULL &&
         EVP_MAC_init(ctx, key, TACK_PIN_KEY_LEN, params);
    for (i = 0; ok && i < n; i++) {
        ok = EVP_MAC_update(ctx, (const uint8_t *)parts[i],
                            i == n - 1 ? last_len : strlen(parts[i]) + 1);
    }
    ok = ok && EVP_MAC_final(ctx, mac, &mac_len, sizeof(mac)) &&
         tack_hex_encode(hex, 2 * EVP_MAX_MD_SIZE + 1, mac, mac_len) == TACK_OK;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(hmac);
    OPENSSL_cleanse(mac, sizeof(mac));
    ERR_clear_error();
    return ok;
}

/* The entry is the HMAC of |pin| sent
 * for |keyname| from |pw| with that source's identity, then the key's own
 * name (an HMAC of a constant, 16 hex digits) and a plain SHA-256 of the
 * source and its identity (no secret in it: the configuration's words and
 * a file's inode and time). */
const char *mt_secret_pin_digest(apr_pool_t *p, const char *keyname,
                                 const char *pw, const char *pin,
                                 size_t pin_len, const char **why)
{
    uint8_t key[TACK_PIN_KEY_LEN], md[EVP_MAX_MD_SIZE];
    char mac[2 * EVP_MAX_MD_SIZE + 1], kid[2 * EVP_MAX_MD_SIZE + 1];
    char src_hex[2 * EVP_MAX_MD_SIZE + 1];
    const char *src = pw ? pw : "", *id = mt_secret_pin_file_id(p, pw);
    const char *parts[4] = {keyname, src, id, pin};
    const char *name[1] = {"mod_tack .pin-key"};
    const char *source = apr_pstrcat(p, src, "\n", id, NULL);
    unsigned int md_len = 0;
    int ok;

    if (!mt_secret_pin_key(p, key, why)) {
        return NULL;
    }
    ok = mt_secret_pin_hmac(key, parts, 4, pin_len, mac) &&
         mt_secret_pin_hmac(key, name, 1, strlen(name[0]), kid) &&
         EVP_Digest(source, strlen(source), md, &md_len, EVP_sha256(), NULL) &&
         tack_hex_encode(src_hex, sizeof(src_hex), md, md_len) == TACK_OK;
    OPENSSL_cleanse(key, sizeof(key));
    ERR_clear_error();
    if (!ok) {
        *why = "the keyed hash of the PIN cannot be made (OpenSSL)";
        return NULL;
    }
    kid[16] = '\0';
    return apr_pstrcat(p, TACK_PIN_TAG, mac, TACK_PIN_KEY_PART, kid,
                       TACK_PIN_SRC_PART, src_hex, NULL);
}

/* mt_secret_pin_part returns what follows |part| in the entry |e| up to the
 * next space, or "" when it has none. */
static const char *mt_secret_pin_part(apr_pool_t *p, const char *e,
                                      const char *part)
{
    const char *at = strstr(e, part);

    if (!at) {
        return "";
    }
    at += strlen(part);
    return apr_pstrndup(p, at, strcspn(at, " "));
}

/* An entry made under another key
 * cannot say which PIN it was: it counts as refused while the source is
 * the same (an earlier mod_tack's entries name neither: their key is
 * "gone" once a new one is made, mt_secret_pin_key_orphan). */
int mt_secret_pin_refused(apr_pool_t *p, const char *uri, const char *id,
                          const char **gone)
{
    const char *path = mt_memory_path(p, ".pin-refused");
    json_t *root = mt_secret_state_object(p, path);
    const char *had = json_string_value(json_object_get(root, uri));
    const char *had_key, *had_src;
    int refused = 0;

    if (had && id) {
        had_key = mt_secret_pin_part(p, had, TACK_PIN_KEY_PART);
        had_src = mt_secret_pin_part(p, had, TACK_PIN_SRC_PART);
        if (strlen(had) == strlen(id) && !CRYPTO_memcmp(had, id, strlen(id))) {
            refused = 1;
        } else if (!*had_key && strlen(had) < strlen(id) &&
                   !CRYPTO_memcmp(id, had, strlen(had)) &&
                   id[strlen(had)] == ' ') {
            refused = 1; /* an earlier mod_tack's entry, under this key */
        } else if (*had_key &&
                   strcmp(had_key,
                          mt_secret_pin_part(p, id, TACK_PIN_KEY_PART)) &&
                   (!*had_src ||
                    !strcmp(had_src,
                            mt_secret_pin_part(p, id, TACK_PIN_SRC_PART)))) {
            refused = 1;
            *gone = apr_psprintf(
                p,
                "it was remembered under a key that is gone (%s was "
                "replaced), so the PIN cannot be compared; to send it once "
                "more, remove the URI's line from %s",
                mt_memory_path(p, ".pin-key"), path);
        }
    }
    json_decref(root);
    return refused;
}

void mt_secret_pin_note(apr_pool_t *p, const char *uri, const char *id,
                        int refused)
{
    const char *path = mt_memory_path(p, ".pin-refused");
    json_t *root = mt_secret_state_object(p, path);

    if (refused) {
        json_object_set_new(root, uri, json_string(id));
    } else if (json_object_get(root, uri)) {
        json_object_del(root, uri);
    } else {
        json_decref(root);
        return;
    }
    mt_secret_state_object_write(path, root);
}

/* ---- the signing key's public key, remembered
 * -------------------------------- When the key cannot be used at a start (its
 * signing host down), the start still knows whose TACKs are its own and which
 * names clients pinned it for: the public key of its last successful load is
 * remembered beside TackStateFile (".signing-keys", JSON: key or URI -> public
 * key in hex). What the background signs is always signed with the key it
 * loads. */

void mt_secret_pub_remember(apr_pool_t *p, const char *key,
                            const uint8_t pub[TACK_KEY_LEN])
{
    const char *path = mt_memory_path(p, ".signing-keys");
    json_t *root = mt_secret_state_object(p, path);
    char hex[2 * TACK_KEY_LEN + 1];

    if (tack_hex_encode(hex, sizeof(hex), pub, TACK_KEY_LEN) != TACK_OK ||
        (json_string_value(json_object_get(root, key)) &&
         !strcmp(json_string_value(json_object_get(root, key)), hex))) {
        json_decref(root);
        return;
    }
    json_object_set_new(root, key, json_string(hex));
    mt_secret_state_object_write(path, root);
}

int mt_secret_pub_recall(apr_pool_t *p, const char *key,
                         uint8_t pub[TACK_KEY_LEN])
{
    json_t *root =
        mt_secret_state_object(p, mt_memory_path(p, ".signing-keys"));
    const char *hex = json_string_value(json_object_get(root, key));
    int ok = hex && tack_hex_decode(pub, TACK_KEY_LEN, hex) == TACK_OK;

    json_decref(root);
    return ok;
}
