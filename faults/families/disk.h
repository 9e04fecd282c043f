/*
 * disk — what the disk faults share (disk.c: the keys, the lab's disk
 * layer; disk_host.c: a machine's own disk, through sysfs or
 * device-mapper).  The pure parts (the ranges a fault fails, the
 * device-mapper tables, the words of the report) are here for the unit
 * tests too.
 */
#ifndef FL_DISK_H
#define FL_DISK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/diskctl.h"
#include "../env.h"
#include "../fault.h"

#define DISK_BLOCK 4096u               /* blocks = N draws blocks of this size */
#define DISK_MAX_RANGES DISKCTL_RANGES_MAX
#define DISK_TABLE_MAX 8192            /* a device-mapper table of every range */
#define DISK_NAME_MAX 64               /* device = sdX, dm = NAME */

enum disk_action { DISK_ACT_FAIL, DISK_ACT_ERRORS, DISK_ACT_SLOW, DISK_ACT_FULL };

/* The keys of all four (each takes its own). */
struct disk_params {
    bool replace;          /* fail: the disk comes back empty */
    int on;                /* errors: 0 read, 1 write, 2 both (the key's choices) */
    uint64_t offset;
    bool offset_given;
    uint64_t length;
    uint64_t blocks;
    unsigned percent;      /* errors: of the I/Os that touch the ranges */
    uint64_t latency_ns, jitter_ns;
    char device[DISK_NAME_MAX]; /* fail on a [host]: a SCSI disk */
    char dm[DISK_NAME_MAX];     /* errors, slow on a [host]: a device-mapper device */
};

/* The byte ranges an errors fault fails. */
struct disk_ranges {
    uint64_t r[DISK_MAX_RANGES][2]; /* offset, length */
    unsigned n;                     /* 0: every I/O */
};

/* f->state */
struct disk_fault {
    enum disk_action action;
    bool on_lab;              /* the lab's layer (else device or dm) */
    struct lab_disk lab;
    struct disk_cmd cmd;      /* lab: the `set` command */
    struct disk_ranges ranges;
    uint64_t seed;
    bool cache_dropped;       /* lab, errors on reads: the page cache dropped at inject */
    char reread[96];          /* and the server's own cache, by this command ("" none) */
    bool cleared;             /* the counts below are the fault's */
    struct disk_counts done;  /* lab: what the layer did while the fault was in */
    /* a [host]'s own disk */
    char state_path[PATH_MAX]; /* SCSI: .../device/state */
    uint64_t ioerr_before, ioerr_after;
    bool ioerr_known;
    char table_file[PATH_MAX]; /* dm: the faulty table, for dmsetup load */
    char table[DISK_TABLE_MAX]; /* dm: what prepare wrote there, checked before the load */
    char original[512];        /* dm: the table it had ("0 LEN linear DEV OFF") */
    char target[32];           /* dm: what the faulty table is ("flakey error_reads") */
};

/* The action of a fault. */
enum disk_action disk_action_of(const struct fault_spec *s);

/* (disk_host.c) The ranges of an errors fault on a disk of `size` bytes: offset +
 * length, or `blocks` distinct random 4 KiB blocks drawn from seed (in
 * order of offset), or none (every I/O).  0, or -1 with why. */
int disk_pick_ranges(const struct disk_params *p, uint64_t size, uint64_t seed,
                     struct disk_ranges *out, char *why, size_t n);

/* The report's sentence for what the lab's layer did (d: the counts of the
 * fault's time): "gs1's brick disk (...): 412 of 9000 reads failed with EIO". */
void disk_detail(enum disk_action a, const struct disk_params *p, const struct disk_fault *s,
                 const struct disk_counts *d, char *out, size_t n);

/* --- a machine's own disk (disk_host.c) --- */

/* A device-mapper device's one linear target. */
struct dm_linear {
    uint64_t sectors;
    char dev[64];      /* major:minor or a path */
    uint64_t offset;   /* sectors into dev */
};

/* `dmsetup table NAME`'s output: one linear target from sector 0.  0, or
 * -1 with why (what it is instead). */
int dm_parse_linear(const char *table, struct dm_linear *l, char *why, size_t n);

/* "0 LEN linear DEV OFF" */
void dm_linear_line(const struct dm_linear *l, char *out, size_t n);

/* disk-slow over l: a delay target (whole milliseconds, no jitter).  0, or
 * -1 with why. */
int dm_delay_table(const struct dm_linear *l, uint64_t latency_ns, uint64_t jitter_ns,
                   char *out, size_t n, char *why, size_t wn);

/* disk-errors over l: the ranges (bytes, sorted, within the device; none:
 * all of it) fail, the rest maps as before.  on: enum disk_on.  Reads and
 * writes both: `error` segments; one of them: `flakey` segments, up 0 s,
 * down 1 s (always down), with error_reads (Linux 6.5 and later) or
 * error_writes (4.10).  0, or -1 with why. */
int dm_errors_table(const struct dm_linear *l, unsigned on, const struct disk_ranges *r,
                    char *out, size_t n, char *why, size_t wn);

/* Where sysfs is: FL_SYSFS_ROOT (for tests: a fake tree), or /sys. */
const char *disk_sysfs_root(void);

/* prepare, inject, clear and describe on a [host]'s own disk (device or dm). */
int disk_host_prepare(struct fault *f, enum disk_action a, char *err, size_t errlen);
int disk_host_inject(struct fault *f, char *err, size_t errlen);
int disk_host_clear(struct fault *f, char *err, size_t errlen);
void disk_host_describe(const struct fault *f, char *out, size_t n);

#endif
