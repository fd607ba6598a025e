/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack.c -- serve TACK (draft-perrin-tls-tack) from Apache httpd 2.4.
 *
 * The module record and its hooks, the top of the module's layers
 * (docs/contributing.md, "Architecture"): each hook hands over to the file
 * that does the work -- the configuration pass (mod_tack_setup.c), the
 * directives (mod_tack_config.c), the status handler (mod_tack_status.c).
 * What a handshake runs is in mod_tack_handshake.c; everything about TACK
 * itself goes through the core library (tack_*.h).
 */

#include "httpd.h"
#include "http_config.h"
#include "http_protocol.h"

#include <openssl/ssl.h>

#include "mod_ssl.h"
#if defined(__has_include)
#if __has_include("mod_ssl_openssl.h")
#include "mod_ssl_openssl.h"
#define TACK_HAVE_MOD_SSL_OPENSSL_H 1
#endif
#endif
#ifndef TACK_HAVE_MOD_SSL_OPENSSL_H
/* Debian's apache2-dev lacks mod_ssl_openssl.h; optional hooks are found by
 * name at run time, so declaring the hook here is enough. */
APR_DECLARE_EXTERNAL_HOOK(ssl, SSL, int, init_server,
                          (server_rec * s, apr_pool_t *p, int is_proxy,
                           SSL_CTX *ctx))
#endif

#include "mod_tack_load.h"
#include "mod_tack_store.h"
#include "mod_tack_secret.h"
#include "mod_tack_config.h"
#include "mod_tack_runtime.h"
#include "mod_tack_status.h"
#include "mod_tack_setup.h"

APLOG_USE_MODULE(tack);

/* ---- hooks --------------------------------------------------------------- */

/* mt_hook_pre_config runs before the directives of a pass are read. */
static int mt_hook_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp)
{
    /* pconf is the process's (process->pconf), a child of its pool */
    mt_setup_start(pconf, apr_pool_parent_get(pconf));
    return OK;
}

/* mt_hook_init_server runs once per SSL vhost, at every start and restart,
 * on a fresh SSL_CTX with its certificates loaded.
 *
 * The SNI trap: OpenSSL 3.0 collects the ClientHello's extensions with the
 * extension table of the context the connection started on -- the default
 * vhost of the address -- before mod_ssl switches to the SNI vhost's.  If
 * that first context has not registered 0xF300, the request is dropped for
 * every vhost behind it (and libssl over-reads its table).  So the extension
 * is registered on every server context, with or without anything to send.
 *
 * TLS 1.3 and SNI (t/apache/tls13.t): the SNI vhost's TackTLS13 decides, in
 * both directions.  The default vhost's table only has to know 0xF300 for
 * the request to be collected; whether it is relevant to TLS 1.3, parsed
 * and answered is decided with the table of the context mod_ssl switched
 * to. */
static int mt_hook_init_server(server_rec *s, apr_pool_t *p, int is_proxy,
                               SSL_CTX *ctx)
{
    if (!is_proxy) { /* a client-role context is for backend connections */
        mt_setup_server(p, s, ctx);
    }
    return OK;
}

/* mt_hook_post_config runs after mod_ssl's, so after every vhost went
 * through mt_hook_init_server: the end of the pass, then the counters. */
static int mt_hook_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    if (mt_strict()) {
        return OK; /* mt_setup_check did it all */
    }
    mt_setup_finish(ptemp, s);
    return mt_status_post_config(pconf, ptemp, s);
}

/* mt_hook_post_read_request sets TACK_REQUESTED=1 on every request of a
 * connection whose full handshake asked for TACK, and TACK_SERVED to the
 * fingerprints of the TACKs it received, from the note mt_cb_ext_add left
 * in the connection's conn_config.  An HTTP/2 stream runs on a secondary
 * connection: the note is on the master. */
static int mt_hook_post_read_request(request_rec *r)
{
    conn_rec *c = r->connection->master ? r->connection->master : r->connection;
    const mt_body_t *body = ap_get_module_config(c->conn_config, &tack_module);

    if (body) {
        apr_table_setn(r->subprocess_env, TACK_ENV_REQUESTED, "1");
        if (body->served) {
            apr_table_setn(r->subprocess_env, TACK_ENV_SERVED, body->served);
        }
    }
    return DECLINED;
}

/* mt_hook_child_init runs in each new httpd child: it drops what only
 * the parent and the background use. */
static void mt_hook_child_init(apr_pool_t *p, server_rec *s)
{
    mt_store_child_init();
}

static void mt_register_hooks(apr_pool_t *p)
{
    static const char *const after_ssl[] = {"mod_ssl.c", NULL};

    ap_hook_pre_config(mt_hook_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(mt_setup_check, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(mt_hook_post_config, after_ssl, NULL, APR_HOOK_MIDDLE);
    APR_OPTIONAL_HOOK(ssl, init_server, mt_hook_init_server, NULL, NULL,
                      APR_HOOK_MIDDLE);
    ap_hook_post_read_request(mt_hook_post_read_request, NULL, NULL,
                              APR_HOOK_MIDDLE);
    ap_hook_child_init(mt_hook_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    mt_status_register_hooks(p);
    mt_secret_register_hooks(p);
}

/* Spelled out rather than AP_DECLARE_MODULE(tack), which would repeat the
 * APLOG_USE_MODULE(tack) that the log calls above already need. */
module AP_MODULE_DECLARE_DATA tack_module = {
    STANDARD20_MODULE_STUFF,
    NULL,              /* per-directory config: none */
    NULL,              /* merge per-directory */
    mt_config_create,  /* per-server config */
    mt_config_merge,   /* merge per-server */
    mt_config_cmds,    /* directives */
    mt_register_hooks, /* hooks */
    AP_MODULE_FLAG_ALWAYS_MERGE,
};
