/*
 * block — the self-describing block format.
 *
 * A block (512 B .. 1 MiB, a multiple of 512) is written as 512-byte
 * sectors.  Every sector starts with a 48-byte stamp and is followed by
 * pseudo-random payload, so a reader can tell every sector apart and the data
 * can be neither compressed nor deduplicated by the storage:
 *
 *   off size field
 *     0   4  magic        "FLT1" (0x31544c46 little-endian)
 *     4   4  crc32c       over bytes 8..511 of this sector
 *     8   8  run_id       random per run
 *    16   8  block        block number (byte offset / block size)
 *    24   4  gen          generation of this block (1..65535, see gen.h)
 *    28   4  target_id    which target of the run (1 = the first)
 *    32   4  writer_id    which writer (process / rank) owns the block
 *    36   2  sector       index of this sector inside its block
 *    38   2  sectors      sectors per block (detects a block-size mismatch)
 *    40   8  written_ns   when the write was issued, ns since run start
 *    48 464  payload      f(run_id, target_id, block, gen, sector)
 *
 * All fields are little-endian.  The checksum covers the stamp fields and the
 * payload; the magic is compared by value, so any changed bit anywhere in the
 * sector is detected.  The payload is not compared on read: the checksum
 * already proves it is what the writer produced.
 */
#ifndef FL_BLOCK_H
#define FL_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FL_SECTOR 512u
#define FL_STAMP_MAGIC 0x31544c46u /* bytes "FLT1" */
#define FL_STAMP_SIZE 48u
#define FL_BLOCK_MIN 512u
#define FL_BLOCK_MAX (1024u * 1024u)

/* Who writes: identical for every block of one target in one run. */
struct block_fmt {
    uint64_t run_id;
    uint32_t target_id;
    uint32_t writer_id;
    uint32_t block_size; /* bytes, multiple of FL_SECTOR */
};

/* One decoded stamp. */
struct stamp {
    uint64_t run_id;
    uint64_t block;
    uint32_t gen;
    uint32_t target_id;
    uint32_t writer_id;
    uint16_t sector;
    uint16_t sectors;
    uint64_t written_ns;
};

enum sector_state {
    SECTOR_VALID,     /* magic and checksum good; stamp decoded */
    SECTOR_ZERO,      /* all 512 bytes are zero */
    SECTOR_BAD_MAGIC, /* not zero, not our format (or the magic itself was hit) */
    SECTOR_BAD_CRC,   /* our magic, but the checksum does not match */
};

/* True when size is a legal block size (512 B .. 1 MiB, multiple of 512). */
bool block_size_valid(uint64_t size);

/* Writes generation gen of block `block` into buf (fmt->block_size bytes). */
void block_fill(void *buf, const struct block_fmt *fmt, uint64_t block, uint32_t gen,
                uint64_t written_ns);

/* Decodes the n sectors of buf.  state[i] is set for each; st[i] is filled
 * when state[i] is SECTOR_VALID or SECTOR_BAD_CRC (then as stored).  For
 * SECTOR_BAD_CRC, stored_crc/computed_crc (if non-NULL) tell both values of
 * the first bad sector. */
void block_decode(const void *buf, size_t n, enum sector_state *state, struct stamp *st,
                  uint32_t *stored_crc, uint32_t *computed_crc);

/* Reads the fields of one stamp without checking anything. */
void stamp_read(const void *sector, struct stamp *st);

/* Recomputes and stores the checksum of one sector (used by tests that craft
 * sectors, and by nothing on the write path). */
void sector_seal(void *sector);

#endif
