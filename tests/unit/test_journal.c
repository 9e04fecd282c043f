/*
 * The journal: what a crashed run left on disk rebuilds the same state the
 * run had in memory, through checkpoints and segment rotation, and a torn
 * tail is survived.
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
static const struct run_meta meta = {.run_id = 0x5eed, .start_wall_ns = 1, .seed = 9,
                                     .nblocks = 500, .total_blocks = 1000, .block_size = 4096,
                                     .target_id = 1, .worker = 1, .workers = 2};

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fl-test-journal-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

/* The engine's sequence for one write, mirrored into the journal. */
static void write_one(struct statemap *m, struct journal *j, uint64_t b, bool ok, uint64_t t)
{
    gen_t g = statemap_plan(m, b);
    journal_intent(j, b, g, t);
    statemap_issue(m, b, true, g);
    statemap_write_done(m, b, g, ok, false);
    if (ok)
        journal_done(j, b, g, false, t + 1);
    else
        journal_fail(j, b, g, t + 1);
}

static void flush(struct statemap *m, struct journal *j, uint64_t cover, uint64_t t)
{
    statemap_flushed(m, cover);
    journal_flush(j, cover, t);
}

static void commit(struct journal *j)
{
    char err[512];
    assert_int_equal(journal_wait(j, journal_seal(j), err, sizeof err), 0);
}

/* The on-disk state must allow exactly what the in-memory one allows after a
 * crash. */
static void assert_same_state(struct statemap *mem, bool want_final)
{
    struct statemap disk;
    struct run_meta got;
    struct load_info info;
    char err[512] = "";
    if (state_load(dir, &got, &disk, &info, err, sizeof err) != 0)
        fail_msg("state_load: %s", err);
    assert_true(got.run_id == meta.run_id);
    assert_int_equal(got.workers, 2);
    assert_int_equal(info.final, want_final);
    for (uint64_t b = 0; b < meta.nblocks; b++) {
        struct expectation a, d;
        statemap_expect(mem, b, false, &a);
        statemap_expect(&disk, b, false, &d);
        if (a.lo != d.lo || a.hi != d.hi)
            fail_msg("block %llu: memory [%u, %u], disk [%u, %u]", (unsigned long long)b, a.lo,
                     a.hi, d.lo, d.hi);
    }
    statemap_free(&disk);
}

static void a_crash_leaves_what_the_run_knew(void **state)
{
    (void)state;
    char err[512];
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    uint64_t t = 0;
    for (int i = 0; i < 2000; i++) {
        write_one(&m, j, (uint64_t)(i * 7919) % meta.nblocks, i % 301 != 0, t += 10);
        if (i % 64 == 63)
            flush(&m, j, statemap_acked_total(&m), t);
    }
    /* Planned, journaled, never completed: may be on the media after a crash. */
    gen_t g = statemap_plan(&m, 3);
    journal_intent(j, 3, g, t);
    commit(j);
    assert_same_state(&m, false); /* what a SIGKILL right now would leave */

    /* A checkpoint starts a new segment; the state survives it. */
    assert_int_equal(journal_checkpoint(j, &m), 0);
    for (int i = 0; i < 500; i++)
        write_one(&m, j, (uint64_t)i % meta.nblocks, true, t += 10);
    commit(j);
    assert_same_state(&m, false);

    flush(&m, j, statemap_acked_total(&m), t);
    statemap_unplan(&m, 3);
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    assert_same_state(&m, true);
    statemap_free(&m);
}

static void a_torn_tail_is_ignored(void **state)
{
    (void)state;
    char err[512], path[128];
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    for (int i = 0; i < 100; i++)
        write_one(&m, j, (uint64_t)i, true, (uint64_t)i);
    commit(j);
    /* Half a batch, as a crash in the middle of a write leaves it. */
    snprintf(path, sizeof path, "%s/journal.bin", dir);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    fwrite("FLJB\x10\x00\x00\x00garbage", 1, 15, f);
    fclose(f);
    struct statemap disk;
    struct run_meta got;
    struct load_info info;
    assert_int_equal(state_load(dir, &got, &disk, &info, err, sizeof err), 0);
    assert_true(info.torn_tail);
    assert_int_equal(info.replayed, 200);
    for (uint64_t b = 0; b < 100; b++)
        assert_int_equal(statemap_find(&disk, b)->acked, 1);
    statemap_free(&disk);
    assert_int_equal(journal_close(j, NULL, false, err, sizeof err), 0);
    statemap_free(&m);
}

static void completion_times_are_found_again(void **state)
{
    (void)state;
    char err[512];
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    write_one(&m, j, 10, true, 1000); /* gen 1 done at 1001 */
    write_one(&m, j, 10, true, 2000); /* gen 2 done at 2001 */
    write_one(&m, j, 11, true, 3000);
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    uint64_t blocks[] = {10, 10, 11, 12};
    gen_t gens[] = {1, 2, 1, 1};
    uint64_t t[4];
    assert_int_equal(journal_lookup_done(dir, 4, blocks, gens, t), 0);
    assert_int_equal(t[0], 1001);
    assert_int_equal(t[1], 2001);
    assert_int_equal(t[2], 3001);
    assert_true(t[3] == UINT64_MAX);
    statemap_free(&m);
}

static void a_damaged_checkpoint_is_refused(void **state)
{
    (void)state;
    char err[512], path[128];
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    assert_int_equal(state_save(dir, &meta, &m, true, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/state.bin", dir);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, -3, SEEK_END);
    fputc('X', f);
    fclose(f);
    struct statemap disk;
    struct run_meta got;
    struct load_info info;
    assert_int_equal(state_load(dir, &got, &disk, &info, err, sizeof err), -1);
    assert_non_null(strstr(err, "damaged"));
    statemap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_crash_leaves_what_the_run_knew, setup, teardown),
        cmocka_unit_test_setup_teardown(a_torn_tail_is_ignored, setup, teardown),
        cmocka_unit_test_setup_teardown(completion_times_are_found_again, setup, teardown),
        cmocka_unit_test_setup_teardown(a_damaged_checkpoint_is_refused, setup, teardown),
    };
    return cmocka_run_group_tests_name("journal", tests, NULL, NULL);
}
