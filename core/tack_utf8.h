/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_utf8.h -- text for UTF-8 outputs (tack_utf8.c): a character read,
 * bytes that are not UTF-8 written as \xNN.
 */
#ifndef TACK_UTF8_H
#define TACK_UTF8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* tack_utf8_decode reads the UTF-8 character at the start of |in| (|in_len|
 * > 0 bytes): returns its length (1-4) and sets |*cp| to its code point, or
 * returns 0 when the bytes there are not valid UTF-8 (RFC 3629: an overlong
 * form, a surrogate, a code point above U+10FFFF, a truncated sequence, a
 * stray continuation byte). */
size_t tack_utf8_decode(const uint8_t *in, size_t in_len, uint32_t *cp);

/* tack_utf8_escape writes the |in_len| bytes at |in| to |out| as valid
 * UTF-8: each byte that is not part of a valid UTF-8 sequence (RFC 3629: an
 * overlong form, a surrogate, a code point above U+10FFFF, a truncated
 * sequence, a stray continuation byte) becomes the four characters \xNN
 * (lower-case hex) and a backslash becomes \\; valid sequences, NUL
 * included, are copied.  It returns the length of the whole result, not
 * counting the NUL, which is at most 4 * |in_len|; at most |out_len| - 1
 * bytes of it are written, then a NUL (nothing if |out_len| is 0), so a
 * first call with |out_len| 0 sizes the buffer of the second. */
size_t tack_utf8_escape(const uint8_t *in, size_t in_len, char *out,
                        size_t out_len);

#ifdef __cplusplus
}
#endif

#endif /* TACK_UTF8_H */
