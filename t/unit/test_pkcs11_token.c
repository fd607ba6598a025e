/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_pkcs11_token.c -- tack_pkcs11_token.c: the PKCS#11 module asked
 * directly, here whether a remote token can be reached at all (p11-kit's
 * client and its server's address), through tack_pkcs11.h
 * (tack_pkcs11_token.h is private to the three pkcs11 files).
 * t/tool/12-pkcs11.t loads real token keys.
 */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/err.h>

#include "tests.h"
#include "tack_pkcs11.h"

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

Suite *pkcs11_token_suite(void)
{
    Suite *s = suite_create("pkcs11_token");
    TCase *tc = tcase_create("reach");

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_test(tc, pkcs11_load_says_the_p11_kit_server_cannot_be_reached);
    tcase_add_test(tc,
                   pkcs11_load_refuses_an_address_p11_kit_client_crashes_on);
    suite_add_tcase(s, tc);
    return s;
}
