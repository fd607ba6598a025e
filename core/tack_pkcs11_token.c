/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pkcs11_token.c -- the PKCS#11 module asked directly (PKCS#11
 * v2.40), for tack_pkcs11.c: the token probe, and reaching the token.
 * See tack_pkcs11_token.h.
 *
 * The store finds nothing both for a token that is not there and for a key
 * that is not in the token.  To tell the user which, a failed load asks the
 * PKCS#11 module itself for its tokens' labels (PKCS#11 v2.40
 * C_GetSlotList / C_GetTokenInfo), through the few declarations below: the
 * core needs no PKCS#11 header.
 */
#include "tack_pkcs11_token.h"
#include "tack_pkcs11_uri.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* ---- The token probe (PKCS#11 v2.40, section 5) ------------------------ */

/* The leading members of CK_FUNCTION_LIST and the whole CK_TOKEN_INFO, as
 * every Unix module lays them out (natural alignment, no packing). */
typedef struct {
    unsigned char major, minor;
} tack_ck_version;
typedef struct {
    unsigned char label[32];
    unsigned char manufacturer_id[32];
    unsigned char model[16];
    unsigned char serial_number[16];
    tack_ck_ulong flags;
    tack_ck_ulong counts[10]; /* session counts, PIN lengths, memory */
    tack_ck_version hardware_version, firmware_version;
    unsigned char utc_time[16];
} tack_ck_token_info;
typedef struct {
    tack_ck_ulong slot, state, flags, device_error;
} tack_ck_session_info;
typedef struct {
    tack_ck_version cryptoki_version;
    unsigned char manufacturer_id[32];
    tack_ck_ulong flags;
    unsigned char library_description[32];
    tack_ck_version library_version;
} tack_ck_info;
typedef struct {
    tack_ck_version version;
    tack_ck_ulong (*initialize)(void *args);
    tack_ck_ulong (*finalize)(void *reserved);
    tack_ck_ulong (*get_info)(tack_ck_info *info);
    tack_ck_ulong (*get_function_list)(void *list);
    tack_ck_ulong (*get_slot_list)(unsigned char token_present,
                                   tack_ck_ulong *slots, tack_ck_ulong *count);
    tack_ck_ulong (*get_slot_info)(tack_ck_ulong slot, void *info);
    tack_ck_ulong (*get_token_info)(tack_ck_ulong slot,
                                    tack_ck_token_info *info);
    void *get_mechanism_list, *get_mechanism_info, *init_token, *init_pin,
        *set_pin;
    tack_ck_ulong (*open_session)(tack_ck_ulong slot, tack_ck_ulong flags,
                                  void *app, void *notify,
                                  tack_ck_ulong *session);
    tack_ck_ulong (*close_session)(tack_ck_ulong session);
    void *close_all_sessions;
    tack_ck_ulong (*get_session_info)(tack_ck_ulong session,
                                      tack_ck_session_info *info);
    void *get_operation_state, *set_operation_state;
    tack_ck_ulong (*login)(tack_ck_ulong session, tack_ck_ulong user_type,
                           const unsigned char *pin, tack_ck_ulong pin_len);
    tack_ck_ulong (*logout)(tack_ck_ulong session);
} tack_ck_functions;
#define TACK_CKR_OK 0x0UL
#define TACK_CKR_ALREADY_INITIALIZED 0x191UL
#define TACK_CKR_USER_ALREADY_LOGGED_IN 0x100UL
#define TACK_CKF_LOGIN_REQUIRED 0x4UL
#define TACK_CKF_PROTECTED_AUTHENTICATION_PATH 0x100UL
#define TACK_CKF_TOKEN_INITIALIZED 0x400UL
#define TACK_CKF_USER_PIN_FINAL_TRY 0x20000UL
#define TACK_CKF_USER_PIN_LOCKED 0x40000UL
#define TACK_CKU_USER 1UL
#define TACK_CKF_SERIAL_SESSION 0x4UL
#define TACK_CKS_RO_USER_FUNCTIONS 1UL
#define TACK_CKS_RW_USER_FUNCTIONS 3UL
#define TACK_PK11_MAX_SLOTS 64

/* tack_pk11_label copies a blank-padded 32-byte label into |out| (33
 * bytes), without the padding. */
static void tack_pk11_label(const unsigned char in[32], char out[33])
{
    size_t n = 32;

    while (n > 0 && in[n - 1] == ' ') {
        n--;
    }
    memcpy(out, in, n);
    out[n] = '\0';
}

/* tack_pk11_login_state says whether this process is logged in to the
 * token in |slot| (the state is the application's, shared by every
 * session, the provider's included): TACK_PK11_LOGGED_IN or
 * TACK_PK11_LOGGED_OUT, TACK_PK11_LOCKED when the token says its PIN is
 * locked, TACK_PK11_UNKNOWN.  It never logs in: a PIN tried here would
 * count against the token's retry limit. */
static int tack_pk11_login_state(tack_ck_functions *f, tack_ck_ulong slot,
                                 const tack_ck_token_info *info)
{
    tack_ck_session_info si;
    tack_ck_ulong session;
    int state = TACK_PK11_UNKNOWN;

    if (info->flags & TACK_CKF_USER_PIN_LOCKED) {
        return TACK_PK11_LOCKED;
    }
    if (f->open_session(slot, TACK_CKF_SERIAL_SESSION, NULL, NULL, &session) !=
        TACK_CKR_OK) {
        return TACK_PK11_UNKNOWN;
    }
    if (f->get_session_info(session, &si) == TACK_CKR_OK) {
        state = si.state == TACK_CKS_RO_USER_FUNCTIONS ||
                        si.state == TACK_CKS_RW_USER_FUNCTIONS
                    ? TACK_PK11_LOGGED_IN
                    : TACK_PK11_LOGGED_OUT;
    }
    f->close_session(session);
    return state;
}

int tack_pk11_list_tokens(const char *module, const char *label, char *names,
                          size_t names_size, int *login)
{
    tack_ck_ulong (*get_list)(tack_ck_functions **);
    tack_ck_functions *f = NULL;
    tack_ck_ulong slots[TACK_PK11_MAX_SLOTS], n = TACK_PK11_MAX_SLOTS, i, rv;
    void *lib = dlopen(module, RTLD_NOW | RTLD_LOCAL);
    int found = -1;

    names[0] = '\0';
    if (login != NULL) {
        *login = TACK_PK11_UNKNOWN;
    }
    if (lib == NULL) {
        return -1;
    }
    *(void **)&get_list = dlsym(lib, "C_GetFunctionList");
    if (get_list == NULL || get_list(&f) != TACK_CKR_OK || f == NULL) {
        dlclose(lib);
        return -1;
    }
    /* The provider may hold the module initialised in this process; then
     * it is not ours to finalise. */
    rv = f->initialize(NULL);
    if ((rv == TACK_CKR_OK || rv == TACK_CKR_ALREADY_INITIALIZED) &&
        f->get_slot_list(1, slots, &n) == TACK_CKR_OK) {
        found = 0;
        for (i = 0; i < n && i < TACK_PK11_MAX_SLOTS; i++) {
            tack_ck_token_info info;
            char name[33];
            size_t used = strlen(names);

            /* SoftHSM2 always shows one free, uninitialised token. */
            if (f->get_token_info(slots[i], &info) != TACK_CKR_OK ||
                !(info.flags & TACK_CKF_TOKEN_INITIALIZED)) {
                continue;
            }
            tack_pk11_label(info.label, name);
            if (strcmp(name, label) == 0 && !found && login != NULL) {
                *login = tack_pk11_login_state(f, slots[i], &info);
            }
            found |= strcmp(name, label) == 0;
            snprintf(names + used, names_size - used, "%s\"%s\"",
                     used ? ", " : "", name);
        }
    }
    if (rv == TACK_CKR_OK) {
        f->finalize(NULL);
    }
    dlclose(lib);
    return found;
}

tack_status_t tack_pk11_not_found(const tack_pk11_uri_t *u, const char *module,
                                  const char *kind, char *err, size_t err_len)
{
    const char *object = u->has_object ? u->object : "(any)";
    char names[256];
    int in_list;

    if (!u->has_token) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no %s key object=\"%s\" in any token", kind,
                              object);
    }
    in_list =
        tack_pk11_list_tokens(module, u->token, names, sizeof(names), NULL);
    if (in_list == 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no token \"%s\" (tokens present: %s)", u->token,
                              names[0] ? names : "none");
    }
    if (in_list < 0) {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "no token \"%s\", or no %s key "
                              "object=\"%s\" in it",
                              u->token, kind, object);
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                          "no %s key object=\"%s\" in token \"%s\"", kind,
                          object, u->token);
}

/* ---- Reaching the token (PKCS#11 v2.40, section 5.4 to 5.6) ---------- */

/* The PKCS#11 return values a failure is named by, and their class: 'c'
 * the token cannot be reached (a device or transport error), 'p' the
 * token refused the PIN. */
static const struct {
    tack_ck_ulong rv;
    const char *name;
    char class;
} tack_pk11_ckrs[] = {
    {0x02UL, "CKR_HOST_MEMORY", 0},
    {0x03UL, "CKR_SLOT_ID_INVALID", 'c'},
    {0x05UL, "CKR_GENERAL_ERROR", 'c'},
    {0x06UL, "CKR_FUNCTION_FAILED", 'c'},
    {0x07UL, "CKR_ARGUMENTS_BAD", 0},
    {0x0AUL, "CKR_CANT_LOCK", 0},
    {0x30UL, "CKR_DEVICE_ERROR", 'c'},
    {0x31UL, "CKR_DEVICE_MEMORY", 'c'},
    {0x32UL, "CKR_DEVICE_REMOVED", 'c'},
    {0xA0UL, "CKR_PIN_INCORRECT", 'p'},
    {0xA1UL, "CKR_PIN_INVALID", 'p'},
    {0xA2UL, "CKR_PIN_LEN_RANGE", 'p'},
    {0xA3UL, "CKR_PIN_EXPIRED", 'p'},
    {0xA4UL, "CKR_PIN_LOCKED", 'p'},
    {0xB1UL, "CKR_SESSION_COUNT", 0},
    {0xE0UL, "CKR_TOKEN_NOT_PRESENT", 'c'},
    {0xE1UL, "CKR_TOKEN_NOT_RECOGNIZED", 'c'},
    {0x101UL, "CKR_USER_NOT_LOGGED_IN", 0},
    {0x102UL, "CKR_USER_PIN_NOT_INITIALIZED", 'p'},
    {0x103UL, "CKR_USER_TYPE_INVALID", 0},
    {0x104UL, "CKR_USER_ANOTHER_ALREADY_LOGGED_IN", 0},
    {0x190UL, "CKR_CRYPTOKI_NOT_INITIALIZED", 0},
};

/* tack_pk11_ckr_name writes |rv|'s name ("CKR_PIN_INCORRECT", or
 * "CKR 0x1234" for one not listed) to |out| and returns its class. */
static char tack_pk11_ckr_name(tack_ck_ulong rv, char *out, size_t out_size)
{
    size_t i;

    for (i = 0; i < sizeof(tack_pk11_ckrs) / sizeof(tack_pk11_ckrs[0]); i++) {
        if (tack_pk11_ckrs[i].rv == rv) {
            snprintf(out, out_size, "%s", tack_pk11_ckrs[i].name);
            return tack_pk11_ckrs[i].class;
        }
    }
    snprintf(out, out_size, "CKR 0x%lx", rv);
    return 0;
}

/* The address p11-kit's client module takes (p11-kit 0.24: "unix:path="
 * and an absolute path, or "vsock:"; it crashes in C_Initialize on any
 * other), and the one it uses when P11_KIT_SERVER_ADDRESS is not set. */
#define TACK_PK11_CLIENT "p11-kit-client.so"
#define TACK_PK11_CLIENT_ENV "P11_KIT_SERVER_ADDRESS"

/* tack_pk11_is_client returns 1 when |module| is p11-kit's client. */
static int tack_pk11_is_client(const char *module)
{
    const char *base = strrchr(module, '/');

    return strcmp(base != NULL ? base + 1 : module, TACK_PK11_CLIENT) == 0;
}

/* tack_pk11_client_address refuses, before the module is initialised, a
 * P11_KIT_SERVER_ADDRESS that p11-kit-client 0.24 would crash on. */
static tack_status_t tack_pk11_client_address(const char *module, char *err,
                                              size_t err_len)
{
    const char *address = getenv(TACK_PK11_CLIENT_ENV);

    if (!tack_pk11_is_client(module) || address == NULL || address[0] == '\0' ||
        strncmp(address, "unix:path=/", 11) == 0 ||
        strncmp(address, "vsock:", 6) == 0) {
        return TACK_OK;
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                          "cannot connect to the token: %s=%.200s is not an "
                          "address of p11-kit server (unix:path=/SOCKET, "
                          "as p11-kit server prints it)",
                          TACK_PK11_CLIENT_ENV, address);
}

/* tack_pk11_no_connection explains a p11-kit client that says it has no
 * connection: the address it tried (P11_KIT_SERVER_ADDRESS, or without
 * it $XDG_RUNTIME_DIR/p11-kit/pkcs11) and what connecting to it gives. */
static tack_status_t tack_pk11_no_connection(char *err, size_t err_len)
{
    const char *address = getenv(TACK_PK11_CLIENT_ENV);
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    struct sockaddr_un sa;
    char path[TACK_PK11_ATTR_SIZE] = "", where[TACK_PK11_ATTR_SIZE];
    const char *why = "the server did not answer", *note = "";
    int fd;

    if (address != NULL && address[0] != '\0') {
        snprintf(where, sizeof(where), "%s=%.200s", TACK_PK11_CLIENT_ENV,
                 address);
        /* p11-kit writes the path percent-encoded (p11_path_encode). */
        if (strncmp(address, "unix:path=", 10) != 0 ||
            !tack_pk11_decode(address + 10, strlen(address + 10), path,
                              sizeof(path))) {
            path[0] = '\0';
        }
    } else if (runtime != NULL && runtime[0] == '/') {
        snprintf(path, sizeof(path), "%.200s/p11-kit/pkcs11", runtime);
        snprintf(where, sizeof(where), "%s", path);
        note = " (the client's default: " TACK_PK11_CLIENT_ENV " is not set)";
    } else {
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                              "cannot connect to the token: %s has no "
                              "p11-kit server (neither %s nor "
                              "XDG_RUNTIME_DIR is set)",
                              TACK_PK11_CLIENT, TACK_PK11_CLIENT_ENV);
    }
    if (path[0] != '\0' && strlen(path) < sizeof(sa.sun_path)) {
        memset(&sa, 0, sizeof(sa));
        sa.sun_family = AF_UNIX;
        memcpy(sa.sun_path, path, strlen(path));
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
            why = strerror(errno);
        }
        if (fd >= 0) {
            close(fd);
        }
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                          "cannot connect to the token: no p11-kit server "
                          "at %s: %s%s",
                          where, why, note);
}

tack_status_t tack_pk11_login_refused(tack_ck_ulong rv, int final, char *err,
                                      size_t err_len)
{
    char name[48];
    const char *what;

    tack_pk11_ckr_name(rv, name, sizeof(name));
    switch (rv) {
    case 0xA0UL: /* CKR_PIN_INCORRECT */
    case 0xA1UL: /* CKR_PIN_INVALID */
    case 0xA2UL: /* CKR_PIN_LEN_RANGE */
        what = "wrong PIN";
        break;
    case 0xA3UL: /* CKR_PIN_EXPIRED */
        what = "the token's PIN has expired: set a new one";
        break;
    case 0xA4UL: /* CKR_PIN_LOCKED */
        what = "the token's PIN is locked";
        break;
    case 0x102UL: /* CKR_USER_PIN_NOT_INITIALIZED */
        what = "the token has no user PIN yet";
        break;
    default:
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "login refused: C_Login: %s", name);
    }
    return tack_pk11_fail(err, err_len, TACK_ERR_WRONG_PASSWORD,
                          "%s (login refused: %s)%s", what, name,
                          final ? "; one more wrong PIN locks the token" : "");
}

tack_status_t tack_pk11_reach(const tack_pk11_uri_t *u, const char *module,
                              const tack_pk11_pin_t *pin, char *err,
                              size_t err_len)
{
    tack_ck_ulong (*get_list)(tack_ck_functions **);
    tack_ck_functions *f = NULL;
    tack_ck_ulong slots[TACK_PK11_MAX_SLOTS], n = TACK_PK11_MAX_SLOTS, i, rv;
    tack_ck_ulong slot = 0, session = 0, mine;
    tack_ck_token_info info;
    tack_ck_info lib_info;
    tack_status_t st = TACK_OK;
    const char *call = NULL;
    char name[48];
    int found = 0, opened = 0, logged_in = 0;
    void *lib;

    if ((st = tack_pk11_client_address(module, err, err_len)) != TACK_OK) {
        return st;
    }
    if ((lib = dlopen(module, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        const char *why = dlerror();

        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "cannot load the PKCS#11 module: %s",
                              why != NULL ? why : module);
    }
    *(void **)&get_list = dlsym(lib, "C_GetFunctionList");
    if (get_list == NULL || get_list(&f) != TACK_CKR_OK || f == NULL) {
        dlclose(lib);
        return tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                              "cannot load the PKCS#11 module: %s has no "
                              "C_GetFunctionList",
                              module);
    }
    /* The provider may hold the module initialised in this process (a
     * key loaded before): then its state is the provider's, not ours to
     * log out or finalise. */
    mine = rv = f->initialize(NULL);
    if (rv != TACK_CKR_OK && rv != TACK_CKR_ALREADY_INITIALIZED) {
        call = "C_Initialize";
    } else if ((rv = f->get_slot_list(1, slots, &n)) != TACK_CKR_OK) {
        call = "C_GetSlotList";
    } else if (n == 0 && f->get_info(&lib_info) == TACK_CKR_OK &&
               memmem(lib_info.library_description,
                      sizeof(lib_info.library_description), "(no connection)",
                      15) != NULL) {
        /* p11-kit's client: C_Initialize succeeds without its server
         * ("p11-kit (no connection)", no slots) */
        st = tack_pk11_no_connection(err, err_len);
    }
    for (i = 0; call == NULL && st == TACK_OK && u->has_token && i < n &&
                i < TACK_PK11_MAX_SLOTS;
         i++) {
        char label[33];

        if ((rv = f->get_token_info(slots[i], &info)) != TACK_CKR_OK) {
            call = "C_GetTokenInfo";
            break;
        }
        tack_pk11_label(info.label, label);
        if (strcmp(label, u->token) == 0) {
            found++;
            slot = slots[i];
        }
    }
    /* One token of that label: open a session, and log in as the provider
     * would.  None (or several): the store's search says which. */
    if (call == NULL && st == TACK_OK && found == 1) {
        (void)f->get_token_info(slot, &info);
        rv = f->open_session(slot, TACK_CKF_SERIAL_SESSION, NULL, NULL,
                             &session);
        if (rv != TACK_CKR_OK) {
            call = "C_OpenSession";
        } else {
            opened = 1;
        }
        if (opened && pin->pin != NULL &&
            (info.flags & TACK_CKF_LOGIN_REQUIRED) &&
            !(info.flags & TACK_CKF_PROTECTED_AUTHENTICATION_PATH)) {
            rv = f->login(session, TACK_CKU_USER,
                          (const unsigned char *)pin->pin, pin->pin_len);
            if (rv == TACK_CKR_OK) {
                logged_in = 1;
            } else if (rv != TACK_CKR_USER_ALREADY_LOGGED_IN &&
                       tack_pk11_ckr_name(rv, name, sizeof(name)) == 'c') {
                call = "C_Login";
            } else if (rv != TACK_CKR_USER_ALREADY_LOGGED_IN) {
                int final = f->get_token_info(slot, &info) == TACK_CKR_OK &&
                            (info.flags & TACK_CKF_USER_PIN_FINAL_TRY);

                st = tack_pk11_login_refused(rv, final, err, err_len);
            }
        }
    }
    if (call != NULL && tack_pk11_ckr_name(rv, name, sizeof(name)) == 'c') {
        /* p11-kit's client fails C_Initialize with CKR_DEVICE_ERROR when
         * the socket accepts and closes at once: a forwarding (ssh -L)
         * whose far end has no server.  Say which server. */
        const char *address = getenv(TACK_PK11_CLIENT_ENV);
        int client = tack_pk11_is_client(module) && address != NULL &&
                     address[0] != '\0';

        st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN_UNREACHABLE,
                            "cannot connect to the token: %s: %s%s%.200s%s",
                            call, name,
                            client ? " (from the p11-kit server at " : "",
                            client ? address : "", client ? ")" : "");
    } else if (call != NULL) {
        st = tack_pk11_fail(err, err_len, TACK_ERR_TOKEN,
                            "the token cannot be used: %s: %s", call, name);
    }
    if (logged_in && mine == TACK_CKR_OK) {
        f->logout(session);
    }
    if (opened) {
        f->close_session(session);
    }
    if (mine == TACK_CKR_OK) {
        f->finalize(NULL);
    }
    dlclose(lib);
    return st;
}
