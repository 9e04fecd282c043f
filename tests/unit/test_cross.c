/*
 * Reads of another client's blocks (checks/cross.h): what a read saw, told
 * apart sector by sector; the owner's history from its journal
 * (journal_history), through a segment rotation; and the judgement under
 * both rules, which must flag every read the storage's promise forbids and
 * nothing a racing write explains.  A client's result travels between
 * ranks and comes back whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/block.h"
#include "../../checks/cross.h"
#include "../../harness/clients/client_result.h"
#include "../../workloads/journal.h"

#define BS 4096
#define WRITERS 4 /* two clients of two workers: block b is written by writer b % 4 */

static const struct block_fmt fmt = {.run_id = 0xabc, .target_id = 1, .block_size = BS};

/* Generation g of block b as its owner writes it. */
static void fill(unsigned char *buf, uint64_t b, gen_t g)
{
    struct block_fmt f = fmt;
    f.writer_id = (uint32_t)(b % WRITERS);
    block_fill(buf, &f, b, g, 0);
}

static void scan(unsigned char *buf, uint64_t b, struct cross_read *r)
{
    struct cross_scanner s;
    assert_int_equal(cross_scanner_init(&s, &fmt, WRITERS), 0);
    cross_scan(&s, buf, b, r);
    cross_scanner_free(&s);
}

static void what_a_read_saw(void **state)
{
    (void)state;
    static unsigned char buf[BS], other[BS];
    struct cross_read r;
    fill(buf, 6, 7);
    scan(buf, 6, &r);
    assert_int_equal(r.lo, 7);
    assert_int_equal(r.hi, 7);
    assert_int_equal(r.flags, 0);
    /* half a newer write: sectors of two generations */
    fill(other, 6, 8);
    memcpy(buf + 4 * FL_SECTOR, other + 4 * FL_SECTOR, 4 * FL_SECTOR);
    scan(buf, 6, &r);
    assert_int_equal(r.lo, 7);
    assert_int_equal(r.hi, 8);
    assert_int_equal(r.sector, 4);
    /* zeroes: nothing of this run */
    memset(buf, 0, BS);
    scan(buf, 6, &r);
    assert_int_equal(r.flags, CROSS_NOTHING);
    assert_int_equal(r.hi, GEN_NONE);
    /* a flipped bit */
    fill(buf, 6, 7);
    buf[2 * FL_SECTOR + 100] ^= 1;
    scan(buf, 6, &r);
    assert_true(r.flags & CROSS_DAMAGED);
    assert_int_equal(r.sector, 2);
    /* block 10's data where block 6 must be */
    fill(buf, 10, 3);
    scan(buf, 6, &r);
    assert_true(r.flags & CROSS_MISDIRECTED);
    assert_int_equal(r.other, 10);
}

static enum fl_class judge(gen_t lo, gen_t hi, uint8_t flags, struct cross_history h, bool c2o,
                           gen_t *need)
{
    struct cross_read r = {.block = 6, .lo = lo, .hi = hi, .flags = flags};
    char why[200];
    gen_t n;
    enum fl_class c = cross_judge(&r, &h, c2o, need ? need : &n, why, sizeof why);
    if (c != CLS_OK)
        assert_true(why[0] != '\0');
    return c;
}

static void the_promise_decides(void **state)
{
    (void)state;
    gen_t need;
    /* acknowledged 5 before the read began, nothing since: 5 and only 5 */
    struct cross_history quiet = {.acked = 5, .durable = 3, .planned = 5, .known = true};
    assert_int_equal(judge(5, 5, 0, quiet, false, NULL), CLS_OK);
    assert_int_equal(judge(4, 4, 0, quiet, false, &need), CLS_STALE_READ);
    assert_int_equal(need, 5);
    assert_int_equal(judge(6, 6, 0, quiet, false, NULL), CLS_CORRUPT);
    assert_int_equal(judge(4, 5, 0, quiet, false, NULL), CLS_STALE_READ);
    assert_int_equal(judge(5, 5, CROSS_DAMAGED, quiet, false, NULL), CLS_CORRUPT);
    assert_int_equal(judge(5, 5, CROSS_MISDIRECTED, quiet, false, NULL), CLS_MISDIRECTED);
    /* close-to-open: only what the owner flushed (and closed) counts */
    assert_int_equal(judge(3, 3, 0, quiet, true, &need), CLS_OK);
    assert_int_equal(need, 3);
    assert_int_equal(judge(2, 2, 0, quiet, true, NULL), CLS_STALE_READ);
    /* the owner wrote 6 while the read ran: 5, 6 or half of each */
    struct cross_history racing = {.acked = 5, .durable = 5, .planned = 6, .known = true};
    assert_int_equal(judge(5, 6, 0, racing, false, NULL), CLS_OK);
    assert_int_equal(judge(6, 6, CROSS_DAMAGED, racing, false, NULL), CLS_OK);
    assert_int_equal(judge(4, 6, 0, racing, false, NULL), CLS_STALE_READ);
    assert_int_equal(judge(7, 7, 0, racing, false, NULL), CLS_CORRUPT);
    /* two generations with no write racing: torn */
    struct cross_history done = {.acked = 6, .durable = 5, .planned = 6, .known = true};
    assert_int_equal(judge(6, 6, 0, done, true, NULL), CLS_OK);
    assert_int_equal(judge(5, 6, 0, done, true, NULL), CLS_TORN);
    /* a failed write lets the durable one back */
    struct cross_history failed = {.acked = 6, .durable = 4, .planned = 7, .uncertain = true,
                                   .known = true};
    assert_int_equal(judge(4, 4, 0, failed, false, NULL), CLS_OK);
    assert_int_equal(judge(3, 3, 0, failed, false, NULL), CLS_STALE_READ);
    /* never written: anything of nothing goes */
    struct cross_history never = {.known = true};
    assert_int_equal(judge(GEN_NONE, GEN_NONE, CROSS_NOTHING, never, false, NULL), CLS_OK);
    assert_int_equal(judge(GEN_NONE, GEN_NONE, CROSS_DAMAGED, never, false, NULL), CLS_OK);
    /* a history the journal no longer reaches back to: never a false finding */
    struct cross_history unknown = {.acked = 5, .known = false};
    assert_int_equal(judge(9, 9, 0, unknown, false, NULL), CLS_OK);
    assert_int_equal(judge(4, 4, 0, unknown, false, NULL), CLS_STALE_READ);
}

/* --- the owner's journal --- */

static char dir[64];
static const struct run_meta meta = {.run_id = 0x5eed, .nblocks = 100, .total_blocks = 400,
                                      .block_size = BS, .target_id = 1, .worker = 1,
                                      .workers = 4, .rank = 1, .ranks = 2};

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fl-test-cross-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

/* One write of block b: planned at t, done at t + 10, as the engine does. */
static void write_one(struct statemap *m, struct journal *j, uint64_t b, uint64_t t)
{
    gen_t g = statemap_plan(m, b);
    journal_intent(j, b, g, t);
    statemap_issue(m, b, true, g);
    statemap_write_done(m, b, g, true, false);
    journal_done(j, b, g, false, t + 10);
}

static void flush(struct statemap *m, struct journal *j, uint64_t t)
{
    uint64_t cover = statemap_acked_total(m);
    statemap_flushed(m, cover);
    journal_flush(j, cover, t);
}

static void history_from_the_journal(void **state)
{
    (void)state;
    char err[512];
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    write_one(&m, j, 3, 100); /* gen 1 done at 110 */
    flush(&m, j, 200);        /* durable (published) at 200 */
    write_one(&m, j, 3, 300); /* gen 2 done at 310 */
    write_one(&m, j, 3, 400); /* gen 3 planned at 400, done at 410 */
    write_one(&m, j, 3, 500); /* gen 4 */
    flush(&m, j, 600);        /* 2, 3, 4 durable at 600 */
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    statemap_free(&m);

    struct history_query q[] = {
        {.block = 3, .t_lo = 50, .t_hi = 60},   /* before anything */
        {.block = 3, .t_lo = 150, .t_hi = 160}, /* 1 acked, not flushed */
        {.block = 3, .t_lo = 250, .t_hi = 260}, /* 1 flushed */
        {.block = 3, .t_lo = 305, .t_hi = 405}, /* 2 and 3 race the read */
        {.block = 3, .t_lo = 700, .t_hi = 710}, /* all done and flushed */
        {.block = 9, .t_lo = 700, .t_hi = 710}, /* never written */
    };
    struct history_answer a[6];
    assert_int_equal(journal_history(dir, 6, q, a, err, sizeof err), 0);
    /* the first segment is still there: the history is known from the start */
    for (int i = 0; i < 6; i++)
        assert_true(a[i].known);
    assert_int_equal(a[0].acked, GEN_NONE);
    assert_int_equal(a[0].planned, GEN_NONE);
    assert_int_equal(a[1].acked, 1);
    assert_int_equal(a[1].durable, GEN_NONE);
    assert_int_equal(a[2].durable, 1);
    assert_int_equal(a[3].acked, 1);
    assert_int_equal(a[3].planned, 3);
    assert_int_equal(a[4].acked, 4);
    assert_int_equal(a[4].durable, 4);
    assert_int_equal(a[4].planned, 4);
    assert_int_equal(a[5].planned, GEN_NONE);
    assert_false(a[0].uncertain);
}

/* Past a rotation the first segment is gone: what it held is unknown, and
 * a read the retained records cannot bound is never a finding. */
static void history_after_a_rotation(void **state)
{
    (void)state;
    char err[512];
    struct statemap m;
    assert_int_equal(statemap_init(&m, meta.nblocks), 0);
    struct journal *j = journal_create(dir, &meta, err, sizeof err);
    assert_non_null(j);
    write_one(&m, j, 3, 100); /* gen 1, in segment 1 only */
    write_one(&m, j, 5, 110);
    flush(&m, j, 200);
    assert_int_equal(journal_checkpoint(j, &m), 0);
    write_one(&m, j, 5, 300); /* gen 2 of block 5, in segment 2 */
    flush(&m, j, 400);
    write_one(&m, j, 7, 500);
    /* its last checkpoint rotates again: journal.old is segment 2, segment 1 is gone */
    assert_int_equal(journal_close(j, &m, true, err, sizeof err), 0);
    statemap_free(&m);
    struct history_query q[] = {
        {.block = 3, .t_lo = 350, .t_hi = 360}, /* written before what is kept */
        {.block = 5, .t_lo = 450, .t_hi = 460}, /* written and flushed in what is kept */
    };
    struct history_answer a[2];
    assert_int_equal(journal_history(dir, 2, q, a, err, sizeof err), 0);
    assert_false(a[0].known);
    assert_true(a[1].known);
    assert_int_equal(a[1].acked, 2);
    assert_int_equal(a[1].durable, 2); /* the flush's cover counted from state.bin */
    struct cross_history h = {.acked = a[0].acked, .durable = a[0].durable,
                              .planned = a[0].planned, .known = a[0].known};
    struct cross_read r = {.block = 3, .lo = 1, .hi = 1};
    gen_t need;
    char why[200];
    assert_int_equal(cross_judge(&r, &h, false, &need, why, sizeof why), CLS_OK);
}

static void a_result_travels_whole(void **state)
{
    (void)state;
    struct client_result r;
    memset(&r, 0, sizeof r);
    r.rank = 1;
    snprintf(r.host, sizeof r.host, "c2");
    r.io.reads = 11;
    r.io.writes = 22;
    r.hung = 3;
    r.abandoned = true;
    findings_init(&r.findings, 10);
    struct finding f = {.cls = CLS_STALE_READ, .phase = "workload", .op = "cross read",
                        .block = 77, .expected_gen = 4, .found_gen = 3, .found_known = 1,
                        .client = 1, .owner = 0};
    snprintf(f.detail, sizeof f.detail, "stale");
    findings_add(&r.findings, &f);
    assert_int_equal(buckets_init(&r.series, 100000000ull, 1000000000ull), 0);
    buckets_add(&r.series, 150000000ull, true, false, true, 4096, 1000);
    struct cross_read x = {.block = 9, .t_start = 5, .t_end = 6, .lo = 2, .hi = 2, .reader = 1};
    r.cross = &x;
    r.ncross = 1;
    void *buf;
    size_t len;
    assert_int_equal(client_result_encode(&r, &buf, &len), 0);
    struct client_result back;
    char err[256];
    assert_int_equal(client_result_decode(&back, buf, len, err, sizeof err), 0);
    assert_string_equal(back.host, "c2");
    assert_int_equal(back.io.writes, 22);
    assert_int_equal(back.hung, 3);
    assert_true(back.abandoned);
    assert_int_equal(back.findings.n, 1);
    assert_int_equal(back.findings.counts[CLS_STALE_READ], 1);
    assert_string_equal(back.findings.list[0].op, "cross read");
    assert_string_equal(back.findings.list[0].detail, "stale");
    assert_int_equal(back.series.used, 2);
    assert_int_equal(back.series.b[1].reads, 1);
    assert_int_equal(back.ncross, 1);
    assert_int_equal(back.cross[0].block, 9);
    client_result_free(&back);
    /* cut short anywhere: refused, never read past the end */
    for (size_t cut = 0; cut < len; cut += len / 7 + 1)
        assert_int_equal(client_result_decode(&back, buf, cut, err, sizeof err), -1);
    free(buf);
    r.cross = NULL;
    client_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_a_read_saw),
        cmocka_unit_test(the_promise_decides),
        cmocka_unit_test_setup_teardown(history_from_the_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(history_after_a_rotation, setup, teardown),
        cmocka_unit_test(a_result_travels_whole),
    };
    return cmocka_run_group_tests_name("cross", tests, NULL, NULL);
}
