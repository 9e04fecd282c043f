/*
 * The state map: when a write counts as acknowledged and when as durable,
 * what a read may return, and that it stays at 2 bytes per block at rest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/statemap.h"

static struct expectation exp_of(struct statemap *m, uint64_t b, bool online)
{
    struct expectation e;
    statemap_expect(m, b, online, &e);
    return e;
}

/* One write of b through its whole life; returns its generation. */
static gen_t write_block(struct statemap *m, uint64_t b)
{
    gen_t g = statemap_plan(m, b);
    assert_int_not_equal(g, GEN_NONE);
    assert_int_equal(statemap_issue(m, b, true, g), 0);
    assert_int_equal(statemap_write_done(m, b, g, true, false), 0);
    return g;
}

static void a_completed_write_is_acknowledged_not_durable(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 100), 0);
    gen_t g = write_block(&m, 5);
    assert_int_equal(g, 1);
    struct expectation e = exp_of(&m, 5, true);
    assert_int_equal(e.lo, GEN_NONE);
    assert_int_equal(e.acked, 1);
    assert_true(e.strict);
    assert_int_equal(m.durable[5], GEN_NONE);
    statemap_free(&m);
}

static void a_flush_makes_durable_what_completed_before_it(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 100), 0);
    write_block(&m, 1);
    write_block(&m, 2);
    uint64_t cover = statemap_acked_total(&m); /* flush submitted now */
    write_block(&m, 3);                        /* completes after the submission */
    statemap_flushed(&m, cover);
    assert_int_equal(m.durable[1], 1);
    assert_int_equal(m.durable[2], 1);
    assert_int_equal(m.durable[3], GEN_NONE);
    assert_null(statemap_find(&m, 1)); /* fully durable: no pending entry */
    assert_non_null(statemap_find(&m, 3));
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_int_equal(m.durable[3], 1);
    assert_int_equal(m.count, 0);
    statemap_free(&m);
}

static void o_dsync_writes_are_durable_at_completion(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    gen_t g = statemap_plan(&m, 4);
    statemap_issue(&m, 4, true, g);
    statemap_write_done(&m, 4, g, true, true);
    assert_int_equal(m.durable[4], g);
    assert_int_equal(m.count, 0);
    assert_int_equal(m.ack_len, 0);
    statemap_free(&m);
}

static void a_failed_write_leaves_both_generations_allowed(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    write_block(&m, 6);
    statemap_flushed(&m, statemap_acked_total(&m));
    gen_t g = statemap_plan(&m, 6);
    statemap_issue(&m, 6, true, g);
    statemap_write_done(&m, 6, g, false, false);
    struct expectation e = exp_of(&m, 6, true);
    assert_int_equal(e.lo, 1);
    assert_int_equal(e.hi, 2);
    assert_false(e.strict);
    /* A later write that completes settles the doubt. */
    write_block(&m, 6);
    e = exp_of(&m, 6, true);
    assert_true(e.strict);
    assert_int_equal(e.acked, 3);
    statemap_free(&m);
}

static void after_a_crash_every_planned_generation_is_allowed(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    write_block(&m, 7);
    statemap_flushed(&m, statemap_acked_total(&m));
    write_block(&m, 7);                   /* gen 2, acknowledged */
    gen_t g3 = statemap_plan(&m, 7);      /* gen 3, journaled, maybe issued */
    assert_int_equal(g3, 3);
    struct expectation e = exp_of(&m, 7, false);
    assert_int_equal(e.lo, 1);
    assert_int_equal(e.hi, 3);
    assert_false(e.strict);
    /* The run ended before issuing it: it cannot be on the media. */
    statemap_unplan(&m, 7);
    e = exp_of(&m, 7, false);
    assert_int_equal(e.hi, 2);
    statemap_free(&m);
}

static void reads_mark_the_block_busy_until_done(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    assert_false(statemap_busy(&m, 3));
    statemap_issue(&m, 3, false, GEN_NONE);
    assert_true(statemap_busy(&m, 3));
    statemap_read_done(&m, 3);
    assert_false(statemap_busy(&m, 3));
    assert_int_equal(m.count, 0); /* an untouched block leaves nothing behind */
    assert_false(statemap_touched(&m, 3));
    statemap_free(&m);
}

static void generations_wrap_after_65535(void **state)
{
    (void)state;
    assert_int_equal(gen_next(65535), 1);
    assert_int_equal(gen_next(GEN_NONE), 1);
    assert_true(gen_cmp(1, 65535) > 0);
    assert_true(gen_cmp(65535, 1) < 0);
    assert_true(gen_cmp(GEN_NONE, 1) < 0);
    assert_true(gen_cmp(40000, 100) < 0); /* more than half the ring ahead: older */
    assert_int_equal(gen_distance(65535, 2), 2);

    struct statemap m;
    assert_int_equal(statemap_init(&m, 2), 0);
    for (int i = 0; i < 70000; i++) {
        gen_t g = write_block(&m, 0);
        statemap_flushed(&m, statemap_acked_total(&m));
        assert_int_equal(m.durable[0], g);
    }
    assert_int_equal(m.durable[0], 70000 % 65535);
    assert_int_equal(m.count, 0);
    statemap_free(&m);
}

static void a_block_cannot_run_too_far_ahead_of_durable(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 2), 0);
    int planned = 0;
    while (statemap_plan(&m, 1) != GEN_NONE)
        planned++;
    assert_int_equal(planned, STATEMAP_MAX_AHEAD);
    statemap_free(&m);
}

/* Many blocks through random transitions against a plain model: the hash
 * table (growth, backward-shift deletion) never loses or invents state. */
static void random_transitions_match_a_plain_model(void **state)
{
    (void)state;
    enum { N = 5000 };
    struct statemap m;
    assert_int_equal(statemap_init(&m, N), 0);
    static gen_t acked[N], durable[N];
    static uint64_t queue_b[400000];
    static gen_t queue_g[400000];
    size_t qn = 0, qdone = 0;
    memset(acked, 0, sizeof acked);
    memset(durable, 0, sizeof durable);
    uint64_t x = 88172645463325252ull;
    for (int step = 0; step < 300000; step++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t b = x % N;
        if ((x >> 40) % 97 == 0) {
            statemap_flushed(&m, statemap_acked_total(&m));
            for (; qdone < qn; qdone++)
                if (gen_cmp(queue_g[qdone], durable[queue_b[qdone]]) > 0)
                    durable[queue_b[qdone]] = queue_g[qdone];
            continue;
        }
        gen_t g = write_block(&m, b);
        acked[b] = g;
        queue_b[qn] = b;
        queue_g[qn++] = g;
    }
    for (uint64_t b = 0; b < N; b++) {
        struct expectation e = exp_of(&m, b, true);
        assert_int_equal(e.lo, durable[b]);
        assert_int_equal(e.acked, acked[b]);
        assert_int_equal(m.durable[b], durable[b]);
    }
    assert_true(m.peak > 100);
    statemap_free(&m);
}

/* A power loss: what was acknowledged and not flushed may come back older;
 * a flush after it makes none of it durable. */
static void a_flush_after_a_power_loss_promotes_nothing(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    write_block(&m, 1);
    statemap_flushed(&m, statemap_acked_total(&m)); /* gen 1 durable */
    write_block(&m, 1);                             /* gen 2 acknowledged */
    write_block(&m, 2);                             /* gen 1 acknowledged */
    uint64_t cover = statemap_acked_total(&m);      /* a flush submitted before the loss */
    assert_int_equal(statemap_power_loss(&m, 3, false), 2);
    assert_int_equal(statemap_power_loss(&m, 3, true), 2);
    statemap_flushed(&m, cover);                    /* ... completes after it */
    assert_int_equal(m.durable[1], 1);
    assert_int_equal(m.durable[2], GEN_NONE);
    struct expectation e = exp_of(&m, 1, true);
    assert_true(e.revertible);
    assert_false(e.strict);
    assert_int_equal(e.lo, 1);
    assert_int_equal(e.acked, 2);
    assert_int_equal(e.hi, 2);
    assert_int_equal(e.loss, 3);
    /* Another flush, later still, changes nothing either. */
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_int_equal(m.durable[1], 1);
    assert_true(exp_of(&m, 2, true).revertible);
    statemap_free(&m);
}

/* A write issued after the loss starts a clean history for its block; one
 * that was on its way when the power went stays at risk when it completes. */
static void a_write_after_the_loss_clears_the_doubt(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    write_block(&m, 4);                       /* gen 1 acknowledged */
    gen_t g = statemap_plan(&m, 5);           /* gen 1 of block 5, in flight */
    statemap_issue(&m, 5, true, g);
    statemap_power_loss(&m, 1, false);
    statemap_power_loss(&m, 1, true);
    statemap_write_done(&m, 5, g, true, false);
    struct expectation e = exp_of(&m, 5, true);
    assert_true(e.revertible);
    assert_int_equal(e.acked, 1);
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_int_equal(m.durable[5], GEN_NONE); /* never durable through a dead cache */

    gen_t g2 = write_block(&m, 4);            /* issued after the loss */
    e = exp_of(&m, 4, true);
    assert_false(e.revertible);
    assert_true(e.strict);
    assert_int_equal(e.acked, g2);
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_int_equal(m.durable[4], g2);
    assert_null(statemap_find(&m, 4));
    statemap_free(&m);
}

/* Near the wrap of generations (65535 -> 1) the revertible window still
 * orders right. */
static void a_power_loss_across_the_wrap(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 2), 0);
    for (int i = 0; i < 65534; i++) {
        write_block(&m, 0);
        statemap_flushed(&m, statemap_acked_total(&m));
    }
    assert_int_equal(m.durable[0], 65534);
    write_block(&m, 0); /* 65535 */
    write_block(&m, 0); /* 1 */
    statemap_power_loss(&m, 1, false);
    statemap_power_loss(&m, 1, true);
    struct expectation e = exp_of(&m, 0, true);
    assert_true(e.revertible);
    assert_int_equal(e.lo, 65534);
    assert_int_equal(e.acked, 1);
    assert_true(gen_cmp(65535, e.acked) < 0 && gen_cmp(65535, e.lo) > 0);
    gen_t g = write_block(&m, 0); /* 2: after the loss */
    assert_int_equal(g, 2);
    assert_false(exp_of(&m, 0, true).revertible);
    statemap_free(&m);
}

/* After a crash of the run, acknowledged but unflushed writes are allowed
 * to be missing, and said to be: revertible down to the durable one. */
static void after_a_crash_unflushed_acks_are_revertible(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    write_block(&m, 3);
    statemap_flushed(&m, statemap_acked_total(&m));
    write_block(&m, 3);
    struct expectation e = exp_of(&m, 3, false);
    assert_true(e.revertible);
    assert_int_equal(e.loss, 0);
    assert_int_equal(e.lo, 1);
    assert_int_equal(e.acked, 2);
    assert_false(exp_of(&m, 3, true).revertible); /* online nothing allows it */
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_false(exp_of(&m, 3, false).revertible);
    statemap_free(&m);
}

/* A cut takes time: what completes between its begin and its end is at
 * risk too, and no flush in that window makes anything durable. */
static void writes_completed_during_the_cut_are_at_risk(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 10), 0);
    assert_int_equal(statemap_power_loss(&m, 2, false), 0);
    write_block(&m, 8);                         /* issued and acked during the cut */
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_int_equal(m.durable[8], GEN_NONE);
    gen_t g = statemap_plan(&m, 9);             /* issued during the cut, still on its way */
    statemap_issue(&m, 9, true, g);
    assert_int_equal(statemap_power_loss(&m, 2, true), 2);
    statemap_write_done(&m, 9, g, true, false); /* acked after: maybe by the dying cache */
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_int_equal(m.durable[9], GEN_NONE);
    assert_true(exp_of(&m, 8, true).revertible);
    assert_true(exp_of(&m, 9, true).revertible);
    gen_t g2 = write_block(&m, 8);              /* after the end: a clean history */
    statemap_flushed(&m, statemap_acked_total(&m));
    assert_int_equal(m.durable[8], g2);
    statemap_free(&m);
}

static void two_bytes_per_block_at_rest(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 1u << 20), 0);
    assert_int_equal(statemap_bytes_at_rest(&m), 2u << 20);
    statemap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_completed_write_is_acknowledged_not_durable),
        cmocka_unit_test(a_flush_makes_durable_what_completed_before_it),
        cmocka_unit_test(o_dsync_writes_are_durable_at_completion),
        cmocka_unit_test(a_failed_write_leaves_both_generations_allowed),
        cmocka_unit_test(after_a_crash_every_planned_generation_is_allowed),
        cmocka_unit_test(reads_mark_the_block_busy_until_done),
        cmocka_unit_test(generations_wrap_after_65535),
        cmocka_unit_test(a_block_cannot_run_too_far_ahead_of_durable),
        cmocka_unit_test(random_transitions_match_a_plain_model),
        cmocka_unit_test(a_flush_after_a_power_loss_promotes_nothing),
        cmocka_unit_test(a_write_after_the_loss_clears_the_doubt),
        cmocka_unit_test(a_power_loss_across_the_wrap),
        cmocka_unit_test(after_a_crash_unflushed_acks_are_revertible),
        cmocka_unit_test(writes_completed_during_the_cut_are_at_risk),
        cmocka_unit_test(two_bytes_per_block_at_rest),
    };
    return cmocka_run_group_tests_name("statemap", tests, NULL, NULL);
}
