/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* fuzz_state.c -- the state file (TackStateFile) as the module's guard
 * reads it at every start: a file that may be damaged, truncated or not
 * ours.  What is read is written back, and what is written reads back the
 * same. */
#include "fuzz_common.h"
#include "tack_ext.h"
#include "tack_state.h"

/* fuzz_find returns the index of the entry of |st| named |id|. */
static size_t fuzz_find(const tack_state_t *st, const char *id)
{
    size_t i;

    for (i = 0; i < tack_state_count(st); i++) {
        const char *other;
        const tack_state_key_t *keys;
        size_t n;

        if (tack_state_entry(st, i, &other, &keys, &n) && !strcmp(id, other)) {
            return i;
        }
    }
    __builtin_trap();
}

/* fuzz_same_entries: |a|'s well-formed entries that hold keys are |b|'s
 * (written with sorted names: in another order). */
static void fuzz_same_entries(const tack_state_t *a, const tack_state_t *b)
{
    size_t i, matched = 0;

    for (i = 0; i < tack_state_count(a); i++) {
        const char *ida, *idb;
        const tack_state_key_t *ka, *kb;
        size_t na, nb, k;

        if (!tack_state_entry(a, i, &ida, &ka, &na) || na == 0) {
            continue;
        }
        fuzz_require(tack_state_entry(b, fuzz_find(b, ida), &idb, &kb, &nb));
        fuzz_require(na == nb);
        matched++;
        for (k = 0; k < na; k++) {
            fuzz_require(memcmp(ka[k].key, kb[k].key, TACK_KEY_LEN) == 0);
            fuzz_require(ka[k].first_seen == kb[k].first_seen);
            fuzz_require(ka[k].last_served == kb[k].last_served);
            fuzz_require(!ka[k].serving == !kb[k].serving);
            fuzz_require(!ka[k].activation == !kb[k].activation);
            fuzz_require(ka[k].min_generation == kb[k].min_generation);
            fuzz_require(ka[k].has_tack == kb[k].has_tack);
            fuzz_require(!ka[k].has_tack ||
                         memcmp(ka[k].tack, kb[k].tack, TACK_LEN) == 0);
        }
    }
    fuzz_require(matched == tack_state_count(b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tack_state_t *st = NULL, *copy, *again = NULL;
    char err[64];
    tack_status_t rc;
    size_t i;
    char *text;

    rc = tack_state_parse((const char *)data, size, &st, err, sizeof(err));
    fuzz_check_status(rc);
    if (rc != TACK_OK) {
        fuzz_require(st == NULL);
        /* the message names a position, never the file's bytes */
        fuzz_require(rc != TACK_ERR_NOT_STATE_FILE ||
                     strncmp(err, "not JSON: line ", 15) == 0 ||
                     strcmp(err, "no \"version\": 1 with \"slots\"") == 0);
        return 0;
    }
    /* Write what was kept, as the guard does at the end of a pass. */
    copy = tack_state_new(tack_state_written(st));
    fuzz_require(copy != NULL);
    for (i = 0; i < tack_state_count(st); i++) {
        const char *id;
        const tack_state_key_t *keys;
        size_t n;

        if (tack_state_entry(st, i, &id, &keys, &n)) {
            fuzz_require(id != NULL && tack_state_id_ok(id));
            fuzz_require(tack_state_add(copy, id, keys, n) == TACK_OK);
        }
    }
    text = tack_state_dump(copy);
    fuzz_require(text != NULL);
    fuzz_require(tack_state_parse(text, strlen(text), &again, err,
                                  sizeof(err)) == TACK_OK);
    fuzz_require(tack_state_written(again) == tack_state_written(st));
    fuzz_same_entries(st, again);
    free(text);
    tack_state_free(again);
    tack_state_free(copy);
    tack_state_free(st);
    return 0;
}
