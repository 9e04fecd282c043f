/*
 * journal_commit — a running journal: records gathered into batches by the
 * engine's thread, written and fdatasynced by a committer thread of their
 * own (group commit), checkpoints taken between segments, and the
 * rotation of journal.bin to journal.old.  The engine's thread also writes
 * acks.bin (journal_acks.c) through it: the completions of each reap.
 */
#include "journal_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/crc32c.h"
#include "../lib/fsutil.h"

enum item_kind { ITEM_BATCH, ITEM_SNAPSHOT };
struct item {
    struct item *next;
    enum item_kind kind;
    uint64_t ticket;
    uint64_t segment;   /* SNAPSHOT: the segment it starts */
    struct jrec *recs;  /* BATCH */
    size_t nrec;
    /* SNAPSHOT: its state.tmp is written already (snapshot()); the
     * committer syncs and installs it after the old segment's records */
};

struct journal {
    char dir[PATH_MAX];
    struct run_meta meta;

    /* main thread only */
    struct jrec *cur;
    size_t cur_n, cur_cap;
    uint64_t next_ticket;
    uint64_t segment;
    uint64_t seg_bytes;
    uint64_t snap_ticket; /* of the last snapshot: its state.tmp is in use until then */
    struct ackring acks;  /* acks.bin */

    /* shared */
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    struct item *head, *tail;
    bool stop;
    _Atomic int failed; /* read without the lock by journal_status() */
    char errmsg[PATH_MAX + 512];
    _Atomic uint64_t committed;
    pthread_t thread;

    /* committer thread only */
    int fd;
    uint64_t batch_seq;
};

/* Opens a fresh journal.bin for segment seg, keeping the last one as journal.old. */
static int segment_open(const char *dir, const struct run_meta *meta, uint64_t seg, char *err,
                        size_t n)
{
    char cur[PATH_MAX + 16], old[PATH_MAX + 16], tmp[PATH_MAX + 16];
    journal_path_in(cur, sizeof cur, dir, "journal.bin");
    journal_path_in(old, sizeof old, dir, "journal.old");
    journal_path_in(tmp, sizeof tmp, dir, "journal.new");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, n, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    struct jhead h = {.meta = *meta, .segment = seg};
    memcpy(h.magic, JHEAD_MAGIC, sizeof h.magic);
    journal_jhead_seal(&h);
    if (write_full(fd, &h, sizeof h) != 0 || fdatasync(fd) != 0) {
        snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        return -1;
    }
    /* journal.bin exists at every moment: the old segment gets a second name
     * first, then the new one replaces it in one rename. */
    if ((unlink(old) != 0 && errno != ENOENT) || (link(cur, old) != 0 && errno != ENOENT) ||
        rename(tmp, cur) != 0 || sync_dir(dir) != 0) {
        snprintf(err, n, "cannot install %s: %s", cur, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static void fail_locked(struct journal *j, const char *msg)
{
    if (!j->failed) {
        j->failed = 1;
        snprintf(j->errmsg, sizeof j->errmsg, "%s", msg);
    }
}

static int write_batch(struct journal *j, struct item *it)
{
    struct jbatch b = {.magic = BATCH_MAGIC, .nrec = (uint32_t)it->nrec, .seq = ++j->batch_seq,
                       .crc = crc32c(it->recs, it->nrec * sizeof(struct jrec))};
    jbatch_seal(&b);
    if (write_full(j->fd, &b, sizeof b) != 0 ||
        write_full(j->fd, it->recs, it->nrec * sizeof(struct jrec)) != 0)
        return -1;
    return 0;
}

static void free_item(struct item *it)
{
    free(it->recs);
    free(it);
}

static void *committer(void *arg)
{
    struct journal *j = arg;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->head && !j->stop)
            pthread_cond_wait(&j->work, &j->mu);
        if (!j->head)
            break;
        /* Take everything queued: all batches before the next snapshot share
         * one fdatasync. */
        struct item *list = j->head;
        j->head = j->tail = NULL;
        bool broken = j->failed;
        pthread_mutex_unlock(&j->mu);

        char msg[PATH_MAX + 512] = "";
        uint64_t last = 0;
        bool dirty = false;
        while (list) {
            struct item *it = list;
            list = it->next;
            if (!broken && it->kind == ITEM_BATCH) {
                if (write_batch(j, it) != 0) {
                    snprintf(msg, sizeof msg, "cannot write %s/journal.bin: %s", j->dir,
                             strerror(errno));
                    broken = true;
                }
                dirty = true;
            } else if (!broken) {
                /* Everything of the old segment must be synced first. */
                if (dirty && fdatasync(j->fd) != 0) {
                    snprintf(msg, sizeof msg, "cannot sync %s/journal.bin: %s", j->dir,
                             strerror(errno));
                    broken = true;
                }
                dirty = false;
                char err[400];
                int fd = -1;
                if (!broken && journal_state_install(j->dir, err, sizeof err) != 0) {
                    snprintf(msg, sizeof msg, "checkpoint failed: %s", err);
                    broken = true;
                }
                if (!broken && (fd = segment_open(j->dir, &j->meta, it->segment, err,
                                                  sizeof err)) < 0) {
                    snprintf(msg, sizeof msg, "journal rotation failed: %s", err);
                    broken = true;
                }
                if (fd >= 0) {
                    close(j->fd);
                    j->fd = fd;
                    j->batch_seq = 0; /* batches are numbered per segment */
                }
            }
            last = it->ticket;
            free_item(it);
        }
        if (!broken && dirty && fdatasync(j->fd) != 0) {
            snprintf(msg, sizeof msg, "cannot sync %s/journal.bin: %s", j->dir, strerror(errno));
            broken = true;
        }
        pthread_mutex_lock(&j->mu);
        if (broken)
            fail_locked(j, msg[0] ? msg : "journal failed earlier");
        else
            atomic_store(&j->committed, last);
        pthread_cond_broadcast(&j->done);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

static void enqueue(struct journal *j, struct item *it)
{
    pthread_mutex_lock(&j->mu);
    if (j->tail)
        j->tail->next = it;
    else
        j->head = it;
    j->tail = it;
    pthread_cond_signal(&j->work);
    pthread_mutex_unlock(&j->mu);
}

struct journal *journal_create(const char *dir, const struct run_meta *meta, char *err,
                               size_t errlen)
{
    struct journal *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(j->dir, sizeof j->dir, "%s", dir);
    j->meta = *meta;
    j->segment = 1;
    j->cur_cap = 1024;
    j->cur = malloc(j->cur_cap * sizeof *j->cur);
    struct statemap empty;
    if (!j->cur || statemap_init(&empty, 0) != 0) {
        snprintf(err, errlen, "out of memory");
        free(j->cur);
        free(j);
        return NULL;
    }
    /* The initial checkpoint: nothing written yet.  nblocks is kept in meta;
     * the durable array of a fresh run is all zero, so it is stored empty and
     * state_load() fills it in. */
    int rc = journal_state_write_tmp(dir, meta, &empty, j->segment, false, true, err, errlen);
    statemap_free(&empty);
    if (rc != 0 || journal_state_install(dir, err, errlen) != 0 ||
        journal_acks_open(&j->acks, dir, meta, err, errlen) != 0) {
        free(j->cur);
        free(j);
        return NULL;
    }
    /* segment_open syncs the directory: acks.bin's name with journal.bin's. */
    j->fd = segment_open(dir, meta, j->segment, err, errlen);
    if (j->fd < 0) {
        journal_acks_close(&j->acks);
        free(j->cur);
        free(j);
        return NULL;
    }
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->work, NULL);
    pthread_cond_init(&j->done, NULL);
    rc = pthread_create(&j->thread, NULL, committer, j);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the journal thread: %s", strerror(rc));
        close(j->fd);
        journal_acks_close(&j->acks);
        free(j->cur);
        free(j);
        return NULL;
    }
    return j;
}

static void add_record(struct journal *j, uint16_t type, uint64_t block, uint32_t gen, uint64_t t)
{
    if (j->cur_n == j->cur_cap) {
        struct jrec *r = realloc(j->cur, j->cur_cap * 2 * sizeof *r);
        if (!r) {
            /* Keep going with what fits; the run stops at the next status check. */
            pthread_mutex_lock(&j->mu);
            fail_locked(j, "out of memory for journal records");
            pthread_mutex_unlock(&j->mu);
            return;
        }
        j->cur = r;
        j->cur_cap *= 2;
    }
    j->cur[j->cur_n++] = (struct jrec){.block = block, .t_ns = t, .gen = gen, .type = type};
}

void journal_intent(struct journal *j, uint64_t block, gen_t gen, uint64_t t_ns)
{
    add_record(j, J_INTENT, block, gen, t_ns);
}

void journal_done(struct journal *j, uint64_t block, gen_t gen, bool durable_now, uint64_t t_ns)
{
    add_record(j, durable_now ? J_DONE_DURABLE : J_DONE, block, gen, t_ns);
}

/* A failed write of acks.bin fails the journal, as one of journal.bin
 * does: a run directory that cannot take what the run must keep ends the
 * run, rather than leave a crash's accounting short without a word. */
static void acks_failed(struct journal *j)
{
    char msg[PATH_MAX + 512];
    snprintf(msg, sizeof msg, "cannot write %s/acks.bin: %s", j->dir, strerror(errno));
    pthread_mutex_lock(&j->mu);
    fail_locked(j, msg);
    pthread_mutex_unlock(&j->mu);
}

void journal_ack(struct journal *j, uint64_t block, gen_t gen, bool durable_now,
                 uint64_t acks_before)
{
    if (!j->failed && journal_acks_stage(&j->acks, block, gen, durable_now, acks_before) != 0)
        acks_failed(j);
}

void journal_ack_write(struct journal *j)
{
    if (!j->failed && journal_acks_write(&j->acks) != 0)
        acks_failed(j);
}

void journal_fail(struct journal *j, uint64_t block, gen_t gen, uint64_t t_ns)
{
    add_record(j, J_FAIL, block, gen, t_ns);
}

void journal_flush(struct journal *j, uint64_t cover, uint64_t t_ns)
{
    add_record(j, J_FLUSH, cover, 0, t_ns);
}

void journal_power_loss(struct journal *j, uint8_t tag, bool end, uint64_t t_ns)
{
    add_record(j, J_POWER, tag, end, t_ns);
}

uint64_t journal_seal(struct journal *j)
{
    if (j->cur_n == 0)
        return j->next_ticket;
    struct item *it = calloc(1, sizeof *it);
    if (!it) {
        pthread_mutex_lock(&j->mu);
        fail_locked(j, "out of memory sealing a journal batch");
        pthread_mutex_unlock(&j->mu);
        return j->next_ticket;
    }
    it->kind = ITEM_BATCH;
    uint64_t ticket = it->ticket = ++j->next_ticket;
    it->recs = j->cur;
    it->nrec = j->cur_n;
    j->seg_bytes += sizeof(struct jbatch) + j->cur_n * sizeof(struct jrec);
    j->cur_cap = j->cur_n > 1024 ? j->cur_n : 1024;
    j->cur = malloc(j->cur_cap * sizeof *j->cur);
    j->cur_n = 0;
    if (!j->cur) {
        j->cur_cap = 0;
        pthread_mutex_lock(&j->mu);
        fail_locked(j, "out of memory for journal records");
        pthread_mutex_unlock(&j->mu);
    }
    enqueue(j, it); /* the committer may free it from here on */
    return ticket;
}

bool journal_committed(struct journal *j, uint64_t ticket)
{
    return atomic_load(&j->committed) >= ticket;
}

int journal_status(struct journal *j, char *err, size_t errlen)
{
    if (!atomic_load(&j->failed))
        return 0; /* the hot path: no lock */
    pthread_mutex_lock(&j->mu);
    int failed = j->failed;
    if (failed)
        snprintf(err, errlen, "%s", j->errmsg);
    pthread_mutex_unlock(&j->mu);
    return failed ? -1 : 0;
}

int journal_wait(struct journal *j, uint64_t ticket, char *err, size_t errlen)
{
    pthread_mutex_lock(&j->mu);
    while (atomic_load(&j->committed) < ticket && !j->failed)
        pthread_cond_wait(&j->done, &j->mu);
    int failed = j->failed;
    if (failed)
        snprintf(err, errlen, "%s", j->errmsg);
    pthread_mutex_unlock(&j->mu);
    return failed ? -1 : 0;
}

uint64_t journal_segment_bytes(const struct journal *j)
{
    return j->seg_bytes + j->cur_n * sizeof(struct jrec);
}

/* The checkpoint is written here, by the thread that owns m, straight from
 * the map (no copy: see journal_state_write_tmp) into the page cache; the committer
 * syncs and installs it once the old segment is synced.  The previous
 * snapshot's state.tmp must be installed before this one overwrites it. */
static int snapshot(struct journal *j, const struct statemap *m, bool final)
{
    journal_seal(j);
    char err[PATH_MAX + 400];
    if (j->snap_ticket && journal_wait(j, j->snap_ticket, err, sizeof err) != 0)
        return 0; /* the journal has failed already: journal_status says why */
    struct item *it = calloc(1, sizeof *it);
    if (!it)
        return -1;
    it->kind = ITEM_SNAPSHOT;
    it->segment = j->segment + 1;
    if (journal_state_write_tmp(j->dir, &j->meta, m, it->segment, final, true, err, sizeof err) !=
        0) {
        free(it);
        char msg[PATH_MAX + 512];
        snprintf(msg, sizeof msg, "checkpoint failed: %s", err);
        pthread_mutex_lock(&j->mu);
        fail_locked(j, msg);
        pthread_mutex_unlock(&j->mu);
        return 0;
    }
    it->ticket = j->snap_ticket = ++j->next_ticket;
    j->segment++;
    j->seg_bytes = 0;
    enqueue(j, it);
    return 0;
}

int journal_checkpoint(struct journal *j, const struct statemap *m)
{
    return snapshot(j, m, false);
}

int journal_close(struct journal *j, const struct statemap *m, bool final, char *err,
                  size_t errlen)
{
    int rc = 0;
    journal_ack_write(j); /* what the last reap left; the checkpoint has it too */
    if (m && snapshot(j, m, final) != 0) {
        snprintf(err, errlen, "out of memory writing the final checkpoint");
        rc = -1;
    }
    if (rc == 0)
        rc = journal_wait(j, j->next_ticket, err, errlen);
    pthread_mutex_lock(&j->mu);
    j->stop = true;
    pthread_cond_signal(&j->work);
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->thread, NULL);
    while (j->head) {
        struct item *it = j->head;
        j->head = it->next;
        free_item(it);
    }
    close(j->fd);
    journal_acks_close(&j->acks);
    if (rc == 0 && m && final) {
        /* The final checkpoint has every completion: nothing reads the ring
         * again (state_load looks at it only after a crash). */
        char path[PATH_MAX + 16];
        journal_path_in(path, sizeof path, j->dir, "acks.bin");
        unlink(path);
    }
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->done);
    free(j->cur);
    free(j);
    return rc;
}
