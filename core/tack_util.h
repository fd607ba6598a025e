/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_util.h -- the rules the module and the tool share (tack_util.c):
 * hex, a certificate's end, a password file's first line.
 */
#ifndef TACK_UTIL_H
#define TACK_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <openssl/x509.h>

#include "tack_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tack_hex_digit returns the value (0-15) of the hex digit |c|, one of
 * [0-9a-fA-F], or -1 for any other character (a sign, a space, a NUL). */
int tack_hex_digit(int c);

/* tack_hex_encode writes the |in_len| bytes at |in| as lower-case hex and a
 * NUL into |out| (|out_len| bytes, at least 2 * |in_len| + 1).  Returns
 * TACK_OK, or TACK_ERR_BUFFER_TOO_SMALL (|out| untouched) or
 * TACK_ERR_INVALID_ARG. */
tack_status_t tack_hex_encode(char *out, size_t out_len, const uint8_t *in,
                              size_t in_len);

/* tack_hex_decode decodes the NUL-terminated |in| into exactly |out_len|
 * bytes at |out|.  Strict: |in| is exactly 2 * |out_len| characters, each
 * [0-9a-fA-F] -- no sign, space, "0x" or separator (sscanf("%2x") would take
 * " f" and "+f").  Returns TACK_OK; TACK_ERR_BAD_LENGTH for another length,
 * TACK_ERR_HEX for another character, TACK_ERR_INVALID_ARG for a NULL |in|
 * (a JSON member that is not a string); |out| is untouched on failure. */
tack_status_t tack_hex_decode(uint8_t *out, size_t out_len, const char *in);

/* tack_cert_end_time sets |*out| to the end of |cert|'s validity (its
 * notAfter) in seconds since the epoch, read by ASN1_TIME_to_tm: no hand
 * parsing.  Returns TACK_OK; TACK_ERR_TIME when notAfter is missing or does
 * not parse (|*out| untouched: no made-up time such as 0 or now);
 * TACK_ERR_INVALID_ARG for a NULL argument. */
tack_status_t tack_cert_end_time(const X509 *cert, time_t *out);

/* tack_password_line keeps the first line of the |len| bytes at |buf| (a
 * password file, a password program's output, a PIN file): the line ends
 * at the first '\n', and one '\r' right before it (a CRLF) belongs to the
 * line end; any other '\r' (a lone one at the end too) and NUL bytes are
 * part of the password.  Every byte after the line, its line end included,
 * is wiped with OPENSSL_cleanse, so buf[result] is '\0' whenever there was
 * a line end.  Returns the line's length, at most |len|. */
size_t tack_password_line(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TACK_UTIL_H */
