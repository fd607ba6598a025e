/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_config.c -- the directives and the per-server create/merge.
 * What a directive reads is loaded by mod_tack_load.c (TackFile,
 * TackBreakSigsFile) and mod_tack_store.c (TackStore); TACKs are matched to
 * certificates by mod_tack_resolve.c in the configuration pass
 * (mod_tack_setup.c); the two regimes are mt_strict and mt_quiet
 * (mod_tack_base.c).
 *
 * Two regimes (see docs and the facts file):
 *  - under "apache2 -t" (and so apache2ctl configtest/graceful/restart) every
 *    problem is an error and the test fails, so a bad edit never reaches a
 *    running server;
 *  - at a real start or restart a problem is logged and only what caused it
 *    is left out: a directive that fails during a restart makes httpd exit,
 *    which would take every site down for one expired TACK.
 * Certificates are known to mod_ssl only after the directives have been read:
 * at a real start they are matched in the ssl_init_server hook; under -t,
 * where that hook does not run, mt_setup_check finds each vhost's
 * SSLCertificateFile lines in the configuration tree (mod_tack_setup.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pwd.h>

#include "httpd.h"
#include "http_config.h"
#include "apr_strings.h"

#include "mod_tack_config.h"
#include "mod_tack_load.h"
#include "mod_tack_store.h"
#include "mod_tack_secret.h"
#include "mod_tack_signer.h"

APLOG_USE_MODULE(tack);

/* ---- small helpers ------------------------------------------------------- */

/* ---- directives ---------------------------------------------------------- */

/* mt_server_path resolves |arg| against ServerRoot.  An absolute path
 * that is already canonical is kept as it is: http_config.h promises a
 * freshly allocated argument in cmd->pool that may be stored, and
 * ap_server_root_relative would allocate another buffer, sized for
 * ServerRoot and the argument together, for every TackFile line. */
static const char *mt_server_path(cmd_parms *cmd, const char *arg)
{
    if (arg[0] == '/' && !strstr(arg, "//") && !strstr(arg, "/./") &&
        !strstr(arg, "/../")) {
        size_t len = strlen(arg);

        if (!(len >= 2 && strcmp(arg + len - 2, "/.") == 0) &&
            !(len >= 3 && strcmp(arg + len - 3, "/..") == 0)) {
            return arg;
        }
    }
    return ap_server_root_relative(cmd->pool, arg);
}

/* mt_store_twice judges a second TackStore line in one context (two
 * routes' blocks pasted at server level: the one read later would win,
 * silently, by include order): another directory than the first's is
 * refused under -t, naming both lines, and said at a real start
 * (TACK00148), where the later one is used as before.  Returns the
 * directive's error, or NULL. */
static const char *mt_store_twice(cmd_parms *cmd, mt_conf_t *conf,
                                  const char *path)
{
    const char *msg;

    if (!conf->store_line || !strcmp(conf->store_line->arg, path)) {
        return NULL;
    }
    msg = apr_psprintf(
        cmd->pool,
        "TackStore %s (" TACK_WHERE_FMT ") and TackStore %s (" TACK_WHERE_FMT
        ") in one context: the one read later would replace the other "
        "silently, by the order of the included files; keep one (a "
        "TackStore of its own in each virtual host that needs another)",
        conf->store_line->arg, TACK_WHERE(conf->store_line->where), path,
        TACK_WHERE(cmd->directive));
    if (mt_strict()) {
        return msg;
    }
    conf->store_line->twice = msg;
    return NULL;
}

/* mt_store_line records the TackStore line |arg| of |conf|. */
static void mt_store_line(cmd_parms *cmd, mt_conf_t *conf, const char *arg)
{
    if (!conf->store_line) {
        conf->store_line = apr_pcalloc(cmd->pool, sizeof(*conf->store_line));
    }
    conf->store_line->arg = arg;
    conf->store_line->where = cmd->directive;
}

/* mt_sign_make makes the signing settings of a context: the first
 * TackSigning* line of a context does (a vhost's are its own until the
 * merge). */
static mt_sign_conf_t *mt_sign_make(apr_pool_t *p)
{
    mt_sign_conf_t *sign = apr_pcalloc(p, sizeof(*sign));

    sign->min_gen = TACK_UNSET;
    sign->gen = TACK_UNSET;
    return sign;
}

static const char *mt_cmd_TackStore(cmd_parms *cmd, void *dcfg, const char *arg)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);
    const char *path, *err;
    mt_store_t *st;

    conf->store_set = 1;
    if (!strcasecmp(arg, "none")) {
        if ((err = mt_store_twice(cmd, conf, "none"))) {
            return err;
        }
        mt_store_line(cmd, conf, "none");
        conf->store = NULL;
        return NULL;
    }
    path = ap_server_root_relative(cmd->pool, arg);
    if (!path) {
        return apr_psprintf(cmd->pool, "TackStore %s: invalid path", arg);
    }
    while (strlen(path) > 1 && path[strlen(path) - 1] == '/') {
        path = apr_pstrndup(cmd->pool, path, strlen(path) - 1);
    }
    if ((err = mt_store_twice(cmd, conf, path))) {
        return err;
    }
    mt_store_line(cmd, conf, path);
    st = mt_store_get(cmd, path);
    if (st->error && mt_strict()) {
        return st->error;
    }
    conf->store = st;
    return NULL;
}

static const char *mt_cmd_TackFile(cmd_parms *cmd, void *dcfg, const char *arg,
                                   const char *flag)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);
    mt_file_t *f, **last;
    const char *err;
    int expired;

    if (flag && strcasecmp(flag, "inactive")) {
        return apr_psprintf(cmd->pool,
                            "TackFile %s: unknown flag \"%s\" (only "
                            "\"inactive\" is allowed)",
                            arg, flag);
    }
    f = apr_pcalloc(cmd->pool, sizeof(*f));
    f->s = cmd->server;
    f->kind = "TackFile";
    f->where = mt_where(cmd);
    f->inactive = flag != NULL;
    f->server_level = !cmd->server->is_virtual;
    f->path = mt_server_path(cmd, arg);
    if (!f->path) {
        return apr_psprintf(cmd->pool, "TackFile %s: invalid file path", arg);
    }
    err = mt_load_tackfile(cmd->pool, f, &expired);
    if (err) {
        if (mt_strict() && !expired) {
            return err;
        }
        /* expired: a condition of time, warned about under -t (by
         * mt_setup_check), never refused, or one lapsed TACK would
         * block every later reload */
        f->error = err;
        f->expired = expired ? f->nitems : 0;
        f->nitems = 0;
    }
    for (last = &conf->files; *last; last = &(*last)->next) {
    }
    *last = f; /* in the order of the lines */
    return NULL;
}

static const char *mt_cmd_TackBreakSigsFile(cmd_parms *cmd, void *dcfg,
                                            const char *arg)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);
    mt_sigfile_t *f;
    const char *err;

    f = apr_pcalloc(cmd->pool, sizeof(*f));
    f->s = cmd->server;
    f->where = mt_where(cmd);
    f->path = mt_server_path(cmd, arg);
    if (!f->path) {
        return apr_psprintf(cmd->pool,
                            "TackBreakSigsFile %s: invalid file path", arg);
    }
    err = mt_load_sigfile(cmd->pool, f);
    if (!err && conf->num_sigs + f->num > TACK_MAX_BREAKSIGS) {
        /* draft-00 section 3: at most 8 break signatures in one extension */
        err = apr_psprintf(cmd->pool,
                           "TackBreakSigsFile %s: %" APR_SIZE_T_FMT
                           " break signatures in all "
                           "for this %s, at most %d allowed",
                           f->path, conf->num_sigs + f->num,
                           cmd->server->is_virtual ? "virtual host" : "server",
                           TACK_MAX_BREAKSIGS);
    }
    if (err) {
        if (mt_strict()) {
            return err;
        }
        f->error = err;
        f->num = 0;
    }
    conf->num_sigs += f->num;
    if (!conf->sigfiles) {
        conf->sigfiles = apr_array_make(cmd->pool, 1, sizeof(mt_sigfile_t *));
    }
    APR_ARRAY_PUSH(conf->sigfiles, mt_sigfile_t *) = f;
    return NULL;
}

static const char *mt_cmd_TackPinActivation(cmd_parms *cmd, void *dcfg, int on)
{
    mt_conf_get(cmd->server)->pin_activation = on ? 1 : 0;
    return NULL;
}

static const char *mt_cmd_TackTLS13(cmd_parms *cmd, void *dcfg, int on)
{
    mt_conf_get(cmd->server)->tls13 = on ? 1 : 0;
    return NULL;
}

static const char *mt_cmd_TackRequired(cmd_parms *cmd, void *dcfg, int on)
{
    mt_conf_get(cmd->server)->required = on ? 1 : 0;
    return NULL;
}

static const char *mt_cmd_TackFormat(cmd_parms *cmd, void *dcfg,
                                     const char *arg)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);

    if (!strcasecmp(arg, "draft-00")) {
        conf->format = TACK_FORMAT_00;
    } else if (!strcasecmp(arg, "draft-02")) {
        conf->format = TACK_FORMAT_02;
    } else {
        return apr_psprintf(cmd->pool,
                            "TackFormat %s: unknown format (draft-00 or "
                            "draft-02)",
                            arg);
    }
    return NULL;
}

/* TackSigningKey FILE|pkcs11:URI|none: a PKCS#11 URI is kept as written
 * (RFC 7512), a file is resolved against ServerRoot. */
static const char *mt_cmd_TackSigningKey(cmd_parms *cmd, void *dcfg,
                                         const char *arg)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);
    mt_sign_conf_t *sign;

    if (!conf->sign) {
        conf->sign = mt_sign_make(cmd->pool);
    }
    sign = conf->sign;
    sign->key_where = mt_where(cmd);
    if (!strcasecmp(arg, "none")) {
        sign->key = "";
    } else if (!strncasecmp(arg, "pkcs11:", 7)) {
        if (ap_strcasestr(arg, "pin-value=")) {
            return "TackSigningKey: the PKCS#11 URI carries pin-value: the PIN "
                   "does not belong in httpd.conf; take it out and name its "
                   "source with TackSigningPassword file:, exec: or env:";
        }
        sign->key = arg;
    } else if (!(sign->key = mt_server_path(cmd, arg))) {
        return apr_psprintf(cmd->pool, "TackSigningKey %s: invalid file path",
                            arg);
    }
    return NULL;
}

/* TackSigningPassword file:PATH|exec:PATH|env:NAME: never the password. */
static const char *mt_cmd_TackSigningPassword(cmd_parms *cmd, void *dcfg,
                                              const char *arg)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);
    mt_sign_conf_t *sign;
    const char *err = mt_secret_pw_syntax(cmd->pool, arg);

    if (err) {
        return err;
    }
    if (!strncmp(arg, "file:", 5) || !strncmp(arg, "exec:", 5)) {
        const char *path = ap_server_root_relative(cmd->pool, arg + 5);

        if (!path) {
            return apr_psprintf(cmd->pool,
                                "TackSigningPassword %s: invalid path", arg);
        }
        arg =
            apr_pstrcat(cmd->pool, apr_pstrndup(cmd->pool, arg, 5), path, NULL);
    }
    if (!conf->sign) {
        conf->sign = mt_sign_make(cmd->pool);
    }
    sign = conf->sign;
    sign->pw = arg;
    sign->pw_where = mt_where(cmd);
    return NULL;
}

/* TackSigningGeneration MIN_GENERATION [GENERATION]: the fields of the
 * TACKs the module signs, 0-255, generation >= min_generation (it is
 * min_generation when not given). */
static const char *mt_cmd_TackSigningGeneration(cmd_parms *cmd, void *dcfg,
                                                const char *min,
                                                const char *gen)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);
    mt_sign_conf_t *sign;
    const char *arg[2] = {min, gen ? gen : min};
    int val[2], i;

    for (i = 0; i < 2; i++) {
        char *end;
        long v = strtol(arg[i], &end, 10);

        if (!*arg[i] || *end || v < 0 || v > 255) {
            return apr_psprintf(cmd->pool,
                                "TackSigningGeneration %s: not a number from "
                                "0 to 255",
                                arg[i]);
        }
        val[i] = (int)v;
    }
    if (val[1] < val[0]) {
        return apr_psprintf(cmd->pool,
                            "TackSigningGeneration %d %d: the generation is "
                            "below min_generation (clients would refuse the "
                            "TACK)",
                            val[0], val[1]);
    }
    if (!conf->sign) {
        conf->sign = mt_sign_make(cmd->pool);
    }
    sign = conf->sign;
    sign->min_gen = (short)val[0];
    sign->gen = (short)val[1];
    return NULL;
}

/* TackStateFile PATH: where the memory of served TACKs lives (main server
 * only: one memory for the whole server). */
static const char *mt_cmd_TackStateFile(cmd_parms *cmd, void *dcfg,
                                        const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err) {
        return err;
    }
    if (!(mt_conf_get(cmd->server)->main->state_file =
              ap_server_root_relative(cmd->pool, arg))) {
        return apr_psprintf(cmd->pool, "TackStateFile %s: invalid path", arg);
    }
    mt_load_vcache_file(mt_conf_get(cmd->server)->main->state_file);
    return NULL;
}

/* mt_secs_parse reads |arg|, a number of seconds from |lo| to |hi|, into
 * |*v|; returns 1, or 0 when it is not one. */
static int mt_secs_parse(const char *arg, int lo, int hi, int *v)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(arg, &end, 10);
    if (errno || end == arg || *end || n < lo || n > hi) {
        return 0;
    }
    *v = (int)n;
    return 1;
}

/* TackSigningWait SECONDS (main server): how long a start or restart
 * waits for signatures in all. */
static const char *mt_cmd_TackSigningWait(cmd_parms *cmd, void *dcfg,
                                          const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    int v;

    if (err) {
        return err;
    }
    if (!mt_secs_parse(arg, 0, 300, &v)) {
        return apr_psprintf(cmd->pool,
                            "TackSigningWait %s: not a number of seconds "
                            "from 0 to 300",
                            arg);
    }
    mt_conf_get(cmd->server)->main->sign_wait = v;
    return NULL;
}

/* TackSigningRetry SECONDS [CEILING] (main server): how often the
 * background tries a signing key that failed again; the longest a
 * background that keeps dying waits before its successor. */
static const char *mt_cmd_TackSigningRetry(cmd_parms *cmd, void *dcfg,
                                           const char *arg, const char *max)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    mt_main_conf_t *conf;
    int v, m;

    if (err) {
        return err;
    }
    if (!mt_secs_parse(arg, 1, 3600, &v)) {
        return apr_psprintf(cmd->pool,
                            "TackSigningRetry %s: not a number of seconds "
                            "from 1 to 3600",
                            arg);
    }
    conf = mt_conf_get(cmd->server)->main;
    conf->sign_retry = v;
    conf->sign_retry_max = TACK_UNSET;
    if (!max) {
        return NULL;
    }
    if (!mt_secs_parse(max, 1, TACK_SIGN_RETRY_MAX_LIMIT, &m)) {
        return apr_psprintf(cmd->pool,
                            "TackSigningRetry %s %s: the ceiling, %s, is not "
                            "a number of seconds from %s to %d",
                            arg, max, max, arg, TACK_SIGN_RETRY_MAX_LIMIT);
    }
    if (m < v) {
        return apr_psprintf(cmd->pool,
                            "TackSigningRetry %s %s: the ceiling (%d "
                            "seconds), the longest the background's "
                            "successor waits, is below the first wait (%d "
                            "seconds): give a ceiling from %d to %d, or none "
                            "(%d)",
                            arg, max, m, v, v, TACK_SIGN_RETRY_MAX_LIMIT,
                            TACK_SIGN_RETRY_MAX_SECS);
    }
    conf->sign_retry_max = m;
    return NULL;
}

/* TackStoreOwner USER: besides root, the one user whose TackStore
 * directories and files are trusted (the user the hooks sign as, e.g. via
 * sudo), main server only. */
static const char *mt_cmd_TackStoreOwner(cmd_parms *cmd, void *dcfg,
                                         const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err) {
        return err;
    }
    if (!getpwnam(arg)) {
        return apr_psprintf(cmd->pool, "TackStoreOwner %s: no such user", arg);
    }
    mt_conf_get(cmd->server)->main->store_owner = arg;
    return NULL;
}

/* TackLetPinsLapse TACK-ID...: the recorded decision to stop serving a
 * TACK key whose pins may still be active. */
static const char *mt_cmd_TackLetPinsLapse(cmd_parms *cmd, void *dcfg,
                                           const char *arg)
{
    mt_conf_t *conf = mt_conf_get(cmd->server);
    size_t i, n = strlen(arg);

    for (i = 0; i < n; i++) {
        int dot = i % 6 == 5;

        if (dot ? arg[i] != '.'
                : !((arg[i] >= 'a' && arg[i] <= 'z') ||
                    (arg[i] >= '2' && arg[i] <= '7'))) {
            break;
        }
    }
    if (n != TACK_FINGERPRINT_SIZE - 1 || i != n) {
        return apr_psprintf(cmd->pool,
                            "TackLetPinsLapse %s: not a TACK ID (five groups "
                            "of five letters and digits 2-7 joined by dots, "
                            "as " TACK_PROG " view shows it)",
                            arg);
    }
    if (!conf->lapse) {
        conf->lapse = apr_array_make(cmd->pool, 1, sizeof(const char *));
    }
    APR_ARRAY_PUSH(conf->lapse, const char *) = arg;
    return NULL;
}

const command_rec mt_config_cmds[] = {
    AP_INIT_TAKE12("TackFile", mt_cmd_TackFile, NULL, RSRC_CONF,
                   "a TACK file, and optionally 'inactive' (repeatable)"),
    AP_INIT_TAKE1("TackBreakSigsFile", mt_cmd_TackBreakSigsFile, NULL,
                  RSRC_CONF,
                  "a file of TACK BREAK SIG blocks (repeatable, 8 in all)"),
    AP_INIT_FLAG("TackPinActivation", mt_cmd_TackPinActivation, NULL, RSRC_CONF,
                 "ask clients to activate pins (default off)"),
    AP_INIT_TAKE1("TackFormat", mt_cmd_TackFormat, NULL, RSRC_CONF,
                  "draft-00 (default) or draft-02"),
    AP_INIT_FLAG("TackTLS13", mt_cmd_TackTLS13, NULL, RSRC_CONF,
                 "also serve TACK in TLS 1.3 EncryptedExtensions (default "
                 "off)"),
    AP_INIT_FLAG("TackRequired", mt_cmd_TackRequired, NULL, RSRC_CONF,
                 "on: a certificate of this vhost serving no TACK is a "
                 "problem (status page, metrics, log); off: it is not "
                 "configured yet (default: on when the vhost has a "
                 "TackStore, break signatures, a TackSigningKey or a TACK)"),
    AP_INIT_TAKE1("TackStore", mt_cmd_TackStore, NULL, RSRC_CONF,
                  "a directory of *.tack.pem files served to every SSL vhost "
                  "by target_hash, or 'none'"),
    AP_INIT_TAKE1("TackSigningKey", mt_cmd_TackSigningKey, NULL, RSRC_CONF,
                  "a TACK key file or a pkcs11: URI: sign at start-up a TACK "
                  "for each certificate without one; or 'none'"),
    AP_INIT_TAKE1("TackSigningPassword", mt_cmd_TackSigningPassword, NULL,
                  RSRC_CONF,
                  "where the signing key's password or PIN comes from: "
                  "file:PATH, exec:PROGRAM or env:NAME"),
    AP_INIT_TAKE1("TackStoreOwner", mt_cmd_TackStoreOwner, NULL, RSRC_CONF,
                  "besides root, the user whose TackStore directories and "
                  "files are trusted (never the user httpd's children run "
                  "as)"),
    AP_INIT_TAKE1("TackStateFile", mt_cmd_TackStateFile, NULL, RSRC_CONF,
                  "the file that remembers which TACK keys were served with "
                  "pin activation (server config only)"),
    AP_INIT_ITERATE("TackLetPinsLapse", mt_cmd_TackLetPinsLapse, NULL,
                    RSRC_CONF,
                    "TACK IDs whose pins may lapse: stop serving them on "
                    "purpose"),
    AP_INIT_TAKE12("TackSigningGeneration", mt_cmd_TackSigningGeneration, NULL,
                   RSRC_CONF,
                   "min_generation and generation of the TACKs signed "
                   "(default 0 0)"),
    AP_INIT_TAKE1("TackSigningWait", mt_cmd_TackSigningWait, NULL, RSRC_CONF,
                  "how long a start or restart waits for TackSigningKey's "
                  "signatures in all, 0 to 300 seconds (default 10); the "
                  "rest are signed in the background (server config only)"),
    AP_INIT_TAKE12("TackSigningRetry", mt_cmd_TackSigningRetry, NULL, RSRC_CONF,
                   "how often the background tries a TackSigningKey that "
                   "failed again, 1 to 3600 seconds (default 60), and the "
                   "longest a background that keeps dying waits before its "
                   "successor, up to 86400 (default 3600; server config "
                   "only)"),
    {NULL}};

/* ---- create / merge ------------------------------------------------------ */

/* AP_MODULE_FLAG_ALWAYS_MERGE gives every vhost its own merged copy, so
 * that every SSL_CTX gets its own callback argument (the SNI trap in
 * mod_tack.c).  The arrays are made by the first directive that needs
 * them: most vhosts of a large server have none, and each costs ~80
 * bytes. */

void *mt_config_create(apr_pool_t *p, server_rec *s)
{
    mt_conf_t *conf = apr_pcalloc(p, sizeof(*conf));

    conf->pin_activation = TACK_UNSET;
    conf->format = TACK_UNSET;
    conf->tls13 = TACK_UNSET;
    conf->required = TACK_UNSET;
    if (!s->is_virtual) {
        /* the GLOBAL_ONLY directives' (a vhost's stays NULL) */
        conf->main = apr_pcalloc(p, sizeof(*conf->main));
        conf->main->sign_wait = TACK_UNSET;
        conf->main->sign_retry = TACK_UNSET;
        conf->main->sign_retry_max = TACK_UNSET;
    }
    return conf;
}

/* The merge is into |addv| itself: a vhost's own configuration
 * is created for that vhost only, and httpd replaces it by what the merge
 * returns, so nothing else sees it (a copy would cost every vhost another
 * struct). */
void *mt_config_merge(apr_pool_t *p, void *basev, void *addv)
{
    mt_conf_t *base = basev, *mrg = addv;

    /* A vhost's own TackFiles; the main server's are candidates, served
     * for a certificate for which the vhost has no TACK of its own. */
    mrg->server_files = base->files;
    if (!mrg->sigfiles) {
        mrg->sigfiles = base->sigfiles;
        mrg->num_sigs = base->num_sigs;
    }
    if (mrg->pin_activation == TACK_UNSET) {
        mrg->pin_activation = base->pin_activation;
    }
    if (mrg->format == TACK_UNSET) {
        mrg->format = base->format;
    }
    if (!mrg->store_set) {
        mrg->store = base->store;
        mrg->store_set = base->store_set;
    }
    if (mrg->tls13 == TACK_UNSET) {
        mrg->tls13 = base->tls13;
    }
    if (mrg->required == TACK_UNSET) {
        mrg->required = base->required;
    }
    if (!mrg->sign) {
        mrg->sign = base->sign; /* shared: read only from here on */
    } else if (base->sign) {
        mt_sign_conf_t *own = mrg->sign;

        if (!own->key) {
            own->key = base->sign->key;
            own->key_where = base->sign->key_where;
        }
        if (!own->pw) {
            own->pw = base->sign->pw;
            own->pw_where = base->sign->pw_where;
        }
        if (own->gen == TACK_UNSET) {
            own->min_gen = base->sign->min_gen;
            own->gen = base->sign->gen;
        }
    }
    if (!mrg->lapse) {
        mrg->lapse = base->lapse;
    }
    return mrg;
}
