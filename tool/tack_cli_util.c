/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_util.c -- what every command of the tool needs: messages,
 * reading files and writing outputs safely, times, encodings and numbers,
 * the notes of a report.  Passwords and the typed files (keys,
 * certificates, TACKs) are tack_cli_load.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "tack_cli.h"
#include "tack_utf8.h"
#include "tack_file.h"

int cli_now_set;
time_t cli_now_value;

/* ---- messages ------------------------------------------------------------ */

void cli_err(const char *fmt, ...)
{
    va_list ap;

    fputs(TACK_PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_quiet;

void cli_done(const char *fmt, ...)
{
    va_list ap;

    if (cli_quiet) {
        return;
    }
    fputs(TACK_PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;

    fputs(TACK_PROG ": warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_ssl_errors(void)
{
    unsigned long e;
    char buf[256];

    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        fprintf(stderr, TACK_PROG ":   openssl: %s\n", buf);
    }
}

/* ---- files --------------------------------------------------------------- */

int cli_read_file(const char *path, char **out, size_t *out_len)
{
    return cli_read_file_max(path, TACK_FILE_MAX_DEFAULT, out, out_len);
}

int cli_read_file_max(const char *path, size_t max, char **out, size_t *out_len)
{
    tack_status_t st;

    if (strcmp(path, "-") == 0) {
        size_t cap = 4096, len = 0;
        char *buf = malloc(cap);

        while (buf != NULL) {
            size_t n = fread(buf + len, 1, cap - len - 1, stdin);

            len += n;
            if (n == 0) {
                break;
            }
            if (len + 1 >= cap) {
                char *nb;

                if (cap >= max) {
                    free(buf);
                    cli_err("-: %s", tack_status_str(TACK_ERR_FILE_TOO_LARGE));
                    return CLI_EXIT_USAGE;
                }
                nb = realloc(buf, cap * 2);
                if (nb == NULL) {
                    free(buf);
                }
                buf = nb;
                cap *= 2;
            }
        }
        if (buf == NULL || ferror(stdin)) {
            free(buf);
            cli_err("-: cannot read standard input");
            return CLI_EXIT_USAGE;
        }
        buf[len] = '\0';
        *out = buf;
        *out_len = len;
        return CLI_EXIT_OK;
    }
    if (cli_is_dir(path)) {
        cli_err("%s: is a directory", path);
        return CLI_EXIT_USAGE;
    }
    errno = 0;
    st = tack_file_read(path, max, out, out_len);
    if (st == TACK_ERR_IO) {
        cli_err("%s: %s", path, errno ? strerror(errno) : "cannot read");
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        cli_err("%s: %s", path, tack_status_str(st));
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_is_dir(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* cli_mode: a key (0600) is never made readable by others, whatever the
 * umask; other files get the mode less the umask, as any command's would
 * (the core's writers set the mode given, on the descriptor). */
static mode_t cli_mode(mode_t mode)
{
    mode_t mask;

    if (mode != 0600) {
        mask = umask(0);
        umask(mask);
        mode &= ~mask;
    }
    return mode;
}

int cli_write_temp(const char *path, const void *data, size_t len, mode_t mode,
                   int sync, char **tmp)
{
    switch (tack_file_write_temp(path, data, len, cli_mode(mode), sync, tmp)) {
    case TACK_OK:
        return CLI_EXIT_OK;
    case TACK_ERR_NOMEM:
        cli_err("%s: out of memory", path);
        return CLI_EXIT_USAGE;
    default:
        cli_err("%s: cannot write a file there: %s", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
}

int cli_write_atomic(const char *path, const void *data, size_t len,
                     mode_t mode)
{
    tack_status_t st = tack_file_replace(path, data, len, cli_mode(mode), 1);

    if (st == TACK_ERR_NOMEM) {
        cli_err("%s: out of memory", path);
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        cli_err("%s: cannot write: %s", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_commit_temp(char *tmp, const char *path, int force)
{
    tack_status_t st = tack_file_commit(tmp, path, force);
    int e = errno;

    free(tmp);
    if (st == TACK_OK) {
        return CLI_EXIT_OK;
    }
    if (!force && e == EEXIST) {
        cli_err("%s: exists; not overwritten (use --force to replace it)",
                path);
    } else {
        cli_err("%s: cannot %s: %s", path, force ? "replace" : "create",
                strerror(e));
    }
    return CLI_EXIT_USAGE;
}

int cli_write_output(const char *path, const void *data, size_t len,
                     mode_t mode, int force)
{
    char *tmp = NULL;
    int rc;

    if (path == NULL || strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            cli_err("standard output: %s", strerror(errno));
            return CLI_EXIT_USAGE;
        }
        return CLI_EXIT_OK;
    }
    if ((rc = cli_output_usable(path, force)) != CLI_EXIT_OK) {
        return rc;
    }
    rc = cli_write_temp(path, data, len, mode, 1, &tmp);
    if (rc == CLI_EXIT_OK) {
        rc = cli_commit_temp(tmp, path, force);
    }
    if (rc == CLI_EXIT_OK && tack_file_sync_dir(path) != 0) {
        cli_err("%s: cannot sync its directory: %s", path, strerror(errno));
        rc = CLI_EXIT_USAGE;
    }
    return rc;
}

/* ---- times --------------------------------------------------------------- */

time_t cli_now(void)
{
    return cli_now_set ? cli_now_value : time(NULL);
}

int cli_opt_now(const char *cmd, const char *arg)
{
    if (!cli_parse_when(arg, time(NULL), &cli_now_value)) {
        return cli_usage_error(cmd, "--now: bad time \"%s\"", arg);
    }
    cli_now_set = 1;
    return CLI_EXIT_OK;
}

/* cli_parse_fixed reads exactly |n| digits at |*s|. */
static int cli_parse_fixed(const char **s, int n, int *out)
{
    int v = 0, i;

    for (i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*s)[i])) {
            return 0;
        }
        v = v * 10 + ((*s)[i] - '0');
    }
    *s += n;
    *out = v;
    return 1;
}

int cli_parse_time(const char *s, time_t *out)
{
    static const char *const seps[5] = {"-", "-", "Tt ", ":", ":"};
    struct tm tm;
    int y, mo = 1, d = 1, h = 0, mi = 0, se = 0;
    int *fields[5] = {&mo, &d, &h, &mi, &se};
    size_t i;
    time_t t;

    if (s[0] == '@') {
        unsigned long long v;
        char *end;

        if (!isdigit((unsigned char)s[1])) {
            return 0;
        }
        errno = 0;
        v = strtoull(s + 1, &end, 10);
        if (errno != 0 || *end != '\0' || v > (unsigned long long)INT64_MAX) {
            return 0;
        }
        *out = (time_t)v;
        return 1;
    }
    if (!cli_parse_fixed(&s, 4, &y)) {
        return 0;
    }
    /* Then -MM, -DD, THH, :MM and :SS, each only after the one before. */
    for (i = 0; i < 5 && *s != '\0' && strchr(seps[i], *s) != NULL; i++) {
        s++;
        if (!cli_parse_fixed(&s, 2, fields[i])) {
            return 0;
        }
    }
    if (*s == 'Z' || *s == 'z') {
        s++;
    }
    if (*s != '\0' || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
        h > 23 || mi > 59 || se > 60) {
        return 0;
    }
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    t = timegm(&tm);
    /* timegm normalises 2030-02-31 to March: refuse such dates. */
    if (t == (time_t)-1 || tm.tm_mday != d || tm.tm_mon != mo - 1) {
        return 0;
    }
    *out = t;
    return 1;
}

int cli_parse_duration(const char *s, long long *out)
{
    long long total = 0;

    if (*s == '\0') {
        return 0;
    }
    while (*s != '\0') {
        long long v = 0, unit;

        if (!isdigit((unsigned char)*s)) {
            return 0;
        }
        while (isdigit((unsigned char)*s)) {
            if (v > 1000000000LL) {
                return 0;
            }
            v = v * 10 + (*s++ - '0');
        }
        switch (*s) {
        case 'w':
            unit = 7 * 86400;
            break;
        case 'd':
            unit = 86400;
            break;
        case 'h':
            unit = 3600;
            break;
        case 'm':
            unit = 60;
            break;
        case 's':
            unit = 1;
            break;
        default:
            return 0;
        }
        s++;
        total += v * unit;
        if (total > 200LL * 365 * 86400) {
            return 0;
        }
    }
    *out = total;
    return 1;
}

int cli_parse_when(const char *s, time_t base, time_t *out)
{
    long long d;

    if (cli_parse_time(s, out)) {
        return 1;
    }
    if (s[0] == '+' && cli_parse_duration(s + 1, &d)) {
        *out = base + (time_t)d;
        return 1;
    }
    if (s[0] == '-' && cli_parse_duration(s + 1, &d)) {
        *out = base - (time_t)d;
        return 1;
    }
    if (cli_parse_duration(s, &d)) {
        *out = base + (time_t)d;
        return 1;
    }
    return 0;
}

void cli_format_time(time_t t, int secs, char *out, size_t out_size)
{
    struct tm tm;
    size_t n = 0;

    if (gmtime_r(&t, &tm) != NULL) {
        n = strftime(out, out_size,
                     secs && tm.tm_sec != 0 ? "%Y-%m-%dT%H:%M:%SZ"
                                            : "%Y-%m-%dT%H:%MZ",
                     &tm);
    }
    /* strftime returns 0 and leaves |out| undefined (glibc 2.41 writes part
     * of it, unterminated) when the text does not fit: a year of a dozen
     * digits from a hostile file.  Say the number instead. */
    if (n == 0) {
        snprintf(out, out_size, "@%lld", (long long)t);
    }
}

/* ---- encodings and numbers ----------------------------------------------- */

char *cli_base64(const uint8_t *in, size_t len)
{
    size_t cap = 4 * ((len + 2) / 3) + 1;
    char *out = malloc(cap);

    if (out != NULL) {
        EVP_EncodeBlock((unsigned char *)out, in, (int)len);
    }
    return out;
}

int cli_parse_uint(const char *s, unsigned long lo, unsigned long hi,
                   unsigned long *out)
{
    unsigned long v;
    char *end;

    if (!isdigit((unsigned char)*s)) {
        return 0;
    }
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) {
        return 0;
    }
    *out = v;
    return 1;
}

/* safe_hidden: the characters that steer a terminal (C1 controls: U+009B
 * is CSI) or reorder what it shows (bidi overrides and isolates). */
static int safe_hidden(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

char *cli_safe_text(const uint8_t *in, size_t len)
{
    /* At most 4 bytes out per byte in: a byte becomes \xNN; a 2-byte
     * character at most \UXXXX (6). */
    char *out = malloc(4 * len + 1), *o = out;
    size_t i = 0, n;
    uint32_t cp;

    if (out == NULL) {
        return NULL;
    }
    while (i < len) {
        n = tack_utf8_decode(in + i, len - i, &cp);
        if (n == 0 || (n == 1 && (cp < 0x20 || cp == 0x7f))) {
            o += sprintf(o, "\\x%02X", in[i]);
            i++;
        } else if (safe_hidden(cp)) {
            o += sprintf(o, "\\U%04X", (unsigned int)cp);
            i += n;
        } else {
            memcpy(o, in + i, n);
            o += n;
            i += n;
        }
    }
    *o = '\0';
    return out;
}

char *cli_cert_subject(X509 *cert)
{
    BIO *bio = BIO_new(BIO_s_mem());
    char *res = NULL, *data;
    long n;

    if (bio == NULL) {
        return NULL;
    }
    if (X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0,
                           XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB) >= 0) {
        /* OpenSSL escapes C0 controls (ESC_CTRL) and writes the rest of
         * UTF-8 as it is (no ESC_MSB): the C1 controls and bidi overrides
         * a certificate may hold are escaped here. */
        n = BIO_get_mem_data(bio, &data);
        res = cli_safe_text((const uint8_t *)data, (size_t)n);
    }
    BIO_free(bio);
    return res;
}

void cli_note(FILE *fp, json_t *report, const char *label, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    json_t *notes = json_object_get(report, "actions");

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (fp != NULL) {
        fprintf(fp, "%-14s = %s\n", label, buf);
    }
    if (notes == NULL) {
        notes = json_array();
        json_object_set_new(report, "actions", notes);
    }
    json_array_append_new(notes, json_string(buf));
}

int cli_port_valid(const char *port)
{
    unsigned long ul;

    /* getaddrinfo would take 99999 and connect to its low 16 bits. */
    return cli_parse_uint(port, 1, 65535, &ul);
}

int cli_output_usable(const char *path, int force)
{
    char *dir;
    const char *slash;
    struct stat sb;
    int rc = CLI_EXIT_USAGE;

    if (path == NULL || strcmp(path, "-") == 0) {
        return CLI_EXIT_OK;
    }
    if (cli_is_dir(path)) {
        cli_err("%s: is a directory", path);
        return CLI_EXIT_USAGE;
    }
    if (!force && access(path, F_OK) == 0) {
        cli_err("%s: exists; not overwritten (use --force to replace it)",
                path);
        return CLI_EXIT_USAGE;
    }
    slash = strrchr(path, '/');
    if (slash == NULL) {
        dir = strdup(".");
    } else if (slash == path) {
        dir = strdup("/");
    } else {
        dir = strndup(path, (size_t)(slash - path));
    }
    if (dir == NULL) {
        cli_err("%s: out of memory", path);
        return CLI_EXIT_USAGE;
    }
    /* The file itself is written as a temporary beside it, then linked or
     * renamed: its directory must exist and take new names. */
    if (stat(dir, &sb) != 0) {
        cli_err("%s: cannot write there: %s: %s", path, dir, strerror(errno));
    } else if (!S_ISDIR(sb.st_mode)) {
        cli_err("%s: cannot write there: %s is not a directory", path, dir);
    } else if (access(dir, W_OK | X_OK) != 0) {
        cli_err("%s: cannot write there: %s: %s", path, dir, strerror(errno));
    } else {
        rc = CLI_EXIT_OK;
    }
    free(dir);
    return rc;
}

int cli_make_dir(const char *path, mode_t mode)
{
    if (mkdir(path, mode) != 0) {
        cli_err("%s: cannot make the directory: %s; nothing written", path,
                strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* ---- TLS client set-up shared by the check engine ---------------------- */

int cli_ssl_key_type(SSL_CTX *ctx, int key_type)
{
    if (key_type == EVP_PKEY_EC) {
        return SSL_CTX_set1_sigalgs_list(
                   ctx, "ECDSA+SHA256:ECDSA+SHA384:ECDSA+SHA512") == 1 &&
               SSL_CTX_set_cipher_list(ctx, "aECDSA") == 1;
    }
    if (key_type == EVP_PKEY_RSA) {
        return SSL_CTX_set1_sigalgs_list(
                   ctx, "rsa_pss_rsae_sha256:rsa_pss_rsae_sha384:"
                        "rsa_pss_rsae_sha512:RSA+SHA256:RSA+SHA384:"
                        "RSA+SHA512") == 1 &&
               SSL_CTX_set_cipher_list(ctx, "aRSA") == 1;
    }
    return 1;
}
