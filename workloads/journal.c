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

/* A checkpoint is written straight from the map into state.tmp: the
 * durable array (2 bytes a block, the bulk of it) with one write, the
 * pending entries and queued completions through a small buffer, and the
 * crc over the body computed as it goes (crc32c_extend).  No copy of the
 * map is ever made, so a checkpoint costs no memory beyond the map's own. */
struct state_out {
    int fd;
    uint32_t crc;
    size_t n;
    unsigned char buf[1u << 16];
};

static int out_flush(struct state_out *o)
{
    if (o->n && write_all(o->fd, o->buf, o->n) != 0)
        return -1;
    o->n = 0;
    return 0;
}

static int out_put(struct state_out *o, const void *p, size_t len)
{
    if (o->n + len > sizeof o->buf && out_flush(o) != 0)
        return -1;
    memcpy(o->buf + o->n, p, len);
    o->n += len;
    o->crc = crc32c_extend(o->crc, p, len);
    return 0;
}

/* The body of state.bin after its header, from the map.  0, or -1 (errno). */
static int state_body(struct state_out *o, const struct statemap *m)
{
    size_t darr = (size_t)m->nblocks * sizeof(gen_t);
    o->crc = crc32c_extend(o->crc, m->durable, darr);
    if (darr && write_all(o->fd, m->durable, darr) != 0)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        const struct pending *e = &m->tab[i];
        if (!e->used)
            continue;
        struct spend s = {.block = e->block, .planned = e->planned, .issued = e->issued,
                          .acked = e->acked, .at_loss = e->at_loss, .flags = e->flags,
                          .loss = e->loss};
        if (out_put(o, &s, sizeof s) != 0)
            return -1;
    }
    for (size_t i = 0; i < m->ack_len; i++) {
        const struct acked_write *a = statemap_acked_at(m, i);
        struct sack s = {.block = a->block, .gen = a->gen};
        if (out_put(o, &s, sizeof s) != 0)
            return -1;
    }
    return out_flush(o);
}

/* Writes the checkpoint of m as dir/state.tmp (not yet synced: see
 * state_install).  0, or -1 with err. */
static int state_write_tmp(const char *dir, const struct run_meta *meta, const struct statemap *m,
                           uint64_t segment, bool final, bool journaled, char *err, size_t n)
{
    char tmp[PATH_MAX + 16];
    path_in(tmp, sizeof tmp, dir, "state.tmp");
    struct state_out *o = malloc(sizeof *o);
    if (!o) {
        snprintf(err, n, "out of memory writing %s", tmp);
        return -1;
    }
    o->n = 0;
    o->crc = 0;
    o->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        snprintf(err, n, "cannot create %s: %s", tmp, strerror(errno));
        free(o);
        return -1;
    }
    struct shead h = {.version = STATE_VERSION,
                      .flags = (final ? STATE_FINAL : 0) | (journaled ? STATE_JOURNALED : 0) |
                               (uint32_t)m->loss_open << 8,
                      .meta = *meta,
                      .segment = segment, .npending = m->count, .nacked = m->ack_len,
                      .ack_total = m->ack_total};
    memcpy(h.magic, STATE_MAGIC, sizeof h.magic);
    int rc = 0;
    /* The body first, then the header that carries its crc. */
    if (lseek(o->fd, (off_t)sizeof h, SEEK_SET) < 0 || state_body(o, m) != 0) {
        rc = -1;
    } else {
        h.crc = o->crc;
        if (pwrite(o->fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
            if (errno == 0)
                errno = EIO;
            rc = -1;
        }
    }
    if (rc != 0)
        snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
    if (close(o->fd) != 0 && rc == 0) {
        snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
        rc = -1;
    }
    free(o);
    return rc;
}

/* Syncs state.tmp, renames it to state.bin and syncs the directory. */
static int state_install(const char *dir, char *err, size_t n)
{
    char tmp[PATH_MAX + 16], fin[PATH_MAX + 16];
    path_in(tmp, sizeof tmp, dir, "state.tmp");
    path_in(fin, sizeof fin, dir, "state.bin");
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
        if (fd >= 0)
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
    if (state_write_tmp(dir, meta, m, 0, final, false, err, errlen) != 0)
        return -1;
    return state_install(dir, err, errlen);
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
                if (!broken && state_install(j->dir, err, sizeof err) != 0) {
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
    int rc = state_write_tmp(dir, meta, &empty, j->segment, false, true, err, errlen);
    statemap_free(&empty);
    if (rc != 0 || state_install(dir, err, errlen) != 0) {
        free(j->cur);
        free(j);
        return NULL;
    }
    j->fd = segment_open(dir, meta, j->segment, err, errlen);
    if (j->fd < 0) {
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

/* The checkpoint is written here, by the thread that owns m, straight from
 * the map (no copy: see state_write_tmp) into the page cache; the committer
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
    if (state_write_tmp(j->dir, &j->meta, m, it->segment, final, true, err, sizeof err) != 0) {
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

/* Files are read in pieces of this size, never whole: a state.bin is 2
 * bytes a block and a journal segment up to 4 times that. */
#define READ_CHUNK (1u << 20)

/* Reads exactly len bytes at off.  0, or -1 (errno; EIO for a short file). */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    char *p = buf;
    while (len) {
        ssize_t r = pread(fd, p, len, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            return -1;
        }
        p += r;
        off += (uint64_t)r;
        len -= (size_t)r;
    }
    return 0;
}

/* One journal segment file, read one batch at a time. */
struct seg {
    int fd;
    uint64_t len;   /* its size when opened */
    bool have_head; /* long enough for a header, read into head */
    struct jhead head;
    unsigned char *buf; /* READ_CHUNK bytes */
};

/* Opens the segment at path.  0, or -1 with *eno (ENOENT: there is none). */
static int seg_open(struct seg *s, const char *path, int *eno)
{
    memset(s, 0, sizeof *s);
    struct stat st;
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0 || fstat(s->fd, &st) != 0 || !(s->buf = malloc(READ_CHUNK))) {
        *eno = errno; /* open, fstat or malloc (ENOMEM) */
        if (s->fd >= 0)
            close(s->fd);
        s->fd = -1;
        return -1;
    }
    s->len = (uint64_t)st.st_size;
    if (s->len >= sizeof s->head) {
        if (read_at(s->fd, &s->head, sizeof s->head, 0) != 0) {
            *eno = errno;
            close(s->fd);
            free(s->buf);
            s->fd = -1;
            return -1;
        }
        s->have_head = true;
    }
    return 0;
}

static void seg_close(struct seg *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->buf);
    s->fd = -1;
    s->buf = NULL;
}

/* Calls fn for each record of a batch whose body (n bytes at off) is
 * intact, in pieces; its crc is checked over all of it first, so that a
 * damaged batch gives nothing.  1 when it is damaged, 0, or -1 when fn failed. */
typedef int (*rec_fn)(void *ctx, const struct jrec *r);
static int seg_batch(struct seg *s, uint64_t off, size_t n, uint32_t crc, void *ctx, rec_fn fn)
{
    const size_t piece = READ_CHUNK - READ_CHUNK % sizeof(struct jrec);
    bool held = n <= piece; /* one piece: read once, checked and replayed from the buffer */
    uint32_t c = 0;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < piece ? n - done : piece;
        if (read_at(s->fd, s->buf, k, off + done) != 0)
            return 1;
        c = crc32c_extend(c, s->buf, k);
        done += k;
    }
    if (c != crc)
        return 1;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < piece ? n - done : piece;
        if (!held && read_at(s->fd, s->buf, k, off + done) != 0)
            return 1;
        for (size_t i = 0; i < k; i += sizeof(struct jrec)) {
            struct jrec r;
            memcpy(&r, s->buf + i, sizeof r);
            if (fn(ctx, &r) != 0)
                return -1;
        }
        done += k;
    }
    return 0;
}

/* Calls fn for every record of every intact batch of the segment, up to
 * the first damaged one.  *torn: the file does not end with a whole,
 * intact batch.  whole (may be NULL): the records in the whole batches,
 * crc or not (what a run had sealed into the file).  0, or -1 when fn
 * failed. */
static int seg_scan(struct seg *s, void *ctx, rec_fn fn, bool *torn, uint64_t *whole)
{
    uint64_t off = sizeof(struct jhead);
    bool bad = false, damaged = false;
    if (whole)
        *whole = 0;
    while (s->have_head && off + sizeof(struct jbatch) <= s->len) {
        struct jbatch b;
        if (read_at(s->fd, &b, sizeof b, off) != 0) {
            bad = true;
            break;
        }
        uint64_t body = (uint64_t)b.nrec * sizeof(struct jrec);
        if (b.magic != BATCH_MAGIC || off + sizeof b + body > s->len) {
            bad = true;
            break;
        }
        if (whole)
            *whole += b.nrec;
        if (!damaged) {
            int rc = seg_batch(s, off + sizeof b, (size_t)body, b.crc, ctx, fn);
            if (rc < 0)
                return -1;
            damaged = rc > 0;
        }
        if (damaged && !whole)
            break;
        off += sizeof b + body;
    }
    *torn = bad || damaged || (s->have_head && off != s->len);
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
 * itself, into a fresh m.  0, or -1 with err (m freed).
 *
 * Streamed: the durable array is read straight into the map, the rest
 * (pending entries, queued completions) in pieces, twice: once for the
 * crc, once to restore it, so that nothing of a damaged file is used and
 * no buffer as large as the file is ever needed. */
static int load_checkpoint(const char *dir, struct shead *h, struct run_meta *meta,
                           struct statemap *m, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "state.bin");
    unsigned char *buf = NULL;
    bool have_map = false;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    uint64_t len = (uint64_t)st.st_size;
    if (len < sizeof *h || read_at(fd, h, sizeof *h, 0) != 0) {
        snprintf(err, errlen, "%s is truncated", path);
        goto fail;
    }
    uint64_t body = len - sizeof *h;
    if (memcmp(h->magic, STATE_MAGIC, sizeof h->magic) != 0) {
        snprintf(err, errlen, "%s is not a faultline state file", path);
        goto fail;
    }
    if (h->version != STATE_VERSION) {
        snprintf(err, errlen, "%s is of format %u, this faultline reads format %u (made by "
                 "another version)", path, h->version, STATE_VERSION);
        goto fail;
    }
    /* The initial checkpoint of a run stores no durable array (all zero).
     * The counts in the header (which the crc does not cover) must fit the
     * file's size before anything is allocated for them. */
    uint64_t nb = h->meta.nblocks;
    bool sane = nb <= UINT64_MAX / 4 && h->npending <= len && h->nacked <= len;
    uint64_t darr = nb * sizeof(gen_t);
    uint64_t rest = h->npending * sizeof(struct spend) + h->nacked * sizeof(struct sack);
    bool with_darr = sane && body == darr + rest;
    bool fits = with_darr || (sane && body == rest);
    if (fits) {
        if (statemap_init(m, nb) != 0) {
            snprintf(err, errlen, "out of memory for %llu blocks", (unsigned long long)nb);
            goto fail;
        }
        have_map = true;
    }
    if (!(buf = malloc(READ_CHUNK))) {
        snprintf(err, errlen, "out of memory reading %s", path);
        goto fail;
    }
    /* Pass 1: the crc over the body; the durable array lands in the map. */
    uint32_t crc = 0;
    uint64_t off = sizeof *h;
    if (with_darr) {
        for (uint64_t done = 0; done < darr;) {
            size_t k = darr - done < READ_CHUNK ? (size_t)(darr - done) : READ_CHUNK;
            unsigned char *into = (unsigned char *)m->durable + done;
            if (read_at(fd, into, k, off + done) != 0) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                goto fail;
            }
            crc = crc32c_extend(crc, into, k);
            done += k;
        }
        off += darr;
    }
    for (uint64_t at = off; at < len;) {
        size_t k = len - at < READ_CHUNK ? (size_t)(len - at) : READ_CHUNK;
        if (read_at(fd, buf, k, at) != 0) {
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
            goto fail;
        }
        crc = crc32c_extend(crc, buf, k);
        at += k;
    }
    if (crc != h->crc) {
        snprintf(err, errlen, "%s is damaged (checksum mismatch)", path);
        goto fail;
    }
    *meta = h->meta;
    if (!fits) {
        snprintf(err, errlen, "%s has an unexpected size", path);
        goto fail;
    }
    /* Pass 2: the pending entries and the queued completions. */
    m->loss_open = (uint8_t)(h->flags >> 8);
    m->ack_total = h->ack_total - h->nacked; /* restore_acked counts the queued ones again */
    size_t have = 0, used = 0;
    for (uint64_t i = 0; i < h->npending + h->nacked; i++) {
        bool pend = i < h->npending;
        size_t one = pend ? sizeof(struct spend) : sizeof(struct sack);
        if (used + one > have) {
            /* keep what is left of the piece, then refill behind it */
            memmove(buf, buf + used, have - used);
            have -= used;
            used = 0;
            size_t k = len - off < READ_CHUNK - have ? (size_t)(len - off) : READ_CHUNK - have;
            if (k == 0 || read_at(fd, buf + have, k, off) != 0) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                goto fail;
            }
            off += k;
            have += k;
        }
        const unsigned char *p = buf + used;
        used += one;
        if (pend) {
            struct spend s;
            memcpy(&s, p, sizeof s);
            struct pending e = {.block = s.block, .planned = s.planned, .issued = s.issued,
                                .acked = s.acked, .at_loss = s.at_loss, .flags = s.flags,
                                .loss = s.loss};
            if (s.block >= meta->nblocks || statemap_restore_pending(m, &e) != 0) {
                snprintf(err, errlen, "%s: bad pending entry", path);
                goto fail;
            }
        } else {
            struct sack s;
            memcpy(&s, p, sizeof s);
            if (s.block >= meta->nblocks || statemap_restore_acked(m, s.block, s.gen) != 0) {
                snprintf(err, errlen, "%s: bad queued completion", path);
                goto fail;
            }
        }
    }
    free(buf);
    close(fd);
    return 0;
fail:
    free(buf);
    if (fd >= 0)
        close(fd);
    if (have_map)
        statemap_free(m);
    return -1;
}

/* Replays journal.bin of segment h->segment on top of the checkpoint in m,
 * one batch at a time.  0 (also when there is nothing to replay), or -1
 * with err. */
static int replay_journal(const char *dir, const struct shead *h, const struct run_meta *meta,
                          struct statemap *m, struct load_info *info, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "journal.bin");
    int eno = 0;
    struct seg sg;
    if (seg_open(&sg, path, &eno) != 0) {
        if (eno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    info->had_journal = true;
    int rc = 0;
    const struct jhead *jh = &sg.head;
    if (!sg.have_head) {
        info->torn_tail = true; /* created but header never synced: nothing to replay */
    } else if (memcmp(jh->magic, JHEAD_MAGIC, sizeof jh->magic) != 0 ||
               jh->meta.run_id != meta->run_id) {
        snprintf(err, errlen, "%s does not belong to this run", path);
        rc = -1;
    } else if (jh->segment > h->segment) {
        snprintf(err, errlen, "%s (segment %llu) is newer than state.bin (segment %llu)", path,
                 (unsigned long long)jh->segment, (unsigned long long)h->segment);
        rc = -1;
    } else if (jh->segment == h->segment) {
        /* (an older segment: a crash between checkpoint and rotation, and
         * the checkpoint has it all) */
        bool torn;
        uint64_t whole;
        if (seg_scan(&sg, m, replay_one, &torn, &whole) != 0) {
            snprintf(err, errlen, "%s: a record names a block outside the target, or memory is "
                     "short", path);
            rc = -1;
        } else {
            info->replayed = whole;
            info->torn_tail = torn;
        }
    }
    seg_close(&sg);
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
        int eno;
        struct seg sg;
        if (seg_open(&sg, path, &eno) != 0)
            continue;
        bool torn;
        seg_scan(&sg, &l, lookup_one, &torn, NULL);
        seg_close(&sg);
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

/* The replay keeps a state map of only the blocks asked about, numbered
 * densely (their index in `blocks`), plus one more, the sink, that stands
 * for every other block: their completions still count in the ack queue
 * (a flush covers completions by number), and nothing is ever asked of
 * the sink.  Memory goes with the queries, not with the target. */
struct hreplay {
    struct statemap m;    /* nblk + 1 entries */
    const struct history_query *q;
    struct history_answer *a;
    struct hpoint *pts;
    size_t npts, next;
    uint64_t *blocks;     /* the blocks asked about, sorted, each once */
    size_t nblk;
    uint64_t nblocks;     /* of the worker: a record beyond is damage */
    uint8_t *intent_seen; /* per index: an intent of the block was replayed */
    bool base_known;      /* replay starts from the run's empty start */
    bool flushes_known;   /* the completion count of the first segment is known */
};

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The dense index of block b: its place in h->blocks, or the sink. */
static size_t hindex(const struct hreplay *h, uint64_t b)
{
    size_t lo = 0, hi = h->nblk;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->blocks[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->nblk && h->blocks[lo] == b ? lo : h->nblk;
}

static int by_point_time(const void *a, const void *b)
{
    const struct hpoint *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static void hsnap(struct hreplay *h, const struct hpoint *p)
{
    size_t b = hindex(h, h->q[p->q].block);
    struct history_answer *a = &h->a[p->q];
    const struct pending *e = statemap_find(&h->m, b);
    gen_t durable = h->m.durable[b];
    if (e && (e->flags & (PEND_UNCERTAIN | PEND_REVERTIBLE)))
        a->uncertain = true; /* a failed write, or a power loss: an older one may be back */
    if (p->hi) {
        a->planned = e ? gen_newest(durable, e->planned) : durable;
        a->known = h->base_known || h->intent_seen[b];
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
    struct jrec d = *r;
    if (r->type != J_FLUSH && r->type != J_POWER) {
        if (r->block >= h->nblocks)
            return -1;
        d.block = hindex(h, r->block);
    }
    if (d.type == J_INTENT)
        h->intent_seen[d.block] = 1;
    if (d.type == J_FLUSH && !h->flushes_known)
        return 0; /* cannot tell which completions it covered: durable stays low */
    int rc = replay_one(&h->m, &d);
    if (!h->flushes_known) {
        /* No flush will cover what is queued: drop it rather than keep
         * every completion of the segments (16 bytes each). */
        h->m.ack_head = (h->m.ack_head + h->m.ack_len) % h->m.ack_cap;
        h->m.ack_len = 0;
    }
    return rc;
}

/* The segment number in a journal file's header, 0 when unreadable. */
static uint64_t segment_of(const struct seg *s, uint64_t run_id)
{
    if (s->fd < 0 || !s->have_head)
        return 0;
    if (memcmp(s->head.magic, JHEAD_MAGIC, sizeof s->head.magic) != 0 ||
        s->head.meta.run_id != run_id)
        return 0;
    return s->head.segment;
}

static int count_one_done(void *ctx, const struct jrec *r)
{
    *(uint64_t *)ctx += r->type == J_DONE;
    return 0;
}

/* Completions a segment queued for flushes (as far as replay reads it). */
static uint64_t count_done(struct seg *s)
{
    uint64_t n = 0;
    bool torn;
    seg_scan(s, &n, count_one_done, &torn, NULL);
    return n;
}

int journal_history(const char *dir, size_t n, const struct history_query *q,
                    struct history_answer *a, char *err, size_t errlen)
{
    memset(a, 0, n * sizeof *a);
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "state.bin");
    int eno = 0;
    struct shead sh;
    int sfd = open(path, O_RDONLY | O_CLOEXEC);
    if (sfd < 0 || read_at(sfd, &sh, sizeof sh, 0) != 0) {
        eno = errno;
        snprintf(err, errlen, "cannot read %s: %s", path,
                 sfd >= 0 && eno == EIO ? "truncated" : strerror(eno));
        if (sfd >= 0)
            close(sfd);
        return -1;
    }
    close(sfd);
    if (memcmp(sh.magic, STATE_MAGIC, sizeof sh.magic) != 0 || sh.version != STATE_VERSION) {
        snprintf(err, errlen, "%s is not a state file of this faultline", path);
        return -1;
    }
    /* The retained segments, oldest first, as long as they follow each other. */
    const char *names[2] = {"journal.old", "journal.bin"};
    struct seg seg[2];
    uint64_t segno[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        path_in(path, sizeof path, dir, names[k]);
        if (seg_open(&seg[k], path, &eno) != 0)
            seg[k].fd = -1; /* missing or unreadable: segno 0 */
        segno[k] = segment_of(&seg[k], sh.meta.run_id);
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
                added += count_done(&seg[k]);
        if (added <= sh.ack_total) {
            base = sh.ack_total - added;
            h.flushes_known = true;
        }
    }
    h.npts = 2 * n;
    h.nblocks = sh.meta.nblocks;
    h.pts = malloc((h.npts ? h.npts : 1) * sizeof *h.pts);
    h.blocks = malloc((n ? n : 1) * sizeof *h.blocks);
    h.intent_seen = calloc(n + 1, 1);
    if (h.blocks) {
        for (size_t i = 0; i < n; i++)
            h.blocks[i] = q[i].block;
        qsort(h.blocks, n, sizeof *h.blocks, by_u64);
        for (size_t i = 0; i < n; i++)
            if (h.nblk == 0 || h.blocks[h.nblk - 1] != h.blocks[i])
                h.blocks[h.nblk++] = h.blocks[i];
    }
    if (!h.pts || !h.blocks || !h.intent_seen || statemap_init(&h.m, h.nblk + 1) != 0) {
        snprintf(err, errlen, "out of memory for the history of %s", dir);
        free(h.pts);
        free(h.blocks);
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
            if (seg[k].fd >= 0 && seg_scan(&seg[k], &h, hreplay_one, &torn, NULL) != 0) {
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
    free(h.blocks);
    free(h.intent_seen);
out:
    seg_close(&seg[0]);
    seg_close(&seg[1]);
    return rc;
}
