/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_store.c -- tack_store.c: the TackStore file contract, a file's name
 * from its certificate and the "Created by" lines every TACK file written
 * by mod_tack's parts begins with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tests.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_store.h"

/* ---- TackStore file names ----------------------------------------------- */

/* ut_h8 writes the first 8 hex digits of SHA-256 of |cert|'s SPKI,
 * computed here, not by the library. */
static void ut_h8(X509 *cert, char out[9])
{
    uint8_t *der = NULL;
    int len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der);
    char hex[65];

    ck_assert_int_gt(len, 0);
    tt_sha256_hex(hex, der, (size_t)len);
    OPENSSL_free(der);
    memcpy(out, hex, 8);
    out[8] = '\0';
}

/* ut_name_is fails unless |cert|'s store name is |host| + ".ecdsa." (or the
 * key type given) + its hash + ".tack.pem". */
static void ut_name_is(X509 *cert, const char *prefix)
{
    char got[TACK_STORE_NAME_SIZE], want[TACK_STORE_NAME_SIZE], h8[9];

    ut_h8(cert, h8);
    snprintf(want, sizeof(want), "%s%s.tack.pem", prefix, h8);
    ck_assert_status(tack_cert_store_name(cert, got, sizeof(got)), TACK_OK);
    ck_assert_str_eq(got, want);
}

START_TEST(store_name_takes_the_first_dns_san_lower_cased)
{
    X509 *cert = tt_cert(NULL, "cn.example.org",
                         "IP:192.0.2.1,DNS:WWW.Example.ORG,DNS:b.example.org");

    ut_name_is(cert, "www.example.org.ecdsa.");
    X509_free(cert);
}
END_TEST

START_TEST(store_name_takes_the_cn_without_a_san)
{
    X509 *cert = tt_cert(NULL, "Mail.Example.Org", NULL);

    ut_name_is(cert, "mail.example.org.ecdsa.");
    X509_free(cert);
    cert = tt_cert(NULL, "mail.example.org", "IP:192.0.2.1");
    ut_name_is(cert, "mail.example.org.ecdsa.");
    X509_free(cert);
}
END_TEST

START_TEST(store_name_is_one_name_whatever_the_case)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *a = tt_cert(key, "WWW.EXAMPLE.ORG", NULL);
    X509 *b = tt_cert(key, NULL, "DNS:www.example.org");
    char na[TACK_STORE_NAME_SIZE], nb[TACK_STORE_NAME_SIZE];

    ck_assert_status(tack_cert_store_name(a, na, sizeof(na)), TACK_OK);
    ck_assert_status(tack_cert_store_name(b, nb, sizeof(nb)), TACK_OK);
    ck_assert_str_eq(na, nb);
    X509_free(a);
    X509_free(b);
    EVP_PKEY_free(key);
}
END_TEST

START_TEST(store_name_writes_a_wildcard_as_underscore)
{
    X509 *cert = tt_cert(NULL, NULL, "DNS:*.Example.org");

    ut_name_is(cert, "_.example.org.ecdsa.");
    X509_free(cert);
}
END_TEST

START_TEST(store_name_never_has_a_slash_or_a_leading_dot)
{
    static const char *const cns[] = {
        "../../etc/passwd", ".hidden",  "-rf",
        "example.org.",     "a b/c\\d", "caf\xc3\xa9.example"};
    static const char *const want[] = {"etcpasswd.", "hidden.",
                                       "rf.",        "example.org.",
                                       "abcd.",      "caf.example."};
    size_t i;

    for (i = 0; i < sizeof(cns) / sizeof(cns[0]); i++) {
        X509 *cert = tt_cert(NULL, cns[i], NULL);
        char got[TACK_STORE_NAME_SIZE], prefix[64];

        ck_assert_status(tack_cert_store_name(cert, got, sizeof(got)), TACK_OK);
        ck_assert_ptr_null(strchr(got, '/'));
        ck_assert_int_ne(got[0], '.');
        ck_assert_int_ne(got[0], '-');
        snprintf(prefix, sizeof(prefix), "%secdsa.", want[i]);
        ut_name_is(cert, prefix);
        X509_free(cert);
    }
}
END_TEST

START_TEST(store_name_without_names_is_the_key_hash_alone)
{
    X509 *cert = tt_cert(NULL, NULL, NULL);

    ut_name_is(cert, "ecdsa.");
    X509_free(cert);
    /* Nothing usable in the CN: the same. */
    cert = tt_cert(NULL, "...", NULL);
    ut_name_is(cert, "ecdsa.");
    X509_free(cert);
}
END_TEST

START_TEST(store_name_is_bounded)
{
    char san[4 + 300 + 1], got[TACK_STORE_NAME_SIZE];
    X509 *cert;

    memcpy(san, "DNS:", 4);
    memset(san + 4, 'a', 300);
    san[304] = '\0';
    cert = tt_cert(NULL, NULL, san);
    ck_assert_status(tack_cert_store_name(cert, got, sizeof(got)), TACK_OK);
    ck_assert_uint_eq(strspn(got, "a"), TACK_STORE_HOST_MAX);
    ck_assert_uint_lt(strlen(got), TACK_STORE_NAME_SIZE);
    /* One byte short: refused, never cut. */
    ck_assert_status(tack_cert_store_name(cert, got, strlen(got)),
                     TACK_ERR_BUFFER_TOO_SMALL);
    ck_assert_str_eq(got, "");
    ck_assert_status(tack_cert_store_name(NULL, got, sizeof(got)),
                     TACK_ERR_INVALID_ARG);
    X509_free(cert);
}
END_TEST

START_TEST(store_name_names_the_key_type)
{
    EVP_PKEY *rsa = tt_make_rsa_key();
    EVP_PKEY *ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    X509 *cert;

    ck_assert_ptr_nonnull(ed);
    cert = tt_cert(rsa, "rsa.test", NULL);
    ut_name_is(cert, "rsa.test.rsa.");
    X509_free(cert);
    cert = tt_cert(ed, "ed.test", NULL);
    ut_name_is(cert, "ed.test.ed25519.");
    X509_free(cert);
    EVP_PKEY_free(rsa);
    EVP_PKEY_free(ed);
}
END_TEST

START_TEST(store_name_ok_is_what_a_store_reads)
{
    static const char *const yes[] = {"a.tack.pem", "x.ecdsa.12345678.tack.pem",
                                      "_.tack.pem", "-.tack.pem"};
    static const char *const no[] = {
        ".tack.pem",  "tack.pem",     ".a.tack.pem", ".a.tack.pem.Xy12Zq",
        "a.TACK.PEM", "a/b.tack.pem", "a.tack.pem~", ""};
    char name[TACK_STORE_NAME_SIZE];
    X509 *cert = tt_cert(NULL, NULL, NULL);
    size_t i;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        ck_assert_msg(tack_store_name_ok(yes[i]), "%s refused", yes[i]);
    }
    for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        ck_assert_msg(!tack_store_name_ok(no[i]), "%s taken", no[i]);
    }
    ck_assert_int_eq(tack_store_name_ok(NULL), 0);
    /* What tack_cert_store_name writes, a store reads. */
    ck_assert_status(tack_cert_store_name(cert, name, sizeof(name)), TACK_OK);
    ck_assert_int_eq(tack_store_name_ok(name), 1);
    X509_free(cert);
}
END_TEST

START_TEST(store_header_known_answer)
{
    char out[TACK_STORE_HEADER_SIZE];

    ck_assert_status(
        tack_store_header(out, sizeof(out), "tack 0.1.0", (time_t)1906977600),
        TACK_OK);
    ck_assert_str_eq(out, "Created by tack 0.1.0\n"
                          "Created at 2030-06-06T12:00:00Z\n");
    ck_assert_status(
        tack_store_header(out, sizeof(out), "mod_tack (TackSigningKey)", 0),
        TACK_OK);
    ck_assert_str_eq(out, "Created by mod_tack (TackSigningKey)\n"
                          "Created at 1970-01-01T00:00:00Z\n");
}
END_TEST

START_TEST(store_header_refuses_a_producer_that_breaks_the_lines)
{
    char out[TACK_STORE_HEADER_SIZE];

    ck_assert_status(tack_store_header(out, sizeof(out), "a\nCreated by b", 0),
                     TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_store_header(out, sizeof(out), "a\rb", 0),
                     TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_store_header(out, sizeof(out), "", 0),
                     TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_store_header(out, sizeof(out), NULL, 0),
                     TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_store_header(out, 20, "tack 0.1.0", 0),
                     TACK_ERR_BUFFER_TOO_SMALL);
}
END_TEST

/* What the header starts is still a TACK file: the PEM reader skips it. */
START_TEST(store_header_and_pem_read_back)
{
    tack_t tack = tt_sign_new(NULL, 0, 0, 30000000, 0x11), back;
    uint8_t raw[TACK_LEN];
    char head[TACK_STORE_HEADER_SIZE], *pem = NULL, *text;
    size_t pem_len, n = 0;

    tack_encode(&tack, raw);
    ck_assert_status(
        tack_pem_encode(&pem, &pem_len, TACK_PEM_LABEL_TACK, raw, sizeof(raw)),
        TACK_OK);
    ck_assert_status(tack_store_header(head, sizeof(head), "tack 0.1.0", 0),
                     TACK_OK);
    text = malloc(strlen(head) + pem_len + 1);
    ck_assert_ptr_nonnull(text);
    strcpy(text, head);
    strcat(text, pem);
    ck_assert_status(
        tack_tacks_from_pem(&back, 1, &n, text, strlen(text), NULL), TACK_OK);
    ck_assert_uint_eq(n, 1);
    tt_assert_tack_eq(&back, &tack);
    free(text);
    free(pem);
}
END_TEST

/* The reference certificates' names: the CN (neither has a
 * subjectAltName) and the SPKI hashes t/vectors/README.md gives. */
START_TEST(store_name_of_the_vector_certificates)
{
    static const struct {
        const char *cert;
        const char *want;
    } known[] = {
        {"draft00/serverX509Cert.pem", "test.trevp.net.rsa.bf3e45a3.tack.pem"},
        {"draft02/serverX509Cert.pem", "localhost.rsa.c6e3b607.tack.pem"},
    };
    size_t i;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        X509 *cert = tt_load_cert(known[i].cert);
        char got[TACK_STORE_NAME_SIZE];

        ck_assert_status(tack_cert_store_name(cert, got, sizeof(got)), TACK_OK);
        ck_assert_str_eq(got, known[i].want);
        ck_assert_int_eq(tack_store_name_ok(got), 1);
        X509_free(cert);
    }
}
END_TEST

/* The header is what TACKpy wrote: for each vector file TACKpy made, its
 * producer and time give back its first two lines, byte for byte. */
START_TEST(store_header_writes_the_lines_tackpy_wrote)
{
    static const char *const files[] = {
        "draft00/TACK1.pem",     "draft00/TACK_Break_Sigs.pem",
        "draft00/TACK_Key1.pem", "draft00/TACKunrelated.pem",
        "draft02/TACK1.pem",     "draft02/TACK2.pem",
        "draft02/TACK_Key1.pem", "draft02/TACK_Key2.pem",
    };
    size_t i;

    for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        size_t len, head_len;
        char *text = tt_read_vector(files[i], &len);
        char producer[64], out[TACK_STORE_HEADER_SIZE], *nl, *end;
        struct tm tm;

        nl = strchr(text, '\n');
        ck_assert_ptr_nonnull(nl);
        ck_assert_int_eq(strncmp(text, "Created by ", 11), 0);
        ck_assert_uint_lt((size_t)(nl - text) - 11, sizeof(producer));
        memcpy(producer, text + 11, (size_t)(nl - text) - 11);
        producer[nl - text - 11] = '\0';
        memset(&tm, 0, sizeof(tm));
        end = strptime(nl + 1, "Created at %Y-%m-%dT%H:%M:%SZ\n", &tm);
        ck_assert_msg(end != NULL, "%s: no time on its second line", files[i]);
        head_len = (size_t)(end - text);
        ck_assert_status(
            tack_store_header(out, sizeof(out), producer, timegm(&tm)),
            TACK_OK);
        ck_assert_uint_eq(strlen(out), head_len);
        ck_assert_mem_eq(out, text, head_len);
        free(text);
    }
}
END_TEST

Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *store = tcase_create("store");

    tcase_set_timeout(store, TT_TIMEOUT);
    tcase_add_test(store, store_name_takes_the_first_dns_san_lower_cased);
    tcase_add_test(store, store_name_takes_the_cn_without_a_san);
    tcase_add_test(store, store_name_is_one_name_whatever_the_case);
    tcase_add_test(store, store_name_writes_a_wildcard_as_underscore);
    tcase_add_test(store, store_name_never_has_a_slash_or_a_leading_dot);
    tcase_add_test(store, store_name_without_names_is_the_key_hash_alone);
    tcase_add_test(store, store_name_is_bounded);
    tcase_add_test(store, store_name_names_the_key_type);
    tcase_add_test(store, store_name_ok_is_what_a_store_reads);
    tcase_add_test(store, store_name_of_the_vector_certificates);
    tcase_add_test(store, store_header_known_answer);
    tcase_add_test(store,
                   store_header_refuses_a_producer_that_breaks_the_lines);
    tcase_add_test(store, store_header_and_pem_read_back);
    tcase_add_test(store, store_header_writes_the_lines_tackpy_wrote);
    suite_add_tcase(s, store);
    return s;
}
