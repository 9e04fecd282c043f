/* block — see block.h for the sector layout. */
#include "block.h"

#include <string.h>

#include "../lib/crc32c.h"
#include "../lib/rng.h"

#define PAYLOAD_WORDS ((FL_SECTOR - FL_STAMP_SIZE) / 8u)
#define CRC_FROM 8u /* the checksum covers bytes 8..511 */

static void put16(unsigned char *p, uint16_t v)
{
    memcpy(p, &v, 2);
}
static void put32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static void put64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
static uint16_t get16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
static uint32_t get32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

bool block_size_valid(uint64_t size)
{
    return size >= FL_BLOCK_MIN && size <= FL_BLOCK_MAX && size % FL_SECTOR == 0;
}

/* The payload of a sector is a per-run table of random words, each XORed
 * with a 64-bit value derived from (run, target, block, generation,
 * sector).  Every word of every sector differs from every other, so the data
 * neither compresses (no repeated strings) nor deduplicates, and the loop is
 * one load and one XOR per word.  The checksum, not the payload, proves
 * integrity, so the payload needs no stronger generator. */
static uint64_t pad_table[PAYLOAD_WORDS];
static uint64_t pad_run; /* run id the table belongs to; 0 = not made yet */

static void make_pad(uint64_t run_id)
{
    uint64_t x = run_id;
    for (unsigned i = 0; i < PAYLOAD_WORDS; i++)
        pad_table[i] = rng_split(&x);
    pad_run = run_id;
}

static void fill_payload(unsigned char *p, uint64_t seed)
{
    uint64_t w[PAYLOAD_WORDS];
    for (unsigned i = 0; i < PAYLOAD_WORDS; i++)
        w[i] = pad_table[i] ^ seed;
    memcpy(p, w, sizeof w);
}

void block_fill(void *buf, const struct block_fmt *fmt, uint64_t block, uint32_t gen,
                uint64_t written_ns)
{
    unsigned char *b = buf;
    uint32_t n = fmt->block_size / FL_SECTOR;
    if (pad_run != fmt->run_id)
        make_pad(fmt->run_id);
    uint64_t base = rng_mix(fmt->run_id ^ rng_mix(block + ((uint64_t)fmt->target_id << 48)) ^
                          ((uint64_t)gen << 20));
    for (uint32_t s = 0; s < n; s++) {
        unsigned char *p = b + (size_t)s * FL_SECTOR;
        put32(p + 0, FL_STAMP_MAGIC);
        put64(p + 8, fmt->run_id);
        put64(p + 16, block);
        put32(p + 24, gen);
        put32(p + 28, fmt->target_id);
        put32(p + 32, fmt->writer_id);
        put16(p + 36, (uint16_t)s);
        put16(p + 38, (uint16_t)n);
        put64(p + 40, written_ns);
        fill_payload(p + FL_STAMP_SIZE, rng_mix(base + s));
    }
    uint32_t crc[64];
    for (uint32_t s = 0; s < n; s += 64) {
        uint32_t k = n - s < 64 ? n - s : 64;
        crc32c_lanes(b + (size_t)s * FL_SECTOR + CRC_FROM, FL_SECTOR, FL_SECTOR - CRC_FROM, k, crc);
        for (uint32_t i = 0; i < k; i++)
            put32(b + (size_t)(s + i) * FL_SECTOR + 4, crc[i]);
    }
}

void stamp_read(const void *sector, struct stamp *st)
{
    const unsigned char *p = sector;
    st->run_id = get64(p + 8);
    st->block = get64(p + 16);
    st->gen = get32(p + 24);
    st->target_id = get32(p + 28);
    st->writer_id = get32(p + 32);
    st->sector = get16(p + 36);
    st->sectors = get16(p + 38);
    st->written_ns = get64(p + 40);
}

static bool sector_is_zero(const unsigned char *p)
{
    uint64_t acc = 0;
    for (unsigned i = 0; i < FL_SECTOR; i += 8)
        acc |= get64(p + i);
    return acc == 0;
}

void block_decode(const void *buf, size_t n, enum sector_state *state, struct stamp *st,
                  uint32_t *stored_crc, uint32_t *computed_crc)
{
    const unsigned char *b = buf;
    uint32_t crc[64];
    bool reported = false;
    for (size_t s0 = 0; s0 < n; s0 += 64) {
        size_t k = n - s0 < 64 ? n - s0 : 64;
        crc32c_lanes(b + s0 * FL_SECTOR + CRC_FROM, FL_SECTOR, FL_SECTOR - CRC_FROM, k, crc);
        for (size_t i = 0; i < k; i++) {
            size_t s = s0 + i;
            const unsigned char *p = b + s * FL_SECTOR;
            if (get32(p) != FL_STAMP_MAGIC) {
                state[s] = sector_is_zero(p) ? SECTOR_ZERO : SECTOR_BAD_MAGIC;
                continue;
            }
            stamp_read(p, &st[s]);
            if (get32(p + 4) == crc[i]) {
                state[s] = SECTOR_VALID;
                continue;
            }
            state[s] = SECTOR_BAD_CRC;
            if (!reported) {
                reported = true;
                if (stored_crc)
                    *stored_crc = get32(p + 4);
                if (computed_crc)
                    *computed_crc = crc[i];
            }
        }
    }
}

void sector_seal(void *sector)
{
    unsigned char *p = sector;
    put32(p + 4, crc32c(p + CRC_FROM, FL_SECTOR - CRC_FROM));
}
