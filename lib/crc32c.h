/*
 * crc32c — CRC-32C (Castagnoli), the checksum every sector stamp carries.
 *
 * The implementation is picked once at run time: the SSE4.2 `crc32`
 * instruction when the CPU has it, a slicing-by-8 table otherwise.  Both give
 * bit-identical results (tests compare them on random data).
 *
 * Sector checksums of one block are independent of each other, so
 * crc32c_lanes() computes several of them interleaved: the crc32 instruction
 * has a latency of 3 cycles but a throughput of 1 per cycle, so eight
 * independent streams run about three times faster than eight calls in a row.
 */
#ifndef FL_CRC32C_H
#define FL_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Standard CRC-32C of buf (initial value ~0, final xor ~0).
 * crc32c("123456789", 9) == 0xE3069283. */
uint32_t crc32c(const void *buf, size_t len);

/* The CRC-32C of data whose first part had checksum crc, followed by buf:
 * crc32c_extend(crc32c(a, n), b, m) == crc32c(a || b).  crc32c of nothing
 * is 0, so a checksum over a stream starts from 0 (a file written or read
 * in pieces, without holding all of it). */
uint32_t crc32c_extend(uint32_t crc, const void *buf, size_t len);

/* CRC-32C of n equally long regions: region i starts at base + i*stride and
 * is len bytes long; out[i] receives its checksum.  n may be any count. */
void crc32c_lanes(const void *base, size_t stride, size_t len, size_t n, uint32_t *out);

/* "sse4.2" or "table": which implementation is in use. */
const char *crc32c_impl(void);

/* Force the table implementation (force != 0) or return to automatic choice.
 * For tests and benchmarks only. */
void crc32c_force_table(int force);

#endif
