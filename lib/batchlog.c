/* batchlog — see batchlog.h. */
#include "batchlog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"
#include "fsutil.h"

void jbatch_seal(struct jbatch *b)
{
    b->hcrc = crc32c(b, offsetof(struct jbatch, hcrc));
}

bool jbatch_head_ok(const struct jbatch *b)
{
    return b->magic == BATCH_MAGIC && b->hcrc == crc32c(b, offsetof(struct jbatch, hcrc));
}

/* --- jlog --- */

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
    if (l->fd < 0 || write_full(l->fd, &h, sizeof h) != 0 || fdatasync(l->fd) != 0 ||
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
        int rc = write_full(l->fd, all, sizeof b + body);
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
