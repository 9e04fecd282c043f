/*
 * units — the value syntax of scenario files.
 *
 *   size      64MiB, 4k, 4KiB, 4KB, 1g, 512 (bytes).  Every unit is binary,
 *             as in fio: k = K = KB = KiB = 1024.
 *   duration  10s, 500ms, 250us, 2m, 1h, 1.5s; a bare number is seconds.
 *   percent   50% or 50, from 0 to 100.
 *   bool      yes/no, true/false, on/off, 1/0.
 *   count     a whole number.
 *   rate      10mbit, 500kbit, 1gbit (bits/s); 10mbps (bytes/s), as in tc.
 *
 * Each parser returns 0, or -1 with a short reason in why (no file:line:
 * the caller adds that).
 */
#ifndef FL_UNITS_H
#define FL_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int parse_size(const char *s, uint64_t *out, char *why, size_t n);
int parse_duration(const char *s, uint64_t *ns, char *why, size_t n);
int parse_percent(const char *s, unsigned *out, char *why, size_t n);
int parse_bool(const char *s, bool *out, char *why, size_t n);
int parse_count(const char *s, uint64_t *out, char *why, size_t n);

/* A rate as tc writes it: bits per second with bit, kbit, mbit, gbit
 * (decimal), bytes per second with bps, kbps, mbps, gbps.  *out in bits/s. */
int parse_rate(const char *s, uint64_t *out, char *why, size_t n);

/* "64 MiB", "4 KiB", "512 B": the largest binary unit that divides exactly. */
void format_size(uint64_t bytes, char *out, size_t n);

/* "90s", "1504ms", "12ns": a duration as parse_duration reads it back
 * exactly (the largest of s, ms, ns that divides it). */
void format_duration(uint64_t ns, char *out, size_t n);

#endif
