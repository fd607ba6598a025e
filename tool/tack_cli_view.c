/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_view.c -- `tack view` (any TACK-related file, in TACKpy's human
 * form or as JSON) and `tack serverinfo` (the extension as an OpenSSL
 * SERVERINFO PEM block, for servers that are not mod_tack).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "tack_cli.h"
#include "tack_util.h"
#include "tack_key.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_keyfile.h"
#include "tack_pkcs11.h"
#include "tack_store.h"

/* The SERVERINFOV2 context that serves the TACK in TLS 1.2 ServerHello and
 * TLS 1.3 EncryptedExtensions, on full handshakes only. */
#define VIEW_SERVERINFO_V2_CONTEXT                                             \
    (SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO |                      \
     SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS | SSL_EXT_IGNORE_ON_RESUMPTION)

/* ---- view ---------------------------------------------------------------- */

typedef struct {
    int json;
    json_t *items;          /* --json: every item of every file */
    X509 *cert;             /* -c: check TACKs against this certificate */
    const char *state_path; /* --state, else CLI_STATE_DEFAULT */
    const char *cert_path;
    time_t now;
    int printed; /* items printed so far for the current file */
    int last_breaksig;
    int result; /* worst exit status so far */
} view_ctx_t;

static void view_worse(view_ctx_t *v, int rc)
{
    if (rc > v->result) {
        v->result = rc;
    }
}

/* view_sep separates items: break signatures run together, as TACKpy prints
 * them; anything else gets a blank line before it. */
static void view_sep(view_ctx_t *v, int breaksig)
{
    if (!v->json && v->printed > 0 && !(breaksig && v->last_breaksig)) {
        putchar('\n');
    }
    v->printed++;
    v->last_breaksig = breaksig;
}

static void view_add(view_ctx_t *v, const char *file, json_t *item)
{
    if (item == NULL) {
        return;
    }
    json_object_set_new(item, "file", json_string(file));
    json_array_append_new(v->items, item);
}

/* view_floor finds the floor of |tack|'s key for -c's certificate: the
 * other files of |file|'s directory for its host, and the module's state
 * file (cli_floor_find). */
static void view_floor(const view_ctx_t *v, const char *file,
                       const tack_t *tack, cli_floor_t *f)
{
    char dir[4096];
    const char *slash = strrchr(file, '/');

    if (slash == NULL) {
        snprintf(dir, sizeof(dir), ".");
    } else {
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file + 1), file);
    }
    cli_floor_find(f, tack->public_key, v->cert, NULL, dir,
                   v->state_path ? v->state_path : CLI_STATE_DEFAULT,
                   (long)v->now);
}

static void view_tack(view_ctx_t *v, const char *file, const tack_t *tack,
                      size_t idx)
{
    tack_status_t st = tack_verify(tack);
    char when[TACK_TIME_SIZE];

    view_sep(v, 0);
    if (v->json) {
        json_t *item = cli_json_tack(tack, v->now);

        if (v->cert != NULL) {
            tack_status_t vs = tack_validate(tack, v->cert, v->now);

            json_object_set_new(item, "certificate", json_string(v->cert_path));
            json_object_set_new(item, "valid", json_boolean(vs == TACK_OK));
            if (vs != TACK_OK) {
                json_object_set_new(item, "error",
                                    json_string(tack_status_str(vs)));
            }
        }
        view_add(v, file, item);
    } else {
        cli_print_tack(stdout, tack);
    }
    /* TACKpy refuses to show a TACK whose signature fails; we show it and
     * fail the command. */
    if (st != TACK_OK) {
        cli_err("%s: TACK %zu: %s", file, idx + 1, tack_status_str(st));
        view_worse(v, CLI_EXIT_CHECK);
        return;
    }
    if (v->cert != NULL) {
        cli_floor_t f;

        st = tack_validate(tack, v->cert, v->now);
        if (!v->json) {
            printf("status         = %s\n", st == TACK_OK
                                                ? "valid for the certificate"
                                                : tack_status_str(st));
        }
        if (st != TACK_OK) {
            cli_err("%s: TACK %zu: %s (certificate %s)", file, idx + 1,
                    tack_status_str(st), v->cert_path);
            view_worse(v, CLI_EXIT_CHECK);
            return;
        }
        /* Valid alone, but below what clients of its names saw under its
         * key: they refuse it (what the hooks' "kept" test asks). */
        view_floor(v, file, tack, &f);
        if (f.min_generation > tack->generation) {
            if (!v->json) {
                printf("floor          = below min_generation %d (%s)\n",
                       f.min_generation, f.from);
            }
            cli_err("%s: TACK %zu: generation %u is below min_generation %d, "
                    "which a TACK under its key holds for the certificate's "
                    "names (%s): clients that saw it refuse this one "
                    "(certificate_revoked)",
                    file, idx + 1, tack->generation, f.min_generation, f.from);
            view_worse(v, CLI_EXIT_CHECK);
        }
    } else if (tack_check_expiration(tack, v->now) != TACK_OK) {
        tack_time_format(tack->expiration, when);
        cli_warn("%s: TACK %zu expired at %s", file, idx + 1, when);
    }
}

static void view_breaksig(view_ctx_t *v, const char *file,
                          const tack_breaksig_t *sig, size_t idx)
{
    tack_status_t st = tack_breaksig_verify(sig);

    view_sep(v, 1);
    if (v->json) {
        view_add(v, file, cli_json_breaksig(sig));
    } else {
        cli_print_breaksig(stdout, sig);
    }
    if (st != TACK_OK) {
        cli_err("%s: break signature %zu: %s", file, idx + 1,
                tack_status_str(st));
        view_worse(v, CLI_EXIT_CHECK);
    }
}

static void view_keyfile(view_ctx_t *v, const char *file,
                         const tack_keyfile_t *kf)
{
    char fpr[TACK_FINGERPRINT_SIZE], key[2 * TACK_KEY_LEN + 1];
    tack_status_t st;
    EVP_PKEY *pub = NULL;

    tack_fingerprint(kf->public_key, fpr);
    view_sep(v, 0);
    if (v->json) {
        tack_hex_encode(key, sizeof(key), kf->public_key, TACK_KEY_LEN);
        view_add(v, file,
                 json_pack("{s:s, s:s, s:s, s:I}", "type", "private_key",
                           "tack_id", fpr, "public_key", key, "iterations",
                           (json_int_t)kf->iterations));
    } else {
        printf("TACK ID        = %s\n", fpr);
    }
    st = tack_key_from_public(&pub, kf->public_key);
    EVP_PKEY_free(pub);
    if (st != TACK_OK) {
        cli_err("%s: the key file's public key: %s", file, tack_status_str(st));
        view_worse(v, CLI_EXIT_CHECK);
    }
}

static void view_cert(view_ctx_t *v, const char *file, X509 *cert)
{
    uint8_t hash[TACK_HASH_LEN];
    char hex[2 * TACK_HASH_LEN + 1], when[32], store[TACK_STORE_NAME_SIZE];
    char *b64 = NULL, *subject = NULL;
    time_t not_after = 0;

    view_sep(v, 0);
    if (tack_spki_hash(cert, hash) != TACK_OK) {
        cli_err("%s: cannot hash the certificate's public key", file);
        cli_ssl_errors();
        view_worse(v, CLI_EXIT_USAGE);
        return;
    }
    tack_hex_encode(hex, sizeof(hex), hash, sizeof(hash));
    b64 = cli_base64(hash, sizeof(hash));
    subject = cli_cert_subject(cert);
    if (tack_cert_end_time(cert, &not_after) != TACK_OK) {
        snprintf(when, sizeof(when), "?");
    } else {
        cli_format_time(not_after, 1, when, sizeof(when));
    }
    /* the name of its TackStore file (tack_cert_store_name), for scripts
     * and hooks that write one without tack sign -o STORE/ */
    if (tack_cert_store_name(cert, store, sizeof(store)) != TACK_OK) {
        snprintf(store, sizeof(store), "?");
    }
    if (v->json) {
        view_add(v, file,
                 json_pack("{s:s, s:s?, s:s, s:s, s:s?, s:s}", "type",
                           "certificate", "subject", subject, "not_after", when,
                           "key_sha256", hex, "pin_sha256", b64, "store_file",
                           store));
    } else {
        printf("key_sha256     = %s\n"
               "notAfter       = %s\n"
               "pin-sha256     = \"%s\"\n"
               "store_file     = %s\n"
               "subject        = %s\n",
               hex, when, b64 ? b64 : "?", store, subject ? subject : "?");
    }
    free(b64);
    free(subject);
}

/* view_ext shows one extension body in either format. */
static void view_ext(view_ctx_t *v, const char *file, const uint8_t *body,
                     size_t len)
{
    tack_ext00_t e0;
    tack_ext02_t e2;
    size_t i;

    if (tack_ext00_parse(&e0, body, len) == TACK_OK) {
        view_sep(v, 0);
        if (v->json) {
            view_add(v, file,
                     json_pack("{s:s, s:s, s:I, s:i}", "type", "extension",
                               "format", "draft-00", "length", (json_int_t)len,
                               "pin_activation", (int)e0.pin_activation));
        } else {
            printf("extension      = TACK (%u), draft-00, %zu bytes\n"
                   "pin_activation = %u\n",
                   TACK_EXT_TYPE, len, e0.pin_activation);
        }
        if (e0.has_tack) {
            view_tack(v, file, &e0.tack, 0);
        }
        for (i = 0; i < e0.num_breaksigs; i++) {
            view_breaksig(v, file, &e0.breaksigs[i], i);
        }
        return;
    }
    if (tack_ext02_parse(&e2, body, len) == TACK_OK) {
        view_sep(v, 0);
        if (v->json) {
            view_add(v, file,
                     json_pack("{s:s, s:s, s:I, s:i}", "type", "extension",
                               "format", "draft-02", "length", (json_int_t)len,
                               "activation_flags", (int)e2.activation_flags));
        } else {
            printf("extension      = TACK (%u), draft-02, %zu bytes\n"
                   "activation_flags = %u\n",
                   TACK_EXT_TYPE, len, e2.activation_flags);
        }
        for (i = 0; i < e2.num_tacks; i++) {
            view_tack(v, file, &e2.tacks[i], i);
        }
        return;
    }
    {
        char why[600];

        cli_ext_fault(CLI_CHECK_FMT_AUTO, body, len, why, sizeof(why));
        cli_err("%s: the TACK extension (%zu bytes) is %s", file, len, why);
    }
    view_worse(v, CLI_EXIT_CHECK);
}

/* view_serverinfo walks OpenSSL serverinfo data: (type, length, body)
 * records, each preceded by a 4-byte context in the V2 form. */
static void view_serverinfo(view_ctx_t *v, const char *file, const uint8_t *p,
                            size_t len, int v2)
{
    size_t hdr = v2 ? 8 : 4;
    int found = 0;

    while (len > 0) {
        unsigned type, elen;

        if (len < hdr) {
            break;
        }
        type = (unsigned)p[hdr - 4] << 8 | p[hdr - 3];
        elen = (unsigned)p[hdr - 2] << 8 | p[hdr - 1];
        if (len - hdr < elen) {
            break;
        }
        if (type == TACK_EXT_TYPE) {
            view_ext(v, file, p + hdr, elen);
            found = 1;
        }
        p += hdr + elen;
        len -= hdr + elen;
    }
    if (len != 0) {
        cli_err("%s: the SERVERINFO block is truncated", file);
        view_worse(v, CLI_EXIT_USAGE);
    } else if (!found) {
        cli_err("%s: the SERVERINFO block has no TACK extension (%u)", file,
                TACK_EXT_TYPE);
        view_worse(v, CLI_EXIT_USAGE);
    }
}

static int view_pem_blocks(view_ctx_t *v, const char *file, const char *text,
                           size_t len, const char *label, tack_pem_t *pem)
{
    unsigned line = 0;
    tack_status_t st = tack_pem_decode(pem, text, len, label, &line);

    if (st != TACK_OK) {
        cli_err("%s: line %u: %s block: %s", file, line, label,
                tack_status_str(st));
        view_worse(v, CLI_EXIT_USAGE);
        return 0;
    }
    return 1;
}

/* view_tack_blocks shows the TACK blocks of a file, or with |breaksigs|
 * the TACK BREAK SIG blocks (|label|): each block parsed as one, a bad one
 * reported with its line and the size it should have. */
static void view_tack_blocks(view_ctx_t *v, const char *file, const char *text,
                             size_t len, const char *label, int breaksigs)
{
    tack_pem_t pem;
    size_t j;

    if (!view_pem_blocks(v, file, text, len, label, &pem)) {
        return;
    }
    for (j = 0; j < pem.count; j++) {
        const uint8_t *in = pem.blocks[j].data;
        size_t in_len = pem.blocks[j].len;
        tack_breaksig_t sig;
        tack_t tack;
        tack_status_t st = breaksigs ? tack_breaksig_parse(&sig, in, in_len)
                                     : tack_parse(&tack, in, in_len);

        if (st != TACK_OK) {
            cli_err("%s: line %u: %s block: %s (%zu bytes, want %d)", file,
                    pem.blocks[j].line, label, tack_status_str(st), in_len,
                    breaksigs ? TACK_BREAKSIG_LEN : TACK_LEN);
            view_worse(v, CLI_EXIT_USAGE);
        } else if (breaksigs) {
            view_breaksig(v, file, &sig, j);
        } else {
            view_tack(v, file, &tack, j);
        }
    }
    tack_pem_free(&pem);
}

/* view_keyfile_text shows a TACK PRIVATE KEY file (without its secret). */
static void view_keyfile_text(view_ctx_t *v, const char *file, const char *text,
                              size_t len)
{
    tack_keyfile_t kf;
    unsigned line = 0;
    tack_status_t st;

    st = tack_keyfile_from_pem(&kf, text, len, &line);
    if (st != TACK_OK) {
        cli_err("%s: line %u: TACK PRIVATE KEY block: %s", file, line,
                tack_status_str(st));
        view_worse(v, CLI_EXIT_USAGE);
    } else {
        view_keyfile(v, file, &kf);
    }
    OPENSSL_cleanse(&kf, sizeof(kf));
}

/* view_cert_text shows every PEM certificate of a file. */
static void view_cert_text(view_ctx_t *v, const char *file, const char *text,
                           size_t len)
{
    BIO *bio = BIO_new_mem_buf(text, (int)len);
    X509 *cert;

    while (bio != NULL &&
           (cert = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        view_cert(v, file, cert);
        X509_free(cert);
    }
    ERR_clear_error();
    BIO_free(bio);
}

/* view_serverinfo_blocks shows the SERVERINFO(V2) FOR ... blocks. */
static void view_serverinfo_blocks(view_ctx_t *v, const char *file,
                                   const char *text, size_t len,
                                   const char *label)
{
    tack_pem_t pem;
    size_t j;

    if (!view_pem_blocks(v, file, text, len, label, &pem)) {
        return;
    }
    for (j = 0; j < pem.count; j++) {
        view_serverinfo(v, file, pem.blocks[j].data, pem.blocks[j].len,
                        label[10] == 'V');
    }
    tack_pem_free(&pem);
}

/* view_label shows the blocks of one PEM label; returns 1 when the label
 * is one `tack view` knows. */
static int view_label(view_ctx_t *v, const char *file, const char *text,
                      size_t len, const char *label)
{
    if (strcmp(label, TACK_PEM_LABEL_TACK) == 0) {
        view_tack_blocks(v, file, text, len, label, 0);
    } else if (strcmp(label, TACK_PEM_LABEL_BREAKSIG) == 0) {
        view_tack_blocks(v, file, text, len, label, 1);
    } else if (strcmp(label, TACK_PEM_LABEL_KEY) == 0) {
        view_keyfile_text(v, file, text, len);
    } else if (strcmp(label, "CERTIFICATE") == 0) {
        view_cert_text(v, file, text, len);
    } else if (strncmp(label, "SERVERINFO FOR ", 15) == 0 ||
               strncmp(label, "SERVERINFOV2 FOR ", 17) == 0) {
        view_serverinfo_blocks(v, file, text, len, label);
    } else {
        return 0;
    }
    return 1;
}

/* view_unlabelled handles a file without a known PEM label: a DER
 * certificate, or an error naming what the file holds. */
static void view_unlabelled(view_ctx_t *v, const char *file, const char *text,
                            size_t len, size_t nlabels, const char *first)
{
    const unsigned char *p = (const unsigned char *)text;
    X509 *cert = nlabels ? NULL : d2i_X509(NULL, &p, (long)len);

    ERR_clear_error();
    if (cert != NULL) {
        view_cert(v, file, cert);
        X509_free(cert);
    } else if (nlabels > 0) {
        cli_err("%s: not a TACK, break signature, TACK key, certificate "
                "or serverinfo file (it holds \"BEGIN %s\")",
                file, first);
        view_worse(v, CLI_EXIT_USAGE);
    } else {
        cli_err("%s: not a TACK, break signature, TACK key, certificate "
                "or serverinfo file (no PEM block, not DER)",
                file);
        view_worse(v, CLI_EXIT_USAGE);
    }
}

/* view_token_key shows the TACK ID of a key in a PKCS#11 token, read from
 * its public key object: no PIN, as for a key file. */
static void view_token_key(view_ctx_t *v, const char *uri)
{
    char fpr[TACK_FINGERPRINT_SIZE], hex[2 * TACK_KEY_LEN + 1], shown[1024];
    uint8_t pub[TACK_KEY_LEN];
    EVP_PKEY *key = NULL;

    if (cli_load_token_public(uri, &key) != CLI_EXIT_OK) {
        view_worse(v, CLI_EXIT_USAGE);
        return;
    }
    cli_uri_shown(uri, shown, sizeof(shown));
    if (tack_key_public(key, pub) != TACK_OK) {
        cli_err("%s: cannot read the key's public point", shown);
        cli_ssl_errors();
        EVP_PKEY_free(key);
        view_worse(v, CLI_EXIT_USAGE);
        return;
    }
    EVP_PKEY_free(key);
    tack_fingerprint(pub, fpr);
    view_sep(v, 0);
    if (v->json) {
        tack_hex_encode(hex, sizeof(hex), pub, TACK_KEY_LEN);
        view_add(v, shown,
                 json_pack("{s:s, s:s, s:s, s:s}", "type", "token_key",
                           "tack_id", fpr, "public_key", hex, "uri", shown));
    } else {
        printf("TACK ID        = %s\n", fpr);
    }
}

/* view_file shows every item of one file, label by label. */
static void view_file(view_ctx_t *v, const char *file)
{
    char *text = NULL;
    size_t len = 0, nlabels, i;
    char labels[16][TACK_PEM_LABEL_SIZE];
    int known = 0;

    v->printed = 0;
    v->last_breaksig = 0;
    if (tack_key_is_uri(file)) {
        view_token_key(v, file);
        return;
    }
    if (cli_read_file(file, &text, &len) != CLI_EXIT_OK) {
        view_worse(v, CLI_EXIT_USAGE);
        return;
    }
    nlabels = tack_pem_labels(text, len, labels, 16);
    for (i = 0; i < nlabels; i++) {
        known |= view_label(v, file, text, len, labels[i]);
    }
    if (!known) {
        view_unlabelled(v, file, text, len, nlabels,
                        nlabels ? labels[0] : NULL);
    }
    OPENSSL_cleanse(text, len);
    free(text);
}

int cmd_view(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, CLI_OPT_JSON},
        {"certificate", required_argument, NULL, 'c'},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"state", required_argument, NULL, CLI_OPT_STATE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    view_ctx_t v;
    int c, i;

    memset(&v, 0, sizeof(v));
    while ((c = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
        switch (c) {
        case CLI_OPT_JSON:
            v.json = 1;
            break;
        case 'c':
            v.cert_path = optarg;
            break;
        case CLI_OPT_STATE:
            v.state_path = optarg;
            break;
        case CLI_OPT_NOW:
            if (cli_opt_now("view", optarg) != CLI_EXIT_OK) {
                return CLI_EXIT_USAGE;
            }
            break;
        case 'h':
            return cli_help(stdout, "view");
        default:
            return cli_usage_hint("view");
        }
    }
    if (optind == argc) {
        return cli_usage_error("view", "which file?");
    }
    if (v.cert_path != NULL &&
        cli_load_cert(v.cert_path, &v.cert) != CLI_EXIT_OK) {
        return CLI_EXIT_USAGE;
    }
    v.now = cli_now();
    v.items = json_array();
    for (i = optind; i < argc; i++) {
        if (!v.json && argc - optind > 1) {
            printf("%s==> %s <==\n", i > optind ? "\n" : "", argv[i]);
        }
        view_file(&v, argv[i]);
    }
    if (v.json) {
        json_dumpf(v.items, stdout, JSON_INDENT(2));
        putchar('\n');
    }
    json_decref(v.items);
    X509_free(v.cert);
    fflush(stdout);
    return v.result;
}

/* ---- serverinfo ---------------------------------------------------------- */

/* What `tack serverinfo`'s options say (docs/tack.1, SERVERINFO). */
typedef struct {
    const char *tack_paths[TACK_EXT02_MAX_TACKS + 1];
    const char **bs_paths; /* malloc'd */
    size_t ntack_paths, nbs_paths;
    const char *out_path, *cert_path;
    unsigned long activation;
    int draft02, v2, force;
} serverinfo_opts_t;

/* What the extension is built from. */
typedef struct {
    tack_t tacks[TACK_EXT02_MAX_TACKS];
    tack_breaksig_t bs[TACK_MAX_BREAKSIGS];
    size_t ntacks, nbs;
    X509 *cert; /* -c, NULL without */
} serverinfo_inputs_t;

/* serverinfo_check_options: what the options say together.  Returns -1
 * when they are usable, else CLI_EXIT_USAGE (message printed). */
static int serverinfo_check_options(const serverinfo_opts_t *so)
{
    if (!so->draft02 && so->activation > 1) {
        return cli_usage_error("serverinfo", "-a: draft-00 wants 0 or 1");
    }
    if (so->draft02 && so->nbs_paths > 0) {
        return cli_usage_error("serverinfo",
                               "draft-02 has no break signatures");
    }
    if (so->ntack_paths == 0 && (so->draft02 || so->nbs_paths == 0)) {
        return cli_usage_error("serverinfo", "needs -t TACKFILE");
    }
    if (so->ntack_paths > 1 && !so->draft02) {
        return cli_usage_error("serverinfo",
                               "draft-00 carries one TACK; two need "
                               "--format draft-02");
    }
    return -1;
}

/* serverinfo_option applies one option |c| (docs/tack.1, SERVERINFO).
 * Returns -1 when the command goes on, else the exit status (help
 * printed, or a usage error). */
static int serverinfo_option(int c, serverinfo_opts_t *so)
{
    switch (c) {
    case 't':
        if (so->ntack_paths == TACK_EXT02_MAX_TACKS) {
            return cli_usage_error("serverinfo", "at most two -t");
        }
        so->tack_paths[so->ntack_paths++] = optarg;
        break;
    case 'b':
        so->bs_paths[so->nbs_paths++] = optarg;
        break;
    case 'a':
        if (!cli_parse_uint(optarg, 0, 3, &so->activation)) {
            return cli_usage_error("serverinfo",
                                   "-a: want 0 or 1 (draft-02: 0 to 3), "
                                   "not \"%s\"",
                                   optarg);
        }
        break;
    case CLI_OPT_FORMAT:
        if (strcmp(optarg, "draft-00") == 0) {
            so->draft02 = 0;
        } else if (strcmp(optarg, "draft-02") == 0) {
            so->draft02 = 1;
        } else {
            return cli_usage_error("serverinfo",
                                   "--format: draft-00 or draft-02, not "
                                   "\"%s\"",
                                   optarg);
        }
        break;
    case 'c':
        so->cert_path = optarg;
        break;
    case 'o':
        so->out_path = optarg;
        break;
    case 'f':
        so->force = 1;
        break;
    case CLI_OPT_NOW:
        if (cli_opt_now("serverinfo", optarg) != CLI_EXIT_OK) {
            return CLI_EXIT_USAGE;
        }
        break;
    case CLI_OPT_V2:
        so->v2 = 1;
        break;
    case 'h':
        return cli_help(stdout, "serverinfo");
    default:
        return cli_usage_hint("serverinfo");
    }
    return -1;
}

/* serverinfo_parse_options fills |so| (so->bs_paths malloc'd: the caller
 * frees it).  Returns -1 when the command goes on, else the exit status
 * (help printed, or a usage error). */
static int serverinfo_parse_options(int argc, char **argv,
                                    serverinfo_opts_t *so)
{
    static const struct option longopts[] = {
        {"tack", required_argument, NULL, 't'},
        {"break-sigs", required_argument, NULL, 'b'},
        {"activation", required_argument, NULL, 'a'},
        {"format", required_argument, NULL, CLI_OPT_FORMAT},
        {"certificate", required_argument, NULL, 'c'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"v2", no_argument, NULL, CLI_OPT_V2},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;

    so->bs_paths = calloc((size_t)argc + 1, sizeof(*so->bs_paths));
    if (so->bs_paths == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    while ((c = getopt_long(argc, argv, "t:b:a:c:o:fh", longopts, NULL)) !=
           -1) {
        int rc = serverinfo_option(c, so);

        if (rc != -1) {
            return rc;
        }
    }
    /* Break-signature files may follow the options: -b A.pem B.pem */
    for (; optind < argc; optind++) {
        if (so->nbs_paths == 0) {
            return cli_usage_error("serverinfo", "unexpected argument \"%s\"",
                                   argv[optind]);
        }
        so->bs_paths[so->nbs_paths++] = argv[optind];
    }
    return serverinfo_check_options(so);
}

/* serverinfo_load reads the TACKs, the break signatures and the
 * certificate the options name into |in|. */
static int serverinfo_load(const serverinfo_opts_t *so, serverinfo_inputs_t *in)
{
    size_t i;
    int rc = CLI_EXIT_OK;

    for (i = 0; rc == CLI_EXIT_OK && i < so->ntack_paths; i++) {
        size_t n = 0;
        size_t room = so->draft02 ? TACK_EXT02_MAX_TACKS - in->ntacks : 1;

        if (room == 0) {
            cli_err("%s: too many TACKs (draft-02 carries two)",
                    so->tack_paths[i]);
            rc = CLI_EXIT_USAGE;
            break;
        }
        rc =
            cli_load_tacks(so->tack_paths[i], in->tacks + in->ntacks, room, &n);
        in->ntacks += n;
    }
    for (i = 0; rc == CLI_EXIT_OK && i < so->nbs_paths; i++) {
        rc = cli_load_breaksigs(so->bs_paths[i], in->bs, TACK_MAX_BREAKSIGS,
                                &in->nbs);
    }
    if (rc == CLI_EXIT_OK && so->cert_path != NULL) {
        rc = cli_load_cert(so->cert_path, &in->cert);
    }
    return rc;
}

/* serverinfo_validate refuses what every TACK client would refuse (spec
 * section 7): an invalid or expired TACK, one for another certificate, a
 * break signature of the TACK's own key or one that does not verify.
 * Returns CLI_EXIT_OK or CLI_EXIT_CHECK (each reason printed). */
static int serverinfo_validate(const serverinfo_opts_t *so,
                               const serverinfo_inputs_t *in)
{
    const tack_breaksig_t *bs = in->bs;
    time_t now = cli_now();
    tack_status_t st;
    size_t i, j;
    int rc = CLI_EXIT_OK;

    for (i = 0; i < in->ntacks; i++) {
        const char *where =
            so->tack_paths[so->draft02 && so->ntack_paths > 1 ? i : 0];

        st = tack_validate(&in->tacks[i], in->cert, now);
        if (st != TACK_OK) {
            cli_err("%s: %s%s%s", where, tack_status_str(st),
                    in->cert ? "; certificate " : "",
                    in->cert ? so->cert_path : "");
            rc = CLI_EXIT_CHECK;
        }
        for (j = 0; j < in->nbs; j++) {
            if (cli_breaksig_breaks(&bs[j], &in->tacks[i])) {
                cli_err("%s: break signature %zu breaks this very TACK's "
                        "key: clients would discard the pin at once",
                        where, j + 1);
                rc = CLI_EXIT_CHECK;
            }
        }
    }
    for (j = 0; j < in->nbs; j++) {
        st = tack_breaksig_verify(&bs[j]);
        if (st != TACK_OK) {
            char fpr[TACK_FINGERPRINT_SIZE];

            tack_fingerprint(bs[j].public_key, fpr);
            cli_err("break signature %zu (%s): %s", j + 1, fpr,
                    tack_status_str(st));
            rc = CLI_EXIT_CHECK;
        }
    }
    return rc;
}

/* serverinfo_encode writes the extension's body, in the draft's format,
 * into |body| (TACK_EXT00_MAX_LEN bytes). */
static int serverinfo_encode(const serverinfo_opts_t *so,
                             const serverinfo_inputs_t *in, uint8_t *body,
                             size_t *body_len)
{
    tack_status_t st;

    if (so->draft02) {
        tack_ext02_t e2;

        memset(&e2, 0, sizeof(e2));
        e2.num_tacks = in->ntacks;
        memcpy(e2.tacks, in->tacks, in->ntacks * sizeof(tack_t));
        if ((so->activation & 2) && in->ntacks < 2) {
            return cli_usage_error("serverinfo",
                                   "-a %lu activates a second TACK that is "
                                   "not there",
                                   so->activation);
        }
        e2.activation_flags = (uint8_t)so->activation;
        st = tack_ext02_encode(&e2, body, TACK_EXT00_MAX_LEN, body_len);
    } else {
        tack_ext00_t e0;

        memset(&e0, 0, sizeof(e0));
        e0.has_tack = in->ntacks > 0;
        if (in->ntacks > 0) {
            e0.tack = in->tacks[0];
        }
        e0.num_breaksigs = in->nbs;
        memcpy(e0.breaksigs, in->bs, in->nbs * sizeof(tack_breaksig_t));
        e0.pin_activation = (uint8_t)so->activation;
        st = tack_ext00_encode(&e0, body, TACK_EXT00_MAX_LEN, body_len);
    }
    if (st != TACK_OK) {
        cli_err("cannot encode the extension: %s", tack_status_str(st));
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* serverinfo_write wraps |body| in OpenSSL's serverinfo record and its PEM
 * block ("SERVERINFO FOR TACK", with --v2 "SERVERINFOV2 FOR TACK") and
 * writes it to -o or standard output. */
static int serverinfo_write(const serverinfo_opts_t *so, const uint8_t *body,
                            size_t body_len)
{
    uint8_t rec[8 + TACK_EXT00_MAX_LEN];
    size_t rec_len = 0, text_len = 0;
    char *text = NULL;
    tack_status_t st;
    int rc;

    /* OpenSSL's serverinfo record: [context(4)] type(2) length(2) body. */
    if (so->v2) {
        uint32_t ctx = VIEW_SERVERINFO_V2_CONTEXT;

        rec[0] = (uint8_t)(ctx >> 24);
        rec[1] = (uint8_t)(ctx >> 16);
        rec[2] = (uint8_t)(ctx >> 8);
        rec[3] = (uint8_t)ctx;
        rec_len = 4;
    }
    rec[rec_len++] = (uint8_t)(TACK_EXT_TYPE >> 8);
    rec[rec_len++] = (uint8_t)(TACK_EXT_TYPE & 0xff);
    rec[rec_len++] = (uint8_t)(body_len >> 8);
    rec[rec_len++] = (uint8_t)(body_len & 0xff);
    memcpy(rec + rec_len, body, body_len);
    rec_len += body_len;
    st = tack_pem_encode(
        &text, &text_len,
        so->v2 ? "SERVERINFOV2 FOR TACK" : "SERVERINFO FOR TACK", rec, rec_len);
    if (st != TACK_OK) {
        cli_err("cannot encode the PEM block: %s", tack_status_str(st));
        return CLI_EXIT_USAGE;
    }
    rc = cli_write_output(so->out_path, text, text_len, 0644, so->force);
    free(text);
    return rc;
}

int cmd_serverinfo(int argc, char **argv)
{
    serverinfo_opts_t so;
    serverinfo_inputs_t in;
    uint8_t body[TACK_EXT00_MAX_LEN];
    size_t body_len = 0;
    int rc;

    memset(&so, 0, sizeof(so));
    memset(&in, 0, sizeof(in));
    rc = serverinfo_parse_options(argc, argv, &so);
    if (rc != -1) {
        free(so.bs_paths);
        return rc;
    }
    rc = serverinfo_load(&so, &in);
    free(so.bs_paths);
    so.bs_paths = NULL;
    if (rc == CLI_EXIT_OK) {
        rc = serverinfo_validate(&so, &in);
    }
    X509_free(in.cert);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = serverinfo_encode(&so, &in, body, &body_len);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    return serverinfo_write(&so, body, body_len);
}
