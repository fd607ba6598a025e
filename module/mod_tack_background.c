/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 the mod_tack authors (NOTICE) */
/*
 * mod_tack_background.c -- what a start leaves to TackSigningKey's
 * background: the certificates mod_tack_sign.c queued, and mod_md's
 * staged renewals (mod_tack_md.c, each round).
 *
 * At the end of the pass (mt_background_start, before any httpd child is
 * forked) the parent makes one anonymous shared-memory segment with a
 * place for the answer of each queued certificate (mt_late_t, which the
 * handshake reads through mt_background_answer) and forks the background
 * process, which inherits the pass's signers that are up.  The background
 * signs, writes each TACK into its store and publishes its answer; a key that
 * cannot be used is tried again every TackSigningRetry seconds, and what it
 * says of its keys is on a board at the head of the segment, for the status
 * page.  A background that dies before its work is done is replaced by the
 * parent, with what still waits (mt_agent_maintain, mt_agent_died).  A
 * certificate queued with a due time (a TACK under the key that expires before
 * it, re-signed when 30 days are left) keeps the process alive, asleep until
 * then or for TackSigningRetry, whichever is sooner; its answer replaces the
 * start's TACK in the handshake as soon as it is published.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_main.h"
#include "apr_shm.h"
#include "apr_strings.h"
#include "apr_thread_proc.h"
#include "ap_mpm.h"

#include "mod_tack_background.h"
#include "mod_tack_store.h"
#include "mod_tack_sign.h"
#include "mod_tack_signer.h"
#include "mod_tack_md.h"

APLOG_USE_MODULE(tack);

/* The head of the segment: what the background says of its signing keys,
 * for the status page of every child (a sequence lock: odd while it is
 * written). */
typedef struct {
    apr_uint32_t seq;
    apr_time_t error_at; /* 0: no error now */
    char error[512];
} mt_board_t;

/* The background of this generation (mt_gen_t.background), made in the
 * parent at the end of the pass, before any child is forked. */
struct mt_bg {
    pid_t agent; /* its process (0: none) */
    /* Its restarts: a background that ends before its work is done (the
     * OOM killer, a crash) is replaced by the parent with what still waits
     * (mt_agent_maintain). */
    struct {
        server_rec *s;              /* the generation's main server */
        apr_array_header_t *handed; /* apr_proc_t *: the pass's signers */
        apr_time_t running;         /* when the current one's wait ends:
                                     * its first round */
        int deaths;                 /* ends in a row, each soon after its
                                     * first round */
    } life;
    mt_board_t *board; /* in the segment, or NULL */
};

/* What the process keeps of the background from one generation to the
 * next (mt_proc_t.background): since when each certificate waits (target
 * hash -> apr_time_t), in a pool of its own under the process pool, made
 * anew at each start. */
struct mt_bg_proc {
    apr_pool_t *pool;
    apr_hash_t *since;
};

void mt_background_gen_init(mt_gen_t *gen, mt_proc_t *proc, apr_pool_t *pproc)
{
    struct mt_bg *bg = apr_pcalloc(gen->pconf, sizeof(*bg));

    bg->life.handed = apr_array_make(gen->pconf, 4, sizeof(apr_proc_t *));
    gen->background = bg;
    if (!proc->background) {
        proc->background = apr_pcalloc(pproc, sizeof(*proc->background));
    }
}

static struct mt_bg *mt_bg_get(void)
{
    return mt_gen()->background;
}

static struct mt_bg_proc *mt_bg_proc_get(void)
{
    return mt_proc()->background;
}

/* How the background ends on its own: 0 when its work is done (or at the
 * parent's SIGTERM), this when it cannot work at all.  httpd hands the
 * parent an exit status or a signal's number without saying which
 * (apr_proc_other_child_alert): a status above any signal's number tells
 * them apart. */
#define TACK_BG_EXIT_FAILED 100

/* ---- the background --------------------------------------------------------
 * What the pass left to the background is signed by a process of its own,
 * forked from the parent at the end of the pass (single-threaded then, so
 * OpenSSL and the allocator are in a state a child can use; no thread is
 * added to the parent): it starts the signers it needs, signs, writes each
 * TACK into its store and publishes its answer in the segment the
 * handshakes of this generation read.  A signing key that cannot be used
 * is tried again every TackSigningRetry seconds; the process ends when
 * everything is signed, or with the generation (a restart or stop: the
 * pool cleanup, and httpd's SIGTERM to its process group).  The parent
 * never waits for it, and only the parent and it write the store: never
 * an httpd child. */

static void mt_agent_on_term(int sig)
{
    signal(SIGTERM, SIG_IGN);
    if (getpgrp() == getpid()) {
        struct timespec tick = {0, 10 * 1000 * 1000};
        int i;

        /* its signers, which end their password programs (never httpd's
         * group: it is its own from its first instruction) */
        kill(0, SIGTERM);
        /* A signer stuck in a token call (a frozen HSM, a stalled
         * forwarding) may not get to its handler: what is left after
         * 300 ms is killed, this process with it.  waitpid and nanosleep
         * are async-signal-safe. */
        for (i = 0; i < 30 && waitpid(-1, NULL, WNOHANG) >= 0; i++) {
            nanosleep(&tick, NULL);
        }
        if (waitpid(-1, NULL, WNOHANG) >= 0) {
            kill(0, SIGKILL);
        }
    }
    _exit(0);
}

apr_time_t mt_background_waiting(const mt_pending_t *pd)
{
    apr_time_t due;

    if (!pd || !pd->late || mt_background_answer(pd)) {
        return 0;
    }
    /* a successor due later: its TACK is served until then */
    due = apr_time_from_sec(pd->due);
    if (pd->due && apr_time_now() < due) {
        return 0;
    }
    return due > pd->late->since ? due : pd->late->since;
}

/* mt_agent_publish puts the answer carrying |item| for |pd| into the
 * segment (anonymous, made at the end of the pass: every child of the
 * generation sees it): the bytes first, then |ready| with a release
 * store, which mt_background_answer reads with an acquire load, inline in
 * the header as the handshake calls it (bench/bench-callgrind.sh, part
 * A2).  Nothing is changed after that. */
static void mt_agent_publish(const mt_pending_t *pd, const mt_item_t *item)
{
    uint8_t buf[TACK_ANSWER_MAX];
    unsigned char inactive = 0;
    const tack_t *t = MT_ITEM_TACK(item);
    size_t len = 0;

    if (!pd->late ||
        tack_answer_encode(pd->format, pd->pin_activation, &t, &inactive, 1,
                           pd->sigs, pd->nsigs, buf, &len) != TACK_OK ||
        len != pd->len) {
        return; /* served at the next start, from the store */
    }
    memcpy(pd->late->data, buf, len);
    memcpy(pd->late->served, item->fingerprint, TACK_FINGERPRINT_SIZE);
    pd->late->tack = *t;
    pd->late->expires = t->expiration;
    pd->late->written = item->file->store != NULL;
    __atomic_store_n(&pd->late->ready, 1, __ATOMIC_RELEASE);
}

/* mt_agent_broken says whether |pd|'s vhost serves a break signature for
 * |sg|'s key: nothing is signed with it there (TACK00032 at the next
 * start says so). */
static int mt_agent_broken(const mt_pending_t *pd, const mt_signer_t *sg)
{
    size_t j;

    for (j = 0; j < pd->nsigs; j++) {
        if (mt_key_equal(pd->sigs[j].public_key, sg->pub)) {
            return 1;
        }
    }
    return 0;
}

/* mt_board_say records |error| (NULL: none) on the board. */
static void mt_board_say(const char *error)
{
    const struct mt_bg *bg = mt_gen()->background;
    mt_board_t *b = bg ? bg->board : NULL;

    if (!b) {
        return;
    }
    __atomic_add_fetch(&b->seq, 1, __ATOMIC_ACQ_REL);
    b->error_at = error ? apr_time_now() : 0;
    apr_cpystrn(b->error, error ? error : "", sizeof(b->error));
    __atomic_add_fetch(&b->seq, 1, __ATOMIC_ACQ_REL);
}

apr_time_t mt_background_last_error(char *buf, size_t size)
{
    const struct mt_bg *bg = mt_gen()->background;
    const mt_board_t *b = bg ? bg->board : NULL;
    apr_time_t at = 0;
    int tries;

    buf[0] = '\0';
    for (tries = 0; b && tries < 100; tries++) {
        apr_uint32_t seq = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);

        if (seq & 1) {
            continue;
        }
        at = b->error_at;
        apr_cpystrn(buf, b->error, size);
        if (__atomic_load_n(&b->seq, __ATOMIC_ACQUIRE) == seq) {
            return at;
        }
    }
    buf[0] = '\0';
    return 0;
}

/* mt_agent_failed logs why |sg| cannot sign now, once per key and
 * reason: |said| (in the process's pool) has the last reason per key. */
static void mt_agent_failed(mt_signer_t *sg, apr_hash_t *said)
{
    const char *last = apr_hash_get(said, sg->key, APR_HASH_KEY_STRING);

    if (sg->reported || !sg->error) {
        return;
    }
    sg->reported = 1;
    if (last && !strcmp(last, sg->error)) {
        return;
    }
    apr_hash_set(said, apr_pstrdup(apr_hash_pool_get(said), sg->key),
                 APR_HASH_KEY_STRING,
                 apr_pstrdup(apr_hash_pool_get(said), sg->error));
    mt_board_say(sg->error);
    ap_log_error(APLOG_MARK, APLOG_ERR, 0, ap_server_conf,
                 "TACK00076: %s (" TACK_WHERE_FMT "); the certificates that "
                 "wait for it are served without a TACK: tried again every "
                 "%d seconds",
                 sg->error, TACK_WHERE(sg->where), mt_signer_retry_secs());
}

/* mt_agent_due says whether |pd| may be signed at |now|; when not, it
 * brings |*next| forward to its due time (0: none yet). */
static int mt_agent_due(const mt_pending_t *pd, time_t now, time_t *next)
{
    if (pd->due <= now) {
        return 1;
    }
    if (!*next || pd->due < *next) {
        *next = pd->due;
    }
    return 0;
}

/* mt_agent_theirs says whether the store file of |pd|, which replaces a
 * TACK under |sg|'s key, now holds a TACK under another key (put there
 * since the start): it is left alone, logged, and nothing is published
 * for |pd|.  The background replaces only its own key's files. */
static int mt_agent_theirs(apr_pool_t *p, const mt_pending_t *pd,
                           const mt_signer_t *sg)
{
    const mt_store_t *st = pd->conf->store;
    const char *file;
    char vname[TACK_NAME_SIZE];

    if (!pd->replaces || !pd->write || !st || !st->loaded || st->error ||
        !mt_store_other_key(p, st, pd->cert.x509, sg->pub, &file)) {
        return 0;
    }
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, pd->s,
                 "TACK00152: vhost %s: TackStore file %s no longer holds a "
                 "TACK under TackSigningKey %s's key (%s) alone: left as it "
                 "is, and the TACK of %s is not signed anew; the one served "
                 "since the start expires at %s, the next start serves the "
                 "file's",
                 mt_vhost_name_buf(pd->s, vname), file, sg->key,
                 sg->fingerprint, pd->cert.label, MT_ITEM_EXPIRY(pd->replaces));
    return 1;
}

/* mt_agent_round tries every pending certificate that is due once;
 * returns how many of those still wait, and sets |*next| to the earliest
 * due time still ahead (0: none).  |done| marks the ones signed (or given
 * up: a broken key, a store file that is no longer its own). */
static int mt_agent_round(apr_pool_t *p, apr_hash_t *said, char *done,
                          int *nsigned, int totals[2], time_t *next)
{
    apr_array_header_t *queue = mt_sign_queued();
    apr_hash_index_t *hi;
    time_t now = time(NULL);
    char *due = apr_pcalloc(p, (size_t)queue->nelts + 1);
    int i, left = 0, ndue = 0;

    *next = 0;
    for (i = 0; i < queue->nelts; i++) {
        due[i] = (char)(!done[i] &&
                        mt_agent_due(APR_ARRAY_IDX(queue, i, mt_pending_t *),
                                     now, next));
        ndue += due[i];
    }
    if (!ndue) {
        return 0; /* no signer started for nothing: a password program
                   * runs only when something is signed */
    }
    /* Every key's signer at once: their password programs and logins
     * take their time side by side, not one after the other. */
    mt_signer_allow(TACK_SIGN_AGENT_SECS);
    for (i = 0; i < queue->nelts; i++) {
        mt_pending_t *pd = APR_ARRAY_IDX(queue, i, mt_pending_t *);
        int created;
        mt_signer_t *sg;

        if (due[i]) {
            sg = mt_signer_add(pd->s, pd->conf, &created);
            if (created) {
                sg->error = mt_signer_spawn(sg);
            }
        }
    }
    for (hi = apr_hash_first(p, mt_signer_all()); hi; hi = apr_hash_next(hi)) {
        mt_signer_t *sg = apr_hash_this_val(hi);

        if (!sg->error && !sg->pub_known) {
            sg->error = mt_signer_hello(sg);
        }
    }
    for (i = 0; i < queue->nelts; i++) {
        mt_pending_t *pd = APR_ARRAY_IDX(queue, i, mt_pending_t *);
        int created;
        mt_signer_t *sg;
        mt_item_t *item;

        if (!due[i]) {
            continue;
        }
        sg = mt_signer_add(pd->s, pd->conf, &created);
        if (!sg->pub_known || sg->fd < 0) {
            mt_agent_failed(sg, said);
            left++;
            continue;
        }
        if (mt_agent_broken(pd, sg) || mt_agent_theirs(p, pd, sg)) {
            done[i] = 1;
            continue;
        }
        mt_signer_allow(mt_signer_answer_secs());
        item = mt_sign_one(p, pd->s, pd->conf, sg, &pd->cert, pd->expires,
                           pd->write,
                           pd->replaces ? MT_ITEM_TACK(pd->replaces) : NULL);
        if (!item && sg->fd >= 0) {
            done[i] = 1; /* a signature that does not verify (TACK00038) */
            continue;
        }
        if (!item) {
            mt_agent_failed(sg, said);
            left++;
            continue;
        }
        mt_agent_publish(pd, item);
        if (apr_hash_get(said, sg->key, APR_HASH_KEY_STRING)) {
            apr_hash_set(said, sg->key, APR_HASH_KEY_STRING, NULL);
            mt_board_say(NULL);
        }
        if (pd->replaces) {
            mt_sign_replaced(pd->s, pd->replaces);
        }
        done[i] = 1;
        (*nsigned)++;
    }
    mt_sign_sync();
    for (hi = apr_hash_first(p, mt_signer_all()); hi; hi = apr_hash_next(hi)) {
        const mt_signer_t *sg = apr_hash_this_val(hi);

        totals[0] += sg->nwritten;
        totals[1] += sg->nkept;
    }
    return left;
}

/* mt_agent_main is the background process; it waits |delay| seconds
 * first (a successor's back-off).  It never returns. */
static void mt_agent_main(server_rec *s_main, pid_t parent, int delay)
{
    apr_array_header_t *queue = mt_sign_queued();
    apr_hash_t *handed;
    apr_pool_t *p;
    apr_hash_t *said, *staged;
    char *done;
    int i, n, left, told = 0, nsigned = 0, totals[2] = {0, 0};
    long started;

    signal(SIGHUP, SIG_IGN); /* httpd's restart signals are the parent's */
    signal(SIGUSR1, SIG_IGN);
    signal(SIGWINCH, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTERM, mt_agent_on_term);
    setpgid(0, 0); /* its signers in its group: ended with it */
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* the parent gone: so is it */
    if (getppid() != parent) {
        _exit(0); /* gone before the line above: no signal will come */
    }
    prctl(PR_SET_NAME, "tack-signing", 0, 0, 0);
    mt_signer_in_background();
    while (delay > 0) {
        delay = (int)sleep((unsigned)delay);
    }
    started = mt_ms_now();
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        _exit(TACK_BG_EXIT_FAILED);
    }
    if ((handed = mt_signer_all())) {
        /* the pass's signers that are up are this process's now; the
         * others are tried again at once, with the background's time */
        apr_hash_index_t *hi;

        for (hi = apr_hash_first(p, mt_signer_all()); hi;
             hi = apr_hash_next(hi)) {
            mt_signer_t *sg = apr_hash_this_val(hi);

            if (!sg->pub_known || sg->fd < 0) {
                apr_hash_set(handed, apr_hash_this_key(hi), APR_HASH_KEY_STRING,
                             NULL);
            }
            sg->nsigned = sg->nwritten = sg->nkept = 0; /* the pass's */
        }
    }
    n = queue->nelts;
    done = apr_pcalloc(p, (size_t)n + 1);
    told = 1;
    for (i = 0; i < n; i++) {
        /* a predecessor's work, published before it ended */
        const mt_pending_t *pd = APR_ARRAY_IDX(queue, i, mt_pending_t *);

        done[i] = (char)(mt_background_answer(pd) != NULL);
        if (!done[i] && pd->due <= time(NULL)) {
            told = 0; /* TACK00077 is for what the start left to do now */
        }
    }
    said = apr_hash_make(p);
    staged = apr_hash_make(p);
    for (;;) {
        apr_pool_t *round;
        time_t next = 0;
        long nap = mt_signer_retry_secs();

        apr_pool_create(&round, p);
        left =
            n ? mt_agent_round(round, said, done, &nsigned, totals, &next) : 0;
        if (n && !left && !told) {
            told = 1;
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s_main,
                         "TACK00077: the background signed %d TACK%s in %.1f "
                         "seconds (%d written to a TackStore, %d kept in "
                         "memory only): every certificate the start left to "
                         "it is served with one",
                         nsigned, nsigned == 1 ? "" : "s",
                         (double)(mt_ms_now() - started) / 1000.0, totals[0],
                         totals[1]);
        }
        mt_md_round(round, staged);
        mt_sign_close(); /* the signers end, and what they signed is
                          * forgotten */
        apr_pool_destroy(round);
        if (!left && !next && !mt_md_staging()) {
            break;
        }
        if (!left && next) {
            /* Only re-signs due later: woken at the earliest, or every
             * TackSigningRetry seconds, whichever is sooner, so that a
             * clock set forward (or a suspended host) is seen. */
            long until = (long)(next - time(NULL));

            nap = until < 1 ? 1 : until < nap ? until : nap;
        }
        sleep((unsigned)nap);
    }
    _exit(0);
}

static void mt_agent_fork(server_rec *s_main, int n, int delay);

/* mt_agent_waiting returns how many queued certificates have no answer
 * published yet. */
static int mt_agent_waiting(void)
{
    apr_array_header_t *queue = mt_sign_queued();
    int i, n = 0;

    for (i = 0; i < queue->nelts; i++) {
        const mt_pending_t *pd = APR_ARRAY_IDX(queue, i, mt_pending_t *);

        n += mt_background_waiting(pd) != 0;
    }
    return n;
}

/* mt_agent_died replaces a background that ended before its work was
 * done (|status|: httpd's exit status or signal number, 0 for a normal
 * end).  The pass's signers it had taken over are killed: their only
 * peer is gone, and one may be stuck in a token call.  The successor
 * starts at once after a background that ran twice TackSigningRetry's
 * ceiling past the end of its own wait; after quicker ends in a row it
 * waits TackSigningRetry, then twice that, and so on up to the ceiling: a
 * crash loop costs a fork every so often, not a busy parent.  Its life is
 * counted from the end of its wait, not from its fork: a successor that
 * waited longer than the window and died at once is still a crash loop
 * (the back-off went back to zero every 17 minutes with an hour's
 * ceiling). */
static void mt_agent_died(pid_t pid, int status)
{
    struct mt_bg *bg = mt_bg_get();
    char how[96];
    int i, mpm_state, waiting, delay = 0;
    long max = mt_signer_retry_max_secs(), stable = 2 * max;

    for (i = 0; i < bg->life.handed->nelts; i++) {
        apr_proc_t *sp = APR_ARRAY_IDX(bg->life.handed, i, apr_proc_t *);
        siginfo_t si;

        memset(&si, 0, sizeof(si));
        /* WNOWAIT: httpd's loop reaps it (mt_signer_maintain) */
        if (sp->pid > 0 &&
            waitid(P_PID, (id_t)sp->pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
                0 &&
            si.si_pid == 0) {
            kill(sp->pid, SIGKILL);
        }
    }
    if (status == 0 || !bg->life.s ||
        (ap_mpm_query(AP_MPMQ_MPM_STATE, &mpm_state) == APR_SUCCESS &&
         mpm_state == AP_MPMQ_STOPPING)) {
        return; /* done, or the server stops */
    }
    if (status < 0) {
        apr_cpystrn(how, "ended (its status is unknown)", sizeof(how));
    } else if (status < NSIG) {
        apr_snprintf(how, sizeof(how), "was killed by signal %d (%s)", status,
                     strsignal(status));
    } else {
        apr_snprintf(how, sizeof(how), "exited with status %d", status);
    }
    if (apr_time_now() - bg->life.running < apr_time_from_sec(stable)) {
        bg->life.deaths++;
    } else {
        bg->life.deaths = 1;
    }
    if (bg->life.deaths > 1) {
        long d = mt_signer_retry_secs();

        for (i = 2; i < bg->life.deaths && d < max; i++) {
            d *= 2;
        }
        delay = (int)(d < max ? d : max);
    }
    waiting = mt_agent_waiting();
    ap_log_error(
        APLOG_MARK, APLOG_ERR, 0, bg->life.s,
        "TACK00090: the background signing process (tack-signing, "
        "pid %" APR_PID_T_FMT ") %s before its work was done; %d "
        "certificate%s still wait%s for a TACK%s: a new one "
        "starts %s%s",
        pid, how, waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "",
        mt_md_staging() ? ", and mod_md's staged renewals for theirs" : "",
        delay ? apr_psprintf(bg->life.s->process->pconf, "in %d seconds", delay)
              : "now",
        bg->life.deaths > 1
            ? apr_psprintf(bg->life.s->process->pconf,
                           " (%d ends in a row, each within %ld "
                           "seconds of the end of its wait: "
                           "waiting longer each time, up to %ld "
                           "seconds, TackSigningRetry's ceiling)",
                           bg->life.deaths, stable, max)
            : "");
    mt_agent_fork(bg->life.s, waiting, delay);
}

/* mt_agent_maintain hears from httpd's main loop about the background
 * process (apr_proc_other_child_register), as mod_cgid does about its
 * daemon: a background that ends before its work is done is replaced. */
static void mt_agent_maintain(int reason, void *data, apr_wait_t status)
{
    struct mt_bg *bg = mt_bg_get();
    apr_proc_t *proc = data;
    pid_t pid = proc->pid;

    switch (reason) {
    case APR_OC_REASON_DEATH:
    case APR_OC_REASON_LOST:
        if (bg->agent == pid) {
            /* first: unregistering calls this again (UNREGISTER), which
             * must not stop a process already reaped */
            bg->agent = 0;
            apr_proc_other_child_unregister(data);
            /* LOST: reaped by someone else, its status unknown */
            mt_agent_died(pid, reason == APR_OC_REASON_LOST ? -1 : status);
        } else {
            apr_proc_other_child_unregister(data);
        }
        break;
    case APR_OC_REASON_RESTART:
        apr_proc_other_child_unregister(data);
        break;
    case APR_OC_REASON_UNREGISTER:
        if (bg->agent == pid) {
            mt_signer_stop(pid);
            bg->agent = 0;
        }
        break;
    }
}

/* mt_agent_fork forks the background process (|n| certificates wait),
 * which waits |delay| seconds before its first round. */
static void mt_agent_fork(server_rec *s_main, int n, int delay)
{
    struct mt_bg *bg = mt_bg_get();
    apr_pool_t *pconf = s_main->process->pconf;
    apr_proc_t *proc;
    pid_t parent = getpid();
    pid_t pid = fork();

    if (pid < 0) {
        ap_log_error(APLOG_MARK, APLOG_ERR, errno, s_main,
                     "TACK00079: cannot fork the background signing process: "
                     "%d certificate%s wait for the next start",
                     n, n == 1 ? "" : "s");
        return;
    }
    if (pid == 0) {
        mt_agent_main(s_main, parent, delay);
    }
    bg->agent = pid;
    bg->life.s = s_main;
    bg->life.running = apr_time_now() + apr_time_from_sec(delay);
    proc = apr_pcalloc(pconf, sizeof(*proc));
    proc->pid = pid;
    apr_proc_other_child_register(proc, mt_agent_maintain, proc, NULL, pconf);
}

/* mt_bg_since carries over, from the previous start to this one (in the
 * process: mt_proc_t.background), since when each queued certificate
 * waits: the ones still queued keep their time, the others are
 * forgotten. */
static void mt_bg_since(apr_time_t now)
{
    apr_array_header_t *queue = mt_sign_queued();
    struct mt_bg_proc *bp = mt_bg_proc_get();
    apr_pool_t *np;
    apr_hash_t *nh;
    int i;

    if (apr_pool_create(&np, ap_server_conf->process->pool) != APR_SUCCESS) {
        return;
    }
    nh = apr_hash_make(np);
    for (i = 0; i < queue->nelts; i++) {
        const mt_pending_t *pd = APR_ARRAY_IDX(queue, i, mt_pending_t *);
        const apr_time_t *had =
            bp->since ? apr_hash_get(bp->since, pd->cert.hash, TACK_HASH_LEN)
                      : NULL;
        apr_time_t *t = apr_palloc(np, sizeof(*t));

        *t = had ? *had : now;
        apr_hash_set(nh, apr_pmemdup(np, pd->cert.hash, TACK_HASH_LEN),
                     TACK_HASH_LEN, t);
    }
    if (bp->pool) {
        apr_pool_destroy(bp->pool);
    }
    bp->pool = np;
    bp->since = nh;
}

static apr_time_t mt_bg_since_get(const uint8_t *hash, apr_time_t now)
{
    const struct mt_bg_proc *bp = mt_bg_proc_get();
    const apr_time_t *t =
        bp->since ? apr_hash_get(bp->since, hash, TACK_HASH_LEN) : NULL;

    return t ? *t : now;
}

/* mt_background_segment makes the segment of the queued certificates'
 * answers, gives each slot its place, and forks the background process. */
static void mt_background_segment(server_rec *s_main)
{
    apr_array_header_t *queue = mt_sign_queued();
    apr_pool_t *pconf = s_main->process->pconf;
    apr_shm_t *shm;
    apr_status_t rv;
    size_t size, off;
    uint8_t *base;
    apr_time_t now = apr_time_now();
    int i;

    mt_md_watch(s_main);
    if (!queue->nelts) {
        mt_bg_since(now); /* nothing waits */
        if (mt_md_staging()) {
            mt_agent_fork(s_main, 0, 0);
        }
        return;
    }
    size = APR_ALIGN_DEFAULT(sizeof(mt_board_t));
    for (i = 0; i < queue->nelts; i++) {
        const mt_pending_t *pd = APR_ARRAY_IDX(queue, i, mt_pending_t *);

        size += APR_ALIGN_DEFAULT(sizeof(mt_late_t) + pd->len);
    }
    rv = apr_shm_create(&shm, size, NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s_main,
                     "TACK00078: cannot create the shared-memory segment "
                     "(%" APR_SIZE_T_FMT " bytes) for the TACKs left to the "
                     "background: %d certificate%s wait for the next start",
                     size, queue->nelts, queue->nelts == 1 ? "" : "s");
        return;
    }
    base = apr_shm_baseaddr_get(shm);
    memset(base, 0, size);
    mt_bg_get()->board = (mt_board_t *)base;
    off = APR_ALIGN_DEFAULT(sizeof(mt_board_t));
    mt_bg_since(now);
    for (i = 0; i < queue->nelts; i++) {
        mt_pending_t *pd = APR_ARRAY_IDX(queue, i, mt_pending_t *);
        mt_late_t *late = (mt_late_t *)(base + off);

        off += APR_ALIGN_DEFAULT(sizeof(mt_late_t) + pd->len);
        late->body.data = late->data;
        late->body.len = pd->len;
        late->body.served = late->served;
        late->since = mt_bg_since_get(pd->cert.hash, now);
        pd->late = late;
    }
    mt_agent_fork(s_main, queue->nelts, 0);
}

/* mt_signer_maintain hears from httpd's main loop about a signer the
 * background process took over (apr_proc_other_child_register): the parent
 * reaps it, and ends it with the generation. */
static void mt_signer_maintain(int reason, void *data, apr_wait_t status)
{
    apr_proc_t *proc = data;

    switch (reason) {
    case APR_OC_REASON_DEATH:
    case APR_OC_REASON_LOST:
    case APR_OC_REASON_RESTART:
        apr_proc_other_child_unregister(data);
        proc->pid = 0; /* reaped: never signalled again (mt_agent_died) */
        break;
    case APR_OC_REASON_UNREGISTER:
        if (proc->pid > 0 && kill(proc->pid, 0) == 0 &&
            waitpid(proc->pid, NULL, WNOHANG) == 0) {
            mt_signer_stop(proc->pid);
        }
        break;
    }
}

/* mt_bg_hand_over leaves the signers that are up to the background
 * process (forked: mt_bg.agent): the parent closes its ends without waiting
 * for them, and reaps them when they exit. */
static void mt_bg_hand_over(server_rec *s_main)
{
    struct mt_bg *bg = mt_bg_get();
    apr_pool_t *pconf = s_main->process->pconf;
    apr_hash_index_t *hi;

    if (!bg->agent) {
        return;
    }
    for (hi = apr_hash_first(NULL, mt_signer_all()); hi;
         hi = apr_hash_next(hi)) {
        mt_signer_t *sg = apr_hash_this_val(hi);
        apr_proc_t *proc;

        if (sg->pid > 0) {
            proc = apr_pcalloc(pconf, sizeof(*proc));
            proc->pid = sg->pid;
            apr_proc_other_child_register(proc, mt_signer_maintain, proc, NULL,
                                          pconf);
            APR_ARRAY_PUSH(bg->life.handed, apr_proc_t *) = proc;
            sg->pid = 0;
        }
    }
}

void mt_background_start(server_rec *s_main)
{
    struct mt_bg *bg = mt_bg_get();

    if (mt_strict() || mt_quiet() || !mt_signer_all()) {
        return;
    }
    bg->life.deaths = 0; /* a new generation: no back-off carried over */
    /* the background process inherits the signers that are up: a key is
     * loaded (its password program run, its token logged in to) once per
     * restart */
    mt_background_segment(s_main);
    mt_bg_hand_over(s_main);
}
