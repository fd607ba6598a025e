/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_util.c -- small rules the module and the tool must apply alike, each
 * written once: hex (the guard's state file, the status page, the tool's
 * pins and output), the end of a certificate's validity, and the first line
 * of a password file or program.  libc and libcrypto only.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>

#include "tack_util.h"

/* ---- hex ----------------------------------------------------------------- */

int tack_hex_digit(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

tack_status_t tack_hex_encode(char *out, size_t out_len, const uint8_t *in,
                              size_t in_len)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    if (out == NULL || (in == NULL && in_len > 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    /* in_len > (out_len - 1) / 2, written so that nothing overflows. */
    if (out_len == 0 || in_len > (out_len - 1) / 2) {
        return TACK_ERR_BUFFER_TOO_SMALL;
    }
    for (i = 0; i < in_len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * in_len] = '\0';
    return TACK_OK;
}

tack_status_t tack_hex_decode(uint8_t *out, size_t out_len, const char *in)
{
    size_t i, n;

    if (in == NULL || (out == NULL && out_len > 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    /* strnlen: a longer string is refused without reading all of it. */
    n = strnlen(in, out_len <= (SIZE_MAX - 1) / 2 ? 2 * out_len + 1 : SIZE_MAX);
    if (n != 2 * out_len) {
        return TACK_ERR_BAD_LENGTH;
    }
    /* Check everything before writing: |out| untouched on failure. */
    for (i = 0; i < n; i++) {
        if (tack_hex_digit((unsigned char)in[i]) < 0) {
            return TACK_ERR_HEX;
        }
    }
    for (i = 0; i < out_len; i++) {
        out[i] = (uint8_t)(tack_hex_digit((unsigned char)in[2 * i]) << 4 |
                           tack_hex_digit((unsigned char)in[2 * i + 1]));
    }
    return TACK_OK;
}

/* ---- certificates -------------------------------------------------------- */

tack_status_t tack_cert_end_time(const X509 *cert, time_t *out)
{
    const ASN1_TIME *at;
    struct tm tm;
    time_t t;

    if (cert == NULL || out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    at = X509_get0_notAfter(cert);
    /* ASN1_TIME_to_tm(NULL, ...) gives the current time, not an error. */
    if (at == NULL) {
        return TACK_ERR_TIME;
    }
    memset(&tm, 0, sizeof(tm));
    if (ASN1_TIME_to_tm(at, &tm) != 1) {
        return TACK_ERR_TIME;
    }
    /* ASN1_TIME_to_tm has checked every field (years 0-9999), and timegm
     * reaches them all with a 64-bit time_t; -1 is a second of 1969 that no
     * certificate ends at, or a 32-bit time_t past 2038. */
    t = timegm(&tm);
    if (t == (time_t)-1) {
        return TACK_ERR_TIME;
    }
    *out = t;
    return TACK_OK;
}

/* ---- passwords ----------------------------------------------------------- */

size_t tack_password_line(char *buf, size_t len)
{
    char *nl;
    size_t line;

    if (buf == NULL || len == 0) {
        return 0;
    }
    nl = memchr(buf, '\n', len);
    if (nl == NULL) {
        return len; /* no line end: all of it, a lone '\r' too */
    }
    line = (size_t)(nl - buf);
    if (line > 0 && buf[line - 1] == '\r') {
        line--; /* CRLF: one '\r' belongs to the line end */
    }
    OPENSSL_cleanse(buf + line, len - line);
    return line;
}
