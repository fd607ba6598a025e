/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * test_state.c -- the state file (tack_state.c): what the module's guard
 * reads at every start and writes at the end of each pass.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "tack_util.h"
#include "tack_ext.h"
#include "tack_state.h"

/* A key of 64 bytes i, i+1, ..., as the file writes it. */
static void state_key(tack_state_key_t *k, uint8_t first)
{
    size_t i;

    memset(k, 0, sizeof(*k));
    for (i = 0; i < TACK_KEY_LEN; i++) {
        k->key[i] = (uint8_t)(first + i);
    }
}

static char *hex_of(const uint8_t *in, size_t len)
{
    char *out = malloc(2 * len + 1);

    ck_assert_int_eq(tack_hex_encode(out, 2 * len + 1, in, len), TACK_OK);
    return out;
}

static tack_state_t *parse_ok(const char *text)
{
    tack_state_t *st = NULL;
    char err[64];

    ck_assert_int_eq(
        tack_state_parse(text, strlen(text), &st, err, sizeof(err)), TACK_OK);
    ck_assert_ptr_nonnull(st);
    return st;
}

START_TEST(state_round_trips_what_it_writes)
{
    tack_state_key_t keys[2], *k;
    tack_state_t *st = tack_state_new(1796428800), *back;
    const tack_state_key_t *got;
    const char *id;
    size_t n;
    char *text;

    state_key(&keys[0], 1);
    keys[0].first_seen = 100;
    keys[0].last_served = 200;
    keys[0].serving = 1;
    keys[0].pins_until = 300;
    keys[0].activation = 1;
    keys[0].min_generation = 3;
    keys[0].min_generation_until = 400;
    state_key(&keys[1], 7);
    keys[1].has_tack = 1;
    memset(keys[1].tack, 0xab, TACK_LEN);
    ck_assert_int_eq(tack_state_add(st, "www.example.org:443 ECDSA", keys, 2),
                     TACK_OK);
    ck_assert_int_eq(tack_state_add(st, "empty.test:443 RSA", keys, 0),
                     TACK_OK);
    text = tack_state_dump(st);
    ck_assert_ptr_nonnull(text);
    ck_assert(strstr(text, "\"version\": 1") != NULL);
    ck_assert(strstr(text, "\"pins_until\": 300") != NULL);
    ck_assert(strstr(text, "empty.test") == NULL); /* no keys: not written */
    back = parse_ok(text);
    ck_assert_int_eq(tack_state_written(back), 1796428800);
    ck_assert_uint_eq(tack_state_count(back), 1);
    ck_assert_int_eq(tack_state_entry(back, 0, &id, &got, &n), 1);
    ck_assert_str_eq(id, "www.example.org:443 ECDSA");
    ck_assert_uint_eq(n, 2);
    k = &keys[0];
    ck_assert(memcmp(got[0].key, k->key, TACK_KEY_LEN) == 0);
    ck_assert_int_eq(got[0].first_seen, 100);
    ck_assert_int_eq(got[0].last_served, 200);
    ck_assert_int_eq(got[0].serving, 1);
    ck_assert_int_eq(got[0].has_tack, 0);
    ck_assert_int_eq(got[0].pins_until, 0); /* written for people only */
    ck_assert_int_eq(got[0].activation, 1);
    ck_assert_int_eq(got[0].min_generation, 3);
    ck_assert_int_eq(got[0].min_generation_until, 400);
    ck_assert_int_eq(got[1].activation, 0); /* served with activation off */
    ck_assert_int_eq(got[1].min_generation, 0);
    ck_assert_int_eq(got[1].has_tack, 1);
    ck_assert(memcmp(got[1].tack, keys[1].tack, TACK_LEN) == 0);
    free(text);
    tack_state_free(back);
    tack_state_free(st);
}
END_TEST

START_TEST(state_refuses_what_is_not_a_state_file_by_position_only)
{
    static const char *const bad[] = {
        "",
        "{",
        "[1]",
        "{\"version\": 2, \"slots\": {}}",
        "{\"version\": 1}",
        "{\"version\": 1, \"slots\": []}",
        "{\"version\": 1, \"slots\": {}, \"slots\": {}}", /* duplicate */
        "{\"version\": 1, \"slots\": {\"a:1 X\": \"hunter2"};
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        tack_state_t *st = (tack_state_t *)1;
        char err[64];

        ck_assert_int_eq(
            tack_state_parse(bad[i], strlen(bad[i]), &st, err, sizeof(err)),
            TACK_ERR_NOT_STATE_FILE);
        ck_assert_ptr_null(st);
        ck_assert(strncmp(err, "not JSON: line ", 15) == 0 ||
                  strcmp(err, "no \"version\": 1 with \"slots\"") == 0);
        ck_assert(strstr(err, "hunter2") == NULL);
    }
}
END_TEST

START_TEST(state_malformed_entry_costs_that_entry_alone)
{
    tack_state_key_t good;
    char *key, *text;
    tack_state_t *st;
    const tack_state_key_t *keys;
    const char *id;
    size_t n, i, ok = 0, named_bad = 0, unnamed_bad = 0;

    state_key(&good, 3);
    key = hex_of(good.key, TACK_KEY_LEN);
    text = malloc(4096);
    snprintf(
        text, 4096,
        "{\"version\": 1, \"written\": 5, \"slots\": {"
        "\"good.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 1, "
        "\"last_served\": 2}],"
        /* sscanf(\"%%2x\") took \" f\" and \"+f\": strict hex does not */
        "\"sign.test:443 ECDSA\": [{\"key\": \"+f%s\", \"first_seen\": 1, "
        "\"last_served\": 2}],"
        "\"time.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": \"1\", "
        "\"last_served\": 2}],"
        "\"keys.test:443 ECDSA\": {},"
        "\"no shape\": [],"
        "\"quote\\\"d:1 X\": []}}",
        key, key + 2, key);
    st = parse_ok(text);
    ck_assert_uint_eq(tack_state_count(st), 6);
    for (i = 0; i < tack_state_count(st); i++) {
        if (tack_state_entry(st, i, &id, &keys, &n)) {
            ok++;
            ck_assert_str_eq(id, "good.test:443 ECDSA");
            ck_assert(memcmp(keys[0].key, good.key, TACK_KEY_LEN) == 0);
        } else if (id) {
            named_bad++;
            ck_assert_ptr_null(keys);
        } else {
            unnamed_bad++;
        }
    }
    ck_assert_uint_eq(ok, 1);
    ck_assert_uint_eq(named_bad, 3);
    ck_assert_uint_eq(unnamed_bad, 2); /* never quoted in a message */
    free(key);
    free(text);
    tack_state_free(st);
}
END_TEST

START_TEST(state_id_shape)
{
    char long_id[TACK_STATE_ID_MAX + 8];

    ck_assert(tack_state_id_ok("www.example.org:443 ECDSA"));
    ck_assert(tack_state_id_ok("[::1]:8443 RSA"));
    ck_assert(!tack_state_id_ok(""));
    ck_assert(!tack_state_id_ok("no-port ECDSA"));
    ck_assert(!tack_state_id_ok("a:1"));
    ck_assert(!tack_state_id_ok("a:1\tX"));
    ck_assert(!tack_state_id_ok("a:1 X\n"));
    ck_assert(!tack_state_id_ok("caf\xc3\xa9:1 X"));
    ck_assert(!tack_state_id_ok("a\"b:1 X"));
    memset(long_id, 'a', sizeof(long_id));
    memcpy(long_id, "a:1 ", 4);
    long_id[TACK_STATE_ID_MAX] = '\0';
    ck_assert(!tack_state_id_ok(long_id));
    long_id[TACK_STATE_ID_MAX - 1] = '\0';
    ck_assert(tack_state_id_ok(long_id));
    {
        tack_state_t *st = tack_state_new(0);
        tack_state_key_t k;

        state_key(&k, 0);
        ck_assert_int_eq(tack_state_add(st, "a\"b:1 X", &k, 1),
                         TACK_ERR_INVALID_ARG);
        ck_assert_uint_eq(tack_state_count(st), 0);
        tack_state_free(st);
    }
}
END_TEST

#define DAY 86400L
#define NOW 1796428800L /* 2026-12-05 */

/* A key first seen |first| and last served |last| seconds from NOW, with
 * pin activation on. */
static tack_state_key_t state_pin(long first, long last, int serving)
{
    tack_state_key_t k;

    state_key(&k, 9);
    k.first_seen = NOW + first;
    k.last_served = NOW + last;
    k.serving = serving;
    k.activation = 1;
    return k;
}

START_TEST(state_pins_last_from_the_last_confirmation_for_up_to_30_days)
{
    tack_state_key_t k = state_pin(-10 * DAY, -1 * DAY, 0);

    /* draft-00 section 5: last + MIN(30 days, last - first) */
    ck_assert_int_eq(tack_state_pins_until(&k, NOW), NOW + 8 * DAY);
    k.serving = 1; /* served now: confirmed now */
    ck_assert_int_eq(tack_state_pins_until(&k, NOW), NOW + 10 * DAY);
    k = state_pin(-400 * DAY, -2 * DAY, 0);
    ck_assert_int_eq(tack_state_pins_until(&k, NOW), NOW + 28 * DAY);
}
END_TEST

/* Issue 36, item 5: a memory written ten years ahead (one start with the
 * clock far ahead) is judged at the real clock, and never makes a pin
 * shorter than clients can hold: a later time counts as now, a first sight
 * later than that as the longest span. */
START_TEST(state_times_ahead_of_the_clock_count_as_now)
{
    const long ahead = 3650 * DAY;
    tack_state_key_t k = state_pin(-10 * DAY, ahead, 0);

    ck_assert_int_eq(tack_state_pins_until(&k, NOW), NOW + 10 * DAY);
    k.serving = 1;
    ck_assert_int_eq(tack_state_pins_until(&k, NOW), NOW + 10 * DAY);
    /* first seen under the fast clock: how long clients saw it is unknown */
    k = state_pin(ahead - DAY, ahead, 0);
    ck_assert_int_eq(tack_state_pins_until(&k, NOW),
                     NOW + TACK_STATE_PIN_MAX_SECS);
    k.serving = 1;
    ck_assert_int_eq(tack_state_pins_until(&k, NOW),
                     NOW + TACK_STATE_PIN_MAX_SECS);
    /* a clock behind (a board without a real-time clock, before NTP):
     * every remembered key still counts as pinned */
    k = state_pin(-10 * DAY, -1 * DAY, 0);
    ck_assert_int_gt(tack_state_pins_until(&k, 100), 100);
}
END_TEST

START_TEST(state_redate_keeps_every_pin_and_ends_the_future)
{
    const long ahead = 3650 * DAY;
    tack_state_key_t keys[4], probe[4];
    tack_state_t *st = tack_state_new(NOW + ahead), *back;
    const tack_state_key_t *got;
    const char *id;
    size_t n, i;
    char *text;

    keys[0] = state_pin(-10 * DAY, ahead, 1);
    keys[1] = state_pin(-10 * DAY, ahead, 0);
    keys[2] = state_pin(ahead - DAY, ahead, 0);
    keys[3] = state_pin(-20 * DAY, -5 * DAY, 0); /* in the past: untouched */
    memcpy(probe, keys, sizeof(keys));
    ck_assert_int_eq(tack_state_add(st, "a.test:443 ECDSA", keys, 4), TACK_OK);
    ck_assert_int_eq(tack_state_ahead(st, NOW), NOW + ahead);
    ck_assert_uint_eq(tack_state_redate(st, NOW), 3);
    ck_assert_int_eq(tack_state_ahead(st, NOW), 0);
    ck_assert_int_eq(tack_state_written(st), NOW);
    text = tack_state_dump(st);
    back = parse_ok(text);
    ck_assert_int_eq(tack_state_entry(back, 0, &id, &got, &n), 1);
    ck_assert_uint_eq(n, 4);
    for (i = 0; i < n; i++) {
        ck_assert_int_le(got[i].last_served, NOW);
        ck_assert_int_le(got[i].first_seen, NOW);
        ck_assert_int_eq(tack_state_pins_until(&got[i], NOW),
                         tack_state_pins_until(&probe[i], NOW));
    }
    ck_assert_int_eq(got[3].first_seen, probe[3].first_seen);
    ck_assert_int_eq(got[3].last_served, probe[3].last_served);
    ck_assert_uint_eq(tack_state_redate(back, NOW), 0); /* nothing ahead */
    free(text);
    tack_state_free(back);
    tack_state_free(st);
    /* an entry ahead in a file whose "written" is not */
    st = tack_state_new(NOW - DAY);
    ck_assert_int_eq(tack_state_add(st, "a.test:443 ECDSA", &keys[0], 1),
                     TACK_OK);
    ck_assert_int_eq(tack_state_ahead(st, NOW), NOW + ahead);
    tack_state_free(st);
    /* a clock stepped back by NTP: minutes are not "ahead" */
    st = tack_state_new(NOW + TACK_STATE_CLOCK_SLACK_SECS);
    ck_assert_int_eq(tack_state_ahead(st, NOW), 0);
    tack_state_free(st);
    st = tack_state_new(NOW + TACK_STATE_CLOCK_SLACK_SECS + 1);
    ck_assert_int_eq(tack_state_ahead(st, NOW),
                     NOW + TACK_STATE_CLOCK_SLACK_SECS + 1);
    tack_state_free(st);
}
END_TEST

/* Issue 42, item 1: what a file written before 0.1.1 says (keys served
 * with activation on, no floor), and a floor out of range. */
START_TEST(state_activation_and_floor_of_older_files)
{
    tack_state_key_t good;
    char *key, *text;
    tack_state_t *st;
    const tack_state_key_t *keys;
    const char *id;
    size_t n;

    state_key(&good, 3);
    key = hex_of(good.key, TACK_KEY_LEN);
    text = malloc(4096);
    snprintf(text, 4096,
             "{\"version\": 1, \"written\": 5, \"slots\": {"
             "\"old.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 1, "
             "\"last_served\": 2}],"
             "\"off.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 1, "
             "\"last_served\": 2, \"activation\": false, "
             "\"min_generation\": 255}],"
             "\"big.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 1, "
             "\"last_served\": 2, \"min_generation\": 256}],"
             "\"act.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 1, "
             "\"last_served\": 2, \"activation\": 1}]}}",
             key, key, key, key);
    st = parse_ok(text);
    ck_assert_uint_eq(tack_state_count(st), 4);
    ck_assert_int_eq(tack_state_entry(st, 0, &id, &keys, &n), 1);
    ck_assert_str_eq(id, "old.test:443 ECDSA");
    ck_assert_int_eq(keys[0].activation, 1);
    ck_assert_int_eq(keys[0].min_generation, 0);
    ck_assert_int_eq(tack_state_entry(st, 1, &id, &keys, &n), 1);
    ck_assert_int_eq(keys[0].activation, 0);
    ck_assert_int_eq(keys[0].min_generation, 255);
    ck_assert_int_eq(tack_state_entry(st, 2, &id, &keys, &n), 0);
    ck_assert_int_eq(tack_state_entry(st, 3, &id, &keys, &n), 0);
    free(key);
    free(text);
    tack_state_free(st);
}
END_TEST

/* A key served with activation off holds no pin, but its floor is kept
 * as long as min_generation_until says. */
START_TEST(state_activation_off_pins_nothing_keeps_its_floor)
{
    tack_state_key_t k = state_pin(-10 * DAY, -1 * DAY, 0);

    k.activation = 0;
    k.min_generation_until = NOW + 29 * DAY;
    ck_assert_int_eq(tack_state_pins_until(&k, NOW), 0);
    ck_assert_int_eq(tack_state_keep_until(&k, NOW), NOW + 29 * DAY);
    k.activation = 1; /* pins end before the floor's 29 days */
    ck_assert_int_eq(tack_state_pins_until(&k, NOW), NOW + 8 * DAY);
    ck_assert_int_eq(tack_state_keep_until(&k, NOW), NOW + 29 * DAY);
    k.min_generation_until = 0; /* the pins alone */
    ck_assert_int_eq(tack_state_keep_until(&k, NOW), NOW + 8 * DAY);
}
END_TEST

/* Issue 42, item 6: times at the extremes of a long, and outside 1970 to
 * 9999 in a file.  Under UBSan (make check-asan) a signed overflow in the
 * pin arithmetic fails the run. */
START_TEST(state_times_at_the_extremes)
{
    static const long ext[] = {
        LONG_MIN, LONG_MIN + 1,        -1,           0,
        1,        TACK_STATE_TIME_MAX, LONG_MAX - 1, LONG_MAX};
    size_t a, b, c;
    char *key, *text;
    tack_state_t *st;
    const tack_state_key_t *keys;
    const char *id;
    size_t n;

    for (a = 0; a < sizeof(ext) / sizeof(ext[0]); a++) {
        for (b = 0; b < sizeof(ext) / sizeof(ext[0]); b++) {
            for (c = 0; c < sizeof(ext) / sizeof(ext[0]); c++) {
                tack_state_key_t k = state_pin(0, 0, 0);
                tack_state_t *one = tack_state_new(ext[c]);
                long until;

                k.first_seen = ext[a];
                k.last_served = ext[b];
                until = tack_state_pins_until(&k, ext[c]);
                /* never a pin shorter than the last confirmation */
                ck_assert_int_ge(until, k.last_served < ext[c] ? k.last_served
                                                               : ext[c]);
                ck_assert_int_ge(tack_state_keep_until(&k, ext[c]), until);
                k.serving = 1;
                ck_assert_int_ge(tack_state_pins_until(&k, ext[c]), ext[c]);
                k.serving = 0;
                ck_assert_int_eq(tack_state_add(one, "a.test:443 ECDSA", &k, 1),
                                 TACK_OK);
                tack_state_ahead(one, ext[c]);
                tack_state_redate(one, ext[c]);
                tack_state_free(one);
            }
        }
    }
    /* A first sight of LONG_MIN and a last confirmation of LONG_MAX: the
     * longest span, saturated, not a wrapped negative. */
    {
        tack_state_key_t k = state_pin(0, 0, 0);

        k.first_seen = LONG_MIN;
        k.last_served = LONG_MAX;
        ck_assert_int_eq(tack_state_pins_until(&k, LONG_MAX), LONG_MAX);
        k.first_seen = LONG_MAX;
        k.last_served = LONG_MIN;
        ck_assert_int_eq(tack_state_pins_until(&k, NOW),
                         LONG_MIN + TACK_STATE_PIN_MAX_SECS);
    }
    /* In a file: a time outside 1970 to 9999 marks the key (bad_time, its
     * times 0); the entry and the rest of the file are kept. */
    key = malloc(2 * TACK_KEY_LEN + 1);
    {
        tack_state_key_t g;

        state_key(&g, 5);
        free(key);
        key = hex_of(g.key, TACK_KEY_LEN);
    }
    text = malloc(4096);
    snprintf(text, 4096,
             "{\"version\": 1, \"written\": 5, \"slots\": {"
             "\"a.test:443 ECDSA\": [{\"key\": \"%s\", "
             "\"first_seen\": -9223372036854775808, \"last_served\": 2}],"
             "\"b.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 1, "
             "\"last_served\": 253402300800}],"
             "\"c.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 0, "
             "\"last_served\": 253402300799}],"
             "\"d.test:443 ECDSA\": [{\"key\": \"%s\", \"first_seen\": 0, "
             "\"last_served\": 1, \"min_generation_until\": -1}]}}",
             key, key, key, key);
    st = parse_ok(text);
    ck_assert_uint_eq(tack_state_count(st), 4);
    ck_assert_int_eq(tack_state_entry(st, 3, &id, &keys, &n), 1);
    ck_assert_int_eq(keys[0].bad_time, 1);
    ck_assert_int_eq(tack_state_entry(st, 0, &id, &keys, &n), 1);
    ck_assert_int_eq(keys[0].bad_time, 1);
    ck_assert_int_eq(keys[0].first_seen, 0);
    ck_assert_int_eq(tack_state_entry(st, 1, &id, &keys, &n), 1);
    ck_assert_int_eq(keys[0].bad_time, 1);
    ck_assert_int_eq(keys[0].last_served, 0);
    ck_assert_int_eq(tack_state_entry(st, 2, &id, &keys, &n), 1);
    ck_assert_int_eq(keys[0].bad_time, 0);
    ck_assert_int_eq(keys[0].last_served, TACK_STATE_TIME_MAX);
    free(key);
    free(text);
    tack_state_free(st);
}
END_TEST

Suite *state_suite(void)
{
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("state");

    tcase_add_test(tc, state_round_trips_what_it_writes);
    tcase_add_test(tc, state_refuses_what_is_not_a_state_file_by_position_only);
    tcase_add_test(tc, state_malformed_entry_costs_that_entry_alone);
    tcase_add_test(tc, state_id_shape);
    tcase_add_test(tc, state_activation_and_floor_of_older_files);
    suite_add_tcase(s, tc);
    tc = tcase_create("clock");
    tcase_add_test(
        tc, state_pins_last_from_the_last_confirmation_for_up_to_30_days);
    tcase_add_test(tc, state_times_ahead_of_the_clock_count_as_now);
    tcase_add_test(tc, state_redate_keeps_every_pin_and_ends_the_future);
    tcase_add_test(tc, state_activation_off_pins_nothing_keeps_its_floor);
    tcase_add_test(tc, state_times_at_the_extremes);
    suite_add_tcase(s, tc);
    return s;
}
