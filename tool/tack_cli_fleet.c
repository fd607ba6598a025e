/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_fleet.c -- `tack check --all-addresses`: the check of `tack
 * check` against every address of a name at once, and whether turning pin
 * activation on is safe for the whole fleet.
 *
 * A client that has activated a pin for a name refuses every server of that
 * name that does not show a valid TACK by the pinned key (draft-00 section
 * 5).  Whichever address a client happens to reach first decides what it
 * pins, so before activation every address must serve a TACK that passes
 * the client's checks, all by one TACK key, with generations no client
 * would take for revoked and no break signature of that key.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <openssl/ssl.h>

#include "tack_cli.h"
#include "tack_ext.h"

/* At most this many addresses, checked by at most this many threads at a
 * time: 50 addresses that all time out take one --timeout, not fifty. */
#define FLEET_MAX_ADDRS 1024
#define FLEET_MAX_THREADS 64

/* Warnings, not failures: a TACK that expires within 30 days (mod_tack's
 * own warning, TACK00010), and expirations more than 7 days apart (a weekly
 * renewal job that stopped somewhere). */
#define FLEET_EXPIRY_WARN (30 * 24 * 3600)
#define FLEET_EXPIRY_SPREAD (7 * 24 * 3600)

/* The verdict line names this many addresses, then counts the rest. */
#define FLEET_VERDICT_NAMES 8

typedef struct {
    int family; /* AF_INET or AF_INET6 */
    uint8_t bytes[16];
    char text[INET6_ADDRSTRLEN];
    int rc;           /* cli_check_run's */
    json_t *report;   /* cli_check_run's */
    json_t *tack;     /* borrowed: the TACK by the fleet's key (or the first) */
    json_t *problems; /* strings: why this address would lock clients out */
    json_t *warnings; /* strings */
    const char *status;
} fleet_entry_t;

typedef struct {
    const cli_check_opts_t *o;
    fleet_entry_t *entries;
    size_t num;
    size_t next; /* the next entry to check, under lock */
    pthread_mutex_t lock;
} fleet_pool_t;

/* ---- addresses ----------------------------------------------------------- */

/* fleet_addr_set parses an IPv4 or IPv6 address (IPv6 optionally in
 * brackets) into |e|; returns 1 on success. */
static int fleet_addr_set(fleet_entry_t *e, const char *s)
{
    char buf[INET6_ADDRSTRLEN + 2];
    size_t len = strlen(s);

    if (len >= sizeof(buf)) {
        return 0;
    }
    if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
        memcpy(buf, s + 1, len - 2);
        buf[len - 2] = '\0';
        if (inet_pton(AF_INET6, buf, e->bytes) != 1) {
            return 0;
        }
        e->family = AF_INET6;
    } else if (inet_pton(AF_INET, s, e->bytes) == 1) {
        e->family = AF_INET;
    } else if (inet_pton(AF_INET6, s, e->bytes) == 1) {
        e->family = AF_INET6;
    } else {
        return 0;
    }
    return inet_ntop(e->family, e->bytes, e->text, sizeof(e->text)) != NULL;
}

/* fleet_addr_cmp orders IPv4 before IPv6, then by the address's bytes. */
static int fleet_addr_cmp(const void *a, const void *b)
{
    const fleet_entry_t *x = a, *y = b;

    if (x->family != y->family) {
        return x->family == AF_INET ? -1 : 1;
    }
    return memcmp(x->bytes, y->bytes, x->family == AF_INET ? 4 : 16);
}

/* fleet_addr_add appends |s| to the list; returns 0 when it is full. */
static int fleet_addr_add(fleet_entry_t *list, size_t *num, const char *s)
{
    if (*num >= FLEET_MAX_ADDRS) {
        return 0;
    }
    memset(&list[*num], 0, sizeof(list[*num]));
    if (!fleet_addr_set(&list[*num], s)) {
        return 0;
    }
    (*num)++;
    return 1;
}

/* fleet_resolve_args turns --resolve HOST:ADDR arguments into addresses.
 * Each must name the host being checked: a typo would otherwise send the
 * check silently to what the DNS says.  Prints the usage error and returns
 * CLI_EXIT_USAGE on a bad one. */
static int fleet_resolve_args(const char *host, char *const *args,
                              size_t num_args, fleet_entry_t *list, size_t *num)
{
    size_t i;

    for (i = 0; i < num_args; i++) {
        const char *colon = strchr(args[i], ':');
        size_t host_len;

        if (colon == NULL || colon == args[i] || colon[1] == '\0') {
            return cli_usage_error("check",
                                   "--resolve \"%s\": want HOST:ADDR, e.g. "
                                   "www.example.org:192.0.2.10 or "
                                   "www.example.org:[2001:db8::10]",
                                   args[i]);
        }
        host_len = (size_t)(colon - args[i]);
        if (strlen(host) != host_len ||
            strncasecmp(args[i], host, host_len) != 0) {
            return cli_usage_error("check",
                                   "--resolve \"%s\": names %.*s, but the "
                                   "check is of %s",
                                   args[i], (int)host_len, args[i], host);
        }
        if (*num >= FLEET_MAX_ADDRS) {
            return cli_usage_error("check", "more than %d addresses",
                                   FLEET_MAX_ADDRS);
        }
        if (!fleet_addr_add(list, num, colon + 1)) {
            return cli_usage_error("check",
                                   "--resolve \"%s\": \"%s\" is not an IPv4 "
                                   "or IPv6 address",
                                   args[i], colon + 1);
        }
    }
    return CLI_EXIT_OK;
}

/* fleet_resolve_dns asks for every A and AAAA address of |host|.  Returns
 * CLI_EXIT_CHECK with the reason in |err| when there is none. */
static int fleet_resolve_dns(const char *host, const char *port,
                             fleet_entry_t *list, size_t *num, char *err,
                             size_t err_size)
{
    struct addrinfo hints, *res = NULL, *ai;
    char text[INET6_ADDRSTRLEN];
    int rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, err_size, "cannot resolve %s: %s", host,
                 gai_strerror(rc));
        return CLI_EXIT_CHECK;
    }
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        const void *a;

        if (*num >= FLEET_MAX_ADDRS) {
            cli_warn("%s has more than %d addresses: only the first %d are "
                     "checked, and the verdict covers only those",
                     host, FLEET_MAX_ADDRS, FLEET_MAX_ADDRS);
            break;
        }

        if (ai->ai_family == AF_INET) {
            a = &((const struct sockaddr_in *)ai->ai_addr)->sin_addr;
        } else if (ai->ai_family == AF_INET6) {
            a = &((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
        } else {
            continue;
        }
        if (inet_ntop(ai->ai_family, a, text, sizeof(text)) != NULL) {
            fleet_addr_add(list, num, text);
        }
    }
    freeaddrinfo(res);
    if (*num == 0) {
        snprintf(err, err_size, "%s has no IPv4 or IPv6 address", host);
        return CLI_EXIT_CHECK;
    }
    return CLI_EXIT_OK;
}

/* ---- the checks, in parallel --------------------------------------------- */

static void *fleet_worker(void *arg)
{
    fleet_pool_t *p = arg;
    size_t i;

    for (;;) {
        pthread_mutex_lock(&p->lock);
        i = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->num) {
            return NULL;
        }
        p->entries[i].rc = cli_check_run(p->o, p->entries[i].text, NULL,
                                         &p->entries[i].report);
    }
}

/* fleet_run checks every entry, FLEET_MAX_THREADS at a time; when no thread
 * can be started, in this one. */
static void fleet_run(const cli_check_opts_t *o, fleet_entry_t *entries,
                      size_t num)
{
    pthread_t threads[FLEET_MAX_THREADS];
    fleet_pool_t pool;
    size_t i, started = 0;
    size_t want = num < FLEET_MAX_THREADS ? num : FLEET_MAX_THREADS;

    memset(&pool, 0, sizeof(pool));
    pool.o = o;
    pool.entries = entries;
    pool.num = num;
    pthread_mutex_init(&pool.lock, NULL);
    for (i = 0; i < want; i++) {
        if (pthread_create(&threads[started], NULL, fleet_worker, &pool) != 0) {
            break;
        }
        started++;
    }
    if (started == 0) {
        fleet_worker(&pool);
    }
    for (i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
    }
    pthread_mutex_destroy(&pool.lock);
}

/* ---- the verdict --------------------------------------------------------- */

static const char *fleet_str(json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static json_int_t fleet_int(json_t *obj, const char *key)
{
    return json_integer_value(json_object_get(obj, key));
}

/* fleet_problem records why |e| would lock clients out; the first one gives
 * its status. */
static void fleet_problem(fleet_entry_t *e, const char *status, const char *fmt,
                          ...) __attribute__((format(printf, 3, 4)));

static void fleet_problem(fleet_entry_t *e, const char *status, const char *fmt,
                          ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(e->problems, json_string(buf));
    if (e->status == NULL) {
        e->status = status;
    }
}

static void fleet_warning(json_t *arr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fleet_warning(json_t *arr, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    json_array_append_new(arr, json_string(buf));
}

/* fleet_accepted: the handshake succeeded and a TACK client accepts it. */
static int fleet_accepted(const fleet_entry_t *e)
{
    const char *result = fleet_str(e->report, "result");

    return e->rc == CLI_EXIT_OK && result != NULL &&
           strcmp(result, "accepted") == 0;
}

/* fleet_tack_by returns |e|'s TACK by the key |id|, or NULL. */
static json_t *fleet_tack_by(const fleet_entry_t *e, const char *id)
{
    json_t *tacks = json_object_get(e->report, "tacks"), *t;
    size_t i;

    json_array_foreach(tacks, i, t)
    {
        const char *tid = fleet_str(t, "tack_id");

        if (tid != NULL && id != NULL && strcmp(tid, id) == 0) {
            return t;
        }
    }
    return NULL;
}

/* fleet_activation says whether pin activation is on for |tack| at |e|:
 * draft-00's pin_activation, or draft-02's activation flag of that TACK.
 * Returns -1 when the reply says nothing. */
static int fleet_activation(const fleet_entry_t *e, json_t *tack)
{
    json_t *ext = json_object_get(e->report, "extension");
    json_t *tacks = json_object_get(e->report, "tacks"), *t;
    size_t i;

    if (json_object_get(ext, "pin_activation") != NULL) {
        return fleet_int(ext, "pin_activation") != 0;
    }
    if (json_object_get(ext, "activation_flags") == NULL) {
        return -1;
    }
    json_array_foreach(tacks, i, t)
    {
        if (t == tack) {
            return (int)((fleet_int(ext, "activation_flags") >> i) & 1);
        }
    }
    return -1;
}

/* fleet_key picks the fleet's TACK key: the one that most of the accepted
 * addresses serve (the first in address order on a tie).  Returns it, or
 * NULL when no address serves a valid TACK; |*count| is how many serve it. */
static const char *fleet_key(fleet_entry_t *entries, size_t num, size_t *count)
{
    const char *best = NULL;
    size_t i, j, n;
    json_t *t;

    *count = 0;
    for (i = 0; i < num; i++) {
        json_array_foreach(json_object_get(entries[i].report, "tacks"), j, t)
        {
            const char *id = fleet_str(t, "tack_id");
            size_t k;

            if (id == NULL || !fleet_accepted(&entries[i])) {
                continue;
            }
            for (k = 0, n = 0; k < num; k++) {
                if (fleet_accepted(&entries[k]) &&
                    fleet_tack_by(&entries[k], id) != NULL) {
                    n++;
                }
            }
            if (n > *count) {
                *count = n;
                best = id;
            }
        }
    }
    return best;
}

/* fleet_unreached classifies an address whose handshake never completed. */
static void fleet_unreached(fleet_entry_t *e)
{
    const char *reason = fleet_str(e->report, "reason");

    /* "cannot connect" is how cli_check_run reports a failed connection;
     * anything else before "protocol" is set is the handshake. */
    if (reason != NULL && strncmp(reason, "cannot connect", 14) == 0) {
        fleet_problem(e, "unreachable", "unreachable: %s", reason);
    } else if (reason != NULL && strstr(reason, "timed out") != NULL) {
        fleet_problem(e, "timed out", "%s", reason);
    } else {
        fleet_problem(e, "handshake failed", "%s",
                      reason ? reason : "TLS handshake failed");
    }
}

/* fleet_sum_t is what fleet_judge learns across the addresses: the fleet's
 * key and how many serve it, the highest min_generation served with it and
 * where, the earliest and latest TACK expirations, and how many addresses
 * have pin activation on (of those where it is known). */
typedef struct {
    const char *key, *maxmin_at, *early_at, *late_at;
    size_t count, act_on, act_known;
    json_int_t maxmin, early, late;
} fleet_sum_t;

/* fleet_pick_tacks finds the fleet's key, picks each address's TACK (the
 * one by that key, else its first) and the highest min_generation that
 * accepted addresses serve with the key. */
static void fleet_pick_tacks(fleet_entry_t *entries, size_t num, fleet_sum_t *s)
{
    size_t i;

    s->key = fleet_key(entries, num, &s->count);
    for (i = 0; i < num; i++) {
        fleet_entry_t *e = &entries[i];

        e->tack = s->key ? fleet_tack_by(e, s->key) : NULL;
        if (e->tack == NULL) {
            e->tack = json_array_get(json_object_get(e->report, "tacks"), 0);
        }
        if (s->key != NULL && e->tack != NULL && fleet_accepted(e) &&
            strcmp(fleet_str(e->tack, "tack_id"), s->key) == 0 &&
            fleet_int(e->tack, "min_generation") > s->maxmin) {
            s->maxmin = fleet_int(e->tack, "min_generation");
            s->maxmin_at = e->text;
        }
    }
}

/* fleet_rules_2_to_4 applies rule 2 (a client accepts what it serves),
 * rule 3 (one TACK key) and rule 4 (no client takes it for revoked) to an
 * address that answers; the first that fails is its problem. */
static void fleet_rules_2_to_4(fleet_entry_t *e, const fleet_sum_t *s,
                               size_t num)
{
    const char *alert = fleet_str(e->report, "alert");
    const char *reason = fleet_str(e->report, "reason");

    if (!fleet_accepted(e)) {
        fleet_problem(e, "rejected", "a TACK client rejects it%s%s: %s",
                      alert ? " with " : "", alert ? alert : "",
                      reason ? reason : "?");
    } else if (json_array_size(json_object_get(e->report, "tacks")) == 0) {
        fleet_problem(e, "no TACK",
                      "serves no TACK: a client with an active pin "
                      "refuses it (access_denied)");
    } else if (fleet_tack_by(e, s->key) == NULL) {
        fleet_problem(e, "other key",
                      "TACK key %s is not the fleet's key %s (served "
                      "at %zu of %zu addresses): clients that pin one "
                      "refuse the other (access_denied)",
                      fleet_str(e->tack, "tack_id"), s->key, s->count, num);
    } else if (fleet_int(e->tack, "generation") < s->maxmin) {
        fleet_problem(e, "low generation",
                      "generation %d is below min_generation %d served "
                      "at %s: a client that saw that refuses this "
                      "server (certificate_revoked)",
                      (int)fleet_int(e->tack, "generation"), (int)s->maxmin,
                      s->maxmin_at);
    }
}

/* fleet_rule_5: no break signature of the fleet's key. */
static void fleet_rule_5(fleet_entry_t *e, const char *key)
{
    size_t j;
    json_t *t;

    json_array_foreach(json_object_get(e->report, "break_sigs"), j, t)
    {
        const char *id = fleet_str(t, "breaks_tack_id");

        if (key != NULL && id != NULL && strcmp(id, key) == 0) {
            fleet_problem(e, "breaks key",
                          "serves a break signature of the fleet's "
                          "key %s: clients drop their pins on it",
                          key);
        }
    }
}

/* fleet_second_tacks warns of a second TACK (draft-02) by a key the other
 * addresses lack: harmless until someone activates it. */
static void fleet_second_tacks(fleet_entry_t *e, fleet_entry_t *entries,
                               size_t num)
{
    size_t j;
    json_t *t;

    json_array_foreach(json_object_get(e->report, "tacks"), j, t)
    {
        const char *id = fleet_str(t, "tack_id");
        size_t k, n = 0;

        if (t == e->tack || id == NULL || e->status != NULL) {
            continue;
        }
        for (k = 0; k < num; k++) {
            n += fleet_accepted(&entries[k]) &&
                 fleet_tack_by(&entries[k], id) != NULL;
        }
        if (n < num) {
            fleet_warning(e->warnings,
                          "also serves a TACK by key %s, which only "
                          "%zu of %zu addresses serve: never activate "
                          "it as it is",
                          id, n, num);
        }
    }
}

/* fleet_note_ok marks an address without problems "ok", warns when its
 * TACK expires soon, and adds its expiration and activation to |s|. */
static void fleet_note_ok(fleet_entry_t *e, fleet_sum_t *s, time_t now)
{
    json_int_t exp = fleet_int(e->tack, "expiration_minutes");
    int act = fleet_activation(e, e->tack);

    e->status = "ok";
    if (s->early_at == NULL || exp < s->early) {
        s->early = exp;
        s->early_at = e->text;
    }
    if (s->late_at == NULL || exp > s->late) {
        s->late = exp;
        s->late_at = e->text;
    }
    if ((long long)exp * 60 - (long long)now < FLEET_EXPIRY_WARN) {
        fleet_warning(e->warnings, "the TACK expires in %lld days, at %s",
                      ((long long)exp * 60 - (long long)now) / 86400,
                      fleet_str(e->tack, "expiration"));
    }
    if (act >= 0) {
        s->act_known++;
        s->act_on += act == 1;
    }
}

/* fleet_summary fills |out| with the fleet's part of the report: the
 * addresses that would lock clients out, and the fleet-wide warnings
 * (expirations far apart, activation on at some addresses only).  Returns
 * how many addresses have problems. */
static size_t fleet_summary(fleet_entry_t *entries, size_t num,
                            const fleet_sum_t *s, json_t *out)
{
    json_t *warnings = json_array(), *bad = json_array();
    char when[TACK_TIME_SIZE], when2[TACK_TIME_SIZE];
    size_t i, nbad = 0;

    for (i = 0; i < num; i++) {
        fleet_entry_t *e = &entries[i];

        if (json_array_size(e->problems) > 0) {
            nbad++;
            json_array_append_new(bad, json_pack("{s:s, s:s}", "address",
                                                 e->text, "status", e->status));
        }
    }
    if (s->early_at != NULL &&
        (long long)(s->late - s->early) * 60 > FLEET_EXPIRY_SPREAD) {
        tack_time_format((uint32_t)s->early, when);
        tack_time_format((uint32_t)s->late, when2);
        fleet_warning(warnings,
                      "TACK expirations differ by %lld days: %s at %s, %s "
                      "at %s (is renewal running on every server?)",
                      (long long)(s->late - s->early) / 1440, when, s->early_at,
                      when2, s->late_at);
    }
    if (s->act_on > 0 && s->act_on < s->act_known) {
        fleet_warning(warnings,
                      "pin activation is already on at %zu of %zu "
                      "addresses",
                      s->act_on, num);
    }
    json_object_set_new(out, "fleet_key",
                        s->key ? json_string(s->key) : json_null());
    json_object_set_new(out, "fleet_key_addresses",
                        json_integer((json_int_t)s->count));
    json_object_set_new(out, "min_generation",
                        s->maxmin >= 0 ? json_integer(s->maxmin) : json_null());
    json_object_set_new(out, "activation_on",
                        json_integer((json_int_t)s->act_on));
    json_object_set_new(out, "warnings", warnings);
    json_object_set_new(out, "lockouts", bad);
    json_object_set_new(out, "safe", json_boolean(nbad == 0));
    return nbad;
}

/* fleet_judge applies the rules (tack(1), "The fleet check"; numbered as
 * there) to each address and fills |out| with the fleet's part of the
 * report.  Returns CLI_EXIT_OK when pin activation is safe, else
 * CLI_EXIT_CHECK. */
static int fleet_judge(fleet_entry_t *entries, size_t num, time_t now,
                       json_t *out)
{
    fleet_sum_t s;
    size_t i;

    memset(&s, 0, sizeof(s));
    s.maxmin = -1;
    fleet_pick_tacks(entries, num, &s);
    for (i = 0; i < num; i++) {
        fleet_entry_t *e = &entries[i];

        /* Rule 1: it answers. */
        if (json_object_get(e->report, "protocol") == NULL) {
            fleet_unreached(e);
            continue;
        }
        fleet_rules_2_to_4(e, &s, num);
        fleet_rule_5(e, s.key);
        fleet_second_tacks(e, entries, num);
        if (e->status == NULL) {
            fleet_note_ok(e, &s, now);
        }
    }
    return fleet_summary(entries, num, &s, out) == 0 ? CLI_EXIT_OK
                                                     : CLI_EXIT_CHECK;
}

/* fleet_verdict writes the verdict line's text into |buf| (|size| bytes):
 * safe, or not and the first FLEET_VERDICT_NAMES addresses that are not. */
static void fleet_verdict(fleet_entry_t *entries, size_t num, json_t *fleet,
                          char *buf, size_t size)
{
    json_t *bad = json_object_get(fleet, "lockouts");
    size_t i, nbad = json_array_size(bad), used, shown;

    if (nbad == 0) {
        size_t on = (size_t)fleet_int(fleet, "activation_on");

        snprintf(buf, size,
                 "safe to enable pin activation: %zu address%s serve%s "
                 "valid TACKs by %s, min_generation %d%s",
                 num, num == 1 ? "" : "es", num == 1 ? "s" : "",
                 fleet_str(fleet, "fleet_key"),
                 (int)fleet_int(fleet, "min_generation"),
                 on == num ? " (already on at every address)" : "");
        return;
    }
    used = (size_t)snprintf(buf, size,
                            "do not enable pin activation: %zu of %zu "
                            "address%s would lock clients out:",
                            nbad, num, num == 1 ? "" : "es");
    /* The first few by name; every one is in the problem lines. */
    for (i = 0, shown = 0; i < num && used < size; i++) {
        if (json_array_size(entries[i].problems) == 0) {
            continue;
        }
        if (shown == FLEET_VERDICT_NAMES) {
            snprintf(buf + used, size - used, " and %zu more", nbad - shown);
            break;
        }
        shown++;
        used += (size_t)snprintf(buf + used, size - used, " %s (%s)%s",
                                 entries[i].text, entries[i].status,
                                 shown < nbad ? "," : "");
    }
}

/* ---- output -------------------------------------------------------------- */

/* fleet_row prints one address: TACK ID, generation, min_generation,
 * expiration (the day), target hash, break signatures, pin activation and
 * status; an address that did not answer gets its status only. */
static void fleet_row(FILE *fp, int width, const fleet_entry_t *e)
{
    json_t *t = e->tack;
    const char *exp = t ? fleet_str(t, "expiration") : NULL;
    const char *target = "-";
    char day[11];
    int act;

    if (json_object_get(e->report, "protocol") == NULL) {
        fprintf(fp, "%-*s  %-29s  %3s %3s  %-10s  %-6s %6s  %-3s  %s\n", width,
                e->text, "(no answer)", "-", "-", "-", "-", "-", "-",
                e->status);
        return;
    }
    if (t != NULL) {
        const char *th = fleet_str(t, "target_hash");
        const char *kh =
            fleet_str(json_object_get(e->report, "certificate"), "key_sha256");

        target = th && kh && strcmp(th, kh) == 0 ? "ok" : "WRONG";
    }
    snprintf(day, sizeof(day), "%.10s", exp ? exp : "-");
    act = fleet_activation(e, t);
    if (t == NULL) {
        fprintf(fp, "%-*s  %-29s  %3s %3s  %-10s  %-6s %6zu  %-3s  %s\n", width,
                e->text, "(no TACK)", "-", "-", "-", target,
                json_array_size(json_object_get(e->report, "break_sigs")),
                act < 0 ? "-"
                : act   ? "on"
                        : "off",
                e->status);
        return;
    }
    fprintf(fp, "%-*s  %-29s  %3d %3d  %-10s  %-6s %6zu  %-3s  %s\n", width,
            e->text, fleet_str(t, "tack_id"), (int)fleet_int(t, "generation"),
            (int)fleet_int(t, "min_generation"), day, target,
            json_array_size(json_object_get(e->report, "break_sigs")),
            act < 0 ? "-"
            : act   ? "on"
                    : "off",
            e->status);
}

static void fleet_print(FILE *fp, const cli_check_opts_t *o, int from_dns,
                        fleet_entry_t *entries, size_t num, json_t *fleet,
                        const char *verdict)
{
    json_t *w;
    size_t i, j;
    int width = 7;

    for (i = 0; i < num; i++) {
        if ((int)strlen(entries[i].text) > width) {
            width = (int)strlen(entries[i].text);
        }
    }
    fprintf(fp, "%-14s = %s port %s%s%s\n", "fleet", o->host, o->port,
            o->servername ? ", server name " : "",
            o->servername ? o->servername : "");
    fprintf(fp, "%-14s = %zu (from %s), over %s\n", "addresses", num,
            from_dns ? "the DNS" : "--resolve",
            o->min_version == TLS1_3_VERSION ? "TLS 1.3" : "TLS 1.2");
    fputc('\n', fp);
    fprintf(fp, "%-*s  %-29s  %3s %3s  %-10s  %-6s %6s  %-3s  %s\n", width,
            "ADDRESS", "TACK ID", "GEN", "MIN", "EXPIRES", "TARGET", "BREAKS",
            "PIN", "STATUS");
    for (i = 0; i < num; i++) {
        fleet_row(fp, width, &entries[i]);
    }
    fputc('\n', fp);
    if (json_is_string(json_object_get(fleet, "fleet_key"))) {
        fprintf(fp, "%-14s = %s (%d of %zu addresses), min_generation %d\n",
                "fleet key", fleet_str(fleet, "fleet_key"),
                (int)fleet_int(fleet, "fleet_key_addresses"), num,
                (int)fleet_int(fleet, "min_generation"));
    } else {
        fprintf(fp, "%-14s = none: no address serves a valid TACK\n",
                "fleet key");
    }
    for (i = 0; i < num; i++) {
        json_array_foreach(entries[i].problems, j, w)
        {
            fprintf(fp, "%-14s = %s: %s\n", "problem", entries[i].text,
                    json_string_value(w));
        }
    }
    for (i = 0; i < num; i++) {
        json_array_foreach(entries[i].warnings, j, w)
        {
            fprintf(fp, "%-14s = %s: %s\n", "warning", entries[i].text,
                    json_string_value(w));
        }
    }
    json_array_foreach(json_object_get(fleet, "warnings"), j, w)
    {
        fprintf(fp, "%-14s = %s\n", "warning", json_string_value(w));
    }
    fprintf(fp, "%-14s = %s\n", "verdict", verdict);
}

/* ---- the command --------------------------------------------------------- */

/* fleet_addresses fills |entries| (|*num| of them) with the addresses to
 * check: the --resolve ones, else what DNS gives for the host; sorted,
 * each once.  Returns the exit status. */
static int fleet_addresses(const cli_check_opts_t *o, char *const *resolve,
                           size_t num_resolve, fleet_entry_t *entries,
                           size_t *num)
{
    char err[512];
    size_t i, n;
    int rc;

    rc = fleet_resolve_args(o->host, resolve, num_resolve, entries, num);
    if (rc == CLI_EXIT_OK && num_resolve == 0) {
        rc =
            fleet_resolve_dns(o->host, o->port, entries, num, err, sizeof(err));
        if (rc != CLI_EXIT_OK) {
            cli_err("check %s: %s", o->host, err);
        }
    }
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    qsort(entries, *num, sizeof(*entries), fleet_addr_cmp);
    for (i = 0, n = 0; i < *num; i++) {
        if (n == 0 || fleet_addr_cmp(&entries[n - 1], &entries[i]) != 0) {
            entries[n++] = entries[i];
        }
    }
    *num = n;
    return CLI_EXIT_OK;
}

/* fleet_checked makes sure every address was checked: the tool's own
 * trouble (an unusable --ca) is the same at every address, so it is said
 * once.  Each address gets its problems and warnings arrays.  Returns the
 * exit status. */
static int fleet_checked(const cli_check_opts_t *o, fleet_entry_t *entries,
                         size_t num)
{
    size_t i;

    for (i = 0; i < num; i++) {
        const char *e = fleet_str(entries[i].report, "error");

        if (entries[i].rc == CLI_EXIT_USAGE || entries[i].report == NULL) {
            cli_err("check %s: %s", o->host, e ? e : "out of memory");
            return CLI_EXIT_USAGE;
        }
        entries[i].problems = json_array();
        entries[i].warnings = json_array();
    }
    return CLI_EXIT_OK;
}

/* fleet_report writes the fleet's report to stdout: as JSON (--json, the
 * addresses and the verdict added to |out|) or as rows. */
static void fleet_report(const cli_check_opts_t *o, int from_dns,
                         fleet_entry_t *entries, size_t num, json_t *out,
                         const char *verdict)
{
    json_t *arr;
    size_t i;

    if (o->json) {
        arr = json_array();
        for (i = 0; i < num; i++) {
            json_array_append_new(
                arr,
                json_pack("{s:s, s:s, s:O, s:O, s:O}", "address",
                          entries[i].text, "status", entries[i].status,
                          "problems", entries[i].problems, "warnings",
                          entries[i].warnings, "check", entries[i].report));
        }
        json_object_set_new(out, "addresses", arr);
        json_object_set_new(out, "verdict", json_string(verdict));
        json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        putchar('\n');
    } else {
        fleet_print(stdout, o, from_dns, entries, num, out, verdict);
    }
    fflush(stdout);
}

/* cli_fleet_check (tack(1), "The fleet check"): find the addresses, check
 * each, judge the fleet, report. */
int cli_fleet_check(const cli_check_opts_t *opts, char *const *resolve,
                    size_t num_resolve)
{
    cli_check_opts_t o = *opts;
    fleet_entry_t *entries;
    json_t *out;
    size_t i, num = 0;
    char verdict[4096];
    int rc;

    entries = calloc(FLEET_MAX_ADDRS, sizeof(*entries));
    out = json_object(); /* before any thread: seeds jansson's hashes */
    if (entries == NULL || out == NULL) {
        free(entries);
        json_decref(out);
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    rc = fleet_addresses(&o, resolve, num_resolve, entries, &num);
    if (rc != CLI_EXIT_OK) {
        free(entries);
        json_decref(out);
        return rc;
    }

    json_object_set_new(out, "host", json_string(o.host));
    json_object_set_new(out, "port", json_string(o.port));
    json_object_set_new(out, "servername",
                        o.servername ? json_string(o.servername) : json_null());
    json_object_set_new(out, "source",
                        json_string(num_resolve ? "resolve" : "dns"));

    /* Quiet: the rows say it all, once each.  --require goes without
     * saying: an address without a TACK is a problem of its own. */
    o.quiet = 1;
    o.require = 0;
    fleet_run(&o, entries, num);

    rc = fleet_checked(&o, entries, num);
    if (rc == CLI_EXIT_OK) {
        rc = fleet_judge(entries, num, cli_now(), out);
        fleet_verdict(entries, num, out, verdict, sizeof(verdict));
        fleet_report(&o, num_resolve == 0, entries, num, out, verdict);
    }

    for (i = 0; i < num; i++) {
        json_decref(entries[i].report);
        json_decref(entries[i].problems);
        json_decref(entries[i].warnings);
    }
    free(entries);
    json_decref(out);
    return rc;
}
