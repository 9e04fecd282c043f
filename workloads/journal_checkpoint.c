/*
 * journal_checkpoint — state.bin, the checkpoint of a state map: written
 * straight from the map into state.tmp, synced and renamed into place;
 * read back in pieces and checked before any of it is used.
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
    if (o->n && write_full(o->fd, o->buf, o->n) != 0)
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
    if (darr && write_full(o->fd, m->durable, darr) != 0)
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
 * journal_state_install).  0, or -1 with err. */
int journal_state_write_tmp(const char *dir, const struct run_meta *meta, const struct statemap *m,
                            uint64_t segment, bool final, bool journaled, char *err, size_t n)
{
    char tmp[PATH_MAX + 16];
    journal_path_in(tmp, sizeof tmp, dir, "state.tmp");
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
        journal_shead_seal(&h); /* sealed only now: its crc covers the body's crc */
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
int journal_state_install(const char *dir, char *err, size_t n)
{
    char tmp[PATH_MAX + 16], fin[PATH_MAX + 16];
    journal_path_in(tmp, sizeof tmp, dir, "state.tmp");
    journal_path_in(fin, sizeof fin, dir, "state.bin");
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
    if (journal_state_write_tmp(dir, meta, m, 0, final, false, err, errlen) != 0)
        return -1;
    return journal_state_install(dir, err, errlen);
}

/* --- reading state.bin back ---
 *
 * Streamed: the durable array is read straight into the map, the rest
 * (pending entries, queued completions) in pieces, twice: once for the
 * crc, once to restore it, so that nothing of a damaged file is used and
 * no buffer as large as the file is ever needed. */

/* What the checkpoint's header promises, against the file's size (len):
 * *darr, the bytes of its durable array, and *with_darr, whether the file
 * holds one.  0, or -1 with err. */
static int checkpoint_size(const struct shead *h, uint64_t len, const char *path, bool *with_darr,
                           uint64_t *darr, char *err, size_t errlen)
{
    uint64_t body = len - sizeof *h;
    /* The initial checkpoint of a run stores no durable array (all zero).
     * The counts (sealed with the header) must fit the file's size before
     * they are multiplied, and before anything is allocated for them. */
    uint64_t nb = h->meta.nblocks;
    bool sane = nb <= UINT64_MAX / 4 && h->npending <= len && h->nacked <= len;
    *darr = sane ? nb * sizeof(gen_t) : 0;
    uint64_t rest = sane ? h->npending * sizeof(struct spend) + h->nacked * sizeof(struct sack)
                         : 0;
    *with_darr = sane && body == *darr + rest;
    if (!*with_darr && !(sane && body == rest)) {
        if (sane && body < *darr + rest)
            snprintf(err, errlen, "%s is truncated: %llu bytes, the checkpoint its header "
                     "describes takes %llu", path, (unsigned long long)len,
                     (unsigned long long)(sizeof *h + *darr + rest));
        else
            snprintf(err, errlen, "%s has an unexpected size (%llu bytes) for the checkpoint its "
                     "header describes", path, (unsigned long long)len);
        return -1;
    }
    return 0;
}

/* Pass 1: the crc over the body (len bytes of file in all), checked
 * against the header's; the durable array (darr bytes, when with_darr)
 * lands in m on the way.  *off: where the entries after it start.  0, or
 * -1 with err. */
static int checkpoint_crc(int fd, const struct shead *h, uint64_t len, bool with_darr,
                          uint64_t darr, struct statemap *m, unsigned char *buf, uint64_t *off,
                          const char *path, char *err, size_t errlen)
{
    uint32_t crc = 0;
    *off = sizeof *h;
    if (with_darr) {
        for (uint64_t done = 0; done < darr;) {
            size_t k = darr - done < READ_CHUNK ? (size_t)(darr - done) : READ_CHUNK;
            unsigned char *into = (unsigned char *)m->durable + done;
            if (journal_read_at(fd, into, k, *off + done) != 0) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                return -1;
            }
            crc = crc32c_extend(crc, into, k);
            done += k;
        }
        *off += darr;
    }
    for (uint64_t at = *off; at < len;) {
        size_t k = len - at < READ_CHUNK ? (size_t)(len - at) : READ_CHUNK;
        if (journal_read_at(fd, buf, k, at) != 0) {
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
            return -1;
        }
        crc = crc32c_extend(crc, buf, k);
        at += k;
    }
    if (crc != h->crc) {
        snprintf(err, errlen, "%s: the checkpoint is damaged (checksum mismatch over byte offsets "
                 "%zu..%llu)", path, sizeof *h, (unsigned long long)(len - 1));
        return -1;
    }
    return 0;
}

/* Pass 2: the pending entries and the queued completions, from byte off
 * of the file (len bytes) into m, in pieces of buf (READ_CHUNK bytes).
 * 0, or -1 with err naming the entry's byte offset. */
static int checkpoint_restore(int fd, const struct shead *h, const struct run_meta *meta,
                              uint64_t len, uint64_t off, struct statemap *m, unsigned char *buf,
                              const char *path, char *err, size_t errlen)
{
    /* buf holds the file's bytes [off - have, off). */
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
            if (k == 0 || journal_read_at(fd, buf + have, k, off) != 0) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                return -1;
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
                return -1;
            }
        } else {
            struct sack s;
            memcpy(&s, p, sizeof s);
            if (s.block >= meta->nblocks || statemap_restore_acked(m, s.block, s.gen) != 0) {
                snprintf(err, errlen, "%s: bad queued completion at byte offset %llu", path, at);
                return -1;
            }
        }
    }
    return 0;
}

int journal_load_checkpoint(const char *dir, struct shead *h, struct run_meta *meta,
                            struct statemap *m, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    journal_path_in(path, sizeof path, dir, "state.bin");
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
    if (journal_read_at(fd, h, sizeof *h, 0) != 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto fail;
    }
    bool with_darr;
    uint64_t darr, off;
    if (journal_shead_check(h, path, err, errlen) != 0 ||
        checkpoint_size(h, len, path, &with_darr, &darr, err, errlen) != 0)
        goto fail;
    if (statemap_init(m, h->meta.nblocks) != 0) {
        snprintf(err, errlen, "out of memory for %llu blocks",
                 (unsigned long long)h->meta.nblocks);
        goto fail;
    }
    have_map = true;
    if (!(buf = malloc(READ_CHUNK))) {
        snprintf(err, errlen, "out of memory reading %s", path);
        goto fail;
    }
    if (checkpoint_crc(fd, h, len, with_darr, darr, m, buf, &off, path, err, errlen) != 0)
        goto fail;
    *meta = h->meta;
    if (checkpoint_restore(fd, h, meta, len, off, m, buf, path, err, errlen) != 0)
        goto fail;
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

int state_read_meta(const char *dir, struct run_meta *meta, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    journal_path_in(path, sizeof path, dir, "state.bin");
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
    if (journal_shead_check(&h, path, err, errlen) != 0)
        return -1;
    *meta = h.meta;
    return 0;
}
