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
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_main.h"
#include "apr_strings.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/sha.h>

#include "mod_tack_load.h"
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

/* ---- signatures already verified ------------------------------------- */

/* Signatures verified in this process, keyed by the SHA-256 of the exact
 * bytes of the signed object (a 166-byte TACK, a 128-byte break
 * signature): only a successful verification is remembered, and the key
 * covers every signed byte, so a hit is as good as verifying again.  httpd
 * reads its configuration twice at start-up and again at every graceful
 * restart, and a provider's vhosts share break-signature files and TACK keys:
 * without this, start-up re-verified every ECDSA signature several times over
 * (bench/findings.md).
 *
 * The cache is the process's (mt_proc_t.vcache), not a static: httpd
 * unloads and reloads the module between configuration passes.  One table,
 * each entry stamped with the last pass that used it: mt_load_proc_init
 * starts a pass, mt_load_vcache_prune drops what the finished pass did
 * not use (its entries are reused).  So a restart finds the previous pass's
 * signatures, and memory stays bounded by one configuration's TACKs: about
 * 90 bytes a TACK, where two generations of tables cost twice that at the
 * peak of every start (bench/findings.md, memory). */
typedef struct mt_vent {
    union {
        uint8_t digest[SHA256_DIGEST_LENGTH]; /* in the table */
        struct mt_vent *next;                 /* on the free list */
    } u;
    apr_uint32_t pass; /* the last pass that used it */
} mt_vent_t;

typedef struct mt_vcache {
    apr_pool_t *pool;
    apr_hash_t *seen; /* digest -> mt_vent_t * */
    mt_vent_t *free;
    apr_uint32_t pass;
} mt_vcache_t;

static mt_vcache_t *mt_vcache_get(void)
{
    return mt_proc()->vcache;
}

void mt_load_proc_init(mt_proc_t *proc, apr_pool_t *pproc)
{
    mt_vcache_t *vc;

    if (proc->vcache) {
        proc->vcache->pass++; /* a new pass of the same process */
        return;
    }
    vc = apr_pcalloc(pproc, sizeof(*vc));
    apr_pool_create(&vc->pool, pproc);
    apr_pool_tag(vc->pool, "mod_tack_verified");
    vc->seen = apr_hash_make(vc->pool);
    vc->pass = 1;
    proc->vcache = vc;
}

void mt_load_vcache_prune(server_rec *s)
{
    mt_vcache_t *vc = mt_vcache_get();
    apr_hash_index_t *hi;

    /* Deleting the current entry while iterating is allowed by APR. */
    for (hi = apr_hash_first(NULL, vc->seen); hi; hi = apr_hash_next(hi)) {
        mt_vent_t *e = apr_hash_this_val(hi);

        if (e->pass != vc->pass) {
            apr_hash_set(vc->seen, e->u.digest, sizeof(e->u.digest), NULL);
            e->u.next = vc->free;
            vc->free = e;
        }
    }
}

/* mt_vcache_verify returns TACK_OK when |bytes| were verified before in
 * this pass or the previous one, and otherwise runs |verify| on |obj| and
 * remembers a success. */
static tack_status_t mt_vcache_verify(server_rec *s, const uint8_t *bytes,
                                      size_t len,
                                      tack_status_t (*verify)(const void *),
                                      const void *obj)
{
    mt_vcache_t *vc = mt_vcache_get();
    uint8_t digest[SHA256_DIGEST_LENGTH];
    unsigned int dlen = 0;
    tack_status_t st;
    mt_vent_t *e;

    /* Keyed by SHA-256 of the signed object's bytes: 32 bytes an entry
     * instead of 166, and a collision would need a SHA-256 collision. */
    if (!EVP_Digest(bytes, len, digest, &dlen, EVP_sha256(), NULL)) {
        ERR_clear_error();
        st = verify(obj);
        ERR_clear_error();
        return st;
    }
    e = apr_hash_get(vc->seen, digest, sizeof(digest));
    if (e != NULL) {
        e->pass = vc->pass;
        return TACK_OK;
    }
    st = verify(obj);
    ERR_clear_error();
    if (st != TACK_OK) {
        return st;
    }
    if (vc->free) {
        e = vc->free;
        vc->free = e->u.next;
    } else {
        e = apr_palloc(vc->pool, sizeof(*e));
    }
    memcpy(e->u.digest, digest, sizeof(digest));
    e->pass = vc->pass;
    apr_hash_set(vc->seen, e->u.digest, sizeof(e->u.digest), e);
    return TACK_OK;
}

static tack_status_t mt_verify_tack(const void *obj)
{
    return tack_verify(obj);
}

static tack_status_t mt_verify_breaksig(const void *obj)
{
    return tack_breaksig_verify(obj);
}

/* mt_validate_cached is tack_validate(tack, NULL, now) with the signature
 * check answered from the cache when it can be. */
static tack_status_t mt_validate_cached(server_rec *s, const tack_t *tack,
                                        time_t now)
{
    uint8_t wire[TACK_LEN];
    tack_status_t st;

    tack_encode(tack, wire);
    st = mt_vcache_verify(s, wire, sizeof(wire), mt_verify_tack, tack);
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
    return mt_vcache_verify(s, wire, sizeof(wire), mt_verify_breaksig, sig);
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
        item->tack = tacks[i];
        item->expires = tack_expiration_time(&tacks[i]);
        tack_fingerprint(tacks[i].public_key, item->fingerprint);
        tack_time_format(tacks[i].expiration, item->expiry);

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
                                item->fingerprint, item->expiry);
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

/* The load's part of the generation (mt_gen_t.sigloads), made in
 * pre_config: each break-signature file read in this pass, by path
 * (mt_sigload_t *, in pconf). */
struct mt_sigloads {
    apr_hash_t *loaded;
};

void mt_load_gen_init(mt_gen_t *gen)
{
    struct mt_sigloads *sl = apr_pcalloc(gen->pconf, sizeof(*sl));

    sl->loaded = apr_hash_make(gen->pconf);
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
    item->tack = *tack;
    item->expires = tack_expiration_time(tack);
    item->matched = 1;
    tack_fingerprint(tack->public_key, item->fingerprint);
    tack_time_format(tack->expiration, item->expiry);
    return item;
}
