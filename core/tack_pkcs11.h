/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11.h -- TACK keys in a PKCS#11 token (a smart card, an HSM,
 * SoftHSM2), named by an RFC 7512 URI such as
 * "pkcs11:token=tack;object=tackkey;type=private".
 *
 * Part of the core (libc + libcrypto only).  The key is loaded through
 * OpenSSL's pkcs11-provider (Debian: pkcs11-provider; on Debian 12 from
 * bookworm-backports) and OSSL_STORE, in a library context of the
 * provider's own: nothing of it reaches the default context (mod_ssl's).
 * Its private scalar never leaves the token, and tack_sign /
 * tack_breaksig_create sign with it like any other key.  Without a
 * module-path or module-name in the URI's query the provider loads
 * p11-kit's proxy, which loads every registered module.
 */
#ifndef TACK_PKCS11_H
#define TACK_PKCS11_H

#include <stddef.h>

#include <openssl/evp.h>

#include "tack_base.h"

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

/* tack_pkcs11_uri_pin copies the PIN |uri| carries (its pin-value, or the
 * first line of its pin-source file, read as tack_pkcs11_load reads it)
 * into |out| (|out_size| bytes, at least TACK_PKCS11_PIN_SIZE) and sets
 * |out_len|: for a caller that must know which PIN a load will send (the
 * module's memory of refused PINs).  Returns TACK_OK, or an error with
 * the reason in |err| (TACK_ERR_INVALID_ARG when the URI carries no PIN).
 * The caller wipes |out| (OPENSSL_cleanse). */
#define TACK_PKCS11_PIN_SIZE 256
tack_status_t tack_pkcs11_uri_pin(const char *uri, char *out, size_t out_size,
                                  size_t *out_len, char *err, size_t err_len);

/* tack_pkcs11_uri_check checks |uri| against RFC 7512: attributes known
 * (or a vendor's "x-"), each once, in the part it belongs to (token,
 * object, type, id, ... in the path; module-path, module-name, pin-value,
 * pin-source in the query, after "?"), values well escaped, type one of
 * RFC 7512's.  Returns TACK_OK, or TACK_ERR_INVALID_ARG with the reason in
 * |err| (NUL-terminated; TACK_PKCS11_ERR_SIZE suffices): a misplaced
 * attribute's reason shows the URI as it should read, e.g. "module-path
 * belongs in the query: pkcs11:token=t;object=k?module-path=/m.so", with
 * a pin-value as "***"; an unknown attribute's names it.
 * tack_pkcs11_load runs this check first. */
tack_status_t tack_pkcs11_uri_check(const char *uri, char *err, size_t err_len);

/* tack_pkcs11_load loads the private key object |uri| names.  |pin| (|pin_len|
 * bytes, no NUL among them) logs in to the token; it may be NULL when the
 * URI carries pin-value or pin-source (a file: its first line), which come
 * first, or the token needs no login.  The provider never prompts.  The
 * URI's query names the PKCS#11 module: module-path (a library; with
 * module-name, a directory to find it in) or module-name alone (a module
 * registered with p11-kit).  One library context is kept per module for
 * the life of the process: once a token is logged in there, later loads
 * from it need no PIN.
 *
 * The key must be able to sign TACKs: it is P-256 and signs a test message
 * that verifies under its public key (tack_key_check_signing), so a wrong
 * key fails here and not at the first tack_sign.
 *
 * Before the provider looks for the key, the module itself is asked
 * (C_Initialize, C_GetSlotList, C_GetTokenInfo, C_OpenSession) whether the
 * token can be reached and, with a PIN and a token= label, logs in with
 * it: the provider finds no key whatever the reason, and this is how the
 * four failures of a token (remote ones, through p11-kit-client.so,
 * above all) are told apart.  The login is the only one made with that
 * PIN: a wrong PIN counts once against the token's limit.
 *
 * On success |*out| is the key (free with EVP_PKEY_free; the library
 * context it belongs to lives as long as the process) and TACK_OK
 * is returned.  On failure |*out| is untouched, |err| (|err_len| bytes,
 * TACK_PKCS11_ERR_SIZE suffices) gets a NUL-terminated reason without the
 * URI, OpenSSL's error queue is left empty, and the status and the start
 * of the reason say which class of failure it is:
 *   TACK_ERR_TOKEN_UNREACHABLE  "cannot connect to the token: ": the
 *                           module loads but cannot reach its token:
 *                           one of those calls (or C_Login) failed with a
 *                           device or transport error, named
 *                           ("C_Initialize: CKR_GENERAL_ERROR",
 *                           "C_OpenSession: CKR_DEVICE_REMOVED"), or
 *                           p11-kit-client.so has no p11-kit server (it
 *                           says so only by showing no slot): the
 *                           address tried and connect(2)'s error ("no
 *                           p11-kit server at P11_KIT_SERVER_ADDRESS=
 *                           unix:path=/run/tack/p11.sock: No such file or
 *                           directory"), or an address p11-kit-client
 *                           0.24 would crash on.  Worth retrying later;
 *                           no PIN was tried.
 *   TACK_ERR_WRONG_PASSWORD "login refused": the token refused the PIN,
 *                           the code named ("wrong PIN (login refused:
 *                           CKR_PIN_INCORRECT)", "the token's PIN is
 *                           locked (login refused: CKR_PIN_LOCKED)",
 *                           CKR_PIN_EXPIRED, CKR_USER_PIN_NOT_INITIALIZED),
 *                           or the token needs a PIN and none was given
 *   TACK_ERR_TOKEN          the key is not found ("no private key
 *                           object=... in token ...", "no token ...
 *                           (tokens present: ...)", more than one key
 *                           matches), the module cannot be loaded
 *                           ("cannot load the PKCS#11 module: " and
 *                           dlopen's reason), the provider is not
 *                           installed, the token refused the login for
 *                           another reason ("login refused: C_Login:
 *                           CKR_..."), the pin-source cannot be read
 *   TACK_ERR_BAD_KEY        the object is not an EC P-256 key (RSA, P-384),
 *                           or the URI's type is not private (public for
 *                           tack_pkcs11_load_public)
 *   TACK_ERR_KEY_MISMATCH   the token's public key is not its private key's
 *   TACK_ERR_INVALID_ARG    NULL arguments, a URI that is not "pkcs11:" or
 *                           that tack_pkcs11_uri_check refuses, a PIN with
 *                           a NUL in it, a pin-source that is not a file,
 *                           an empty PIN (whatever its source: "the PIN is
 *                           empty", "pin-source PATH: the PIN is empty";
 *                           refused before any login, which would count
 *                           against the token's lock)
 *   TACK_ERR_CRYPTO, TACK_ERR_NOMEM  anything else, with OpenSSL's reason
 * Every copy of the PIN made here is wiped (OPENSSL_cleanse); the caller
 * wipes |pin|. */
tack_status_t tack_pkcs11_load(const char *uri, const char *pin, size_t pin_len,
                               EVP_PKEY **out, char *err, size_t err_len);

/* tack_pkcs11_load_public loads the public key object |uri| names (no PIN:
 * a token's public objects need no login), for showing a key's TACK ID.
 * The object must be P-256.  Statuses, |err| and ownership as for
 * tack_pkcs11_load.  Such a key cannot sign. */
tack_status_t tack_pkcs11_load_public(const char *uri, EVP_PKEY **out,
                                      char *err, size_t err_len);

/* The environment variable with which pkcs11-provider (provider.c,
 * p11prov_module_new) lets any value override the module its configuration
 * names: the URI's module-path or module-name, or p11-kit's proxy. */
#define TACK_PKCS11_ENV_MODULE "PKCS11_PROVIDER_MODULE"

/* tack_pkcs11_env_module unsets TACK_PKCS11_ENV_MODULE in this process, so
 * that the URI alone chooses the PKCS#11 module (with the variable set, the
 * provider loaded it whatever the URI said: another module's key under the
 * same label).  Returns 1 when it was set to a value the provider would
 * have used (not empty), that value copied into |value| (|value_len|
 * bytes, NUL-terminated, cut when longer) for the caller's warning; 0
 * when it was not.  tack_pkcs11_load and tack_pkcs11_load_public call it
 * too, before the provider is loaded; a caller calls it first to say so.
 * It changes the process's environment: call it where no other thread
 * reads the environment (the tool, a signer process). */
int tack_pkcs11_env_module(char *value, size_t value_len);

#ifdef __cplusplus
}
#endif

#endif /* TACK_PKCS11_H */
