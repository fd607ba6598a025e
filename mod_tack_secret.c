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
#include <sys/prctl.h>
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

void mt_pw_end_group(void)
{
    mt_pw_reap_group(mt_pw_pgid);
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
    pid_t pid, signer = getpid();

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

        /* it dies with the signer, whatever ends the signer (SIGKILL
         * included, which leaves no handler to end the group) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != signer) {
            _exit(126);
        }
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

/* mt_sign_password: mod_tack_secret.h. */
const char *mt_sign_password(apr_pool_t *p, const char *src, const char *key,
                             char *buf, size_t *len)
{

    if (!strncmp(src, "file:", 5)) {
        return mt_pw_file(p, src + 5, buf, len);
    }
    if (!strncmp(src, "exec:", 5)) {
        return mt_pw_exec(p, src + 5, key, buf, len);
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

void mt_secret_register_hooks(apr_pool_t *p)
{
    ap_hook_child_init(mt_sign_child_init, NULL, NULL, APR_HOOK_REALLY_FIRST);
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

/* mt_pin_file_id returns what identifies the PIN file of |pw|'s current
 * version (device, inode, size, modification time), or "" when |pw| is
 * not a file: source: rewriting the file is trying again. */
static const char *mt_pin_file_id(apr_pool_t *p, const char *pw)
{
    struct stat sb;

    if (!pw || strncmp(pw, "file:", 5) || stat(pw + 5, &sb) != 0) {
        return "";
    }
    /* apr_psprintf knows APR_INT64_T_FMT, not %lld */
    return apr_psprintf(p,
                        "%lu %lu %" APR_INT64_T_FMT " %" APR_INT64_T_FMT
                        ".%09ld",
                        (unsigned long)sb.st_dev, (unsigned long)sb.st_ino,
                        (apr_int64_t)sb.st_size, (apr_int64_t)sb.st_mtim.tv_sec,
                        (long)sb.st_mtim.tv_nsec);
}

/* mt_pin_key_read reads the HMAC key from |path|: a regular file of
 * exactly TACK_PIN_KEY_LEN bytes, not a link.  Returns 1, or 0 with errno
 * (ENOENT: there is none yet). */
static int mt_pin_key_read(const char *path, uint8_t *key)
{
    struct stat sb;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        return 0;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        sb.st_size != TACK_PIN_KEY_LEN) {
        close(fd);
        errno = EINVAL;
        return 0;
    }
    n = read(fd, key, TACK_PIN_KEY_LEN);
    close(fd);
    return n == TACK_PIN_KEY_LEN;
}

/* mt_pin_key gets the HMAC key kept beside TackStateFile, made (random,
 * 0600) the first time.  Returns 1, or 0 (no memory of refusals then). */
static int mt_pin_key(apr_pool_t *p, uint8_t *key)
{
    const char *path = mt_memory_path(p, ".pin-key");
    int fd, ok;

    if (mt_pin_key_read(path, key)) {
        return 1;
    }
    if (errno != ENOENT || RAND_bytes(key, TACK_PIN_KEY_LEN) != 1) {
        return 0;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              0600);
    if (fd < 0) {
        /* another process made it meanwhile: its key is the key */
        return errno == EEXIST && mt_pin_key_read(path, key);
    }
    ok = write(fd, key, TACK_PIN_KEY_LEN) == TACK_PIN_KEY_LEN &&
         fsync(fd) == 0;
    if (close(fd) != 0 || !ok) {
        unlink(path);
        return 0;
    }
    return 1;
}

/* mt_pin_digest returns TACK_PIN_TAG and the HMAC of |pin| sent for the
 * key |keyname| with its password source |pw| and that source's identity,
 * or NULL when it cannot be made. */
const char *mt_pin_digest(apr_pool_t *p, const char *keyname, const char *pw,
                          const char *pin, size_t pin_len)
{
    uint8_t key[TACK_PIN_KEY_LEN], mac[EVP_MAX_MD_SIZE];
    char hex[2 * EVP_MAX_MD_SIZE + 1];
    const char *src = pw ? pw : "", *id = mt_pin_file_id(p, pw);
    OSSL_PARAM params[2];
    EVP_MAC *hmac = NULL;
    EVP_MAC_CTX *ctx = NULL;
    size_t mac_len = 0;
    int ok = 0;

    if (!mt_pin_key(p, key)) {
        return NULL;
    }
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
                                                 (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    /* every part with its terminating NUL: no two inputs run together */
    if ((hmac = EVP_MAC_fetch(NULL, "HMAC", NULL)) != NULL &&
        (ctx = EVP_MAC_CTX_new(hmac)) != NULL &&
        EVP_MAC_init(ctx, key, sizeof(key), params) &&
        EVP_MAC_update(ctx, (const uint8_t *)keyname, strlen(keyname) + 1) &&
        EVP_MAC_update(ctx, (const uint8_t *)src, strlen(src) + 1) &&
        EVP_MAC_update(ctx, (const uint8_t *)id, strlen(id) + 1) &&
        EVP_MAC_update(ctx, (const uint8_t *)pin, pin_len) &&
        EVP_MAC_final(ctx, mac, &mac_len, sizeof(mac)) &&
        tack_hex_encode(hex, sizeof(hex), mac, mac_len) == TACK_OK) {
        ok = 1;
    }
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(hmac);
    OPENSSL_cleanse(key, sizeof(key));
    ERR_clear_error();
    return ok ? apr_pstrcat(p, TACK_PIN_TAG, hex, NULL) : NULL;
}

static void mt_state_object_write(const char *path, json_t *root)
{
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);

    if (text) {
        tack_file_replace(path, text, strlen(text), 0600, 1);
        free(text);
    }
    json_decref(root);
}

/* mt_state_object reads a JSON object kept beside TackStateFile (an
 * empty one when there is none); mt_state_object_write writes it back. */
static json_t *mt_state_object(apr_pool_t *p, const char *path)
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
int mt_pin_refused(apr_pool_t *p, const char *uri, const char *id)
{
    json_t *root = mt_state_object(p, mt_memory_path(p, ".pin-refused"));
    const char *had = json_string_value(json_object_get(root, uri));
    int refused = had && id && strlen(had) == strlen(id) &&
                  !CRYPTO_memcmp(had, id, strlen(id));

    json_decref(root);
    return refused;
}

void mt_pin_note(apr_pool_t *p, const char *uri, const char *id,
                 int refused)
{
    const char *path = mt_memory_path(p, ".pin-refused");
    json_t *root = mt_state_object(p, path);

    if (refused) {
        json_object_set_new(root, uri, json_string(id));
    } else if (json_object_get(root, uri)) {
        json_object_del(root, uri);
    } else {
        json_decref(root);
        return;
    }
    mt_state_object_write(path, root);
}

/* ---- the signing key's public key, remembered --------------------------------
 * When the key cannot be used at a start (its signing host down), the
 * start still knows whose TACKs are its own and which names clients pinned
 * it for: the public key of its last successful load is remembered beside
 * TackStateFile (".signing-keys", JSON: key or URI -> public key in hex).
 * What the background signs is always signed with the key it loads. */

void mt_pub_remember(apr_pool_t *p, const char *key,
                     const uint8_t pub[TACK_KEY_LEN])
{
    const char *path = mt_memory_path(p, ".signing-keys");
    json_t *root = mt_state_object(p, path);
    char hex[2 * TACK_KEY_LEN + 1];

    if (tack_hex_encode(hex, sizeof(hex), pub, TACK_KEY_LEN) != TACK_OK ||
        (json_string_value(json_object_get(root, key)) &&
         !strcmp(json_string_value(json_object_get(root, key)), hex))) {
        json_decref(root);
        return;
    }
    json_object_set_new(root, key, json_string(hex));
    mt_state_object_write(path, root);
}

int mt_pub_recall(apr_pool_t *p, const char *key, uint8_t pub[TACK_KEY_LEN])
{
    json_t *root = mt_state_object(p, mt_memory_path(p, ".signing-keys"));
    const char *hex = json_string_value(json_object_get(root, key));
    int ok = hex && tack_hex_decode(pub, TACK_KEY_LEN, hex) == TACK_OK;

    json_decref(root);
    return ok;
}
