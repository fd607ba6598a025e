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

/* The SERVERINFOV2 context that serves the TACK in TLS 1.2 ServerHello and
 * TLS 1.3 EncryptedExtensions, on full handshakes only. */
#define VIEW_SERVERINFO_V2_CONTEXT                                             \
    (SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO |                      \
     SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS | SSL_EXT_IGNORE_ON_RESUMPTION)

/* ---- view ---------------------------------------------------------------- */

typedef struct {
    int json;
    json_t *items; /* --json: every item of every file */
    X509 *cert;    /* -c: check TACKs against this certificate */
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
        cli_hex(kf->public_key, TACK_KEY_LEN, key);
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
    char hex[2 * TACK_HASH_LEN + 1], when[32];
    char *b64 = NULL, *subject = NULL;
    time_t not_after = 0;

    view_sep(v, 0);
    if (tack_spki_hash(cert, hash) != TACK_OK) {
        cli_err("%s: cannot hash the certificate's public key", file);
        cli_ssl_errors();
        view_worse(v, CLI_EXIT_USAGE);
        return;
    }
    cli_hex(hash, sizeof(hash), hex);
    b64 = cli_base64(hash, sizeof(hash));
    subject = cli_cert_subject(cert);
    if (!cli_asn1_time(X509_get0_notAfter(cert), &not_after)) {
        snprintf(when, sizeof(when), "?");
    } else {
        cli_format_time(not_after, 1, when, sizeof(when));
    }
    if (v->json) {
        view_add(v, file,
                 json_pack("{s:s, s:s?, s:s, s:s, s:s?}", "type", "certificate",
                           "subject", subject, "not_after", when, "key_sha256",
                           hex, "pin_sha256", b64));
    } else {
        printf("key_sha256     = %s\n"
               "notAfter       = %s\n"
               "pin-sha256     = \"%s\"\n"
               "subject        = %s\n",
               hex, when, b64 ? b64 : "?", subject ? subject : "?");
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
    cli_err("%s: the TACK extension (%zu bytes) is neither a draft-00 nor a "
            "draft-02 body",
            file, len);
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

/* view_labels lists the distinct PEM labels of |text| into |out|. */
static size_t view_labels(const char *text, char out[][64], size_t max)
{
    const char *p = text;
    size_t n = 0, i;

    while ((p = strstr(p, "-----BEGIN ")) != NULL) {
        const char *s = p + 11;
        const char *e = strstr(s, "-----");
        size_t len;
        int dup = 0;

        p = s;
        if (e == NULL || (size_t)(e - s) >= 64 || memchr(s, '\n', e - s)) {
            continue;
        }
        len = (size_t)(e - s);
        for (i = 0; i < n; i++) {
            if (strlen(out[i]) == len && memcmp(out[i], s, len) == 0) {
                dup = 1;
            }
        }
        if (!dup && n < max) {
            memcpy(out[n], s, len);
            out[n][len] = '\0';
            n++;
        }
    }
    return n;
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

static void view_file(view_ctx_t *v, const char *file)
{
    char *text = NULL;
    size_t len = 0, nlabels, i, j;
    char labels[16][64];
    int known = 0;
    tack_pem_t pem;

    v->printed = 0;
    v->last_breaksig = 0;
    if (cli_read_file(file, &text, &len) != CLI_EXIT_OK) {
        view_worse(v, CLI_EXIT_USAGE);
        return;
    }
    nlabels = view_labels(text, labels, 16);
    for (i = 0; i < nlabels; i++) {
        const char *label = labels[i];

        if (strcmp(label, TACK_PEM_LABEL_TACK) == 0) {
            known = 1;
            if (view_pem_blocks(v, file, text, len, label, &pem)) {
                for (j = 0; j < pem.count; j++) {
                    tack_t tack;
                    tack_status_t st = tack_parse(&tack, pem.blocks[j].data,
                                                  pem.blocks[j].len);

                    if (st != TACK_OK) {
                        cli_err("%s: line %u: TACK block: %s (%zu bytes, "
                                "want %d)",
                                file, pem.blocks[j].line, tack_status_str(st),
                                pem.blocks[j].len, TACK_LEN);
                        view_worse(v, CLI_EXIT_USAGE);
                        continue;
                    }
                    view_tack(v, file, &tack, j);
                }
                tack_pem_free(&pem);
            }
        } else if (strcmp(label, TACK_PEM_LABEL_BREAKSIG) == 0) {
            known = 1;
            if (view_pem_blocks(v, file, text, len, label, &pem)) {
                for (j = 0; j < pem.count; j++) {
                    tack_breaksig_t sig;
                    tack_status_t st = tack_breaksig_parse(
                        &sig, pem.blocks[j].data, pem.blocks[j].len);

                    if (st != TACK_OK) {
                        cli_err("%s: line %u: TACK BREAK SIG block: %s (%zu "
                                "bytes, want %d)",
                                file, pem.blocks[j].line, tack_status_str(st),
                                pem.blocks[j].len, TACK_BREAKSIG_LEN);
                        view_worse(v, CLI_EXIT_USAGE);
                        continue;
                    }
                    view_breaksig(v, file, &sig, j);
                }
                tack_pem_free(&pem);
            }
        } else if (strcmp(label, TACK_PEM_LABEL_KEY) == 0) {
            tack_keyfile_t kf;
            unsigned line = 0;
            tack_status_t st;

            known = 1;
            st = tack_keyfile_from_pem(&kf, text, len, &line);
            if (st != TACK_OK) {
                cli_err("%s: line %u: TACK PRIVATE KEY block: %s", file, line,
                        tack_status_str(st));
                view_worse(v, CLI_EXIT_USAGE);
            } else {
                view_keyfile(v, file, &kf);
            }
            OPENSSL_cleanse(&kf, sizeof(kf));
        } else if (strcmp(label, "CERTIFICATE") == 0) {
            BIO *bio = BIO_new_mem_buf(text, (int)len);
            X509 *cert;

            known = 1;
            while (bio != NULL &&
                   (cert = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
                view_cert(v, file, cert);
                X509_free(cert);
            }
            ERR_clear_error();
            BIO_free(bio);
        } else if (strncmp(label, "SERVERINFO FOR ", 15) == 0 ||
                   strncmp(label, "SERVERINFOV2 FOR ", 17) == 0) {
            known = 1;
            if (view_pem_blocks(v, file, text, len, label, &pem)) {
                for (j = 0; j < pem.count; j++) {
                    view_serverinfo(v, file, pem.blocks[j].data,
                                    pem.blocks[j].len, label[10] == 'V');
                }
                tack_pem_free(&pem);
            }
        }
    }
    if (!known) {
        const unsigned char *p = (const unsigned char *)text;
        X509 *cert = nlabels ? NULL : d2i_X509(NULL, &p, (long)len);

        ERR_clear_error();
        if (cert != NULL) {
            view_cert(v, file, cert);
            X509_free(cert);
        } else if (nlabels > 0) {
            cli_err("%s: not a TACK, break signature, TACK key, certificate "
                    "or serverinfo file (it holds \"BEGIN %s\")",
                    file, labels[0]);
            view_worse(v, CLI_EXIT_USAGE);
        } else {
            cli_err("%s: not a TACK, break signature, TACK key, certificate "
                    "or serverinfo file (no PEM block, not DER)",
                    file);
            view_worse(v, CLI_EXIT_USAGE);
        }
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
        case CLI_OPT_NOW:
            if (!cli_parse_when(optarg, time(NULL), &cli_now_value)) {
                return cli_usage_error("view", "--now: bad time \"%s\"",
                                       optarg);
            }
            cli_now_set = 1;
            break;
        case 'h':
            return cli_help(stdout, "view");
        default:
            return cli_usage_error("view", "unknown option");
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

int cmd_serverinfo(int argc, char **argv)
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
    const char *tack_paths[TACK_EXT02_MAX_TACKS + 1];
    const char **bs_paths;
    size_t ntack_paths = 0, nbs_paths = 0, ntacks = 0, nbs = 0, i, j;
    const char *out_path = NULL, *cert_path = NULL;
    unsigned long activation = 0;
    int draft02 = 0, v2 = 0, force = 0, c, rc = CLI_EXIT_OK;
    tack_t tacks[TACK_EXT02_MAX_TACKS];
    tack_breaksig_t bs[TACK_MAX_BREAKSIGS];
    uint8_t body[TACK_EXT00_MAX_LEN], rec[8 + TACK_EXT00_MAX_LEN];
    size_t body_len = 0, rec_len, text_len = 0;
    char *text = NULL;
    X509 *cert = NULL;
    time_t now;
    tack_status_t st;

    bs_paths = calloc((size_t)argc + 1, sizeof(*bs_paths));
    if (bs_paths == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    while ((c = getopt_long(argc, argv, "t:b:a:c:o:fh", longopts, NULL)) !=
           -1) {
        switch (c) {
        case 't':
            if (ntack_paths == TACK_EXT02_MAX_TACKS) {
                free(bs_paths);
                return cli_usage_error("serverinfo", "at most two -t");
            }
            tack_paths[ntack_paths++] = optarg;
            break;
        case 'b':
            bs_paths[nbs_paths++] = optarg;
            break;
        case 'a':
            if (!cli_parse_uint(optarg, 0, 3, &activation)) {
                free(bs_paths);
                return cli_usage_error("serverinfo",
                                       "-a: want 0 or 1 (draft-02: 0 to 3), "
                                       "not \"%s\"",
                                       optarg);
            }
            break;
        case CLI_OPT_FORMAT:
            if (strcmp(optarg, "draft-00") == 0) {
                draft02 = 0;
            } else if (strcmp(optarg, "draft-02") == 0) {
                draft02 = 1;
            } else {
                free(bs_paths);
                return cli_usage_error("serverinfo",
                                       "--format: draft-00 or draft-02, not "
                                       "\"%s\"",
                                       optarg);
            }
            break;
        case 'c':
            cert_path = optarg;
            break;
        case 'o':
            out_path = optarg;
            break;
        case 'f':
            force = 1;
            break;
        case CLI_OPT_NOW:
            if (!cli_parse_when(optarg, time(NULL), &cli_now_value)) {
                free(bs_paths);
                return cli_usage_error("serverinfo", "--now: bad time \"%s\"",
                                       optarg);
            }
            cli_now_set = 1;
            break;
        case CLI_OPT_V2:
            v2 = 1;
            break;
        case 'h':
            free(bs_paths);
            return cli_help(stdout, "serverinfo");
        default:
            free(bs_paths);
            return cli_usage_error("serverinfo", "unknown option");
        }
    }
    /* Break-signature files may follow the options: -b A.pem B.pem */
    for (; optind < argc; optind++) {
        if (nbs_paths == 0) {
            free(bs_paths);
            return cli_usage_error("serverinfo", "unexpected argument \"%s\"",
                                   argv[optind]);
        }
        bs_paths[nbs_paths++] = argv[optind];
    }
    if (!draft02 && activation > 1) {
        free(bs_paths);
        return cli_usage_error("serverinfo", "-a: draft-00 wants 0 or 1");
    }
    if (draft02 && nbs_paths > 0) {
        free(bs_paths);
        return cli_usage_error("serverinfo",
                               "draft-02 has no break signatures");
    }
    if (ntack_paths == 0 && (draft02 || nbs_paths == 0)) {
        free(bs_paths);
        return cli_usage_error("serverinfo", "needs -t TACKFILE");
    }
    if (ntack_paths > 1 && !draft02) {
        free(bs_paths);
        return cli_usage_error("serverinfo",
                               "draft-00 carries one TACK; two need "
                               "--format draft-02");
    }

    for (i = 0; rc == CLI_EXIT_OK && i < ntack_paths; i++) {
        size_t n = 0;
        size_t room = draft02 ? TACK_EXT02_MAX_TACKS - ntacks : 1;

        if (room == 0) {
            cli_err("%s: too many TACKs (draft-02 carries two)", tack_paths[i]);
            rc = CLI_EXIT_USAGE;
            break;
        }
        rc = cli_load_tacks(tack_paths[i], tacks + ntacks, room, &n);
        ntacks += n;
    }
    for (i = 0; rc == CLI_EXIT_OK && i < nbs_paths; i++) {
        rc = cli_load_breaksigs(bs_paths[i], bs, TACK_MAX_BREAKSIGS, &nbs);
    }
    free(bs_paths);
    if (rc == CLI_EXIT_OK && cert_path != NULL) {
        rc = cli_load_cert(cert_path, &cert);
    }
    if (rc != CLI_EXIT_OK) {
        X509_free(cert);
        return rc;
    }

    /* Refuse what every TACK client would refuse (spec section 7). */
    now = cli_now();
    for (i = 0; i < ntacks; i++) {
        const char *where = tack_paths[draft02 && ntack_paths > 1 ? i : 0];

        st = tack_validate(&tacks[i], cert, now);
        if (st != TACK_OK) {
            cli_err("%s: %s%s%s", where, tack_status_str(st),
                    cert ? "; certificate " : "", cert ? cert_path : "");
            rc = CLI_EXIT_CHECK;
        }
        for (j = 0; j < nbs; j++) {
            if (CRYPTO_memcmp(bs[j].public_key, tacks[i].public_key,
                              TACK_KEY_LEN) == 0) {
                cli_err("%s: break signature %zu breaks this very TACK's "
                        "key: clients would discard the pin at once",
                        where, j + 1);
                rc = CLI_EXIT_CHECK;
            }
        }
    }
    for (j = 0; j < nbs; j++) {
        st = tack_breaksig_verify(&bs[j]);
        if (st != TACK_OK) {
            char fpr[TACK_FINGERPRINT_SIZE];

            tack_fingerprint(bs[j].public_key, fpr);
            cli_err("break signature %zu (%s): %s", j + 1, fpr,
                    tack_status_str(st));
            rc = CLI_EXIT_CHECK;
        }
    }
    X509_free(cert);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }

    if (draft02) {
        tack_ext02_t e2;

        memset(&e2, 0, sizeof(e2));
        e2.num_tacks = ntacks;
        memcpy(e2.tacks, tacks, ntacks * sizeof(tack_t));
        if ((activation & 2) && ntacks < 2) {
            return cli_usage_error("serverinfo",
                                   "-a %lu activates a second TACK that is "
                                   "not there",
                                   activation);
        }
        e2.activation_flags = (uint8_t)activation;
        st = tack_ext02_encode(&e2, body, sizeof(body), &body_len);
    } else {
        tack_ext00_t e0;

        memset(&e0, 0, sizeof(e0));
        e0.has_tack = ntacks > 0;
        if (ntacks > 0) {
            e0.tack = tacks[0];
        }
        e0.num_breaksigs = nbs;
        memcpy(e0.breaksigs, bs, nbs * sizeof(tack_breaksig_t));
        e0.pin_activation = (uint8_t)activation;
        st = tack_ext00_encode(&e0, body, sizeof(body), &body_len);
    }
    if (st != TACK_OK) {
        cli_err("cannot encode the extension: %s", tack_status_str(st));
        return CLI_EXIT_USAGE;
    }

    /* OpenSSL's serverinfo record: [context(4)] type(2) length(2) body. */
    rec_len = 0;
    if (v2) {
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
    st = tack_pem_encode(&text, &text_len,
                         v2 ? "SERVERINFOV2 FOR TACK" : "SERVERINFO FOR TACK",
                         rec, rec_len);
    if (st != TACK_OK) {
        cli_err("cannot encode the PEM block: %s", tack_status_str(st));
        return CLI_EXIT_USAGE;
    }
    rc = cli_write_output(out_path, text, text_len, 0644, force);
    free(text);
    return rc;
}
