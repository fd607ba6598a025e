/*
 * tack_cli_util.c -- what every command of the tool needs: messages, reading
 * files of each kind, writing outputs safely, passwords, times, encodings.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "tack_cli.h"

int cli_now_set;
time_t cli_now_value;

/* ---- messages ------------------------------------------------------------ */

void cli_err(const char *fmt, ...)
{
    va_list ap;

    fputs("tack: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;

    fputs("tack: warning: ", stderr);
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
        fprintf(stderr, "tack:   openssl: %s\n", buf);
    }
}

/* ---- files --------------------------------------------------------------- */

int cli_read_file(const char *path, char **out, size_t *out_len)
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

                if (cap >= TACK_FILE_MAX_DEFAULT) {
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
    st = tack_file_read(path, TACK_FILE_MAX_DEFAULT, out, out_len);
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

int cli_sync_files(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc, e;

    if (fd < 0) {
        return -1;
    }
    rc = syncfs(fd);
    e = errno;
    close(fd);
    errno = e;
    return rc;
}

int cli_fsync_dir(const char *path)
{
    char *dir = strdup(path);
    char *slash;
    int fd, rc = 0;

    if (dir == NULL) {
        return -1;
    }
    slash = strrchr(dir, '/');
    if (slash == NULL) {
        strcpy(dir, ".");
    } else if (slash == dir) {
        slash[1] = '\0';
    } else {
        *slash = '\0';
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        /* Some file systems refuse fsync on a directory; the rename is then
         * as durable as they make it. */
        if (fsync(fd) != 0 && errno != EINVAL) {
            rc = -1;
        }
        close(fd);
    }
    free(dir);
    return rc;
}

int cli_write_temp(const char *path, const void *data, size_t len, mode_t mode,
                   int sync, char **tmp)
{
    const uint8_t *p = data;
    size_t plen = strlen(path);
    char *name = malloc(plen + 16);
    mode_t mask;
    int fd;

    if (name == NULL) {
        cli_err("%s: out of memory", path);
        return CLI_EXIT_USAGE;
    }
    memcpy(name, path, plen);
    memcpy(name + plen, ".tmp.XXXXXX", 12);
    fd = mkstemp(name); /* created 0600: a key is never readable by others */
    if (fd < 0) {
        cli_err("%s: cannot create a file there: %s", path, strerror(errno));
        free(name);
        return CLI_EXIT_USAGE;
    }
    if (mode != 0600) {
        mask = umask(0);
        umask(mask);
        if (fchmod(fd, mode & ~mask) != 0) {
            goto fail;
        }
    }
    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            goto fail;
        }
        p += n;
        len -= (size_t)n;
    }
    if (sync && fsync(fd) != 0) {
        goto fail;
    }
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    *tmp = name;
    return CLI_EXIT_OK;

fail:
    cli_err("%s: cannot write: %s", path, strerror(errno));
    if (fd >= 0) {
        close(fd);
    }
    unlink(name);
    free(name);
    return CLI_EXIT_USAGE;
}

int cli_write_atomic(const char *path, const void *data, size_t len,
                     mode_t mode)
{
    char *tmp = NULL;
    int rc = cli_write_temp(path, data, len, mode, 1, &tmp);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (rename(tmp, path) != 0) {
        cli_err("%s: cannot replace: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return CLI_EXIT_USAGE;
    }
    free(tmp);
    if (cli_fsync_dir(path) != 0) {
        cli_err("%s: cannot sync its directory: %s", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_commit_temp(char *tmp, const char *path, int force)
{
    int e;

    if (force) {
        if (rename(tmp, path) != 0) {
            cli_err("%s: cannot replace: %s", path, strerror(errno));
            unlink(tmp);
            free(tmp);
            return CLI_EXIT_USAGE;
        }
        free(tmp);
        return CLI_EXIT_OK;
    }
    /* link() puts the complete file in place and fails if the name appeared
     * meanwhile, which rename() would silently replace. */
    if (link(tmp, path) == 0) {
        unlink(tmp);
        free(tmp);
        return CLI_EXIT_OK;
    }
    e = errno;
    if (e == EEXIST) {
        cli_err("%s: exists; not overwritten (use --force to replace it)",
                path);
    } else if (e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == EMLINK) {
        /* No hard links on this file system: fall back to rename. */
        if (rename(tmp, path) == 0) {
            free(tmp);
            return CLI_EXIT_OK;
        }
        cli_err("%s: cannot create: %s", path, strerror(errno));
    } else {
        cli_err("%s: cannot create: %s", path, strerror(e));
    }
    unlink(tmp);
    free(tmp);
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
    if (cli_is_dir(path)) {
        cli_err("%s: is a directory", path);
        return CLI_EXIT_USAGE;
    }
    if (!force && access(path, F_OK) == 0) {
        cli_err("%s: exists; not overwritten (use --force to replace it)",
                path);
        return CLI_EXIT_USAGE;
    }
    rc = cli_write_temp(path, data, len, mode, 1, &tmp);
    if (rc == CLI_EXIT_OK) {
        rc = cli_commit_temp(tmp, path, force);
    }
    if (rc == CLI_EXIT_OK && cli_fsync_dir(path) != 0) {
        cli_err("%s: cannot sync its directory: %s", path, strerror(errno));
        rc = CLI_EXIT_USAGE;
    }
    return rc;
}

/* ---- passwords ----------------------------------------------------------- */

void cli_password_free(char *pw, size_t len)
{
    if (pw != NULL) {
        OPENSSL_cleanse(pw, len);
        free(pw);
    }
}

/* The terminal settings to put back if a signal ends the tool while echo is
 * off at the prompt; otherwise the user's shell would stay silent. */
static struct termios cli_tty_saved;
static volatile sig_atomic_t cli_tty_quiet;
static const int cli_tty_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define CLI_TTY_NSIGNALS (sizeof(cli_tty_signals) / sizeof(cli_tty_signals[0]))

static void cli_tty_on_signal(int sig)
{
    /* tcsetattr, signal and raise are async-signal-safe. */
    if (cli_tty_quiet) {
        tcsetattr(STDIN_FILENO, TCSANOW, &cli_tty_saved);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* cli_password_prompt reads one line from the terminal on stdin with echo
 * off.  Returns a malloc'd string or NULL. */
static char *cli_password_prompt(const char *prompt, size_t *out_len)
{
    struct termios old, quiet;
    struct sigaction sa, prev[CLI_TTY_NSIGNALS];
    char buf[1024];
    char *res = NULL;
    size_t len, i;
    int restored;

    if (tcgetattr(STDIN_FILENO, &old) != 0) {
        return NULL;
    }
    quiet = old;
    quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    quiet.c_lflag |= ICANON;
    fputs(prompt, stderr);
    fflush(stderr);
    cli_tty_saved = old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = cli_tty_on_signal;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < CLI_TTY_NSIGNALS; i++) {
        sigaction(cli_tty_signals[i], &sa, &prev[i]);
    }
    cli_tty_quiet = 1;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) {
        cli_tty_quiet = 0;
        for (i = 0; i < CLI_TTY_NSIGNALS; i++) {
            sigaction(cli_tty_signals[i], &prev[i], NULL);
        }
        return NULL;
    }
    if (fgets(buf, sizeof(buf), stdin) != NULL) {
        len = strcspn(buf, "\r\n");
        buf[len] = '\0';
        res = malloc(len + 1);
        if (res != NULL) {
            memcpy(res, buf, len + 1);
            *out_len = len;
        }
    }
    restored = tcsetattr(STDIN_FILENO, TCSANOW, &old);
    (void)restored;
    cli_tty_quiet = 0;
    for (i = 0; i < CLI_TTY_NSIGNALS; i++) {
        sigaction(cli_tty_signals[i], &prev[i], NULL);
    }
    fputc('\n', stderr);
    OPENSSL_cleanse(buf, sizeof(buf));
    return res;
}

static char *cli_strdup_len(const char *s, size_t len)
{
    char *r = malloc(len + 1);

    if (r != NULL) {
        memcpy(r, s, len);
        r[len] = '\0';
    }
    return r;
}

int cli_password_get(const cli_pw_opts_t *pw, const char *what, int confirm,
                     char **out, size_t *out_len)
{
    const char *env;
    char *res = NULL;
    size_t len = 0;

    if (pw != NULL && pw->password != NULL) {
        len = strlen(pw->password);
        res = cli_strdup_len(pw->password, len);
    } else if (pw != NULL && pw->password_file != NULL) {
        char *text = NULL;
        size_t tlen = 0;
        int rc = cli_read_file(pw->password_file, &text, &tlen);

        if (rc != CLI_EXIT_OK) {
            return rc;
        }
        /* The first line is the password; a trailing newline is not. */
        len = strcspn(text, "\r\n");
        res = cli_strdup_len(text, len);
        OPENSSL_cleanse(text, tlen);
        free(text);
    } else if ((env = getenv("TACK_PASSWORD")) != NULL) {
        len = strlen(env);
        res = cli_strdup_len(env, len);
    } else if (isatty(STDIN_FILENO)) {
        char prompt[256];

        snprintf(prompt, sizeof(prompt), "Password for %s: ", what);
        res = cli_password_prompt(prompt, &len);
        if (res == NULL) {
            cli_err("%s: no password read from the terminal", what);
            return CLI_EXIT_USAGE;
        }
        if (confirm) {
            size_t len2 = 0;
            char *again = cli_password_prompt("Again, to confirm: ", &len2);

            if (again == NULL || len2 != len ||
                CRYPTO_memcmp(again, res, len) != 0) {
                cli_password_free(again, len2);
                cli_password_free(res, len);
                cli_err("%s: the two passwords differ", what);
                return CLI_EXIT_USAGE;
            }
            cli_password_free(again, len2);
        }
        if (len == 0) {
            cli_password_free(res, len);
            cli_err("%s: empty password", what);
            return CLI_EXIT_USAGE;
        }
    } else {
        cli_err("%s: a password is needed: give -p PASSWORD, "
                "--password-file FILE or $TACK_PASSWORD, or run on a "
                "terminal to be asked",
                what);
        return CLI_EXIT_USAGE;
    }
    if (res == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    *out = res;
    *out_len = len;
    return CLI_EXIT_OK;
}

/* ---- typed files --------------------------------------------------------- */

/* cli_pem_error explains a failed PEM read of |path| wanting |label|. */
static int cli_pem_error(const char *path, const char *label, tack_status_t st,
                         unsigned line)
{
    switch (st) {
    case TACK_ERR_PEM_NO_BLOCK:
        cli_err("%s: not a %s file (no PEM block in it)", path, label);
        break;
    case TACK_ERR_PEM_WRONG_LABEL:
        cli_err("%s: not a %s file (it has PEM blocks, but no "
                "\"BEGIN %s\")",
                path, label, label);
        break;
    default:
        if (line != 0) {
            cli_err("%s: line %u: %s block: %s", path, line, label,
                    tack_status_str(st));
        } else {
            cli_err("%s: %s block: %s", path, label, tack_status_str(st));
        }
        break;
    }
    return CLI_EXIT_USAGE;
}

int cli_load_keyfile(const char *path, tack_keyfile_t *out)
{
    char *text = NULL;
    size_t len = 0;
    unsigned line = 0;
    tack_status_t st;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_keyfile_from_pem(out, text, len, &line);
    OPENSSL_cleanse(text, len);
    free(text);
    if (st != TACK_OK) {
        return cli_pem_error(path, TACK_PEM_LABEL_KEY, st, line);
    }
    return CLI_EXIT_OK;
}

int cli_load_key(const char *path, const cli_pw_opts_t *pw, EVP_PKEY **out)
{
    tack_keyfile_t kf;
    char *pass = NULL;
    size_t pass_len = 0;
    tack_status_t st;
    int rc = cli_load_keyfile(path, &kf);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = cli_password_get(pw, path, 0, &pass, &pass_len);
    if (rc != CLI_EXIT_OK) {
        OPENSSL_cleanse(&kf, sizeof(kf));
        return rc;
    }
    st = tack_keyfile_decrypt(&kf, pass, pass_len, out);
    cli_password_free(pass, pass_len);
    OPENSSL_cleanse(&kf, sizeof(kf));
    if (st == TACK_ERR_WRONG_PASSWORD) {
        cli_err("%s: wrong password (the key file's MAC does not match)", path);
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        cli_err("%s: cannot decrypt the key: %s", path, tack_status_str(st));
        cli_ssl_errors();
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_load_cert(const char *path, X509 **out)
{
    char *text = NULL;
    size_t len = 0;
    X509 *cert = NULL;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (strstr(text, "-----BEGIN") != NULL) {
        BIO *bio = BIO_new_mem_buf(text, (int)len);

        /* The first certificate of a chain file is the end-entity one. */
        if (bio != NULL) {
            cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
            BIO_free(bio);
        }
        if (cert == NULL) {
            ERR_clear_error();
            if (strstr(text, "-----BEGIN CERTIFICATE-----") == NULL) {
                cli_err("%s: not a certificate file (no \"BEGIN "
                        "CERTIFICATE\" PEM block)",
                        path);
            } else {
                cli_err("%s: the certificate does not parse", path);
            }
            free(text);
            return CLI_EXIT_USAGE;
        }
    } else {
        const unsigned char *p = (const unsigned char *)text;

        cert = d2i_X509(NULL, &p, (long)len);
        if (cert == NULL) {
            ERR_clear_error();
            cli_err("%s: not a certificate file (neither PEM nor DER)", path);
            free(text);
            return CLI_EXIT_USAGE;
        }
    }
    free(text);
    *out = cert;
    return CLI_EXIT_OK;
}

int cli_load_tacks(const char *path, tack_t *out, size_t max, size_t *count)
{
    char *text = NULL;
    size_t len = 0;
    unsigned line = 0;
    tack_status_t st;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_tacks_from_pem(out, max, count, text, len, &line);
    free(text);
    if (st == TACK_ERR_TOO_MANY_TACKS) {
        if (max == 1) {
            cli_err("%s: holds more than one TACK (draft-00 carries one; "
                    "a TACK pair needs --format draft-02)",
                    path);
        } else {
            cli_err("%s: holds more than %zu TACKs", path, max);
        }
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        return cli_pem_error(path, TACK_PEM_LABEL_TACK, st, line);
    }
    return CLI_EXIT_OK;
}

int cli_load_breaksigs(const char *path, tack_breaksig_t *out, size_t max,
                       size_t *count)
{
    char *text = NULL;
    size_t len = 0, n = 0;
    unsigned line = 0;
    tack_status_t st;
    int rc = cli_read_file(path, &text, &len);

    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_breaksigs_from_pem(out + *count, max - *count, &n, text, len,
                                 &line);
    free(text);
    if (st == TACK_ERR_TOO_MANY_BREAKSIGS) {
        cli_err("%s: too many break signatures (a server carries at most "
                "%d)",
                path, TACK_MAX_BREAKSIGS);
        return CLI_EXIT_USAGE;
    }
    if (st != TACK_OK) {
        return cli_pem_error(path, TACK_PEM_LABEL_BREAKSIG, st, line);
    }
    *count += n;
    return CLI_EXIT_OK;
}

int cli_pem_with_header(char **out, size_t *out_len, const char *label,
                        const uint8_t *items, size_t item_len, size_t n)
{
    char head[128], when[32];
    size_t cap, len, i;
    char *buf;

    cli_format_time(time(NULL), 1, when, sizeof(when));
    snprintf(head, sizeof(head), "Created by tack %s\nCreated at %s\n",
             TACK_CLI_VERSION, when);
    cap = n * (strlen(head) + 2 * item_len + 128) + 1;
    buf = malloc(cap);
    if (buf == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    len = 0;
    for (i = 0; i < n; i++) {
        char *pem = NULL;
        size_t pem_len = 0;
        size_t hl = strlen(head);

        if (tack_pem_encode(&pem, &pem_len, label, items + i * item_len,
                            item_len) != TACK_OK) {
            free(buf);
            cli_err("cannot encode a %s block", label);
            return CLI_EXIT_USAGE;
        }
        if (len + hl + pem_len + 1 > cap) {
            OPENSSL_cleanse(pem, pem_len);
            free(pem);
            free(buf);
            cli_err("cannot encode a %s block", label);
            return CLI_EXIT_USAGE;
        }
        memcpy(buf + len, head, hl);
        memcpy(buf + len + hl, pem, pem_len);
        len += hl + pem_len;
        OPENSSL_cleanse(pem, pem_len);
        free(pem);
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return CLI_EXIT_OK;
}

/* ---- times --------------------------------------------------------------- */

time_t cli_now(void)
{
    return cli_now_set ? cli_now_value : time(NULL);
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
    struct tm tm;
    int y, mo = 1, d = 1, h = 0, mi = 0, se = 0;
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
    if (*s == '-') {
        s++;
        if (!cli_parse_fixed(&s, 2, &mo)) {
            return 0;
        }
        if (*s == '-') {
            s++;
            if (!cli_parse_fixed(&s, 2, &d)) {
                return 0;
            }
            if (*s == 'T' || *s == 't' || *s == ' ') {
                s++;
                if (!cli_parse_fixed(&s, 2, &h)) {
                    return 0;
                }
                if (*s == ':') {
                    s++;
                    if (!cli_parse_fixed(&s, 2, &mi)) {
                        return 0;
                    }
                    if (*s == ':') {
                        s++;
                        if (!cli_parse_fixed(&s, 2, &se)) {
                            return 0;
                        }
                    }
                }
            }
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

    if (gmtime_r(&t, &tm) == NULL) {
        snprintf(out, out_size, "?");
        return;
    }
    if (secs && tm.tm_sec != 0) {
        strftime(out, out_size, "%Y-%m-%dT%H:%M:%SZ", &tm);
    } else {
        strftime(out, out_size, "%Y-%m-%dT%H:%MZ", &tm);
    }
}

int cli_asn1_time(const ASN1_TIME *at, time_t *out)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    if (at == NULL || ASN1_TIME_to_tm(at, &tm) != 1) {
        return 0;
    }
    *out = timegm(&tm);
    return 1;
}

/* ---- encodings and numbers ----------------------------------------------- */

void cli_hex(const uint8_t *in, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < len; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * len] = '\0';
}

static int cli_hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

int cli_unhex(const char *in, uint8_t *out, size_t len)
{
    size_t i;

    if (strlen(in) != 2 * len) {
        return 0;
    }
    for (i = 0; i < len; i++) {
        int hi = cli_hexval((unsigned char)in[2 * i]);
        int lo = cli_hexval((unsigned char)in[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            return 0;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}

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
        n = BIO_get_mem_data(bio, &data);
        res = malloc((size_t)n + 1);
        if (res != NULL) {
            memcpy(res, data, (size_t)n);
            res[n] = '\0';
        }
    }
    BIO_free(bio);
    return res;
}

void cli_note(FILE *fp, json_t *report, const char *label, const char *fmt,
              ...)
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
