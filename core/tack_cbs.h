/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cbs.h -- the one bounds-checked cursor over untrusted bytes (private
 * to the core library; after BoringSSL's CBS and OpenSSL's PACKET).
 *
 * Every read of wire data goes through these primitives.  Each returns 1 on
 * success and 0 on failure, and leaves the cursor untouched when it fails;
 * the bounds arithmetic lives here and nowhere else.  A fixed-size writer with
 * a sticky error flag is the encoding counterpart.
 */
#ifndef TACK_CBS_H
#define TACK_CBS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t len;
} tack_cbs_t;

static inline void tack_cbs_init(tack_cbs_t *cbs, const uint8_t *data,
                                 size_t len)
{
    cbs->data = data;
    cbs->len = len;
}

static inline size_t tack_cbs_len(const tack_cbs_t *cbs)
{
    return cbs->len;
}

/* tack_cbs_get_bytes points |*out| at the next |n| bytes and skips them. */
static inline int tack_cbs_get_bytes(tack_cbs_t *cbs, const uint8_t **out,
                                     size_t n)
{
    if (cbs->len < n) {
        return 0;
    }
    *out = cbs->data;
    cbs->data += n;
    cbs->len -= n;
    return 1;
}

/* tack_cbs_copy copies the next |n| bytes to |out| and skips them. */
static inline int tack_cbs_copy(tack_cbs_t *cbs, uint8_t *out, size_t n)
{
    const uint8_t *p;

    if (!tack_cbs_get_bytes(cbs, &p, n)) {
        return 0;
    }
    memcpy(out, p, n);
    return 1;
}

/* tack_cbs_get_sub splits the next |n| bytes off as |*sub|. */
static inline int tack_cbs_get_sub(tack_cbs_t *cbs, tack_cbs_t *sub, size_t n)
{
    const uint8_t *p;

    if (!tack_cbs_get_bytes(cbs, &p, n)) {
        return 0;
    }
    tack_cbs_init(sub, p, n);
    return 1;
}

/* tack_cbs_get_uN read big-endian integers. */
static inline int tack_cbs_get_u8(tack_cbs_t *cbs, uint8_t *out)
{
    const uint8_t *p;

    if (!tack_cbs_get_bytes(cbs, &p, 1)) {
        return 0;
    }
    *out = p[0];
    return 1;
}

static inline int tack_cbs_get_u16(tack_cbs_t *cbs, uint16_t *out)
{
    const uint8_t *p;

    if (!tack_cbs_get_bytes(cbs, &p, 2)) {
        return 0;
    }
    *out = (uint16_t)((p[0] << 8) | p[1]);
    return 1;
}

static inline int tack_cbs_get_u32(tack_cbs_t *cbs, uint32_t *out)
{
    const uint8_t *p;

    if (!tack_cbs_get_bytes(cbs, &p, 4)) {
        return 0;
    }
    *out = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
    return 1;
}

/* tack_cbs_get_der reads one DER element with a single-byte tag: |*tag|
 * gets the tag, |*contents| its contents and, if |whole| is not NULL,
 * |*whole| the element with its header.  Only definite, minimally encoded
 * lengths up to 2^32 - 1 are accepted, as DER requires. */
static inline int tack_cbs_get_der(tack_cbs_t *cbs, uint8_t *tag,
                                   tack_cbs_t *contents, tack_cbs_t *whole)
{
    tack_cbs_t copy = *cbs;
    const uint8_t *start = cbs->data;
    uint8_t t, l0, b;
    size_t len = 0, header, i, nbytes;

    if (!tack_cbs_get_u8(&copy, &t) || (t & 0x1f) == 0x1f ||
        !tack_cbs_get_u8(&copy, &l0)) {
        return 0;
    }
    if (l0 < 0x80) {
        len = l0;
    } else {
        nbytes = l0 & 0x7f;
        if (nbytes == 0 || nbytes > 4) {
            return 0; /* indefinite (BER) or absurdly long */
        }
        for (i = 0; i < nbytes; i++) {
            if (!tack_cbs_get_u8(&copy, &b) || (i == 0 && b == 0)) {
                return 0; /* truncated, or a leading zero: not minimal */
            }
            len = (len << 8) | b;
        }
        if (len < 0x80) {
            return 0; /* the long form for a short length: not DER */
        }
    }
    header = (size_t)(copy.data - start);
    if (!tack_cbs_get_sub(&copy, contents, len)) {
        return 0;
    }
    if (whole != NULL) {
        tack_cbs_init(whole, start, header + len);
    }
    *tag = t;
    *cbs = copy;
    return 1;
}

/* tack_cbs_get_der_tag is tack_cbs_get_der requiring tag |want|. */
static inline int tack_cbs_get_der_tag(tack_cbs_t *cbs, uint8_t want,
                                       tack_cbs_t *contents, tack_cbs_t *whole)
{
    tack_cbs_t copy = *cbs;
    uint8_t tag;

    if (!tack_cbs_get_der(&copy, &tag, contents, whole) || tag != want) {
        return 0;
    }
    *cbs = copy;
    return 1;
}

/* The writer: a fixed buffer and a sticky error flag, checked once at the
 * end, so encoders read as a list of fields. */
typedef struct {
    uint8_t *data;
    size_t cap;
    size_t len;
    int err;
} tack_cbb_t;

static inline void tack_cbb_init(tack_cbb_t *cbb, uint8_t *data, size_t cap)
{
    cbb->data = data;
    cbb->cap = cap;
    cbb->len = 0;
    cbb->err = 0;
}

static inline void tack_cbb_add_bytes(tack_cbb_t *cbb, const uint8_t *in,
                                      size_t n)
{
    if (cbb->err || cbb->cap - cbb->len < n) {
        cbb->err = 1;
        return;
    }
    if (n > 0) {
        memcpy(cbb->data + cbb->len, in, n);
    }
    cbb->len += n;
}

static inline void tack_cbb_add_u8(tack_cbb_t *cbb, uint8_t v)
{
    tack_cbb_add_bytes(cbb, &v, 1);
}

static inline void tack_cbb_add_u16(tack_cbb_t *cbb, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

    tack_cbb_add_bytes(cbb, b, sizeof(b));
}

static inline void tack_cbb_add_u32(tack_cbb_t *cbb, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8),
                    (uint8_t)v};

    tack_cbb_add_bytes(cbb, b, sizeof(b));
}

#endif /* TACK_CBS_H */
