/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_floor.c -- what `tack sign` must not go below: the highest
 * min_generation and generation a TACK under the signing key already holds
 * for the certificate's names, found where the tool can read it (the file
 * it replaces, the store's other files for the same host, the module's
 * TackStateFile).  A client raises its record of a key from any TACK it
 * sees and refuses a lower generation under that key (certificate_revoked):
 * a job that re-signs at its defaults after the site raised the generation
 * would lock those clients out.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/x509v3.h>

#include "tack_cli.h"
#include "tack_ext.h"
#include "tack_file.h"
#include "tack_pem.h"
#include "tack_state.h"
#include "tack_store.h"

/* A store file or TackFile holds a TACK or two; a state file the module
 * reads at most 64 MiB of (mod_tack_memory.c). */
#define FLOOR_FILE_MAX (1024 * 1024)
#define FLOOR_STATE_MAX (64 * 1024 * 1024)

/* floor_take raises |f| to |min| and |gen|, found in |from|. */
static void floor_take(cli_floor_t *f, int min, int gen, const char *from)
{
    if (min > f->min_generation ||
        (min == f->min_generation && gen > f->generation)) {
        snprintf(f->from, sizeof(f->from), "%s", from);
    }
    if (min > f->min_generation) {
        f->min_generation = min;
    }
    if (gen > f->generation) {
        f->generation = gen;
    }
}

/* floor_file takes the TACKs under |key| in the file |path|, quietly: a
 * file that cannot be read or holds no TACK adds nothing. */
static void floor_file(cli_floor_t *f, const uint8_t *key, const char *path)
{
    tack_t tacks[TACK_EXT02_MAX_TACKS];
    size_t n = 0, i;
    char *text = NULL;
    size_t len = 0;
    unsigned line = 0;

    if (tack_file_read(path, FLOOR_FILE_MAX, &text, &len) != TACK_OK) {
        return;
    }
    if (tack_tacks_from_pem(tacks, TACK_EXT02_MAX_TACKS, &n, text, len,
                            &line) == TACK_OK) {
        for (i = 0; i < n; i++) {
            if (memcmp(tacks[i].public_key, key, TACK_KEY_LEN) == 0) {
                floor_take(f, tacks[i].min_generation, tacks[i].generation,
                           path);
            }
        }
    }
    free(text);
}

/* floor_host_file says whether the store file |name| is one of |host|'s:
 * HOST.tack.pem (the certbot hook's old name), HOST.X.tack.pem (the md
 * hook's) or HOST.KEYTYPE.SPKI8.tack.pem (tack_cert_store_name). */
static int floor_host_file(const char *name, const char *host)
{
    size_t hl = strlen(host), nl = strlen(name), sl = strlen(".tack.pem");
    const char *rest, *end;
    int dots = 0;

    if (hl == 0 || nl <= hl + sl || strncasecmp(name, host, hl) != 0 ||
        name[hl] != '.' || strcmp(name + nl - sl, ".tack.pem") != 0) {
        return 0;
    }
    rest = name + hl; /* ".tack.pem", ".X.tack.pem", ".K.S.tack.pem" */
    end = name + nl - sl;
    for (; rest < end; rest++) {
        dots += *rest == '.';
    }
    return dots <= 2;
}

/* floor_store takes the TACKs under |key| of |dir|'s files for |host|. */
static void floor_store(cli_floor_t *f, const uint8_t *key, const char *dir,
                        const char *host)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];

    if (d == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (!tack_store_name_ok(e->d_name) ||
            !floor_host_file(e->d_name, host)) {
            continue;
        }
        snprintf(path, sizeof(path), "%s%s%s", dir,
                 dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        floor_file(f, key, path);
    }
    closedir(d);
}

/* floor_names returns the certificate's DNS names and CN, lower case, in
 * one malloc'd array ending in NULL (each malloc'd), or NULL. */
static char **floor_names(X509 *cert)
{
    GENERAL_NAMES *sans =
        X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    int n = sans ? sk_GENERAL_NAME_num(sans) : 0, i, k = 0;
    char **out = calloc((size_t)n + 2, sizeof(*out));
    const X509_NAME *subject;
    int cn;

    for (i = 0; out != NULL && i < n; i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(sans, i);

        if (g->type == GEN_DNS) {
            const unsigned char *s = ASN1_STRING_get0_data(g->d.dNSName);
            int len = ASN1_STRING_length(g->d.dNSName);

            if ((out[k] = malloc((size_t)len + 1)) != NULL) {
                memcpy(out[k], s, (size_t)len);
                out[k++][len] = '\0';
            }
        }
    }
    GENERAL_NAMES_free(sans);
    /* the first CN, as UTF-8 (X509_NAME_get_text_by_NID is deprecated in
     * OpenSSL 4.0) */
    if (out != NULL && (subject = X509_get_subject_name(cert)) != NULL &&
        (cn = X509_NAME_get_index_by_NID(subject, NID_commonName, -1)) >= 0) {
        unsigned char *utf8 = NULL;
        int ulen = ASN1_STRING_to_UTF8(
            &utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, cn)));

        if (ulen > 0 && (out[k] = malloc((size_t)ulen + 1)) != NULL) {
            memcpy(out[k], utf8, (size_t)ulen);
            out[k++][ulen] = '\0';
        }
        OPENSSL_free(utf8);
    }
    for (i = 0; out != NULL && i < k; i++) {
        char *c;

        for (c = out[i]; c && *c; c++) {
            *c = (char)tolower((unsigned char)*c);
        }
    }
    return out;
}

static void floor_names_free(char **names)
{
    size_t i;

    for (i = 0; names != NULL && names[i] != NULL; i++) {
        free(names[i]);
    }
    free(names);
}

/* floor_state takes what the state file |path| remembers under |key| for
 * any of |cert|'s names ("NAME:PORT TYPE" entries, any port and type),
 * while it keeps it. */
static void floor_state(cli_floor_t *f, const uint8_t *key, const char *path,
                        X509 *cert, long now)
{
    tack_state_t *st = NULL;
    char *text = NULL, err[64], from[512];
    size_t len = 0, i, j, n, k;
    char **names;

    if (tack_file_read(path, FLOOR_STATE_MAX, &text, &len) != TACK_OK) {
        return;
    }
    if (tack_state_parse(text, len, &st, err, sizeof(err)) != TACK_OK) {
        free(text);
        return;
    }
    free(text);
    names = floor_names(cert);
    for (i = 0; names != NULL && i < tack_state_count(st); i++) {
        const tack_state_key_t *keys;
        const char *id, *colon;

        if (!tack_state_entry(st, i, &id, &keys, &n) ||
            (colon = strrchr(id, ':')) == NULL) {
            continue;
        }
        for (k = 0; names[k] != NULL; k++) {
            if (strlen(names[k]) == (size_t)(colon - id) &&
                strncmp(names[k], id, (size_t)(colon - id)) == 0) {
                break;
            }
        }
        for (j = 0; names[k] != NULL && j < n; j++) {
            tack_t last;
            int gen = keys[j].min_generation;

            if (memcmp(keys[j].key, key, TACK_KEY_LEN) != 0 ||
                tack_state_keep_until(&keys[j], now) <= now) {
                continue;
            }
            /* the last TACK served under the key, when it is kept */
            if (keys[j].has_tack &&
                tack_parse(&last, keys[j].tack, TACK_LEN) == TACK_OK &&
                last.generation > gen) {
                gen = last.generation;
            }
            snprintf(from, sizeof(from), "%s (\"%s\")", path, id);
            floor_take(f, keys[j].min_generation, gen, from);
        }
    }
    floor_names_free(names);
    tack_state_free(st);
}

void cli_floor_find(cli_floor_t *f, const uint8_t *key, X509 *cert,
                    const char *replaced, const char *store_dir,
                    const char *state_path, long now)
{
    char name[TACK_STORE_NAME_SIZE], *dot;
    int i;

    memset(f, 0, sizeof(*f));
    f->min_generation = f->generation = -1;
    if (replaced != NULL && strcmp(replaced, "-") != 0) {
        floor_file(f, key, replaced);
    }
    if (store_dir != NULL &&
        tack_cert_store_name(cert, name, sizeof(name)) == TACK_OK) {
        /* HOST.KEYTYPE.SPKI8.tack.pem: HOST is what precedes the last
         * four dots (none when the certificate has no name) */
        for (i = 0; i < 4 && (dot = strrchr(name, '.')) != NULL; i++) {
            *dot = '\0';
        }
        if (i == 4 && name[0] != '\0') {
            floor_store(f, key, store_dir, name);
        }
    }
    if (state_path != NULL) {
        floor_state(f, key, state_path, cert, now);
    }
}
