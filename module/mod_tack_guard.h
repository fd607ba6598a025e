/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_guard.h -- pin continuity (mod_tack_guard.c). */
#ifndef MOD_TACK_GUARD_H
#define MOD_TACK_GUARD_H

#include "mod_tack_model.h"

/* mt_guard_gen_init makes the guard's part of |gen| (pre_config). */
void mt_guard_gen_init(mt_gen_t *gen);

/* mt_guard_note records what |sel| of |s| is about to serve (|served| at a
 * real start), with |signing|, its TackSigningKey's public key or NULL. */
void mt_guard_note(server_rec *s, const mt_conf_t *conf, const mt_sel_t *sel,
                   int served, const uint8_t *signing);

/* mt_guard_recover puts back into |sel| the remembered TACK of a
 * certificate that lost its own or got one below its key's floor, where
 * it still vouches for it (real start; logged as an error). */
void mt_guard_recover(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                      mt_sel_t *sel);

/* mt_guard_pinned returns until when clients can hold an active pin on
 * |key| for a name |s| answers (its |key_type| certificate), or 0. */
long mt_guard_pinned(server_rec *s, const mt_conf_t *conf, const char *key_type,
                     const uint8_t *key);

/* mt_guard_floor returns the highest min_generation served under |key|
 * for a name |s| answers (its |key_type| certificate), or 0. */
int mt_guard_floor(server_rec *s, const char *key_type, const uint8_t *key);

/* mt_guard_remembers returns 1 when the memory holds keys |s| served. */
int mt_guard_remembers(server_rec *s);

/* mt_guard_check logs each certificate served without a TACK under a key
 * its clients may have pinned, or below its key's floor; returns the
 * number that refuse the configuration (under -t). */
int mt_guard_check(server_rec *s_main);

/* mt_guard_problems returns what a real start found wrong with |s| for
 * the status page (mt_problem_t, in pconf), or NULL. */
const apr_array_header_t *mt_guard_problems(server_rec *s);

/* mt_guard_end writes what the pass serves into the memory (real start)
 * and forgets the pass. */
void mt_guard_end(server_rec *s_main);

#endif /* MOD_TACK_GUARD_H */
