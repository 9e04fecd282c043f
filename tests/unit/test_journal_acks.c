/*
 * acks.bin: the write completions a killed run had not yet sealed into
 * journal.bin come back from the ring at load, and only those.  A run is
 * "killed" here by loading its files while its journal is still open, its
 * last completions staged in the current (unsealed) batch: what a SIGKILL
 * leaves, since the page cache holds whatever was written.  Completions the
 * journal has, or whose blocks became durable since, are skipped; a torn or
 * garbage record ends the ring's usable run; a damaged header is refused; a
 * run that ended cleanly keeps no ring.
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

/* acks.bin's layout (journal_internal.h): a header, then records, the one
 * numbered seq (1, 2, ...) in slot seq % SLOTS. */
enum { AHEAD = 32, AREC = 32, SLOTS = 65536 };

static char dir[64];
static const struct run_meta meta = {.run_id = 0xac5, .start_wall_ns = 1, .seed = 9,
                                     .nblocks = 500, .total_blocks = 1000, .block_size = 4096,
                                     .target_id = 1, .worker = 1, .workers = 2};

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fl-test-acks-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

static void commit(struct journal *j)
{
    char err[512];
    assert_int_equal(journal_wait(j, journal_seal(j), err, sizeof err), 0);
}

/* n writes as the engine makes them: their intents planned and committed
 * first, then each one issued and completed (journal_done into the current
 * batch, journal_ack into acks.bin), the ring written per reap of 8. */
static void writes(struct statemap *m, struct journal *j, const uint64_t *blocks, size_t n,
                   bool durable)
{
    gen_t *g = malloc(n * sizeof *g);
    assert_non_null(g);
    for (size_t i = 0; i < n; i++) {
        g[i] = statemap_plan(m, blocks[i]);
        assert_true(g[i] != GEN_NONE);
        journal_intent(j, blocks[i], g[i], i);
    }
    commit(j);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(statemap_issue(m, blocks[i], true, g[i]), 0);
        uint64_t before = statemap_acked_total(m);
        assert_int_equal(statemap_write_done(m, blocks[i], g[i], true, durable), 0);
        journal_done(j, blocks[i], g[i], durable, i + 1);
        journal_ack(j, blocks[i], g[i], durable, before);
        if (i % 8 == 7)
            journal_ack_write(j);
    }
    journal_ack_write(j);
    free(g);
}

/* Blocks from, from + 1, ... (n of them, wrapping at the map's end). */
static void span(struct statemap *m, struct journal *j, uint64_t from, size_t n, bool durable)
{
    uint64_t *b = malloc(n * sizeof *b);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        b[i] = (from + i) % meta.nblocks;
    writes(m, j, b, n, durable);
    free(b);
}

static void flush(struct statemap *m, struct journal *j)
{
    uint64_t cover = statemap_acked_total(m);
    statemap_flushed(m, cover);
    journal_flush(j, cover, 0);
}

/* What a run killed now left, loaded: 0 or -1 (err). */
static int load(struct statemap *disk, struct load_info *info, char *err, size_t n)
{
    struct run_meta got;
    return state_load(dir, &got, disk, info, err, n);
}

/* The loaded state allows after a crash what the run knew: the same
 * durable, newest and acknowledged generations, the same blocks revertible
 * (a read of an older one is `reverted`). */
static void assert_knows(const struct statemap *mem, const struct statemap *disk)
{
    for (uint64_t b = 0; b < meta.nblocks; b++) {
        struct expectation a, d;
        statemap_expect(mem, b, false, &a);
        statemap_expect(disk, b, false, &d);
        if (a.lo != d.lo || a.hi != d.hi || a.acked != d.acked || a.revertible != d.revertible)
            fail_msg("block %llu: memory [%u, %u] acked %u%s, disk [%u, %u] acked %u%s",
                     (unsigned long long)b, a.lo, a.hi, a.acked, a.revertible ? " revertible" : "",
                     d.lo, d.hi, d.acked, d.revertible ? " revertible" : "");
    }
}

static void close_open(struct journal *j, struct statemap *m)
{
    char err[512];
    assert_int_equal(journal_close(j, NULL, false, err, sizeof err), 0);
    statemap_free(m);
}

static void flip_at(long off)
{
    char path[128];
    snprintf(path, sizeof path, "%s/acks.bin", dir);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, off, SEEK_SET), 0);
    int c = fgetc(f);
    assert_true(c != EOF);
    assert_int_equal(fseek(f, off, SEEK_SET), 0);
    fputc(c ^ 0x10, f);
    fclose(f);
}

static long rec_at(uint64_t seq)
{
    return AHEAD + (long)(seq % SLOTS) * AREC;
}

/* A new run's journal, and the map the engine keeps beside it. */
static struct journal *new_run(struct statemap *m)
{
    char err[512] = "";
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    assert_int_equal(statemap_init(m, meta.nblocks), 0);
    return j;
}

/* 300 writes in the journal (flushed every 60 but the last 60), then 100
 * whose completions only acks.bin has (records 301..400): blocks 300..398,
 * and a rewrite of block 5. */
static struct journal *killed_run(struct statemap *m)
{
    struct journal *j = new_run(m);
    for (uint64_t k = 0; k < 300; k += 60) {
        span(m, j, k, 60, false);
        if (k < 240)
            flush(m, j);
    }
    commit(j); /* every completion so far is in journal.bin */
    uint64_t last[100];
    for (int i = 0; i < 99; i++)
        last[i] = 300 + (uint64_t)i;
    last[99] = 5;
    writes(m, j, last, 100, false);
    return j;
}

static void a_kill_keeps_the_acknowledgements_the_journal_lacked(void **state)
{
    (void)state;
    struct statemap m, disk;
    struct load_info info;
    char err[512] = "";
    struct journal *j = killed_run(&m);
    if (load(&disk, &info, err, sizeof err) != 0)
        fail_msg("state_load: %s", err);
    assert_false(info.final);
    assert_int_equal(info.acks_recovered, 100);
    assert_knows(&m, &disk);
    struct expectation e;
    statemap_expect(&disk, 350, false, &e);
    assert_true(e.revertible); /* an older generation read back is the crash's cost */
    assert_int_equal(e.acked, 1);
    statemap_expect(&disk, 5, false, &e);
    assert_int_equal(e.acked, 2);
    statemap_free(&disk);

    /* Without the ring (a run of an older faultline) those are unknown. */
    char path[128], moved[128];
    snprintf(path, sizeof path, "%s/acks.bin", dir);
    snprintf(moved, sizeof moved, "%s/acks.moved", dir);
    assert_int_equal(rename(path, moved), 0);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 0);
    statemap_expect(&disk, 350, false, &e);
    assert_false(e.revertible);
    assert_int_equal(e.acked, 0);
    statemap_free(&disk);
    assert_int_equal(rename(moved, path), 0);
    close_open(j, &m);
}

static void acknowledgements_the_journal_has_are_skipped(void **state)
{
    (void)state;
    struct statemap m, disk;
    struct load_info info;
    char err[512] = "";
    struct journal *j = killed_run(&m);
    /* The next seal takes the last 100 completions into journal.bin, and a
     * flush makes some of their blocks durable after it. */
    commit(j);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 0);
    assert_knows(&m, &disk);
    statemap_free(&disk);
    flush(&m, j);
    span(&m, j, 0, 10, false);
    commit(j);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 0);
    assert_knows(&m, &disk);
    statemap_free(&disk);
    /* Then 3 completions the journal lacks: those only. */
    span(&m, j, 20, 3, false);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 3);
    assert_knows(&m, &disk);
    statemap_free(&disk);
    close_open(j, &m);
}

static void writes_durable_at_once_come_back_durable(void **state)
{
    (void)state;
    char err[512] = "";
    struct statemap m, disk;
    struct load_info info;
    struct journal *j = new_run(&m);
    span(&m, j, 0, 50, true);
    commit(j);
    span(&m, j, 40, 20, true); /* 40..49 a second time, 50..59 a first */
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 20);
    assert_knows(&m, &disk);
    struct expectation e;
    statemap_expect(&disk, 45, false, &e);
    assert_int_equal(e.lo, 2);
    statemap_free(&disk);
    close_open(j, &m);
}

static void a_torn_or_garbage_record_is_ignored(void **state)
{
    (void)state;
    struct statemap m, disk;
    struct load_info info;
    char err[512] = "";
    struct journal *j = killed_run(&m);
    /* The newest record torn: the 99 before it are whole. */
    flip_at(rec_at(400) + 9);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 99);
    statemap_free(&disk);
    flip_at(rec_at(400) + 9);
    /* One in the middle: only the newest contiguous records count, those
     * after it (no state is made up from what comes before garbage). */
    flip_at(rec_at(340) + 20);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 60);
    statemap_free(&disk);
    flip_at(rec_at(340) + 20);
    /* Garbage in slots never written, and in an old record's: ignored. */
    char path[128];
    snprintf(path, sizeof path, "%s/acks.bin", dir);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, rec_at(1000), SEEK_SET), 0);
    for (int i = 0; i < 4 * AREC; i++)
        fputc((i * 131 + 7) & 0xff, f);
    fclose(f);
    flip_at(rec_at(10) + 3);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 100);
    assert_knows(&m, &disk);
    statemap_free(&disk);
    close_open(j, &m);
}

static void the_ring_wraps(void **state)
{
    (void)state;
    char err[512] = "";
    struct statemap m, disk;
    struct load_info info;
    struct journal *j = new_run(&m);
    /* SLOTS - 50 completions in the journal, then 100 more across the ring's
     * end: records 65487..65586, slots 65487..65535 and 0..50. */
    uint64_t done = 0;
    while (done < SLOTS - 50) {
        size_t n = SLOTS - 50 - done < 400 ? (size_t)(SLOTS - 50 - done) : 400;
        span(&m, j, done, n, false);
        flush(&m, j);
        done += n;
    }
    commit(j);
    span(&m, j, 7, 100, false);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 100);
    assert_knows(&m, &disk);
    statemap_free(&disk);
    close_open(j, &m);
}

/* A block rewritten more often than the generations' ring (65535) within
 * acks.bin's reach: a record one generation wrap old names a generation that
 * looks newer than the acknowledged one.  The completion count tells it: the
 * journal counted it already. */
static void an_old_record_of_a_rewritten_block_is_not_taken_for_a_new_one(void **state)
{
    (void)state;
    char err[512] = "";
    struct statemap m, disk;
    struct load_info info;
    struct journal *j = new_run(&m);
    uint64_t zeros[1000] = {0};
    for (int k = 0; k < 66; k++) {
        writes(&m, j, zeros, 1000, false);
        flush(&m, j);
    }
    commit(j); /* block 0 at generation 66000 - 65535 = 465, durable */
    gen_t g[3];
    for (int i = 0; i < 3; i++) {
        g[i] = statemap_plan(&m, 0);
        journal_intent(j, 0, g[i], 0);
    }
    commit(j);
    assert_int_equal(g[0], 466);
    /* The first completes; the other two are in flight when the run dies. */
    uint64_t before = statemap_acked_total(&m);
    assert_int_equal(statemap_issue(&m, 0, true, g[0]), 0);
    assert_int_equal(statemap_write_done(&m, 0, g[0], true, false), 0);
    journal_done(j, 0, g[0], false, 1);
    journal_ack(j, 0, g[0], false, before);
    journal_ack_write(j);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_int_equal(info.acks_recovered, 1);
    assert_knows(&m, &disk);
    statemap_free(&disk);
    close_open(j, &m);
}

static void a_damaged_header_is_refused(void **state)
{
    (void)state;
    struct statemap m, disk;
    struct load_info info;
    char err[512] = "";
    struct journal *j = killed_run(&m);
    flip_at(10); /* inside the run id */
    assert_int_equal(load(&disk, &info, err, sizeof err), -1);
    if (!strstr(err, "acks.bin: the header is damaged"))
        fail_msg("state_load said \"%s\"", err);
    flip_at(10);
    char path[128];
    snprintf(path, sizeof path, "%s/acks.bin", dir);
    assert_int_equal(truncate(path, AHEAD + 100 * AREC), 0);
    assert_int_equal(load(&disk, &info, err, sizeof err), -1);
    if (!strstr(err, "acks.bin: 65536 slots of 32 bytes in 3232 bytes") ||
        !strstr(err, "truncated or damaged"))
        fail_msg("state_load said \"%s\"", err);
    close_open(j, &m);
}

static void a_run_that_ended_cleanly_keeps_no_ring(void **state)
{
    (void)state;
    struct statemap m, disk;
    struct load_info info;
    char err[512] = "", path[128];
    struct journal *j = killed_run(&m);
    flush(&m, j);
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/acks.bin", dir);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(load(&disk, &info, err, sizeof err), 0);
    assert_true(info.final);
    assert_int_equal(info.acks_recovered, 0);
    assert_knows(&m, &disk);
    statemap_free(&disk);
    statemap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_kill_keeps_the_acknowledgements_the_journal_lacked,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(acknowledgements_the_journal_has_are_skipped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(writes_durable_at_once_come_back_durable, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_torn_or_garbage_record_is_ignored, setup, teardown),
        cmocka_unit_test_setup_teardown(the_ring_wraps, setup, teardown),
        cmocka_unit_test_setup_teardown(an_old_record_of_a_rewritten_block_is_not_taken_for_a_new_one,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_damaged_header_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_run_that_ended_cleanly_keeps_no_ring, setup, teardown),
    };
    return cmocka_run_group_tests_name("journal_acks", tests, NULL, NULL);
}
