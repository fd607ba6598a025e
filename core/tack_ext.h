/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_ext.h -- TACKs and break signatures (tack_ext.c): structures, wire
 * codec, signatures (made and checked with tack_key.c's ECDSA),
 * verification, the draft-00 and draft-02 extension bodies, fingerprints
 * and SPKI hashes.  The core's conventions are in tack_base.h.
 */
#ifndef TACK_EXT_H
#define TACK_EXT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tack_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sizes (draft-perrin-tls-tack-00 section 3, -02 section 3) ---------- */

/* The TLS extension type.  IANA never assigned one; everyone uses 0xF300. */
#define TACK_EXT_TYPE 0xF300

/* public_key + min_generation + generation + expiration + target_hash
 * + signature = 64 + 1 + 1 + 4 + 32 + 64 */
#define TACK_LEN 166
/* The signed part of a TACK: everything before the signature. */
#define TACK_SIGNED_LEN 102
/* public_key + signature = 64 + 64 */
#define TACK_BREAKSIG_LEN 128
#define TACK_MAX_BREAKSIGS 8

/* draft-00 body: tack_len + tack + break_sigs_len + 8 break sigs + activation
 * = 1 + 166 + 2 + 8*128 + 1 */
#define TACK_EXT00_MAX_LEN 1194
/* tack_len + break_sigs_len + activation = 1 + 2 + 1 */
#define TACK_EXT00_MIN_LEN 4
/* draft-02 body: tacks_len + 2 TACKs + activation_flags = 2 + 2*166 + 1 */
#define TACK_EXT02_MAX_LEN 335
#define TACK_EXT02_MAX_TACKS 2

/* "rrted.ptvtl.d2uiq.ox2xe.w4ss3" plus the terminating NUL */
#define TACK_FINGERPRINT_SIZE 30
/* "2042-01-29T01:09Z" plus the NUL; room for the five-digit years that the
 * largest uint32 expiration reaches */
#define TACK_TIME_SIZE 24

/* ---- Structures ---------------------------------------------------------- */

/* A TACK, fields in host form.  The wire form is TACK_LEN bytes. */
typedef struct {
    uint8_t public_key[TACK_KEY_LEN];
    uint8_t min_generation;
    uint8_t generation;
    uint32_t expiration; /* minutes since 1970-01-01T00:00Z */
    uint8_t target_hash[TACK_HASH_LEN];
    uint8_t signature[TACK_SIG_LEN];
} tack_t;

/* A break signature: |public_key| signed "tack_break_sig". */
typedef struct {
    uint8_t public_key[TACK_KEY_LEN];
    uint8_t signature[TACK_SIG_LEN];
} tack_breaksig_t;

/* The draft-00 extension body: zero or one TACK, zero to eight break
 * signatures, and the pin_activation flag (0 or 1). */
typedef struct {
    int has_tack;
    tack_t tack;
    size_t num_breaksigs;
    tack_breaksig_t breaksigs[TACK_MAX_BREAKSIGS];
    uint8_t pin_activation;
    /* When parsing fails: the field whose check failed ("tack_len",
     * "break_sigs_len", ...) and the offset of its first byte. */
    const char *fault_field;
    size_t fault_offset;
} tack_ext00_t;

/* The draft-02 extension body: one or two TACKs with different keys, and
 * activation_flags (bit 0: first TACK active, bit 1: second). */
typedef struct {
    size_t num_tacks;
    tack_t tacks[TACK_EXT02_MAX_TACKS];
    uint8_t activation_flags;
    const char *fault_field; /* as in tack_ext00_t */
    size_t fault_offset;
} tack_ext02_t;

/* ---- TACK -----------------------------------------------------------------
 */

/* tack_parse decodes exactly TACK_LEN bytes from |in| into |out|.  It checks
 * syntax only (length); use tack_verify / tack_validate for the rest.
 * Returns TACK_OK, TACK_ERR_TRUNCATED (fewer bytes) or TACK_ERR_TRAILING. */
tack_status_t tack_parse(tack_t *out, const uint8_t *in, size_t in_len);

/* tack_encode writes the TACK_LEN-byte wire form of |tack| to |out|. */
void tack_encode(const tack_t *tack, uint8_t out[TACK_LEN]);

/* tack_equal returns 1 when |a| and |b| are the same TACK, every field equal
 * (their wire forms compared: a memcmp of the structs would also compare
 * their padding, which nothing sets), and 0 otherwise. */
int tack_equal(const tack_t *a, const tack_t *b);

/* tack_verify checks that public_key is a valid P-256 point
 * (TACK_ERR_BAD_KEY) and that the signature over "tack_sig" || the first 102
 * bytes verifies (TACK_ERR_BAD_SIGNATURE).  Returns TACK_OK when both hold. */
tack_status_t tack_verify(const tack_t *tack);

/* tack_verify_with is tack_verify's signature check by |key|, the TACK's
 * public_key made by tack_key_from_public (the caller's to keep for the
 * many TACKs of one key, and to match to public_key). */
tack_status_t tack_verify_with(const tack_t *tack, EVP_PKEY *key);

/* tack_check_generation returns TACK_ERR_GENERATION when generation is below
 * min_generation, TACK_OK otherwise. */
tack_status_t tack_check_generation(const tack_t *tack);

/* tack_check_expiration returns TACK_ERR_EXPIRED when the TACK's expiration
 * (a minute) is at or before |now| (seconds since the epoch), TACK_OK
 * otherwise. */
tack_status_t tack_check_expiration(const tack_t *tack, time_t now);

/* tack_expiration_time returns the TACK's expiration as a time_t. */
time_t tack_expiration_time(const tack_t *tack);

/* tack_check_target compares target_hash with the SHA-256 of |cert|'s DER
 * SubjectPublicKeyInfo in constant time.  Returns TACK_OK on a match,
 * TACK_ERR_TARGET_MISMATCH otherwise, TACK_ERR_CRYPTO if the hash could not
 * be computed. */
tack_status_t tack_check_target(const tack_t *tack, X509 *cert);

/* tack_check_target_hash is tack_check_target for a precomputed SPKI hash. */
tack_status_t tack_check_target_hash(const tack_t *tack,
                                     const uint8_t spki_hash[TACK_HASH_LEN]);

/* tack_validate runs every check a TACK client runs, in the draft's order:
 * signature (tack_verify), generation, target hash against |cert| (skipped
 * when |cert| is NULL), expiration against |now|.  Returns the first failure
 * or TACK_OK. */
tack_status_t tack_validate(const tack_t *tack, X509 *cert, time_t now);

/* tack_sign fills |tack|'s public_key from |key| (a P-256 private key) and
 * signs the TACK: the caller sets min_generation, generation, expiration and
 * target_hash first.  |key| may keep its private scalar to itself (a
 * PKCS#11 token's key, tack_pkcs11_load): it is only asked to sign, and the
 * signature is verified against its public key before TACK_OK.  Returns
 * TACK_OK, TACK_ERR_GENERATION when generation < min_generation,
 * TACK_ERR_BAD_KEY when |key| is not P-256 or is a bare public key,
 * TACK_ERR_KEY_MISMATCH when the signature does not verify under |key|'s
 * public key, or TACK_ERR_CRYPTO (a signer that failed: reasons on
 * OpenSSL's error queue). */
tack_status_t tack_sign(tack_t *tack, EVP_PKEY *key);

/* ---- Break signatures -----------------------------------------------------
 */

/* tack_breaksig_parse decodes exactly TACK_BREAKSIG_LEN bytes (syntax only).
 * Returns TACK_OK, TACK_ERR_TRUNCATED or TACK_ERR_TRAILING. */
tack_status_t tack_breaksig_parse(tack_breaksig_t *out, const uint8_t *in,
                                  size_t in_len);

/* tack_breaksig_encode writes the TACK_BREAKSIG_LEN-byte wire form. */
void tack_breaksig_encode(const tack_breaksig_t *sig,
                          uint8_t out[TACK_BREAKSIG_LEN]);

/* tack_breaksig_verify checks the key is a P-256 point (TACK_ERR_BAD_KEY) and
 * the signature over "tack_break_sig" verifies (TACK_ERR_BAD_SIGNATURE). */
tack_status_t tack_breaksig_verify(const tack_breaksig_t *sig);

/* tack_breaksig_verify_with is tack_breaksig_verify by |key|, as
 * tack_verify_with. */
tack_status_t tack_breaksig_verify_with(const tack_breaksig_t *sig,
                                        EVP_PKEY *key);

/* tack_breaksig_create fills |out| with the break signature of |key|, a
 * P-256 private key, with tack_sign's statuses (TACK_ERR_BAD_KEY,
 * TACK_ERR_KEY_MISMATCH, TACK_ERR_CRYPTO); |key| may be a token's. */
tack_status_t tack_breaksig_create(tack_breaksig_t *out, EVP_PKEY *key);

/* ---- Extension bodies -----------------------------------------------------
 */

/* tack_ext00_parse decodes a draft-00 extension body strictly: tack_len 0 or
 * 166 (TACK_ERR_BAD_LENGTH), break_sigs_len a multiple of 128
 * (TACK_ERR_BAD_LENGTH) and at most 1024 (TACK_ERR_TOO_MANY_BREAKSIGS),
 * pin_activation 0 or 1 (TACK_ERR_BAD_FLAGS), nothing after it
 * (TACK_ERR_TRAILING).  Short input gives TACK_ERR_TRUNCATED.  No signature
 * is checked.  On failure the rest of |out| is undefined, but
 * fault_field and fault_offset say where the body went wrong. */
tack_status_t tack_ext00_parse(tack_ext00_t *out, const uint8_t *in,
                               size_t in_len);

/* tack_ext00_encode writes the draft-00 body of |ext| to |out| (capacity
 * |out_cap|; TACK_EXT00_MAX_LEN always suffices) and its length to
 * |*out_len|.  Returns TACK_ERR_TOO_MANY_BREAKSIGS, TACK_ERR_BAD_FLAGS or
 * TACK_ERR_BUFFER_TOO_SMALL on failure. */
tack_status_t tack_ext00_encode(const tack_ext00_t *ext, uint8_t *out,
                                size_t out_cap, size_t *out_len);

/* tack_ext02_parse decodes a draft-02 body strictly: tacks_len 166 or 332
 * (0 is TACK_ERR_NO_TACK, anything else TACK_ERR_BAD_LENGTH), the two TACKs'
 * keys distinct (TACK_ERR_DUPLICATE_KEY), an activation bit for a missing
 * second TACK refused (TACK_ERR_BAD_FLAGS), nothing after the flags.  Bits
 * 2-7 of activation_flags are reserved and, as the draft says, ignored; they
 * are kept in |out| as received.  On failure, fault_field and fault_offset
 * say where, as for draft-00. */
tack_status_t tack_ext02_parse(tack_ext02_t *out, const uint8_t *in,
                               size_t in_len);

/* tack_ext02_encode writes the draft-02 body of |ext| (1 or 2 TACKs with
 * distinct keys) to |out|.  Only bits 0 and 1 of activation_flags are
 * written, and only for TACKs present. */
tack_status_t tack_ext02_encode(const tack_ext02_t *ext, uint8_t *out,
                                size_t out_cap, size_t *out_len);

/* The two formats of the extension body, and the room either needs. */
#define TACK_FORMAT_00 0
#define TACK_FORMAT_02 2
#define TACK_ANSWER_MAX                                                        \
    (TACK_EXT00_MAX_LEN > TACK_EXT02_MAX_LEN ? TACK_EXT00_MAX_LEN              \
                                             : TACK_EXT02_MAX_LEN)

/* tack_answer_encode writes the body a server sends for |n| TACKs and
 * |nsigs| break signatures in |format|: draft-00 carries the first TACK
 * (pin activation |pin_activation| unless inactive[0]) and the break
 * signatures, -02 every TACK (activated per |pin_activation| unless
 * inactive[i]; at most TACK_EXT02_MAX_TACKS).  *out_len is 0 when there
 * is nothing to send: -02 without a TACK, draft-00 without a TACK or a
 * break signature.  Errors are tack_ext00_encode's and tack_ext02_encode's. */
tack_status_t tack_answer_encode(int format, int pin_activation,
                                 const tack_t *const *tacks,
                                 const unsigned char *inactive, int n,
                                 const tack_breaksig_t *sigs, size_t nsigs,
                                 uint8_t out[TACK_ANSWER_MAX], size_t *out_len);

/* ---- Fingerprints, hashes, names, times ---------------------------------- */

/* tack_fingerprint writes the key's "TACK ID" -- SHA-256 of the public key,
 * lower-case RFC 4648 base32, first 25 characters in dotted groups of five --
 * and a terminating NUL to |out|. */
void tack_fingerprint(const uint8_t public_key[TACK_KEY_LEN],
                      char out[TACK_FINGERPRINT_SIZE]);

/* tack_spki_hash writes SHA-256 of |cert|'s DER SubjectPublicKeyInfo. */
tack_status_t tack_spki_hash(X509 *cert, uint8_t out[TACK_HASH_LEN]);

/* tack_cert_name writes a name of |cert| for people into |out| (|out_len|
 * bytes, NUL-terminated, cut to fit) and returns |out|: its subject,
 * "/CN=www.example.org/O=Example", each value in UTF-8 ("/CN=café", where
 * X509_NAME_oneline would write "caf\xC3\xA9"); for a certificate whose
 * subject is empty (ACME CAs' such as pebble's: the name only in the SAN),
 * "DNS:" and its first DNS name; "(no subject, no DNS name)" otherwise.
 * Control characters become '?'.  Never an empty string. */
char *tack_cert_name(X509 *cert, char *out, size_t out_len);

/* tack_pkey_spki_hash is tack_spki_hash for a bare public key. */
tack_status_t tack_pkey_spki_hash(EVP_PKEY *pkey, uint8_t out[TACK_HASH_LEN]);

/* tack_cert_der_spki_hash finds the SubjectPublicKeyInfo of a DER X.509
 * certificate by walking its outer structure (no key or extension is
 * decoded: a fraction of the cost of d2i_X509, for reading thousands of
 * certificates) and writes its SHA-256, the target hash, to |out|.  When
 * |alg_oid| is not NULL it is pointed at the contents of the key's
 * algorithm OID inside |der| (|*alg_oid_len| bytes).  The certificate's
 * signature is not checked.  Returns TACK_OK, or TACK_ERR_TRUNCATED /
 * TACK_ERR_BAD_LENGTH for input that is not a DER certificate. */
tack_status_t tack_cert_der_spki_hash(const uint8_t *der, size_t der_len,
                                      uint8_t out[TACK_HASH_LEN],
                                      const uint8_t **alg_oid,
                                      size_t *alg_oid_len);

/* tack_time_format writes |minutes| since the epoch as "%Y-%m-%dT%H:%MZ". */
void tack_time_format(uint32_t minutes, char out[TACK_TIME_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* TACK_EXT_H */
