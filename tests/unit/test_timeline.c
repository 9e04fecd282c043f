/*
 * The timeline: each family's schedule becomes inject and clear steps in
 * time order (a clear before an inject at the same moment), and a fault is
 * never left behind: its undo record is on disk before it is applied, a
 * clean finish marks it done, and after a killed run `faultline cleanup`
 * undoes it, once; a live run's it leaves alone unless --force.  The faults here are `command` faults on this host, so
 * the test needs no lab; the undo registry lives in /run/faultline/runs,
 * so that part needs root.
 */
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../faults/undo.h"
#include "../../harness/cli/cleanup.h"
#include "../../harness/live/events.h"
#include "../../harness/scenario/scenario.h"
#include "../../harness/live/timeline.h"
#include "../../lib/clock.h"
#include "../../lib/fsutil.h"

#define MS 1000000ull
#define S 1000000000ull

static struct scenario sc;

static void parse(const char *faults)
{
    char text[4096], err[4096];
    snprintf(text, sizeof text, "[scenario]\nduration = 20s\n[target]\nkind = file\n"
             "path = /tmp/fl-timeline.img\n%s", faults);
    if (scenario_parse(text, "t.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static void steps_follow_each_familys_schedule(void **state)
{
    (void)state;
    parse("[fault flap]\naction = port-flap\nswitch_port = x\nat = 1s\ncount = 3\nperiod = 2s\n"
          "[fault down]\naction = link-down\ninterface = lo\nat = 2s\nduration = 500ms\n"
          "[fault gone]\naction = kill\nprocess = none\nat = 3s\n"
          "[fault back]\naction = kill\nhost = far\nprocess = none\nat = 3s\n"
          "restart_after = 1s\n"
          "[fault until-end]\naction = command\ncommand = true\nundo = true\nat = 4s\n"
          "[fault once]\naction = command\ncommand = true\nat = 0s\n"
          "[host far]\nssh = far.example\nrestart = true\n"); /* restart_after needs it */
    struct fault f[6];
    memset(f, 0, sizeof f);
    assert_int_equal(sc.nfaults, 6);
    for (unsigned i = 0; i < sc.nfaults; i++) {
        f[i].spec = sc.faults[i];
        f[i].ops = sc.faults[i].ops;
        fault_schedule_of(&f[i].spec, &f[i].schedule);
    }
    assert_int_equal(f[0].schedule.shape, FAULT_STEPPED);
    assert_int_equal(f[1].schedule.shape, FAULT_LASTING);
    assert_int_equal(f[2].schedule.shape, FAULT_INSTANT);
    assert_int_equal(f[3].schedule.shape, FAULT_LASTING); /* until the lab starts it again */
    assert_int_equal(f[4].schedule.shape, FAULT_LASTING); /* an undo: cleared at the end */
    assert_int_equal(f[5].schedule.shape, FAULT_INSTANT);
    struct step *st;
    unsigned n;
    assert_int_equal(timeline_plan(f, 6, &st, &n), 0);
    static const struct {
        uint64_t t;
        unsigned fault;
        bool inject;
    } want[] = {
        {0, 5, true},                                 /* once */
        {1 * S, 0, true},       {2 * S, 0, false},    /* flap 1; its clear first at 2 s */
        {2 * S, 1, true},       {2500 * MS, 1, false}, /* down for 500 ms */
        {3 * S, 0, true},       {3 * S, 2, true},      /* same time: in scenario order */
        {3 * S, 3, true},       {4 * S, 0, false},
        {4 * S, 3, false},      {4 * S, 4, true},      /* restart_after 1 s; no clear step */
        {5 * S, 0, true},       {6 * S, 0, false},     /* flap 3 */
    };
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (unsigned i = 0; i < n; i++) {
        if (st[i].t != want[i].t || st[i].fault != want[i].fault ||
            st[i].inject != want[i].inject)
            fail_msg("step %u: %s of fault %u at %llu ns, wanted %s of fault %u at %llu ns", i,
                     st[i].inject ? "inject" : "clear", st[i].fault,
                     (unsigned long long)st[i].t, want[i].inject ? "inject" : "clear",
                     want[i].fault, (unsigned long long)want[i].t);
    }
    free(st);
}

static char dir[64], mark[128];

static void remove_dir(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A run directory with a command fault that writes the mark file at 0 s
 * and whose undo removes it; the test is skipped when the undo registry is
 * out of reach (not root). */
static void marking_fault(struct timeline *tl, struct event_log *ev)
{
    snprintf(dir, sizeof dir, "/tmp/fl-timeline-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(mark, sizeof mark, "%s/mark", dir);
    char faults[1024];
    snprintf(faults, sizeof faults, "[fault mark]\naction = command\ncommand = echo on > %s\n"
             "undo = rm %s\nat = 0s\nduration = 1h\n", mark, mark);
    parse(faults);
    char err[FL_ERRLEN];
    assert_int_equal(events_open(ev, dir, 1, 0, err, sizeof err), 0);
    if (timeline_prepare(tl, &sc, NULL, dir, ev, NULL, 0, 0x1234, err, sizeof err) != 0) {
        events_close(ev);
        remove_dir();
        if (!strstr(err, UNDO_REGISTRY))
            fail_msg("%s", err);
        print_message("SKIP: the undo registry %s needs root\n", UNDO_REGISTRY);
        skip();
    }
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Waits (at most 10 s) until path exists; whether it does. */
static bool appears(const char *path)
{
    for (int i = 0; i < 1000 && !exists(path); i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return exists(path);
}

/* Lines of undo.log that start with c. */
static int undo_lines(char c)
{
    char path[160], line[2048];
    snprintf(path, sizeof path, "%s/undo.log", dir);
    FILE *f = fopen(path, "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += line[0] == c;
    if (f)
        fclose(f);
    return n;
}

/* How often the undo registry names dir. */
static void count_dir(const char *entry, const char *run, void *ctx)
{
    (void)entry;
    char abs[4096];
    if (realpath(dir, abs) && strcmp(run, abs) == 0)
        (*(int *)ctx)++;
}
static int registrations(void)
{
    int n = 0;
    undo_each_registered(count_dir, &n);
    return n;
}

static void a_clean_finish_undoes_and_marks_done(void **state)
{
    (void)state;
    struct timeline tl;
    struct event_log ev;
    marking_fault(&tl, &ev);
    char err[512];
    assert_int_equal(timeline_start(&tl, mono_ns(), err, sizeof err), 0);
    assert_true(appears(mark));
    assert_int_equal(undo_lines('U'), 1); /* on disk before the command ran */
    assert_int_equal(registrations(), 1);
    timeline_finish(&tl);
    assert_false(exists(mark));
    assert_int_equal(undo_lines('D'), 1);
    assert_int_equal(registrations(), 0); /* nothing left: the run is off the registry */
    assert_true(tl.faults[0].applied);
    timeline_free(&tl);
    events_close(&ev);
    remove_dir();
}

static void cleanup_undoes_a_killed_run_once(void **state)
{
    (void)state;
    struct timeline tl;
    struct event_log ev;
    /* Here only to skip without root: the run is the child, which opens
     * (registers, locks) the undo log itself, as a run does. */
    marking_fault(&tl, &ev);
    undo_close(&tl.undo, 1);
    tl.undo_open = false;
    timeline_free(&tl);
    events_close(&ev);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        /* The run: the fault applied, then killed before any clear. */
        char err[512];
        if (events_open(&ev, dir, 1, 0, err, sizeof err) != 0 ||
            timeline_prepare(&tl, &sc, NULL, dir, &ev, NULL, 0, 0x1234, err, sizeof err) != 0 ||
            timeline_start(&tl, mono_ns(), err, sizeof err) != 0)
            _exit(3);
        appears(mark);
        raise(SIGKILL);
        _exit(4);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(exists(mark)); /* the killed run left its fault behind */
    assert_int_equal(undo_lines('U'), 1);
    assert_int_equal(undo_lines('D'), 0);
    assert_int_equal(registrations(), 1);
    struct undo_writer w;
    undo_writer(dir, &w);
    assert_false(w.live); /* its registration names a dead process, its lock is gone */
    char *argv[] = {"faultline", "cleanup", dir, NULL};
    assert_int_equal(cmd_cleanup(3, argv), 0);
    assert_false(exists(mark));
    assert_int_equal(undo_lines('D'), 1);
    assert_int_equal(registrations(), 0);
    /* Twice is harmless: nothing is applied again. */
    assert_int_equal(cmd_cleanup(3, argv), 0);
    assert_int_equal(undo_lines('D'), 1);
    remove_dir();
}

/* A live run (this process) is left alone by a cleanup of its directory,
 * and undone only with --force; it keeps its registration either way. */
static void cleanup_leaves_a_live_run_alone(void **state)
{
    (void)state;
    struct timeline tl;
    struct event_log ev;
    marking_fault(&tl, &ev);
    char err[512];
    assert_int_equal(timeline_start(&tl, mono_ns(), err, sizeof err), 0);
    assert_true(appears(mark));
    struct undo_writer w;
    undo_writer(dir, &w);
    assert_true(w.live);
    assert_int_equal(w.pid, getpid());
    assert_string_equal(w.found_by, "registration");
    char *argv[] = {"faultline", "cleanup", dir, NULL};
    assert_int_equal(cmd_cleanup(3, argv), 0);
    assert_true(exists(mark));
    assert_int_equal(undo_lines('D'), 0);
    assert_int_equal(registrations(), 1);
    char *force[] = {"faultline", "cleanup", "--force", dir, NULL};
    assert_int_equal(cmd_cleanup(4, force), 0);
    assert_false(exists(mark));
    assert_int_equal(undo_lines('D'), 1);
    assert_int_equal(registrations(), 1); /* the run's own, until its end */
    /* The fault back, so that the run's own clear (rm) finds it. */
    FILE *f = fopen(mark, "w");
    assert_non_null(f);
    fclose(f);
    timeline_finish(&tl);
    assert_false(exists(mark));
    assert_int_equal(registrations(), 0);
    undo_writer(dir, &w);
    assert_false(w.live); /* its log closed: no registration, no lock */
    timeline_free(&tl);
    events_close(&ev);
    remove_dir();
}

/* Writes a registry entry as a build before "PID START" did: only the
 * run directory, the PID in the entry's name.  Its path into entry. */
static bool old_entry(pid_t pid, char *entry, size_t n)
{
    snprintf(entry, n, "%s/%d-oldbuild", UNDO_REGISTRY, (int)pid);
    FILE *f = fopen(entry, "w");
    if (!f)
        return false;
    char abs[4096];
    assert_non_null(realpath(dir, abs));
    fprintf(f, "%s\n", abs);
    fclose(f);
    return true;
}

/* A registration written by an older build names no start time: the
 * process with its PID is the run if it began before the entry was
 * written; a PID whose process is gone is no live run. */
static void an_older_builds_registration_still_tells(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fl-timeline-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char entry[256];
    if (!old_entry(getpid(), entry, sizeof entry)) {
        remove_dir();
        print_message("SKIP: the undo registry %s needs root\n", UNDO_REGISTRY);
        skip();
    }
    struct undo_writer w;
    undo_writer(dir, &w);
    assert_true(w.live);
    assert_int_equal(w.pid, getpid());
    assert_string_equal(w.found_by, "registration");
    unlink(entry);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    assert_int_equal(waitpid(child, NULL, 0), child);
    assert_true(old_entry(child, entry, sizeof entry));
    undo_writer(dir, &w);
    assert_false(w.live);
    unlink(entry);
    remove_dir();
}

/* settle = whole: b waits (its settle_command) until the test says the
 * storage is whole; c, not begun yet, moves with it; a, begun, keeps its
 * times; d is moved past the end of the workload and not reached.  Every
 * bound is one the test itself sets (when it makes the storage whole), not
 * the machine's pace. */
static void settle_waits_move_the_faults_not_begun(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fl-timeline-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char text[4096], err[FL_ERRLEN];
    snprintf(text, sizeof text,
             "[scenario]\nduration = 3s\n[target]\nkind = file\npath = %s/t.img\n"
             "[fault a]\naction = command\ncommand = echo a >> %s/log\nundo = true\n"
             "at = 0s\nduration = 300ms\n"
             "[fault b]\naction = command\ncommand = echo b >> %s/log\nat = 200ms\n"
             "settle = whole\nsettle_command = test -e %s/whole\n"
             "[fault c]\naction = command\ncommand = echo c >> %s/log\nat = 400ms\n"
             "[fault d]\naction = command\ncommand = echo d >> %s/log\nat = 2s\n",
             dir, dir, dir, dir, dir, dir);
    if (scenario_parse(text, "t.scn", &sc, err, sizeof err) != 0)
        fail_msg("%s", err);
    struct timeline tl;
    struct event_log ev;
    assert_int_equal(events_open(&ev, dir, 1, 0, err, sizeof err), 0);
    if (timeline_prepare(&tl, &sc, NULL, dir, &ev, NULL, 0, 0x1235, err, sizeof err) != 0) {
        events_close(&ev);
        remove_dir();
        if (!strstr(err, UNDO_REGISTRY))
            fail_msg("%s", err);
        print_message("SKIP: the undo registry %s needs root\n", UNDO_REGISTRY);
        skip();
    }
    uint64_t t0 = mono_ns();
    assert_int_equal(timeline_start(&tl, t0, err, sizeof err), 0);
    struct timespec ts = {1, 500 * 1000 * 1000};
    nanosleep(&ts, NULL);
    char whole[128];
    snprintf(whole, sizeof whole, "%s/whole", dir);
    uint64_t made = mono_ns() - t0;
    FILE *f = fopen(whole, "w");
    assert_non_null(f);
    fclose(f);
    ts = (struct timespec){4, 0}; /* past the end of the 3 s workload, moved or not */
    nanosleep(&ts, NULL);
    timeline_finish(&tl);
    const struct fault *a = &tl.faults[0], *b = &tl.faults[1], *c = &tl.faults[2],
                       *d = &tl.faults[3];
    assert_true(a->applied && b->applied && c->applied);
    assert_false(a->settle_asked);
    assert_int_equal(a->shift_ns, 0);               /* begun before any wait */
    assert_true(b->settle_asked);
    assert_true(b->injected_ns >= made);            /* not before the storage was whole */
    assert_true(b->settle_ns >= made - 200 * MS);
    assert_true(b->shift_ns + 200 * MS + 20 * MS >= made); /* it moved by its wait */
    assert_int_equal(c->shift_ns, b->shift_ns);     /* c, not begun, moved with it */
    assert_true(c->injected_ns >= 400 * MS + c->shift_ns);
    assert_true(c->injected_ns > b->injected_ns);
    assert_false(d->applied);                       /* 2 s + the wait: past 3 s */
    assert_true(d->not_reached);
    assert_false(d->drawn);
    char path[160], log[64] = "";
    snprintf(path, sizeof path, "%s/log", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    size_t got = fread(log, 1, sizeof log - 1, f);
    fclose(f);
    log[got] = '\0';
    assert_string_equal(log, "a\nb\nc\n");
    timeline_free(&tl);
    events_close(&ev);
    remove_dir();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steps_follow_each_familys_schedule),
        cmocka_unit_test(a_clean_finish_undoes_and_marks_done),
        cmocka_unit_test(cleanup_undoes_a_killed_run_once),
        cmocka_unit_test(cleanup_leaves_a_live_run_alone),
        cmocka_unit_test(an_older_builds_registration_still_tells),
        cmocka_unit_test(settle_waits_move_the_faults_not_begun),
    };
    return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
