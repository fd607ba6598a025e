/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_pem.c -- PEM armour: decoding the files TACKpy writes (comment lines,
 * indentation, CRLF), the errors for broken armour, encoding, and the
 * TACK / break-signature readers built on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_keyfile.h"

/* Decodes |text| from an exact-size copy without a terminating NUL, as the
 * header allows, so ASan sees any read past the end. */
static tack_status_t decode_text(tack_pem_t *pem, const char *text, size_t len,
                                 const char *label, unsigned *line)
{
    char *copy = malloc(len ? len : 1);
    tack_status_t st;

    ck_assert_ptr_nonnull(copy);
    if (len > 0) {
        memcpy(copy, text, len);
    }
    pem->blocks = NULL;
    pem->count = 0;
    st = tack_pem_decode(pem, copy, len, label, line);
    free(copy);
    return st;
}

/* Returns a malloc'd copy of |text| with the first |from| replaced. */
static char *replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    size_t head, len;
    char *out;

    ck_assert_msg(at != NULL, "'%s' not in the text", from);
    head = (size_t)(at - text);
    len = strlen(text) - strlen(from) + strlen(to);
    out = malloc(len + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, text, head);
    memcpy(out + head, to, strlen(to));
    strcpy(out + head + strlen(to), at + strlen(from));
    return out;
}

/* Returns a malloc'd copy of |text| with every line prefixed by |prefix| and
 * ended by |eol| instead of "\n". */
static char *relayout(const char *text, const char *prefix, const char *eol)
{
    size_t lines = 1, len;
    const char *p;
    char *out, *q;

    for (p = text; *p; p++) {
        lines += *p == '\n';
    }
    len = strlen(text) + lines * (strlen(prefix) + strlen(eol)) + 1;
    out = malloc(len);
    ck_assert_ptr_nonnull(out);
    q = out;
    for (p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);

        q += sprintf(q, "%s%.*s", prefix, (int)n, p);
        if (nl == NULL) {
            break;
        }
        q += sprintf(q, "%s", eol);
        p = nl + 1;
    }
    *q = '\0';
    return out;
}

static void assert_tack1_block(const tack_pem_t *pem, unsigned line)
{
    size_t len;
    uint8_t *want = tt_pem_bytes("draft00/TACK1.pem", "TACK", 0, &len);

    ck_assert_uint_eq(pem->count, 1);
    ck_assert_uint_eq(pem->blocks[0].len, TACK_LEN);
    ck_assert_mem_eq(pem->blocks[0].data, want, TACK_LEN);
    ck_assert_uint_eq(pem->blocks[0].line, line);
    free(want);
}

START_TEST(pem_decode_finds_blocks_among_comment_lines)
{
    size_t len, i;
    char *text = tt_read_vector("draft00/TACK_Break_Sigs.pem", &len);
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_status(decode_text(&pem, text, len, "TACK BREAK SIG", &line),
                     TACK_OK);
    ck_assert_uint_eq(pem.count, 2);
    for (i = 0; i < 2; i++) {
        size_t want_len;
        uint8_t *want = tt_pem_bytes("draft00/TACK_Break_Sigs.pem",
                                     "TACK BREAK SIG", i, &want_len);

        ck_assert_uint_eq(pem.blocks[i].len, TACK_BREAKSIG_LEN);
        ck_assert_mem_eq(pem.blocks[i].data, want, want_len);
        free(want);
    }
    ck_assert_uint_eq(pem.blocks[0].line, 3);
    ck_assert_uint_eq(pem.blocks[1].line, 10);
    tack_pem_free(&pem);
    free(text);
}
END_TEST

START_TEST(pem_decode_tolerates_leading_whitespace)
{
    size_t len, want_len;
    char *text = tt_read_vector("draft00/tackpy-unit-Key.pem", &len);
    uint8_t *want = tt_pem_bytes("draft00/tackpy-unit-Key.pem",
                                 "TACK PRIVATE KEY", 0, &want_len);
    char *tabbed, *tack1;
    tack_pem_t pem;
    unsigned line = 0;

    /* TACKpy's unit-test key file is indented by four spaces. */
    ck_assert_status(decode_text(&pem, text, len, TACK_PEM_LABEL_KEY, &line),
                     TACK_OK);
    ck_assert_uint_eq(pem.count, 1);
    ck_assert_uint_eq(pem.blocks[0].len, TACK_KEYFILE_LEN);
    ck_assert_mem_eq(pem.blocks[0].data, want, want_len);
    ck_assert_uint_eq(pem.blocks[0].line, 1);
    tack_pem_free(&pem);

    /* Tabs and mixed indentation too. */
    tack1 = tt_read_vector("draft00/TACK1.pem", &len);
    tabbed = relayout(tack1, " \t ", "\n");
    ck_assert_status(
        decode_text(&pem, tabbed, strlen(tabbed), TACK_PEM_LABEL_TACK, &line),
        TACK_OK);
    assert_tack1_block(&pem, 3);
    tack_pem_free(&pem);
    free(tabbed);
    free(tack1);
    free(want);
    free(text);
}
END_TEST

/* Line endings of every kind read alike: a lone CR (old Mac editors) once
 * made the whole file one line, "no PEM block found"; and line numbers
 * count them the same way (the BEGIN line of TACK1.pem is line 3). */
START_TEST(pem_decode_reads_cr_only_line_endings)
{
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    char *cr = relayout(text, "", "\r");
    char *bad = replace_once(cr, "-----END TACK-----", "-----END TACK-");
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_status(
        decode_text(&pem, cr, strlen(cr), TACK_PEM_LABEL_TACK, &line), TACK_OK);
    assert_tack1_block(&pem, 3);
    tack_pem_free(&pem);
    ck_assert_status(
        decode_text(&pem, bad, strlen(bad), TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_PEM_BAD);
    ck_assert_uint_eq(line, 8);
    free(bad);
    free(cr);
    free(text);
}
END_TEST

/* A UTF-8 byte order mark before the first line (as some editors save) is
 * not part of it: the file reads as it would without, and line numbers do
 * not move.  It was reported as "line 6: malformed PEM armour". */
START_TEST(pem_decode_skips_a_utf8_byte_order_mark)
{
    const char *body =
        "-----BEGIN TACK-----\n"
        "lJ7JcxIC9y6i/jTkTh+MXf0aO23J58PjUQCAI4vCMINlcMGSC8Vyq9On51hk5zAz\n"
        "DlIdXzC7zcUC7AN7/alXYwAAAkJ0Bb8+RaM9YEywaJEGViKJJmpYG/gJHgfGaefI\n"
        "9kKbXSDmXHI2tbZPnCxzR4ZXz21HxFm1SPYijTKm4zm5dAzXzvneOTRf/SFbY0dZ\n"
        "s7UpHKK4yOhREoGH8z8kxxD5/BXb5A==\n"
        "-----END TACK-----\n";
    char text[512];
    tack_pem_t pem;
    unsigned line = 0;

    snprintf(text, sizeof(text), "\xef\xbb\xbf%s", body);
    ck_assert_status(
        decode_text(&pem, text, strlen(text), TACK_PEM_LABEL_TACK, &line),
        TACK_OK);
    assert_tack1_block(&pem, 1);
    tack_pem_free(&pem);
}
END_TEST

/* Garbage on a BEGIN line (before or after the armour) is reported at that
 * line; it was reported at the END line, which then seemed unopened. */
START_TEST(pem_decode_reports_broken_begin_armour_at_its_line)
{
    static const char *const begins[] = {
        "x-----BEGIN TACK-----",
        "-----BEGIN TACK-----x",
        "-----BEGIN TACK----- -----BEGIN TACK-----",
    };
    size_t len, i;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    tack_pem_t pem;
    unsigned line = 0;

    for (i = 0; i < sizeof(begins) / sizeof(begins[0]); i++) {
        char *bad = replace_once(text, "-----BEGIN TACK-----", begins[i]);

        ck_assert_status(
            decode_text(&pem, bad, strlen(bad), TACK_PEM_LABEL_TACK, &line),
            TACK_ERR_PEM_BAD);
        ck_assert_msg(line == 3, "%s: reported at line %u, not 3", begins[i],
                      line);
        free(bad);
    }
    free(text);
}
END_TEST

/* What a file holds, for messages and refusals: distinct labels of well-
 * formed BEGIN lines, in order, a byte order mark and CR endings alike. */
START_TEST(pem_labels_lists_what_a_file_holds)
{
    const char *text = "\xef\xbb\xbf-----BEGIN TACK-----\rAAAA\r"
                       "-----END TACK-----\r"
                       "x-----BEGIN JUNK-----\r"
                       "-----BEGIN TACK PRIVATE KEY-----\nAAAA\n"
                       "-----END TACK PRIVATE KEY-----\n"
                       "-----BEGIN TACK-----\n-----END TACK-----\n"
                       "-----BEGIN PRIVATE KEY-----\n";
    char labels[4][TACK_PEM_LABEL_SIZE];
    size_t n = tack_pem_labels(text, strlen(text), labels, 4);

    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(labels[0], "TACK");
    ck_assert_str_eq(labels[1], "TACK PRIVATE KEY");
    ck_assert_str_eq(labels[2], "PRIVATE KEY");
    ck_assert_uint_eq(tack_pem_labels(text, strlen(text), labels, 1), 1);
    ck_assert_int_eq(tack_pem_label_is_private_key("TACK PRIVATE KEY"), 1);
    ck_assert_int_eq(tack_pem_label_is_private_key("PRIVATE KEY"), 1);
    ck_assert_int_eq(tack_pem_label_is_private_key("ENCRYPTED PRIVATE KEY"), 1);
    ck_assert_int_eq(tack_pem_label_is_private_key("EC PRIVATE KEY"), 1);
    ck_assert_int_eq(tack_pem_label_is_private_key("PUBLIC KEY"), 0);
    ck_assert_int_eq(tack_pem_label_is_private_key("NOTPRIVATE KEY"), 0);
    ck_assert_int_eq(tack_pem_label_is_private_key("TACK"), 0);
}
END_TEST

START_TEST(pem_decode_tolerates_crlf_and_trailing_whitespace)
{
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    char *crlf = relayout(text, "", "\r\n");
    char *trailing = relayout(text, "", " \t\r\n");
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_status(
        decode_text(&pem, crlf, strlen(crlf), TACK_PEM_LABEL_TACK, &line),
        TACK_OK);
    assert_tack1_block(&pem, 3);
    tack_pem_free(&pem);
    ck_assert_status(decode_text(&pem, trailing, strlen(trailing),
                                 TACK_PEM_LABEL_TACK, &line),
                     TACK_OK);
    assert_tack1_block(&pem, 3);
    tack_pem_free(&pem);
    free(trailing);
    free(crlf);
    free(text);
}
END_TEST

START_TEST(pem_decode_tolerates_text_after_the_last_block)
{
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    char *after = malloc(len + 64);
    char *no_newline;
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_ptr_nonnull(after);
    snprintf(after, len + 64, "%sSome notes\nafter the block\n", text);
    ck_assert_status(
        decode_text(&pem, after, strlen(after), TACK_PEM_LABEL_TACK, &line),
        TACK_OK);
    assert_tack1_block(&pem, 3);
    tack_pem_free(&pem);

    /* No newline after the END line. */
    no_newline =
        replace_once(text, "-----END TACK-----\n", "-----END TACK-----");
    ck_assert_status(decode_text(&pem, no_newline, strlen(no_newline),
                                 TACK_PEM_LABEL_TACK, &line),
                     TACK_OK);
    assert_tack1_block(&pem, 3);
    tack_pem_free(&pem);
    free(no_newline);
    free(after);
    free(text);
}
END_TEST

START_TEST(pem_decode_skips_binary_text_outside_blocks)
{
    static const char junk[] = "\0\xff\x80 binary\0junk\n\0\n";
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    char *both = malloc(sizeof(junk) - 1 + len);
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_ptr_nonnull(both);
    memcpy(both, junk, sizeof(junk) - 1);
    memcpy(both + sizeof(junk) - 1, text, len);
    ck_assert_status(decode_text(&pem, both, sizeof(junk) - 1 + len,
                                 TACK_PEM_LABEL_TACK, &line),
                     TACK_OK);
    assert_tack1_block(&pem, 2 + 3);
    tack_pem_free(&pem);
    free(both);
    free(text);
}
END_TEST

START_TEST(pem_decode_reports_begin_without_end)
{
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    char *broken = replace_once(text, "-----END TACK-----\n", "");
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_status(
        decode_text(&pem, broken, strlen(broken), TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_PEM_BAD);
    /* The BEGIN line (3) or a line of the unterminated body. */
    ck_assert_uint_ge(line, 3);
    ck_assert_uint_le(line, 8);
    ck_assert_ptr_null(pem.blocks);
    free(broken);
    free(text);
}
END_TEST

START_TEST(pem_decode_reports_end_with_another_label)
{
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    char *broken = replace_once(text, "-----END TACK-----",
                                "-----END TACK BREAK SIG-----");
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_status(
        decode_text(&pem, broken, strlen(broken), TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_PEM_BAD);
    ck_assert_uint_ge(line, 3);
    ck_assert_uint_le(line, 8);
    free(broken);
    free(text);
}
END_TEST

START_TEST(pem_decode_reports_bad_base64)
{
    static const char *const bad[] = {"*", "!", "%", "\x80"};
    size_t len, i;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char to[16];
        char *broken;
        tack_pem_t pem;
        unsigned line = 0;
        tack_status_t st;

        snprintf(to, sizeof(to), "lJ7J%sxIC", bad[i]);
        broken = replace_once(text, "lJ7JcxIC", to);
        st = decode_text(&pem, broken, strlen(broken), TACK_PEM_LABEL_TACK,
                         &line);
        ck_assert_msg(st == TACK_ERR_BASE64, "'%s' in the body: %s", bad[i],
                      tack_status_str(st));
        ck_assert_uint_ge(line, 3);
        ck_assert_uint_le(line, 8);
        free(broken);
    }
    free(text);
}
END_TEST

START_TEST(pem_decode_reports_padding_inside_the_body)
{
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    char *broken = replace_once(text, "lJ7JcxIC", "lJ7J=xIC");
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_status(
        decode_text(&pem, broken, strlen(broken), TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_BASE64);
    free(broken);
    free(text);
}
END_TEST

START_TEST(pem_decode_reports_an_incomplete_base64_quantum)
{
    size_t len;
    char *text = tt_read_vector("draft00/TACK1.pem", &len);
    /* The last line minus one character: 31 base64 characters. */
    char *broken = replace_once(text, "s7UpHKK4yOhREoGH8z8kxxD5/BXb5A==",
                                "s7UpHKK4yOhREoGH8z8kxxD5/BXb5A=");
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_status(
        decode_text(&pem, broken, strlen(broken), TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_BASE64);
    free(broken);
    free(text);
}
END_TEST

START_TEST(pem_decode_reports_wrong_label)
{
    size_t sig_len, tack_len;
    char *sigs = tt_read_vector("draft00/TACK_Break_Sigs.pem", &sig_len);
    char *tack = tt_read_vector("draft00/TACK1.pem", &tack_len);
    tack_pem_t pem;
    unsigned line = 0;

    /* "TACK" is a prefix of "TACK BREAK SIG": labels match whole. */
    ck_assert_status(
        decode_text(&pem, sigs, sig_len, TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(
        decode_text(&pem, tack, tack_len, TACK_PEM_LABEL_BREAKSIG, &line),
        TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(
        decode_text(&pem, tack, tack_len, TACK_PEM_LABEL_KEY, &line),
        TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(decode_text(&pem, tack, tack_len, "TAC", &line),
                     TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(decode_text(&pem, sigs, sig_len, "TACK BREAK", &line),
                     TACK_ERR_PEM_WRONG_LABEL);
    free(tack);
    free(sigs);
}
END_TEST

START_TEST(pem_decode_reports_no_block)
{
    static const char *const texts[] = {
        "",
        "\n",
        "Created by TACK.py 0.9.6\nCreated at 2012-05-08T15:53:56Z\n",
        "lJ7JcxIC9y6i/jTkTh+MXf0aO23J58PjUQCAI4vCMINlcMGSC8Vyq9On51hk5zAz\n",
    };
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        tack_pem_t pem;
        unsigned line = 99;
        tack_status_t st = decode_text(&pem, texts[i], strlen(texts[i]),
                                       TACK_PEM_LABEL_TACK, &line);

        ck_assert_msg(st == TACK_ERR_PEM_NO_BLOCK, "text #%zu: %s", i,
                      tack_status_str(st));
        /* No offending line: 0. */
        ck_assert_uint_eq(line, 0);
        ck_assert_status(decode_text(&pem, texts[i], strlen(texts[i]),
                                     TACK_PEM_LABEL_TACK, NULL),
                         TACK_ERR_PEM_NO_BLOCK);
    }
}
END_TEST

START_TEST(pem_decode_skips_well_formed_blocks_of_other_labels)
{
    size_t cert_len, tack_len;
    char *cert = tt_read_vector("draft00/serverX509Cert.pem", &cert_len);
    char *tack = tt_read_vector("draft00/TACK1.pem", &tack_len);
    char *both = malloc(cert_len + tack_len + 1);
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_ptr_nonnull(both);
    memcpy(both, cert, cert_len);
    memcpy(both + cert_len, tack, tack_len + 1);
    ck_assert_status(decode_text(&pem, both, cert_len + tack_len,
                                 TACK_PEM_LABEL_TACK, &line),
                     TACK_OK);
    /* The certificate has 16 lines; TACK1's BEGIN is its third. */
    assert_tack1_block(&pem, 16 + 3);
    tack_pem_free(&pem);
    ck_assert_status(
        decode_text(&pem, both, cert_len + tack_len, "CERTIFICATE", &line),
        TACK_OK);
    ck_assert_uint_eq(pem.count, 1);
    ck_assert_uint_eq(pem.blocks[0].line, 1);
    tack_pem_free(&pem);
    free(both);
    free(tack);
    free(cert);
}
END_TEST

START_TEST(pem_decode_rejects_broken_blocks_of_other_labels)
{
    size_t tack_len;
    char *tack = tt_read_vector("draft00/TACK1.pem", &tack_len);
    char *text = malloc(tack_len + 128);
    tack_pem_t pem;
    unsigned line = 0;

    ck_assert_ptr_nonnull(text);
    /* An unterminated block of another label before the TACK. */
    snprintf(text, tack_len + 128, "-----BEGIN CERTIFICATE-----\nMIIC\n%s",
             tack);
    ck_assert_status(
        decode_text(&pem, text, strlen(text), TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_PEM_BAD);
    /* A block of another label closed with the wrong END. */
    snprintf(text, tack_len + 128,
             "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CRL-----\n%s", tack);
    ck_assert_status(
        decode_text(&pem, text, strlen(text), TACK_PEM_LABEL_TACK, &line),
        TACK_ERR_PEM_BAD);
    free(text);
    free(tack);
}
END_TEST

/* Offset just past the first |what| at or after |from| in |text|. */
static size_t after(const char *text, size_t from, const char *what)
{
    const char *at = strstr(text + from, what);

    ck_assert_msg(at != NULL, "'%s' not found", what);
    return (size_t)(at - text) + strlen(what);
}

START_TEST(pem_decode_of_every_prefix_is_a_block_or_an_error)
{
    static const char begin[] = "-----BEGIN TACK BREAK SIG-----";
    static const char end[] = "-----END TACK BREAK SIG-----";
    size_t len, n;
    char *text = tt_read_vector("draft00/TACK_Break_Sigs.pem", &len);
    size_t b1_end = after(text, 0, begin), b1 = b1_end - strlen(begin);
    size_t e1 = after(text, b1_end, end);
    size_t b2_end = after(text, e1, begin), b2 = b2_end - strlen(begin);
    size_t e2 = after(text, b2_end, end);

    for (n = 0; n <= len; n++) {
        tack_pem_t pem;
        unsigned line = 0;
        tack_status_t st =
            decode_text(&pem, text, n, TACK_PEM_LABEL_BREAKSIG, &line);
        size_t blocks = st == TACK_OK ? pem.count : 0;

        if (n < b1) {
            ck_assert_msg(st == TACK_ERR_PEM_NO_BLOCK, "%zu bytes: %s", n,
                          tack_status_str(st));
        } else if (n < b1_end) {
            /* A partial BEGIN line: text, or broken armour. */
            ck_assert_msg(st == TACK_ERR_PEM_NO_BLOCK || st == TACK_ERR_PEM_BAD,
                          "%zu bytes: %s", n, tack_status_str(st));
        } else if (n < e1 || (n >= b2_end && n < e2)) {
            /* Inside a block: never a success. */
            ck_assert_msg(st == TACK_ERR_PEM_BAD || st == TACK_ERR_BASE64,
                          "%zu bytes: %s", n, tack_status_str(st));
        } else if (n <= b2) {
            ck_assert_msg(st == TACK_OK && blocks == 1, "%zu bytes: %s", n,
                          tack_status_str(st));
        } else if (n < b2_end) {
            ck_assert_msg((st == TACK_OK && blocks == 1) ||
                              st == TACK_ERR_PEM_BAD,
                          "%zu bytes: %s", n, tack_status_str(st));
        } else {
            ck_assert_msg(st == TACK_OK && blocks == 2, "%zu bytes: %s", n,
                          tack_status_str(st));
        }
        tack_pem_free(&pem);
    }
    free(text);
}
END_TEST

START_TEST(readers_of_every_prefix_succeed_only_when_complete)
{
    size_t tack_len, key_len, n;
    char *tack = tt_read_vector("draft00/TACK1.pem", &tack_len);
    char *key = tt_read_vector("draft00/tackpy-unit-Key.pem", &key_len);
    size_t tack_end = after(tack, 0, "-----END TACK-----");
    size_t key_end = after(key, 0, "-----END TACK PRIVATE KEY-----");

    for (n = 0; n <= tack_len; n++) {
        char *copy = malloc(n ? n : 1);
        tack_t tacks[2];
        size_t count = 0;
        unsigned line = 0;
        tack_status_t st;

        ck_assert_ptr_nonnull(copy);
        memcpy(copy, tack, n);
        st = tack_tacks_from_pem(tacks, 2, &count, copy, n, &line);
        ck_assert_msg((st == TACK_OK) == (n >= tack_end), "%zu bytes: %s", n,
                      tack_status_str(st));
        free(copy);
    }
    for (n = 0; n <= key_len; n++) {
        char *copy = malloc(n ? n : 1);
        tack_keyfile_t kf;
        unsigned line = 0;
        tack_status_t st;

        ck_assert_ptr_nonnull(copy);
        memcpy(copy, key, n);
        st = tack_keyfile_from_pem(&kf, copy, n, &line);
        ck_assert_msg((st == TACK_OK) == (n >= key_end), "%zu bytes: %s", n,
                      tack_status_str(st));
        free(copy);
    }
    free(key);
    free(tack);
}
END_TEST

START_TEST(pem_encode_wraps_at_64_columns)
{
    uint8_t in[300];
    char *out = NULL, *want;
    size_t out_len = 0, i, pos;
    unsigned char b64[4 * 100 + 1];

    for (i = 0; i < sizeof(in); i++) {
        in[i] = (uint8_t)(i * 37 + 11);
    }
    ck_assert_status(
        tack_pem_encode(&out, &out_len, "TACK BREAK SIG", in, sizeof(in)),
        TACK_OK);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(strlen(out), out_len);

    /* The expected text, from OpenSSL's base64 encoder. */
    ck_assert_int_eq(EVP_EncodeBlock(b64, in, sizeof(in)), 400);
    want = malloc(1024);
    ck_assert_ptr_nonnull(want);
    pos = (size_t)sprintf(want, "-----BEGIN TACK BREAK SIG-----\n");
    for (i = 0; i < 400; i += 64) {
        size_t n = 400 - i < 64 ? 400 - i : 64;

        pos += (size_t)sprintf(want + pos, "%.*s\n", (int)n,
                               (const char *)b64 + i);
    }
    sprintf(want + pos, "-----END TACK BREAK SIG-----\n");
    ck_assert_str_eq(out, want);
    free(want);
    free(out);
}
END_TEST

START_TEST(pem_encode_round_trips_every_length_up_to_300)
{
    uint8_t in[300];
    size_t n, i;

    for (i = 0; i < sizeof(in); i++) {
        in[i] = (uint8_t)(255 - i * 13);
    }
    for (n = 0; n <= sizeof(in); n++) {
        char *out = NULL, *p;
        size_t out_len = 0;
        tack_pem_t pem;
        unsigned line = 0;
        tack_status_t st;

        ck_assert_status(
            tack_pem_encode(&out, &out_len, TACK_PEM_LABEL_BREAKSIG, in, n),
            TACK_OK);
        ck_assert_uint_eq(strlen(out), out_len);
        ck_assert_uint_gt(out_len, 0);
        ck_assert_int_eq(out[out_len - 1], '\n');
        /* Every line at most 64 columns (the armour lines excepted). */
        for (p = out; *p;) {
            char *nl = strchr(p, '\n');

            ck_assert_ptr_nonnull(nl);
            if (strncmp(p, "-----", 5) != 0) {
                ck_assert_msg(nl - p <= 64 && nl - p > 0,
                              "%zu bytes: a line of %d columns", n,
                              (int)(nl - p));
            }
            p = nl + 1;
        }
        st = decode_text(&pem, out, out_len, TACK_PEM_LABEL_BREAKSIG, &line);
        ck_assert_msg(st == TACK_OK, "%zu bytes: %s", n, tack_status_str(st));
        ck_assert_uint_eq(pem.count, 1);
        ck_assert_uint_eq(pem.blocks[0].len, n);
        if (n > 0) {
            ck_assert_mem_eq(pem.blocks[0].data, in, n);
        }
        tack_pem_free(&pem);
        free(out);
    }
}
END_TEST

START_TEST(pem_free_is_null_safe_and_zeroes)
{
    tack_pem_t pem = {NULL, 0};

    tack_pem_free(NULL);
    tack_pem_free(&pem);
    ck_assert_ptr_null(pem.blocks);
    ck_assert_uint_eq(pem.count, 0);
}
END_TEST

/* The text of two PEM files, one after the other. */
static char *concat_vectors(const char *a, const char *b, size_t *len)
{
    size_t a_len, b_len;
    char *ta = tt_read_vector(a, &a_len);
    char *tb = tt_read_vector(b, &b_len);
    char *out = malloc(a_len + b_len + 1);

    ck_assert_ptr_nonnull(out);
    memcpy(out, ta, a_len);
    memcpy(out + a_len, tb, b_len + 1);
    *len = a_len + b_len;
    free(ta);
    free(tb);
    return out;
}

START_TEST(tacks_from_pem_reads_a_pair_file_in_order)
{
    size_t len, count = 0;
    char *pair = concat_vectors("draft02/TACK1.pem", "draft02/TACK2.pem", &len);
    tack_t tacks[2];
    tack_t one = tt_load_tack("draft02/TACK1.pem", 0);
    tack_t two = tt_load_tack("draft02/TACK2.pem", 0);
    unsigned line = 0;

    ck_assert_status(tack_tacks_from_pem(tacks, 2, &count, pair, len, &line),
                     TACK_OK);
    ck_assert_uint_eq(count, 2);
    tt_assert_tack_eq(&tacks[0], &one);
    tt_assert_tack_eq(&tacks[1], &two);
    free(pair);
}
END_TEST

START_TEST(tacks_from_pem_refuses_a_second_tack_when_max_is_1)
{
    size_t len, count = 0;
    char *pair = concat_vectors("draft02/TACK1.pem", "draft02/TACK2.pem", &len);
    tack_t tacks[2];
    unsigned line = 0;

    ck_assert_status(tack_tacks_from_pem(tacks, 1, &count, pair, len, &line),
                     TACK_ERR_TOO_MANY_TACKS);
    /* The offending block is the second: TACK1.pem has 8 lines. */
    ck_assert_uint_eq(line, 8 + 3);
    ck_assert_status(tack_tacks_from_pem(tacks, 1, &count, pair, len, NULL),
                     TACK_ERR_TOO_MANY_TACKS);
    free(pair);
}
END_TEST

/* "comment\n" + a PEM block of |n| bytes labelled |label|. */
static char *block_of(const char *label, size_t n, size_t *len)
{
    uint8_t data[512];
    char *pem = NULL, *text;
    size_t pem_len = 0;

    ck_assert_uint_le(n, sizeof(data));
    memset(data, 0x42, n);
    ck_assert_status(tack_pem_encode(&pem, &pem_len, label, data, n), TACK_OK);
    text = malloc(pem_len + 16);
    ck_assert_ptr_nonnull(text);
    *len = (size_t)sprintf(text, "comment\n%s", pem);
    free(pem);
    return text;
}

START_TEST(tacks_from_pem_refuses_blocks_of_165_and_167_bytes)
{
    static const size_t sizes[] = {165, 167, 0, 128, 332};
    size_t i;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t len, count = 0;
        char *text = block_of(TACK_PEM_LABEL_TACK, sizes[i], &len);
        tack_t tacks[2];
        unsigned line = 0;
        tack_status_t st =
            tack_tacks_from_pem(tacks, 2, &count, text, len, &line);

        ck_assert_msg(st == TACK_ERR_BAD_LENGTH, "%zu bytes: %s", sizes[i],
                      tack_status_str(st));
        ck_assert_uint_eq(line, 2);
        free(text);
    }
}
END_TEST

START_TEST(breaksigs_from_pem_refuses_blocks_of_127_and_129_bytes)
{
    static const size_t sizes[] = {127, 129, 0, 256};
    size_t i;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t len, count = 0;
        char *text = block_of(TACK_PEM_LABEL_BREAKSIG, sizes[i], &len);
        tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
        unsigned line = 0;
        tack_status_t st = tack_breaksigs_from_pem(sigs, TACK_MAX_BREAKSIGS,
                                                   &count, text, len, &line);

        ck_assert_msg(st == TACK_ERR_BAD_LENGTH, "%zu bytes: %s", sizes[i],
                      tack_status_str(st));
        ck_assert_uint_eq(line, 2);
        free(text);
    }
}
END_TEST

START_TEST(breaksigs_from_pem_refuses_a_ninth_breaksig)
{
    size_t one_len, i, count = 0;
    char *one = tt_read_vector("draft00/TACK_Break_Sigs.pem", &one_len);
    char *text = malloc(one_len * 5 + 1);
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    unsigned line = 0;

    /* Four copies of a two-signature file: eight signatures. */
    ck_assert_ptr_nonnull(text);
    for (i = 0; i < 4; i++) {
        memcpy(text + i * one_len, one, one_len);
    }
    ck_assert_status(tack_breaksigs_from_pem(sigs, TACK_MAX_BREAKSIGS, &count,
                                             text, 4 * one_len, &line),
                     TACK_OK);
    ck_assert_uint_eq(count, 8);
    /* A fifth copy: nine and ten. */
    memcpy(text + 4 * one_len, one, one_len);
    ck_assert_status(tack_breaksigs_from_pem(sigs, TACK_MAX_BREAKSIGS, &count,
                                             text, 5 * one_len, &line),
                     TACK_ERR_TOO_MANY_BREAKSIGS);
    /* The ninth block starts on line 4 * 14 + 3. */
    ck_assert_uint_eq(line, 4 * 14 + 3);
    free(text);
    free(one);
}
END_TEST

START_TEST(readers_report_files_of_the_wrong_kind)
{
    size_t sig_len, tack_len, count = 0;
    char *sigs = tt_read_vector("draft00/TACK_Break_Sigs.pem", &sig_len);
    char *tack = tt_read_vector("draft00/TACK1.pem", &tack_len);
    tack_t tacks[2];
    tack_breaksig_t bs[TACK_MAX_BREAKSIGS];
    tack_keyfile_t kf;
    unsigned line = 0;

    ck_assert_status(
        tack_tacks_from_pem(tacks, 2, &count, sigs, sig_len, &line),
        TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(tack_breaksigs_from_pem(bs, TACK_MAX_BREAKSIGS, &count,
                                             tack, tack_len, &line),
                     TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(tack_keyfile_from_pem(&kf, tack, tack_len, &line),
                     TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(tack_tacks_from_pem(tacks, 2, &count, "", 0, &line),
                     TACK_ERR_PEM_NO_BLOCK);
    /* err_line is optional. */
    ck_assert_status(tack_tacks_from_pem(tacks, 2, &count, sigs, sig_len, NULL),
                     TACK_ERR_PEM_WRONG_LABEL);
    ck_assert_status(tack_keyfile_from_pem(&kf, tack, tack_len, NULL),
                     TACK_ERR_PEM_WRONG_LABEL);
    free(tack);
    free(sigs);
}
END_TEST

Suite *pem_suite(void)
{
    Suite *s = suite_create("pem");
    TCase *tc = tcase_create("pem");

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_test(tc, pem_decode_finds_blocks_among_comment_lines);
    tcase_add_test(tc, pem_decode_tolerates_leading_whitespace);
    tcase_add_test(tc, pem_decode_tolerates_crlf_and_trailing_whitespace);
    tcase_add_test(tc, pem_decode_reads_cr_only_line_endings);
    tcase_add_test(tc, pem_labels_lists_what_a_file_holds);
    tcase_add_test(tc, pem_decode_skips_a_utf8_byte_order_mark);
    tcase_add_test(tc, pem_decode_reports_broken_begin_armour_at_its_line);
    tcase_add_test(tc, pem_decode_tolerates_text_after_the_last_block);
    tcase_add_test(tc, pem_decode_skips_binary_text_outside_blocks);
    tcase_add_test(tc, pem_decode_reports_begin_without_end);
    tcase_add_test(tc, pem_decode_reports_end_with_another_label);
    tcase_add_test(tc, pem_decode_reports_bad_base64);
    tcase_add_test(tc, pem_decode_reports_padding_inside_the_body);
    tcase_add_test(tc, pem_decode_reports_an_incomplete_base64_quantum);
    tcase_add_test(tc, pem_decode_reports_wrong_label);
    tcase_add_test(tc, pem_decode_reports_no_block);
    tcase_add_test(tc, pem_decode_skips_well_formed_blocks_of_other_labels);
    tcase_add_test(tc, pem_decode_rejects_broken_blocks_of_other_labels);
    tcase_add_test(tc, pem_decode_of_every_prefix_is_a_block_or_an_error);
    tcase_add_test(tc, readers_of_every_prefix_succeed_only_when_complete);
    tcase_add_test(tc, pem_encode_wraps_at_64_columns);
    tcase_add_test(tc, pem_encode_round_trips_every_length_up_to_300);
    tcase_add_test(tc, pem_free_is_null_safe_and_zeroes);
    tcase_add_test(tc, tacks_from_pem_reads_a_pair_file_in_order);
    tcase_add_test(tc, tacks_from_pem_refuses_a_second_tack_when_max_is_1);
    tcase_add_test(tc, tacks_from_pem_refuses_blocks_of_165_and_167_bytes);
    tcase_add_test(tc, breaksigs_from_pem_refuses_blocks_of_127_and_129_bytes);
    tcase_add_test(tc, breaksigs_from_pem_refuses_a_ninth_breaksig);
    tcase_add_test(tc, readers_report_files_of_the_wrong_kind);
    suite_add_tcase(s, tc);
    return s;
}
