/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11_token.h -- the PKCS#11 module asked directly, for
 * tack_pkcs11.c (tack_pkcs11_token.c): whether the token a URI names can
 * be reached, takes the PIN, is there at all.  Only the tack_pkcs11*.c
 * files include it: what the core offers is tack_pkcs11.h.
 */
#ifndef TACK_PKCS11_TOKEN_H
#define TACK_PKCS11_TOKEN_H

#include <stddef.h>

#include "tack_base.h"
#include "tack_pkcs11_uri.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PKCS#11's CK_ULONG, as every Unix module lays it out. */
typedef unsigned long tack_ck_ulong;

/* The PIN of a load: what tack_pk11_reach logs in with, and what the
 * passphrase callback hands the provider. */
typedef struct {
    const char *pin; /* NULL: none given */
    size_t pin_len;
    int asked; /* the provider wanted a PIN */
} tack_pk11_pin_t;

/* A token's login state (tack_pk11_list_tokens). */
#define TACK_PK11_UNKNOWN (-1)
#define TACK_PK11_LOGGED_OUT 0
#define TACK_PK11_LOGGED_IN 1
#define TACK_PK11_LOCKED 2

/* tack_pk11_list_tokens asks |module| for the labels of its tokens: writes
 * them, quoted and comma-separated, to |names| and returns 1 when |label|
 * is one of them, 0 when not, -1 when the module cannot be asked.  When
 * |login| is not NULL it gets the login state of the token |label|
 * (tack_pk11_login_state), TACK_PK11_UNKNOWN when there is none. */
int tack_pk11_list_tokens(const char *module, const char *label, char *names,
                          size_t names_size, int *login);

/* tack_pk11_not_found explains a key the store did not find: which of
 * the token and the key is missing. */
tack_status_t tack_pk11_not_found(const tack_pk11_uri_t *u, const char *module,
                                  const char *kind, char *err, size_t err_len);

/* tack_pk11_login_refused says why the token refused the PIN: |rv| from
 * C_Login, |final| when the token now says one more wrong PIN locks it.
 * A wrong, locked or expired PIN is TACK_ERR_WRONG_PASSWORD; any other
 * refusal TACK_ERR_TOKEN (another PIN would not help). */
tack_status_t tack_pk11_login_refused(tack_ck_ulong rv, int final, char *err,
                                      size_t err_len);

/* tack_pk11_reach asks |module| (its own handle on it, as
 * tack_pk11_list_tokens does) whether the token |u| names can be reached
 * and, with a PIN in |pin|, whether it takes it: the provider says
 * neither (it finds no key, whatever the reason).  Returns TACK_OK when
 * nothing stands in the way or it cannot tell, and otherwise:
 *   TACK_ERR_TOKEN_UNREACHABLE  C_Initialize, C_GetSlotList,
 *                               C_GetTokenInfo, C_OpenSession or C_Login
 *                               failed with a device or transport error
 *                               (named), or p11-kit's client has no
 *                               connection to its server
 *   TACK_ERR_WRONG_PASSWORD     C_Login refused the PIN (code named)
 *   TACK_ERR_TOKEN              the module cannot be loaded, or refused
 *                               the login otherwise
 * The login is the one the provider would make, made first: the token
 * counts one wrong PIN, not two.  A token with a PIN pad of its own
 * (CKF_PROTECTED_AUTHENTICATION_PATH) is not logged in to here. */
tack_status_t tack_pk11_reach(const tack_pk11_uri_t *u, const char *module,
                              const tack_pk11_pin_t *pin, char *err,
                              size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* TACK_PKCS11_TOKEN_H */
