/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_key.c -- TACK keys (ECDSA P-256, as OpenSSL EVP_PKEYs, to and from
 * the 64-byte public and 32-byte private forms of the wire and key files),
 * the raw r || s ECDSA signatures made with them (tack_ext.c builds a
 * TACK's and a break signature's messages on them), and the library
 * context a key from another provider signs in (tack_pkcs11.c records
 * its tokens' contexts here).  Everything goes through OpenSSL 3's EVP
 * interfaces.
 */
#include "tack_key.h"

#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

/* ---- Keys -----------------------------------------------------------------
 */

/* tack_key_is_p256 is 1 when |key| is an EC key on P-256. */
static int tack_key_is_p256(EVP_PKEY *key)
{
    char group[64];
    size_t len = 0;

    if (key == NULL || !EVP_PKEY_is_a(key, "EC")) {
        return 0;
    }
    if (!EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group,
                                        sizeof(group), &len)) {
        ERR_clear_error();
        return 0;
    }
    return strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0;
}

/* tack_key_fromdata builds a P-256 key from an uncompressed point and, when
 * |priv| is not NULL, the private scalar. */
static tack_status_t tack_key_fromdata(EVP_PKEY **out, const uint8_t pub65[65],
                                       const BIGNUM *priv)
{
    OSSL_PARAM_BLD *bld = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *pkey = NULL;
    tack_status_t st = TACK_ERR_CRYPTO;

    bld = OSSL_PARAM_BLD_new();
    if (bld == NULL ||
        !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
                                         "prime256v1", 0) ||
        !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub65,
                                          65) ||
        (priv != NULL &&
         !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv))) {
        goto done;
    }
    params = OSSL_PARAM_BLD_to_param(bld);
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0) {
        goto done;
    }
    /* OpenSSL decodes the point with EC_POINT_oct2point, which refuses a
     * point that is not on the curve: that failure is the peer's, not ours. */
    if (EVP_PKEY_fromdata(ctx, &pkey,
                          priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
                          params) <= 0) {
        ERR_clear_error();
        st = TACK_ERR_BAD_KEY;
        goto done;
    }
    *out = pkey;
    pkey = NULL;
    st = TACK_OK;
done:
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params); /* holds a copy of |priv|: freed, not wiped */
    OSSL_PARAM_BLD_free(bld);
    return st;
}

tack_status_t tack_key_from_public(EVP_PKEY **out,
                                   const uint8_t pub[TACK_KEY_LEN])
{
    uint8_t pub65[65];
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx;
    tack_status_t st;

    if (out == NULL || pub == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    pub65[0] = 0x04; /* uncompressed point: the draft drops this byte */
    memcpy(pub65 + 1, pub, TACK_KEY_LEN);
    st = tack_key_fromdata(&pkey, pub65, NULL);
    if (st != TACK_OK) {
        return st;
    }
    ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
    if (ctx == NULL) {
        EVP_PKEY_free(pkey);
        return TACK_ERR_NOMEM;
    }
    if (EVP_PKEY_public_check_quick(ctx) != 1) {
        ERR_clear_error();
        EVP_PKEY_CTX_free(ctx);
        EVP_PKEY_free(pkey);
        return TACK_ERR_BAD_KEY;
    }
    EVP_PKEY_CTX_free(ctx);
    *out = pkey;
    return TACK_OK;
}

tack_status_t tack_key_from_private(EVP_PKEY **out,
                                    const uint8_t priv[TACK_PRIV_LEN])
{
    EC_GROUP *group = NULL;
    EC_POINT *point = NULL;
    BIGNUM *d = NULL;
    BN_CTX *bnctx = NULL;
    uint8_t pub65[65];
    tack_status_t st = TACK_ERR_CRYPTO;

    if (out == NULL || priv == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    bnctx = BN_CTX_secure_new();
    d = BN_secure_new();
    if (group == NULL || bnctx == NULL || d == NULL ||
        BN_bin2bn(priv, TACK_PRIV_LEN, d) == NULL) {
        goto done;
    }
    if (BN_is_zero(d) || BN_cmp(d, EC_GROUP_get0_order(group)) >= 0) {
        st = TACK_ERR_BAD_KEY;
        goto done;
    }
    point = EC_POINT_new(group);
    if (point == NULL || !EC_POINT_mul(group, point, d, NULL, NULL, bnctx) ||
        EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, pub65,
                           sizeof(pub65), bnctx) != sizeof(pub65)) {
        goto done;
    }
    st = tack_key_fromdata(out, pub65, d);
done:
    EC_POINT_free(point);
    BN_clear_free(d);
    BN_CTX_free(bnctx);
    EC_GROUP_free(group);
    return st;
}

tack_status_t tack_key_generate(EVP_PKEY **out)
{
    if (out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    *out = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    return *out != NULL ? TACK_OK : TACK_ERR_CRYPTO;
}

/* tack_key_xy writes |key|'s affine coordinates as x || y. */
static int tack_key_xy(EVP_PKEY *key, uint8_t out[TACK_KEY_LEN])
{
    BIGNUM *x = NULL, *y = NULL;
    int ok;

    ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x) &&
         EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y) &&
         BN_bn2binpad(x, out, 32) == 32 && BN_bn2binpad(y, out + 32, 32) == 32;
    BN_free(x);
    BN_free(y);
    return ok;
}

tack_status_t tack_key_public(EVP_PKEY *key, uint8_t out[TACK_KEY_LEN])
{
    EVP_PKEY *plain = NULL;
    uint8_t *der = NULL;
    const uint8_t *p;
    int der_len, ok;

    if (key == NULL || out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    if (!tack_key_is_p256(key)) {
        return TACK_ERR_BAD_KEY;
    }
    /* The affine coordinates, whatever point format the key carries. */
    if (tack_key_xy(key, out)) {
        return TACK_OK;
    }
    /* A key some providers and legacy methods serve (a PKCS#11 token's)
     * answers for its group and its encoded point but not for the
     * coordinates: read them from a plain copy of its public half. */
    ERR_clear_error();
    der_len = i2d_PUBKEY(key, &der);
    p = der;
    if (der_len > 0) {
        plain = d2i_PUBKEY(NULL, &p, der_len);
    }
    ok = plain != NULL && tack_key_is_p256(plain) && tack_key_xy(plain, out);
    EVP_PKEY_free(plain);
    OPENSSL_free(der);
    if (!ok) {
        ERR_clear_error();
        return TACK_ERR_BAD_KEY;
    }
    return TACK_OK;
}

tack_status_t tack_key_private(EVP_PKEY *key, uint8_t out[TACK_PRIV_LEN])
{
    BIGNUM *d = NULL;
    tack_status_t st = TACK_ERR_BAD_KEY;

    if (key == NULL || out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    if (!tack_key_is_p256(key)) {
        return TACK_ERR_BAD_KEY;
    }
    /* A key whose scalar stays elsewhere (a token's, through a provider)
     * can report 0 here: never a P-256 private key. */
    if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &d) &&
        !BN_is_zero(d) &&
        BN_bn2binpad(d, out, TACK_PRIV_LEN) == TACK_PRIV_LEN) {
        st = TACK_OK;
    } else {
        ERR_clear_error();
    }
    BN_clear_free(d);
    return st;
}

/* tack_key_has_private is 1 when |key|'s provider says it holds a private
 * scalar.  Only the scalar's size is asked for (a parameter without a
 * buffer), so nothing secret is copied out of the key. */
static int tack_key_has_private(EVP_PKEY *key)
{
    OSSL_PARAM params[2] = {OSSL_PARAM_BN(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
                            OSSL_PARAM_END};
    int ok = EVP_PKEY_get_params(key, params) && OSSL_PARAM_modified(params);

    ERR_clear_error();
    return ok;
}

/* ---- Keys of other library contexts -------------------------------------- */

/* A library context and the providers in it whose keys are signed there
 * (a PKCS#11 token's, tack_pkcs11.c), kept for the life of the process: a
 * key holds its provider. */
typedef struct tack_key_ctx_st {
    struct tack_key_ctx_st *next;
    OSSL_LIB_CTX *libctx;
    size_t num_provs;
    const OSSL_PROVIDER *provs[TACK_KEY_LIBCTX_MAX_PROVIDERS];
} tack_key_ctx_t;

static tack_key_ctx_t *tack_key_ctxs;
static CRYPTO_RWLOCK *tack_key_lock;
static CRYPTO_ONCE tack_key_lock_once = CRYPTO_ONCE_STATIC_INIT;

static void tack_key_lock_init(void)
{
    tack_key_lock = CRYPTO_THREAD_lock_new();
}

tack_status_t tack_key_libctx_add(OSSL_LIB_CTX *libctx,
                                  const OSSL_PROVIDER *const *provs,
                                  size_t num_provs)
{
    tack_key_ctx_t *c;
    size_t i;

    if (libctx == NULL || provs == NULL || num_provs == 0 ||
        num_provs > TACK_KEY_LIBCTX_MAX_PROVIDERS) {
        return TACK_ERR_INVALID_ARG;
    }
    if (!CRYPTO_THREAD_run_once(&tack_key_lock_once, tack_key_lock_init) ||
        tack_key_lock == NULL || (c = OPENSSL_zalloc(sizeof(*c))) == NULL) {
        return TACK_ERR_NOMEM;
    }
    c->libctx = libctx;
    c->num_provs = num_provs;
    for (i = 0; i < num_provs; i++) {
        c->provs[i] = provs[i];
    }
    if (!CRYPTO_THREAD_write_lock(tack_key_lock)) {
        OPENSSL_free(c);
        return TACK_ERR_NOMEM;
    }
    c->next = tack_key_ctxs;
    tack_key_ctxs = c;
    CRYPTO_THREAD_unlock(tack_key_lock);
    return TACK_OK;
}

OSSL_LIB_CTX *tack_key_libctx(const EVP_PKEY *key)
{
    const OSSL_PROVIDER *prov =
        key != NULL ? EVP_PKEY_get0_provider(key) : NULL;
    OSSL_LIB_CTX *found = NULL;
    tack_key_ctx_t *c;
    size_t i;

    if (prov == NULL ||
        !CRYPTO_THREAD_run_once(&tack_key_lock_once, tack_key_lock_init) ||
        tack_key_lock == NULL || !CRYPTO_THREAD_read_lock(tack_key_lock)) {
        return NULL;
    }
    for (c = tack_key_ctxs; c != NULL && found == NULL; c = c->next) {
        for (i = 0; i < c->num_provs; i++) {
            if (prov == c->provs[i]) {
                found = c->libctx;
            }
        }
    }
    CRYPTO_THREAD_unlock(tack_key_lock);
    return found;
}

/* ---- ECDSA with raw r || s ------------------------------------------------
 */

tack_status_t tack_key_verify(const uint8_t pub[TACK_KEY_LEN],
                              const uint8_t *msg, size_t msg_len,
                              const uint8_t sig[TACK_SIG_LEN])
{
    EVP_PKEY *pkey = NULL;
    tack_status_t st;

    st = tack_key_from_public(&pkey, pub);
    if (st != TACK_OK) {
        return st;
    }
    st = tack_key_verify_with(pkey, msg, msg_len, sig);
    EVP_PKEY_free(pkey);
    return st;
}

tack_status_t tack_key_verify_with(EVP_PKEY *pkey, const uint8_t *msg,
                                   size_t msg_len,
                                   const uint8_t sig[TACK_SIG_LEN])
{
    ECDSA_SIG *esig = NULL;
    BIGNUM *r = NULL, *s = NULL;
    EVP_MD_CTX *md = NULL;
    uint8_t *der = NULL;
    int der_len, rc;
    tack_status_t st = TACK_ERR_CRYPTO;

    if (pkey == NULL || sig == NULL || (msg == NULL && msg_len > 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    esig = ECDSA_SIG_new();
    r = BN_bin2bn(sig, 32, NULL);
    s = BN_bin2bn(sig + 32, 32, NULL);
    if (esig == NULL || r == NULL || s == NULL || !ECDSA_SIG_set0(esig, r, s)) {
        BN_free(r);
        BN_free(s);
        goto done;
    }
    der_len = i2d_ECDSA_SIG(esig, &der);
    md = EVP_MD_CTX_new();
    if (der_len <= 0 || md == NULL ||
        EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) != 1) {
        goto done;
    }
    rc = EVP_DigestVerify(md, der, (size_t)der_len, msg, msg_len);
    if (rc == 1) {
        st = TACK_OK;
    } else {
        /* A signature that does not verify is the input's fault; do not
         * leave OpenSSL's complaint on the queue for the caller to log. */
        ERR_clear_error();
        st = TACK_ERR_BAD_SIGNATURE;
    }
done:
    OPENSSL_free(der);
    EVP_MD_CTX_free(md);
    ECDSA_SIG_free(esig);
    return st;
}

/* tack_ecdsa_sign signs SHA-256(|msg|) with |key|, as raw r || s.  A
 * token's key is signed with in its provider's library context: fetched
 * from the default one, OpenSSL would pick the default provider's ECDSA
 * and try to export a private key that never leaves the token. */
static tack_status_t tack_ecdsa_sign(EVP_PKEY *key, const uint8_t *msg,
                                     size_t msg_len, uint8_t sig[TACK_SIG_LEN])
{
    EVP_MD_CTX *md = NULL;
    uint8_t der[80]; /* a P-256 DER signature is at most 72 bytes */
    size_t der_len = sizeof(der);
    const uint8_t *p = der;
    ECDSA_SIG *esig = NULL;
    tack_status_t st = TACK_ERR_CRYPTO;

    md = EVP_MD_CTX_new();
    if (md == NULL ||
        EVP_DigestSignInit_ex(md, NULL, "SHA256", tack_key_libctx(key), NULL,
                              key, NULL) != 1 ||
        EVP_DigestSign(md, der, &der_len, msg, msg_len) != 1) {
        goto done;
    }
    esig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
    if (esig == NULL || BN_bn2binpad(ECDSA_SIG_get0_r(esig), sig, 32) != 32 ||
        BN_bn2binpad(ECDSA_SIG_get0_s(esig), sig + 32, 32) != 32) {
        goto done;
    }
    st = TACK_OK;
done:
    ECDSA_SIG_free(esig);
    EVP_MD_CTX_free(md);
    return st;
}

/* tack_key_sign never reads the private half: a key in a PKCS#11 token or
 * an HSM keeps its scalar, and whether a key can sign is learnt by
 * signing.  The signature is then verified against |pub|, so that a token
 * whose public object does not belong to its private key (or a faulty
 * signer) never produces a TACK no client accepts. */
tack_status_t tack_key_sign(EVP_PKEY *key, const uint8_t *msg, size_t msg_len,
                            uint8_t pub[TACK_KEY_LEN],
                            uint8_t sig[TACK_SIG_LEN])
{
    tack_status_t st;

    if ((st = tack_key_public(key, pub)) != TACK_OK) {
        return st;
    }
    st = tack_ecdsa_sign(key, msg, msg_len, sig);
    if (st != TACK_OK) {
        /* A plain public key cannot sign: that is the caller's key, not
         * OpenSSL, at fault.  Anything else (a token that went away) keeps
         * its reasons on the error queue. */
        if (!tack_key_has_private(key)) {
            ERR_clear_error();
            return TACK_ERR_BAD_KEY;
        }
        return st;
    }
    st = tack_key_verify(pub, msg, msg_len, sig);
    return st == TACK_ERR_BAD_SIGNATURE ? TACK_ERR_KEY_MISMATCH : st;
}

tack_status_t tack_key_check_signing(EVP_PKEY *key)
{
    static const char probe[] = "tack_key_check";
    uint8_t pub[TACK_KEY_LEN], sig[TACK_SIG_LEN];

    if (key == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    return tack_key_sign(key, (const uint8_t *)probe, sizeof(probe) - 1, pub,
                         sig);
}
