/*
 * mod_tack_resolve.c -- what a vhost serves: the TACKs chosen for each of
 * its certificates (its own TackFiles, then the main server's, then the
 * TackStore), its break signatures, format and activation flag, with every
 * rule of the directive reference applied (tack_config_resolve); and the
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

#include "mod_tack.h"

APLOG_USE_MODULE(tack);

/* ---- matching TACKs to certificates -------------------------------------- */

/* tack_problem logs one problem found while resolving |s|'s configuration:
 * at error level, with the vhost's name.  Returns 1 (one problem). */
static int tack_problem(server_rec *s, const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int tack_problem(server_rec *s, const char *tag, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    if (tack_config_quiet()) {
        return 1;
    }
    va_start(ap, fmt);
    apr_vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* |tag| is the caller's own literal "TACKnnnnn", one per call site. */
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, "%s: vhost %s: %s%s", tag,
                 tack_vhost_name(s), msg,
                 tack_config_strict() ? "" : "; left out");
    return 1;
}

static const char *tack_cert_list(apr_pool_t *p, tack_certsel_t *certs,
                                  int ncerts)
{
    const char *list = "";
    int i;

    for (i = 0; i < ncerts; i++) {
        list = apr_pstrcat(p, list, i ? ", " : "", certs[i].label, NULL);
    }
    return list;
}

/* tack_select tries |item| for |cert|; returns the number of problems. */
static int tack_select(apr_pool_t *p, server_rec *s, int format,
                       tack_certsel_t *cert, tack_item_t *item)
{
    int j;

    if (format == TACK_FORMAT_00 && cert->ntacks == 1) {
        return tack_problem(
            s, "TACK00001",
            "%s %s (" TACK_WHERE_FMT "): a second TACK for %s, already "
            "served by %s %s; draft-00 serves one TACK "
            "per certificate",
            item->file->kind, item->file->path, TACK_WHERE(item->file->where),
            cert->label, cert->tacks[0]->file->kind,
            cert->tacks[0]->file->path);
    }
    if (cert->ntacks == TACK_EXT02_MAX_TACKS) {
        return tack_problem(s, "TACK00002",
                            "%s %s (" TACK_WHERE_FMT
                            "): a third TACK for %s; draft-02 "
                            "serves at most two per certificate",
                            item->file->kind, item->file->path,
                            TACK_WHERE(item->file->where), cert->label);
    }
    for (j = 0; j < cert->ntacks; j++) {
        if (tack_key_equal(cert->tacks[j]->tack.public_key,
                           item->tack.public_key)) {
            return tack_problem(
                s, "TACK00003",
                "%s %s (" TACK_WHERE_FMT "): %s has the key %s of "
                "%s %s, also for %s; two TACKs for one "
                "certificate need two keys",
                item->file->kind, item->file->path,
                TACK_WHERE(item->file->where), tack_item_name(p, item),
                item->fingerprint, cert->tacks[j]->file->kind,
                cert->tacks[j]->file->path, cert->label);
        }
    }
    cert->tacks[cert->ntacks++] = item;
    return 0;
}

/* tack_files_usable returns 1 when |f| is served at all under |format|. */
static int tack_file_usable(server_rec *s, tack_file_t *f, int format,
                            int *problems)
{
    if (f->error || f->nitems == 0) {
        return 0;
    }
    if (format == TACK_FORMAT_00 && f->nitems > 1) {
        *problems +=
            tack_problem(s, "TACK00004",
                         "%s %s (" TACK_WHERE_FMT "): holds %d TACKs; in "
                         "TackFormat draft-00 a TACK file holds one "
                         "(pair files need TackFormat draft-02)",
                         f->kind, f->path, TACK_WHERE(f->where), f->nitems);
        return 0;
    }
    return 1;
}

int tack_config_resolve(apr_pool_t *p, server_rec *s, tack_conf_t *conf,
                        tack_certsel_t *certs, int ncerts, int certs_known,
                        tack_sel_t *out)
{
    int problems = 0, i, c, k, pass;
    apr_array_header_t *lists[2];

    memset(out, 0, sizeof(*out));
    out->format = conf->format == TACK_UNSET ? TACK_FORMAT_00 : conf->format;
    out->pin_activation = conf->pin_activation == 1;
    out->tls13 = conf->tls13 == 1;
    out->store = conf->store;
    out->certs = certs;
    out->ncerts = ncerts;
    for (c = 0; c < ncerts; c++) {
        certs[c].ntacks = 0;
    }

    /* The vhost's own TACKs first; the main server's fill in certificates
     * the vhost has no TACK for.  For the main server itself its TackFiles
     * are the candidates (its own and every vhost's). */
    lists[0] = s->is_virtual ? conf->files : NULL;
    lists[1] = s->is_virtual ? conf->server_files : conf->files;
    for (pass = 0; pass < 2; pass++) {
        tack_file_t **files;
        int nfiles;

        if (!lists[pass]) {
            continue;
        }
        files = (tack_file_t **)lists[pass]->elts;
        nfiles = lists[pass]->nelts;
        for (i = 0; i < nfiles; i++) {
            tack_file_t *f = files[i];

            if (!tack_file_usable(s, f, out->format, &problems)) {
                continue;
            }
            for (k = 0; k < f->nitems; k++) {
                tack_item_t *item = &f->items[k];
                int hit = 0;

                for (c = 0; c < ncerts; c++) {
                    if (tack_check_target_hash(&item->tack, certs[c].hash) !=
                        TACK_OK) {
                        continue;
                    }
                    hit = 1;
                    item->matched = 1;
                    /* Server-level TACKs only where the vhost has none. */
                    if (pass == 1 && s->is_virtual) {
                        int own = 0, j;

                        for (j = 0; j < certs[c].ntacks; j++) {
                            own |= !certs[c].tacks[j]->file->server_level;
                        }
                        if (own) {
                            continue;
                        }
                    }
                    problems += tack_select(p, s, out->format, &certs[c], item);
                }
                if (!hit && pass == 0 && certs_known) {
                    problems += tack_problem(
                        s, "TACK00005",
                        "TackFile %s (" TACK_WHERE_FMT
                        "): target_hash of %s (key %s) matches "
                        "none of the vhost's certificates (%s)",
                        f->path, TACK_WHERE(f->where), tack_item_name(p, item),
                        item->fingerprint,
                        ncerts ? tack_cert_list(p, certs, ncerts) : "none");
                }
            }
        }
    }

    /* The store: only for certificates no TackFile line gave a TACK to
     * (explicit lines win), one hash lookup per certificate. */
    if (conf->store && conf->store->loaded) {
        for (c = 0; c < ncerts; c++) {
            tack_item_t *item;
            const tack_file_t *unusable = NULL;

            if (certs[c].ntacks) {
                continue;
            }
            item = apr_hash_get(conf->store->by_hash, certs[c].hash,
                                TACK_HASH_LEN);
            for (; item; item = item->next_same) {
                item->matched = 1;
                if (item->file == unusable) {
                    continue; /* the second TACK of a pair already refused */
                }
                if (!tack_file_usable(s, item->file, out->format, &problems)) {
                    unusable = item->file;
                    continue;
                }
                problems += tack_select(p, s, out->format, &certs[c], item);
            }
        }
    }

    /* Break signatures: draft-00 only (draft-02 dropped them). */
    if (conf->sigfiles) {
        tack_sigfile_t **sf = (tack_sigfile_t **)conf->sigfiles->elts;

        for (i = 0; i < conf->sigfiles->nelts; i++) {
            size_t j;

            if (sf[i]->error || sf[i]->num == 0) {
                continue;
            }
            if (out->format == TACK_FORMAT_02 && sf[i]->s != s) {
                /* Inherited from the server config, meant "for all": a
                 * draft-02 vhost cannot carry them, and that is no error. */
                if (!tack_config_quiet()) {
                    ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                                 "TACK00023: vhost %s: TackFormat draft-02 "
                                 "has no break signatures: the %" APR_SIZE_T_FMT
                                 " inherited from %s (" TACK_WHERE_FMT
                                 ") are not served here",
                                 tack_vhost_name(s), sf[i]->num, sf[i]->path,
                                 TACK_WHERE(sf[i]->where));
                }
                continue;
            }
            if (out->format == TACK_FORMAT_02) {
                problems += tack_problem(s, "TACK00006",
                                         "TackBreakSigsFile %s (" TACK_WHERE_FMT
                                         "): break "
                                         "signatures do not exist in "
                                         "TackFormat draft-02",
                                         sf[i]->path, TACK_WHERE(sf[i]->where));
                continue;
            }
            for (j = 0; j < sf[i]->num && out->nsigs < TACK_MAX_BREAKSIGS;
                 j++) {
                out->sigfiles[out->nsigs] = sf[i];
                out->sigidx[out->nsigs] = (unsigned char)j;
                out->sigs[out->nsigs++] = sf[i]->sigs[j];
            }
        }
    }

    /* A break signature for the key of a TACK this vhost serves: the site
     * says the key is compromised and vouches with it at once.  The break
     * signature is the later, safer statement: the TACK is left out. */
    for (c = 0; c < ncerts; c++) {
        for (k = 0; k < certs[c].ntacks; k++) {
            tack_item_t *item = certs[c].tacks[k];
            size_t j;

            for (j = 0; j < out->nsigs; j++) {
                if (tack_key_equal(out->sigs[j].public_key,
                                   item->tack.public_key)) {
                    break;
                }
            }
            if (j == out->nsigs) {
                continue;
            }
            problems += tack_problem(
                s, "TACK00007",
                "%s %s (" TACK_WHERE_FMT "): its key %s is broken "
                "by a break signature in "
                "TackBreakSigsFile %s (" TACK_WHERE_FMT "); a TACK and "
                "the break signature of its key cannot "
                "be served together",
                item->file->kind, item->file->path,
                TACK_WHERE(item->file->where), item->fingerprint,
                out->sigfiles[j]->path, TACK_WHERE(out->sigfiles[j]->where));
            memmove(&certs[c].tacks[k], &certs[c].tacks[k + 1],
                    (size_t)(certs[c].ntacks - k - 1) * sizeof(item));
            certs[c].ntacks--;
            k--;
        }
    }
    return problems;
}

/* "12 days", "5 hours", "3 minutes": how long until |secs| have passed. */
const char *tack_duration(apr_pool_t *p, long secs)
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

void tack_config_warn_expiry(server_rec *s, const tack_sel_t *sel)
{
    time_t now = time(NULL);
    int c, k;

    if (tack_config_quiet()) {
        return;
    }
    for (c = 0; c < sel->ncerts; c++) {
        for (k = 0; k < sel->certs[c].ntacks; k++) {
            const tack_item_t *item = sel->certs[c].tacks[k];

            /* A store's TACKs are reported once per store, not per vhost
             * (tack_config_log_stores): at 10,000 vhosts signed the same
             * day, one line per TACK would bury everything else. */
            if (item->file->store) {
                continue;
            }
            if (item->expires - now < TACK_EXPIRY_WARN_SECS) {
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                             "TACK00010: vhost %s: TackFile %s: TACK (key "
                             "%s) expires at %s, in %s; sign a new one",
                             tack_vhost_name(s), item->file->path,
                             item->fingerprint, item->expiry,
                             tack_duration(s->process->pconf,
                                           (long)(item->expires - now)));
            }
        }
    }
}

int tack_config_log_load_errors(server_rec *s_main)
{
    server_rec *s;
    int problems = 0, i;

    if (tack_config_quiet()) {
        return 0;
    }
    for (s = s_main; s; s = s->next) {
        tack_conf_t *conf = tack_config_get(s);
        tack_file_t **tf = tack_elts(conf->files);
        tack_sigfile_t **sf = tack_elts(conf->sigfiles);

        /* A vhost may share the main server's break-signature list: each
         * file is logged with the server it was written in only. */
        for (i = 0; i < tack_nelts(conf->files); i++) {
            if (!tf[i]->error || tf[i]->s != s) {
                continue;
            }
            problems++;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         "TACK00011: vhost %s: %s (" TACK_WHERE_FMT
                         "); this TACK file is "
                         "not served",
                         tack_vhost_name(s), tf[i]->error,
                         TACK_WHERE(tf[i]->where));
        }
        for (i = 0; i < tack_nelts(conf->sigfiles); i++) {
            if (!sf[i]->error || sf[i]->s != s) {
                continue;
            }
            problems++;
            ap_log_error(
                APLOG_MARK, APLOG_ERR, 0, s,
                "TACK00012: vhost %s: %s (" TACK_WHERE_FMT "); these break "
                "signatures are not served",
                tack_vhost_name(s), sf[i]->error, TACK_WHERE(sf[i]->where));
        }
    }
    return problems;
}

int tack_config_check_unmatched(server_rec *s_main)
{
    tack_conf_t *conf = tack_config_get(s_main);
    tack_file_t **tf = tack_elts(conf->files);
    int problems = 0, i, k;

    for (i = 0; i < tack_nelts(conf->files); i++) {
        for (k = 0; k < tf[i]->nitems; k++) {
            tack_item_t *item = &tf[i]->items[k];

            if (tf[i]->error || item->matched) {
                continue;
            }
            problems++;
            if (tack_config_quiet()) {
                continue;
            }
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s_main,
                         "TACK00013: TackFile %s (" TACK_WHERE_FMT
                         "): target_hash of %s "
                         "(key %s) matches no certificate of any virtual "
                         "host%s",
                         tf[i]->path, TACK_WHERE(tf[i]->where),
                         tack_item_name(s_main->process->pconf, item),
                         item->fingerprint,
                         tack_config_strict() ? "" : "; not served");
        }
    }
    return problems;
}
