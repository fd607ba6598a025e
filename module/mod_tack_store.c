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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include "apr_strings.h"
#include "unixd.h"

#include "mod_tack_store.h"
#include "mod_tack_load.h"
#include "tack_file.h"
#include "tack_pem.h"
#include "tack_store.h"

APLOG_USE_MODULE(tack);

/* ---- TackStore ----------------------------------------------------------- */

/* Every store named in this configuration generation (mt_gen_t.stores),
 * by resolved path, so that a directory named by many vhosts is read once,
 * and in the order they were named. */
struct mt_stores {
    apr_hash_t *by_path;
    apr_array_header_t *list; /* mt_store_t * */
};

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

/* A file of a store as read at its TackStore line, before mt_store_ready
 * judges it: the reason it is not served (NULL: none), and whether that
 * reason is only its expiration. */
typedef struct {
    mt_file_t *f;
    int expired;
} mt_store_read_t;

static apr_status_t mt_store_close(void *data)
{
    mt_store_t *st = data;

    if (st->fd >= 0) {
        close(st->fd);
        st->fd = -1;
    }
    return APR_SUCCESS;
}

/* mt_store_link_error says why the store |path| is refused: |link| (the
 * store itself, or a directory on the way) is a symbolic link tack_dir_open
 * does not follow; with the fix, which a link cannot take (chmod and chown
 * act on where it leads). */
static const char *mt_store_link_error(apr_pool_t *p, const char *path,
                                       const char *link)
{
    char target[1024], *real;
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    const char *to = n > 0 ? apr_pstrndup(p, target, (apr_size_t)n) : "?";
    const char *fix;

    /* where it leads now, only named: nothing there is opened */
    real = realpath(path, NULL);
    fix = real ? apr_psprintf(p, "if %s is the store, name it: TackStore %s",
                              real, real)
               : "name the store's directory itself in TackStore";
    free(real);
    if (!strcmp(link, path)) {
        return apr_psprintf(
            p,
            "TackStore %s: a symbolic link (to %s), not followed: whoever "
            "can write the directory it is in could point it at any "
            "directory, which root would read TACKs from and write TACKs "
            "into; %s, or put the directory itself in the link's place",
            path, to, fix);
    }
    return apr_psprintf(
        p,
        "TackStore %s: %s on the way is a symbolic link (to %s) in a "
        "directory others than root can write, not followed: whoever can "
        "write there could point it at any directory, which root would read "
        "TACKs from and write TACKs into; %s",
        path, link, to, fix);
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

        head = apr_hash_get(st->by_hash, mt_item_target(item), TACK_HASH_LEN);
        for (it = head; it; it = it->next_same) {
            dup |= !memcmp(it->wire, item->wire, TACK_LEN);
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
            apr_hash_set(st->by_hash, mt_item_target(item), TACK_HASH_LEN,
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
 * validating each like a TackFile, into |st|->read; mt_store_ready judges
 * and indexes them by target_hash: a vhost's certificate finds its TACK
 * with one lookup, so 10,000 vhosts cost 10,000 lookups, not 10,000 x
 * 10,000 comparisons.  The descriptor is closed with pconf.  The directory is
 * opened once (tack_dir_open): never through a symbolic link, and every later
 * read, write, rename and unlink is relative to that descriptor.  Nothing is
 * logged here: the outcome is kept in |st| and reported once by mt_store_log.
 */
static void mt_store_load(apr_pool_t *p, server_rec *s, mt_store_t *st)
{
    apr_array_header_t *names = apr_array_make(p, 64, sizeof(mt_store_entry_t));
    char link[1024];
    struct dirent *de;
    DIR *dir;
    int i, fd;

    st->fd = tack_dir_open(st->path, link, sizeof(link));
    if (st->fd < 0) {
        st->error =
            errno == ELOOP ? mt_store_link_error(p, st->path, link)
            : errno == ENOENT
                ? apr_psprintf(p,
                               "TackStore %s: no such directory: make it, "
                               "root's and writable by root only (install -d "
                               "-m 755 %s), or correct the path",
                               st->path, st->path)
                : apr_psprintf(p, "TackStore %s: cannot read directory: %s",
                               st->path, strerror(errno));
        return;
    }
    apr_pool_cleanup_register(p, st, mt_store_close, apr_pool_cleanup_null);
    fd = openat(st->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || !(dir = fdopendir(fd))) {
        st->error = apr_psprintf(p, "TackStore %s: cannot read directory: %s",
                                 st->path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return;
    }
    while ((de = readdir(dir))) {
        struct stat sb;

        if (tack_store_name_ok(de->d_name)) {
            mt_store_entry_t *e = apr_array_push(names);

            e->name = apr_pstrdup(p, de->d_name);
            /* the entry itself, not where a link leads: a symbolic link
             * is not followed (mt_store_file) */
            e->is_link =
                de->d_type == DT_LNK ||
                (de->d_type == DT_UNKNOWN &&
                 fstatat(st->fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
                 S_ISLNK(sb.st_mode));
        }
    }
    closedir(dir);
    if (names->nelts > 1) {
        qsort(names->elts, (size_t)names->nelts, sizeof(mt_store_entry_t),
              mt_entry_cmp);
    }
    for (i = 0; i < names->nelts; i++) {
        const mt_store_entry_t *e = &APR_ARRAY_IDX(names, i, mt_store_entry_t);
        mt_store_read_t *r = apr_array_push(st->read);
        mt_file_t *f = apr_pcalloc(p, sizeof(*f));

        f->s = s;
        f->kind = "TackStore";
        f->store = st;
        f->where = st->where;
        f->server_level = 1;
        f->name = e->name;
        f->path = apr_pstrcat(p, st->path, "/", e->name, NULL);
        f->error = mt_store_file(p, f, e->is_link, &r->expired);
        r->f = f;
    }
}

/* mt_store_owner_uid looks TackStoreOwner up once: its uid in |*uid| and 1,
 * or 0 when it is not set or not known. */
static int mt_store_owner_uid(uid_t *uid)
{
    const char *owner = mt_main_conf()->store_owner;
    struct passwd *pw = owner ? getpwnam(owner) : NULL;

    if (pw) {
        *uid = pw->pw_uid;
    }
    return pw != NULL;
}

/* mt_store_foreign returns why the store file |f|, owned by another user
 * than root and TackStoreOwner, is not served, with what fixes it: not a
 * chown, which would serve what that user put there. */
static const char *mt_store_foreign(apr_pool_t *p, const mt_file_t *f)
{
    const char *owner = mt_main_conf()->store_owner;
    struct passwd *who = getpwuid(f->uid);
    const char *name = who ? who->pw_name : "an unknown user";

    return apr_psprintf(
        p,
        "TackStore %s: owned by %s (uid %ld), not by root%s (whoever owns a "
        "store file decides what pinned clients must accept): remove it, or "
        "sign it again as root%s (" TACK_PROG " sign -o %s/, or "
        "TackSigningKey); a chown would serve what %s put there",
        f->path, name, (long)f->uid,
        owner ? apr_pstrcat(p, " or TackStoreOwner ", owner, NULL) : "",
        owner ? apr_pstrcat(p, " or ", owner, NULL) : "", f->store->path, name);
}

/* A file owned by another user than root and TackStoreOwner is never
 * served.  The first lookup calls it. */
void mt_store_ready(mt_store_t *st)
{
    apr_pool_t *p = st->pool;
    time_t now = time(NULL);
    uid_t owner_uid = 0;
    int i, k, has_owner;

    if (st->ready || !st->loaded || st->error) {
        return;
    }
    st->ready = 1;
    has_owner = mt_store_owner_uid(&owner_uid);
    for (i = 0; i < st->read->nelts; i++) {
        mt_store_read_t *r = &APR_ARRAY_IDX(st->read, i, mt_store_read_t);
        mt_file_t *f = r->f;

        if (f->stat_known && f->uid != 0 &&
            !(has_owner && f->uid == owner_uid)) {
            /* the same judgement under -t and at a start: whoever planted
             * it is not served (before, a start served it with a warning) */
            f->error = mt_store_foreign(p, f);
            f->nitems = 0;
            APR_ARRAY_PUSH(st->foreign, mt_file_t *) = f;
            continue;
        }
        if (f->error) {
            if (r->expired && f->nitems > 0) {
                f->expired = f->nitems;
                if (!st->expired_by_hash) {
                    st->expired_by_hash = apr_hash_make(p);
                }
                apr_hash_set(st->expired_by_hash, mt_item_target(&f->items[0]),
                             TACK_HASH_LEN, &f->items[0]);
            }
            f->nitems = 0;
            APR_ARRAY_PUSH(r->expired ? st->expired : st->bad, mt_file_t *) = f;
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

int mt_store_has(const mt_store_t *st, X509 *x509)
{
    char name[TACK_STORE_NAME_SIZE];
    struct stat sb;

    return st->fd >= 0 &&
           tack_cert_store_name(x509, name, sizeof(name)) == TACK_OK &&
           fstatat(st->fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0;
}

const char *mt_store_path(apr_pool_t *p, const mt_store_t *st, X509 *x509)
{
    char name[TACK_STORE_NAME_SIZE];

    return tack_cert_store_name(x509, name, sizeof(name)) == TACK_OK
               ? apr_pstrcat(p, st->path, "/", name, NULL)
               : NULL;
}

int mt_store_other_key(apr_pool_t *p, const mt_store_t *st, X509 *x509,
                       const uint8_t *key, const char **path)
{
    char name[TACK_STORE_NAME_SIZE];
    tack_t tacks[TACK_EXT02_MAX_TACKS];
    struct stat sb;
    char *text = NULL;
    size_t len = 0, count = 0, i;
    int theirs = 0;

    if (st->fd < 0 ||
        tack_cert_store_name(x509, name, sizeof(name)) != TACK_OK) {
        return 0; /* mt_store_write says why it cannot write */
    }
    *path = apr_pstrcat(p, st->path, "/", name, NULL);
    if (fstatat(st->fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        return 0; /* no file: nothing of anyone's is replaced */
    }
    /* read now, not at the start: it may have been replaced since */
    if (tack_file_read_at(st->fd, name, TACK_FILE_MAX_DEFAULT, &text, &len,
                          &sb) != TACK_OK ||
        tack_tacks_from_pem(tacks, TACK_EXT02_MAX_TACKS, &count, text, len,
                            NULL) != TACK_OK ||
        !count) {
        theirs = 1; /* what it holds cannot be told: not replaced */
    }
    for (i = 0; !theirs && i < count; i++) {
        theirs = !mt_key_equal(tacks[i].public_key, key);
    }
    free(text);
    return theirs;
}

/* A child serves from memory; code running in it (mod_lua, mod_perl,
 * mod_php) could otherwise read every file of the store through
 * /proc/self/fd, whatever the modes of its parent directory.  The parent
 * and the background keep theirs: they write the store. */
void mt_store_child_init(void)
{
    const struct mt_stores *stores = mt_gen()->stores;
    int i;

    for (i = 0; stores && i < stores->list->nelts; i++) {
        mt_store_close(APR_ARRAY_IDX(stores->list, i, mt_store_t *));
    }
}

void mt_store_sync(const mt_store_t *st)
{
    if (st->fd >= 0) {
        fsync(st->fd);
        syncfs(st->fd);
    }
}

void mt_store_gen_init(mt_gen_t *gen)
{
    gen->stores = apr_pcalloc(gen->pconf, sizeof(*gen->stores));
    gen->stores->by_path = apr_hash_make(gen->pconf);
    gen->stores->list = apr_array_make(gen->pconf, 2, sizeof(mt_store_t *));
}

mt_store_t *mt_store_get(cmd_parms *cmd, const char *path)
{
    apr_pool_t *p = cmd->pool;
    mt_gen_t *gen = mt_gen();
    mt_store_t *st;
    st = apr_hash_get(gen->stores->by_path, path, APR_HASH_KEY_STRING);
    if (st) {
        return st;
    }
    st = apr_pcalloc(p, sizeof(*st));
    st->fd = -1;
    st->pool = p;
    st->read = apr_array_make(p, 64, sizeof(mt_store_read_t));
    st->foreign = apr_array_make(p, 1, sizeof(mt_file_t *));
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
    apr_hash_set(gen->stores->by_path, path, APR_HASH_KEY_STRING, st);
    APR_ARRAY_PUSH(gen->stores->list, mt_store_t *) = st;
    return st;
}

/* mt_store_untrusted returns why the store directory or file |path|, of
 * status |sb|, is not to be trusted, with the command that fixes it, or
 * NULL.  Whoever can write a store decides what pinned clients must
 * accept: a TACK dropped in under another key is served with pin
 * activation.  Trusted: owned by root or by TackStoreOwner (|owner_uid|,
 * NULL when not set or unknown), and writable by its owner only.  (A file
 * of another owner is never served: mt_store_ready.) */
static const char *mt_store_untrusted(apr_pool_t *p, const char *path,
                                      const struct stat *sb,
                                      const uid_t *owner_uid)
{
    const char *owner = mt_main_conf()->store_owner;

    if (sb->st_uid != 0 && !(owner_uid && sb->st_uid == *owner_uid)) {
        struct passwd *who = getpwuid(sb->st_uid);

        /* the directory alone: a chown -R would bless the files that user
         * put in it, which are not served */
        return apr_psprintf(
            p,
            "TackStore %s: owned by %s (uid %ld), not by root%s "
            "(whoever owns it decides what pinned clients "
            "must accept): chown %s %s, and remove or sign "
            "again any file in it you did not sign",
            path, who ? who->pw_name : "an unknown user", (long)sb->st_uid,
            owner ? apr_pstrcat(p, " or TackStoreOwner ", owner, NULL) : "",
            owner ? owner : "root", path);
    }
    if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
        return apr_psprintf(
            p,
            "TackStore %s: writable by %s (whoever can write "
            "it decides what pinned clients must accept): "
            "chmod go-w %s",
            path, sb->st_mode & S_IWOTH ? "everyone" : "its group", path);
    }
    return NULL;
}

/* mt_store_first_untrusted returns the first of |files| (mt_file_t *)
 * that is not trusted and how many are not, or NULL: for |foreign| files
 * (of another owner, mt_store_ready's) their reason, else
 * mt_store_untrusted's on their owner and mode. */
static const char *mt_store_first_untrusted(apr_pool_t *p,
                                            const apr_array_header_t *files,
                                            const uid_t *ou, int foreign)
{
    const char *first = NULL;
    int i, n = 0;

    for (i = 0; i < files->nelts; i++) {
        const mt_file_t *f = APR_ARRAY_IDX(files, i, mt_file_t *);
        const char *w = NULL;
        struct stat sb;

        if (foreign) {
            w = f->error;
        } else if (f->stat_known) {
            memset(&sb, 0, sizeof(sb));
            sb.st_uid = f->uid;
            sb.st_mode = f->mode;
            w = mt_store_untrusted(p, f->path, &sb, ou);
        }
        if (w) {
            first = first ? first : w;
            n++;
        }
    }
    return n > 1 ? apr_psprintf(p, "%s; and %d more files of it", first, n - 1)
                 : first;
}

/* mt_store_check_trust fills |st|->untrusted: the directory (its
 * descriptor: what is read and written), then the first of its served
 * files that is not trusted and how many are not.  Judged when reported,
 * after the whole configuration is read (TackStoreOwner may come after
 * TackStore).  The files of another owner, not served, are reported
 * apart (mt_store_report_trust). */
static void mt_store_check_trust(apr_pool_t *p, mt_store_t *st)
{
    uid_t owner_uid = 0;
    const uid_t *ou = mt_store_owner_uid(&owner_uid) ? &owner_uid : NULL;
    const char *why = NULL;
    struct stat sb;

    if (st->fd >= 0 && fstat(st->fd, &sb) == 0) {
        why = mt_store_untrusted(p, st->path, &sb, ou);
    }
    st->untrusted = apr_array_make(p, 2, sizeof(const char *));
    if (why) {
        APR_ARRAY_PUSH(st->untrusted, const char *) = why;
    }
    if ((why = mt_store_first_untrusted(p, st->files, ou, 0))) {
        APR_ARRAY_PUSH(st->untrusted, const char *) = why;
    }
}

/* mt_store_report_trust logs what of |st| is not trusted: under -t an
 * error each (the configuration is refused), at a start a warning each
 * (its TACKs are served: pinned clients need them), but an error for its
 * files of another owner, which are not served.  Returns the number of
 * problems. */
static int mt_store_report_trust(server_rec *s_main, mt_store_t *st)
{
    apr_pool_t *p = s_main->process->pconf;
    const char *owner = mt_main_conf()->store_owner;
    struct passwd *pw = owner ? getpwnam(owner) : NULL;
    int strict = mt_strict(), problems = 0, j;
    const char *why;

    mt_store_check_trust(p, st);
    if (pw && pw->pw_uid == ap_unixd_config.user_id) {
        APR_ARRAY_PUSH(st->untrusted, const char *) = apr_psprintf(
            p,
            "TackStoreOwner %s is the user httpd's children run as (User): "
            "any request handler could write the store; name the user the "
            "hooks sign as",
            owner);
    }
    /* the files of another owner: an error in both modes, as neither
     * serves them (under -t with the rest, below) */
    if ((why = mt_store_first_untrusted(p, st->foreign, NULL, 1))) {
        if (strict) {
            APR_ARRAY_PUSH(st->untrusted, const char *) = why;
        } else {
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00121: %s (TackStore at " TACK_WHERE_FMT
                         "); not served",
                         why, TACK_WHERE(st->where));
        }
    }
    for (j = 0; j < st->untrusted->nelts; j++) {
        const char *w = APR_ARRAY_IDX(st->untrusted, j, const char *);

        if (strict) {
            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00065: %s (TackStore at " TACK_WHERE_FMT ")", w,
                         TACK_WHERE(st->where));
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
                     it->file->path, it->fingerprint, MT_ITEM_EXPIRY(it));
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
        MT_ITEM_EXPIRY(first),
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

/* At a real start (after the hooks ran) and under -t: malformed files are
 * errors and count as problems, expired ones warnings (skipped either
 * way). */
int mt_store_log(server_rec *s_main, int report_unmatched)
{
    const struct mt_stores *stores = mt_gen()->stores;
    time_t now = time(NULL);
    int problems = 0, i;

    if (mt_quiet() || !stores) {
        return 0;
    }
    for (i = 0; i < stores->list->nelts; i++) {
        mt_store_t *st = APR_ARRAY_IDX(stores->list, i, mt_store_t *);
        int unmatched = 0;

        mt_store_ready(st); /* a store no vhost looked up */

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
 * One name per certificate (tack_cert_store_name, as `tack sign -o
 * STORE/` names it), with the "Created by" lines, written relative to the
 * directory's descriptor (tack_file_replace_at: a new file made with
 * O_EXCL, its mode set on its descriptor, renamed over the old one:
 * nothing a writer of the directory or its parent swaps in is followed).
 * The directory is synced once at the end of the pass (mt_store_sync:
 * 10,000 fsyncs would cost seconds of every pass that signs them all). */

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
    if (store->fd < 0) {
        return "the store's directory is not open";
    }
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
    /* relative to the directory opened at the start: a store its parent's
     * owner has since swapped for a link elsewhere is not followed */
    st = tack_file_replace_at(store->fd, name, text, strlen(text), 0644, 0);
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
           mt_key_equal(mt_item_key(old), tack->public_key) &&
           mt_item_expiration(old) <= tack->expiration;
}

/* mt_store_remove removes |old|'s file, superseded by |path|: logged. */
static int mt_store_remove(server_rec *s, const mt_item_t *old,
                           const char *path)
{
    if (old->file->removed) {
        return 0;
    }
    if (!old->file->store || old->file->store->fd < 0 ||
        unlinkat(old->file->store->fd, old->file->name, 0) != 0) {
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

/* Redundant: a TACK alone in its file, for the same certificate, under the
 * same TACK key, ending no later (a file the previous naming rule or `tack
 * sign` gave another name, an expired one). */
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
