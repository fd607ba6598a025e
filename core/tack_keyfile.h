/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_keyfile.h -- TACKpy's password-protected key file (tack_keyfile.c).
 */
#ifndef TACK_KEYFILE_H
#define TACK_KEYFILE_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "tack_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Key file: version + iterations + salt + ciphertext + public_key + mac
 * = 1 + 4 + 16 + 32 + 64 + 32 */
#define TACK_KEYFILE_LEN 149
#define TACK_KEYFILE_VERSION 1
#define TACK_KEYFILE_SALT_LEN 16
#define TACK_KEYFILE_DEFAULT_ITERATIONS 8192
/* Refuse anything above this rather than spin in PBKDF2 for minutes. */
#define TACK_KEYFILE_MAX_ITERATIONS 1000000

/* A TACKpy key file, parsed but not decrypted. */
typedef struct {
    uint32_t iterations;
    uint8_t salt[TACK_KEYFILE_SALT_LEN];
    uint8_t ciphertext[TACK_PRIV_LEN];
    uint8_t public_key[TACK_KEY_LEN];
    uint8_t mac[32];
} tack_keyfile_t;

/* tack_keyfile_parse decodes the TACK_KEYFILE_LEN-byte key-file structure:
 * version 1 (TACK_ERR_KEYFILE_VERSION), iterations 1..1,000,000
 * (TACK_ERR_KEYFILE_ITERATIONS), exact length.  Nothing is decrypted, so the
 * public key is available without a password. */
tack_status_t tack_keyfile_parse(tack_keyfile_t *out, const uint8_t *in,
                                 size_t in_len);

/* tack_keyfile_encode writes the TACK_KEYFILE_LEN-byte form of |kf|. */
void tack_keyfile_encode(const tack_keyfile_t *kf,
                         uint8_t out[TACK_KEYFILE_LEN]);

/* tack_keyfile_decrypt derives the keys from |password| (|password_len|
 * bytes), checks the MAC in constant time (TACK_ERR_WRONG_PASSWORD),
 * decrypts the private scalar and checks that it matches the stored public
 * key (TACK_ERR_KEY_MISMATCH).  On success |*out| is the key (free with
 * EVP_PKEY_free).  Every intermediate secret is wiped. */
tack_status_t tack_keyfile_decrypt(const tack_keyfile_t *kf,
                                   const char *password, size_t password_len,
                                   EVP_PKEY **out);

/* tack_keyfile_create encrypts |key| under |password| with a fresh random
 * salt and |iterations| (0 means TACK_KEYFILE_DEFAULT_ITERATIONS) into
 * |out|. */
tack_status_t tack_keyfile_create(tack_keyfile_t *out, EVP_PKEY *key,
                                  const char *password, size_t password_len,
                                  uint32_t iterations);

/* tack_keyfile_from_pem decodes the TACK PRIVATE KEY block of a PEM text and
 * parses it with tack_keyfile_parse.  A block of the wrong size is
 * TACK_ERR_BAD_LENGTH; a second key block is TACK_ERR_TRAILING. */
tack_status_t tack_keyfile_from_pem(tack_keyfile_t *out, const char *pem,
                                    size_t pem_len, unsigned *err_line);

#ifdef __cplusplus
}
#endif

#endif /* TACK_KEYFILE_H */
