/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_md.c -- mod_md's staged certificates, signed ahead by
 * TackSigningKey's background (mod_tack_background.c calls it each round).
 *
 * mod_md renews a certificate in its watchdog and stages it
 * (MDStoreDir/staging/NAME/pubcert*.pem) until the next graceful restart
 * activates it.  The background looks there every TackSigningRetry
 * seconds and signs, into the TackStore of the vhost that will serve it,
 * a TACK for each staged certificate that has none: the restart that
 * activates a renewal then serves its TACK from the store, with nothing to
 * sign and nothing to wait for.
 *
 * What the staging directory holds is written by httpd's children: it is
 * judged through directory descriptors, never followed, never blocked on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_strings.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "mod_tack_md.h"
#include "mod_tack_load.h"
#include "mod_tack_store.h"
#include "mod_tack_sign.h"
#include "mod_tack_signer.h"
#include "tack_file.h"
#include "tack_util.h"

APLOG_USE_MODULE(tack);

/* mod_md's staging directory and the vhosts that sign ahead what it
 * stages (server_rec *: a TackSigningKey and a TackStore), or NULL: noted
 * at the end of each pass (mt_gen_t.md). */
struct mt_md {
    const char *staging;
    apr_array_header_t *vhosts;
};

/* mt_md_store_dir finds MDStoreDir in the configuration tree |d|. */
static const char *mt_md_store_dir(const ap_directive_t *d)
{
    for (; d; d = d->next) {
        const char *found;

        if (!strcasecmp(d->directive, "MDStoreDir") && d->args) {
            return d->args;
        }
        if (d->first_child && (found = mt_md_store_dir(d->first_child))) {
            return found;
        }
    }
    return NULL;
}

void mt_md_gen_init(mt_gen_t *gen)
{
    struct mt_md *md = apr_pcalloc(gen->pconf, sizeof(*md));

    md->vhosts = apr_array_make(gen->pconf, 4, sizeof(server_rec *));
    gen->md = md;
}

/* Nothing when mod_md is not loaded. */
void mt_md_watch(server_rec *s_main)
{
    struct mt_md *md = mt_gen()->md;
    apr_pool_t *pconf = s_main->process->pconf;
    const char *dir;
    server_rec *s;

    if (!ap_find_linked_module("mod_md.c")) {
        return;
    }
    for (s = s_main; s; s = s->next) {
        const mt_conf_t *conf = mt_conf_get(s);

        if (conf->ssl_seen && mt_conf_signs(conf) && conf->store &&
            conf->store->loaded && !conf->store->error) {
            APR_ARRAY_PUSH(md->vhosts, server_rec *) = s;
        }
    }
    dir = mt_md_store_dir(ap_conftree);
    dir = ap_server_root_relative(pconf, dir ? dir : "md");
    if (md->vhosts->nelts && dir) {
        md->staging = apr_pstrcat(pconf, dir, "/staging", NULL);
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s_main,
                     "TACK00082: the background signs ahead what mod_md "
                     "stages in %s for %d vhost%s with a TackSigningKey and "
                     "a TackStore",
                     md->staging, md->vhosts->nelts,
                     md->vhosts->nelts == 1 ? "" : "s");
    }
}

/* mt_md_fallback_in says whether the directory |dir| (mod_md's
 * MDStoreDir/domains/NAME) holds a fallback-pubcert*.pem whose key is
 * |hash|: mod_md's self-signed stand-in for NAME, served (answering 503)
 * until its first certificate comes. */
static int mt_md_fallback_in(apr_pool_t *p, const char *dir,
                             const uint8_t *hash)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;

    if (!d) {
        return 0;
    }
    while (!found && (e = readdir(d))) {
        char *text = NULL;
        size_t len = 0;
        uint8_t h[TACK_HASH_LEN];
        BIO *bio;
        X509 *x;

        if (strncmp(e->d_name, "fallback-pubcert", 16) ||
            strlen(e->d_name) < 20 ||
            strcmp(e->d_name + strlen(e->d_name) - 4, ".pem") ||
            tack_file_read(apr_pstrcat(p, dir, "/", e->d_name, NULL), 64 * 1024,
                           &text, &len) != TACK_OK) {
            continue;
        }
        bio = BIO_new_mem_buf(text, (int)len);
        x = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
        found = x && tack_spki_hash(x, h) == TACK_OK &&
                !memcmp(h, hash, TACK_HASH_LEN);
        X509_free(x);
        BIO_free(bio);
        free(text);
        ERR_clear_error();
    }
    closedir(d);
    return found;
}

/* Its key is that of MDStoreDir/domains/NAME/fallback-pubcert*.pem (the
 * store's layout, not the subject's text); said at info (TACK00149);
 * nothing when mod_md is not loaded. */
void mt_md_mark_fallback(apr_pool_t *p, server_rec *s, mt_sel_t *sel)
{
    const char *dir;
    char vname[TACK_NAME_SIZE];
    int c, i;

    if (!ap_find_linked_module("mod_md.c")) {
        return;
    }
    dir = mt_md_store_dir(ap_conftree);
    dir = ap_server_root_relative(p, dir ? dir : "md");
    for (c = 0; dir && c < sel->ncerts; c++) {
        mt_certsel_t *cert = &sel->certs[c];
        const char *name = s->server_hostname;

        for (i = -1; cert->x509 && !cert->ntacks && !cert->md_fallback &&
                     name && (!s->names || i < s->names->nelts);
             i++, name = s->names && i < s->names->nelts
                             ? APR_ARRAY_IDX(s->names, i, const char *)
                             : NULL) {
            if (strchr(name, '/') || name[0] == '.') {
                continue;
            }
            cert->md_fallback = mt_md_fallback_in(
                p, apr_pstrcat(p, dir, "/domains/", name, NULL), cert->hash);
        }
        if (cert->md_fallback) {
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                         "TACK00149: vhost %s: %s is mod_md's fallback "
                         "certificate (it answers 503 until mod_md has one): "
                         "TackSigningKey does not sign it",
                         mt_vhost_name_buf(s, vname), cert->label);
        }
    }
}

/* mt_md_vhost returns the vhost that serves |cert| (a name of its
 * certificate is the vhost's name or an alias), or NULL. */
static server_rec *mt_md_vhost(X509 *cert)
{
    const struct mt_md *md = mt_gen()->md;
    int i, j;

    for (i = 0; i < md->vhosts->nelts; i++) {
        server_rec *s = APR_ARRAY_IDX(md->vhosts, i, server_rec *);

        if (s->server_hostname &&
            X509_check_host(cert, s->server_hostname, 0, 0, NULL) == 1) {
            return s;
        }
        for (j = 0; s->names && j < s->names->nelts; j++) {
            const char *n = APR_ARRAY_IDX(s->names, j, const char *);

            if (X509_check_host(cert, n, 0, 0, NULL) == 1) {
                return s;
            }
        }
    }
    return NULL;
}

/* The largest staged certificate file read: mod_md's pubcert.pem is the
 * certificate and its chain, a few kilobytes. */
#define MT_MD_CERT_MAX TACK_FILE_MAX_DEFAULT

/* mt_md_skip says, once for each |path|, why what mod_md's staging
 * directory holds there is not read.  That directory is writable by
 * httpd's children: what is in it is judged, never followed. */
static void mt_md_skip(apr_hash_t *seen, const char *path, const char *why)
{
    apr_pool_t *hp = apr_hash_pool_get(seen);
    const char *key = apr_pstrcat(hp, "skipped:", path, NULL);

    if (apr_hash_get(seen, key, APR_HASH_KEY_STRING)) {
        return;
    }
    apr_hash_set(seen, key, APR_HASH_KEY_STRING, "");
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, ap_server_conf,
                 "TACK00120: mod_md's staging directory: %s is not read: %s "
                 "(httpd's children can write there: only the regular files "
                 "mod_md stages are signed ahead)",
                 path, why);
}

/* mt_md_read_why says why tack_file_read_at refused a staged file. */
static const char *mt_md_read_why(apr_pool_t *p, tack_status_t st,
                                  const struct stat *sb)
{
    switch (st) {
    case TACK_ERR_NOT_REGULAR_FILE:
        return S_ISLNK(sb->st_mode) ? "a symbolic link, not followed"
                                    : "not a regular file (a FIFO, a socket "
                                      "or a device), not opened for reading";
    case TACK_ERR_FILE_TOO_LARGE:
        return apr_psprintf(p, "larger than %d KiB", MT_MD_CERT_MAX >> 10);
    case TACK_ERR_IO:
        return strerror(errno);
    default:
        return tack_status_str(st);
    }
}

/* mt_md_sign_one signs ahead, once, the staged certificate |name| of the
 * directory |dirfd| (|path|, for messages). */
static void mt_md_sign_one(apr_pool_t *p, apr_hash_t *seen, int dirfd,
                           const char *name, const char *path)
{
    char vname[TACK_NAME_SIZE];
    mt_certsel_t cert;
    const mt_conf_t *conf;
    mt_signer_t *sg;
    server_rec *s;
    struct stat sb;
    tack_status_t st;
    time_t end;
    X509 *x509 = NULL;
    BIO *bio;
    char *text = NULL;
    size_t len = 0;
    int created;

    memset(&cert, 0, sizeof(cert));
    memset(&sb, 0, sizeof(sb));
    /* relative to the directory's descriptor, never followed, never
     * blocking: the name may have become a FIFO or a link to a device
     * since the directory was listed */
    st = tack_file_read_at(dirfd, name, MT_MD_CERT_MAX, &text, &len, &sb);
    if (st != TACK_OK) {
        if (!(st == TACK_ERR_IO && errno == ENOENT)) {
            mt_md_skip(seen, path, mt_md_read_why(p, st, &sb));
        }
        return;
    }
    bio = len <= INT_MAX ? BIO_new_mem_buf(text, (int)len) : NULL;
    x509 = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    free(text);
    ERR_clear_error();
    if (!mt_cert_describe(
            p, x509, apr_psprintf(p, "mod_md's staged certificate %s", path),
            &cert) ||
        apr_hash_get(seen, cert.hash, TACK_HASH_LEN) ||
        tack_cert_end_time(x509, &end) != TACK_OK || end <= time(NULL) ||
        !(s = mt_md_vhost(x509))) {
        X509_free(x509);
        return;
    }
    apr_hash_set(seen,
                 apr_pmemdup(apr_hash_pool_get(seen), cert.hash, TACK_HASH_LEN),
                 TACK_HASH_LEN, "");
    conf = mt_conf_get(s);
    if (mt_store_has(conf->store, x509)) {
        X509_free(x509); /* its TACK is in the store already */
        return;
    }
    sg = mt_signer_add(s, conf, &created);
    if (created) {
        mt_signer_allow(TACK_SIGN_AGENT_SECS);
        sg->error = mt_signer_start(sg);
    }
    if (!sg->pub_known || sg->fd < 0) {
        /* said by mt_agent_failed for the waiting ones; tried next time */
        apr_hash_set(seen, cert.hash, TACK_HASH_LEN, NULL);
        X509_free(x509);
        return;
    }
    mt_signer_allow(mt_signer_answer_secs());
    if (!mt_sign_one(p, s, conf, sg, &cert, (uint32_t)(end / 60), 1, NULL)) {
        apr_hash_set(seen, cert.hash, TACK_HASH_LEN, NULL);
        return;
    }
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                 "TACK00081: vhost %s: signed ahead for %s: its TACK is in "
                 "the store when a restart activates it",
                 mt_vhost_name_buf(s, vname), path);
}

/* mt_md_dir opens the directory |name| of |dirfd| (|path|, for messages)
 * for listing: never through a symbolic link, never blocking.  Returns
 * NULL when it cannot, said by mt_md_skip when it is not a plain miss. */
static DIR *mt_md_dir(apr_hash_t *seen, int dirfd, const char *name,
                      const char *path)
{
    char link[512];
    int fd;
    DIR *dir;

    if (dirfd < 0) {
        fd = tack_dir_open(path, link, sizeof(link));
    } else {
        fd = openat(dirfd, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
                        O_CLOEXEC);
        snprintf(link, sizeof(link), "%s", path);
    }
    if (fd < 0) {
        if (errno == ELOOP) {
            mt_md_skip(seen, link, "a symbolic link, not followed");
        }
        return NULL;
    }
    if (!(dir = fdopendir(fd))) {
        close(fd);
    }
    return dir;
}

/* MDStoreDir/staging/NAME/pubcert*.pem: each name read relative to the
 * descriptor of the directory listed, never through a link. */
void mt_md_round(apr_pool_t *p, apr_hash_t *seen)
{
    const struct mt_md *md = mt_gen()->md;
    struct dirent *de;
    DIR *dir;

    if (!md->staging || !(dir = mt_md_dir(seen, -1, NULL, md->staging))) {
        return;
    }
    while ((de = readdir(dir))) {
        const char *sub_path;
        struct dirent *fe;
        DIR *sub;

        if (de->d_name[0] == '.' ||
            (de->d_type != DT_DIR && de->d_type != DT_LNK &&
             de->d_type != DT_UNKNOWN)) {
            continue;
        }
        sub_path = apr_pstrcat(p, md->staging, "/", de->d_name, NULL);
        if (!(sub = mt_md_dir(seen, dirfd(dir), de->d_name, sub_path))) {
            continue;
        }
        while ((fe = readdir(sub))) {
            if (!strncmp(fe->d_name, "pubcert", 7) &&
                strstr(fe->d_name, ".pem")) {
                mt_md_sign_one(p, seen, dirfd(sub), fe->d_name,
                               apr_pstrcat(p, sub_path, "/", fe->d_name, NULL));
            }
        }
        closedir(sub);
    }
    closedir(dir);
    mt_sign_sync();
}

const char *mt_md_staging(void)
{
    return mt_gen()->md->staging;
}
