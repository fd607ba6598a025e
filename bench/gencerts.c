/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * gencerts.c -- make many self-signed server certificates, fast, for the
 * start-up benchmark's generated virtual hosts.
 *
 *   gencerts -n COUNT -o DIR [--prefix P] [--domain D] [--rsa BITS]
 *            [--days N] [--start I]
 *
 * writes DIR/<P><i>.<D>.crt and .key for i in START..START+COUNT-1, the
 * number zero-padded to five digits (v00001.bench.test.crt).  Each
 * certificate has its own key -- a TACK's target_hash names one public key,
 * so vhosts sharing a key would not be what a hosting provider runs -- a
 * P-256 key by default, CN and subjectAltName set to the name, and
 * basicConstraints=critical,CA:FALSE so that mod_ssl does not warn.  Files
 * that already exist are kept (re-running only fills the gaps), so a
 * benchmark can grow its fleet from 100 to 10,000 without redoing work.
 *
 * One long-lived process does in a second what ten thousand `openssl req`
 * runs do in minutes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static void fail(const char *what)
{
    fprintf(stderr, "gencerts: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

/* mkdir_p creates |dir| and its missing parents, like mkdir -p. */
static int mkdir_p(const char *dir)
{
    char path[4096];
    size_t i, len = strlen(dir);

    if (len == 0 || len >= sizeof(path)) {
        errno = EINVAL;
        return -1;
    }
    memcpy(path, dir, len + 1);
    for (i = 1; i <= len; i++) {
        if (path[i] == '/' || path[i] == '\0') {
            char c = path[i];
            path[i] = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                return -1;
            }
            path[i] = c;
        }
    }
    return 0;
}

static void usage(FILE *fp)
{
    fputs("usage: gencerts -n COUNT -o DIR [--prefix P] [--domain D]\n"
          "                [--rsa BITS] [--days N] [--start I]\n"
          "\n"
          "Writes DIR/<P><i>.<D>.crt and .key (default v00001.bench.test),\n"
          "i from START (default 1) for COUNT certificates, each with its own\n"
          "P-256 key (RSA with --rsa BITS), self-signed, CN and\n"
          "subjectAltName set to the name, basicConstraints=critical,\n"
          "CA:FALSE, valid from an hour ago for DAYS (default 365).\n"
          "Existing files are kept.\n",
          fp);
}

static int add_ext(X509 *cert, int nid, const char *value)
{
    X509V3_CTX v3;
    X509_EXTENSION *ext;
    int ok;

    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert, cert, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
    if (ext == NULL) {
        return 0;
    }
    ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

static void write_pem(const char *path, int is_key, void *obj)
{
    FILE *fp = fopen(path, "w");
    int ok;

    if (fp == NULL) {
        fprintf(stderr, "gencerts: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    if (is_key) {
        fchmod(fileno(fp), 0600);
        ok = PEM_write_PrivateKey(fp, obj, NULL, NULL, 0, NULL, NULL);
    } else {
        ok = PEM_write_X509(fp, obj);
    }
    if (!ok || fclose(fp) != 0) {
        fail(path);
    }
}

static void make_one(const char *dir, const char *name, int rsa_bits, long days)
{
    char crt[4096], key[4096], san[600];
    EVP_PKEY *pkey;
    X509 *cert;
    X509_NAME *subj;
    static long serial = 1;

    snprintf(crt, sizeof(crt), "%s/%s.crt", dir, name);
    snprintf(key, sizeof(key), "%s/%s.key", dir, name);
    if (access(crt, F_OK) == 0 && access(key, F_OK) == 0) {
        return;
    }
    pkey = rsa_bits ? EVP_RSA_gen((unsigned)rsa_bits) : EVP_EC_gen("P-256");
    if (pkey == NULL) {
        fail("key generation failed");
    }
    cert = X509_new();
    if (cert == NULL || !X509_set_version(cert, 2) ||
        !ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++) ||
        X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == NULL ||
        X509_time_adj_ex(X509_getm_notAfter(cert), (int)days, 0, NULL) ==
            NULL ||
        !X509_set_pubkey(cert, pkey)) {
        fail("certificate set-up failed");
    }
    subj = X509_get_subject_name(cert);
    if (!X509_NAME_add_entry_by_txt(subj, "CN", MBSTRING_ASC,
                                    (const unsigned char *)name, -1, -1, 0) ||
        !X509_set_issuer_name(cert, subj)) {
        fail("subject name");
    }
    snprintf(san, sizeof(san), "DNS:%s", name);
    if (!add_ext(cert, NID_basic_constraints, "critical,CA:FALSE") ||
        !add_ext(cert, NID_subject_alt_name, san) ||
        !X509_sign(cert, pkey, EVP_sha256())) {
        fail("certificate signing");
    }
    write_pem(key, 1, pkey);
    write_pem(crt, 0, cert);
    X509_free(cert);
    EVP_PKEY_free(pkey);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"count", required_argument, NULL, 'n'},
        {"output", required_argument, NULL, 'o'},
        {"prefix", required_argument, NULL, 'P'},
        {"domain", required_argument, NULL, 'D'},
        {"rsa", required_argument, NULL, 'R'},
        {"days", required_argument, NULL, 'd'},
        {"start", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = NULL, *prefix = "v", *domain = "bench.test";
    long count = -1, start = 1, days = 365, i;
    int rsa_bits = 0, ch;

    while ((ch = getopt_long(argc, argv, "n:o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'n':
            count = strtol(optarg, NULL, 10);
            break;
        case 'o':
            dir = optarg;
            break;
        case 'P':
            prefix = optarg;
            break;
        case 'D':
            domain = optarg;
            break;
        case 'R':
            rsa_bits = atoi(optarg);
            break;
        case 'd':
            days = strtol(optarg, NULL, 10);
            break;
        case 's':
            start = strtol(optarg, NULL, 10);
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (dir == NULL || count < 0 || optind != argc || days <= 0 ||
        rsa_bits < 0 || (rsa_bits > 0 && rsa_bits < 1024)) {
        usage(stderr);
        return 2;
    }
    if (mkdir_p(dir) != 0) {
        fprintf(stderr, "gencerts: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (i = start; i < start + count; i++) {
        char name[512];
        snprintf(name, sizeof(name), "%s%05ld.%s", prefix, i, domain);
        make_one(dir, name, rsa_bits, days);
    }
    return 0;
}
