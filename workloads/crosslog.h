/*
 * crosslog — one worker's cross reads (reads of blocks other clients own,
 * checks/cross.h), kept in memory while the workload runs and saved as
 * DIR/.../worker-N/cross.bin for the judgement at the end and for a later
 * `faultline verify`.
 *
 * cross.bin: a header (magic "FLCROSS1", run id, reader, count, crc32c of
 * the records) and the records.  At most CROSSLOG_MAX records are kept per
 * worker; reads past that are only counted (`unrecorded`).
 */
#ifndef FL_CROSSLOG_H
#define FL_CROSSLOG_H

#include <stddef.h>
#include <stdint.h>

#include "../checks/cross.h"

#define CROSSLOG_MAX (1u << 20)

struct cross_log {
    struct cross_read *r;
    size_t n, cap;
    uint64_t unrecorded; /* past CROSSLOG_MAX, or when memory was short */
};

void cross_log_init(struct cross_log *l);
void cross_log_free(struct cross_log *l);
void cross_log_add(struct cross_log *l, const struct cross_read *r);

/* Writes dir/cross.bin (synced).  0, or -1 with err. */
int cross_log_save(const struct cross_log *l, const char *dir, uint64_t run_id, char *err,
                   size_t errlen);

/* Reads dir/cross.bin into l (initialised here); no file is an empty log.
 * 0, or -1 with err (damaged, or of another run). */
int cross_log_load(struct cross_log *l, const char *dir, uint64_t run_id, char *err,
                   size_t errlen);

#endif
