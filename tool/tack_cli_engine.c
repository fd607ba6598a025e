/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_engine.c -- the check engine (cli_check_run) that `tack check`,
 * its --all-addresses fleet check and `tack preload build --hosts` run: a
 * TLS client that asks for the TACK extension, shows the reply and checks
 * it as draft-perrin-tls-tack-00 section 5 tells a client to, with the
 * preload list (tack_cli_preload.c) and the pin store (tack_cli_pins.c)
 * when given.  The connection, and the HOST[:PORT] splitter its callers
 * share, are tack_cli_net.c's.  It calls no front end.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "tack_cli.h"
#include "tack_util.h"
#include "tack_ext.h"

/* What the server sent in the TACK extension, filled by check_cb_ext_parse;
 * one per run (64 KiB: on the heap, so that runs can go in threads). */
typedef struct {
    int received;
    unsigned int context;
    uint8_t data[65536];
    size_t len;
} check_reply_t;

/* check_cb_ext_add asks for the TACK with an empty extension (spec 1). */
static int check_cb_ext_add(SSL *s, unsigned int ext_type, unsigned int context,
                            const unsigned char **out, size_t *outlen, X509 *x,
                            size_t chainidx, int *al, void *add_arg)
{
    static const unsigned char empty[1] = {0};

    (void)s;
    (void)ext_type;
    (void)context;
    (void)x;
    (void)chainidx;
    (void)al;
    (void)add_arg;
    *out = empty;
    *outlen = 0;
    return 1;
}

/* check_cb_ext_parse keeps the reply; every check runs after the handshake,
 * so that what came back can be shown even when it is wrong. */
static int check_cb_ext_parse(SSL *s, unsigned int ext_type,
                              unsigned int context, const unsigned char *in,
                              size_t inlen, X509 *x, size_t chainidx, int *al,
                              void *parse_arg)
{
    check_reply_t *r = parse_arg;

    (void)s;
    (void)ext_type;
    (void)x;
    (void)chainidx;
    (void)al;
    if (inlen > sizeof(r->data)) {
        inlen = sizeof(r->data);
    }
    memcpy(r->data, in, inlen);
    r->len = inlen;
    r->context = context;
    r->received = 1;
    return 1;
}

/* ---- the report: printed as it goes, and collected for --json ------------ */

typedef struct {
    const cli_check_opts_t *o;
    const char *addr; /* where it connects: the address or o->host */
    json_t *report;
    FILE *out; /* the human form; NULL with --json */
    int tls13; /* the handshake negotiated TLS 1.3 */
} check_ctx_t;

static void check_line(check_ctx_t *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void check_line(check_ctx_t *c, const char *key, const char *fmt, ...)
{
    va_list ap;

    if (c->out == NULL) {
        return;
    }
    fprintf(c->out, "%-14s = ", key);
    va_start(ap, fmt);
    vfprintf(c->out, fmt, ap);
    va_end(ap);
    fputc('\n', c->out);
}

/* check_same_output says whether the result lines went where standard
 * error goes (the same terminal or file): then the reason is said once. */
static int check_same_output(const check_ctx_t *c)
{
    struct stat out, err;

    return !c->o->json && fstat(STDOUT_FILENO, &out) == 0 &&
           fstat(STDERR_FILENO, &err) == 0 && out.st_dev == err.st_dev &&
           out.st_ino == err.st_ino;
}

/* check_verdict records the check's rejection: |alert| (NULL: a failure
 * that is no client's alert) and |reason| in the report and on the result
 * line, which names the judge |by| instead of repeating the reason when
 * that judge's own line has just said it.  Returns CLI_EXIT_CHECK. */
static int check_verdict(check_ctx_t *c, const char *alert, const char *by,
                         const char *reason)
{
    json_object_set_new(c->report, "result", json_string("rejected"));
    json_object_set_new(c->report, "alert",
                        alert ? json_string(alert) : json_null());
    json_object_set_new(c->report, "reason", json_string(reason));
    /* The result line on standard output says it; standard error says it
     * again only where it is not the same file (a terminal shows both, a
     * cron job that keeps only errors still gets the reason). */
    if (alert != NULL) {
        if (by != NULL) {
            check_line(c, "result", "rejected: %s (by the %s)", alert, by);
        } else {
            check_line(c, "result", "rejected: %s (%s)", alert, reason);
        }
        if (!c->o->quiet && !check_same_output(c)) {
            cli_err("check %s: rejected with %s: %s", c->o->host, alert,
                    reason);
        }
    } else {
        check_line(c, "result", "failed: %s", reason);
        if (!c->o->quiet && !check_same_output(c)) {
            cli_err("check %s: %s", c->o->host, reason);
        }
    }
    return CLI_EXIT_CHECK;
}

/* check_reject records the verdict; returns CLI_EXIT_CHECK. */
static int check_reject(check_ctx_t *c, const char *alert, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int check_reject(check_ctx_t *c, const char *alert, const char *fmt, ...)
{
    char reason[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    return check_verdict(c, alert, NULL, reason);
}

/* check_tool_error records an error of the tool itself (OpenSSL refused a
 * setting, a file is unusable) as the report's "error": |msg|, or else the
 * first OpenSSL error.  Without o->quiet it prints |msg| and drains
 * OpenSSL's error queue to stderr as well.  Returns CLI_EXIT_USAGE. */
static int check_tool_error(check_ctx_t *c, const char *msg)
{
    char buf[256];

    if (msg == NULL) {
        unsigned long e = ERR_peek_error();

        if (e != 0) {
            ERR_error_string_n(e, buf, sizeof(buf));
        } else {
            snprintf(buf, sizeof(buf), "OpenSSL failed");
        }
        msg = buf;
    }
    json_object_set_new(c->report, "error", json_string(msg));
    if (!c->o->quiet) {
        if (msg != buf) {
            cli_err("%s", msg);
        }
        cli_ssl_errors();
    }
    ERR_clear_error();
    return CLI_EXIT_USAGE;
}

static const char *check_chain_alert(long verr)
{
    switch (verr) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return "certificate_expired";
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
        return "unknown_ca";
    case X509_V_ERR_CERT_REVOKED:
        return "certificate_revoked";
    default:
        return "bad_certificate";
    }
}

/* check_tack_fields prints one TACK and runs the per-TACK client checks in
 * the draft's order after the signature: generation (decode_error), target
 * hash (illegal_parameter), expiration (certificate_expired). */
static int check_one_tack(check_ctx_t *c, const tack_t *tack, X509 *cert,
                          time_t now, json_t *arr, size_t idx)
{
    tack_status_t st;
    char when[TACK_TIME_SIZE];

    if (c->out != NULL) {
        fputc('\n', c->out);
        cli_print_tack(c->out, tack);
    }
    json_array_append_new(arr, cli_json_tack(tack, now));
    st = tack_verify(tack);
    if (st != TACK_OK) {
        return check_reject(c, "decrypt_error", "TACK %zu: %s", idx + 1,
                            tack_status_str(st));
    }
    st = tack_check_generation(tack);
    if (st != TACK_OK) {
        return check_reject(c, "decode_error",
                            "TACK %zu: generation %u is below "
                            "min_generation %u",
                            idx + 1, tack->generation, tack->min_generation);
    }
    st = tack_check_target(tack, cert);
    if (st != TACK_OK) {
        return check_reject(c, "illegal_parameter",
                            "TACK %zu: target_hash is not the SHA-256 of the "
                            "server certificate's public key",
                            idx + 1);
    }
    st = tack_check_expiration(tack, now);
    if (st != TACK_OK) {
        tack_time_format(tack->expiration, when);
        return check_reject(c, "certificate_expired", "TACK %zu expired at %s",
                            idx + 1, when);
    }
    return CLI_EXIT_OK;
}

static const char *check_where(unsigned int context)
{
    if (context & SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS) {
        return "TLS 1.3 EncryptedExtensions";
    }
    return "TLS 1.2 ServerHello";
}

/* check_reply_decode parses a received extension: a draft-00 body, a
 * draft-02 one, or either (--format auto, draft-00 tried first), and says
 * which in |ext|.  |*st00| tells whether it was draft-00.  Returns the exit
 * status. */
static int check_reply_decode(check_ctx_t *c, const check_reply_t *r,
                              json_t *ext, tack_ext00_t *e0, tack_ext02_t *e2,
                              tack_status_t *st00)
{
    tack_status_t st02 = TACK_ERR_INVALID_ARG;
    const char *format;
    char *hex = malloc(2 * r->len + 1);

    if (hex != NULL) {
        tack_hex_encode(hex, 2 * r->len + 1, r->data, r->len);
        json_object_set_new(ext, "hex", json_string(hex));
        free(hex);
    }
    json_object_set_new(ext, "message", json_string(check_where(r->context)));
    json_object_set_new(ext, "length", json_integer((json_int_t)r->len));
    if (c->o->format != CLI_CHECK_FMT_02) {
        *st00 = tack_ext00_parse(e0, r->data, r->len);
    }
    if (c->o->format == CLI_CHECK_FMT_02 ||
        (c->o->format == CLI_CHECK_FMT_AUTO && *st00 != TACK_OK)) {
        st02 = tack_ext02_parse(e2, r->data, r->len);
    }
    format = *st00 == TACK_OK  ? "draft-00"
             : st02 == TACK_OK ? "draft-02"
                               : NULL;
    check_line(c, "extension", "%s, %zu bytes, in the %s",
               format ? format : "unparsable", r->len, check_where(r->context));
    if (format == NULL) {
        char why[600];

        cli_ext_fault(c->o->format, r->data, r->len, why, sizeof(why));
        return check_reject(c, "decode_error", "the extension is %s", why);
    }
    json_object_set_new(ext, "format", json_string(format));
    return CLI_EXIT_OK;
}

/* check_reply_ext00 checks a draft-00 body: its break signatures first, as
 * the draft does, then its TACK; |pin| gets what the pin rules need.
 * Returns the exit status. */
static int check_reply_ext00(check_ctx_t *c, const tack_ext00_t *e0, X509 *cert,
                             time_t now, json_t *ext, json_t *tacks,
                             json_t *sigs, cli_pin_input_t *pin)
{
    size_t i;
    int rc;

    check_line(c, "pin_activation", "%u", e0->pin_activation);
    json_object_set_new(ext, "pin_activation",
                        json_integer(e0->pin_activation));
    if (!e0->has_tack) {
        check_line(c, "tack", "none");
    }
    for (i = 0; i < e0->num_breaksigs; i++) {
        tack_status_t st = tack_breaksig_verify(&e0->breaksigs[i]);

        if (c->out != NULL) {
            if (i == 0) {
                fputc('\n', c->out);
            }
            cli_print_breaksig(c->out, &e0->breaksigs[i]);
        }
        json_array_append_new(sigs, cli_json_breaksig(&e0->breaksigs[i]));
        if (st != TACK_OK) {
            return check_reject(c, "decrypt_error", "break signature %zu: %s",
                                i + 1, tack_status_str(st));
        }
    }
    if (e0->has_tack) {
        rc = check_one_tack(c, &e0->tack, cert, now, tacks, 0);
        if (rc != CLI_EXIT_OK) {
            return rc;
        }
        pin->num_tacks = 1;
        pin->tacks[0] = &e0->tack;
        pin->active[0] = e0->pin_activation;
    }
    pin->num_breaksigs = e0->num_breaksigs;
    pin->breaksigs = e0->breaksigs;
    return CLI_EXIT_OK;
}

/* check_reply_ext02 checks each TACK of a draft-02 body; |pin| gets them
 * with their activation flags.  Returns the exit status. */
static int check_reply_ext02(check_ctx_t *c, const tack_ext02_t *e2, X509 *cert,
                             time_t now, json_t *ext, json_t *tacks,
                             cli_pin_input_t *pin)
{
    size_t i;
    int rc;

    check_line(c, "activation_flags", "%u", e2->activation_flags);
    json_object_set_new(ext, "activation_flags",
                        json_integer(e2->activation_flags));
    for (i = 0; i < e2->num_tacks; i++) {
        rc = check_one_tack(c, &e2->tacks[i], cert, now, tacks, i);
        if (rc != CLI_EXIT_OK) {
            return rc;
        }
        pin->tacks[i] = &e2->tacks[i];
        pin->active[i] = (e2->activation_flags >> i) & 1;
    }
    pin->num_tacks = e2->num_tacks;
    return CLI_EXIT_OK;
}

/* check_memory_verdict turns what the preload list or the pin store
 * decided (|rc|, |alert|, the reason in |pj|) into the check's status.
 * A rejection is said on the source's own line (|key|: "preload", "pin"),
 * with "status", "alert" and "reason" in |pj|, and the result line names
 * the source (|what|), so that no line reads as the TACK's own verdict. */
static int check_memory_verdict(check_ctx_t *c, int rc, const char *alert,
                                json_t *pj, const char *key, const char *what)
{
    const char *why;

    if (rc == CLI_EXIT_USAGE) {
        /* The file could not be read or written (said on stderr): the
         * check has no verdict, and says so in both forms. */
        why = json_string_value(json_object_get(pj, "error"));
        json_object_set_new(c->report, "error", json_string(why ? why : what));
        check_line(c, "result", "error: %s", why ? why : what);
        return rc;
    }
    if (rc == CLI_EXIT_OK) {
        /* The preload list says more ("enforced", "not listed", ...). */
        if (json_object_get(pj, "status") == NULL) {
            json_object_set_new(pj, "status", json_string("accepted"));
        }
        return rc;
    }
    why = json_string_value(json_object_get(pj, "reason"));
    if (why == NULL) {
        why = what;
    }
    json_object_set_new(pj, "status", json_string("rejected"));
    json_object_set_new(pj, "alert", alert ? json_string(alert) : json_null());
    if (alert != NULL) {
        check_line(c, key, "rejected: %s (%s)", alert, why);
    } else {
        check_line(c, key, "rejected (%s)", why);
    }
    return check_verdict(c, alert, what, why);
}

/* check_reply_memory applies the client's memory, after every check of the
 * reply: the preload list (o->preload) first, since the store may add to
 * it, never weaken it (docs/preload.md), then the pin store (--pins).
 * Returns the exit status. */
static int check_reply_memory(check_ctx_t *c, cli_pin_input_t *pin, time_t now)
{
    const char *alert = NULL;
    json_t *pj;
    int rc;

    if (c->o->preload != NULL) {
        pj = json_object();
        json_object_set_new(c->report, "preload", pj);
        pin->name = c->o->servername ? c->o->servername : c->o->host;
        pin->now = now;
        rc = cli_preload_apply(c->o->preload, c->o->pins, pin, c->out, &alert,
                               pj);
        rc = check_memory_verdict(c, rc, alert, pj, "preload", "preload list");
        if (rc != CLI_EXIT_OK) {
            return rc;
        }
    }
    if (c->o->pins != NULL) {
        alert = NULL;
        pj = json_object();
        json_object_set_new(c->report, "pins", pj);
        pin->name = c->o->servername ? c->o->servername : c->o->host;
        pin->now = now;
        rc = cli_pins_apply(c->o->pins, pin, c->out, &alert, pj);
        return check_memory_verdict(c, rc, alert, pj, "pin", "pin store");
    }
    return CLI_EXIT_OK;
}

/* check_require_unbroken fails --require when a TACK of the reply is
 * broken by a break signature of the same reply: a client discards the
 * pin as soon as it is made, so the server is as good as one without a
 * TACK (the rule `tack serverinfo` applies, cli_breaksig_breaks).
 * Returns the exit status. */
static int check_require_unbroken(check_ctx_t *c, const cli_pin_input_t *pin)
{
    size_t i, j;

    for (i = 0; i < pin->num_tacks; i++) {
        for (j = 0; j < pin->num_breaksigs; j++) {
            if (cli_breaksig_breaks(&pin->breaksigs[j], pin->tacks[i])) {
                return check_reject(c, NULL,
                                    "break signature %zu breaks the key of "
                                    "TACK %zu: clients discard the pin at "
                                    "once (--require)",
                                    j + 1, i + 1);
            }
        }
    }
    return CLI_EXIT_OK;
}

/* check_warn_expiry warns (a line, "warnings" in --json, the exit status
 * unchanged) about each TACK served that expires within --warn-days, so
 * that monitoring with --require alerts before the expiry. */
static void check_warn_expiry(check_ctx_t *c, const cli_pin_input_t *pin,
                              time_t now)
{
    json_t *warnings = NULL;
    size_t i;

    for (i = 0; i < pin->num_tacks && c->o->warn_days > 0; i++) {
        time_t end = tack_expiration_time(pin->tacks[i]);
        char fpr[TACK_FINGERPRINT_SIZE], when[TACK_TIME_SIZE], msg[256];

        if (end - now >= (time_t)c->o->warn_days * 86400) {
            continue;
        }
        tack_fingerprint(pin->tacks[i]->public_key, fpr);
        tack_time_format(pin->tacks[i]->expiration, when);
        snprintf(msg, sizeof(msg),
                 "TACK %s expires at %s, in %lld day%s (--warn-days %d)", fpr,
                 when, (long long)((end - now) / 86400),
                 (end - now) / 86400 == 1 ? "" : "s", c->o->warn_days);
        check_line(c, "warning", "%s", msg);
        if (!warnings) {
            warnings = json_array();
            json_object_set_new(c->report, "warnings", warnings);
        }
        json_array_append_new(warnings, json_string(msg));
    }
}

/* check_reply parses and checks what came back (tack(1), "tack check"):
 * decode the extension, check the draft-00 or draft-02 body, then apply
 * the preload list and the pin store, and --require.  Returns the exit
 * status. */
static int check_reply(check_ctx_t *c, const check_reply_t *r, X509 *cert,
                       time_t now)
{
    tack_ext00_t e0;
    tack_ext02_t e2;
    tack_status_t st00 = TACK_ERR_INVALID_ARG;
    cli_pin_input_t pin;
    json_t *ext, *tacks, *sigs;
    int rc = CLI_EXIT_OK;

    memset(&pin, 0, sizeof(pin));
    ext = json_object();
    json_object_set_new(c->report, "extension", ext);
    json_object_set_new(ext, "received", json_boolean(r->received));
    if (!r->received) {
        check_line(c, "extension", "none (the server sent no TACK%s)",
                   c->tls13 ? "; in TLS 1.3 mod_tack sends one only with "
                              "TackTLS13 on"
                            : "");
    } else {
        rc = check_reply_decode(c, r, ext, &e0, &e2, &st00);
        if (rc != CLI_EXIT_OK) {
            return rc;
        }
    }

    tacks = json_array();
    sigs = json_array();
    json_object_set_new(c->report, "tacks", tacks);
    json_object_set_new(c->report, "break_sigs", sigs);
    if (r->received && st00 == TACK_OK) {
        rc = check_reply_ext00(c, &e0, cert, now, ext, tacks, sigs, &pin);
    } else if (r->received) {
        rc = check_reply_ext02(c, &e2, cert, now, ext, tacks, &pin);
    }
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (c->out != NULL && (pin.num_tacks > 0 || pin.num_breaksigs > 0)) {
        fputc('\n', c->out);
    }
    if (pin.num_tacks > 0) {
        /* The TACKs alone: the preload list and the pin store judge them
         * next, each on its own line, and only the result line is the
         * check's verdict. */
        check_line(c, "TACK",
                   "valid (signature, generation, target hash, "
                   "expiration)");
        json_object_set_new(c->report, "tack_checks",
                            json_pack("{s:b, s:[s, s, s, s]}", "valid", 1,
                                      "checks", "signature", "generation",
                                      "target hash", "expiration"));
    }
    check_warn_expiry(c, &pin, now);

    rc = check_reply_memory(c, &pin, now);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (pin.num_tacks == 0 && c->o->require) {
        return check_reject(c, NULL, "the server sent no TACK (--require)");
    }
    if (c->o->require) {
        rc = check_require_unbroken(c, &pin);
        if (rc != CLI_EXIT_OK) {
            return rc;
        }
    }
    json_object_set_new(c->report, "result", json_string("accepted"));
    check_line(c, "result", "accepted%s",
               pin.num_tacks ? "" : " (no TACK: nothing to check)");
    return CLI_EXIT_OK;
}

/* check_client_ctx makes the client's SSL_CTX in |*out|: the protocol
 * versions, the TACK extension asked for (spec section 1; |reply| gets the
 * answer) and the --ca certificates.  Returns CLI_EXIT_OK or the tool
 * error's status. */
static int check_client_ctx(check_ctx_t *c, check_reply_t *reply, time_t now,
                            SSL_CTX **out)
{
    const cli_check_opts_t *o = c->o;
    char err[512];
    SSL_CTX *ctx;

    *out = ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) {
        return check_tool_error(c, NULL);
    }
    if ((o->min_version &&
         !SSL_CTX_set_min_proto_version(ctx, o->min_version)) ||
        (o->max_version &&
         !SSL_CTX_set_max_proto_version(ctx, o->max_version)) ||
        !cli_ssl_key_type(ctx, o->key_type)) {
        return check_tool_error(c, NULL);
    }
    /* Ask in the ClientHello; accept the answer in a TLS 1.2 ServerHello or
     * a TLS 1.3 EncryptedExtensions (this project's 1.3 mapping), on full
     * handshakes only. */
    if (SSL_CTX_add_custom_ext(
            ctx, TACK_EXT_TYPE,
            SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO |
                SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS |
                SSL_EXT_IGNORE_ON_RESUMPTION,
            check_cb_ext_add, NULL, NULL, check_cb_ext_parse, reply) != 1) {
        return check_tool_error(c, "cannot register the TACK extension with "
                                   "OpenSSL");
    }
    /* The chain is checked after the handshake, so that a TACK can be shown
     * even from a server whose chain fails. */
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    if (o->ca != NULL) {
        int ok = cli_is_dir(o->ca)
                     ? SSL_CTX_load_verify_locations(ctx, NULL, o->ca)
                     : SSL_CTX_load_verify_locations(ctx, o->ca, NULL);

        if (ok != 1) {
            snprintf(err, sizeof(err),
                     "%s: cannot load CA certificates from it", o->ca);
            return check_tool_error(c, err);
        }
        if (cli_now_set) {
            X509_VERIFY_PARAM_set_time(SSL_CTX_get0_param(ctx), now);
        }
    }
    return CLI_EXIT_OK;
}

/* check_tls_connect connects to c->addr (|*fd|) and completes the TLS
 * handshake (|*ssl|) within the timeout, with SNI and, with --ca, the name
 * or address the chain must be for.  Returns CLI_EXIT_OK, or the status
 * of the rejection or tool error (reported). */
static int check_tls_connect(check_ctx_t *c, SSL_CTX *ctx, int *fd, SSL **ssl)
{
    const cli_check_opts_t *o = c->o;
    char err[512];
    long long deadline;

    deadline = cli_net_deadline(o->timeout);
    *fd = cli_net_connect(c->addr, o->port, deadline, err, sizeof(err));
    if (*fd < 0) {
        return check_reject(c, NULL, "cannot connect to %s", err);
    }
    *ssl = SSL_new(ctx);
    if (*ssl == NULL || SSL_set_fd(*ssl, *fd) != 1) {
        return check_tool_error(c, NULL);
    }
    if (o->servername != NULL) {
        SSL_set_tlsext_host_name(*ssl, o->servername);
    }
    if (o->ca != NULL) {
        if (o->servername != NULL) {
            /* OpenSSL 4.0 deprecates SSL_set1_host for SSL_set1_dnsname,
             * which 3.x does not have. */
#if OPENSSL_VERSION_MAJOR >= 4
            SSL_set1_dnsname(*ssl, o->servername);
#else
            SSL_set1_host(*ssl, o->servername);
#endif
        } else {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(*ssl), c->addr);
        }
    }
    if (!cli_net_ssl_connect(*ssl, *fd, deadline, o->timeout, err,
                             sizeof(err))) {
        const char *hint = "";

        if (o->max_version == TLS1_2_VERSION && o->min_version == 0 &&
            (strstr(err, "protocol version") ||
             strstr(err, "unsupported protocol"))) {
            hint = "; the server does not speak TLS 1.2 (it may speak only "
                   "TLS 1.3): try --tls1_3, where mod_tack sends a TACK only "
                   "with TackTLS13 on";
        } else if (o->key_type && strstr(err, "handshake failure")) {
            hint = o->key_type == EVP_PKEY_EC
                       ? "; the server may have no ECDSA certificate for "
                         "this name (--key-type ecdsa)"
                       : "; the server may have no RSA certificate for this "
                         "name (--key-type rsa)";
        }
        return check_reject(c, NULL,
                            "TLS handshake with %s port %s failed: "
                            "%s%s",
                            c->addr, o->port, err, hint);
    }
    c->tls13 = SSL_version(*ssl) == TLS1_3_VERSION;
    check_line(c, "server", "%s port %s%s%s", c->addr, o->port,
               o->servername ? ", server name " : "",
               o->servername ? o->servername : "");
    check_line(c, "connection", "%s, %s", SSL_get_version(*ssl),
               SSL_get_cipher_name(*ssl));
    json_object_set_new(c->report, "protocol",
                        json_string(SSL_get_version(*ssl)));
    json_object_set_new(c->report, "cipher",
                        json_string(SSL_get_cipher_name(*ssl)));
    return CLI_EXIT_OK;
}

/* check_show_cert reports the server certificate's subject and the
 * SHA-256 of its key, the hash a TACK signs (spec section 3). */
static void check_show_cert(check_ctx_t *c, X509 *cert)
{
    uint8_t hash[TACK_HASH_LEN];
    char hex[2 * TACK_HASH_LEN + 1];
    char *subject = cli_cert_subject(cert);

    memset(hash, 0, sizeof(hash));
    tack_spki_hash(cert, hash);
    tack_hex_encode(hex, sizeof(hex), hash, sizeof(hash));
    check_line(c, "certificate", "%s", subject ? subject : "?");
    check_line(c, "key_sha256", "%s", hex);
    json_object_set_new(
        c->report, "certificate",
        json_pack("{s:s?, s:s}", "subject", subject, "key_sha256", hex));
    free(subject);
}

/* check_chain reports the chain: not verified without --ca, else
 * OpenSSL's verdict.  Returns CLI_EXIT_OK, or the rejection's status. */
static int check_chain(check_ctx_t *c, SSL *ssl)
{
    const cli_check_opts_t *o = c->o;
    long verr;

    if (o->ca == NULL) {
        check_line(c, "chain",
                   "not verified (no --ca; TACK does not "
                   "depend on CAs)");
        json_object_set_new(c->report, "chain",
                            json_pack("{s:b}", "verified", 0));
        return CLI_EXIT_OK;
    }
    verr = SSL_get_verify_result(ssl);
    if (verr != X509_V_OK) {
        json_object_set_new(c->report, "chain",
                            json_pack("{s:b, s:s}", "verified", 0, "error",
                                      X509_verify_cert_error_string(verr)));
        check_line(c, "chain", "FAILED: %s",
                   X509_verify_cert_error_string(verr));
        return check_reject(c, check_chain_alert(verr), "certificate chain: %s",
                            X509_verify_cert_error_string(verr));
    }
    json_object_set_new(c->report, "chain", json_pack("{s:b}", "verified", 1));
    check_line(c, "chain", "verified against %s", o->ca);
    return CLI_EXIT_OK;
}

/* check_handshake sets up the client, connects to c->addr and checks what
 * the server presents; the report is filled as it goes.  Returns the exit
 * status. */
static int check_handshake(check_ctx_t *c, check_reply_t *reply, time_t now)
{
    SSL_CTX *ctx = NULL;
    SSL *ssl = NULL;
    X509 *cert = NULL;
    int fd = -1, rc;

    rc = check_client_ctx(c, reply, now, &ctx);
    if (rc != CLI_EXIT_OK) {
        goto done;
    }
    rc = check_tls_connect(c, ctx, &fd, &ssl);
    if (rc != CLI_EXIT_OK) {
        goto done;
    }
    cert = SSL_get1_peer_certificate(ssl);
    if (cert == NULL) {
        rc = check_reject(c, "illegal_parameter",
                          "the server presented no certificate");
        goto done;
    }
    check_show_cert(c, cert);
    rc = check_chain(c, ssl);
    if (rc == CLI_EXIT_OK) {
        rc = check_reply(c, reply, cert, now);
    }

done:
    X509_free(cert);
    if (ssl != NULL) {
        SSL_shutdown(ssl);
        SSL_free(ssl);
    }
    if (fd >= 0) {
        close(fd);
    }
    SSL_CTX_free(ctx);
    return rc;
}

int cli_check_run(const cli_check_opts_t *o, const char *connect_host,
                  FILE *out, json_t **report)
{
    check_ctx_t cx;
    check_reply_t *reply;
    sigset_t pipe_set, old_set;
    int rc;

    memset(&cx, 0, sizeof(cx));
    cx.o = o;
    cx.addr = connect_host ? connect_host : o->host;
    cx.out = out;
    cx.report = json_object();
    *report = cx.report;
    if (cx.report == NULL) {
        return CLI_EXIT_USAGE;
    }
    json_object_set_new(cx.report, "host", json_string(o->host));
    if (connect_host != NULL) {
        json_object_set_new(cx.report, "address", json_string(connect_host));
    }
    json_object_set_new(cx.report, "port", json_string(o->port));
    json_object_set_new(cx.report, "servername",
                        o->servername ? json_string(o->servername)
                                      : json_null());
    reply = calloc(1, sizeof(*reply));
    if (reply == NULL) {
        return check_tool_error(&cx, "out of memory");
    }
    /* A server that resets the connection makes OpenSSL's write raise
     * SIGPIPE, which would end the tool and every check running beside
     * this one: blocked in this thread for the run, and one raised
     * meanwhile is taken off before the old mask comes back. */
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    rc = check_handshake(&cx, reply, cli_now());
    if (!sigismember(&old_set, SIGPIPE)) {
        struct timespec zero = {0, 0};

        while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE) {
        }
        pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    }
    free(reply);
    return rc;
}
