/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tests.c -- helpers shared by the unit tests (declared in tests.h).
 *
 * The helpers read vectors with plain stdio and decode hex themselves, so a
 * bug in the library's own file or PEM code cannot make a known answer agree
 * with itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>

#include "tests.h"
#include "tack_util.h"
#include "tack_key.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_keyfile.h"

const char *tt_top(void)
{
    const char *top = getenv("TACK_TOP");

    if (top == NULL || *top == '\0') {
        ck_abort_msg("TACK_TOP is not set: run the tests as "
                     "TACK_TOP=<repository root> build/check_tack");
    }
    return top;
}

void tt_vector_path(char *out, size_t out_cap, const char *rel)
{
    int n = snprintf(out, out_cap, "%s/t/vectors/%s", tt_top(), rel);

    ck_assert_msg(n > 0 && (size_t)n < out_cap, "path too long: %s", rel);
}

char *tt_read_vector(const char *rel, size_t *len)
{
    char path[4096];
    FILE *f;
    char *buf = NULL;
    size_t cap = 0, used = 0, n;

    tt_vector_path(path, sizeof(path), rel);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open vector %s", path);
    do {
        if (cap - used < 4096) {
            cap = cap * 2 + 4096;
            buf = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(buf);
        }
        n = fread(buf + used, 1, cap - used, f);
        used += n;
    } while (n > 0);
    ck_assert_msg(!ferror(f), "cannot read vector %s", path);
    fclose(f);
    buf[used] = '\0';
    *len = used;
    return buf;
}

uint8_t *tt_hex_decode(const char *hex, size_t *len)
{
    size_t cap = strlen(hex) / 2 + 1, n = 0;
    uint8_t *out = malloc(cap);
    int hi = -1;

    ck_assert_ptr_nonnull(out);
    for (; *hex != '\0'; hex++) {
        int v;

        if (*hex == ' ' || *hex == '\n' || *hex == '\r' || *hex == '\t') {
            continue;
        }
        v = tack_hex_digit((unsigned char)*hex);
        ck_assert_msg(v >= 0, "not a hex digit: '%c'", *hex);
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    ck_assert_msg(hi < 0, "odd number of hex digits");
    *len = n;
    return out;
}

void tt_hex_to(uint8_t *out, size_t len, const char *hex)
{
    size_t n;
    uint8_t *bytes = tt_hex_decode(hex, &n);

    ck_assert_msg(n == len, "hex string has %zu bytes, want %zu", n, len);
    memcpy(out, bytes, len);
    free(bytes);
}

uint8_t *tt_read_hex_vector(const char *rel, size_t *len)
{
    size_t text_len;
    char *text = tt_read_vector(rel, &text_len);
    uint8_t *bytes = tt_hex_decode(text, len);

    free(text);
    return bytes;
}

void tt_hex_encode(char *out, const uint8_t *in, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 0x0f];
    }
    out[2 * len] = '\0';
}

void tt_sha256_hex(char out[65], const uint8_t *in, size_t len)
{
    uint8_t md[SHA256_DIGEST_LENGTH];

    ck_assert_ptr_nonnull(SHA256(in, len, md));
    tt_hex_encode(out, md, sizeof(md));
}

uint8_t *tt_pem_bytes(const char *rel, const char *label, size_t index,
                      size_t *len)
{
    char begin[128], end[128];
    size_t text_len, b64_len = 0, i;
    char *text = tt_read_vector(rel, &text_len);
    char *p = text, *stop, *b64;
    uint8_t *out;
    int n, pad = 0;

    snprintf(begin, sizeof(begin), "-----BEGIN %s-----", label);
    snprintf(end, sizeof(end), "-----END %s-----", label);
    for (i = 0;; i++) {
        p = strstr(p, begin);
        ck_assert_msg(p != NULL, "%s: no %s block #%zu", rel, label, index);
        p += strlen(begin);
        if (i == index) {
            break;
        }
    }
    stop = strstr(p, end);
    ck_assert_msg(stop != NULL, "%s: no END for %s", rel, label);
    b64 = malloc((size_t)(stop - p) + 1);
    ck_assert_ptr_nonnull(b64);
    for (; p < stop; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            b64[b64_len++] = *p;
        }
    }
    b64[b64_len] = '\0';
    while (b64_len > (size_t)pad && b64[b64_len - 1 - (size_t)pad] == '=') {
        pad++;
    }
    out = malloc(b64_len / 4 * 3 + 1);
    ck_assert_ptr_nonnull(out);
    n = EVP_DecodeBlock(out, (const unsigned char *)b64, (int)b64_len);
    ck_assert_msg(n >= pad, "%s: bad base64 in %s block", rel, label);
    *len = (size_t)(n - pad);
    free(b64);
    free(text);
    return out;
}

void tt_assert_tack_eq(const tack_t *got, const tack_t *want)
{
    ck_assert_mem_eq(got->public_key, want->public_key, TACK_KEY_LEN);
    ck_assert_uint_eq(got->min_generation, want->min_generation);
    ck_assert_uint_eq(got->generation, want->generation);
    ck_assert_uint_eq(got->expiration, want->expiration);
    ck_assert_mem_eq(got->target_hash, want->target_hash, TACK_HASH_LEN);
    ck_assert_mem_eq(got->signature, want->signature, TACK_SIG_LEN);
}

void tt_assert_breaksig_eq(const tack_breaksig_t *got,
                           const tack_breaksig_t *want)
{
    ck_assert_mem_eq(got->public_key, want->public_key, TACK_KEY_LEN);
    ck_assert_mem_eq(got->signature, want->signature, TACK_SIG_LEN);
}

void tt_tack_message(const tack_t *tack, uint8_t out[8 + TACK_SIGNED_LEN])
{
    memcpy(out, "tack_sig", 8);
    memcpy(out + 8, tack->public_key, TACK_KEY_LEN);
    out[8 + 64] = tack->min_generation;
    out[8 + 65] = tack->generation;
    out[8 + 66] = (uint8_t)(tack->expiration >> 24);
    out[8 + 67] = (uint8_t)(tack->expiration >> 16);
    out[8 + 68] = (uint8_t)(tack->expiration >> 8);
    out[8 + 69] = (uint8_t)tack->expiration;
    memcpy(out + 8 + 70, tack->target_hash, TACK_HASH_LEN);
}

void tt_raw_public(EVP_PKEY *key, uint8_t out[TACK_KEY_LEN])
{
    uint8_t point[65];
    size_t len = 0;

    ck_assert_int_eq(
        EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, point,
                                        sizeof(point), &len),
        1);
    ck_assert_uint_eq(len, 65);
    ck_assert_uint_eq(point[0], 0x04);
    memcpy(out, point + 1, TACK_KEY_LEN);
}

void tt_raw_private(EVP_PKEY *key, uint8_t out[TACK_PRIV_LEN])
{
    BIGNUM *bn = NULL;

    ck_assert_int_eq(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &bn),
                     1);
    ck_assert_int_eq(BN_bn2binpad(bn, out, TACK_PRIV_LEN), TACK_PRIV_LEN);
    BN_clear_free(bn);
}

void tt_raw_sign(EVP_PKEY *key, const uint8_t *msg, size_t msg_len,
                 uint8_t sig[TACK_SIG_LEN])
{
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    unsigned char der[128];
    const unsigned char *p = der;
    size_t der_len = sizeof(der);
    ECDSA_SIG *es;
    const BIGNUM *r, *s;

    ck_assert_ptr_nonnull(mctx);
    ck_assert_int_eq(EVP_DigestSignInit(mctx, NULL, EVP_sha256(), NULL, key),
                     1);
    ck_assert_int_eq(EVP_DigestSign(mctx, der, &der_len, msg, msg_len), 1);
    EVP_MD_CTX_free(mctx);
    es = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
    ck_assert_ptr_nonnull(es);
    ECDSA_SIG_get0(es, &r, &s);
    ck_assert_int_eq(BN_bn2binpad(r, sig, 32), 32);
    ck_assert_int_eq(BN_bn2binpad(s, sig + 32, 32), 32);
    ECDSA_SIG_free(es);
}

int tt_raw_verify(const uint8_t pub[TACK_KEY_LEN], const uint8_t *msg,
                  size_t msg_len, const uint8_t sig[TACK_SIG_LEN])
{
    uint8_t point[65];
    char group[] = "prime256v1";
    OSSL_PARAM params[3];
    EVP_PKEY_CTX *pctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *pkey = NULL;
    EVP_MD_CTX *mctx = NULL;
    ECDSA_SIG *es = NULL;
    BIGNUM *r = NULL, *s = NULL;
    unsigned char *der = NULL;
    int der_len, ok = 0;

    point[0] = 0x04;
    memcpy(point + 1, pub, TACK_KEY_LEN);
    params[0] =
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY,
                                                  point, sizeof(point));
    params[2] = OSSL_PARAM_construct_end();
    ck_assert_ptr_nonnull(pctx);
    if (EVP_PKEY_fromdata_init(pctx) != 1 ||
        EVP_PKEY_fromdata(pctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        goto done;
    }
    es = ECDSA_SIG_new();
    r = BN_bin2bn(sig, 32, NULL);
    s = BN_bin2bn(sig + 32, 32, NULL);
    ck_assert(es != NULL && r != NULL && s != NULL);
    ck_assert_int_eq(ECDSA_SIG_set0(es, r, s), 1);
    der_len = i2d_ECDSA_SIG(es, &der);
    ck_assert_int_gt(der_len, 0);
    mctx = EVP_MD_CTX_new();
    ck_assert_ptr_nonnull(mctx);
    ck_assert_int_eq(EVP_DigestVerifyInit(mctx, NULL, EVP_sha256(), NULL, pkey),
                     1);
    ok = EVP_DigestVerify(mctx, der, (size_t)der_len, msg, msg_len) == 1;
done:
    ERR_clear_error();
    EVP_MD_CTX_free(mctx);
    OPENSSL_free(der);
    ECDSA_SIG_free(es);
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(pctx);
    return ok;
}

void tt_tack_sign_raw(tack_t *tack, EVP_PKEY *key)
{
    uint8_t msg[8 + TACK_SIGNED_LEN];

    tt_raw_public(key, tack->public_key);
    tt_tack_message(tack, msg);
    tt_raw_sign(key, msg, sizeof(msg), tack->signature);
}

X509 *tt_load_cert(const char *rel)
{
    char path[4096];
    FILE *f;
    X509 *cert;

    tt_vector_path(path, sizeof(path), rel);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    cert = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    ck_assert_msg(cert != NULL, "no certificate in %s", path);
    return cert;
}

tack_t tt_load_tack(const char *rel, size_t index)
{
    tack_t tacks[4];
    size_t len, count = 0;
    unsigned line = 0;
    char *pem = tt_read_vector(rel, &len);

    ck_assert_status(tack_tacks_from_pem(tacks, 4, &count, pem, len, &line),
                     TACK_OK);
    free(pem);
    ck_assert_msg(index < count, "%s has %zu TACKs, want #%zu", rel, count,
                  index);
    return tacks[index];
}

size_t tt_load_breaksigs(const char *rel, tack_breaksig_t out[], size_t max)
{
    size_t len, count = 0;
    unsigned line = 0;
    char *pem = tt_read_vector(rel, &len);

    ck_assert_status(tack_breaksigs_from_pem(out, max, &count, pem, len, &line),
                     TACK_OK);
    free(pem);
    return count;
}

tack_keyfile_t tt_load_keyfile(const char *rel)
{
    tack_keyfile_t kf;
    size_t len;
    unsigned line = 0;
    char *pem = tt_read_vector(rel, &len);

    ck_assert_status(tack_keyfile_from_pem(&kf, pem, len, &line), TACK_OK);
    free(pem);
    return kf;
}

EVP_PKEY *tt_load_key(const char *rel, const char *password)
{
    tack_keyfile_t kf = tt_load_keyfile(rel);
    EVP_PKEY *key = NULL;

    ck_assert_status(
        tack_keyfile_decrypt(&kf, password, strlen(password), &key), TACK_OK);
    ck_assert_ptr_nonnull(key);
    return key;
}

X509 *tt_make_cert(EVP_PKEY **key_out)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    X509_NAME *name;

    ck_assert_ptr_nonnull(key);
    ck_assert_ptr_nonnull(cert);
    ck_assert_int_eq(X509_set_version(cert, 2), 1);
    ck_assert_int_eq(ASN1_INTEGER_set(X509_get_serialNumber(cert), 1), 1);
    ck_assert_ptr_nonnull(X509_gmtime_adj(X509_getm_notBefore(cert), 0));
    ck_assert_ptr_nonnull(
        X509_gmtime_adj(X509_getm_notAfter(cert), 365L * 24 * 3600));
    /* A name of our own: OpenSSL 4.0's X509_get_subject_name gives a
     * const one. */
    name = X509_NAME_new();
    ck_assert_ptr_nonnull(name);
    ck_assert_int_eq(X509_NAME_add_entry_by_txt(
                         name, "CN", MBSTRING_ASC,
                         (const unsigned char *)"tack.test", -1, -1, 0),
                     1);
    ck_assert_int_eq(X509_set_subject_name(cert, name), 1);
    ck_assert_int_eq(X509_set_issuer_name(cert, name), 1);
    X509_NAME_free(name);
    ck_assert_int_eq(X509_set_pubkey(cert, key), 1);
    ck_assert_int_gt(X509_sign(cert, key, EVP_sha256()), 0);
    if (key_out != NULL) {
        *key_out = key;
    } else {
        EVP_PKEY_free(key);
    }
    return cert;
}

X509 *tt_cert(EVP_PKEY *key, const char *cn, const char *san)
{
    EVP_PKEY *own = key ? NULL : EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    X509_NAME *name = X509_NAME_new();

    ck_assert_ptr_nonnull(cert);
    ck_assert_ptr_nonnull(name);
    ck_assert_int_eq(X509_set_version(cert, 2), 1);
    ck_assert_ptr_nonnull(X509_gmtime_adj(X509_getm_notBefore(cert), 0));
    ck_assert_ptr_nonnull(X509_gmtime_adj(X509_getm_notAfter(cert), 3600));
    if (cn != NULL) {
        ck_assert_int_eq(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                                    (const unsigned char *)cn,
                                                    -1, -1, 0),
                         1);
    }
    ck_assert_int_eq(X509_set_subject_name(cert, name), 1);
    X509_NAME_free(name);
    if (san != NULL) {
        X509_EXTENSION *ext =
            X509V3_EXT_conf_nid(NULL, NULL, NID_subject_alt_name, san);

        ck_assert_ptr_nonnull(ext);
        ck_assert_int_eq(X509_add_ext(cert, ext, -1), 1);
        X509_EXTENSION_free(ext);
    }
    ck_assert_int_eq(X509_set_pubkey(cert, key ? key : own), 1);
    EVP_PKEY_free(own);
    return cert;
}

EVP_PKEY *tt_make_rsa_key(void)
{
    EVP_PKEY *key = EVP_RSA_gen(2048);

    ck_assert_ptr_nonnull(key);
    return key;
}

tack_t tt_sign_new(EVP_PKEY **key_out, uint8_t min_generation,
                   uint8_t generation, uint32_t expiration, uint8_t target_byte)
{
    tack_t tack;
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_ptr_nonnull(key);
    memset(&tack, 0, sizeof(tack));
    tack.min_generation = min_generation;
    tack.generation = generation;
    tack.expiration = expiration;
    memset(tack.target_hash, target_byte, sizeof(tack.target_hash));
    ck_assert_status(tack_sign(&tack, key), TACK_OK);
    if (key_out != NULL) {
        *key_out = key;
    } else {
        EVP_PKEY_free(key);
    }
    return tack;
}

uint32_t tt_xorshift(uint32_t *state)
{
    uint32_t x = *state;

    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}
