/*
 * The checksum and the sector layout: known CRC-32C values, the hardware and
 * table implementations agreeing, and every sector of a block telling who
 * wrote it, where and when.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/block.h"
#include "../../lib/crc32c.h"
#include "../../lib/rng.h"

static void crc32c_known_values(void **state)
{
    (void)state;
    unsigned char zeros[32] = {0}, ones[32];
    memset(ones, 0xff, sizeof ones);
    for (int force = 0; force < 2; force++) {
        crc32c_force_table(force);
        assert_int_equal(crc32c("123456789", 9), 0xE3069283u);
        assert_int_equal(crc32c(zeros, 32), 0x8A9136AAu); /* RFC 3720 B.4 */
        assert_int_equal(crc32c(ones, 32), 0x62A8AB43u);
        assert_int_equal(crc32c("", 0), 0u);
    }
    crc32c_force_table(0);
}

static void hardware_and_table_agree(void **state)
{
    (void)state;
    crc32c_force_table(0);
    if (strcmp(crc32c_impl(), "sse4.2") != 0) {
        /* No crc32 instruction: both sides would be the table. */
        print_message("SKIP: this CPU has no SSE4.2; only the table implementation runs\n");
        skip();
    }
    unsigned char buf[4096 + 7];
    struct rng r;
    rng_seed(&r, 12345);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)rng_next(&r);
    for (size_t len = 0; len < 600; len += 13)
        for (size_t off = 0; off < 8; off++) {
            crc32c_force_table(1);
            uint32_t t = crc32c(buf + off, len);
            crc32c_force_table(0);
            assert_int_equal(crc32c(buf + off, len), t);
        }
}

static void lanes_equal_single_checksums(void **state)
{
    (void)state;
    static unsigned char buf[20 * 512];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 31 + (i >> 9));
    uint32_t out[20];
    for (int force = 0; force < 2; force++) {
        crc32c_force_table(force);
        for (size_t n = 1; n <= 20; n++) {
            crc32c_lanes(buf + 8, 512, 504, n, out);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(out[i], crc32c(buf + 8 + i * 512, 504));
        }
    }
    crc32c_force_table(0);
}

static const struct block_fmt fmt = {
    .run_id = 0xabcdef0123456789ull, .target_id = 2, .writer_id = 5, .block_size = 8192};

static void every_sector_carries_its_stamp(void **state)
{
    (void)state;
    unsigned char buf[8192];
    block_fill(buf, &fmt, 77, 301, 123456789);
    enum sector_state st[16];
    struct stamp sp[16];
    block_decode(buf, 16, st, sp, NULL, NULL);
    for (int s = 0; s < 16; s++) {
        assert_int_equal(st[s], SECTOR_VALID);
        assert_true(sp[s].run_id == fmt.run_id);
        assert_int_equal(sp[s].block, 77);
        assert_int_equal(sp[s].gen, 301);
        assert_int_equal(sp[s].target_id, 2);
        assert_int_equal(sp[s].writer_id, 5);
        assert_int_equal(sp[s].sector, s);
        assert_int_equal(sp[s].sectors, 16);
        assert_int_equal(sp[s].written_ns, 123456789);
    }
    uint32_t magic;
    memcpy(&magic, buf, 4);
    assert_int_equal(magic, FL_STAMP_MAGIC);
    assert_memory_equal(buf, "FLT1", 4);
}

static void payload_differs_between_sectors_blocks_and_generations(void **state)
{
    (void)state;
    unsigned char a[8192], b[8192], c[8192];
    block_fill(a, &fmt, 1, 1, 0);
    block_fill(b, &fmt, 2, 1, 0);
    block_fill(c, &fmt, 1, 2, 0);
    /* No 8-byte payload word repeats anywhere across the three blocks: the
     * data neither compresses nor deduplicates. */
    size_t nw = 3 * 16 * (512 - FL_STAMP_SIZE) / 8, k = 0;
    uint64_t *words = malloc(nw * sizeof *words);
    assert_non_null(words);
    const unsigned char *blocks[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 16; s++)
            for (unsigned o = FL_STAMP_SIZE; o < 512; o += 8)
                memcpy(&words[k++], blocks[i] + s * 512 + o, 8);
    for (size_t i = 0; i < nw; i++)
        for (size_t j = i + 1; j < nw; j++)
            assert_true(words[i] != words[j]);
    free(words);
    /* Same inputs, same bytes. */
    block_fill(b, &fmt, 1, 1, 0);
    assert_memory_equal(a, b, sizeof a);
}

static void zero_and_foreign_sectors_are_told_apart(void **state)
{
    (void)state;
    unsigned char buf[1024] = {0};
    enum sector_state st[2];
    struct stamp sp[2];
    memset(buf + 512, 0x5a, 512);
    block_decode(buf, 2, st, sp, NULL, NULL);
    assert_int_equal(st[0], SECTOR_ZERO);
    assert_int_equal(st[1], SECTOR_BAD_MAGIC);
    struct block_fmt f = fmt;
    f.block_size = 1024;
    block_fill(buf, &f, 3, 3, 0);
    buf[600] ^= 0x80;
    uint32_t stored = 0, computed = 0;
    block_decode(buf, 2, st, sp, &stored, &computed);
    assert_int_equal(st[0], SECTOR_VALID);
    assert_int_equal(st[1], SECTOR_BAD_CRC);
    assert_true(stored != computed);
    sector_seal(buf + 512);
    block_decode(buf, 2, st, sp, NULL, NULL);
    assert_int_equal(st[1], SECTOR_VALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc32c_known_values),
        cmocka_unit_test(hardware_and_table_agree),
        cmocka_unit_test(lanes_equal_single_checksums),
        cmocka_unit_test(every_sector_carries_its_stamp),
        cmocka_unit_test(payload_differs_between_sectors_blocks_and_generations),
        cmocka_unit_test(zero_and_foreign_sectors_are_told_apart),
    };
    return cmocka_run_group_tests_name("block", tests, NULL, NULL);
}
