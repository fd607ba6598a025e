/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_sign.c -- TackSigningKey: the TACK follows the certificate.
 *
 * ACME clients (mod_md, certbot) make a new TLS key at every renewal, and a
 * TACK vouches for one key.  With TackSigningKey the parent signs, at every
 * start and graceful restart, a TACK for each certificate of an SSL vhost
 * that has no TACK from TackFile or TackStore, and anew one under its key
 * that would expire within 30 days; it writes each into the vhost's
 * TackStore when it can, so that the next pass verifies instead of
 * signing, backups and `tack check` see the same bytes, and a fleet can
 * share one store.
 *
 * The key: a TACKpy key file (its password from TackSigningPassword
 * file:/exec:/env:, never from httpd.conf) or a PKCS#11 URI (the PIN from
 * the same sources; the key stays in the token).  At its first use in a
 * configuration pass the parent forks a signer process, which fetches
 * the password, loads the key and then signs the TACKs the parent sends
 * it over a socket; the parent never holds the password, the scalar or
 * the token session (a provider and p11-kit keep state that a later pass of
 * a long-lived parent cannot rely on).  At the end of the pass
 * (mt_sign_end, from post_config, before any httpd child is forked) the
 * socket is closed and the signer frees the key and exits: no key
 * outlives the pass, none reaches an httpd child, and none is read
 * without the directive.  A handshake never signs: what is signed here is
 * served like any TACK, from bytes built now.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_file_info.h"
#include "apr_file_io.h"
#include "apr_strings.h"
#include "apr_thread_proc.h"

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "mod_tack_model.h"
#include "tack_pkcs11.h"

APLOG_USE_MODULE(tack);

/* A password or PIN longer than this is refused. */
#define TACK_PW_MAX 1024
/* How long an exec: program may take to print the password. */
#define TACK_PW_EXEC_SECS 30
/* How long the signer waits for the parent's next TACK. */
#define TACK_SIGNER_SECS 60
/* How long a configuration pass waits for its signers, all keys together:
 * their password programs (30 s each, at most) and tokens, and every
 * signature.  One budget: three keys whose programs hang cost it once,
 * not three times (a restart answers no new connection meanwhile). */
#define TACK_SIGN_PASS_SECS (TACK_PW_EXEC_SECS + 5)

/* One signing key of this pass: a TackSigningKey with its password
 * source, loaded once however many vhosts use it. */
typedef struct {
    const char *key; /* resolved path, or the pkcs11: URI */
    const char *pw;  /* TackSigningPassword, or NULL */
    const ap_directive_t *where;
    const ap_directive_t *pw_where;
    EVP_PKEY *pkey; /* in the signer process only */
    const char *error;
    int fd;    /* the parent's end of the signer's socket; -1: none */
    pid_t pid; /* the signer process, or 0 */
    uint8_t pub[TACK_KEY_LEN];
    char fingerprint[TACK_FINGERPRINT_SIZE];
    int nsigned, nwritten, nkept, nskipped;
    int reported; /* its error was counted under -t (once per key) */
} mt_signer_t;

/* The pass's state: its pool (a child of pconf, destroyed at the end of
 * the pass), the signers by "key\npassword source", and the TACKs signed,
 * by target hash and key, so that a certificate named by several vhosts
 * gets one TACK. */
static apr_pool_t *sign_pool;
static apr_hash_t *sign_signers;
static apr_hash_t *sign_done;
static apr_hash_t *sign_stores; /* store paths written to in this pass */
static long sign_deadline;      /* when the pass stops waiting for signers */
static apr_hash_t *sign_files;  /* store file written -> its TACK key */

static apr_status_t mt_sign_forget(void *unused)
{
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, sign_signers); hi; hi = apr_hash_next(hi)) {
        mt_signer_t *sg = apr_hash_this_val(hi);

        if (sg->fd >= 0) {
            close(sg->fd); /* the signer frees the key and exits */
            sg->fd = -1;
        }
        if (sg->pid > 0) {
            while (waitpid(sg->pid, NULL, 0) < 0 && errno == EINTR) {
            }
            sg->pid = 0;
        }
    }
    sign_pool = NULL;
    sign_signers = NULL;
    sign_done = NULL;
    sign_stores = NULL;
    sign_files = NULL;
    return APR_SUCCESS;
}

/* ---- passwords ----------------------------------------------------------- */

const char *mt_sign_pw_syntax(apr_pool_t *p, const char *arg)
{
    if ((!strncmp(arg, "file:", 5) || !strncmp(arg, "exec:", 5)) && arg[5]) {
        return NULL;
    }
    if (!strncmp(arg, "env:", 4) && arg[4]) {
        return NULL;
    }
    return apr_psprintf(p,
                        "TackSigningPassword %s: not a password source; "
                        "write file:PATH (a file only root can read), "
                        "exec:PROGRAM (prints it) or env:NAME -- never the "
                        "password itself",
                        strlen(arg) > 5 ? apr_pstrcat(p, apr_pstrndup(p, arg, 3),
                                                      "...", NULL)
                                        : arg);
}

/* mt_pw_file reads a password file that only its owner can read. */
static const char *mt_pw_file(apr_pool_t *p, const char *path, char *buf,
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

/* The password program of the signer process, while it runs: its process
 * group, ended with it whatever happens (mt_pw_exec, and the signer's
 * SIGTERM handler when the parent gives up on the signer). */
static volatile pid_t mt_pw_pgid;

static void mt_pw_reap_group(pid_t pgid)
{
    if (pgid > 0) {
        kill(-pgid, SIGKILL);
    }
}

/* mt_ms_left returns the milliseconds left until |deadline| (a
 * CLOCK_MONOTONIC time in ms), at least 0. */
static long mt_ms_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int mt_ms_left(long deadline)
{
    long left = deadline - mt_ms_now();

    return left < 0 ? 0 : (int)left;
}

/* mt_pw_exec runs |prog| with the key's path or URI as its argument and
 * takes the first line of its standard output, as mod_ssl's
 * SSLPassPhraseDialog exec: does.  Its standard error goes to the error
 * log.  It has TACK_PW_EXEC_SECS in all, from its start to its exit: it
 * runs in a process group of its own, which is killed at the deadline, and
 * at its exit too, so that nothing it started is left behind (a program
 * that prints the password and then waits would otherwise hold the
 * restart, and outlive it as an orphan running as root). */
static const char *mt_pw_exec(apr_pool_t *p, const char *prog, const char *key,
                              char *buf, size_t *len)
{
    long deadline = mt_ms_now() + TACK_PW_EXEC_SECS * 1000L;
    int out[2], status = 0, late = 0, eof = 0, done = 0;
    pid_t pid;

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
        int null = open("/dev/null", O_RDONLY);

        setpgid(0, 0);
        if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0) {
            _exit(126);
        }
        signal(SIGTERM, SIG_DFL);
        execl(prog, prog, key, (char *)NULL);
        fprintf(stderr, "exec:%s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
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
        siginfo_t si;

        /* WNOWAIT: the exited program stays a zombie, so its process
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
    /* The group goes at the deadline, and at the program's exit: what it
     * left running in the background is ended with it. */
    mt_pw_reap_group(pid);
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
        return apr_psprintf(p, "exec:%s: %s %d", prog,
                            WIFEXITED(status) ? "exited with status"
                                              : "killed by signal",
                            WIFEXITED(status) ? WEXITSTATUS(status)
                                              : WTERMSIG(status));
    }
    *len = tack_password_line(buf, *len);
    return NULL;
}

/* mt_sign_password fetches |sg|'s password into |buf| (TACK_PW_MAX). */
static const char *mt_sign_password(apr_pool_t *p, const mt_signer_t *sg,
                                    char *buf, size_t *len)
{
    const char *src = sg->pw;

    if (!strncmp(src, "file:", 5)) {
        return mt_pw_file(p, src + 5, buf, len);
    }
    if (!strncmp(src, "exec:", 5)) {
        return mt_pw_exec(p, src + 5, sg->key, buf, len);
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

/* mt_sign_child_init wipes, in a new httpd child, the value of every
 * variable a TackSigningPassword env: names: in place, so that neither a
 * request handler (mod_lua's os.getenv, a CGI's inherited environment) nor
 * /proc/PID/environ shows it.  Only the parent keeps it: every restart
 * reads it again. */
static void mt_sign_child_init(apr_pool_t *p, server_rec *s_main)
{
    server_rec *s;

    for (s = s_main; s; s = s->next) {
        const mt_conf_t *conf = mt_conf_get(s);
        char *v;

        if (conf->sign_pw && !strncmp(conf->sign_pw, "env:", 4) &&
            (v = getenv(conf->sign_pw + 4)) != NULL && *v) {
            OPENSSL_cleanse(v, strlen(v));
        }
    }
}

void mt_sign_register_hooks(apr_pool_t *p)
{
    ap_hook_child_init(mt_sign_child_init, NULL, NULL, APR_HOOK_REALLY_FIRST);
}

/* ---- loading the key ----------------------------------------------------- */

/* mt_signer_keyfile decrypts the TACKpy key file of |sg|. */
static const char *mt_signer_keyfile(apr_pool_t *p, mt_signer_t *sg,
                                     const char *pw, size_t pw_len)
{
    char labels[4][TACK_PEM_LABEL_SIZE];
    tack_keyfile_t kf;
    unsigned line = 0;
    tack_status_t st;
    const char *err;
    char *text;
    size_t len, n;

    if ((err = mt_read_text(p, "TackSigningKey", sg->key, &text, &len))) {
        return err;
    }
    st = tack_keyfile_from_pem(&kf, text, len, &line);
    n = tack_pem_labels(text, len, labels, 4);
    OPENSSL_cleanse(text, len);
    free(text);
    if ((st == TACK_ERR_PEM_NO_BLOCK || st == TACK_ERR_PEM_WRONG_LABEL) && n) {
        return apr_psprintf(p,
                            "TackSigningKey %s: not a TACK key: no \"%s\" "
                            "PEM block (it holds \"BEGIN %s\"; make a TACK "
                            "key with " TACK_PROG " genkey)",
                            sg->key, TACK_PEM_LABEL_KEY, labels[0]);
    }
    if (st != TACK_OK) {
        return mt_pem_error(p, "TackSigningKey", sg->key, st, line,
                            TACK_PEM_LABEL_KEY, TACK_KEYFILE_LEN);
    }
    st = tack_keyfile_decrypt(&kf, pw, pw_len, &sg->pkey);
    OPENSSL_cleanse(&kf, sizeof(kf));
    if (st == TACK_ERR_WRONG_PASSWORD) {
        return apr_psprintf(p,
                            "TackSigningKey %s: wrong password (from "
                            "TackSigningPassword %s)",
                            sg->key, sg->pw);
    }
    if (st != TACK_OK) {
        ERR_clear_error();
        return apr_psprintf(p, "TackSigningKey %s: %s", sg->key,
                            tack_status_str(st));
    }
    return NULL;
}

/* ---- PINs a token refused ---------------------------------------------------
 * A token counts wrong PINs and locks itself after a few: a wrong PIN in a
 * file must not be tried again at every configtest and restart.  A refusal
 * is remembered, beside TackStateFile (".pin-refused", root's only, JSON:
 * URI -> the PIN file's identity), until the PIN file changes; a login
 * that succeeds forgets it.  exec: and env: PINs are tried each time: no
 * file tells when they change. */

/* mt_pin_file_id returns what identifies the PIN file of |pw|'s current
 * version (device, inode, size, modification time), or NULL. */
static const char *mt_pin_file_id(apr_pool_t *p, const char *pw)
{
    struct stat sb;

    if (!pw || strncmp(pw, "file:", 5) || stat(pw + 5, &sb) != 0) {
        return NULL;
    }
    /* apr_psprintf knows APR_INT64_T_FMT, not %lld */
    return apr_psprintf(p,
                        "%s %lu %lu %" APR_INT64_T_FMT " %" APR_INT64_T_FMT
                        ".%09ld",
                        pw, (unsigned long)sb.st_dev, (unsigned long)sb.st_ino,
                        (apr_int64_t)sb.st_size, (apr_int64_t)sb.st_mtim.tv_sec,
                        (long)sb.st_mtim.tv_nsec);
}

static json_t *mt_pin_refusals(apr_pool_t *p, const char *path)
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

/* mt_pin_refused says whether the token refused |id|'s PIN for |uri| at
 * the last attempt; mt_pin_note records (|refused|) or forgets it. */
static int mt_pin_refused(apr_pool_t *p, const char *uri, const char *id)
{
    json_t *root = mt_pin_refusals(p, mt_guard_state_path(p, ".pin-refused"));
    const char *had = json_string_value(json_object_get(root, uri));
    int refused = had && id && !strcmp(had, id);

    json_decref(root);
    return refused;
}

static void mt_pin_note(apr_pool_t *p, const char *uri, const char *id,
                        int refused)
{
    const char *path = mt_guard_state_path(p, ".pin-refused");
    json_t *root = mt_pin_refusals(p, path);
    char *text;

    if (refused) {
        json_object_set_new(root, uri, json_string(id));
    } else if (json_object_get(root, uri)) {
        json_object_del(root, uri);
    } else {
        json_decref(root);
        return;
    }
    text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (text) {
        tack_file_replace(path, text, strlen(text), 0600, 1);
        free(text);
    }
    json_decref(root);
}

/* mt_signer_token loads a key that stays in a PKCS#11 token. */
static const char *mt_signer_token(apr_pool_t *p, mt_signer_t *sg,
                                   const char *pin, size_t pin_len)
{
    char why[TACK_PKCS11_ERR_SIZE];
    const char *id = mt_pin_file_id(p, sg->pw);
    tack_status_t st;

    if (id && mt_pin_refused(p, sg->key, id)) {
        return apr_psprintf(p,
                            "TackSigningKey %s: the token refused the PIN of "
                            "TackSigningPassword %s at the last attempt, and "
                            "the file has not changed since: not tried again "
                            "(a token locks itself after a few wrong PINs); "
                            "correct the file to try again",
                            sg->key, sg->pw);
    }
    why[0] = '\0';
    st = tack_pkcs11_load(sg->key, pin, pin_len, &sg->pkey, why, sizeof(why));
    if (id) {
        mt_pin_note(p, sg->key, id, st == TACK_ERR_WRONG_PASSWORD);
    }
    if (st != TACK_OK) {
        ERR_clear_error();
        return apr_psprintf(p, "TackSigningKey %s: %s%s", sg->key,
                            why[0] ? why : "cannot load the key",
                            sg->pw ? apr_psprintf(p, " (PIN from "
                                                     "TackSigningPassword %s)",
                                                  sg->pw)
                                   : "");
    }
    return NULL;
}

/* mt_signer_load loads |sg|'s key; returns NULL or why it cannot be
 * used.  The password is wiped before it returns. */
static const char *mt_signer_load(apr_pool_t *p, mt_signer_t *sg)
{
    char pw[TACK_PW_MAX];
    size_t pw_len = 0;
    const char *err = NULL;
    int uri = tack_key_is_uri(sg->key);

    if (sg->pw) {
        err = mt_sign_password(p, sg, pw, &pw_len);
        if (err) {
            err = apr_psprintf(p, "TackSigningPassword %s (" TACK_WHERE_FMT
                                  ") for TackSigningKey %s: %s",
                               sg->pw, TACK_WHERE(sg->pw_where), sg->key,
                               err);
        }
    } else if (!uri) {
        err = apr_psprintf(p,
                           "TackSigningKey %s: a TACK key file is encrypted; "
                           "say where its password comes from with "
                           "TackSigningPassword file:, exec: or env:",
                           sg->key);
    }
    if (!err) {
        err = uri ? mt_signer_token(p, sg, sg->pw ? pw : NULL, pw_len)
                  : mt_signer_keyfile(p, sg, pw, pw_len);
    }
    OPENSSL_cleanse(pw, sizeof(pw));
    if (!err && tack_key_public(sg->pkey, sg->pub) != TACK_OK) {
        err = apr_psprintf(p, "TackSigningKey %s: not a P-256 key", sg->key);
    }
    if (err) {
        EVP_PKEY_free(sg->pkey);
        sg->pkey = NULL;
        return err;
    }
    tack_fingerprint(sg->pub, sg->fingerprint);
    return NULL;
}

/* ---- the signer process ---------------------------------------------------- */

/* mt_io waits for |fd| and reads or writes all of |len| bytes, until
 * |deadline| (mt_ms_now's clock; 0: TACK_SIGNER_SECS for each wait, the
 * signer's side); returns 1, or 0 on EOF, an error or the time-out. */
static int mt_io(int fd, void *buf, size_t len, int writing, long deadline)
{
    uint8_t *p = buf;

    while (len > 0) {
        struct pollfd pfd = {fd, writing ? POLLOUT : POLLIN, 0};
        ssize_t n;
        int r = poll(&pfd, 1,
                     deadline ? mt_ms_left(deadline) : TACK_SIGNER_SECS * 1000);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return 0;
        }
        n = writing ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return 0;
        }
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

/* The signer's first answer: the key's public point, or why it has none. */
typedef struct {
    uint8_t ok;
    uint8_t pub[TACK_KEY_LEN];
    char error[1024];
} mt_signer_hello_t;

/* mt_signer_main is the signer process: it loads the key, says so, then
 * signs each TACK it is sent (166 bytes in, the 64-byte signature or
 * zeros out) until the parent closes the socket.  It never returns. */
static void mt_signer_main(mt_signer_t *sg, int fd)
{
    mt_signer_hello_t hello;
    apr_pool_t *p;
    const char *err;
    uint8_t raw[TACK_LEN];

    memset(&hello, 0, sizeof(hello));
    apr_pool_create(&p, NULL);
    err = p ? mt_signer_load(p, sg) : "out of memory";
    if (err) {
        apr_cpystrn(hello.error, err, sizeof(hello.error));
    } else {
        hello.ok = 1;
        memcpy(hello.pub, sg->pub, TACK_KEY_LEN);
    }
    if (mt_io(fd, &hello, sizeof(hello), 1, 0)) {
        while (hello.ok && mt_io(fd, raw, TACK_LEN, 0, 0)) {
            tack_t tack;

            if (tack_parse(&tack, raw, TACK_LEN) != TACK_OK ||
                tack_sign(&tack, sg->pkey) != TACK_OK) {
                memset(tack.signature, 0, TACK_SIG_LEN);
                ERR_clear_error();
            }
            if (!mt_io(fd, tack.signature, TACK_SIG_LEN, 1, 0)) {
                break;
            }
        }
    }
    EVP_PKEY_free(sg->pkey); /* OpenSSL wipes the private scalar */
    _exit(0);
}

/* mt_signer_on_term ends the signer when the parent gives up on it,
 * with its password program's process group. */
static void mt_signer_on_term(int sig)
{
    mt_pw_reap_group(mt_pw_pgid);
    _exit(1);
}

/* mt_signer_stop ends a signer the parent gives up on: SIGTERM first, so
 * that it kills its password program's group, then SIGKILL. */
static void mt_signer_stop(pid_t pid)
{
    int i;

    kill(pid, SIGTERM);
    for (i = 0; i < 50; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            return;
        }
        usleep(10000);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}

/* mt_signer_start forks the signer of |sg| and waits for its first
 * answer; returns NULL (the key is ready: sg->pub), or why not. */
static const char *mt_signer_start(apr_pool_t *p, mt_signer_t *sg)
{
    mt_signer_hello_t hello;
    int sv[2];
    pid_t pid;

    if (!mt_ms_left(sign_deadline)) {
        return apr_psprintf(p,
                            "TackSigningKey %s: not loaded: the %d seconds a "
                            "restart gives signing were spent by another "
                            "key's signer",
                            sg->key, TACK_SIGN_PASS_SECS);
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        return apr_psprintf(p, "TackSigningKey %s: socketpair: %s", sg->key,
                            strerror(errno));
    }
    pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return apr_psprintf(p, "TackSigningKey %s: fork: %s", sg->key,
                            strerror(errno));
    }
    if (pid == 0) {
        close(sv[0]);
        signal(SIGHUP, SIG_IGN); /* httpd's restart signals are the parent's */
        signal(SIGUSR1, SIG_IGN);
        signal(SIGTERM, mt_signer_on_term);
        mt_signer_main(sg, sv[1]);
    }
    close(sv[1]);
    sg->fd = sv[0];
    sg->pid = pid;
    if (!mt_io(sg->fd, &hello, sizeof(hello), 0, sign_deadline)) {
        mt_signer_stop(pid);
        sg->pid = 0;
        close(sg->fd);
        sg->fd = -1;
        return apr_psprintf(p,
                            "TackSigningKey %s: not loaded within the %d "
                            "seconds a restart gives signing (its password "
                            "program or token did not answer; the signer "
                            "and its password program were killed)",
                            sg->key, TACK_SIGN_PASS_SECS);
    }
    if (!hello.ok) {
        hello.error[sizeof(hello.error) - 1] = '\0';
        return apr_pstrdup(p, hello.error);
    }
    memcpy(sg->pub, hello.pub, TACK_KEY_LEN);
    tack_fingerprint(sg->pub, sg->fingerprint);
    return NULL;
}

/* mt_signer_sign has |tack| signed by |sg|'s process and checks the
 * signature; returns TACK_OK or why not. */
static tack_status_t mt_signer_sign(mt_signer_t *sg, tack_t *tack)
{
    uint8_t raw[TACK_LEN];

    memcpy(tack->public_key, sg->pub, TACK_KEY_LEN);
    tack_encode(tack, raw);
    if (sg->fd < 0) {
        return TACK_ERR_IO;
    }
    if (!mt_io(sg->fd, raw, TACK_LEN, 1, sign_deadline) ||
        !mt_io(sg->fd, tack->signature, TACK_SIG_LEN, 0, sign_deadline)) {
        /* gone, or the pass's time is up: no more waiting on it */
        close(sg->fd);
        sg->fd = -1;
        if (sg->pid > 0) {
            mt_signer_stop(sg->pid);
            sg->pid = 0;
        }
        return TACK_ERR_IO;
    }
    return tack_verify(tack);
}

/* mt_signer_get returns the signer of |conf| in this pass, loading its
 * key the first time; the reason it cannot be used is logged once (under
 * -t by the caller, as a problem). */
static mt_signer_t *mt_signer_get(server_rec *s, const mt_conf_t *conf)
{
    const char *id;
    mt_signer_t *sg;

    if (!sign_pool) {
        apr_pool_create(&sign_pool, s->process->pconf);
        apr_pool_tag(sign_pool, "tack_sign");
        sign_signers = apr_hash_make(sign_pool);
        sign_done = apr_hash_make(sign_pool);
        sign_files = apr_hash_make(sign_pool);
        sign_stores = apr_hash_make(sign_pool);
        sign_deadline = mt_ms_now() + TACK_SIGN_PASS_SECS * 1000L;
        apr_pool_cleanup_register(sign_pool, NULL, mt_sign_forget,
                                  apr_pool_cleanup_null);
    }
    id = apr_pstrcat(sign_pool, conf->sign_key, "\n",
                     conf->sign_pw ? conf->sign_pw : "", NULL);
    sg = apr_hash_get(sign_signers, id, APR_HASH_KEY_STRING);
    if (sg) {
        return sg;
    }
    sg = apr_pcalloc(sign_pool, sizeof(*sg));
    sg->key = conf->sign_key;
    sg->pw = conf->sign_pw;
    sg->where = conf->sign_key_where;
    sg->pw_where = conf->sign_pw_where;
    sg->fd = -1;
    apr_hash_set(sign_signers, id, APR_HASH_KEY_STRING, sg);
    sg->error = mt_signer_start(sign_pool, sg);
    if (sg->error && !mt_strict()) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00030: %s (" TACK_WHERE_FMT "); no TACK is signed "
                     "with it: every certificate without a TACK of its own "
                     "is served without one",
                     sg->error, TACK_WHERE(sg->where));
    }
    return sg;
}

/* ---- signing --------------------------------------------------------------- */

/* mt_sign_one signs a TACK for |cert| that expires with it (|expires|,
 * in minutes), writes it into the vhost's store, and returns its item; a
 * certificate already signed for in this pass gets the same TACK. */
static mt_item_t *mt_sign_one(apr_pool_t *p, server_rec *s,
                              const mt_conf_t *conf, mt_signer_t *sg,
                              const mt_certsel_t *cert, uint32_t expires,
                              int write)
{
    uint8_t id[TACK_HASH_LEN + TACK_KEY_LEN];
    const char *path = sg->key, *err = NULL;
    char vname[TACK_NAME_SIZE];
    mt_item_t *item;
    tack_t tack;

    memcpy(id, cert->hash, TACK_HASH_LEN);
    memcpy(id + TACK_HASH_LEN, sg->pub, TACK_KEY_LEN);
    if ((item = apr_hash_get(sign_done, id, sizeof(id)))) {
        return item;
    }
    memset(&tack, 0, sizeof(tack));
    tack.min_generation =
        (uint8_t)(conf->sign_gen == TACK_UNSET ? 0 : conf->sign_min_gen);
    tack.generation = (uint8_t)(conf->sign_gen == TACK_UNSET ? 0 : conf->sign_gen);
    tack.expiration = expires;
    memcpy(tack.target_hash, cert->hash, TACK_HASH_LEN);
    if (mt_signer_sign(sg, &tack) != TACK_OK) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00038: vhost %s: signing a TACK for %s with "
                     "TackSigningKey %s failed; it is served without one",
                     mt_vhost_name_buf(s, vname), cert->label, sg->key);
        ERR_clear_error();
        sg->nskipped++;
        return NULL;
    }
    if (write && conf->store && conf->store->loaded && !conf->store->error &&
        cert->x509) {
        const char *file;
        const uint8_t *other;

        err = mt_store_write(p, conf->store, cert->x509, &tack, &file);
        other =
            err ? NULL : apr_hash_get(sign_files, file, APR_HASH_KEY_STRING);
        if (other && !mt_key_equal(other, sg->pub)) {
            /* The file is the certificate's: two TackSigningKeys signing
             * for one certificate would take it from each other at every
             * pass.  The first keeps it. */
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00073: vhost %s: %s has TACKs from two "
                         "TackSigningKeys in this configuration; its "
                         "TackStore file %s keeps the first one's, the TACK "
                         "of %s is served from memory and signed again at "
                         "the next start: sign each certificate with one "
                         "key",
                         mt_vhost_name_buf(s, vname), cert->label, file,
                         sg->key);
            sg->nkept++;
        } else if (!err) {
            path = file;
            apr_hash_set(sign_files, file, APR_HASH_KEY_STRING,
                         apr_pmemdup(sign_pool, sg->pub, TACK_KEY_LEN));
            mt_store_replace_older(s, conf->store, &tack, file);
            sg->nwritten++;
            apr_hash_set(sign_stores, conf->store->path, APR_HASH_KEY_STRING,
                         "");
        } else {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00035: vhost %s: TackStore %s: %s; the TACK "
                         "signed for %s is served from memory and signed "
                         "again at the next start",
                         mt_vhost_name_buf(s, vname), conf->store->path, err,
                         cert->label);
            sg->nkept++;
        }
    } else {
        sg->nkept++;
    }
    item =
        mt_load_item(p, s, "TackSigningKey", path, conf->sign_key_where, &tack);
    apr_hash_set(sign_done, apr_pmemdup(sign_pool, id, sizeof(id)), sizeof(id),
                 item);
    sg->nsigned++;
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                 "TACK00031: vhost %s: signed a TACK for %s with "
                 "TackSigningKey %s (key %s, generation %u, expires %s, "
                 "with the certificate)%s%s",
                 mt_vhost_name_buf(s, vname), cert->label, sg->key,
                 item->fingerprint, tack.generation, item->expiry,
                 path != sg->key ? "; written to " : "",
                 path != sg->key ? path : "");
    return item;
}

/* mt_sign_cert decides for one certificate: sign when it has no TACK,
 * sign anew when its TACK under the signing key expires within 30 days
 * and the certificate lives longer; leave alone a certificate that has a
 * TACK under another key. */
static void mt_sign_cert(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                         mt_signer_t *sg, mt_certsel_t *cert, time_t now)
{
    char vname[TACK_NAME_SIZE], when[TACK_TIME_SIZE];
    time_t end;
    mt_item_t *item;
    long pinned = 0;
    int k, mine = -1;

    for (k = 0; k < cert->ntacks; k++) {
        if (mt_key_equal(cert->tacks[k]->tack.public_key, sg->pub)) {
            mine = k;
        }
    }
    if (cert->ntacks && mine < 0) {
        /* A TACK under another key is the vhost's own choice, unless
         * clients hold pins on this key here: then a TACK under another
         * key (a file dropped into the store) must not displace it without
         * a break signature or TackLetPinsLapse (the guard's memory). */
        pinned = mt_guard_pinned(s, conf, cert->key_type, sg->pub);
        if (!pinned) {
            return;
        }
    } else if (cert->ntacks && cert->tacks[mine]->expires - now >=
                                   TACK_EXPIRY_WARN_SECS) {
        return; /* a TACK of its own under this key */
    }
    if (tack_cert_end_time(cert->x509, &end) != TACK_OK) {
        end = 0; /* told as expired: nothing is signed for it */
    }
    if (end / 60 <= now / 60) {
        tack_time_format((uint32_t)(end / 60), when);
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00034: vhost %s: %s expired at %s; TackSigningKey "
                     "signs no TACK for it",
                     mt_vhost_name_buf(s, vname), cert->label, when);
        sg->nskipped++;
        return;
    }
    if (mine >= 0 && (uint32_t)(end / 60) <= cert->tacks[mine]->tack.expiration) {
        return; /* the certificate ends first: a new TACK would gain nothing */
    }
    item = mt_sign_one(p, s, conf, sg, cert, (uint32_t)(end / 60), !pinned);
    if (!item) {
        return;
    }
    if (pinned) {
        char fpr[TACK_FINGERPRINT_SIZE];

        tack_time_format((uint32_t)(pinned / 60), when);
        tack_fingerprint(cert->tacks[0]->tack.public_key, fpr);
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00067: vhost %s: %s %s holds a TACK for %s under "
                     "key %s, but clients pinned TackSigningKey's key %s "
                     "here (until %s): serving a TACK under %s, signed now "
                     "and kept in memory, instead; to change the TACK key, "
                     "serve a break signature for %s or record "
                     "\"TackLetPinsLapse %s\", and remove the file if it "
                     "is not yours",
                     mt_vhost_name_buf(s, vname), cert->tacks[0]->file->kind,
                     cert->tacks[0]->file->path, cert->label, fpr,
                     sg->fingerprint, when, sg->fingerprint, sg->fingerprint,
                     sg->fingerprint);
        cert->tacks[0] = item;
        cert->ntacks = 1;
        return;
    }
    if (mine >= 0) {
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                     "TACK00037: vhost %s: the TACK of %s %s expired at %s; "
                     "serving the one just signed instead",
                     mt_vhost_name_buf(s, vname), cert->tacks[mine]->file->kind,
                     cert->tacks[mine]->file->path, cert->tacks[mine]->expiry);
        cert->tacks[mine] = item;
    } else {
        cert->tacks[cert->ntacks++] = item;
    }
}

void mt_sign_vhost(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                   mt_sel_t *sel)
{
    char vname[TACK_NAME_SIZE];
    mt_signer_t *sg;
    time_t now = time(NULL);
    size_t j;
    int c;

    if (!conf->sign_key || !*conf->sign_key || mt_strict() || mt_quiet() ||
        !sel->ncerts) {
        return;
    }
    sg = mt_signer_get(s, conf);
    if (sg->error) {
        return;
    }
    for (j = 0; j < sel->nsigs; j++) {
        if (mt_key_equal(sel->sigs[j].public_key, sg->pub)) {
            /* the site has broken this key: it must not vouch with it */
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         "TACK00032: vhost %s: TackSigningKey %s (key %s) is "
                         "broken by a break signature in TackBreakSigsFile "
                         "%s; nothing is signed with it here",
                         mt_vhost_name_buf(s, vname), sg->key, sg->fingerprint,
                         sel->sigfiles[j]->path);
            return;
        }
    }
    for (c = 0; c < sel->ncerts; c++) {
        if (sel->certs[c].x509) {
            mt_sign_cert(p, s, conf, sg, &sel->certs[c], now);
        }
    }
}

const uint8_t *mt_sign_public(server_rec *s, const mt_conf_t *conf)
{
    mt_signer_t *sg;

    if (!conf->sign_key || !*conf->sign_key) {
        return NULL;
    }
    sg = mt_signer_get(s, conf);
    return sg->error ? NULL : sg->pub;
}

int mt_sign_check(apr_pool_t *ptemp, server_rec *s_main)
{
    server_rec *s;
    int problems = 0;

    for (s = s_main; s; s = s->next) {
        mt_conf_t *conf = mt_conf_get(s);
        mt_signer_t *sg;

        if (!conf->sign_key || !*conf->sign_key) {
            continue;
        }
        sg = mt_signer_get(s, conf);
        if (sg->error && !sg->reported) {
            sg->reported = 1;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         "TACK00033: %s (" TACK_WHERE_FMT ")", sg->error,
                         TACK_WHERE(sg->where));
            problems++;
        }
    }
    return problems;
}

void mt_sign_end(server_rec *s_main)
{
    apr_hash_index_t *hi;

    if (!sign_pool) {
        return;
    }
    for (hi = apr_hash_first(NULL, sign_signers); hi; hi = apr_hash_next(hi)) {
        const mt_signer_t *sg = apr_hash_this_val(hi);

        if (!sg->error && !mt_strict()) {
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s_main,
                         "TACK00036: TackSigningKey %s (key %s): %d TACK%s "
                         "signed, %d written to a TackStore, %d kept in "
                         "memory only, %d certificate%s left without one",
                         sg->key, sg->fingerprint, sg->nsigned,
                         sg->nsigned == 1 ? "" : "s", sg->nwritten, sg->nkept,
                         sg->nskipped, sg->nskipped == 1 ? "" : "s");
        }
    }
    /* what was written reaches the disk before the pass ends */
    for (hi = apr_hash_first(NULL, sign_stores); hi; hi = apr_hash_next(hi)) {
        tack_file_sync_fs(apr_hash_this_key(hi));
    }
    apr_pool_destroy(sign_pool); /* frees the keys: mt_sign_forget */
}
