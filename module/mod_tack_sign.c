/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_sign.c -- TackSigningKey: the TACK follows the certificate.
 *
 * ACME clients (mod_md, certbot) make a new TLS key at every renewal, and a
 * TACK vouches for one key.  With TackSigningKey the parent signs, at every
 * start and graceful restart, a TACK for each certificate of an SSL vhost
 * that has no TACK from TackFile or TackStore, and anew one under its key
 * that would expire within 30 days (or, in the background, when one that
 * expires before its certificate has 30 days left); it writes each into
 * the vhost's TackStore when it can, so that the next pass verifies
 * instead of signing, backups and `tack check` see the same bytes, and a
 * fleet can share one store.  What the pass does not wait for
 * (TackSigningWait) is queued for the background (mod_tack_background.c).
 * The key itself is used only through its signer process
 * (mod_tack_signer.c).  A handshake never signs: what is signed here is
 * served like any TACK, from bytes built now.
 */
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"

#include <openssl/err.h>

#include "mod_tack_sign.h"
#include "mod_tack_load.h"
#include "mod_tack_store.h"
#include "mod_tack_guard.h"
#include "mod_tack_signer.h"
#include "tack_util.h"

APLOG_USE_MODULE(tack);

/* The signing's part (mt_gen_t.sign), made in pre_config: the pass's
 * queue, the certificates it left to the background (mt_pending_t *, in
 * pconf); and what this time (a pass, or a background round) signed and
 * wrote, in a pool of its own that mt_sign_close clears with the signers'
 * end: the TACKs signed, by target hash and key, so that a certificate
 * named by several vhosts gets one TACK; the stores and store files
 * written. */
struct mt_sign_gen {
    apr_array_header_t *queue;
    apr_pool_t *pool;
    apr_hash_t *done;
    apr_hash_t *stores; /* path -> mt_store_t *, written to in this time */
    apr_hash_t *files;  /* store file written -> its TACK key */
};

/* mt_sign_tables_reset empties what |sgen| signed and wrote this time. */
static void mt_sign_tables_reset(struct mt_sign_gen *sgen)
{
    apr_pool_clear(sgen->pool);
    sgen->done = apr_hash_make(sgen->pool);
    sgen->files = apr_hash_make(sgen->pool);
    sgen->stores = apr_hash_make(sgen->pool);
}

void mt_sign_gen_init(mt_gen_t *gen)
{
    struct mt_sign_gen *sgen = apr_pcalloc(gen->pconf, sizeof(*sgen));

    sgen->queue = apr_array_make(gen->pconf, 16, sizeof(mt_pending_t *));
    apr_pool_create(&sgen->pool, gen->pconf);
    apr_pool_tag(sgen->pool, "tack_sign_tables");
    mt_sign_tables_reset(sgen);
    gen->sign = sgen;
    mt_signer_gen_init(gen);
}

static struct mt_sign_gen *mt_sign_get(void)
{
    return mt_gen()->sign;
}

apr_array_header_t *mt_sign_queued(void)
{
    return mt_sign_get()->queue;
}

/* ---- signing ---------------------------------------------------------------
 */

/* mt_sign_store_ours says why TackSigningKey must not write into the
 * store directory |path|, or NULL: it writes only into a store of root's.
 * A store owned by TackStoreOwner's user is another route's (a hook that
 * signs as that user): written into as root, it would hold files its
 * owner did not sign, under another key than its own, and the two
 * routes would take each other's files.  To let TackSigningKey fill it,
 * give it to root. */
static const char *mt_sign_store_ours(apr_pool_t *p, const char *path)
{
    struct stat sb;

    if (stat(path, &sb) != 0 || sb.st_uid == 0) {
        return NULL; /* mt_store_write says what it cannot do */
    }
    return apr_psprintf(p,
                        "owned by uid %ld, not root: another route's store "
                        "(TackStoreOwner), which TackSigningKey does not "
                        "write into (chown root %s to let it)",
                        (long)sb.st_uid, path);
}

mt_item_t *mt_sign_one(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                       mt_signer_t *sg, const mt_certsel_t *cert,
                       uint32_t expires, int write, const tack_t *prev)
{
    struct mt_sign_gen *tb = mt_sign_get();
    uint8_t id[TACK_HASH_LEN + TACK_KEY_LEN];
    const char *path = sg->key, *err = NULL;
    const mt_store_t *written = NULL;
    char vname[TACK_NAME_SIZE];
    mt_item_t *item;
    tack_t tack;
    int floor;

    memcpy(id, cert->hash, TACK_HASH_LEN);
    memcpy(id + TACK_HASH_LEN, sg->pub, TACK_KEY_LEN);
    if ((item = apr_hash_get(tb->done, id, sizeof(id)))) {
        return item;
    }
    if (sg->fd < 0) {
        return NULL; /* the signer is gone: said once (sg->error) */
    }
    memset(&tack, 0, sizeof(tack));
    tack.min_generation = (uint8_t)mt_conf_sign_gen(conf, 1);
    tack.generation = (uint8_t)mt_conf_sign_gen(conf, 0);
    /* Never below what clients of the name saw under this key: they
     * would refuse it (certificate_revoked). */
    floor = mt_guard_floor(s, cert->key_type, sg->pub);
    if (prev && prev->min_generation > floor) {
        /* the TACK it replaces is served now: its clients hold its
         * min_generation even where TackStateFile has no memory of it
         * yet (a first start, the background forked before the memory is
         * written) */
        floor = prev->min_generation;
    }
    if (floor > tack.min_generation) {
        tack.min_generation = (uint8_t)floor;
    }
    if (floor > tack.generation) {
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                     "TACK00145: vhost %s: TackSigningKey %s signs for %s at "
                     "generation %d, not %u: a TACK under that key served "
                     "here raised min_generation to %d",
                     mt_vhost_name_buf(s, vname), sg->key, cert->label, floor,
                     tack.generation, floor);
        tack.generation = (uint8_t)floor;
    }
    tack.expiration = expires;
    memcpy(tack.target_hash, cert->hash, TACK_HASH_LEN);
    if (mt_signer_sign(sg, &tack) != TACK_OK) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00038: vhost %s: signing a TACK for %s with "
                     "TackSigningKey %s failed%s%s; %s",
                     mt_vhost_name_buf(s, vname), cert->label, sg->key,
                     sg->fd < 0 && sg->error ? ": " : "",
                     sg->fd < 0 && sg->error ? sg->error : "",
                     sg->fd < 0 ? "it waits, with every certificate after "
                                  "it, for the background"
                                : "it is served without one");
        ERR_clear_error();
        if (sg->fd >= 0) {
            sg->nskipped++;
        }
        return NULL;
    }
    if (write && conf->store && conf->store->loaded && !conf->store->error &&
        cert->x509) {
        const char *file = NULL;
        const uint8_t *other;

        err = mt_sign_store_ours(p, conf->store->path);
        if (!err) {
            err = mt_store_write(p, conf->store, cert->x509, &tack, &file);
        }
        other = err ? NULL : apr_hash_get(tb->files, file, APR_HASH_KEY_STRING);
        if (other && !mt_key_equal(other, sg->pub)) {
            /* The file is the certificate's: two TackSigningKeys signing
             * for one certificate would take it from each other at every
             * pass.  The first keeps it. */
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00073: vhost %s: %s has TACKs from two "
                         "TackSigningKeys in this configuration; its "
                         "TackStore file %s keeps the first one's, the TACK "
                         "of %s is served from memory and signed again at "
                         "the next start: sign each certificate with one "
                         "key",
                         mt_vhost_name_buf(s, vname), cert->label, file,
                         sg->key);
            sg->nkept++;
        } else if (!err) {
            path = file;
            written = conf->store;
            apr_hash_set(tb->files, file, APR_HASH_KEY_STRING,
                         apr_pmemdup(tb->pool, sg->pub, TACK_KEY_LEN));
            mt_store_replace_older(s, conf->store, &tack, file);
            sg->nwritten++;
            apr_hash_set(tb->stores, conf->store->path, APR_HASH_KEY_STRING,
                         conf->store);
        } else {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00035: vhost %s: TackStore %s: %s; the TACK "
                         "signed for %s is served from memory and signed "
                         "again at the next start",
                         mt_vhost_name_buf(s, vname), conf->store->path, err,
                         cert->label);
            sg->nkept++;
        }
    } else {
        sg->nkept++;
    }
    item = mt_load_item(p, s, "TackSigningKey", path,
                        mt_conf_sign(conf)->key_where, written, &tack);
    apr_hash_set(tb->done, apr_pmemdup(tb->pool, id, sizeof(id)), sizeof(id),
                 item);
    sg->nsigned++;
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                 "TACK00031: vhost %s: signed a TACK for %s with "
                 "TackSigningKey %s (key %s, generation %u, expires %s, "
                 "with the certificate)%s%s",
                 mt_vhost_name_buf(s, vname), cert->label, sg->key,
                 item->fingerprint, tack.generation, MT_ITEM_EXPIRY(item),
                 written ? "; written to " : "", written ? path : "");
    return item;
}

void mt_sign_replaced(server_rec *s, const mt_item_t *old)
{
    char vname[TACK_NAME_SIZE];

    ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                 "TACK00037: vhost %s: the TACK of %s %s expires at %s; "
                 "serving the one just signed instead",
                 mt_vhost_name_buf(s, vname), old->file->kind, old->file->path,
                 MT_ITEM_EXPIRY(old));
}

/* mt_sign_queue leaves |cert| to the background: its TACK is signed after
 * the start (mt_agent_main), not before |due| (0: at once), and served
 * from then on: the handshake's table keeps |cert|'s mt_pending_t and
 * asks mt_background_answer. */
static void mt_sign_queue(server_rec *s, const mt_conf_t *conf,
                          const mt_sel_t *sel, mt_certsel_t *cert,
                          mt_signer_t *sg, uint32_t expires, int write,
                          long pinned, mt_item_t *replaces, time_t due)
{
    apr_pool_t *pconf = s->process->pconf;
    uint8_t buf[TACK_ANSWER_MAX];
    unsigned char inactive = 0;
    mt_pending_t *pd;
    tack_t blank;
    const tack_t *t = &blank;
    struct mt_sign_gen *sgen = mt_sign_get();

    pd = apr_pcalloc(pconf, sizeof(*pd));
    pd->s = s;
    pd->conf = conf;
    pd->cert.x509 = cert->x509;
    memcpy(pd->cert.hash, cert->hash, TACK_HASH_LEN);
    pd->cert.label = apr_pstrdup(pconf, cert->label);
    pd->cert.key_type =
        cert->key_type ? apr_pstrdup(pconf, cert->key_type) : NULL;
    pd->expires = expires;
    pd->write = write;
    pd->pinned = pinned;
    pd->replaces = replaces;
    pd->due = due;
    if (replaces) {
        /* its successor is on its way: no expiry warning */
        replaces->resigning = 1;
    }
    pd->format = sel->format;
    pd->pin_activation = sel->pin_activation;
    pd->nsigs = sel->nsigs;
    pd->sigs = sel->nsigs ? apr_pmemdup(pconf, sel->sigs,
                                        sel->nsigs * sizeof(sel->sigs[0]))
                          : NULL;
    /* the answer's size does not depend on the TACK's contents */
    memset(&blank, 0, sizeof(blank));
    if (tack_answer_encode(pd->format, pd->pin_activation, &t, &inactive, 1,
                           pd->sigs, pd->nsigs, buf, &pd->len) != TACK_OK) {
        return; /* cannot happen: TACK00051 says so for its other bodies */
    }
    cert->pending = pd;
    APR_ARRAY_PUSH(sgen->queue, mt_pending_t *) = pd;
    if (sg && due) {
        sg->nlater++;
        sg->later = sg->later && sg->later < due ? sg->later : due;
    } else if (sg) {
        sg->nqueued++;
    }
    if (pinned && sg) {
        char vname[TACK_NAME_SIZE], when[TACK_TIME_SIZE];

        tack_time_format((uint32_t)(pinned / 60), when);
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00080: vhost %s: %s waits for its TACK from the "
                     "background (%s); clients that pinned key %s here "
                     "(until %s) refuse this name until it is signed",
                     mt_vhost_name_buf(s, vname), cert->label,
                     sg->error ? sg->error
                               : "the time a restart waits for signing, "
                                 "TackSigningWait, is spent",
                     sg->fingerprint, when);
    }
}

/* mt_sign_cert decides for one certificate: sign when it has no TACK,
 * sign anew when its TACK under the signing key expires within 30 days
 * and the certificate lives longer, and leave to the background, due 30
 * days before it expires, one that expires later but before the
 * certificate; leave alone a certificate that has a TACK under another
 * key.  What is signed waits for the signer only where clients may have
 * pinned the signing key for this name (a renewed certificate of a name
 * that served it) and while the pass has time (TackSigningWait); the rest
 * is left to the background. */
static void mt_sign_cert(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                         mt_signer_t *sg, const mt_sel_t *sel,
                         mt_certsel_t *cert, time_t now)
{
    char vname[TACK_NAME_SIZE], when[TACK_TIME_SIZE];
    time_t end, due = 0;
    mt_item_t *item;
    long pinned = 0, waited = 0;
    int k, mine = -1;

    for (k = 0; k < cert->ntacks; k++) {
        if (mt_key_equal(mt_item_key(cert->tacks[k]), sg->pub)) {
            mine = k;
        }
    }
    if (cert->ntacks && mine < 0) {
        /* A TACK under another key is the vhost's own choice, unless
         * clients hold pins on this key here: then a TACK under another
         * key (a file dropped into the store) must not displace it without
         * a break signature or TackLetPinsLapse (the guard's memory). */
        pinned = mt_guard_pinned(s, conf, cert->key_type, sg->pub);
        if (!pinned) {
            return;
        }
    } else if (cert->ntacks &&
               cert->tacks[mine]->expires - now >= TACK_EXPIRY_WARN_SECS) {
        /* a TACK of its own under this key, good for 30 days or more: the
         * background signs its successor when 30 are left, if the
         * certificate outlives it (issue 43: nothing else re-signs it
         * before the next restart, which may come after it expired) */
        due = cert->tacks[mine]->expires - TACK_EXPIRY_WARN_SECS;
    }
    if (tack_cert_end_time(cert->x509, &end) != TACK_OK) {
        end = 0; /* told as expired: nothing is signed for it */
    }
    if (end / 60 <= now / 60) {
        tack_time_format((uint32_t)(end / 60), when);
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00034: vhost %s: %s expired at %s; TackSigningKey "
                     "signs no TACK for it",
                     mt_vhost_name_buf(s, vname), cert->label, when);
        sg->nskipped++;
        return;
    }
    if (mine >= 0 &&
        (uint32_t)(end / 60) <= mt_item_expiration(cert->tacks[mine])) {
        return; /* the certificate ends first: a new TACK would gain nothing */
    }
    if (due) {
        /* one TACK in the background's answer: a second would be dropped */
        if (cert->ntacks == 1) {
            mt_sign_queue(s, conf, sel, cert, sg, (uint32_t)(end / 60), 1, 0,
                          cert->tacks[mine], due);
        }
        return;
    }
    if (!pinned) {
        /* A TACK of its own that expires soon is still served meanwhile; a
         * certificate without one is worth the wait only where clients
         * may hold a pin on the signing key for the name. */
        waited =
            mine < 0 ? mt_guard_pinned(s, conf, cert->key_type, sg->pub) : 0;
        if ((!waited || sg->fd < 0 || !mt_signer_ms_left()) &&
            cert->ntacks <= 1) {
            mt_sign_queue(s, conf, sel, cert, sg, (uint32_t)(end / 60), 1,
                          waited, mine >= 0 ? cert->tacks[mine] : NULL, 0);
            return;
        }
    }
    item = mt_sign_one(p, s, conf, sg, cert, (uint32_t)(end / 60), !pinned,
                       mine >= 0 ? MT_ITEM_TACK(cert->tacks[mine]) : NULL);
    if (!item) {
        if (!pinned && sg->fd < 0 && cert->ntacks <= 1) {
            mt_sign_queue(s, conf, sel, cert, sg, (uint32_t)(end / 60), 1,
                          waited, mine >= 0 ? cert->tacks[mine] : NULL, 0);
        }
        return;
    }
    if (pinned) {
        char fpr[TACK_FINGERPRINT_SIZE];

        tack_time_format((uint32_t)(pinned / 60), when);
        tack_fingerprint(mt_item_key(cert->tacks[0]), fpr);
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00067: vhost %s: %s %s holds a TACK for %s under "
                     "key %s, but clients pinned TackSigningKey's key %s "
                     "here (until %s): serving a TACK under %s, signed now "
                     "and kept in memory, instead; to change the TACK key, "
                     "serve a break signature for %s or record "
                     "\"TackLetPinsLapse %s\", and remove the file if it "
                     "is not yours",
                     mt_vhost_name_buf(s, vname), cert->tacks[0]->file->kind,
                     cert->tacks[0]->file->path, cert->label, fpr,
                     sg->fingerprint, when, sg->fingerprint, sg->fingerprint,
                     sg->fingerprint);
        cert->tacks[0] = item;
        cert->ntacks = 1;
        return;
    }
    if (mine >= 0) {
        mt_sign_replaced(s, cert->tacks[mine]);
        cert->tacks[mine] = item;
    } else {
        cert->tacks[cert->ntacks++] = item;
    }
}

/* mt_sign_unknown queues, when the signing key could not be loaded in the
 * pass, each certificate of |sel| that has no TACK at all (whether a TACK
 * is the key's own cannot be told without its public key): the background
 * signs them once the key can be used. */
static void mt_sign_unknown(server_rec *s, const mt_conf_t *conf,
                            mt_signer_t *sg, mt_sel_t *sel, time_t now)
{
    time_t end;
    int c;

    for (c = 0; c < sel->ncerts; c++) {
        mt_certsel_t *cert = &sel->certs[c];

        if (cert->x509 && !cert->ntacks && !cert->md_fallback &&
            tack_cert_end_time(cert->x509, &end) == TACK_OK &&
            end / 60 > now / 60) {
            mt_sign_queue(s, conf, sel, cert, sg, (uint32_t)(end / 60), 1, 0,
                          NULL, 0);
        }
    }
}

void mt_sign_vhost(apr_pool_t *p, server_rec *s, const mt_conf_t *conf,
                   mt_sel_t *sel)
{
    char vname[TACK_NAME_SIZE];
    mt_signer_t *sg;
    time_t now = time(NULL);
    size_t j;
    int c;

    if (!mt_conf_signs(conf) || mt_strict() || mt_quiet() || !sel->ncerts) {
        return;
    }
    sg = mt_signer_get(s, conf);
    if (!sg->pub_known && !sg->pub_recalled) {
        mt_sign_unknown(s, conf, sg, sel, now);
        return;
    }
    for (j = 0; j < sel->nsigs; j++) {
        if (mt_key_equal(sel->sigs[j].public_key, sg->pub)) {
            /* the site has broken this key: it must not vouch with it */
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         "TACK00032: vhost %s: TackSigningKey %s (key %s) is "
                         "broken by a break signature in TackBreakSigsFile "
                         "%s; nothing is signed with it here",
                         mt_vhost_name_buf(s, vname), sg->key, sg->fingerprint,
                         sel->sigfiles[j]->path);
            return;
        }
    }
    for (c = 0; c < sel->ncerts; c++) {
        if (sel->certs[c].x509 && !sel->certs[c].md_fallback) {
            mt_sign_cert(p, s, conf, sg, sel, &sel->certs[c], now);
        }
    }
}

const uint8_t *mt_sign_public(server_rec *s, const mt_conf_t *conf)
{
    mt_signer_t *sg;

    if (!mt_conf_signs(conf) || mt_quiet()) {
        return NULL; /* nothing is signed in the discarded first pass */
    }
    sg = mt_signer_get(s, conf);
    return sg->pub_known || sg->pub_recalled ? sg->pub : NULL;
}

int mt_sign_check(apr_pool_t *ptemp, server_rec *s_main)
{
    server_rec *s;
    int problems = 0;

    for (s = s_main; s; s = s->next) {
        mt_conf_t *conf = mt_conf_get(s);
        mt_signer_t *sg;

        if (!mt_conf_signs(conf)) {
            continue;
        }
        sg = mt_signer_get(s, conf);
        if (sg->error && !sg->reported && sg->transient) {
            /* the signing host's condition, not a mistake in the
             * configuration: said, never refused, and nothing promised */
            sg->reported = 1;
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00083: %s (" TACK_WHERE_FMT "): the key cannot "
                         "be used now; the configuration is accepted, and a "
                         "start waits for it at most %d seconds "
                         "(TackSigningWait): certificates without a TACK are "
                         "then served without one until the background signs "
                         "them",
                         sg->error, TACK_WHERE(sg->where),
                         mt_signer_wait_secs());
        } else if (sg->error && !sg->reported) {
            sg->reported = 1;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         "TACK00033: %s (" TACK_WHERE_FMT ")", sg->error,
                         TACK_WHERE(sg->where));
            problems++;
        }
    }
    return problems;
}

void mt_sign_end(server_rec *s_main)
{
    apr_hash_t *all = mt_signer_all();
    apr_hash_index_t *hi;

    if (!all) {
        return;
    }
    for (hi = apr_hash_first(NULL, all); hi; hi = apr_hash_next(hi)) {
        const mt_signer_t *sg = apr_hash_this_val(hi);

        if (!mt_strict() && (sg->pub_known || sg->nqueued)) {
            int known = sg->pub_known || sg->pub_recalled;
            char when[TACK_TIME_SIZE];
            const char *later = "";

            if (sg->nlater) {
                tack_time_format((uint32_t)(sg->later / 60), when);
                later = apr_psprintf(
                    s_main->process->pconf,
                    ", %d TACK%s ending before %s certificate%s, re-signed "
                    "there when 30 days are left (the first at %s)",
                    sg->nlater, sg->nlater == 1 ? "" : "s",
                    sg->nlater == 1 ? "its" : "their",
                    sg->nlater == 1 ? "" : "s", when);
            }
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s_main,
                         "TACK00036: TackSigningKey %s (key %s): %d TACK%s "
                         "signed, %d written to a TackStore, %d kept in "
                         "memory only, %d certificate%s left without one, "
                         "%d left to the background%s",
                         sg->key, known ? sg->fingerprint : "unknown",
                         sg->nsigned, sg->nsigned == 1 ? "" : "s", sg->nwritten,
                         sg->nkept, sg->nskipped, sg->nskipped == 1 ? "" : "s",
                         sg->nqueued, later);
        }
    }
    mt_sign_sync(); /* what was written reaches the disk first */
}

void mt_sign_sync(void)
{
    const struct mt_sign_gen *tb = mt_sign_get();
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, tb->stores); hi; hi = apr_hash_next(hi)) {
        mt_store_sync(apr_hash_this_val(hi));
    }
}

void mt_sign_close(void)
{
    mt_signer_close_all();
    mt_sign_tables_reset(mt_sign_get());
}
