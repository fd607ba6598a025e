/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_status.h -- the tack-status handler (mod_tack_status.c) and its
 * outputs. */
#ifndef MOD_TACK_STATUS_H
#define MOD_TACK_STATUS_H

#include "mod_tack_runtime.h"

/* mt_status_gen_init makes the part of |gen| (pre_config); mt_status_add
 * records the table |rt| of a vhost; mt_status_post_config gives each
 * slot its counters in a new segment, carrying the last one's over (OK);
 * mt_status_register_hooks registers the handler and mod_status's part. */
void mt_status_gen_init(mt_gen_t *gen);
void mt_status_add(apr_pool_t *pconf, mt_rt_t *rt);
int mt_status_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s);
void mt_status_register_hooks(apr_pool_t *p);

/* mt_status_vhosts returns the SSL vhosts' tables (mt_rt_t *), in
 * configuration order. */
const apr_array_header_t *mt_status_vhosts(void);

/* mt_status_counters_since returns when counting started;
 * mt_status_counters_shared 1 when the counters are in shared memory. */
apr_time_t mt_status_counters_since(void);
int mt_status_counters_shared(void);

/* mt_status_utf8 returns |s| as valid UTF-8 (itself, or a copy in |p|). */
const char *mt_status_utf8(apr_pool_t *p, const char *s);

/* mt_status_activates_pins returns 1 when |item| is served with pin
 * activation, else 0. */
int mt_status_activates_pins(const mt_rt_t *rt, const mt_item_t *item);

/* mt_status_slot_tacks puts into |out| (TACK_EXT02_MAX_TACKS) the TACKs
 * |slot| serves now, the background's included, and returns how many. */
int mt_status_slot_tacks(apr_pool_t *p, const mt_rt_t *rt,
                         const mt_slot_t *slot, const mt_item_t **out);

/* mt_status_problem_fn receives each problem of a vhost |rt| or of a
 * |store| (|rt| NULL); |pr| lives in the pool given. */
typedef void mt_status_problem_fn(void *data, const mt_rt_t *rt,
                                  const mt_store_t *store,
                                  const mt_problem_t *pr);

/* mt_status_problems calls |fn| for each problem of |rt| at |now| of
 * |severity| (0: all) and returns how many; mt_status_store_problems
 * does the same for a TackStore. */
int mt_status_problems(apr_pool_t *p, const mt_rt_t *rt, time_t now,
                       int severity, mt_status_problem_fn *fn, void *data);
int mt_status_store_problems(apr_pool_t *p, const mt_store_t *st, int severity,
                             mt_status_problem_fn *fn, void *data);

/* mt_status_stores returns the distinct stores the vhosts use, in the
 * order the vhosts first name them (const mt_store_t *), in |p|. */
apr_array_header_t *mt_status_stores(apr_pool_t *p);

/* Totals over the whole server, for summaries. */
typedef struct {
    int vhosts;   /* SSL vhosts */
    int serving;  /* of them, serving at least one TACK */
    int tacks;    /* TACKs served, counting each (vhost, cert) */
    int expiring; /* of them, expiring within 30 days */
    int expired;  /* of them, expired (no longer served) */
    int errors;   /* problems of severity TACK_PROBLEM_ERROR */
    int warnings; /* and TACK_PROBLEM_WARNING (vhosts and stores) */
    const mt_item_t *soonest;
    const mt_rt_t *soonest_rt; /* the vhost serving it */
    apr_uint64_t requested, served;
    int waiting;              /* certificates waiting for TackSigningKey */
    apr_time_t waiting_since; /* the longest wait's start, or 0 */
} mt_totals_t;

/* mt_status_totals fills |t| at |now|; |p| holds scratch space only. */
void mt_status_totals(apr_pool_t *p, mt_totals_t *t, time_t now);

/* mt_status_format_name returns "draft-00" or "draft-02";
 * mt_status_days_left the days until |expires|, rounded down, negative
 * once expired; mt_status_iso_time |t| as "2026-12-03T07:39:47Z" in |p|. */
const char *mt_status_format_name(int format);
long mt_status_days_left(time_t expires, time_t now);
const char *mt_status_iso_time(apr_pool_t *p, apr_time_t t);

/* The page as JSON, HTML and Prometheus text; each returns OK. */
int mt_status_json(request_rec *r, time_t now);
int mt_status_html(request_rec *r, time_t now);
int mt_status_metrics(request_rec *r, time_t now);

#endif /* MOD_TACK_STATUS_H */
