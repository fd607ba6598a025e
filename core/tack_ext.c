/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_ext.c -- TACK and break-signature codec, their signatures (the
 * draft's signed messages, made and checked with tack_key.c's ECDSA), the
 * checks of a TACK (generation, expiry, target hash), fingerprints, SPKI
 * hashes, and the draft-00 / draft-02 extension bodies.
 *
 * P-256 keys and raw ECDSA live in tack_key.c, the status sentences in
 * tack_base.c; PEM (tack_pem.c) and the key-file format (tack_keyfile.c)
 * are built on this file.  Wire parsing goes through the cursor in
 * tack_cbs.h only.
 */
#include "tack_ext.h"
#include "tack_cbs.h"
#include "tack_key.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* draft-perrin-tls-tack-00 section 3: the signed messages' prefixes. */
static const char tack_sig_label[] = "tack_sig";            /* 8 bytes */
static const char tack_breaksig_label[] = "tack_break_sig"; /* 14 bytes */

/* ---- TACK codec -----------------------------------------------------------
 */

/* tack_parse_cbs reads one TACK from |cbs|; 0 if it is too short. */
static int tack_parse_cbs(tack_t *out, tack_cbs_t *cbs)
{
    tack_cbs_t copy = *cbs;

    if (!tack_cbs_copy(&copy, out->public_key, TACK_KEY_LEN) ||
        !tack_cbs_get_u8(&copy, &out->min_generation) ||
        !tack_cbs_get_u8(&copy, &out->generation) ||
        !tack_cbs_get_u32(&copy, &out->expiration) ||
        !tack_cbs_copy(&copy, out->target_hash, TACK_HASH_LEN) ||
        !tack_cbs_copy(&copy, out->signature, TACK_SIG_LEN)) {
        return 0;
    }
    *cbs = copy;
    return 1;
}

static void tack_encode_cbb(const tack_t *tack, tack_cbb_t *cbb)
{
    tack_cbb_add_bytes(cbb, tack->public_key, TACK_KEY_LEN);
    tack_cbb_add_u8(cbb, tack->min_generation);
    tack_cbb_add_u8(cbb, tack->generation);
    tack_cbb_add_u32(cbb, tack->expiration);
    tack_cbb_add_bytes(cbb, tack->target_hash, TACK_HASH_LEN);
    tack_cbb_add_bytes(cbb, tack->signature, TACK_SIG_LEN);
}

tack_status_t tack_parse(tack_t *out, const uint8_t *in, size_t in_len)
{
    tack_cbs_t cbs;

    if (out == NULL || (in == NULL && in_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    tack_cbs_init(&cbs, in, in_len);
    if (!tack_parse_cbs(out, &cbs)) {
        return TACK_ERR_TRUNCATED;
    }
    if (tack_cbs_len(&cbs) != 0) {
        return TACK_ERR_TRAILING;
    }
    return TACK_OK;
}

void tack_encode(const tack_t *tack, uint8_t out[TACK_LEN])
{
    tack_cbb_t cbb;

    tack_cbb_init(&cbb, out, TACK_LEN);
    tack_encode_cbb(tack, &cbb);
}

int tack_equal(const tack_t *a, const tack_t *b)
{
    uint8_t x[TACK_LEN], y[TACK_LEN];

    tack_encode(a, x);
    tack_encode(b, y);
    return memcmp(x, y, TACK_LEN) == 0;
}

/* ---- TACK signatures ----------------------------------------------------- */

/* tack_signed_message builds "tack_sig" || the first 102 bytes of |tack|. */
static void tack_signed_message(const tack_t *tack,
                                uint8_t msg[8 + TACK_SIGNED_LEN])
{
    uint8_t wire[TACK_LEN];

    tack_encode(tack, wire);
    memcpy(msg, tack_sig_label, 8);
    memcpy(msg + 8, wire, TACK_SIGNED_LEN);
}

tack_status_t tack_verify(const tack_t *tack)
{
    uint8_t msg[8 + TACK_SIGNED_LEN];

    if (tack == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    tack_signed_message(tack, msg);
    return tack_key_verify(tack->public_key, msg, sizeof(msg), tack->signature);
}

tack_status_t tack_verify_with(const tack_t *tack, EVP_PKEY *key)
{
    uint8_t msg[8 + TACK_SIGNED_LEN];

    if (tack == NULL || key == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    tack_signed_message(tack, msg);
    return tack_key_verify_with(key, msg, sizeof(msg), tack->signature);
}

tack_status_t tack_sign(tack_t *tack, EVP_PKEY *key)
{
    uint8_t msg[8 + TACK_SIGNED_LEN];
    tack_status_t st;

    if (tack == NULL || key == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    if (tack->generation < tack->min_generation) {
        return TACK_ERR_GENERATION;
    }
    /* The signed message holds public_key: set it first. */
    if ((st = tack_key_public(key, tack->public_key)) != TACK_OK) {
        return st;
    }
    tack_signed_message(tack, msg);
    return tack_key_sign(key, msg, sizeof(msg), tack->public_key,
                         tack->signature);
}

/* ---- TACK checks --------------------------------------------------------- */

tack_status_t tack_check_generation(const tack_t *tack)
{
    if (tack == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    return tack->generation < tack->min_generation ? TACK_ERR_GENERATION
                                                   : TACK_OK;
}

time_t tack_expiration_time(const tack_t *tack)
{
    return (time_t)tack->expiration * 60;
}

tack_status_t tack_check_expiration(const tack_t *tack, time_t now)
{
    if (tack == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    return now >= tack_expiration_time(tack) ? TACK_ERR_EXPIRED : TACK_OK;
}

tack_status_t tack_check_target_hash(const tack_t *tack,
                                     const uint8_t spki_hash[TACK_HASH_LEN])
{
    if (tack == NULL || spki_hash == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    return CRYPTO_memcmp(tack->target_hash, spki_hash, TACK_HASH_LEN) == 0
               ? TACK_OK
               : TACK_ERR_TARGET_MISMATCH;
}

tack_status_t tack_check_target(const tack_t *tack, X509 *cert)
{
    uint8_t hash[TACK_HASH_LEN];
    tack_status_t st;

    if (tack == NULL || cert == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    st = tack_spki_hash(cert, hash);
    if (st != TACK_OK) {
        return st;
    }
    return tack_check_target_hash(tack, hash);
}

tack_status_t tack_validate(const tack_t *tack, X509 *cert, time_t now)
{
    tack_status_t st;

    if (tack == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    /* draft-00 section 5.1's order: signature, generation, target hash,
     * expiration. */
    if ((st = tack_verify(tack)) != TACK_OK ||
        (st = tack_check_generation(tack)) != TACK_OK) {
        return st;
    }
    if (cert != NULL && (st = tack_check_target(tack, cert)) != TACK_OK) {
        return st;
    }
    return tack_check_expiration(tack, now);
}

/* ---- Break signatures -----------------------------------------------------
 */

static int tack_breaksig_parse_cbs(tack_breaksig_t *out, tack_cbs_t *cbs)
{
    tack_cbs_t copy = *cbs;

    if (!tack_cbs_copy(&copy, out->public_key, TACK_KEY_LEN) ||
        !tack_cbs_copy(&copy, out->signature, TACK_SIG_LEN)) {
        return 0;
    }
    *cbs = copy;
    return 1;
}

tack_status_t tack_breaksig_parse(tack_breaksig_t *out, const uint8_t *in,
                                  size_t in_len)
{
    tack_cbs_t cbs;

    if (out == NULL || (in == NULL && in_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    tack_cbs_init(&cbs, in, in_len);
    if (!tack_breaksig_parse_cbs(out, &cbs)) {
        return TACK_ERR_TRUNCATED;
    }
    if (tack_cbs_len(&cbs) != 0) {
        return TACK_ERR_TRAILING;
    }
    return TACK_OK;
}

void tack_breaksig_encode(const tack_breaksig_t *sig,
                          uint8_t out[TACK_BREAKSIG_LEN])
{
    memcpy(out, sig->public_key, TACK_KEY_LEN);
    memcpy(out + TACK_KEY_LEN, sig->signature, TACK_SIG_LEN);
}

tack_status_t tack_breaksig_verify(const tack_breaksig_t *sig)
{
    if (sig == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    return tack_key_verify(sig->public_key,
                           (const uint8_t *)tack_breaksig_label,
                           sizeof(tack_breaksig_label) - 1, sig->signature);
}

tack_status_t tack_breaksig_verify_with(const tack_breaksig_t *sig,
                                        EVP_PKEY *key)
{
    if (sig == NULL || key == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    return tack_key_verify_with(key, (const uint8_t *)tack_breaksig_label,
                                sizeof(tack_breaksig_label) - 1,
                                sig->signature);
}

tack_status_t tack_breaksig_create(tack_breaksig_t *out, EVP_PKEY *key)
{
    if (out == NULL || key == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    return tack_key_sign(key, (const uint8_t *)tack_breaksig_label,
                         sizeof(tack_breaksig_label) - 1, out->public_key,
                         out->signature);
}

/* ---- Extension bodies -----------------------------------------------------
 */

/* ext_fault records which field of an extension body failed its check and
 * where it starts, for messages that point at the right byte. */
static tack_status_t ext_fault(const char **field, size_t *offset,
                               const char *name, const tack_cbs_t *at,
                               const uint8_t *in, tack_status_t st)
{
    *field = name;
    *offset = in == NULL ? 0 : (size_t)(at->data - in);
    return st;
}

#define EXT_FAIL(name, at, st)                                                 \
    ext_fault(&out->fault_field, &out->fault_offset, (name), (at), in, (st))

tack_status_t tack_ext00_parse(tack_ext00_t *out, const uint8_t *in,
                               size_t in_len)
{
    tack_cbs_t cbs, sigs, at;
    uint8_t tack_len;
    uint16_t sigs_len;

    if (out == NULL || (in == NULL && in_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    memset(out, 0, sizeof(*out));
    tack_cbs_init(&cbs, in, in_len);

    /* uint8 tack_len: 0 or 166 (draft-00 section 3.1) */
    at = cbs;
    if (!tack_cbs_get_u8(&cbs, &tack_len)) {
        return EXT_FAIL("tack_len", &at, TACK_ERR_TRUNCATED);
    }
    if (tack_len != 0 && tack_len != TACK_LEN) {
        return EXT_FAIL("tack_len", &at, TACK_ERR_BAD_LENGTH);
    }
    if (tack_len == TACK_LEN) {
        at = cbs;
        if (!tack_parse_cbs(&out->tack, &cbs)) {
            return EXT_FAIL("tack", &at, TACK_ERR_TRUNCATED);
        }
        out->has_tack = 1;
    }

    /* uint16 break_sigs_len: 0..1024, a multiple of 128 */
    at = cbs;
    if (!tack_cbs_get_u16(&cbs, &sigs_len)) {
        return EXT_FAIL("break_sigs_len", &at, TACK_ERR_TRUNCATED);
    }
    if (sigs_len > TACK_MAX_BREAKSIGS * TACK_BREAKSIG_LEN) {
        return EXT_FAIL("break_sigs_len", &at, TACK_ERR_TOO_MANY_BREAKSIGS);
    }
    if (sigs_len % TACK_BREAKSIG_LEN != 0) {
        return EXT_FAIL("break_sigs_len", &at, TACK_ERR_BAD_LENGTH);
    }
    if (!tack_cbs_get_sub(&cbs, &sigs, sigs_len)) {
        return EXT_FAIL("break_sigs", &cbs, TACK_ERR_TRUNCATED);
    }
    while (tack_cbs_len(&sigs) > 0) {
        if (!tack_breaksig_parse_cbs(&out->breaksigs[out->num_breaksigs],
                                     &sigs)) {
            /* unreachable: the length was checked */
            return EXT_FAIL("break_sigs", &sigs, TACK_ERR_BAD_LENGTH);
        }
        out->num_breaksigs++;
    }

    /* uint8 pin_activation: 0 or 1 */
    at = cbs;
    if (!tack_cbs_get_u8(&cbs, &out->pin_activation)) {
        return EXT_FAIL("pin_activation", &at, TACK_ERR_TRUNCATED);
    }
    if (out->pin_activation > 1) {
        return EXT_FAIL("pin_activation", &at, TACK_ERR_BAD_FLAGS);
    }
    if (tack_cbs_len(&cbs) != 0) {
        return EXT_FAIL("end", &cbs, TACK_ERR_TRAILING);
    }
    return TACK_OK;
}

tack_status_t tack_ext00_encode(const tack_ext00_t *ext, uint8_t *out,
                                size_t out_cap, size_t *out_len)
{
    tack_cbb_t cbb;
    uint8_t sig[TACK_BREAKSIG_LEN];
    size_t i;

    if (ext == NULL || out == NULL || out_len == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    if (ext->num_breaksigs > TACK_MAX_BREAKSIGS) {
        return TACK_ERR_TOO_MANY_BREAKSIGS;
    }
    if (ext->pin_activation > 1) {
        return TACK_ERR_BAD_FLAGS;
    }
    tack_cbb_init(&cbb, out, out_cap);
    tack_cbb_add_u8(&cbb, ext->has_tack ? TACK_LEN : 0);
    if (ext->has_tack) {
        tack_encode_cbb(&ext->tack, &cbb);
    }
    tack_cbb_add_u16(&cbb, (uint16_t)(ext->num_breaksigs * TACK_BREAKSIG_LEN));
    for (i = 0; i < ext->num_breaksigs; i++) {
        tack_breaksig_encode(&ext->breaksigs[i], sig);
        tack_cbb_add_bytes(&cbb, sig, sizeof(sig));
    }
    tack_cbb_add_u8(&cbb, ext->pin_activation);
    if (cbb.err) {
        return TACK_ERR_BUFFER_TOO_SMALL;
    }
    *out_len = cbb.len;
    return TACK_OK;
}

tack_status_t tack_ext02_parse(tack_ext02_t *out, const uint8_t *in,
                               size_t in_len)
{
    tack_cbs_t cbs, tacks, at;
    uint16_t tacks_len;

    if (out == NULL || (in == NULL && in_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    memset(out, 0, sizeof(*out));
    tack_cbs_init(&cbs, in, in_len);

    /* uint16 tacks_len: 166 or 332; the draft allows no empty list */
    at = cbs;
    if (!tack_cbs_get_u16(&cbs, &tacks_len)) {
        return EXT_FAIL("tacks_len", &at, TACK_ERR_TRUNCATED);
    }
    if (tacks_len == 0) {
        return EXT_FAIL("tacks_len", &at, TACK_ERR_NO_TACK);
    }
    if (tacks_len != TACK_LEN && tacks_len != 2 * TACK_LEN) {
        return EXT_FAIL("tacks_len", &at, TACK_ERR_BAD_LENGTH);
    }
    if (!tack_cbs_get_sub(&cbs, &tacks, tacks_len)) {
        return EXT_FAIL("tacks", &cbs, TACK_ERR_TRUNCATED);
    }
    while (tack_cbs_len(&tacks) > 0) {
        at = tacks; /* after the loop: where the last TACK starts */
        if (!tack_parse_cbs(&out->tacks[out->num_tacks], &tacks)) {
            /* unreachable: the length was checked */
            return EXT_FAIL("tacks", &tacks, TACK_ERR_BAD_LENGTH);
        }
        out->num_tacks++;
    }
    if (out->num_tacks == 2 &&
        CRYPTO_memcmp(out->tacks[0].public_key, out->tacks[1].public_key,
                      TACK_KEY_LEN) == 0) {
        return EXT_FAIL("tacks", &at, TACK_ERR_DUPLICATE_KEY);
    }

    /* uint8 activation_flags: bits 2-7 reserved and ignored by clients */
    at = cbs;
    if (!tack_cbs_get_u8(&cbs, &out->activation_flags)) {
        return EXT_FAIL("activation_flags", &at, TACK_ERR_TRUNCATED);
    }
    if (out->num_tacks == 1 && (out->activation_flags & 0x02)) {
        return EXT_FAIL("activation_flags", &at, TACK_ERR_BAD_FLAGS);
    }
    if (tack_cbs_len(&cbs) != 0) {
        return EXT_FAIL("end", &cbs, TACK_ERR_TRAILING);
    }
    return TACK_OK;
}

tack_status_t tack_ext02_encode(const tack_ext02_t *ext, uint8_t *out,
                                size_t out_cap, size_t *out_len)
{
    tack_cbb_t cbb;
    size_t i;
    uint8_t mask;

    if (ext == NULL || out == NULL || out_len == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    if (ext->num_tacks == 0) {
        return TACK_ERR_NO_TACK;
    }
    if (ext->num_tacks > TACK_EXT02_MAX_TACKS) {
        return TACK_ERR_TOO_MANY_TACKS;
    }
    if (ext->num_tacks == 2 &&
        CRYPTO_memcmp(ext->tacks[0].public_key, ext->tacks[1].public_key,
                      TACK_KEY_LEN) == 0) {
        return TACK_ERR_DUPLICATE_KEY;
    }
    mask = ext->num_tacks == 2 ? 0x03 : 0x01;
    tack_cbb_init(&cbb, out, out_cap);
    tack_cbb_add_u16(&cbb, (uint16_t)(ext->num_tacks * TACK_LEN));
    for (i = 0; i < ext->num_tacks; i++) {
        tack_encode_cbb(&ext->tacks[i], &cbb);
    }
    tack_cbb_add_u8(&cbb, ext->activation_flags & mask);
    if (cbb.err) {
        return TACK_ERR_BUFFER_TOO_SMALL;
    }
    *out_len = cbb.len;
    return TACK_OK;
}

tack_status_t tack_answer_encode(int format, int pin_activation,
                                 const tack_t *const *tacks,
                                 const unsigned char *inactive, int n,
                                 const tack_breaksig_t *sigs, size_t nsigs,
                                 uint8_t out[TACK_ANSWER_MAX], size_t *out_len)
{
    int i;

    *out_len = 0;
    if (format == TACK_FORMAT_02) {
        tack_ext02_t ext;

        if (n == 0) {
            return TACK_OK; /* -02 has no empty list: send nothing */
        }
        memset(&ext, 0, sizeof(ext));
        for (i = 0; i < n && i < TACK_EXT02_MAX_TACKS; i++) {
            /* -02 section 3: bit n activates the n-th TACK of the list */
            if (pin_activation && !inactive[i]) {
                ext.activation_flags |= (uint8_t)(1u << i);
            }
            ext.tacks[ext.num_tacks++] = *tacks[i];
        }
        return tack_ext02_encode(&ext, out, TACK_ANSWER_MAX, out_len);
    }
    {
        tack_ext00_t ext;

        if (n == 0 && nsigs == 0) {
            return TACK_OK; /* nothing configured, or the TACK expired */
        }
        memset(&ext, 0, sizeof(ext));
        if (n) {
            ext.has_tack = 1;
            ext.tack = *tacks[0];
        }
        ext.num_breaksigs = nsigs;
        memcpy(ext.breaksigs, sigs, nsigs * sizeof(sigs[0]));
        ext.pin_activation = pin_activation && !(n && inactive[0]);
        return tack_ext00_encode(&ext, out, TACK_ANSWER_MAX, out_len);
    }
}

/* ---- Fingerprints, hashes, times ------------------------------------------
 */

void tack_fingerprint(const uint8_t public_key[TACK_KEY_LEN],
                      char out[TACK_FINGERPRINT_SIZE])
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    uint8_t hash[32];
    unsigned int md_len = 0;
    size_t i, o = 0;

    if (!EVP_Digest(public_key, TACK_KEY_LEN, hash, &md_len, EVP_sha256(),
                    NULL)) {
        memset(hash, 0, sizeof(hash));
    }
    /* 25 base32 characters = 125 bits, taken MSB first from the hash. */
    for (i = 0; i < 25; i++) {
        size_t bit = i * 5;
        unsigned v = ((unsigned)hash[bit / 8] << 8) | hash[bit / 8 + 1];

        v = (v >> (11 - bit % 8)) & 0x1f;
        if (i > 0 && i % 5 == 0) {
            out[o++] = '.';
        }
        out[o++] = alphabet[v];
    }
    out[o] = '\0';
}

static tack_status_t tack_sha256_der(const uint8_t *der, int der_len,
                                     uint8_t out[TACK_HASH_LEN])
{
    unsigned int md_len = 0;

    if (der_len <= 0) {
        return TACK_ERR_CRYPTO;
    }
    if (!EVP_Digest(der, (size_t)der_len, out, &md_len, EVP_sha256(), NULL)) {
        return TACK_ERR_CRYPTO;
    }
    return TACK_OK;
}

tack_status_t tack_spki_hash(X509 *cert, uint8_t out[TACK_HASH_LEN])
{
    uint8_t *der = NULL;
    int der_len;
    tack_status_t st;

    if (cert == NULL || out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    /* The whole SubjectPublicKeyInfo SEQUENCE (draft-00 section 3.2). */
    der_len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der);
    st = tack_sha256_der(der, der_len, out);
    OPENSSL_free(der);
    return st;
}

/* A NUL-terminated string being written into a fixed buffer, cut to fit. */
typedef struct {
    char *out;
    size_t cap, len;
} tack_namebuf_t;

static void tack_namebuf_add(tack_namebuf_t *b, const uint8_t *in,
                             size_t in_len)
{
    size_t i;

    for (i = 0; i < in_len && b->len + 1 < b->cap; i++) {
        b->out[b->len++] = in[i] < 0x20 || in[i] == 0x7f ? '?' : (char)in[i];
    }
    b->out[b->len] = '\0';
}

static void tack_namebuf_str(tack_namebuf_t *b, const char *s)
{
    tack_namebuf_add(b, (const uint8_t *)s, strlen(s));
}

/* tack_namebuf_first_dns adds "DNS:" and |cert|'s first DNS name; returns 0
 * when it has none. */
static int tack_namebuf_first_dns(tack_namebuf_t *b, X509 *cert)
{
    GENERAL_NAMES *sans =
        X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    int i, found = 0;

    for (i = 0; !found && i < sk_GENERAL_NAME_num(sans); i++) {
        const GENERAL_NAME *gn = sk_GENERAL_NAME_value(sans, i);

        if (gn->type == GEN_DNS) {
            tack_namebuf_str(b, "DNS:");
            tack_namebuf_add(b, ASN1_STRING_get0_data(gn->d.dNSName),
                             (size_t)ASN1_STRING_length(gn->d.dNSName));
            found = 1;
        }
    }
    GENERAL_NAMES_free(sans);
    return found;
}

char *tack_cert_name(X509 *cert, char *out, size_t out_len)
{
    tack_namebuf_t b = {out, out_len, 0};
    const X509_NAME *name;
    int i, n;

    if (out == NULL || out_len == 0) {
        return out;
    }
    out[0] = '\0';
    name = cert ? X509_get_subject_name(cert) : NULL;
    n = name ? X509_NAME_entry_count(name) : 0;
    for (i = 0; i < n; i++) {
        const X509_NAME_ENTRY *e = X509_NAME_get_entry(name, i);
        int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
        unsigned char *utf8 = NULL;
        int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
        char oid[64];

        tack_namebuf_str(&b, "/");
        if (nid != NID_undef) {
            tack_namebuf_str(&b, OBJ_nid2sn(nid));
        } else {
            OBJ_obj2txt(oid, sizeof(oid), X509_NAME_ENTRY_get_object(e), 1);
            tack_namebuf_str(&b, oid);
        }
        tack_namebuf_str(&b, "=");
        if (len >= 0) {
            tack_namebuf_add(&b, utf8, (size_t)len);
        }
        OPENSSL_free(utf8);
    }
    if (n == 0 && !(cert && tack_namebuf_first_dns(&b, cert))) {
        tack_namebuf_str(&b, "(no subject, no DNS name)");
    }
    ERR_clear_error();
    return out;
}

tack_status_t tack_pkey_spki_hash(EVP_PKEY *pkey, uint8_t out[TACK_HASH_LEN])
{
    uint8_t *der = NULL;
    int der_len;
    tack_status_t st;

    if (pkey == NULL || out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    der_len = i2d_PUBKEY(pkey, &der);
    st = tack_sha256_der(der, der_len, out);
    OPENSSL_free(der);
    return st;
}

/* DER tags of the certificate's outer structure (RFC 5280 section 4.1). */
#define DER_SEQUENCE 0x30
#define DER_INTEGER 0x02
#define DER_OID 0x06
#define DER_NULL 0x05
#define DER_BIT_STRING 0x03
#define DER_CONTEXT_0 0xa0 /* [0] EXPLICIT Version */

tack_status_t tack_cert_der_spki_hash(const uint8_t *der, size_t der_len,
                                      uint8_t out[TACK_HASH_LEN],
                                      const uint8_t **alg_oid,
                                      size_t *alg_oid_len)
{
    tack_cbs_t cbs, cert, tbs, skip, spki, spki_whole, alg, oid, bits, params;
    unsigned int md_len = 0;

    if ((der == NULL && der_len != 0) || out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    tack_cbs_init(&cbs, der, der_len);
    /* Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm,
     *   signatureValue }; TBSCertificate ::= SEQUENCE { [0] version
     *   OPTIONAL, serialNumber, signature, issuer, validity, subject,
     *   subjectPublicKeyInfo, ... } */
    if (!tack_cbs_get_der_tag(&cbs, DER_SEQUENCE, &cert, NULL)) {
        return TACK_ERR_TRUNCATED;
    }
    if (tack_cbs_len(&cbs) != 0) {
        return TACK_ERR_TRAILING;
    }
    if (!tack_cbs_get_der_tag(&cert, DER_SEQUENCE, &tbs, NULL)) {
        return TACK_ERR_BAD_LENGTH;
    }
    if (tack_cbs_len(&tbs) > 0 && tbs.data[0] == DER_CONTEXT_0 &&
        !tack_cbs_get_der_tag(&tbs, DER_CONTEXT_0, &skip, NULL)) {
        return TACK_ERR_BAD_LENGTH;
    }
    if (!tack_cbs_get_der_tag(&tbs, DER_INTEGER, &skip, NULL) ||
        !tack_cbs_get_der_tag(&tbs, DER_SEQUENCE, &skip, NULL) || /* sig */
        !tack_cbs_get_der_tag(&tbs, DER_SEQUENCE, &skip, NULL) || /* issuer */
        !tack_cbs_get_der_tag(&tbs, DER_SEQUENCE, &skip, NULL) || /* valid */
        !tack_cbs_get_der_tag(&tbs, DER_SEQUENCE, &skip, NULL) || /* subj */
        !tack_cbs_get_der_tag(&tbs, DER_SEQUENCE, &spki, &spki_whole)) {
        return TACK_ERR_BAD_LENGTH;
    }
    /* SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier,
     *   subjectPublicKey BIT STRING }.  The hash must equal the one of
     *   OpenSSL's re-encoding (tack_spki_hash, used at a real start), so
     *   only what is certainly in canonical DER is accepted: parameters
     *   absent, NULL or a curve OID (RSA, EC, EdDSA keys), a BIT STRING
     *   with its unused bits zero.  Anything else (RSA-PSS parameters, BER)
     *   is refused, and the caller decodes the certificate instead. */
    if (!tack_cbs_get_der_tag(&spki, DER_SEQUENCE, &alg, NULL) ||
        !tack_cbs_get_der_tag(&alg, DER_OID, &oid, NULL) || oid.len == 0 ||
        !tack_cbs_get_der_tag(&spki, DER_BIT_STRING, &bits, NULL) ||
        tack_cbs_len(&spki) != 0) {
        return TACK_ERR_BAD_LENGTH;
    }
    if (tack_cbs_len(&alg) > 0) {
        uint8_t ptag;

        if (!tack_cbs_get_der(&alg, &ptag, &params, NULL) ||
            tack_cbs_len(&alg) != 0 ||
            !((ptag == DER_NULL && params.len == 0) ||
              (ptag == DER_OID && params.len > 0))) {
            return TACK_ERR_BAD_LENGTH;
        }
    }
    if (bits.len == 0 || bits.data[0] > 7 ||
        (bits.len == 1 && bits.data[0] != 0) ||
        (bits.data[bits.len - 1] & ((1u << bits.data[0]) - 1)) != 0) {
        return TACK_ERR_BAD_LENGTH;
    }
    if (!EVP_Digest(spki_whole.data, spki_whole.len, out, &md_len, EVP_sha256(),
                    NULL)) {
        return TACK_ERR_CRYPTO;
    }
    if (alg_oid != NULL && alg_oid_len != NULL) {
        *alg_oid = oid.data;
        *alg_oid_len = oid.len;
    }
    return TACK_OK;
}

void tack_time_format(uint32_t minutes, char out[TACK_TIME_SIZE])
{
    time_t t = (time_t)minutes * 60;
    struct tm tm;

    if (gmtime_r(&t, &tm) == NULL ||
        strftime(out, TACK_TIME_SIZE, "%Y-%m-%dT%H:%MZ", &tm) == 0) {
        out[0] = '\0';
    }
}
