/*
 * The journal: what a crashed run left on disk rebuilds the same state the
 * run had in memory, through checkpoints and segment rotation, and a torn
 * tail is survived; damage to the files (a flipped bit, batches cut out, a
 * truncated checkpoint, another run's journal, an older format) is refused
 * with the file and the byte offset named.
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

/* --- damage to the run directory is refused, naming the file and offset --- */

/* On-disk sizes (journal.c): a segment header, a batch header, a record. */
enum { JHEAD = 248, JBATCH = 24, JREC = 24, SHEAD = 264 };

static void flip(const char *name, long off)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, off, off < 0 ? SEEK_END : SEEK_SET), 0);
    int c = fgetc(f);
    assert_true(c != EOF);
    assert_int_equal(fseek(f, -1, SEEK_CUR), 0);
    fputc(c ^ 0x10, f);
    fclose(f);
}

static void cut(const char *name, long off, long len)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true((size_t)(off + len) <= n);
    memmove(buf + off, buf + off + len, n - (size_t)(off + len));
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n - (size_t)len, f), n - (size_t)len);
    fclose(f);
}

static void append(const char *name, const void *data, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* A journal of 4 batches of 10 writes (20 records each: JBATCH + 480 bytes),
 * the run still going (the journal open: *jp). */
static void four_batches(struct journal **jp, struct statemap *m)
{
    char err[512];
    *jp = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(*jp);
    assert_int_equal(statemap_init(m, meta.nblocks), 0);
    for (int b = 0; b < 4; b++) {
        for (int i = 0; i < 10; i++)
            write_one(m, *jp, (uint64_t)(b * 10 + i), true, (uint64_t)(b * 100 + i * 2));
        commit(*jp);
    }
}

static void load_fails(const char *want1, const char *want2)
{
    struct statemap disk;
    struct run_meta got;
    struct load_info info;
    char err[1024] = "";
    if (state_load(dir, &got, &disk, &info, err, sizeof err) == 0) {
        statemap_free(&disk);
        fail_msg("state_load accepted damage (wanted \"%s\")", want1);
    }
    if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
        fail_msg("state_load said \"%s\", wanted \"%s\" and \"%s\"", err, want1,
                 want2 ? want2 : "");
}

static void close_open(struct journal *j, struct statemap *m)
{
    char err[512];
    assert_int_equal(journal_close(j, NULL, false, err, sizeof err), 0);
    statemap_free(m);
}

#define BATCH_AT(k) ((long)JHEAD + (long)((k) - 1) * (JBATCH + 20 * JREC))

static void a_bit_flip_in_a_whole_batch_is_refused(void **state)
{
    (void)state;
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    flip("journal.bin", BATCH_AT(2) + JBATCH + 5 * JREC);
    char want[64];
    snprintf(want, sizeof want, "at byte offset %ld (batch 2)", BATCH_AT(2));
    load_fails("journal.bin is damaged", want);
    close_open(j, &m);
}

static void a_bit_flip_in_the_last_whole_batch_is_refused(void **state)
{
    (void)state;
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    flip("journal.bin", -3); /* the last record of batch 4: whole, yet wrong */
    load_fails("record checksum mismatch in a whole batch", "(batch 4)");
    close_open(j, &m);
}

static void a_damaged_batch_header_before_whole_batches_is_refused(void **state)
{
    (void)state;
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    flip("journal.bin", BATCH_AT(3) + 4); /* its record count */
    load_fails("batch header checksum mismatch, yet whole batches follow it", "(batch 3)");
    close_open(j, &m);
}

static void a_batch_missing_in_the_middle_is_refused(void **state)
{
    (void)state;
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    cut("journal.bin", BATCH_AT(2), BATCH_AT(3) - BATCH_AT(2));
    load_fails("batch number 3 where 2 was due", NULL);
    close_open(j, &m);
}

static void records_cut_from_the_middle_are_refused(void **state)
{
    (void)state;
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    cut("journal.bin", BATCH_AT(2) + JBATCH + 3 * JREC, 2 * JREC);
    load_fails("journal.bin is damaged", "(batch 2)");
    close_open(j, &m);
}

static void a_short_last_batch_is_a_torn_tail(void **state)
{
    (void)state;
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    char path[128];
    snprintf(path, sizeof path, "%s/journal.bin", dir);
    assert_int_equal(truncate(path, BATCH_AT(4) + JBATCH + 7 * JREC + 5), 0);
    struct statemap disk;
    struct run_meta got;
    struct load_info info;
    char err[512];
    assert_int_equal(state_load(dir, &got, &disk, &info, err, sizeof err), 0);
    assert_true(info.torn_tail);
    assert_int_equal(info.replayed, 60);
    statemap_free(&disk);
    close_open(j, &m);
}

static void a_journal_of_another_run_is_refused(void **state)
{
    (void)state;
    char err[512];
    struct run_meta other = meta;
    other.run_id = 0xbad;
    struct journal *j = journal_create(dir, &other, err, sizeof err);
    assert_non_null(j);
    assert_int_equal(journal_close(j, NULL, false, err, sizeof err), 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "mv %s/journal.bin %s/other.bin", dir, dir);
    assert_int_equal(system(cmd), 0);
    struct statemap m;
    four_batches(&j, &m);
    snprintf(cmd, sizeof cmd, "mv %s/other.bin %s/journal.bin", dir, dir);
    assert_int_equal(system(cmd), 0);
    load_fails("journal.bin belongs to run 0000000000000bad, state.bin to run "
               "0000000000005eed", NULL);
    close_open(j, &m);
}

static void a_run_that_ended_cleanly_has_no_torn_tail(void **state)
{
    (void)state;
    char err[512];
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    statemap_free(&m);
    append("journal.bin", "FLJB\x10\x00\x00\x00garbage", 15);
    load_fails("journal.bin ends in a bad batch at byte offset 248", "ended cleanly");
}

static void a_damaged_or_truncated_journal_old_is_refused(void **state)
{
    (void)state;
    char err[512], path[128];
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    statemap_free(&m);
    assert_true(state_load(dir, &(struct run_meta){0}, &m, &(struct load_info){0}, err,
                           sizeof err) == 0);
    statemap_free(&m);
    snprintf(path, sizeof path, "%s/journal.old", dir);
    assert_int_equal(truncate(path, BATCH_AT(4) + 100), 0); /* a segment is synced whole */
    load_fails("journal.old ends in a bad batch at byte offset", "truncated or damaged");
    assert_int_equal(truncate(path, 100), 0);
    load_fails("journal.old is truncated: 100 bytes", NULL);
}

static void a_damaged_or_old_checkpoint_header_is_refused(void **state)
{
    (void)state;
    char err[512], path[128];
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    statemap_plan(&m, 7);
    assert_int_equal(state_save(dir, &meta, &m, true, err, sizeof err), 0);
    statemap_free(&m);
    flip("state.bin", 40); /* inside run_meta */
    load_fails("state.bin: the checkpoint header is damaged", NULL);
    struct run_meta got;
    assert_int_equal(state_read_meta(dir, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "header is damaged"));
    flip("state.bin", 40); /* whole again */
    assert_int_equal(state_read_meta(dir, &got, err, sizeof err), 0);
    /* An older faultline's state.bin: format 3 at byte offset 8. */
    snprintf(path, sizeof path, "%s/state.bin", dir);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 8, SEEK_SET), 0);
    fputc(3, f);
    fclose(f);
    assert_int_equal(state_read_meta(dir, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, "state.bin is of format 3, from an older faultline"));
    load_fails("state.bin is of format 3, from an older faultline", NULL);
    f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 8, SEEK_SET), 0);
    fputc(4, f); /* this format again */
    fclose(f);
    assert_int_equal(truncate(path, SHEAD + 10), 0);
    load_fails("state.bin is truncated", NULL);
    assert_int_equal(truncate(path, 100), 0);
    load_fails("state.bin is truncated: 100 bytes, its header alone takes", NULL);
}

static void an_older_journal_format_is_refused(void **state)
{
    (void)state;
    struct journal *j;
    struct statemap m;
    four_batches(&j, &m);
    char path[128];
    snprintf(path, sizeof path, "%s/journal.bin", dir);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 6, SEEK_SET), 0);
    fputc('2', f); /* "FLJRNL2" */
    fclose(f);
    load_fails("journal.bin is of format 2, from an older faultline", NULL);
    close_open(j, &m);
}


/* A power cut's revertible blocks are in the checkpoint, and come back from
 * it: a verify after the run must allow what the run allowed (a read of the
 * durable generation where the cut took the acknowledged one back). */
static void a_power_cut_survives_the_checkpoint(void **state)
{
    (void)state;
    char err[512];
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    write_one(&m, j, 6, true, 10);
    flush(&m, j, statemap_acked_total(&m), 12);
    write_one(&m, j, 6, true, 13); /* acknowledged, never flushed */
    write_one(&m, j, 5, true, 14);
    statemap_power_loss(&m, 1, false);
    journal_power_loss(j, 1, false, 20);
    statemap_power_loss(&m, 1, true);
    journal_power_loss(j, 1, true, 21);
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    struct statemap disk;
    struct run_meta got;
    struct load_info info;
    assert_int_equal(state_load(dir, &got, &disk, &info, err, sizeof err), 0);
    for (uint64_t b = 5; b <= 6; b++) {
        struct expectation a, d;
        statemap_expect(&m, b, true, &a);
        statemap_expect(&disk, b, true, &d);
        assert_true(a.revertible);
        assert_int_equal(d.revertible, a.revertible);
        assert_int_equal(d.strict, a.strict);
        assert_int_equal(d.loss, a.loss);
        assert_int_equal(d.lo, a.lo);
        assert_int_equal(d.hi, a.hi);
    }
    statemap_free(&disk);
    statemap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_crash_leaves_what_the_run_knew, setup, teardown),
        cmocka_unit_test_setup_teardown(a_torn_tail_is_ignored, setup, teardown),
        cmocka_unit_test_setup_teardown(completion_times_are_found_again, setup, teardown),
        cmocka_unit_test_setup_teardown(a_damaged_checkpoint_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_bit_flip_in_a_whole_batch_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_bit_flip_in_the_last_whole_batch_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_damaged_batch_header_before_whole_batches_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_batch_missing_in_the_middle_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(records_cut_from_the_middle_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_short_last_batch_is_a_torn_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(a_journal_of_another_run_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_run_that_ended_cleanly_has_no_torn_tail, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_damaged_or_truncated_journal_old_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_damaged_or_old_checkpoint_header_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_older_journal_format_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_power_cut_survives_the_checkpoint, setup, teardown),
    };
    return cmocka_run_group_tests_name("journal", tests, NULL, NULL);
}
