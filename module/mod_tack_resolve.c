/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_resolve.c -- what a vhost serves: the TACKs chosen for each of
 * its certificates (its own TackFiles, then the main server's, then the
 * TackStore), its break signatures, format and activation flag, with every
 * rule of the directive reference applied (mt_resolve); and the
 * start-up report of what is not served: files that did not load,
 * server-level TACKs that matched no certificate, TACKs about to expire.
 */
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"

#include "mod_tack_resolve.h"
#include "mod_tack_load.h"
#include "mod_tack_store.h"
#include "tack_util.h"

APLOG_USE_MODULE(tack);

/* ---- matching TACKs to certificates -------------------------------------- */

/* mt_problem logs one problem found while resolving |s|'s configuration:
 * at error level, with the vhost's name.  Returns 1 (one problem). */
static int mt_problem(server_rec *s, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int mt_problem(server_rec *s, const char *tag, const char *fmt, ...)
{
    va_list ap;
    char msg[2048];

    if (mt_quiet()) {
        return 1;
    }
    va_start(ap, fmt);
    apr_vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* |tag| is the caller's own literal "TACKnnnnn", one per call site. */
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, "%s: vhost %s: %s%s", tag,
                 mt_vhost_name(s), msg, mt_strict() ? "" : "; left out");
    return 1;
}

/* mt_cert_list names the certificates with their public-key hashes
 * (what a TACK's target_hash must be; tack view shows it as key_sha256). */
static const char *mt_cert_list(apr_pool_t *p, mt_certsel_t *certs, int ncerts)
{
    const char *list = "";
    int i;

    for (i = 0; i < ncerts; i++) {
        list =
            apr_pstrcat(p, list, i ? ", " : "", certs[i].label, " (key_sha256 ",
                        mt_hex(p, certs[i].hash, TACK_HASH_LEN), ")", NULL);
    }
    return list;
}

/* mt_select tries |item| for |cert|; returns the number of problems. */
static int mt_select(apr_pool_t *p, server_rec *s, int format,
                     mt_certsel_t *cert, mt_item_t *item)
{
    int j;

    if (format == TACK_FORMAT_00 && cert->ntacks == 1) {
        return mt_problem(
            s, "TACK00001",
            "%s %s (" TACK_WHERE_FMT "): a second TACK for %s, already "
            "served by %s %s; draft-00 serves one TACK "
            "per certificate",
            item->file->kind, item->file->path, TACK_WHERE(item->file->where),
            cert->label, cert->tacks[0]->file->kind,
            cert->tacks[0]->file->path);
    }
    if (cert->ntacks == TACK_EXT02_MAX_TACKS) {
        return mt_problem(s, "TACK00002",
                          "%s %s (" TACK_WHERE_FMT
                          "): a third TACK for %s; draft-02 "
                          "serves at most two per certificate",
                          item->file->kind, item->file->path,
                          TACK_WHERE(item->file->where), cert->label);
    }
    for (j = 0; j < cert->ntacks; j++) {
        if (mt_key_equal(mt_item_key(cert->tacks[j]), mt_item_key(item))) {
            return mt_problem(
                s, "TACK00003",
                "%s %s (" TACK_WHERE_FMT "): %s has the key %s of "
                "%s %s, also for %s; two TACKs for one "
                "certificate need two keys",
                item->file->kind, item->file->path,
                TACK_WHERE(item->file->where), mt_item_name(p, item),
                item->fingerprint, cert->tacks[j]->file->kind,
                cert->tacks[j]->file->path, cert->label);
        }
    }
    cert->tacks[cert->ntacks++] = item;
    return 0;
}

/* mt_file_usable returns 1 when |f| is served at all under |format|. */
static int mt_file_usable(server_rec *s, mt_file_t *f, int format,
                          int *problems)
{
    if (f->error || f->nitems == 0) {
        return 0;
    }
    if (format == TACK_FORMAT_00 && f->nitems > 1) {
        *problems +=
            mt_problem(s, "TACK00004",
                       "%s %s (" TACK_WHERE_FMT "): holds %d TACKs; in "
                       "TackFormat draft-00 a TACK file holds one "
                       "(pair files need TackFormat draft-02)",
                       f->kind, f->path, TACK_WHERE(f->where), f->nitems);
        return 0;
    }
    return 1;
}

/* mt_resolve_start fills in |out| the vhost's settings, with the defaults
 * of the directive reference for what it leaves unset (TackFormat
 * draft-00, TackPinActivation off, TackTLS13 off), and its certificates,
 * none of them with a TACK yet. */
static void mt_resolve_start(mt_sel_t *out, const mt_conf_t *conf,
                             mt_certsel_t *certs, int ncerts)
{
    int c;

    memset(out, 0, sizeof(*out));
    /* The one place the defaults of TackFormat, TackPinActivation and
     * TackTLS13 apply: what comes after reads the selection, or the table
     * built from it, never the directives. */
    out->format = conf->format == TACK_UNSET ? TACK_FORMAT_00 : conf->format;
    out->pin_activation = conf->pin_activation == 1;
    out->tls13 = conf->tls13 == 1;
    out->store = conf->store;
    out->certs = certs;
    out->ncerts = ncerts;
    for (c = 0; c < ncerts; c++) {
        certs[c].ntacks = 0;
    }
}

/* mt_cert_has_own returns 1 when |cert| already has a TACK from a
 * TackFile written in the vhost itself. */
static int mt_cert_has_own(const mt_certsel_t *cert)
{
    int own = 0, j;

    for (j = 0; j < cert->ntacks; j++) {
        own |= !cert->tacks[j]->file->server_level;
    }
    return own;
}

/* mt_resolve_item offers |item| (a TACK of TackFile |f|) to each
 * certificate of |out| its target_hash names.  |inherited|: |f| is the main
 * server's, seen from a vhost, and fills in only certificates the vhost has
 * no TACK of its own for.  |must_match|: a TACK that names none of the
 * certificates is a problem (the vhost's own, when its certificates are
 * known).  Returns the number of problems. */
static int mt_resolve_item(apr_pool_t *p, server_rec *s, mt_sel_t *out,
                           const mt_file_t *f, mt_item_t *item, int inherited,
                           int must_match)
{
    int problems = 0, hit = 0, c;

    for (c = 0; c < out->ncerts; c++) {
        mt_certsel_t *cert = &out->certs[c];

        if (!mt_item_targets(item, cert->hash)) {
            continue;
        }
        hit = 1;
        item->matched = 1;
        /* Server-level TACKs only where the vhost has none. */
        if (inherited && mt_cert_has_own(cert)) {
            continue;
        }
        problems += mt_select(p, s, out->format, cert, item);
    }
    if (!hit && must_match) {
        problems += mt_problem(
            s, "TACK00005",
            "TackFile %s (" TACK_WHERE_FMT "): target_hash %s of %s (key %s) "
            "matches none of the vhost's certificates (%s); sign one for the "
            "certificate in use: " TACK_PROG " sign -k KEY -c CERT -o %s",
            f->path, TACK_WHERE(f->where),
            mt_hex(p, mt_item_target(item), TACK_HASH_LEN),
            mt_item_name(p, item), item->fingerprint,
            out->ncerts ? mt_cert_list(p, out->certs, out->ncerts) : "none",
            f->path);
    }
    return problems;
}

/* mt_resolve_files offers every TACK of the usable files of the list
 * |files| (TackFile lines, in order) to the certificates of |out|;
 * |inherited| and |must_match| as for mt_resolve_item.  Returns the number
 * of problems. */
static int mt_resolve_files(apr_pool_t *p, server_rec *s, mt_sel_t *out,
                            mt_file_t *files, int inherited, int must_match)
{
    mt_file_t *f;
    int problems = 0, k;

    for (f = files; f; f = f->next) {
        if (!mt_file_usable(s, f, out->format, &problems)) {
            continue;
        }
        for (k = 0; k < f->nitems; k++) {
            problems += mt_resolve_item(p, s, out, f, &f->items[k], inherited,
                                        must_match);
        }
    }
    return problems;
}

/* mt_resolve_store gives the store's TACKs only to certificates no
 * TackFile line gave a TACK to (explicit lines win), one hash lookup per
 * certificate.  Returns the number of problems. */
static int mt_resolve_store(apr_pool_t *p, server_rec *s, mt_store_t *store,
                            mt_sel_t *out)
{
    int problems = 0, c;

    if (!store || !store->loaded) {
        return 0;
    }
    mt_store_ready(store);
    for (c = 0; c < out->ncerts; c++) {
        mt_certsel_t *cert = &out->certs[c];
        mt_item_t *item;
        const mt_file_t *unusable = NULL;

        if (cert->ntacks) {
            continue;
        }
        item = apr_hash_get(store->by_hash, cert->hash, TACK_HASH_LEN);
        for (; item; item = item->next_same) {
            item->matched = 1;
            if (item->file == unusable) {
                continue; /* the second TACK of a pair already refused */
            }
            if (!mt_file_usable(s, item->file, out->format, &problems)) {
                unusable = item->file;
                continue;
            }
            problems += mt_select(p, s, out->format, cert, item);
        }
    }
    return problems;
}

/* mt_resolve_breaksigs collects the break signatures of |sigfiles| (the
 * vhost's own or inherited) into |out|: draft-00 only (draft-02 dropped
 * them).  Returns the number of problems. */
static int mt_resolve_breaksigs(server_rec *s,
                                const apr_array_header_t *sigfiles,
                                mt_sel_t *out)
{
    mt_sigfile_t **sf = mt_elts(sigfiles);
    int problems = 0, i;

    for (i = 0; i < mt_nelts(sigfiles); i++) {
        size_t j;

        if (sf[i]->error || sf[i]->num == 0) {
            continue;
        }
        if (out->format == TACK_FORMAT_02 && sf[i]->s != s) {
            /* Inherited from the server config, meant "for all": a
             * draft-02 vhost cannot carry them, and that is no error. */
            if (!mt_quiet()) {
                ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                             "TACK00023: vhost %s: TackFormat draft-02 "
                             "has no break signatures: the %" APR_SIZE_T_FMT
                             " inherited from %s (" TACK_WHERE_FMT
                             ") are not served here",
                             mt_vhost_name(s), sf[i]->num, sf[i]->path,
                             TACK_WHERE(sf[i]->where));
            }
            continue;
        }
        if (out->format == TACK_FORMAT_02) {
            problems +=
                mt_problem(s, "TACK00006",
                           "TackBreakSigsFile %s (" TACK_WHERE_FMT "): break "
                           "signatures do not exist in "
                           "TackFormat draft-02",
                           sf[i]->path, TACK_WHERE(sf[i]->where));
            continue;
        }
        for (j = 0; j < sf[i]->num && out->nsigs < TACK_MAX_BREAKSIGS; j++) {
            out->sigfiles[out->nsigs] = sf[i];
            out->sigidx[out->nsigs] = (unsigned char)j;
            out->sigs[out->nsigs++] = sf[i]->sigs[j];
        }
    }
    return problems;
}

/* mt_breaksig_find returns the index in |sel| of the break signature for
 * |key|, or sel->nsigs when there is none. */
static size_t mt_breaksig_find(const mt_sel_t *sel, const uint8_t *key)
{
    size_t j;

    for (j = 0; j < sel->nsigs; j++) {
        if (mt_key_equal(sel->sigs[j].public_key, key)) {
            break;
        }
    }
    return j;
}

/* mt_resolve_broken_keys leaves out a TACK whose key a break signature
 * of this vhost breaks: the site says the key is compromised and vouches
 * with it at once.  The break signature is the later, safer statement.
 * Returns the number of problems. */
static int mt_resolve_broken_keys(server_rec *s, mt_sel_t *out)
{
    int problems = 0, c, k;

    for (c = 0; c < out->ncerts; c++) {
        mt_certsel_t *cert = &out->certs[c];

        for (k = 0; k < cert->ntacks; k++) {
            mt_item_t *item = cert->tacks[k];
            size_t j = mt_breaksig_find(out, mt_item_key(item));

            if (j == out->nsigs) {
                continue;
            }
            problems += mt_problem(
                s, "TACK00007",
                "%s %s (" TACK_WHERE_FMT "): its key %s is broken "
                "by a break signature in "
                "TackBreakSigsFile %s (" TACK_WHERE_FMT "); a TACK and "
                "the break signature of its key cannot "
                "be served together: sign the certificate with a new TACK "
                "key (" TACK_PROG " genkey, then " TACK_PROG " sign) and "
                "serve that TACK beside the break signature, or remove "
                "this TACK",
                item->file->kind, item->file->path,
                TACK_WHERE(item->file->where), item->fingerprint,
                out->sigfiles[j]->path, TACK_WHERE(out->sigfiles[j]->where));
            memmove(&cert->tacks[k], &cert->tacks[k + 1],
                    (size_t)(cert->ntacks - k - 1) * sizeof(item));
            cert->ntacks--;
            k--;
        }
    }
    return problems;
}

/* mt_lapsed_in returns an expired TACK of the list |files| for |cert|, or
 * NULL. */
static const mt_item_t *mt_lapsed_in(const mt_file_t *files,
                                     const mt_certsel_t *cert)
{
    const mt_file_t *f;
    int k;

    for (f = files; f; f = f->next) {
        for (k = 0; f->error && k < f->expired; k++) {
            if (mt_item_targets(&f->items[k], cert->hash)) {
                return &f->items[k];
            }
        }
    }
    return NULL;
}

/* mt_resolve_lapsed notes, for each certificate left without a TACK,
 * an expired TACK for it from the vhost's files or store. */
static void mt_resolve_lapsed(const mt_conf_t *conf, mt_sel_t *out)
{
    int c;

    for (c = 0; c < out->ncerts; c++) {
        mt_certsel_t *cert = &out->certs[c];

        cert->lapsed = NULL;
        if (cert->ntacks) {
            continue;
        }
        cert->lapsed = mt_lapsed_in(conf->files, cert);
        if (!cert->lapsed) {
            cert->lapsed = mt_lapsed_in(conf->server_files, cert);
        }
        if (!cert->lapsed && conf->store && conf->store->expired_by_hash) {
            mt_item_t *gone = apr_hash_get(conf->store->expired_by_hash,
                                           cert->hash, TACK_HASH_LEN);

            if (gone) {
                gone->matched = 1; /* an expired file that matters */
                cert->lapsed = gone;
            }
        }
    }
}

/* mt_resolve_required says whether a certificate of the vhost serving no
 * TACK is a problem: TackRequired when given (here or inherited), else
 * when the vhost is evidently meant to serve TACKs -- a TackStore, break
 * signatures, a TackSigningKey, or a TACK chosen for one of its
 * certificates.  A vhost never meant to serve one is "not configured",
 * not a problem (a provider rolls out customer by customer). */
static int mt_resolve_required(const mt_conf_t *conf, const mt_sel_t *sel)
{
    int c;

    if (conf->required != TACK_UNSET) {
        return conf->required;
    }
    if (sel->store || sel->nsigs || mt_conf_signs(conf)) {
        return 1;
    }
    for (c = 0; c < sel->ncerts; c++) {
        if (sel->certs[c].ntacks) {
            return 1;
        }
    }
    return 0;
}

int mt_resolve(apr_pool_t *p, server_rec *s, mt_conf_t *conf,
               mt_certsel_t *certs, int ncerts, int certs_known, mt_sel_t *out)
{
    int problems = 0;

    mt_resolve_start(out, conf, certs, ncerts);
    /* The vhost's own TACKs first; the main server's fill in certificates
     * the vhost has no TACK for.  For the main server itself its TackFiles
     * are the candidates (its own and every vhost's). */
    if (s->is_virtual) {
        problems += mt_resolve_files(p, s, out, conf->files, 0, certs_known);
        problems += mt_resolve_files(p, s, out, conf->server_files, 1, 0);
    } else {
        problems += mt_resolve_files(p, s, out, conf->files, 0, 0);
    }
    problems += mt_resolve_store(p, s, conf->store, out);
    problems += mt_resolve_breaksigs(s, conf->sigfiles, out);
    problems += mt_resolve_broken_keys(s, out);
    mt_resolve_lapsed(conf, out);
    out->required = mt_resolve_required(conf, out);
    return problems;
}

int mt_resolve_own_directives(server_rec *s, const mt_conf_t *conf)
{
    mt_sigfile_t **sf = mt_elts(conf->sigfiles);
    int i;

    for (i = 0; i < mt_nelts(conf->sigfiles); i++) {
        if (sf[i]->s == s) {
            return 1;
        }
    }
    return conf->files != NULL;
}

/* Most clients negotiate ECDSA: a TACK for the RSA certificate alone
 * leaves them without one. */
void mt_resolve_warn_partial(server_rec *s, const mt_conf_t *conf,
                             const mt_sel_t *sel)
{
    const char *without = NULL;
    int c, with = 0;

    if (mt_quiet() || sel->ncerts < 2 || mt_conf_signs(conf)) {
        return; /* TackSigningKey signs for the others at the start */
    }
    for (c = 0; c < sel->ncerts; c++) {
        if (sel->certs[c].ntacks) {
            with++;
        } else {
            without = without ? apr_pstrcat(s->process->pconf, without, ", ",
                                            sel->certs[c].label, NULL)
                              : sel->certs[c].label;
        }
    }
    if (with && without) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "TACK00027: vhost %s: a TACK for %d of its %d "
                     "certificates; clients that negotiate the other%s get "
                     "none: %s (sign one for each: " TACK_PROG " sign -c CERT)",
                     mt_vhost_name(s), with, sel->ncerts,
                     sel->ncerts - with == 1 ? "" : "s", without);
    }
}

void mt_resolve_mark_cert_bound(const mt_sel_t *sel)
{
    int c, k;

    for (c = 0; c < sel->ncerts; c++) {
        time_t end = 0;

        if (sel->certs[c].x509 &&
            tack_cert_end_time(sel->certs[c].x509, &end) != TACK_OK) {
            end = 0;
        }

        for (k = 0; end && k < sel->certs[c].ntacks; k++) {
            mt_item_t *item = sel->certs[c].tacks[k];

            if ((uint32_t)(end / 60) <= mt_item_expiration(item)) {
                /* the certificate's expiry comes first, and a renewed
                 * certificate needs a new TACK anyway: no warning */
                item->ends_with_cert = 1;
            }
        }
    }
}

void mt_resolve_warn_expiry(server_rec *s, const mt_sel_t *sel)
{
    time_t now = time(NULL);
    int c, k;

    if (mt_quiet()) {
        return;
    }
    for (c = 0; c < sel->ncerts; c++) {
        for (k = 0; k < sel->certs[c].ntacks; k++) {
            const mt_item_t *item = sel->certs[c].tacks[k];

            /* A store's TACKs are reported once per store, not per vhost
             * (mt_store_log): at 10,000 vhosts signed the same
             * day, one line per TACK would bury everything else. */
            if (item->file->store || item->ends_with_cert || item->resigning) {
                continue;
            }
            if (item->expires - now < TACK_EXPIRY_WARN_SECS) {
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                             "TACK00010: vhost %s: %s %s: TACK (key "
                             "%s) expires at %s, in %s; sign a new one",
                             mt_vhost_name(s), item->file->kind,
                             item->file->path, item->fingerprint,
                             MT_ITEM_EXPIRY(item),
                             mt_duration(s->process->pconf,
                                         (long)(item->expires - now)));
            }
        }
    }
}

int mt_resolve_log_load_errors(server_rec *s_main)
{
    server_rec *s;
    int problems = 0, i;

    if (mt_quiet()) {
        return 0;
    }
    for (s = s_main; s; s = s->next) {
        mt_conf_t *conf = mt_conf_get(s);
        const mt_file_t *tf;
        mt_sigfile_t **sf = mt_elts(conf->sigfiles);

        /* A vhost may share the main server's break-signature list: each
         * file is logged with the server it was written in only. */
        for (tf = conf->files; tf; tf = tf->next) {
            if (!tf->error || tf->s != s) {
                continue;
            }
            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         "TACK00011: vhost %s: %s (" TACK_WHERE_FMT
                         "); this TACK file is "
                         "not served",
                         mt_vhost_name(s), tf->error, TACK_WHERE(tf->where));
        }
        for (i = 0; i < mt_nelts(conf->sigfiles); i++) {
            if (!sf[i]->error || sf[i]->s != s) {
                continue;
            }
            problems++;
            ap_log_error(
                APLOG_MARK, APLOG_ERR, 0, s,
                "TACK00012: vhost %s: %s (" TACK_WHERE_FMT "); these break "
                "signatures are not served",
                mt_vhost_name(s), sf[i]->error, TACK_WHERE(sf[i]->where));
        }
    }
    return problems;
}

int mt_resolve_log_warnings(server_rec *s_main)
{
    server_rec *s;
    int n = 0, i, j;

    if (mt_quiet()) {
        return 0;
    }
    for (s = s_main; s; s = s->next) {
        mt_conf_t *conf = mt_conf_get(s);
        const mt_file_t *tf;
        mt_sigfile_t **sf = mt_elts(conf->sigfiles);

        if (conf->store_line && conf->store_line->twice) {
            n++;
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         "TACK00148: vhost %s: %s; the later is used",
                         mt_vhost_name(s), conf->store_line->twice);
        }
        for (tf = conf->files; tf; tf = tf->next) {
            apr_array_header_t *w = tf->warnings;

            for (j = 0; tf->s == s && w && j < w->nelts; j++, n++) {
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                             "TACK00059: vhost %s: %s (" TACK_WHERE_FMT ")",
                             mt_vhost_name(s),
                             APR_ARRAY_IDX(w, j, const char *),
                             TACK_WHERE(tf->where));
            }
        }
        for (i = 0; i < mt_nelts(conf->sigfiles); i++) {
            if (sf[i]->warning && sf[i]->s == s) {
                n++;
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                             "TACK00060: vhost %s: %s (" TACK_WHERE_FMT ")",
                             mt_vhost_name(s), sf[i]->warning,
                             TACK_WHERE(sf[i]->where));
            }
        }
    }
    return n;
}

int mt_resolve_check_unmatched(server_rec *s_main)
{
    mt_conf_t *conf = mt_conf_get(s_main);
    const mt_file_t *tf;
    int problems = 0, k;

    for (tf = conf->files; tf; tf = tf->next) {
        for (k = 0; k < tf->nitems; k++) {
            mt_item_t *item = &tf->items[k];

            if (tf->error || item->matched) {
                continue;
            }
            problems++;
            if (mt_quiet()) {
                continue;
            }
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00013: TackFile %s (" TACK_WHERE_FMT
                         "): target_hash of %s "
                         "(key %s) matches no certificate of any virtual "
                         "host%s",
                         tf->path, TACK_WHERE(tf->where),
                         mt_item_name(s_main->process->pconf, item),
                         item->fingerprint, mt_strict() ? "" : "; not served");
        }
    }
    return problems;
}
