/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_utf8.c -- tack_utf8.c: UTF-8 for outputs, a character read
 * (tack_utf8_decode) and bytes that are not UTF-8 written as \xNN
 * (tack_utf8_escape).
 */
#include <stdlib.h>
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

/* ---- tack_utf8_decode ---------------------------------------------------- */

/* utf8_encode writes |cp| in |n| bytes (1-4) by RFC 3629's table, a
 * second implementation of the form the library reads; with |n| larger
 * than |cp| needs, the overlong form the RFC forbids. */
static void utf8_encode(uint32_t cp, size_t n, uint8_t out[4])
{
    static const uint8_t lead[5] = {0, 0x00, 0xc0, 0xe0, 0xf0};
    size_t i;

    for (i = n - 1; i > 0; i--) {
        out[i] = (uint8_t)(0x80 | (cp & 0x3f));
        cp >>= 6;
    }
    out[0] = (uint8_t)(lead[n] | cp);
}

/* utf8_len is the length RFC 3629 gives |cp|. */
static size_t utf8_len(uint32_t cp)
{
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/* utf8_at_end copies |n| bytes to the end of a heap buffer of 4, so that
 * a read past them is a heap overflow under ASan; returns where. */
static const uint8_t *utf8_at_end(uint8_t *heap4, const uint8_t *in, size_t n)
{
    memcpy(heap4 + 4 - n, in, n);
    return heap4 + 4 - n;
}

/* RFC 3629, section 7: its four examples, read character by character. */
START_TEST(utf8_decode_reads_the_rfc_3629_examples)
{
    static const struct {
        const char *bytes;
        uint32_t cps[5];
        size_t n;
    } ex[] = {
        {"\x41\xe2\x89\xa2\xce\x91\x2e", {0x41, 0x2262, 0x391, 0x2e}, 4},
        {"\xed\x95\x9c\xea\xb5\xad\xec\x96\xb4", {0xd55c, 0xad6d, 0xc5b4}, 3},
        {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", {0x65e5, 0x672c, 0x8a9e}, 3},
        {"\xef\xbb\xbf\xf0\xa3\x8e\xb4", {0xfeff, 0x233b4}, 2},
    };
    size_t i;

    for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
        const uint8_t *in = (const uint8_t *)ex[i].bytes;
        size_t len = strlen(ex[i].bytes), at = 0, k = 0;

        while (at < len) {
            uint32_t cp = 0xffffffff;
            size_t n = tack_utf8_decode(in + at, len - at, &cp);

            ck_assert_msg(n > 0, "example %zu: refused at byte %zu", i, at);
            ck_assert_uint_lt(k, ex[i].n);
            ck_assert_msg(cp == ex[i].cps[k],
                          "example %zu: U+%04X, want U+%04X", i, (unsigned)cp,
                          (unsigned)ex[i].cps[k]);
            at += n;
            k++;
        }
        ck_assert_uint_eq(k, ex[i].n);
    }
}
END_TEST

/* Every code point, in the form RFC 3629 gives it, reads back as itself
 * and its length, from exactly its bytes; each of its proper prefixes is
 * refused; a surrogate's form is refused. */
START_TEST(utf8_decode_reads_every_code_point_and_refuses_surrogates)
{
    uint8_t *heap = malloc(4), enc[4];
    uint32_t c;

    ck_assert_ptr_nonnull(heap);
    for (c = 0; c <= 0x10ffff; c++) {
        size_t len = utf8_len(c), k;
        uint32_t cp = 0xffffffff;

        utf8_encode(c, len, enc);
        if (c >= 0xd800 && c <= 0xdfff) {
            ck_assert_msg(
                tack_utf8_decode(utf8_at_end(heap, enc, len), len, &cp) == 0,
                "surrogate U+%04X read", (unsigned)c);
            continue;
        }
        ck_assert_msg(tack_utf8_decode(utf8_at_end(heap, enc, len), len, &cp) ==
                              len &&
                          cp == c,
                      "U+%04X: read as U+%04X", (unsigned)c, (unsigned)cp);
        for (k = 1; k < len; k++) {
            ck_assert_msg(tack_utf8_decode(utf8_at_end(heap, enc, k), k, &cp) ==
                              0,
                          "U+%04X: its first %zu bytes read", (unsigned)c, k);
        }
    }
    free(heap);
}
END_TEST

/* Every overlong form (a code point written in more bytes than it needs)
 * and every 4-byte form above U+10FFFF is refused. */
START_TEST(utf8_decode_refuses_overlong_forms_and_code_points_above_10ffff)
{
    uint8_t *heap = malloc(4), enc[4];
    uint32_t c, cp;
    size_t n;

    ck_assert_ptr_nonnull(heap);
    for (c = 0; c < 0x10000; c++) {
        for (n = utf8_len(c) + 1; n <= 4; n++) {
            utf8_encode(c, n, enc);
            ck_assert_msg(tack_utf8_decode(utf8_at_end(heap, enc, n), n, &cp) ==
                              0,
                          "U+%04X in %zu bytes read", (unsigned)c, n);
        }
    }
    /* 4 bytes hold 21 bits: up to U+1FFFFF */
    for (c = 0x110000; c <= 0x1fffff; c++) {
        utf8_encode(c, 4, enc);
        ck_assert_msg(tack_utf8_decode(utf8_at_end(heap, enc, 4), 4, &cp) == 0,
                      "U+%X read", (unsigned)c);
    }
    free(heap);
}
END_TEST

/* A byte that cannot start a character (a continuation byte, 0xf8-0xff)
 * is refused alone and before anything; a lead byte followed by what is
 * not a continuation byte is refused. */
START_TEST(utf8_decode_refuses_bytes_that_start_no_character)
{
    uint8_t in[4];
    uint32_t cp;
    unsigned b, next;

    for (b = 0x80; b <= 0xff; b++) {
        int starts = (b >= 0xc2 && b <= 0xf4);

        in[0] = (uint8_t)b;
        in[1] = in[2] = in[3] = 0x80 | 0x10;
        if (!starts) {
            ck_assert_msg(tack_utf8_decode(in, 1, &cp) == 0, "0x%02x read", b);
            ck_assert_msg(tack_utf8_decode(in, 4, &cp) == 0,
                          "0x%02x with continuation bytes read", b);
            continue;
        }
        /* a lead byte: its next byte must be 0x80-0xbf */
        for (next = 0; next <= 0xff; next++) {
            if (next >= 0x80 && next <= 0xbf) {
                continue;
            }
            in[1] = (uint8_t)next;
            ck_assert_msg(tack_utf8_decode(in, 4, &cp) == 0,
                          "0x%02x 0x%02x read", b, next);
        }
    }
}
END_TEST

Suite *utf8_suite(void)
{
    Suite *s = suite_create("utf8");
    TCase *decode = tcase_create("decode");
    TCase *escape = tcase_create("escape");

    tcase_set_timeout(decode, TT_TIMEOUT);
    tcase_add_test(decode, utf8_decode_reads_the_rfc_3629_examples);
    tcase_add_test(decode,
                   utf8_decode_reads_every_code_point_and_refuses_surrogates);
    tcase_add_test(
        decode,
        utf8_decode_refuses_overlong_forms_and_code_points_above_10ffff);
    tcase_add_test(decode, utf8_decode_refuses_bytes_that_start_no_character);
    suite_add_tcase(s, decode);

    tcase_add_test(escape, utf8_escape_keeps_valid_utf8);
    tcase_add_test(escape, utf8_escape_writes_invalid_bytes_as_hex);
    tcase_add_test(escape, utf8_escape_doubles_backslashes_and_keeps_nul);
    tcase_add_test(escape, utf8_escape_truncates_to_the_buffer_and_terminates);
    suite_add_tcase(s, escape);
    return s;
}
