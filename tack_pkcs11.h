/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11.h -- TACK keys in a PKCS#11 token (a smart card, an HSM,
 * SoftHSM2), named by an RFC 7512 URI such as
 * "pkcs11:token=tack;object=tackkey;type=private".
 *
 * Part of the core (libc + libcrypto only).  The key is loaded through
 * OpenSSL's "pkcs11" engine (Debian: libengine-pkcs11-openssl, libp11): its
 * private scalar never leaves the token, and tack_sign / tack_breaksig_create
 * sign with it like any other key.  Without a module-path in the URI the
 * engine loads p11-kit's proxy, which loads every registered module.
 */
#ifndef TACK_PKCS11_H
#define TACK_PKCS11_H

#include <stddef.h>

#include <openssl/evp.h>

#include "tack_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for any message tack_pkcs11_load writes. */
#define TACK_PKCS11_ERR_SIZE 512

/* tack_key_is_uri returns 1 when |spec| (a -k argument, a TackKey value)
 * names a key in a token, that is starts with "pkcs11:" (RFC 7512, scheme
 * compared without regard to case), and 0 otherwise, NULL included. */
int tack_key_is_uri(const char *spec);

/* tack_pkcs11_uri_has_pin returns 1 when |uri| carries its own PIN
 * (pin-value or pin-source, RFC 7512 section 2.3), so that a caller need
 * not ask for one. */
int tack_pkcs11_uri_has_pin(const char *uri);

/* tack_pkcs11_load loads the private key object |uri| names.  |pin| (|pin_len|
 * bytes, no NUL among them) logs in to the token; it may be NULL when the
 * URI carries pin-value or the token needs no login.  The engine never
 * prompts.  A module-path in the URI's query names the PKCS#11 module.
 *
 * The key must be able to sign TACKs: it is P-256 and signs a test message
 * that verifies under its public key (tack_key_check_signing), so a wrong
 * key fails here and not at the first tack_sign.
 *
 * On success |*out| is the key (free with EVP_PKEY_free; it holds what it
 * needs of the engine, whose reference this function releases) and TACK_OK
 * is returned.  On failure |*out| is untouched, |err| (|err_len| bytes,
 * TACK_PKCS11_ERR_SIZE suffices) gets a NUL-terminated reason without the
 * URI, OpenSSL's error queue is left empty, and the status is:
 *   TACK_ERR_TOKEN          the engine is not installed, the module cannot be
 *                           loaded, no token matches, no key object matches
 *                           in the token
 *   TACK_ERR_WRONG_PASSWORD the PIN is wrong or locked, or the token needs
 *                           a PIN and none was given
 *   TACK_ERR_BAD_KEY        the object is not an EC P-256 key (RSA, P-384)
 *   TACK_ERR_KEY_MISMATCH   the token's public key is not its private key's
 *   TACK_ERR_INVALID_ARG    NULL arguments, a URI that is not "pkcs11:", a
 *                           PIN with a NUL in it
 *   TACK_ERR_CRYPTO, TACK_ERR_NOMEM  anything else, with OpenSSL's reason
 * The PIN copy handed to the engine is wiped (OPENSSL_cleanse) before it is
 * freed; the caller wipes |pin|. */
tack_status_t tack_pkcs11_load(const char *uri, const char *pin, size_t pin_len,
                               EVP_PKEY **out, char *err, size_t err_len);

/* tack_pkcs11_load_public loads the public key object |uri| names (no PIN:
 * a token's public objects need no login), for showing a key's TACK ID.
 * The object must be P-256.  Statuses, |err| and ownership as for
 * tack_pkcs11_load.  Such a key cannot sign. */
tack_status_t tack_pkcs11_load_public(const char *uri, EVP_PKEY **out,
                                      char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TACK_PKCS11_H */
