/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * rawhello.c -- a hostile TLS client for the reliability tests: it writes
 * ClientHellos byte by byte (no TLS library), with the TACK request
 * (extension 0xF300) well-formed, malformed or missing, sends them whole,
 * in part, or not at all to the end, and reports what the server did.
 *
 *   rawhello -c HOST:PORT [-n SNI] [-m MODE] [-v 1.2|1.3] [-r N] [-i MS]
 *            [-d SECONDS] [-e HEX]... [-u FILE]
 *
 * MODE, the 0xF300 extension in the ClientHello:
 *   none      no TACK request
 *   empty     the proper request: f3 00 00 00
 *   one       one byte of data: f3 00 00 01 00
 *   max       as much data as the ClientHello's extension block can hold
 *             (the block's length field tops out at 65535)
 *   claim     the extension claims 65535 bytes, the block holds 1
 *   dup       two empty requests
 *   trunc     the last extension's length runs one byte past the block
 *   half      the proper request, but only half the ClientHello is sent
 *             before the connection is closed
 *   drop      the proper request; the connection is reset (RST) as soon as
 *             the first bytes of the answer arrive
 *
 * Output, one line per connection (or a summary with -r):
 *   alert LEVEL DESCRIPTION        the server's first record was an alert
 *   serverhello VERSION ext HEX    a ServerHello, with the 0xF300 body
 *   serverhello VERSION ext none   a ServerHello without it
 *   closed                         the server closed without a record
 *   dropped                        we reset the connection (drop, half)
 *   timeout                        nothing within 10 seconds
 * With -r N the mode is repeated N times, -i MS apart (with -d, for
 * SECONDS instead), and the summary is
 *   summary n=N alert50=.. alert47=.. alert_other=.. serverhello=.. closed=..
 *           dropped=.. timeout=.. error=.. [match1=.. match2=.. nomatch=..]
 * where -e HEX (up to 4 times) names the extension bodies expected in the
 * ServerHellos: matchK counts the ServerHellos carrying exactly the K-th,
 * nomatch those carrying anything else or nothing.  The reload test uses
 * this as a byte-exact observer next to the load generator.  -u FILE
 * writes each distinct 0xF300 body the ServerHellos carried to FILE, a
 * line each, "COUNT HEX" ("COUNT none" for ServerHellos without one): the
 * storm test checks every one of them when the bodies are not known in
 * advance (a TACK signed anew at each restart).
 * Exit status 0 unless the connection could not be made (2).
 * TLS 1.3 ServerHellos carry no 0xF300 (it goes into the encrypted
 * EncryptedExtensions); rawhello does not decrypt.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_HELLO (70 * 1024)
#define RECORD_MAX 16384

typedef struct {
    uint8_t *p;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        fprintf(stderr, "rawhello: ClientHello too large\n");
        exit(2);
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void put8(buf_t *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    put(b, &c, 1);
}

static void put16(buf_t *b, unsigned v)
{
    put8(b, v >> 8);
    put8(b, v & 0xff);
}

static void put24(buf_t *b, size_t v)
{
    put8(b, (unsigned)(v >> 16) & 0xff);
    put16(b, (unsigned)(v & 0xffff));
}

/* patch16 writes a length in place. */
static void patch16(buf_t *b, size_t at, size_t v)
{
    b->p[at] = (uint8_t)(v >> 8);
    b->p[at + 1] = (uint8_t)(v & 0xff);
}

/* build_hello writes a ClientHello handshake message (type, length, body)
 * with the 0xF300 extension shaped by |mode|. */
static void build_hello(buf_t *hs, const char *sni, const char *mode, int tls13)
{
    static const unsigned suites12[] = {0xc02b, 0xc02f, 0xc02c,
                                        0xc030, 0x009e, 0x00ff};
    static const unsigned suites13[] = {0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f};
    uint8_t random[32];
    size_t body_at, ext_at, x, i;
    const unsigned *suites = tls13 ? suites13 : suites12;
    size_t nsuites = tls13 ? 5 : 6;

    for (i = 0; i < sizeof(random); i++) {
        random[i] = (uint8_t)rand();
    }
    put8(hs, 1); /* client_hello */
    body_at = hs->len;
    put24(hs, 0);
    put16(hs, 0x0303);
    put(hs, random, sizeof(random));
    put8(hs, 0); /* session id */
    put16(hs, 2 * nsuites);
    for (i = 0; i < nsuites; i++) {
        put16(hs, suites[i]);
    }
    put8(hs, 1);
    put8(hs, 0); /* null compression */
    ext_at = hs->len;
    put16(hs, 0);
    if (sni && *sni) {
        size_t n = strlen(sni);
        put16(hs, 0x0000);
        put16(hs, n + 5);
        put16(hs, n + 3);
        put8(hs, 0);
        put16(hs, n);
        put(hs, sni, n);
    }
    put16(hs, 0x000a); /* supported_groups */
    put16(hs, 6);
    put16(hs, 4);
    put16(hs, 0x001d); /* x25519 */
    put16(hs, 0x0017); /* secp256r1 */
    put16(hs, 0x000b); /* ec_point_formats: uncompressed */
    put16(hs, 2);
    put8(hs, 1);
    put8(hs, 0);
    put16(hs, 0x000d); /* signature_algorithms */
    put16(hs, 14);
    put16(hs, 12);
    put16(hs, 0x0403);
    put16(hs, 0x0804);
    put16(hs, 0x0401);
    put16(hs, 0x0503);
    put16(hs, 0x0805);
    put16(hs, 0x0501);
    put16(hs, 0x0017); /* extended_master_secret */
    put16(hs, 0);
    if (tls13) {
        uint8_t share[32];

        for (i = 0; i < sizeof(share); i++) {
            share[i] = (uint8_t)(rand() | 1); /* any 32 bytes will do */
        }
        put16(hs, 0x002b); /* supported_versions */
        put16(hs, 3);
        put8(hs, 2);
        put16(hs, 0x0304);
        put16(hs, 0x0033); /* key_share */
        put16(hs, 2 + 4 + 32);
        put16(hs, 4 + 32);
        put16(hs, 0x001d);
        put16(hs, 32);
        put(hs, share, sizeof(share));
    }
    if (!strcmp(mode, "empty") || !strcmp(mode, "half") ||
        !strcmp(mode, "drop")) {
        put16(hs, 0xf300);
        put16(hs, 0);
    } else if (!strcmp(mode, "one")) {
        put16(hs, 0xf300);
        put16(hs, 1);
        put8(hs, 0);
    } else if (!strcmp(mode, "dup")) {
        put16(hs, 0xf300);
        put16(hs, 0);
        put16(hs, 0xf300);
        put16(hs, 0);
    } else if (!strcmp(mode, "claim")) {
        put16(hs, 0xf300);
        put16(hs, 0xffff);
        put8(hs, 0);
    } else if (!strcmp(mode, "trunc")) {
        put16(hs, 0xf300);
        put16(hs, 2);
        put8(hs, 0);
    } else if (!strcmp(mode, "max")) {
        /* The extension block's length field is 16 bits: fill it up. */
        size_t used = hs->len - ext_at - 2;
        size_t n = 65535 - used - 4;

        put16(hs, 0xf300);
        put16(hs, n);
        for (x = 0; x < n; x++) {
            put8(hs, (unsigned)(x * 31) & 0xff);
        }
    } else if (strcmp(mode, "none") != 0) {
        fprintf(stderr, "rawhello: unknown mode %s\n", mode);
        exit(2);
    }
    patch16(hs, ext_at, hs->len - ext_at - 2);
    x = hs->len - body_at - 3;
    hs->p[body_at] = (uint8_t)(x >> 16);
    hs->p[body_at + 1] = (uint8_t)(x >> 8);
    hs->p[body_at + 2] = (uint8_t)x;
}

/* records splits a handshake message into TLS records. */
static void records(buf_t *out, const buf_t *hs)
{
    size_t off = 0;

    while (off < hs->len) {
        size_t n = hs->len - off;

        if (n > RECORD_MAX) {
            n = RECORD_MAX;
        }
        put8(out, 22);
        put16(out, 0x0301);
        put16(out, n);
        put(out, hs->p + off, n);
        off += n;
    }
}

static int connect_to(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints, *ai;
    struct timeval tv = {10, 0};
    int fd, one = 1;

    if (!colon || (size_t)(colon - hostport) >= sizeof(host)) {
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0) {
        return -1;
    }
    fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static int send_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* read_full reads exactly |n| bytes; returns 1, 0 on EOF, -1 on timeout
 * or error. */
static int read_full(int fd, uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t r = recv(fd, p, n, 0);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r == 0) {
            return 0;
        }
        if (r < 0) {
            return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : 0;
        }
        p += r;
        n -= (size_t)r;
    }
    return 1;
}

static void reset_close(int fd)
{
    struct linger lg = {1, 0};

    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
}

/* answer reads the server's first flight: an alert or a ServerHello
 * (possibly spread over several records).  Writes the result line. */
static void answer(int fd, char *line, size_t line_size)
{
    static uint8_t hsbuf[70000];
    size_t hslen = 0;

    for (;;) {
        uint8_t hdr[5], rec[RECORD_MAX + 2048];
        size_t rlen;
        int r = read_full(fd, hdr, sizeof(hdr));

        if (r <= 0) {
            snprintf(line, line_size, r == 0 ? "closed" : "timeout");
            return;
        }
        rlen = (size_t)hdr[3] << 8 | hdr[4];
        if (rlen > sizeof(rec) || (r = read_full(fd, rec, rlen)) <= 0) {
            snprintf(line, line_size, "closed");
            return;
        }
        if (hdr[0] == 21 && rlen >= 2) {
            snprintf(line, line_size, "alert %u %u", rec[0], rec[1]);
            return;
        }
        if (hdr[0] != 22 || hslen + rlen > sizeof(hsbuf)) {
            snprintf(line, line_size, "record %u", hdr[0]);
            return;
        }
        memcpy(hsbuf + hslen, rec, rlen);
        hslen += rlen;
        if (hslen >= 4) {
            size_t mlen =
                (size_t)hsbuf[1] << 16 | (size_t)hsbuf[2] << 8 | hsbuf[3];
            const uint8_t *p = hsbuf + 4, *end;
            unsigned version;

            if (hsbuf[0] != 2) {
                snprintf(line, line_size, "handshake %u", hsbuf[0]);
                return;
            }
            if (hslen < 4 + mlen) {
                continue;
            }
            end = p + mlen;
            version = (unsigned)p[0] << 8 | p[1];
            p += 2 + 32;
            if (p >= end || p + 1 + *p + 3 > end) {
                snprintf(line, line_size, "serverhello malformed");
                return;
            }
            p += 1 + *p + 3; /* session id, cipher suite, compression */
            if (p + 2 <= end) {
                size_t elen = (size_t)p[0] << 8 | p[1];
                const uint8_t *e = p + 2;

                if (e + elen > end) {
                    snprintf(line, line_size, "serverhello malformed");
                    return;
                }
                while (e + 4 <= p + 2 + elen) {
                    unsigned type = (unsigned)e[0] << 8 | e[1];
                    size_t len = (size_t)e[2] << 8 | e[3];

                    if (type == 0x002b && len == 2) {
                        version = (unsigned)e[4] << 8 | e[5];
                    }
                    e += 4 + len;
                }
                e = p + 2;
                while (e + 4 <= p + 2 + elen) {
                    unsigned type = (unsigned)e[0] << 8 | e[1];
                    size_t len = (size_t)e[2] << 8 | e[3], k, at;

                    if (type == 0xf300) {
                        at = (size_t)snprintf(line, line_size,
                                              "serverhello %04x ext ", version);
                        for (k = 0; k < len && at + 3 < line_size; k++) {
                            at += (size_t)snprintf(line + at, line_size - at,
                                                   "%02x", e[4 + k]);
                        }
                        return;
                    }
                    e += 4 + len;
                }
            }
            snprintf(line, line_size, "serverhello %04x ext none", version);
            return;
        }
    }
}

/* one_connection runs |mode| once; returns 0, or 2 when it could not
 * connect. */
static int one_connection(const char *target, const char *sni, const char *mode,
                          int tls13, char *line, size_t line_size)
{
    static uint8_t hsmem[MAX_HELLO], recmem[MAX_HELLO + 4096];
    buf_t hs = {hsmem, 0, sizeof(hsmem)};
    buf_t wire = {recmem, 0, sizeof(recmem)};
    int fd;

    build_hello(&hs, sni, mode, tls13);
    records(&wire, &hs);
    fd = connect_to(target);
    if (fd < 0) {
        snprintf(line, line_size, "error connect: %s", strerror(errno));
        return 2;
    }
    if (!strcmp(mode, "half")) {
        send_all(fd, wire.p, wire.len / 2);
        reset_close(fd);
        snprintf(line, line_size, "dropped");
        return 0;
    }
    if (send_all(fd, wire.p, wire.len) != 0) {
        /* The server may alert and close while a large hello is still
         * being written: read what it said. */
    }
    if (!strcmp(mode, "drop")) {
        uint8_t b[5];

        (void)read_full(fd, b, sizeof(b));
        reset_close(fd);
        snprintf(line, line_size, "dropped");
        return 0;
    }
    answer(fd, line, line_size);
    close(fd);
    return 0;
}

/* The distinct bodies -u collects; past MAX_SEEN more are counted only. */
#define MAX_SEEN 1024
static char *seen_body[MAX_SEEN];
static long seen_count[MAX_SEEN], seen_overflow;
static size_t nseen;

static void seen_add(const char *body)
{
    size_t k;

    for (k = 0; k < nseen; k++) {
        if (!strcmp(seen_body[k], body)) {
            seen_count[k]++;
            return;
        }
    }
    if (nseen == MAX_SEEN || (seen_body[nseen] = strdup(body)) == NULL) {
        seen_overflow++;
        return;
    }
    seen_count[nseen++] = 1;
}

static int seen_write(const char *path)
{
    FILE *f = fopen(path, "w");
    size_t k;

    if (f == NULL) {
        fprintf(stderr, "rawhello: %s: %s\n", path, strerror(errno));
        return 2;
    }
    for (k = 0; k < nseen; k++) {
        fprintf(f, "%ld %s\n", seen_count[k], seen_body[k]);
        free(seen_body[k]);
    }
    if (seen_overflow > 0) {
        fprintf(f, "%ld overflow\n", seen_overflow);
    }
    return fclose(f) == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    const char *target = NULL, *sni = NULL, *mode = "empty", *seen_path = NULL;
    int tls13 = 0, opt, rc = 0;
    long repeat = 0, interval_ms = 0, i;
    double duration = 0, t0;
    const char *expect[4];
    long matched[4] = {0, 0, 0, 0}, nomatch = 0;
    int nexpect = 0, k;
    static char line[2 * 70000];
    struct timespec now;

    while ((opt = getopt(argc, argv, "c:n:m:v:r:i:d:e:u:")) != -1) {
        switch (opt) {
        case 'c':
            target = optarg;
            break;
        case 'n':
            sni = optarg;
            break;
        case 'm':
            mode = optarg;
            break;
        case 'v':
            tls13 = !strcmp(optarg, "1.3");
            break;
        case 'r':
            repeat = atol(optarg);
            break;
        case 'i':
            interval_ms = atol(optarg);
            break;
        case 'd':
            duration = atof(optarg);
            break;
        case 'e':
            if (nexpect == 4) {
                fprintf(stderr, "rawhello: at most 4 -e\n");
                return 2;
            }
            expect[nexpect++] = optarg;
            break;
        case 'u':
            seen_path = optarg;
            break;
        default:
            fprintf(stderr, "usage: rawhello -c HOST:PORT [-n SNI] [-m MODE] "
                            "[-v 1.2|1.3] [-r N] [-i MS] [-d SECONDS] "
                            "[-e HEX]... [-u FILE]\n");
            return 2;
        }
    }
    if (!target) {
        fprintf(stderr, "rawhello: -c HOST:PORT is required\n");
        return 2;
    }
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    if (duration > 0 && repeat <= 0) {
        repeat = 1L << 40;
    }
    if (repeat <= 0) {
        rc = one_connection(target, sni, mode, tls13, line, sizeof(line));
        printf("%s\n", line);
        return rc;
    }
    {
        long n50 = 0, n47 = 0, nalert = 0, nsh = 0, nclosed = 0, ndrop = 0,
             nto = 0, nerr = 0;
        struct timespec ts = {interval_ms / 1000,
                              (interval_ms % 1000) * 1000000L};

        clock_gettime(CLOCK_MONOTONIC, &now);
        t0 = (double)now.tv_sec + now.tv_nsec / 1e9;
        for (i = 0; i < repeat; i++) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (duration > 0 &&
                (double)now.tv_sec + now.tv_nsec / 1e9 - t0 >= duration) {
                break;
            }
            if (one_connection(target, sni, mode, tls13, line, sizeof(line)) !=
                0) {
                nerr++;
            } else if (!strncmp(line, "alert 2 50", 10)) {
                n50++;
            } else if (!strncmp(line, "alert 2 47", 10)) {
                n47++;
            } else if (!strncmp(line, "alert", 5)) {
                nalert++;
            } else if (!strncmp(line, "serverhello", 11)) {
                const char *ext = strstr(line, " ext ");

                nsh++;
                if (seen_path != NULL) {
                    seen_add(ext ? ext + 5 : "none");
                }
                for (k = 0; k < nexpect; k++) {
                    if (ext && !strcmp(ext + 5, expect[k])) {
                        matched[k]++;
                        break;
                    }
                }
                if (nexpect > 0 && k == nexpect) {
                    nomatch++;
                    if (nomatch <= 3) {
                        fprintf(stderr, "rawhello: unexpected: %.200s\n", line);
                    }
                }
            } else if (!strcmp(line, "closed")) {
                nclosed++;
            } else if (!strcmp(line, "dropped")) {
                ndrop++;
            } else if (!strcmp(line, "timeout")) {
                nto++;
            } else {
                nerr++;
            }
            if (interval_ms > 0) {
                nanosleep(&ts, NULL);
            }
        }
        printf("summary n=%ld alert50=%ld alert47=%ld alert_other=%ld "
               "serverhello=%ld closed=%ld dropped=%ld timeout=%ld "
               "error=%ld",
               i, n50, n47, nalert, nsh, nclosed, ndrop, nto, nerr);
        for (k = 0; k < nexpect; k++) {
            printf(" match%d=%ld", k + 1, matched[k]);
        }
        if (nexpect > 0) {
            printf(" nomatch=%ld", nomatch);
        }
        printf("\n");
        if (seen_path != NULL && seen_write(seen_path) != 0) {
            rc = 2;
        }
    }
    return rc;
}
