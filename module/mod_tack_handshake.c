/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_handshake.c -- what a handshake runs, and the table it reads.
 *
 * At start-up (mod_tack_setup.c) each certificate of a vhost gets, once,
 * the extension bodies it may send (one per subset of its TACKs still
 * unexpired), and extension 0xF300 is registered on the vhost's SSL_CTX
 * with the vhost's runtime table (mt_rt_t) as callback argument.  A
 * handshake then only compares the certificate pointer OpenSSL chose and
 * the current time against that table, adds to two shared-memory counters
 * (relaxed atomics, mod_tack_status.c) and notes the answer in the
 * connection's conn_config slot, from which post_read_request (mod_tack.c)
 * sets TACK_REQUESTED / TACK_SERVED: no allocation, no lock, no file I/O,
 * no signature work.
 */
#include <time.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "apr_strings.h"

#include <openssl/ssl.h>

#include "mod_tack_load.h"
#include "mod_tack_runtime.h"
#include "mod_tack_background.h"

APLOG_USE_MODULE(tack);

/* Until post_config hands out the shared segment's counters, every slot
 * counts here; no handshake runs before. */
static mt_ctr_t mt_ctr_unset;

/* What a certificate the table does not know gets when the vhost has no
 * break signatures: nothing, and no allocation for it. */
static const mt_body_t mt_body_none;
static const mt_slot_t mt_slot_none;

/* mt_body_build encodes the body for the TACKs of |slot| selected by
 * |mask|.  Returns an empty body when there is nothing to send. */
static mt_body_t mt_body_build(apr_pool_t *p, server_rec *s,
                               const mt_sel_t *sel, const mt_slot_t *slot,
                               unsigned mask)
{
    mt_body_t body = {NULL, 0, NULL};
    tack_t decoded[TACK_EXT02_MAX_TACKS];
    const tack_t *tacks[TACK_EXT02_MAX_TACKS];
    unsigned char inactive[TACK_EXT02_MAX_TACKS];
    tack_status_t st;
    uint8_t buf[TACK_ANSWER_MAX];
    size_t len = 0;
    char name[TACK_NAME_SIZE];
    int i, n = 0;

    for (i = 0; slot && i < slot->ntacks; i++) {
        /* draft-00 carries one TACK: the first, when it is live */
        if ((mask & (1u << i)) && (sel->format == TACK_FORMAT_02 || i == 0)) {
            inactive[n] = (unsigned char)slot->tacks[i]->file->inactive;
            tack_parse(&decoded[n], slot->tacks[i]->wire, TACK_LEN);
            tacks[n] = &decoded[n];
            n++;
        }
    }
    st = tack_answer_encode(sel->format, sel->pin_activation, tacks, inactive,
                            n, sel->sigs, sel->nsigs, buf, &len);
    if (st != TACK_OK) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00051: vhost %s: cannot encode the extension: %s",
                     mt_vhost_name_buf(s, name), tack_status_str(st));
        return body;
    }
    if (len == 0) {
        return body;
    }
    /* Only the bytes used: at 10,000 vhosts the maximum size (1,194 bytes
     * per body, two or three bodies per vhost) would cost megabytes. */
    body.data = apr_pmemdup(p, buf, len);
    body.len = len;
    for (i = 0; slot && i < slot->ntacks; i++) {
        if (mask & (1u << i) && (sel->format == TACK_FORMAT_02 || i == 0)) {
            body.served = body.served
                              ? apr_pstrcat(p, body.served, " ",
                                            slot->tacks[i]->fingerprint, NULL)
                              : slot->tacks[i]->fingerprint;
        }
    }
    return body;
}

mt_rt_t *mt_handshake_build(apr_pool_t *p, server_rec *s, const mt_sel_t *sel)
{
    mt_rt_t *rt = apr_pcalloc(p, sizeof(*rt));
    mt_body_t other;
    int c, i;
    size_t k;
    unsigned mask;

    rt->s = s;
    rt->format = sel->format;
    rt->pin_activation = sel->pin_activation;
    rt->tls13 = sel->tls13;
    rt->required = sel->required;
    rt->store = sel->store;
    rt->nsigs = sel->nsigs;
    if (sel->nsigs) {
        const char **sigs = apr_palloc(p, 2 * sel->nsigs * sizeof(*sigs));

        for (k = 0; k < sel->nsigs; k++) {
            sigs[2 * k] = sel->sigfiles[k]->fingerprints[sel->sigidx[k]];
            sigs[2 * k + 1] = sel->sigfiles[k]->path;
        }
        rt->sigs = sigs;
    }
    /* No TACK, the break signatures only: the body for a certificate the
     * table does not know, and every slot's bodies[0] (one copy of the
     * bytes: a vhost with break signatures paid for three) */
    other = mt_body_build(p, s, sel, NULL, 0);
    /* Sized by count, as the rest: at 10,000 vhosts every byte per vhost
     * is 10 KB in the parent and again in each child (bench/findings.md). */
    rt->nslots = sel->ncerts;
    rt->slots = apr_pcalloc(p, sizeof(mt_slot_t) * sel->ncerts); /* not NULL */
    for (c = 0; c < sel->ncerts; c++) {
        mt_slot_t *slot = &rt->slots[c];
        mt_body_t *bodies;

        slot->cert = sel->certs[c].x509;
        slot->lapsed = sel->certs[c].ntacks ? NULL : sel->certs[c].lapsed;
        slot->ntacks = sel->certs[c].ntacks;
        for (i = 0; i < slot->ntacks; i++) {
            slot->tacks[i] = sel->certs[c].tacks[i];
        }
        slot->pending = sel->certs[c].pending;
        bodies = apr_palloc(p, sizeof(*bodies) << slot->ntacks);
        bodies[0] = other;
        for (mask = 1; mask < (1u << slot->ntacks); mask++) {
            bodies[mask] = mt_body_build(p, s, sel, slot, mask);
            for (i = 0; i < slot->ntacks; i++) {
                if (mask & (1u << i)) { /* its one copy: the served one */
                    mt_load_settle(sel->certs[c].tacks[i], bodies[mask].data,
                                   bodies[mask].len);
                }
            }
        }
        slot->bodies = bodies;
        slot->ctr = &mt_ctr_unset;
    }
    rt->other = !other.len   ? &mt_body_none
                : rt->nslots ? &rt->slots[0].bodies[0]
                             : apr_pmemdup(p, &other, sizeof(other));
    rt->other_ctr = &mt_ctr_unset;
    return rt;
}

/* mt_cb_ext_parse sees the client's request in the ClientHello.
 * draft-00 section 4.1: the request is empty; anything else is malformed. */
static int mt_cb_ext_parse(SSL *ssl, unsigned int ext_type,
                           unsigned int context, const unsigned char *in,
                           size_t inlen, X509 *x, size_t chainidx, int *al,
                           void *parse_arg)
{
    mt_rt_t *rt = parse_arg;

    if (inlen != 0) {
        /* Only here: SSL_get_app_data costs ~40 instructions a call. */
        conn_rec *c = SSL_get_app_data(ssl);
        char name[TACK_NAME_SIZE];

        if (c) {
            ap_log_cserror(APLOG_MARK, APLOG_INFO, 0, c, rt->s,
                           "TACK00052: vhost %s: non-empty TACK request "
                           "(%" APR_SIZE_T_FMT " bytes) in ClientHello; "
                           "decode_error alert",
                           mt_rt_name(rt, name), inlen);
        }
        *al = SSL_AD_DECODE_ERROR;
        return 0;
    }
    return 1;
}

static void mt_note_expired(mt_rt_t *rt, mt_slot_t *slot, int i)
{
    const mt_item_t *item = slot->tacks[i];
    char name[TACK_NAME_SIZE];

    if (__atomic_fetch_or(&slot->expired_logged, 1u << i, __ATOMIC_RELAXED) &
        (1u << i)) {
        return;
    }
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, rt->s,
                 "TACK00053: vhost %s: %s %s: TACK (key %s) expired at "
                 "%s; no longer served%s",
                 mt_rt_name(rt, name), item->file->kind, item->file->path,
                 item->fingerprint, MT_ITEM_EXPIRY(item),
                 rt->nsigs ? " (break signatures still are)" : "");
}

/* mt_log_answer traces one answer at LogLevel debug.  Out of line and
 * cold: its buffers and formatting stay off the handshake path, which only
 * tests the level. */
static void __attribute__((noinline, cold))
mt_log_answer(SSL *ssl, conn_rec *c, const mt_rt_t *rt, const mt_slot_t *slot,
              unsigned mask, const mt_body_t *body)
{
    char subject[TACK_SUBJECT_SIZE], name[TACK_NAME_SIZE];
    /* the background's answer, from its segment: its one TACK */
    const mt_late_t *answer = mt_background_answer(slot->pending);
    int late = answer && body == &answer->body;

    ap_log_cserror(APLOG_MARK, APLOG_DEBUG, 0, c, rt->s,
                   "TACK00054: vhost %s: %s: TACK requested; %s certificate "
                   "%s: %s%s%s "
                   "(%u live), %" APR_SIZE_T_FMT " break signature(s); "
                   "answer %" APR_SIZE_T_FMT " bytes%s",
                   mt_rt_name(rt, name), SSL_get_version(ssl),
                   slot->cert ? mt_slot_key_type(slot) : "unknown",
                   mt_slot_subject(slot, subject),
                   late || slot->ntacks ? "TACK key " : "no TACK",
                   late           ? answer->served
                   : slot->ntacks ? slot->tacks[0]->fingerprint
                                  : "",
                   late               ? " (signed in the background)"
                   : slot->ntacks > 1 ? " and another"
                                      : "",
                   late ? 1u : (unsigned)__builtin_popcount(mask),
                   rt->format == TACK_FORMAT_02 ? 0 : (apr_size_t)rt->nsigs,
                   body->len, body->len ? "" : " (extension omitted)");
}

/* mt_answer counts the answer |body| in |ctr|, notes it on the connection
 * and hands it to OpenSSL: the end of every handshake's callback. */
static inline int mt_answer(SSL *ssl, conn_rec *c, const mt_rt_t *rt,
                            const mt_slot_t *slot, mt_ctr_t *ctr, unsigned mask,
                            const mt_body_t *body, const unsigned char **out,
                            size_t *outlen)
{
    __atomic_fetch_add(&ctr->requested, 1, __ATOMIC_RELAXED);
    if (body->served) {
        __atomic_fetch_add(&ctr->served, 1, __ATOMIC_RELAXED);
    }
    if (c) {
        ap_set_module_config(c->conn_config, &tack_module, (void *)body);
        if (APLOG_CS_IS_LEVEL(c, rt->s, APLOG_DEBUG)) {
            mt_log_answer(ssl, c, rt, slot, mask, body);
        }
    }
    if (body->len == 0) {
        return 0;
    }
    *out = body->data;
    *outlen = body->len;
    return 1;
}

/* mt_answer_other answers for a certificate the table does not know: the
 * vhost's break signatures only.  Out of line and cold: inline, the
 * registers it needs cost every handshake 4 to 6 instructions
 * (bench-callgrind.sh: 160 to 162 a handshake, against 156). */
static int __attribute__((noinline, cold))
mt_answer_other(SSL *ssl, conn_rec *c, const mt_rt_t *rt,
                const unsigned char **out, size_t *outlen)
{
    return mt_answer(ssl, c, rt, &mt_slot_none, rt->other_ctr, 0, rt->other,
                     out, outlen);
}

/* mt_cb_ext_add answers a ClientHello that carried the request (OpenSSL
 * calls it only then, and, with SSL_EXT_IGNORE_ON_RESUMPTION, only on full
 * handshakes).  mod_ssl has switched to the SNI vhost's SSL_CTX by now, so
 * |add_arg| is that vhost's table; and the certificate to be presented is
 * already chosen, so SSL_get_certificate() picks the slot.
 *
 * Besides answering it only counts (two relaxed atomic adds into shared
 * memory) and notes the body in the connection's conn_config slot, a
 * pointer that mod_ssl's conn_rec (its SSL app data) already has room for:
 * no allocation, no lock. */
static int mt_cb_ext_add(SSL *ssl, unsigned int ext_type, unsigned int context,
                         const unsigned char **out, size_t *outlen, X509 *x,
                         size_t chainidx, int *al, void *add_arg)
{
    mt_rt_t *rt = add_arg;
    X509 *cert = SSL_get_certificate(ssl);
    conn_rec *c = SSL_get_app_data(ssl);
    mt_slot_t *slot = rt->slots, *end = slot + rt->nslots;
    const mt_body_t *body;
    const mt_late_t *late;
    unsigned mask = 0;
    int i;

    for (; slot != end; slot++) {
        if (slot->cert == cert) {
            goto known;
        }
    }
    return mt_answer_other(ssl, c, rt, out, outlen);
known:
    if (slot->pending && (late = mt_background_answer(slot->pending)) &&
        time(NULL) < (time_t)late->expires * 60) {
        /* signed in the background since the start */
        body = &late->body;
    } else {
        if (slot->ntacks) {
            time_t now = time(NULL);

            mask = (1u << slot->ntacks) - 1;
            for (i = 0; i < slot->ntacks; i++) {
                if (now >= slot->tacks[i]->expires) {
                    mask &= ~(1u << i);
                    mt_note_expired(rt, slot, i);
                }
            }
        }
        body = &slot->bodies[mask];
    }
    return mt_answer(ssl, c, rt, slot, slot->ctr, mask, body, out, outlen);
}

void mt_handshake_counters(mt_rt_t *rt, mt_ctr_t *ctrs)
{
    int k;

    for (k = 0; k < rt->nslots; k++) {
        rt->slots[k].ctr = &ctrs[k];
    }
    rt->other_ctr = &ctrs[rt->nslots];
}

/* rt->registered says whether OpenSSL took it (the status page shows a
 * vhost where it did not). */
int mt_handshake_register(server_rec *s, SSL_CTX *ctx, mt_rt_t *rt)
{
    char name[TACK_NAME_SIZE];
    unsigned int context;

    context = SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO |
              SSL_EXT_IGNORE_ON_RESUMPTION;
    if (rt->tls13) {
        context |= SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS;
    } else {
        context |= SSL_EXT_TLS1_2_AND_BELOW_ONLY;
    }
    if (!SSL_CTX_add_custom_ext(ctx, TACK_EXT_TYPE, context, mt_cb_ext_add,
                                NULL, rt, mt_cb_ext_parse, rt)) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "TACK00055: vhost %s: cannot register TLS extension "
                     "0xF300 (already registered, e.g. by SSLOpenSSLConfCmd "
                     "ServerInfoFile?); TACK is not served here",
                     mt_vhost_name_buf(s, name));
        mt_openssl_log(s, "SSL_CTX_add_custom_ext");
        rt->registered = 0;
        return 0;
    }
    rt->registered = 1;
    return 1;
}

/* Computed when shown, not kept: 30-odd bytes per vhost. */
const char *mt_slot_subject(const mt_slot_t *slot, char buf[TACK_SUBJECT_SIZE])
{
    buf[0] = '\0';
    if (slot->cert) {
        tack_cert_name(slot->cert, buf, TACK_SUBJECT_SIZE);
    }
    return buf;
}

const char *mt_slot_key_type(const mt_slot_t *slot)
{
    return slot->cert ? mt_key_type_name(
                            EVP_PKEY_get_base_id(X509_get0_pubkey(slot->cert)))
                      : NULL;
}
