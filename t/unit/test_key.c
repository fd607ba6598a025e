/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_key.c -- tack_key.c: P-256 keys in their wire forms (the 32-byte
 * scalar, the 64-byte point), raw r || s ECDSA signatures made and
 * checked (against the vectors' TACKs and OpenSSL's EVP interface, not
 * only the library itself), and keys whose scalar cannot be read: a
 * PKCS#11 token's, without a token (an EC_KEY whose EC_KEY_METHOD signs
 * with a hidden key, as libp11 does), and a provider's key in a library
 * context of its own (tack_key_libctx).  t/tool/12-pkcs11.t loads real
 * token keys.
 *
 * EC_KEY_METHOD is deprecated in OpenSSL 3.0 but is what engines use, so
 * this file alone silences the deprecation.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/provider.h>

#include "tests.h"
#include "tack_key.h"
#include "tack_ext.h"

/* ---- wire forms ---------------------------------------------------------- */

START_TEST(key_generate_makes_distinct_p256_keys)
{
    EVP_PKEY *a = NULL, *b = NULL;
    uint8_t pa[TACK_KEY_LEN], pb[TACK_KEY_LEN], raw[TACK_KEY_LEN];

    ck_assert_status(tack_key_generate(&a), TACK_OK);
    ck_assert_status(tack_key_generate(&b), TACK_OK);
    ck_assert_int_eq(EVP_PKEY_get_base_id(a), EVP_PKEY_EC);
    ck_assert_int_eq(EVP_PKEY_get_bits(a), 256);
    ck_assert(EVP_PKEY_is_a(a, "EC"));
    ck_assert_status(tack_key_public(a, pa), TACK_OK);
    ck_assert_status(tack_key_public(b, pb), TACK_OK);
    ck_assert_mem_ne(pa, pb, TACK_KEY_LEN);
    tt_raw_public(a, raw);
    ck_assert_mem_eq(pa, raw, TACK_KEY_LEN);
    EVP_PKEY_free(b);
    EVP_PKEY_free(a);
}
END_TEST

START_TEST(key_from_private_computes_the_known_public_key)
{
    uint8_t priv[TACK_PRIV_LEN], pub[TACK_KEY_LEN], got[TACK_KEY_LEN];
    EVP_PKEY *key = NULL;

    tt_hex_to(
        priv, sizeof(priv),
        "fc815de8b1de13a436e9cd69742cbf2cd4c1c9bb33e023401d9291cf2781b754");
    tt_hex_to(
        pub, sizeof(pub),
        "87301842fe0feb8edbbf1279881e852e4fddf8f225de79139a2d544f74dab0af"
        "ee4a11f8ed4d8eee5c0e909a14549fe5e60de3ca46e7111d891c41a14f9f3825");
    ck_assert_status(tack_key_from_private(&key, priv), TACK_OK);
    ck_assert_status(tack_key_public(key, got), TACK_OK);
    ck_assert_mem_eq(got, pub, TACK_KEY_LEN);
    ck_assert_status(tack_key_private(key, got), TACK_OK);
    ck_assert_mem_eq(got, priv, TACK_PRIV_LEN);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(key_from_private_of_one_is_the_generator)
{
    uint8_t priv[TACK_PRIV_LEN] = {0}, gen[TACK_KEY_LEN], got[TACK_KEY_LEN];
    EVP_PKEY *key = NULL;

    priv[31] = 1;
    tt_hex_to(
        gen, sizeof(gen),
        "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
        "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5");
    ck_assert_status(tack_key_from_private(&key, priv), TACK_OK);
    ck_assert_status(tack_key_public(key, got), TACK_OK);
    ck_assert_mem_eq(got, gen, TACK_KEY_LEN);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(key_from_private_refuses_zero_and_scalars_from_n)
{
    static const char *const bad[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        /* n */
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632552",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    };
    uint8_t priv[TACK_PRIV_LEN];
    EVP_PKEY *key = NULL;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tack_status_t st;

        key = NULL;
        tt_hex_to(priv, sizeof(priv), bad[i]);
        st = tack_key_from_private(&key, priv);
        ck_assert_msg(st == TACK_ERR_BAD_KEY, "scalar %s: %s", bad[i],
                      tack_status_str(st));
    }
    /* n - 1 is the largest valid scalar. */
    tt_hex_to(
        priv, sizeof(priv),
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550");
    key = NULL;
    ck_assert_status(tack_key_from_private(&key, priv), TACK_OK);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(key_from_public_accepts_points_on_the_curve_only)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    uint8_t pub[TACK_KEY_LEN], got[TACK_KEY_LEN];
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_key_from_public(&key, tack.public_key), TACK_OK);
    ck_assert_status(tack_key_public(key, got), TACK_OK);
    ck_assert_mem_eq(got, tack.public_key, TACK_KEY_LEN);
    EVP_PKEY_free(key);

    memcpy(pub, tack.public_key, TACK_KEY_LEN);
    pub[63] ^= 1;
    key = NULL;
    ck_assert_status(tack_key_from_public(&key, pub), TACK_ERR_BAD_KEY);
    memset(pub, 0, sizeof(pub));
    key = NULL;
    ck_assert_status(tack_key_from_public(&key, pub), TACK_ERR_BAD_KEY);
    /* x = p is out of range even if it were on the curve. */
    tt_hex_to(
        pub, 32,
        "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff");
    key = NULL;
    ck_assert_status(tack_key_from_public(&key, pub), TACK_ERR_BAD_KEY);
}
END_TEST

START_TEST(key_public_and_private_refuse_non_p256_keys)
{
    EVP_PKEY *rsa = tt_make_rsa_key();
    uint8_t out[TACK_KEY_LEN];

    ck_assert_status_fails(tack_key_public(rsa, out));
    ck_assert_status_fails(tack_key_private(rsa, out));
    EVP_PKEY_free(rsa);
}
END_TEST

/* ---- raw ECDSA: tack_key_sign, tack_key_verify --------------------------- */

/* The TACKs of the vectors whose signatures the README calls valid, read
 * with OpenSSL's base64 decoder (tt_pem_bytes), not the library's. */
static const char *const key_vector_tacks[] = {
    "draft00/TACK1.pem",
    "draft00/tackpy-unit-TACK.pem",
};

/* key_vector_message writes the message a vector TACK's signature covers,
 * "tack_sig" || its first TACK_SIGNED_LEN wire bytes (draft-00 section
 * 3.1), and its public key and signature, from the raw bytes. */
static void key_vector_message(const char *rel, uint8_t pub[TACK_KEY_LEN],
                               uint8_t msg[8 + TACK_SIGNED_LEN],
                               uint8_t sig[TACK_SIG_LEN])
{
    size_t len = 0;
    uint8_t *raw = tt_pem_bytes(rel, "TACK", 0, &len);

    ck_assert_uint_eq(len, TACK_LEN);
    memcpy(pub, raw, TACK_KEY_LEN);
    memcpy(msg, "tack_sig", 8);
    memcpy(msg + 8, raw, TACK_SIGNED_LEN);
    memcpy(sig, raw + TACK_SIGNED_LEN, TACK_SIG_LEN);
    free(raw);
}

START_TEST(key_verify_accepts_the_reference_signatures)
{
    uint8_t pub[TACK_KEY_LEN], msg[8 + TACK_SIGNED_LEN], sig[TACK_SIG_LEN];

    key_vector_message(key_vector_tacks[_i], pub, msg, sig);
    ck_assert_status(tack_key_verify(pub, msg, sizeof(msg), sig), TACK_OK);
    /* the independent verifier agrees */
    ck_assert_int_eq(tt_raw_verify(pub, msg, sizeof(msg), sig), 1);
}
END_TEST

/* One byte changed anywhere (the signature, the message, the key) and the
 * signature is refused: a wrong signature or message is
 * TACK_ERR_BAD_SIGNATURE with OpenSSL's error queue left empty; a key
 * changed is off the curve (TACK_ERR_BAD_KEY) or, if it lands on it, a
 * key the signature is not by. */
START_TEST(key_verify_refuses_every_flipped_byte)
{
    uint8_t pub[TACK_KEY_LEN], msg[8 + TACK_SIGNED_LEN], sig[TACK_SIG_LEN];
    size_t i;

    key_vector_message(key_vector_tacks[_i], pub, msg, sig);
    for (i = 0; i < sizeof(sig); i++) {
        sig[i] ^= 0x01;
        ck_assert_status(tack_key_verify(pub, msg, sizeof(msg), sig),
                         TACK_ERR_BAD_SIGNATURE);
        ck_assert_int_eq(ERR_peek_error(), 0);
        sig[i] ^= 0x01;
    }
    for (i = 0; i < sizeof(msg); i++) {
        msg[i] ^= 0x80;
        ck_assert_status(tack_key_verify(pub, msg, sizeof(msg), sig),
                         TACK_ERR_BAD_SIGNATURE);
        msg[i] ^= 0x80;
    }
    for (i = 0; i < sizeof(pub); i++) {
        tack_status_t st;

        pub[i] ^= 0x01;
        st = tack_key_verify(pub, msg, sizeof(msg), sig);
        ck_assert_msg(st == TACK_ERR_BAD_KEY || st == TACK_ERR_BAD_SIGNATURE,
                      "public key byte %zu flipped: %s", i,
                      tack_status_str(st));
        pub[i] ^= 0x01;
    }
    /* a message one byte shorter or longer is another message */
    ck_assert_status(tack_key_verify(pub, msg, sizeof(msg) - 1, sig),
                     TACK_ERR_BAD_SIGNATURE);
    ck_assert_status(tack_key_verify(pub, msg, sizeof(msg), sig), TACK_OK);
}
END_TEST

START_TEST(key_sign_then_verify_round_trips_and_openssl_agrees)
{
    uint8_t msg[300], pub[TACK_KEY_LEN], raw[TACK_KEY_LEN], sig[TACK_SIG_LEN];
    uint32_t seed = 0x5e1f;
    EVP_PKEY *key = NULL;
    size_t i, len;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    tt_raw_public(key, raw);
    for (i = 0; i < sizeof(msg); i++) {
        msg[i] = (uint8_t)tt_xorshift(&seed);
    }
    /* the empty message, short ones, one of a TACK's length, longer */
    for (len = 0; len <= sizeof(msg); len += len < 8 ? 1 : 73) {
        memset(pub, 0, sizeof(pub));
        ck_assert_status(tack_key_sign(key, msg, len, pub, sig), TACK_OK);
        ck_assert_mem_eq(pub, raw, TACK_KEY_LEN);
        ck_assert_msg(tt_raw_verify(raw, msg, len, sig) == 1,
                      "a message of %zu bytes: OpenSSL refuses the signature",
                      len);
        ck_assert_status(tack_key_verify(pub, msg, len, sig), TACK_OK);
        sig[len % TACK_SIG_LEN] ^= 0x10;
        ck_assert_status(tack_key_verify(pub, msg, len, sig),
                         TACK_ERR_BAD_SIGNATURE);
    }
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(key_verify_accepts_an_independent_signature)
{
    static const uint8_t msg[] = "tack_sig, signed by OpenSSL's EVP";
    uint8_t pub[TACK_KEY_LEN], sig[TACK_SIG_LEN];
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    tt_raw_public(key, pub);
    tt_raw_sign(key, msg, sizeof(msg), sig);
    ck_assert_status(tack_key_verify(pub, msg, sizeof(msg), sig), TACK_OK);
    EVP_PKEY_free(key);
}
END_TEST

/* A key's wire forms give back the same key: the 32-byte scalar a key
 * with the same public point, the 64-byte point a key that verifies but
 * cannot sign. */
START_TEST(key_wire_forms_round_trip_and_a_public_key_cannot_sign)
{
    static const uint8_t msg[] = "wire forms";
    uint8_t priv[TACK_PRIV_LEN], pub[TACK_KEY_LEN], back[TACK_KEY_LEN];
    uint8_t sig[TACK_SIG_LEN], out[TACK_KEY_LEN];
    EVP_PKEY *key = NULL, *again = NULL, *public_only = NULL;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_status(tack_key_private(key, priv), TACK_OK);
    ck_assert_status(tack_key_public(key, pub), TACK_OK);
    tt_raw_private(key, out);
    ck_assert_mem_eq(priv, out, TACK_PRIV_LEN);

    ck_assert_status(tack_key_from_private(&again, priv), TACK_OK);
    ck_assert_status(tack_key_public(again, back), TACK_OK);
    ck_assert_mem_eq(back, pub, TACK_KEY_LEN);
    ck_assert_status(tack_key_check_signing(again), TACK_OK);

    ck_assert_status(tack_key_from_public(&public_only, pub), TACK_OK);
    ck_assert_status(tack_key_public(public_only, back), TACK_OK);
    ck_assert_mem_eq(back, pub, TACK_KEY_LEN);
    ck_assert_status(tack_key_private(public_only, out), TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_sign(public_only, msg, sizeof(msg), out, sig),
                     TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_check_signing(public_only), TACK_ERR_BAD_KEY);

    /* what the scalar's key signs, the point's key verifies */
    ck_assert_status(tack_key_sign(again, msg, sizeof(msg), out, sig), TACK_OK);
    ck_assert_status(tack_key_verify(pub, msg, sizeof(msg), sig), TACK_OK);
    OPENSSL_cleanse(priv, sizeof(priv));
    EVP_PKEY_free(public_only);
    EVP_PKEY_free(again);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(key_sign_refuses_a_key_that_is_not_p256)
{
    static const uint8_t msg[] = "not P-256";
    EVP_PKEY *rsa = tt_make_rsa_key();
    EVP_PKEY *p384 = EVP_EC_gen("P-384");
    uint8_t pub[TACK_KEY_LEN], sig[TACK_SIG_LEN];

    ck_assert_ptr_nonnull(p384);
    ck_assert_status(tack_key_sign(rsa, msg, sizeof(msg), pub, sig),
                     TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_sign(p384, msg, sizeof(msg), pub, sig),
                     TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_check_signing(rsa), TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_check_signing(p384), TACK_ERR_BAD_KEY);
    EVP_PKEY_free(p384);
    EVP_PKEY_free(rsa);
}
END_TEST

/* ---- a token's key, without a token -------------------------------------- */

/* The key the method signs with; each test runs in its own process. */
static EVP_PKEY *tt_hidden;

static ECDSA_SIG *tt_hidden_sign_sig(const unsigned char *dgst, int dgst_len,
                                     const BIGNUM *kinv, const BIGNUM *r,
                                     EC_KEY *eckey)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(tt_hidden, NULL);
    unsigned char der[80];
    size_t der_len = sizeof(der);
    const unsigned char *p = der;
    ECDSA_SIG *sig = NULL;

    if (ctx != NULL && EVP_PKEY_sign_init(ctx) == 1 &&
        EVP_PKEY_sign(ctx, der, &der_len, dgst, (size_t)dgst_len) == 1) {
        sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
    }
    EVP_PKEY_CTX_free(ctx);
    return sig;
}

static int tt_hidden_sign(int type, const unsigned char *dgst, int dlen,
                          unsigned char *out, unsigned int *out_len,
                          const BIGNUM *kinv, const BIGNUM *r, EC_KEY *eckey)
{
    ECDSA_SIG *sig = tt_hidden_sign_sig(dgst, dlen, kinv, r, eckey);
    int n = sig != NULL ? i2d_ECDSA_SIG(sig, &out) : 0;

    ECDSA_SIG_free(sig);
    *out_len = n > 0 ? (unsigned)n : 0;
    return n > 0;
}

/* tt_token_like_key returns a P-256 key whose public point is |pub_of|'s
 * and which holds no private scalar: its signatures come from |signer|. */
static EVP_PKEY *tt_token_like_key(EVP_PKEY *pub_of, EVP_PKEY *signer)
{
    static EC_KEY_METHOD *meth;
    uint8_t xy[TACK_KEY_LEN], oct[1 + TACK_KEY_LEN];
    EC_KEY *ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    EVP_PKEY *key = EVP_PKEY_new();

    if (meth == NULL) {
        meth = EC_KEY_METHOD_new(EC_KEY_get_default_method());
        ck_assert_ptr_nonnull(meth);
        EC_KEY_METHOD_set_sign(meth, tt_hidden_sign, NULL, tt_hidden_sign_sig);
    }
    tt_hidden = signer;
    tt_raw_public(pub_of, xy);
    oct[0] = 0x04;
    memcpy(oct + 1, xy, TACK_KEY_LEN);
    ck_assert_ptr_nonnull(ec);
    ck_assert_ptr_nonnull(key);
    ck_assert_int_eq(EC_KEY_oct2key(ec, oct, sizeof(oct), NULL), 1);
    ck_assert_int_eq(EC_KEY_set_method(ec, meth), 1);
    ck_assert_int_eq(EVP_PKEY_assign_EC_KEY(key, ec), 1);
    return key;
}

START_TEST(pkcs11_key_without_scalar_signs_a_tack_that_verifies)
{
    EVP_PKEY *real = NULL, *token;
    uint8_t priv[TACK_PRIV_LEN], want[TACK_KEY_LEN];
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    tack_breaksig_t sig;

    ck_assert_status(tack_key_generate(&real), TACK_OK);
    token = tt_token_like_key(real, real);
    /* Nothing to read: the scalar is not in the key. */
    ck_assert_status(tack_key_private(token, priv), TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_check_signing(token), TACK_OK);
    ck_assert_status(tack_sign(&tack, token), TACK_OK);
    tt_raw_public(real, want);
    ck_assert_mem_eq(tack.public_key, want, TACK_KEY_LEN);
    ck_assert_status(tack_verify(&tack), TACK_OK);
    ck_assert_status(tack_breaksig_create(&sig, token), TACK_OK);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_OK);
    ck_assert_int_eq(ERR_peek_error(), 0);
    EVP_PKEY_free(token);
    EVP_PKEY_free(real);
}
END_TEST

START_TEST(pkcs11_key_signing_with_another_key_is_a_mismatch)
{
    EVP_PKEY *shown = NULL, *other = NULL, *token;
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    tack_breaksig_t sig;

    /* A token whose public object is not its private key's. */
    ck_assert_status(tack_key_generate(&shown), TACK_OK);
    ck_assert_status(tack_key_generate(&other), TACK_OK);
    token = tt_token_like_key(shown, other);
    ck_assert_status(tack_key_check_signing(token), TACK_ERR_KEY_MISMATCH);
    ck_assert_status(tack_sign(&tack, token), TACK_ERR_KEY_MISMATCH);
    ck_assert_status(tack_breaksig_create(&sig, token), TACK_ERR_KEY_MISMATCH);
    EVP_PKEY_free(token);
    EVP_PKEY_free(other);
    EVP_PKEY_free(shown);
}
END_TEST

/* ---- the library context a token's key signs in -------------------------- */

START_TEST(key_libctx_is_null_for_keys_not_from_a_token)
{
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_ptr_null(tack_key_libctx(key));
    ck_assert_ptr_null(tack_key_libctx(NULL));
    EVP_PKEY_free(key);
}
END_TEST

/* A key of a provider loaded into a library context of its own (as
 * tack_pkcs11.c loads the token's): once that context is recorded, the
 * key's context is found and the key signs a TACK that verifies; a
 * provider of the default context is not taken for it. */
START_TEST(key_libctx_found_for_a_recorded_context)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = NULL;
    const OSSL_PROVIDER *provs[1];
    EVP_PKEY *key = NULL, *plain = NULL;
    tack_t tack;

    ck_assert_ptr_nonnull(libctx);
    prov = OSSL_PROVIDER_load(libctx, "default");
    ck_assert_ptr_nonnull(prov);
    key = EVP_PKEY_Q_keygen(libctx, NULL, "EC", "P-256");
    ck_assert_ptr_nonnull(key);
    ck_assert_ptr_null(tack_key_libctx(key));
    provs[0] = prov;
    ck_assert_status(tack_key_libctx_add(libctx, provs, 0),
                     TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_key_libctx_add(libctx, provs, 1), TACK_OK);
    ck_assert_ptr_eq(tack_key_libctx(key), libctx);
    ck_assert_status(tack_key_generate(&plain), TACK_OK);
    ck_assert_ptr_null(tack_key_libctx(plain));

    memset(&tack, 0, sizeof(tack));
    tack.expiration = 0xffffffff;
    ck_assert_status(tack_sign(&tack, key), TACK_OK);
    ck_assert_status(tack_verify(&tack), TACK_OK);
    /* Recorded for the life of the process: neither is freed. */
    EVP_PKEY_free(plain);
    EVP_PKEY_free(key);
}
END_TEST

Suite *key_suite(void)
{
    Suite *s = suite_create("key");
    TCase *forms = tcase_create("forms");
    TCase *ecdsa = tcase_create("ecdsa");
    TCase *token = tcase_create("token");
    int n = (int)(sizeof(key_vector_tacks) / sizeof(key_vector_tacks[0]));

    tcase_set_timeout(forms, TT_TIMEOUT);
    tcase_add_test(forms, key_generate_makes_distinct_p256_keys);
    tcase_add_test(forms, key_from_private_computes_the_known_public_key);
    tcase_add_test(forms, key_from_private_of_one_is_the_generator);
    tcase_add_test(forms, key_from_private_refuses_zero_and_scalars_from_n);
    tcase_add_test(forms, key_from_public_accepts_points_on_the_curve_only);
    tcase_add_test(forms, key_public_and_private_refuse_non_p256_keys);
    tcase_add_test(forms,
                   key_wire_forms_round_trip_and_a_public_key_cannot_sign);
    suite_add_tcase(s, forms);

    tcase_set_timeout(ecdsa, TT_TIMEOUT);
    tcase_add_loop_test(ecdsa, key_verify_accepts_the_reference_signatures, 0,
                        n);
    tcase_add_loop_test(ecdsa, key_verify_refuses_every_flipped_byte, 0, n);
    tcase_add_test(ecdsa, key_sign_then_verify_round_trips_and_openssl_agrees);
    tcase_add_test(ecdsa, key_verify_accepts_an_independent_signature);
    tcase_add_test(ecdsa, key_sign_refuses_a_key_that_is_not_p256);
    suite_add_tcase(s, ecdsa);

    tcase_set_timeout(token, TT_TIMEOUT);
    tcase_add_test(token, pkcs11_key_without_scalar_signs_a_tack_that_verifies);
    tcase_add_test(token, pkcs11_key_signing_with_another_key_is_a_mismatch);
    tcase_add_test(token, key_libctx_is_null_for_keys_not_from_a_token);
    tcase_add_test(token, key_libctx_found_for_a_recorded_context);
    suite_add_tcase(s, token);
    return s;
}
