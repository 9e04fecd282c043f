/*
 * Metadata streams on a real directory: a healthy run leaves a tree that
 * matches the model exactly; a file removed behind the stream's back, a name
 * it never made and a changed size are each told with their path and the
 * operation that made the expected state; a failed operation's names may go
 * either way; the model survives save and load; after a crash the model is
 * rebuilt from the stream's journal (no finding on a healthy tree, a torn
 * tail is cut off, a durable name taken away is found, another run's
 * journal refused); a stream killed at random moments, between a batch of
 * intents and its durability point, verifies clean from its journal; a
 * batch of intents costs one journal write, not one per operation; another
 * mix of operations is kept to; a time in which no operation completes is
 * kept as the stream's stall, found by the span it overlaps; a stream
 * directory an earlier run left is made anew only inside a tree of ours.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/batchlog.h"
#include "../../lib/clock.h"
#include "../../workloads/meta.h"

static char root[] = "/tmp/fl-meta-XXXXXX";

static int setup(void **state)
{
    (void)state;
    strcpy(root, "/tmp/fl-meta-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return system(cmd);
}

static const struct finding *find(const struct meta_stream *s, enum fl_class c)
{
    for (size_t i = 0; i < s->findings.n; i++)
        if (s->findings.list[i].cls == c)
            return &s->findings.list[i];
    return NULL;
}

static void run_briefly(struct meta_stream *s, uint64_t *t0)
{
    volatile sig_atomic_t stop = 0;
    assert_int_equal(meta_init(s, root, 0, 42, 100, false), 0);
    *t0 = mono_ns();
    /* 300 ms, longer (up to 5 s) on a slow machine until every kind of
     * change has happened */
    meta_run(s, *t0, 300000000ull, &stop);
    for (int i = 0; i < 47 && !(s->ops[MOP_CREATE] && s->ops[MOP_RENAME] && s->ops[MOP_UNLINK]);
         i++)
        meta_run(s, *t0, mono_ns() - *t0 + 100000000ull, &stop);
    uint64_t all = 0;
    for (int k = 0; k < MOP_COUNT; k++)
        all += s->ops[k];
    assert_true(all > 100);
    assert_true(s->ops[MOP_CREATE] > 0 && s->ops[MOP_RENAME] > 0 && s->ops[MOP_UNLINK] > 0);
    assert_int_equal(s->errors, 0);
}

static void healthy_stream_matches_its_model(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s);
    uint64_t t0;
    run_briefly(s, &t0);
    meta_check_all(s, "sweep", mono_ns() - t0);
    assert_int_equal(s->findings.n, 0);
    meta_free(s);
    free(s);
}

static void damage_is_told_with_path_and_operation(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s);
    uint64_t t0;
    run_briefly(s, &t0);
    /* one present file removed, one resized, one stray name */
    int gone = -1, grown = -1;
    unsigned d = 0;
    for (d = 0; d < META_DIRS && grown < 0; d++)
        for (int f = 0; f < META_SLOTS; f++)
            if (s->dirs[d].state == SLOT_PRESENT && s->files[d][f].state == SLOT_PRESENT) {
                if (gone < 0)
                    gone = f;
                else if (grown < 0) {
                    grown = f;
                    break;
                }
            }
    assert_true(grown >= 0);
    d--;
    char path[4400];
    snprintf(path, sizeof path, "%s/d%u/f%03d", s->dir, d, gone);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/d%u/f%03d", s->dir, d, grown);
    assert_int_equal(truncate(path, s->files[d][grown].size + 1), 0);
    snprintf(path, sizeof path, "%s/d%u/stray", s->dir, d);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    meta_check_all(s, "sweep", mono_ns() - t0);
    assert_int_equal(s->findings.n, 3);
    const struct finding *x = find(s, CLS_MISSING_FILE);
    char want[64];
    snprintf(want, sizeof want, "meta-0/d%u/f%03d", d, gone);
    assert_string_equal(x->path, want);
    assert_true(strcmp(x->op, "create") == 0 || strcmp(x->op, "rename") == 0);
    x = find(s, CLS_WRONG_SIZE);
    snprintf(want, sizeof want, "meta-0/d%u/f%03d", d, grown);
    assert_string_equal(x->path, want);
    x = find(s, CLS_UNEXPECTED_FILE);
    snprintf(want, sizeof want, "meta-0/d%u/stray", d);
    assert_string_equal(x->path, want);
    /* The model took what it saw: told once, not again. */
    meta_check_all(s, "sweep", mono_ns() - t0);
    assert_int_equal(s->findings.n, 4); /* only the stray name, again */
    meta_free(s);
    free(s);
}

/* A failed operation leaves both outcomes allowed: whichever is on disk,
 * no finding, and the model settles on it. */
static void doubtful_names_settle_either_way(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s);
    uint64_t t0;
    run_briefly(s, &t0);
    /* a directory with a file there and a name not there (the ops are
     * random: make the pair if the run left none) */
    unsigned d = 0;
    while (s->dirs[d].state != SLOT_PRESENT)
        d++;
    int there = -1, not_there = -1;
    for (int f = 0; f < META_SLOTS; f++) {
        if (s->files[d][f].state == SLOT_PRESENT && there < 0)
            there = f;
        if (s->files[d][f].state == SLOT_ABSENT && not_there < 0)
            not_there = f;
    }
    char path[4400];
    if (there < 0) {
        there = not_there == 0 ? 1 : 0;
        snprintf(path, sizeof path, "%s/d%u/f%03d", s->dir, d, there);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
        s->files[d][there] = (struct meta_slot){.state = SLOT_PRESENT, .op = MOP_CREATE};
    }
    if (not_there < 0) {
        not_there = there == 0 ? 1 : 0;
        snprintf(path, sizeof path, "%s/d%u/f%03d", s->dir, d, not_there);
        assert_int_equal(unlink(path), 0);
        s->files[d][not_there] = (struct meta_slot){.state = SLOT_ABSENT, .op = MOP_UNLINK};
    }
    /* as a rename that failed half-way would leave them */
    s->files[d][there].state = SLOT_DOUBT;
    s->files[d][not_there].state = SLOT_DOUBT;
    meta_check_all(s, "sweep", mono_ns() - t0);
    assert_int_equal(s->findings.n, 0);
    assert_int_equal(s->files[d][there].state, SLOT_PRESENT);
    assert_int_equal(s->files[d][not_there].state, SLOT_ABSENT);
    meta_free(s);
    free(s);
}

static void model_survives_save_and_load(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s), *t = calloc(1, sizeof *t);
    uint64_t t0;
    run_briefly(s, &t0);
    assert_int_equal(meta_save(s, root), 0);
    assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
    assert_int_equal(meta_load(t, root), 0);
    assert_memory_equal(s->dirs, t->dirs, sizeof s->dirs);
    assert_memory_equal(s->files, t->files, sizeof s->files);
    meta_check_all(t, "verify", 0);
    assert_int_equal(t->findings.n, 0);
    /* a damaged model is refused, not half used */
    char path[4400];
    snprintf(path, sizeof path, "%s/meta-0.model", root);
    assert_int_equal(truncate(path, 100), 0);
    meta_free(t);
    assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
    assert_int_equal(meta_load(t, root), -1);
    assert_non_null(strstr(t->err, "damaged"));
    meta_free(s);
    meta_free(t);
    free(s);
    free(t);
}

/* A stream that journals, "crashes" (journal left open, no model saved),
 * then a verify that rebuilds its model from the journal. */
static void model_rebuilt_from_journal(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s), *t = calloc(1, sizeof *t);
    volatile sig_atomic_t stop = 0;
    assert_int_equal(meta_init(s, root, 0, 42, 100, false), 0);
    assert_int_equal(meta_journal_open(s, root, 0x1234), 0);
    uint64_t t0 = mono_ns();
    meta_run(s, t0, 300000000ull, &stop);
    for (int i = 0; i < 47 && s->durability_points < 2; i++)
        meta_run(s, t0, mono_ns() - t0 + 100000000ull, &stop);
    assert_true(s->durability_points >= 2);
    assert_int_equal(s->findings.n, 0);

    assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
    assert_int_equal(meta_recover(t, root, 0x1234), 0);
    assert_true(t->rebuilt);
    assert_false(t->journal_torn);
    assert_true(t->journal_records > 0);
    assert_int_equal(t->durability_points, s->durability_points);
    meta_check_all(t, "verify", 0);
    assert_int_equal(t->findings.n, 0);
    assert_int_equal(t->names_reverted, 0); /* nothing took anything back */
    assert_true(t->names_checked > 0);
    meta_free(t);

    /* a cut batch at the end is no error, only told */
    char path[4400];
    snprintf(path, sizeof path, "%s/meta-0.journal", root);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("FLJB-cut-short", f);
    fclose(f);
    assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
    assert_int_equal(meta_recover(t, root, 0x1234), 0);
    assert_true(t->journal_torn);
    meta_check_all(t, "verify", 0);
    assert_int_equal(t->findings.n, 0);
    meta_free(t);

    /* a durable directory (the first mkdir came before the first point)
     * taken away: found */
    unsigned gone = 0;
    for (unsigned d = 0; d < META_DIRS; d++)
        if (s->dirs[d].state == SLOT_PRESENT && !s->unsynced[d][0]) {
            char cmd[4500];
            snprintf(cmd, sizeof cmd, "rm -rf %s/meta-0/d%u", root, d);
            assert_int_equal(system(cmd), 0);
            gone++;
            break;
        }
    assert_int_equal(gone, 1);
    assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
    assert_int_equal(meta_recover(t, root, 0x1234), 0);
    meta_check_all(t, "verify", 0);
    assert_non_null(find(t, CLS_MISSING_FILE));
    meta_free(t);

    /* the journal of another run */
    assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
    assert_int_equal(meta_recover(t, root, 0x9999), -1);
    assert_non_null(strstr(t->err, "another run"));
    meta_free(t);
    meta_free(s);
    free(s);
    free(t);
}

/* A stream that ends cleanly closes its journal: verify takes the model
 * file. */
static void closed_journal_uses_the_model(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s), *t = calloc(1, sizeof *t);
    volatile sig_atomic_t stop = 0;
    assert_int_equal(meta_init(s, root, 0, 42, 100, false), 0);
    assert_int_equal(meta_journal_open(s, root, 7), 0);
    uint64_t t0 = mono_ns();
    meta_run(s, t0, 200000000ull, &stop);
    meta_check_all(s, "sweep", mono_ns() - t0);
    assert_int_equal(meta_save(s, root), 0);
    assert_int_equal(meta_journal_close(s), 0);
    assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
    assert_int_equal(meta_recover(t, root, 7), 0);
    assert_false(t->rebuilt);
    assert_memory_equal(s->files, t->files, sizeof s->files);
    meta_check_all(t, "verify", 0);
    assert_int_equal(t->findings.n, 0);
    meta_free(s);
    meta_free(t);
    free(s);
    free(t);
}

static int count_rec(void *ctx, const void *rec)
{
    (void)rec;
    ++*(uint64_t *)ctx;
    return 0;
}

/* The stream is killed (SIGKILL, as a crash of faultline) at random
 * moments: mostly after a batch of intents was synced and before the
 * durability point that follows it, with operations of the batch issued
 * and others not.  Each time verify rebuilds the model from the journal
 * and finds nothing wrong with the tree. */
static void killed_between_intents_and_point_verifies(void **state)
{
    (void)state;
    unsigned mid_batch = 0;
    struct meta_stream *t = calloc(1, sizeof *t);
    for (unsigned trial = 0; trial < 12; trial++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s/meta-0 %s/meta-0.journal", root, root);
        assert_int_equal(system(cmd), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            static struct meta_stream s;
            volatile sig_atomic_t stop = 0;
            if (meta_init(&s, root, 0, 1000 + trial, 100, false) != 0 ||
                meta_journal_open(&s, root, 0x77) != 0)
                _exit(3);
            meta_run(&s, mono_ns(), 20000000000ull, &stop);
            _exit(4); /* killed long before */
        }
        /* the kill comes a while after the stream's first batch is in the
         * journal (a slow start under the sanitizers must not make the
         * kill come first); waited for 5 s at most */
        char jpath[4400];
        snprintf(jpath, sizeof jpath, "%s/meta-0.journal", root);
        struct stat jst;
        struct timespec tick = {0, 5000000L};
        for (int w = 0; w < 1000 && !(stat(jpath, &jst) == 0 && jst.st_size > 256); w++)
            nanosleep(&tick, NULL);
        struct timespec ts = {0, (long)(20 + 23 * trial) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        assert_int_equal(meta_init(t, root, 0, 1, 100, true), 0);
        assert_int_equal(meta_recover(t, root, 0x77), 0);
        assert_true(t->rebuilt);
        unsigned open_names = 0;
        for (unsigned d = 0; d < META_DIRS; d++)
            for (int k = 0; k <= META_SLOTS; k++)
                open_names += t->unsynced[d][k];
        mid_batch += open_names > 0;
        meta_check_all(t, "verify", 0);
        if (t->findings.n)
            fail_msg("trial %u: %s: %s", trial, t->findings.list[0].path,
                     t->findings.list[0].detail);
        meta_free(t);
    }
    assert_true(mid_batch >= 6); /* most kills came between intents and their point */
    free(t);
}

/* Intents are synced a batch at a time: the journal holds far fewer
 * batches (each one write and one sync) than operations that changed
 * names. */
static void intents_are_synced_a_batch_at_a_time(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s);
    volatile sig_atomic_t stop = 0;
    assert_int_equal(meta_init(s, root, 0, 42, 100, false), 0);
    assert_int_equal(meta_journal_open(s, root, 5), 0);
    uint64_t t0 = mono_ns();
    meta_run(s, t0, 300000000ull, &stop);
    uint64_t changing = s->ops[MOP_MKDIR] + s->ops[MOP_CREATE] + s->ops[MOP_RENAME] +
                        s->ops[MOP_UNLINK];
    assert_true(changing >= 4 * META_PLAN_CHANGES);
    assert_int_equal(s->errors, 0);
    char path[4400], err[256];
    snprintf(path, sizeof path, "%s/meta-0.journal", root);
    struct jlog_info info;
    uint64_t n = 0;
    assert_int_equal(jlog_read(path, 0x4154454du, 32, count_rec, &n, &info, err, sizeof err), 0);
    /* one batch per META_PLAN_CHANGES changes, give or take a dropped plan */
    assert_true(info.batches * (META_PLAN_CHANGES / 2) <= changing);
    meta_check_all(s, "sweep", mono_ns() - t0);
    assert_int_equal(s->findings.n, 0);
    meta_free(s);
    free(s);
}

/* A mix of creates and unlinks only: nothing else is done but the mkdir
 * the stream needs for a directory to work in; a mix is parsed with its
 * mistakes told. */
static void another_mix_is_kept_to(void **state)
{
    (void)state;
    unsigned mix[MOP_COUNT];
    char err[256];
    assert_int_equal(meta_mix_parse("create:50, unlink:50", mix, err, sizeof err), 0);
    assert_int_equal(mix[MOP_CREATE], 50);
    assert_int_equal(mix[MOP_UNLINK], 50);
    assert_int_equal(mix[MOP_STAT], 0);
    assert_int_equal(meta_mix_parse("create:50, chmod:5", mix, err, sizeof err), -1);
    assert_non_null(strstr(err, "chmod"));
    assert_int_equal(meta_mix_parse("create:x", mix, err, sizeof err), -1);
    assert_int_equal(meta_mix_parse("stat:0", mix, err, sizeof err), -1);

    struct meta_stream *s = calloc(1, sizeof *s);
    volatile sig_atomic_t stop = 0;
    assert_int_equal(meta_init(s, root, 0, 9, 100, false), 0);
    assert_int_equal(meta_mix_parse("create:50, unlink:50", mix, err, sizeof err), 0);
    meta_set_mix(s, mix);
    uint64_t t0 = mono_ns();
    meta_run(s, t0, 200000000ull, &stop);
    assert_true(s->ops[MOP_CREATE] > 100 && s->ops[MOP_UNLINK] > 100);
    assert_int_equal(s->ops[MOP_RENAME] + s->ops[MOP_STAT] + s->ops[MOP_READDIR], 0);
    assert_true(s->ops[MOP_MKDIR] >= 1 && s->ops[MOP_MKDIR] <= META_DIRS);
    meta_check_all(s, "sweep", mono_ns() - t0);
    assert_int_equal(s->findings.n, 0);
    meta_free(s);
    free(s);
}

/* The stream stops for 400 ms (as while a metadata server is replaced):
 * that gap is its longest, told for any span that overlaps it and for no
 * span before it. */
static void a_pause_is_the_streams_stall(void **state)
{
    (void)state;
    struct meta_stream *s = calloc(1, sizeof *s);
    uint64_t t0;
    run_briefly(s, &t0);
    uint64_t paused = mono_ns() - t0;
    struct timespec ts = {0, 400000000L};
    nanosleep(&ts, NULL);
    volatile sig_atomic_t stop = 0;
    meta_run(s, t0, mono_ns() - t0 + 100000000ull, &stop);
    struct meta_gap g;
    uint64_t longest = meta_longest_gap(s, 1, 0, UINT64_MAX, &g);
    assert_true(longest >= 400000000ull);
    assert_int_equal(longest, g.to_ns - g.from_ns);
    assert_true(g.from_ns <= paused && g.to_ns >= paused + 400000000ull);
    assert_int_equal(meta_longest_gap(s, 1, paused + 100000000ull, paused + 200000000ull, NULL),
                     longest);
    assert_true(meta_longest_gap(s, 1, 0, g.from_ns - 1, NULL) < longest);
    assert_true(s->ngaps >= 1 && s->ngaps <= META_GAPS);
    meta_free(s);
    free(s);
}

/* A stream directory of an earlier run still there when the stream starts
 * (a replicated filesystem's listing did not show it to the tree's
 * emptying): inside a tree of faultline's it is removed and made anew;
 * elsewhere it is refused, with what is there left alone. */
static void a_stale_stream_dir_is_made_anew_in_a_tree_only(void **state)
{
    (void)state;
    char path[256];
    struct meta_stream s;
    snprintf(path, sizeof path, "%s/meta-0", root);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/meta-0/old", root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    /* not a tree of faultline's: refused, nothing removed */
    assert_int_equal(meta_init(&s, root, 0, 42, 100, false), -1);
    assert_non_null(strstr(s.err, "not a tree of faultline"));
    assert_int_equal(access(path, F_OK), 0);
    meta_free(&s);
    /* with the marker: made anew, empty */
    char marker[256];
    snprintf(marker, sizeof marker, "%s/.faultline-tree", root);
    f = fopen(marker, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(meta_init(&s, root, 0, 42, 100, false), 0);
    assert_int_equal(access(path, F_OK), -1);
    snprintf(path, sizeof path, "%s/meta-0", root);
    assert_int_equal(access(path, F_OK), 0);
    meta_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(healthy_stream_matches_its_model, setup, teardown),
        cmocka_unit_test_setup_teardown(damage_is_told_with_path_and_operation, setup, teardown),
        cmocka_unit_test_setup_teardown(doubtful_names_settle_either_way, setup, teardown),
        cmocka_unit_test_setup_teardown(model_survives_save_and_load, setup, teardown),
        cmocka_unit_test_setup_teardown(model_rebuilt_from_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(closed_journal_uses_the_model, setup, teardown),
        cmocka_unit_test_setup_teardown(killed_between_intents_and_point_verifies, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(intents_are_synced_a_batch_at_a_time, setup, teardown),
        cmocka_unit_test_setup_teardown(another_mix_is_kept_to, setup, teardown),
        cmocka_unit_test_setup_teardown(a_pause_is_the_streams_stall, setup, teardown),
        cmocka_unit_test_setup_teardown(a_stale_stream_dir_is_made_anew_in_a_tree_only, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
