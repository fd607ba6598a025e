/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_util.c -- the helpers the module and the tool share (tack_util.c,
 * tack_store.c): strict hex, a certificate's end, a password's first line,
 * a TackStore file's name and header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/asn1.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "tests.h"
#include "tack_util.h"
#include "tack_file.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_store.h"

/* ---- hex ----------------------------------------------------------------- */

START_TEST(hex_digit_takes_exactly_the_22_hex_characters)
{
    int c, n = 0;

    for (c = 0; c < 256; c++) {
        int v = tack_hex_digit(c);

        if (v >= 0) {
            n++;
            ck_assert(strchr("0123456789abcdefABCDEF", c) != NULL && c != 0);
            ck_assert_int_eq(v, (int)strtol((char[]){(char)c, 0}, NULL, 16));
        }
    }
    ck_assert_int_eq(n, 22);
    ck_assert_int_eq(tack_hex_digit(-1), -1);
}
END_TEST

START_TEST(hex_encode_known_answer_lower_case)
{
    static const uint8_t in[] = {0x00, 0x01, 0xab, 0xff, 0x7f};
    char out[11];

    ck_assert_status(tack_hex_encode(out, sizeof(out), in, sizeof(in)),
                     TACK_OK);
    ck_assert_str_eq(out, "0001abff7f");
    ck_assert_status(tack_hex_encode(out, 1, in, 0), TACK_OK);
    ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(hex_encode_refuses_a_buffer_without_room_for_the_nul)
{
    static const uint8_t in[] = {0xab, 0xcd};
    char out[5] = "zzzz";

    ck_assert_status(tack_hex_encode(out, 4, in, sizeof(in)),
                     TACK_ERR_BUFFER_TOO_SMALL);
    ck_assert_str_eq(out, "zzzz");
    ck_assert_status(tack_hex_encode(out, 0, in, 0), TACK_ERR_BUFFER_TOO_SMALL);
    ck_assert_status(tack_hex_encode(NULL, 5, in, 2), TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_hex_encode(out, 5, NULL, 2), TACK_ERR_INVALID_ARG);
}
END_TEST

START_TEST(hex_decode_round_trips_every_byte)
{
    uint8_t in[256], back[256];
    char hex[513];
    size_t i;

    for (i = 0; i < sizeof(in); i++) {
        in[i] = (uint8_t)i;
    }
    ck_assert_status(tack_hex_encode(hex, sizeof(hex), in, sizeof(in)),
                     TACK_OK);
    ck_assert_status(tack_hex_decode(back, sizeof(back), hex), TACK_OK);
    ck_assert_mem_eq(back, in, sizeof(in));
}
END_TEST

START_TEST(hex_decode_accepts_upper_and_mixed_case)
{
    uint8_t out[3];

    ck_assert_status(tack_hex_decode(out, 3, "ABcDeF"), TACK_OK);
    ck_assert_int_eq(out[0], 0xab);
    ck_assert_int_eq(out[1], 0xcd);
    ck_assert_int_eq(out[2], 0xef);
    ck_assert_status(tack_hex_decode(out, 0, ""), TACK_OK);
}
END_TEST

START_TEST(hex_decode_rejects_every_other_length)
{
    uint8_t out[2] = {0x55, 0x55};
    static const char *const bad[] = {"", "a", "abc", "abcde", "abcdef00"};
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_status(tack_hex_decode(out, 2, bad[i]), TACK_ERR_BAD_LENGTH);
    }
    ck_assert_int_eq(out[0], 0x55);
    ck_assert_int_eq(out[1], 0x55);
}
END_TEST

/* sscanf("%2x") takes " f", "+f", "-f" and "0x"; a strict decoder none. */
START_TEST(hex_decode_rejects_what_sscanf_accepts)
{
    static const char *const bad[] = {" f",  "+f", "-f",  "0x", "f ",
                                      "\tf", "gg", "f\n", "0X", "fG"};
    uint8_t out[1] = {0x55};
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_msg(tack_hex_decode(out, 1, bad[i]) == TACK_ERR_HEX,
                      "\"%s\" decoded", bad[i]);
    }
    ck_assert_int_eq(out[0], 0x55);
    /* A bad character late in the string leaves the start untouched too. */
    {
        uint8_t two[2] = {0x55, 0x55};

        ck_assert_status(tack_hex_decode(two, 2, "abc-"), TACK_ERR_HEX);
        ck_assert_int_eq(two[0], 0x55);
    }
    ck_assert_status(tack_hex_decode(out, 1, NULL), TACK_ERR_INVALID_ARG);
}
END_TEST

/* ---- a certificate's end ------------------------------------------------ */

/* ut_cert returns a certificate of |key| (a new P-256 key when NULL) with
 * subject CN |cn| (none when NULL) and the subjectAltName |san| ("DNS:a,
 * DNS:b"; none when NULL); not signed: nothing here checks that. */
static X509 *ut_cert(EVP_PKEY *key, const char *cn, const char *san)
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

/* ut_set_not_after gives |cert| the notAfter |text| of ASN.1 |type|, as
 * written, through accessors alone (ASN1_TIME is opaque in OpenSSL 4). */
static void ut_set_not_after(X509 *cert, int type, const char *text)
{
    ASN1_STRING *at = ASN1_STRING_type_new(type);

    ck_assert_ptr_nonnull(at);
    ck_assert_int_eq(ASN1_STRING_set(at, text, -1), 1);
    ck_assert_int_eq(X509_set1_notAfter(cert, at), 1);
    ASN1_STRING_free(at);
}

START_TEST(cert_end_time_known_answers)
{
    static const struct {
        int type;
        const char *text;
        long long want;
    } cases[] = {
        {V_ASN1_GENERALIZEDTIME, "20300606120000Z", 1906977600LL},
        {V_ASN1_UTCTIME, "491231235959Z", 2524607999LL},
        {V_ASN1_UTCTIME, "500101000000Z", -631152000LL},
        {V_ASN1_GENERALIZEDTIME, "99991231235959Z", 253402300799LL},
        /* An offset (RFC 5280 wants Z, OpenSSL converts it): the same
         * moment as the first. */
        {V_ASN1_GENERALIZEDTIME, "20300606130000+0100", 1906977600LL},
    };
    X509 *cert = ut_cert(NULL, "end.test", NULL);
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        time_t t = 0;

        ut_set_not_after(cert, cases[i].type, cases[i].text);
        ck_assert_status(tack_cert_end_time(cert, &t), TACK_OK);
        ck_assert_msg((long long)t == cases[i].want, "%s: got %lld",
                      cases[i].text, (long long)t);
    }
    X509_free(cert);
}
END_TEST

START_TEST(cert_end_time_refuses_a_time_that_does_not_parse)
{
    static const char *const bad[] = {"",
                                      "2030",
                                      "20301306120000Z",
                                      "2030060612000Z",
                                      "20300606120000",
                                      "2030-06-06T12:00Z"};
    X509 *cert = ut_cert(NULL, "end.test", NULL);
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        time_t t = 42;

        ut_set_not_after(cert, V_ASN1_GENERALIZEDTIME, bad[i]);
        ck_assert_msg(tack_cert_end_time(cert, &t) == TACK_ERR_TIME,
                      "\"%s\" parsed", bad[i]);
        ck_assert_int_eq((long long)t, 42);
    }
    ck_assert_status(tack_cert_end_time(NULL, &(time_t){0}),
                     TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_cert_end_time(cert, NULL), TACK_ERR_INVALID_ARG);
    X509_free(cert);
}
END_TEST

/* ---- a password's first line -------------------------------------------- */

START_TEST(password_line_table)
{
    static const struct {
        const char *in;
        size_t in_len;
        const char *want;
        size_t want_len;
    } cases[] = {
        {"pw\n", 3, "pw", 2},
        {"pw\r\n", 4, "pw", 2},
        {"pass\rword\n", 10, "pass\rword", 9},
        {"pw\r\r\n", 5, "pw\r", 3},
        {"pw\r", 3, "pw\r", 3}, /* no line end: the '\r' is kept */
        {"pw", 2, "pw", 2},
        {"\n", 1, "", 0},
        {"\r\n", 2, "", 0},
        {"first\nsecond\n", 13, "first", 5},
        {"p\0w\nx", 5, "p\0w", 3},
        {"", 0, "", 0},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[32];
        size_t n, j;

        memcpy(buf, cases[i].in, cases[i].in_len);
        n = tack_password_line(buf, cases[i].in_len);
        ck_assert_msg(n == cases[i].want_len, "case %zu: length %zu", i, n);
        ck_assert_mem_eq(buf, cases[i].want, n);
        /* Everything after the line is wiped. */
        for (j = n; j < cases[i].in_len; j++) {
            ck_assert_msg(buf[j] == '\0', "case %zu: byte %zu kept", i, j);
        }
    }
    ck_assert_uint_eq(tack_password_line(NULL, 5), 0);
}
END_TEST

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
    X509 *cert = ut_cert(NULL, "cn.example.org",
                         "IP:192.0.2.1,DNS:WWW.Example.ORG,DNS:b.example.org");

    ut_name_is(cert, "www.example.org.ecdsa.");
    X509_free(cert);
}
END_TEST

START_TEST(store_name_takes_the_cn_without_a_san)
{
    X509 *cert = ut_cert(NULL, "Mail.Example.Org", NULL);

    ut_name_is(cert, "mail.example.org.ecdsa.");
    X509_free(cert);
    cert = ut_cert(NULL, "mail.example.org", "IP:192.0.2.1");
    ut_name_is(cert, "mail.example.org.ecdsa.");
    X509_free(cert);
}
END_TEST

START_TEST(store_name_is_one_name_whatever_the_case)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *a = ut_cert(key, "WWW.EXAMPLE.ORG", NULL);
    X509 *b = ut_cert(key, NULL, "DNS:www.example.org");
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
    X509 *cert = ut_cert(NULL, NULL, "DNS:*.Example.org");

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
        X509 *cert = ut_cert(NULL, cns[i], NULL);
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
    X509 *cert = ut_cert(NULL, NULL, NULL);

    ut_name_is(cert, "ecdsa.");
    X509_free(cert);
    /* Nothing usable in the CN: the same. */
    cert = ut_cert(NULL, "...", NULL);
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
    cert = ut_cert(NULL, NULL, san);
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
    cert = ut_cert(rsa, "rsa.test", NULL);
    ut_name_is(cert, "rsa.test.rsa.");
    X509_free(cert);
    cert = ut_cert(ed, "ed.test", NULL);
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
    X509 *cert = ut_cert(NULL, NULL, NULL);
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

/* ---- writing files (tack_file.c: tack_file_commit, tack_file_sync_fs) ---- */

/* ut_dir makes a fresh directory; ut_rmdir removes it and what is in it
 * (plain files only). */
static char *ut_dir(void)
{
    static char dir[64];

    snprintf(dir, sizeof(dir), "/tmp/tack-unit-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

static void ut_rm(const char *dir, const char *name)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    unlink(path);
}

static char *ut_text(const char *path)
{
    char *text = NULL;
    size_t len = 0;

    ck_assert_status(tack_file_read(path, 1024, &text, &len), TACK_OK);
    return text;
}

START_TEST(file_commit_puts_the_file_in_place_and_drops_the_temporary_name)
{
    char *dir = ut_dir(), path[256], *tmp = NULL, *text;

    snprintf(path, sizeof(path), "%s/a.tack.pem", dir);
    ck_assert_status(tack_file_write_temp(path, "new\n", 4, 0644, 0, &tmp),
                     TACK_OK);
    ck_assert_status(tack_file_commit(tmp, path, 0), TACK_OK);
    ck_assert_int_eq(access(tmp, F_OK), -1);
    text = ut_text(path);
    ck_assert_str_eq(text, "new\n");
    free(text);
    free(tmp);
    ck_assert_int_eq(tack_file_sync_dir(path), 0);
    ut_rm(dir, "a.tack.pem");
    rmdir(dir);
}
END_TEST

START_TEST(file_commit_without_replace_keeps_an_existing_file)
{
    char *dir = ut_dir(), path[256], *tmp = NULL, *text;

    snprintf(path, sizeof(path), "%s/a.tack.pem", dir);
    ck_assert_status(tack_file_replace(path, "old\n", 4, 0644, 0), TACK_OK);
    ck_assert_status(tack_file_write_temp(path, "new\n", 4, 0644, 0, &tmp),
                     TACK_OK);
    errno = 0;
    ck_assert_status(tack_file_commit(tmp, path, 0), TACK_ERR_IO);
    ck_assert_int_eq(errno, EEXIST);
    ck_assert_int_eq(access(tmp, F_OK), -1); /* removed on failure too */
    text = ut_text(path);
    ck_assert_str_eq(text, "old\n");
    free(text);
    free(tmp);
    /* With replace: the new one. */
    ck_assert_status(tack_file_write_temp(path, "new\n", 4, 0644, 0, &tmp),
                     TACK_OK);
    ck_assert_status(tack_file_commit(tmp, path, 1), TACK_OK);
    text = ut_text(path);
    ck_assert_str_eq(text, "new\n");
    free(text);
    free(tmp);
    ck_assert_status(tack_file_commit(NULL, path, 1), TACK_ERR_INVALID_ARG);
    ut_rm(dir, "a.tack.pem");
    rmdir(dir);
}
END_TEST

START_TEST(file_sync_fs_syncs_a_directory_and_refuses_a_missing_one)
{
    char *dir = ut_dir(), missing[256];

    ck_assert_int_eq(tack_file_sync_fs(dir), 0);
    snprintf(missing, sizeof(missing), "%s/missing", dir);
    errno = 0;
    ck_assert_int_eq(tack_file_sync_fs(missing), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(tack_file_sync_fs(NULL), -1);
    rmdir(dir);
}
END_TEST

/* ---- directories another user can write (tack_file.c: tack_file_read_at,
 * tack_dir_open, tack_file_replace_at) ---------------------------------- */

static void ut_path(char *out, size_t out_len, const char *dir,
                    const char *name)
{
    snprintf(out, out_len, "%s/%s", dir, name);
}

START_TEST(file_read_at_never_follows_a_link_nor_blocks_on_a_fifo)
{
    char *dir = ut_dir(), path[256], *text = NULL;
    struct stat sb;
    size_t len = 0;
    int fd;

    ut_path(path, sizeof(path), dir, "pubcert.pem");
    ck_assert_status(tack_file_replace(path, "cert\n", 5, 0644, 0), TACK_OK);
    ut_path(path, sizeof(path), dir, "zero.pem");
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    ut_path(path, sizeof(path), dir, "fifo.pem");
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    ut_path(path, sizeof(path), dir, "sub");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);

    ck_assert_status(
        tack_file_read_at(fd, "pubcert.pem", 1024, &text, &len, &sb), TACK_OK);
    ck_assert_str_eq(text, "cert\n");
    ck_assert(S_ISREG(sb.st_mode) && sb.st_uid == geteuid());
    free(text);
    /* a link is not followed, even to something harmless to open */
    errno = 0;
    ck_assert_status(tack_file_read_at(fd, "zero.pem", 1024, &text, &len, &sb),
                     TACK_ERR_NOT_REGULAR_FILE);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert(S_ISLNK(sb.st_mode));
    /* a FIFO nobody writes to: refused at once (the unit's timeout would
     * end a read that blocks) */
    ck_assert_status(tack_file_read_at(fd, "fifo.pem", 1024, &text, &len, NULL),
                     TACK_ERR_NOT_REGULAR_FILE);
    errno = 0;
    ck_assert_status(tack_file_read_at(fd, "sub", 1024, &text, &len, NULL),
                     TACK_ERR_IO);
    ck_assert_int_eq(errno, EISDIR);
    ck_assert_status(tack_file_read_at(fd, "pubcert.pem", 4, &text, &len, NULL),
                     TACK_ERR_FILE_TOO_LARGE);
    ck_assert_status(
        tack_file_read_at(fd, "missing.pem", 1024, &text, &len, NULL),
        TACK_ERR_IO);
    ck_assert_status(tack_file_read_at(fd, NULL, 1024, &text, &len, NULL),
                     TACK_ERR_INVALID_ARG);
    close(fd);
    ut_rm(dir, "pubcert.pem");
    ut_rm(dir, "zero.pem");
    ut_rm(dir, "fifo.pem");
    ut_path(path, sizeof(path), dir, "sub");
    rmdir(path);
    rmdir(dir);
}
END_TEST

START_TEST(dir_open_refuses_a_link_as_the_directory_and_one_others_could_make)
{
    char *dir = ut_dir(), real[256], lnk[256], via[256], through[256],
         seen[512];
    int fd;

    ut_path(real, sizeof(real), dir, "real");
    ut_path(lnk, sizeof(lnk), dir, "link");
    ut_path(via, sizeof(via), dir, "via");
    snprintf(through, sizeof(through), "%s/via/real", dir);
    ck_assert_int_eq(mkdir(real, 0755), 0);
    ck_assert_int_eq(symlink(real, lnk), 0);
    ck_assert_int_eq(symlink(".", via), 0);
    chmod(dir, 0755);

    fd = tack_dir_open(real, seen, sizeof(seen));
    ck_assert_int_ge(fd, 0);
    close(fd);
    /* the directory itself a link: refused, and named */
    errno = 0;
    ck_assert_int_eq(tack_dir_open(lnk, seen, sizeof(seen)), -1);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_str_eq(seen, lnk);
    if (geteuid() == 0) {
        /* a link on the way, in a directory only root can change: root's
         * own layout, followed */
        fd = tack_dir_open(through, seen, sizeof(seen));
        ck_assert_int_ge(fd, 0);
        close(fd);
    }
    /* ... but not where another user could have made it */
    chmod(dir, 0777);
    errno = 0;
    ck_assert_int_eq(tack_dir_open(through, seen, sizeof(seen)), -1);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_str_eq(seen, via);
    chmod(dir, 0700);
    errno = 0;
    ck_assert_int_eq(tack_dir_open("relative/path", NULL, 0), -1);
    ck_assert_int_eq(errno, EINVAL);
    ut_rm(dir, "link");
    ut_rm(dir, "via");
    rmdir(real);
    rmdir(dir);
}
END_TEST

START_TEST(file_replace_at_writes_where_the_directory_was_opened)
{
    char *dir = ut_dir(), store[256], moved[256], other[256], path[512], *text;
    int fd;

    ut_path(store, sizeof(store), dir, "store");
    ut_path(moved, sizeof(moved), dir, "moved");
    ut_path(other, sizeof(other), dir, "other");
    ck_assert_int_eq(mkdir(store, 0755), 0);
    ck_assert_int_eq(mkdir(other, 0700), 0);
    fd = tack_dir_open(store, NULL, 0);
    ck_assert_int_ge(fd, 0);
    /* the owner of the parent swaps the store for a link elsewhere */
    ck_assert_int_eq(rename(store, moved), 0);
    ck_assert_int_eq(symlink(other, store), 0);
    ck_assert_status(
        tack_file_replace_at(fd, "a.tack.pem", "tack\n", 5, 0644, 1), TACK_OK);
    snprintf(path, sizeof(path), "%s/a.tack.pem", other);
    ck_assert_int_eq(access(path, F_OK), -1);
    snprintf(path, sizeof(path), "%s/a.tack.pem", moved);
    text = ut_text(path);
    ck_assert_str_eq(text, "tack\n");
    free(text);
    ck_assert_int_eq(unlinkat(fd, "a.tack.pem", 0), 0);
    close(fd);
    rmdir(moved); /* empty: no temporary file left behind */
    ck_assert_int_eq(access(moved, F_OK), -1);
    ut_rm(dir, "store");
    rmdir(other);
    rmdir(dir);
}
END_TEST

Suite *util_suite(void)
{
    Suite *s = suite_create("util");
    TCase *hex = tcase_create("hex");
    TCase *end = tcase_create("cert_end");
    TCase *pw = tcase_create("password");
    TCase *store = tcase_create("store");
    TCase *file = tcase_create("file");

    tcase_add_test(hex, hex_digit_takes_exactly_the_22_hex_characters);
    tcase_add_test(hex, hex_encode_known_answer_lower_case);
    tcase_add_test(hex, hex_encode_refuses_a_buffer_without_room_for_the_nul);
    tcase_add_test(hex, hex_decode_round_trips_every_byte);
    tcase_add_test(hex, hex_decode_accepts_upper_and_mixed_case);
    tcase_add_test(hex, hex_decode_rejects_every_other_length);
    tcase_add_test(hex, hex_decode_rejects_what_sscanf_accepts);
    suite_add_tcase(s, hex);

    tcase_add_test(end, cert_end_time_known_answers);
    tcase_add_test(end, cert_end_time_refuses_a_time_that_does_not_parse);
    suite_add_tcase(s, end);

    tcase_add_test(pw, password_line_table);
    suite_add_tcase(s, pw);

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
    tcase_add_test(store, store_header_known_answer);
    tcase_add_test(store,
                   store_header_refuses_a_producer_that_breaks_the_lines);
    tcase_add_test(store, store_header_and_pem_read_back);
    suite_add_tcase(s, store);

    tcase_add_test(
        file, file_commit_puts_the_file_in_place_and_drops_the_temporary_name);
    tcase_add_test(file, file_commit_without_replace_keeps_an_existing_file);
    tcase_add_test(file,
                   file_sync_fs_syncs_a_directory_and_refuses_a_missing_one);
    tcase_add_test(file,
                   file_read_at_never_follows_a_link_nor_blocks_on_a_fifo);
    tcase_add_test(
        file,
        dir_open_refuses_a_link_as_the_directory_and_one_others_could_make);
    tcase_add_test(file, file_replace_at_writes_where_the_directory_was_opened);
    suite_add_tcase(s, file);
    return s;
}
