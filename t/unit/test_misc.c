/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_misc.c -- the small pieces: status strings, fingerprints, time
 * formatting, keys and SPKI hashes, and reading files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include <openssl/pem.h>
#include <openssl/sha.h>

#include <openssl/x509v3.h>

#include "tests.h"
#include "tack_utf8.h"
#include "tack_file.h"
#include "tack_key.h"
#include "tack_ext.h"

/* ---- status -------------------------------------------------------------- */

START_TEST(status_strings_are_distinct_and_not_empty)
{
    int i, j;

    for (i = 0; i < TACK_STATUS_COUNT; i++) {
        const char *a = tack_status_str((tack_status_t)i);

        ck_assert_msg(a != NULL, "status %d has no string", i);
        ck_assert_msg(*a != '\0', "status %d has an empty string", i);
        for (j = 0; j < i; j++) {
            const char *b = tack_status_str((tack_status_t)j);

            ck_assert_msg(strcmp(a, b) != 0,
                          "statuses %d and %d share the string \"%s\"", j, i,
                          a);
        }
    }
}
END_TEST

START_TEST(status_strings_of_unknown_values_are_not_null)
{
    static const int unknown[] = {TACK_STATUS_COUNT, TACK_STATUS_COUNT + 1,
                                  1000, -1, 0x7fffffff};
    size_t i;

    for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        const char *s = tack_status_str((tack_status_t)unknown[i]);

        ck_assert_msg(s != NULL, "status %d gives NULL", unknown[i]);
        ck_assert_msg(*s != '\0', "status %d gives \"\"", unknown[i]);
    }
}
END_TEST

START_TEST(status_ok_is_zero)
{
    ck_assert_int_eq(TACK_OK, 0);
}
END_TEST

/* ---- fingerprint --------------------------------------------------------- */

/* An independent "TACK ID": SHA-256, RFC 4648 base32, lower case, 25
 * characters in dotted groups of five. */
static void raw_fingerprint(const uint8_t pub[TACK_KEY_LEN], char out[30])
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    uint8_t md[SHA256_DIGEST_LENGTH];
    size_t i, o = 0;

    ck_assert_ptr_nonnull(SHA256(pub, TACK_KEY_LEN, md));
    for (i = 0; i < 25; i++) {
        size_t bit = i * 5, byte = bit / 8, shift = bit % 8;
        unsigned v = (unsigned)md[byte] << 8 | md[byte + 1];

        if (i > 0 && i % 5 == 0) {
            out[o++] = '.';
        }
        out[o++] = alphabet[(v >> (11 - shift)) & 31];
    }
    out[o] = '\0';
}

START_TEST(fingerprint_of_known_keys)
{
    static const struct {
        const char *pub;
        const char *fp;
    } known[] = {
        {"949ec9731202f72ea2fe34e44e1f8c5dfd1a3b6dc9e7c3e3510080238bc23083"
         "6570c1920bc572abd3a7e75864e730330e521d5f30bbcdc502ec037bfda95763",
         "rrted.ptvtl.d2uiq.ox2xe.w4ss3"},
        {"4c09ac019229cd1f8c63042bb2e8cb85eb2fa6eddd45ce513a17e0c92a945645"
         "35a7585d5e8f8fc10ae6690a3d07dfa885e711ad6125877c9387081841181b4b",
         "nkufh.czttd.5cmlw.7cxtv.k6srn"},
    };
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        uint8_t pub[TACK_KEY_LEN];
        char fp[TACK_FINGERPRINT_SIZE], raw[30];

        tt_hex_to(pub, sizeof(pub), known[i].pub);
        tack_fingerprint(pub, fp);
        ck_assert_str_eq(fp, known[i].fp);
        raw_fingerprint(pub, raw);
        ck_assert_str_eq(raw, known[i].fp);
    }
}
END_TEST

START_TEST(fingerprint_matches_an_independent_base32)
{
    uint32_t seed = 0xf1f1;
    int round;

    for (round = 0; round < 1000; round++) {
        uint8_t pub[TACK_KEY_LEN];
        char fp[TACK_FINGERPRINT_SIZE + 8], raw[30];
        size_t i;

        for (i = 0; i < sizeof(pub); i++) {
            pub[i] = (uint8_t)tt_xorshift(&seed);
        }
        memset(fp, 'X', sizeof(fp));
        tack_fingerprint(pub, fp);
        raw_fingerprint(pub, raw);
        ck_assert_str_eq(fp, raw);
        ck_assert_uint_eq(strlen(fp), TACK_FINGERPRINT_SIZE - 1);
        /* Nothing written past the documented size. */
        for (i = TACK_FINGERPRINT_SIZE; i < sizeof(fp); i++) {
            ck_assert_int_eq(fp[i], 'X');
        }
    }
}
END_TEST

/* ---- time ---------------------------------------------------------------- */

START_TEST(time_format_of_known_minutes)
{
    static const struct {
        uint32_t minutes;
        const char *text;
    } known[] = {
        {37909509, "2042-01-29T01:09Z"},
        {0, "1970-01-01T00:00Z"},
        {26025024, "2019-06-25T22:24Z"},
        {29913235, "2026-11-16T01:55Z"},
        {29055834, "2025-03-30T15:54Z"},
        {1, "1970-01-01T00:01Z"},
        /* 2038-01-19T03:14:07Z is where 32-bit seconds end. */
        {35791394, "2038-01-19T03:14Z"},
        {35791395, "2038-01-19T03:15Z"},
        /* 2100 is not a leap year; 2000 was. */
        {68374080, "2100-01-01T00:00Z"},
        {15778080, "2000-01-01T00:00Z"},
        {15864120, "2000-02-29T18:00Z"},
    };
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        char text[TACK_TIME_SIZE];

        tack_time_format(known[i].minutes, text);
        ck_assert_msg(strcmp(text, known[i].text) == 0, "%u: got %s, want %s",
                      known[i].minutes, text, known[i].text);
    }
}
END_TEST

START_TEST(time_format_matches_gmtime)
{
    uint32_t seed = 0x7173;
    int round;

    for (round = 0; round < 2000; round++) {
        /* Up to year 9999, where the format keeps four digits. */
        uint32_t minutes = tt_xorshift(&seed) % 4223371680u;
        time_t t = (time_t)minutes * 60;
        struct tm tm;
        char want[64], got[TACK_TIME_SIZE];

        ck_assert_ptr_nonnull(gmtime_r(&t, &tm));
        strftime(want, sizeof(want), "%Y-%m-%dT%H:%MZ", &tm);
        tack_time_format(minutes, got);
        ck_assert_msg(strcmp(got, want) == 0, "%u: got %s, want %s", minutes,
                      got, want);
    }
}
END_TEST

START_TEST(time_format_of_the_largest_minutes_stays_in_its_buffer)
{
    /* 4223371680 minutes is year 10000; 0xffffffff is in 10136.  The buffer
     * holds the five-digit years too, and nothing is written past it. */
    static const struct {
        uint32_t minutes;
        const char *want;
    } big[] = {
        {4223371679u, "9999-12-31T23:59Z"},
        {4223371680u, "10000-01-01T00:00Z"},
        {0xffffffffu, "10136-02-16T04:15Z"},
    };
    size_t i, j;

    for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        char buf[TACK_TIME_SIZE + 16];

        memset(buf, 'X', sizeof(buf));
        tack_time_format(big[i].minutes, buf);
        ck_assert_msg(strcmp(buf, big[i].want) == 0, "%u: got %s, want %s",
                      big[i].minutes, buf, big[i].want);
        for (j = TACK_TIME_SIZE; j < sizeof(buf); j++) {
            ck_assert_msg(buf[j] == 'X', "%u minutes: byte %zu written",
                          big[i].minutes, j);
        }
    }
}
END_TEST

/* ---- keys and SPKI hashes ------------------------------------------------ */

START_TEST(spki_hash_of_the_vector_certificates)
{
    static const struct {
        const char *cert;
        const char *hash;
    } known[] = {
        {"draft00/serverX509Cert.pem",
         "bf3e45a33d604cb0689106562289266a581bf8091e07c669e7c8f6429b5d20e6"},
        {"draft02/serverX509Cert.pem",
         "c6e3b6077eb32f38a7cc3f6a20f56b4f161b3d40e88b0ddfa1ec679c1bef4179"},
    };
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        X509 *cert = tt_load_cert(known[i].cert);
        uint8_t got[TACK_HASH_LEN], want[TACK_HASH_LEN];

        tt_hex_to(want, sizeof(want), known[i].hash);
        ck_assert_status(tack_spki_hash(cert, got), TACK_OK);
        ck_assert_mem_eq(got, want, TACK_HASH_LEN);
        ck_assert_status(tack_pkey_spki_hash(X509_get0_pubkey(cert), got),
                         TACK_OK);
        ck_assert_mem_eq(got, want, TACK_HASH_LEN);
        X509_free(cert);
    }
}
END_TEST

/* The DER walk finds the same SubjectPublicKeyInfo as OpenSSL's decoder,
 * for the RSA vector certificates and freshly made P-256 and RSA ones, and
 * names the key's algorithm. */
static void check_der_walk(X509 *cert, const char *want_oid_hex)
{
    uint8_t *der = NULL, got[TACK_HASH_LEN], want[TACK_HASH_LEN];
    uint8_t oid[16];
    const uint8_t *alg = NULL;
    size_t alg_len = 0, i, oid_len = strlen(want_oid_hex) / 2;
    int der_len = i2d_X509(cert, &der);

    ck_assert_int_gt(der_len, 0);
    ck_assert_status(tack_spki_hash(cert, want), TACK_OK);
    ck_assert_status(
        tack_cert_der_spki_hash(der, (size_t)der_len, got, &alg, &alg_len),
        TACK_OK);
    ck_assert_mem_eq(got, want, TACK_HASH_LEN);
    tt_hex_to(oid, oid_len, want_oid_hex);
    ck_assert_uint_eq(alg_len, oid_len);
    ck_assert_mem_eq(alg, oid, oid_len);
    /* every proper prefix fails, and so do trailing bytes */
    for (i = 0; i < (size_t)der_len; i++) {
        ck_assert_msg(tack_cert_der_spki_hash(der, i, got, NULL, NULL) !=
                          TACK_OK,
                      "prefix of %zu bytes accepted", i);
    }
    der = OPENSSL_realloc(der, (size_t)der_len + 1);
    der[der_len] = 0;
    ck_assert_status(
        tack_cert_der_spki_hash(der, (size_t)der_len + 1, got, NULL, NULL),
        TACK_ERR_TRAILING);
    OPENSSL_free(der);
}

START_TEST(cert_der_spki_hash_matches_openssl)
{
    static const char rsa_oid[] = "2a864886f70d010101";
    static const char ec_oid[] = "2a8648ce3d0201";
    EVP_PKEY *key = NULL;
    X509 *cert;

    cert = tt_load_cert("draft00/serverX509Cert.pem");
    check_der_walk(cert, rsa_oid);
    X509_free(cert);
    cert = tt_load_cert("draft02/serverX509Cert.pem");
    check_der_walk(cert, rsa_oid);
    X509_free(cert);
    cert = tt_make_cert(&key);
    check_der_walk(cert, ec_oid);
    X509_free(cert);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(cert_der_spki_hash_refuses_what_is_not_der)
{
    static const uint8_t bad[][8] = {
        {0x31, 0x00},             /* a SET, not a SEQUENCE */
        {0x30, 0x80, 0x00, 0x00}, /* indefinite length (BER) */
        {0x30, 0x81, 0x05},       /* long form for a short length */
        {0x30, 0x82, 0x00, 0x90}, /* long form with a leading zero */
        {0x30, 0x00},             /* an empty certificate */
        {0x30, 0x02, 0x30, 0x00}, /* an empty tbsCertificate */
    };
    static const size_t len[] = {2, 4, 3, 4, 2, 4};
    uint8_t out[TACK_HASH_LEN];
    size_t i;

    for (i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
        ck_assert_msg(
            tack_cert_der_spki_hash(bad[i], len[i], out, NULL, NULL) != TACK_OK,
            "case %zu accepted", i);
    }
}
END_TEST

/* Found by fuzz_validate: a key BIT STRING with non-zero unused bits is not
 * DER; OpenSSL clears those bits when it re-encodes, so hashing the raw
 * bytes would give another target hash than a real start computes.  The
 * walk must refuse it (the module then decodes the certificate). */
START_TEST(cert_der_spki_hash_refuses_nonzero_unused_bits)
{
    EVP_PKEY *key = NULL;
    X509 *cert = tt_make_cert(&key);
    uint8_t *der = NULL, *spki = NULL, *at, out[TACK_HASH_LEN];
    int der_len = i2d_X509(cert, &der);
    int spki_len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &spki);
    size_t i;

    ck_assert_int_gt(der_len, 0);
    ck_assert_int_gt(spki_len, 0);
    at = NULL;
    for (i = 0; i + (size_t)spki_len <= (size_t)der_len; i++) {
        if (memcmp(der + i, spki, (size_t)spki_len) == 0) {
            at = der + i;
            break;
        }
    }
    ck_assert_ptr_nonnull(at);
    ck_assert_status(
        tack_cert_der_spki_hash(der, (size_t)der_len, out, NULL, NULL),
        TACK_OK);
    /* the P-256 point is the last 65 bytes; its BIT STRING's unused-bits
     * byte comes just before: claim one unused bit and set it */
    at[spki_len - 66] = 1;
    at[spki_len - 1] |= 1;
    ck_assert_status(
        tack_cert_der_spki_hash(der, (size_t)der_len, out, NULL, NULL),
        TACK_ERR_BAD_LENGTH);
    OPENSSL_free(spki);
    OPENSSL_free(der);
    X509_free(cert);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(spki_hash_of_a_generated_cert_is_sha256_of_its_der_spki)
{
    EVP_PKEY *key = NULL;
    X509 *cert = tt_make_cert(&key);
    unsigned char *der = NULL;
    int der_len = i2d_PUBKEY(key, &der);
    uint8_t want[TACK_HASH_LEN], got[TACK_HASH_LEN];

    ck_assert_int_gt(der_len, 0);
    ck_assert_ptr_nonnull(SHA256(der, (size_t)der_len, want));
    ck_assert_status(tack_spki_hash(cert, got), TACK_OK);
    ck_assert_mem_eq(got, want, TACK_HASH_LEN);
    ck_assert_status(tack_pkey_spki_hash(key, got), TACK_OK);
    ck_assert_mem_eq(got, want, TACK_HASH_LEN);
    OPENSSL_free(der);
    X509_free(cert);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(spki_hash_of_the_vector_server_key_matches_its_cert)
{
    char path[4096];
    FILE *f;
    EVP_PKEY *key;
    X509 *cert = tt_load_cert("draft00/serverX509Cert.pem");
    uint8_t got[TACK_HASH_LEN], want[TACK_HASH_LEN];

    tt_vector_path(path, sizeof(path), "draft00/serverX509Key.pem");
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    ck_assert_ptr_nonnull(key);
    ck_assert_int_eq(X509_check_private_key(cert, key), 1);
    ck_assert_int_eq(EVP_PKEY_get_bits(key), 1024);
    tt_hex_to(
        want, sizeof(want),
        "bf3e45a33d604cb0689106562289266a581bf8091e07c669e7c8f6429b5d20e6");
    /* A private key hashes as its public part. */
    ck_assert_status(tack_pkey_spki_hash(key, got), TACK_OK);
    ck_assert_mem_eq(got, want, TACK_HASH_LEN);
    EVP_PKEY_free(key);
    X509_free(cert);
}
END_TEST

/* name_cert: an unsigned certificate with |cn| (NULL: an empty subject) and
 * |san| (NULL: none), enough for tack_cert_name. */
static X509 *name_cert(const char *cn, const char *san)
{
    X509 *cert = X509_new();

    ck_assert_ptr_nonnull(cert);
    if (cn != NULL) {
        /* A name of our own: OpenSSL 4.0's X509_get_subject_name gives a
         * const one. */
        X509_NAME *name = X509_NAME_new();

        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                                    (const unsigned char *)cn,
                                                    -1, -1, 0),
                         1);
        ck_assert_int_eq(X509_set_subject_name(cert, name), 1);
        X509_NAME_free(name);
    }
    if (san != NULL) {
        X509V3_CTX ctx;
        X509_EXTENSION *ext;

        X509V3_set_ctx_nodb(&ctx);
        X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
        ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, san);
        ck_assert_ptr_nonnull(ext);
        ck_assert_int_eq(X509_add_ext(cert, ext, -1), 1);
        X509_EXTENSION_free(ext);
    }
    return cert;
}

START_TEST(cert_name_is_the_subject_with_utf8_values)
{
    char out[256];
    X509 *cert = name_cert("caf\xc3\xa9.test", "DNS:other.test");

    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)),
                     "/CN=caf\xc3\xa9.test");
    X509_free(cert);
    cert = tt_make_cert(NULL);
    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)), "/CN=tack.test");
    X509_free(cert);
}
END_TEST

START_TEST(cert_name_without_a_subject_is_the_first_dns_name)
{
    char out[256];
    X509 *cert = name_cert(NULL, "IP:127.0.0.1,DNS:e.test,DNS:www.e.test");

    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)), "DNS:e.test");
    X509_free(cert);
    cert = name_cert(NULL, "IP:127.0.0.1");
    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)),
                     "(no subject, no DNS name)");
    X509_free(cert);
    cert = name_cert(NULL, NULL);
    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)),
                     "(no subject, no DNS name)");
    X509_free(cert);
}
END_TEST

START_TEST(cert_name_cuts_to_the_buffer_and_hides_controls)
{
    char out[8];
    X509 *cert = name_cert("a\tb\x7f"
                           "cdefgh",
                           NULL);

    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)), "/CN=a?b");
    ck_assert_str_eq(tack_cert_name(cert, out, 1), "");
    X509_free(cert);
}
END_TEST

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

/* ---- file ---------------------------------------------------------------- */

/* Writes |len| bytes of |data| to a new temporary file; returns its path
 * (free with free() after unlink()). */
static char *temp_file(const void *data, size_t len)
{
    const char *dir = getenv("TMPDIR");
    char *path = malloc(4096);
    int fd;

    ck_assert_ptr_nonnull(path);
    snprintf(path, 4096, "%s/check_tack.XXXXXX",
             dir != NULL && *dir != '\0' ? dir : "/tmp");
    fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp %s: %s", path, strerror(errno));
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    ck_assert_int_eq(close(fd), 0);
    return path;
}

START_TEST(file_read_returns_the_whole_file_with_a_nul)
{
    static const char text[] = "Created by\n-----BEGIN TACK-----\n";
    char *path = temp_file(text, sizeof(text) - 1);
    char *out = NULL;
    size_t out_len = 0;

    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, sizeof(text) - 1);
    ck_assert_mem_eq(out, text, out_len);
    ck_assert_int_eq(out[out_len], '\0');
    free(out);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(file_read_of_a_vector_matches_stdio)
{
    char path[4096];
    size_t want_len, out_len = 0;
    char *want = tt_read_vector("draft00/TACK_Break_Sigs.pem", &want_len);
    char *out = NULL;

    tt_vector_path(path, sizeof(path), "draft00/TACK_Break_Sigs.pem");
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, want_len);
    ck_assert_mem_eq(out, want, want_len);
    free(out);
    free(want);
}
END_TEST

START_TEST(file_read_of_an_empty_file_is_empty)
{
    char *path = temp_file("", 0);
    char *out = NULL;
    size_t out_len = 1;

    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, 0);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(out[0], '\0');
    free(out);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(file_read_of_a_missing_file_is_an_io_error)
{
    char path[4096];
    char *out = NULL;
    size_t out_len = 0;

    tt_vector_path(path, sizeof(path), "draft00/no-such-file.pem");
    errno = 0;
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(file_read_of_a_directory_is_an_io_error)
{
    char path[4096];
    char *out = NULL;
    size_t out_len = 0;

    tt_vector_path(path, sizeof(path), "draft00");
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_IO);
}
END_TEST

/* A FIFO that nobody writes to must not block the caller (httpd -t would
 * hang on it), and a device that never ends must not be read at all. */
START_TEST(file_read_refuses_fifos_and_devices_without_blocking)
{
    char dir[] = "/tmp/tack-unit-fifo-XXXXXX", path[64];
    char *out = NULL;
    size_t out_len = 0;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/f.pem", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    alarm(5); /* a hang fails the test instead of the whole run */
    ck_assert_status(
        tack_file_read(path, TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_NOT_REGULAR_FILE);
    ck_assert_status(
        tack_file_read("/dev/zero", TACK_FILE_MAX_DEFAULT, &out, &out_len),
        TACK_ERR_NOT_REGULAR_FILE);
    alarm(0);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* mounted(dir, magic): dir is a mount of that pseudo-filesystem.  A build
 * chroot (dpkg-buildpackage in debootstrap, sbuild) may have no /sys, or
 * no /proc: the package build's make check says so and goes on; make test
 * fails there. */
static int mounted(const char *dir, long magic)
{
    struct statfs fs;

    if (statfs(dir, &fs) == 0 && (long)fs.f_type == magic) {
        return 1;
    }
    /* make test requires both (TACK_TEST_PSEUDO_FS=required). */
    if (getenv("TACK_TEST_PSEUDO_FS") &&
        strcmp(getenv("TACK_TEST_PSEUDO_FS"), "required") == 0) {
        ck_abort_msg("%s is not mounted, and make test needs it", dir);
    }
    fprintf(stderr,
            "note: %s is not mounted here: its pseudo-file case of "
            "file_read_refuses_pseudo_filesystems_before_reading is "
            "not run\n",
            dir);
    return 0;
}

/* The "regular" files of proc and sysfs are kernel interfaces: /proc/kmsg
 * blocks in read() (as root it would also consume the kernel log), so they
 * are refused before they are opened. */
START_TEST(file_read_refuses_pseudo_filesystems_before_reading)
{
    char *out = NULL;
    size_t out_len = 0;

    alarm(5); /* a hang fails the test instead of the whole run */
    if (mounted("/proc", PROC_SUPER_MAGIC)) {
        ck_assert_status(
            tack_file_read("/proc/kmsg", TACK_FILE_MAX_DEFAULT, &out, &out_len),
            TACK_ERR_PSEUDO_FILE);
        ck_assert_status(tack_file_read("/proc/self/status",
                                        TACK_FILE_MAX_DEFAULT, &out, &out_len),
                         TACK_ERR_PSEUDO_FILE);
    }
    if (mounted("/sys", SYSFS_MAGIC)) {
        ck_assert_status(tack_file_read("/sys/kernel/uevent_seqnum",
                                        TACK_FILE_MAX_DEFAULT, &out, &out_len),
                         TACK_ERR_PSEUDO_FILE);
    }
    alarm(0);
    ck_assert_ptr_null(out);
}
END_TEST

START_TEST(file_read_refuses_files_over_the_maximum)
{
    char data[1000];
    char *path, *out = NULL;
    size_t out_len = 0;

    memset(data, 'a', sizeof(data));
    path = temp_file(data, sizeof(data));
    ck_assert_status(tack_file_read(path, 999, &out, &out_len),
                     TACK_ERR_FILE_TOO_LARGE);
    ck_assert_status(tack_file_read(path, 1, &out, &out_len),
                     TACK_ERR_FILE_TOO_LARGE);
    ck_assert_status(tack_file_read(path, 1000, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, 1000);
    free(out);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(file_read_with_a_maximum_of_zero_reads_only_empty_files)
{
    char *empty = temp_file("", 0), *one = temp_file("x", 1);
    char *out = NULL;
    size_t out_len = 0;

    ck_assert_status(tack_file_read(empty, 0, &out, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, 0);
    free(out);
    out = NULL;
    ck_assert_status(tack_file_read(one, 0, &out, &out_len),
                     TACK_ERR_FILE_TOO_LARGE);
    unlink(one);
    unlink(empty);
    free(one);
    free(empty);
}
END_TEST

/* ---- tack_utf8_escape ---------------------------------------------------- */

/* utf8_is writes |in| (|in_len| bytes) through tack_utf8_escape and checks
 * the result against |want|, the returned length and the sizing call. */
static void utf8_is(const char *in, size_t in_len, const char *want)
{
    char out[128];
    size_t n = tack_utf8_escape((const uint8_t *)in, in_len, out, sizeof(out));

    ck_assert_str_eq(out, want);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert_uint_eq(tack_utf8_escape((const uint8_t *)in, in_len, NULL, 0),
                      n);
}

START_TEST(utf8_escape_keeps_valid_utf8)
{
    utf8_is("a.test", 6, "a.test");
    utf8_is("", 0, "");
    utf8_is("caf\xc3\xa9", 5, "caf\xc3\xa9");           /* U+00E9 */
    utf8_is("\xc2\x80\xdf\xbf", 4, "\xc2\x80\xdf\xbf"); /* U+0080, U+07FF */
    utf8_is("\xe0\xa0\x80\xef\xbf\xbf", 6, "\xe0\xa0\x80\xef\xbf\xbf");
    utf8_is("\xed\x9f\xbf\xee\x80\x80", 6, "\xed\x9f\xbf\xee\x80\x80");
    utf8_is("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8,
            "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"); /* U+10000, U+10FFFF */
}
END_TEST

START_TEST(utf8_escape_writes_invalid_bytes_as_hex)
{
    utf8_is("caf\xe9.test", 9, "caf\\xe9.test");   /* Latin-1 */
    utf8_is("\x80", 1, "\\x80");                   /* stray continuation */
    utf8_is("\xc0\xaf", 2, "\\xc0\\xaf");          /* overlong '/' */
    utf8_is("\xc1\xbf", 2, "\\xc1\\xbf");          /* overlong */
    utf8_is("\xe0\x9f\xbf", 3, "\\xe0\\x9f\\xbf"); /* overlong, 3 bytes */
    utf8_is("\xf0\x8f\xbf\xbf", 4, "\\xf0\\x8f\\xbf\\xbf"); /* 4 bytes */
    utf8_is("\xed\xa0\x80", 3, "\\xed\\xa0\\x80"); /* surrogate U+D800 */
    utf8_is("\xed\xbf\xbf", 3, "\\xed\\xbf\\xbf"); /* surrogate U+DFFF */
    utf8_is("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80"); /* U+110000 */
    utf8_is("\xf5\x80\x80\x80", 4, "\\xf5\\x80\\x80\\x80");
    utf8_is("\xfe\xff", 2, "\\xfe\\xff");
    /* truncated: the lead byte is escaped, what follows read again */
    utf8_is("\xc3", 1, "\\xc3");
    utf8_is("\xe2\x82", 2, "\\xe2\\x82");
    utf8_is("\xf0\x9f\x98", 3, "\\xf0\\x9f\\x98");
    utf8_is("\xe2\x82z", 3, "\\xe2\\x82z");
    utf8_is("\xe2\xc3\xa9", 3, "\\xe2\xc3\xa9");
}
END_TEST

START_TEST(utf8_escape_doubles_backslashes_and_keeps_nul)
{
    utf8_is("a\\xe9", 5, "a\\\\xe9"); /* reads back unlike caf\xe9 */
    utf8_is("\\\xe9", 2, "\\\\\\xe9");
    {
        char out[8];

        ck_assert_uint_eq(
            tack_utf8_escape((const uint8_t *)"a\0b", 3, out, sizeof(out)), 3);
        ck_assert_int_eq(memcmp(out, "a\0b", 4), 0);
    }
}
END_TEST

START_TEST(utf8_escape_truncates_to_the_buffer_and_terminates)
{
    char out[6];

    memset(out, 'x', sizeof(out));
    ck_assert_uint_eq(
        tack_utf8_escape((const uint8_t *)"ab\xe9\xe9", 4, out, sizeof(out)),
        10);
    ck_assert_str_eq(out, "ab\\xe");
    ck_assert_uint_eq(tack_utf8_escape((const uint8_t *)"ab", 2, out, 1), 2);
    ck_assert_str_eq(out, "");
}
END_TEST

Suite *misc_suite(void)
{
    Suite *s = suite_create("misc");
    TCase *status = tcase_create("status");
    TCase *fingerprint = tcase_create("fingerprint");
    TCase *time_tc = tcase_create("time");
    TCase *keys = tcase_create("keys");
    TCase *file = tcase_create("file");
    TCase *utf8 = tcase_create("utf8");

    tcase_add_test(status, status_strings_are_distinct_and_not_empty);
    tcase_add_test(status, status_strings_of_unknown_values_are_not_null);
    tcase_add_test(status, status_ok_is_zero);
    suite_add_tcase(s, status);

    tcase_add_test(fingerprint, fingerprint_of_known_keys);
    tcase_add_test(fingerprint, fingerprint_matches_an_independent_base32);
    suite_add_tcase(s, fingerprint);

    tcase_add_test(time_tc, time_format_of_known_minutes);
    tcase_add_test(time_tc, time_format_matches_gmtime);
    tcase_add_test(time_tc,
                   time_format_of_the_largest_minutes_stays_in_its_buffer);
    suite_add_tcase(s, time_tc);

    tcase_set_timeout(keys, TT_TIMEOUT);
    tcase_add_test(keys, spki_hash_of_the_vector_certificates);
    tcase_add_test(keys, cert_der_spki_hash_matches_openssl);
    tcase_add_test(keys, cert_der_spki_hash_refuses_what_is_not_der);
    tcase_add_test(keys, cert_der_spki_hash_refuses_nonzero_unused_bits);
    tcase_add_test(keys,
                   spki_hash_of_a_generated_cert_is_sha256_of_its_der_spki);
    tcase_add_test(keys, spki_hash_of_the_vector_server_key_matches_its_cert);
    tcase_add_test(keys, cert_name_is_the_subject_with_utf8_values);
    tcase_add_test(keys, cert_name_without_a_subject_is_the_first_dns_name);
    tcase_add_test(keys, cert_name_cuts_to_the_buffer_and_hides_controls);
    tcase_add_test(keys, key_generate_makes_distinct_p256_keys);
    tcase_add_test(keys, key_from_private_computes_the_known_public_key);
    tcase_add_test(keys, key_from_private_of_one_is_the_generator);
    tcase_add_test(keys, key_from_private_refuses_zero_and_scalars_from_n);
    tcase_add_test(keys, key_from_public_accepts_points_on_the_curve_only);
    tcase_add_test(keys, key_public_and_private_refuse_non_p256_keys);
    suite_add_tcase(s, keys);

    tcase_add_test(file, file_read_returns_the_whole_file_with_a_nul);
    tcase_add_test(file, file_read_of_a_vector_matches_stdio);
    tcase_add_test(file, file_read_of_an_empty_file_is_empty);
    tcase_add_test(file, file_read_of_a_missing_file_is_an_io_error);
    tcase_add_test(file, file_read_of_a_directory_is_an_io_error);
    tcase_add_test(file, file_read_refuses_fifos_and_devices_without_blocking);
    tcase_add_test(file, file_read_refuses_pseudo_filesystems_before_reading);
    tcase_add_test(file, file_read_refuses_files_over_the_maximum);
    tcase_add_test(file,
                   file_read_with_a_maximum_of_zero_reads_only_empty_files);
    suite_add_tcase(s, file);

    tcase_add_test(utf8, utf8_escape_keeps_valid_utf8);
    tcase_add_test(utf8, utf8_escape_writes_invalid_bytes_as_hex);
    tcase_add_test(utf8, utf8_escape_doubles_backslashes_and_keeps_nul);
    tcase_add_test(utf8, utf8_escape_truncates_to_the_buffer_and_terminates);
    suite_add_tcase(s, utf8);
    return s;
}
