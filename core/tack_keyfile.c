/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_keyfile.c -- the password-protected TACK PRIVATE KEY file of TACKpy.
 *
 *   version(1) = 1 | iterations(4) | salt(16) | ciphertext(32)
 *   | public_key(64) | mac(32)
 *
 *   master  = PBKDF2-HMAC-SHA256(password, salt, iterations), 32 bytes
 *   enc_key = HMAC-SHA256(master, 0x01)
 *   mac_key = HMAC-SHA256(master, 0x02)
 *   ciphertext = AES-256-CBC(enc_key, IV = 0, no padding, private scalar)
 *   mac = HMAC-SHA256(mac_key, ciphertext || public_key)
 *
 * Every derived secret is wiped before return; the MAC is compared in
 * constant time, before anything is decrypted.
 */
#include "tack_keyfile.h"
#include "tack_cbs.h"
#include "tack_key.h"
#include "tack_pem.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

tack_status_t tack_keyfile_parse(tack_keyfile_t *out, const uint8_t *in,
                                 size_t in_len)
{
    tack_cbs_t cbs;
    uint8_t version;

    if (out == NULL || (in == NULL && in_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    tack_cbs_init(&cbs, in, in_len);
    if (!tack_cbs_get_u8(&cbs, &version)) {
        return TACK_ERR_TRUNCATED;
    }
    if (version != TACK_KEYFILE_VERSION) {
        return TACK_ERR_KEYFILE_VERSION;
    }
    if (!tack_cbs_get_u32(&cbs, &out->iterations)) {
        return TACK_ERR_TRUNCATED;
    }
    /* A hostile file must not make the caller spin in PBKDF2 for hours. */
    if (out->iterations == 0 || out->iterations > TACK_KEYFILE_MAX_ITERATIONS) {
        return TACK_ERR_KEYFILE_ITERATIONS;
    }
    if (!tack_cbs_copy(&cbs, out->salt, TACK_KEYFILE_SALT_LEN) ||
        !tack_cbs_copy(&cbs, out->ciphertext, TACK_PRIV_LEN) ||
        !tack_cbs_copy(&cbs, out->public_key, TACK_KEY_LEN) ||
        !tack_cbs_copy(&cbs, out->mac, sizeof(out->mac))) {
        return TACK_ERR_TRUNCATED;
    }
    if (tack_cbs_len(&cbs) != 0) {
        return TACK_ERR_TRAILING;
    }
    return TACK_OK;
}

void tack_keyfile_encode(const tack_keyfile_t *kf,
                         uint8_t out[TACK_KEYFILE_LEN])
{
    tack_cbb_t cbb;

    tack_cbb_init(&cbb, out, TACK_KEYFILE_LEN);
    tack_cbb_add_u8(&cbb, TACK_KEYFILE_VERSION);
    tack_cbb_add_u32(&cbb, kf->iterations);
    tack_cbb_add_bytes(&cbb, kf->salt, TACK_KEYFILE_SALT_LEN);
    tack_cbb_add_bytes(&cbb, kf->ciphertext, TACK_PRIV_LEN);
    tack_cbb_add_bytes(&cbb, kf->public_key, TACK_KEY_LEN);
    tack_cbb_add_bytes(&cbb, kf->mac, sizeof(kf->mac));
}

static int keyfile_hmac(const uint8_t *key, size_t key_len, const uint8_t *data,
                        size_t data_len, uint8_t out[32])
{
    size_t out_len = 0;

    return EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, key_len, data,
                     data_len, out, 32, &out_len) != NULL &&
           out_len == 32;
}

/* keyfile_derive computes enc_key and mac_key from the password. */
static tack_status_t keyfile_derive(const tack_keyfile_t *kf,
                                    const char *password, size_t password_len,
                                    uint8_t enc_key[32], uint8_t mac_key[32])
{
    uint8_t master[32];
    static const uint8_t one = 0x01, two = 0x02;
    tack_status_t st = TACK_ERR_CRYPTO;

    if (kf->iterations == 0 || kf->iterations > TACK_KEYFILE_MAX_ITERATIONS ||
        password_len > INT32_MAX) {
        return TACK_ERR_KEYFILE_ITERATIONS;
    }
    if (PKCS5_PBKDF2_HMAC(password, (int)password_len, kf->salt,
                          TACK_KEYFILE_SALT_LEN, (int)kf->iterations,
                          EVP_sha256(), sizeof(master), master) == 1 &&
        keyfile_hmac(master, sizeof(master), &one, 1, enc_key) &&
        keyfile_hmac(master, sizeof(master), &two, 1, mac_key)) {
        st = TACK_OK;
    }
    OPENSSL_cleanse(master, sizeof(master));
    return st;
}

/* keyfile_mac computes HMAC-SHA256(mac_key, ciphertext || public_key). */
static int keyfile_mac(const tack_keyfile_t *kf, const uint8_t mac_key[32],
                       uint8_t out[32])
{
    uint8_t data[TACK_PRIV_LEN + TACK_KEY_LEN];

    memcpy(data, kf->ciphertext, TACK_PRIV_LEN);
    memcpy(data + TACK_PRIV_LEN, kf->public_key, TACK_KEY_LEN);
    return keyfile_hmac(mac_key, 32, data, sizeof(data), out);
}

/* keyfile_aes runs AES-256-CBC with a zero IV and no padding over exactly
 * 32 bytes, in the direction |enc| says. */
static int keyfile_aes(const uint8_t key[32], const uint8_t in[32],
                       uint8_t out[32], int enc)
{
    static const uint8_t iv[16] = {0};
    EVP_CIPHER_CTX *ctx;
    int n1 = 0, n2 = 0, ok;

    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) {
        return 0;
    }
    ok = EVP_CipherInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv, enc) == 1 &&
         EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
         EVP_CipherUpdate(ctx, out, &n1, in, 32) == 1 &&
         EVP_CipherFinal_ex(ctx, out + n1, &n2) == 1 && n1 + n2 == 32;
    EVP_CIPHER_CTX_free(ctx); /* cleanses the key schedule */
    return ok;
}

tack_status_t tack_keyfile_decrypt(const tack_keyfile_t *kf,
                                   const char *password, size_t password_len,
                                   EVP_PKEY **out)
{
    uint8_t enc_key[32], mac_key[32], mac[32], priv[TACK_PRIV_LEN];
    uint8_t pub[TACK_KEY_LEN];
    EVP_PKEY *key = NULL;
    tack_status_t st;

    if (kf == NULL || out == NULL || (password == NULL && password_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    st = keyfile_derive(kf, password != NULL ? password : "", password_len,
                        enc_key, mac_key);
    if (st != TACK_OK) {
        goto done;
    }
    if (!keyfile_mac(kf, mac_key, mac)) {
        st = TACK_ERR_CRYPTO;
        goto done;
    }
    /* A wrong password shows only as a MAC mismatch; compare in constant
     * time and decrypt nothing before it matches. */
    if (CRYPTO_memcmp(mac, kf->mac, sizeof(mac)) != 0) {
        st = TACK_ERR_WRONG_PASSWORD;
        goto done;
    }
    if (!keyfile_aes(enc_key, kf->ciphertext, priv, 0)) {
        st = TACK_ERR_CRYPTO;
        goto done;
    }
    st = tack_key_from_private(&key, priv);
    if (st == TACK_ERR_BAD_KEY) {
        st = TACK_ERR_KEY_MISMATCH; /* authentic file, impossible scalar */
    }
    if (st != TACK_OK) {
        goto done;
    }
    st = tack_key_public(key, pub);
    if (st == TACK_OK &&
        CRYPTO_memcmp(pub, kf->public_key, TACK_KEY_LEN) != 0) {
        st = TACK_ERR_KEY_MISMATCH;
    }
    if (st == TACK_OK) {
        *out = key;
        key = NULL;
    }
done:
    EVP_PKEY_free(key);
    OPENSSL_cleanse(enc_key, sizeof(enc_key));
    OPENSSL_cleanse(mac_key, sizeof(mac_key));
    OPENSSL_cleanse(priv, sizeof(priv));
    return st;
}

tack_status_t tack_keyfile_create(tack_keyfile_t *out, EVP_PKEY *key,
                                  const char *password, size_t password_len,
                                  uint32_t iterations)
{
    uint8_t enc_key[32], mac_key[32], priv[TACK_PRIV_LEN];
    tack_status_t st;

    if (out == NULL || key == NULL || (password == NULL && password_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    memset(out, 0, sizeof(*out));
    out->iterations =
        iterations != 0 ? iterations : TACK_KEYFILE_DEFAULT_ITERATIONS;
    if (out->iterations > TACK_KEYFILE_MAX_ITERATIONS) {
        return TACK_ERR_KEYFILE_ITERATIONS;
    }
    if ((st = tack_key_public(key, out->public_key)) != TACK_OK ||
        (st = tack_key_private(key, priv)) != TACK_OK) {
        goto done;
    }
    st = TACK_ERR_CRYPTO;
    if (RAND_bytes(out->salt, sizeof(out->salt)) != 1) {
        goto done;
    }
    st = keyfile_derive(out, password != NULL ? password : "", password_len,
                        enc_key, mac_key);
    if (st != TACK_OK) {
        goto done;
    }
    st = TACK_ERR_CRYPTO;
    if (keyfile_aes(enc_key, priv, out->ciphertext, 1) &&
        keyfile_mac(out, mac_key, out->mac)) {
        st = TACK_OK;
    }
done:
    OPENSSL_cleanse(enc_key, sizeof(enc_key));
    OPENSSL_cleanse(mac_key, sizeof(mac_key));
    OPENSSL_cleanse(priv, sizeof(priv));
    if (st != TACK_OK) {
        OPENSSL_cleanse(out, sizeof(*out));
    }
    return st;
}

tack_status_t tack_keyfile_from_pem(tack_keyfile_t *out, const char *pem,
                                    size_t pem_len, unsigned *err_line)
{
    tack_pem_t blocks;
    tack_status_t st;

    if (out == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    st = tack_pem_decode(&blocks, pem, pem_len, TACK_PEM_LABEL_KEY, err_line);
    if (st != TACK_OK) {
        return st;
    }
    if (blocks.count > 1) {
        if (err_line != NULL) {
            *err_line = blocks.blocks[1].line;
        }
        st = TACK_ERR_TRAILING;
    } else if (blocks.blocks[0].len != TACK_KEYFILE_LEN) {
        if (err_line != NULL) {
            *err_line = blocks.blocks[0].line;
        }
        st = TACK_ERR_BAD_LENGTH;
    } else {
        st = tack_keyfile_parse(out, blocks.blocks[0].data,
                                blocks.blocks[0].len);
        if (st != TACK_OK && err_line != NULL) {
            *err_line = blocks.blocks[0].line;
        }
    }
    tack_pem_free(&blocks);
    return st;
}
