/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_load.c -- passwords (-p, --password-file, $TACK_PASSWORD, the
 * prompt: docs/tack.1, PASSWORDS) and the typed files the commands read and
 * write: TACK key files, certificates, TACK and break-signature PEM files,
 * and PEM output under TACKpy's "Created by" header.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "tack_cli.h"
#include "tack_util.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_keyfile.h"
#include "tack_pkcs11.h"
#include "tack_store.h"

/* ---- passwords ----------------------------------------------------------- */

void cli_password_free(char *pw, size_t len)
{
    if (pw != NULL) {
        OPENSSL_cleanse(pw, len);
        free(pw);
    }
}

/* The terminal settings to put back if a signal ends the tool while echo is
 * off at the prompt; otherwise the user's shell would stay silent. */
static struct termios cli_tty_saved;
static volatile sig_atomic_t cli_tty_quiet;
static const int cli_tty_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define CLI_TTY_NSIGNALS (sizeof(cli_tty_signals) / sizeof(cli_tty_signals[0]))

static void cli_tty_on_signal(int sig)
{
    /* tcsetattr, signal and raise are async-signal-safe. */
    if (cli_tty_quiet) {
        tcsetattr(STDIN_FILENO, TCSANOW, &cli_tty_saved);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* cli_password_prompt reads one line from the terminal on stdin with echo
 * off.  Returns a malloc'd string or NULL. */
static char *cli_password_prompt(const char *prompt, size_t *out_len)
{
    struct termios old, quiet;
    struct sigaction sa, prev[CLI_TTY_NSIGNALS];
    char buf[1024];
    char *res = NULL;
    size_t len, i;
    int restored;

    if (tcgetattr(STDIN_FILENO, &old) != 0) {
        return NULL;
    }
    quiet = old;
    quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    quiet.c_lflag |= ICANON;
    fputs(prompt, stderr);
    fflush(stderr);
    cli_tty_saved = old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = cli_tty_on_signal;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < CLI_TTY_NSIGNALS; i++) {
        sigaction(cli_tty_signals[i], &sa, &prev[i]);
    }
    cli_tty_quiet = 1;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) {
        cli_tty_quiet = 0;
        for (i = 0; i < CLI_TTY_NSIGNALS; i++) {
            sigaction(cli_tty_signals[i], &prev[i], NULL);
        }
        return NULL;
    }
    if (fgets(buf, sizeof(buf), stdin) != NULL) {
        /* The first line, as a password file's: tack_password_line. */
        len = tack_password_line(buf, strlen(buf));
        buf[len] = '\0';
        res = malloc(len + 1);
        if (res != NULL) {
            memcpy(res, buf, len + 1);
            *out_len = len;
        }
    }
    restored = tcsetattr(STDIN_FILENO, TCSANOW, &old);
    (void)restored;
    cli_tty_quiet = 0;
    for (i = 0; i < CLI_TTY_NSIGNALS; i++) {
        sigaction(cli_tty_signals[i], &prev[i], NULL);
    }
    fputc('\n', stderr);
    OPENSSL_cleanse(buf, sizeof(buf));
    return res;
}

static char *cli_strdup_len(const char *s, size_t len)
{
    char *r = malloc(len + 1);

    if (r != NULL) {
        memcpy(r, s, len);
        r[len] = '\0';
    }
    return r;
}

int cli_password_get(const cli_pw_opts_t *pw, const char *what, int confirm,
                     char **out, size_t *out_len)
{
    const char *env;
    char *res = NULL;
    size_t len = 0;

    if (pw != NULL && pw->password != NULL) {
        len = strlen(pw->password);
        res = cli_strdup_len(pw->password, len);
    } else if (pw != NULL && pw->password_file != NULL) {
        char *text = NULL;
        size_t tlen = 0;
        int rc = cli_read_file(pw->password_file, &text, &tlen);

        if (rc != CLI_EXIT_OK) {
            return rc;
        }
        /* The first line is the password, by the rule the module's
         * password files and programs follow (tack_password_line: a CRLF
         * ends it, any other '\r' is part of it). */
        len = tack_password_line(text, tlen);
        res = cli_strdup_len(text, len);
        OPENSSL_cleanse(text, tlen);
        free(text);
    } else if ((env = getenv("TACK_PASSWORD")) != NULL) {
        len = strlen(env);
        res = cli_strdup_len(env, len);
    } else if (pw != NULL && pw->stdin_is != NULL) {
        /* Standard input is data, not a person: whoever feeds it (a hook,
         * a sudo rule's caller) must not be the one who answers a prompt
         * on the terminal behind it either. */
        cli_err("%s: a %s is needed: give --password-file FILE or "
                "$TACK_PASSWORD; standard input is %s, so no prompt",
                what, tack_key_is_uri(what) ? "PIN" : "password", pw->stdin_is);
        return CLI_EXIT_USAGE;
    } else if (isatty(STDIN_FILENO)) {
        char prompt[256];

        snprintf(prompt, sizeof(prompt),
                 "%s for %s: ", tack_key_is_uri(what) ? "PIN" : "Password",
                 what);
        res = cli_password_prompt(prompt, &len);
        if (res == NULL) {
            cli_err("%s: no password read from the terminal", what);
            return CLI_EXIT_USAGE;
        }
        if (confirm) {
            size_t len2 = 0;
            char *again = cli_password_prompt("Again, to confirm: ", &len2);

            if (again == NULL || len2 != len ||
                CRYPTO_memcmp(again, res, len) != 0) {
                cli_password_free(again, len2);
                cli_password_free(res, len);
                cli_err("%s: the two passwords differ", what);
                return CLI_EXIT_USAGE;
            }
            cli_password_free(again, len2);
        }
        if (len == 0) {
            cli_password_free(res, len);
            cli_err("%s: empty password", what);
            return CLI_EXIT_USAGE;
        }
    } else {
        cli_err("%s: a %s is needed: give -p %s, "
                "--password-file FILE or $TACK_PASSWORD, or run on a "
                "terminal to be asked",
                what, tack_key_is_uri(what) ? "PIN" : "password",
                tack_key_is_uri(what) ? "PIN" : "PASSWORD");
        return CLI_EXIT_USAGE;
    }
    if (res == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    if (confirm && len == 0) {
        /* A new key: refused from -p, a file or $TACK_PASSWORD as the
         * prompt refuses it. */
        cli_password_free(res, len);
        cli_err("%s: empty password; the key file is only as safe as its "
                "password",
                what);
        return CLI_EXIT_USAGE;
    }
    *out = res;
    *out_len = len;
    return CLI_EXIT_OK;
}

/* ---- typed files --------------------------------------------------------- */

/* cli_pem_error explains a failed PEM read of |path| wanting |label|. */
static int cli_pem_error(const char *path, const char *label, tack_status_t st,
                         unsigned line)
{
    switch (st) {
    case TACK_ERR_PEM_NO_BLOCK:
        cli_err("%s: not a %s file (no PEM block in it)", path, label);
        break;
    case TACK_ERR_PEM_WRONG_LABEL:
        cli_err("%s: not a %s file (it has PEM blocks, but no "
                "\"BEGIN %s\")",
                path, label, label);
        break;
    default:
        if (line != 0) {
            cli_err("%s: line %u: %s block: %s", path, line, label,
                    tack_status_str(st));
        } else {
            cli_err("%s: %s block: %s", path, label, tack_status_str(st));
        }
        break;
    }
    return CLI_EXIT_USAGE;
}

int cli_load_keyfile(const char *path, tack_keyfile_t *out)
{
    char *text = NULL;
    size_t len = 0;
    unsigned line = 0;
    tack_status_t st;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_keyfile_from_pem(out, text, len, &line);
    OPENSSL_cleanse(text, len);
    free(text);
    if (st != TACK_OK) {
        return cli_pem_error(path, TACK_PEM_LABEL_KEY, st, line);
    }
    return CLI_EXIT_OK;
}

/* ---- keys in a PKCS#11 token --------------------------------------------- */

void cli_uri_shown(const char *uri, char *out, size_t out_size)
{
    const char *pin = strstr(uri, "pin-value=");
    size_t keep;

    if (pin == NULL) {
        snprintf(out, out_size, "%s", uri);
        return;
    }
    keep = (size_t)(pin - uri) + 10; /* through "pin-value=" */
    snprintf(out, out_size, "%.*s***%s", (int)keep, uri,
             pin + 10 + strcspn(pin + 10, "&;"));
}

/* cli_token_env says, once, that PKCS11_PROVIDER_MODULE is ignored: the
 * core unsets it (tack_pkcs11_env_module) so that the URI alone names the
 * module. */
static void cli_token_env(void)
{
    char value[512];

    if (tack_pkcs11_env_module(value, sizeof(value))) {
        cli_warn("%s=%s is ignored: the PKCS#11 module is the URI's "
                 "module-path or module-name (p11-kit's proxy when it names "
                 "none)",
                 TACK_PKCS11_ENV_MODULE, value);
    }
}

/* cli_load_token_key loads the private key |uri| names, with the PIN from
 * the password options unless the URI carries one. */
static int cli_load_token_key(const char *uri, const cli_pw_opts_t *pw,
                              EVP_PKEY **out)
{
    char err[TACK_PKCS11_ERR_SIZE], shown[1024];
    char *pin = NULL;
    size_t pin_len = 0;
    tack_status_t st;
    int rc;

    cli_token_env();
    cli_uri_shown(uri, shown, sizeof(shown));
    if (!tack_pkcs11_uri_has_pin(uri)) {
        rc = cli_password_get(pw, shown, 0, &pin, &pin_len);
        if (rc != CLI_EXIT_OK) {
            return rc;
        }
    }
    st = tack_pkcs11_load(uri, pin, pin_len, out, err, sizeof(err));
    cli_password_free(pin, pin_len);
    if (st != TACK_OK) {
        cli_err("%s: %s", shown, err);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_load_token_public(const char *uri, EVP_PKEY **out)
{
    char err[TACK_PKCS11_ERR_SIZE], shown[1024];

    cli_token_env();
    if (tack_pkcs11_load_public(uri, out, err, sizeof(err)) != TACK_OK) {
        cli_uri_shown(uri, shown, sizeof(shown));
        cli_err("%s: %s", shown, err);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_load_key(const char *path, const cli_pw_opts_t *pw, EVP_PKEY **out)
{
    tack_keyfile_t kf;
    char *pass = NULL;
    size_t pass_len = 0;
    tack_status_t st;
    int rc;

    if (tack_key_is_uri(path)) {
        return cli_load_token_key(path, pw, out);
    }
    rc = cli_load_keyfile(path, &kf);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = cli_password_get(pw, path, 0, &pass, &pass_len);
    if (rc != CLI_EXIT_OK) {
        OPENSSL_cleanse(&kf, sizeof(kf));
        return rc;
    }
    st = tack_keyfile_decrypt(&kf, pass, pass_len, out);
    cli_password_free(pass, pass_len);
    OPENSSL_cleanse(&kf, sizeof(kf));
    if (st == TACK_ERR_WRONG_PASSWORD) {
        cli_err("%s: wrong password (the key file's MAC does not match)", path);
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        cli_err("%s: cannot decrypt the key: %s", path, tack_status_str(st));
        cli_ssl_errors();
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_load_cert(const char *path, X509 **out)
{
    char *text = NULL;
    size_t len = 0;
    X509 *cert = NULL;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (strstr(text, "-----BEGIN") != NULL) {
        BIO *bio = BIO_new_mem_buf(text, (int)len);

        /* The first certificate of a chain file is the end-entity one. */
        if (bio != NULL) {
            cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
            BIO_free(bio);
        }
        if (cert == NULL) {
            ERR_clear_error();
            if (strstr(text, "-----BEGIN CERTIFICATE-----") == NULL) {
                cli_err("%s: not a certificate file (no \"BEGIN "
                        "CERTIFICATE\" PEM block)",
                        path);
            } else {
                cli_err("%s: the certificate does not parse", path);
            }
            free(text);
            return CLI_EXIT_USAGE;
        }
    } else {
        const unsigned char *p = (const unsigned char *)text;

        cert = d2i_X509(NULL, &p, (long)len);
        if (cert == NULL) {
            ERR_clear_error();
            cli_err("%s: not a certificate file (neither PEM nor DER)", path);
            free(text);
            return CLI_EXIT_USAGE;
        }
    }
    free(text);
    *out = cert;
    return CLI_EXIT_OK;
}

int cli_load_tacks(const char *path, tack_t *out, size_t max, size_t *count)
{
    char *text = NULL;
    size_t len = 0;
    unsigned line = 0;
    tack_status_t st;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_tacks_from_pem(out, max, count, text, len, &line);
    free(text);
    if (st == TACK_ERR_TOO_MANY_TACKS) {
        if (max == 1) {
            cli_err("%s: holds more than one TACK (draft-00 carries one; "
                    "a TACK pair needs --format draft-02)",
                    path);
        } else {
            cli_err("%s: holds more than %zu TACKs", path, max);
        }
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        return cli_pem_error(path, TACK_PEM_LABEL_TACK, st, line);
    }
    return CLI_EXIT_OK;
}

int cli_load_breaksigs(const char *path, tack_breaksig_t *out, size_t max,
                       size_t *count)
{
    char *text = NULL;
    size_t len = 0, n = 0;
    unsigned line = 0;
    tack_status_t st;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_breaksigs_from_pem(out + *count, max - *count, &n, text, len,
                                 &line);
    free(text);
    if (st == TACK_ERR_TOO_MANY_BREAKSIGS) {
        cli_err("%s: too many break signatures (a server carries at most "
                "%d)",
                path, TACK_MAX_BREAKSIGS);
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        return cli_pem_error(path, TACK_PEM_LABEL_BREAKSIG, st, line);
    }
    *count += n;
    return CLI_EXIT_OK;
}

int cli_pem_with_header(char **out, size_t *out_len, const char *label,
                        const uint8_t *items, size_t item_len, size_t n)
{
    char head[TACK_STORE_HEADER_SIZE];
    size_t cap, len, i;
    char *buf;

    /* The lines the module's TackSigningKey writes too, with its name. */
    if (tack_store_header(head, sizeof(head), TACK_PROG " " TACK_CLI_VERSION,
                          time(NULL)) != TACK_OK) {
        cli_err("cannot write the \"Created by\" lines");
        return CLI_EXIT_USAGE;
    }
    cap = n * (strlen(head) + 2 * item_len + 128) + 1;
    buf = malloc(cap);
    if (buf == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    len = 0;
    for (i = 0; i < n; i++) {
        char *pem = NULL;
        size_t pem_len = 0;
        size_t hl = strlen(head);

        if (tack_pem_encode(&pem, &pem_len, label, items + i * item_len,
                            item_len) != TACK_OK) {
            free(buf);
            cli_err("cannot encode a %s block", label);
            return CLI_EXIT_USAGE;
        }
        if (len + hl + pem_len + 1 > cap) {
            OPENSSL_cleanse(pem, pem_len);
            free(pem);
            free(buf);
            cli_err("cannot encode a %s block", label);
            return CLI_EXIT_USAGE;
        }
        memcpy(buf + len, head, hl);
        memcpy(buf + len + hl, pem, pem_len);
        len += hl + pem_len;
        OPENSSL_cleanse(pem, pem_len);
        free(pem);
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return CLI_EXIT_OK;
}
