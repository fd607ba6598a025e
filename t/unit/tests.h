/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tests.h -- shared declarations of the Check unit tests of the TACK core.
 *
 * One runner (check_main.c) collects one suite per core file.  The
 * helpers below read the known-answer vectors from $TACK_TOP/t/vectors/ and
 * fail the calling test loudly (ck_abort_msg) when anything they need is
 * missing: a test never silently skips.  Every buffer they return is malloc'd
 * and freed by the caller with free() unless said otherwise.
 */
#ifndef TACK_TESTS_H
#define TACK_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tack_ext.h"
#include "tack_keyfile.h"

/* ---- Suites, one per core file ------------------------------------------ */

/* Each core file tack_X.c has its suite X_suite in test_X.c, run in
 * CORE_SRC's order (the Makefile's: a file's tests after those of the
 * files it calls). */
Suite *base_suite(void);         /* test_base.c */
Suite *util_suite(void);         /* test_util.c */
Suite *utf8_suite(void);         /* test_utf8.c */
Suite *file_suite(void);         /* test_file.c */
Suite *key_suite(void);          /* test_key.c */
Suite *ext_suite(void);          /* test_ext.c */
Suite *pem_suite(void);          /* test_pem.c */
Suite *keyfile_suite(void);      /* test_keyfile.c */
Suite *pkcs11_uri_suite(void);   /* test_pkcs11_uri.c */
Suite *pkcs11_token_suite(void); /* test_pkcs11_token.c */
Suite *pkcs11_suite(void);       /* test_pkcs11.c */
Suite *store_suite(void);        /* test_store.c */
Suite *state_suite(void);        /* test_state.c */

/* tack_ext.c's tests are too many for one file: the suite "ext"
 * (test_ext.c) takes a TCase from each of these. */
TCase *ext_tack_tcase(void);     /* test_ext_tack.c */
TCase *ext_breaksig_tcase(void); /* test_ext_breaksig.c */
TCase *ext_00_tcase(void);       /* test_ext_00.c */
TCase *ext_02_tcase(void);       /* test_ext_02.c */

/* Seconds a TCase may take: the bit-flip tests verify a signature for every
 * bit of a structure, which is slow under the sanitizers. */
#define TT_TIMEOUT 120

/* ---- Assertions ---------------------------------------------------------- */

/* ck_assert_status fails with both statuses spelled out when |got| is not
 * |want|. */
#define ck_assert_status(got, want)                                            \
    do {                                                                       \
        tack_status_t tt_got_ = (got);                                         \
        tack_status_t tt_want_ = (want);                                       \
        ck_assert_msg(tt_got_ == tt_want_, "%s: got %d (%s), want %d (%s)",    \
                      #got, (int)tt_got_, tack_status_str(tt_got_),            \
                      (int)tt_want_, tack_status_str(tt_want_));               \
    } while (0)

/* ck_assert_status_fails fails when |got| is TACK_OK. */
#define ck_assert_status_fails(got)                                            \
    do {                                                                       \
        tack_status_t tt_got_ = (got);                                         \
        ck_assert_msg(tt_got_ != TACK_OK, "%s: succeeded, want a failure",     \
                      #got);                                                   \
    } while (0)

/* ---- Vectors ------------------------------------------------------------- */

/* tt_top returns $TACK_TOP; aborts the test when it is unset or empty. */
const char *tt_top(void);

/* tt_vector_path writes "$TACK_TOP/t/vectors/|rel|" into |out|. */
void tt_vector_path(char *out, size_t out_cap, const char *rel);

/* tt_read_vector returns the bytes of t/vectors/|rel| (NUL-terminated, the
 * NUL not counted in |*len|).  Aborts the test if the file cannot be read. */
char *tt_read_vector(const char *rel, size_t *len);

/* tt_hex_decode decodes |hex| (whitespace ignored) into a malloc'd buffer.
 * Aborts the test on an odd length or a non-hex character. */
uint8_t *tt_hex_decode(const char *hex, size_t *len);

/* tt_hex_to decodes |hex| into |out|, which must hold exactly |len| bytes. */
void tt_hex_to(uint8_t *out, size_t len, const char *hex);

/* tt_read_hex_vector reads and decodes a .hex file under t/vectors/. */
uint8_t *tt_read_hex_vector(const char *rel, size_t *len);

/* tt_hex_encode writes |len| bytes as lower-case hex plus a NUL into |out|,
 * which holds at least 2 * len + 1 characters. */
void tt_hex_encode(char *out, const uint8_t *in, size_t len);

/* tt_sha256_hex writes the SHA-256 of |in| as 64 hex digits and a NUL. */
void tt_sha256_hex(char out[65], const uint8_t *in, size_t len);

/* tt_load_cert reads the first certificate of t/vectors/|rel|. */
X509 *tt_load_cert(const char *rel);

/* tt_load_tack returns TACK number |index| (0-based) of t/vectors/|rel|,
 * read with tack_tacks_from_pem. */
tack_t tt_load_tack(const char *rel, size_t index);

/* tt_load_breaksigs reads every break signature of t/vectors/|rel| with
 * tack_breaksigs_from_pem and returns how many there are. */
size_t tt_load_breaksigs(const char *rel, tack_breaksig_t out[], size_t max);

/* tt_load_keyfile parses the key file t/vectors/|rel|. */
tack_keyfile_t tt_load_keyfile(const char *rel);

/* tt_load_key decrypts the key file t/vectors/|rel| with |password|. */
EVP_PKEY *tt_load_key(const char *rel, const char *password);

/* tt_pem_bytes decodes block number |index| (0-based) labelled |label| of
 * t/vectors/|rel| with its own base64 decoder (OpenSSL's EVP_DecodeBlock), not
 * the library's. */
uint8_t *tt_pem_bytes(const char *rel, const char *label, size_t index,
                      size_t *len);

/* ---- Comparisons --------------------------------------------------------- */

/* tt_assert_tack_eq fails the test naming the first field that differs. */
void tt_assert_tack_eq(const tack_t *got, const tack_t *want);

/* tt_assert_breaksig_eq fails the test when the break signatures differ. */
void tt_assert_breaksig_eq(const tack_breaksig_t *got,
                           const tack_breaksig_t *want);

/* ---- Independent cryptography --------------------------------------------
 * A second implementation of the TACK signature format built on OpenSSL's
 * EVP interface, so the library's signer and verifier are checked against
 * something other than themselves. */

/* tt_tack_message writes "tack_sig" || the first 102 wire bytes of |tack|,
 * laid out field by field from the spec's table. */
void tt_tack_message(const tack_t *tack, uint8_t out[8 + TACK_SIGNED_LEN]);

/* tt_raw_public writes |key|'s public point as x || y. */
void tt_raw_public(EVP_PKEY *key, uint8_t out[TACK_KEY_LEN]);

/* tt_raw_private writes |key|'s private scalar, zero-padded. */
void tt_raw_private(EVP_PKEY *key, uint8_t out[TACK_PRIV_LEN]);

/* tt_raw_sign signs |msg| with ECDSA P-256 / SHA-256 and writes r || s. */
void tt_raw_sign(EVP_PKEY *key, const uint8_t *msg, size_t msg_len,
                 uint8_t sig[TACK_SIG_LEN]);

/* tt_raw_verify returns 1 when |sig| (r || s) is a valid signature of |msg|
 * by the P-256 point |pub| (x || y), 0 otherwise. */
int tt_raw_verify(const uint8_t pub[TACK_KEY_LEN], const uint8_t *msg,
                  size_t msg_len, const uint8_t sig[TACK_SIG_LEN]);

/* tt_tack_sign_raw sets |tack|'s public_key from |key| and signs it with
 * tt_raw_sign, without any of the library's checks (so it can sign a TACK
 * whose generation is below its min_generation). */
void tt_tack_sign_raw(tack_t *tack, EVP_PKEY *key);

/* ---- Generated material -------------------------------------------------- */

/* tt_make_cert returns a fresh self-signed certificate for a new P-256 key;
 * the key goes to |*key_out| when it is not NULL (free with EVP_PKEY_free).
 */
X509 *tt_make_cert(EVP_PKEY **key_out);

/* tt_cert returns a certificate of |key| (a new P-256 key when NULL) with
 * subject CN |cn| (an empty subject when NULL) and the subjectAltName |san|
 * ("DNS:a,DNS:b"; none when NULL), valid for an hour from now; not signed:
 * for the tests of names read from a certificate. */
X509 *tt_cert(EVP_PKEY *key, const char *cn, const char *san);

/* tt_make_rsa_key returns a fresh RSA-2048 key, for tests that need a key
 * that is not P-256. */
EVP_PKEY *tt_make_rsa_key(void);

/* tt_sign_new returns a TACK signed by a new key (in |*key_out| if not
 * NULL) with the given fields and target_hash = 32 x |target_byte|. */
tack_t tt_sign_new(EVP_PKEY **key_out, uint8_t min_generation,
                   uint8_t generation, uint32_t expiration,
                   uint8_t target_byte);

/* tt_xorshift is a small deterministic PRNG for the mutation tests, so a
 * failure reproduces. */
uint32_t tt_xorshift(uint32_t *state);

#endif /* TACK_TESTS_H */
