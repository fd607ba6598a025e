/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_memory.h -- TackStateFile, the memory of TACK keys served
 * (mod_tack_memory.c), for the guard and the signers' side files.
 */
#ifndef MOD_TACK_MEMORY_H
#define MOD_TACK_MEMORY_H

#include "mod_tack_model.h"
#include "tack_state.h"

/* What one certificate of one vhost serves in this pass, as the memory
 * records it at the end of a real start's pass. */
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

/* mt_memory_gen_init makes the memory's part of |gen| (pre_config). */
void mt_memory_gen_init(mt_gen_t *gen);

/* mt_memory_file is where the memory lives: TackStateFile of the main
 * server, or the default; mt_memory_path is that name with |suffix|, for
 * the files kept beside it. */
const char *mt_memory_file(void);
const char *mt_memory_path(apr_pool_t *p, const char *suffix);

/* mt_memory_load reads the file once a pass (said when it cannot be
 * read); mt_memory_now is the pass's time, the clock's, said once when
 * the file holds a later one. */
void mt_memory_load(server_rec *s);
long mt_memory_now(server_rec *s);

/* mt_memory_vhost_names returns the "NAME:PORT"s that reach |s|, as the
 * memory keys them (case-folded, no trailing dot, each port it listens
 * on); mt_memory_knows says whether the memory has keys served with pin
 * activation for such a name (pins clients may hold); mt_memory_keys returns
 * the keys remembered for |id| ("NAME:PORT TYPE"; tack_state_key_t), or NULL;
 * mt_memory_entries is the whole memory (id -> apr_array of tack_state_key_t).
 * Each loads nothing: call mt_memory_load first. */
apr_array_header_t *mt_memory_vhost_names(apr_pool_t *p, server_rec *s);
int mt_memory_knows(const char *name);
const apr_array_header_t *mt_memory_keys(const char *id);
apr_hash_t *mt_memory_entries(void);

/* mt_memory_lapsed returns 1 when a TackLetPinsLapse of |conf| names
 * |key|: its pins are let go, and it is forgotten. */
int mt_memory_lapsed(const mt_conf_t *conf, const uint8_t *key);

/* mt_memory_end writes, at the end of a real start's pass, what |served|
 * (const mt_served_t *, or NULL: nothing) serves into the memory, merged with
 * what another httpd sharing the file wrote meanwhile, and forgets the pass. */
void mt_memory_end(server_rec *s_main, const apr_array_header_t *served);

#endif /* MOD_TACK_MEMORY_H */
