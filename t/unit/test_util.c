/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_util.c -- tack_util.c, the small helpers the module and the tool
 * share: strict hex, a certificate's end, a password's first line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tests.h"
#include "tack_util.h"

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
    X509 *cert = tt_cert(NULL, "end.test", NULL);
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
    X509 *cert = tt_cert(NULL, "end.test", NULL);
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

Suite *util_suite(void)
{
    Suite *s = suite_create("util");
    TCase *hex = tcase_create("hex");
    TCase *end = tcase_create("cert_end");
    TCase *pw = tcase_create("password");

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
    return s;
}
