/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/* mod_tack_setup.h -- the configuration pass, one sequence for a real
 * start and "apache2 -t" (mod_tack_setup.c). */
#ifndef MOD_TACK_SETUP_H
#define MOD_TACK_SETUP_H

#include "mod_tack_base.h"

/* mt_setup_start makes the generation of |pconf| and every file's part,
 * and the process's in |pproc| the first time (pre_config). */
void mt_setup_start(apr_pool_t *pconf, apr_pool_t *pproc);

/* mt_setup_server runs the pass for the SSL vhost |s| at a real start
 * (mod_ssl's init_server hook): what |ctx| serves, in a table built in |p|
 * and registered on it. */
void mt_setup_server(apr_pool_t *p, server_rec *s, SSL_CTX *ctx);

/* mt_setup_finish ends a real start's pass (post_config): problems are
 * logged, nothing is refused. */
void mt_setup_finish(apr_pool_t *ptemp, server_rec *s_main);

/* mt_setup_check, the check_config hook, runs the pass under "apache2 -t"
 * against the certificates SSLCertificateFile names; returns OK, or
 * HTTP_INTERNAL_SERVER_ERROR when anything is wrong. */
int mt_setup_check(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                   server_rec *s);

#endif /* MOD_TACK_SETUP_H */
