/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_pkcs11_uri.c -- tack_pkcs11_uri.c: what an RFC 7512 URI names (the
 * URI checked, the module, a pin-source's PIN), through tack_pkcs11.h
 * (tack_pkcs11_uri.h is private to the three pkcs11 files): every reason
 * is given before a provider or a token is touched.  t/tool/12-pkcs11.t
 * loads real token keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>

#include "tests.h"
#include "tack_pkcs11.h"

START_TEST(pkcs11_key_is_uri_wants_the_pkcs11_scheme)
{
    ck_assert_int_eq(tack_key_is_uri("pkcs11:token=tack;object=k"), 1);
    ck_assert_int_eq(tack_key_is_uri("PKCS11:object=k"), 1);
    ck_assert_int_eq(tack_key_is_uri("pkcs11:"), 1);
    ck_assert_int_eq(tack_key_is_uri("pkcs11"), 0);
    ck_assert_int_eq(tack_key_is_uri("./pkcs11:key.pem"), 0);
    ck_assert_int_eq(tack_key_is_uri("/etc/tack/key.pem"), 0);
    ck_assert_int_eq(tack_key_is_uri(""), 0);
    ck_assert_int_eq(tack_key_is_uri(NULL), 0);
}
END_TEST

START_TEST(pkcs11_uri_has_pin_finds_pin_value_and_pin_source)
{
    ck_assert_int_eq(tack_pkcs11_uri_has_pin("pkcs11:object=k?pin-value=1"), 1);
    ck_assert_int_eq(
        tack_pkcs11_uri_has_pin("pkcs11:object=k?module-path=/m&pin-value=1"),
        1);
    ck_assert_int_eq(
        tack_pkcs11_uri_has_pin("pkcs11:object=k?pin-source=file:/p"), 1);
    ck_assert_int_eq(tack_pkcs11_uri_has_pin("pkcs11:object=k"), 0);
    /* A URI its load refuses needs no PIN asked first. */
    ck_assert_int_eq(tack_pkcs11_uri_has_pin("pkcs11:object=k;pin-value=1"), 1);
    /* An object label is not a query attribute. */
    ck_assert_int_eq(tack_pkcs11_uri_has_pin("pkcs11:object=pin-value=1"), 0);
    ck_assert_int_eq(tack_pkcs11_uri_has_pin("key.pem?pin-value=1"), 0);
}
END_TEST

/* tt_uri_refused asserts that |uri| is refused with |want| as the reason,
 * both by tack_pkcs11_uri_check and by tack_pkcs11_load (before any
 * provider or module is touched). */
static void tt_uri_refused(const char *uri, const char *want)
{
    char err[TACK_PKCS11_ERR_SIZE];
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_pkcs11_uri_check(uri, err, sizeof(err)),
                     TACK_ERR_INVALID_ARG);
    ck_assert_str_eq(err, want);
    ck_assert_status(tack_pkcs11_load(uri, "1234", 4, &key, err, sizeof(err)),
                     TACK_ERR_INVALID_ARG);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(key);
    ck_assert_int_eq(ERR_peek_error(), 0);
}

START_TEST(pkcs11_uri_check_takes_rfc7512_uris)
{
    static const char *const good[] = {
        "pkcs11:",
        "pkcs11:token=tack;object=tackkey;type=private",
        "pkcs11:token=t;object=k?module-path=/usr/lib/softhsm/libsofthsm2.so",
        "pkcs11:object=k?module-name=softhsm2&pin-value=1234",
        "pkcs11:object=k;id=%01%02?pin-source=file:/etc/pin",
        "pkcs11:token=My%20Token;manufacturer=SoftHSM%20project;serial=1;"
        "model=SoftHSM%20v2;library-manufacturer=x;library-description=y;"
        "library-version=2.6;slot-description=s;slot-manufacturer=m;"
        "slot-id=1;object=k;type=public",
        "pkcs11:object=k;x-vendor=1?x-other=2",
        "PKCS11:object=k",
    };
    char err[TACK_PKCS11_ERR_SIZE];
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        ck_assert_msg(tack_pkcs11_uri_check(good[i], err, sizeof(err)) ==
                          TACK_OK,
                      "%s: %s", good[i], err);
        ck_assert_str_eq(err, "");
    }
}
END_TEST

START_TEST(pkcs11_uri_check_says_where_a_misplaced_attribute_goes)
{
    tt_uri_refused("pkcs11:token=t;object=k;module-path=/m.so",
                   "module-path belongs in the query: "
                   "pkcs11:token=t;object=k?module-path=/m.so");
    tt_uri_refused("pkcs11:module-name=softhsm2;object=k?pin-value=1",
                   "module-name belongs in the query: "
                   "pkcs11:object=k?module-name=softhsm2&pin-value=***");
    /* The PIN is never in a message. */
    tt_uri_refused("pkcs11:object=k;pin-value=1234",
                   "pin-value belongs in the query: "
                   "pkcs11:object=k?pin-value=***");
    tt_uri_refused("pkcs11:object=k;pin-source=file:/p",
                   "pin-source belongs in the query: "
                   "pkcs11:object=k?pin-source=file:/p");
    tt_uri_refused("pkcs11:token=t?object=k&module-path=/m.so",
                   "object belongs in the path: "
                   "pkcs11:token=t;object=k?module-path=/m.so");
}
END_TEST

START_TEST(pkcs11_uri_check_names_what_it_refuses)
{
    tt_uri_refused("pkcs11:token=t;objekt=k",
                   "unknown attribute \"objekt\" (RFC 7512: token, object, "
                   "type, id, manufacturer, model, serial, slot-id, ...; "
                   "after \"?\": module-path, module-name, pin-value, "
                   "pin-source)");
    tt_uri_refused("pkcs11:object=k?modulepath=/m.so",
                   "unknown attribute \"modulepath\" (RFC 7512: token, "
                   "object, type, id, manufacturer, model, serial, slot-id, "
                   "...; after \"?\": module-path, module-name, pin-value, "
                   "pin-source)");
    tt_uri_refused("pkcs11:object=k;object=l",
                   "attribute \"object\" given twice");
    tt_uri_refused("pkcs11:object=k?pin-value=1&pin-value=2",
                   "attribute \"pin-value\" given twice");
    tt_uri_refused("pkcs11:token;object=k",
                   "\"token\" is not an attribute (RFC 7512: name=value)");
    tt_uri_refused("pkcs11:=t", "\"=t\" is not an attribute (RFC 7512: "
                                "name=value)");
    tt_uri_refused("pkcs11:object=%4",
                   "object: a bad percent-escape, an escaped NUL, or too "
                   "long");
    tt_uri_refused("pkcs11:object=a%00b",
                   "object: a bad percent-escape, an escaped NUL, or too "
                   "long");
    tt_uri_refused("pkcs11:object=k;type=secret",
                   "type=secret: RFC 7512's types are public, private, "
                   "cert, secret-key and data");
    tt_uri_refused("key.pem", "not a pkcs11: URI");
}
END_TEST

START_TEST(pkcs11_uri_check_truncations_never_overrun)
{
    static const char uri[] =
        "pkcs11:token=My%20Token;object=k;id=%01?module-path=/m.so&"
        "pin-value=1234";
    char buf[sizeof(uri)], err[TACK_PKCS11_ERR_SIZE];
    size_t n;

    /* Every prefix parses or is refused with a reason; none crashes. */
    for (n = 0; n < sizeof(uri); n++) {
        tack_status_t st;

        memcpy(buf, uri, n);
        buf[n] = '\0';
        st = tack_pkcs11_uri_check(buf, err, sizeof(err));
        ck_assert(st == TACK_OK || (st == TACK_ERR_INVALID_ARG && err[0]));
        ck_assert_ptr_null(strstr(err, "1234"));
    }
    /* A small |err| is truncated, still NUL-terminated. */
    ck_assert_status(tack_pkcs11_uri_check("pkcs11:bogus=1", err, 8),
                     TACK_ERR_INVALID_ARG);
    ck_assert_str_eq(err, "unknown");
}
END_TEST

START_TEST(pkcs11_load_names_a_module_that_cannot_be_loaded)
{
    char err[TACK_PKCS11_ERR_SIZE];
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_pkcs11_load("pkcs11:token=t;object=k?module-path="
                                      "/nonexistent/libnone.so",
                                      "1234", 4, &key, err, sizeof(err)),
                     TACK_ERR_TOKEN);
    ck_assert_msg(strncmp(err, "cannot load the PKCS#11 module: ", 32) == 0,
                  "%s", err);
    ck_assert_ptr_null(key);
}
END_TEST

/* pin-source is read as a TackFile is (tack_file_read): before, a FIFO
 * there blocked the signer (and the tool) in open() for good, and
 * /proc/kmsg was read. */
START_TEST(pkcs11_pin_source_is_never_a_fifo_or_a_pseudo_file)
{
    char dir[] = "/tmp/tack-pin-XXXXXX", fifo[64], longpin[64], uri[128],
         err[TACK_PKCS11_ERR_SIZE], want[256], big[400];
    EVP_PKEY *key = NULL;
    FILE *f;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(fifo, sizeof(fifo), "%s/pin", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    snprintf(uri, sizeof(uri), "pkcs11:object=k?pin-source=file:%s", fifo);
    ck_assert_status(tack_pkcs11_load(uri, NULL, 0, &key, err, sizeof(err)),
                     TACK_ERR_TOKEN);
    snprintf(want, sizeof(want), "pin-source %s: not a regular file", fifo);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(key);

    if (access("/proc/kmsg", F_OK) == 0) {
        ck_assert_status(tack_pkcs11_load("pkcs11:object=k?pin-source="
                                          "/proc/kmsg",
                                          NULL, 0, &key, err, sizeof(err)),
                         TACK_ERR_TOKEN);
        snprintf(want, sizeof(want), "pin-source /proc/kmsg: %s",
                 tack_status_str(TACK_ERR_PSEUDO_FILE));
        ck_assert_str_eq(err, want);
    }

    snprintf(longpin, sizeof(longpin), "%s/long", dir);
    memset(big, '1', sizeof(big));
    ck_assert_ptr_nonnull(f = fopen(longpin, "w"));
    ck_assert_uint_eq(fwrite(big, 1, sizeof(big), f), sizeof(big));
    fclose(f);
    snprintf(uri, sizeof(uri), "pkcs11:object=k?pin-source=%s", longpin);
    ck_assert_status(tack_pkcs11_load(uri, NULL, 0, &key, err, sizeof(err)),
                     TACK_ERR_TOKEN);
    snprintf(want, sizeof(want), "pin-source %s: longer than 254 bytes",
             longpin);
    ck_assert_str_eq(err, want);
    unlink(longpin);
    unlink(fifo);
    rmdir(dir);
}
END_TEST

Suite *pkcs11_uri_suite(void)
{
    Suite *s = suite_create("pkcs11_uri");
    TCase *tc = tcase_create("uri");
    TCase *pin = tcase_create("pin_source");

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_test(tc, pkcs11_key_is_uri_wants_the_pkcs11_scheme);
    tcase_add_test(tc, pkcs11_uri_has_pin_finds_pin_value_and_pin_source);
    tcase_add_test(tc, pkcs11_uri_check_takes_rfc7512_uris);
    tcase_add_test(tc, pkcs11_uri_check_says_where_a_misplaced_attribute_goes);
    tcase_add_test(tc, pkcs11_uri_check_names_what_it_refuses);
    tcase_add_test(tc, pkcs11_uri_check_truncations_never_overrun);
    tcase_add_test(tc, pkcs11_load_names_a_module_that_cannot_be_loaded);
    suite_add_tcase(s, tc);

    /* A FIFO that blocks is a timeout, not a wait of TT_TIMEOUT. */
    tcase_set_timeout(pin, 10);
    tcase_add_test(pin, pkcs11_pin_source_is_never_a_fifo_or_a_pseudo_file);
    suite_add_tcase(s, pin);
    return s;
}
