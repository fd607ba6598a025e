/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * loadgen.c -- a TLS handshake load generator for the mod_tack benchmarks.
 *
 * It keeps N connections in flight against one address, each doing one full
 * handshake (no session reuse, no tickets) and optionally asking for a TACK
 * (the empty 0xF300 extension of draft-perrin-tls-tack).  Replies are counted
 * and, when an expected body is given, compared byte for byte.  It is
 * event-driven (epoll, non-blocking sockets), one event loop per thread, so a
 * single thread pinned to one core keeps dozens of handshakes in flight.
 *
 * Every handshake ends politely: the client sends close_notify and waits for
 * the server to close first.  So the TIME_WAIT state stays on the server side
 * and a long run never exhausts the client's ephemeral ports, and the server
 * always reads the client's last flight (a TLS 1.3 server finishes its
 * handshake only when it has read the client's Finished).
 *
 * Output: a human line on stderr, and one machine-readable line on stdout:
 *   RESULT handshakes=N failures=F elapsed=S rate=R ...
 * Exit status: 0 when every attempted handshake succeeded (and at least one
 * did), 1 on any failure, 2 on a usage error.  Run with --help for options.
 *
 * Other users: the reliability tests drive it during graceful restarts
 * (--await to ride over a server that is not listening yet, --http to send a
 * request on each connection and check the status).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#define TACK_EXT_TYPE 0xF300
#define MAX_REPLY 65535
#define MAX_REPORTED_ERRORS 5
/* How often an event loop wakes up to check deadlines, in milliseconds. */
#define TICK_MS 20
/* Retry delay for a refused connection while --await is running. */
#define AWAIT_RETRY_S 0.005

/* Failure kinds, counted separately and printed by name. */
enum {
    F_CONNECT,
    F_HANDSHAKE,
    F_TIMEOUT,
    F_VERSION,
    F_TACK_MISSING,
    F_TACK_UNEXPECTED,
    F_TACK_MISMATCH,
    F_HTTP,
    F_COUNT
};
static const char *const failure_names[F_COUNT] = {
    "connect",      "handshake",       "timeout",       "version",
    "tack_missing", "tack_unexpected", "tack_mismatch", "http",
};

typedef struct {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    const char *target;
    int concurrency;
    int threads;
    double duration; /* seconds; 0 = no time bound */
    long count;      /* connections to attempt; 0 = no count bound */
    double timeout;  /* per connection */
    double await;    /* retry refused connections this long at start */
    int tls_version; /* 0 = any */
    char **names;    /* SNI names, used round-robin */
    size_t nnames;
    int tack;
    int expect_none;
    uint8_t *expect; /* expected reply body, or NULL */
    size_t expect_len;
    const char *http_path;
    long max_failures; /* stop after this many; 0 = never stop early */
    int quiet;
    const char *groups;
    const char *sigalgs;
    const char *ciphers;
} opts_t;

static opts_t opt;
static SSL_CTX *ctx;
static double t_begin;
static double t_deadline;

static atomic_int stopping;
static atomic_long launched;
static atomic_long handshakes;
static atomic_long failures;
static atomic_long fail_kind[F_COUNT];
static atomic_long tack_replies;
static atomic_long tack_bytes;
static atomic_long http_ok;
static atomic_long reported;
static atomic_ulong name_next;

enum {
    ST_IDLE,       /* slot unused (stopping) */
    ST_WAIT,       /* waiting to retry a refused connect (--await) */
    ST_RELAUNCH,   /* failed early: start the next connection at the next
                      tick rather than recursing */
    ST_CONNECTING, /* TCP connect in progress */
    ST_HANDSHAKE,
    ST_HTTP_WRITE,
    ST_HTTP_READ,
    ST_CLOSING /* close_notify sent, waiting for the server to close */
};

struct worker;

typedef struct {
    struct worker *w;
    int fd;
    SSL *ssl;
    int state;
    uint32_t events; /* what epoll is waiting for on fd */
    double t_start;
    double t_retry;
    int reply_seen;
    int reply_ok;
    size_t reply_len;
    size_t io_off;   /* HTTP: bytes of the request sent */
    char status[16]; /* HTTP: first bytes of the response */
    size_t status_len;
    char request[512];
    size_t request_len;
} conn_t;

typedef struct worker {
    pthread_t tid;
    int ep;
    int nconns;
    int active;
    conn_t *conns;
} worker_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;
    fputs("loadgen: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    ERR_print_errors_fp(stderr);
    exit(2);
}

/* ---- failures --------------------------------------------------------- */

static void note_failure(int kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note_failure(int kind, const char *fmt, ...)
{
    long n = atomic_fetch_add(&failures, 1) + 1;
    atomic_fetch_add(&fail_kind[kind], 1);
    if (atomic_fetch_add(&reported, 1) < MAX_REPORTED_ERRORS) {
        char buf[512];
        va_list ap;
        unsigned long e;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        e = ERR_peek_error();
        if (e != 0) {
            char ebuf[256];
            ERR_error_string_n(e, ebuf, sizeof(ebuf));
            fprintf(stderr, "loadgen: %s: %s: %s\n", failure_names[kind], buf,
                    ebuf);
        } else {
            fprintf(stderr, "loadgen: %s: %s\n", failure_names[kind], buf);
        }
    }
    ERR_clear_error();
    if (opt.max_failures > 0 && n >= opt.max_failures) {
        atomic_store(&stopping, 1);
    }
}

/* ---- the TACK extension (client side) --------------------------------- */

/* The request is the empty extension: f3 00 00 00 on the wire. */
static int tack_ext_add(SSL *s, unsigned int ext_type, unsigned int context,
                        const unsigned char **out, size_t *outlen, X509 *x,
                        size_t chainidx, int *al, void *add_arg)
{
    (void)s, (void)ext_type, (void)context, (void)x, (void)chainidx;
    (void)al, (void)add_arg;
    *out = NULL;
    *outlen = 0;
    return 1;
}

static int tack_ext_parse(SSL *s, unsigned int ext_type, unsigned int context,
                          const unsigned char *in, size_t inlen, X509 *x,
                          size_t chainidx, int *al, void *parse_arg)
{
    conn_t *c = SSL_get_app_data(s);
    (void)ext_type, (void)context, (void)x, (void)chainidx, (void)al;
    (void)parse_arg;
    c->reply_seen = 1;
    c->reply_len = inlen;
    c->reply_ok = opt.expect == NULL || (inlen == opt.expect_len &&
                                         memcmp(in, opt.expect, inlen) == 0);
    return 1;
}

/* load_expect reads the expected reply body from |path|: either a PEM file
 * as `tack serverinfo` or OpenSSL write it ("SERVERINFO FOR ..." holding
 * type || length || body, or "SERVERINFOV2 FOR ..." with a 4-byte context
 * first), from which the 0xF300 entry is taken, or the raw body. */
static void load_expect(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf;
    size_t len;
    long size;

    if (fp == NULL) {
        die("%s: %s", path, strerror(errno));
    }
    if (fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 ||
        fseek(fp, 0, SEEK_SET) != 0) {
        die("%s: cannot size the file", path);
    }
    buf = malloc((size_t)size + 1);
    if (buf == NULL) {
        die("out of memory");
    }
    len = fread(buf, 1, (size_t)size, fp);
    fclose(fp);
    if (len != (size_t)size) {
        die("%s: short read", path);
    }
    if (len >= 10 && memcmp(buf, "-----BEGIN", 10) == 0) {
        BIO *bio = BIO_new_mem_buf(buf, (int)len);
        char *name = NULL, *header = NULL;
        unsigned char *data = NULL;
        long dlen = 0;
        int found = 0;
        while (!found && bio != NULL &&
               PEM_read_bio(bio, &name, &header, &data, &dlen) == 1) {
            size_t skip = 0;
            if (strncmp(name, "SERVERINFOV2 FOR ", 17) == 0) {
                skip = 4;
            } else if (strncmp(name, "SERVERINFO FOR ", 15) != 0) {
                die("%s: PEM block \"%s\" is not a SERVERINFO block", path,
                    name);
            }
            /* Walk the [context] type length body entries. */
            while ((size_t)dlen >= skip + 4) {
                const uint8_t *p = data + skip;
                unsigned type = (unsigned)p[0] << 8 | p[1];
                size_t elen = (size_t)p[2] << 8 | p[3];
                if ((size_t)dlen - skip - 4 < elen) {
                    die("%s: truncated SERVERINFO entry", path);
                }
                if (type == TACK_EXT_TYPE) {
                    opt.expect = malloc(elen ? elen : 1);
                    memcpy(opt.expect, p + 4, elen);
                    opt.expect_len = elen;
                    found = 1;
                    break;
                }
                memmove(data, p + 4 + elen, (size_t)dlen - skip - 4 - elen);
                dlen -= (long)(skip + 4 + elen);
            }
            OPENSSL_free(name);
            OPENSSL_free(header);
            OPENSSL_free(data);
        }
        BIO_free(bio);
        free(buf);
        if (!found) {
            die("%s: no SERVERINFO entry for extension %d", path,
                TACK_EXT_TYPE);
        }
        return;
    }
    opt.expect = buf;
    opt.expect_len = len;
}

/* ---- connections ------------------------------------------------------ */

static void conn_watch(conn_t *c, uint32_t events)
{
    struct epoll_event ev;
    if (c->events == events) {
        return;
    }
    ev.events = events;
    ev.data.ptr = c;
    if (epoll_ctl(c->w->ep, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd,
                  &ev) != 0) {
        perror("loadgen: epoll_ctl");
        exit(2);
    }
    c->events = events;
}

static void conn_close(conn_t *c)
{
    if (c->ssl != NULL) {
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    if (c->fd >= 0) {
        close(c->fd); /* also removes it from the epoll set */
        c->fd = -1;
    }
    c->events = 0;
}

static int may_launch(void)
{
    if (atomic_load(&stopping)) {
        return 0;
    }
    if (opt.duration > 0 && now_s() >= t_deadline) {
        atomic_store(&stopping, 1);
        return 0;
    }
    if (opt.count > 0 && atomic_fetch_add(&launched, 1) >= opt.count) {
        atomic_store(&stopping, 1);
        return 0;
    }
    return 1;
}

static void conn_connect(conn_t *c);

/* conn_launch starts the next connection of slot |c|, or retires the slot
 * once the run is over. */
static void conn_launch(conn_t *c)
{
    if (!may_launch()) {
        c->state = ST_IDLE;
        c->w->active--;
        return;
    }
    c->t_start = now_s();
    conn_connect(c);
}

static void conn_connect(conn_t *c)
{
    int one = 1;
    c->reply_seen = c->reply_ok = 0;
    c->reply_len = 0;
    c->io_off = c->status_len = 0;
    c->fd = socket(opt.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) {
        note_failure(F_CONNECT, "socket: %s", strerror(errno));
        c->state = ST_RELAUNCH;
        return;
    }
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->state = ST_CONNECTING;
    if (connect(c->fd, (struct sockaddr *)&opt.addr, opt.addrlen) != 0 &&
        errno != EINPROGRESS) {
        int err = errno;
        if (err == ECONNREFUSED && now_s() < t_begin + opt.await) {
            conn_close(c);
            c->state = ST_WAIT;
            c->t_retry = now_s() + AWAIT_RETRY_S;
            return;
        }
        note_failure(F_CONNECT, "%s: %s", opt.target, strerror(err));
        conn_close(c);
        c->state = ST_RELAUNCH;
        return;
    }
    conn_watch(c, EPOLLOUT);
}

/* conn_done ends the connection of slot |c| and starts the next one. */
static void conn_done(conn_t *c)
{
    conn_close(c);
    conn_launch(c);
}

static void conn_fail(conn_t *c, int kind, const char *what)
{
    note_failure(kind, "%s", what);
    conn_done(c);
}

static void conn_start_tls(conn_t *c)
{
    c->ssl = SSL_new(ctx);
    if (c->ssl == NULL || !SSL_set_fd(c->ssl, c->fd)) {
        conn_fail(c, F_HANDSHAKE, "SSL_new");
        return;
    }
    SSL_set_app_data(c->ssl, c);
    SSL_set_connect_state(c->ssl);
    if (opt.nnames > 0) {
        unsigned long i = atomic_fetch_add(&name_next, 1) % opt.nnames;
        SSL_set_tlsext_host_name(c->ssl, opt.names[i]);
        if (opt.http_path != NULL) {
            c->request_len = (size_t)snprintf(
                c->request, sizeof(c->request),
                "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                opt.http_path, opt.names[i]);
        }
    } else if (opt.http_path != NULL) {
        c->request_len = (size_t)snprintf(
            c->request, sizeof(c->request),
            "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
            opt.http_path);
    }
    if (c->request_len >= sizeof(c->request)) {
        c->request_len = sizeof(c->request) - 1;
    }
    c->state = ST_HANDSHAKE;
}

/* conn_want maps an OpenSSL WANT_* result to the epoll interest; returns 0
 * when |ret| is a real error. */
static int conn_want(conn_t *c, int ret)
{
    switch (SSL_get_error(c->ssl, ret)) {
    case SSL_ERROR_WANT_READ:
        conn_watch(c, EPOLLIN);
        return 1;
    case SSL_ERROR_WANT_WRITE:
        conn_watch(c, EPOLLOUT);
        return 1;
    default:
        return 0;
    }
}

static void conn_closing(conn_t *c)
{
    int r;
    c->state = ST_CLOSING;
    r = SSL_shutdown(c->ssl);
    if (r < 0 && SSL_get_error(c->ssl, r) == SSL_ERROR_WANT_WRITE) {
        conn_watch(c, EPOLLOUT);
        return;
    }
    ERR_clear_error();
    conn_watch(c, EPOLLIN);
}

static void conn_handshake_done(conn_t *c)
{
    if (opt.tls_version != 0 && SSL_version(c->ssl) != opt.tls_version) {
        conn_fail(c, F_VERSION, SSL_get_version(c->ssl));
        return;
    }
    if (opt.tack) {
        if (c->reply_seen) {
            atomic_fetch_add(&tack_replies, 1);
            atomic_fetch_add(&tack_bytes, (long)c->reply_len);
        }
        if (opt.expect_none && c->reply_seen) {
            conn_fail(c, F_TACK_UNEXPECTED, "the server sent a TACK reply");
            return;
        }
        if (opt.expect != NULL && !c->reply_seen) {
            conn_fail(c, F_TACK_MISSING, "no TACK reply");
            return;
        }
        if (opt.expect != NULL && !c->reply_ok) {
            char buf[80];
            snprintf(buf, sizeof(buf), "reply of %zu bytes, expected %zu",
                     c->reply_len, opt.expect_len);
            conn_fail(c, F_TACK_MISMATCH, buf);
            return;
        }
    }
    atomic_fetch_add(&handshakes, 1);
    if (opt.http_path != NULL) {
        c->state = ST_HTTP_WRITE;
        conn_watch(c, EPOLLOUT);
        return;
    }
    conn_closing(c);
}

static void conn_http(conn_t *c)
{
    char buf[16384];
    int r;
    if (c->state == ST_HTTP_WRITE) {
        while (c->io_off < c->request_len) {
            r = SSL_write(c->ssl, c->request + c->io_off,
                          (int)(c->request_len - c->io_off));
            if (r <= 0) {
                if (!conn_want(c, r)) {
                    conn_fail(c, F_HTTP, "write");
                }
                return;
            }
            c->io_off += (size_t)r;
        }
        c->state = ST_HTTP_READ;
    }
    for (;;) {
        r = SSL_read(c->ssl, buf, sizeof(buf));
        if (r > 0) {
            size_t room = sizeof(c->status) - c->status_len;
            size_t n = (size_t)r < room ? (size_t)r : room;
            memcpy(c->status + c->status_len, buf, n);
            c->status_len += n;
            continue;
        }
        if (conn_want(c, r)) {
            return;
        }
        break; /* EOF or error: the response is complete */
    }
    if (c->status_len >= 12 && memcmp(c->status, "HTTP/1.", 7) == 0 &&
        memcmp(c->status + 8, " 200", 4) == 0) {
        atomic_fetch_add(&http_ok, 1);
        ERR_clear_error();
        conn_done(c);
    } else {
        char what[64];
        snprintf(what, sizeof(what), "status line \"%.*s\"",
                 (int)(c->status_len > 12 ? 12 : c->status_len), c->status);
        conn_fail(c, F_HTTP, what);
    }
}

static void conn_event(conn_t *c, uint32_t events)
{
    int r;
    (void)events; /* the state machine asks OpenSSL what it needs */
    switch (c->state) {
    case ST_CONNECTING: {
        int err = 0;
        socklen_t len = sizeof(err);
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
            if (err == ECONNREFUSED && now_s() < t_begin + opt.await) {
                conn_close(c);
                c->state = ST_WAIT;
                c->t_retry = now_s() + AWAIT_RETRY_S;
                return;
            }
            note_failure(F_CONNECT, "%s: %s", opt.target, strerror(err));
            conn_done(c);
            return;
        }
        conn_start_tls(c);
        if (c->state != ST_HANDSHAKE) {
            return;
        }
    }
        /* fall through */
    case ST_HANDSHAKE:
        r = SSL_do_handshake(c->ssl);
        if (r == 1) {
            conn_handshake_done(c);
        } else if (!conn_want(c, r)) {
            conn_fail(c, F_HANDSHAKE, opt.target);
        }
        return;
    case ST_HTTP_WRITE:
    case ST_HTTP_READ:
        conn_http(c);
        return;
    case ST_CLOSING: {
        char buf[4096];
        if (SSL_get_shutdown(c->ssl) & SSL_SENT_SHUTDOWN) {
            do {
                r = SSL_read(c->ssl, buf, sizeof(buf));
            } while (r > 0);
            if (r < 0 && SSL_get_error(c->ssl, r) == SSL_ERROR_WANT_READ) {
                conn_watch(c, EPOLLIN);
                return;
            }
            /* close_notify, EOF or reset: the server is done. */
            ERR_clear_error();
            conn_done(c);
        } else {
            conn_closing(c);
        }
        return;
    }
    default:
        return;
    }
}

static void worker_check_timers(worker_t *w)
{
    double now = now_s();
    int i;
    for (i = 0; i < w->nconns; i++) {
        conn_t *c = &w->conns[i];
        if (c->state == ST_RELAUNCH) {
            conn_launch(c);
        } else if (c->state == ST_WAIT) {
            if (atomic_load(&stopping)) {
                c->state = ST_IDLE;
                w->active--;
            } else if (now >= c->t_retry) {
                conn_connect(c);
            }
        } else if (c->state != ST_IDLE && now - c->t_start > opt.timeout) {
            if (c->state == ST_CLOSING) {
                conn_done(c); /* the handshake itself succeeded */
            } else {
                char what[64];
                snprintf(what, sizeof(what), "no answer within %.1f s",
                         opt.timeout);
                conn_fail(c, F_TIMEOUT, what);
            }
        }
    }
    if (opt.duration > 0 && now >= t_deadline) {
        atomic_store(&stopping, 1);
    }
}

static void *worker_run(void *arg)
{
    worker_t *w = arg;
    struct epoll_event evs[64];
    double next_tick = now_s();
    int i, n;

    for (i = 0; i < w->nconns; i++) {
        conn_launch(&w->conns[i]);
    }
    while (w->active > 0) {
        n = epoll_wait(w->ep, evs, 64, TICK_MS);
        for (i = 0; i < n; i++) {
            conn_event(evs[i].data.ptr, evs[i].events);
        }
        if (now_s() >= next_tick) {
            worker_check_timers(w);
            next_tick = now_s() + TICK_MS / 1000.0;
        }
    }
    return NULL;
}

/* ---- set-up ------------------------------------------------------------- */

static void usage(FILE *fp)
{
    fputs(
        "usage: loadgen [options] HOST:PORT\n"
        "\n"
        "Keeps N connections in flight, each doing one full TLS handshake\n"
        "(no session reuse, no tickets), optionally asking for a TACK\n"
        "(extension 0xF300), then closing politely (close_notify, the\n"
        "server closes first).  Stops at the time or count bound, whichever\n"
        "comes first, lets the connections in flight finish, and prints\n"
        "\n"
        "  RESULT handshakes=N failures=F elapsed=S rate=HS_PER_S ...\n"
        "\n"
        "on stdout (a human summary goes to stderr).  Exit status 0 when "
        "every\n"
        "attempted handshake succeeded and at least one did, 1 on any\n"
        "failure, 2 on a usage or set-up error.\n"
        "\n"
        "Load:\n"
        "  -c, --concurrency N    connections in flight (default 16)\n"
        "  -t, --threads N        event-loop threads sharing them (default 1)\n"
        "  -d, --duration SECS    time bound, fractional (default 10 unless\n"
        "                         -n is given)\n"
        "  -n, --count N          attempt exactly N connections\n"
        "      --timeout SECS     per-connection limit (default 10)\n"
        "      --await SECS       during the first SECS, a refused connection\n"
        "                         is retried every 5 ms instead of failing\n"
        "                         (for a server that is still starting)\n"
        "      --max-failures N   stop early after N failures\n"
        "TLS:\n"
        "      --tls 1.2|1.3|any  protocol version (default 1.3); a handshake\n"
        "                         that negotiates another version fails\n"
        "  -s, --servername NAME  SNI name\n"
        "      --servername-file FILE  SNI names, one a line, round-robin\n"
        "      --groups LIST      key-exchange groups (OpenSSL syntax)\n"
        "      --sigalgs LIST     signature algorithms (OpenSSL syntax)\n"
        "      --ciphers LIST     TLS 1.2 cipher list\n"
        "TACK:\n"
        "  -x, --tack             ask for a TACK (empty 0xF300 extension);\n"
        "                         replies are counted in tack_replies= and\n"
        "                         tack_bytes=\n"
        "  -e, --expect FILE      every handshake must carry this reply: a\n"
        "                         SERVERINFO[V2] PEM file (as `tack "
        "serverinfo`\n"
        "                         writes) or the raw body; implies --tack\n"
        "      --expect-none      no handshake may carry a reply; implies\n"
        "                         --tack\n"
        "HTTP:\n"
        "      --http PATH        after each handshake send GET PATH and\n"
        "                         require a 200 status\n"
        "Other:\n"
        "  -q, --quiet            no human summary on stderr\n"
        "  -h, --help             this text\n"
        "\n"
        "Examples:\n"
        "  loadgen -c 32 -d 5 --tls 1.2 -x -e tack.pem 127.0.0.1:18501\n"
        "  taskset -c 1 loadgen -n 1 --await 60 -s v1.test 127.0.0.1:18520\n",
        fp);
}

static double parse_double(const char *s, const char *what)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || v < 0) {
        fprintf(stderr, "loadgen: bad %s: %s\n", what, s);
        exit(2);
    }
    return v;
}

static long parse_long(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0) {
        fprintf(stderr, "loadgen: bad %s: %s\n", what, s);
        exit(2);
    }
    return v;
}

static void add_name(const char *name)
{
    char **n = realloc(opt.names, (opt.nnames + 1) * sizeof(*n));
    if (n == NULL || (n[opt.nnames] = strdup(name)) == NULL) {
        die("out of memory");
    }
    opt.names = n;
    opt.nnames++;
}

static void load_names(const char *path)
{
    FILE *fp = fopen(path, "r");
    char line[1024];
    if (fp == NULL) {
        die("%s: %s", path, strerror(errno));
    }
    while (fgets(line, sizeof(line), fp) != NULL) {
        size_t len = strcspn(line, " \t\r\n");
        line[len] = '\0';
        if (len > 0 && line[0] != '#') {
            add_name(line);
        }
    }
    fclose(fp);
    if (opt.nnames == 0) {
        die("%s: no names", path);
    }
}

static void resolve(const char *target)
{
    char host[256];
    const char *colon = strrchr(target, ':');
    const char *h = target;
    size_t hlen;
    struct addrinfo hints, *res;
    int rc;

    if (colon == NULL || colon[1] == '\0') {
        fprintf(stderr, "loadgen: target must be HOST:PORT: %s\n", target);
        exit(2);
    }
    hlen = (size_t)(colon - target);
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    }
    if (hlen == 0 || hlen >= sizeof(host)) {
        fprintf(stderr, "loadgen: bad host in %s\n", target);
        exit(2);
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "loadgen: %s: %s\n", target, gai_strerror(rc));
        exit(2);
    }
    memcpy(&opt.addr, res->ai_addr, res->ai_addrlen);
    opt.addrlen = res->ai_addrlen;
    freeaddrinfo(res);
    opt.target = target;
}

static void setup_ctx(void)
{
    ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) {
        die("SSL_CTX_new");
    }
    /* Full handshakes only: no tickets, no client-side session cache. */
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    if (opt.tls_version != 0 &&
        (!SSL_CTX_set_min_proto_version(ctx, opt.tls_version) ||
         !SSL_CTX_set_max_proto_version(ctx, opt.tls_version))) {
        die("cannot restrict the protocol version");
    }
    if (opt.groups != NULL && !SSL_CTX_set1_groups_list(ctx, opt.groups)) {
        die("bad --groups: %s", opt.groups);
    }
    if (opt.sigalgs != NULL && !SSL_CTX_set1_sigalgs_list(ctx, opt.sigalgs)) {
        die("bad --sigalgs: %s", opt.sigalgs);
    }
    if (opt.ciphers != NULL && !SSL_CTX_set_cipher_list(ctx, opt.ciphers)) {
        die("bad --ciphers: %s", opt.ciphers);
    }
    if (opt.tack && !SSL_CTX_add_custom_ext(
                        ctx, TACK_EXT_TYPE,
                        SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO |
                            SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS,
                        tack_ext_add, NULL, NULL, tack_ext_parse, NULL)) {
        die("SSL_CTX_add_custom_ext");
    }
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"concurrency", required_argument, NULL, 'c'},
        {"threads", required_argument, NULL, 't'},
        {"duration", required_argument, NULL, 'd'},
        {"count", required_argument, NULL, 'n'},
        {"timeout", required_argument, NULL, 'T'},
        {"await", required_argument, NULL, 'A'},
        {"max-failures", required_argument, NULL, 'M'},
        {"tls", required_argument, NULL, 'V'},
        {"servername", required_argument, NULL, 's'},
        {"servername-file", required_argument, NULL, 'S'},
        {"groups", required_argument, NULL, 'G'},
        {"sigalgs", required_argument, NULL, 'L'},
        {"ciphers", required_argument, NULL, 'C'},
        {"tack", no_argument, NULL, 'x'},
        {"expect", required_argument, NULL, 'e'},
        {"expect-none", no_argument, NULL, 'E'},
        {"http", required_argument, NULL, 'H'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    worker_t *workers;
    struct rusage ru;
    double elapsed, cpu;
    long hs, fl;
    int ch, i, duration_set = 0;

    opt.concurrency = 16;
    opt.threads = 1;
    opt.duration = 10;
    opt.timeout = 10;
    opt.tls_version = TLS1_3_VERSION;

    while ((ch = getopt_long(argc, argv, "c:t:d:n:s:xe:qh", longopts, NULL)) !=
           -1) {
        switch (ch) {
        case 'c':
            opt.concurrency = (int)parse_long(optarg, "--concurrency");
            break;
        case 't':
            opt.threads = (int)parse_long(optarg, "--threads");
            break;
        case 'd':
            opt.duration = parse_double(optarg, "--duration");
            duration_set = 1;
            break;
        case 'n':
            opt.count = parse_long(optarg, "--count");
            break;
        case 'T':
            opt.timeout = parse_double(optarg, "--timeout");
            break;
        case 'A':
            opt.await = parse_double(optarg, "--await");
            break;
        case 'M':
            opt.max_failures = parse_long(optarg, "--max-failures");
            break;
        case 'V':
            if (strcmp(optarg, "1.2") == 0) {
                opt.tls_version = TLS1_2_VERSION;
            } else if (strcmp(optarg, "1.3") == 0) {
                opt.tls_version = TLS1_3_VERSION;
            } else if (strcmp(optarg, "any") == 0) {
                opt.tls_version = 0;
            } else {
                fprintf(stderr, "loadgen: --tls takes 1.2, 1.3 or any\n");
                return 2;
            }
            break;
        case 's':
            add_name(optarg);
            break;
        case 'S':
            load_names(optarg);
            break;
        case 'G':
            opt.groups = optarg;
            break;
        case 'L':
            opt.sigalgs = optarg;
            break;
        case 'C':
            opt.ciphers = optarg;
            break;
        case 'x':
            opt.tack = 1;
            break;
        case 'e':
            load_expect(optarg);
            opt.tack = 1;
            break;
        case 'E':
            opt.expect_none = 1;
            opt.tack = 1;
            break;
        case 'H':
            opt.http_path = optarg;
            break;
        case 'q':
            opt.quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    if (opt.expect != NULL && opt.expect_none) {
        fprintf(stderr, "loadgen: --expect and --expect-none exclude each "
                        "other\n");
        return 2;
    }
    if (opt.count > 0 && !duration_set) {
        opt.duration = 0;
    }
    if (opt.count == 0 && opt.duration == 0) {
        fprintf(stderr, "loadgen: give a --duration or a --count\n");
        return 2;
    }
    if (opt.concurrency < 1 || opt.threads < 1 || opt.timeout <= 0) {
        fprintf(stderr, "loadgen: concurrency, threads and timeout must be "
                        "positive\n");
        return 2;
    }
    if (opt.count > 0 && opt.concurrency > opt.count) {
        opt.concurrency = (int)opt.count;
    }
    if (opt.threads > opt.concurrency) {
        opt.threads = opt.concurrency;
    }
    resolve(argv[optind]);
    signal(SIGPIPE, SIG_IGN);
    setup_ctx();

    workers = calloc((size_t)opt.threads, sizeof(*workers));
    if (workers == NULL) {
        die("out of memory");
    }
    t_begin = now_s();
    t_deadline = t_begin + opt.duration;
    for (i = 0; i < opt.threads; i++) {
        worker_t *w = &workers[i];
        int j;
        w->nconns = opt.concurrency / opt.threads +
                    (i < opt.concurrency % opt.threads ? 1 : 0);
        w->active = w->nconns;
        w->conns = calloc((size_t)w->nconns, sizeof(conn_t));
        w->ep = epoll_create1(EPOLL_CLOEXEC);
        if (w->conns == NULL || w->ep < 0) {
            die("out of memory or epoll_create1 failed");
        }
        for (j = 0; j < w->nconns; j++) {
            w->conns[j].w = w;
            w->conns[j].fd = -1;
        }
    }
    for (i = 0; i < opt.threads; i++) {
        if (pthread_create(&workers[i].tid, NULL, worker_run, &workers[i])) {
            die("pthread_create failed");
        }
    }
    for (i = 0; i < opt.threads; i++) {
        pthread_join(workers[i].tid, NULL);
    }
    elapsed = now_s() - t_begin;
    getrusage(RUSAGE_SELF, &ru);
    cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
          ru.ru_stime.tv_usec / 1e6;
    hs = atomic_load(&handshakes);
    fl = atomic_load(&failures);

    if (!opt.quiet) {
        fprintf(stderr,
                "loadgen: %s %s%s: %ld handshakes in %.3f s = %.1f/s, "
                "%ld failures",
                opt.target,
                opt.tls_version == TLS1_2_VERSION   ? "TLSv1.2"
                : opt.tls_version == TLS1_3_VERSION ? "TLSv1.3"
                                                    : "TLS",
                opt.tack ? " +TACK request" : "", hs, elapsed,
                elapsed > 0 ? hs / elapsed : 0.0, fl);
        if (opt.tack) {
            fprintf(stderr, ", %ld TACK replies", atomic_load(&tack_replies));
        }
        fprintf(stderr, ", client CPU %.1f us/handshake\n",
                hs > 0 ? cpu * 1e6 / hs : 0.0);
    }
    printf("RESULT handshakes=%ld failures=%ld elapsed=%.6f rate=%.2f "
           "tack_replies=%ld tack_bytes=%ld http_ok=%ld client_cpu_us=%.2f",
           hs, fl, elapsed, elapsed > 0 ? hs / elapsed : 0.0,
           atomic_load(&tack_replies), atomic_load(&tack_bytes),
           atomic_load(&http_ok), hs > 0 ? cpu * 1e6 / hs : 0.0);
    for (i = 0; i < F_COUNT; i++) {
        printf(" fail_%s=%ld", failure_names[i], atomic_load(&fail_kind[i]));
    }
    printf("\n");
    fflush(stdout);
    return fl == 0 && hs > 0 ? 0 : 1;
}
