/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_utf8.c -- tack_utf8.c: UTF-8 for outputs, a character read
 * (tack_utf8_decode) and bytes that are not UTF-8 written as \xNN
 * (tack_utf8_escape).
 */
#include <string.h>

#include "tests.h"
#include "tack_utf8.h"

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

Suite *utf8_suite(void)
{
    Suite *s = suite_create("utf8");
    TCase *escape = tcase_create("escape");

    tcase_add_test(escape, utf8_escape_keeps_valid_utf8);
    tcase_add_test(escape, utf8_escape_writes_invalid_bytes_as_hex);
    tcase_add_test(escape, utf8_escape_doubles_backslashes_and_keeps_nul);
    tcase_add_test(escape, utf8_escape_truncates_to_the_buffer_and_terminates);
    suite_add_tcase(s, escape);
    return s;
}
