/*
 * diskctl — the command language of faultline-disk, the FUSE layer that
 * sits under a lab server's disk (harness/lab/disk/disk.c) and fails it on
 * command: the disk faults (faults/families/disk.c) speak it, the layer
 * answers it.  One line asked over the layer's control socket (a Unix
 * stream socket), one line answered:
 *
 *   set fail                                   every I/O fails with EIO (a
 *                                              disk gone from the bus)
 *   set errors on=read|write|both [percent=P] [seed=S] [ranges=O+L,O+L,...]
 *                                              I/Os of that kind that touch
 *                                              a range (no ranges: any I/O)
 *                                              fail with EIO, each with
 *                                              probability P% (default 100),
 *                                              drawn from seed S
 *   set slow latency_us=N [jitter_us=J]        every I/O waits N us more,
 *                                              plus a uniform 0..J us
 *   set full                                   a write that needs new space
 *                                              (touches a hole of the
 *                                              backing file) fails with ENOSPC
 *   clear                                      the disk works again
 *   clear replace                              the same, and the disk comes
 *                                              back empty (the backing file's
 *                                              bytes punched out: reads give
 *                                              zeros), as a replaced disk does
 *   status                                     the mode and the counts
 *
 * Every answer is "ok MODE COUNTS" (MODE: ok|fail|errors|slow|full, COUNTS
 * as diskctl_counts_format writes them), or "error WHY".  The counts are
 * the layer's since it started; what a fault did is the difference of two
 * answers.  A command is one line of at most DISKCTL_LINE_MAX bytes.
 */
#ifndef FL_DISKCTL_H
#define FL_DISKCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DISKCTL_LINE_MAX 4096
#define DISKCTL_RANGES_MAX 64

enum disk_mode { DISK_OK, DISK_FAIL, DISK_ERRORS, DISK_SLOW, DISK_FULL };

/* Which I/Os an errors mode fails (a bit set). */
enum disk_on { DISK_ON_READ = 1, DISK_ON_WRITE = 2, DISK_ON_BOTH = 3 };

/* One `set` command, or `clear` (mode DISK_OK). */
struct disk_cmd {
    enum disk_mode mode;
    bool replace;            /* clear: the disk comes back empty */
    unsigned on;             /* errors: enum disk_on */
    unsigned percent;        /* errors: 1..100 (0 is taken as 100) */
    uint64_t seed;           /* errors: the draws' seed */
    uint64_t ranges[DISKCTL_RANGES_MAX][2]; /* errors: byte offset, length */
    unsigned nranges;        /* errors: 0 = every I/O of its kind */
    uint64_t latency_us, jitter_us; /* slow */
};

/* What the layer did since it started. */
struct disk_counts {
    uint64_t reads, writes, syncs;               /* I/Os asked of it */
    uint64_t failed_reads, failed_writes, failed_syncs; /* answered EIO */
    uint64_t nospace;                            /* writes answered ENOSPC */
    uint64_t slowed;                             /* I/Os held back */
};

/* The mode's word ("ok", "fail", "errors", "slow", "full"). */
const char *disk_mode_name(enum disk_mode m);

/* cmd as one line (no newline): "set errors on=read percent=5 ...",
 * "clear replace", ...  0, or -1 when it does not fit in n. */
int diskctl_format(const struct disk_cmd *cmd, char *out, size_t n);

/* A `set` or `clear` line into *cmd.  0, or -1 with why (what was wrong). */
int diskctl_parse(const char *line, struct disk_cmd *cmd, char *why, size_t n);

/* "reads=N writes=N syncs=N failed_reads=N failed_writes=N failed_syncs=N
 * nospace=N slowed=N", and back (missing keys read as 0; -1 for a word
 * that is none of them). */
int diskctl_counts_format(const struct disk_counts *c, char *out, size_t n);
int diskctl_counts_parse(const char *text, struct disk_counts *c);

/* b - a, key by key (what happened between two answers). */
struct disk_counts disk_counts_since(const struct disk_counts *a, const struct disk_counts *b);

/* Asks the layer at control socket `sock` one line and reads its answer
 * (without "ok "): *mode and *counts from it.  Waits at most timeout_ms in
 * all.  0; -1 with why (the socket could not be reached, or the layer
 * answered "error ...": its words). */
int diskctl_ask(const char *sock, const char *line, enum disk_mode *mode,
                struct disk_counts *counts, int timeout_ms, char *why, size_t n);

#endif
