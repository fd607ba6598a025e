/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_keys_fleet.c -- `tack sign`'s fleet (tack_cli_keys.c decides
 * when a run is one): the list of certificates to sign, those of a
 * directory found by name and content, the TACK file each is signed into
 * in -o DIR (the TackStore's name, or --name) checked before anything is
 * written, and every file written at once, with the progress and the
 * report.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "tack_cli.h"
#include "tack_cli_keys.h"
#include "tack_file.h"
#include "tack_store.h"

int cli_sign_jobs_add(cli_sign_jobs_t *jobs, const char *path)
{
    if (jobs->count == jobs->cap) {
        size_t ncap = jobs->cap ? jobs->cap * 2 : 16;
        cli_sign_job_t *n = realloc(jobs->jobs, ncap * sizeof(*n));

        if (n == NULL) {
            cli_err("out of memory");
            return CLI_EXIT_USAGE;
        }
        jobs->jobs = n;
        jobs->cap = ncap;
    }
    memset(&jobs->jobs[jobs->count], 0, sizeof(cli_sign_job_t));
    jobs->jobs[jobs->count].cert_path = strdup(path);
    if (jobs->jobs[jobs->count].cert_path == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    jobs->count++;
    return CLI_EXIT_OK;
}

void cli_sign_jobs_free(cli_sign_jobs_t *jobs)
{
    size_t i;

    for (i = 0; i < jobs->count; i++) {
        free(jobs->jobs[i].cert_path);
        free(jobs->jobs[i].out_path);
        free(jobs->jobs[i].pem);
        X509_free(jobs->jobs[i].cert);
        if (jobs->jobs[i].tmp != NULL) {
            unlink(jobs->jobs[i].tmp);
            free(jobs->jobs[i].tmp);
        }
    }
    free(jobs->jobs);
}

static int sign_has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);

    return n > s && strcasecmp(name + n - s, suffix) == 0;
}

static const char *const sign_cert_suffixes[] = {".crt", ".cert", ".pem",
                                                 ".cer", ".der",  NULL};

static int sign_dir_cmp(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* sign_dir_wants tells whether a directory entry looks like a certificate:
 * a certificate suffix, not one of our own outputs, and (for .pem, which
 * keys share) a CERTIFICATE block inside. */
static int sign_dir_wants(const char *path, const char *name)
{
    size_t i;
    int suffix = 0;
    char *text = NULL;
    size_t len = 0;
    int wants;
    struct stat sb;

    if (name[0] == '.' || sign_has_suffix(name, TACK_STORE_SUFFIX)) {
        return 0;
    }
    for (i = 0; sign_cert_suffixes[i] != NULL; i++) {
        if (sign_has_suffix(name, sign_cert_suffixes[i])) {
            suffix = 1;
        }
    }
    if (!suffix || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        return 0;
    }
    if (sign_has_suffix(name, ".der") || sign_has_suffix(name, ".cer")) {
        return 1;
    }
    if (tack_file_read(path, TACK_FILE_MAX_DEFAULT, &text, &len) != TACK_OK) {
        return 1; /* let the loader report it */
    }
    wants = strstr(text, "-----BEGIN CERTIFICATE-----") != NULL;
    OPENSSL_cleanse(text, len); /* it may have been a key */
    free(text);
    if (!wants && sign_has_suffix(name, ".crt")) {
        /* a .pem beside the certificates may be their key; a .crt that is
         * no certificate is a mistake worth naming */
        cli_warn("%s: no certificate in it (no BEGIN CERTIFICATE); skipped",
                 path);
    }
    return wants;
}

int cli_sign_collect_dir(cli_sign_jobs_t *jobs, const char *dir,
                         size_t *skipped)
{
    struct dirent **names = NULL;
    int n, i, rc = CLI_EXIT_OK;

    n = scandir(dir, &names, NULL, sign_dir_cmp);
    if (n < 0) {
        cli_err("%s: %s", dir, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    for (i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(names[i]->d_name) + 2;
        char *path = malloc(len);

        if (path == NULL) {
            rc = CLI_EXIT_USAGE;
        } else if (rc == CLI_EXIT_OK) {
            snprintf(path, len, "%s%s%s", dir,
                     dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]->d_name);
            if (sign_dir_wants(path, names[i]->d_name)) {
                rc = cli_sign_jobs_add(jobs, path);
            } else if (names[i]->d_name[0] != '.') {
                (*skipped)++;
            }
        }
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

/* sign_out_path: "OUT" + "NAME" -> "OUT/NAME" (malloc'd). */
static char *sign_out_path(const char *out_dir, const char *name)
{
    size_t len = strlen(out_dir) + 1 + strlen(name) + 1;
    char *res = malloc(len);

    if (res != NULL) {
        snprintf(res, len, "%s%s%s", out_dir,
                 out_dir[strlen(out_dir) - 1] == '/' ? "" : "/", name);
    }
    return res;
}

int cli_sign_set_out(cli_sign_job_t *job, const char *out_dir, const char *name)
{
    job->out_path = sign_out_path(out_dir, name);
    if (job->out_path == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

int cli_sign_store_name(cli_sign_job_t *job, const char *out_dir)
{
    char name[TACK_STORE_NAME_SIZE];
    tack_status_t st;
    int rc = cli_load_cert(job->cert_path, &job->cert);

    if (rc != CLI_EXIT_OK) {
        cli_err("nothing written");
        return rc;
    }
    st = tack_cert_store_name(job->cert, name, sizeof(name));
    if (st != TACK_OK) {
        cli_err("%s: no TackStore file name: %s; nothing written",
                job->cert_path, tack_status_str(st));
        cli_ssl_errors();
        return CLI_EXIT_USAGE;
    }
    return cli_sign_set_out(job, out_dir, name);
}

static int sign_out_cmp(const void *a, const void *b)
{
    const cli_sign_job_t *const *x = a;
    const cli_sign_job_t *const *y = b;

    return strcmp((*x)->out_path, (*y)->out_path);
}

int cli_sign_check_names(cli_sign_jobs_t *jobs, int force)
{
    cli_sign_job_t **order;
    size_t i;
    int rc = CLI_EXIT_OK;

    order = malloc(jobs->count * sizeof(*order));
    if (order == NULL) {
        cli_err("out of memory");
        return CLI_EXIT_USAGE;
    }
    for (i = 0; i < jobs->count; i++) {
        order[i] = &jobs->jobs[i];
    }
    qsort(order, jobs->count, sizeof(*order), sign_out_cmp);
    for (i = 1; i < jobs->count; i++) {
        if (strcmp(order[i - 1]->out_path, order[i]->out_path) == 0) {
            cli_err("%s and %s would both be signed into %s; nothing "
                    "written",
                    order[i - 1]->cert_path, order[i]->cert_path,
                    order[i]->out_path);
            rc = CLI_EXIT_USAGE;
            break;
        }
    }
    for (i = 0; rc == CLI_EXIT_OK && !force && i < jobs->count; i++) {
        if (access(jobs->jobs[i].out_path, F_OK) == 0) {
            cli_err("%s: exists; nothing written (use --force to replace "
                    "existing TACK files)",
                    jobs->jobs[i].out_path);
            rc = CLI_EXIT_USAGE;
        }
    }
    free(order);
    return rc;
}

void cli_sign_progress(size_t done, size_t total, const char *what)
{
    fprintf(stderr, "\rtack sign: %s %zu/%zu (%zu%%)", what, done, total,
            total ? done * 100 / total : 100);
    fflush(stderr);
}

int cli_sign_write_fleet(cli_sign_jobs_t *jobs, const char *out_path, int force,
                         int progress)
{
    size_t i;
    int rc;

    for (i = 0; i < jobs->count; i++) {
        rc = cli_write_temp(jobs->jobs[i].out_path, jobs->jobs[i].pem,
                            jobs->jobs[i].pem_len, 0644, 0, &jobs->jobs[i].tmp);
        if (rc != CLI_EXIT_OK) {
            if (progress) {
                fputc('\n', stderr);
            }
            cli_err("nothing written");
            return rc;
        }
        if (progress && (i % 64 == 0 || i + 1 == jobs->count)) {
            cli_sign_progress(i + 1, jobs->count, "written");
        }
    }
    if (tack_file_sync_fs(out_path) != 0) {
        cli_err("%s: cannot sync the new files: %s", out_path, strerror(errno));
        for (i = 0; i < jobs->count; i++) {
            unlink(jobs->jobs[i].tmp);
        }
        return CLI_EXIT_USAGE;
    }
    for (i = 0; i < jobs->count; i++) {
        rc = cli_commit_temp(jobs->jobs[i].tmp, jobs->jobs[i].out_path, force);
        jobs->jobs[i].tmp = NULL;
        if (rc != CLI_EXIT_OK) {
            if (progress) {
                fputc('\n', stderr);
            }
            cli_err("stopped after placing %zu of %zu files", i, jobs->count);
            return rc;
        }
    }
    if (tack_file_sync_dir(jobs->jobs[0].out_path) != 0) {
        cli_err("%s: cannot sync the directory: %s", out_path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

void cli_sign_report(const cli_sign_jobs_t *jobs, const char *out_path,
                     size_t skipped)
{
    char more[64] = "";

    if (skipped > 0) {
        snprintf(more, sizeof(more), " (%zu other file%s skipped)", skipped,
                 skipped == 1 ? "" : "s");
    }
    cli_done("signed %zu certificate%s into %s%s", jobs->count,
             jobs->count == 1 ? "" : "s", out_path, more);
}
