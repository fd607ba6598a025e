/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_show.c -- the human form (TACKpy's) and the JSON form of a TACK
 * and of a break signature, which `tack view` (tack_cli_view.c) and the
 * check engine (tack_cli_engine.c) both print.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "tack_cli.h"
#include "tack_util.h"
#include "tack_ext.h"

void cli_print_tack(FILE *fp, const tack_t *tack)
{
    char fpr[TACK_FINGERPRINT_SIZE], when[TACK_TIME_SIZE];
    char hash[2 * TACK_HASH_LEN + 1];

    tack_fingerprint(tack->public_key, fpr);
    tack_time_format(tack->expiration, when);
    tack_hex_encode(hash, sizeof(hash), tack->target_hash, TACK_HASH_LEN);
    fprintf(fp,
            "TACK ID        = %s\n"
            "min_generation = %u\n"
            "generation     = %u\n"
            "expiration     = %s\n"
            "target_hash    = %s\n",
            fpr, tack->min_generation, tack->generation, when, hash);
}

void cli_print_breaksig(FILE *fp, const tack_breaksig_t *sig)
{
    char fpr[TACK_FINGERPRINT_SIZE];

    tack_fingerprint(sig->public_key, fpr);
    fprintf(fp, "Breaks TACK ID = %s\n", fpr);
}

json_t *cli_json_tack(const tack_t *tack, time_t now)
{
    char fpr[TACK_FINGERPRINT_SIZE], when[TACK_TIME_SIZE];
    char hash[2 * TACK_HASH_LEN + 1], key[2 * TACK_KEY_LEN + 1];
    char sig[2 * TACK_SIG_LEN + 1];
    tack_status_t st = tack_verify(tack);

    tack_fingerprint(tack->public_key, fpr);
    tack_time_format(tack->expiration, when);
    tack_hex_encode(hash, sizeof(hash), tack->target_hash, TACK_HASH_LEN);
    tack_hex_encode(key, sizeof(key), tack->public_key, TACK_KEY_LEN);
    tack_hex_encode(sig, sizeof(sig), tack->signature, TACK_SIG_LEN);
    return json_pack(
        "{s:s, s:s, s:s, s:i, s:i, s:s, s:I, s:s, s:s, s:b, s:s?, s:b}", "type",
        "tack", "tack_id", fpr, "public_key", key, "min_generation",
        (int)tack->min_generation, "generation", (int)tack->generation,
        "expiration", when, "expiration_minutes", (json_int_t)tack->expiration,
        "target_hash", hash, "signature", sig, "signature_valid", st == TACK_OK,
        "signature_error", st == TACK_OK ? NULL : tack_status_str(st),
        "expired", tack_check_expiration(tack, now) != TACK_OK);
}

json_t *cli_json_breaksig(const tack_breaksig_t *sig)
{
    char fpr[TACK_FINGERPRINT_SIZE], key[2 * TACK_KEY_LEN + 1];
    char s[2 * TACK_SIG_LEN + 1];
    tack_status_t st = tack_breaksig_verify(sig);

    tack_fingerprint(sig->public_key, fpr);
    tack_hex_encode(key, sizeof(key), sig->public_key, TACK_KEY_LEN);
    tack_hex_encode(s, sizeof(s), sig->signature, TACK_SIG_LEN);
    return json_pack("{s:s, s:s, s:s, s:s, s:b, s:s?}", "type", "break_sig",
                     "breaks_tack_id", fpr, "public_key", key, "signature", s,
                     "signature_valid", st == TACK_OK, "signature_error",
                     st == TACK_OK ? NULL : tack_status_str(st));
}

int cli_breaksig_breaks(const tack_breaksig_t *sig, const tack_t *tack)
{
    return CRYPTO_memcmp(sig->public_key, tack->public_key, TACK_KEY_LEN) == 0;
}

/* ext00_fault_text explains a failed draft-00 parse of |body|. */
static void ext00_fault_text(const tack_ext00_t *e, tack_status_t st,
                             const uint8_t *body, size_t len, char *buf,
                             size_t n)
{
    size_t at = e->fault_offset;
    tack_ext00_t again;
    uint8_t *spliced;

    /* A second TACK where break_sigs_len belongs: the rest parses once the
     * 166 bytes after the first TACK are taken out.  Whatever field the
     * parse stumbled on: the second TACK's first bytes (its key) may read
     * as a break_sigs_len of 0, and then pin_activation fails instead. */
    if (len >= 1 + 2 * TACK_LEN + 3 && body[0] == TACK_LEN &&
        at >= 1 + TACK_LEN && (spliced = malloc(len)) != NULL) {
        size_t end = 1 + TACK_LEN; /* where the first TACK ends */
        tack_status_t again_st;

        memcpy(spliced, body, end);
        memcpy(spliced + end, body + end + TACK_LEN, len - end - TACK_LEN);
        again_st = tack_ext00_parse(&again, spliced, len - TACK_LEN);
        free(spliced);
        if (again_st == TACK_OK) {
            snprintf(buf, n,
                     "a second TACK follows the first, at byte %zu: a "
                     "draft-00 body carries at most one TACK (two are the "
                     "draft-02 format)",
                     end);
            return;
        }
    }
    if (strcmp(e->fault_field, "break_sigs_len") == 0 && at + 2 <= len) {
        snprintf(buf, n, "break_sigs_len at byte %zu is %u: %s", at,
                 (unsigned)body[at] << 8 | body[at + 1], tack_status_str(st));
        return;
    }
    if (strcmp(e->fault_field, "pin_activation") == 0 && at < len) {
        snprintf(buf, n, "pin_activation at byte %zu is %u, not 0 or 1", at,
                 body[at]);
        return;
    }
    snprintf(buf, n, "%s at byte %zu: %s", e->fault_field, at,
             tack_status_str(st));
}

/* ext02_fault_text explains a failed draft-02 parse of |body|. */
static void ext02_fault_text(const tack_ext02_t *e, tack_status_t st,
                             const uint8_t *body, size_t len, char *buf,
                             size_t n)
{
    size_t at = e->fault_offset;

    if (st == TACK_ERR_BAD_FLAGS && at < len) {
        snprintf(buf, n,
                 "activation_flags at byte %zu is 0x%02x: bit 1 activates a "
                 "second TACK, but the body has one",
                 at, body[at]);
        return;
    }
    if (strcmp(e->fault_field, "tacks_len") == 0 && at + 2 <= len) {
        snprintf(buf, n, "tacks_len at byte %zu is %u: %s", at,
                 (unsigned)body[at] << 8 | body[at + 1], tack_status_str(st));
        return;
    }
    snprintf(buf, n, "%s at byte %zu: %s", e->fault_field, at,
             tack_status_str(st));
}

void cli_ext_fault(int format, const uint8_t *body, size_t len, char *buf,
                   size_t n)
{
    tack_ext00_t e0;
    tack_ext02_t e2;
    tack_status_t st00 = tack_ext00_parse(&e0, body, len);
    tack_status_t st02 = tack_ext02_parse(&e2, body, len);
    char f00[256], f02[256];

    if (st00 == TACK_OK) {
        snprintf(f00, sizeof(f00), "it is one");
    } else {
        ext00_fault_text(&e0, st00, body, len, f00, sizeof(f00));
    }
    if (st02 == TACK_OK) {
        snprintf(f02, sizeof(f02), "it is one");
    } else {
        ext02_fault_text(&e2, st02, body, len, f02, sizeof(f02));
    }
    if (format == CLI_CHECK_FMT_00) {
        snprintf(buf, n, "not a draft-00 body: %s%s", f00,
                 st02 == TACK_OK ? " (it is a draft-02 one: --format auto "
                                   "accepts both)"
                                 : "");
    } else if (format == CLI_CHECK_FMT_02) {
        snprintf(buf, n, "not a draft-02 body: %s%s", f02,
                 st00 == TACK_OK ? " (it is a draft-00 one: --format auto "
                                   "accepts both)"
                                 : "");
    } else if (e0.fault_offset >= e2.fault_offset) {
        /* the format that went further is the one the sender meant */
        snprintf(buf, n, "not a draft-00 body: %s (as draft-02: %s)", f00, f02);
    } else {
        snprintf(buf, n, "not a draft-02 body: %s (as draft-00: %s)", f02, f00);
    }
}
