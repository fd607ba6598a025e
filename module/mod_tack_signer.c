/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_signer.c -- TackSigningKey's key, in a process of its own.
 *
 * The key: a TACKpy key file (its password from TackSigningPassword
 * file:/exec:/env:, never from httpd.conf) or a PKCS#11 URI (the PIN from
 * the same sources; the key stays in the token).  At its first use in a
 * configuration pass the parent forks a signer process, which fetches the
 * password, loads the key and then signs the TACKs it is sent over a
 * socket; the parent never holds the password, the scalar or the token
 * session (a provider and p11-kit keep state that a later pass of a
 * long-lived parent cannot rely on).  A signer lives as long as the pool
 * of the signers of its time (mt_signers_t.pool): the parent's ends close at
 * the end of the pass (mt_signer_close_all, from post_config, before any
 * httpd child is forked); the background process (mod_tack_background.c)
 * inherits the signers that are up and keeps them until the end of its
 * round.  A signer dies with the process that started it, and no httpd
 * child ever holds a key.  The password sources and the files kept beside
 * TackStateFile for the signers are mod_tack_secret.c's.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_portable.h"
#include "apr_strings.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "mod_tack_signer.h"
#include "mod_tack_load.h"
#include "mod_tack_secret.h"
#include "tack_key.h"
#include "tack_pem.h"
#include "tack_keyfile.h"
#include "tack_pkcs11.h"

APLOG_USE_MODULE(tack);

/* One budget for a pass's signers (TackSigningWait): three keys whose
 * password programs hang cost a restart once, not three times (it answers
 * no new connection meanwhile).  A signing host back up is used within
 * TackSigningRetry.  A signer's first answer waits for the password
 * program's own deadline and the token's login. */

/* How long the signer waits for the parent's next TACK. */
#define TACK_SIGNER_SECS 60

/* The signers of the generation (mt_gen_t.signers, mod_tack_signer.c):
 * the parent's during a pass, the background process's own after it
 * (in_agent).  |pool|, a child of pconf, holds the signers of this time --
 * a pass, or one background round -- found by "key\npassword source";
 * destroying it (mt_signer_close_all) ends the signers and empties those
 * members.  The deadline is when waiting for signers stops (mt_ms_now),
 * the budget the seconds up to it, for messages. */
struct mt_signers {
    apr_pool_t *pool;
    apr_hash_t *signers;
    long deadline;
    int budget;
    int in_agent; /* 1 in the background process */
};
typedef struct mt_signers mt_signers_t;

void mt_signer_gen_init(mt_gen_t *gen)
{
    gen->signers = apr_pcalloc(gen->pconf, sizeof(*gen->signers));
}

static mt_signers_t *mt_signer_part(void)
{
    return mt_gen()->signers;
}

apr_hash_t *mt_signer_all(void)
{
    return mt_signer_part()->signers;
}

int mt_signer_ms_left(void)
{
    return mt_ms_left(mt_signer_part()->deadline);
}

void mt_signer_in_background(void)
{
    mt_signer_part()->in_agent = 1;
}

/* mt_signer_forget_all ends this time's signers (their pool's cleanup): the
 * socket closed, each frees its key and exits. */
static apr_status_t mt_signer_forget_all(void *unused)
{
    mt_signers_t *sgs = mt_signer_part();
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, sgs->signers); hi; hi = apr_hash_next(hi)) {
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
    sgs->pool = NULL;
    sgs->signers = NULL;
    return APR_SUCCESS;
}

/* The main server's TackSigningWait and TackSigningRetry. */
int mt_signer_wait_secs(void)
{
    int v = mt_main_conf()->sign_wait;

    return v == TACK_UNSET ? TACK_SIGN_WAIT_SECS : v;
}

int mt_signer_retry_secs(void)
{
    int v = mt_main_conf()->sign_retry;

    return v == TACK_UNSET ? TACK_SIGN_RETRY_SECS : v;
}

int mt_signer_retry_max_secs(void)
{
    int v = mt_main_conf()->sign_retry_max;

    return v == TACK_UNSET ? TACK_SIGN_RETRY_MAX_SECS : v;
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

/* mt_signer_token loads a key that stays in a PKCS#11 token, with |pin|
 * or the URI's own pin-source; a PIN the token refused at the last
 * attempt is not sent again (mt_secret_pin_refused). */
static const char *mt_signer_token(apr_pool_t *p, mt_signer_t *sg,
                                   const char *pin, size_t pin_len)
{
    char why[TACK_PKCS11_ERR_SIZE], own[TACK_PKCS11_PIN_SIZE];
    const char *digest = NULL, *from = NULL, *unusable = NULL, *gone = NULL;
    size_t own_len = 0;
    tack_status_t st;
    int refused;

    if (tack_pkcs11_uri_has_pin(sg->key)) {
        /* the PIN the load will send: the URI's comes first */
        if (tack_pkcs11_uri_pin(sg->key, own, sizeof(own), &own_len, why,
                                sizeof(why)) == TACK_OK &&
            own_len) {
            digest = mt_secret_pin_digest(p, sg->key, sg->pw, own, own_len,
                                          &unusable);
        }
        OPENSSL_cleanse(own, sizeof(own));
        from = "the URI's pin-source";
    } else if (pin && pin_len) {
        digest =
            mt_secret_pin_digest(p, sg->key, sg->pw, pin, pin_len, &unusable);
        from = apr_pstrcat(p, "TackSigningPassword ", sg->pw, NULL);
    }
    if (unusable) {
        /* fail closed: a PIN the token refused would not be recognised */
        return apr_psprintf(p,
                            "TackSigningKey %s: no PIN is sent to the token "
                            "(from %s): the record of the PINs it refused "
                            "cannot be used: %s",
                            sg->key, from, unusable);
    }
    refused = digest ? mt_secret_pin_refused(p, sg->key, digest, &gone) : 0;
    if (refused) {
        return apr_psprintf(p,
                            "TackSigningKey %s: the token refused %s PIN "
                            "(from %s) at the last attempt, and %s since: not "
                            "tried again (a token locks itself after a few "
                            "wrong PINs); %s",
                            sg->key, gone ? "a" : "this", from,
                            gone ? "neither its source nor the configuration "
                                   "has changed"
                                 : "neither the PIN nor the configuration has "
                                   "changed",
                            gone ? gone : "correct the PIN to try again");
    }
    /* httpd's environment must not choose the module (the signer
     * inherits it): unset in this process, said at each load */
    if (tack_pkcs11_env_module(why, sizeof(why))) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, ap_server_conf,
                     "TACK00140: TackSigningKey %s: %s=%s in httpd's "
                     "environment is ignored: the PKCS#11 module is the "
                     "URI's module-path or module-name (p11-kit's proxy when "
                     "it names none)",
                     sg->key, TACK_PKCS11_ENV_MODULE, why);
    }
    why[0] = '\0';
    st = tack_pkcs11_load(sg->key, pin, pin_len, &sg->pkey, why, sizeof(why));
    /* the signing host's condition, not the configuration's */
    sg->transient = st == TACK_ERR_TOKEN_UNREACHABLE;
    if (digest) {
        mt_secret_pin_note(p, sg->key, digest, st == TACK_ERR_WRONG_PASSWORD);
    }
    if (st != TACK_OK) {
        ERR_clear_error();
        return apr_psprintf(p, "TackSigningKey %s: %s%s", sg->key,
                            why[0] ? why : "cannot load the key",
                            sg->pw ? apr_psprintf(p,
                                                  " (PIN from "
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
        err = mt_secret_password(p, sg->pw, sg->key, pw, &pw_len);
        if (err) {
            err = apr_psprintf(p,
                               "TackSigningPassword %s (" TACK_WHERE_FMT
                               ") for TackSigningKey %s: %s",
                               sg->pw, TACK_WHERE(sg->pw_where), sg->key, err);
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

/* ---- the signer process ----------------------------------------------------
 */

/* mt_signer_io waits for |fd| and reads or writes all of |len| bytes, until
 * |deadline| (mt_ms_now's clock; 0: TACK_SIGNER_SECS for each wait, the
 * signer's side); returns 1, or 0 on EOF, an error or the time-out. */
static int mt_signer_io(int fd, void *buf, size_t len, int writing,
                        long deadline)
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
    uint8_t transient; /* the error is the token's connection's */
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
        hello.transient = (uint8_t)sg->transient;
    } else {
        hello.ok = 1;
        memcpy(hello.pub, sg->pub, TACK_KEY_LEN);
    }
    if (mt_signer_io(fd, &hello, sizeof(hello), 1, 0)) {
        while (hello.ok && mt_signer_io(fd, raw, TACK_LEN, 0, 0)) {
            tack_t tack;

            if (tack_parse(&tack, raw, TACK_LEN) != TACK_OK ||
                tack_sign(&tack, sg->pkey) != TACK_OK) {
                memset(tack.signature, 0, TACK_SIG_LEN);
                ERR_clear_error();
            }
            if (!mt_signer_io(fd, tack.signature, TACK_SIG_LEN, 1, 0)) {
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
    mt_secret_pw_end_group();
    _exit(1);
}

/* SIGTERM first, so that it kills its password program's group, then
 * SIGKILL. */
void mt_signer_stop(pid_t pid)
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

/* mt_signer_close_fds closes the descriptors |lo| to |hi|: close_range(2)
 * (Linux 5.9), or each in turn up to the process's limit. */
static void mt_signer_close_fds(unsigned lo, unsigned hi)
{
    long max;
    unsigned fd;

    if (lo > hi || close_range(lo, hi, 0) == 0) {
        return;
    }
    max = sysconf(_SC_OPEN_MAX);
    for (fd = lo; fd <= hi && (max < 0 || (long)fd < max); fd++) {
        close((int)fd);
    }
}

/* mt_signer_close_inherited closes, in a new signer, every descriptor but
 * standard input, output and error, |own| (its socket) and the main
 * server's error log (a token's warning is logged from here: TACK00140).
 * What it inherited is not its own: httpd's listening sockets, the MPM's
 * pipe, a TackStore's directory, the background's; a PKCS#11 module's
 * code runs in this process, and a password program is forked from it. */
static void mt_signer_close_inherited(int own)
{
    apr_os_file_t log = -1;
    int a = own, b;

    if (ap_server_conf && ap_server_conf->error_log) {
        apr_os_file_get(&log, ap_server_conf->error_log);
    }
    b = log > 2 ? log : own;
    if (b < a) {
        a = b;
        b = own;
    }
    mt_signer_close_fds(3, (unsigned)a - 1);
    mt_signer_close_fds((unsigned)a + 1, (unsigned)b - 1);
    mt_signer_close_fds((unsigned)b + 1, ~0U);
}

const char *mt_signer_spawn(mt_signer_t *sg)
{
    mt_signers_t *sgs = mt_signer_part();
    apr_pool_t *p = sgs->pool;
    int sv[2];
    pid_t pid, starter = getpid();

    if (!sgs->in_agent && !sgs->budget) {
        /* TackSigningWait 0: by choice, not a failure (mt_signer_get) */
        return apr_psprintf(p,
                            "TackSigningKey %s: left to the background: a "
                            "start does not wait for signing "
                            "(TackSigningWait 0)",
                            sg->key);
    }
    if (!mt_ms_left(sgs->deadline)) {
        return apr_psprintf(p,
                            "TackSigningKey %s: not tried: the %d seconds "
                            "a restart waits for signing (TackSigningWait) "
                            "were spent by another key's signer",
                            sg->key, sgs->budget);
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
        mt_signer_close_inherited(sv[1]);
        signal(SIGHUP, SIG_IGN); /* httpd's restart signals are the parent's */
        signal(SIGUSR1, SIG_IGN);
        signal(SIGTERM, mt_signer_on_term);
        /* It dies with whoever started it (the parent during a pass, the
         * background after it), even killed with SIGKILL: a signer of a
         * process gone would hold the password and the token session for
         * nobody, stuck in a token call as long as the token is.  SIGTERM:
         * its handler ends its password program's group too. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != starter) {
            mt_signer_on_term(SIGTERM);
        }
        prctl(PR_SET_NAME, "tack-signer", 0, 0, 0);
        mt_signer_main(sg, sv[1]);
    }
    close(sv[1]);
    sg->fd = sv[0];
    sg->pid = pid;
    return NULL;
}

const char *mt_signer_hello(mt_signer_t *sg)
{
    mt_signers_t *sgs = mt_signer_part();
    apr_pool_t *p = sgs->pool;
    mt_signer_hello_t hello;

    if (!mt_signer_io(sg->fd, &hello, sizeof(hello), 0, sgs->deadline)) {
        sg->transient = 1;
        mt_signer_stop(sg->pid);
        sg->pid = 0;
        close(sg->fd);
        sg->fd = -1;
        return apr_psprintf(p,
                            "TackSigningKey %s: no answer within %d seconds%s "
                            "(its password program or token did not answer; "
                            "the signer and its password program were "
                            "killed)",
                            sg->key, sgs->budget,
                            sgs->in_agent ? ""
                                          : ", the time a restart "
                                            "waits for signing "
                                            "(TackSigningWait)");
    }
    if (!hello.ok) {
        hello.error[sizeof(hello.error) - 1] = '\0';
        sg->transient = hello.transient;
        close(sg->fd); /* the signer exits */
        sg->fd = -1;
        while (waitpid(sg->pid, NULL, 0) < 0 && errno == EINTR) {
        }
        sg->pid = 0;
        return apr_pstrdup(p, hello.error);
    }
    memcpy(sg->pub, hello.pub, TACK_KEY_LEN);
    tack_fingerprint(sg->pub, sg->fingerprint);
    sg->pub_known = 1;
    return NULL;
}

const char *mt_signer_start(mt_signer_t *sg)
{
    const char *err = mt_signer_spawn(sg);

    return err ? err : mt_signer_hello(sg);
}

tack_status_t mt_signer_sign(mt_signer_t *sg, tack_t *tack)
{
    mt_signers_t *sgs = mt_signer_part();
    uint8_t raw[TACK_LEN];

    memcpy(tack->public_key, sg->pub, TACK_KEY_LEN);
    tack_encode(tack, raw);
    if (sg->fd < 0) {
        return TACK_ERR_IO;
    }
    if (!mt_signer_io(sg->fd, raw, TACK_LEN, 1, sgs->deadline) ||
        !mt_signer_io(sg->fd, tack->signature, TACK_SIG_LEN, 0,
                      sgs->deadline)) {
        /* gone, or the time is up: no more waiting on it */
        sg->error =
            mt_ms_left(sgs->deadline)
                ? apr_psprintf(sgs->pool,
                               "TackSigningKey %s: the signer ended "
                               "while signing (the token or its "
                               "connection failed)",
                               sg->key)
                : apr_psprintf(sgs->pool,
                               "TackSigningKey %s: no answer within "
                               "%d seconds%s (a signing host or "
                               "token that does not answer)",
                               sg->key, sgs->budget,
                               sgs->in_agent ? ""
                                             : " (TackSigningWait: the rest "
                                               "is signed in the background)");
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

/* mt_signer_id names the signer of |conf|: its key and password source. */
static const char *mt_signer_id(apr_pool_t *p, const mt_conf_t *conf)
{
    const mt_sign_conf_t *sign = mt_conf_sign(conf);

    return apr_pstrcat(p, sign->key, "\n", sign->pw ? sign->pw : "", NULL);
}

mt_signer_t *mt_signer_add(server_rec *s, const mt_conf_t *conf, int *created)
{
    mt_signers_t *sgs = mt_signer_part();
    const mt_sign_conf_t *sign = mt_conf_sign(conf);
    const char *id;
    mt_signer_t *sg;

    *created = 0;

    if (!sgs->pool) {
        apr_pool_create(&sgs->pool, s->process->pconf);
        apr_pool_tag(sgs->pool, "tack_sign");
        sgs->signers = apr_hash_make(sgs->pool);
        if (!sgs->in_agent) {
            /* apache2 -t holds no restart: with TackSigningWait 0 it
             * still checks the key, in the time one signature may take */
            mt_signer_allow(mt_strict() ? mt_signer_answer_secs()
                                        : mt_signer_wait_secs());
        }
        apr_pool_cleanup_register(sgs->pool, NULL, mt_signer_forget_all,
                                  apr_pool_cleanup_null);
    }
    id = mt_signer_id(sgs->pool, conf);
    sg = apr_hash_get(sgs->signers, id, APR_HASH_KEY_STRING);
    if (sg) {
        return sg;
    }
    sg = apr_pcalloc(sgs->pool, sizeof(*sg));
    sg->key = sign->key;
    sg->pw = sign->pw;
    sg->where = sign->key_where;
    sg->pw_where = sign->pw_where;
    sg->fd = -1;
    apr_hash_set(sgs->signers, id, APR_HASH_KEY_STRING, sg);
    *created = 1;
    return sg;
}

/* Under -t the caller logs the error, as a problem. */
mt_signer_t *mt_signer_get(server_rec *s, const mt_conf_t *conf)
{
    mt_signers_t *sgs = mt_signer_part();
    int created;
    mt_signer_t *sg = mt_signer_add(s, conf, &created);

    if (!created) {
        return sg;
    }
    sg->error = mt_signer_start(sg);
    if (!sgs->in_agent) {
        if (!sg->error && !mt_strict()) {
            mt_secret_pub_remember(sgs->pool, sg->key, sg->pub);
        } else if (sg->error && (!mt_strict() || sg->transient)) {
            sg->pub_recalled =
                mt_secret_pub_recall(sgs->pool, sg->key, sg->pub);
            if (sg->pub_recalled) {
                tack_fingerprint(sg->pub, sg->fingerprint);
            }
        }
    }
    if (sg->error && !mt_strict() && !sgs->in_agent && sgs->budget) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00030: %s (" TACK_WHERE_FMT "); the start does "
                     "not wait for it: every certificate without a TACK is "
                     "served without one until the background signs it "
                     "(tried again every %d seconds)",
                     sg->error, TACK_WHERE(sg->where), mt_signer_retry_secs());
    }
    return sg;
}

void mt_signer_allow(int secs)
{
    mt_signers_t *sgs = mt_signer_part();
    sgs->budget = secs;
    sgs->deadline = mt_ms_now() + secs * 1000L;
}

int mt_signer_answer_secs(void)
{
    int wait = mt_signer_wait_secs();

    return wait > 0 ? wait : TACK_SIGN_WAIT_SECS;
}

void mt_signer_close_all(void)
{
    mt_signers_t *sgs = mt_signer_part();
    if (sgs->pool) {
        /* frees the keys, or (mt_background_start took the signers over)
         * closes the parent's ends: mt_signer_forget_all */
        apr_pool_destroy(sgs->pool);
    }
}
