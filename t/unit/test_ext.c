/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_ext.c -- tack_ext.c: the suite "ext".  Its four large subjects have
 * a file each (test_ext_tack.c, test_ext_breaksig.c, test_ext_00.c,
 * test_ext_02.c, a TCase each); here the small ones: key fingerprints,
 * time formatting, SPKI hashes and certificate names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "tests.h"
#include "tack_ext.h"

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

/* ---- SPKI hashes and certificate names ----------------------------------- */

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

START_TEST(cert_name_is_the_subject_with_utf8_values)
{
    char out[256];
    X509 *cert = tt_cert(NULL, "caf\xc3\xa9.test", "DNS:other.test");

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
    X509 *cert = tt_cert(NULL, NULL, "IP:127.0.0.1,DNS:e.test,DNS:www.e.test");

    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)), "DNS:e.test");
    X509_free(cert);
    cert = tt_cert(NULL, NULL, "IP:127.0.0.1");
    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)),
                     "(no subject, no DNS name)");
    X509_free(cert);
    cert = tt_cert(NULL, NULL, NULL);
    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)),
                     "(no subject, no DNS name)");
    X509_free(cert);
}
END_TEST

START_TEST(cert_name_cuts_to_the_buffer_and_hides_controls)
{
    char out[8];
    X509 *cert = tt_cert(NULL,
                         "a\tb\x7f"
                         "cdefgh",
                         NULL);

    ck_assert_str_eq(tack_cert_name(cert, out, sizeof(out)), "/CN=a?b");
    ck_assert_str_eq(tack_cert_name(cert, out, 1), "");
    X509_free(cert);
}
END_TEST

Suite *ext_suite(void)
{
    Suite *s = suite_create("ext");
    TCase *fingerprint = tcase_create("fingerprint");
    TCase *time_tc = tcase_create("time");
    TCase *spki = tcase_create("spki");

    suite_add_tcase(s, ext_tack_tcase());
    suite_add_tcase(s, ext_breaksig_tcase());
    suite_add_tcase(s, ext_00_tcase());
    suite_add_tcase(s, ext_02_tcase());

    tcase_add_test(fingerprint, fingerprint_of_known_keys);
    tcase_add_test(fingerprint, fingerprint_matches_an_independent_base32);
    suite_add_tcase(s, fingerprint);

    tcase_add_test(time_tc, time_format_of_known_minutes);
    tcase_add_test(time_tc, time_format_matches_gmtime);
    tcase_add_test(time_tc,
                   time_format_of_the_largest_minutes_stays_in_its_buffer);
    suite_add_tcase(s, time_tc);

    tcase_set_timeout(spki, TT_TIMEOUT);
    tcase_add_test(spki, spki_hash_of_the_vector_certificates);
    tcase_add_test(spki, cert_der_spki_hash_matches_openssl);
    tcase_add_test(spki, cert_der_spki_hash_refuses_what_is_not_der);
    tcase_add_test(spki, cert_der_spki_hash_refuses_nonzero_unused_bits);
    tcase_add_test(spki,
                   spki_hash_of_a_generated_cert_is_sha256_of_its_der_spki);
    tcase_add_test(spki, spki_hash_of_the_vector_server_key_matches_its_cert);
    tcase_add_test(spki, cert_name_is_the_subject_with_utf8_values);
    tcase_add_test(spki, cert_name_without_a_subject_is_the_first_dns_name);
    tcase_add_test(spki, cert_name_cuts_to_the_buffer_and_hides_controls);
    suite_add_tcase(s, spki);
    return s;
}
