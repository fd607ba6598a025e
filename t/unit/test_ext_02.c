/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_ext_02.c -- tack_ext.c's draft-02 extension body (TCase "ext02" of
 * the suite "ext", test_ext.c): tlslite-ng's known answer, the two-TACK
 * pair from its tests, and the parser's limits; and the body a server
 * sends in either format (tack_answer_encode).
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "tack_ext.h"

/* tlslite-ng's unit-test TACK: public_key 64 x 01, min_generation 2,
 * generation 3, expiration 4, target_hash 32 x 05, signature 64 x 06,
 * activation_flags 1. */
static void known_answer_ext(tack_ext02_t *ext)
{
    memset(ext, 0, sizeof(*ext));
    ext->num_tacks = 1;
    memset(ext->tacks[0].public_key, 0x01, TACK_KEY_LEN);
    ext->tacks[0].min_generation = 2;
    ext->tacks[0].generation = 3;
    ext->tacks[0].expiration = 4;
    memset(ext->tacks[0].target_hash, 0x05, TACK_HASH_LEN);
    memset(ext->tacks[0].signature, 0x06, TACK_SIG_LEN);
    ext->activation_flags = 1;
}

/* 00 a6 | 01 x 64 | 02 | 03 | 00 00 00 04 | 05 x 32 | 06 x 64 | 01 */
static size_t known_answer_bytes(uint8_t out[2 + TACK_LEN + 1])
{
    size_t i = 0;

    out[i++] = 0x00;
    out[i++] = 0xa6;
    memset(out + i, 0x01, 64);
    i += 64;
    out[i++] = 0x02;
    out[i++] = 0x03;
    out[i++] = 0x00;
    out[i++] = 0x00;
    out[i++] = 0x00;
    out[i++] = 0x04;
    memset(out + i, 0x05, 32);
    i += 32;
    memset(out + i, 0x06, 64);
    i += 64;
    out[i++] = 0x01;
    return i;
}

static void pair_ext(tack_ext02_t *ext, uint8_t flags)
{
    memset(ext, 0, sizeof(*ext));
    ext->num_tacks = 2;
    ext->tacks[0] = tt_load_tack("draft02/TACK1.pem", 0);
    ext->tacks[1] = tt_load_tack("draft02/TACK2.pem", 0);
    ext->activation_flags = flags;
}

static void assert_ext02_eq(const tack_ext02_t *got, const tack_ext02_t *want)
{
    size_t i;

    ck_assert_uint_eq(got->num_tacks, want->num_tacks);
    for (i = 0; i < want->num_tacks; i++) {
        tt_assert_tack_eq(&got->tacks[i], &want->tacks[i]);
    }
    ck_assert_uint_eq(got->activation_flags, want->activation_flags);
}

static uint8_t *exact_copy(const uint8_t *in, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);

    ck_assert_ptr_nonnull(copy);
    if (len > 0) {
        memcpy(copy, in, len);
    }
    return copy;
}

static tack_status_t parse_exact(tack_ext02_t *out, const uint8_t *in,
                                 size_t len)
{
    uint8_t *copy = exact_copy(in, len);
    tack_status_t st = tack_ext02_parse(out, copy, len);

    free(copy);
    return st;
}

START_TEST(ext02_known_answer_encodes_to_tlslite_bytes)
{
    tack_ext02_t ext;
    uint8_t want[2 + TACK_LEN + 1], out[TACK_EXT02_MAX_LEN];
    size_t want_len = known_answer_bytes(want), out_len = 0;

    ck_assert_uint_eq(want_len, 169);
    known_answer_ext(&ext);
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out_len, want_len);
    ck_assert_mem_eq(out, want, want_len);
}
END_TEST

START_TEST(ext02_known_answer_parses_to_its_fields)
{
    tack_ext02_t want, got;
    uint8_t bytes[2 + TACK_LEN + 1];
    size_t len = known_answer_bytes(bytes);

    known_answer_ext(&want);
    ck_assert_status(parse_exact(&got, bytes, len), TACK_OK);
    assert_ext02_eq(&got, &want);
}
END_TEST

START_TEST(ext02_empty_object_of_tlslite_is_no_tack)
{
    static const uint8_t empty[3] = {0x00, 0x00, 0x00};
    tack_ext02_t ext;

    ck_assert_status(parse_exact(&ext, empty, sizeof(empty)), TACK_ERR_NO_TACK);
}
END_TEST

START_TEST(ext02_draft02_pair_has_readme_fingerprints_and_target)
{
    tack_ext02_t ext, got;
    uint8_t out[TACK_EXT02_MAX_LEN], spki[TACK_HASH_LEN];
    size_t out_len = 0, i;
    char fp[TACK_FINGERPRINT_SIZE];
    X509 *cert = tt_load_cert("draft02/serverX509Cert.pem");
    static const char *const fps[2] = {"5lcbe.eyweo.yxuan.rw6xd.jtoz7",
                                       "oagrn.kfxeo.zz2zn.plssa.uzblz"};

    ck_assert_status(tack_spki_hash(cert, spki), TACK_OK);
    pair_ext(&ext, 1);
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_status(parse_exact(&got, out, out_len), TACK_OK);
    ck_assert_uint_eq(got.num_tacks, 2);
    for (i = 0; i < 2; i++) {
        tack_fingerprint(got.tacks[i].public_key, fp);
        ck_assert_str_eq(fp, fps[i]);
        ck_assert_mem_eq(got.tacks[i].target_hash, spki, TACK_HASH_LEN);
        ck_assert_status(tack_check_target(&got.tacks[i], cert), TACK_OK);
        ck_assert_status(tack_verify(&got.tacks[i]), TACK_OK);
    }
    X509_free(cert);
}
END_TEST

START_TEST(ext02_two_tacks_round_trip)
{
    tack_ext02_t ext, got;
    uint8_t out[TACK_EXT02_MAX_LEN], wire[TACK_LEN];
    size_t out_len = 0;

    /* _i is the activation_flags value, 0..3. */
    pair_ext(&ext, (uint8_t)_i);
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out_len, TACK_EXT02_MAX_LEN);
    ck_assert_uint_eq(out[0], 0x01);
    ck_assert_uint_eq(out[1], 0x4c);
    tack_encode(&ext.tacks[0], wire);
    ck_assert_mem_eq(out + 2, wire, TACK_LEN);
    tack_encode(&ext.tacks[1], wire);
    ck_assert_mem_eq(out + 2 + TACK_LEN, wire, TACK_LEN);
    ck_assert_uint_eq(out[TACK_EXT02_MAX_LEN - 1], (unsigned)_i);
    ck_assert_status(parse_exact(&got, out, out_len), TACK_OK);
    assert_ext02_eq(&got, &ext);
}
END_TEST

START_TEST(ext02_parse_of_encode_gives_the_same_structure)
{
    uint32_t seed = 0x0202;
    int round;

    for (round = 0; round < 500; round++) {
        tack_ext02_t in, out;
        uint8_t wire[TACK_EXT02_MAX_LEN];
        size_t wire_len = 0, i;

        memset(&in, 0, sizeof(in));
        in.num_tacks = 1 + (tt_xorshift(&seed) & 1);
        for (i = 0; i < in.num_tacks; i++) {
            uint8_t *p = (uint8_t *)&in.tacks[i];
            size_t j;

            for (j = 0; j < sizeof(tack_t); j++) {
                p[j] = (uint8_t)tt_xorshift(&seed);
            }
        }
        in.activation_flags =
            (uint8_t)(tt_xorshift(&seed) & (in.num_tacks == 2 ? 3 : 1));
        ck_assert_status(tack_ext02_encode(&in, wire, sizeof(wire), &wire_len),
                         TACK_OK);
        ck_assert_uint_eq(wire_len, 3 + TACK_LEN * in.num_tacks);
        ck_assert_status(parse_exact(&out, wire, wire_len), TACK_OK);
        assert_ext02_eq(&out, &in);
    }
}
END_TEST

START_TEST(ext02_duplicate_keys_are_refused_on_encode_and_parse)
{
    tack_ext02_t ext;
    uint8_t out[TACK_EXT02_MAX_LEN], raw[TACK_EXT02_MAX_LEN];
    size_t out_len = 0;

    /* The same TACK twice. */
    pair_ext(&ext, 3);
    ext.tacks[1] = ext.tacks[0];
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_ERR_DUPLICATE_KEY);
    raw[0] = 0x01;
    raw[1] = 0x4c;
    tack_encode(&ext.tacks[0], raw + 2);
    tack_encode(&ext.tacks[0], raw + 2 + TACK_LEN);
    raw[TACK_EXT02_MAX_LEN - 1] = 0x03;
    ck_assert_status(parse_exact(&ext, raw, sizeof(raw)),
                     TACK_ERR_DUPLICATE_KEY);

    /* Two different TACKs of one key: TACK1 and TACKunrelated of draft 00. */
    memset(&ext, 0, sizeof(ext));
    ext.num_tacks = 2;
    ext.tacks[0] = tt_load_tack("draft00/TACK1.pem", 0);
    ext.tacks[1] = tt_load_tack("draft00/TACKunrelated.pem", 0);
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_ERR_DUPLICATE_KEY);
    tack_encode(&ext.tacks[0], raw + 2);
    tack_encode(&ext.tacks[1], raw + 2 + TACK_LEN);
    raw[TACK_EXT02_MAX_LEN - 1] = 0x00;
    ck_assert_status(parse_exact(&ext, raw, sizeof(raw)),
                     TACK_ERR_DUPLICATE_KEY);
}
END_TEST

static uint8_t *body_bytes(int which, size_t *len)
{
    if (which == 0) {
        uint8_t bytes[2 + TACK_LEN + 1];

        *len = known_answer_bytes(bytes);
        return exact_copy(bytes, *len);
    } else {
        tack_ext02_t ext;
        uint8_t out[TACK_EXT02_MAX_LEN];

        pair_ext(&ext, 3);
        ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), len),
                         TACK_OK);
        return exact_copy(out, *len);
    }
}

START_TEST(ext02_parse_rejects_every_truncation)
{
    size_t len, n;
    uint8_t *bytes = body_bytes(_i, &len);

    for (n = 0; n < len; n++) {
        tack_ext02_t ext;
        tack_status_t st = parse_exact(&ext, bytes, n);

        ck_assert_msg(st == TACK_ERR_TRUNCATED, "%zu of %zu bytes: %s", n, len,
                      tack_status_str(st));
    }
    free(bytes);
}
END_TEST

START_TEST(ext02_parse_rejects_trailing_bytes)
{
    size_t len, i;
    uint8_t *bytes = body_bytes(_i, &len);
    static const size_t extras[] = {1, 2, 100, TACK_LEN};

    for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
        uint8_t *longer = calloc(1, len + extras[i]);
        tack_ext02_t ext;
        tack_status_t st;

        ck_assert_ptr_nonnull(longer);
        memcpy(longer, bytes, len);
        st = tack_ext02_parse(&ext, longer, len + extras[i]);
        ck_assert_msg(st == TACK_ERR_TRAILING, "%zu extra bytes: %s", extras[i],
                      tack_status_str(st));
        free(longer);
    }
    free(bytes);
}
END_TEST

/* tacks_len | tacks_len bytes of distinct filler | flags */
static tack_status_t parse_raw(size_t tacks_len, uint8_t flags)
{
    size_t len = 2 + tacks_len + 1, i;
    uint8_t *raw = malloc(len);
    tack_ext02_t ext;
    tack_status_t st;

    ck_assert_ptr_nonnull(raw);
    raw[0] = (uint8_t)(tacks_len >> 8);
    raw[1] = (uint8_t)tacks_len;
    for (i = 0; i < tacks_len; i++) {
        raw[2 + i] = (uint8_t)(i * 7 + i / 166);
    }
    raw[len - 1] = flags;
    st = tack_ext02_parse(&ext, raw, len);
    free(raw);
    return st;
}

/* As in draft-00: each failure names its field and where it starts. */
static void assert_fault02(size_t tacks_len, uint8_t flags, size_t cut,
                           size_t extra, int same_keys, const char *field,
                           size_t offset)
{
    size_t len = 2 + tacks_len + 1, i;
    uint8_t *raw = calloc(1, len + extra);
    tack_ext02_t ext;

    ck_assert_ptr_nonnull(raw);
    raw[0] = (uint8_t)(tacks_len >> 8);
    raw[1] = (uint8_t)tacks_len;
    for (i = 0; i < tacks_len; i++) {
        raw[2 + i] = (uint8_t)(same_keys ? i % 166 : i * 7 + i / 166);
    }
    raw[len - 1] = flags;
    ck_assert(tack_ext02_parse(&ext, raw, len - cut + extra) != TACK_OK);
    ck_assert_ptr_nonnull(ext.fault_field);
    ck_assert_str_eq(ext.fault_field, field);
    ck_assert_uint_eq(ext.fault_offset, offset);
    free(raw);
}

START_TEST(ext02_parse_names_the_failing_field_and_offset)
{
    assert_fault02(0, 0, 0, 0, 0, "tacks_len", 0);
    assert_fault02(167, 0, 0, 0, 0, "tacks_len", 0);
    assert_fault02(166, 0, 168, 0, 0, "tacks_len", 0);
    assert_fault02(332, 1, 10, 0, 0, "tacks", 2);
    assert_fault02(332, 3, 0, 0, 1, "tacks", 168); /* the repeated key */
    assert_fault02(166, 2, 0, 0, 0, "activation_flags", 168);
    assert_fault02(332, 3, 1, 0, 0, "activation_flags", 334);
    assert_fault02(166, 1, 0, 2, 0, "end", 169);
}
END_TEST

START_TEST(ext02_parse_rejects_tacks_len_other_than_166_or_332)
{
    static const size_t bad[] = {333, 498, 165, 167, 1, 331, 664, 0xffff};
    size_t i;

    ck_assert_status(parse_raw(166, 0), TACK_OK);
    ck_assert_status(parse_raw(332, 0), TACK_OK);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tack_status_t st = parse_raw(bad[i], 0);

        ck_assert_msg(st == TACK_ERR_BAD_LENGTH, "tacks_len %zu: %s", bad[i],
                      tack_status_str(st));
    }
}
END_TEST

START_TEST(ext02_parse_rejects_activation_of_a_missing_second_tack)
{
    static const uint8_t bad[] = {0x02, 0x03, 0xfe, 0xff};
    size_t i;

    for (i = 0; i < sizeof(bad); i++) {
        tack_status_t st = parse_raw(166, bad[i]);

        ck_assert_msg(st == TACK_ERR_BAD_FLAGS, "flags %#x: %s", bad[i],
                      tack_status_str(st));
    }
    ck_assert_status(parse_raw(332, 0x03), TACK_OK);
}
END_TEST

START_TEST(ext02_parse_keeps_reserved_activation_bits)
{
    uint8_t bytes[2 + TACK_LEN + 1];
    size_t len = known_answer_bytes(bytes);
    tack_ext02_t ext;
    uint8_t pair[TACK_EXT02_MAX_LEN];
    size_t pair_len = 0;

    bytes[len - 1] = 0xfd;
    ck_assert_status(parse_exact(&ext, bytes, len), TACK_OK);
    ck_assert_uint_eq(ext.activation_flags, 0xfd);
    bytes[len - 1] = 0x04;
    ck_assert_status(parse_exact(&ext, bytes, len), TACK_OK);
    ck_assert_uint_eq(ext.activation_flags, 0x04);

    pair_ext(&ext, 0);
    ck_assert_status(tack_ext02_encode(&ext, pair, sizeof(pair), &pair_len),
                     TACK_OK);
    pair[pair_len - 1] = 0xff;
    ck_assert_status(parse_exact(&ext, pair, pair_len), TACK_OK);
    ck_assert_uint_eq(ext.activation_flags, 0xff);
}
END_TEST

START_TEST(ext02_encode_writes_flags_only_for_tacks_present)
{
    tack_ext02_t ext;
    uint8_t out[TACK_EXT02_MAX_LEN];
    size_t out_len = 0;

    known_answer_ext(&ext);
    ext.activation_flags = 0xff;
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out[out_len - 1], 0x01);
    ext.activation_flags = 0x02;
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out[out_len - 1], 0x00);

    pair_ext(&ext, 0xff);
    ck_assert_status(tack_ext02_encode(&ext, out, sizeof(out), &out_len),
                     TACK_OK);
    ck_assert_uint_eq(out_len, TACK_EXT02_MAX_LEN);
    ck_assert_uint_eq(out[out_len - 1], 0x03);
}
END_TEST

START_TEST(ext02_encode_refuses_zero_or_three_tacks)
{
    tack_ext02_t ext;
    uint8_t out[TACK_EXT02_MAX_LEN + TACK_LEN];
    size_t out_len = 0;

    pair_ext(&ext, 0);
    ext.num_tacks = 0;
    ck_assert_status_fails(tack_ext02_encode(&ext, out, sizeof(out), &out_len));
    ext.num_tacks = 3;
    ck_assert_status_fails(tack_ext02_encode(&ext, out, sizeof(out), &out_len));
    ext.num_tacks = (size_t)-1;
    ck_assert_status_fails(tack_ext02_encode(&ext, out, sizeof(out), &out_len));
}
END_TEST

START_TEST(ext02_encode_refuses_every_short_buffer)
{
    tack_ext02_t ext;
    size_t len, cap, i;

    if (_i == 0) {
        known_answer_ext(&ext);
        len = 2 + TACK_LEN + 1;
    } else {
        pair_ext(&ext, 3);
        len = TACK_EXT02_MAX_LEN;
    }
    for (cap = 0; cap < len; cap++) {
        uint8_t buf[TACK_EXT02_MAX_LEN + 16];
        size_t out_len = 0;

        memset(buf, 0xcc, sizeof(buf));
        ck_assert_msg(tack_ext02_encode(&ext, buf, cap, &out_len) ==
                          TACK_ERR_BUFFER_TOO_SMALL,
                      "capacity %zu of %zu accepted", cap, len);
        for (i = cap; i < sizeof(buf); i++) {
            ck_assert_msg(buf[i] == 0xcc, "capacity %zu: byte %zu written", cap,
                          i);
        }
    }
}
END_TEST

START_TEST(ext02_parse_survives_random_mutations)
{
    uint32_t seed = 0x5eed02;
    uint8_t *base[2];
    size_t base_len[2];
    int round, b;

    base[0] = body_bytes(0, &base_len[0]);
    base[1] = body_bytes(1, &base_len[1]);
    for (round = 0; round < 20000; round++) {
        uint8_t buf[TACK_EXT02_MAX_LEN + 64];
        size_t len, k, n = 1 + tt_xorshift(&seed) % 3;
        tack_ext02_t ext;
        uint8_t *copy;
        tack_status_t st;

        b = (int)(tt_xorshift(&seed) & 1);
        len = base_len[b];
        memcpy(buf, base[b], len);
        for (k = 0; k < n; k++) {
            uint32_t r = tt_xorshift(&seed);
            size_t pos = len ? tt_xorshift(&seed) % len : 0;

            if (r % 4 == 0 && len > 0) {
                buf[pos] = (uint8_t)tt_xorshift(&seed);
            } else if (r % 4 == 1) {
                len = pos;
            } else if (r % 4 == 2 && len < sizeof(buf)) {
                buf[len++] = (uint8_t)tt_xorshift(&seed);
            } else if (len > 1) {
                buf[1] = (uint8_t)tt_xorshift(&seed);
            }
        }
        copy = exact_copy(buf, len);
        st = tack_ext02_parse(&ext, copy, len);
        ck_assert_msg((unsigned)st < (unsigned)TACK_STATUS_COUNT,
                      "round %d: status %d", round, (int)st);
        if (st == TACK_OK) {
            uint8_t out[TACK_EXT02_MAX_LEN];
            size_t out_len = 0;
            uint8_t mask = ext.num_tacks == 2 ? 3 : 1;

            ck_assert(ext.num_tacks == 1 || ext.num_tacks == 2);
            ck_assert_uint_eq(ext.activation_flags, copy[len - 1]);
            ck_assert_status(
                tack_ext02_encode(&ext, out, sizeof(out), &out_len), TACK_OK);
            ck_assert_uint_eq(out_len, len);
            ck_assert_mem_eq(out, copy, len - 1);
            ck_assert_uint_eq(out[len - 1], copy[len - 1] & mask);
        }
        free(copy);
    }
    free(base[0]);
    free(base[1]);
}
END_TEST

/* ---- the body a server sends (tack_answer_encode) ---------------------- */

START_TEST(answer_02_is_the_ext02_body_with_a_flag_per_active_tack)
{
    tack_ext02_t pair, want;
    const tack_t *tacks[2];
    const unsigned char inactive[2] = {0, 1};
    uint8_t got[TACK_ANSWER_MAX], exp[TACK_EXT02_MAX_LEN];
    size_t got_len = 99, exp_len = 0;

    pair_ext(&pair, 0);
    tacks[0] = &pair.tacks[0];
    tacks[1] = &pair.tacks[1];
    for (int act = 0; act <= 1; act++) {
        want = pair;
        want.activation_flags = act ? 0x01 : 0x00; /* the second inactive */
        ck_assert_status(tack_ext02_encode(&want, exp, sizeof(exp), &exp_len),
                         TACK_OK);
        ck_assert_status(tack_answer_encode(TACK_FORMAT_02, act, tacks,
                                            inactive, 2, NULL, 0, got,
                                            &got_len),
                         TACK_OK);
        ck_assert_uint_eq(got_len, exp_len);
        ck_assert_mem_eq(got, exp, exp_len);
    }
}
END_TEST

START_TEST(answer_02_without_a_tack_sends_nothing)
{
    uint8_t got[TACK_ANSWER_MAX];
    size_t got_len = 99;

    ck_assert_status(tack_answer_encode(TACK_FORMAT_02, 1, NULL, NULL, 0, NULL,
                                        0, got, &got_len),
                     TACK_OK);
    ck_assert_uint_eq(got_len, 0);
}
END_TEST

START_TEST(answer_00_carries_the_first_tack_and_the_break_signatures)
{
    tack_ext02_t two;
    tack_ext00_t want;
    tack_breaksig_t sig;
    const tack_t *tacks[2];
    unsigned char inactive[2] = {0, 0};
    uint8_t got[TACK_ANSWER_MAX], exp[TACK_EXT00_MAX_LEN];
    size_t got_len = 0, exp_len = 0;

    pair_ext(&two, 0);
    tacks[0] = &two.tacks[0];
    tacks[1] = &two.tacks[1];
    memset(&sig, 0x07, sizeof(sig));
    for (int i = 0; i < 3; i++) {
        int act = i != 0;

        inactive[0] = i == 2; /* 0: off; 1: on; 2: on, the TACK inactive */
        memset(&want, 0, sizeof(want));
        want.has_tack = 1;
        want.tack = two.tacks[0];
        want.num_breaksigs = 1;
        want.breaksigs[0] = sig;
        want.pin_activation = i == 1;
        ck_assert_status(tack_ext00_encode(&want, exp, sizeof(exp), &exp_len),
                         TACK_OK);
        ck_assert_status(tack_answer_encode(TACK_FORMAT_00, act, tacks,
                                            inactive, 2, &sig, 1, got,
                                            &got_len),
                         TACK_OK);
        ck_assert_uint_eq(got_len, exp_len);
        ck_assert_mem_eq(got, exp, exp_len);
    }
}
END_TEST

START_TEST(answer_00_sends_break_signatures_alone_and_nothing_for_nothing)
{
    tack_ext00_t want;
    tack_breaksig_t sig;
    uint8_t got[TACK_ANSWER_MAX], exp[TACK_EXT00_MAX_LEN];
    size_t got_len = 99, exp_len = 0;

    ck_assert_status(tack_answer_encode(TACK_FORMAT_00, 1, NULL, NULL, 0, NULL,
                                        0, got, &got_len),
                     TACK_OK);
    ck_assert_uint_eq(got_len, 0);

    memset(&sig, 0x07, sizeof(sig));
    memset(&want, 0, sizeof(want));
    want.num_breaksigs = 1;
    want.breaksigs[0] = sig;
    want.pin_activation = 1;
    ck_assert_status(tack_ext00_encode(&want, exp, sizeof(exp), &exp_len),
                     TACK_OK);
    ck_assert_status(tack_answer_encode(TACK_FORMAT_00, 1, NULL, NULL, 0, &sig,
                                        1, got, &got_len),
                     TACK_OK);
    ck_assert_uint_eq(got_len, exp_len);
    ck_assert_mem_eq(got, exp, exp_len);
}
END_TEST

TCase *ext_02_tcase(void)
{
    TCase *tc = tcase_create("ext02");

    tcase_set_timeout(tc, TT_TIMEOUT);
    tcase_add_test(tc, ext02_known_answer_encodes_to_tlslite_bytes);
    tcase_add_test(tc, ext02_known_answer_parses_to_its_fields);
    tcase_add_test(tc, ext02_empty_object_of_tlslite_is_no_tack);
    tcase_add_test(tc, ext02_draft02_pair_has_readme_fingerprints_and_target);
    tcase_add_loop_test(tc, ext02_two_tacks_round_trip, 0, 4);
    tcase_add_test(tc, ext02_parse_of_encode_gives_the_same_structure);
    tcase_add_test(tc, ext02_duplicate_keys_are_refused_on_encode_and_parse);
    /* 0: the known answer (one TACK), 1: the draft02 pair. */
    tcase_add_loop_test(tc, ext02_parse_rejects_every_truncation, 0, 2);
    tcase_add_loop_test(tc, ext02_parse_rejects_trailing_bytes, 0, 2);
    tcase_add_test(tc, ext02_parse_rejects_tacks_len_other_than_166_or_332);
    tcase_add_test(tc, ext02_parse_rejects_activation_of_a_missing_second_tack);
    tcase_add_test(tc, ext02_parse_keeps_reserved_activation_bits);
    tcase_add_test(tc, ext02_encode_writes_flags_only_for_tacks_present);
    tcase_add_test(tc, ext02_encode_refuses_zero_or_three_tacks);
    tcase_add_test(tc, ext02_parse_names_the_failing_field_and_offset);
    tcase_add_loop_test(tc, ext02_encode_refuses_every_short_buffer, 0, 2);
    tcase_add_test(tc, ext02_parse_survives_random_mutations);
    tcase_add_test(tc, answer_02_is_the_ext02_body_with_a_flag_per_active_tack);
    tcase_add_test(tc, answer_02_without_a_tack_sends_nothing);
    tcase_add_test(tc,
                   answer_00_carries_the_first_tack_and_the_break_signatures);
    tcase_add_test(
        tc, answer_00_sends_break_signatures_alone_and_nothing_for_nothing);
    return tc;
}
