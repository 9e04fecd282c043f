/*
 * fuzz_journal — a worker's checkpoint and journal, as `faultline verify`
 * reads them after a crash: state.bin, journal.bin and journal.old (the
 * input's three parts, cut at FZ_SEP) in a run directory, then
 * state_read_meta, state_load (checkpoint + replay), journal_lookup_done
 * and journal_history over the loaded state's first blocks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../workloads/journal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {"state.bin", "journal.bin", "journal.old"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_dir();
    const uint8_t *part[3];
    size_t len[3];
    size_t n = fz_split(data, size, part, len, 3);
    for (size_t i = 0; i < 3; i++) {
        if (i < n)
            fz_write(dir, files[i], part[i], len[i]);
        else
            fz_unlink(dir, files[i]);
    }
    char err[4096] = "";
    struct run_meta meta;
    state_read_meta(dir, &meta, err, sizeof err);
    struct statemap m;
    struct load_info info;
    err[0] = '\0';
    if (state_load(dir, &meta, &m, &info, err, sizeof err) == 0) {
        /* what verify asks of the journal next: when writes completed, and
         * what other clients' reads could have seen */
        enum { Q = 4 };
        uint64_t block[Q], t[Q];
        gen_t gen[Q];
        struct history_query q[Q];
        struct history_answer a[Q];
        for (unsigned i = 0; i < Q; i++) {
            block[i] = meta.nblocks ? i % meta.nblocks : 0;
            gen[i] = (gen_t)(i + 1);
            q[i] = (struct history_query){.block = block[i], .t_lo = i * 1000000ull,
                                          .t_hi = (i + 1) * 5000000ull};
        }
        journal_lookup_done(dir, Q, block, gen, t);
        journal_history(dir, Q, q, a, err, sizeof err);
        statemap_free(&m);
    } else if (!err[0]) {
        fprintf(stderr, "state_load refused without saying why\n");
        __builtin_trap();
    }
    return 0;
}
