/* journal — see journal.h for what is stored and why. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
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
    uint64_t seq;  /* 1, 2, ... within a segment: a gap is a batch lost in the middle */
    uint32_t crc;  /* over the records */
    uint32_t hcrc; /* over the fields before it (jbatch_seal) */
};

/* 3: the header and every batch header carry a crc, batches are numbered
 * per segment.  "FLJRNL1", "FLJRNL2": older faultlines. */
#define JHEAD_MAGIC "FLJRNL3"
#define JHEAD_FAMILY "FLJRNL" /* the magic of every version, without its digit */
struct jhead {
    char magic[8];
    struct run_meta meta;
    uint64_t segment;
    uint32_t crc; /* over the header with this field zero (jhead_seal) */
    uint32_t zero;
    uint64_t reserved[2];
};

#define STATE_MAGIC "FLSTATE"
/* 2: run_meta names the client (rank, ranks); 3: power losses; 4: a crc over
 * the header too.  Older versions are refused (state_format_check). */
#define STATE_VERSION 4
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
    uint32_t crc;  /* over everything after the header */
    uint32_t hcrc; /* over the header before this field (shead_seal) */
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

/* --- on-disk format: header checksums, and what a damaged file says ---
 *
 * Kept apart from the writers and readers: a header is sealed just before it
 * is written and checked right after it is read.  Everything here tells
 * damage to the run directory apart from damage to the target, so that
 * verify refuses (naming the file and the byte offset) instead of reporting
 * a false finding. */

static void shead_seal(struct shead *h)
{
    h->hcrc = crc32c(h, offsetof(struct shead, hcrc));
}

/* That state.bin's header (at path) is one, of this format, undamaged.  0,
 * or -1 with err. */
static int shead_check(const struct shead *h, const char *path, char *err, size_t n)
{
    if (memcmp(h->magic, STATE_MAGIC, sizeof h->magic) != 0) {
        snprintf(err, n, "%s is not a faultline state file (no %s magic at byte offset 0)", path,
                 STATE_MAGIC);
        return -1;
    }
    if (h->version != STATE_VERSION) {
        if (h->version >= 1 && h->version < STATE_VERSION)
            snprintf(err, n, "%s is of format %u, from an older faultline (this one reads format "
                     "%u): verify the run with the faultline that made it", path, h->version,
                     STATE_VERSION);
        else
            snprintf(err, n, "%s is of format %u, which this faultline does not know (it reads "
                     "format %u): damaged, or from a newer faultline", path, h->version,
                     STATE_VERSION);
        return -1;
    }
    if (crc32c(h, offsetof(struct shead, hcrc)) != h->hcrc) {
        snprintf(err, n, "%s: the checkpoint header is damaged (checksum mismatch over byte "
                 "offsets 0..%zu)", path, offsetof(struct shead, hcrc) - 1);
        return -1;
    }
    return 0;
}

static void jhead_seal(struct jhead *h)
{
    h->crc = 0;
    h->crc = crc32c(h, sizeof *h);
}

/* Reads and checks the header of the journal segment in buf (len bytes, from
 * path) into *h: one of this format, undamaged, of run run_id.  0, or -1
 * with err. */
static int jhead_check(const unsigned char *buf, size_t len, const char *path, uint64_t run_id,
                       struct jhead *h, char *err, size_t n)
{
    size_t fam = strlen(JHEAD_FAMILY);
    if (len >= sizeof h->magic && memcmp(buf, JHEAD_FAMILY, fam) == 0 &&
        memcmp(buf, JHEAD_MAGIC, sizeof h->magic) != 0) {
        snprintf(err, n, "%s is of format %c, from an older faultline (this one reads format %c): "
                 "verify the run with the faultline that made it", path, (char)buf[fam],
                 JHEAD_MAGIC[fam]);
        return -1;
    }
    if (len < sizeof *h) {
        snprintf(err, n, "%s is truncated: %zu bytes, its header alone takes %zu", path, len,
                 sizeof *h);
        return -1;
    }
    memcpy(h, buf, sizeof *h);
    if (memcmp(h->magic, JHEAD_MAGIC, sizeof h->magic) != 0) {
        snprintf(err, n, "%s is not a faultline journal (no %s magic at byte offset 0)", path,
                 JHEAD_FAMILY);
        return -1;
    }
    struct jhead c = *h;
    c.crc = 0;
    if (crc32c(&c, sizeof c) != h->crc) {
        snprintf(err, n, "%s: the journal header is damaged (checksum mismatch over byte offsets "
                 "0..%zu)", path, sizeof *h - 1);
        return -1;
    }
    if (h->meta.run_id != run_id) {
        snprintf(err, n, "%s belongs to run %016llx, state.bin to run %016llx: the journal of "
                 "another run", path, (unsigned long long)h->meta.run_id,
                 (unsigned long long)run_id);
        return -1;
    }
    return 0;
}

static void jbatch_seal(struct jbatch *b)
{
    b->hcrc = crc32c(b, offsetof(struct jbatch, hcrc));
}

static bool jbatch_head_ok(const struct jbatch *b)
{
    return b->magic == BATCH_MAGIC && b->hcrc == crc32c(b, offsetof(struct jbatch, hcrc));
}

/* How a segment file ends.  A crash (SIGKILL in mid-append, a power cut
 * before the batch's fdatasync) leaves at most its last batch short, or
 * garbage with no whole batch header after it: a torn tail, whose writes
 * were never issued (intents are synced before they are).  Anything else is
 * damage: a whole batch whose records fail their crc, a bad batch with
 * whole ones after it, a gap in the batch numbers. */
enum seg_end {
    SEG_WHOLE,   /* every batch whole */
    SEG_TORN,    /* the last batch incomplete or bad, nothing whole after it */
    SEG_DAMAGED, /* a bad batch with whole ones after it, or batches missing in between */
};
struct seg_result {
    enum seg_end end;
    uint64_t off;     /* not SEG_WHOLE: byte offset of the bad batch (of a failed record) */
    uint64_t batch;   /* its number in the segment, 1 = the first */
    uint64_t records; /* in the whole batches before it */
    char why[160];
};

/* The error a scan's end is, for the segment at path; final: nothing may
 * follow the last whole batch (a complete segment, or a run that ended
 * cleanly).  0 when acceptable, else -1 with err. */
static int seg_scan_error(const struct seg_result *s, const char *path, bool final,
                          const char *whyfinal, char *err, size_t n)
{
    if (s->end == SEG_WHOLE || (s->end == SEG_TORN && !final))
        return 0;
    if (s->end == SEG_DAMAGED)
        snprintf(err, n, "%s is damaged at byte offset %llu (batch %llu): %s", path,
                 (unsigned long long)s->off, (unsigned long long)s->batch, s->why);
    else
        snprintf(err, n, "%s ends in a bad batch at byte offset %llu (batch %llu: %s), but %s: the "
                 "file is truncated or damaged", path, (unsigned long long)s->off,
                 (unsigned long long)s->batch, s->why, whyfinal);
    return -1;
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
        shead_seal(&h); /* sealed only now: its crc covers the body's crc */
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
    jhead_seal(&h);
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
    jbatch_seal(&b);
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
    bool have_head; /* long enough for a header (jhead_check checks it) */
    unsigned char raw[sizeof(struct jhead)]; /* its first rawlen bytes, for jhead_check */
    size_t rawlen;
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
    s->rawlen = s->len < sizeof s->raw ? (size_t)s->len : sizeof s->raw;
    if (read_at(s->fd, s->raw, s->rawlen, 0) != 0) {
        *eno = errno;
        close(s->fd);
        free(s->buf);
        s->buf = NULL;
        s->fd = -1;
        return -1;
    }
    s->have_head = s->rawlen == sizeof s->raw;
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
 * damaged batch gives nothing.  0; 1 when its crc fails; -1 when fn failed
 * (r->off and r->why name the record); -2 when the file cannot be read
 * (errno). */
typedef int (*rec_fn)(void *ctx, const struct jrec *r);
static int seg_batch(struct seg *s, uint64_t off, size_t n, uint32_t crc, void *ctx, rec_fn fn,
                     struct seg_result *res)
{
    const size_t piece = READ_CHUNK - READ_CHUNK % sizeof(struct jrec);
    bool held = n <= piece; /* one piece: read once, checked and replayed from the buffer */
    uint32_t c = 0;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < piece ? n - done : piece;
        if (read_at(s->fd, s->buf, k, off + done) != 0)
            return -2;
        c = crc32c_extend(c, s->buf, k);
        done += k;
    }
    if (c != crc)
        return 1;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < piece ? n - done : piece;
        if (!held && read_at(s->fd, s->buf, k, off + done) != 0)
            return -2;
        for (size_t i = 0; i < k; i += sizeof(struct jrec)) {
            struct jrec r;
            memcpy(&r, s->buf + i, sizeof r);
            if (fn(ctx, &r) != 0) {
                res->off = off + done + i;
                snprintf(res->why, sizeof res->why, "record %zu of the batch (type %u, block "
                         "%llu, generation %u) cannot be replayed", (done + i) / sizeof r,
                         r.type, (unsigned long long)r.block, r.gen);
                return -1;
            }
        }
        done += k;
    }
    return 0;
}

/* Whether a whole batch header starts somewhere after off (batches and
 * records are multiples of 8 bytes), read in pieces.  0, or -1 (errno). */
static int whole_batch_after(struct seg *s, uint64_t off, bool *found)
{
    *found = false;
    uint64_t p = off + 8;
    while (p + sizeof(struct jbatch) <= s->len) {
        size_t k = s->len - p < READ_CHUNK ? (size_t)(s->len - p) : READ_CHUNK;
        if (read_at(s->fd, s->buf, k, p) != 0)
            return -1;
        size_t i = 0;
        for (; i + sizeof(struct jbatch) <= k; i += 8) {
            struct jbatch b;
            memcpy(&b, s->buf + i, sizeof b);
            if (jbatch_head_ok(&b)) {
                *found = true;
                return 0;
            }
        }
        p += i; /* the next piece starts at the first place not yet tried */
    }
    return 0;
}

/* Calls fn for every record of every whole batch of the segment (one with
 * a header, have_head), one batch at a time, and says in *r how the file
 * ends.  0; -1 when fn refused a record (r->off names it); -2 when the
 * file cannot be read (r->why says why). */
static int seg_scan(struct seg *s, void *ctx, rec_fn fn, struct seg_result *r)
{
    memset(r, 0, sizeof *r);
    uint64_t off = sizeof(struct jhead);
    for (uint64_t seq = 1; off < s->len; seq++) {
        struct jbatch b;
        r->off = off;
        r->batch = seq;
        if (s->len - off < sizeof b) {
            snprintf(r->why, sizeof r->why, "an incomplete batch header (%llu of %zu bytes)",
                     (unsigned long long)(s->len - off), sizeof b);
            goto bad;
        }
        if (read_at(s->fd, &b, sizeof b, off) != 0)
            goto unreadable;
        if (!jbatch_head_ok(&b)) {
            snprintf(r->why, sizeof r->why, "%s", b.magic != BATCH_MAGIC
                     ? "no batch header there (bad magic)" : "batch header checksum mismatch");
            goto bad;
        }
        if (b.seq != seq) {
            snprintf(r->why, sizeof r->why, "batch number %llu where %llu was due: batches are "
                     "missing in the middle", (unsigned long long)b.seq, (unsigned long long)seq);
            r->end = SEG_DAMAGED;
            return 0;
        }
        uint64_t room = (s->len - off - sizeof b) / sizeof(struct jrec);
        if (b.nrec > room) {
            snprintf(r->why, sizeof r->why, "an incomplete batch (%u records, the file holds "
                     "%llu of them)", b.nrec, (unsigned long long)room);
            goto bad;
        }
        size_t body = (size_t)b.nrec * sizeof(struct jrec);
        int rc = seg_batch(s, off + sizeof b, body, b.crc, ctx, fn, r);
        if (rc == -2)
            goto unreadable;
        if (rc < 0)
            return -1;
        if (rc > 0) {
            /* A crash leaves a batch short, never whole and wrong. */
            snprintf(r->why, sizeof r->why, "record checksum mismatch in a whole batch (byte "
                     "offsets %llu..%llu)", (unsigned long long)(off + sizeof b),
                     (unsigned long long)(off + sizeof b + body - 1));
            r->end = SEG_DAMAGED;
            return 0;
        }
        off += sizeof b + body;
        r->records += b.nrec;
    }
    r->end = SEG_WHOLE;
    return 0;
bad:;
    bool after;
    if (whole_batch_after(s, off, &after) != 0)
        goto unreadable;
    if (after) {
        r->end = SEG_DAMAGED;
        size_t l = strlen(r->why);
        snprintf(r->why + l, sizeof r->why - l, ", yet whole batches follow it");
    } else {
        r->end = SEG_TORN;
    }
    return 0;
unreadable:
    snprintf(r->why, sizeof r->why, "cannot read it: %s", strerror(errno));
    return -2;
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

static int skip_one(void *ctx, const struct jrec *r)
{
    (void)ctx;
    (void)r;
    return 0;
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
    if (len < sizeof *h) {
        snprintf(err, errlen, "%s is truncated: %llu bytes, its header alone takes %zu", path,
                 (unsigned long long)len, sizeof *h);
        goto fail;
    }
    if (read_at(fd, h, sizeof *h, 0) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    if (shead_check(h, path, err, errlen) != 0)
        goto fail;
    uint64_t body = len - sizeof *h;
    /* The initial checkpoint of a run stores no durable array (all zero).
     * The counts (sealed with the header) must fit the file's size before
     * they are multiplied, and before anything is allocated for them. */
    uint64_t nb = h->meta.nblocks;
    bool sane = nb <= UINT64_MAX / 4 && h->npending <= len && h->nacked <= len;
    uint64_t darr = sane ? nb * sizeof(gen_t) : 0;
    uint64_t rest = sane ? h->npending * sizeof(struct spend) + h->nacked * sizeof(struct sack)
                         : 0;
    bool with_darr = sane && body == darr + rest;
    if (!with_darr && !(sane && body == rest)) {
        if (sane && body < darr + rest)
            snprintf(err, errlen, "%s is truncated: %llu bytes, the checkpoint its header "
                     "describes takes %llu", path, (unsigned long long)len,
                     (unsigned long long)(sizeof *h + darr + rest));
        else
            snprintf(err, errlen, "%s has an unexpected size (%llu bytes) for the checkpoint its "
                     "header describes", path, (unsigned long long)len);
        goto fail;
    }
    if (statemap_init(m, nb) != 0) {
        snprintf(err, errlen, "out of memory for %llu blocks", (unsigned long long)nb);
        goto fail;
    }
    have_map = true;
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
        snprintf(err, errlen, "%s: the checkpoint is damaged (checksum mismatch over byte offsets "
                 "%zu..%llu)", path, sizeof *h, (unsigned long long)(len - 1));
        goto fail;
    }
    *meta = h->meta;
    /* Pass 2: the pending entries and the queued completions.  buf holds
     * the file's bytes [off - have, off). */
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
        unsigned long long at = (unsigned long long)(off - have + used); /* of the entry */
        used += one;
        if (pend) {
            struct spend s;
            memcpy(&s, p, sizeof s);
            struct pending e = {.block = s.block, .planned = s.planned, .issued = s.issued,
                                .acked = s.acked, .at_loss = s.at_loss, .flags = s.flags,
                                .loss = s.loss};
            if (s.block >= meta->nblocks || statemap_restore_pending(m, &e) != 0) {
                snprintf(err, errlen, "%s: bad pending entry at byte offset %llu", path, at);
                goto fail;
            }
        } else {
            struct sack s;
            memcpy(&s, p, sizeof s);
            if (s.block >= meta->nblocks || statemap_restore_acked(m, s.block, s.gen) != 0) {
                snprintf(err, errlen, "%s: bad queued completion at byte offset %llu", path, at);
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
    bool final = h->flags & STATE_FINAL;
    struct seg sg;
    if (seg_open(&sg, path, &eno) != 0) {
        /* journal.bin exists from the run's first moment on (segment_open),
         * except before the first segment was installed. */
        if (eno == ENOENT && (!(h->flags & STATE_JOURNALED) || (h->segment <= 1 && !final)))
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    info->had_journal = true;
    int rc = 0;
    struct jhead jh;
    struct seg_result sc;
    if (jhead_check(sg.raw, sg.rawlen, path, meta->run_id, &jh, err, errlen) != 0) {
        rc = -1;
    } else if (jh.segment > h->segment) {
        snprintf(err, errlen, "%s (segment %llu) is newer than state.bin (segment %llu)", path,
                 (unsigned long long)jh.segment, (unsigned long long)h->segment);
        rc = -1;
    } else if (jh.segment == h->segment) {
        int sr = seg_scan(&sg, m, replay_one, &sc);
        if (sr == -2) {
            snprintf(err, errlen, "%s, byte offset %llu: %s", path, (unsigned long long)sc.off,
                     sc.why);
            rc = -1;
        } else if (sr != 0) {
            snprintf(err, errlen, "%s, byte offset %llu: %s: it names a block outside the "
                     "target, or memory is short", path, (unsigned long long)sc.off, sc.why);
            rc = -1;
        } else {
            rc = seg_scan_error(&sc, path, final, "the run ended cleanly and added nothing after "
                                "its last checkpoint", err, errlen);
            info->replayed = sc.records;
            info->torn_tail = sc.end == SEG_TORN;
        }
    } else {
        /* An older segment: a crash between checkpoint and rotation, and the
         * checkpoint has it all; it was synced whole before. */
        int sr = seg_scan(&sg, NULL, skip_one, &sc);
        if (sr != 0) {
            snprintf(err, errlen, "%s, byte offset %llu: %s", path, (unsigned long long)sc.off,
                     sc.why);
            rc = -1;
        } else {
            rc = seg_scan_error(&sc, path, true, "this segment was synced whole before the "
                                "checkpoint that followed it", err, errlen);
        }
    }
    seg_close(&sg);
    return rc;
}

/* journal.old, when there is one, holds the segment before journal.bin's,
 * synced whole before the rotation: of this run, with no bad batch. */
static int check_old_segment(const char *dir, const struct shead *h, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    path_in(path, sizeof path, dir, "journal.old");
    int eno = 0;
    struct seg sg;
    if (seg_open(&sg, path, &eno) != 0) {
        if (eno == ENOENT) /* the first segment, or a crash in mid-rotation */
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    struct jhead jh;
    struct seg_result sc;
    int rc = 0;
    if (jhead_check(sg.raw, sg.rawlen, path, h->meta.run_id, &jh, err, errlen) != 0) {
        rc = -1;
    } else if (jh.segment > h->segment) {
        snprintf(err, errlen, "%s (segment %llu) is newer than state.bin (segment %llu)", path,
                 (unsigned long long)jh.segment, (unsigned long long)h->segment);
        rc = -1;
    } else if (seg_scan(&sg, NULL, skip_one, &sc) != 0) {
        snprintf(err, errlen, "%s, byte offset %llu: %s", path, (unsigned long long)sc.off,
                 sc.why);
        rc = -1;
    } else if (seg_scan_error(&sc, path, true, "a segment is synced whole before it becomes "
                              "journal.old", err, errlen) != 0) {
        rc = -1;
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
    if (replay_journal(dir, &h, meta, m, info, err, errlen) != 0 ||
        check_old_segment(dir, &h, err, errlen) != 0) {
        statemap_free(m);
        return -1;
    }
    return 0;
}

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
    int eno = errno;
    close(fd);
    if (n < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    if (n != (ssize_t)sizeof h) {
        snprintf(err, errlen, "%s is truncated: %zd bytes, its header alone takes %zu", path, n,
                 sizeof h);
        return -1;
    }
    if (shead_check(&h, path, err, errlen) != 0)
        return -1;
    *meta = h.meta;
    return 0;
}

/* The wanted (block, gen) pairs, sorted by block for binary search. */
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
        struct seg_result sc;
        if (sg.have_head)
            seg_scan(&sg, &l, lookup_one, &sc);
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
    struct jhead jh;
    char err[PATH_MAX + 256];
    if (s->fd < 0 || jhead_check(s->raw, s->rawlen, "journal", run_id, &jh, err, sizeof err) != 0)
        return 0;
    return jh.segment;
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
    struct seg_result sc;
    if (s->have_head)
        seg_scan(s, &n, count_one_done, &sc);
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
    if (shead_check(&sh, path, err, errlen) != 0)
        return -1;
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
            struct seg_result sc;
            int sr = seg[k].fd >= 0 && seg[k].have_head ? seg_scan(&seg[k], &h, hreplay_one, &sc)
                                                        : 0;
            if (sr == -2) {
                snprintf(err, errlen, "%s/%s, byte offset %llu: %s", dir, names[k],
                         (unsigned long long)sc.off, sc.why);
                rc = -1;
            } else if (sr != 0) {
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

/* --- jlog: a generic append-only log in the journal's batches --- */

#define JLOG_MAGIC "FLJLOG1"
struct jlog_head {
    char magic[8];
    uint32_t kind;
    uint32_t rec_size;
    uint64_t run_id;
    uint64_t hcrc;        /* crc32c of the fields before it */
    uint64_t reserved;
};

struct jlog {
    int fd;
    char path[PATH_MAX];
    uint32_t rec_size;
    unsigned char *buf; /* the batch being built */
    size_t n, cap;
    uint64_t seq, records;
    bool failed;
};

struct jlog *jlog_open(const char *path, uint32_t kind, uint32_t rec_size, uint64_t run_id,
                       char *err, size_t errlen)
{
    struct jlog *l = calloc(1, sizeof *l);
    if (!l || rec_size == 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        free(l);
        return NULL;
    }
    snprintf(l->path, sizeof l->path, "%s", path);
    l->rec_size = rec_size;
    l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    struct jlog_head h = {.kind = kind, .rec_size = rec_size, .run_id = run_id};
    memcpy(h.magic, JLOG_MAGIC, sizeof h.magic);
    h.hcrc = crc32c(&h, offsetof(struct jlog_head, hcrc));
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    if (l->fd < 0 || write_all(l->fd, &h, sizeof h) != 0 || fdatasync(l->fd) != 0 ||
        sync_dir(slash ? dir : ".") != 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        if (l->fd >= 0)
            close(l->fd);
        free(l);
        return NULL;
    }
    return l;
}

int jlog_add(struct jlog *l, const void *rec)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        unsigned char *b = realloc(l->buf, cap * l->rec_size);
        if (!b)
            return -1;
        l->buf = b;
        l->cap = cap;
    }
    memcpy(l->buf + l->n++ * l->rec_size, rec, l->rec_size);
    return 0;
}

int jlog_commit(struct jlog *l, bool sync, char *err, size_t errlen)
{
    if (l->failed) {
        snprintf(err, errlen, "%s: an earlier write failed", l->path);
        return -1;
    }
    if (l->n) {
        size_t body = l->n * l->rec_size;
        struct jbatch b = {.magic = BATCH_MAGIC, .nrec = (uint32_t)l->n, .seq = ++l->seq,
                           .crc = crc32c(l->buf, body)};
        jbatch_seal(&b);
        /* one write: a batch is never interleaved, and a crash cuts at most its tail */
        unsigned char *all = malloc(sizeof b + body);
        if (!all) {
            snprintf(err, errlen, "%s: out of memory", l->path);
            l->failed = true;
            return -1;
        }
        memcpy(all, &b, sizeof b);
        memcpy(all + sizeof b, l->buf, body);
        int rc = write_all(l->fd, all, sizeof b + body);
        free(all);
        if (rc != 0) {
            snprintf(err, errlen, "cannot write %s: %s", l->path, strerror(errno));
            l->failed = true;
            return -1;
        }
        l->records += l->n;
        l->n = 0;
    }
    if (sync && fdatasync(l->fd) != 0) {
        snprintf(err, errlen, "cannot sync %s: %s", l->path, strerror(errno));
        l->failed = true;
        return -1;
    }
    return 0;
}

uint64_t jlog_records(const struct jlog *l)
{
    return l->records;
}

void jlog_close(struct jlog *l)
{
    if (!l)
        return;
    close(l->fd);
    free(l->buf);
    free(l);
}

int jlog_read(const char *path, uint32_t kind, uint32_t rec_size,
              int (*fn)(void *ctx, const void *rec), void *ctx, struct jlog_info *info,
              char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    unsigned char *buf = NULL;
    size_t len = 0;
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size < ((uint64_t)1 << 34))
        buf = malloc((size_t)st.st_size + 1);
    while (buf && len < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + len, (size_t)st.st_size - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    int e = errno;
    close(fd);
    if (!buf || len < (size_t)st.st_size) {
        snprintf(err, errlen, "cannot read %s: %s", path, buf ? strerror(e) : "out of memory");
        free(buf);
        return -1;
    }
    struct jlog_head h;
    if (len < sizeof h) {
        snprintf(err, errlen, "%s is damaged: %zu bytes, shorter than its header", path, len);
        free(buf);
        return -1;
    }
    memcpy(&h, buf, sizeof h);
    if (memcmp(h.magic, JLOG_MAGIC, sizeof h.magic) != 0 || h.kind != kind ||
        h.rec_size != rec_size || h.hcrc != crc32c(&h, offsetof(struct jlog_head, hcrc))) {
        snprintf(err, errlen, "%s is damaged or of another kind (header: kind %u, records of "
                 "%u bytes; expected kind %u, %u bytes)", path, h.kind, h.rec_size, kind,
                 rec_size);
        free(buf);
        return -1;
    }
    info->run_id = h.run_id;
    size_t off = sizeof h;
    uint64_t seq = 0;
    while (off < len) {
        struct jbatch b;
        if (len - off < sizeof b) {
            info->torn = true;
            break;
        }
        memcpy(&b, buf + off, sizeof b);
        size_t body = (size_t)b.nrec * rec_size;
        if (!jbatch_head_ok(&b) || b.seq != seq + 1 || b.nrec == 0 ||
            b.nrec > (len - off - sizeof b) / rec_size ||
            crc32c(buf + off + sizeof b, body) != b.crc) {
            info->torn = true;
            break;
        }
        seq = b.seq;
        info->batches++;
        off += sizeof b;
        for (uint32_t i = 0; i < b.nrec; i++, off += rec_size) {
            info->records++;
            if (fn(ctx, buf + off) != 0) {
                free(buf);
                return 0;
            }
        }
    }
    free(buf);
    return 0;
}
