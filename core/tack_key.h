/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_key.h -- TACK keys (tack_key.c): ECDSA P-256 as OpenSSL EVP_PKEYs,
 * to and from the 64-byte public and 32-byte private forms, raw r || s
 * signatures, and the library context a token's key signs in.
 */
#ifndef TACK_KEY_H
#define TACK_KEY_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "tack_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tack_key_generate creates a new P-256 key in |*out| (free with
 * EVP_PKEY_free). */
tack_status_t tack_key_generate(EVP_PKEY **out);

/* tack_key_from_private builds a P-256 key from a raw 32-byte scalar, with
 * its public point computed.  TACK_ERR_BAD_KEY for 0 or a scalar >= n. */
tack_status_t tack_key_from_private(EVP_PKEY **out,
                                    const uint8_t priv[TACK_PRIV_LEN]);

/* tack_key_from_public builds a P-256 public key from x || y.
 * TACK_ERR_BAD_KEY when the point is not on the curve. */
tack_status_t tack_key_from_public(EVP_PKEY **out,
                                   const uint8_t pub[TACK_KEY_LEN]);

/* tack_key_public writes |key|'s public point as x || y (any P-256 key,
 * a token's, through a provider, included).  TACK_ERR_BAD_KEY when |key|
 * is not P-256. */
tack_status_t tack_key_public(EVP_PKEY *key, uint8_t out[TACK_KEY_LEN]);

/* tack_key_check_signing signs a fixed test message (never a TACK or a
 * break signature) with |key| and verifies it against |key|'s public key,
 * as tack_sign would: TACK_OK when |key| can sign TACKs, else tack_sign's
 * TACK_ERR_BAD_KEY, TACK_ERR_KEY_MISMATCH or TACK_ERR_CRYPTO.  For keys
 * whose signing may fail later than their loading (a token's). */
tack_status_t tack_key_check_signing(EVP_PKEY *key);

/* tack_key_sign signs SHA-256(|msg|) with |key| (a P-256 private key, or
 * a token's: only asked to sign) as raw r || s into |sig|, writes |key|'s
 * public point to |pub|, and verifies the signature against it.  Returns
 * TACK_OK; TACK_ERR_BAD_KEY when |key| is not P-256 or is a bare public
 * key, TACK_ERR_KEY_MISMATCH when the signature does not verify under
 * |pub|, TACK_ERR_CRYPTO (a signer that failed: reasons on OpenSSL's
 * error queue).  tack_sign and tack_breaksig_create sign their messages
 * with it. */
tack_status_t tack_key_sign(EVP_PKEY *key, const uint8_t *msg, size_t msg_len,
                            uint8_t pub[TACK_KEY_LEN],
                            uint8_t sig[TACK_SIG_LEN]);

/* tack_key_verify checks the raw r || s signature |sig| by the P-256 key
 * |pub| (x || y) over SHA-256(|msg|).  Returns TACK_OK,
 * TACK_ERR_BAD_KEY (|pub| is not a P-256 point), TACK_ERR_BAD_SIGNATURE
 * (OpenSSL's error queue left empty) or TACK_ERR_CRYPTO. */
tack_status_t tack_key_verify(const uint8_t pub[TACK_KEY_LEN],
                              const uint8_t *msg, size_t msg_len,
                              const uint8_t sig[TACK_SIG_LEN]);

/* tack_key_verify_with is tack_key_verify by |pkey|, a key made once by
 * tack_key_from_public for the many signatures of one TACK key. */
tack_status_t tack_key_verify_with(EVP_PKEY *pkey, const uint8_t *msg,
                                   size_t msg_len,
                                   const uint8_t sig[TACK_SIG_LEN]);

/* The most providers tack_key_libctx_add records for one context. */
#define TACK_KEY_LIBCTX_MAX_PROVIDERS 4

/* tack_key_libctx_add records, for the life of the process, that keys of
 * the |num_provs| providers at |provs| (loaded into |libctx|) are signed
 * in |libctx|: a token's key (tack_pkcs11_load), whose provider's
 * signature implementation is only there.  Neither |libctx| nor the
 * providers may be freed after.  Returns TACK_OK, TACK_ERR_INVALID_ARG
 * (none, or more than TACK_KEY_LIBCTX_MAX_PROVIDERS) or TACK_ERR_NOMEM. */
tack_status_t tack_key_libctx_add(OSSL_LIB_CTX *libctx,
                                  const OSSL_PROVIDER *const *provs,
                                  size_t num_provs);

/* tack_key_libctx returns the library context recorded for |key|'s
 * provider (tack_key_libctx_add), or NULL for any other key (the default
 * context's, a legacy key's, NULL).  tack_key_sign signs in it. */
OSSL_LIB_CTX *tack_key_libctx(const EVP_PKEY *key);

/* tack_key_private writes |key|'s private scalar, zero-padded; the caller
 * wipes |out| with OPENSSL_cleanse after use.  TACK_ERR_BAD_KEY when the key
 * has none to give (a public key, a token's key). */
tack_status_t tack_key_private(EVP_PKEY *key, uint8_t out[TACK_PRIV_LEN]);

#ifdef __cplusplus
}
#endif

#endif /* TACK_KEY_H */
