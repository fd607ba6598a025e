/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_preload.h -- what the preload list's reader (tack_cli_preload.c)
 * and its builder (tack_cli_preload_cmd.c) share: the file format's
 * constants (docs/preload.md) and its rules for names and order.  The
 * list's interface to the rest of the tool is in tack_cli.h.
 */
#ifndef TACK_CLI_PRELOAD_H
#define TACK_CLI_PRELOAD_H

#define PRELOAD_FORMAT "tack-preload"
#define PRELOAD_VERSION 1
#define PRELOAD_DAY 86400
/* HPKP's lesson: a list that is never refreshed must stop binding anyone.
 * 90 days by default; never more than a year after it was built. */
#define PRELOAD_DEFAULT_LIFETIME (90 * PRELOAD_DAY)
#define PRELOAD_MAX_LIFETIME (365 * PRELOAD_DAY)
/* The latest time a list may hold: 9999-12-31T23:59:59Z (as the store). */
#define PRELOAD_TIME_MAX ((json_int_t)253402300799LL)
/* Lists are bigger than the tool's other files: about 330 bytes a host. */
#define PRELOAD_FILE_MAX (64 * 1024 * 1024)
#define PRELOAD_NAME_MAX 253
#define PRELOAD_LABEL_MAX 63

/* cli_preload_host_ok returns 1 for a normalised DNS name (ASCII letters,
 * digits, hyphens, underscores; labels of 1 to 63; at most 253 characters)
 * or an IPv4 literal, which has the same shape; 0 otherwise.  No
 * wildcards: TACK pins exact names. */
int cli_preload_host_ok(const char *h);

/* cli_preload_cmp_host orders cli_preload_entry_t by host (qsort, bsearch):
 * the order a list is written and checked in. */
int cli_preload_cmp_host(const void *a, const void *b);

#endif /* TACK_CLI_PRELOAD_H */
