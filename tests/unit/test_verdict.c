/*
 * The verdict: integrity rules hold unless the scenario restates them, a
 * written expectation replaces the rule for its metric, and findings on
 * blocks that a corrupt fault of the run overwrote are the detection the
 * fault was there for, not damage.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../harness/scenario/scenario.h"
#include "../../harness/judge/verdict.h"

static struct scenario sc;
static struct findings fnd;
static struct io_stats io;

static void load(const char *expect_lines)
{
    char text[1024];
    snprintf(text, sizeof text, "[target]\nkind = file\npath = /tmp/x.img\n%s", expect_lines);
    char err[FL_ERRLEN];
    if (scenario_parse(text, "v.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static void bad_read(uint64_t block, enum fl_class cls, uint64_t at_ns)
{
    struct finding f = {.cls = cls, .phase = "workload", .op = "read", .block = block,
                        .read_ns = at_ns, .written_ns = FL_TIME_UNKNOWN};
    findings_add(&fnd, &f);
}

static const struct expect_result *result(const struct verdict *v, const char *text)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->results[i].rule.text, text) == 0)
            return &v->results[i];
    fail_msg("no rule '%s'", text);
    return NULL;
}

static struct verdict_input input(void)
{
    return (struct verdict_input){.sc = &sc, .run = true, .findings = &fnd, .io = &io,
                                  .block_size = 4096, .nblocks = 256, .max_stall_s = 0.5};
}

static void integrity_rules_need_no_words(void **state)
{
    (void)state;
    load("");
    findings_init(&fnd, 100);
    struct verdict_input in = input();
    struct verdict v;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_true(v.pass);
    assert_int_equal(v.n, 8); /* lost_writes .. io_errors, hung */
    verdict_free(&v);

    bad_read(7, CLS_LOST_WRITE, 1000);
    in.hung = 3;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_false(v.pass);
    assert_int_equal(v.failed, 2);
    assert_false(result(&v, "lost_writes = 0")->pass);
    assert_true(result(&v, "lost_writes = 0")->measured == 1);
    assert_false(result(&v, "hung = 0")->pass);
    verdict_free(&v);
    findings_free(&fnd);
}

static void a_written_expectation_replaces_the_rule(void **state)
{
    (void)state;
    load("[expect]\nlost_writes <= 2\nmax_stall <= 1s\nrecovery <= 5s\n");
    findings_init(&fnd, 100);
    bad_read(7, CLS_LOST_WRITE, 1000);
    bad_read(9, CLS_LOST_WRITE, 2000);
    struct verdict_input in = input();
    struct verdict v;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_true(v.pass);
    assert_int_equal(v.n, 3 + 7); /* three written, the other seven rules */
    assert_true(result(&v, "max_stall <= 1s")->measured == 0.5);
    verdict_free(&v);

    /* A fault that never recovered fails `recovery`, with the reason. */
    struct recovery r[1] = {{.injected = true, .recovered = false}};
    in.recovery = r;
    in.nfaults = 1;
    struct fault f = {.ops = fault_ops_find("kill"), .injected_ns = 1, .applied = true};
    in.faults = &f;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_false(v.pass);
    const struct expect_result *x = result(&v, "recovery <= 5s");
    assert_false(x->known);
    assert_non_null(strstr(x->why, "never recovered"));
    verdict_free(&v);
    findings_free(&fnd);
}

/* A lab's storage made whole again is measured in the lab's own word:
 * gluster heals (heal), ceph recovers (recover).  Each expectation reads
 * only its own word's time; the other says why it has none. */
static void heal_and_recover_are_each_labs_own_word(void **state)
{
    (void)state;
    load("[expect]\nheal <= 60s\nrecover <= 60s\n");
    findings_init(&fnd, 100);
    struct verdict_input in = input();
    struct recovery r[2] = {
        {.injected = true, .recovered = true, .heal_measured = true, .healed = true,
         .heal_s = 40, .heal_word = "recover", .heal_whole = "HEALTH_OK"},
        {.injected = true, .recovered = true, .heal_measured = true, .healed = true,
         .heal_s = 50, .heal_word = "recover", .heal_whole = "HEALTH_OK"},
    };
    struct fault f[2] = {{.ops = fault_ops_find("kill"), .injected_ns = 1, .applied = true},
                         {.ops = fault_ops_find("kill"), .injected_ns = 2, .applied = true}};
    in.recovery = r;
    in.faults = f;
    in.nfaults = 2;
    struct verdict v;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    const struct expect_result *rec = result(&v, "recover <= 60s");
    assert_true(rec->known && rec->pass);
    assert_true(rec->measured == 50); /* the longest of the faults */
    const struct expect_result *heal = result(&v, "heal <= 60s");
    assert_false(heal->known);
    assert_non_null(strstr(heal->why, "no heal was measured"));
    assert_false(v.pass);
    verdict_free(&v);

    /* a fault after which the cluster never recovered fails it, and says so */
    r[1].healed = false;
    load("[expect]\nrecover <= 60s\n");
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    rec = result(&v, "recover <= 60s");
    assert_false(rec->known || rec->pass);
    assert_non_null(strstr(rec->why, "did not recover within heal_wait"));
    assert_false(v.pass);
    verdict_free(&v);
    findings_free(&fnd);
}

/* A corrupt fault prepared by its family, as the timeline would: one range
 * from byte 100 of block 10 to byte 99 of block 12 of `path`, written at
 * 5000 ns; `target` is the scenario's own target. */
static void corrupt_fault(struct fault *f, struct fault_env *env, const char *path,
                          const char *target)
{
    char text[1024], err[1024];
    snprintf(text, sizeof text, "[scenario]\nallow_destructive = yes\nallow_paths = %s\n"
             "[target]\nkind = file\npath = %s\n[fault rot]\naction = corrupt\npath = %s\n"
             "offset = %d\nlength = %d\n", path, target, path, 10 * 4096 + 100, 2 * 4096);
    static struct scenario fsc;
    if (scenario_parse(text, "c.scn", &fsc, err, sizeof err) != 0)
        fail_msg("%s", err);
    *env = (struct fault_env){.target_path = target, .block_size = 4096,
                              .target_bytes = 256 * 4096, .allow_destructive = true,
                              .allow_paths = fsc.allow_paths};
    *f = (struct fault){.spec = fsc.faults[0], .ops = fsc.faults[0].ops, .env = env};
    if (f->ops->prepare(f, err, sizeof err) != 0)
        fail_msg("%s", err);
    f->injected_ns = 5000;
    f->applied = true;
}

static void detected_corruption_is_not_damage(void **state)
{
    (void)state;
    char path[] = "/tmp/fl-verdict-XXXXXX", other[] = "/tmp/fl-verdict-other-XXXXXX";
    int fd = mkstemp(path), fo = mkstemp(other);
    assert_true(fd >= 0 && fo >= 0);
    assert_int_equal(ftruncate(fd, 256 * 4096), 0);
    assert_int_equal(ftruncate(fo, 256 * 4096), 0);
    close(fd);
    close(fo);
    load("[expect]\ndetected_corrupt = 2\nundetected_corrupt = 1\n");
    findings_init(&fnd, 100);
    struct fault f;
    struct fault_env env;
    corrupt_fault(&f, &env, path, path);
    const uint64_t(*ranges)[2];
    bool on_target = false;
    assert_int_equal(f.ops->overwrote(&f, &ranges, &on_target), 1);
    assert_true(on_target);
    bad_read(10, CLS_CORRUPT, 6000);  /* its first, partly overwritten block */
    bad_read(12, CLS_ZEROED, 7000);   /* its last one */
    bad_read(40, CLS_CORRUPT, 8000);  /* elsewhere: real damage */
    bad_read(11, CLS_CORRUPT, 4000);  /* before the fault: not its doing */
    struct verdict_input in = input();
    in.faults = &f;
    in.nfaults = 1;
    struct verdict v;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_int_equal(v.corrupted_blocks, 3);
    assert_int_equal(v.detected_corrupt, 2);
    assert_int_equal(v.undetected_corrupt, 1);
    assert_int_equal(v.explained[CLS_CORRUPT], 1);
    assert_int_equal(v.explained[CLS_ZEROED], 1);
    assert_int_equal(v.unexplained[CLS_CORRUPT], 2); /* block 40 and the early read */
    assert_int_equal(v.unexplained[CLS_ZEROED], 0);
    assert_true(result(&v, "detected_corrupt = 2")->pass);
    assert_true(result(&v, "undetected_corrupt = 1")->pass);
    assert_false(result(&v, "corrupt = 0")->pass);
    assert_true(result(&v, "zeroed = 0")->pass);
    verdict_free(&v);
    fault_release(&f);

    /* The same fault on another file explains nothing. */
    corrupt_fault(&f, &env, other, path);
    assert_int_equal(f.ops->overwrote(&f, &ranges, &on_target), 1);
    assert_false(on_target);
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_int_equal(v.corrupted_blocks, 0);
    assert_int_equal(v.unexplained[CLS_CORRUPT], 3);
    verdict_free(&v);
    fault_release(&f);
    findings_free(&fnd);
    unlink(path);
    unlink(other);
}

/* The outcome, in verdict.h's order: something found fails; else an
 * interruption says so (128 + the signal); else a fault that did not
 * happen as written is an error; else a rule that could not be measured
 * fails. */
/* Workers left waiting on the target: the sweep did not read every block,
 * so even with every rule held the run is not a pass; and it was no
 * signal that cut it short. */
static void an_abandoned_run_is_never_pass(void **state)
{
    (void)state;
    load("");
    findings_init(&fnd, 100);
    struct verdict_input in = input();
    in.abandoned = true;
    struct verdict v;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_true(v.pass); /* every rule held ... */
    assert_int_equal(v.outcome, OUTCOME_FAIL); /* ... and still */
    assert_string_equal(verdict_word(&v), "fail");
    assert_int_equal(verdict_exit_code(&v), 1);
    verdict_free(&v);
    in.abandoned = false;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "pass");
    verdict_free(&v);
    findings_free(&fnd);
}

static void what_did_not_happen_is_never_pass(void **state)
{
    (void)state;
    load("[fault f]\naction = command\ncommand = true\nat = 1s\nexpect_stall <= 1s\n");
    findings_init(&fnd, 100);
    struct fault f[1];
    memset(f, 0, sizeof f);
    f[0].spec = sc.faults[0];
    f[0].ops = sc.faults[0].ops;
    snprintf(f[0].error, sizeof f[0].error, "inject failed: it could not");
    struct recovery rec[1];
    memset(rec, 0, sizeof rec);
    struct verdict_input in = input();
    in.faults = f;
    in.nfaults = 1;
    in.recovery = rec;
    in.end_ns = 10000000000ull;
    struct verdict v;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_int_equal(v.outcome, OUTCOME_NOT_AS_WRITTEN);
    assert_string_equal(verdict_word(&v), "error");
    assert_int_equal(verdict_exit_code(&v), 2);
    assert_int_equal(v.nmissed, 1);
    assert_string_equal(v.missed[0].why, "inject failed: it could not");
    verdict_free(&v);

    in.interrupted = SIGINT; /* interrupted: it says so first */
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "interrupted");
    assert_int_equal(verdict_exit_code(&v), 130);
    verdict_free(&v);

    bad_read(3, CLS_LOST_WRITE, 1000); /* found something: that comes first */
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "fail");
    assert_int_equal(verdict_exit_code(&v), 1);
    verdict_free(&v);
    findings_free(&fnd);
    findings_init(&fnd, 100);

    /* Applied, cleared: it happened; its stall rule, unmeasured, fails. */
    in.interrupted = 0;
    f[0].error[0] = '\0';
    f[0].applied = true;
    f[0].injected_ns = 1000000000ull;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_int_equal(v.nmissed, 0);
    assert_string_equal(verdict_word(&v), "fail");
    verdict_free(&v);
    rec[0].injected = true;
    rec[0].stall_s = 0.2;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "pass");
    verdict_free(&v);

    /* Its clear failed: not as written. */
    f[0].clear_failed = true;
    snprintf(f[0].error, sizeof f[0].error, "clear failed: no");
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "error");
    assert_string_equal(v.missed[0].why, "clear failed: no");
    verdict_free(&v);

    /* Applied, but nothing confirmed it took effect: never a pass, and the
     * family's own words say why (not an agent's silence). */
    f[0].clear_failed = false;
    f[0].error[0] = '\0';
    f[0].indeterminate = true;
    snprintf(f[0].unsure, sizeof f[0].unsure, "power_status of gs2 never said off");
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "error");
    assert_string_equal(v.missed[0].why,
                        "power_status of gs2 never said off: it may or may not have happened");
    verdict_free(&v);
    f[0].unsure[0] = '\0';
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_non_null(strstr(v.missed[0].why, "never answered"));
    verdict_free(&v);
    findings_free(&fnd);
}

/* A drawn fault the settle waits kept from the workload is no miss while
 * another drawn fault began; when none began, the thrash tested nothing:
 * never a pass.  A fault written so (a replay's) not reached is a miss. */
static void a_thrash_that_reached_no_fault_is_never_pass(void **state)
{
    (void)state;
    load("[fault a]\naction = command\ncommand = true\nat = 1s\n"
         "[fault b]\naction = command\ncommand = true\nat = 5s\n");
    findings_init(&fnd, 100);
    struct fault f[2];
    memset(f, 0, sizeof f);
    for (int i = 0; i < 2; i++) {
        f[i].spec = sc.faults[i];
        f[i].ops = sc.faults[i].ops;
        f[i].drawn = true;
    }
    f[0].applied = true;
    f[0].injected_ns = 1000000000ull;
    f[1].not_reached = true;
    f[1].shift_ns = 7000000000ull;
    struct recovery rec[2];
    memset(rec, 0, sizeof rec);
    struct verdict_input in = input();
    in.faults = f;
    in.nfaults = 2;
    in.recovery = rec;
    in.end_ns = 10000000000ull;
    struct verdict v;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "pass");
    assert_int_equal(v.nmissed, 1); /* said, not counted */
    assert_false(v.missed[0].counts);
    assert_non_null(strstr(v.missed[0].why, "moved it past the end"));
    verdict_free(&v);

    f[0].applied = false; /* held back too: nothing began */
    f[0].injected_ns = 0;
    f[0].not_reached = true;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "error");
    assert_int_equal(v.nmissed_counted, 2);
    verdict_free(&v);

    f[0].applied = true; /* written in the scenario: not reached is a miss */
    f[0].not_reached = false;
    f[1].drawn = false;
    assert_int_equal(verdict_evaluate(&in, &v), 0);
    assert_string_equal(verdict_word(&v), "error");
    assert_int_equal(v.nmissed_counted, 1);
    verdict_free(&v);
    findings_free(&fnd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integrity_rules_need_no_words),
        cmocka_unit_test(a_written_expectation_replaces_the_rule),
        cmocka_unit_test(heal_and_recover_are_each_labs_own_word),
        cmocka_unit_test(detected_corruption_is_not_damage),
        cmocka_unit_test(what_did_not_happen_is_never_pass),
        cmocka_unit_test(an_abandoned_run_is_never_pass),
        cmocka_unit_test(a_thrash_that_reached_no_fault_is_never_pass),
    };
    return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
