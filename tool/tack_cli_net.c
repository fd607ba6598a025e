/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_net.c -- the check engine's network (tack_cli_engine.c): the
 * HOST[:PORT] splitter its callers share, a TCP connection and a TLS
 * handshake on a non-blocking socket, both within one deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "tack_cli.h"

int cli_split_hostport(char *arg, const char **host, const char **port)
{
    char *colon;

    *port = "443";
    if (arg[0] == '[') {
        char *end = strchr(arg, ']');

        if (end == NULL || (end[1] != '\0' && end[1] != ':')) {
            return 0;
        }
        *end = '\0';
        *host = arg + 1;
        if (end[1] == ':') {
            *port = end + 2;
        }
    } else {
        colon = strchr(arg, ':');
        *host = arg;
        if (colon != NULL && strchr(colon + 1, ':') == NULL) {
            *colon = '\0';
            *port = colon + 1;
        }
    }
    return **host != '\0' && **port != '\0';
}

int cli_is_ip(const char *host)
{
    unsigned char buf[sizeof(struct in6_addr)];

    return inet_pton(AF_INET, host, buf) == 1 ||
           inet_pton(AF_INET6, host, buf) == 1;
}

long long cli_net_deadline(int timeout)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 +
           (long long)timeout * 1000;
}

/* net_wait polls |fd| for |events| until |deadline|; returns 1 when it is
 * ready, 0 at the deadline, -1 on an error (errno). */
static int net_wait(int fd, short events, long long deadline)
{
    struct pollfd pfd;
    long long left;
    int rc;

    for (;;) {
        left = deadline - cli_net_deadline(0);
        if (left <= 0) {
            return 0;
        }
        pfd.fd = fd;
        pfd.events = events;
        pfd.revents = 0;
        rc = poll(&pfd, 1, left > 3600000 ? 3600000 : (int)left);
        if (rc >= 0 || errno != EINTR) {
            return rc > 0 ? 1 : rc;
        }
    }
}

int cli_net_connect(const char *host, const char *port, long long deadline,
                    char *err, size_t err_size)
{
    struct addrinfo hints, *res = NULL, *ai;
    int fd = -1, rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, err_size, "%s port %s: %s", host, port, gai_strerror(rc));
        return -1;
    }
    snprintf(err, err_size, "%s port %s: no address", host, port);
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        int soerr = 0;
        socklen_t slen = sizeof(soerr);

        fd = socket(ai->ai_family,
                    ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                    ai->ai_protocol);
        if (fd < 0) {
            continue;
        }
        rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            rc = net_wait(fd, POLLOUT, deadline);
            if (rc == 0) {
                soerr = ETIMEDOUT;
            } else if (rc < 0 ||
                       getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen)) {
                soerr = errno;
            }
            rc = soerr ? -1 : 0;
            errno = soerr;
        }
        if (rc == 0) {
            break;
        }
        snprintf(err, err_size, "%s port %s: %s", host, port, strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

int cli_net_ssl_connect(SSL *ssl, int fd, long long deadline, int timeout,
                        char *why, size_t why_size)
{
    int rc, e;

    for (;;) {
        errno = 0;
        rc = SSL_connect(ssl);
        if (rc == 1) {
            return 1;
        }
        e = SSL_get_error(ssl, rc);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
            break;
        }
        rc =
            net_wait(fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
        if (rc == 0) {
            snprintf(why, why_size, "timed out after %d s", timeout);
            ERR_clear_error();
            return 0;
        }
        if (rc < 0) {
            break;
        }
    }
    {
        unsigned long err = ERR_peek_last_error();

        ERR_error_string_n(err, why, why_size);
        if (err == 0) {
            snprintf(why, why_size, "%s",
                     errno ? strerror(errno) : "connection closed");
        }
    }
    ERR_clear_error();
    return 0;
}
