/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pem.h -- PEM armour as TACKpy writes it (tack_pem.c): blocks
 * decoded and encoded, the labels a text holds, the TACKs and break
 * signatures of a TACK file, OpenSSL's serverinfo files.  Files are read
 * by tack_file.c.
 */
#ifndef TACK_PEM_H
#define TACK_PEM_H

#include <stddef.h>
#include <stdint.h>

#include "tack_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PEM labels of the files TACKpy writes. */
#define TACK_PEM_LABEL_TACK "TACK"
#define TACK_PEM_LABEL_BREAKSIG "TACK BREAK SIG"
#define TACK_PEM_LABEL_KEY "TACK PRIVATE KEY"

/* One decoded PEM block. */
typedef struct {
    uint8_t *data; /* decoded bytes, owned by the tack_pem_t */
    size_t len;
    unsigned line; /* 1-based line of its BEGIN line */
} tack_pem_block_t;

typedef struct {
    tack_pem_block_t *blocks;
    size_t count;
} tack_pem_t;

/* tack_pem_decode collects every block labelled |label| in |in| (which need
 * not be NUL-terminated).  Text before, between and after blocks is skipped;
 * leading and trailing whitespace on lines and CRLF endings are tolerated.
 * Blocks with other labels are skipped but must be well-formed.  Returns
 * TACK_OK with at least one block, TACK_ERR_PEM_NO_BLOCK when there is no
 * block at all, TACK_ERR_PEM_WRONG_LABEL when there are blocks but none with
 * |label|, TACK_ERR_PEM_BAD for broken armour, TACK_ERR_BASE64 for a bad
 * body.  On failure |*err_line|, if not NULL, gets the offending line (0 if
 * none).  On success free |out| with tack_pem_free. */
tack_status_t tack_pem_decode(tack_pem_t *out, const char *in, size_t in_len,
                              const char *label, unsigned *err_line);

/* Room for one PEM label and its NUL in tack_pem_labels' output. */
#define TACK_PEM_LABEL_SIZE 64

/* tack_pem_labels lists the distinct labels of the well-formed BEGIN lines
 * of |in| (which need not be NUL-terminated), in order of first appearance,
 * into |out|, at most |max| of them (longer labels are left out); returns
 * how many it wrote.  For messages that say what a file holds ("BEGIN
 * PRIVATE KEY") and for refusing what does not belong in it. */
size_t tack_pem_labels(const char *in, size_t in_len,
                       char out[][TACK_PEM_LABEL_SIZE], size_t max);

/* tack_pem_label_is_private_key returns 1 for a label that holds a private
 * key: "TACK PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED
 * PRIVATE KEY" and the like. */
int tack_pem_label_is_private_key(const char *label);

/* tack_serverinfo_has returns 1 when an OpenSSL serverinfo file (its PEM
 * text: "SERVERINFO FOR ..." and "SERVERINFOV2 FOR ..." blocks, the
 * format of SSLOpenSSLConfCmd ServerInfoFile) carries an extension of
 * |type|, 0 otherwise (malformed records included: OpenSSL refuses those
 * itself). */
int tack_serverinfo_has(const char *pem, size_t pem_len, uint16_t type);

/* tack_pem_free releases what tack_pem_decode allocated (wiping it: key files
 * pass through here) and zeroes |pem|.  NULL-safe. */
void tack_pem_free(tack_pem_t *pem);

/* tack_pem_encode writes "-----BEGIN |label|-----", |in| as base64 wrapped at
 * 64 columns, and the END line, each ending in "\n", into a malloc'd
 * NUL-terminated string |*out| (free with free()); |*out_len| excludes the
 * NUL. */
tack_status_t tack_pem_encode(char **out, size_t *out_len, const char *label,
                              const uint8_t *in, size_t in_len);

/* tack_tacks_from_pem decodes every TACK block of a PEM text into |out|
 * (capacity |max|), each exactly TACK_LEN bytes, and sets |*count|.
 * Returns TACK_ERR_TOO_MANY_TACKS when there are more than |max| blocks.  On
 * failure |*err_line| (may be NULL) gets the line of the offending block. */
tack_status_t tack_tacks_from_pem(tack_t *out, size_t max, size_t *count,
                                  const char *pem, size_t pem_len,
                                  unsigned *err_line);

/* tack_breaksigs_from_pem decodes every TACK BREAK SIG block, like
 * tack_tacks_from_pem; more than |max| is TACK_ERR_TOO_MANY_BREAKSIGS. */
tack_status_t tack_breaksigs_from_pem(tack_breaksig_t *out, size_t max,
                                      size_t *count, const char *pem,
                                      size_t pem_len, unsigned *err_line);

#ifdef __cplusplus
}
#endif

#endif /* TACK_PEM_H */
