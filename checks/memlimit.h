/*
 * memlimit — does the state map of a run fit in the memory it may use?
 *
 * The state map keeps 2 bytes per block at rest and at its peak (see
 * statemap.h; checkpoints and their loading never copy it).  A run whose
 * map would not fit is refused before it starts, with the numbers, rather
 * than killed by the OOM killer hours later, or swapping the client until
 * its latencies mean nothing.
 *
 * The limit is [scenario] memory_limit; by default half of MemAvailable
 * (/proc/meminfo) at the start, leaving the rest to the page cache, the
 * storage client (a FUSE daemon, an initiator) and the faults.
 *
 * Arithmetic only; the caller reads /proc/meminfo.
 */
#ifndef FL_MEMLIMIT_H
#define FL_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>

/* The share of MemAvailable a run may use when memory_limit is not set. */
#define MEMLIMIT_DEFAULT_PCT 50

/* Bytes the state map of nblocks needs (at rest, and at its peak). */
uint64_t memlimit_map_bytes(uint64_t nblocks);

/* The limit when memory_limit is not set: MEMLIMIT_DEFAULT_PCT of avail. */
uint64_t memlimit_default(uint64_t mem_available);

/* MemAvailable in bytes from the text of /proc/meminfo ("MemAvailable:
 * 23456789 kB").  0, or -1 when the line is missing or malformed. */
int memlimit_parse_meminfo(const char *text, uint64_t *bytes);

/* 0 when the map of nblocks fits in `limit` bytes (limit 0: memory_limit
 * not set, the default from mem_available; mem_available 0: unknown, and
 * then anything fits).  -1 with the refusal in msg otherwise:
 * "the state map of N blocks needs 50.0 GiB at 2 bytes per block; this run
 * may use 11.4 GiB (memory_limit, default: 50% of MemAvailable 22.8 GiB;
 * set it in [scenario])". */
int memlimit_check(uint64_t nblocks, uint64_t limit, uint64_t mem_available, char *msg, size_t n);

/* "50.0 GiB", "512.0 MiB", "3.0 KiB", "100 B": one decimal, the largest
 * binary unit below the value. */
void memlimit_format(uint64_t bytes, char *out, size_t n);

#endif
