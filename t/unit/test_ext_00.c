/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_ext_00.c -- tack_ext.c's draft-00 extension body (TCase "ext00" of
 * the suite "ext", test_ext.c): the six known bodies of the reference
 * serializer, the s_client capture of the reference server, and the
 * parser's limits.
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "tack_key.h"
#include "tack_ext.h"
#include "tack_pem.h"

/* t/vectors/README.md, the table of ext00_*.hex files. */
typedef struct {
    const char *file;
    int has_tack;
    size_t num_breaksigs; /* the first n of TACK_Break_Sigs.pem */
    uint8_t pin_activation;
    size_t len;
    const char *sha256;
} ext00_vector_t;

static const ext00_vector_t ext00_vectors[] = {
    {"draft00/ext00_tack_only_act0.hex", 1, 0, 0, 170,
     "409b16a0c443aac33bdc465121d42d67157d68b961fb7ae32928ad182e506273"},
    {"draft00/ext00_tack_only_act1.hex", 1, 0, 1, 170,
     "bac02f7ec6a88096f3e8a8a554b3eec61ff23edd0b89e17ee0d2cbeffa6dece3"},
    {"draft00/ext00_tack_2breaks_act1.hex", 1, 2, 1, 426,
     "49e1a947e66059911e3f0d9689a080924a5aaf465c8eee4a416eeca02d11ab45"},
    {"draft00/ext00_tack_1break_act0.hex", 1, 1, 0, 298,
     "5a2dd22090bba9555689f24078add4692f542045af31abc88d6a4bdabdf3d2d1"},
    {"draft00/ext00_breaks_only_act0.hex", 0, 2, 0, 260,
     "98b398d36f9de0ec6c2e0f37077c4f369d43658bcd39fa0a13411e6eee8a95a8"},
    {"draft00/ext00_empty.hex", 0, 0, 0, 4,
     "df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119"},
};
#define N_EXT00_VECTORS (sizeof(ext00_vectors) / sizeof(ext00_vectors[0]))
#define EXT00_2BREAKS 2

/* The structure vector |i| was built from, read with the library's PEM
 * readers from TACK1.pem and TACK_Break_Sigs.pem. */
static void build_vector(int i, tack_ext00_t *ext)
{
    const ext00_vector_t *v = &ext00_vectors[i];
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    size_t count;

    memset(ext, 0, sizeof(*ext));
    if (v->has_tack) {
        ext->has_tack = 1;
        ext->tack = tt_load_tack("draft00/TACK1.pem", 0);
    }
    count = tt_load_breaksigs("draft00/TACK_Break_Sigs.pem", sigs,
                              TACK_MAX_BREAKSIGS);
    ck_assert_uint_eq(count, 2);
    memcpy(ext->breaksigs, sigs, v->num_breaksigs * sizeof(sigs[0]));
    ext->num_breaksigs = v->num_breaksigs;
    ext->pin_activation = v->pin_activation;
}

static void assert_ext00_eq(const tack_ext00_t *got, const tack_ext00_t *want)
{
    size_t i;

    ck_assert_int_eq(!!got->has_tack, !!want->has_tack);
    if (want->has_tack) {
        tt_assert_tack_eq(&got->tack, &want->tack);
    }
    ck_assert_uint_eq(got->num_breaksigs, want->num_breaksigs);
    for (i = 0; i < want->num_breaksigs; i++) {
        tt_assert_breaksig_eq(&got->breaksigs[i], &want->breaksigs[i]);
    }
    ck_assert_uint_eq(got->pin_activation, want->pin_activation);
}

/* A copy of |in| of exactly |len| bytes on the heap, so ASan sees any read
 * past the end. */
static uint8_t *exact_copy(const uint8_t *in, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);

    ck_assert_ptr_nonnull(copy);
    if (len > 0) {
        memcpy(copy, in, len);
    }
    return copy;
}

static tack_status_t parse_exact(tack_ext00_t *out, const uint8_t *in,
                                 size_t len)
{
    uint8_t *copy = exact_copy(in, len);
    tack_status_t st = tack_ext00_parse(out, copy, len);

    free(copy);
    return st;
}

START_TEST(ext00_known_bodies_have_readme_sha256)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    size_t len;
    uint8_t *want = tt_read_hex_vector(v->file, &len);
    char sha[65];

    ck_assert_uint_eq(len, v->len);
    tt_sha256_hex(sha, want, len);
    ck_assert_str_eq(sha, v->sha256);
    free(want);
}
END_TEST

START_TEST(ext00_encode_matches_the_reference_serializer)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    tack_ext00_t ext;
    uint8_t out[TACK_EXT00_MAX_LEN];
    size_t len, out_len = 0;
    uint8_t *want = tt_read_hex_vector(v->file, &len);
    char sha[65];

    build_vector(_i, &ext);
    ck_assert_status(tack_ext00_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out_len, v->len);
    ck_assert_uint_eq(out_len, len);
    ck_assert_mem_eq(out, want, len);
    tt_sha256_hex(sha, out, out_len);
    ck_assert_str_eq(sha, v->sha256);
    free(want);
}
END_TEST

START_TEST(ext00_encode_fits_a_buffer_of_exactly_its_length)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    tack_ext00_t ext;
    uint8_t *out = malloc(v->len);
    size_t out_len = 0;

    ck_assert_ptr_nonnull(out);
    build_vector(_i, &ext);
    ck_assert_status(tack_ext00_encode(&ext, out, v->len, &out_len), TACK_OK);
    ck_assert_uint_eq(out_len, v->len);
    free(out);
}
END_TEST

START_TEST(ext00_parse_known_bodies_gives_their_fields)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    tack_ext00_t want, got;
    size_t len;
    uint8_t *bytes = tt_read_hex_vector(v->file, &len);

    build_vector(_i, &want);
    ck_assert_status(parse_exact(&got, bytes, len), TACK_OK);
    assert_ext00_eq(&got, &want);
    if (got.has_tack) {
        ck_assert_status(tack_verify(&got.tack), TACK_OK);
    }
    for (len = 0; len < got.num_breaksigs; len++) {
        ck_assert_status(tack_breaksig_verify(&got.breaksigs[len]), TACK_OK);
    }
    free(bytes);
}
END_TEST

START_TEST(ext00_parse_then_encode_gives_the_same_bytes)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    tack_ext00_t ext;
    uint8_t out[TACK_EXT00_MAX_LEN];
    size_t len, out_len = 0;
    uint8_t *bytes = tt_read_hex_vector(v->file, &len);

    ck_assert_status(parse_exact(&ext, bytes, len), TACK_OK);
    ck_assert_status(tack_ext00_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out_len, len);
    ck_assert_mem_eq(out, bytes, len);
    free(bytes);
}
END_TEST

START_TEST(ext00_serverinfo_of_reference_server_is_header_and_body)
{
    size_t text_len, body_len;
    char *text =
        tt_read_vector("draft00/reference-server-s_client.txt", &text_len);
    uint8_t *body =
        tt_read_hex_vector("draft00/ext00_tack_2breaks_act1.hex", &body_len);
    static const uint8_t header[4] = {0xf3, 0x00, 0x01, 0xaa};
    tack_pem_t pem = {NULL, 0};
    unsigned line = 0;
    tack_ext00_t ext, want;

    ck_assert_status(tack_pem_decode(&pem, text, text_len,
                                     "SERVERINFO FOR EXTENSION 62208", &line),
                     TACK_OK);
    ck_assert_uint_eq(pem.count, 1);
    ck_assert_uint_eq(pem.blocks[0].line, 2);
    ck_assert_uint_eq(pem.blocks[0].len, 4 + body_len);
    ck_assert_mem_eq(pem.blocks[0].data, header, 4);
    ck_assert_uint_eq(
        ((size_t)pem.blocks[0].data[2] << 8) | pem.blocks[0].data[3], body_len);
    ck_assert_mem_eq(pem.blocks[0].data + 4, body, body_len);
    ck_assert_status(
        parse_exact(&ext, pem.blocks[0].data + 4, pem.blocks[0].len - 4),
        TACK_OK);
    build_vector(EXT00_2BREAKS, &want);
    assert_ext00_eq(&ext, &want);
    tack_pem_free(&pem);
    ck_assert_ptr_null(pem.blocks);
    ck_assert_uint_eq(pem.count, 0);
    free(body);
    free(text);
}
END_TEST

/* A body with a TACK and eight fresh break signatures: the longest one. */
static void build_max(tack_ext00_t *ext)
{
    size_t i;

    memset(ext, 0, sizeof(*ext));
    ext->has_tack = 1;
    ext->tack = tt_load_tack("draft00/TACK1.pem", 0);
    for (i = 0; i < TACK_MAX_BREAKSIGS; i++) {
        EVP_PKEY *key = NULL;

        ck_assert_status(tack_key_generate(&key), TACK_OK);
        ck_assert_status(tack_breaksig_create(&ext->breaksigs[i], key),
                         TACK_OK);
        EVP_PKEY_free(key);
    }
    ext->num_breaksigs = TACK_MAX_BREAKSIGS;
    ext->pin_activation = 1;
}

START_TEST(ext00_eight_breaksigs_and_a_tack_make_the_longest_body)
{
    tack_ext00_t ext, got;
    uint8_t out[TACK_EXT00_MAX_LEN];
    size_t out_len = 0;

    build_max(&ext);
    ck_assert_status(tack_ext00_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out_len, TACK_EXT00_MAX_LEN);
    ck_assert_uint_eq(out[0], TACK_LEN);
    ck_assert_uint_eq(out[1 + TACK_LEN], 0x04);
    ck_assert_uint_eq(out[2 + TACK_LEN], 0x00);
    ck_assert_uint_eq(out[TACK_EXT00_MAX_LEN - 1], 1);
    ck_assert_status(parse_exact(&got, out, out_len), TACK_OK);
    assert_ext00_eq(&got, &ext);
}
END_TEST

START_TEST(ext00_parse_checks_syntax_only)
{
    size_t len;
    uint8_t *bytes =
        tt_read_hex_vector("draft00/ext00_tack_2breaks_act1.hex", &len);
    tack_ext00_t ext;

    /* A broken TACK signature (last byte of the TACK) and a broken break
     * signature (last byte of the first): still well-formed. */
    bytes[TACK_LEN] ^= 0x01;
    bytes[1 + TACK_LEN + 2 + TACK_BREAKSIG_LEN - 1] ^= 0x01;
    ck_assert_status(parse_exact(&ext, bytes, len), TACK_OK);
    ck_assert_status(tack_verify(&ext.tack), TACK_ERR_BAD_SIGNATURE);
    ck_assert_status(tack_breaksig_verify(&ext.breaksigs[0]),
                     TACK_ERR_BAD_SIGNATURE);
    ck_assert_status(tack_breaksig_verify(&ext.breaksigs[1]), TACK_OK);
    free(bytes);
}
END_TEST

START_TEST(ext00_parse_of_encode_gives_the_same_structure)
{
    uint32_t seed = 0xe00e;
    int round;

    for (round = 0; round < 500; round++) {
        tack_ext00_t in, out;
        uint8_t wire[TACK_EXT00_MAX_LEN];
        size_t wire_len = 0, i;
        uint8_t *p = (uint8_t *)&in.tack;

        memset(&in, 0, sizeof(in));
        in.has_tack = (int)(tt_xorshift(&seed) & 1);
        if (in.has_tack) {
            for (i = 0; i < sizeof(in.tack); i++) {
                p[i] = (uint8_t)tt_xorshift(&seed);
            }
        }
        in.num_breaksigs = tt_xorshift(&seed) % (TACK_MAX_BREAKSIGS + 1);
        for (i = 0; i < in.num_breaksigs; i++) {
            size_t j;

            for (j = 0; j < TACK_KEY_LEN; j++) {
                in.breaksigs[i].public_key[j] = (uint8_t)tt_xorshift(&seed);
                in.breaksigs[i].signature[j] = (uint8_t)tt_xorshift(&seed);
            }
        }
        in.pin_activation = (uint8_t)(tt_xorshift(&seed) & 1);
        ck_assert_status(tack_ext00_encode(&in, wire, sizeof(wire), &wire_len),
                         TACK_OK);
        ck_assert_uint_eq(wire_len, 4 + (in.has_tack ? TACK_LEN : 0) +
                                        TACK_BREAKSIG_LEN * in.num_breaksigs);
        ck_assert_status(parse_exact(&out, wire, wire_len), TACK_OK);
        assert_ext00_eq(&out, &in);
    }
}
END_TEST

START_TEST(ext00_parse_rejects_every_truncation)
{
    tack_ext00_t ext;
    uint8_t max[TACK_EXT00_MAX_LEN];
    uint8_t *bytes;
    size_t len, n;

    if (_i < (int)N_EXT00_VECTORS) {
        bytes = tt_read_hex_vector(ext00_vectors[_i].file, &len);
    } else {
        build_max(&ext);
        ck_assert_status(tack_ext00_encode(&ext, max, sizeof(max), &len),
                         TACK_OK);
        bytes = exact_copy(max, len);
    }
    for (n = 0; n < len; n++) {
        tack_status_t st = parse_exact(&ext, bytes, n);

        ck_assert_msg(st == TACK_ERR_TRUNCATED, "%zu of %zu bytes: %s", n, len,
                      tack_status_str(st));
    }
    free(bytes);
}
END_TEST

START_TEST(ext00_parse_rejects_trailing_bytes)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    size_t len, extra;
    uint8_t *bytes = tt_read_hex_vector(v->file, &len);
    static const size_t extras[] = {1, 2, 100, TACK_BREAKSIG_LEN};

    for (extra = 0; extra < sizeof(extras) / sizeof(extras[0]); extra++) {
        uint8_t *longer = calloc(1, len + extras[extra]);
        tack_ext00_t ext;
        tack_status_t st;

        ck_assert_ptr_nonnull(longer);
        memcpy(longer, bytes, len);
        st = tack_ext00_parse(&ext, longer, len + extras[extra]);
        ck_assert_msg(st == TACK_ERR_TRAILING, "%zu extra zero bytes: %s",
                      extras[extra], tack_status_str(st));
        memset(longer + len, 0xff, extras[extra]);
        st = tack_ext00_parse(&ext, longer, len + extras[extra]);
        ck_assert_msg(st == TACK_ERR_TRAILING, "%zu extra 0xff bytes: %s",
                      extras[extra], tack_status_str(st));
        free(longer);
    }
    free(bytes);
}
END_TEST

/* Builds tack_len | tack_len bytes | break_sigs_len | break_sigs_len bytes |
 * activation, the declared lengths all present, into a malloc'd buffer. */
static uint8_t *build_raw(size_t tack_len, size_t break_sigs_len,
                          uint8_t activation, size_t *len)
{
    uint8_t *out;
    size_t i = 0;

    *len = 1 + tack_len + 2 + break_sigs_len + 1;
    out = malloc(*len);
    ck_assert_ptr_nonnull(out);
    memset(out, 0x5c, *len);
    out[i++] = (uint8_t)tack_len;
    i += tack_len;
    out[i++] = (uint8_t)(break_sigs_len >> 8);
    out[i++] = (uint8_t)break_sigs_len;
    i += break_sigs_len;
    out[i] = activation;
    return out;
}

static void assert_raw_status(size_t tack_len, size_t break_sigs_len,
                              uint8_t activation, tack_status_t want)
{
    size_t len;
    uint8_t *raw = build_raw(tack_len, break_sigs_len, activation, &len);
    tack_ext00_t ext;
    tack_status_t st = tack_ext00_parse(&ext, raw, len);

    ck_assert_msg(st == want,
                  "tack_len %zu, break_sigs_len %zu, activation %u: got %s, "
                  "want %s",
                  tack_len, break_sigs_len, activation, tack_status_str(st),
                  tack_status_str(want));
    free(raw);
}

/* Each failure names the field that failed and the offset of its first
 * byte, for messages that point at the right place (issue 16, item 9). */
static void assert_fault(size_t tack_len, size_t break_sigs_len,
                         uint8_t activation, size_t cut, size_t extra,
                         const char *field, size_t offset)
{
    size_t len;
    uint8_t *raw = build_raw(tack_len, break_sigs_len, activation, &len);
    uint8_t *buf = calloc(1, len + extra);
    tack_ext00_t ext;

    ck_assert_ptr_nonnull(buf);
    memcpy(buf, raw, len);
    ck_assert(tack_ext00_parse(&ext, buf, len - cut + extra) != TACK_OK);
    ck_assert_ptr_nonnull(ext.fault_field);
    ck_assert_str_eq(ext.fault_field, field);
    ck_assert_uint_eq(ext.fault_offset, offset);
    free(buf);
    free(raw);
}

START_TEST(ext00_parse_names_the_failing_field_and_offset)
{
    assert_fault(5, 0, 0, 0, 0, "tack_len", 0);
    assert_fault(166, 0, 0, 100, 0, "tack", 1);
    assert_fault(166, 0, 0, 4, 0, "tack", 1); /* one byte short */
    assert_fault(166, 0, 0, 2, 0, "break_sigs_len", 167);
    assert_fault(166, 1152, 0, 0, 0, "break_sigs_len", 167);
    assert_fault(0, 129, 0, 0, 0, "break_sigs_len", 1);
    assert_fault(0, 256, 0, 10, 0, "break_sigs", 3);
    assert_fault(0, 128, 2, 0, 0, "pin_activation", 131);
    assert_fault(0, 128, 0, 1, 0, "pin_activation", 131);
    assert_fault(166, 128, 1, 0, 1, "end", 298);
}
END_TEST

START_TEST(ext00_parse_accepts_every_legal_length)
{
    size_t n;

    for (n = 0; n <= TACK_MAX_BREAKSIGS; n++) {
        assert_raw_status(0, n * TACK_BREAKSIG_LEN, 0, TACK_OK);
        assert_raw_status(TACK_LEN, n * TACK_BREAKSIG_LEN, 1, TACK_OK);
    }
}
END_TEST

START_TEST(ext00_parse_rejects_tack_len_other_than_0_or_166)
{
    static const size_t bad[] = {167, 165, 1, 100, 255};
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_raw_status(bad[i], 0, 0, TACK_ERR_BAD_LENGTH);
        assert_raw_status(bad[i], TACK_BREAKSIG_LEN, 1, TACK_ERR_BAD_LENGTH);
    }
}
END_TEST

START_TEST(ext00_parse_rejects_break_sigs_len_over_1024)
{
    /* 1025 is also not a multiple of 128: the count limit is what the
     * draft states first, and 1152 is exactly nine signatures. */
    assert_raw_status(0, 1025, 0, TACK_ERR_TOO_MANY_BREAKSIGS);
    assert_raw_status(0, 1152, 0, TACK_ERR_TOO_MANY_BREAKSIGS);
    assert_raw_status(TACK_LEN, 1152, 1, TACK_ERR_TOO_MANY_BREAKSIGS);
    assert_raw_status(0, 1280, 0, TACK_ERR_TOO_MANY_BREAKSIGS);
    assert_raw_status(0, 0xffff, 0, TACK_ERR_TOO_MANY_BREAKSIGS);
}
END_TEST

START_TEST(ext00_parse_rejects_break_sigs_len_not_a_multiple_of_128)
{
    static const size_t bad[] = {129, 1, 64, 127, 255, 257, 1023};
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_raw_status(0, bad[i], 0, TACK_ERR_BAD_LENGTH);
        assert_raw_status(TACK_LEN, bad[i], 1, TACK_ERR_BAD_LENGTH);
    }
}
END_TEST

START_TEST(ext00_parse_rejects_pin_activation_above_1)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    static const uint8_t bad[] = {2, 3, 0x80, 0xff};
    size_t len, i;
    uint8_t *bytes = tt_read_hex_vector(v->file, &len);

    for (i = 0; i < sizeof(bad); i++) {
        tack_ext00_t ext;
        tack_status_t st;

        bytes[len - 1] = bad[i];
        st = parse_exact(&ext, bytes, len);
        ck_assert_msg(st == TACK_ERR_BAD_FLAGS, "pin_activation %u: %s", bad[i],
                      tack_status_str(st));
    }
    free(bytes);
}
END_TEST

START_TEST(ext00_encode_refuses_more_than_eight_breaksigs)
{
    tack_ext00_t ext;
    uint8_t out[TACK_EXT00_MAX_LEN + TACK_BREAKSIG_LEN];
    size_t out_len = 0;

    build_vector(EXT00_2BREAKS, &ext);
    ext.num_breaksigs = TACK_MAX_BREAKSIGS + 1;
    ck_assert_status(tack_ext00_encode(&ext, out, sizeof(out), &out_len),
                     TACK_ERR_TOO_MANY_BREAKSIGS);
    ext.num_breaksigs = (size_t)-1;
    ck_assert_status(tack_ext00_encode(&ext, out, sizeof(out), &out_len),
                     TACK_ERR_TOO_MANY_BREAKSIGS);
}
END_TEST

START_TEST(ext00_encode_refuses_pin_activation_above_1)
{
    tack_ext00_t ext;
    uint8_t out[TACK_EXT00_MAX_LEN];
    size_t out_len = 0;

    build_vector(EXT00_2BREAKS, &ext);
    ext.pin_activation = 2;
    ck_assert_status(tack_ext00_encode(&ext, out, sizeof(out), &out_len),
                     TACK_ERR_BAD_FLAGS);
    ext.pin_activation = 0xff;
    ck_assert_status(tack_ext00_encode(&ext, out, sizeof(out), &out_len),
                     TACK_ERR_BAD_FLAGS);
}
END_TEST

START_TEST(ext00_encode_refuses_every_short_buffer)
{
    const ext00_vector_t *v = &ext00_vectors[_i];
    tack_ext00_t ext;
    size_t cap, i;

    build_vector(_i, &ext);
    for (cap = 0; cap < v->len; cap++) {
        uint8_t buf[TACK_EXT00_MAX_LEN + 16];
        size_t out_len = 0;

        memset(buf, 0xcc, sizeof(buf));
        ck_assert_msg(tack_ext00_encode(&ext, buf, cap, &out_len) ==
                          TACK_ERR_BUFFER_TOO_SMALL,
                      "capacity %zu of %zu accepted", cap, v->len);
        for (i = cap; i < sizeof(buf); i++) {
            ck_assert_msg(buf[i] == 0xcc, "capacity %zu: byte %zu written", cap,
                          i);
        }
    }
}
END_TEST

/* Mutates |buf| (|*len| bytes, capacity |cap|) in one of a few ways. */
static void mutate(uint8_t *buf, size_t *len, size_t cap, uint32_t *seed)
{
    uint32_t r = tt_xorshift(seed);
    size_t pos = *len ? tt_xorshift(seed) % *len : 0;

    switch (r % 6) {
    case 0:
        if (*len) {
            buf[pos] ^= (uint8_t)(1u << (tt_xorshift(seed) % 8));
        }
        break;
    case 1:
        if (*len) {
            buf[pos] = (uint8_t)tt_xorshift(seed);
        }
        break;
    case 2:
        *len = pos;
        break;
    case 3:
        while (*len < cap && (tt_xorshift(seed) & 3) != 0) {
            buf[(*len)++] = (uint8_t)tt_xorshift(seed);
        }
        break;
    case 4:
        /* Interesting values in the length fields. */
        if (*len > 0) {
            static const uint8_t v[] = {0,    1,    0x7f, 0x80, 0xa5,
                                        0xa6, 0xa7, 0xff, 0x04, 0x03};
            buf[0] = v[tt_xorshift(seed) % sizeof(v)];
        }
        break;
    default:
        if (*len > 1) {
            buf[*len - 1] = (uint8_t)(tt_xorshift(seed) % 3);
        }
        break;
    }
}

START_TEST(ext00_parse_survives_random_mutations)
{
    static const int bases[] = {2, 4, 5, 0};
    uint32_t seed = 0x00c0ffee;
    int round;
    uint8_t *base_bytes[4];
    size_t base_len[4];
    size_t b;

    for (b = 0; b < 4; b++) {
        base_bytes[b] =
            tt_read_hex_vector(ext00_vectors[bases[b]].file, &base_len[b]);
    }
    for (round = 0; round < 20000; round++) {
        uint8_t buf[TACK_EXT00_MAX_LEN + 64];
        size_t len, k, n = 1 + tt_xorshift(&seed) % 4;
        tack_ext00_t ext;
        uint8_t *copy;
        tack_status_t st;

        b = tt_xorshift(&seed) % 4;
        len = base_len[b];
        memcpy(buf, base_bytes[b], len);
        for (k = 0; k < n; k++) {
            mutate(buf, &len, sizeof(buf), &seed);
        }
        copy = exact_copy(buf, len);
        st = tack_ext00_parse(&ext, copy, len);
        ck_assert_msg((unsigned)st < (unsigned)TACK_STATUS_COUNT,
                      "round %d: status %d", round, (int)st);
        if (st == TACK_OK) {
            uint8_t out[TACK_EXT00_MAX_LEN];
            size_t out_len = 0;

            /* Whatever parses is canonical: it encodes back to itself. */
            ck_assert_uint_le(ext.num_breaksigs, TACK_MAX_BREAKSIGS);
            ck_assert_uint_le(ext.pin_activation, 1);
            ck_assert_status(
                tack_ext00_encode(&ext, out, sizeof(out), &out_len), TACK_OK);
            ck_assert_uint_eq(out_len, len);
            ck_assert_mem_eq(out, copy, len);
        }
        free(copy);
    }
    for (b = 0; b < 4; b++) {
        free(base_bytes[b]);
    }
}
END_TEST

TCase *ext_00_tcase(void)
{
    TCase *tc = tcase_create("ext00");
    int n = (int)N_EXT00_VECTORS;

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_loop_test(tc, ext00_known_bodies_have_readme_sha256, 0, n);
    tcase_add_loop_test(tc, ext00_encode_matches_the_reference_serializer, 0,
                        n);
    tcase_add_loop_test(tc, ext00_encode_fits_a_buffer_of_exactly_its_length, 0,
                        n);
    tcase_add_loop_test(tc, ext00_parse_known_bodies_gives_their_fields, 0, n);
    tcase_add_loop_test(tc, ext00_parse_then_encode_gives_the_same_bytes, 0, n);
    tcase_add_test(tc, ext00_serverinfo_of_reference_server_is_header_and_body);
    tcase_add_test(tc, ext00_eight_breaksigs_and_a_tack_make_the_longest_body);
    tcase_add_test(tc, ext00_parse_checks_syntax_only);
    tcase_add_test(tc, ext00_parse_of_encode_gives_the_same_structure);
    /* The six known bodies and the longest one. */
    tcase_add_loop_test(tc, ext00_parse_rejects_every_truncation, 0, n + 1);
    tcase_add_loop_test(tc, ext00_parse_rejects_trailing_bytes, 0, n);
    tcase_add_test(tc, ext00_parse_accepts_every_legal_length);
    tcase_add_test(tc, ext00_parse_names_the_failing_field_and_offset);
    tcase_add_test(tc, ext00_parse_rejects_tack_len_other_than_0_or_166);
    tcase_add_test(tc, ext00_parse_rejects_break_sigs_len_over_1024);
    tcase_add_test(tc,
                   ext00_parse_rejects_break_sigs_len_not_a_multiple_of_128);
    tcase_add_loop_test(tc, ext00_parse_rejects_pin_activation_above_1, 0, n);
    tcase_add_test(tc, ext00_encode_refuses_more_than_eight_breaksigs);
    tcase_add_test(tc, ext00_encode_refuses_pin_activation_above_1);
    tcase_add_loop_test(tc, ext00_encode_refuses_every_short_buffer, 0, n);
    tcase_add_test(tc, ext00_parse_survives_random_mutations);
    return tc;
}
