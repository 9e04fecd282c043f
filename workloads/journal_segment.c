/*
 * journal_segment — a journal segment read back, one batch at a time, in
 * pieces of READ_CHUNK (never the file whole): every whole batch's records
 * handed on, and how the file ends (whole, a torn tail, damage).
 */
#include "journal_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/crc32c.h"

/* Reads exactly len bytes at off.  0, or -1 (errno; EIO for a short file). */
int journal_read_at(int fd, void *buf, size_t len, uint64_t off)
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

/* Opens the segment at path.  0, or -1 with *eno (ENOENT: there is none). */
int journal_seg_open(struct seg *s, const char *path, int *eno)
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
    if (journal_read_at(s->fd, s->raw, s->rawlen, 0) != 0) {
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

void journal_seg_close(struct seg *s)
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
static int seg_batch(struct seg *s, uint64_t off, size_t n, uint32_t crc, void *ctx, rec_fn fn,
                     struct seg_result *res)
{
    const size_t piece = READ_CHUNK - READ_CHUNK % sizeof(struct jrec);
    bool held = n <= piece; /* one piece: read once, checked and replayed from the buffer */
    uint32_t c = 0;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < piece ? n - done : piece;
        if (journal_read_at(s->fd, s->buf, k, off + done) != 0)
            return -2;
        c = crc32c_extend(c, s->buf, k);
        done += k;
    }
    if (c != crc)
        return 1;
    for (size_t done = 0; done < n;) {
        size_t k = n - done < piece ? n - done : piece;
        if (!held && journal_read_at(s->fd, s->buf, k, off + done) != 0)
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
        if (journal_read_at(s->fd, s->buf, k, p) != 0)
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
int journal_seg_scan(struct seg *s, void *ctx, rec_fn fn, struct seg_result *r)
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
        if (journal_read_at(s->fd, &b, sizeof b, off) != 0)
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
