/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli.h -- shared declarations of the `tack` command-line tool, whose
 * sources are the files of tool/ (the binary is built as ./tack at the top).
 *
 * The tool is split by concern:
 *   tack.c            main, command table, help texts
 *   tack_cli_util.c   messages, files, output, times, encodings, notes
 *   tack_cli_load.c   passwords; key, certificate, TACK and PEM files
 *   tack_cli_keys.c   genkey, sign (one certificate or a fleet), break
 *   tack_cli_keys_fleet.c  sign's fleet: a directory's certificates, the
 *                     TACK files' names in -o DIR, all written at once
 *   tack_cli_keys.h   the certificates a sign run signs, shared by the
 *                     last two
 *   tack_cli_view.c   view, serverinfo
 *   tack_cli_show.c   the human and JSON forms of a TACK, a break signature
 *   tack_cli_check.c  `tack check`: options, then the engine or the fleet
 *   tack_cli_engine.c the check engine: the TLS client and the draft's
 *                     client checks (cli_check_run)
 *   tack_cli_net.c    the engine's network: HOST[:PORT], a TCP connection
 *                     and a TLS handshake within one deadline
 *   tack_cli_pins.c   the pin store (draft-00 section 5)
 *   tack_cli_pins_cmd.c  `tack pins`: list the store, delete a pin
 *   tack_cli_pins.h   the loaded store, shared by the last two
 *   tack_cli_fleet.c  check --all-addresses: every address of a name at once
 *   tack_cli_preload.c  preload lists: read, check, apply (check --preload)
 *   tack_cli_preload_cmd.c  `tack preload view|build`
 *   tack_cli_state.c  `tack state`: the module's state file, shown or
 *                     dated back (the core's tack_state.c)
 *   tack_cli_preload.h  the format's constants the last two share
 *
 * Calls run one way, top to bottom (checked with grep):
 *   tack.c (main) -> the commands (cmd_*);
 *   front ends: check, fleet, preload_cmd -> engine (cli_check_run;
 *     check -> fleet only to hand it the --all-addresses run; fleet and
 *     preload_cmd never call check, and neither calls the other);
 *   engine -> preload (cli_preload_apply) -> pins (the store: key state),
 *     engine -> pins (cli_pins_apply), engine -> show; check and
 *     preload_cmd read lists through preload too (the library, not a
 *     front end);
 *   engine -> net (the connection); check and preload_cmd -> net too
 *     (cli_split_hostport, cli_is_ip);
 *   keys -> keys_fleet (sign's fleet) -> load (the certificates);
 *   keys, view, preload_cmd -> load (passwords, typed files); view -> show;
 *   pins_cmd -> pins (open, save, close the store);
 *   everything -> util, and the core (tack_*.h, each file the headers of
 *   the core files it uses).
 * The engine calls no front end.  The commands call back into tack.c only
 * for cli_help and cli_usage_error, whose texts sit in its command table.
 *
 * Exit status, everywhere: 0 success; 1 a TACK, file or connection was read
 * and fails a check; 2 usage errors, unreadable, malformed or unusable files
 * (a wrong password included).
 */
#ifndef TACK_CLI_H
#define TACK_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "tack_ext.h"
#include "tack_keyfile.h"

#define TACK_CLI_VERSION "0.1.1"

/* TACK_PROG is the command's name in every message, usage line and file
 * comment: the Makefile's TACK_PROG (Debian's package installs the tool as
 * tacktool, its tack package owning /usr/bin/tack). */
#ifndef TACK_PROG
#define TACK_PROG "tack"
#endif

#define CLI_EXIT_OK 0
#define CLI_EXIT_CHECK 1
#define CLI_EXIT_USAGE 2

/* Long-option values shared by several commands (beyond any short option). */
enum {
    CLI_OPT_PASSWORD_FILE = 256,
    CLI_OPT_FORCE,
    CLI_OPT_JSON,
    CLI_OPT_NOW,
    CLI_OPT_FORMAT,
    CLI_OPT_SERVERNAME,
    CLI_OPT_TLS12,
    CLI_OPT_TLS13,
    CLI_OPT_PINS,
    CLI_OPT_CA,
    CLI_OPT_ITERATIONS,
    CLI_OPT_REQUIRE,
    CLI_OPT_TIMEOUT,
    CLI_OPT_V2,
    CLI_OPT_NO_PROGRESS,
    CLI_OPT_DELETE,
    CLI_OPT_ALL_ADDRESSES,
    CLI_OPT_RESOLVE,
    CLI_OPT_HELP,
    CLI_OPT_PRELOAD,
    CLI_OPT_HOSTS,
    CLI_OPT_KEY_TYPE,
    CLI_OPT_WARN_DAYS,
    CLI_OPT_NAME,
    CLI_OPT_ALLOW_LOWER,
    CLI_OPT_STATE,
    CLI_OPT_END /* one past the last */
};

/* ---- commands ------------------------------------------------------------ */

int cmd_genkey(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_break(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_serverinfo(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_pins(int argc, char **argv);
int cmd_preload(int argc, char **argv);
int cmd_state(int argc, char **argv);

/* cli_help prints the help of |cmd| (NULL: the overview) to |fp|; returns 0,
 * or CLI_EXIT_USAGE for an unknown command. */
int cli_help(FILE *fp, const char *cmd);

/* cli_usage_hint prints the pointer to `tack help CMD` alone, after
 * getopt_long's own message for an unknown option or a missing argument;
 * returns CLI_EXIT_USAGE. */
int cli_usage_hint(const char *cmd);

/* cli_usage_error prints "tack CMD: MESSAGE" and a pointer to `tack help
 * CMD`; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- messages ------------------------------------------------------------ */

/* cli_err prints "tack: " and the formatted message and a newline to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_done says on stderr what a command did when it succeeded ("wrote
 * FILE ..."), unless `tack --quiet` (cli_quiet): a cron job or a
 * certificate hook is silent when all goes well, loud when not. */
extern int cli_quiet;
void cli_done(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_ssl_errors drains OpenSSL's error queue to stderr, one line each. */
void cli_ssl_errors(void);

/* ---- files --------------------------------------------------------------- */

/* cli_read_file reads |path| ("-" for stdin) whole, NUL-terminated.  On
 * failure it prints "tack: PATH: reason" and returns CLI_EXIT_USAGE. */
int cli_read_file(const char *path, char **out, size_t *out_len);
/* cli_read_file_max is cli_read_file for a file of at most |max| bytes
 * (cli_read_file: TACK_FILE_MAX_DEFAULT). */
int cli_read_file_max(const char *path, size_t max, char **out,
                      size_t *out_len);

/* cli_write_output writes |data| to |path| (NULL or "-": stdout).  A file is
 * written to a temporary name in the same directory, synced, then moved into
 * place, so that a reader never sees half a file.  An existing file is
 * refused unless |force|.  |mode| is the new file's mode (the umask applies
 * except to 0600).  Prints the error and returns CLI_EXIT_USAGE on failure. */
int cli_write_output(const char *path, const void *data, size_t len,
                     mode_t mode, int force);

/* cli_write_atomic is cli_write_output without the existence check, for files
 * the tool owns (the pin store). */
int cli_write_atomic(const char *path, const void *data, size_t len,
                     mode_t mode);

/* cli_write_temp writes |data| to a new temporary file next to |path| (mode
 * |mode|) and, when |sync|, fsyncs it; its name goes to |*tmp| (malloc'd).
 * cli_commit_temp then moves it to |path| (refusing an existing file unless
 * |force|) and frees |tmp|; on failure it removes the temporary file.  Both
 * are the core's tack_file_write_temp and tack_file_commit with the tool's
 * messages.  Callers that write many files into one directory pass |sync|
 * 0, make them durable at once with tack_file_sync_fs, commit them, then
 * sync the directory once with tack_file_sync_dir. */
int cli_write_temp(const char *path, const void *data, size_t len, mode_t mode,
                   int sync, char **tmp);
int cli_commit_temp(char *tmp, const char *path, int force);

/* cli_output_usable checks, before any password is asked for, that
 * cli_write_output could write |path| (NULL or "-": standard output, always
 * usable): not a directory, not an existing file unless |force|, and its
 * directory exists and is writable.  Returns CLI_EXIT_OK, or prints
 * "tack: PATH: reason" and returns CLI_EXIT_USAGE. */
int cli_output_usable(const char *path, int force);

/* cli_make_dir makes the directory |path| (|mode|, less the umask), for
 * an output directory; prints the error and returns CLI_EXIT_USAGE on
 * failure ("nothing written": callers make it before writing). */
int cli_make_dir(const char *path, mode_t mode);

/* cli_is_dir returns 1 when |path| is an existing directory. */
int cli_is_dir(const char *path);

/* ---- passwords and keys -------------------------------------------------- */

typedef struct {
    const char *password;      /* -p */
    const char *password_file; /* --password-file */
    /* What standard input carries when it is not the user's (`-c -`: "the
     * certificate"), or NULL: then no prompt is ever shown. */
    const char *stdin_is;
} cli_pw_opts_t;

/* cli_password_get finds the password: -p, then --password-file (its first
 * line), then $TACK_PASSWORD, then a prompt with echo off when stdin is a
 * terminal that carries nothing else (pw->stdin_is NULL; twice when
 * |confirm|).  |*out| is malloc'd; release it with
 * cli_password_free.  Prints the error and returns CLI_EXIT_USAGE when there
 * is no way to get one. */
int cli_password_get(const cli_pw_opts_t *pw, const char *what, int confirm,
                     char **out, size_t *out_len);
void cli_password_free(char *pw, size_t len);

/* ---- generations only go up (tack_cli_floor.c) ----------------------------
 */

/* Where mod_tack keeps its TackStateFile when the configuration names none
 * (mod_tack_memory.c). */
#define CLI_STATE_DEFAULT "/var/lib/apache2/tack/state.json"

/* The highest min_generation and generation found under one TACK key for
 * one certificate, and where (the first file that gave the highest). */
typedef struct {
    int min_generation, generation; /* -1: nothing found */
    char from[4200];
} cli_floor_t;

/* cli_floor_find fills |f| from the TACKs under |key| that |cert|'s names
 * already have: in the file |replaced| (NULL: none), in the store
 * directory |store_dir|'s files for the certificate's host (NULL: none),
 * and in the module's state file |state_path| (NULL: none), judged at
 * |now|.  What cannot be read is skipped quietly. */
void cli_floor_find(cli_floor_t *f, const uint8_t *key, X509 *cert,
                    const char *replaced, const char *store_dir,
                    const char *state_path, long now);

/* cli_load_keyfile reads and parses a TACK PRIVATE KEY file (no password). */
int cli_load_keyfile(const char *path, tack_keyfile_t *out);

/* cli_load_key reads a TACK PRIVATE KEY file and decrypts it, or, when
 * |path| is a pkcs11: URI, loads the key from its token with the PIN from
 * the password options (none asked for when the URI has pin-value).  On
 * failure it prints "tack: PATH: reason" and returns CLI_EXIT_USAGE. */
int cli_load_key(const char *path, const cli_pw_opts_t *pw, EVP_PKEY **out);

/* cli_load_token_public loads the public key object a pkcs11: URI names
 * (no PIN), for `tack view`. */
int cli_load_token_public(const char *uri, EVP_PKEY **out);

/* cli_uri_shown writes |uri| for messages, a pin-value's PIN as "***". */
void cli_uri_shown(const char *uri, char *out, size_t out_size);

/* cli_load_cert reads the first certificate of a PEM or DER file. */
int cli_load_cert(const char *path, X509 **out);

/* cli_load_tacks reads every TACK block of |path| (at most |max|). */
int cli_load_tacks(const char *path, tack_t *out, size_t max, size_t *count);

/* cli_load_breaksigs appends the TACK BREAK SIG blocks of |path| to |out|
 * (capacity |max|, |*count| in and out). */
int cli_load_breaksigs(const char *path, tack_breaksig_t *out, size_t max,
                       size_t *count);

/* ---- PEM output ---------------------------------------------------------- */

/* cli_pem_with_header returns a malloc'd text: TACKpy's "Created by" and
 * "Created at" lines, then the PEM block(s) of |n| items of |item_len| bytes
 * each under |label|. */
int cli_pem_with_header(char **out, size_t *out_len, const char *label,
                        const uint8_t *items, size_t item_len, size_t n);

/* ---- times --------------------------------------------------------------- */

/* cli_now returns the current time, or the --now override when set. */
time_t cli_now(void);
extern int cli_now_set;
extern time_t cli_now_value;

/* cli_parse_time parses an absolute UTC time: 2030, 2030-06, 2030-06-06,
 * 2030-06-06T12, 2030-06-06T12:00, 2030-06-06T12:00:00, each with an optional
 * trailing Z, or @SECONDS.  Returns 1 on success. */
int cli_parse_time(const char *s, time_t *out);

/* cli_parse_duration parses 30d, 12h, 90m, 2w, 45s (or a sum: 1d12h) into
 * seconds.  Returns 1 on success. */
int cli_parse_duration(const char *s, long long *out);

/* cli_parse_when parses an absolute time, a duration from |base|, or
 * "+DURATION" from |base|.  Returns 1 on success. */
int cli_parse_when(const char *s, time_t base, time_t *out);

/* cli_opt_now handles every command's --now WHEN: it sets the time cli_now
 * returns (a time or a duration from the real clock, as cli_parse_when
 * reads it).  Returns CLI_EXIT_OK, or CLI_EXIT_USAGE after saying
 * "tack CMD: --now: bad time". */
int cli_opt_now(const char *cmd, const char *arg);

/* cli_format_time writes seconds as "%Y-%m-%dT%H:%MZ" (with ":%S" when the
 * seconds are not zero and |secs|) into |out|. */
void cli_format_time(time_t t, int secs, char *out, size_t out_size);

/* ---- encodings and numbers -----------------------------------------------
 * Hex is the core's (tack_hex_encode, tack_hex_decode: strict). */

/* cli_base64 returns a malloc'd, unwrapped base64 string. */
char *cli_base64(const uint8_t *in, size_t len);
/* cli_parse_uint parses a decimal number in [lo, hi]; returns 1 on success. */
int cli_parse_uint(const char *s, unsigned long lo, unsigned long hi,
                   unsigned long *out);

/* ---- forms shared by view and check (tack_cli_show.c) ------------------ */

/* cli_print_tack writes TACKpy's human form of a TACK. */
void cli_print_tack(FILE *fp, const tack_t *tack);
void cli_print_breaksig(FILE *fp, const tack_breaksig_t *sig);
json_t *cli_json_tack(const tack_t *tack, time_t now);
json_t *cli_json_breaksig(const tack_breaksig_t *sig);

/* cli_breaksig_breaks returns 1 when |sig| breaks the key of |tack| (the
 * TACK is revoked by it: every client discards the pin at once, draft-00
 * section 5), else 0.  Both `tack serverinfo` and `tack check --require`
 * refuse a TACK served with such a break signature. */
int cli_breaksig_breaks(const tack_breaksig_t *sig, const tack_t *tack);

/* cli_safe_text returns a malloc'd, NUL-terminated copy of the |len| bytes
 * of |in| that is valid UTF-8 and cannot drive a terminal: C0 controls and
 * DEL become \xNN, as does each byte that is not part of valid UTF-8; the
 * C1 controls (U+0080..U+009F) and the bidi overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069) become \UXXXX, OpenSSL's notation for a
 * character it escapes.  Everything shown that came from the network goes
 * through it.  Returns NULL when out of memory. */
char *cli_safe_text(const uint8_t *in, size_t len);

/* cli_cert_subject returns a malloc'd one-line subject, safe to print
 * (cli_safe_text). */
char *cli_cert_subject(X509 *cert);

/* ---- check: one TLS client connection ----------------------------------- */

enum { CLI_CHECK_FMT_AUTO, CLI_CHECK_FMT_00, CLI_CHECK_FMT_02 };

/* cli_ext_fault says, into |buf|, why |body| is not a valid extension body
 * in |format| (CLI_CHECK_FMT_*): the field, its byte offset, the value and
 * the reason, such as a second TACK in a draft-00 body.  Under AUTO, the
 * format whose parse went further is named first. */
void cli_ext_fault(int format, const uint8_t *body, size_t len, char *buf,
                   size_t n);

/* What `tack check` does, as its options say.  servername is the SNI and
 * pin name (NULL: none, for an IP address); ca, pins and preload are NULL
 * when not given; min_version and max_version are TLS1_2_VERSION and the
 * like (0: OpenSSL's); timeout, in seconds, bounds the connection and the
 * handshake.  json is --json (cli_check_run prints no JSON itself); quiet
 * keeps stderr silent, errors only in the report (parallel runs). */
typedef struct {
    const char *host; /* the name (or address) given */
    const char *port;
    const char *servername;
    const char *ca;
    const char *pins;
    const char *preload;
    int min_version, max_version;
    int format; /* CLI_CHECK_FMT_* */
    int require;
    int json;
    int timeout;
    int quiet;
    int key_type;  /* --key-type: EVP_PKEY_EC, EVP_PKEY_RSA, or 0 (any) */
    int warn_days; /* --warn-days: a served TACK expiring sooner is a
                    * warning (0: none) */
} cli_check_opts_t;

/* cli_note prints "LABEL          = message" to |fp| (when not NULL) and
 * appends the message to |report|'s "actions" array: the pin store's and
 * the preload list's account of what they did. */
void cli_note(FILE *fp, json_t *report, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* cli_split_hostport splits |arg| in place: "host", "host:port",
 * "[v6]:port" or a bare IPv6 address; the port defaults to "443".  Returns
 * 1, or 0 when a part is empty or a bracket is unbalanced.  cli_is_ip
 * returns 1 when |host| is an IPv4 or IPv6 address (no SNI for those). */
int cli_split_hostport(char *arg, const char **host, const char **port);
/* cli_port_valid returns 1 when |port| is a decimal port, 1 to 65535. */
int cli_port_valid(const char *port);
int cli_is_ip(const char *host);

/* cli_net_deadline returns the CLOCK_MONOTONIC time, in milliseconds,
 * |timeout| seconds from now. */
long long cli_net_deadline(int timeout);

/* cli_net_connect opens a TCP connection before |deadline|.  The socket
 * stays non-blocking, so that the handshake keeps to the same deadline (a
 * socket timeout would bound each read, not a server that answers a byte
 * at a time).  Returns the fd or -1 with |err|. */
int cli_net_connect(const char *host, const char *port, long long deadline,
                    char *err, size_t err_size);

/* cli_net_ssl_connect runs the handshake on the non-blocking socket until
 * |deadline|.  Returns 1 on success, 0 on failure with the reason in
 * |why|. */
int cli_net_ssl_connect(SSL *ssl, int fd, long long deadline, int timeout,
                        char *why, size_t why_size);

/* cli_ssl_key_type limits a client's handshakes to --key-type's
 * certificates (EVP_PKEY_EC, EVP_PKEY_RSA; 0: any): the signature
 * algorithms (TLS 1.3 and 1.2) and, for TLS 1.2, the ciphers'
 * authentication.  Returns 1, or 0 when OpenSSL refuses. */
int cli_ssl_key_type(SSL_CTX *ctx, int key_type);

/* cli_check_run connects to |connect_host| (NULL: o->host) port o->port,
 * handshakes with SNI o->servername, and checks the reply as `tack check`
 * does (the --now time must be set before: it reads cli_now()).  Fills
 * |*report| (a new reference; the caller json_decrefs it) with the object
 * `tack check --json` prints, and prints the human lines to |out| when not
 * NULL.  Without o->quiet the reason of a failure also goes to stderr;
 * with it, nothing does, and an error of the tool itself (not of the
 * server) is the report's "error" string.  Returns CLI_EXIT_OK when the
 * connection is accepted, CLI_EXIT_CHECK when it fails or a client would
 * reject it, CLI_EXIT_USAGE when the options or files are unusable.  It
 * writes no global state, so runs may go in parallel threads (without
 * o->pins: the store is one file). */
int cli_check_run(const cli_check_opts_t *o, const char *connect_host,
                  FILE *out, json_t **report);

/* cli_fleet_check runs cli_check_run against every address of o->host at
 * once (at most 64 at a time, each within o->timeout): the addresses given
 * by |resolve| (|num_resolve| --resolve HOST:ADDR arguments; with any, the
 * DNS is not asked) or else every A and AAAA record.  Prints one row per
 * address and the verdict to stdout (JSON with o->json).  Returns
 * CLI_EXIT_OK when turning pin activation on is safe for every address,
 * CLI_EXIT_CHECK when an address would lock clients out (or none is
 * found), CLI_EXIT_USAGE on a bad argument or an unusable file. */
int cli_fleet_check(const cli_check_opts_t *o, char *const *resolve,
                    size_t num_resolve);

/* ---- pin store (draft-00 section 5) -------------------------------------- */

/* The TACK-related facts of one handshake, after every syntax, signature and
 * certificate check has passed. */
typedef struct {
    const char *name; /* the host name pinned */
    size_t num_tacks; /* 0, 1 or 2 */
    const tack_t *tacks[2];
    int active[2]; /* activation flag for each TACK */
    size_t num_breaksigs;
    const tack_breaksig_t *breaksigs; /* all verified */
    time_t now;
    /* Set by cli_preload_apply (zero without --preload): the key of the
     * preload entry enforced for |name| (NULL: none) and its min_generation,
     * which the store's key record is raised to; the keys whose preload
     * entries a break signature of this reply lifted, which the store
     * records so that they stay lifted. */
    const uint8_t *preload_key;
    int preload_min_generation;
    size_t num_lifted;
    const uint8_t *lifted[TACK_MAX_BREAKSIGS];
} cli_pin_input_t;

/* cli_pins_apply loads |path| (missing: empty store), applies the client
 * rules to |in|, saves the store atomically when it changed and prints what
 * it did to |fp|.  Returns 0 when the connection is accepted, 1 when it is
 * rejected (|*alert| = the draft's alert name), 2 on a store error. */
int cli_pins_apply(const char *path, const cli_pin_input_t *in, FILE *fp,
                   const char **alert, json_t *report);

/* cli_pins_key_state reads the store |path| (missing: empty) without
 * changing it: |*broken| is 1 when |key| is recorded as broken (a break
 * signature lifted its preload entries), |*min_generation| its key record's
 * min_generation or -1 when there is none.  Returns 0, or 2 (message
 * printed) when the store cannot be used. */
int cli_pins_key_state(const char *path, const uint8_t key[TACK_KEY_LEN],
                       int *broken, int *min_generation);

/* cli_pins_normalise returns a malloc'd copy of the host name |name| as the
 * pin store and the preload list compare names: lower case, without a
 * trailing dot.  NULL when out of memory. */
char *cli_pins_normalise(const char *name);

/* ---- preload lists (docs/preload.md) ------------------------------------- */

typedef struct {
    char *host; /* normalised as cli_pins_normalise does */
    uint8_t public_key[TACK_KEY_LEN];
    char tack_id[TACK_FINGERPRINT_SIZE];
    int min_generation; /* 0..255 */
    time_t observed;
} cli_preload_entry_t;

typedef struct {
    int version;
    time_t generated, expires;
    size_t num_entries;
    cli_preload_entry_t *entries; /* sorted by host, no host twice */
} cli_preload_t;

/* cli_preload_parse checks a whole list (|len| bytes of JSON) and fills
 * |out|, to be released with cli_preload_free.  Returns 1, or 0 with the
 * reason in |why| (and |out| empty). */
int cli_preload_parse(cli_preload_t *out, const char *text, size_t len,
                      char *why, size_t why_size);

/* cli_preload_load reads and parses the list |path|; on failure it prints
 * "tack: PATH: reason" and returns CLI_EXIT_USAGE. */
int cli_preload_load(const char *path, cli_preload_t *out);
void cli_preload_free(cli_preload_t *l);

/* cli_preload_find returns the entry for the normalised |host|, or NULL. */
const cli_preload_entry_t *cli_preload_find(const cli_preload_t *l,
                                            const char *host);

/* cli_preload_apply loads the list |path| and applies it to |in| (whose
 * TACKs and break signatures have passed every check) before the pin store
 * |pins| (NULL: none) does; it reads the store but never writes it, and
 * sets |in|'s preload fields for cli_pins_apply.  Prints what it did to
 * |fp| and fills |report|.  Returns 0 when the connection is accepted (the
 * host is not listed, its entry is lifted or matches, or the list has
 * expired), 1 when it is rejected (|*alert| = the draft's alert name, the
 * report's "reason" says why), 2 when the list or the store is unusable. */
int cli_preload_apply(const char *path, const char *pins, cli_pin_input_t *in,
                      FILE *fp, const char **alert, json_t *report);

#endif /* TACK_CLI_H */
