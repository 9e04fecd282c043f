/*
 * bench/checkpoint.c — how long a state checkpoint holds up its worker.
 *
 *   checkpoint DIR [BLOCKS]
 *
 * A state map of BLOCKS (default 2^26: 256 GiB of 4 KiB blocks, 128 MiB of
 * map) with a durable generation on every third block, a journal in DIR,
 * and three journal_checkpoint() calls: for each, the time the calling
 * thread (a worker, in a run) was held, and the time until the checkpoint
 * was synced and installed as state.bin by the journal's thread.  Built and
 * run by bench/scale.sh against build/libfaultline.a.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../workloads/journal.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: checkpoint DIR [BLOCKS]\n");
        return 2;
    }
    uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1ull << 26;
    struct run_meta meta = {.run_id = 1, .nblocks = n, .total_blocks = n, .block_size = 4096,
                            .workers = 1};
    char err[512];
    struct statemap m;
    if (statemap_init(&m, n) != 0) {
        fprintf(stderr, "checkpoint: out of memory for %" PRIu64 " blocks\n", n);
        return 2;
    }
    for (uint64_t b = 0; b < n; b += 3)
        m.durable[b] = (gen_t)(1 + b % 7);
    struct journal *j = journal_create(argv[1], &meta, err, sizeof err);
    if (!j) {
        fprintf(stderr, "checkpoint: %s\n", err);
        return 2;
    }
    int rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++) {
        double t0 = now();
        rc = journal_checkpoint(j, &m);
        double t1 = now();
        if (rc == 0)
            rc = journal_wait(j, journal_seal(j), err, sizeof err);
        double t2 = now();
        if (rc == 0)
            printf("%" PRIu64 " %.3f %.3f\n", n, t1 - t0, t2 - t0);
        else
            fprintf(stderr, "checkpoint: %s\n", err);
    }
    if (journal_close(j, NULL, false, err, sizeof err) != 0 && rc == 0) {
        fprintf(stderr, "checkpoint: %s\n", err);
        rc = -1;
    }
    statemap_free(&m);
    return rc == 0 ? 0 : 1;
}
