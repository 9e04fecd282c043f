/*
 * The classification of a read, on real blocks: every class is produced by
 * writing a block with block_fill() and damaging it the way storage does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/classify.h"
#include "../../checks/block.h"

#define BS 4096u
#define NSECT (BS / FL_SECTOR)

static const struct block_fmt fmt = {
    .run_id = 0x1122334455667788ull, .target_id = 1, .writer_id = 3, .block_size = BS};

static struct classifier cls;
static unsigned char buf[BS], other[BS];

static int setup(void **state)
{
    (void)state;
    return classifier_init(&cls, &fmt);
}

static int teardown(void **state)
{
    (void)state;
    classifier_free(&cls);
    return 0;
}

/* Durable generation `durable`, newest acknowledged `acked`, strict reads. */
static struct expectation expect(gen_t durable, gen_t acked)
{
    return (struct expectation){.lo = durable, .hi = acked, .acked = acked, .strict = true};
}

static enum fl_class classify(uint64_t block, struct expectation e, struct classification *v)
{
    return classify_block(&cls, buf, block, &e, v);
}

static void ok_when_exactly_the_acknowledged_generation(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 7, 5, 1000);
    assert_int_equal(classify(7, expect(5, 5), &v), CLS_OK);
    block_fill(buf, &fmt, 7, 6, 1000);
    assert_int_equal(classify(7, expect(5, 6), &v), CLS_OK);
}

static void any_flipped_bit_in_any_sector_is_corrupt(void **state)
{
    (void)state;
    struct classification v;
    /* Every sector, bits in the magic, the checksum, the stamp and the payload. */
    const unsigned offsets[] = {0, 3, 4, 7, 8, 16, 24, 28, 32, 36, 38, 40, 47, 48, 200, 511};
    for (unsigned s = 0; s < NSECT; s++)
        for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++)
            for (int bit = 0; bit < 8; bit += 3) {
                block_fill(buf, &fmt, 9, 4, 1000);
                buf[s * FL_SECTOR + offsets[k]] ^= (unsigned char)(1u << bit);
                assert_int_equal(classify(9, expect(4, 4), &v), CLS_CORRUPT);
                assert_int_equal(v.sector, s);
            }
}

static void another_blocks_stamp_is_misdirected(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 12, 3, 1000); /* block 12's data where block 11 belongs */
    assert_int_equal(classify(11, expect(2, 2), &v), CLS_MISDIRECTED);
    assert_true(v.found_known);
    assert_int_equal(v.found_gen, 3);
    assert_non_null(strstr(v.detail, "block 12"));
}

static void one_misplaced_sector_is_misdirected(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 11, 2, 1000);
    block_fill(other, &fmt, 40, 2, 1000);
    memcpy(buf + 5 * FL_SECTOR, other + 5 * FL_SECTOR, FL_SECTOR);
    assert_int_equal(classify(11, expect(2, 2), &v), CLS_MISDIRECTED);
    assert_int_equal(v.sector, 5);
}

static void shifted_sectors_are_misdirected(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 11, 2, 1000);
    memcpy(buf + 2 * FL_SECTOR, buf + 1 * FL_SECTOR, FL_SECTOR); /* sector 1 landed at 2 */
    assert_int_equal(classify(11, expect(2, 2), &v), CLS_MISDIRECTED);
    assert_int_equal(v.sector, 2);
}

static void another_target_or_writer_is_misdirected(void **state)
{
    (void)state;
    struct classification v;
    struct block_fmt t2 = fmt;
    t2.target_id = 2;
    block_fill(buf, &t2, 11, 2, 1000);
    assert_int_equal(classify(11, expect(2, 2), &v), CLS_MISDIRECTED);
    struct block_fmt w2 = fmt;
    w2.writer_id = 4;
    block_fill(buf, &w2, 11, 2, 1000);
    assert_int_equal(classify(11, expect(2, 2), &v), CLS_MISDIRECTED);
}

static void sectors_of_two_generations_are_torn(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 20, 8, 1000);
    block_fill(other, &fmt, 20, 7, 900);
    memcpy(buf + 6 * FL_SECTOR, other + 6 * FL_SECTOR, 2 * FL_SECTOR);
    assert_int_equal(classify(20, expect(7, 8), &v), CLS_TORN);
    assert_int_equal(v.sector, 6);
}

static void half_written_first_write_is_torn(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 20, 1, 1000);
    memset(buf + 4 * FL_SECTOR, 0, 4 * FL_SECTOR);
    struct expectation e = {.lo = GEN_NONE, .hi = 1, .acked = 1, .strict = false};
    assert_int_equal(classify_block(&cls, buf, 20, &e, &v), CLS_TORN);
}

static void older_than_durable_is_lost_write(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 30, 4, 1000);
    assert_int_equal(classify(30, expect(5, 6), &v), CLS_LOST_WRITE);
    assert_int_equal(v.found_gen, 4);
}

static void another_runs_data_where_ours_was_durable_is_lost_write(void **state)
{
    (void)state;
    struct classification v;
    struct block_fmt old = fmt;
    old.run_id = 42;
    block_fill(buf, &old, 30, 9, 1000);
    assert_int_equal(classify(30, expect(2, 2), &v), CLS_LOST_WRITE);
}

static void older_than_acknowledged_is_stale_read(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 31, 5, 1000);
    assert_int_equal(classify(31, expect(5, 6), &v), CLS_STALE_READ);
    /* The same data after a crash, when pending writes may be lost: ok. */
    struct expectation crash = {.lo = 5, .hi = 6, .acked = 6, .strict = false};
    assert_int_equal(classify_block(&cls, buf, 31, &crash, &v), CLS_OK);
}

static void zeroes_where_data_was_durable_are_zeroed(void **state)
{
    (void)state;
    struct classification v;
    memset(buf, 0, sizeof buf);
    assert_int_equal(classify(40, expect(3, 3), &v), CLS_ZEROED);
    assert_false(v.found_known);
}

static void zeroes_before_the_first_write_is_acknowledged(void **state)
{
    (void)state;
    struct classification v;
    memset(buf, 0, sizeof buf);
    /* Acknowledged but not durable, nothing allows it: stale.  After a crash: ok. */
    assert_int_equal(classify(40, expect(GEN_NONE, 1), &v), CLS_STALE_READ);
    struct expectation crash = {.lo = GEN_NONE, .hi = 1, .acked = 1, .strict = false};
    assert_int_equal(classify_block(&cls, buf, 40, &crash, &v), CLS_OK);
}

static void never_written_is_unwritten_whatever_it_holds(void **state)
{
    (void)state;
    struct classification v;
    memset(buf, 0, sizeof buf);
    assert_int_equal(classify(50, expect(GEN_NONE, GEN_NONE), &v), CLS_UNWRITTEN);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 7 + 3); /* garbage */
    assert_int_equal(classify(50, expect(GEN_NONE, GEN_NONE), &v), CLS_UNWRITTEN);
    struct block_fmt old = fmt;
    old.run_id = 99;
    block_fill(buf, &old, 50, 3, 1000); /* an earlier run's data */
    assert_int_equal(classify(50, expect(GEN_NONE, GEN_NONE), &v), CLS_UNWRITTEN);
}

static void our_data_on_a_never_written_block_is_misdirected(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 51, 2, 1000);
    assert_int_equal(classify(50, expect(GEN_NONE, GEN_NONE), &v), CLS_MISDIRECTED);
}

static void a_generation_never_issued_is_corrupt(void **state)
{
    (void)state;
    struct classification v;
    block_fill(buf, &fmt, 60, 9, 1000);
    assert_int_equal(classify(60, expect(5, 6), &v), CLS_CORRUPT);
    assert_non_null(strstr(v.detail, "newer than any write issued"));
}

static void generations_compare_across_the_wrap(void **state)
{
    (void)state;
    struct classification v;
    /* 65535 is followed by 1: durable 65535, acknowledged 2. */
    block_fill(buf, &fmt, 70, 1, 1000);
    assert_int_equal(classify(70, expect(65535, 2), &v), CLS_STALE_READ);
    block_fill(buf, &fmt, 70, 65534, 1000);
    assert_int_equal(classify(70, expect(65535, 2), &v), CLS_LOST_WRITE);
    block_fill(buf, &fmt, 70, 2, 1000);
    assert_int_equal(classify(70, expect(65535, 2), &v), CLS_OK);
}

static void every_block_size_from_512_bytes_to_1_mib(void **state)
{
    (void)state;
    const uint32_t sizes[] = {512, 1024, 4096, 65536, 1024 * 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct block_fmt f = fmt;
        f.block_size = sizes[i];
        struct classifier c;
        assert_int_equal(classifier_init(&c, &f), 0);
        unsigned char *b = aligned_alloc(4096, sizes[i] < 4096 ? 4096 : sizes[i]);
        assert_non_null(b);
        block_fill(b, &f, 3, 2, 1000);
        struct expectation e = expect(2, 2);
        struct classification v;
        assert_int_equal(classify_block(&c, b, 3, &e, &v), CLS_OK);
        b[sizes[i] - 1] ^= 1; /* the very last byte */
        assert_int_equal(classify_block(&c, b, 3, &e, &v), CLS_CORRUPT);
        assert_int_equal(v.sector, sizes[i] / FL_SECTOR - 1);
        free(b);
        classifier_free(&c);
    }
    assert_true(block_size_valid(512));
    assert_true(block_size_valid(1024 * 1024));
    assert_false(block_size_valid(256));
    assert_false(block_size_valid(1000));
    assert_false(block_size_valid(2 * 1024 * 1024));
}

/* After a power loss: older than acknowledged but not older than durable
 * is `reverted` (allowed, counted); older than durable stays a lost write;
 * the acknowledged one or a newer issued one is ok. */
static void reverted_and_lost_write_are_told_apart(void **state)
{
    (void)state;
    struct classification v;
    struct expectation lost = {.lo = 5, .hi = 8, .acked = 7, .strict = false, .revertible = true,
                               .loss = 1};
    block_fill(buf, &fmt, 33, 5, 1000);
    assert_int_equal(classify_block(&cls, buf, 33, &lost, &v), CLS_REVERTED);
    assert_false(class_is_finding(v.cls));
    block_fill(buf, &fmt, 33, 6, 1000);
    assert_int_equal(classify_block(&cls, buf, 33, &lost, &v), CLS_REVERTED);
    block_fill(buf, &fmt, 33, 4, 1000);
    assert_int_equal(classify_block(&cls, buf, 33, &lost, &v), CLS_LOST_WRITE);
    block_fill(buf, &fmt, 33, 7, 1000);
    assert_int_equal(classify_block(&cls, buf, 33, &lost, &v), CLS_OK);
    block_fill(buf, &fmt, 33, 8, 1000);
    assert_int_equal(classify_block(&cls, buf, 33, &lost, &v), CLS_OK);
    block_fill(buf, &fmt, 33, 9, 1000);
    assert_int_equal(classify_block(&cls, buf, 33, &lost, &v), CLS_CORRUPT);
    /* A first write never flushed, gone: the block reads as before the run. */
    struct expectation first = {.lo = GEN_NONE, .hi = 1, .acked = 1, .revertible = true};
    memset(buf, 0, sizeof buf);
    assert_int_equal(classify_block(&cls, buf, 33, &first, &v), CLS_REVERTED);
    /* Without a power loss the same reads are what they always were. */
    block_fill(buf, &fmt, 33, 6, 1000);
    assert_int_equal(classify(33, expect(5, 7), &v), CLS_STALE_READ);
    block_fill(buf, &fmt, 33, 4, 1000);
    assert_int_equal(classify(33, expect(5, 7), &v), CLS_LOST_WRITE);
}

static void class_names_are_the_report_contract(void **state)
{
    (void)state;
    const char *want[CLS_COUNT] = {"ok",          "unwritten",    "lost-write",      "stale-read",
                                   "torn",        "misdirected",  "corrupt",         "zeroed",
                                   "io-error",    "missing-file", "unexpected-file", "wrong-size",
                                   "reverted"};
    for (int c = 0; c < CLS_COUNT; c++)
        assert_string_equal(class_name((enum fl_class)c), want[c]);
    assert_false(class_is_finding(CLS_OK));
    assert_false(class_is_finding(CLS_UNWRITTEN));
    assert_false(class_is_finding(CLS_REVERTED));
    for (int c = CLS_LOST_WRITE; c < CLS_REVERTED; c++)
        assert_true(class_is_finding((enum fl_class)c));
}

/* The signs a verify from a run directory refuses on (classification
 * other_run, beyond): set only for an intact write of this very block by
 * another run, and for an intact write of ours newer than any issued. */
static void another_runs_block_and_a_generation_beyond_are_marked(void **state)
{
    (void)state;
    struct classification v;
    struct block_fmt theirs = fmt;
    theirs.run_id = 0xabcdef;
    block_fill(buf, &theirs, 7, 9, 1000);
    assert_int_equal(classify(7, expect(5, 5), &v), CLS_LOST_WRITE);
    assert_true(v.other_run == 0xabcdef);
    assert_false(v.beyond);
    block_fill(buf, &theirs, 8, 9, 1000); /* theirs, but of another block */
    assert_int_equal(classify(7, expect(5, 5), &v), CLS_LOST_WRITE);
    assert_true(v.other_run == 0);
    block_fill(buf, &theirs, 7, 9, 1000);
    memset(buf + FL_SECTOR, 0, FL_SECTOR); /* not whole */
    classify(7, expect(5, 5), &v);
    assert_true(v.other_run == 0);
    block_fill(buf, &fmt, 7, 8, 1000);
    assert_int_equal(classify(7, expect(5, 6), &v), CLS_CORRUPT);
    assert_true(v.beyond);
    assert_true(v.other_run == 0);
    block_fill(buf, &fmt, 7, 6, 1000);
    assert_int_equal(classify(7, expect(5, 6), &v), CLS_OK);
    assert_false(v.beyond);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ok_when_exactly_the_acknowledged_generation),
        cmocka_unit_test(any_flipped_bit_in_any_sector_is_corrupt),
        cmocka_unit_test(another_blocks_stamp_is_misdirected),
        cmocka_unit_test(one_misplaced_sector_is_misdirected),
        cmocka_unit_test(shifted_sectors_are_misdirected),
        cmocka_unit_test(another_target_or_writer_is_misdirected),
        cmocka_unit_test(sectors_of_two_generations_are_torn),
        cmocka_unit_test(half_written_first_write_is_torn),
        cmocka_unit_test(older_than_durable_is_lost_write),
        cmocka_unit_test(another_runs_data_where_ours_was_durable_is_lost_write),
        cmocka_unit_test(older_than_acknowledged_is_stale_read),
        cmocka_unit_test(zeroes_where_data_was_durable_are_zeroed),
        cmocka_unit_test(zeroes_before_the_first_write_is_acknowledged),
        cmocka_unit_test(never_written_is_unwritten_whatever_it_holds),
        cmocka_unit_test(our_data_on_a_never_written_block_is_misdirected),
        cmocka_unit_test(a_generation_never_issued_is_corrupt),
        cmocka_unit_test(generations_compare_across_the_wrap),
        cmocka_unit_test(reverted_and_lost_write_are_told_apart),
        cmocka_unit_test(every_block_size_from_512_bytes_to_1_mib),
        cmocka_unit_test(class_names_are_the_report_contract),
        cmocka_unit_test(another_runs_block_and_a_generation_beyond_are_marked),
    };
    return cmocka_run_group_tests_name("classify", tests, setup, teardown);
}
