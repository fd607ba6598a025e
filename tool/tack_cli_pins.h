/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_cli_pins.h -- what the pin store (tack_cli_pins.c) shares with
 * `tack pins` (tack_cli_pins_cmd.c): the loaded store and the calls that
 * open, save and close it.  The store's interface to the rest of the tool
 * (cli_pins_apply, cli_pins_key_state, cli_pins_normalise) is in
 * tack_cli.h.
 */
#ifndef TACK_CLI_PINS_H
#define TACK_CLI_PINS_H

/* The largest store the tool reads, and so the largest it writes: a
 * browser-sized store of 100,000 names, each on a key of its own, is
 * 55 MB (about 550 bytes a name: the key record and the name record). */
#define PINS_FILE_MAX ((size_t)128 * 1024 * 1024)

/* A loaded store: the file's JSON and its three members, checked whole by
 * cli_pins_open so that readers can trust them. */
typedef struct {
    const char *path; /* the file: |real|, or the name given */
    char *real;       /* malloc'd: the target of a link given; or NULL */
    json_t *root;
    json_t *keys;
    json_t *names;
    json_t *broken; /* "broken_keys", NULL when absent */
    int lock_fd;
} cli_pins_t;

/* cli_pins_open loads the store at |path| into |p| (locked for writing
 * with |lock|); a missing file is an empty store.  A |path| that is a
 * symbolic link is resolved first: its target is the file locked, read
 * and replaced, so that the link and the target take the same lock and the
 * link stays a link (a link to a missing file is refused).  Returns
 * CLI_EXIT_OK, or CLI_EXIT_USAGE after saying why (|p| then needs no
 * cli_pins_close). */
int cli_pins_open(cli_pins_t *p, const char *path, int lock);

/* cli_pins_save replaces the store's file atomically; a store that would
 * be larger than PINS_FILE_MAX is not written (it could not be read back).
 * Returns the exit status (CLI_EXIT_USAGE after saying why). */
int cli_pins_save(cli_pins_t *p);

/* cli_pins_close frees the store and releases its lock. */
void cli_pins_close(cli_pins_t *p);

/* cli_pins_gc drops the key records no name points at. */
void cli_pins_gc(cli_pins_t *p);

/* cli_pins_int returns the integer member |key| of |obj| (0 when absent:
 * cli_pins_open checked the ones the store must have). */
json_int_t cli_pins_int(json_t *obj, const char *key);

#endif /* TACK_CLI_PINS_H */
