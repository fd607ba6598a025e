/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_resolve.h -- what each certificate of a vhost is served
 * (mod_tack_resolve.c).
 */
#ifndef MOD_TACK_RESOLVE_H
#define MOD_TACK_RESOLVE_H

#include "mod_tack_model.h"

/* mt_resolve applies the configuration of |s| to its certificates
 * |certs| (|ncerts| of them; |certs_known| is 0 when they could not be
 * found, and then target hashes are not checked): picks the TACKs for each
 * certificate, the break signatures, the format and the activation flag,
 * into |out|.  Every problem is logged (at error level, unless quiet) and
 * what caused it left out.  Returns the number of problems. */
int mt_resolve(apr_pool_t *p, server_rec *s, mt_conf_t *conf,
               mt_certsel_t *certs, int ncerts, int certs_known, mt_sel_t *out);

/* mt_resolve_log_load_errors logs, at a real start, the files that could
 * not be loaded; mt_resolve_check_unmatched logs server-level TACKs that
 * matched no certificate.  Both return the number of problems. */
int mt_resolve_log_load_errors(server_rec *s_main);

/* mt_resolve_log_warnings logs, once per pass, what is served but must be
 * heard of (mt_file_t.warnings, mt_sigfile_t.warning); returns how many
 * lines it logged.  Never a problem: warnings do not refuse a
 * configuration. */
int mt_resolve_log_warnings(server_rec *s_main);
int mt_resolve_check_unmatched(server_rec *s_main);

/* mt_resolve_warn_expiry logs a warning for a TACK of |sel| that expires
 * within TACK_EXPIRY_WARN_SECS, unless its certificate ends first. */
void mt_resolve_warn_expiry(server_rec *s, const mt_sel_t *sel);

/* mt_resolve_own_directives returns 1 when |s| has TackFile or
 * TackBreakSigsFile lines of its own (not inherited from the server config). */
int mt_resolve_own_directives(server_rec *s, const mt_conf_t *conf);

/* mt_resolve_warn_partial warns when a vhost with several certificates
 * has a TACK for only some of them (most clients negotiate ECDSA). */
void mt_resolve_warn_partial(server_rec *s, const mt_conf_t *conf,
                             const mt_sel_t *sel);

/* mt_resolve_mark_cert_bound sets ends_with_cert on each TACK of |sel|
 * whose certificate expires no later than it (real start: certificates
 * known). */
void mt_resolve_mark_cert_bound(const mt_sel_t *sel);

#endif /* MOD_TACK_RESOLVE_H */
