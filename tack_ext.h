/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_ext.h -- the TACK core: structures, wire codec, verification, signing,
 * PEM armour and the TACKpy key-file format.
 *
 * TACK (Trust Assertions for Certificate Keys) is specified by
 * draft-perrin-tls-tack-00 (break signatures, the format served by default)
 * and -02 (two TACKs with activation flags).  This library depends on libc and
 * OpenSSL 3 libcrypto only: no httpd or APR header, so the module, the
 * command-line tool, the unit tests and the fuzzers all build it the same way.
 *
 * Conventions:
 *  - Every function that can fail returns a tack_status_t; TACK_OK is 0.
 *    tack_status_str() turns any status into a sentence fragment suitable for
 *    "<file>: <reason>" messages.
 *  - The library never logs, never aborts on input, and never keeps state
 *    between calls.  Parsers are safe on arbitrary, hostile input.
 *  - Buffers passed in are borrowed; anything the library allocates is named
 *    in the function's comment together with the function that frees it.
 *  - Keys, hashes and MACs are compared in constant time (CRYPTO_memcmp);
 *    private-key material is wiped (OPENSSL_cleanse) before it is released.
 */
#ifndef TACK_EXT_H
#define TACK_EXT_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <stdint.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sizes (draft-perrin-tls-tack-00 section 3, -02 section 3) ---------- */

/* The TLS extension type.  IANA never assigned one; everyone uses 0xF300. */
#define TACK_EXT_TYPE 0xF300

#define TACK_KEY_LEN 64  /* P-256 point, x || y, no 0x04 prefix */
#define TACK_HASH_LEN 32 /* SHA-256 */
#define TACK_SIG_LEN 64  /* ECDSA r || s, 32 bytes each, zero-padded */
#define TACK_PRIV_LEN 32 /* P-256 private scalar */

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

/* Key file: version + iterations + salt + ciphertext + public_key + mac
 * = 1 + 4 + 16 + 32 + 64 + 32 */
#define TACK_KEYFILE_LEN 149
#define TACK_KEYFILE_VERSION 1
#define TACK_KEYFILE_SALT_LEN 16
#define TACK_KEYFILE_DEFAULT_ITERATIONS 8192
/* Refuse anything above this rather than spin in PBKDF2 for minutes. */
#define TACK_KEYFILE_MAX_ITERATIONS 1000000

/* "rrted.ptvtl.d2uiq.ox2xe.w4ss3" plus the terminating NUL */
#define TACK_FINGERPRINT_SIZE 30
/* "2042-01-29T01:09Z" plus the NUL; room for the five-digit years that the
 * largest uint32 expiration reaches */
#define TACK_TIME_SIZE 24

/* PEM labels of the files TACKpy writes. */
#define TACK_PEM_LABEL_TACK "TACK"
#define TACK_PEM_LABEL_BREAKSIG "TACK BREAK SIG"
#define TACK_PEM_LABEL_KEY "TACK PRIVATE KEY"

/* Largest file tack_file_read accepts by default: TACK files are a few
 * hundred bytes; a megabyte is certainly a mistake. */
#define TACK_FILE_MAX_DEFAULT (1024 * 1024)

/* ---- Status codes ------------------------------------------------------- */

typedef enum {
    TACK_OK = 0,
    /* wire and structure syntax */
    TACK_ERR_TRUNCATED,          /* input ends inside a field */
    TACK_ERR_TRAILING,           /* bytes left after the structure */
    TACK_ERR_BAD_LENGTH,         /* a length field or a size is wrong */
    TACK_ERR_BAD_FLAGS,          /* pin_activation not 0/1, or a flag for a
                                    TACK that is not there */
    TACK_ERR_TOO_MANY_BREAKSIGS, /* more than 8 break signatures */
    TACK_ERR_TOO_MANY_TACKS,     /* more TACKs than the format/file allows */
    TACK_ERR_NO_TACK,            /* a list that must hold a TACK is empty */
    TACK_ERR_DUPLICATE_KEY,      /* two TACKs with the same public key */
    /* PEM */
    TACK_ERR_PEM_NO_BLOCK,    /* no PEM block at all */
    TACK_ERR_PEM_WRONG_LABEL, /* PEM blocks, but none with the wanted label */
    TACK_ERR_PEM_BAD,         /* BEGIN without END, mismatched END, ... */
    TACK_ERR_BASE64,          /* the body is not valid base64 */
    /* cryptographic checks */
    TACK_ERR_BAD_KEY,         /* public_key is not a valid P-256 point */
    TACK_ERR_BAD_SIGNATURE,   /* signature does not verify */
    TACK_ERR_GENERATION,      /* generation below min_generation */
    TACK_ERR_EXPIRED,         /* expiration has passed */
    TACK_ERR_TARGET_MISMATCH, /* target_hash is not the certificate's */
    /* key file */
    TACK_ERR_KEYFILE_VERSION,    /* unknown key-file version byte */
    TACK_ERR_KEYFILE_ITERATIONS, /* iteration count 0 or above the cap */
    TACK_ERR_WRONG_PASSWORD,     /* MAC mismatch */
    TACK_ERR_KEY_MISMATCH,       /* private key does not match public key */
    /* environment */
    TACK_ERR_IO, /* open/read/write failed: see errno */
    TACK_ERR_FILE_TOO_LARGE,
    TACK_ERR_NOT_REGULAR_FILE, /* a FIFO, device, socket: never opened for
                                  reading, so it cannot block the caller */
    TACK_ERR_PSEUDO_FILE,      /* a "regular" file of proc, sysfs, debugfs
                                  and the like: never read (/proc/kmsg
                                  blocks, others have side effects) */
    TACK_ERR_TOKEN,            /* a PKCS#11 key cannot be loaded: no provider,
                                  no such token or object (tack_pkcs11.h) */
    TACK_ERR_NOMEM,
    TACK_ERR_CRYPTO,      /* OpenSSL failed; details on its error queue */
    TACK_ERR_INVALID_ARG, /* a caller bug: NULL pointer, bad size */
    TACK_ERR_BUFFER_TOO_SMALL,
    TACK_ERR_HEX,            /* a character that is not a hex digit */
    TACK_ERR_TIME,           /* a certificate's time does not parse */
    TACK_ERR_NOT_STATE_FILE, /* not JSON, or not a version 1 state file
                                (tack_state.h) */
    /* a PKCS#11 module loads but cannot reach its token: a device or
     * transport error, p11-kit's server not there (tack_pkcs11.h) */
    TACK_ERR_TOKEN_UNREACHABLE,
    TACK_STATUS_COUNT /* not a status: the number of them */
} tack_status_t;

/* tack_status_str returns a static, human-readable description of |status|,
 * e.g. "signature does not verify".  Never NULL, even for unknown values. */
const char *tack_status_str(tack_status_t status);

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

/* A TACKpy key file, parsed but not decrypted. */
typedef struct {
    uint32_t iterations;
    uint8_t salt[TACK_KEYFILE_SALT_LEN];
    uint8_t ciphertext[TACK_PRIV_LEN];
    uint8_t public_key[TACK_KEY_LEN];
    uint8_t mac[32];
} tack_keyfile_t;

/* ---- TACK ----------------------------------------------------------------- */

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

/* ---- Break signatures ----------------------------------------------------- */

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

/* tack_breaksig_create fills |out| with the break signature of |key|, a
 * P-256 private key, with tack_sign's statuses (TACK_ERR_BAD_KEY,
 * TACK_ERR_KEY_MISMATCH, TACK_ERR_CRYPTO); |key| may be a token's. */
tack_status_t tack_breaksig_create(tack_breaksig_t *out, EVP_PKEY *key);

/* ---- Extension bodies ----------------------------------------------------- */

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

/* ---- Keys and fingerprints ------------------------------------------------ */

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
 * a token's, through a provider, included).  TACK_ERR_BAD_KEY when |key| is not P-256. */
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

/* ---- PEM ------------------------------------------------------------------ */

/* One decoded PEM block. */
typedef struct {
    uint8_t *data;     /* decoded bytes, owned by the tack_pem_t */
    size_t len;
    unsigned line;     /* 1-based line of its BEGIN line */
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

/* ---- Files (tack_file.c) ------------------------------------------------ */

/* tack_file_read reads the whole of |path| into a malloc'd buffer (free with
 * free(); a NUL is appended but not counted in |*out_len|).  No file name
 * may stall the caller (httpd's parent reads these at a restart), so only
 * regular files of ordinary filesystems are read, and their type is checked
 * before they are opened: anything else (a FIFO nobody writes to would block
 * httpd forever, /dev/zero never ends) is TACK_ERR_NOT_REGULAR_FILE, and a
 * file of proc, sysfs, debugfs and their kin (/proc/kmsg blocks in read())
 * is TACK_ERR_PSEUDO_FILE.  The descriptor stays non-blocking while it is
 * read.  Files larger than |max_len| give TACK_ERR_FILE_TOO_LARGE; open/read
 * failures give TACK_ERR_IO with errno set (EISDIR for a directory).  A file
 * on a network filesystem whose server hangs can still block: no flag of
 * open(2) bounds that. */
tack_status_t tack_file_read(const char *path, size_t max_len, char **out,
                             size_t *out_len);

/* tack_file_read_at reads the whole of the file |name| of the directory
 * |dirfd| (or a path relative to it; AT_FDCWD for the working directory),
 * like tack_file_read, for a directory another user can write: the entry
 * itself is judged (fstatat, AT_SYMLINK_NOFOLLOW) before it is opened, and
 * opened with O_NOFOLLOW|O_NONBLOCK, then judged again on its descriptor,
 * so that nothing swapped in between (a symbolic link to a device, a FIFO)
 * is followed or can block.  A symbolic link is TACK_ERR_NOT_REGULAR_FILE
 * with errno ELOOP; the other returns are tack_file_read's.  When |sb| is
 * not NULL it gets the entry's status (the opened file's once opened:
 * its owner and mode are those of the bytes read), also on failure when
 * the entry could be looked at. */
tack_status_t tack_file_read_at(int dirfd, const char *name, size_t max_len,
                                char **out, size_t *out_len, struct stat *sb);

/* tack_dir_open opens the directory |path| (absolute) for reading and
 * returns its descriptor (O_CLOEXEC; the caller closes it), or -1 with
 * errno set.  It is walked one component at a time, each opened relative
 * to the one before with O_NOFOLLOW: the directory itself is never a
 * symbolic link, and a link on the way is followed only when it sits in a
 * directory only root can change (owned by root, writable by no group and
 * no one else), where no one but root could have put it.  Any other link
 * is ELOOP, and its path (as walked) is written into |link| (|link_len|
 * bytes; may be NULL).  What is then done relative to the descriptor
 * (openat, renameat, unlinkat) stays in that directory, whatever is later
 * renamed or swapped along |path|. */
int tack_dir_open(const char *path, char *link, size_t link_len);

/* tack_file_write_temp writes |len| bytes at |data| into a new file beside
 * |path|, named ".BASENAME.XXXXXX" (hidden: a TackStore never reads it),
 * created by mkstemp (O_CREAT|O_EXCL: no name that exists, and so no
 * symbolic link, is ever followed or reused) and given |mode| with fchmod on
 * its descriptor, never by name (a name can be swapped for a link between
 * two calls; the umask does not apply: pass the mode wanted); synced when
 * |sync|.  On success |*tmp| (free with free()) names it, for
 * tack_file_commit or unlink.  On failure nothing is left behind and
 * TACK_ERR_IO (errno set) or TACK_ERR_NOMEM is returned. */
tack_status_t tack_file_write_temp(const char *path, const void *data,
                                   size_t len, mode_t mode, int sync,
                                   char **tmp);

/* tack_file_write_temp_at is tack_file_write_temp for |path| relative to
 * the directory |dirfd| (tack_dir_open's; AT_FDCWD: the working
 * directory): the file is created there, and |*tmp| is relative to it. */
tack_status_t tack_file_write_temp_at(int dirfd, const char *path,
                                      const void *data, size_t len,
                                      mode_t mode, int sync, char **tmp);

/* tack_file_commit puts the temporary file |tmp| (tack_file_write_temp's)
 * in place as |path|, whole: with |replace|, rename(2) over whatever is
 * there; without, link(2), which fails with EEXIST when |path| exists or
 * appears meanwhile (where rename would silently replace it), and falls
 * back to rename only on a file system without hard links (EPERM, ENOTSUP,
 * EOPNOTSUPP, EMLINK), where a file that appears in between is replaced.
 * The directory is not synced: tack_file_sync_dir, once for many files.
 * On success and on failure the name |tmp| is gone (|tmp| itself is the
 * caller's to free).  Returns TACK_OK, or TACK_ERR_IO with errno set
 * (EEXIST: |path| exists and |replace| is 0), or TACK_ERR_INVALID_ARG. */
tack_status_t tack_file_commit(const char *tmp, const char *path,
                               int replace);

/* tack_file_commit_at is tack_file_commit with |tmp| and |path| relative to
 * the directory |dirfd| (renameat, linkat, unlinkat). */
tack_status_t tack_file_commit_at(int dirfd, const char *tmp, const char *path,
                                  int replace);

/* tack_file_replace replaces |path| atomically with |len| bytes at |data|:
 * tack_file_write_temp, then rename over |path| (tack_file_commit: a reader
 * sees the old file or the new one, whole), then, when |sync|, fsync of the
 * directory so the rename survives a crash.  The one way every part of
 * mod_tack writes a file: the module's TackStore and state file, the tool's
 * outputs (with tack_file_write_temp and tack_file_commit for many files).
 * Returns TACK_OK, or TACK_ERR_IO with errno set (the temporary file
 * removed), or TACK_ERR_NOMEM. */
tack_status_t tack_file_replace(const char *path, const void *data,
                                size_t len, mode_t mode, int sync);

/* tack_file_replace_at is tack_file_replace for |path| relative to the
 * directory |dirfd| (tack_dir_open's; AT_FDCWD: the working directory):
 * the temporary file, the rename and, when |sync|, the fsync are all of
 * that directory (|dirfd| itself is synced when |path| is a plain name),
 * whatever has been renamed or swapped since it was opened. */
tack_status_t tack_file_replace_at(int dirfd, const char *path,
                                   const void *data, size_t len, mode_t mode,
                                   int sync);

/* tack_file_sync_fs makes every file written so far on the file system of
 * the directory |dir| durable with one syncfs(2), for a writer of many
 * files (a TackStore's signing pass, `tack sign -o DIR`): one call instead
 * of one fsync per file.  Returns 0, or -1 with errno set. */
int tack_file_sync_fs(const char *dir);

/* tack_file_sync_dir fsyncs the directory that holds |path|; returns 0, or
 * -1 with errno set.  File systems that cannot sync a directory (EINVAL)
 * count as success: the rename is then as durable as they make it. */
int tack_file_sync_dir(const char *path);

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

/* ---- Key files ------------------------------------------------------------ */

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

/* ---- Helpers shared by the module and the tool (tack_util.c) ------------ */

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

/* ---- TackStore files (tack_store.c) -------------------------------------- */

/* A TackStore reads the files of its directory whose names end in this. */
#define TACK_STORE_SUFFIX ".tack.pem"

/* tack_store_name_ok returns 1 for the name of a file a TackStore reads
 * (a name in the directory, not a path): ending in TACK_STORE_SUFFIX, with
 * something before it, not starting with '.' (hidden files and the
 * ".NAME.XXXXXX" files tack_file_write_temp makes are never read), no
 * '/'; 0 otherwise, NULL included.  The suffix is compared as it is
 * (".TACK.PEM" is not read). */
int tack_store_name_ok(const char *name);

/* The longest part of a store file's name taken from the certificate's DNS
 * name, and of its key type. */
#define TACK_STORE_HOST_MAX 64
#define TACK_STORE_KEYTYPE_MAX 16
/* host + '.' + key type + '.' + 8 hex + ".tack.pem" + NUL
 * = 64 + 1 + 16 + 1 + 8 + 9 + 1 */
#define TACK_STORE_NAME_SIZE 100

/* tack_cert_store_name writes the one name a TackStore file for |cert| has,
 * whoever writes it (the module's TackSigningKey, `tack sign -o STORE/`),
 * so that each replaces the other's file, into |out| (|out_len| bytes,
 * TACK_STORE_NAME_SIZE always suffices), derived from the certificate
 * alone:
 *
 *   HOST.KEYTYPE.SPKI8.tack.pem   (www.example.org.ecdsa.1f2e3d4c.tack.pem)
 *
 * HOST is the first DNS name of the subjectAltName, else the subject's
 * (last, most specific) CN, in lower case (names differing only by case
 * are one name), a '*' written as '_' ("*.example.org": "_.example.org"),
 * every character other than [a-z0-9._-] dropped, leading and trailing '.'
 * and '-' removed (never a hidden file, never an option), at most
 * TACK_STORE_HOST_MAX characters.  KEYTYPE is the key's algorithm: "ecdsa",
 * "rsa", "rsa-pss", "ed25519", "ed448" (the module's slot names, lower
 * case), else OpenSSL's (or its provider's) name of it, cleaned the same
 * way, else "key" (a key OpenSSL cannot decode).  SPKI8 is the first 8 hex digits of the
 * SHA-256 of the SubjectPublicKeyInfo (the TACK's target hash).  A
 * certificate with no usable DNS name or CN gets "KEYTYPE.SPKI8.tack.pem".
 * The name never holds a '/' and never starts with '.'.  Returns TACK_OK,
 * TACK_ERR_BUFFER_TOO_SMALL, TACK_ERR_INVALID_ARG or TACK_ERR_CRYPTO (the
 * key could not be hashed). */
tack_status_t tack_cert_store_name(X509 *cert, char *out, size_t out_len);

/* Room for tack_store_header's text: two lines, a producer of up to 128
 * bytes. */
#define TACK_STORE_HEADER_SIZE 192

/* tack_store_header writes the lines every TACK file written by mod_tack's
 * parts begins with, as TACKpy's do:
 *
 *   Created by PRODUCER
 *   Created at 2026-12-04T23:10:01Z
 *
 * into |out| (|out_len| bytes, NUL-terminated), |now| in UTC.  PRODUCER is
 * the writer: "tack 1.2.0" for the tool, "mod_tack (TackSigningKey)" for
 * the module.  Returns TACK_OK; TACK_ERR_INVALID_ARG for a NULL or empty
 * producer or one with a control character (a line break would forge a
 * line of its own); TACK_ERR_BUFFER_TOO_SMALL. */
tack_status_t tack_store_header(char *out, size_t out_len,
                                const char *producer, time_t now);

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

#endif /* TACK_EXT_H */
