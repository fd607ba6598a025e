/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_utf8.c -- the one rule for text that must be UTF-8 (the status
 * handler's JSON and HTML, later the metrics): configuration strings are
 * bytes (a ServerName or a file name need not be UTF-8), so each byte that
 * is not part of a valid UTF-8 sequence is written as \xNN, as httpd's
 * error log writes bytes it will not print, and a backslash as \\ so that
 * the form can be read back.  libc only.
 */
#include <stddef.h>
#include <stdint.h>

#include "tack_utf8.h"

size_t tack_utf8_decode(const uint8_t *in, size_t in_len, uint32_t *cp)
{
    /* The smallest code point of each length: below it, an overlong form. */
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    uint32_t c;
    size_t n, i;

    if (in[0] < 0x80) {
        *cp = in[0];
        return 1;
    }
    if (in[0] >= 0xc2 && in[0] <= 0xdf) {
        n = 2;
        c = in[0] & 0x1f;
    } else if ((in[0] & 0xf0) == 0xe0) {
        n = 3;
        c = in[0] & 0x0f;
    } else if (in[0] >= 0xf0 && in[0] <= 0xf4) {
        n = 4;
        c = in[0] & 0x07;
    } else {
        return 0;
    }
    if (in_len < n) {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((in[i] & 0xc0) != 0x80) {
            return 0;
        }
        c = (c << 6) | (in[i] & 0x3f);
    }
    if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
        return 0;
    }
    *cp = c;
    return n;
}

size_t tack_utf8_escape(const uint8_t *in, size_t in_len, char *out,
                        size_t out_len)
{
    static const char digits[] = "0123456789abcdef";
    size_t len = 0, i = 0;

    while (i < in_len) {
        char esc[4];
        uint32_t cp;
        size_t n = tack_utf8_decode(in + i, in_len - i, &cp), k, elen;
        const char *from;

        if (n && in[i] != '\\') {
            from = (const char *)in + i;
            elen = n;
        } else if (n) {
            esc[0] = esc[1] = '\\';
            from = esc;
            elen = 2;
            n = 1;
        } else {
            esc[0] = '\\';
            esc[1] = 'x';
            esc[2] = digits[in[i] >> 4];
            esc[3] = digits[in[i] & 15];
            from = esc;
            elen = 4;
            n = 1;
        }
        for (k = 0; k < elen; k++, len++) {
            if (len + 1 < out_len) {
                out[len] = from[k];
            }
        }
        i += n;
    }
    if (out_len) {
        out[len < out_len ? len : out_len - 1] = '\0';
    }
    return len;
}
