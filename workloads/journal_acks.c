/*
 * journal_acks — acks.bin: the write completions a killed run had not yet
 * put into journal.bin, so that `verify` still knows those writes were
 * acknowledged.
 *
 * Why.  A completion (DONE) record reaches journal.bin only with the next
 * batch of intents the engine seals, and the engine plans up to 16384 ops
 * ahead; a SIGKILL of faultline loses every completion since (and the
 * committer's queue).  The rebuilt state then has those writes planned but
 * not acknowledged, and a read of the older generation a storage that lost
 * them returns is "ok", not "reverted": the crash's cost undercounted by
 * thousands of blocks.  A time bound (seal every few ms) still loses
 * milliseconds times IOPS; this bounds the loss by a count instead.
 *
 * How.  Every successful write completion is also a fixed-size record in a
 * ring file of its own, written by the engine's thread with one pwrite per
 * reap (two where the ring wraps) and never synced: what a process wrote is
 * in the page cache, which outlives the process's kill, the case this is
 * for.  A killed run thus loses at most the completions of the reap it was
 * handling, never more than the I/O depth.  A power cut of the client node
 * itself (its page cache lost with it) is out of scope: the ring then holds
 * whatever reached the disk, records that are skipped (below) or fail their
 * crc, and verify counts as it did without the ring.
 *
 * The file: a header (magic with the format's digit, run id, worker, slot
 * count, record size, crc), written, synced and renamed into place when
 * the journal is created, and ACKS_SLOTS records (journal_internal.h) of a
 * sequence number (1, 2, ... per worker; record seq in slot seq %
 * ACKS_SLOTS), the block (local number), the completions queued before it
 * (statemap_acked_total), the generation, durable_now and a crc32c.  The
 * slots outnumber the completions that can be missing from journal.bin
 * (at most PLAN_CAP ops issued since the last committed batch, plus the
 * depth) with room to spare, so the ring always reaches back into the
 * journal.  Failed writes are not in it: after a crash every planned
 * generation is allowed anyway.
 *
 * Recovery (state_load, only for a run that did not end cleanly, after
 * checkpoint and journal replay): of the records whose crc is good and
 * whose slot is theirs, the newest contiguous run of sequence numbers (a
 * torn or garbage record ends it), in sequence order, each applied as
 * replay applies a DONE (statemap_write_done), but only where the map does
 * not reflect it yet: the block has a pending entry, the generation is
 * newer than its acknowledged one and not newer than its planned one, and
 * (a write not durable at once) its completion number is not below the
 * map's count of completions, which replay rebuilt through the same
 * transitions as the engine: a record already in the journal, or whose
 * block has become durable since, is skipped.
 *
 * Why that is safe: the journal holds a prefix of the engine's stream of
 * events, and a flush record is appended after the completions it covers,
 * so any completion missing from the journal came after every flush in
 * it.  Applying one only adds an acknowledged, not yet durable write: after
 * the crash its block may be found reverted (allowed, and counted) or
 * holding it (ok), never a false finding.  Its intent is in the journal
 * (synced before the write was issued), so its generation was allowed
 * already; what changes is that an older one read back is counted.
 */
#include "journal_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/crc32c.h"
#include "../lib/fsutil.h"

#define ACKS_BYTES ((uint64_t)sizeof(struct ackhead) + (uint64_t)ACKS_SLOTS * sizeof(struct ackrec))

static uint32_t head_crc(const struct ackhead *h)
{
    return crc32c(h, offsetof(struct ackhead, crc));
}

static uint32_t rec_crc(const struct ackrec *r)
{
    return crc32c(r, offsetof(struct ackrec, crc));
}

int journal_acks_open(struct ackring *a, const char *dir, const struct run_meta *meta, char *err,
                      size_t n)
{
    char path[PATH_MAX + 16], tmp[PATH_MAX + 16];
    journal_path_in(path, sizeof path, dir, "acks.bin");
    journal_path_in(tmp, sizeof tmp, dir, "acks.new");
    memset(a, 0, sizeof *a);
    a->fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (a->fd < 0) {
        snprintf(err, n, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    struct ackhead h = {.run_id = meta->run_id, .worker = meta->worker, .slots = ACKS_SLOTS,
                        .rec_size = sizeof(struct ackrec)};
    memcpy(h.magic, ACKS_MAGIC, sizeof h.magic);
    h.crc = head_crc(&h);
    /* Sparse: a slot takes room once written; the header is on disk before
     * the file has its name, so a crash never leaves a half-made one. */
    if (write_full(a->fd, &h, sizeof h) != 0 || ftruncate(a->fd, (off_t)ACKS_BYTES) != 0 ||
        fdatasync(a->fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, n, "cannot write %s: %s", tmp, strerror(errno));
        close(a->fd);
        a->fd = -1;
        return -1;
    }
    return 0; /* the directory is synced with journal.bin's creation */
}

static int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

int journal_acks_write(struct ackring *a)
{
    unsigned n = a->staged;
    if (n == 0)
        return 0;
    a->staged = 0;
    uint64_t first = a->seq - n + 1;
    unsigned slot = (unsigned)(first % ACKS_SLOTS);
    unsigned head = n <= ACKS_SLOTS - slot ? n : ACKS_SLOTS - slot;
    uint64_t at = sizeof(struct ackhead) + (uint64_t)slot * sizeof(struct ackrec);
    if (pwrite_full(a->fd, a->stage, head * sizeof(struct ackrec), at) != 0)
        return -1;
    if (head < n && pwrite_full(a->fd, a->stage + head, (n - head) * sizeof(struct ackrec),
                                sizeof(struct ackhead)) != 0)
        return -1;
    return 0;
}

int journal_acks_stage(struct ackring *a, uint64_t block, gen_t gen, bool durable, uint64_t acks)
{
    if (a->staged == ACKS_STAGE && journal_acks_write(a) != 0)
        return -1;
    struct ackrec *r = &a->stage[a->staged++];
    *r = (struct ackrec){.seq = ++a->seq, .block = block, .acks = acks, .gen = gen,
                         .durable = durable};
    r->crc = rec_crc(r);
    return 0;
}

void journal_acks_close(struct ackring *a)
{
    if (a->fd >= 0)
        close(a->fd);
    a->fd = -1;
    a->staged = 0;
}

/* --- recovery --- */

/* The header of acks.bin (path, size bytes) is one, of this format, of
 * this worker of this run.  0, or -1 with err. */
static int head_check(const struct ackhead *h, uint64_t size, const char *path,
                      const struct run_meta *meta, char *err, size_t n)
{
    size_t fam = strlen(ACKS_FAMILY);
    if (size < sizeof *h) {
        snprintf(err, n, "%s is truncated: %llu bytes, its header alone takes %zu", path,
                 (unsigned long long)size, sizeof *h);
        return -1;
    }
    if (memcmp(h->magic, ACKS_FAMILY, fam) == 0 && memcmp(h->magic, ACKS_MAGIC, sizeof h->magic)) {
        snprintf(err, n, "%s is of format %c, which this faultline does not know (it reads format "
                 "%c): from a newer faultline, or damaged", path, h->magic[fam], ACKS_MAGIC[fam]);
        return -1;
    }
    if (memcmp(h->magic, ACKS_MAGIC, sizeof h->magic) != 0) {
        snprintf(err, n, "%s is not a faultline acknowledgement ring (no %s magic at byte offset 0)",
                 path, ACKS_FAMILY);
        return -1;
    }
    if (head_crc(h) != h->crc) {
        snprintf(err, n, "%s: the header is damaged (checksum mismatch over byte offsets 0..%zu)",
                 path, offsetof(struct ackhead, crc) - 1);
        return -1;
    }
    if (h->run_id != meta->run_id || h->worker != meta->worker) {
        snprintf(err, n, "%s belongs to run %016llx worker %u, state.bin to run %016llx worker %u",
                 path, (unsigned long long)h->run_id, h->worker,
                 (unsigned long long)meta->run_id, meta->worker);
        return -1;
    }
    if (h->slots != ACKS_SLOTS || h->rec_size != sizeof(struct ackrec) || size != ACKS_BYTES) {
        snprintf(err, n, "%s: %u slots of %u bytes in %llu bytes, where this format has %u of %zu "
                 "in %llu: truncated or damaged", path, h->slots, h->rec_size,
                 (unsigned long long)size, ACKS_SLOTS, sizeof(struct ackrec),
                 (unsigned long long)ACKS_BYTES);
        return -1;
    }
    return 0;
}

/* Record i of the ring is one: its crc, its slot, a flag that is one. */
static bool rec_ok(const struct ackrec *r, size_t i)
{
    return r->seq != 0 && r->seq % ACKS_SLOTS == i && r->durable <= 1 && r->zero == 0 &&
           rec_crc(r) == r->crc;
}

/* Applies r to m unless m reflects it already: 1 applied, 0 skipped, -1
 * memory short. */
static int apply(struct statemap *m, const struct ackrec *r)
{
    const struct pending *p = statemap_find(m, r->block);
    gen_t g = (gen_t)r->gen;
    if (!p || gen_cmp(g, p->acked) <= 0 || gen_cmp(g, p->planned) > 0)
        return 0; /* in the journal already, durable since, or never planned */
    if (!r->durable && r->acks < statemap_acked_total(m))
        return 0; /* a completion the journal counted */
    return statemap_write_done(m, r->block, g, true, r->durable) == 0 ? 1 : -1;
}

/* The ring (ACKS_SLOTS records in recs, from path) applied to m: the
 * newest contiguous run of sequence numbers, oldest first.  0, or -1 with
 * err. */
static int apply_ring(const struct ackrec *recs, const char *path, struct statemap *m,
                      uint64_t *applied, char *err, size_t n)
{
    uint64_t newest = 0;
    for (size_t i = 0; i < ACKS_SLOTS; i++)
        if (rec_ok(&recs[i], i) && recs[i].seq > newest)
            newest = recs[i].seq;
    if (newest == 0)
        return 0; /* no completion, or none that survived */
    uint64_t first = newest;
    while (first > 1 && newest - first + 1 < ACKS_SLOTS) {
        const struct ackrec *r = &recs[(first - 1) % ACKS_SLOTS];
        if (!rec_ok(r, (first - 1) % ACKS_SLOTS) || r->seq != first - 1)
            break;
        first--;
    }
    for (uint64_t s = first; s <= newest; s++) {
        const struct ackrec *r = &recs[s % ACKS_SLOTS];
        if (r->block >= m->nblocks || r->gen == GEN_NONE) {
            snprintf(err, n, "%s is damaged at byte offset %llu: a whole record names block "
                     "%llu, generation %u, outside the target", path,
                     (unsigned long long)(sizeof(struct ackhead) +
                                          (s % ACKS_SLOTS) * sizeof(struct ackrec)),
                     (unsigned long long)r->block, r->gen);
            return -1;
        }
        int rc = apply(m, r);
        if (rc < 0) {
            snprintf(err, n, "out of memory applying %s", path);
            return -1;
        }
        *applied += (uint64_t)rc;
    }
    return 0;
}

int journal_acks_recover(const char *dir, const struct run_meta *meta, struct statemap *m,
                         uint64_t *applied, char *err, size_t n)
{
    char path[PATH_MAX + 16];
    journal_path_in(path, sizeof path, dir, "acks.bin");
    *applied = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) /* an older faultline's run, or one that never started */
            return 0;
        snprintf(err, n, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    struct ackhead h;
    memset(&h, 0, sizeof h);
    int rc = -1;
    struct ackrec *recs = NULL;
    if (fstat(fd, &st) != 0) {
        snprintf(err, n, "cannot read %s: %s", path, strerror(errno));
    } else if ((uint64_t)st.st_size >= sizeof h && journal_read_at(fd, &h, sizeof h, 0) != 0) {
        snprintf(err, n, "cannot read %s: %s", path, strerror(errno));
    } else if (head_check(&h, (uint64_t)st.st_size, path, meta, err, n) != 0) {
        /* said */
    } else if (!(recs = malloc((size_t)ACKS_SLOTS * sizeof *recs))) {
        snprintf(err, n, "out of memory reading %s", path);
    } else if (journal_read_at(fd, recs, (size_t)ACKS_SLOTS * sizeof *recs, sizeof h) != 0) {
        /* A fixed 2 MiB, read whole: the ring is read out of order. */
        snprintf(err, n, "cannot read %s: %s", path, strerror(errno));
    } else {
        rc = apply_ring(recs, path, m, applied, err, n);
    }
    free(recs);
    close(fd);
    return rc;
}
