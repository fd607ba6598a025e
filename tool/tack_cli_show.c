/*
 * tack_cli_show.c -- the human form (TACKpy's) and the JSON form of a TACK
 * and of a break signature, which `tack view` (tack_cli_view.c) and the
 * check engine (tack_cli_engine.c) both print.
 */
#include <openssl/crypto.h>

#include "tack_cli.h"

void cli_print_tack(FILE *fp, const tack_t *tack)
{
    char fpr[TACK_FINGERPRINT_SIZE], when[TACK_TIME_SIZE];
    char hash[2 * TACK_HASH_LEN + 1];

    tack_fingerprint(tack->public_key, fpr);
    tack_time_format(tack->expiration, when);
    cli_hex(tack->target_hash, TACK_HASH_LEN, hash);
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
    cli_hex(tack->target_hash, TACK_HASH_LEN, hash);
    cli_hex(tack->public_key, TACK_KEY_LEN, key);
    cli_hex(tack->signature, TACK_SIG_LEN, sig);
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
    cli_hex(sig->public_key, TACK_KEY_LEN, key);
    cli_hex(sig->signature, TACK_SIG_LEN, s);
    return json_pack("{s:s, s:s, s:s, s:s, s:b, s:s?}", "type", "break_sig",
                     "breaks_tack_id", fpr, "public_key", key, "signature", s,
                     "signature_valid", st == TACK_OK, "signature_error",
                     st == TACK_OK ? NULL : tack_status_str(st));
}

int cli_breaksig_breaks(const tack_breaksig_t *sig, const tack_t *tack)
{
    return CRYPTO_memcmp(sig->public_key, tack->public_key, TACK_KEY_LEN) == 0;
}
