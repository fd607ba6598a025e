/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_base.c -- the bottom of the core: a sentence for each status code
 * (the codes and the sizes every core file shares are in tack_base.h).
 * It calls no other file of the core.
 */
#include "tack_base.h"

#include <stddef.h>

/* ---- Status strings ------------------------------------------------------ */

static const char *const tack_status_strings[TACK_STATUS_COUNT] = {
    [TACK_OK] = "success",
    [TACK_ERR_TRUNCATED] = "truncated: the data ends inside a field",
    [TACK_ERR_TRAILING] = "unexpected bytes after the end of the structure",
    [TACK_ERR_BAD_LENGTH] = "wrong length",
    [TACK_ERR_BAD_FLAGS] = "invalid activation flag value",
    [TACK_ERR_TOO_MANY_BREAKSIGS] =
        "too many break signatures (at most 8 are allowed)",
    [TACK_ERR_TOO_MANY_TACKS] = "too many TACKs",
    [TACK_ERR_NO_TACK] = "no TACK where one is required",
    [TACK_ERR_DUPLICATE_KEY] = "two TACKs with the same TACK key",
    [TACK_ERR_PEM_NO_BLOCK] = "no PEM block found",
    [TACK_ERR_PEM_WRONG_LABEL] = "no PEM block with the expected label",
    [TACK_ERR_PEM_BAD] = "malformed PEM armour",
    [TACK_ERR_BASE64] = "invalid base64 in PEM block",
    [TACK_ERR_BAD_KEY] = "public key is not a valid P-256 point",
    [TACK_ERR_BAD_SIGNATURE] = "signature does not verify",
    [TACK_ERR_GENERATION] = "generation is below min_generation",
    [TACK_ERR_EXPIRED] = "TACK has expired",
    [TACK_ERR_TARGET_MISMATCH] =
        "target_hash does not match the certificate's public key",
    [TACK_ERR_KEYFILE_VERSION] = "unsupported key file version",
    [TACK_ERR_KEYFILE_ITERATIONS] =
        "key file iteration count is zero or above 1000000",
    [TACK_ERR_WRONG_PASSWORD] = "wrong password (key file MAC mismatch)",
    [TACK_ERR_KEY_MISMATCH] =
        "private key does not match the key file's public key",
    [TACK_ERR_IO] = "I/O error",
    [TACK_ERR_FILE_TOO_LARGE] = "file is too large",
    [TACK_ERR_NOT_REGULAR_FILE] = "not a regular file",
    [TACK_ERR_PSEUDO_FILE] =
        "a file of a pseudo-filesystem (proc, sysfs, ...), not read",
    [TACK_ERR_TOKEN] = "PKCS#11 token or key not available",
    [TACK_ERR_NOMEM] = "out of memory",
    [TACK_ERR_CRYPTO] = "OpenSSL operation failed",
    [TACK_ERR_INVALID_ARG] = "invalid argument",
    [TACK_ERR_BUFFER_TOO_SMALL] = "output buffer too small",
    [TACK_ERR_HEX] = "not a hexadecimal digit",
    [TACK_ERR_TIME] = "a certificate's time does not parse",
    [TACK_ERR_NOT_STATE_FILE] = "not a version 1 state file",
    [TACK_ERR_TOKEN_UNREACHABLE] = "cannot connect to the PKCS#11 token",
};

const char *tack_status_str(tack_status_t status)
{
    if ((unsigned)status >= TACK_STATUS_COUNT ||
        tack_status_strings[status] == NULL) {
        return "unknown error";
    }
    return tack_status_strings[status];
}
