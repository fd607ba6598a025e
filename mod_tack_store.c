/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_store.c -- the TackStore: each directory named in a
 * configuration generation, read once however many servers name it, its
 * TACK files loaded (mod_tack_load.c) and indexed by target_hash, the
 * start-up report of what each store could not serve, and the files
 * TackSigningKey writes into it, under the one name a certificate gives
 * (tack_cert_store_name: `tack sign -o STORE/` writes the same).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pwd.h>
#include <unistd.h>
#include <sys/stat.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_file_info.h"
#include "apr_strings.h"
#include "unixd.h"

#include "mod_tack_model.h"

APLOG_USE_MODULE(tack);

/* ---- TackStore ----------------------------------------------------------- */

/* Every store named in this configuration generation, by resolved path, so
 * that a directory named by many vhosts is read once.  Both live in pconf;
 * the cleanup forgets them when pconf is cleared for the next generation. */
static apr_hash_t *mt_stores;
static apr_array_header_t *mt_store_list;

static apr_status_t mt_stores_forget(void *unused)
{
    mt_stores = NULL;
    mt_store_list = NULL;
    return APR_SUCCESS;
}

/* A directory entry of a store, and whether it is a symbolic link. */
typedef struct {
    const char *name;
    int is_link;
} mt_store_entry_t;

static int mt_entry_cmp(const void *a, const void *b)
{
    return strcmp(((const mt_store_entry_t *)a)->name,
                  ((const mt_store_entry_t *)b)->name);
}

/* mt_store_index adds the TACKs of |f| to |st|'s index.  A TACK that
 * repeats one already indexed byte for byte (the same certificate in two
 * files) is counted and left out; two different TACKs for one certificate
 * are both kept, for the vhost's format to decide (draft-02: a pair). */
static void mt_store_index(mt_store_t *st, mt_file_t *f, time_t now)
{
    int k;

    for (k = 0; k < f->nitems; k++) {
        mt_item_t *item = &f->items[k];
        mt_item_t *head, *last = NULL, *it;
        int dup = 0;

        head = apr_hash_get(st->by_hash, item->tack.target_hash, TACK_HASH_LEN);
        for (it = head; it; it = it->next_same) {
            dup |= tack_equal(&it->tack, &item->tack);
            last = it;
        }
        if (dup) {
            st->nduplicates++;
            item->matched = 1; /* reported as a duplicate, not as unused */
            continue;
        }
        if (last) {
            last->next_same = item;
        } else {
            apr_hash_set(st->by_hash, item->tack.target_hash, TACK_HASH_LEN,
                         item);
        }
        if (item->expires - now < TACK_EXPIRY_WARN_SECS) {
            APR_ARRAY_PUSH(st->expiring, mt_item_t *) = item;
        }
    }
}

/* mt_store_file loads one file of a store, |is_link| when the directory
 * entry is a symbolic link; returns the reason it is not served, or NULL.
 * A link is never followed: whoever can write in the store directory could
 * otherwise make httpd's parent, as root, open any file of the machine
 * (/etc/shadow, /proc/kmsg).  A file kept elsewhere is named with TackFile,
 * where the path is the administrator's own. */
static const char *mt_store_file(apr_pool_t *p, mt_file_t *f, int is_link,
                                 int *expired)
{
    if (is_link) {
        *expired = 0;
        return apr_psprintf(p,
                            "TackStore %s: a symbolic link, not followed (a "
                            "TackStore serves the regular files in it; name "
                            "a file kept elsewhere with TackFile)",
                            f->path);
    }
    return mt_load_tackfile(p, f, expired);
}

/* mt_store_load reads every *.tack.pem of |st|'s directory, in name order,
 * validating each like a TackFile.  Nothing is logged here: the outcome is
 * kept in |st| and reported once by mt_store_log. */
static void mt_store_load(apr_pool_t *p, server_rec *s, mt_store_t *st)
{
    apr_array_header_t *names = apr_array_make(p, 64, sizeof(mt_store_entry_t));
    apr_dir_t *dir;
    apr_finfo_t fi;
    apr_status_t rv;
    time_t now = time(NULL);
    int i, k;

    rv = apr_dir_open(&dir, st->path, p);
    if (rv != APR_SUCCESS) {
        st->error = apr_psprintf(p, "TackStore %s: cannot read directory: %pm",
                                 st->path, &rv);
        return;
    }
    for (;;) {
        /* APR_FINFO_LINK: the entry itself (lstat), not where a link leads:
         * a symbolic link is not followed (mt_store_file). */
        rv = apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE | APR_FINFO_LINK,
                          dir);
        if (rv != APR_SUCCESS && rv != APR_INCOMPLETE) {
            break;
        }
        if (fi.name && tack_store_name_ok(fi.name)) {
            mt_store_entry_t *e = apr_array_push(names);

            e->name = apr_pstrdup(p, fi.name);
            e->is_link = fi.filetype == APR_LNK;
        }
    }
    apr_dir_close(dir);
    if (names->nelts > 1) {
        qsort(names->elts, (size_t)names->nelts, sizeof(mt_store_entry_t),
              mt_entry_cmp);
    }
    for (i = 0; i < names->nelts; i++) {
        const mt_store_entry_t *e = &APR_ARRAY_IDX(names, i, mt_store_entry_t);
        mt_file_t *f = apr_pcalloc(p, sizeof(*f));
        int expired;

        f->s = s;
        f->kind = "TackStore";
        f->store = st;
        f->where = st->where;
        f->server_level = 1;
        f->path = apr_pstrcat(p, st->path, "/", e->name, NULL);
        f->error = mt_store_file(p, f, e->is_link, &expired);
        if (f->error) {
            if (expired && f->nitems > 0) {
                f->expired = f->nitems;
                if (!st->expired_by_hash) {
                    st->expired_by_hash = apr_hash_make(p);
                }
                apr_hash_set(st->expired_by_hash, f->items[0].tack.target_hash,
                             TACK_HASH_LEN, &f->items[0]);
            }
            f->nitems = 0;
            APR_ARRAY_PUSH(expired ? st->expired : st->bad, mt_file_t *) = f;
            continue;
        }
        APR_ARRAY_PUSH(st->files, mt_file_t *) = f;
        mt_store_index(st, f, now);
        for (k = 0; f->warnings && k < f->warnings->nelts; k++) {
            mt_warning_add(p, &st->warnings,
                           APR_ARRAY_IDX(f->warnings, k, const char *));
        }
    }
    st->nfiles = st->files->nelts;
}

/* mt_store_get returns the store for directory |path|, reading it the
 * first time it is named in this generation. */
mt_store_t *mt_store_get(cmd_parms *cmd, const char *path)
{
    apr_pool_t *p = cmd->pool;
    mt_store_t *st;

    if (!mt_stores) {
        mt_stores = apr_hash_make(p);
        mt_store_list = apr_array_make(p, 2, sizeof(mt_store_t *));
        apr_pool_cleanup_register(p, NULL, mt_stores_forget,
                                  apr_pool_cleanup_null);
    }
    st = apr_hash_get(mt_stores, path, APR_HASH_KEY_STRING);
    if (st) {
        return st;
    }
    st = apr_pcalloc(p, sizeof(*st));
    st->path = path;
    st->where = mt_where(cmd);
    st->by_hash = apr_hash_make(p);
    st->files = apr_array_make(p, 64, sizeof(mt_file_t *));
    st->bad = apr_array_make(p, 1, sizeof(mt_file_t *));
    st->expired = apr_array_make(p, 1, sizeof(mt_file_t *));
    st->expiring = apr_array_make(p, 1, sizeof(mt_item_t *));
    /* The first pass of an initial start is thrown away before anything
     * is served, and would only double the start-up time of a large
     * store: the directory is read in the pass that counts. */
    if (!mt_quiet()) {
        mt_store_load(p, cmd->server, st);
        st->loaded = 1;
    }
    apr_hash_set(mt_stores, path, APR_HASH_KEY_STRING, st);
    APR_ARRAY_PUSH(mt_store_list, mt_store_t *) = st;
    return st;
}

/* mt_store_untrusted returns why the store directory or file |path| is
 * not to be trusted, with the command that fixes it, or NULL.  Whoever can
 * write a store decides what pinned clients must accept: a TACK dropped in
 * under another key is served with pin activation.  Trusted: owned by root
 * or by TackStoreOwner (|owner_uid|, NULL when not set or unknown), and
 * writable by its owner only. */
static const char *mt_store_untrusted(apr_pool_t *p, const char *path,
                                      int is_dir, const uid_t *owner_uid)
{
    const char *owner = mt_conf_get(ap_server_conf)->store_owner;
    struct stat sb;

    if (lstat(path, &sb) != 0) {
        return NULL;
    }
    if (sb.st_uid != 0 && !(owner_uid && sb.st_uid == *owner_uid)) {
        struct passwd *who = getpwuid(sb.st_uid);

        return apr_psprintf(p,
                            "TackStore %s: owned by %s (uid %ld), not by root%s "
                            "(whoever owns it decides what pinned clients "
                            "must accept): chown %s%s %s",
                            path, who ? who->pw_name : "an unknown user",
                            (long)sb.st_uid,
                            owner ? apr_pstrcat(p, " or TackStoreOwner ", owner,
                                                NULL)
                                  : "",
                            owner ? owner : "root", is_dir ? " -R" : "", path);
    }
    if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
        return apr_psprintf(p,
                            "TackStore %s: writable by %s (whoever can write "
                            "it decides what pinned clients must accept): "
                            "chmod go-w %s",
                            path, sb.st_mode & S_IWOTH ? "everyone" : "its group",
                            path);
    }
    return NULL;
}

/* mt_store_check_trust fills |st|->untrusted: the directory, then the
 * first of its served files that is not trusted and how many are not.
 * Judged when reported, after the whole configuration is read (TackStoreOwner
 * may come after TackStore). */
static void mt_store_check_trust(apr_pool_t *p, mt_store_t *st)
{
    const char *owner = mt_conf_get(ap_server_conf)->store_owner, *why,
               *first = NULL;
    /* Looked up once: a store of 10,000 files would read the user database
     * 10,000 times. */
    struct passwd *pw = owner ? getpwnam(owner) : NULL;
    uid_t owner_uid = pw ? pw->pw_uid : 0;
    const uid_t *ou = pw ? &owner_uid : NULL;
    int i, n = 0;

    why = mt_store_untrusted(p, st->path, 1, ou);

    st->untrusted = apr_array_make(p, 2, sizeof(const char *));
    if (why) {
        APR_ARRAY_PUSH(st->untrusted, const char *) = why;
    }
    for (i = 0; i < st->files->nelts; i++) {
        const char *w = mt_store_untrusted(
            p, APR_ARRAY_IDX(st->files, i, mt_file_t *)->path, 0, ou);

        if (w) {
            first = first ? first : w;
            n++;
        }
    }
    if (n == 1) {
        APR_ARRAY_PUSH(st->untrusted, const char *) = first;
    } else if (n > 1) {
        APR_ARRAY_PUSH(st->untrusted, const char *) =
            apr_psprintf(p, "%s; and %d more files of it", first, n - 1);
    }
}

/* mt_store_report_trust logs what of |st| is not trusted: under -t an
 * error each (the configuration is refused), at a start a warning each
 * (its TACKs are served: pinned clients need them).  Returns the number of
 * problems. */
static int mt_store_report_trust(server_rec *s_main, mt_store_t *st)
{
    apr_pool_t *p = s_main->process->pconf;
    const char *owner = mt_conf_get(ap_server_conf)->store_owner;
    struct passwd *pw = owner ? getpwnam(owner) : NULL;
    int strict = mt_strict(), problems = 0, j;

    mt_store_check_trust(p, st);
    if (pw && pw->pw_uid == ap_unixd_config.user_id) {
        APR_ARRAY_PUSH(st->untrusted, const char *) = apr_psprintf(
            p,
            "TackStoreOwner %s is the user httpd's children run as (User): "
            "any request handler could write the store; name the user the "
            "hooks sign as",
            owner);
    }
    for (j = 0; j < st->untrusted->nelts; j++) {
        const char *w = APR_ARRAY_IDX(st->untrusted, j, const char *);

        if (strict) {
            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00065: %s (TackStore at " TACK_WHERE_FMT ")",
                         w, TACK_WHERE(st->where));
        } else {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                         "TACK00066: %s (TackStore at " TACK_WHERE_FMT
                         "); its TACKs are served all the same",
                         w, TACK_WHERE(st->where));
        }
    }
    return problems;
}

/* mt_store_report_files logs the files of |st| that are not served: the
 * malformed ones (errors, counted as problems) and the expired ones
 * (warnings: expiry is routine at a provider's scale, never a refused
 * configuration).  Returns the number of problems. */
static int mt_store_report_files(server_rec *s_main, const mt_store_t *st,
                                 int used_only)
{
    int problems = 0, j;

    for (j = 0; j < st->bad->nelts; j++) {
        mt_file_t *f = APR_ARRAY_IDX(st->bad, j, mt_file_t *);

        problems++;
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                     "TACK00017: %s (TackStore at " TACK_WHERE_FMT ")%s",
                     f->error, TACK_WHERE(st->where),
                     mt_strict() ? "" : "; this file is skipped");
    }
    for (j = 0; j < st->expired->nelts; j++) {
        mt_file_t *f = APR_ARRAY_IDX(st->expired, j, mt_file_t *);

        if (f->removed) {
            continue;
        }
        if (used_only && !(f->items && f->items[0].matched)) {
            /* for a certificate no vhost has any more (renewed with a new
             * key): history, not a problem */
            ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s_main,
                         "TACK00075: %s, for a certificate no vhost uses: "
                         "left alone",
                         f->error);
            continue;
        }
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                     "TACK00018: %s; skipped: sign a new one", f->error);
    }
    for (j = 0; st->warnings && j < st->warnings->nelts; j++) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s_main,
                     "TACK00058: %s (TackStore at " TACK_WHERE_FMT ")",
                     APR_ARRAY_IDX(st->warnings, j, const char *),
                     TACK_WHERE(st->where));
    }
    return problems;
}

/* mt_store_report_expiring logs the TACKs of |st| that expire within 30
 * days: each at debug level, then one warning for the store that names the
 * first to go.  Left out: a TACK whose certificate expires no later (its
 * renewal needs a new TACK anyway) and, when the certificates are known
 * (|used_only|), one that no certificate uses. */
static void mt_store_report_expiring(server_rec *s_main, const mt_store_t *st,
                                     time_t now, int used_only)
{
    const mt_item_t *first = NULL;
    int j, n = 0;

    for (j = 0; j < st->expiring->nelts; j++) {
        const mt_item_t *it = APR_ARRAY_IDX(st->expiring, j, mt_item_t *);

        if (it->ends_with_cert || it->resigning || it->file->removed ||
            (used_only && !it->matched)) {
            continue;
        }
        n++;
        if (!first || it->expires < first->expires) {
            first = it;
        }
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s_main,
                     "TACK00019: TackStore %s: TACK (key %s) "
                     "expires at %s",
                     it->file->path, it->fingerprint, it->expiry);
    }
    if (!n) {
        return;
    }
    ap_log_error(
        APLOG_MARK, APLOG_WARNING, 0, s_main,
        "TACK00020: TackStore %s: %d TACK%s expire%s "
        "within 30 days, the first %s at %s, in %s; "
        "sign new ones",
        st->path, n, n == 1 ? "" : "s", n == 1 ? "s" : "", first->file->path,
        first->expiry,
        mt_duration(s_main->process->pconf, (long)(first->expires - now)));
}

/* mt_store_report_unused logs, at debug level, the TACKs of |st| that
 * matched no certificate, and returns how many there are. */
static int mt_store_report_unused(server_rec *s_main, const mt_store_t *st)
{
    apr_pool_t *p = s_main->process->pconf;
    int unmatched = 0, j, k;

    for (j = 0; j < st->files->nelts; j++) {
        mt_file_t *f = APR_ARRAY_IDX(st->files, j, mt_file_t *);

        for (k = 0; k < f->nitems; k++) {
            if (f->items[k].matched) {
                continue;
            }
            unmatched++;
            ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s_main,
                         "TACK00021: TackStore %s: target_hash of %s "
                         "(key %s) matches no certificate of any "
                         "virtual host using the store; not used",
                         f->path, mt_item_name(p, &f->items[k]),
                         f->items[k].fingerprint);
        }
    }
    return unmatched;
}

int mt_store_log(server_rec *s_main, int report_unmatched)
{
    time_t now = time(NULL);
    int problems = 0, i;

    if (mt_quiet() || !mt_store_list) {
        return 0;
    }
    for (i = 0; i < mt_store_list->nelts; i++) {
        mt_store_t *st = APR_ARRAY_IDX(mt_store_list, i, mt_store_t *);
        int unmatched = 0;

        if (st->error) {
            /* Under -t the directive has already failed with it. */
            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00016: %s (" TACK_WHERE_FMT
                         "); nothing is served from it",
                         st->error, TACK_WHERE(st->where));
            continue;
        }
        problems += mt_store_report_files(s_main, st, report_unmatched);
        problems += mt_store_report_trust(s_main, st);
        mt_store_report_expiring(s_main, st, now, report_unmatched);
        if (report_unmatched) {
            unmatched = mt_store_report_unused(s_main, st);
        }
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s_main,
                     "TACK00022: TackStore %s (" TACK_WHERE_FMT
                     "): %d TACK file%s loaded, "
                     "%d malformed, %d expired, %d duplicate%s, %d unused",
                     st->path, TACK_WHERE(st->where), st->nfiles,
                     st->nfiles == 1 ? "" : "s", st->bad->nelts,
                     st->expired->nelts, st->nduplicates,
                     st->nduplicates == 1 ? "" : "s", unmatched);
    }
    return problems;
}

/* ---- writing (TackSigningKey) ----------------------------------------------
 */

const char *mt_store_write(apr_pool_t *p, const mt_store_t *store, X509 *x509,
                           const tack_t *tack, const char **path)
{
    char name[TACK_STORE_NAME_SIZE], head[TACK_STORE_HEADER_SIZE];
    uint8_t raw[TACK_LEN];
    char *pem = NULL, *text;
    size_t pem_len;
    tack_status_t st;

    st = tack_cert_store_name(x509, name, sizeof(name));
    if (st != TACK_OK) {
        return apr_psprintf(p, "cannot name the certificate's file: %s",
                            tack_status_str(st));
    }
    *path = apr_pstrcat(p, store->path, "/", name, NULL);
    tack_encode(tack, raw);
    if (tack_store_header(head, sizeof(head), "mod_tack (TackSigningKey)",
                          apr_time_sec(apr_time_now())) != TACK_OK ||
        tack_pem_encode(&pem, &pem_len, TACK_PEM_LABEL_TACK, raw, TACK_LEN) !=
            TACK_OK) {
        free(pem);
        return "cannot encode the TACK";
    }
    text = apr_pstrcat(p, head, pem, NULL);
    free(pem);
    st = tack_file_replace(*path, text, strlen(text), 0644, 0);
    if (st != TACK_OK) {
        return apr_psprintf(p, "cannot write %s: %s", *path,
                            st == TACK_ERR_IO ? strerror(errno)
                                              : tack_status_str(st));
    }
    return NULL;
}

/* mt_store_superseded says whether |old|, a TACK the store served from a
 * file of its own, is made redundant by |tack|, just written at |path|:
 * the same certificate, the same TACK key, ending no later, and alone in a
 * file other than |path|. */
static int mt_store_superseded(const mt_item_t *old, const tack_t *tack,
                               const char *path)
{
    return (old->file->nitems == 1 || old->file->expired == 1) &&
           strcmp(old->file->path, path) != 0 &&
           mt_key_equal(old->tack.public_key, tack->public_key) &&
           old->tack.expiration <= tack->expiration;
}

/* mt_store_remove removes |old|'s file, superseded by |path|: logged. */
static int mt_store_remove(server_rec *s, const mt_item_t *old,
                           const char *path)
{
    if (old->file->removed) {
        return 0;
    }
    if (unlink(old->file->path) != 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, errno, s,
                     "TACK00071: TackStore file %s cannot be removed; %s "
                     "replaces it (the same certificate, the same TACK key, "
                     "a later expiry)",
                     old->file->path, path);
        return 0;
    }
    old->file->removed = 1;
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                 "TACK00072: TackStore file %s removed: %s replaces it (the "
                 "same certificate, the same TACK key, a later expiry)",
                 old->file->path, path);
    return 1;
}

int mt_store_replace_older(server_rec *s, const mt_store_t *store,
                           const tack_t *tack, const char *path)
{
    const mt_item_t *it, *expired;
    int removed = 0;

    for (it = apr_hash_get(store->by_hash, tack->target_hash, TACK_HASH_LEN);
         it; it = it->next_same) {
        if (mt_store_superseded(it, tack, path)) {
            removed += mt_store_remove(s, it, path);
        }
    }
    expired = store->expired_by_hash
                  ? apr_hash_get(store->expired_by_hash, tack->target_hash,
                                 TACK_HASH_LEN)
                  : NULL;
    if (expired && mt_store_superseded(expired, tack, path)) {
        removed += mt_store_remove(s, expired, path);
    }
    return removed;
}
