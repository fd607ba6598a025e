/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tackprobe.c -- a test-only TLS client for the Apache::Test suite.
 *
 * openssl s_client is the independent peer for TLS 1.2, but it cannot send a
 * non-empty TACK request, and it registers 0xF300 the TLS 1.2 way, so it
 * aborts when a TLS 1.3 server answers in EncryptedExtensions.  This probe
 * registers the extension for ServerHello and EncryptedExtensions, can send
 * a malformed request, and reports what came back:
 *
 *   version TLSv1.3
 *   resumed 0|1
 *   cert_spki <SHA-256 of the server certificate's SubjectPublicKeyInfo>
 *   ext <hex of the extension body> | ext none
 *   http <status line of the answer to HEAD />
 *
 * Usage: tackprobe -c HOST:PORT [-n SNI] [-v 1.2|1.3] [-x] [-N] [-a SIGALGS]
 *                  [-C CIPHERS] [-o SESSION_OUT] [-i SESSION_IN] [-p PATH]
 *                  [-f FILE]
 *   -x  send a non-empty request (one zero byte): the server must alert
 *   -N  do not ask for TACK
 *   -p  the path to request with HEAD (default /)
 *   -f  batch mode: one handshake (no HTTP request) per SNI name listed in
 *       FILE, one line each: "NAME <hex of the body>|none|error"
 * Exit status 0 after a complete handshake and HTTP exchange, 2 otherwise.
 * Built with libssl only: it does not share code with the module or core.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#define EXT_TYPE 0xF300

static int opt_nonempty, opt_norequest, got_ext;
static unsigned char ext_body[4096];
static size_t ext_len;

static int probe_add(SSL *s, unsigned int type, unsigned int context,
                     const unsigned char **out, size_t *outlen, X509 *x,
                     size_t chainidx, int *al, void *arg)
{
    static const unsigned char junk[1] = {0};

    if (opt_norequest) {
        return 0;
    }
    *out = opt_nonempty ? junk : NULL;
    *outlen = opt_nonempty ? 1 : 0;
    return 1;
}

static int probe_parse(SSL *s, unsigned int type, unsigned int context,
                       const unsigned char *in, size_t inlen, X509 *x,
                       size_t chainidx, int *al, void *arg)
{
    if (inlen > sizeof(ext_body)) {
        *al = SSL_AD_DECODE_ERROR;
        return 0;
    }
    memcpy(ext_body, in, inlen);
    ext_len = inlen;
    got_ext = 1;
    return 1;
}

static void print_hex(const char *label, const unsigned char *p, size_t n)
{
    size_t i;

    printf("%s ", label);
    for (i = 0; i < n; i++) {
        printf("%02x", p[i]);
    }
    printf("\n");
}

static int fail(const char *what)
{
    unsigned long e;
    char buf[256];

    printf("error %s", what);
    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        printf(" | %s", buf);
    }
    printf("\n");
    return 2;
}

/* run_batch: one handshake per name of |file|, reusing |ctx|. */
static int run_batch(SSL_CTX *ctx, const char *connect_to, const char *file)
{
    FILE *f = fopen(file, "r");
    char name[512];

    if (!f) {
        return fail("opening the batch file");
    }
    while (fgets(name, sizeof(name), f)) {
        BIO *bio;
        SSL *ssl;
        size_t i;

        name[strcspn(name, "\r\n")] = '\0';
        if (!name[0]) {
            continue;
        }
        got_ext = 0;
        ext_len = 0;
        bio = BIO_new_ssl_connect(ctx);
        BIO_set_conn_hostname(bio, connect_to);
        BIO_get_ssl(bio, &ssl);
        SSL_set_tlsext_host_name(ssl, name);
        printf("%s ", name);
        if (BIO_do_handshake(bio) <= 0) {
            printf("error\n");
            ERR_clear_error();
        } else if (!got_ext) {
            printf("none\n");
        } else {
            for (i = 0; i < ext_len; i++) {
                printf("%02x", ext_body[i]);
            }
            printf("\n");
        }
        SSL_shutdown(ssl);
        BIO_free_all(bio);
    }
    fclose(f);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const char *connect_to = NULL, *sni = NULL, *version = NULL;
    const char *sigalgs = NULL, *ciphers = NULL, *sess_out = NULL;
    const char *sess_in = NULL, *batch = NULL, *path = "/";
    SSL_CTX *ctx;
    SSL *ssl;
    BIO *bio;
    int opt;
    char buf[4096];
    unsigned int context;

    while ((opt = getopt(argc, argv, "c:n:v:xNa:C:o:i:f:p:")) != -1) {
        switch (opt) {
        case 'c':
            connect_to = optarg;
            break;
        case 'n':
            sni = optarg;
            break;
        case 'v':
            version = optarg;
            break;
        case 'x':
            opt_nonempty = 1;
            break;
        case 'N':
            opt_norequest = 1;
            break;
        case 'a':
            sigalgs = optarg;
            break;
        case 'C':
            ciphers = optarg;
            break;
        case 'o':
            sess_out = optarg;
            break;
        case 'i':
            sess_in = optarg;
            break;
        case 'f':
            batch = optarg;
            break;
        case 'p':
            path = optarg;
            break;
        default:
            fprintf(stderr,
                    "usage: tackprobe -c HOST:PORT [-n SNI] [-v 1.2|1.3]"
                    " [-x] [-N] [-a SIGALGS] [-C CIPHERS] [-o F] [-i F]"
                    " [-p PATH] [-f FILE]\n");
            return 2;
        }
    }
    if (!connect_to) {
        fprintf(stderr, "tackprobe: -c HOST:PORT is required\n");
        return 2;
    }
    ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        return fail("SSL_CTX_new");
    }
    if (version && !strcmp(version, "1.2")) {
        SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
        SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
    } else if (version && !strcmp(version, "1.3")) {
        SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    }
    if (sigalgs && !SSL_CTX_set1_sigalgs_list(ctx, sigalgs)) {
        return fail("sigalgs");
    }
    if (ciphers && !SSL_CTX_set_cipher_list(ctx, ciphers)) {
        return fail("ciphers");
    }
    context = SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO |
              SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS;
    if (!SSL_CTX_add_custom_ext(ctx, EXT_TYPE, context, probe_add, NULL, NULL,
                                probe_parse, NULL)) {
        return fail("SSL_CTX_add_custom_ext");
    }
    if (batch) {
        return run_batch(ctx, connect_to, batch);
    }
    bio = BIO_new_ssl_connect(ctx);
    if (!bio) {
        return fail("BIO_new_ssl_connect");
    }
    BIO_set_conn_hostname(bio, connect_to);
    BIO_get_ssl(bio, &ssl);
    if (sni) {
        SSL_set_tlsext_host_name(ssl, sni);
    }
    if (sess_in) {
        FILE *f = fopen(sess_in, "r");
        SSL_SESSION *sess =
            f ? PEM_read_SSL_SESSION(f, NULL, NULL, NULL) : NULL;

        if (f) {
            fclose(f);
        }
        if (!sess || !SSL_set_session(ssl, sess)) {
            return fail("reading the session");
        }
        SSL_SESSION_free(sess);
    }
    if (BIO_do_handshake(bio) <= 0) {
        return fail("handshake");
    }
    printf("version %s\n", SSL_get_version(ssl));
    printf("resumed %d\n", SSL_session_reused(ssl));
    {
        X509 *cert = SSL_get0_peer_certificate(ssl);
        unsigned char *der = NULL, md[EVP_MAX_MD_SIZE];
        unsigned int mdlen = 0;
        int len = cert ? i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der) : -1;

        if (len > 0 &&
            EVP_Digest(der, (size_t)len, md, &mdlen, EVP_sha256(), NULL)) {
            print_hex("cert_spki", md, mdlen);
        }
        OPENSSL_free(der);
    }
    if (got_ext) {
        print_hex("ext", ext_body, ext_len);
    } else {
        printf("ext none\n");
    }
    /* A request completes the exchange (and, in TLS 1.3, brings the
     * session ticket that -o saves). */
    snprintf(buf, sizeof(buf), "HEAD %s HTTP/1.0\r\nHost: %s\r\n\r\n", path,
             sni ? sni : "localhost");
    BIO_puts(bio, buf);
    (void)BIO_flush(bio);
    {
        int n, first = 1;

        while ((n = BIO_read(bio, buf, sizeof(buf) - 1)) > 0) {
            if (first) {
                buf[n] = '\0';
                buf[strcspn(buf, "\r\n")] = '\0';
                printf("http %s\n", buf);
                first = 0;
            }
        }
    }
    if (sess_out) {
        SSL_SESSION *sess = SSL_get1_session(ssl);
        FILE *f = fopen(sess_out, "w");

        if (!sess || !f || !PEM_write_SSL_SESSION(f, sess)) {
            return fail("writing the session");
        }
        fclose(f);
        SSL_SESSION_free(sess);
    }
    BIO_free_all(bio);
    SSL_CTX_free(ctx);
    fflush(stdout);
    return 0;
}
