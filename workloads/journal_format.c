/*
 * journal_format — the headers of state.bin and of a journal segment:
 * sealed with their checksum just before they are written, checked right
 * after they are read, and what a damaged file says.  The layouts are in
 * journal_internal.h, the batch header in lib/batchlog.h.
 *
 * Kept apart from the writers and readers.  Everything here tells damage
 * to the run directory apart from damage to the target, so that verify
 * refuses (naming the file and the byte offset) instead of reporting a
 * false finding.
 */
#include "journal_internal.h"

#include <stdio.h>
#include <string.h>

#include "../lib/crc32c.h"

void journal_path_in(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

void journal_shead_seal(struct shead *h)
{
    h->hcrc = crc32c(h, offsetof(struct shead, hcrc));
}

/* That state.bin's header (at path) is one, of this format, undamaged.  0,
 * or -1 with err. */
int journal_shead_check(const struct shead *h, const char *path, char *err, size_t n)
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

void journal_jhead_seal(struct jhead *h)
{
    h->crc = 0;
    h->crc = crc32c(h, sizeof *h);
}

/* Reads and checks the header of the journal segment in buf (len bytes, from
 * path) into *h: one of this format, undamaged, of run run_id.  0, or -1
 * with err. */
int journal_jhead_check(const unsigned char *buf, size_t len, const char *path, uint64_t run_id,
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

/* The error a scan's end is, for the segment at path; final: nothing may
 * follow the last whole batch (a complete segment, or a run that ended
 * cleanly).  0 when acceptable, else -1 with err. */
int journal_seg_scan_error(const struct seg_result *s, const char *path, bool final,
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
