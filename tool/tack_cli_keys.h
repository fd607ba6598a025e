/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_keys.h -- what `tack sign` (tack_cli_keys.c) shares with its
 * fleet (tack_cli_keys_fleet.c): the certificates a run signs, each with
 * the file its TACK goes to, and the calls that list, name, write and
 * report them.  Each returns CLI_EXIT_OK or the exit status, the message
 * printed.
 */
#ifndef TACK_CLI_KEYS_H
#define TACK_CLI_KEYS_H

typedef struct {
    char *cert_path;
    char *out_path; /* NULL: standard output */
    char *pem;
    size_t pem_len;
    char *tmp;   /* written, synced, not yet in place */
    tack_t tack; /* what was signed, for the report */
    X509 *cert;  /* loaded to name its file in -o DIR (sign_plan) */
    int min_generation, generation; /* what it is signed at (sign_floor) */
} cli_sign_job_t;

typedef struct {
    cli_sign_job_t *jobs;
    size_t count, cap;
} cli_sign_jobs_t;

/* cli_sign_jobs_add adds the certificate file |path| (copied) to |jobs|;
 * cli_sign_jobs_free frees them all, and removes the temporary files of
 * those not yet in place. */
int cli_sign_jobs_add(cli_sign_jobs_t *jobs, const char *path);
void cli_sign_jobs_free(cli_sign_jobs_t *jobs);

/* cli_sign_collect_dir adds the certificates of the directory |dir|, in
 * name order: a certificate's suffix, not one of our own outputs, and (for
 * .pem, which keys share) a CERTIFICATE block inside; counts the other
 * files, hidden ones aside, in |*skipped|. */
int cli_sign_collect_dir(cli_sign_jobs_t *jobs, const char *dir,
                         size_t *skipped);

/* cli_sign_set_out sets |job|'s file to "OUT/NAME". */
int cli_sign_set_out(cli_sign_job_t *job, const char *out_dir,
                     const char *name);

/* cli_sign_store_name sets |job|'s file in the directory |out_dir| to the
 * TackStore's name of its certificate (tack_cert_store_name: the module's
 * TackSigningKey writes the same name, so each replaces the other's file),
 * loading the certificate now, before any key or password is asked for,
 * and keeping it for sign_one ("-c -" can be read only once). */
int cli_sign_store_name(cli_sign_job_t *job, const char *out_dir);

/* cli_sign_check_names refuses two certificates that would write one file,
 * and (without --force) files that exist -- all before anything is
 * written. */
int cli_sign_check_names(cli_sign_jobs_t *jobs, int force);

/* cli_sign_progress shows "|what| |done|/|total|" on stderr's line. */
void cli_sign_progress(size_t done, size_t total, const char *what);

/* cli_sign_write_fleet puts the TACKs of a fleet run into the directory
 * |out_path|.  Every file is written under a temporary name first and made
 * durable with one syncfs(2), then all are moved into place and the
 * directory is synced once: a failure while writing leaves nothing behind,
 * a crash never leaves a placed name with missing contents, and thousands
 * of files cost two syncs, not thousands. */
int cli_sign_write_fleet(cli_sign_jobs_t *jobs, const char *out_path, int force,
                         int progress);

/* cli_sign_report says on stderr what a fleet run did. */
void cli_sign_report(const cli_sign_jobs_t *jobs, const char *out_path,
                     size_t skipped);

#endif /* TACK_CLI_KEYS_H */
