/*
 * The sweep's way through the state map: statemap_next_durable (a word of
 * the map at a time) together with statemap_pending_blocks finds exactly
 * the blocks statemap_touched says were written, in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../checks/statemap.h"
#include "../../lib/rng.h"

/* Every touched block, as the sweep finds them. */
static size_t sweep_order(const struct statemap *m, uint64_t *got)
{
    uint64_t *pend;
    size_t npend, pi = 0, n = 0;
    assert_int_equal(statemap_pending_blocks(m, &pend, &npend), 0);
    for (uint64_t l = 0;; l++) {
        uint64_t d = statemap_next_durable(m, l);
        while (pi < npend && pend[pi] < l)
            pi++;
        l = pi < npend && pend[pi] < d ? pend[pi] : d;
        if (l >= m->nblocks)
            break;
        got[n++] = l;
    }
    free(pend);
    return n;
}

static void the_sweep_finds_every_touched_block(void **state)
{
    (void)state;
    /* sizes around the word of four, and a larger one */
    const uint64_t sizes[] = {1, 3, 4, 5, 7, 8, 9, 1001, 65536 + 3};
    struct rng r;
    rng_seed(&r, 42);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        uint64_t nb = sizes[s];
        struct statemap m;
        assert_int_equal(statemap_init(&m, nb), 0);
        /* durable ones, pending-only ones (planned, acked, not flushed),
         * and blocks only read (a pending entry with nothing planned) */
        for (uint64_t i = 0; i < nb / 3 + 1; i++) {
            uint64_t b = rng_below(&r, nb);
            gen_t g = statemap_plan(&m, b);
            statemap_issue(&m, b, true, g);
            statemap_write_done(&m, b, g, true, false);
            if (rng_below(&r, 2))
                statemap_flushed(&m, statemap_acked_total(&m));
        }
        for (uint64_t i = 0; i < nb / 5 + 1; i++)
            statemap_issue(&m, rng_below(&r, nb), false, GEN_NONE);
        uint64_t *got = calloc(nb, sizeof *got);
        assert_non_null(got);
        size_t n = sweep_order(&m, got), k = 0;
        for (uint64_t b = 0; b < nb; b++)
            if (statemap_touched(&m, b)) {
                assert_true(k < n);
                assert_int_equal(got[k], b);
                k++;
            }
        assert_int_equal(k, n);
        /* the last block alone, and none at all */
        assert_int_equal(statemap_next_durable(&m, nb), nb);
        free(got);
        statemap_free(&m);
    }
}

static void an_unwritten_map_is_passed_in_one_step(void **state)
{
    (void)state;
    struct statemap m;
    assert_int_equal(statemap_init(&m, 1u << 20), 0);
    assert_int_equal(statemap_next_durable(&m, 0), 1u << 20);
    gen_t g = statemap_plan(&m, 777777);
    statemap_write_done(&m, 777777, g, true, true); /* durable at once */
    assert_int_equal(statemap_next_durable(&m, 0), 777777);
    assert_int_equal(statemap_next_durable(&m, 777777), 777777);
    assert_int_equal(statemap_next_durable(&m, 777778), 1u << 20);
    statemap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_sweep_finds_every_touched_block),
        cmocka_unit_test(an_unwritten_map_is_passed_in_one_step),
    };
    return cmocka_run_group_tests_name("statemap_scan", tests, NULL, NULL);
}
