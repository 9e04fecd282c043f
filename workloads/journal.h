/*
 * journal — the run's state on disk, so that verification survives a crash
 * of the harness or of the client node.
 *
 * Three files in the run directory:
 *
 *   state.bin    a checkpoint of the state map (durable generations, pending
 *                entries, the ack queue), written to state.tmp, synced and
 *                renamed; the last one of a run that ended cleanly is marked
 *                final.  Written straight from the map and read back in
 *                pieces (never a copy of the map, nor a file read whole), as
 *                are the journal's segments: memory stays at the map's 2
 *                bytes per block whatever the target's size.
 *   journal.bin  the events since that checkpoint, appended in batches:
 *                  intent  generation g of block b is about to be written
 *                  done    that write completed (durable at once with O_DSYNC)
 *                  fail    that write failed or timed out
 *                  flush   a flush covering the first N completions finished
 *                  power   the storage lost power (statemap_power_loss)
 *                Each batch carries a crc32c over its records and one over
 *                its header, and its number in the segment.  Replay stops
 *                at a torn last batch (a crash in mid-append); a bad batch
 *                with whole ones after it, a gap in the numbers or a whole
 *                batch that fails its crc is damage, refused.  The
 *                previous segment is kept as journal.old.
 *   acks.bin     a ring of the latest write completions, written once per
 *                reap and never synced (journal_acks.c): a completion
 *                record waits in the current batch until the next batch of
 *                intents is sealed, and a SIGKILL would lose thousands;
 *                the ring outlives the process in the page cache, and a
 *                load after a crash takes from it what the journal lacks.
 *                A killed run so loses at most one reap's acknowledgements
 *                (the I/O depth).  Not kept once a run ended cleanly.
 *
 * Every header (state.bin's, a segment's) has a crc of its own, and the
 * formats a version: files of an older faultline, of another run, or
 * damaged are refused with the file, what failed and the byte offset.
 *
 * Write intents must be on stable storage before the writes are issued (else
 * a crash could leave data on the media that the journal does not know, a
 * false finding).  The engine plans ahead and seals a batch of intents; a
 * committer thread writes and fdatasyncs it while the previous batch is being
 * issued, so one fdatasync covers hundreds of writes (group commit) and the
 * workload rarely waits.  Completion and flush records need no sync of their
 * own: losing them only makes verification more permissive, never wrong
 * (and acks.bin gets most of the completions back after a kill).
 *
 * Replay drives the very same state-map transitions as the engine did.
 *
 * The journal's files, one job each, are listed in journal_internal.h;
 * the batches are lib/batchlog.h's.
 */
#ifndef FL_JOURNAL_H
#define FL_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../checks/gen.h"
#include "../checks/statemap.h"

/* Identity of one worker's share of a run, stored in its state.bin and
 * journal.bin.  Worker w of W owns the target's blocks b with b % W == w;
 * its state map numbers them locally as b / W.  In a run over several
 * clients (MPI ranks) w and W count the workers of every client: worker i
 * of rank r is w = r + ranks * i, so that rank r owns b % ranks == r. */
struct run_meta {
    uint64_t run_id;
    uint64_t start_wall_ns; /* CLOCK_REALTIME at run start */
    uint64_t seed;          /* of the op sequence, for the report */
    uint64_t nblocks;       /* blocks this worker owns */
    uint64_t total_blocks;  /* blocks of the target */
    uint32_t block_size;
    uint32_t target_id;
    uint32_t worker;        /* also the writer id in every stamp it writes */
    uint32_t workers;
    char name[128];         /* scenario name, for reports of a later verify */
    char lab_prefix[16];    /* the embedded lab the run used ("" for none) */
    uint32_t rank, ranks;   /* the client (MPI rank) it belongs to, of how many (1: alone) */
};

struct journal;

/* Creates journal.bin and an initial state.bin in dir and starts the
 * committer thread.  NULL with err filled on failure. */
struct journal *journal_create(const char *dir, const struct run_meta *meta, char *err,
                               size_t errlen);

/* Event records, appended to the current (unsealed) batch. */
void journal_intent(struct journal *j, uint64_t block, gen_t gen, uint64_t t_ns);
void journal_done(struct journal *j, uint64_t block, gen_t gen, bool durable_now, uint64_t t_ns);
void journal_fail(struct journal *j, uint64_t block, gen_t gen, uint64_t t_ns);
void journal_flush(struct journal *j, uint64_t cover, uint64_t t_ns);
void journal_power_loss(struct journal *j, uint8_t tag, bool end, uint64_t t_ns);

/* A write's completion into acks.bin (journal_done puts it in the journal;
 * the engine calls both): staged here, written by journal_ack_write.
 * acks_before: statemap_acked_total() before the completion was applied,
 * which tells a recovery what the journal already counted. */
void journal_ack(struct journal *j, uint64_t block, gen_t gen, bool durable_now,
                 uint64_t acks_before);

/* Writes what journal_ack staged: one pwrite, once per reap.  A failure
 * fails the journal (journal_status). */
void journal_ack_write(struct journal *j);

/* Hands the current batch to the committer; returns its ticket. */
uint64_t journal_seal(struct journal *j);

/* True once the batch with this ticket (and every earlier one) is synced. */
bool journal_committed(struct journal *j, uint64_t ticket);

/* Waits until ticket is committed.  0, or -1 with err filled. */
int journal_wait(struct journal *j, uint64_t ticket, char *err, size_t errlen);

/* 0 while healthy, -1 with err filled once a write or sync failed. */
int journal_status(struct journal *j, char *err, size_t errlen);

/* Bytes sealed into the current segment. */
uint64_t journal_segment_bytes(const struct journal *j);

/* Snapshots m into a new state.bin and starts a new segment.  Records added
 * afterwards go to the new segment.  The checkpoint is written here, straight
 * from m (no copy of the map: memory stays at 2 bytes per block), into the
 * page cache; the committer thread syncs and installs it.  A failed write
 * fails the journal (journal_status).  0, or -1 when memory is short. */
int journal_checkpoint(struct journal *j, const struct statemap *m);

/* Writes a last checkpoint of m (marked final when the run ended cleanly),
 * waits for everything, stops the thread and frees j.  m NULL: no
 * checkpoint.  0, or -1 with err filled. */
int journal_close(struct journal *j, const struct statemap *m, bool final, char *err,
                  size_t errlen);

/* Writes state.bin for m directly (runs without a journal).  final marks a
 * run that ended cleanly.  0, or -1 with err filled. */
int state_save(const char *dir, const struct run_meta *meta, const struct statemap *m, bool final,
               char *err, size_t errlen);

struct load_info {
    bool final;           /* the run ended cleanly and wrote its last checkpoint */
    bool journaled;       /* the run kept a journal */
    bool had_journal;     /* journal.bin was present */
    uint64_t replayed;    /* records replayed on top of the checkpoint */
    bool torn_tail;       /* replay stopped at a torn last batch */
    uint64_t acks_recovered; /* completions applied from acks.bin, missing from the journal */
};

/* Rebuilds the state of the run in dir: state.bin plus journal replay, and
 * checks journal.old; for a run that did not end cleanly, then the
 * completions acks.bin has and the journal lacks.  Initialises m.  0, or
 * -1 with err filled (naming the damaged file and the byte offset). */
int state_load(const char *dir, struct run_meta *meta, struct statemap *m, struct load_info *info,
               char *err, size_t errlen);

/* Reads only the run identity from dir/state.bin.  0, or -1 with err filled. */
int state_read_meta(const char *dir, struct run_meta *meta, char *err, size_t errlen);

/* For each (block[i], gen[i]) finds when that write completed, in ns since
 * run start, from journal.old and journal.bin; UINT64_MAX where the journal
 * no longer has it.  Returns 0, or -1 when no journal can be read. */
int journal_lookup_done(const char *dir, size_t n, const uint64_t *block, const gen_t *gen,
                        uint64_t *t_ns);

/* What a read of one of this worker's blocks by another client could see,
 * from the journal (cross_reads): one query per read, its block (local
 * number) and the span it may have taken, widened by the clocks'
 * uncertainty (ns since run start, in this worker's clock). */
struct history_query {
    uint64_t block;
    uint64_t t_lo; /* the read began after this */
    uint64_t t_hi; /* and had ended by this */
};
struct history_answer {
    gen_t acked;     /* newest generation whose write completed by t_lo */
    gen_t durable;   /* newest generation a completed flush covered by t_lo (the
                        owner's fsync, and for a file tree its close) */
    gen_t planned;   /* newest generation planned (its intent journaled) by t_hi */
    bool uncertain;  /* a write of the block failed or timed out by t_hi: an older
                        generation may be back */
    bool known;      /* the journal reaches back to the run's start, or shows the block
                        planned by t_hi: `planned` bounds what the media can hold */
};

/* Answers n queries from dir's journal.old and journal.bin (replayed from
 * the run's empty start when the first segment is still there, else from
 * what the retained segments show).  0, or -1 with err. */
int journal_history(const char *dir, size_t n, const struct history_query *q,
                    struct history_answer *a, char *err, size_t errlen);

#endif
