/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_base.c -- the bottom of the module: what every other file
 * needs and nothing else.  The configuration of a server (mt_conf_get),
 * the two regimes (mt_strict under "apache2 -t", mt_quiet in the discarded
 * first pass of a start), a vhost's name in messages, file-reading and
 * message helpers, the monotonic clock.  It calls only httpd, APR,
 * OpenSSL and the core: never another file of the module.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_strings.h"

#include <openssl/err.h>

#include "mod_tack_base.h"
#include "tack_util.h"
#include "tack_file.h"

APLOG_USE_MODULE(tack);

/* ---- the generation and the process ------------------------------------ */
/* Two owners of state, by lifetime (docs/contributing.md): the generation,
 * made in pre_config in pconf and gone with it (each file's part a member
 * of its own type, made by that file, dropped by it when its part ends
 * sooner; the background and the children see the generation they were
 * forked in), and the process, for what deliberately outlives a
 * generation (the module and its statics are unloaded at every restart).
 * Nothing else lives at file scope but constants and a signal handler's
 * process group (t/repo/layers.t). */

#define TACK_PROC_KEY "mod_tack_process"

static mt_gen_t *mt_gen_current;
static mt_proc_t *mt_proc_current; /* cached: the process pool keeps it */

static apr_status_t mt_gen_end(void *gen)
{
    if (mt_gen_current == gen) {
        mt_gen_current = NULL;
    }
    return APR_SUCCESS;
}

/* The process's part is found in the process pool (the module's statics
 * do not outlive a restart), or made there the first time. */
static void mt_proc_start(apr_pool_t *pproc)
{
    void *data = NULL;

    apr_pool_userdata_get(&data, TACK_PROC_KEY, pproc);
    if (!data) {
        data = apr_pcalloc(pproc, sizeof(mt_proc_t));
        apr_pool_userdata_set(data, TACK_PROC_KEY, apr_pool_cleanup_null,
                              pproc);
    }
    mt_proc_current = data;
}

void mt_gen_start(apr_pool_t *pconf, apr_pool_t *pproc)
{
    mt_gen_t *gen = apr_pcalloc(pconf, sizeof(*gen));

    gen->pconf = pconf;
    mt_gen_current = gen;
    apr_pool_cleanup_register(pconf, gen, mt_gen_end, apr_pool_cleanup_null);
    if (!mt_proc_current) {
        mt_proc_start(pproc);
    }
}

/* Used before pre_config made the state: a bug, said (crit), and the
 * process stops there (abort: a core file shows the caller), never a
 * generation made on the spot without its parts. */
static void mt_gen_missing(void)
{
    ap_log_error(APLOG_MARK, APLOG_CRIT, 0, ap_server_conf,
                 "TACK00153: internal error: mod_tack's state was used "
                 "before pre_config made it; please report this");
    abort();
}

mt_gen_t *mt_gen(void)
{
    if (!mt_gen_current) {
        mt_gen_missing();
    }
    return mt_gen_current;
}

mt_proc_t *mt_proc(void)
{
    if (!mt_proc_current) {
        mt_gen_missing();
    }
    return mt_proc_current;
}

int mt_strict(void)
{
    return ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST;
}

int mt_quiet(void)
{
    /* httpd reads its configuration twice when it first starts; the first
     * pass (AP_SQ_MS_CREATE_PRE_CONFIG) would log everything twice.  Under
     * -t that first pass is the only one. */
    return !mt_strict() &&
           ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG;
}

const char *mt_vhost_name_buf(server_rec *s, char buf[TACK_NAME_SIZE])
{
    apr_port_t port = s->port;

    if (!port && s->addrs) {
        port = s->addrs->host_port;
    }
    apr_snprintf(buf, TACK_NAME_SIZE, "%s:%u",
                 s->server_hostname ? s->server_hostname : "(unnamed)",
                 (unsigned)port);
    return buf;
}

const char *mt_vhost_name(server_rec *s)
{
    char buf[TACK_NAME_SIZE];

    return apr_pstrdup(s->process->pconf, mt_vhost_name_buf(s, buf));
}

mt_conf_t *mt_conf_get(server_rec *s)
{
    return ap_get_module_config(s->module_config, &tack_module);
}

/* mt_read_error says why |path| could not be read (|st| not TACK_OK). */
static const char *mt_read_error(apr_pool_t *p, const char *directive,
                                 const char *path, tack_status_t st)
{
    return apr_psprintf(p, "%s %s: cannot read file: %s", directive, path,
                        st == TACK_ERR_IO ? strerror(errno)
                                          : tack_status_str(st));
}

const char *mt_read_text(apr_pool_t *p, const char *directive, const char *path,
                         char **text, size_t *len)
{
    tack_status_t st = tack_file_read(path, TACK_FILE_MAX_DEFAULT, text, len);

    return st == TACK_OK ? NULL : mt_read_error(p, directive, path, st);
}

const char *mt_read_text_at(apr_pool_t *p, const char *directive, int dirfd,
                            const char *name, const char *path, char **text,
                            size_t *len, struct stat *sb)
{
    tack_status_t st =
        tack_file_read_at(dirfd, name, TACK_FILE_MAX_DEFAULT, text, len, sb);

    if (st == TACK_ERR_NOT_REGULAR_FILE && S_ISLNK(sb->st_mode)) {
        return apr_psprintf(p,
                            "%s %s: cannot read file: a symbolic link, "
                            "not followed",
                            directive, path);
    }
    return st == TACK_OK ? NULL : mt_read_error(p, directive, path, st);
}

const char *mt_pem_error(apr_pool_t *p, const char *directive, const char *path,
                         tack_status_t st, unsigned line, const char *label,
                         size_t size)
{
    const char *reason = tack_status_str(st);

    if (st == TACK_ERR_PEM_NO_BLOCK || st == TACK_ERR_PEM_WRONG_LABEL) {
        reason = apr_psprintf(p, "no \"%s\" PEM block (%s)", label, reason);
    } else if (st == TACK_ERR_BAD_LENGTH) {
        reason = apr_psprintf(
            p, "%s: a \"%s\" block must hold %" APR_SIZE_T_FMT " bytes", reason,
            label, size);
    }
    if (line) {
        return apr_psprintf(p, "%s %s: line %u: %s", directive, path, line,
                            reason);
    }
    return apr_psprintf(p, "%s %s: %s", directive, path, reason);
}

void mt_warning_add(apr_pool_t *p, apr_array_header_t **list,
                    const char *warning)
{
    if (*list == NULL) {
        *list = apr_array_make(p, 1, sizeof(const char *));
    }
    APR_ARRAY_PUSH(*list, const char *) = warning;
}

const char *mt_duration(apr_pool_t *p, long secs)
{
    if (secs >= 2 * 86400) {
        return apr_psprintf(p, "%ld days", secs / 86400);
    }
    if (secs >= 2 * 3600) {
        return apr_psprintf(p, "%ld hours", secs / 3600);
    }
    return apr_psprintf(p, "%ld minute%s", secs / 60,
                        secs / 60 == 1 ? "" : "s");
}

const char *mt_hex(apr_pool_t *p, const uint8_t *in, size_t len)
{
    char *out = apr_palloc(p, 2 * len + 1);

    tack_hex_encode(out, 2 * len + 1, in, len);
    return out;
}

void mt_openssl_log(server_rec *s, const char *what)
{
    unsigned long e;
    char buf[256], name[TACK_NAME_SIZE];

    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00050: vhost %s: %s: OpenSSL: %s",
                     mt_vhost_name_buf(s, name), what, buf);
    }
}

long mt_ms_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int mt_ms_left(long deadline)
{
    long left = deadline - mt_ms_now();

    return left < 0 ? 0 : (int)left;
}

apr_pool_t *mt_pool_apart(apr_pool_t *parent, const char *tag)
{
    apr_allocator_t *al = NULL;
    apr_pool_t *p = NULL;

    if (apr_allocator_create(&al) == APR_SUCCESS) {
        apr_allocator_max_free_set(al, 1); /* keep nothing freed */
        if (apr_pool_create_ex(&p, parent, NULL, al) == APR_SUCCESS) {
            apr_allocator_owner_set(al, p);
        } else {
            apr_allocator_destroy(al);
            p = NULL;
        }
    }
    if (!p) {
        apr_pool_create(&p, parent);
    }
    apr_pool_tag(p, tag);
    return p;
}
