/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_ext_breaksig.c -- tack_ext.c's draft-00 break signatures (TCase
 * "breaksig" of the suite "ext", test_ext.c): known answers, codec,
 * verification and creation.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "tack_key.h"
#include "tack_ext.h"

typedef struct {
    const char *file;
    size_t index;
    const char *fingerprint;
} breaksig_vector_t;

static const breaksig_vector_t breaksig_vectors[] = {
    {"draft00/TACK_Break_Sigs.pem", 0, "nxt3o.zoovj.xq5qk.mue76.wmx6t"},
    {"draft00/TACK_Break_Sigs.pem", 1, "neuda.jg26x.ixmom.wzdry.qxdii"},
    {"draft00/tackpy-unit-BreakSigs.pem", 0, "nkufh.czttd.5cmlw.7cxtv.k6srn"},
    {"draft00/tackpy-unit-BreakSigs.pem", 1, "6xwgu.ydz7m.7cki3.kizmd.pt2f2"},
};
#define N_BREAKSIG_VECTORS                                                     \
    (sizeof(breaksig_vectors) / sizeof(breaksig_vectors[0]))

static tack_breaksig_t load_vector(int i)
{
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    size_t count =
        tt_load_breaksigs(breaksig_vectors[i].file, sigs, TACK_MAX_BREAKSIGS);

    ck_assert_uint_eq(count, 2);
    return sigs[breaksig_vectors[i].index];
}

START_TEST(breaksig_vectors_have_readme_fingerprints)
{
    tack_breaksig_t sig = load_vector(_i);
    char fp[TACK_FINGERPRINT_SIZE];

    tack_fingerprint(sig.public_key, fp);
    ck_assert_str_eq(fp, breaksig_vectors[_i].fingerprint);
}
END_TEST

START_TEST(breaksig_vectors_verify)
{
    tack_breaksig_t sig = load_vector(_i);

    ck_assert_status(tack_breaksig_verify(&sig), TACK_OK);
    ck_assert(tt_raw_verify(sig.public_key, (const uint8_t *)"tack_break_sig",
                            14, sig.signature));
}
END_TEST

/* tack_breaksig_verify_with, by the key made once, answers as
 * tack_breaksig_verify: the vector verifies, a flipped signature bit
 * does not. */
START_TEST(breaksig_verify_with_a_key_made_once)
{
    tack_breaksig_t sig = load_vector(_i), bad = sig;
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_key_from_public(&key, sig.public_key), TACK_OK);
    ck_assert_status(tack_breaksig_verify_with(&sig, key), TACK_OK);
    bad.signature[17] ^= 0x10;
    ck_assert_status(tack_breaksig_verify_with(&bad, key),
                     TACK_ERR_BAD_SIGNATURE);
    ck_assert_status(tack_breaksig_verify_with(&sig, NULL),
                     TACK_ERR_INVALID_ARG);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(breaksig_vectors_parse_to_the_pem_bytes)
{
    const breaksig_vector_t *v = &breaksig_vectors[_i];
    size_t len;
    uint8_t *bytes = tt_pem_bytes(v->file, "TACK BREAK SIG", v->index, &len);
    tack_breaksig_t parsed, loaded = load_vector(_i);
    uint8_t out[TACK_BREAKSIG_LEN];

    ck_assert_uint_eq(len, TACK_BREAKSIG_LEN);
    ck_assert_status(tack_breaksig_parse(&parsed, bytes, len), TACK_OK);
    tt_assert_breaksig_eq(&parsed, &loaded);
    ck_assert_mem_eq(parsed.public_key, bytes, TACK_KEY_LEN);
    ck_assert_mem_eq(parsed.signature, bytes + TACK_KEY_LEN, TACK_SIG_LEN);
    tack_breaksig_encode(&parsed, out);
    ck_assert_mem_eq(out, bytes, TACK_BREAKSIG_LEN);
    free(bytes);
}
END_TEST

START_TEST(breaksig_tackpy_first_names_the_tackpy_tack_key)
{
    tack_breaksig_t sig = load_vector(2);
    tack_t tack = tt_load_tack("draft00/tackpy-unit-TACK.pem", 0);

    ck_assert_mem_eq(sig.public_key, tack.public_key, TACK_KEY_LEN);
}
END_TEST

START_TEST(breaksig_draft00_sigs_do_not_name_tack1_key)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    tack_breaksig_t a = load_vector(0), b = load_vector(1);

    ck_assert_mem_ne(a.public_key, tack.public_key, TACK_KEY_LEN);
    ck_assert_mem_ne(b.public_key, tack.public_key, TACK_KEY_LEN);
}
END_TEST

START_TEST(breaksig_parse_rejects_every_truncation)
{
    tack_breaksig_t sig = load_vector(0);
    uint8_t wire[TACK_BREAKSIG_LEN];
    size_t n;

    tack_breaksig_encode(&sig, wire);
    for (n = 0; n < TACK_BREAKSIG_LEN; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        tack_breaksig_t out;
        tack_status_t st;

        ck_assert_ptr_nonnull(copy);
        memcpy(copy, wire, n);
        st = tack_breaksig_parse(&out, copy, n);
        ck_assert_msg(st == TACK_ERR_TRUNCATED, "%zu bytes: %s", n,
                      tack_status_str(st));
        free(copy);
    }
}
END_TEST

START_TEST(breaksig_parse_rejects_trailing_bytes)
{
    tack_breaksig_t sig = load_vector(0), out;
    uint8_t wire[TACK_BREAKSIG_LEN + 64];

    memset(wire, 0xa5, sizeof(wire));
    tack_breaksig_encode(&sig, wire);
    ck_assert_status(tack_breaksig_parse(&out, wire, TACK_BREAKSIG_LEN + 1),
                     TACK_ERR_TRAILING);
    ck_assert_status(tack_breaksig_parse(&out, wire, sizeof(wire)),
                     TACK_ERR_TRAILING);
}
END_TEST

START_TEST(breaksig_parse_of_encode_gives_the_same_breaksig)
{
    uint32_t seed = 0xb4ea;
    int round;

    for (round = 0; round < 100; round++) {
        tack_breaksig_t in, out;
        uint8_t wire[TACK_BREAKSIG_LEN];
        size_t i;

        for (i = 0; i < TACK_KEY_LEN; i++) {
            in.public_key[i] = (uint8_t)tt_xorshift(&seed);
            in.signature[i] = (uint8_t)tt_xorshift(&seed);
        }
        tack_breaksig_encode(&in, wire);
        ck_assert_mem_eq(wire, in.public_key, TACK_KEY_LEN);
        ck_assert_mem_eq(wire + TACK_KEY_LEN, in.signature, TACK_SIG_LEN);
        ck_assert_status(tack_breaksig_parse(&out, wire, sizeof(wire)),
                         TACK_OK);
        tt_assert_breaksig_eq(&out, &in);
    }
}
END_TEST

START_TEST(breaksig_every_signature_bit_flip_fails_verify)
{
    tack_breaksig_t good = load_vector(_i);
    size_t bit;

    for (bit = 0; bit < TACK_SIG_LEN * 8; bit++) {
        tack_breaksig_t bad = good;
        tack_status_t st;

        bad.signature[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        st = tack_breaksig_verify(&bad);
        ck_assert_msg(st == TACK_ERR_BAD_SIGNATURE,
                      "signature bit %zu flipped: %s", bit,
                      tack_status_str(st));
    }
}
END_TEST

START_TEST(breaksig_every_public_key_bit_flip_fails_verify)
{
    tack_breaksig_t good = load_vector(_i);
    size_t bit;

    for (bit = 0; bit < TACK_KEY_LEN * 8; bit++) {
        tack_breaksig_t bad = good;
        tack_status_t st;

        bad.public_key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        st = tack_breaksig_verify(&bad);
        ck_assert_msg(st == TACK_ERR_BAD_KEY || st == TACK_ERR_BAD_SIGNATURE,
                      "public_key bit %zu flipped: %s", bit,
                      tack_status_str(st));
    }
}
END_TEST

START_TEST(breaksig_verify_rejects_points_off_the_curve)
{
    tack_breaksig_t sig = load_vector(0);

    memset(sig.public_key, 0, TACK_KEY_LEN);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_ERR_BAD_KEY);
    memset(sig.public_key, 0xff, TACK_KEY_LEN);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_ERR_BAD_KEY);
}
END_TEST

START_TEST(breaksig_create_then_verify)
{
    EVP_PKEY *key = NULL;
    tack_breaksig_t sig, parsed;
    uint8_t pub[TACK_KEY_LEN], wire[TACK_BREAKSIG_LEN];
    int i;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    tt_raw_public(key, pub);
    for (i = 0; i < 4; i++) {
        ck_assert_status(tack_breaksig_create(&sig, key), TACK_OK);
        ck_assert_mem_eq(sig.public_key, pub, TACK_KEY_LEN);
        ck_assert_status(tack_breaksig_verify(&sig), TACK_OK);
        ck_assert(tt_raw_verify(pub, (const uint8_t *)"tack_break_sig", 14,
                                sig.signature));
        tack_breaksig_encode(&sig, wire);
        ck_assert_status(tack_breaksig_parse(&parsed, wire, sizeof(wire)),
                         TACK_OK);
        ck_assert_status(tack_breaksig_verify(&parsed), TACK_OK);
    }
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(breaksig_create_of_tack1_key_names_tack1)
{
    EVP_PKEY *key = tt_load_key("draft00/TACK_Key1.pem", "asdf");
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    tack_breaksig_t sig;
    char fp[TACK_FINGERPRINT_SIZE];

    ck_assert_status(tack_breaksig_create(&sig, key), TACK_OK);
    ck_assert_mem_eq(sig.public_key, tack.public_key, TACK_KEY_LEN);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_OK);
    tack_fingerprint(sig.public_key, fp);
    ck_assert_str_eq(fp, "rrted.ptvtl.d2uiq.ox2xe.w4ss3");
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(breaksig_create_refuses_keys_that_cannot_sign)
{
    EVP_PKEY *rsa = tt_make_rsa_key();
    EVP_PKEY *pub_only = NULL;
    tack_breaksig_t sig, vec = load_vector(0);

    ck_assert_status_fails(tack_breaksig_create(&sig, rsa));
    /* A public key alone cannot sign. */
    ck_assert_status(tack_key_from_public(&pub_only, vec.public_key), TACK_OK);
    ck_assert_status_fails(tack_breaksig_create(&sig, pub_only));
    EVP_PKEY_free(pub_only);
    EVP_PKEY_free(rsa);
}
END_TEST

START_TEST(breaksig_verify_accepts_only_the_break_message)
{
    EVP_PKEY *key = NULL;
    tack_breaksig_t sig;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    tt_raw_public(key, sig.public_key);
    tt_raw_sign(key, (const uint8_t *)"tack_break_sig", 14, sig.signature);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_OK);
    /* The same key signing anything else is not a break signature. */
    tt_raw_sign(key, (const uint8_t *)"tack_break_sif", 14, sig.signature);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_ERR_BAD_SIGNATURE);
    tt_raw_sign(key, (const uint8_t *)"tack_break_sig\0", 15, sig.signature);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_ERR_BAD_SIGNATURE);
    tt_raw_sign(key, (const uint8_t *)"tack_sig", 8, sig.signature);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_ERR_BAD_SIGNATURE);
    EVP_PKEY_free(key);
}
END_TEST

TCase *ext_breaksig_tcase(void)
{
    TCase *tc = tcase_create("breaksig");
    int n = (int)N_BREAKSIG_VECTORS;

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_loop_test(tc, breaksig_vectors_have_readme_fingerprints, 0, n);
    tcase_add_loop_test(tc, breaksig_vectors_verify, 0, n);
    tcase_add_loop_test(tc, breaksig_verify_with_a_key_made_once, 0, n);
    tcase_add_loop_test(tc, breaksig_vectors_parse_to_the_pem_bytes, 0, n);
    tcase_add_test(tc, breaksig_tackpy_first_names_the_tackpy_tack_key);
    tcase_add_test(tc, breaksig_draft00_sigs_do_not_name_tack1_key);
    tcase_add_test(tc, breaksig_parse_rejects_every_truncation);
    tcase_add_test(tc, breaksig_parse_rejects_trailing_bytes);
    tcase_add_test(tc, breaksig_parse_of_encode_gives_the_same_breaksig);
    tcase_add_loop_test(tc, breaksig_every_signature_bit_flip_fails_verify, 0,
                        n);
    tcase_add_loop_test(tc, breaksig_every_public_key_bit_flip_fails_verify, 0,
                        n);
    tcase_add_test(tc, breaksig_verify_rejects_points_off_the_curve);
    tcase_add_test(tc, breaksig_create_then_verify);
    tcase_add_test(tc, breaksig_create_of_tack1_key_names_tack1);
    tcase_add_test(tc, breaksig_create_refuses_keys_that_cannot_sign);
    tcase_add_test(tc, breaksig_verify_accepts_only_the_break_message);
    return tc;
}
