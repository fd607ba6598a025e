/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_keyfile.c -- TACKpy's password-protected key file: the vectors, the
 * structure's limits, tampering, and create / decrypt round trips checked
 * against an independent implementation of the format.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/hmac.h>

#include "tests.h"
#include "tack_key.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_keyfile.h"

/* ---- An independent implementation of the format (spec section 6) -------- */

static void derive_keys(const char *password, size_t password_len,
                        const uint8_t salt[TACK_KEYFILE_SALT_LEN],
                        uint32_t iterations, uint8_t enc_key[32],
                        uint8_t mac_key[32])
{
    uint8_t master[32];
    static const uint8_t one = 0x01, two = 0x02;

    ck_assert_int_eq(PKCS5_PBKDF2_HMAC(password, (int)password_len, salt,
                                       TACK_KEYFILE_SALT_LEN, (int)iterations,
                                       EVP_sha256(), 32, master),
                     1);
    ck_assert_ptr_nonnull(
        HMAC(EVP_sha256(), master, 32, &one, 1, enc_key, NULL));
    ck_assert_ptr_nonnull(
        HMAC(EVP_sha256(), master, 32, &two, 1, mac_key, NULL));
    OPENSSL_cleanse(master, sizeof(master));
}

static void aes_cbc(int encrypt, const uint8_t key[32], const uint8_t in[32],
                    uint8_t out[32])
{
    static const uint8_t iv[16] = {0};
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, m = 0;

    ck_assert_ptr_nonnull(ctx);
    ck_assert_int_eq(
        EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv, encrypt), 1);
    ck_assert_int_eq(EVP_CIPHER_CTX_set_padding(ctx, 0), 1);
    ck_assert_int_eq(EVP_CipherUpdate(ctx, out, &n, in, 32), 1);
    ck_assert_int_eq(EVP_CipherFinal_ex(ctx, out + n, &m), 1);
    ck_assert_int_eq(n + m, 32);
    EVP_CIPHER_CTX_free(ctx);
}

/* Builds the 149-byte key file for |priv| / |pub| under |password|. */
static void raw_keyfile(uint8_t out[TACK_KEYFILE_LEN],
                        const uint8_t priv[TACK_PRIV_LEN],
                        const uint8_t pub[TACK_KEY_LEN], const char *password,
                        uint32_t iterations,
                        const uint8_t salt[TACK_KEYFILE_SALT_LEN])
{
    uint8_t enc_key[32], mac_key[32];

    derive_keys(password, strlen(password), salt, iterations, enc_key, mac_key);
    out[0] = 0x01;
    out[1] = (uint8_t)(iterations >> 24);
    out[2] = (uint8_t)(iterations >> 16);
    out[3] = (uint8_t)(iterations >> 8);
    out[4] = (uint8_t)iterations;
    memcpy(out + 5, salt, TACK_KEYFILE_SALT_LEN);
    aes_cbc(1, enc_key, priv, out + 21);
    memcpy(out + 53, pub, TACK_KEY_LEN);
    ck_assert_ptr_nonnull(
        HMAC(EVP_sha256(), mac_key, 32, out + 21, 32 + 64, out + 117, NULL));
}

/* Decrypts |kf| independently, checking its MAC. */
static void raw_decrypt(const tack_keyfile_t *kf, const char *password,
                        uint8_t priv[TACK_PRIV_LEN])
{
    uint8_t enc_key[32], mac_key[32], data[96], mac[32];

    derive_keys(password, strlen(password), kf->salt, kf->iterations, enc_key,
                mac_key);
    memcpy(data, kf->ciphertext, 32);
    memcpy(data + 32, kf->public_key, 64);
    ck_assert_ptr_nonnull(
        HMAC(EVP_sha256(), mac_key, 32, data, sizeof(data), mac, NULL));
    ck_assert_mem_eq(mac, kf->mac, 32);
    aes_cbc(0, enc_key, kf->ciphertext, priv);
}

static uint8_t *keyfile_bytes(const char *rel)
{
    size_t len;
    uint8_t *bytes = tt_pem_bytes(rel, TACK_PEM_LABEL_KEY, 0, &len);

    ck_assert_uint_eq(len, TACK_KEYFILE_LEN);
    return bytes;
}

static void set_iterations(uint8_t *bytes, uint32_t iterations)
{
    bytes[1] = (uint8_t)(iterations >> 24);
    bytes[2] = (uint8_t)(iterations >> 16);
    bytes[3] = (uint8_t)(iterations >> 8);
    bytes[4] = (uint8_t)iterations;
}

/* ---- Vectors ------------------------------------------------------------- */

START_TEST(keyfile_draft00_key1_decrypts_to_tack1_key)
{
    tack_keyfile_t kf = tt_load_keyfile("draft00/TACK_Key1.pem");
    tack_t tack1 = tt_load_tack("draft00/TACK1.pem", 0);
    EVP_PKEY *key = NULL;
    uint8_t pub[TACK_KEY_LEN];

    ck_assert_uint_eq(kf.iterations, 8192);
    ck_assert_mem_eq(kf.public_key, tack1.public_key, TACK_KEY_LEN);
    ck_assert_status(tack_keyfile_decrypt(&kf, "asdf", 4, &key), TACK_OK);
    ck_assert_ptr_nonnull(key);
    ck_assert_status(tack_key_public(key, pub), TACK_OK);
    ck_assert_mem_eq(pub, tack1.public_key, TACK_KEY_LEN);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_tackpy_unit_key_has_readme_fields)
{
    tack_keyfile_t kf = tt_load_keyfile("draft00/tackpy-unit-Key.pem");
    tack_t other = tt_load_tack("draft00/tackpy-unit-TACK.pem", 0);
    uint8_t salt[16], pub[64], priv[32], got[64], raw_priv[32];
    EVP_PKEY *key = NULL;

    tt_hex_to(salt, sizeof(salt), "233b188e76988ca39a9689d5f0053a89");
    tt_hex_to(
        pub, sizeof(pub),
        "87301842fe0feb8edbbf1279881e852e4fddf8f225de79139a2d544f74dab0af"
        "ee4a11f8ed4d8eee5c0e909a14549fe5e60de3ca46e7111d891c41a14f9f3825");
    tt_hex_to(
        priv, sizeof(priv),
        "fc815de8b1de13a436e9cd69742cbf2cd4c1c9bb33e023401d9291cf2781b754");
    ck_assert_uint_eq(kf.iterations, 8192);
    ck_assert_mem_eq(kf.salt, salt, sizeof(salt));
    ck_assert_mem_eq(kf.public_key, pub, sizeof(pub));
    /* README: a different key from tackpy-unit-TACK.pem's. */
    ck_assert_mem_ne(kf.public_key, other.public_key, TACK_KEY_LEN);

    ck_assert_status(tack_keyfile_decrypt(&kf, "asdf", 4, &key), TACK_OK);
    ck_assert_status(tack_key_public(key, got), TACK_OK);
    ck_assert_mem_eq(got, pub, sizeof(pub));
    ck_assert_status(tack_key_private(key, got), TACK_OK);
    ck_assert_mem_eq(got, priv, sizeof(priv));
    raw_decrypt(&kf, "asdf", raw_priv);
    ck_assert_mem_eq(raw_priv, priv, sizeof(priv));
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_draft02_keys_decrypt_to_their_tack_keys)
{
    static const char *const keys[2] = {"draft02/TACK_Key1.pem",
                                        "draft02/TACK_Key2.pem"};
    static const char *const tacks[2] = {"draft02/TACK1.pem",
                                         "draft02/TACK2.pem"};
    EVP_PKEY *key = tt_load_key(keys[_i], "test");
    tack_t tack = tt_load_tack(tacks[_i], 0);
    uint8_t pub[TACK_KEY_LEN];

    ck_assert_status(tack_key_public(key, pub), TACK_OK);
    ck_assert_mem_eq(pub, tack.public_key, TACK_KEY_LEN);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_decrypted_key_signs_tacks_of_tack1_key)
{
    EVP_PKEY *key = tt_load_key("draft00/TACK_Key1.pem", "asdf");
    tack_t tack1 = tt_load_tack("draft00/TACK1.pem", 0);
    tack_t fresh = tack1;
    X509 *cert = tt_load_cert("draft00/serverX509Cert.pem");
    char fp[TACK_FINGERPRINT_SIZE];

    fresh.generation = 1;
    fresh.min_generation = 1;
    ck_assert_status(tack_sign(&fresh, key), TACK_OK);
    ck_assert_mem_eq(fresh.public_key, tack1.public_key, TACK_KEY_LEN);
    ck_assert_status(tack_verify(&fresh), TACK_OK);
    ck_assert_status(tack_check_target(&fresh, cert), TACK_OK);
    tack_fingerprint(fresh.public_key, fp);
    ck_assert_str_eq(fp, "rrted.ptvtl.d2uiq.ox2xe.w4ss3");
    X509_free(cert);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_wrong_password_is_reported)
{
    static const char *const wrong[] = {"asdg", "",         "ASDF", "asdf\n",
                                        "asd",  "asdfasdf", "test"};
    tack_keyfile_t kf = tt_load_keyfile("draft00/TACK_Key1.pem");
    size_t i;

    for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        EVP_PKEY *key = NULL;
        tack_status_t st =
            tack_keyfile_decrypt(&kf, wrong[i], strlen(wrong[i]), &key);

        ck_assert_msg(st == TACK_ERR_WRONG_PASSWORD, "password '%s': %s",
                      wrong[i], tack_status_str(st));
    }
}
END_TEST

START_TEST(keyfile_password_length_is_what_counts)
{
    tack_keyfile_t kf = tt_load_keyfile("draft00/TACK_Key1.pem");
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_keyfile_decrypt(&kf, "asdfXYZ", 4, &key), TACK_OK);
    EVP_PKEY_free(key);
    key = NULL;
    ck_assert_status(tack_keyfile_decrypt(&kf, "asdf", 3, &key),
                     TACK_ERR_WRONG_PASSWORD);
}
END_TEST

/* ---- Structure ----------------------------------------------------------- */

START_TEST(keyfile_parse_then_encode_gives_the_same_bytes)
{
    static const char *const files[] = {
        "draft00/TACK_Key1.pem", "draft00/tackpy-unit-Key.pem",
        "draft02/TACK_Key1.pem", "draft02/TACK_Key2.pem"};
    size_t i;

    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        uint8_t *bytes = keyfile_bytes(files[i]);
        uint8_t out[TACK_KEYFILE_LEN];
        tack_keyfile_t kf, from_pem = tt_load_keyfile(files[i]);

        ck_assert_status(tack_keyfile_parse(&kf, bytes, TACK_KEYFILE_LEN),
                         TACK_OK);
        ck_assert_uint_eq(kf.iterations,
                          (uint32_t)bytes[1] << 24 | (uint32_t)bytes[2] << 16 |
                              (uint32_t)bytes[3] << 8 | bytes[4]);
        ck_assert_mem_eq(kf.salt, bytes + 5, 16);
        ck_assert_mem_eq(kf.ciphertext, bytes + 21, 32);
        ck_assert_mem_eq(kf.public_key, bytes + 53, 64);
        ck_assert_mem_eq(kf.mac, bytes + 117, 32);
        ck_assert_mem_eq(from_pem.mac, kf.mac, 32);
        tack_keyfile_encode(&kf, out);
        ck_assert_mem_eq(out, bytes, TACK_KEYFILE_LEN);
        free(bytes);
    }
}
END_TEST

START_TEST(keyfile_parse_of_encode_gives_the_same_structure)
{
    uint32_t seed = 0x4b4b;
    int round;

    for (round = 0; round < 200; round++) {
        tack_keyfile_t in, out;
        uint8_t wire[TACK_KEYFILE_LEN];
        size_t i;

        in.iterations = 1 + tt_xorshift(&seed) % TACK_KEYFILE_MAX_ITERATIONS;
        for (i = 0; i < sizeof(in.salt); i++) {
            in.salt[i] = (uint8_t)tt_xorshift(&seed);
        }
        for (i = 0; i < sizeof(in.ciphertext); i++) {
            in.ciphertext[i] = (uint8_t)tt_xorshift(&seed);
            in.mac[i] = (uint8_t)tt_xorshift(&seed);
        }
        for (i = 0; i < sizeof(in.public_key); i++) {
            in.public_key[i] = (uint8_t)tt_xorshift(&seed);
        }
        tack_keyfile_encode(&in, wire);
        ck_assert_uint_eq(wire[0], TACK_KEYFILE_VERSION);
        ck_assert_status(tack_keyfile_parse(&out, wire, sizeof(wire)), TACK_OK);
        ck_assert_uint_eq(out.iterations, in.iterations);
        ck_assert_mem_eq(out.salt, in.salt, sizeof(in.salt));
        ck_assert_mem_eq(out.ciphertext, in.ciphertext, sizeof(in.ciphertext));
        ck_assert_mem_eq(out.public_key, in.public_key, sizeof(in.public_key));
        ck_assert_mem_eq(out.mac, in.mac, sizeof(in.mac));
    }
}
END_TEST

START_TEST(keyfile_parse_rejects_iterations_0_and_above_the_cap)
{
    static const uint32_t bad[] = {0, 1000001, 0x7fffffff, 0xffffffff};
    static const uint32_t good[] = {1, 8192, 1000000};
    uint8_t *bytes = keyfile_bytes("draft00/TACK_Key1.pem");
    tack_keyfile_t kf;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tack_status_t st;

        set_iterations(bytes, bad[i]);
        st = tack_keyfile_parse(&kf, bytes, TACK_KEYFILE_LEN);
        ck_assert_msg(st == TACK_ERR_KEYFILE_ITERATIONS, "%u iterations: %s",
                      bad[i], tack_status_str(st));
    }
    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        set_iterations(bytes, good[i]);
        ck_assert_status(tack_keyfile_parse(&kf, bytes, TACK_KEYFILE_LEN),
                         TACK_OK);
        ck_assert_uint_eq(kf.iterations, good[i]);
    }
    free(bytes);
}
END_TEST

START_TEST(keyfile_parse_rejects_versions_other_than_1)
{
    static const uint8_t bad[] = {0, 2, 0x81, 0xff};
    uint8_t *bytes = keyfile_bytes("draft00/TACK_Key1.pem");
    tack_keyfile_t kf;
    size_t i;

    for (i = 0; i < sizeof(bad); i++) {
        tack_status_t st;

        bytes[0] = bad[i];
        st = tack_keyfile_parse(&kf, bytes, TACK_KEYFILE_LEN);
        ck_assert_msg(st == TACK_ERR_KEYFILE_VERSION, "version %u: %s", bad[i],
                      tack_status_str(st));
    }
    free(bytes);
}
END_TEST

START_TEST(keyfile_parse_rejects_every_truncation)
{
    uint8_t *bytes = keyfile_bytes("draft00/TACK_Key1.pem");
    size_t n;

    for (n = 0; n < TACK_KEYFILE_LEN; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        tack_keyfile_t kf;
        tack_status_t st;

        ck_assert_ptr_nonnull(copy);
        memcpy(copy, bytes, n);
        st = tack_keyfile_parse(&kf, copy, n);
        ck_assert_msg(st == TACK_ERR_TRUNCATED, "%zu bytes: %s", n,
                      tack_status_str(st));
        free(copy);
    }
    free(bytes);
}
END_TEST

START_TEST(keyfile_parse_rejects_trailing_bytes)
{
    uint8_t *bytes = keyfile_bytes("draft00/TACK_Key1.pem");
    uint8_t longer[TACK_KEYFILE_LEN + 50];
    tack_keyfile_t kf;
    tack_status_t st;

    memset(longer, 0, sizeof(longer));
    memcpy(longer, bytes, TACK_KEYFILE_LEN);
    st = tack_keyfile_parse(&kf, longer, TACK_KEYFILE_LEN + 1);
    ck_assert_msg(st == TACK_ERR_TRAILING, "one extra byte: %s",
                  tack_status_str(st));
    st = tack_keyfile_parse(&kf, longer, sizeof(longer));
    ck_assert_msg(st == TACK_ERR_TRAILING, "50 extra bytes: %s",
                  tack_status_str(st));
    free(bytes);
}
END_TEST

START_TEST(keyfile_from_pem_reads_the_indented_tackpy_file)
{
    size_t len;
    char *text = tt_read_vector("draft00/tackpy-unit-Key.pem", &len);
    tack_keyfile_t kf;
    unsigned line = 0;

    ck_assert_status(tack_keyfile_from_pem(&kf, text, len, &line), TACK_OK);
    ck_assert_uint_eq(kf.iterations, 8192);
    free(text);
}
END_TEST

START_TEST(keyfile_from_pem_refuses_a_second_key_block)
{
    size_t len;
    char *one = tt_read_vector("draft00/TACK_Key1.pem", &len);
    char *two = malloc(2 * len + 1);
    tack_keyfile_t kf;
    unsigned line = 0;

    ck_assert_ptr_nonnull(two);
    memcpy(two, one, len);
    memcpy(two + len, one, len + 1);
    ck_assert_status(tack_keyfile_from_pem(&kf, two, 2 * len, &line),
                     TACK_ERR_TRAILING);
    free(two);
    free(one);
}
END_TEST

START_TEST(keyfile_from_pem_refuses_blocks_of_the_wrong_size)
{
    static const size_t sizes[] = {148, 150, 0, 32};
    uint8_t *bytes = keyfile_bytes("draft00/TACK_Key1.pem");
    uint8_t data[256];
    size_t i;

    memset(data, 0, sizeof(data));
    memcpy(data, bytes, TACK_KEYFILE_LEN);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        char *pem = NULL;
        size_t pem_len = 0;
        tack_keyfile_t kf;
        unsigned line = 0;
        tack_status_t st;

        ck_assert_status(
            tack_pem_encode(&pem, &pem_len, TACK_PEM_LABEL_KEY, data, sizes[i]),
            TACK_OK);
        st = tack_keyfile_from_pem(&kf, pem, pem_len, &line);
        ck_assert_msg(st == TACK_ERR_BAD_LENGTH, "%zu bytes: %s", sizes[i],
                      tack_status_str(st));
        free(pem);
    }
    free(bytes);
}
END_TEST

/* ---- Create, decrypt, tamper --------------------------------------------- */

START_TEST(keyfile_create_round_trips_through_pem)
{
    static const char password[] = "correct horse battery staple";
    EVP_PKEY *key = NULL, *back = NULL;
    tack_keyfile_t kf, parsed;
    uint8_t wire[TACK_KEYFILE_LEN];
    uint8_t pub[TACK_KEY_LEN], back_pub[TACK_KEY_LEN];
    uint8_t priv[TACK_PRIV_LEN], back_priv[TACK_PRIV_LEN];
    uint8_t raw_priv[TACK_PRIV_LEN];
    char *pem = NULL;
    size_t pem_len = 0;
    unsigned line = 0;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_status(
        tack_keyfile_create(&kf, key, password, strlen(password), 1000),
        TACK_OK);
    ck_assert_uint_eq(kf.iterations, 1000);
    tack_keyfile_encode(&kf, wire);
    ck_assert_uint_eq(wire[0], TACK_KEYFILE_VERSION);
    ck_assert_status(
        tack_pem_encode(&pem, &pem_len, TACK_PEM_LABEL_KEY, wire, sizeof(wire)),
        TACK_OK);
    ck_assert_status(tack_keyfile_from_pem(&parsed, pem, pem_len, &line),
                     TACK_OK);
    ck_assert_status(
        tack_keyfile_decrypt(&parsed, password, strlen(password), &back),
        TACK_OK);

    ck_assert_status(tack_key_public(key, pub), TACK_OK);
    ck_assert_status(tack_key_public(back, back_pub), TACK_OK);
    ck_assert_mem_eq(back_pub, pub, TACK_KEY_LEN);
    ck_assert_mem_eq(parsed.public_key, pub, TACK_KEY_LEN);
    ck_assert_status(tack_key_private(key, priv), TACK_OK);
    ck_assert_status(tack_key_private(back, back_priv), TACK_OK);
    ck_assert_mem_eq(back_priv, priv, TACK_PRIV_LEN);

    /* The independent implementation reads what the library wrote. */
    raw_decrypt(&parsed, password, raw_priv);
    ck_assert_mem_eq(raw_priv, priv, TACK_PRIV_LEN);
    tt_raw_private(key, raw_priv);
    ck_assert_mem_eq(raw_priv, priv, TACK_PRIV_LEN);

    free(pem);
    EVP_PKEY_free(back);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_create_with_zero_iterations_uses_8192)
{
    EVP_PKEY *key = NULL, *back = NULL;
    tack_keyfile_t a, b;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_status(tack_keyfile_create(&a, key, "pw", 2, 0), TACK_OK);
    ck_assert_uint_eq(a.iterations, TACK_KEYFILE_DEFAULT_ITERATIONS);
    ck_assert_uint_eq(a.iterations, 8192);
    ck_assert_status(tack_keyfile_decrypt(&a, "pw", 2, &back), TACK_OK);
    EVP_PKEY_free(back);
    back = NULL;

    ck_assert_status(tack_keyfile_create(&b, key, "pw", 2, 1), TACK_OK);
    ck_assert_uint_eq(b.iterations, 1);
    ck_assert_status(tack_keyfile_decrypt(&b, "pw", 2, &back), TACK_OK);
    EVP_PKEY_free(back);
    /* A fresh salt each time. */
    ck_assert_mem_ne(a.salt, b.salt, TACK_KEYFILE_SALT_LEN);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_create_refuses_iterations_parse_would_refuse)
{
    EVP_PKEY *key = NULL;
    tack_keyfile_t kf;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_status_fails(tack_keyfile_create(
        &kf, key, "pw", 2, TACK_KEYFILE_MAX_ITERATIONS + 1));
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_create_refuses_an_rsa_key)
{
    EVP_PKEY *rsa = tt_make_rsa_key();
    tack_keyfile_t kf;

    ck_assert_status_fails(tack_keyfile_create(&kf, rsa, "pw", 2, 1));
    EVP_PKEY_free(rsa);
}
END_TEST

START_TEST(keyfile_every_tampered_bit_is_a_wrong_password)
{
    EVP_PKEY *key = NULL;
    tack_keyfile_t kf;
    uint8_t wire[TACK_KEYFILE_LEN];
    size_t bit;

    /* One iteration keeps 1,152 decryptions fast; the MAC covers the
     * ciphertext and public key, and the salt feeds the key derivation. */
    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_status(tack_keyfile_create(&kf, key, "pw", 2, 1), TACK_OK);
    tack_keyfile_encode(&kf, wire);
    for (bit = 5 * 8; bit < TACK_KEYFILE_LEN * 8; bit++) {
        uint8_t bad[TACK_KEYFILE_LEN];
        tack_keyfile_t bad_kf;
        EVP_PKEY *out = NULL;
        tack_status_t st;

        memcpy(bad, wire, sizeof(bad));
        bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ck_assert_status(tack_keyfile_parse(&bad_kf, bad, sizeof(bad)),
                         TACK_OK);
        st = tack_keyfile_decrypt(&bad_kf, "pw", 2, &out);
        ck_assert_msg(st == TACK_ERR_WRONG_PASSWORD, "bit %zu (byte %zu): %s",
                      bit, bit / 8, tack_status_str(st));
    }
    /* A different iteration count derives different keys. */
    kf.iterations = 2;
    {
        EVP_PKEY *out = NULL;

        ck_assert_status(tack_keyfile_decrypt(&kf, "pw", 2, &out),
                         TACK_ERR_WRONG_PASSWORD);
    }
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_decrypt_reads_an_independently_built_file)
{
    EVP_PKEY *key = NULL, *back = NULL;
    uint8_t priv[TACK_PRIV_LEN], pub[TACK_KEY_LEN], got[TACK_KEY_LEN];
    uint8_t wire[TACK_KEYFILE_LEN];
    static const uint8_t salt[16] = {1, 2,  3,  4,  5,  6,  7,  8,
                                     9, 10, 11, 12, 13, 14, 15, 16};
    tack_keyfile_t kf;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    tt_raw_private(key, priv);
    tt_raw_public(key, pub);
    raw_keyfile(wire, priv, pub, "secret", 3, salt);
    ck_assert_status(tack_keyfile_parse(&kf, wire, sizeof(wire)), TACK_OK);
    ck_assert_status(tack_keyfile_decrypt(&kf, "secret", 6, &back), TACK_OK);
    ck_assert_status(tack_key_private(back, got), TACK_OK);
    ck_assert_mem_eq(got, priv, TACK_PRIV_LEN);
    ck_assert_status(tack_key_public(back, got), TACK_OK);
    ck_assert_mem_eq(got, pub, TACK_KEY_LEN);
    EVP_PKEY_free(back);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_decrypt_reports_a_key_mismatch)
{
    EVP_PKEY *a = NULL, *b = NULL, *out = NULL;
    uint8_t priv[TACK_PRIV_LEN], pub[TACK_KEY_LEN];
    uint8_t wire[TACK_KEYFILE_LEN];
    static const uint8_t salt[16] = {0x5a};
    tack_keyfile_t kf;

    /* A correct MAC over key B's public point with key A's scalar inside. */
    ck_assert_status(tack_key_generate(&a), TACK_OK);
    ck_assert_status(tack_key_generate(&b), TACK_OK);
    tt_raw_private(a, priv);
    tt_raw_public(b, pub);
    raw_keyfile(wire, priv, pub, "pw", 1, salt);
    ck_assert_status(tack_keyfile_parse(&kf, wire, sizeof(wire)), TACK_OK);
    ck_assert_status(tack_keyfile_decrypt(&kf, "pw", 2, &out),
                     TACK_ERR_KEY_MISMATCH);
    EVP_PKEY_free(b);
    EVP_PKEY_free(a);
}
END_TEST

START_TEST(keyfile_decrypt_reports_an_impossible_scalar_as_a_mismatch)
{
    EVP_PKEY *key = NULL, *out = NULL;
    uint8_t priv[TACK_PRIV_LEN], pub[TACK_KEY_LEN];
    uint8_t wire[TACK_KEYFILE_LEN];
    static const uint8_t salt[16] = {0xa5};
    tack_keyfile_t kf;

    /* An authentic file (right MAC) whose scalar is 0, then n. */
    ck_assert_status(tack_key_generate(&key), TACK_OK);
    tt_raw_public(key, pub);
    memset(priv, 0, sizeof(priv));
    raw_keyfile(wire, priv, pub, "pw", 1, salt);
    ck_assert_status(tack_keyfile_parse(&kf, wire, sizeof(wire)), TACK_OK);
    ck_assert_status(tack_keyfile_decrypt(&kf, "pw", 2, &out),
                     TACK_ERR_KEY_MISMATCH);
    tt_hex_to(
        priv, sizeof(priv),
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
    raw_keyfile(wire, priv, pub, "pw", 1, salt);
    ck_assert_status(tack_keyfile_parse(&kf, wire, sizeof(wire)), TACK_OK);
    ck_assert_status(tack_keyfile_decrypt(&kf, "pw", 2, &out),
                     TACK_ERR_KEY_MISMATCH);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(keyfile_decrypt_refuses_iteration_counts_parse_refuses)
{
    tack_keyfile_t kf = tt_load_keyfile("draft00/TACK_Key1.pem");
    EVP_PKEY *out = NULL;

    /* A structure filled in by hand, not by tack_keyfile_parse: decrypt
     * must not spin in PBKDF2 for 2^32 iterations either. */
    kf.iterations = 0;
    ck_assert_status(tack_keyfile_decrypt(&kf, "asdf", 4, &out),
                     TACK_ERR_KEYFILE_ITERATIONS);
    kf.iterations = 0xffffffffu;
    ck_assert_status(tack_keyfile_decrypt(&kf, "asdf", 4, &out),
                     TACK_ERR_KEYFILE_ITERATIONS);
}
END_TEST

Suite *keyfile_suite(void)
{
    Suite *s = suite_create("keyfile");
    TCase *tc = tcase_create("keyfile");

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_test(tc, keyfile_draft00_key1_decrypts_to_tack1_key);
    tcase_add_test(tc, keyfile_tackpy_unit_key_has_readme_fields);
    tcase_add_loop_test(tc, keyfile_draft02_keys_decrypt_to_their_tack_keys, 0,
                        2);
    tcase_add_test(tc, keyfile_decrypted_key_signs_tacks_of_tack1_key);
    tcase_add_test(tc, keyfile_wrong_password_is_reported);
    tcase_add_test(tc, keyfile_password_length_is_what_counts);
    tcase_add_test(tc, keyfile_parse_then_encode_gives_the_same_bytes);
    tcase_add_test(tc, keyfile_parse_of_encode_gives_the_same_structure);
    tcase_add_test(tc, keyfile_parse_rejects_iterations_0_and_above_the_cap);
    tcase_add_test(tc, keyfile_parse_rejects_versions_other_than_1);
    tcase_add_test(tc, keyfile_parse_rejects_every_truncation);
    tcase_add_test(tc, keyfile_parse_rejects_trailing_bytes);
    tcase_add_test(tc, keyfile_from_pem_reads_the_indented_tackpy_file);
    tcase_add_test(tc, keyfile_from_pem_refuses_a_second_key_block);
    tcase_add_test(tc, keyfile_from_pem_refuses_blocks_of_the_wrong_size);
    tcase_add_test(tc, keyfile_create_round_trips_through_pem);
    tcase_add_test(tc, keyfile_create_with_zero_iterations_uses_8192);
    tcase_add_test(tc, keyfile_create_refuses_iterations_parse_would_refuse);
    tcase_add_test(tc, keyfile_create_refuses_an_rsa_key);
    tcase_add_test(tc, keyfile_every_tampered_bit_is_a_wrong_password);
    tcase_add_test(tc, keyfile_decrypt_reads_an_independently_built_file);
    tcase_add_test(tc, keyfile_decrypt_reports_a_key_mismatch);
    tcase_add_test(tc,
                   keyfile_decrypt_reports_an_impossible_scalar_as_a_mismatch);
    tcase_add_test(tc, keyfile_decrypt_refuses_iteration_counts_parse_refuses);
    suite_add_tcase(s, tc);
    return s;
}
