/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_pkcs11.c -- keys whose private scalar cannot be read (a PKCS#11
 * token's), without a token: an EC_KEY whose EC_KEY_METHOD signs with a
 * hidden key, as libp11 does, sign TACKs and break signatures that verify,
 * and one that signs with the wrong key is refused.  The URI helpers of
 * tack_pkcs11.h; the library context a token's key signs in, as
 * tack_pkcs11.c records it (tack_key_libctx_add).  t/tool/12-pkcs11.t
 * loads real token keys.
 *
 * EC_KEY_METHOD is deprecated in OpenSSL 3.0 but is what engines use, so
 * this file alone silences the deprecation.
 */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/provider.h>

#include "tests.h"
#include "tack_key.h"
#include "tack_ext.h"
#include "tack_pkcs11.h"

/* The key the method signs with; each test runs in its own process. */
static EVP_PKEY *tt_hidden;

static ECDSA_SIG *tt_hidden_sign_sig(const unsigned char *dgst, int dgst_len,
                                     const BIGNUM *kinv, const BIGNUM *r,
                                     EC_KEY *eckey)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(tt_hidden, NULL);
    unsigned char der[80];
    size_t der_len = sizeof(der);
    const unsigned char *p = der;
    ECDSA_SIG *sig = NULL;

    if (ctx != NULL && EVP_PKEY_sign_init(ctx) == 1 &&
        EVP_PKEY_sign(ctx, der, &der_len, dgst, (size_t)dgst_len) == 1) {
        sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
    }
    EVP_PKEY_CTX_free(ctx);
    return sig;
}

static int tt_hidden_sign(int type, const unsigned char *dgst, int dlen,
                          unsigned char *out, unsigned int *out_len,
                          const BIGNUM *kinv, const BIGNUM *r, EC_KEY *eckey)
{
    ECDSA_SIG *sig = tt_hidden_sign_sig(dgst, dlen, kinv, r, eckey);
    int n = sig != NULL ? i2d_ECDSA_SIG(sig, &out) : 0;

    ECDSA_SIG_free(sig);
    *out_len = n > 0 ? (unsigned)n : 0;
    return n > 0;
}

/* tt_token_like_key returns a P-256 key whose public point is |pub_of|'s
 * and which holds no private scalar: its signatures come from |signer|. */
static EVP_PKEY *tt_token_like_key(EVP_PKEY *pub_of, EVP_PKEY *signer)
{
    static EC_KEY_METHOD *meth;
    uint8_t xy[TACK_KEY_LEN], oct[1 + TACK_KEY_LEN];
    EC_KEY *ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    EVP_PKEY *key = EVP_PKEY_new();

    if (meth == NULL) {
        meth = EC_KEY_METHOD_new(EC_KEY_get_default_method());
        ck_assert_ptr_nonnull(meth);
        EC_KEY_METHOD_set_sign(meth, tt_hidden_sign, NULL, tt_hidden_sign_sig);
    }
    tt_hidden = signer;
    tt_raw_public(pub_of, xy);
    oct[0] = 0x04;
    memcpy(oct + 1, xy, TACK_KEY_LEN);
    ck_assert_ptr_nonnull(ec);
    ck_assert_ptr_nonnull(key);
    ck_assert_int_eq(EC_KEY_oct2key(ec, oct, sizeof(oct), NULL), 1);
    ck_assert_int_eq(EC_KEY_set_method(ec, meth), 1);
    ck_assert_int_eq(EVP_PKEY_assign_EC_KEY(key, ec), 1);
    return key;
}

START_TEST(pkcs11_key_without_scalar_signs_a_tack_that_verifies)
{
    EVP_PKEY *real = NULL, *token;
    uint8_t priv[TACK_PRIV_LEN], want[TACK_KEY_LEN];
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    tack_breaksig_t sig;

    ck_assert_status(tack_key_generate(&real), TACK_OK);
    token = tt_token_like_key(real, real);
    /* Nothing to read: the scalar is not in the key. */
    ck_assert_status(tack_key_private(token, priv), TACK_ERR_BAD_KEY);
    ck_assert_status(tack_key_check_signing(token), TACK_OK);
    ck_assert_status(tack_sign(&tack, token), TACK_OK);
    tt_raw_public(real, want);
    ck_assert_mem_eq(tack.public_key, want, TACK_KEY_LEN);
    ck_assert_status(tack_verify(&tack), TACK_OK);
    ck_assert_status(tack_breaksig_create(&sig, token), TACK_OK);
    ck_assert_status(tack_breaksig_verify(&sig), TACK_OK);
    ck_assert_int_eq(ERR_peek_error(), 0);
    EVP_PKEY_free(token);
    EVP_PKEY_free(real);
}
END_TEST

START_TEST(pkcs11_key_signing_with_another_key_is_a_mismatch)
{
    EVP_PKEY *shown = NULL, *other = NULL, *token;
    tack_t tack = tt_load_tack("draft00/TACK1.pem", 0);
    tack_breaksig_t sig;

    /* A token whose public object is not its private key's. */
    ck_assert_status(tack_key_generate(&shown), TACK_OK);
    ck_assert_status(tack_key_generate(&other), TACK_OK);
    token = tt_token_like_key(shown, other);
    ck_assert_status(tack_key_check_signing(token), TACK_ERR_KEY_MISMATCH);
    ck_assert_status(tack_sign(&tack, token), TACK_ERR_KEY_MISMATCH);
    ck_assert_status(tack_breaksig_create(&sig, token), TACK_ERR_KEY_MISMATCH);
    EVP_PKEY_free(token);
    EVP_PKEY_free(other);
    EVP_PKEY_free(shown);
}
END_TEST

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

/* p11-kit's client module (Debian: p11-kit-modules), the remote token of
 * docs/hosting-guide.md.  Its failures are told before the provider is
 * loaded: these tests need neither the provider nor a token. */

/* tt_client_path writes where p11-kit-client.so is: "pkcs11/" beside
 * p11-kit's proxy, in the architecture's library directory. */
static void tt_client_path(char *out, size_t out_size)
{
    void *lib = dlopen("p11-kit-proxy.so", RTLD_LAZY | RTLD_LOCAL);
    struct link_map *map = NULL;
    const char *slash;

    ck_assert_msg(lib != NULL && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 &&
                      map != NULL &&
                      (slash = strrchr(map->l_name, '/')) != NULL,
                  "p11-kit-proxy.so cannot be loaded: run make deps "
                  "(p11-kit-modules)");
    snprintf(out, out_size, "%.*s/pkcs11/p11-kit-client.so",
             (int)(slash - map->l_name), map->l_name);
    dlclose(lib);
    ck_assert_msg(access(out, R_OK) == 0,
                  "%s is not installed: run make deps (p11-kit-modules)", out);
}

/* tt_client_load loads a key through p11-kit's client with
 * P11_KIT_SERVER_ADDRESS set to |address| (unset when NULL); returns the
 * status, the reason in |err|. */
static tack_status_t tt_client_load(const char *address, char *err,
                                    size_t err_len)
{
    char client[512], uri[600];
    EVP_PKEY *key = NULL;
    tack_status_t st;

    tt_client_path(client, sizeof(client));
    if (address != NULL) {
        ck_assert_int_eq(setenv("P11_KIT_SERVER_ADDRESS", address, 1), 0);
    } else {
        ck_assert_int_eq(unsetenv("P11_KIT_SERVER_ADDRESS"), 0);
    }
    snprintf(uri, sizeof(uri),
             "pkcs11:token=t;object=k;type=private?module-path=%s", client);
    st = tack_pkcs11_load(uri, "1234", 4, &key, err, err_len);
    ck_assert_ptr_null(key);
    ck_assert_int_eq(ERR_peek_error(), 0);
    return st;
}

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

START_TEST(pkcs11_load_says_the_p11_kit_server_cannot_be_reached)
{
    char dir[] = "/tmp/tack-p11-XXXXXX", address[256], want[512];
    char err[TACK_PKCS11_ERR_SIZE];
    struct sockaddr_un sa;
    pid_t pid;
    int fd;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    /* No socket at the address. */
    snprintf(address, sizeof(address), "unix:path=%s/none.sock", dir);
    ck_assert_status(tt_client_load(address, err, sizeof(err)),
                     TACK_ERR_TOKEN_UNREACHABLE);
    snprintf(want, sizeof(want),
             "cannot connect to the token: no p11-kit server at "
             "P11_KIT_SERVER_ADDRESS=%s: No such file or directory",
             address);
    ck_assert_str_eq(err, want);
    /* A socket nobody listens on: the server died without removing it. */
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/dead.sock", dir);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    snprintf(address, sizeof(address), "unix:path=%s", sa.sun_path);
    ck_assert_status(tt_client_load(address, err, sizeof(err)),
                     TACK_ERR_TOKEN_UNREACHABLE);
    snprintf(want, sizeof(want),
             "cannot connect to the token: no p11-kit server at "
             "P11_KIT_SERVER_ADDRESS=%s: Connection refused",
             address);
    ck_assert_str_eq(err, want);
    /* A socket that accepts and closes at once, as ssh -L does when the
     * far end has no server: the client's C_Initialize fails. */
    ck_assert_int_eq(listen(fd, 4), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(10);
        for (;;) {
            int c = accept(fd, NULL, NULL);

            if (c >= 0) {
                close(c);
            }
        }
    }
    ck_assert_status(tt_client_load(address, err, sizeof(err)),
                     TACK_ERR_TOKEN_UNREACHABLE);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    snprintf(want, sizeof(want),
             "cannot connect to the token: C_Initialize: CKR_DEVICE_ERROR "
             "(from the p11-kit server at %s)",
             address);
    ck_assert_str_eq(err, want);
    close(fd);
    unlink(sa.sun_path);
    /* No address: the client's default, under XDG_RUNTIME_DIR. */
    ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", dir, 1), 0);
    ck_assert_status(tt_client_load(NULL, err, sizeof(err)),
                     TACK_ERR_TOKEN_UNREACHABLE);
    snprintf(want, sizeof(want),
             "cannot connect to the token: no p11-kit server at "
             "%s/p11-kit/pkcs11: No such file or directory (the client's "
             "default: P11_KIT_SERVER_ADDRESS is not set)",
             dir);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(rmdir(dir), 0);
    ck_assert_str_eq(tack_status_str(TACK_ERR_TOKEN_UNREACHABLE),
                     "cannot connect to the PKCS#11 token");
}
END_TEST

/* p11-kit 0.24's client crashes in C_Initialize on an address that is not
 * unix:path=/... or vsock:...: refused before the module is initialised. */
START_TEST(pkcs11_load_refuses_an_address_p11_kit_client_crashes_on)
{
    static const char *const bad[] = {"nowhere", "unix:path=", "unix:/s",
                                      "tcp:127.0.0.1:1"};
    char err[TACK_PKCS11_ERR_SIZE], want[512];
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_status(tt_client_load(bad[i], err, sizeof(err)),
                         TACK_ERR_TOKEN_UNREACHABLE);
        snprintf(want, sizeof(want),
                 "cannot connect to the token: P11_KIT_SERVER_ADDRESS=%s is "
                 "not an address of p11-kit server (unix:path=/SOCKET, as "
                 "p11-kit server prints it)",
                 bad[i]);
        ck_assert_str_eq(err, want);
    }
}
END_TEST

START_TEST(key_libctx_is_null_for_keys_not_from_a_token)
{
    EVP_PKEY *key = NULL;

    ck_assert_status(tack_key_generate(&key), TACK_OK);
    ck_assert_ptr_null(tack_key_libctx(key));
    ck_assert_ptr_null(tack_key_libctx(NULL));
    EVP_PKEY_free(key);
}
END_TEST

/* A key of a provider loaded into a library context of its own (as
 * tack_pkcs11.c loads the token's): once that context is recorded, the
 * key's context is found and the key signs a TACK that verifies; a
 * provider of the default context is not taken for it. */
START_TEST(key_libctx_found_for_a_recorded_context)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = NULL;
    const OSSL_PROVIDER *provs[1];
    EVP_PKEY *key = NULL, *plain = NULL;
    tack_t tack;

    ck_assert_ptr_nonnull(libctx);
    prov = OSSL_PROVIDER_load(libctx, "default");
    ck_assert_ptr_nonnull(prov);
    key = EVP_PKEY_Q_keygen(libctx, NULL, "EC", "P-256");
    ck_assert_ptr_nonnull(key);
    ck_assert_ptr_null(tack_key_libctx(key));
    provs[0] = prov;
    ck_assert_status(tack_key_libctx_add(libctx, provs, 0),
                     TACK_ERR_INVALID_ARG);
    ck_assert_status(tack_key_libctx_add(libctx, provs, 1), TACK_OK);
    ck_assert_ptr_eq(tack_key_libctx(key), libctx);
    ck_assert_status(tack_key_generate(&plain), TACK_OK);
    ck_assert_ptr_null(tack_key_libctx(plain));

    memset(&tack, 0, sizeof(tack));
    tack.expiration = 0xffffffff;
    ck_assert_status(tack_sign(&tack, key), TACK_OK);
    ck_assert_status(tack_verify(&tack), TACK_OK);
    /* Recorded for the life of the process: neither is freed. */
    EVP_PKEY_free(plain);
    EVP_PKEY_free(key);
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

Suite *pkcs11_suite(void)
{
    Suite *s = suite_create("pkcs11");
    TCase *tc = tcase_create("pkcs11");
    TCase *pin = tcase_create("pin_source");

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_test(tc, pkcs11_key_without_scalar_signs_a_tack_that_verifies);
    tcase_add_test(tc, pkcs11_key_signing_with_another_key_is_a_mismatch);
    tcase_add_test(tc, pkcs11_key_is_uri_wants_the_pkcs11_scheme);
    tcase_add_test(tc, pkcs11_uri_has_pin_finds_pin_value_and_pin_source);
    tcase_add_test(tc, pkcs11_load_refuses_bad_arguments_before_the_provider);
    tcase_add_test(tc, pkcs11_uri_check_takes_rfc7512_uris);
    tcase_add_test(tc, pkcs11_uri_check_says_where_a_misplaced_attribute_goes);
    tcase_add_test(tc, pkcs11_uri_check_names_what_it_refuses);
    tcase_add_test(tc, pkcs11_uri_check_truncations_never_overrun);
    tcase_add_test(tc, key_libctx_is_null_for_keys_not_from_a_token);
    tcase_add_test(tc, key_libctx_found_for_a_recorded_context);
    tcase_add_test(tc, pkcs11_load_names_a_module_that_cannot_be_loaded);
    tcase_add_test(tc, pkcs11_env_module_is_unset_and_its_value_given);
    tcase_add_test(tc, pkcs11_load_says_the_p11_kit_server_cannot_be_reached);
    tcase_add_test(tc,
                   pkcs11_load_refuses_an_address_p11_kit_client_crashes_on);
    suite_add_tcase(s, tc);

    /* A FIFO that blocks is a timeout, not a wait of TT_TIMEOUT. */
    tcase_set_timeout(pin, 10);
    tcase_add_test(pin, pkcs11_pin_source_is_never_a_fifo_or_a_pseudo_file);
    suite_add_tcase(s, pin);
    return s;
}
