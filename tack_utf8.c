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

#include "tack_ext.h"

/* tack_utf8_seq returns the length (1-4) of the valid UTF-8 sequence at the
 * start of |in|, or 0 if the first byte does not start one.  RFC 3629
 * section 4: no overlong form (C0, C1, E0 80-9F, F0 80-8F), no surrogate
 * (ED A0-BF), nothing above U+10FFFF (F4 90-BF, F5-FF), no truncated
 * sequence. */
static size_t tack_utf8_seq(const uint8_t *in, size_t in_len)
{
    uint8_t b = in[0], lo = 0x80, hi = 0xbf;
    size_t n, i;

    if (b < 0x80) {
        return 1;
    }
    if (b >= 0xc2 && b <= 0xdf) {
        n = 2;
    } else if (b >= 0xe0 && b <= 0xef) {
        n = 3;
        lo = b == 0xe0 ? 0xa0 : 0x80;
        hi = b == 0xed ? 0x9f : 0xbf;
    } else if (b >= 0xf0 && b <= 0xf4) {
        n = 4;
        lo = b == 0xf0 ? 0x90 : 0x80;
        hi = b == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (in_len < n) {
        return 0;
    }
    if (in[1] < lo || in[1] > hi) {
        return 0;
    }
    for (i = 2; i < n; i++) {
        if (in[i] < 0x80 || in[i] > 0xbf) {
            return 0;
        }
    }
    return n;
}

size_t tack_utf8_escape(const uint8_t *in, size_t in_len, char *out,
                        size_t out_len)
{
    static const char digits[] = "0123456789abcdef";
    size_t len = 0, i = 0;

    while (i < in_len) {
        char esc[4];
        size_t n = tack_utf8_seq(in + i, in_len - i), k, elen;
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
