/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * p11value.c -- for t/apache/fleet.t: asks a PKCS#11 module for the value
 * of a private key object (PKCS#11 v2.40 C_GetAttributeValue, CKA_VALUE:
 * the private scalar), as anyone holding the token's socket could, and
 * prints what the token answers:
 *
 *   p11value MODULE TOKEN-LABEL OBJECT-LABEL PIN
 *
 *   CKA_SENSITIVE=1
 *   CKA_EXTRACTABLE=0
 *   CKA_VALUE=CKR 0x11       (CKR_ATTRIBUTE_SENSITIVE: refused)
 *
 * Exit status 0 when the value was refused, 1 when it was read, 2 when the
 * question could not be asked (no module, token, object, login).  No
 * PKCS#11 header: the few declarations below, laid out as every Unix
 * module does (natural alignment), as tack_pkcs11_token.c does.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long ck_ulong;
typedef ck_ulong (*ck_fn)();
typedef struct {
    unsigned char version[2];
    ck_fn fn[68]; /* C_Initialize ... in the order of PKCS#11 v2.40 */
} ck_functions;
typedef struct {
    ck_ulong type;
    void *value;
    ck_ulong len;
} ck_attribute;

/* Indices into ck_functions.fn (PKCS#11 v2.40 section 5, CK_FUNCTION_LIST) */
enum {
    C_Initialize = 0,
    C_GetSlotList = 4,
    C_GetTokenInfo = 6,
    C_OpenSession = 12,
    C_Login = 18,
    C_GetAttributeValue = 24,
    C_FindObjectsInit = 26,
    C_FindObjects = 27,
    C_FindObjectsFinal = 28
};
#define CKA_CLASS 0x0UL
#define CKA_LABEL 0x3UL
#define CKA_VALUE 0x11UL
#define CKA_SENSITIVE 0x103UL
#define CKA_EXTRACTABLE 0x162UL
#define CKO_PRIVATE_KEY 0x3UL
#define CKF_SERIAL_SESSION 0x4UL
#define CKU_USER 1UL

static int fail(const char *what, ck_ulong rv)
{
    fprintf(stderr, "p11value: %s: CKR 0x%lx\n", what, rv);
    return 2;
}

int main(int argc, char **argv)
{
    ck_ulong (*get_list)(ck_functions **);
    ck_functions *f = NULL;
    ck_ulong slots[64], n = 64, i, rv, session, object, found = 0;
    unsigned char info[256], sensitive = 0, extractable = 1, value[256];
    ck_attribute find[2], flags[2], val;
    ck_ulong class = CKO_PRIVATE_KEY;
    void *lib;

    if (argc != 5) {
        fprintf(stderr, "usage: p11value MODULE TOKEN OBJECT PIN\n");
        return 2;
    }
    if ((lib = dlopen(argv[1], RTLD_NOW)) == NULL) {
        fprintf(stderr, "p11value: %s\n", dlerror());
        return 2;
    }
    *(void **)&get_list = dlsym(lib, "C_GetFunctionList");
    if (get_list == NULL || get_list(&f) != 0) {
        return fail("C_GetFunctionList", 0);
    }
    if ((rv = f->fn[C_Initialize](NULL)) != 0) {
        return fail("C_Initialize", rv);
    }
    if ((rv = f->fn[C_GetSlotList](1, slots, &n)) != 0) {
        return fail("C_GetSlotList", rv);
    }
    for (i = 0; i < n && i < 64; i++) {
        size_t len = strlen(argv[2]);

        /* CK_TOKEN_INFO starts with the label, 32 bytes blank-padded */
        if (f->fn[C_GetTokenInfo](slots[i], info) == 0 && len <= 32 &&
            memcmp(info, argv[2], len) == 0 &&
            (len == 32 || info[len] == ' ')) {
            break;
        }
    }
    if (i == n || i == 64) {
        fprintf(stderr, "p11value: no token \"%s\"\n", argv[2]);
        return 2;
    }
    rv = f->fn[C_OpenSession](slots[i], CKF_SERIAL_SESSION, NULL, NULL,
                              &session);
    if (rv != 0) {
        return fail("C_OpenSession", rv);
    }
    rv = f->fn[C_Login](session, CKU_USER, argv[4], (ck_ulong)strlen(argv[4]));
    if (rv != 0) {
        return fail("C_Login", rv);
    }
    find[0] = (ck_attribute){CKA_CLASS, &class, sizeof(class)};
    find[1] = (ck_attribute){CKA_LABEL, argv[3], strlen(argv[3])};
    if ((rv = f->fn[C_FindObjectsInit](session, find, 2UL)) != 0 ||
        (rv = f->fn[C_FindObjects](session, &object, 1UL, &found)) != 0 ||
        found != 1) {
        return fail("no private key object found", rv);
    }
    f->fn[C_FindObjectsFinal](session);
    flags[0] = (ck_attribute){CKA_SENSITIVE, &sensitive, 1};
    flags[1] = (ck_attribute){CKA_EXTRACTABLE, &extractable, 1};
    if ((rv = f->fn[C_GetAttributeValue](session, object, flags, 2UL)) != 0) {
        return fail("C_GetAttributeValue(CKA_SENSITIVE, CKA_EXTRACTABLE)", rv);
    }
    printf("CKA_SENSITIVE=%d\nCKA_EXTRACTABLE=%d\n", sensitive, extractable);
    val = (ck_attribute){CKA_VALUE, value, sizeof(value)};
    rv = f->fn[C_GetAttributeValue](session, object, &val, 1UL);
    if (rv == 0) {
        printf("CKA_VALUE=%lu bytes\n", val.len);
        return 1;
    }
    printf("CKA_VALUE=CKR 0x%lx\n", rv);
    return 0;
}
