/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_resolve.h -- what each certificate of a vhost is served
 * (mod_tack_resolve.c). */
#ifndef MOD_TACK_RESOLVE_H
#define MOD_TACK_RESOLVE_H

#include "mod_tack_model.h"

/* mt_resolve applies |conf| of |s| to its |ncerts| |certs| (target hashes
 * unchecked when not |certs_known|) into |out|; logs each problem, leaves
 * out what caused it, and returns the number of problems. */
int mt_resolve(apr_pool_t *p, server_rec *s, mt_conf_t *conf,
               mt_certsel_t *certs, int ncerts, int certs_known, mt_sel_t *out);

/* mt_resolve_log_load_errors logs, at a real start, the files that could
 * not be loaded; mt_resolve_check_unmatched the server-level TACKs that
 * matched no certificate; both return the number of problems.
 * mt_resolve_log_warnings logs what is served but must be heard of, once
 * a pass, and returns how many lines (never a problem). */
int mt_resolve_log_load_errors(server_rec *s_main);
int mt_resolve_log_warnings(server_rec *s_main);
int mt_resolve_check_unmatched(server_rec *s_main);

/* mt_resolve_warn_expiry warns about each TACK of |sel| that expires
 * within TACK_EXPIRY_WARN_SECS, unless its certificate ends first. */
void mt_resolve_warn_expiry(server_rec *s, const mt_sel_t *sel);

/* mt_resolve_own_directives returns 1 when |s| has TackFile or
 * TackBreakSigsFile lines of its own, else 0. */
int mt_resolve_own_directives(server_rec *s, const mt_conf_t *conf);

/* mt_resolve_warn_partial warns when a vhost with several certificates
 * has a TACK for only some of them. */
void mt_resolve_warn_partial(server_rec *s, const mt_conf_t *conf,
                             const mt_sel_t *sel);

/* mt_resolve_mark_cert_bound sets ends_with_cert on each TACK of |sel|
 * whose certificate expires no later than it. */
void mt_resolve_mark_cert_bound(const mt_sel_t *sel);

#endif /* MOD_TACK_RESOLVE_H */
