/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_keys.c -- the commands that use a TACK private key: genkey, sign
 * (one certificate, or a whole fleet into a directory: the fleet's files in
 * tack_cli_keys_fleet.c) and break.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "tack_cli.h"
#include "tack_cli_keys.h"
#include "tack_util.h"
#include "tack_key.h"
#include "tack_ext.h"
#include "tack_pem.h"
#include "tack_keyfile.h"
#include "tack_store.h"

/* ---- genkey -------------------------------------------------------------- */

/* keys_common_opt takes the options genkey, sign and break share: the
 * password sources, -o FILE, -f (--force), and TACKpy's -x ("use the
 * pure-Python crypto", meaningless here).  Returns 1 when |c| was one. */
static int keys_common_opt(int c, cli_pw_opts_t *pw, const char **out_path,
                           int *force)
{
    switch (c) {
    case 'p':
        pw->password = optarg;
        return 1;
    case CLI_OPT_PASSWORD_FILE:
        pw->password_file = optarg;
        return 1;
    case 'o':
        *out_path = optarg;
        return 1;
    case 'f':
        *force = 1;
        return 1;
    case 'x':
        return 1;
    default:
        return 0;
    }
}

/* What `tack genkey`'s options say (docs/tack.1, GENKEY). */
typedef struct {
    cli_pw_opts_t pw;
    const char *out_path;
    unsigned long iterations;
    int force;
} genkey_opts_t;

/* genkey_parse_options fills |go|.  Returns -1 when the command goes on,
 * else the exit status (help printed, or a usage error). */
static int genkey_parse_options(int argc, char **argv, genkey_opts_t *go)
{
    static const struct option longopts[] = {
        {"password", required_argument, NULL, 'p'},
        {"password-file", required_argument, NULL, CLI_OPT_PASSWORD_FILE},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"iterations", required_argument, NULL, CLI_OPT_ITERATIONS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;

    while ((c = getopt_long(argc, argv, "p:o:fxh", longopts, NULL)) != -1) {
        switch (c) {
        case CLI_OPT_ITERATIONS:
            if (!cli_parse_uint(optarg, 1, TACK_KEYFILE_MAX_ITERATIONS,
                                &go->iterations)) {
                return cli_usage_error("genkey",
                                       "--iterations: want 1 to %d, not "
                                       "\"%s\"",
                                       TACK_KEYFILE_MAX_ITERATIONS, optarg);
            }
            break;
        case 'h':
            return cli_help(stdout, "genkey");
        default:
            if (keys_common_opt(c, &go->pw, &go->out_path, &go->force)) {
                break;
            }
            return cli_usage_hint("genkey");
        }
    }
    if (optind != argc) {
        return cli_usage_error("genkey", "unexpected argument \"%s\"",
                               argv[optind]);
    }
    return -1;
}

/* genkey_make asks for the new key's password, generates a key and writes
 * its TACK PRIVATE KEY file's text to |*text| (malloc'd, |*text_len|
 * bytes; the caller cleanses and frees it) and its TACK ID to |fp|.
 * Returns the exit status. */
static int genkey_make(const genkey_opts_t *go, char **text, size_t *text_len,
                       char fp[TACK_FINGERPRINT_SIZE])
{
    EVP_PKEY *key = NULL;
    tack_keyfile_t kf;
    uint8_t raw[TACK_KEYFILE_LEN];
    char *pass = NULL;
    size_t pass_len = 0;
    tack_status_t st;
    int rc;

    rc = cli_password_get(&go->pw, "the new key", 1, &pass, &pass_len);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_key_generate(&key);
    if (st == TACK_OK) {
        st = tack_keyfile_create(&kf, key, pass, pass_len,
                                 (uint32_t)go->iterations);
    }
    cli_password_free(pass, pass_len);
    EVP_PKEY_free(key);
    if (st != TACK_OK) {
        cli_err("cannot create the key: %s", tack_status_str(st));
        cli_ssl_errors();
        return CLI_EXIT_USAGE;
    }
    tack_keyfile_encode(&kf, raw);
    tack_fingerprint(kf.public_key, fp);
    OPENSSL_cleanse(&kf, sizeof(kf));
    rc = cli_pem_with_header(text, text_len, TACK_PEM_LABEL_KEY, raw,
                             sizeof(raw), 1);
    OPENSSL_cleanse(raw, sizeof(raw));
    return rc;
}

/* cmd_genkey (docs/tack.1, GENKEY): parse the options, refuse to overwrite
 * or to write into a missing or read-only directory before asking for a
 * password, make the key, write it. */
int cmd_genkey(int argc, char **argv)
{
    genkey_opts_t go = {
        {NULL, NULL, NULL}, NULL, TACK_KEYFILE_DEFAULT_ITERATIONS, 0};
    char *text = NULL;
    size_t text_len = 0;
    char fp[TACK_FINGERPRINT_SIZE];
    int rc;

    rc = genkey_parse_options(argc, argv, &go);
    if (rc != -1) {
        return rc;
    }
    /* Say what stops the write before asking for a password, twice. */
    rc = cli_output_usable(go.out_path, go.force);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = genkey_make(&go, &text, &text_len, fp);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = cli_write_output(go.out_path, text, text_len, 0600, go.force);
    OPENSSL_cleanse(text, text_len);
    free(text);
    if (rc == CLI_EXIT_OK && go.out_path != NULL && strcmp(go.out_path, "-")) {
        cli_done("wrote %s, TACK ID %s", go.out_path, fp);
    }
    return rc;
}

/* ---- sign ---------------------------------------------------------------- */

typedef struct {
    unsigned long min_generation, generation;
    int have_min_generation, have_generation;
    int allow_lower;        /* --allow-lower-generation */
    const char *state_path; /* --state, else the module's default */
    const char *expiration; /* -e as given, NULL: the certificate's */
    time_t now;
} sign_params_t;

/* sign_one builds the PEM text of the TACK for one certificate (the one
 * sign_plan loaded, or read now). */
static int sign_one(cli_sign_job_t *job, EVP_PKEY *key, const sign_params_t *sp)
{
    X509 *cert = job->cert;
    tack_t tack;
    uint8_t raw[TACK_LEN];
    time_t exp_time, not_after;
    long long minutes;
    char when[32];
    tack_status_t st;
    int rc = CLI_EXIT_OK;

    job->cert = NULL;
    if (cert == NULL &&
        (rc = cli_load_cert(job->cert_path, &cert)) != CLI_EXIT_OK) {
        return rc;
    }
    memset(&tack, 0, sizeof(tack));
    tack.min_generation = (uint8_t)job->min_generation;
    tack.generation = (uint8_t)job->generation;
    if (tack_cert_end_time(cert, &not_after) != TACK_OK) {
        cli_err("%s: the certificate's notAfter does not parse",
                job->cert_path);
        X509_free(cert);
        return CLI_EXIT_USAGE;
    }
    if (sp->expiration == NULL) {
        exp_time = not_after;
    } else if (!cli_parse_when(sp->expiration, sp->now, &exp_time)) {
        X509_free(cert);
        return cli_usage_error("sign",
                               "-e: \"%s\" is neither a UTC time "
                               "(2030-06-06Z, 2030-06-06T12:00Z) nor a "
                               "duration (30d, 12h)",
                               sp->expiration);
    }
    /* Expiration counts whole minutes: round up, as TACKpy does, so that a
     * TACK never expires before the moment asked for. */
    minutes = ((long long)exp_time + 59) / 60;
    if (minutes * 60 <= (long long)sp->now) {
        cli_format_time((time_t)(minutes * 60), 0, when, sizeof(when));
        if (sp->expiration == NULL) {
            cli_err("%s: the certificate expired at %s; give -e for a TACK "
                    "that expires later",
                    job->cert_path, when);
        } else {
            cli_err("%s: expiration %s is not in the future", job->cert_path,
                    when);
        }
        X509_free(cert);
        return CLI_EXIT_USAGE;
    }
    if (minutes > (long long)UINT32_MAX) {
        cli_err("%s: expiration is too far in the future", job->cert_path);
        X509_free(cert);
        return CLI_EXIT_USAGE;
    }
    tack.expiration = (uint32_t)minutes;
    st = tack_spki_hash(cert, tack.target_hash);
    X509_free(cert);
    if (st != TACK_OK) {
        cli_err("%s: cannot hash the certificate's public key: %s",
                job->cert_path, tack_status_str(st));
        cli_ssl_errors();
        return CLI_EXIT_USAGE;
    }
    st = tack_sign(&tack, key);
    if (st == TACK_OK) {
        /* A TACK that fails its own check would make every client refuse
         * the server: never hand one out. */
        st = tack_verify(&tack);
    }
    if (st != TACK_OK) {
        cli_err("%s: cannot sign: %s", job->cert_path, tack_status_str(st));
        cli_ssl_errors();
        return CLI_EXIT_USAGE;
    }
    tack_encode(&tack, raw);
    job->tack = tack;
    return cli_pem_with_header(&job->pem, &job->pem_len, TACK_PEM_LABEL_TACK,
                               raw, sizeof(raw), 1);
}

/* What `tack sign`'s options say (docs/tack.1, SIGN). */
typedef struct {
    cli_pw_opts_t pw;
    sign_params_t sp;
    const char *key_path, *out_path;
    const char *name;   /* --name: the file's name in the -o directory */
    const char **certs; /* -c and the arguments after the options */
    size_t ncerts;
    int force, progress;
    const char *twice; /* the first option with a value given twice */
} sign_opts_t;

/* sign_once_name: the name a usage error gives option |c| of `tack sign`
 * when only one is taken, or NULL for those that may repeat (-c, and the
 * flags, whose second copy changes nothing). */
static const char *sign_once_name(int c)
{
    static const struct {
        int c;
        const char *name;
    } once[] = {{'k', "-k"},
                {'p', "-p"},
                {CLI_OPT_PASSWORD_FILE, "--password-file"},
                {'m', "-m"},
                {'g', "-g"},
                {'e', "-e"},
                {'o', "-o"},
                {CLI_OPT_NOW, "--now"},
                {CLI_OPT_NAME, "--name"},
                {CLI_OPT_STATE, "--state"}};
    size_t i;

    for (i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
        if (once[i].c == c) {
            return once[i].name;
        }
    }
    return NULL;
}

/* sign_check_options: what the options say together.  Returns -1 when
 * they are usable, else CLI_EXIT_USAGE (message printed). */
static int sign_check_options(sign_opts_t *so)
{
    sign_params_t *sp = &so->sp;

    if (so->key_path == NULL || so->ncerts == 0) {
        return cli_usage_error("sign", "needs -k KEYFILE and -c CERT");
    }
    if (sp->have_generation && sp->generation < sp->min_generation) {
        return cli_usage_error("sign",
                               "-g %lu is below -m %lu: a client would "
                               "reject the TACK",
                               sp->generation, sp->min_generation);
    }
    sp->now = cli_now();
    if (sp->expiration != NULL) {
        time_t t;

        if (!cli_parse_when(sp->expiration, sp->now, &t)) {
            return cli_usage_error("sign",
                                   "-e: \"%s\" is neither a UTC time "
                                   "(2030-06-06Z, 2030-06-06T12:00Z) nor a "
                                   "duration (30d, 12h)",
                                   sp->expiration);
        }
    }
    return -1;
}

/* sign_name_ok says whether |name| is acceptable for --name: a plain file
 * name ending in ".tack.pem", nothing that leaves the directory or hides
 * from a TackStore. */
static int sign_name_ok(const char *name)
{
    size_t i, n = strlen(name);

    /* A name the store reads (the core's rule), of plain characters. */
    if (!tack_store_name_ok(name)) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (!isalnum((unsigned char)name[i]) && name[i] != '.' &&
            name[i] != '-' && name[i] != '_') {
            return 0;
        }
    }
    return 1;
}

/* sign_value_spaced: |v| begins or ends with white space. */
static int sign_value_spaced(const char *v)
{
    size_t n = strlen(v);

    return n > 0 &&
           (isspace((unsigned char)v[0]) || isspace((unsigned char)v[n - 1]));
}

/* sign_spaced_error refuses |value| of |what| (an option's name, or "a
 * certificate"). */
static int sign_spaced_error(const char *what, const char *value)
{
    return cli_usage_error("sign",
                           "%s \"%s\": a value that begins or ends with "
                           "white space is refused (never a file, time or "
                           "name anyone means; one word passing for "
                           "several)",
                           what != NULL ? what : "an option", value);
}

/* sign_parse_options fills |so| (its certs array malloc'd: the caller
 * frees it).  Returns -1 when the command goes on, else the exit status
 * (help printed, or a usage error). */
static int sign_parse_options(int argc, char **argv, sign_opts_t *so)
{
    static const struct option longopts[] = {
        {"key", required_argument, NULL, 'k'},
        {"password", required_argument, NULL, 'p'},
        {"password-file", required_argument, NULL, CLI_OPT_PASSWORD_FILE},
        {"certificate", required_argument, NULL, 'c'},
        {"min-generation", required_argument, NULL, 'm'},
        {"generation", required_argument, NULL, 'g'},
        {"expiration", required_argument, NULL, 'e'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"now", required_argument, NULL, CLI_OPT_NOW},
        {"no-progress", no_argument, NULL, CLI_OPT_NO_PROGRESS},
        {"name", required_argument, NULL, CLI_OPT_NAME},
        {"allow-lower-generation", no_argument, NULL, CLI_OPT_ALLOW_LOWER},
        {"state", required_argument, NULL, CLI_OPT_STATE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    sign_params_t *sp = &so->sp;
    unsigned char seen[CLI_OPT_END] = {0};
    size_t i;
    int c;

    so->certs = calloc((size_t)argc + 1, sizeof(*so->certs));
    if (so->certs == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    while ((c = getopt_long(argc, argv, "k:p:c:m:g:e:o:fxh", longopts, NULL)) !=
           -1) {
        /* A command allowed through sudo with its options fixed (the mod_md
         * hook's) must not be changed by arguments appended after them:
         * the last copy of -m, -g or -e would win, so none may repeat. */
        if (c >= 0 && c < CLI_OPT_END && sign_once_name(c) != NULL &&
            seen[c]++ && so->twice == NULL) {
            so->twice = sign_once_name(c);
        }
        /* A value with white space at either end is never a path, a time
         * or a name anyone means; it is how one word smuggles several
         * through a sudo rule that matches the words joined by spaces
         * ("-k /x/key --password-file ..." as one word gives -k " /x/...",
         * a relative path).  A password (-p) may hold any bytes. */
        if (c != 'p' && optarg != NULL && sign_value_spaced(optarg)) {
            return sign_spaced_error(c == 'c' ? "-c" : sign_once_name(c),
                                     optarg);
        }
        switch (c) {
        case 'k':
            so->key_path = optarg;
            break;
        case 'c':
            so->certs[so->ncerts++] = optarg;
            break;
        case CLI_OPT_NAME:
            so->name = optarg;
            break;
        case 'm':
            if (!cli_parse_uint(optarg, 0, 255, &sp->min_generation)) {
                return cli_usage_error("sign",
                                       "-m: want 0 to 255, not "
                                       "\"%s\"",
                                       optarg);
            }
            sp->have_min_generation = 1;
            break;
        case 'g':
            if (!cli_parse_uint(optarg, 0, 255, &sp->generation)) {
                return cli_usage_error("sign",
                                       "-g: want 0 to 255, not "
                                       "\"%s\"",
                                       optarg);
            }
            sp->have_generation = 1;
            break;
        case 'e':
            sp->expiration = optarg;
            break;
        case CLI_OPT_NOW:
            if (cli_opt_now("sign", optarg) != CLI_EXIT_OK) {
                return CLI_EXIT_USAGE;
            }
            break;
        case CLI_OPT_NO_PROGRESS:
            so->progress = 0;
            break;
        case CLI_OPT_ALLOW_LOWER:
            sp->allow_lower = 1;
            break;
        case CLI_OPT_STATE:
            sp->state_path = optarg;
            break;
        case 'h':
            return cli_help(stdout, "sign");
        default:
            if (keys_common_opt(c, &so->pw, &so->out_path, &so->force)) {
                break;
            }
            return cli_usage_hint("sign");
        }
    }
    /* Certificates may also follow the options, as in `-c DIR/ *.crt`. */
    for (; optind < argc; optind++) {
        if (sign_value_spaced(argv[optind])) {
            return sign_spaced_error("a certificate", argv[optind]);
        }
        so->certs[so->ncerts++] = argv[optind];
    }
    for (i = 0; i < so->ncerts; i++) {
        if (strcmp(so->certs[i], "-") == 0) {
            so->pw.stdin_is = "the certificate (-c -)";
        }
    }
    if (so->twice != NULL) {
        return cli_usage_error("sign", "%s given twice", so->twice);
    }
    if (so->name != NULL && !sign_name_ok(so->name)) {
        return cli_usage_error("sign",
                               "--name %s: want a file name ending in "
                               ".tack.pem, of letters, digits, '.', '-' "
                               "and '_', not starting with '.'",
                               so->name);
    }
    return sign_check_options(so);
}

/* sign_is_dir_arg: an -o ending in '/' names a directory. */
static int sign_is_dir_arg(const char *out_path)
{
    size_t len = strlen(out_path);

    return len > 0 && out_path[len - 1] == '/';
}

/* sign_plan lists the certificates to sign in |jobs| and the file each
 * TACK goes to; |*fleet| says whether this is a fleet run (several
 * certificates or directories: -o names a directory).  Frees so->certs.
 * Returns CLI_EXIT_OK, or CLI_EXIT_USAGE with the message printed. */
static int sign_plan(sign_opts_t *so, cli_sign_jobs_t *jobs, size_t *skipped,
                     int *fleet)
{
    const char *out_path = so->out_path;
    size_t i;
    int rc = CLI_EXIT_OK;

    /* One certificate file and no output directory: the TACKpy way.  An
     * -o ending in '/' names a directory, made if it is missing. */
    *fleet = so->ncerts > 1 || cli_is_dir(so->certs[0]) ||
             (out_path != NULL &&
              (cli_is_dir(out_path) || sign_is_dir_arg(out_path)));
    for (i = 0; rc == CLI_EXIT_OK && i < so->ncerts; i++) {
        if (cli_is_dir(so->certs[i])) {
            rc = cli_sign_collect_dir(jobs, so->certs[i], skipped);
        } else {
            rc = cli_sign_jobs_add(jobs, so->certs[i]);
        }
    }
    free(so->certs);
    so->certs = NULL;
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    if (*fleet) {
        if (out_path == NULL ||
            (!cli_is_dir(out_path) && !sign_is_dir_arg(out_path))) {
            return cli_usage_error("sign", "several certificates need -o DIR, "
                                           "an existing directory (or DIR/, "
                                           "made if missing)");
        }
        if (jobs->count == 0) {
            cli_err("no certificate found (%zu other files skipped)", *skipped);
            return CLI_EXIT_USAGE;
        }
        if (so->name != NULL && jobs->count != 1) {
            return cli_usage_error("sign",
                                   "--name names the file of one "
                                   "certificate, not of %zu",
                                   jobs->count);
        }
        for (i = 0; i < jobs->count; i++) {
            rc = so->name != NULL
                     ? cli_sign_set_out(&jobs->jobs[i], out_path, so->name)
                     : cli_sign_store_name(&jobs->jobs[i], out_path);
            if (rc != CLI_EXIT_OK) {
                return rc;
            }
        }
        return cli_sign_check_names(jobs, so->force);
    }
    if (so->name != NULL) {
        return cli_usage_error("sign", "--name needs -o DIR/ (a directory)");
    }
    if (out_path != NULL) {
        jobs->jobs[0].out_path = strdup(out_path);
        if (!so->force && strcmp(out_path, "-") != 0 &&
            access(out_path, F_OK) == 0) {
            cli_err("%s: exists; not overwritten (use --force to replace "
                    "it)",
                    out_path);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

/* sign_floor sets what |job| is signed at: -m and -g, raised to the
 * highest a TACK under the signing key |pub| already holds for the
 * certificate (cli_floor_find: the file it replaces, |store_dir|'s files
 * for its host, the module's state file) when they were not given, said
 * in one line; a generation given below that min_generation is refused
 * (clients that saw it would refuse the TACK: certificate_revoked) unless
 * --allow-lower-generation.  Loads the certificate (kept for sign_one).
 * Returns the exit status. */
static int sign_floor(cli_sign_job_t *job, const sign_params_t *sp,
                      const uint8_t *pub, const char *store_dir)
{
    int min = (int)sp->min_generation;
    int gen = sp->have_generation ? (int)sp->generation : min;
    cli_floor_t f;
    int rc;

    job->min_generation = min;
    job->generation = gen;
    if (job->cert == NULL &&
        (rc = cli_load_cert(job->cert_path, &job->cert)) != CLI_EXIT_OK) {
        return rc;
    }
    cli_floor_find(&f, pub, job->cert, job->out_path, store_dir,
                   sp->state_path ? sp->state_path : CLI_STATE_DEFAULT,
                   (long)sp->now);
    if (f.min_generation < 0) {
        return CLI_EXIT_OK;
    }
    if (sp->have_generation && gen < f.min_generation) {
        if (sp->allow_lower) {
            return CLI_EXIT_OK;
        }
        cli_err("%s: -g %d is below min_generation %d, which a TACK under "
                "this key holds for its names (%s): clients that saw it "
                "refuse a lower generation (certificate_revoked); give -g "
                "%d or higher, or --allow-lower-generation if no client can "
                "have seen it; nothing written",
                job->cert_path, gen, f.min_generation, f.from,
                f.min_generation);
        return CLI_EXIT_USAGE;
    }
    if (!sp->have_min_generation && f.min_generation > min) {
        min = f.min_generation;
    }
    if (!sp->have_generation && f.generation > gen) {
        gen = f.generation;
    }
    if (gen < min) {
        gen = min;
    }
    if (min != job->min_generation || gen != job->generation) {
        cli_done("%s: signed at generation %d (min_generation %d), not %d "
                 "(%d): %s holds a TACK under this key that high "
                 "(generations only go up)",
                 job->cert_path, gen, min, job->generation, job->min_generation,
                 f.from);
    }
    job->min_generation = min;
    job->generation = gen;
    return CLI_EXIT_OK;
}

/* sign_all signs every job.  Sign everything first, write afterwards: a
 * certificate that cannot be signed stops the run before any file
 * changes. */
static int sign_all(cli_sign_jobs_t *jobs, EVP_PKEY *key,
                    const sign_params_t *sp, int fleet, int progress)
{
    size_t i;
    int rc;

    for (i = 0; i < jobs->count; i++) {
        rc = sign_one(&jobs->jobs[i], key, sp);
        if (rc != CLI_EXIT_OK) {
            if (progress) {
                fputc('\n', stderr);
            }
            if (fleet) {
                cli_err("nothing written");
            }
            return rc;
        }
        if (progress && (i % 64 == 0 || i + 1 == jobs->count)) {
            cli_sign_progress(i + 1, jobs->count, "signed");
        }
    }
    return CLI_EXIT_OK;
}

/* sign_report_one says on stderr what a single-file run wrote, as genkey
 * does (nothing when the TACK went to standard output). */
static void sign_report_one(const cli_sign_job_t *job)
{
    char fp[TACK_FINGERPRINT_SIZE], when[32];

    if (job->out_path == NULL || strcmp(job->out_path, "-") == 0) {
        return;
    }
    tack_fingerprint(job->tack.public_key, fp);
    cli_format_time((time_t)job->tack.expiration * 60, 0, when, sizeof(when));
    cli_done("wrote %s, TACK ID %s, generation %u, expires %s", job->out_path,
             fp, job->tack.generation, when);
}

int cmd_sign(int argc, char **argv)
{
    sign_opts_t so;
    cli_sign_jobs_t jobs = {NULL, 0, 0};
    size_t skipped = 0, i;
    int fleet = 0, progress, rc;
    EVP_PKEY *key = NULL;
    uint8_t pub[TACK_KEY_LEN];

    memset(&so, 0, sizeof(so));
    so.progress = 1;
    rc = sign_parse_options(argc, argv, &so);
    if (rc != -1) {
        free(so.certs);
        return rc;
    }
    rc = sign_plan(&so, &jobs, &skipped, &fleet);
    if (rc != CLI_EXIT_OK) {
        goto done;
    }
    rc = cli_load_key(so.key_path, &so.pw, &key);
    if (rc != CLI_EXIT_OK) {
        goto done;
    }
    rc = tack_key_public(key, pub) == TACK_OK ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    for (i = 0; rc == CLI_EXIT_OK && i < jobs.count; i++) {
        rc = sign_floor(&jobs.jobs[i], &so.sp, pub, fleet ? so.out_path : NULL);
    }
    if (rc != CLI_EXIT_OK) {
        if (fleet) {
            cli_err("nothing written");
        }
        goto done;
    }
    progress = so.progress && !cli_quiet && fleet && isatty(STDERR_FILENO);
    rc = sign_all(&jobs, key, &so.sp, fleet, progress);
    if (rc != CLI_EXIT_OK) {
        goto done;
    }
    if (!fleet) {
        rc = cli_write_output(jobs.jobs[0].out_path, jobs.jobs[0].pem,
                              jobs.jobs[0].pem_len, 0644, so.force);
        if (rc == CLI_EXIT_OK) {
            sign_report_one(&jobs.jobs[0]);
        }
        goto done;
    }
    /* After everything is signed: a failed run leaves no directory. */
    rc =
        cli_is_dir(so.out_path) ? CLI_EXIT_OK : cli_make_dir(so.out_path, 0755);
    if (rc == CLI_EXIT_OK) {
        rc = cli_sign_write_fleet(&jobs, so.out_path, so.force, progress);
    }
    if (rc != CLI_EXIT_OK) {
        goto done;
    }
    if (progress) {
        fputc('\n', stderr);
    }
    cli_sign_report(&jobs, so.out_path, skipped);

done:
    EVP_PKEY_free(key);
    cli_sign_jobs_free(&jobs);
    return rc;
}

/* ---- break --------------------------------------------------------------- */

int cmd_break(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"key", required_argument, NULL, 'k'},
        {"password", required_argument, NULL, 'p'},
        {"password-file", required_argument, NULL, CLI_OPT_PASSWORD_FILE},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    cli_pw_opts_t pw = {NULL, NULL, NULL};
    const char *key_path = NULL, *out_path = NULL;
    int force = 0, c, rc;
    EVP_PKEY *key = NULL;
    tack_breaksig_t sig;
    uint8_t raw[TACK_BREAKSIG_LEN];
    char *text = NULL;
    size_t text_len = 0;
    tack_status_t st;

    while ((c = getopt_long(argc, argv, "k:p:o:fxh", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            key_path = optarg;
            break;
        case 'h':
            return cli_help(stdout, "break");
        default:
            if (keys_common_opt(c, &pw, &out_path, &force)) {
                break;
            }
            return cli_usage_hint("break");
        }
    }
    if (optind != argc) {
        return cli_usage_error("break", "unexpected argument \"%s\"",
                               argv[optind]);
    }
    if (key_path == NULL) {
        return cli_usage_error("break", "needs -k KEYFILE");
    }
    rc = cli_output_usable(out_path, force);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = cli_load_key(key_path, &pw, &key);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    st = tack_breaksig_create(&sig, key);
    EVP_PKEY_free(key);
    if (st == TACK_OK) {
        st = tack_breaksig_verify(&sig);
    }
    if (st != TACK_OK) {
        cli_err("%s: cannot create the break signature: %s", key_path,
                tack_status_str(st));
        cli_ssl_errors();
        return CLI_EXIT_USAGE;
    }
    tack_breaksig_encode(&sig, raw);
    rc = cli_pem_with_header(&text, &text_len, TACK_PEM_LABEL_BREAKSIG, raw,
                             sizeof(raw), 1);
    if (rc != CLI_EXIT_OK) {
        return rc;
    }
    rc = cli_write_output(out_path, text, text_len, 0644, force);
    free(text);
    /* Said as genkey and sign say what they wrote (on standard output the
     * signature itself says it). */
    if (rc == CLI_EXIT_OK && out_path != NULL && strcmp(out_path, "-") != 0) {
        char fp[TACK_FINGERPRINT_SIZE];

        tack_fingerprint(sig.public_key, fp);
        cli_done("wrote %s, break signature of TACK ID %s: clients that see "
                 "it drop their pins on that key",
                 out_path, fp);
    }
    return rc;
}
