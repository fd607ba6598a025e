/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_store.c -- the TackStore file contract, one rule for every writer:
 * a file's name comes from its certificate alone (so the module's
 * TackSigningKey and `tack sign -o STORE/` write the same name and replace
 * each other's file), and every file starts with the same "Created by" /
 * "Created at" lines.  libc and libcrypto only.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "tack_store.h"
#include "tack_ext.h"
#include "tack_util.h"

/* store_clean appends the |in_len| bytes at |in| to |out| (|*len| used of
 * |max|) as a name part: ASCII letters lowered, '*' as '_', [a-z0-9._-]
 * kept, everything else dropped, no '.' or '-' first.  Trailing '.' and '-'
 * are removed by store_trim once the part is complete. */
static void store_clean(char *out, size_t *len, size_t max, const uint8_t *in,
                        size_t in_len)
{
    size_t i;

    for (i = 0; i < in_len && *len < max; i++) {
        int c = in[i];

        if (c >= 'A' && c <= 'Z') {
            c = c - 'A' + 'a';
        } else if (c == '*') {
            c = '_';
        }
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '-' || c == '_')) {
            continue;
        }
        if (*len == 0 && (c == '.' || c == '-')) {
            continue;
        }
        out[(*len)++] = (char)c;
    }
    while (*len > 0 && (out[*len - 1] == '.' || out[*len - 1] == '-')) {
        (*len)--;
    }
    out[*len] = '\0';
}

/* store_host writes the certificate's first DNS subjectAltName, else its
 * last CN, cleaned, into |out| (TACK_STORE_HOST_MAX + 1 bytes); an empty
 * string when there is neither (or nothing usable in them). */
static void store_host(X509 *cert, char out[TACK_STORE_HOST_MAX + 1])
{
    GENERAL_NAMES *gens;
    const X509_NAME *subject;
    size_t len = 0;
    int i, n, last = -1;

    out[0] = '\0';
    gens = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    n = gens ? sk_GENERAL_NAME_num(gens) : 0;
    for (i = 0; i < n && len == 0; i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);

        if (g->type == GEN_DNS) {
            store_clean(out, &len, TACK_STORE_HOST_MAX,
                        ASN1_STRING_get0_data(g->d.dNSName),
                        (size_t)ASN1_STRING_length(g->d.dNSName));
        }
    }
    GENERAL_NAMES_free(gens);
    if (len > 0) {
        return;
    }
    subject = X509_get_subject_name(cert);
    /* The last CN is the most specific (RFC 6125 section 6.4.4). */
    while (subject != NULL && (i = X509_NAME_get_index_by_NID(
                                   subject, NID_commonName, last)) >= 0) {
        last = i;
    }
    if (last >= 0) {
        const X509_NAME_ENTRY *e = X509_NAME_get_entry(subject, last);
        unsigned char *utf8 = NULL;
        int ulen = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));

        if (ulen > 0) {
            store_clean(out, &len, TACK_STORE_HOST_MAX, utf8, (size_t)ulen);
        }
        OPENSSL_free(utf8);
    }
}

/* store_keytype writes the name of the certificate's key algorithm, by the
 * key's type as mod_tack's certificate slots name it (ECDSA, RSA, ...), in
 * lower case; a key only a provider knows (no NID) by the provider's name
 * of it; "key" when the key cannot be decoded. */
static void store_keytype(X509 *cert, char out[TACK_STORE_KEYTYPE_MAX + 1])
{
    const EVP_PKEY *pkey = X509_get0_pubkey(cert);
    const char *name;
    size_t len = 0;
    int nid = pkey ? EVP_PKEY_get_base_id(pkey) : NID_undef;

    switch (nid) {
    case EVP_PKEY_EC:
        name = "ecdsa";
        break;
    case EVP_PKEY_RSA:
        name = "rsa";
        break;
    case EVP_PKEY_RSA_PSS:
        name = "rsa-pss";
        break;
    case EVP_PKEY_ED25519:
        name = "ed25519";
        break;
    case EVP_PKEY_ED448:
        name = "ed448";
        break;
    default:
        name = nid != NID_undef ? OBJ_nid2sn(nid)
               : pkey != NULL   ? EVP_PKEY_get0_type_name(pkey)
                                : NULL;
        break;
    }
    out[0] = '\0';
    if (name != NULL) {
        store_clean(out, &len, TACK_STORE_KEYTYPE_MAX, (const uint8_t *)name,
                    strlen(name));
    }
    if (len == 0) {
        memcpy(out, "key", sizeof("key"));
    }
}

int tack_store_name_ok(const char *name)
{
    size_t n, suffix = sizeof(TACK_STORE_SUFFIX) - 1;

    if (name == NULL || name[0] == '.' || strchr(name, '/') != NULL) {
        return 0;
    }
    n = strlen(name);
    return n > suffix && strcmp(name + n - suffix, TACK_STORE_SUFFIX) == 0;
}

tack_status_t tack_cert_store_name(X509 *cert, char *out, size_t out_len)
{
    char host[TACK_STORE_HOST_MAX + 1], type[TACK_STORE_KEYTYPE_MAX + 1];
    char hex[2 * TACK_HASH_LEN + 1];
    uint8_t hash[TACK_HASH_LEN];
    tack_status_t st;
    int n;

    if (cert == NULL || out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    st = tack_spki_hash(cert, hash);
    if (st != TACK_OK) {
        return st;
    }
    st = tack_hex_encode(hex, sizeof(hex), hash, sizeof(hash));
    if (st != TACK_OK) {
        return st;
    }
    store_host(cert, host);
    store_keytype(cert, type);
    n = snprintf(out, out_len, "%s%s%s.%.8s" TACK_STORE_SUFFIX, host,
                 host[0] ? "." : "", type, hex);
    if (n < 0 || (size_t)n >= out_len) {
        if (out_len > 0) {
            out[0] = '\0';
        }
        return TACK_ERR_BUFFER_TOO_SMALL;
    }
    return TACK_OK;
}

tack_status_t tack_store_header(char *out, size_t out_len, const char *producer,
                                time_t now)
{
    struct tm tm;
    char when[TACK_TIME_SIZE + 8];
    const char *p;
    int n;

    if (out == NULL || producer == NULL || producer[0] == '\0') {
        return TACK_ERR_INVALID_ARG;
    }
    for (p = producer; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            return TACK_ERR_INVALID_ARG;
        }
    }
    /* A time gmtime cannot break down, or a year strftime cannot fit, is a
     * caller's bug: say so rather than write a wrong date. */
    if (gmtime_r(&now, &tm) == NULL ||
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
        return TACK_ERR_INVALID_ARG;
    }
    n = snprintf(out, out_len, "Created by %s\nCreated at %s\n", producer,
                 when);
    if (n < 0 || (size_t)n >= out_len) {
        if (out_len > 0) {
            out[0] = '\0';
        }
        return TACK_ERR_BUFFER_TOO_SMALL;
    }
    return TACK_OK;
}
