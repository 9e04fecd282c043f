/*
 * The journal on a map larger than the pieces files are read in (1 MiB):
 * a checkpoint written straight from the map and loaded back in pieces,
 * pending entries and queued completions that straddle the pieces, and a
 * journal batch larger than a piece, give back exactly the state the run
 * had in memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../workloads/journal.h"

static char dir[64];
/* 2 MiB of durable array, so that it is read in more than one piece. */
static const struct run_meta meta = {.run_id = 0xb16, .start_wall_ns = 1, .seed = 3,
                                     .nblocks = 1u << 20, .total_blocks = 1u << 20,
                                     .block_size = 4096, .target_id = 1, .worker = 0,
                                     .workers = 1};

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fl-test-journal-scale-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

static void write_one(struct statemap *m, struct journal *j, uint64_t b, uint64_t t)
{
    gen_t g = statemap_plan(m, b);
    journal_intent(j, b, g, t);
    statemap_issue(m, b, true, g);
    statemap_write_done(m, b, g, true, false);
    journal_done(j, b, g, false, t + 1);
}

static void assert_same_state(struct statemap *mem, bool want_final, uint64_t want_pending)
{
    struct statemap disk;
    struct run_meta got;
    struct load_info info;
    char err[512] = "";
    if (state_load(dir, &got, &disk, &info, err, sizeof err) != 0)
        fail_msg("state_load: %s", err);
    assert_int_equal(info.final, want_final);
    assert_false(info.torn_tail);
    assert_int_equal(disk.count, want_pending);
    assert_int_equal(disk.ack_len, mem->ack_len);
    assert_int_equal(statemap_acked_total(&disk), statemap_acked_total(mem));
    for (uint64_t b = 0; b < meta.nblocks; b++) {
        struct expectation a, d;
        statemap_expect(mem, b, false, &a);
        statemap_expect(&disk, b, false, &d);
        if (a.lo != d.lo || a.hi != d.hi || a.acked != d.acked)
            fail_msg("block %llu: memory [%u, %u] acked %u, disk [%u, %u] acked %u",
                     (unsigned long long)b, a.lo, a.hi, a.acked, d.lo, d.hi, d.acked);
    }
    statemap_free(&disk);
}

static void a_large_state_survives_in_pieces(void **state)
{
    (void)state;
    char err[512];
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    uint64_t t = 0;
    /* Durable generations all over the map. */
    for (uint64_t b = 0; b < meta.nblocks; b += 7)
        write_one(&m, j, b, t += 2);
    statemap_flushed(&m, statemap_acked_total(&m));
    journal_flush(j, statemap_acked_total(&m), t);
    /* 60000 written and not flushed: 1.4 MB of pending entries and 1 MB of
     * queued completions in the checkpoint. */
    for (uint64_t i = 0; i < 60000; i++)
        write_one(&m, j, (i * 13) % meta.nblocks, t += 2);
    assert_int_equal(journal_checkpoint(j, &m), 0);
    assert_int_equal(journal_wait(j, journal_seal(j), err, sizeof err), 0);
    assert_same_state(&m, false, m.count);

    /* One batch of 100000 records (2.4 MB) after the checkpoint, replayed. */
    for (uint64_t i = 0; i < 50000; i++)
        write_one(&m, j, (i * 31 + 5) % meta.nblocks, t += 2);
    assert_int_equal(journal_wait(j, journal_seal(j), err, sizeof err), 0);
    assert_same_state(&m, false, m.count);

    statemap_flushed(&m, statemap_acked_total(&m));
    journal_flush(j, statemap_acked_total(&m), t);
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    assert_same_state(&m, true, 0);
    statemap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_large_state_survives_in_pieces, setup, teardown),
    };
    return cmocka_run_group_tests_name("journal_scale", tests, NULL, NULL);
}
