/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_memory.h -- TackStateFile, the memory of TACK keys served
 * (mod_tack_memory.c). */
#ifndef MOD_TACK_MEMORY_H
#define MOD_TACK_MEMORY_H

#include "mod_tack_model.h"
#include "tack_state.h"

/* What one certificate of one vhost serves in this pass. */
typedef struct {
    const char *id; /* "name:port TYPE", the memory's key */
    int activation; /* TackPinActivation on: its keys' pins count */
    int nkeys;
    uint8_t keys[TACK_EXT02_MAX_TACKS][TACK_KEY_LEN];
    const uint8_t *tacks[TACK_EXT02_MAX_TACKS]; /* their 166 bytes, or NULL
                                                 * (signed in the
                                                 * background) */
    const mt_conf_t *conf;                      /* its TackLetPinsLapse */
} mt_served_t;

/* mt_memory_gen_init makes the part of |gen| (pre_config). */
void mt_memory_gen_init(mt_gen_t *gen);

/* mt_memory_file returns TackStateFile (main server) or the default;
 * mt_memory_path that name with |suffix|, in |p|. */
const char *mt_memory_file(void);
const char *mt_memory_path(apr_pool_t *p, const char *suffix);

/* mt_memory_load reads the file once a pass (said when it cannot);
 * mt_memory_now returns the pass's time, the clock's. */
void mt_memory_load(server_rec *s);
long mt_memory_now(server_rec *s);

/* After mt_memory_load: mt_memory_vhost_names returns the "NAME:PORT"s
 * that reach |s|, as the memory keys them; mt_memory_knows whether |name|
 * served keys with pin activation; mt_memory_keys the keys remembered for
 * |id| ("NAME:PORT TYPE"; tack_state_key_t), or NULL; mt_memory_entries
 * the whole memory (id -> apr_array of tack_state_key_t). */
apr_array_header_t *mt_memory_vhost_names(apr_pool_t *p, server_rec *s);
int mt_memory_knows(const char *name);
const apr_array_header_t *mt_memory_keys(const char *id);
apr_hash_t *mt_memory_entries(void);

/* mt_memory_lapsed returns 1 when a TackLetPinsLapse of |conf| names
 * |key|, else 0. */
int mt_memory_lapsed(const mt_conf_t *conf, const uint8_t *key);

/* mt_memory_end writes |served| (const mt_served_t *, or NULL) into the
 * memory at the end of a real start's pass, and forgets the pass. */
void mt_memory_end(server_rec *s_main, const apr_array_header_t *served);

#endif /* MOD_TACK_MEMORY_H */
