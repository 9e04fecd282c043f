/*
 * batchlog — checksummed batches of fixed-size records, and a small
 * append-only log made of them.
 *
 * The batch is the unit of every append-only file faultline keeps: a
 * header (magic, record count, its number in the file, a crc32c over the
 * records, a crc32c over the header itself), then the records.  A crash in
 * mid-append cuts at most the last batch; a reader tells that torn tail
 * apart from damage by the checksums and the numbers.  The run journal
 * (workloads/journal.h) writes its segments in these batches.
 *
 * jlog — a small append-only log in these batches, for state that is not
 * a state map (the metadata streams' operations).  A header (magic, the
 * log's kind, record size, run id), then batches of fixed-size records,
 * each batch with its count, sequence number and crc32c, as in the run
 * journal.  The writer buffers records and commits them as one batch,
 * with an fdatasync when the caller needs them on stable storage before it
 * goes on (an intent).  The reader stops at the first torn batch: what a
 * crash cut short.  One thread per log.
 */
#ifndef FL_BATCHLOG_H
#define FL_BATCHLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BATCH_MAGIC 0x424a4c46u /* "FLJB" */
struct jbatch {
    uint32_t magic;
    uint32_t nrec;
    uint64_t seq;  /* 1, 2, ... within a segment: a gap is a batch lost in the middle */
    uint32_t crc;  /* over the records */
    uint32_t hcrc; /* over the fields before it (jbatch_seal) */
};

/* Puts the crc of b's header fields (those before hcrc) into b->hcrc. */
void jbatch_seal(struct jbatch *b);

/* Whether b is a batch header, undamaged (its magic and its own crc). */
bool jbatch_head_ok(const struct jbatch *b);

struct jlog;

/* Creates (truncates) the log at path, synced with its directory.  NULL
 * with err filled. */
struct jlog *jlog_open(const char *path, uint32_t kind, uint32_t rec_size, uint64_t run_id,
                       char *err, size_t errlen);

/* Adds one record (rec_size bytes) to the batch being built.  0, or -1 when
 * memory is short. */
int jlog_add(struct jlog *l, const void *rec);

/* Writes the batch being built (nothing when empty), then fdatasyncs when
 * sync.  0, or -1 with err filled (the log is unusable from then on). */
int jlog_commit(struct jlog *l, bool sync, char *err, size_t errlen);

/* Records committed so far. */
uint64_t jlog_records(const struct jlog *l);

/* Closes l (what was not committed is dropped). */
void jlog_close(struct jlog *l);

struct jlog_info {
    uint64_t run_id;   /* from the header */
    uint64_t records;  /* handed to fn */
    uint64_t batches;
    bool torn;         /* the log ends in a damaged or cut batch */
};

/* Hands every record of the intact batches of the log at path to fn, in
 * order (fn returns 0 to go on).  -1 with err filled when the file cannot
 * be read or is not a log of this kind and record size; a torn tail is no
 * error (info->torn). */
int jlog_read(const char *path, uint32_t kind, uint32_t rec_size,
              int (*fn)(void *ctx, const void *rec), void *ctx, struct jlog_info *info,
              char *err, size_t errlen);

#endif
