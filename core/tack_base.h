/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_base.h -- the bottom of the TACK core: what every core file shares,
 * the sizes of a TACK key, hash and signature and the status codes
 * (tack_base.c).  Each core file has a header of its own for what it
 * defines (tack_util.h, tack_utf8.h, tack_file.h, tack_key.h, tack_ext.h,
 * tack_pem.h, tack_keyfile.h, tack_pkcs11.h, tack_store.h, tack_state.h),
 * and includes only its own and those of the files below it (the
 * Makefile's CORE_SRC, bottom first).
 *
 * TACK (Trust Assertions for Certificate Keys) is specified by
 * draft-perrin-tls-tack-00 (break signatures, the format served by default)
 * and -02 (two TACKs with activation flags).  The core depends on libc and
 * OpenSSL 3 libcrypto only (tack_state.c: and jansson): no httpd or APR
 * header, so the module, the command-line tool, the unit tests and the
 * fuzzers all build it the same way.
 *
 * Conventions:
 *  - Every function that can fail returns a tack_status_t; TACK_OK is 0.
 *    tack_status_str() turns any status into a sentence fragment suitable for
 *    "<file>: <reason>" messages.
 *  - The library never logs, never aborts on input, and never keeps state
 *    between calls (the one exception, process-wide: the library contexts
 *    of a token's keys, tack_key_libctx_add).  Parsers are safe on
 *    arbitrary, hostile input.
 *  - Buffers passed in are borrowed; anything the library allocates is named
 *    in the function's comment together with the function that frees it.
 *  - Keys, hashes and MACs are compared in constant time (CRYPTO_memcmp);
 *    private-key material is wiped (OPENSSL_cleanse) before it is released.
 */
#ifndef TACK_BASE_H
#define TACK_BASE_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Sizes (draft-perrin-tls-tack-00 section 3) ------------------------- */

#define TACK_KEY_LEN 64  /* P-256 point, x || y, no 0x04 prefix */
#define TACK_HASH_LEN 32 /* SHA-256 */
#define TACK_SIG_LEN 64  /* ECDSA r || s, 32 bytes each, zero-padded */
#define TACK_PRIV_LEN 32 /* P-256 private scalar */

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

#ifdef __cplusplus
}
#endif

#endif /* TACK_BASE_H */
