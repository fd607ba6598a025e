/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * tack_state.h -- the state file (TackStateFile): the memory of which TACK
 * keys each vhost's certificate served, since when, whether with pin
 * activation, and the highest min_generation served under each; read and
 * written here and nowhere else (the module's guard decides what to do
 * with it; fuzz/fuzz_state.c reads hostile ones).
 *
 * The file is JSON (jansson):
 *
 *   {"version": 1, "written": UNIX-TIME,
 *    "slots": {"NAME:PORT TYPE": [{"key": HEX64, "tack_id": ID,
 *                                  "first_seen": T, "last_served": T,
 *                                  "serving": BOOL, "pins_until": T,
 *                                  "activation": BOOL (absent: true),
 *                                  "min_generation": 0-255 (absent: 0),
 *                                  "min_generation_until": T (absent: 0),
 *                                  "tack": HEX166 (optional)}, ...]}}
 *
 * "tack_id" and "pins_until" are written for people and tools, and not
 * read back.  Files written before 0.1.1 hold only keys served with
 * activation on, and no min_generation.  An entry that is malformed costs
 * that entry alone; a time outside 1970 to 9999 costs nothing but that
 * key's times (tack_state_key_t.bad_time).
 */
#ifndef TACK_STATE_H
#define TACK_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "tack_ext.h"

/* One TACK key remembered for a certificate of a vhost. */
typedef struct {
    uint8_t key[TACK_KEY_LEN];
    long first_seen;    /* first served (clients' pins start then) */
    long last_served;   /* the last pass that served it with activation on */
    int serving;        /* served with activation by the running generation */
    int activation;     /* ever served with activation on: pins may be held */
    int min_generation; /* the highest min_generation served under it, with
                         * activation on or off: clients that saw it refuse
                         * a lower generation (certificate_revoked) */
    long min_generation_until; /* kept until then: 30 days after it was
                                * last served */
    int bad_time; /* read: a time outside 1970-9999 (the key's times
                   * are then 0: the reader decides) */
    int has_tack;
    uint8_t tack[TACK_LEN]; /* the last TACK served under it */
    long pins_until;        /* written only: until when pins may be held */
} tack_state_key_t;

/* The latest time a state file may hold: 9999-12-31T23:59:59Z. */
#define TACK_STATE_TIME_MAX 253402300799L

/* A state file in memory: what was read, or what is to be written. */
typedef struct tack_state tack_state_t;

/* The longest entry name: a 255-byte host name, ':', a port, ' ', a key
 * type. */
#define TACK_STATE_ID_MAX 316

/* tack_state_new returns an empty state stamped |written|, or NULL (out of
 * memory). */
tack_state_t *tack_state_new(long written);

/* tack_state_parse reads a state file's |len| bytes of |text| into |*out|
 * (free with tack_state_free).  TACK_ERR_NOT_STATE_FILE when it is not
 * JSON or has no "version": 1 with "slots"; |err| (|err_len| bytes) then
 * says which, by position only: nothing of the file's content is quoted
 * (it may not be ours).  Malformed entries do not fail the file: see
 * tack_state_entry. */
tack_status_t tack_state_parse(const char *text, size_t len, tack_state_t **out,
                               char *err, size_t err_len);

/* tack_state_written returns the "written" stamp (0 when absent). */
long tack_state_written(const tack_state_t *st);

/* tack_state_count returns the number of entries, malformed ones
 * included. */
size_t tack_state_count(const tack_state_t *st);

/* tack_state_entry gives entry |i|: returns 1 with its name in |*id| and
 * its |*nkeys| keys in |*keys|, or 0 when it is malformed, with |*id| its
 * name when that has the shape of one (tack_state_id_ok) and NULL when not
 * (such a name is never quoted in a message). */
int tack_state_entry(const tack_state_t *st, size_t i, const char **id,
                     const tack_state_key_t **keys, size_t *nkeys);

/* tack_state_add appends an entry for writing (|nkeys| of |keys|, copied);
 * an entry with no keys is not written. */
tack_status_t tack_state_add(tack_state_t *st, const char *id,
                             const tack_state_key_t *keys, size_t nkeys);

/* tack_state_dump returns the JSON text of |st| (malloc'd, free with free),
 * keys sorted, one level of indentation per line, or NULL (out of
 * memory). */
char *tack_state_dump(const tack_state_t *st);

void tack_state_free(tack_state_t *st);

/* The longest a client's pin lives past its last confirmation (draft-00
 * section 5: MIN(30 days, how long the key had been seen)). */
#define TACK_STATE_PIN_MAX_SECS (30L * 24 * 60 * 60)

/* tack_state_pins_until returns until when (seconds since the epoch) a
 * client's pin on |m| can be active, judged at the clock |now|: 0 when it
 * was never served with activation on, else the last confirmation (|now|
 * while |m| is served) plus MIN(30 days, how long the key had been seen
 * then).  No time makes it overflow: the sums saturate.  A time the memory
 * holds later than |now| was written under a clock that ran ahead (or the clock
 * is behind now); every write happened by now, so a last confirmation later
 * than |now| counts as |now|, and a first sight later than the last
 * confirmation is unknown and counts as the longest span: never a shorter pin
 * than clients can hold. */
long tack_state_pins_until(const tack_state_key_t *m, long now);

/* tack_state_keep_until returns until when the memory keeps |m|: while its
 * pins can be active, and while clients may hold its min_generation
 * (min_generation_until). */
long tack_state_keep_until(const tack_state_key_t *m, long now);

/* How long a min_generation is remembered after the key was last served:
 * how long a client's key record outlives its pins is not bounded by the
 * draft; the pins' own bound, 30 days. */
#define TACK_STATE_FLOOR_SECS TACK_STATE_PIN_MAX_SECS

/* How far ahead of the clock a state file's times may be without being
 * "ahead": NTP steps a clock back by seconds, a VM's by a few minutes, and
 * such a file is judged at the clock (tack_state_pins_until) and rewritten
 * as usual, without an error. */
#define TACK_STATE_CLOCK_SLACK_SECS (5L * 60)

/* tack_state_ahead returns the latest time |st| holds ("written", a key's
 * first_seen or last_served) when it is more than
 * TACK_STATE_CLOCK_SLACK_SECS later than |now|, or 0. */
long tack_state_ahead(const tack_state_t *st, long now);

/* tack_state_redate dates every time of |st| later than |now| back to
 * |now|, for when the clock is right and the file was written while it ran
 * ahead: a last confirmation later than |now| becomes |now|, and a first
 * sight later than |now| becomes 30 days before the last confirmation,
 * so that tack_state_pins_until gives the same answer at |now| as before,
 * and "written" becomes |now| ("pins_until" is recomputed at |now|).
 * Returns the number of keys changed. */
size_t tack_state_redate(tack_state_t *st, long now);

/* tack_state_lock takes the lock every writer of the state file |path|
 * holds from reading what others wrote to its rename (httpd at the end of
 * a start, `tack state --redate`): flock on |path|.lock, a file only its
 * owner (the caller's user, root) can open, waited for at most |wait_ms|
 * milliseconds.  The lock file is opened without following a link, never
 * blocking on a FIFO, and must be a regular file of the caller's, mode
 * 0600: a lock anyone could open, anyone could hold.  One that is not (a
 * local user may make it first where the directory lets them) is removed
 * and made anew, and |*replaced| (when not NULL) is set to say so.
 * Returns the descriptor (close it to let go), or -1 with errno
 * (EWOULDBLOCK: another writer held it all that time; ENOENT: the
 * directory is missing; EPERM: a lock file not ours that could not be
 * replaced). */
int tack_state_lock(const char *path, int wait_ms, int *replaced);

/* The lock file's name: the state file's, with this after it. */
#define TACK_STATE_LOCK_SUFFIX ".lock"

/* tack_state_id_ok says whether |id| has the shape of an entry's name
 * ("NAME:PORT TYPE": printable ASCII without quotes or backslashes,
 * bounded). */
int tack_state_id_ok(const char *id);

#endif /* TACK_STATE_H */
