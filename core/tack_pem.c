/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_pem.c -- PEM armour as TACKpy writes it (files are read by
 * tack_file.c).
 *
 * TACKpy puts "Created by" / "Created at" lines before each block and its unit
 * tests indent whole files, so the reader skips any text outside blocks and
 * strips whitespace around every line.  Inside a block it is strict: only
 * base64, a matching END line, canonical padding.
 */
#include "tack_pem.h"
#include "tack_cbs.h"
#include "tack_ext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#define PEM_DASHES "-----"
#define PEM_BEGIN "-----BEGIN "
#define PEM_END "-----END "

/* A line of the input without its surrounding whitespace. */
typedef struct {
    const char *p;
    size_t len;
} pem_line_t;

static int pem_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* pem_next_line splits the next line off |*in|; 0 at the end of input.  A
 * line ends at LF, CRLF or a lone CR (old Mac editors), all alike, so that
 * line numbers count what an editor shows. */
static int pem_next_line(const char **in, const char *end, pem_line_t *line)
{
    const char *p = *in, *s, *e;

    if (p >= end) {
        return 0;
    }
    e = p;
    while (e < end && *e != '\n' && *e != '\r') {
        e++;
    }
    *in = e;
    if (*in < end && **in == '\r') {
        (*in)++;
    }
    if (*in < end && **in == '\n') {
        (*in)++;
    }
    s = p;
    while (s < e && pem_is_space(*s)) {
        s++;
    }
    while (e > s && pem_is_space(e[-1])) {
        e--;
    }
    line->p = s;
    line->len = (size_t)(e - s);
    return 1;
}

/* pem_skip_bom steps over a UTF-8 byte order mark at |*in|, as some
 * editors write one: it is not part of line 1. */
static void pem_skip_bom(const char **in, const char *end)
{
    if (end - *in >= 3 && memcmp(*in, "\xef\xbb\xbf", 3) == 0) {
        *in += 3;
    }
}

static int pem_starts_with(const pem_line_t *line, const char *prefix)
{
    size_t n = strlen(prefix);

    return line->len >= n && memcmp(line->p, prefix, n) == 0;
}

/* pem_mentions returns 1 when |word| occurs anywhere in |line|. */
static int pem_mentions(const pem_line_t *line, const char *word)
{
    return line->len > 0 &&
           memmem(line->p, line->len, word, strlen(word)) != NULL;
}

/* pem_label_ok applies RFC 7468's label grammar: printable characters,
 * where a hyphen or a space only ever separates two others. */
static int pem_label_ok(const pem_line_t *label)
{
    size_t i;

    for (i = 0; i < label->len; i++) {
        char c = label->p[i];

        if (c < 0x20 || c > 0x7e) {
            return 0;
        }
        if ((c == '-' || c == ' ') &&
            (i == 0 || i + 1 == label->len || label->p[i + 1] == '-' ||
             label->p[i + 1] == ' ')) {
            return 0;
        }
    }
    return 1;
}

/* pem_armour_label finds the label of a "-----BEGIN X-----" or
 * "-----END X-----" line; 0 if the line is not such armour. */
static int pem_armour_label(const pem_line_t *line, const char *prefix,
                            pem_line_t *label)
{
    size_t n = strlen(prefix), d = strlen(PEM_DASHES);

    if (!pem_starts_with(line, prefix) || line->len < n + d ||
        memcmp(line->p + line->len - d, PEM_DASHES, d) != 0) {
        return 0;
    }
    label->p = line->p + n;
    label->len = line->len - n - d;
    return pem_label_ok(label);
}

static int pem_label_eq(const pem_line_t *a, const char *b, size_t b_len)
{
    return a->len == b_len && memcmp(a->p, b, b_len) == 0;
}

static int pem_is_b64(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '+' || c == '/';
}

/* pem_b64_decode decodes |b64| (no whitespace, length a multiple of four,
 * '=' padding only at the end) into a malloc'd buffer. */
static tack_status_t pem_b64_decode(const char *b64, size_t b64_len,
                                    uint8_t **out, size_t *out_len)
{
    size_t i, pad = 0;
    uint8_t *buf;
    int n;

    if (b64_len % 4 != 0) {
        return TACK_ERR_BASE64;
    }
    if (b64_len > 0 && b64[b64_len - 1] == '=') {
        pad = b64[b64_len - 2] == '=' ? 2 : 1;
    }
    for (i = 0; i < b64_len - pad; i++) {
        if (!pem_is_b64(b64[i])) {
            return TACK_ERR_BASE64;
        }
    }
    buf = malloc(b64_len / 4 * 3 + 1);
    if (buf == NULL) {
        return TACK_ERR_NOMEM;
    }
    if (b64_len == 0) {
        *out = buf;
        *out_len = 0;
        return TACK_OK;
    }
    if (b64_len > INT32_MAX) {
        free(buf);
        return TACK_ERR_FILE_TOO_LARGE;
    }
    /* EVP_DecodeBlock counts the padding as data: take it off again. */
    n = EVP_DecodeBlock(buf, (const unsigned char *)b64, (int)b64_len);
    if (n < 0 || (size_t)n < pad) {
        free(buf);
        return TACK_ERR_BASE64;
    }
    *out = buf;
    *out_len = (size_t)n - pad;
    return TACK_OK;
}

void tack_pem_free(tack_pem_t *pem)
{
    size_t i;

    if (pem == NULL) {
        return;
    }
    for (i = 0; i < pem->count; i++) {
        if (pem->blocks[i].data != NULL) {
            OPENSSL_cleanse(pem->blocks[i].data, pem->blocks[i].len);
            free(pem->blocks[i].data);
        }
    }
    free(pem->blocks);
    pem->blocks = NULL;
    pem->count = 0;
}

/* pem_add_block appends a decoded block to |pem|. */
static tack_status_t pem_add_block(tack_pem_t *pem, uint8_t *data, size_t len,
                                   unsigned line)
{
    tack_pem_block_t *blocks;

    blocks = realloc(pem->blocks, (pem->count + 1) * sizeof(*blocks));
    if (blocks == NULL) {
        return TACK_ERR_NOMEM;
    }
    pem->blocks = blocks;
    blocks[pem->count].data = data;
    blocks[pem->count].len = len;
    blocks[pem->count].line = line;
    pem->count++;
    return TACK_OK;
}

/* What tack_pem_decode knows between one line and the next. */
typedef struct {
    const char *label; /* the label asked for */
    size_t label_len;
    pem_line_t cur_label; /* the open block's label */
    unsigned lineno;      /* the line being read, from 1 */
    unsigned begin_line;  /* the open block's BEGIN line */
    int inside;           /* between a BEGIN and its END */
    int wanted;           /* the open block has the label asked for */
    int any_block;        /* a BEGIN line was seen */
    char *b64;            /* the open block's base64, if wanted */
    size_t b64_len;
} pem_reader_t;

/* pem_line_outside reads a line outside any block: a BEGIN line opens one;
 * an END line, or a line that holds armour with something else on it
 * (garbage before or after "-----BEGIN TACK-----"), is an error at that
 * line, not later at the END that then seems unopened; anything else
 * (TACKpy's "Created by") is skipped. */
static tack_status_t pem_line_outside(pem_reader_t *r, const pem_line_t *line)
{
    if (pem_armour_label(line, PEM_BEGIN, &r->cur_label)) {
        r->inside = 1;
        r->any_block = 1;
        r->begin_line = r->lineno;
        r->wanted = pem_label_eq(&r->cur_label, r->label, r->label_len);
        r->b64_len = 0;
    } else if (pem_mentions(line, PEM_BEGIN) || pem_mentions(line, PEM_END)) {
        return TACK_ERR_PEM_BAD; /* END without BEGIN, or broken armour */
    }
    return TACK_OK;
}

/* pem_line_end reads the END line of the open block: it must name the
 * block's label; a wanted block is decoded and appended to |out| (a base64
 * error is reported at the BEGIN line). */
static tack_status_t pem_line_end(pem_reader_t *r, const pem_line_t *line,
                                  tack_pem_t *out)
{
    pem_line_t l;
    uint8_t *data;
    size_t data_len;
    tack_status_t st;

    if (!pem_armour_label(line, PEM_END, &l) || l.len != r->cur_label.len ||
        memcmp(l.p, r->cur_label.p, l.len) != 0) {
        return TACK_ERR_PEM_BAD; /* END of another label */
    }
    r->inside = 0;
    if (!r->wanted) {
        return TACK_OK;
    }
    st = pem_b64_decode(r->b64, r->b64_len, &data, &data_len);
    if (st == TACK_ERR_BASE64) {
        r->lineno = r->begin_line;
    }
    if (st == TACK_OK) {
        st = pem_add_block(out, data, data_len, r->begin_line);
        if (st != TACK_OK) {
            free(data);
        }
    }
    return st;
}

/* pem_line_body reads a line inside the open block: only base64 between
 * the armour lines (TACK files carry no RFC 1421 headers), kept when the
 * block is wanted. */
static tack_status_t pem_line_body(pem_reader_t *r, const pem_line_t *line)
{
    size_t i;

    if (!r->wanted) {
        return TACK_OK;
    }
    for (i = 0; i < line->len; i++) {
        if (!pem_is_b64(line->p[i]) && line->p[i] != '=') {
            return TACK_ERR_BASE64;
        }
    }
    memcpy(r->b64 + r->b64_len, line->p, line->len);
    r->b64_len += line->len;
    return TACK_OK;
}

/* pem_read_line reads one line, inside a block or outside. */
static tack_status_t pem_read_line(pem_reader_t *r, const pem_line_t *line,
                                   tack_pem_t *out)
{
    if (!r->inside) {
        return pem_line_outside(r, line);
    }
    if (pem_starts_with(line, PEM_END)) {
        return pem_line_end(r, line, out);
    }
    if (pem_starts_with(line, PEM_BEGIN)) {
        return TACK_ERR_PEM_BAD; /* BEGIN inside a block */
    }
    return pem_line_body(r, line);
}

tack_status_t tack_pem_decode(tack_pem_t *out, const char *in, size_t in_len,
                              const char *label, unsigned *err_line)
{
    const char *p = in, *end = in + in_len;
    pem_reader_t r;
    pem_line_t line;
    tack_status_t st = TACK_OK;

    if (err_line != NULL) {
        *err_line = 0;
    }
    if (out == NULL || label == NULL || (in == NULL && in_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    out->blocks = NULL;
    out->count = 0;
    memset(&r, 0, sizeof(r));
    r.label = label;
    r.label_len = strlen(label);
    pem_skip_bom(&p, end);
    /* The base64 of one block is never longer than the input. */
    r.b64 = malloc(in_len + 1);
    if (r.b64 == NULL) {
        return TACK_ERR_NOMEM;
    }

    while (st == TACK_OK && pem_next_line(&p, end, &line)) {
        r.lineno++;
        st = pem_read_line(&r, &line, out);
    }
    if (st == TACK_OK && r.inside) {
        st = TACK_ERR_PEM_BAD; /* BEGIN without END */
        r.lineno = r.begin_line;
    }
    if (st == TACK_OK && out->count == 0) {
        st = r.any_block ? TACK_ERR_PEM_WRONG_LABEL : TACK_ERR_PEM_NO_BLOCK;
        r.lineno = 0;
    }
    OPENSSL_cleanse(r.b64, r.b64_len);
    free(r.b64);
    if (st != TACK_OK) {
        tack_pem_free(out);
        if (err_line != NULL) {
            *err_line = r.lineno;
        }
    }
    return st;
}

size_t tack_pem_labels(const char *in, size_t in_len,
                       char out[][TACK_PEM_LABEL_SIZE], size_t max)
{
    const char *p = in, *end = in + in_len;
    pem_line_t line, label;
    size_t n = 0, i;

    if (in == NULL || out == NULL) {
        return 0;
    }
    pem_skip_bom(&p, end);
    while (n < max && pem_next_line(&p, end, &line)) {
        int seen = 0;

        if (!pem_armour_label(&line, PEM_BEGIN, &label) ||
            label.len >= TACK_PEM_LABEL_SIZE) {
            continue;
        }
        for (i = 0; i < n; i++) {
            seen |= pem_label_eq(&label, out[i], strlen(out[i]));
        }
        if (!seen) {
            memcpy(out[n], label.p, label.len);
            out[n][label.len] = '\0';
            n++;
        }
    }
    return n;
}

int tack_pem_label_is_private_key(const char *label)
{
    static const char suffix[] = "PRIVATE KEY";
    size_t n = strlen(label), k = sizeof(suffix) - 1;

    return n >= k && strcmp(label + n - k, suffix) == 0 &&
           (n == k || label[n - k - 1] == ' ');
}

tack_status_t tack_pem_encode(char **out, size_t *out_len, const char *label,
                              const uint8_t *in, size_t in_len)
{
    size_t label_len, lines, cap, o = 0, i;
    char *buf;
    int n;

    if (out == NULL || out_len == NULL || label == NULL ||
        (in == NULL && in_len != 0)) {
        return TACK_ERR_INVALID_ARG;
    }
    label_len = strlen(label);
    lines = (in_len + 47) / 48; /* 48 bytes make one 64-column line */
    /* BEGIN and END lines, 65 bytes per body line, the NUL */
    cap = 2 * (strlen(PEM_BEGIN) + label_len + strlen(PEM_DASHES) + 1) +
          lines * 65 + 1;
    buf = malloc(cap);
    if (buf == NULL) {
        return TACK_ERR_NOMEM;
    }
    o += (size_t)snprintf(buf + o, cap - o, "%s%s%s\n", PEM_BEGIN, label,
                          PEM_DASHES);
    for (i = 0; i < in_len; i += 48) {
        size_t chunk = in_len - i < 48 ? in_len - i : 48;

        n = EVP_EncodeBlock((unsigned char *)buf + o, in + i, (int)chunk);
        o += (size_t)n;
        buf[o++] = '\n';
    }
    o += (size_t)snprintf(buf + o, cap - o, "%s%s%s\n", PEM_END, label,
                          PEM_DASHES);
    *out = buf;
    *out_len = o;
    return TACK_OK;
}

/* pem_blocks_check decodes all |label| blocks of |pem| and checks their count
 * against |max| (|too_many| when exceeded) and each size against |size|. */
static tack_status_t pem_blocks_check(tack_pem_t *blocks, const char *pem,
                                      size_t pem_len, const char *label,
                                      size_t max, tack_status_t too_many,
                                      size_t size, unsigned *err_line)
{
    tack_status_t st;
    size_t i;

    st = tack_pem_decode(blocks, pem, pem_len, label, err_line);
    if (st != TACK_OK) {
        return st;
    }
    if (blocks->count > max) {
        if (err_line != NULL) {
            *err_line = blocks->blocks[max].line;
        }
        tack_pem_free(blocks);
        return too_many;
    }
    for (i = 0; i < blocks->count; i++) {
        if (blocks->blocks[i].len != size) {
            if (err_line != NULL) {
                *err_line = blocks->blocks[i].line;
            }
            tack_pem_free(blocks);
            return TACK_ERR_BAD_LENGTH;
        }
    }
    return TACK_OK;
}

tack_status_t tack_tacks_from_pem(tack_t *out, size_t max, size_t *count,
                                  const char *pem, size_t pem_len,
                                  unsigned *err_line)
{
    tack_pem_t blocks;
    tack_status_t st;
    size_t i;

    if (out == NULL || count == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    st = pem_blocks_check(&blocks, pem, pem_len, TACK_PEM_LABEL_TACK, max,
                          TACK_ERR_TOO_MANY_TACKS, TACK_LEN, err_line);
    if (st != TACK_OK) {
        return st;
    }
    for (i = 0; i < blocks.count && st == TACK_OK; i++) {
        st = tack_parse(&out[i], blocks.blocks[i].data, blocks.blocks[i].len);
    }
    *count = blocks.count;
    tack_pem_free(&blocks);
    return st;
}

tack_status_t tack_breaksigs_from_pem(tack_breaksig_t *out, size_t max,
                                      size_t *count, const char *pem,
                                      size_t pem_len, unsigned *err_line)
{
    tack_pem_t blocks;
    tack_status_t st;
    size_t i;

    if (out == NULL || count == NULL) {
        return TACK_ERR_INVALID_ARG;
    }
    st = pem_blocks_check(&blocks, pem, pem_len, TACK_PEM_LABEL_BREAKSIG, max,
                          TACK_ERR_TOO_MANY_BREAKSIGS, TACK_BREAKSIG_LEN,
                          err_line);
    if (st != TACK_OK) {
        return st;
    }
    for (i = 0; i < blocks.count && st == TACK_OK; i++) {
        st = tack_breaksig_parse(&out[i], blocks.blocks[i].data,
                                 blocks.blocks[i].len);
    }
    *count = blocks.count;
    tack_pem_free(&blocks);
    return st;
}

/* ---- OpenSSL serverinfo files -------------------------------------------- */

/* serverinfo_records_have walks (context,) type, length, data records. */
static int serverinfo_records_have(const uint8_t *data, size_t len, int v2,
                                   uint16_t type)
{
    tack_cbs_t cbs, body;

    tack_cbs_init(&cbs, data, len);
    while (tack_cbs_len(&cbs) > 0) {
        uint32_t context;
        uint16_t t, n;

        if ((v2 && !tack_cbs_get_u32(&cbs, &context)) ||
            !tack_cbs_get_u16(&cbs, &t) || !tack_cbs_get_u16(&cbs, &n) ||
            !tack_cbs_get_sub(&cbs, &body, n)) {
            return 0; /* malformed: OpenSSL refuses the file itself */
        }
        if (t == type) {
            return 1;
        }
    }
    return 0;
}

int tack_serverinfo_has(const char *pem, size_t pem_len, uint16_t type)
{
    char labels[8][TACK_PEM_LABEL_SIZE];
    size_t n = tack_pem_labels(pem, pem_len, labels, 8), i, b;
    int found = 0;

    for (i = 0; i < n && !found; i++) {
        int v2 = !strncmp(labels[i], "SERVERINFOV2 FOR ", 17);
        tack_pem_t blocks;

        if (!v2 && strncmp(labels[i], "SERVERINFO FOR ", 15)) {
            continue;
        }
        if (tack_pem_decode(&blocks, pem, pem_len, labels[i], NULL) !=
            TACK_OK) {
            continue;
        }
        for (b = 0; b < blocks.count && !found; b++) {
            found = serverinfo_records_have(blocks.blocks[b].data,
                                            blocks.blocks[b].len, v2, type);
        }
        tack_pem_free(&blocks);
    }
    return found;
}
