/* journal — see journal.h for what is stored and why. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/crc32c.h"

enum { J_INTENT = 1, J_DONE = 2, J_DONE_DURABLE = 3, J_FAIL = 4, J_FLUSH = 5, J_POWER = 6 };

struct jrec {
    uint64_t block; /* J_FLUSH: completions covered; J_POWER: the loss's tag */
    uint64_t t_ns;
    uint32_t gen;
    uint16_t type;
    uint16_t zero;
};
_Static_assert(sizeof(struct jrec) == 24, "journal record layout");

#define BATCH_MAGIC 0x424a4c46u /* "FLJB" */
struct jbatch {
    uint32_t magic;
    uint32_t nrec;
    uint64_t seq;
    uint32_t crc; /* over the records */
    uint32_t zero;
};

#define JHEAD_MAGIC "FLJRNL2" /* 2: run_meta names the client */
struct jhead {
    char magic[8];
    struct run_meta meta;
    uint64_t segment;
    uint64_t reserved[3];
};

#define STATE_MAGIC "FLSTATE"
#define STATE_VERSION 3 /* 2: run_meta names the client (rank, ranks); 3: power losses */
enum {
    STATE_FINAL = 1,     /* the run ended cleanly */
    /* bits 8..15: a power cut under way at the checkpoint (its tag, statemap.loss_open) */
    STATE_JOURNALED = 2, /* a journal continues this checkpoint */
};
struct shead {
    char magic[8];
    uint32_t version;
    uint32_t flags;
    struct run_meta meta;
    uint64_t segment; /* journal segment that continues this checkpoint */
    uint64_t npending;
    uint64_t nacked;
    uint64_t ack_total;
    uint32_t crc; /* over everything after the header */
    uint32_t zero;
};

/* On-disk forms of pending entries and queued completions. */
struct spend {
    uint64_t block;
    uint16_t planned, issued, acked, at_loss;
    uint8_t flags, loss, zero[6];
};
struct sack {
    uint64_t block;
    uint16_t gen, zero[3];
};

enum item_kind { ITEM_BATCH, ITEM_SNAPSHOT };
struct item {
    struct item *next;
    enum item_kind kind;
    uint64_t ticket;
    uint64_t segment;   /* SNAPSHOT: the segment it starts */
    struct jrec *recs;  /* BATCH */
    size_t nrec;
    void *blob;         /* SNAPSHOT: complete state.bin contents */
    size_t bloblen;
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

static void path_in(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* --- checkpoints --- */

static void *state_blob(const struct run_meta *meta, const struct statemap *m, uint64_t segment,
                        bool final, bool journaled, size_t *len)
{
    size_t npend = m->count, nack = m->ack_len;
    size_t body = (size_t)m->nblocks * sizeof(gen_t) + npend * sizeof(struct spend) +
                  nack * sizeof(struct sack);
    unsigned char *blob = malloc(sizeof(struct shead) + body);
    if (!blob)
        return NULL;
    struct shead h = {.version = STATE_VERSION,
                      .flags = (final ? STATE_FINAL : 0) | (journaled ? STATE_JOURNALED : 0) |
                               (uint32_t)m->loss_open << 8,
                      .meta = *meta,
                      .segment = segment, .npending = npend, .nacked = nack,
                      .ack_total = m->ack_total};
    memcpy(h.magic, STATE_MAGIC, sizeof h.magic);
    unsigned char *p = blob + sizeof h;
    memcpy(p, m->durable, (size_t)m->nblocks * sizeof(gen_t));
    p += (size_t)m->nblocks * sizeof(gen_t);
    for (size_t i = 0; i < m->cap; i++) {
        const struct pending *e = &m->tab[i];
        if (!e->used)
            continue;
        struct spend s = {.block = e->block, .planned = e->planned, .issued = e->issued,
                          .acked = e->acked, .at_loss = e->at_loss, .flags = e->flags,
                          .loss = e->loss};
        memcpy(p, &s, sizeof s);
        p += sizeof s;
    }
    for (size_t i = 0; i < nack; i++) {
        const struct acked_write *a = statemap_acked_at(m, i);
        struct sack s = {.block = a->block, .gen = a->gen};
        memcpy(p, &s, sizeof s);
        p += sizeof s;
    }
    h.crc = crc32c(blob + sizeof h, body);
    memcpy(blob, &h, sizeof h);
    *len = sizeof h + body;
    return blob;
}

/* state.tmp, fsync, rename to state.bin, fsync the directory. */
static int state_write(const char *dir, const void *blob, size_t len, char *err, size_t n)
{
    char tmp[PATH_MAX + 16], fin[PATH_MAX + 16];
    path_in(tmp, sizeof tmp, dir, "state.tmp");
    path_in(fin, sizeof fin, dir, "state.bin");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, n, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    if (write_all(fd, blob, len) != 0 || fsync(fd) != 0) {
        snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    if (rename(tmp, fin) != 0 || sync_dir(dir) != 0) {
        snprintf(err, n, "cannot install %s: %s", fin, strerror(errno));
        return -1;
    }
    return 0;
}

int state_save(const char *dir, const struct run_meta *meta, const struct statemap *m, bool final,
               char *err, size_t errlen)
{
    size_t len;
    void *blob = state_blob(meta, m, 0, final, false, &len);
    if (!blob) {
        snprintf(err, errlen, "out of memory writing the state checkpoint");
        return -1;
    }
    int rc = state_write(dir, blob, len, err, errlen);
    free(blob);
    return rc;
}

/* Opens a fresh journal.bin for segment seg, keeping the last one as journal.old. */
static int segment_open(const char *dir, const struct run_meta *meta, uint64_t seg, char *err,
                        size_t n)
{
    char cur[PATH_MAX + 16], old[PATH_MAX + 16], tmp[PATH_MAX + 16];
    path_in(cur, sizeof cur, dir, "journal.bin");
    path_in(old, sizeof old, dir, "journal.old");
    path_in(tmp, sizeof tmp, dir, "journal.new");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, n, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    struct jhead h = {.meta = *meta, .segment = seg};
    memcpy(h.magic, JHEAD_MAGIC, sizeof h.magic);
    if (write_all(fd, &h, sizeof h) != 0 || fdatasync(fd) != 0) {
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

/* --- committer thread --- */

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
    if (write_all(j->fd, &b, sizeof b) != 0 ||
        write_all(j->fd, it->recs, it->nrec * sizeof(struct jrec)) != 0)
        return -1;
    return 0;
}

static void free_item(struct item *it)
{
    free(it->recs);
    free(it->blob);
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
                    snprintf(msg, sizeof msg, "journal write in %s failed: %s", j->dir,
                             strerror(errno));
                    broken = true;
                }
                dirty = true;
            } else if (!broken) {
                /* Everything of the old segment must be synced first. */
                if (dirty && fdatasync(j->fd) != 0) {
                    snprintf(msg, sizeof msg, "journal sync in %s failed: %s", j->dir,
                             strerror(errno));
                    broken = true;
                }
                dirty = false;
                char err[400];
                int fd = -1;
                if (!broken && state_write(j->dir, it->blob, it->bloblen, err, sizeof err) != 0) {
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
                }
            }
            last = it->ticket;
            free_item(it);
        }
        if (!broken && dirty && fdatasync(j->fd) != 0) {
            snprintf(msg, sizeof msg, "journal sync in %s failed: %s", j->dir, strerror(errno));
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
    size_t len;
    void *blob = state_blob(meta, &empty, j->segment, false, true, &len);
    statemap_free(&empty);
    if (!blob || state_write(dir, blob, len, err, errlen) != 0) {
        if (!blob)
            snprintf(err, errlen, "out of memory");
        free(blob);
        free(j->cur);
        free(j);
        return NULL;
    }
    free(blob);
    j->fd = segment_open(dir, meta, j->segment, err, errlen);
    if (j->fd < 0) {
        free(j->cur);
        free(j);
        return NULL;
    }
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->work, NULL);
    pthread_cond_init(&j->done, NULL);
    int rc = pthread_create(&j->thread, NULL, committer, j);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the journal thread: %s", strerror(rc));
        close(j->fd);
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

static int snapshot(struct journal *j, const struct statemap *m, bool final)
{
    journal_seal(j);
    struct item *it = calloc(1, sizeof *it);
    if (!it)
        return -1;
    it->kind = ITEM_SNAPSHOT;
    it->segment = j->segment + 1;
    it->blob = state_blob(&j->meta, m, it->segment, final, true, &it->bloblen);
    if (!it->blob) {
        free(it);
        return -1;
    }
    it->ticket = ++j->next_ticket;
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
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->done);
    free(j->cur);
    free(j);
    return rc;
}

/* --- reading back --- */

static void *slurp(const char *path, size_t *len, int *eno)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *eno = errno;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *eno = errno;
        close(fd);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n ? n : 1);
    size_t got = 0;
    while (buf && got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    *eno = buf ? errno : ENOMEM;
    close(fd);
    if (!buf)
        return NULL;
    *len = got;
    return buf;
}

/* Calls fn for every record of every intact batch of one segment file. */
typedef int (*rec_fn)(void *ctx, const struct jrec *r);
static int scan_segment(const unsigned char *buf, size_t len, void *ctx, rec_fn fn, bool *torn)
{
    size_t off = sizeof(struct jhead);
    *torn = false;
    while (off + sizeof(struct jbatch) <= len) {
        struct jbatch b;
        memcpy(&b, buf + off, sizeof b);
        size_t body = (size_t)b.nrec * sizeof(struct jrec);
        if (b.magic != BATCH_MAGIC || off + sizeof b + body > len ||
            crc32c(buf + off + sizeof b, body) != b.crc) {
            *torn = true;
            return 0;
        }
        off += sizeof b;
        for (uint32_t i = 0; i < b.nrec; i++) {
            struct jrec r;
            memcpy(&r, buf + off + (size_t)i * sizeof r, sizeof r);
            if (fn(ctx, &r) != 0)
                return -1;
        }
        off += body;
    }
    *torn = off != len;
    return 0;
}

static int replay_one(void *ctx, const struct jrec *r)
{
    struct statemap *m = ctx;
    if (r->type != J_FLUSH && r->type != J_POWER && r->block >= m->nblocks)
        return -1;
    switch (r->type) {
    case J_INTENT:
        return statemap_plan_gen(m, r->block, (gen_t)r->gen);
    case J_DONE:
    case J_DONE_DURABLE:
        return statemap_write_done(m, r->block, (gen_t)r->gen, true, r->type == J_DONE_DURABLE);
    case J_FAIL:
        return statemap_write_done(m, r->block, (gen_t)r->gen, false, false);
    case J_FLUSH:
        statemap_flushed(m, r->block);
        return 0;
    case J_POWER:
        if (r->block == 0 || r->block > POWER_LOSSES_MAX || r->gen > 1)
            return -1;
        statemap_power_loss(m, (uint8_t)r->block, r->gen == 1);
        return 0;
    default:
        return -1;
    }
}

/* Reads and checks state.bin: its header (in *h) and the checkpoint
 * itself, into a fresh m.  0, or -1 with err (m freed). */
static int load_checkpoint(const char *dir, struct shead *h, struct run_meta *meta,
                           struct statemap *m, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "state.bin");
    size_t len = 0;
    int eno = 0;
    unsigned char *buf = slurp(path, &len, &eno);
    if (!buf) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    if (len < sizeof *h) {
        snprintf(err, errlen, "%s is truncated", path);
        free(buf);
        return -1;
    }
    memcpy(h, buf, sizeof *h);
    size_t body = len - sizeof *h;
    if (memcmp(h->magic, STATE_MAGIC, sizeof h->magic) != 0) {
        snprintf(err, errlen, "%s is not a faultline state file", path);
        free(buf);
        return -1;
    }
    if (h->version != STATE_VERSION) {
        snprintf(err, errlen, "%s is of format %u, this faultline reads format %u (made by "
                 "another version)", path, h->version, STATE_VERSION);
        free(buf);
        return -1;
    }
    if (crc32c(buf + sizeof *h, body) != h->crc) {
        snprintf(err, errlen, "%s is damaged (checksum mismatch)", path);
        free(buf);
        return -1;
    }
    /* The header's counts are outside the checksum: a damaged one must be
     * refused before the sizes below are computed from it (they would wrap,
     * and the entries be read past the end of the file). */
    if (h->npending > body / sizeof(struct spend) || h->nacked > body / sizeof(struct sack) ||
        h->meta.nblocks > h->meta.total_blocks) {
        snprintf(err, errlen, "%s is damaged: its header says %llu pending entries, %llu queued "
                 "completions and %llu of %llu blocks, in %zu bytes", path,
                 (unsigned long long)h->npending, (unsigned long long)h->nacked,
                 (unsigned long long)h->meta.nblocks, (unsigned long long)h->meta.total_blocks,
                 body);
        free(buf);
        return -1;
    }
    *meta = h->meta;
    if (statemap_init(m, meta->nblocks) != 0) {
        snprintf(err, errlen, "out of memory for %llu blocks",
                 (unsigned long long)meta->nblocks);
        free(buf);
        return -1;
    }
    /* The initial checkpoint of a run stores no durable array (all zero). */
    size_t rest = h->npending * sizeof(struct spend) + h->nacked * sizeof(struct sack);
    size_t darr = body > rest ? body - rest : 0; /* (no product of a count that could wrap) */
    const unsigned char *p = buf + sizeof *h;
    if (darr && darr % sizeof(gen_t) == 0 && darr / sizeof(gen_t) == meta->nblocks) {
        memcpy(m->durable, p, darr);
        p += darr;
    } else if (body != rest) {
        snprintf(err, errlen, "%s has an unexpected size", path);
        goto fail;
    }
    for (uint64_t i = 0; i < h->npending; i++, p += sizeof(struct spend)) {
        struct spend s;
        memcpy(&s, p, sizeof s);
        struct pending e = {.block = s.block, .planned = s.planned, .issued = s.issued,
                            .acked = s.acked, .at_loss = s.at_loss, .flags = s.flags,
                            .loss = s.loss};
        if (s.block >= meta->nblocks || statemap_restore_pending(m, &e) != 0) {
            snprintf(err, errlen, "%s: bad pending entry", path);
            goto fail;
        }
    }
    m->loss_open = (uint8_t)(h->flags >> 8);
    m->ack_total = h->ack_total - h->nacked;
    for (uint64_t i = 0; i < h->nacked; i++, p += sizeof(struct sack)) {
        struct sack s;
        memcpy(&s, p, sizeof s);
        if (s.block >= meta->nblocks || statemap_restore_acked(m, s.block, s.gen) != 0) {
            snprintf(err, errlen, "%s: bad queued completion", path);
            goto fail;
        }
    }
    free(buf);
    return 0;
fail:
    free(buf);
    statemap_free(m);
    return -1;
}

/* Records in the whole batches of a segment. */
static uint64_t count_records(const unsigned char *buf, size_t len)
{
    uint64_t count = 0;
    for (size_t off = sizeof(struct jhead); off + sizeof(struct jbatch) <= len;) {
        struct jbatch b;
        memcpy(&b, buf + off, sizeof b);
        size_t bl = (size_t)b.nrec * sizeof(struct jrec);
        if (b.magic != BATCH_MAGIC || off + sizeof b + bl > len)
            break;
        count += b.nrec;
        off += sizeof b + bl;
    }
    return count;
}

/* Replays journal.bin of segment h->segment on top of the checkpoint in m.
 * 0 (also when there is nothing to replay), or -1 with err. */
static int replay_journal(const char *dir, const struct shead *h, const struct run_meta *meta,
                          struct statemap *m, struct load_info *info, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "journal.bin");
    size_t len = 0;
    int eno = 0;
    unsigned char *buf = slurp(path, &len, &eno);
    if (!buf) {
        if (eno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    info->had_journal = true;
    int rc = 0;
    struct jhead jh;
    if (len < sizeof jh) {
        info->torn_tail = true; /* created but header never synced: nothing to replay */
        goto out;
    }
    memcpy(&jh, buf, sizeof jh);
    if (memcmp(jh.magic, JHEAD_MAGIC, sizeof jh.magic) != 0 || jh.meta.run_id != meta->run_id) {
        snprintf(err, errlen, "%s does not belong to this run", path);
        rc = -1;
    } else if (jh.segment > h->segment) {
        snprintf(err, errlen, "%s (segment %llu) is newer than state.bin (segment %llu)", path,
                 (unsigned long long)jh.segment, (unsigned long long)h->segment);
        rc = -1;
    } else if (jh.segment == h->segment) {
        /* (an older segment: a crash between checkpoint and rotation, and
         * the checkpoint has it all) */
        bool torn;
        if (scan_segment(buf, len, m, replay_one, &torn) != 0) {
            snprintf(err, errlen, "%s: a record names a block outside the target, or memory is "
                     "short", path);
            rc = -1;
        } else {
            info->replayed = count_records(buf, len);
            info->torn_tail = torn;
        }
    }
out:
    free(buf);
    return rc;
}

int state_load(const char *dir, struct run_meta *meta, struct statemap *m, struct load_info *info,
               char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    struct shead h;
    if (load_checkpoint(dir, &h, meta, m, err, errlen) != 0)
        return -1;
    info->final = h.flags & STATE_FINAL;
    info->journaled = h.flags & STATE_JOURNALED;
    if (replay_journal(dir, &h, meta, m, info, err, errlen) != 0) {
        statemap_free(m);
        return -1;
    }
    return 0;
}

/* The wanted (block, gen) pairs, sorted by block for binary search. */
int state_read_meta(const char *dir, struct run_meta *meta, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "state.bin");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct shead h;
    ssize_t n = read(fd, &h, sizeof h);
    close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h.magic, STATE_MAGIC, sizeof h.magic) != 0) {
        snprintf(err, errlen, "%s is not a faultline state file", path);
        return -1;
    }
    *meta = h.meta;
    return 0;
}

struct lookup {
    size_t n;
    size_t *order; /* indices sorted by block */
    const uint64_t *block;
    const gen_t *gen;
    uint64_t *t;
};

static const uint64_t *sort_blocks;
static int by_block(const void *a, const void *b)
{
    uint64_t x = sort_blocks[*(const size_t *)a], y = sort_blocks[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

static int lookup_one(void *ctx, const struct jrec *r)
{
    struct lookup *l = ctx;
    if (r->type != J_DONE && r->type != J_DONE_DURABLE)
        return 0;
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->block[l->order[mid]] < r->block)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < l->n && l->block[l->order[lo]] == r->block; lo++)
        if (l->gen[l->order[lo]] == r->gen)
            l->t[l->order[lo]] = r->t_ns; /* later records win: the newest write */
    return 0;
}

int journal_lookup_done(const char *dir, size_t n, const uint64_t *block, const gen_t *gen,
                        uint64_t *t_ns)
{
    for (size_t i = 0; i < n; i++)
        t_ns[i] = UINT64_MAX;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return -1;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_blocks = block;
    qsort(order, n, sizeof *order, by_block);
    struct lookup l = {.n = n, .order = order, .block = block, .gen = gen, .t = t_ns};
    const char *names[] = {"journal.old", "journal.bin"};
    int read_any = 0;
    for (int k = 0; k < 2; k++) {
        char path[PATH_MAX + 16];
        path_in(path, sizeof path, dir, names[k]);
        size_t len;
        int eno;
        unsigned char *buf = slurp(path, &len, &eno);
        if (!buf)
            continue;
        bool torn;
        if (len >= sizeof(struct jhead))
            scan_segment(buf, len, &l, lookup_one, &torn);
        free(buf);
        read_any = 1;
    }
    free(order);
    return read_any ? 0 : -1;
}

/* --- history, for reads by other clients --- */

/* One instant a query needs the state at: the start of its read (lo) or
 * its end (hi). */
struct hpoint {
    uint64_t t;
    size_t q;
    bool hi;
};

struct hreplay {
    struct statemap m;
    const struct history_query *q;
    struct history_answer *a;
    struct hpoint *pts;
    size_t npts, next;
    uint8_t *intent_seen; /* bitmap: an intent of the block was replayed */
    bool base_known;      /* replay starts from the run's empty start */
    bool flushes_known;   /* the completion count of the first segment is known */
};

static int by_point_time(const void *a, const void *b)
{
    const struct hpoint *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void hsnap(struct hreplay *h, const struct hpoint *p)
{
    uint64_t b = h->q[p->q].block;
    struct history_answer *a = &h->a[p->q];
    const struct pending *e = statemap_find(&h->m, b);
    gen_t durable = h->m.durable[b];
    if (e && (e->flags & (PEND_UNCERTAIN | PEND_REVERTIBLE)))
        a->uncertain = true; /* a failed write, or a power loss: an older one may be back */
    if (p->hi) {
        a->planned = e ? gen_newest(durable, e->planned) : durable;
        a->known = h->base_known || (h->intent_seen[b / 8] & (1u << (b % 8)));
    } else {
        a->acked = e ? gen_newest(durable, e->acked) : durable;
        a->durable = durable;
    }
}

/* The state at every point before time t is what the records so far made. */
static void hsnap_until(struct hreplay *h, uint64_t t)
{
    while (h->next < h->npts && h->pts[h->next].t < t)
        hsnap(h, &h->pts[h->next++]);
}

static int hreplay_one(void *ctx, const struct jrec *r)
{
    struct hreplay *h = ctx;
    hsnap_until(h, r->t_ns); /* a record at t still counts for a point at t */
    if (r->type != J_FLUSH && r->type != J_POWER && r->block >= h->m.nblocks)
        return -1;
    if (r->type == J_INTENT)
        h->intent_seen[r->block / 8] |= (uint8_t)(1u << (r->block % 8));
    if (r->type == J_FLUSH && !h->flushes_known)
        return 0; /* cannot tell which completions it covered: durable stays low */
    return replay_one(&h->m, r);
}

/* The segment number in a journal file's header, 0 when unreadable. */
static uint64_t segment_of(const unsigned char *buf, size_t len, uint64_t run_id)
{
    struct jhead jh;
    if (!buf || len < sizeof jh)
        return 0;
    memcpy(&jh, buf, sizeof jh);
    if (memcmp(jh.magic, JHEAD_MAGIC, sizeof jh.magic) != 0 || jh.meta.run_id != run_id)
        return 0;
    return jh.segment;
}

static int count_one_done(void *ctx, const struct jrec *r)
{
    *(uint64_t *)ctx += r->type == J_DONE;
    return 0;
}

/* Completions a segment queued for flushes (as far as replay reads it). */
static uint64_t count_done(const unsigned char *buf, size_t len)
{
    uint64_t n = 0;
    bool torn;
    if (len >= sizeof(struct jhead))
        scan_segment(buf, len, &n, count_one_done, &torn);
    return n;
}

int journal_history(const char *dir, size_t n, const struct history_query *q,
                    struct history_answer *a, char *err, size_t errlen)
{
    memset(a, 0, n * sizeof *a);
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "state.bin");
    size_t slen = 0;
    int eno = 0;
    unsigned char *sbuf = slurp(path, &slen, &eno);
    struct shead sh;
    if (!sbuf || slen < sizeof sh) {
        snprintf(err, errlen, "cannot read %s: %s", path, sbuf ? "truncated" : strerror(eno));
        free(sbuf);
        return -1;
    }
    memcpy(&sh, sbuf, sizeof sh);
    free(sbuf);
    if (memcmp(sh.magic, STATE_MAGIC, sizeof sh.magic) != 0 || sh.version != STATE_VERSION) {
        snprintf(err, errlen, "%s is not a state file of this faultline", path);
        return -1;
    }
    /* The retained segments, oldest first, as long as they follow each other. */
    const char *names[2] = {"journal.old", "journal.bin"};
    unsigned char *seg[2] = {NULL, NULL};
    size_t seglen[2] = {0, 0};
    uint64_t segno[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        path_in(path, sizeof path, dir, names[k]);
        seg[k] = slurp(path, &seglen[k], &eno);
        segno[k] = segment_of(seg[k], seglen[k], sh.meta.run_id);
    }
    int first = segno[0] && segno[1] == segno[0] + 1 ? 0 : 1;
    int rc = 0;
    struct hreplay h = {.q = q, .a = a};
    if (!segno[first]) {
        snprintf(err, errlen, "%s/journal.bin does not belong to this run", dir);
        rc = -1;
        goto out;
    }
    h.base_known = segno[first] == 1; /* the first segment starts from nothing written */
    /* Completion numbers continue over segments: the first replayed one's
     * base is state.bin's count minus what the segments before it added. */
    uint64_t base = 0;
    h.flushes_known = h.base_known;
    if (!h.base_known && sh.segment >= segno[first] && sh.segment <= segno[1] + 1) {
        uint64_t added = 0;
        for (int k = first; k < 2; k++)
            if (segno[k] < sh.segment)
                added += count_done(seg[k], seglen[k]);
        if (added <= sh.ack_total) {
            base = sh.ack_total - added;
            h.flushes_known = true;
        }
    }
    h.npts = 2 * n;
    h.pts = malloc((h.npts ? h.npts : 1) * sizeof *h.pts);
    h.intent_seen = calloc(sh.meta.nblocks / 8 + 1, 1);
    if (!h.pts || !h.intent_seen || statemap_init(&h.m, sh.meta.nblocks) != 0) {
        snprintf(err, errlen, "out of memory for the history of %s", dir);
        free(h.pts);
        free(h.intent_seen);
        rc = -1;
        goto out;
    }
    h.m.ack_total = base;
    for (size_t i = 0; i < n; i++) {
        if (q[i].block >= sh.meta.nblocks) {
            snprintf(err, errlen, "%s: block %llu is not one of its %llu", dir,
                     (unsigned long long)q[i].block, (unsigned long long)sh.meta.nblocks);
            rc = -1;
        }
        h.pts[2 * i] = (struct hpoint){.t = q[i].t_lo, .q = i, .hi = false};
        h.pts[2 * i + 1] = (struct hpoint){.t = q[i].t_hi, .q = i, .hi = true};
    }
    if (rc == 0) {
        qsort(h.pts, h.npts, sizeof *h.pts, by_point_time);
        for (int k = first; k < 2 && rc == 0; k++) {
            bool torn;
            if (seglen[k] >= sizeof(struct jhead) &&
                scan_segment(seg[k], seglen[k], &h, hreplay_one, &torn) != 0) {
                snprintf(err, errlen, "%s/%s: a record names a block outside the target, or "
                         "memory is short", dir, names[k]);
                rc = -1;
            }
        }
        while (h.next < h.npts) /* points after the last record */
            hsnap(&h, &h.pts[h.next++]);
    }
    statemap_free(&h.m);
    free(h.pts);
    free(h.intent_seen);
out:
    free(seg[0]);
    free(seg[1]);
    return rc;
}
