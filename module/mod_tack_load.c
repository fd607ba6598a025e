/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_load.c -- loading and verifying the files a directive names, at
 * directive time: a TackFile's TACKs (also each file of a TackStore) and a
 * TackBreakSigsFile's break signatures, and the cache of signatures already
 * verified in this process, which spares the ECDSA verifications of httpd's
 * repeated configuration passes.  Nothing is logged here: each loader
 * returns the reason a file is not served, for the directive (under -t) or
 * the start-up report (mod_tack_resolve.c, mod_tack_store.c) to show.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "httpd.h"
#include "http_config.h"
#include "http_main.h"
#include "apr_strings.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/sha.h>

#include "mod_tack_load.h"
#include "tack_file.h"
#include "tack_key.h"
#include "tack_pem.h"

APLOG_USE_MODULE(tack);

/* ---- describing a certificate ------------------------------------------- */

/* EVP_PKEY_get_base_id's value and the NID of a SubjectPublicKeyInfo's
 * algorithm OID are the same number: one name for every message, the
 * status page and the guard's memory ("name:port TYPE"). */
const char *mt_key_type_name(int nid)
{
    switch (nid) {
    case EVP_PKEY_RSA:
        return "RSA";
    case EVP_PKEY_RSA_PSS:
        return "RSA-PSS";
    case EVP_PKEY_EC:
        return "ECDSA";
    default:
        return nid == NID_undef ? "?" : OBJ_nid2sn(nid);
    }
}

int mt_cert_describe(apr_pool_t *p, X509 *x509, const char *label,
                     mt_certsel_t *out)
{
    char subject[TACK_SUBJECT_SIZE];

    if (!x509 || tack_spki_hash(x509, out->hash) != TACK_OK) {
        return 0;
    }
    tack_cert_name(x509, subject, sizeof(subject));
    out->x509 = x509;
    out->key_type =
        mt_key_type_name(EVP_PKEY_get_base_id(X509_get0_pubkey(x509)));
    out->subject = apr_pstrdup(p, subject);
    out->label =
        label ? label
              : apr_psprintf(p, "%s certificate %s", out->key_type, subject);
    return 1;
}

const char *mt_item_name(apr_pool_t *p, const mt_item_t *item)
{
    if (item->file->nitems < 2) {
        return "TACK";
    }
    return apr_psprintf(p, "TACK %u of %d", item->index, item->file->nitems);
}

/* ---- loading files (at directive time) ----------------------------------- */

/* Labels looked at in a file: more than a TACK file ever holds. */
#define TACK_LABELS_MAX 8

/* mt_wrong_label says why |path| has no |want| block, from what it holds
 * instead (|labels|, |n| of them, n > 0): a private key is named as such,
 * since it does not belong in a public file. */
static const char *mt_wrong_label(apr_pool_t *p, const char *directive,
                                  const char *path, const char *want,
                                  char labels[][TACK_PEM_LABEL_SIZE], size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (tack_pem_label_is_private_key(labels[i])) {
            return apr_psprintf(p,
                                "%s %s: no \"%s\" PEM block: it holds a "
                                "private key (\"BEGIN %s\"), which does not "
                                "belong in a %s (name the file " TACK_PROG
                                " sign wrote; keep the key where only root "
                                "can read it)",
                                directive, path, want, labels[i], directive);
        }
    }
    return apr_psprintf(p, "%s %s: no \"%s\" PEM block (it holds \"BEGIN %s\")",
                        directive, path, want, labels[0]);
}

/* Whoever can write a TACK, break-signature or store file decides what
 * pinned clients must accept. */
const char *mt_load_writable(apr_pool_t *p, const char *directive,
                             const char *path)
{
    apr_finfo_t fi;

    if (apr_stat(&fi, path, APR_FINFO_PROT, p) != APR_SUCCESS ||
        !(fi.protection & (APR_GWRITE | APR_WWRITE))) {
        return NULL;
    }
    return apr_psprintf(p,
                        "%s %s: writable by %s (whoever can write it "
                        "decides what pinned clients must accept): chmod "
                        "go-w",
                        directive, path,
                        fi.protection & APR_WWRITE ? "everyone" : "its group");
}

/* mt_tackfile_extras looks at what else the TACK file |f| holds besides
 * its TACKs, and at who can write it.  A private key in it is exposed (TACK
 * files are public, 0644): under apache2 -t that refuses the file (the
 * returned reason); at a real start the TACKs are still served, with a
 * warning, for the clients that pinned them.  Break-signature blocks, which
 * a TackFile does not serve, and a file others can write are warnings. */
static const char *mt_tackfile_extras(apr_pool_t *p, mt_file_t *f,
                                      char labels[][TACK_PEM_LABEL_SIZE],
                                      size_t n)
{
    const char *w;
    size_t i;

    f->warnings = NULL;
    for (i = 0; i < n; i++) {
        w = NULL;
        if (tack_pem_label_is_private_key(labels[i])) {
            w = apr_psprintf(p,
                             "%s %s: also holds a private key (\"BEGIN %s\"), "
                             "exposed in a public file: move the key to a "
                             "file only root can read",
                             f->kind, f->path, labels[i]);
            if (mt_strict()) {
                return w;
            }
        } else if (!strcmp(labels[i], TACK_PEM_LABEL_BREAKSIG)) {
            w = apr_psprintf(p,
                             "%s %s: its \"%s\" blocks are not served from "
                             "here (name the file with TackBreakSigsFile)",
                             f->kind, f->path, labels[i]);
        }
        if (w) {
            mt_warning_add(p, &f->warnings, w);
        }
    }
    /* A store says once how many of its files others can write. */
    w = f->store ? NULL : mt_load_writable(p, f->kind, f->path);
    if (w) {
        mt_warning_add(p, &f->warnings, w);
    }
    return NULL;
}

const mt_main_conf_t *mt_main_conf(void)
{
    static const mt_main_conf_t none = {NULL, NULL, TACK_UNSET, TACK_UNSET,
                                        TACK_UNSET};
    const mt_conf_t *conf = ap_server_conf ? mt_conf_get(ap_server_conf) : NULL;

    return conf && conf->main ? conf->main : &none;
}

/* ---- signatures already verified ------------------------------------- */

/* Signatures verified in this process, keyed by the SHA-256 of the exact
 * bytes of the signed object (a 166-byte TACK, a 128-byte break
 * signature, the TACK key among them): only a successful verification is
 * remembered, and the key covers every signed byte, so a hit is as good as
 * verifying again.  httpd reads its configuration twice at start-up and
 * again at every graceful restart, and a provider's vhosts share
 * break-signature files and TACK keys (bench/findings.md).
 *
 * The cache is the process's (mt_proc_t.vcache), not a static: httpd
 * unloads and reloads the module between configuration passes.  Each entry
 * is stamped with the last pass that used it; mt_load_vcache_end drops
 * what the finished pass did not use (its entries are reused), so memory
 * stays bounded by one configuration's TACKs.  Each TACK key is made into
 * an EVP_PKEY once a generation: one key usually signs thousands of
 * TACKs, and making it costs a quarter of a verification.
 *
 * The digests outlive the process in a file beside TackStateFile (the
 * state file's name and ".verified"), so that a later start verifies only
 * what changed: read at the first signature a process has not verified,
 * written by a real start or restart whose digests changed.  It is trusted
 * only as the memory's directory is (docs/security.md): owned by root, or
 * by the user an httpd started without root runs as, and writable by its
 * owner alone, file and directory. */
typedef struct {
    uint8_t digest[SHA256_DIGEST_LENGTH];
    apr_uint32_t pass; /* the last pass that used it; 0: a free place */
} mt_vent_t;

typedef struct mt_vkey {
    uint8_t pub[TACK_KEY_LEN];
    EVP_PKEY *pkey;
} mt_vkey_t;

/* The file: this magic, then the digests, 32 bytes each. */
#define MT_VFILE_MAGIC "TACKVRF1"
#define MT_VFILE_MAGIC_LEN 8
#define MT_VFILE_MAX (1u << 20) /* digests */

typedef struct mt_vcache {
    apr_pool_t *pool;
    /* The digests: open addressing, |cap| places (at most three quarters
     * used; between passes, about that), found by their first bytes
     * (SHA-256's: uniform).  36 bytes a digest, 48 with the free places:
     * an apr_hash_t costs about 100 (its entry, the value, and the arrays
     * it outgrew, all kept by the pool), paid in the parent and every
     * child.  malloc'd, so that an outgrown table is given back. */
    mt_vent_t *ents;
    size_t cap, n;
    apr_hash_t *keys;    /* public key -> mt_vkey_t *, the generation's */
    apr_uint32_t pass;   /* from 2: an entry of the file's is pass - 1 */
    const char *file;    /* the digests' file: beside the memory */
    char *file_set;      /* TackStateFile's, in pool, or NULL */
    int file_read;       /* read (or tried) by this process */
    int dirty;           /* the table differs from the file */
    const char *problem; /* why the file was not used, once */
    int write_said;      /* that it could not be written, once */
} mt_vcache_t;

static mt_vcache_t *mt_vcache_get(void)
{
    return mt_proc()->vcache;
}

/* The keys are the generation's, freed by a cleanup of pconf: one in the
 * process pool would call into this module after httpd unloaded it and
 * mapped it anew (every pass does), and crash httpd as it exits. */
static apr_status_t mt_vcache_keys_free(void *data)
{
    mt_vcache_t *vc = data;
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, vc->keys); hi; hi = apr_hash_next(hi)) {
        mt_vkey_t *k = apr_hash_this_val(hi);

        EVP_PKEY_free(k->pkey);
    }
    vc->keys = NULL;
    return APR_SUCCESS;
}

void mt_load_proc_init(mt_proc_t *proc, apr_pool_t *pproc)
{
    mt_vcache_t *vc = proc->vcache;

    if (vc) {
        vc->pass++; /* a new pass of the same process */
    } else {
        vc = apr_pcalloc(pproc, sizeof(*vc));
        apr_pool_create(&vc->pool, pproc);
        apr_pool_tag(vc->pool, "mod_tack_verified");
        vc->pass = 2;
        proc->vcache = vc;
    }
    vc->keys = apr_hash_make(mt_gen()->pconf);
    apr_pool_cleanup_register(mt_gen()->pconf, vc, mt_vcache_keys_free,
                              apr_pool_cleanup_null);
    /* until TackStateFile says otherwise, this pass */
    vc->file = MT_STATE_DEFAULT ".verified";
}

void mt_load_vcache_file(const char *state_file)
{
    mt_vcache_t *vc = mt_vcache_get();
    size_t n = strlen(state_file);

    if (!vc->file_set || strncmp(vc->file_set, state_file, n) ||
        strcmp(vc->file_set + n, ".verified")) {
        /* a new name: once per change, not per pass */
        vc->file_set = apr_pstrcat(vc->pool, state_file, ".verified", NULL);
    }
    vc->file = vc->file_set;
}

/* mt_vent_place returns the place of |digest| in |ents| (|cap| places, a
 * free one among them), or the free place where it would go. */
static mt_vent_t *mt_vent_place(mt_vent_t *ents, size_t cap,
                                const uint8_t *digest)
{
    size_t i;

    memcpy(&i, digest, sizeof(i));
    for (i %= cap;; i = i + 1 < cap ? i + 1 : 0) {
        if (!ents[i].pass ||
            !memcmp(ents[i].digest, digest, SHA256_DIGEST_LENGTH)) {
            return &ents[i];
        }
    }
}

static mt_vent_t *mt_vent_find(const mt_vcache_t *vc, const uint8_t *digest)
{
    mt_vent_t *e = vc->cap ? mt_vent_place(vc->ents, vc->cap, digest) : NULL;

    return e && e->pass ? e : NULL;
}

/* mt_vent_rehash moves the entries used by |keep| or a later pass (all:
 * 0) into a table of |cap| places; 0 when out of memory (nothing moved). */
static int mt_vent_rehash(mt_vcache_t *vc, size_t cap, apr_uint32_t keep)
{
    mt_vent_t *ents = calloc(cap, sizeof(*ents));
    size_t i, n = 0;

    if (!ents) {
        return 0;
    }
    for (i = 0; i < vc->cap; i++) {
        if (vc->ents[i].pass && vc->ents[i].pass >= keep) {
            *mt_vent_place(ents, cap, vc->ents[i].digest) = vc->ents[i];
            n++;
        }
    }
    free(vc->ents);
    vc->ents = ents;
    vc->cap = cap;
    vc->n = n;
    return 1;
}

/* mt_vent_add remembers |digest| as used by |pass| (not found before);
 * when memory runs out it is not remembered (verified again next time). */
static void mt_vent_add(mt_vcache_t *vc, const uint8_t *digest,
                        apr_uint32_t pass)
{
    mt_vent_t *e;

    if ((vc->n + 1) * 4 > vc->cap * 3 &&
        !mt_vent_rehash(vc, vc->cap ? vc->cap * 2 : 64, 0)) {
        return;
    }
    e = mt_vent_place(vc->ents, vc->cap, digest);
    memcpy(e->digest, digest, SHA256_DIGEST_LENGTH);
    e->pass = pass;
    vc->n++;
}

/* mt_vfile_trusted returns NULL when |fd|, the file |path| opened, and its
 * directory may be believed, or why not. */
static const char *mt_vfile_trusted(apr_pool_t *p, const char *path, int fd,
                                    struct stat *sb)
{
    char *dir = apr_pstrdup(p, path), *slash = strrchr(dir, '/');
    struct stat db;
    uid_t me = geteuid();

    if (fstat(fd, sb) != 0) {
        return apr_psprintf(p, "cannot be examined (%s)", strerror(errno));
    }
    if (!S_ISREG(sb->st_mode)) {
        return "not a regular file";
    }
    if (sb->st_uid != 0 && sb->st_uid != me) {
        return apr_psprintf(p, "owned by uid %ld, not by root",
                            (long)sb->st_uid);
    }
    if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
        return sb->st_mode & S_IWOTH ? "writable by everyone"
                                     : "writable by its group";
    }
    if (slash) {
        *(slash == dir ? slash + 1 : slash) = '\0';
    }
    if (!slash || stat(dir, &db) != 0 || (db.st_uid != 0 && db.st_uid != me) ||
        (db.st_mode & (S_IWGRP | S_IWOTH))) {
        return "in a directory root does not own alone (as "
               "TackStateFile's must be)";
    }
    return NULL;
}

/* mt_vcache_read adds the digests of the file to the table, each as used
 * by the previous pass: this pass keeps those it meets again. */
static void mt_vcache_read(mt_vcache_t *vc)
{
    apr_pool_t *p;
    struct stat sb;
    const char *why = NULL;
    uint8_t *buf = NULL;
    size_t len, i;
    ssize_t got;
    int fd;

    vc->file_read = 1;
    fd = open(vc->file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT) {
            vc->problem = apr_psprintf(vc->pool, "%s: cannot be read (%s)",
                                       vc->file, strerror(errno));
        }
        return;
    }
    apr_pool_create(&p, vc->pool);
    why = mt_vfile_trusted(p, vc->file, fd, &sb);
    if (!why) {
        len = (size_t)sb.st_size;
        if (len < MT_VFILE_MAGIC_LEN ||
            (len - MT_VFILE_MAGIC_LEN) % SHA256_DIGEST_LENGTH ||
            (len - MT_VFILE_MAGIC_LEN) / SHA256_DIGEST_LENGTH > MT_VFILE_MAX) {
            why = "not a file of verified signatures (its length)";
        } else {
            buf = apr_palloc(p, len);
            got = read(fd, buf, len);
            if (got != (ssize_t)len ||
                memcmp(buf, MT_VFILE_MAGIC, MT_VFILE_MAGIC_LEN)) {
                why = "not a file of verified signatures (its start)";
            }
        }
    }
    close(fd);
    if (why) {
        vc->problem = apr_psprintf(vc->pool, "%s: %s", vc->file, why);
        vc->dirty = 1; /* replaced by what this start verifies */
    } else {
        for (i = MT_VFILE_MAGIC_LEN; i < len; i += SHA256_DIGEST_LENGTH) {
            if (!mt_vent_find(vc, buf + i)) {
                mt_vent_add(vc, buf + i, vc->pass - 1);
            }
        }
    }
    apr_pool_destroy(p);
}

/* mt_vcache_run runs |verify| on |obj| by the TACK key |pub|, made into an
 * EVP_PKEY once a generation (made for the call when there is none). */
static tack_status_t mt_vcache_run(mt_vcache_t *vc, const uint8_t *pub,
                                   tack_status_t (*verify)(const void *,
                                                           EVP_PKEY *),
                                   const void *obj)
{
    mt_vkey_t *k = vc->keys ? apr_hash_get(vc->keys, pub, TACK_KEY_LEN) : NULL;
    EVP_PKEY *pkey = NULL;
    tack_status_t st;

    if (k) {
        return verify(obj, k->pkey);
    }
    st = tack_key_from_public(&pkey, pub);
    if (st != TACK_OK) {
        return st;
    }
    st = verify(obj, pkey);
    if (vc->keys) {
        k = apr_palloc(apr_hash_pool_get(vc->keys), sizeof(*k));
        memcpy(k->pub, pub, TACK_KEY_LEN);
        k->pkey = pkey;
        apr_hash_set(vc->keys, k->pub, TACK_KEY_LEN, k);
    } else {
        EVP_PKEY_free(pkey);
    }
    return st;
}

const char *mt_load_vcache_end(apr_pool_t *p, int say, int save)
{
    mt_vcache_t *vc = mt_vcache_get();
    const char *problem = say ? vc->problem : NULL;
    unsigned char *buf, *at;
    tack_status_t st;
    size_t i, n = 0, cap;
    int err;

    if (say) {
        vc->problem = NULL;
    }
    /* What this pass did not use is dropped: the table is made anew,
     * sized to what is kept, three quarters full (grown by doubling while
     * the pass added, it was up to five eighths empty: 36 bytes a place,
     * kept in the parent and every child).  Out of memory, the old
     * entries stay: each was verified, so a hit on one is still a true
     * answer. */
    for (i = 0; i < vc->cap; i++) {
        n += vc->ents[i].pass == vc->pass;
    }
    cap = n * 4 / 3 + 1 > 64 ? n * 4 / 3 + 1 : 64;
    if (n < vc->n) {
        vc->dirty = 1;
    }
    if (n < vc->n || cap < vc->cap) {
        mt_vent_rehash(vc, cap, vc->pass);
    }
    if (!save || !vc->dirty || n > MT_VFILE_MAX) {
        return problem;
    }
    /* malloc'd, not |p|'s: ptemp's blocks stay mapped in the parent */
    buf = at = malloc(MT_VFILE_MAGIC_LEN + n * SHA256_DIGEST_LENGTH);
    if (!buf) {
        return problem;
    }
    memcpy(at, MT_VFILE_MAGIC, MT_VFILE_MAGIC_LEN);
    at += MT_VFILE_MAGIC_LEN;
    for (i = 0; i < vc->cap; i++) {
        if (vc->ents[i].pass == vc->pass) {
            memcpy(at, vc->ents[i].digest, SHA256_DIGEST_LENGTH);
            at += SHA256_DIGEST_LENGTH;
        }
    }
    st = tack_file_replace(vc->file, buf, (size_t)(at - buf), 0600, 0);
    err = errno;
    free(buf);
    if (st != TACK_OK) {
        /* no root, say: the next start verifies all again */
        if (!problem && !vc->write_said) {
            vc->write_said = 1;
            problem = apr_psprintf(p, "%s: cannot be written (%s)", vc->file,
                                   strerror(err));
        }
        return problem;
    }
    vc->dirty = 0;
    return problem;
}

/* mt_vcache_verify returns TACK_OK when |bytes| were verified before (in
 * this pass, the previous one or the file), and otherwise runs |verify|
 * on |obj| by the key |pub| and remembers a success. */
static tack_status_t
mt_vcache_verify(const uint8_t *bytes, size_t len, const uint8_t *pub,
                 tack_status_t (*verify)(const void *, EVP_PKEY *),
                 const void *obj)
{
    mt_vcache_t *vc = mt_vcache_get();
    uint8_t digest[SHA256_DIGEST_LENGTH];
    unsigned int dlen = 0;
    tack_status_t st;
    mt_vent_t *e;

    if (!EVP_Digest(bytes, len, digest, &dlen, EVP_sha256(), NULL)) {
        ERR_clear_error();
        st = mt_vcache_run(vc, pub, verify, obj);
        ERR_clear_error();
        return st;
    }
    e = mt_vent_find(vc, digest);
    if (e == NULL && !vc->file_read) {
        mt_vcache_read(vc);
        e = mt_vent_find(vc, digest);
    }
    if (e != NULL) {
        e->pass = vc->pass;
        return TACK_OK;
    }
    st = mt_vcache_run(vc, pub, verify, obj);
    ERR_clear_error();
    if (st != TACK_OK) {
        return st;
    }
    mt_vent_add(vc, digest, vc->pass);
    vc->dirty = 1;
    return TACK_OK;
}

static tack_status_t mt_verify_tack(const void *obj, EVP_PKEY *key)
{
    return tack_verify_with(obj, key);
}

static tack_status_t mt_verify_breaksig(const void *obj, EVP_PKEY *key)
{
    return tack_breaksig_verify_with(obj, key);
}

/* mt_validate_cached is tack_validate(tack, NULL, now) with the signature
 * check answered from the cache when it can be. */
static tack_status_t mt_validate_cached(server_rec *s, const tack_t *tack,
                                        time_t now)
{
    uint8_t wire[TACK_LEN];
    tack_status_t st;

    tack_encode(tack, wire);
    st = mt_vcache_verify(wire, sizeof(wire), tack->public_key, mt_verify_tack,
                          tack);
    if (st == TACK_OK) {
        st = tack_check_generation(tack);
    }
    if (st == TACK_OK) {
        st = tack_check_expiration(tack, now);
    }
    return st;
}

static tack_status_t mt_breaksig_verify_cached(server_rec *s,
                                               const tack_breaksig_t *sig)
{
    uint8_t wire[TACK_BREAKSIG_LEN];

    tack_breaksig_encode(sig, wire);
    return mt_vcache_verify(wire, sizeof(wire), sig->public_key,
                            mt_verify_breaksig, sig);
}

/* The load's part of the generation (mt_gen_t.sigloads), made in
 * pre_config: each break-signature file read in this pass, by path
 * (mt_sigload_t *, in pconf). */
struct mt_sigloads {
    apr_hash_t *loaded;
    /* a pool of its own (mt_pool_apart): the TackFiles' TACK bytes until
     * the pass ends, and the list of their items (mt_item_t *) */
    apr_pool_t *staging;
    apr_array_header_t *staged;
};

static const uint8_t *mt_tack_bytes(apr_pool_t *p, const tack_t *tack)
{
    uint8_t *wire = apr_palloc(p, TACK_LEN);

    tack_encode(tack, wire);
    return wire;
}

/* A store's TACKs stay where they are read (its index keys them by their
 * target_hash); a TackFile's wait in the staging pool for the body that
 * serves them, mt_load_settle. */
static void mt_load_stage(apr_pool_t *p, mt_item_t *item, const tack_t *tack)
{
    struct mt_sigloads *sl = mt_gen()->sigloads;

    if (item->file->store || !sl->staging) {
        item->wire = mt_tack_bytes(p, tack);
        return;
    }
    item->wire = mt_tack_bytes(sl->staging, tack);
    item->staged = 1;
    APR_ARRAY_PUSH(sl->staged, mt_item_t *) = item;
}

void mt_load_settle(mt_item_t *it, const uint8_t *bytes, size_t len)
{
    size_t at;

    /* a TACK is a few bytes into a body (after its lengths): a byte
     * compared per place, not memmem's set-up for a 166-byte needle (5,000
     * instructions a vhost at every start, bench/results.md) */
    for (at = 0; it->staged && bytes && at + TACK_LEN <= len; at++) {
        if (bytes[at] == it->wire[0] &&
            !memcmp(bytes + at, it->wire, TACK_LEN)) {
            it->wire = bytes + at;
            it->staged = 0;
        }
    }
}

void mt_load_settle_end(apr_pool_t *pconf)
{
    struct mt_sigloads *sl = mt_gen()->sigloads;
    int i;

    if (!sl->staging) {
        return;
    }
    for (i = 0; i < sl->staged->nelts; i++) {
        mt_item_t *it = APR_ARRAY_IDX(sl->staged, i, mt_item_t *);

        if (it->staged) { /* served by no body: an error, unmatched... */
            it->wire = apr_pmemdup(pconf, it->wire, TACK_LEN);
            it->staged = 0;
        }
    }
    apr_pool_destroy(sl->staging); /* to malloc, which the pass trims */
    sl->staging = NULL;
    sl->staged = NULL;
}

/* The checks a client runs that need no certificate: signature,
 * generation, expiration. */
const char *mt_load_tackfile(apr_pool_t *p, mt_file_t *f, int *expired)
{
    tack_t tacks[TACK_EXT02_MAX_TACKS];
    char labels[TACK_LABELS_MAX][TACK_PEM_LABEL_SIZE];
    size_t count = 0, nlabels, i;
    unsigned line = 0;
    char *text;
    size_t len;
    tack_status_t st;
    time_t now = time(NULL);
    const char *err;

    *expired = 0;
    if (f->store) {
        /* relative to the store's descriptor, never through a link; who
         * owns the bytes read is judged by mt_store_ready */
        struct stat sb;

        memset(&sb, 0, sizeof(sb));
        err = mt_read_text_at(p, f->kind, f->store->fd, f->name, f->path, &text,
                              &len, &sb);
        f->stat_known = !err;
        f->uid = sb.st_uid;
        f->mode = sb.st_mode;
    } else {
        err = mt_read_text(p, f->kind, f->path, &text, &len);
    }
    if (err) {
        return err;
    }
    nlabels = tack_pem_labels(text, len, labels, TACK_LABELS_MAX);
    /* Room for two: pair files are legal in draft-02; whether the format
     * allows a pair is decided once the vhost's TackFormat is known. */
    st = tack_tacks_from_pem(tacks, TACK_EXT02_MAX_TACKS, &count, text, len,
                             &line);
    OPENSSL_cleanse(text, len); /* it may hold a private key */
    free(text);
    if (st == TACK_ERR_PEM_WRONG_LABEL && nlabels > 0) {
        return mt_wrong_label(p, f->kind, f->path, TACK_PEM_LABEL_TACK, labels,
                              nlabels);
    }
    if (st == TACK_ERR_TOO_MANY_TACKS) {
        return apr_psprintf(p,
                            "%s %s: more than two TACK blocks (a TACK "
                            "file holds one, or a pair in TackFormat draft-02)",
                            f->kind, f->path);
    }
    if (st != TACK_OK) {
        return mt_pem_error(p, f->kind, f->path, st, line, TACK_PEM_LABEL_TACK,
                            TACK_LEN);
    }
    f->nitems = (int)count;
    f->items = apr_pcalloc(p, count * sizeof(*f->items));
    for (i = 0; i < count; i++) {
        mt_item_t *item = &f->items[i];

        item->file = f;
        item->index = (unsigned)i + 1;
        mt_load_stage(p, item, &tacks[i]);
        item->expires = tack_expiration_time(&tacks[i]);
        tack_fingerprint(tacks[i].public_key, item->fingerprint);

        st = mt_validate_cached(f->s, &tacks[i], now);
        if (st == TACK_ERR_GENERATION) {
            return apr_psprintf(p,
                                "%s %s: %s: generation %u is below "
                                "min_generation %u",
                                f->kind, f->path, mt_item_name(p, item),
                                tacks[i].generation, tacks[i].min_generation);
        }
        if (st == TACK_ERR_EXPIRED) {
            *expired = 1;
            return apr_psprintf(p, "%s %s: %s (key %s) expired at %s", f->kind,
                                f->path, mt_item_name(p, item),
                                item->fingerprint, MT_ITEM_EXPIRY(item));
        }
        if (st != TACK_OK) {
            return apr_psprintf(p, "%s %s: %s: %s", f->kind, f->path,
                                mt_item_name(p, item), tack_status_str(st));
        }
    }
    if (count == 2 && mt_key_equal(tacks[0].public_key, tacks[1].public_key)) {
        return apr_psprintf(p,
                            "%s %s: both TACKs have the same key %s "
                            "(a pair must use two TACK keys)",
                            f->kind, f->path, f->items[0].fingerprint);
    }
    return mt_tackfile_extras(p, f, labels, nlabels);
}

/* What one break-signature file holds, read and verified once per
 * configuration pass however many directives name it (hosting
 * configurations name one file in thousands of vhosts). */
typedef struct {
    const char *error;
    size_t num;
    tack_breaksig_t sigs[TACK_MAX_BREAKSIGS];
    char fingerprints[TACK_MAX_BREAKSIGS][TACK_FINGERPRINT_SIZE];
} mt_sigload_t;

void mt_load_gen_init(mt_gen_t *gen)
{
    struct mt_sigloads *sl = apr_pcalloc(gen->pconf, sizeof(*sl));

    sl->loaded = apr_hash_make(gen->pconf);
    sl->staging = mt_pool_apart(gen->pconf, "tack_staged");
    sl->staged = apr_array_make(sl->staging, 64, sizeof(mt_item_t *));
    gen->sigloads = sl;
}

static const char *mt_sigload_read(apr_pool_t *p, mt_sigfile_t *f,
                                   mt_sigload_t *l)
{
    size_t i;
    unsigned line = 0;
    char *text;
    size_t len;
    tack_status_t st;
    const char *err;
    char labels[TACK_LABELS_MAX][TACK_PEM_LABEL_SIZE];
    size_t nlabels;

    err = mt_read_text(p, "TackBreakSigsFile", f->path, &text, &len);
    if (err) {
        return err;
    }
    nlabels = tack_pem_labels(text, len, labels, TACK_LABELS_MAX);
    st = tack_breaksigs_from_pem(l->sigs, TACK_MAX_BREAKSIGS, &l->num, text,
                                 len, &line);
    OPENSSL_cleanse(text, len);
    free(text);
    if (st == TACK_ERR_PEM_WRONG_LABEL && nlabels > 0) {
        l->num = 0;
        return mt_wrong_label(p, "TackBreakSigsFile", f->path,
                              TACK_PEM_LABEL_BREAKSIG, labels, nlabels);
    }
    if (st == TACK_ERR_TOO_MANY_BREAKSIGS) {
        l->num = 0;
        return apr_psprintf(p,
                            "TackBreakSigsFile %s: more than %d break "
                            "signatures (a vhost serves at most %d)",
                            f->path, TACK_MAX_BREAKSIGS, TACK_MAX_BREAKSIGS);
    }
    if (st != TACK_OK) {
        l->num = 0;
        return mt_pem_error(p, "TackBreakSigsFile", f->path, st, line,
                            TACK_PEM_LABEL_BREAKSIG, TACK_BREAKSIG_LEN);
    }
    for (i = 0; i < l->num; i++) {
        tack_fingerprint(l->sigs[i].public_key, l->fingerprints[i]);
        st = mt_breaksig_verify_cached(f->s, &l->sigs[i]);
        if (st != TACK_OK) {
            return apr_psprintf(
                p,
                "TackBreakSigsFile %s: break signature %" APR_SIZE_T_FMT " "
                "(key %s): %s",
                f->path, i + 1, l->fingerprints[i], tack_status_str(st));
        }
    }
    return NULL;
}

/* What another directive of this pass loaded from the same path is
 * shared (the load's part of the generation). */
const char *mt_load_sigfile(apr_pool_t *p, mt_sigfile_t *f)
{
    apr_hash_t *loaded = mt_gen()->sigloads->loaded;
    mt_sigload_t *l;

    l = apr_hash_get(loaded, f->path, APR_HASH_KEY_STRING);
    if (l == NULL) {
        l = apr_pcalloc(p, sizeof(*l));
        l->error = mt_sigload_read(p, f, l);
        apr_hash_set(loaded, f->path, APR_HASH_KEY_STRING, l);
    }
    f->warning =
        l->error ? NULL : mt_load_writable(p, "TackBreakSigsFile", f->path);
    f->num = l->num;
    f->sigs = l->sigs;
    f->fingerprints = (const char(*)[TACK_FINGERPRINT_SIZE])l->fingerprints;
    return l->error;
}

mt_item_t *mt_load_item(apr_pool_t *p, server_rec *s, const char *kind,
                        const char *path, const ap_directive_t *where,
                        const mt_store_t *store, const tack_t *tack)
{
    mt_file_t *f = apr_pcalloc(p, sizeof(*f));
    mt_item_t *item = apr_pcalloc(p, sizeof(*item));

    f->s = s;
    f->kind = kind;
    f->path = path;
    f->store = store;
    f->where = where;
    f->server_level = !s->is_virtual;
    f->nitems = 1;
    f->items = item;
    item->file = f;
    item->index = 1;
    item->wire = mt_tack_bytes(p, tack);
    item->expires = tack_expiration_time(tack);
    item->matched = 1;
    tack_fingerprint(tack->public_key, item->fingerprint);
    return item;
}
