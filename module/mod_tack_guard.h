/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_guard.h -- pin continuity: the guard, the last good bytes
 * (mod_tack_guard.c); the memory it judges by, TackStateFile, is
 * mod_tack_memory.c's.
 */
#ifndef MOD_TACK_GUARD_H
#define MOD_TACK_GUARD_H

#include "mod_tack_model.h"

/* mt_guard_gen_init makes the guard's part of |gen| (pre_config). */
void mt_guard_gen_init(mt_gen_t *gen);

/* mt_guard_note records what |sel| (the vhost |s|) is about to serve, for
 * the guard and the memory; |signing| (under -t) is the public key of the
 * vhost's TackSigningKey, |served| set at a real start. */
void mt_guard_note(server_rec *s, const mt_conf_t *conf, const mt_sel_t *sel,
                   int served, const uint8_t *signing);

/* mt_guard_recover puts back into |sel| the TACK the memory holds for a
 * certificate that lost its own (a file that failed to load) or got one
 * below its key's floor, where pins may be active and that TACK still
 * vouches for the certificate (real start; logged as an error). */
void mt_guard_recover(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                      mt_sel_t *sel);

/* mt_guard_pinned returns until when clients can hold an active pin on
 * |key| for a name |s| answers (its |key_type| certificate), or 0: what
 * TackSigningKey keeps served against a TACK under another key. */
long mt_guard_pinned(server_rec *s, const mt_conf_t *conf, const char *key_type,
                     const uint8_t *key);

/* mt_guard_floor returns the highest min_generation served under |key|
 * for a name |s| answers (its |key_type| certificate), with pin activation
 * on or off, while the memory keeps it, or 0: clients that saw it refuse
 * a lower generation (what TackSigningKey signs at, at least). */
int mt_guard_floor(server_rec *s, const char *key_type, const uint8_t *key);

/* mt_guard_remembers returns 1 when the memory holds TACK keys served by
 * the vhost |s| (under -t: its certificates must be looked at). */
int mt_guard_remembers(server_rec *s);

/* mt_guard_check logs every certificate that would be served without a
 * TACK under a key its clients may still have pinned, or with a TACK
 * below the floor of its key; returns the number that refuse the
 * configuration (under -t; expiry is only a warning). */
int mt_guard_check(server_rec *s_main);

/* mt_guard_problems returns what a real start found wrong with |s| for
 * the status page (mt_problem_t, in pconf), or NULL. */
const apr_array_header_t *mt_guard_problems(server_rec *s);

/* mt_guard_end writes what this pass serves into the memory (real start
 * only) and forgets the pass. */
void mt_guard_end(server_rec *s_main);

#endif /* MOD_TACK_GUARD_H */
