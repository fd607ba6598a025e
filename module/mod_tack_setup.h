/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_setup.h -- the configuration pass (mod_tack_setup.c): the one
 * sequence a real start and "apache2 -t" run, called from mod_tack.c's
 * hooks.
 */
#ifndef MOD_TACK_SETUP_H
#define MOD_TACK_SETUP_H

#include "mod_tack_base.h"

/* mt_setup_start makes the state of the generation of |pconf|, every
 * file's part, and the process's the first time (pre_config, before any
 * directive is read): no part is made later, on first use. */
void mt_setup_start(apr_pool_t *pconf, apr_pool_t *pproc);

/* mt_setup_server runs the pass for the SSL vhost |s| at a real start or
 * restart (mod_ssl's ssl_init_server hook, |ctx| its context with the
 * certificates loaded): what it serves, signed where TackSigningKey must,
 * in a table built in |p| and registered on |ctx|. */
void mt_setup_server(apr_pool_t *p, server_rec *s, SSL_CTX *ctx);

/* mt_setup_finish ends a real start's pass, once every SSL vhost went
 * through mt_setup_server (post_config): problems are logged, nothing is
 * refused. */
void mt_setup_finish(apr_pool_t *ptemp, server_rec *s_main);

/* mt_setup_check is the check_config hook: under "apache2 -t" it
 * resolves every server's TACKs against the certificates its
 * SSLCertificateFile lines name, and refuses the configuration when
 * anything is wrong.  Returns OK or HTTP_INTERNAL_SERVER_ERROR. */
int mt_setup_check(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                   server_rec *s);

#endif /* MOD_TACK_SETUP_H */
