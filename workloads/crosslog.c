/* crosslog — see crosslog.h. */
#include "crosslog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/crc32c.h"

#define CROSS_MAGIC "FLCROSS1"

struct cross_head {
    char magic[8];
    uint64_t run_id;
    uint64_t count;
    uint64_t unrecorded;
    uint32_t crc; /* over the records */
    uint32_t zero;
};

void cross_log_init(struct cross_log *l)
{
    memset(l, 0, sizeof *l);
}

void cross_log_free(struct cross_log *l)
{
    free(l->r);
    memset(l, 0, sizeof *l);
}

void cross_log_add(struct cross_log *l, const struct cross_read *r)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4096;
        if (cap > CROSSLOG_MAX)
            cap = CROSSLOG_MAX;
        struct cross_read *p = cap > l->cap ? realloc(l->r, cap * sizeof *p) : NULL;
        if (!p) {
            l->unrecorded++;
            return;
        }
        l->r = p;
        l->cap = cap;
    }
    l->r[l->n++] = *r;
}

static void path_of(const char *dir, char *out, size_t n)
{
    snprintf(out, n, "%s/cross.bin", dir);
}

int cross_log_save(const struct cross_log *l, const char *dir, uint64_t run_id, char *err,
                   size_t errlen)
{
    char path[PATH_MAX + 16];
    path_of(dir, path, sizeof path);
    struct cross_head h = {.run_id = run_id, .count = l->n, .unrecorded = l->unrecorded,
                           .crc = crc32c(l->r, l->n * sizeof *l->r)};
    memcpy(h.magic, CROSS_MAGIC, sizeof h.magic);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    bool ok = fwrite(&h, sizeof h, 1, f) == 1 &&
              (l->n == 0 || fwrite(l->r, sizeof *l->r, l->n, f) == l->n) && fflush(f) == 0 &&
              fsync(fileno(f)) == 0;
    int eno = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        eno = errno;
    }
    if (!ok) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(eno));
        return -1;
    }
    return 0;
}

int cross_log_load(struct cross_log *l, const char *dir, uint64_t run_id, char *err,
                   size_t errlen)
{
    cross_log_init(l);
    char path[PATH_MAX + 16];
    path_of(dir, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    struct cross_head h;
    int rc = -1;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, CROSS_MAGIC, sizeof h.magic) != 0) {
        snprintf(err, errlen, "%s is not a cross-read log", path);
    } else if (h.run_id != run_id) {
        snprintf(err, errlen, "%s belongs to another run", path);
    } else if (h.count > CROSSLOG_MAX) {
        snprintf(err, errlen, "%s is damaged (%llu records)", path, (unsigned long long)h.count);
    } else if (!(l->r = malloc((h.count ? h.count : 1) * sizeof *l->r))) {
        snprintf(err, errlen, "out of memory for %s", path);
    } else if (h.count && fread(l->r, sizeof *l->r, h.count, f) != h.count) {
        snprintf(err, errlen, "%s is truncated", path);
    } else if (crc32c(l->r, h.count * sizeof *l->r) != h.crc) {
        snprintf(err, errlen, "%s is damaged (checksum mismatch)", path);
    } else {
        l->n = l->cap = h.count;
        l->unrecorded = h.unrecorded;
        rc = 0;
    }
    fclose(f);
    if (rc != 0)
        cross_log_free(l);
    return rc;
}
