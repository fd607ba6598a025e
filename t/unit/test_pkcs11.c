/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_pkcs11.c -- tack_pkcs11.c, the API of tack_pkcs11.h: a load's
 * arguments checked before the provider, and the environment variable of
 * pkcs11-provider that would change the module.  The URI's checks are in
 * test_pkcs11_uri.c, the token's reach in test_pkcs11_token.c, a token's
 * key signing in test_key.c; t/tool/12-pkcs11.t loads real token keys.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

#include "tests.h"
#include "tack_pkcs11.h"

START_TEST(pkcs11_load_refuses_bad_arguments_before_the_provider)
{
    char err[TACK_PKCS11_ERR_SIZE];
    EVP_PKEY *key = NULL;

    ck_assert_status(
        tack_pkcs11_load("key.pem", "1234", 4, &key, err, sizeof(err)),
        TACK_ERR_INVALID_ARG);
    ck_assert_str_eq(err, "not a pkcs11: URI");
    ck_assert_status(tack_pkcs11_load("pkcs11:object=k",
                                      "12\0"
                                      "4",
                                      4, &key, err, sizeof(err)),
                     TACK_ERR_INVALID_ARG);
    ck_assert_str_eq(err, "the PIN has a NUL byte in it");
    ck_assert_status(
        tack_pkcs11_load("pkcs11:object=k", NULL, 0, NULL, err, sizeof(err)),
        TACK_ERR_INVALID_ARG);
    ck_assert_ptr_null(key);
    ck_assert_int_eq(ERR_peek_error(), 0);
}
END_TEST

/* Issue 36, item 7: pkcs11-provider loads the module PKCS11_PROVIDER_MODULE
 * names in place of the one it is given; the core unsets it, and hands its
 * value to the caller's warning. */
START_TEST(pkcs11_env_module_is_unset_and_its_value_given)
{
    char value[16];

    setenv(TACK_PKCS11_ENV_MODULE, "/opt/other/libother-pkcs11.so", 1);
    ck_assert_int_eq(tack_pkcs11_env_module(value, sizeof(value)), 1);
    ck_assert_str_eq(value, "/opt/other/libo"); /* cut, NUL-terminated */
    ck_assert_ptr_null(getenv(TACK_PKCS11_ENV_MODULE));
    ck_assert_int_eq(tack_pkcs11_env_module(value, sizeof(value)), 0);
    setenv(TACK_PKCS11_ENV_MODULE, "", 1); /* the provider ignores it */
    ck_assert_int_eq(tack_pkcs11_env_module(value, sizeof(value)), 0);
    ck_assert_ptr_null(getenv(TACK_PKCS11_ENV_MODULE));
    /* a load unsets it even when its caller did not ask */
    setenv(TACK_PKCS11_ENV_MODULE, "/nonexistent/libnone.so", 1);
    {
        char err[TACK_PKCS11_ERR_SIZE];
        EVP_PKEY *key = NULL;

        tack_pkcs11_load_public("pkcs11:token=t;object=k?module-path="
                                "/nonexistent/libnone.so",
                                &key, err, sizeof(err));
        ck_assert_ptr_null(key);
    }
    ck_assert_ptr_null(getenv(TACK_PKCS11_ENV_MODULE));
}
END_TEST

Suite *pkcs11_suite(void)
{
    Suite *s = suite_create("pkcs11");
    TCase *tc = tcase_create("load");

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_test(tc, pkcs11_load_refuses_bad_arguments_before_the_provider);
    tcase_add_test(tc, pkcs11_env_module_is_unset_and_its_value_given);
    suite_add_tcase(s, tc);
    return s;
}
