/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_ext_tack.c -- tack_ext.c's TACK structure (TCase "tack" of the suite
 * "ext", test_ext.c): known answers from t/vectors, codec, signature
 * verification, the client's checks (generation, target, expiry) and
 * signing.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests.h"
#include "tack_key.h"
#include "tack_ext.h"

/* The TACK vectors and what t/vectors/README.md says about each.  Where the
 * README quotes only a prefix and suffix, the full value comes from the
 * reference serializer's bytes (ext00_*.hex) or the PEM file itself, decoded
 * independently of the library. */
typedef struct {
    const char *file;
    const char *public_key;
    uint8_t min_generation;
    uint8_t generation;
    uint32_t expiration;
    const char *expiration_text;
    const char *target_hash;
    const char *fingerprint;
    const char *cert;   /* certificate the target_hash is compared with */
    int target_matches; /* whether it matches that certificate */
    int expired;        /* expired at any time after this test was written */
} tack_vector_t;

static const tack_vector_t tack_vectors[] = {
    {"draft00/TACK1.pem",
     "949ec9731202f72ea2fe34e44e1f8c5dfd1a3b6dc9e7c3e3510080238bc23083"
     "6570c1920bc572abd3a7e75864e730330e521d5f30bbcdc502ec037bfda95763",
     0, 0, 37909509, "2042-01-29T01:09Z",
     "bf3e45a33d604cb0689106562289266a581bf8091e07c669e7c8f6429b5d20e6",
     "rrted.ptvtl.d2uiq.ox2xe.w4ss3", "draft00/serverX509Cert.pem", 1, 0},
    {"draft00/TACKunrelated.pem",
     "949ec9731202f72ea2fe34e44e1f8c5dfd1a3b6dc9e7c3e3510080238bc23083"
     "6570c1920bc572abd3a7e75864e730330e521d5f30bbcdc502ec037bfda95763",
     3, 5, 29913235, "2026-11-16T01:55Z",
     "32b64b66727a2063e4066f3b958cb0aaee576a5ecefd953399bb8874731d9587",
     "rrted.ptvtl.d2uiq.ox2xe.w4ss3", "draft00/serverX509Cert.pem", 0, 1},
    {"draft00/tackpy-unit-TACK.pem",
     "4c09ac019229cd1f8c63042bb2e8cb85eb2fa6eddd45ce513a17e0c92a945645"
     "35a7585d5e8f8fc10ae6690a3d07dfa885e711ad6125877c9387081841181b4b",
     0, 0, 26025024, "2019-06-25T22:24Z",
     "31de0cb19f2adbb0d1cd7b1b31ef8ee3eb59b74459aef94b480beeeeb85c64c9",
     "nkufh.czttd.5cmlw.7cxtv.k6srn", NULL, 0, 1},
    {"draft02/TACK1.pem",
     "423797ca436dc5cdb68d44901cedf652ad0755f83d8ca1141cd96a7f1b693c06"
     "a2277980d4efa5236643b3cb92f9975bfeec6cc2ab9bca6376160e6e8eb42bd9",
     0, 0, 29055834, "2025-03-30T15:54Z",
     "c6e3b6077eb32f38a7cc3f6a20f56b4f161b3d40e88b0ddfa1ec679c1bef4179",
     "5lcbe.eyweo.yxuan.rw6xd.jtoz7", "draft02/serverX509Cert.pem", 1, 1},
    {"draft02/TACK2.pem",
     "f42f95e086ea17797f1ac2b8cb55f6c16862b3e7f6270e295f66c2a41db63450"
     "dd515f90888e59b69bddd63405b481fe6b2afbc9c2b9d8ab14effad16235fb27",
     0, 0, 29055834, "2025-03-30T15:54Z",
     "c6e3b6077eb32f38a7cc3f6a20f56b4f161b3d40e88b0ddfa1ec679c1bef4179",
     "oagrn.kfxeo.zz2zn.plssa.uzblz", "draft02/serverX509Cert.pem", 1, 1},
};
#define N_TACK_VECTORS (sizeof(tack_vectors) / sizeof(tack_vectors[0]))

/* The wire bytes of vector |i|, decoded without the library. */
static uint8_t *vector_bytes(int i, size_t *len)
{
    uint8_t *bytes = tt_pem_bytes(tack_vectors[i].file, "TACK", 0, len);

    ck_assert_uint_eq(*len, TACK_LEN);
    return bytes;
}

START_TEST(tack_vectors_have_readme_fields)
{
    const tack_vector_t *v = &tack_vectors[_i];
    tack_t tack = tt_load_tack(v->file, 0);
    uint8_t want[TACK_KEY_LEN], hash[TACK_HASH_LEN];

    tt_hex_to(want, sizeof(want), v->public_key);
    ck_assert_mem_eq(tack.public_key, want, TACK_KEY_LEN);
    ck_assert_uint_eq(tack.min_generation, v->min_generation);
    ck_assert_uint_eq(tack.generation, v->generation);
    ck_assert_uint_eq(tack.expiration, v->expiration);
    tt_hex_to(hash, sizeof(hash), v->target_hash);
    ck_assert_mem_eq(tack.target_hash, hash, TACK_HASH_LEN);
}
END_TEST

START_TEST(tack_vectors_parse_to_the_pem_bytes)
{
    size_t len;
    uint8_t *bytes = vector_bytes(_i, &len);
    tack_t parsed, loaded = tt_load_tack(tack_vectors[_i].file, 0);
    uint8_t out[TACK_LEN];

    ck_assert_status(tack_parse(&parsed, bytes, len), TACK_OK);
    tt_assert_tack_eq(&parsed, &loaded);
    tack_encode(&parsed, out);
    ck_assert_mem_eq(out, bytes, TACK_LEN);
    /* The signature is the last 64 bytes, as r || s. */
    ck_assert_mem_eq(parsed.signature, bytes + 102, TACK_SIG_LEN);
    free(bytes);
}
END_TEST

START_TEST(tack_vectors_signatures_verify)
{
    const tack_vector_t *v = &tack_vectors[_i];
    tack_t tack = tt_load_tack(v->file, 0);
    uint8_t msg[8 + TACK_SIGNED_LEN];

    ck_assert_status(tack_verify(&tack), TACK_OK);
    ck_assert_status(tack_check_generation(&tack), TACK_OK);
    /* And the independent verifier agrees. */
    tt_tack_message(&tack, msg);
    ck_assert(tt_raw_verify(tack.public_key, msg, sizeof(msg), tack.signature));
}
END_TEST

START_TEST(tack_vectors_fingerprints_match_readme)
{
    const tack_vector_t *v = &tack_vectors[_i];
    tack_t tack = tt_load_tack(v->file, 0);
    char fp[TACK_FINGERPRINT_SIZE];

    tack_fingerprint(tack.public_key, fp);
    ck_assert_str_eq(fp, v->fingerprint);
}
END_TEST

START_TEST(tack_vectors_expiration_formats_as_readme)
{
    const tack_vector_t *v = &tack_vectors[_i];
    tack_t tack = tt_load_tack(v->file, 0);
    char text[TACK_TIME_SIZE];

    tack_time_format(tack.expiration, text);
    ck_assert_str_eq(text, v->expiration_text);
    ck_assert(tack_expiration_time(&tack) == (time_t)v->expiration * 60);
}
END_TEST

START_TEST(tack_vectors_target_hash_is_checked_against_their_cert)
{
    const tack_vector_t *v = &tack_vectors[_i];
    tack_t tack = tt_load_tack(v->file, 0);
    uint8_t spki[TACK_HASH_LEN];
    X509 *cert;

    if (v->cert == NULL) {
        /* tackpy-unit-TACK.pem: the README names no certificate for it; a
         * certificate of our own must not match. */
        cert = tt_make_cert(NULL);
        ck_assert_status(tack_check_target(&tack, cert),
                         TACK_ERR_TARGET_MISMATCH);
        X509_free(cert);
        return;
    }
    cert = tt_load_cert(v->cert);
    ck_assert_status(tack_spki_hash(cert, spki), TACK_OK);
    if (v->target_matches) {
        ck_assert_mem_eq(tack.target_hash, spki, TACK_HASH_LEN);
        ck_assert_status(tack_check_target(&tack, cert), TACK_OK);
        ck_assert_status(tack_check_target_hash(&tack, spki), TACK_OK);
    } else {
        ck_assert_status(tack_check_target(&tack, cert),
                         TACK_ERR_TARGET_MISMATCH);
        ck_assert_status(tack_check_target_hash(&tack, spki),
                         TACK_ERR_TARGET_MISMATCH);
    }
    X509_free(cert);
}
END_TEST

START_TEST(tack_expired_vectors_are_expired_now)
{
    const tack_vector_t *v = &tack_vectors[_i];
    tack_t tack = tt_load_tack(v->file, 0);
    time_t now = time(NULL);

    if (v->expired) {
        ck_assert_status(tack_check_expiration(&tack, now), TACK_ERR_EXPIRED);
        /* Without a certificate the target check is skipped, and signature
         * and generation are fine: expiry is what remains. */
        ck_assert_status(tack_validate(&tack, NULL, now), TACK_ERR_EXPIRED);
    } else {
        ck_assert_status(tack_check_expiration(&tack, now), TACK_OK);
        ck_assert_status(tack_validate(&tack, NULL, now), TACK_OK);
    }
}
END_TEST

START_TEST(tack1_validates_for_draft00_server_cert)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    X509 *cert = tt_load_cert("draft00/serverX509Cert.pem");

    ck_assert_status(tack_check_target(&tack, cert), TACK_OK);
    ck_assert_status(tack_validate(&tack, cert, time(NULL)), TACK_OK);
    X509_free(cert);
}
END_TEST

START_TEST(tack_unrelated_is_rejected_for_draft00_server_cert)
{
    tack_t tack = tt_load_tack("draft00/TACKunrelated.pem", 0);
    X509 *cert = tt_load_cert("draft00/serverX509Cert.pem");
    /* An hour before its 2026-11-16T01:55Z expiry, so the expiry check
     * cannot mask the mismatch. */
    time_t before_expiry = (time_t)29913235 * 60 - 3600;

    ck_assert_status(tack_check_target(&tack, cert), TACK_ERR_TARGET_MISMATCH);
    ck_assert_status(tack_check_expiration(&tack, before_expiry), TACK_OK);
    ck_assert_status(tack_validate(&tack, cert, before_expiry),
                     TACK_ERR_TARGET_MISMATCH);
    X509_free(cert);
}
END_TEST

START_TEST(tack_spki_hash_of_draft00_cert_is_readme_value)
{
    X509 *cert = tt_load_cert("draft00/serverX509Cert.pem");
    uint8_t got[TACK_HASH_LEN], want[TACK_HASH_LEN];

    tt_hex_to(
        want, sizeof(want),
        "bf3e45a33d604cb0689106562289266a581bf8091e07c669e7c8f6429b5d20e6");
    ck_assert_status(tack_spki_hash(cert, got), TACK_OK);
    ck_assert_mem_eq(got, want, TACK_HASH_LEN);
    X509_free(cert);
}
END_TEST

START_TEST(tack_parse_rejects_every_truncation)
{
    size_t len, n;
    uint8_t *bytes = vector_bytes(0, &len);

    for (n = 0; n < TACK_LEN; n++) {
        /* An exact-size copy, so a read past |n| is caught by ASan. */
        uint8_t *copy = malloc(n ? n : 1);
        tack_t out;

        ck_assert_ptr_nonnull(copy);
        memcpy(copy, bytes, n);
        ck_assert_msg(tack_parse(&out, copy, n) == TACK_ERR_TRUNCATED,
                      "%zu bytes: %s", n,
                      tack_status_str(tack_parse(&out, copy, n)));
        free(copy);
    }
    free(bytes);
}
END_TEST

START_TEST(tack_parse_rejects_trailing_bytes)
{
    size_t len;
    uint8_t *bytes = vector_bytes(0, &len);
    uint8_t buf[TACK_LEN + 100];
    tack_t out;

    memset(buf, 0, sizeof(buf));
    memcpy(buf, bytes, TACK_LEN);
    ck_assert_status(tack_parse(&out, buf, TACK_LEN + 1), TACK_ERR_TRAILING);
    ck_assert_status(tack_parse(&out, buf, sizeof(buf)), TACK_ERR_TRAILING);
    free(bytes);
}
END_TEST

/* Two TACKs with equal fields are equal whatever their structs' padding
 * holds (the store's deduplication once compared whole structs, and
 * valgrind saw the padding decide); a change of any one wire byte makes
 * them differ. */
START_TEST(tack_equal_compares_fields_not_padding)
{
    tack_t a, b;
    uint8_t wire[TACK_LEN];
    size_t i;

    for (i = 0; i < TACK_LEN; i++) {
        wire[i] = (uint8_t)(i * 37 + 11);
    }
    memset(&a, 0x00, sizeof(a));
    memset(&b, 0xff, sizeof(b));
    ck_assert_status(tack_parse(&a, wire, TACK_LEN), TACK_OK);
    ck_assert_status(tack_parse(&b, wire, TACK_LEN), TACK_OK);
    ck_assert_int_eq(tack_equal(&a, &b), 1);
    for (i = 0; i < TACK_LEN; i++) {
        wire[i] ^= 0x01;
        ck_assert_status(tack_parse(&b, wire, TACK_LEN), TACK_OK);
        ck_assert_msg(!tack_equal(&a, &b), "byte %zu changed, still equal", i);
        wire[i] ^= 0x01;
    }
}
END_TEST

START_TEST(tack_parse_of_encode_gives_the_same_tack)
{
    uint32_t seed = 0x7ac4u;
    int round;

    for (round = 0; round < 200; round++) {
        tack_t in, out;
        uint8_t wire[TACK_LEN];
        size_t i;

        for (i = 0; i < TACK_KEY_LEN; i++) {
            in.public_key[i] = (uint8_t)tt_xorshift(&seed);
        }
        in.min_generation = (uint8_t)tt_xorshift(&seed);
        in.generation = (uint8_t)tt_xorshift(&seed);
        in.expiration = tt_xorshift(&seed);
        for (i = 0; i < TACK_HASH_LEN; i++) {
            in.target_hash[i] = (uint8_t)tt_xorshift(&seed);
        }
        for (i = 0; i < TACK_SIG_LEN; i++) {
            in.signature[i] = (uint8_t)tt_xorshift(&seed);
        }
        tack_encode(&in, wire);
        /* The wire layout of the spec's table, big-endian expiration. */
        ck_assert_mem_eq(wire, in.public_key, TACK_KEY_LEN);
        ck_assert_uint_eq(wire[64], in.min_generation);
        ck_assert_uint_eq(wire[65], in.generation);
        ck_assert_uint_eq((uint32_t)wire[66] << 24 | (uint32_t)wire[67] << 16 |
                              (uint32_t)wire[68] << 8 | wire[69],
                          in.expiration);
        ck_assert_mem_eq(wire + 70, in.target_hash, TACK_HASH_LEN);
        ck_assert_mem_eq(wire + 102, in.signature, TACK_SIG_LEN);
        ck_assert_status(tack_parse(&out, wire, sizeof(wire)), TACK_OK);
        tt_assert_tack_eq(&out, &in);
    }
}
END_TEST

START_TEST(tack_every_signature_bit_flip_fails_verify)
{
    tack_t good = tt_load_tack(tack_vectors[_i].file, 0);
    size_t bit;

    for (bit = 0; bit < TACK_SIG_LEN * 8; bit++) {
        tack_t bad = good;
        tack_status_t st;

        bad.signature[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        st = tack_verify(&bad);
        ck_assert_msg(st == TACK_ERR_BAD_SIGNATURE,
                      "signature bit %zu flipped: %s", bit,
                      tack_status_str(st));
    }
}
END_TEST

/* tack_verify_with, by a key made once, answers as tack_verify does: the
 * vector verifies; every signature bit and every signed byte flipped
 * (the public key's among them: they are signed) fails; another vector's
 * key fails; no key is an argument error. */
START_TEST(tack_verify_with_a_key_made_once_answers_as_tack_verify)
{
    tack_t good = tt_load_tack(tack_vectors[_i].file, 0);
    tack_t other =
        tt_load_tack(tack_vectors[(_i + 1) % N_TACK_VECTORS].file, 0);
    EVP_PKEY *key = NULL, *wrong = NULL;
    size_t bit;

    ck_assert_status(tack_key_from_public(&key, good.public_key), TACK_OK);
    ck_assert_status(tack_key_from_public(&wrong, other.public_key), TACK_OK);
    ck_assert_status(tack_verify_with(&good, key), TACK_OK);
    for (bit = 0; bit < (TACK_SIGNED_LEN + TACK_SIG_LEN) * 8; bit++) {
        tack_t bad = good;
        uint8_t wire[TACK_LEN];

        tack_encode(&good, wire);
        wire[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ck_assert_status(tack_parse(&bad, wire, sizeof(wire)), TACK_OK);
        ck_assert_msg(tack_verify_with(&bad, key) == TACK_ERR_BAD_SIGNATURE,
                      "bit %zu flipped", bit);
    }
    if (memcmp(good.public_key, other.public_key, TACK_KEY_LEN)) {
        ck_assert_status(tack_verify_with(&good, wrong),
                         TACK_ERR_BAD_SIGNATURE);
    }
    ck_assert_status(tack_verify_with(&good, NULL), TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_verify_with(NULL, key), TACK_ERR_INVALID_ARG);
    EVP_PKEY_free(key);
    EVP_PKEY_free(wrong);
}
END_TEST

START_TEST(tack_every_signed_field_bit_flip_fails_verify)
{
    tack_t good = tt_load_tack(tack_vectors[_i].file, 0);
    size_t bit;

    for (bit = 0; bit < TACK_SIGNED_LEN * 8; bit++) {
        tack_t bad = good;
        uint8_t wire[TACK_LEN];
        tack_status_t st;
        size_t byte = bit / 8;

        tack_encode(&good, wire);
        wire[byte] ^= (uint8_t)(1u << (bit % 8));
        ck_assert_status(tack_parse(&bad, wire, sizeof(wire)), TACK_OK);
        st = tack_verify(&bad);
        if (byte < TACK_KEY_LEN) {
            /* Almost every change to the point leaves the curve. */
            ck_assert_msg(
                st == TACK_ERR_BAD_KEY || st == TACK_ERR_BAD_SIGNATURE,
                "public_key bit %zu flipped: %s", bit, tack_status_str(st));
        } else {
            ck_assert_msg(st == TACK_ERR_BAD_SIGNATURE,
                          "signed bit %zu (byte %zu) flipped: %s", bit, byte,
                          tack_status_str(st));
        }
    }
}
END_TEST

START_TEST(tack_verify_rejects_points_off_the_curve)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);

    memset(tack.public_key, 0, TACK_KEY_LEN);
    ck_assert_status(tack_verify(&tack), TACK_ERR_BAD_KEY);
    memset(tack.public_key, 0xff, TACK_KEY_LEN);
    ck_assert_status(tack_verify(&tack), TACK_ERR_BAD_KEY);
    memset(tack.public_key, 0, TACK_KEY_LEN);
    tack.public_key[31] = 1;
    tack.public_key[63] = 1;
    ck_assert_status(tack_verify(&tack), TACK_ERR_BAD_KEY);
}
END_TEST

START_TEST(tack_verify_rejects_zero_and_out_of_range_signatures)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    /* n, the order of P-256 */
    static const char n_hex[] =
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";
    uint8_t n[32];

    memset(tack.signature, 0, TACK_SIG_LEN);
    ck_assert_status(tack_verify(&tack), TACK_ERR_BAD_SIGNATURE);
    memset(tack.signature, 0xff, TACK_SIG_LEN);
    ck_assert_status(tack_verify(&tack), TACK_ERR_BAD_SIGNATURE);
    tt_hex_to(n, sizeof(n), n_hex);
    memcpy(tack.signature, n, 32);
    memcpy(tack.signature + 32, n, 32);
    ck_assert_status(tack_verify(&tack), TACK_ERR_BAD_SIGNATURE);
}
END_TEST

START_TEST(tack_check_expiration_boundaries)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    time_t exp = (time_t)tack.expiration * 60;

    ck_assert_status(tack_check_expiration(&tack, 0), TACK_OK);
    ck_assert_status(tack_check_expiration(&tack, exp - 60), TACK_OK);
    ck_assert_status(tack_check_expiration(&tack, exp - 1), TACK_OK);
    ck_assert_status(tack_check_expiration(&tack, exp), TACK_ERR_EXPIRED);
    ck_assert_status(tack_check_expiration(&tack, exp + 1), TACK_ERR_EXPIRED);
    ck_assert_status(tack_check_expiration(&tack, exp + 86400),
                     TACK_ERR_EXPIRED);

    tack.expiration = 0;
    ck_assert_status(tack_check_expiration(&tack, 0), TACK_ERR_EXPIRED);
}
END_TEST

START_TEST(tack_expiration_beyond_2038_does_not_overflow)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    time_t now = time(NULL);

    /* 0xffffffff minutes is in the year 10136: minutes * 60 overflows 32
     * bits, so a product computed in uint32_t would wrap into the past. */
    tack.expiration = 0xffffffffu;
    ck_assert(tack_expiration_time(&tack) == (time_t)0xffffffffu * 60);
    ck_assert_status(tack_check_expiration(&tack, now), TACK_OK);
    tack.expiration = 0x80000000u;
    ck_assert(tack_expiration_time(&tack) == (time_t)0x80000000u * 60);
    ck_assert_status(tack_check_expiration(&tack, now), TACK_OK);
}
END_TEST

START_TEST(tack_check_generation_compares_with_min_generation)
{
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);

    tack.min_generation = 0;
    tack.generation = 0;
    ck_assert_status(tack_check_generation(&tack), TACK_OK);
    tack.min_generation = 3;
    tack.generation = 5;
    ck_assert_status(tack_check_generation(&tack), TACK_OK);
    tack.generation = 3;
    ck_assert_status(tack_check_generation(&tack), TACK_OK);
    tack.generation = 2;
    ck_assert_status(tack_check_generation(&tack), TACK_ERR_GENERATION);
    tack.min_generation = 255;
    tack.generation = 254;
    ck_assert_status(tack_check_generation(&tack), TACK_ERR_GENERATION);
    tack.generation = 255;
    ck_assert_status(tack_check_generation(&tack), TACK_OK);
}
END_TEST

START_TEST(tack_validate_reports_failures_in_draft_order)
{
    EVP_PKEY *key = NULL;
    X509 *cert = tt_make_cert(&key);
    X509 *other = tt_make_cert(NULL);
    uint8_t spki[TACK_HASH_LEN];
    time_t now = time(NULL);
    tack_t tack;

    ck_assert_status(tack_spki_hash(cert, spki), TACK_OK);

    /* Everything wrong at once: generation below min, wrong target,
     * expired; signed independently since tack_sign refuses gen < min. */
    memset(&tack, 0, sizeof(tack));
    tack.min_generation = 2;
    tack.generation = 1;
    tack.expiration = (uint32_t)(now / 60) - 10;
    memcpy(tack.target_hash, spki, TACK_HASH_LEN);
    tt_tack_sign_raw(&tack, key);
    ck_assert_status(tack_verify(&tack), TACK_OK);
    ck_assert_status(tack_validate(&tack, other, now), TACK_ERR_GENERATION);

    /* A broken signature comes first of all. */
    tack.signature[10] ^= 0x40;
    ck_assert_status(tack_validate(&tack, other, now), TACK_ERR_BAD_SIGNATURE);

    /* Generation fixed: the target is next. */
    tack.generation = 2;
    tt_tack_sign_raw(&tack, key);
    ck_assert_status(tack_validate(&tack, other, now),
                     TACK_ERR_TARGET_MISMATCH);

    /* Right certificate: expiry is last. */
    ck_assert_status(tack_validate(&tack, cert, now), TACK_ERR_EXPIRED);
    /* Without a certificate the target check is skipped. */
    ck_assert_status(tack_validate(&tack, NULL, now), TACK_ERR_EXPIRED);

    /* All fixed. */
    tack.expiration = (uint32_t)(now / 60) + 60;
    tt_tack_sign_raw(&tack, key);
    ck_assert_status(tack_validate(&tack, cert, now), TACK_OK);
    ck_assert_status(tack_validate(&tack, NULL, now), TACK_OK);

    X509_free(other);
    X509_free(cert);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(tack_sign_then_verify_round_trips)
{
    EVP_PKEY *key = NULL;
    tack_t tack = tt_sign_new(&key, 1, 2, 40000000, 0x5a);
    uint8_t pub[TACK_KEY_LEN], msg[8 + TACK_SIGNED_LEN];
    uint8_t wire[TACK_LEN], hash[TACK_HASH_LEN];
    tack_t parsed;

    ck_assert_status(tack_verify(&tack), TACK_OK);
    /* tack_sign set public_key from the key and kept the caller's fields. */
    ck_assert_status(tack_key_public(key, pub), TACK_OK);
    ck_assert_mem_eq(tack.public_key, pub, TACK_KEY_LEN);
    tt_raw_public(key, pub);
    ck_assert_mem_eq(tack.public_key, pub, TACK_KEY_LEN);
    ck_assert_uint_eq(tack.min_generation, 1);
    ck_assert_uint_eq(tack.generation, 2);
    ck_assert_uint_eq(tack.expiration, 40000000);
    memset(hash, 0x5a, sizeof(hash));
    ck_assert_mem_eq(tack.target_hash, hash, TACK_HASH_LEN);
    /* The independent verifier accepts it: r || s, over "tack_sig" || 102. */
    tt_tack_message(&tack, msg);
    ck_assert(tt_raw_verify(tack.public_key, msg, sizeof(msg), tack.signature));
    /* And it survives the wire. */
    tack_encode(&tack, wire);
    ck_assert_status(tack_parse(&parsed, wire, sizeof(wire)), TACK_OK);
    ck_assert_status(tack_verify(&parsed), TACK_OK);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(tack_sign_then_validate_with_generated_cert)
{
    EVP_PKEY *tls_key = NULL, *tack_key = NULL;
    X509 *cert = tt_make_cert(&tls_key);
    X509 *other = tt_make_cert(NULL);
    time_t now = time(NULL);
    uint8_t spki[TACK_HASH_LEN], pkey_spki[TACK_HASH_LEN];
    tack_t tack;

    ck_assert_status(tack_key_generate(&tack_key), TACK_OK);
    ck_assert_status(tack_spki_hash(cert, spki), TACK_OK);
    ck_assert_status(tack_pkey_spki_hash(tls_key, pkey_spki), TACK_OK);
    ck_assert_mem_eq(spki, pkey_spki, TACK_HASH_LEN);

    memset(&tack, 0, sizeof(tack));
    tack.expiration = (uint32_t)(now / 60) + 30 * 24 * 60;
    memcpy(tack.target_hash, spki, TACK_HASH_LEN);
    ck_assert_status(tack_sign(&tack, tack_key), TACK_OK);
    ck_assert_status(tack_validate(&tack, cert, now), TACK_OK);
    ck_assert_status(tack_check_target(&tack, cert), TACK_OK);
    ck_assert_status(tack_validate(&tack, other, now),
                     TACK_ERR_TARGET_MISMATCH);
    ck_assert_status(tack_validate(&tack, cert, (time_t)tack.expiration * 60),
                     TACK_ERR_EXPIRED);

    X509_free(other);
    X509_free(cert);
    EVP_PKEY_free(tls_key);
    EVP_PKEY_free(tack_key);
}
END_TEST

START_TEST(tack_sign_refuses_generation_below_min_generation)
{
    EVP_PKEY *key = NULL;
    tack_t tack;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    memset(&tack, 0, sizeof(tack));
    tack.min_generation = 4;
    tack.generation = 3;
    tack.expiration = 40000000;
    ck_assert_status(tack_sign(&tack, key), TACK_ERR_GENERATION);
    tack.generation = 4;
    ck_assert_status(tack_sign(&tack, key), TACK_OK);
    ck_assert_status(tack_verify(&tack), TACK_OK);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(tack_sign_refuses_keys_that_are_not_p256_private_keys)
{
    EVP_PKEY *rsa = tt_make_rsa_key();
    EVP_PKEY *p384 = EVP_EC_gen("P-384");
    EVP_PKEY *pub_only = NULL;
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);

    ck_assert_ptr_nonnull(p384);
    ck_assert_status(tack_sign(&tack, rsa), TACK_ERR_BAD_KEY);
    ck_assert_status(tack_sign(&tack, p384), TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_from_public(&pub_only, tack.public_key), TACK_OK);
    ck_assert_status(tack_sign(&tack, pub_only), TACK_ERR_BAD_KEY);
    EVP_PKEY_free(pub_only);
    EVP_PKEY_free(p384);
    EVP_PKEY_free(rsa);
}
END_TEST

START_TEST(tack_sign_pads_r_and_s_with_leading_zeros)
{
    EVP_PKEY *key = NULL;
    tack_t tack;
    int tries, r_short = 0, s_short = 0;

    /* A 1-in-256 event per half: sign until both r and s had a leading
     * zero byte (the draft's fixed-width, left-padded form). */
    ck_assert_status(tack_key_generate(&key), TACK_OK);
    memset(&tack, 0, sizeof(tack));
    tack.expiration = 40000000;
    for (tries = 0; tries < 20000 && !(r_short && s_short); tries++) {
        uint8_t msg[8 + TACK_SIGNED_LEN];

        tack.target_hash[0] = (uint8_t)tries;
        tack.target_hash[1] = (uint8_t)(tries >> 8);
        ck_assert_status(tack_sign(&tack, key), TACK_OK);
        if (tack.signature[0] != 0 && tack.signature[32] != 0) {
            continue;
        }
        r_short |= tack.signature[0] == 0;
        s_short |= tack.signature[32] == 0;
        ck_assert_status(tack_verify(&tack), TACK_OK);
        tt_tack_message(&tack, msg);
        ck_assert(
            tt_raw_verify(tack.public_key, msg, sizeof(msg), tack.signature));
    }
    ck_assert_msg(r_short && s_short, "no short r and s in %d signatures",
                  tries);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(tack_verify_accepts_independent_signatures_with_short_r)
{
    EVP_PKEY *key = NULL;
    tack_t tack;
    int tries, found = 0;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    memset(&tack, 0, sizeof(tack));
    tack.expiration = 40000000;
    for (tries = 0; tries < 20000 && found < 2; tries++) {
        tack.target_hash[0] = (uint8_t)tries;
        tack.target_hash[1] = (uint8_t)(tries >> 8);
        tt_tack_sign_raw(&tack, key);
        if (tack.signature[0] == 0 || tack.signature[32] == 0) {
            ck_assert_status(tack_verify(&tack), TACK_OK);
            found++;
        }
    }
    ck_assert_int_eq(found, 2);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(tack_sign_handles_keys_with_short_coordinates)
{
    int tries, found = 0;

    /* Keys whose x or y has a leading zero byte must still be written as
     * 32 bytes each, left-padded. */
    for (tries = 0; tries < 20000 && found == 0; tries++) {
        EVP_PKEY *key = NULL;
        uint8_t pub[TACK_KEY_LEN];

        ck_assert_status(tack_key_generate(&key), TACK_OK);
        tt_raw_public(key, pub);
        if (pub[0] == 0 || pub[32] == 0) {
            tack_t tack;
            uint8_t lib_pub[TACK_KEY_LEN];

            memset(&tack, 0, sizeof(tack));
            tack.expiration = 40000000;
            ck_assert_status(tack_sign(&tack, key), TACK_OK);
            ck_assert_mem_eq(tack.public_key, pub, TACK_KEY_LEN);
            ck_assert_status(tack_key_public(key, lib_pub), TACK_OK);
            ck_assert_mem_eq(lib_pub, pub, TACK_KEY_LEN);
            ck_assert_status(tack_verify(&tack), TACK_OK);
            found = 1;
        }
        EVP_PKEY_free(key);
    }
    ck_assert_int_eq(found, 1);
}
END_TEST

TCase *ext_tack_tcase(void)
{
    TCase *tc = tcase_create("tack");
    int n = (int)N_TACK_VECTORS;

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_loop_test(tc, tack_vectors_have_readme_fields, 0, n);
    tcase_add_loop_test(tc, tack_vectors_parse_to_the_pem_bytes, 0, n);
    tcase_add_loop_test(tc, tack_vectors_signatures_verify, 0, n);
    tcase_add_loop_test(tc, tack_vectors_fingerprints_match_readme, 0, n);
    tcase_add_loop_test(tc, tack_vectors_expiration_formats_as_readme, 0, n);
    tcase_add_loop_test(
        tc, tack_vectors_target_hash_is_checked_against_their_cert, 0, n);
    tcase_add_loop_test(tc, tack_expired_vectors_are_expired_now, 0, n);
    tcase_add_test(tc, tack1_validates_for_draft00_server_cert);
    tcase_add_test(tc, tack_unrelated_is_rejected_for_draft00_server_cert);
    tcase_add_test(tc, tack_spki_hash_of_draft00_cert_is_readme_value);
    tcase_add_test(tc, tack_parse_rejects_every_truncation);
    tcase_add_test(tc, tack_parse_rejects_trailing_bytes);
    tcase_add_test(tc, tack_parse_of_encode_gives_the_same_tack);
    tcase_add_test(tc, tack_equal_compares_fields_not_padding);
    tcase_add_loop_test(tc, tack_every_signature_bit_flip_fails_verify, 0, n);
    tcase_add_loop_test(tc, tack_every_signed_field_bit_flip_fails_verify, 0,
                        n);
    tcase_add_loop_test(
        tc, tack_verify_with_a_key_made_once_answers_as_tack_verify, 0, n);
    tcase_add_test(tc, tack_verify_rejects_points_off_the_curve);
    tcase_add_test(tc, tack_verify_rejects_zero_and_out_of_range_signatures);
    tcase_add_test(tc, tack_check_expiration_boundaries);
    tcase_add_test(tc, tack_expiration_beyond_2038_does_not_overflow);
    tcase_add_test(tc, tack_check_generation_compares_with_min_generation);
    tcase_add_test(tc, tack_validate_reports_failures_in_draft_order);
    tcase_add_test(tc, tack_sign_then_verify_round_trips);
    tcase_add_test(tc, tack_sign_then_validate_with_generated_cert);
    tcase_add_test(tc, tack_sign_refuses_generation_below_min_generation);
    tcase_add_test(tc, tack_sign_refuses_keys_that_are_not_p256_private_keys);
    tcase_add_test(tc, tack_sign_pads_r_and_s_with_leading_zeros);
    tcase_add_test(tc, tack_verify_accepts_independent_signatures_with_short_r);
    tcase_add_test(tc, tack_sign_handles_keys_with_short_coordinates);
    return tc;
}
