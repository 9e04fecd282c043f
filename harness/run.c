/* run — see run.h. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/clock.h"
#include "../lib/crc32c.h"
#include "../lib/fsutil.h"
#include "../lib/units.h"
#include "../workloads/engine.h"
#include "../workloads/journal.h"
#include "../workloads/verify.h"
#include "crew.h"
#include "events.h"
#include "heal.h"
#include "lab/lab.h"
#include "report/report.h"
#include "scenario.h"
#include "timeline.h"
#include "verdict.h"

/* First SIGINT/SIGTERM: end the workload early, still flush, sweep and
 * report.  Second: also cut the sweep short.  (During `verify` the first
 * one ends the pass.) */
static volatile sig_atomic_t stop_workload, stop_sweep;

static void on_signal(int sig)
{
    (void)sig;
    if (stop_workload)
        stop_sweep = 1;
    stop_workload = 1;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int make_run_dir(const struct run_opts *o, const char *name, char *dir, size_t n,
                        char *err, size_t errlen)
{
    if (o->out) {
        snprintf(dir, n, "%s", o->out);
    } else {
        char stamp[32];
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(dir, n, "runs/%s-%s", stamp, name);
        struct stat st;
        for (int i = 2; stat(dir, &st) == 0 && i < 1000; i++)
            snprintf(dir, n, "runs/%s-%s-%d", stamp, name, i);
    }
    if (mkdir_p(dir, err, errlen) != 0)
        return -1;
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/scenario.scn", dir);
    if (access(probe, F_OK) == 0) {
        snprintf(err, errlen, "%s already holds a run; choose another --out", dir);
        return -1;
    }
    return 0;
}

static uint64_t random64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != sizeof v)
        v = wall_ns() ^ ((uint64_t)getpid() << 32);
    return v ? v : 1;
}

struct start_ctx {
    struct timeline *tl;
    struct event_log *events;
};

/* The crew's hook at time zero: events count from here, faults start. */
static void start_faults(void *ctx, uint64_t t0)
{
    struct start_ctx *s = ctx;
    char err[512];
    events_set_t0(s->events, t0);
    if (timeline_start(s->tl, t0, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        stop_workload = 1; /* no half run: end at once, still report */
    }
}

/* The crew's hook between workload and sweep: every fault cleared. */
static void finish_faults(void *ctx)
{
    timeline_finish(ctx);
}

/* The report fields both verbs fill from the crew the same way. */
static struct report crew_report(const char *mode, const char *dir, const struct scenario *sc,
                                 const struct run_meta *meta, struct crew *crew)
{
    return (struct report){.mode = mode, .dir = dir, .sc = sc, .meta = meta,
                           .target_desc = crew->desc, .capacity = crew->capacity,
                           .findings = &crew->findings, .seed = meta->seed,
                           .error = crew->error, .crc_impl = crc32c_impl(),
                           .workers = crew->n, .map_bytes_at_rest = crew->bytes_at_rest,
                           .map_bytes_peak = crew->bytes_peak,
                           .pending_peak = crew->pending_peak};
}

/* The outage measured from the time buckets: baseline, each fault's
 * recovery numbers, the longest stall; timeline.csv. */
static void analyse(struct report *rep, struct crew *crew, const struct timeline *tl,
                    struct recovery *recov)
{
    const struct scenario *sc = rep->sc;
    uint64_t end = crew->workload_end_ns;
    if (!crew->abandoned && end > sc->duration_ns)
        end = sc->duration_ns; /* past it only the drain: the workload issues nothing new */
    rep->end_ns = end;
    rep->series = &crew->series;
    rep->hung = crew->hung;
    rep->abandoned = crew->abandoned;
    rep->t0_wall_ns = wall_ns() - (mono_ns() - crew->t0);
    uint64_t first = UINT64_MAX;
    for (unsigned i = 0; i < tl->n; i++)
        if (tl->faults[i].injected_ns && tl->faults[i].injected_ns < first)
            first = tl->faults[i].injected_ns;
    recovery_baseline(&crew->series, sc->warmup_ns, first, end, &rep->baseline);
    for (unsigned i = 0; i < tl->n; i++) {
        const struct fault *f = &tl->faults[i];
        memset(&recov[i], 0, sizeof recov[i]);
        if (!f->applied)
            continue;
        uint64_t horizon = end;
        for (unsigned k = 0; k < tl->n; k++)
            if (k != i && tl->faults[k].injected_ns > f->injected_ns &&
                tl->faults[k].injected_ns < horizon)
                horizon = tl->faults[k].injected_ns;
        /* From the moment the inject call began: a kill's signal lands at
         * its start, the call then waits for the process to be gone. */
        uint64_t begin = f->injected_ns > f->apply_ns ? f->injected_ns - f->apply_ns : 0;
        uint64_t clear = f->cleared_ns > f->injected_ns ? f->cleared_ns /* it lasted */
                         : f->cleared_ns ? begin                          /* instant */
                                         : end; /* never cleared: until the end */
        recovery_analyze(&crew->series, &rep->baseline, begin, clear, horizon, end, &recov[i]);
    }
    rep->recovery = recov;
    uint64_t a, b;
    rep->max_stall_s = crew->series.b ? (double)recovery_longest_gap(&crew->series, 0, end, end,
                                                                     &a, &b) / 1e9
                                      : -1;
    char err[FL_ERRLEN];
    if (crew->series.b && buckets_write_csv(&crew->series, rep->dir, err, sizeof err) != 0)
        fprintf(stderr, "faultline: %s\n", err);
}

/* Writes the reports, prints the summary, releases the crew; the exit status. */
static int finish(struct report *rep, struct crew *crew, struct event_log *events)
{
    char err[FL_ERRLEN];
    rep->events = events;
    struct verdict verdict;
    struct verdict_input vin = {
        .sc = rep->sc, .run = strcmp(rep->mode, "run") == 0, .findings = rep->findings,
        .faults = rep->faults, .nfaults = rep->nfaults, .recovery = rep->recovery,
        .block_size = rep->meta->block_size, .nblocks = rep->meta->nblocks,
        .written = crew_block_written, .written_ctx = crew, .io = rep->io, .sweep = rep->sweep,
        .doubtful_writes = rep->doubtful_writes, .hung = rep->hung,
        .max_stall_s = rep->recovery ? rep->max_stall_s : -1};
    if (verdict_evaluate(&vin, &verdict) != 0) {
        fprintf(stderr, "faultline: out of memory for the verdict\n");
        return 2;
    }
    rep->verdict = &verdict;
    int code = report_exit_code(rep);
    if (report_write(rep, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        code = 2;
    }
    if (crew->error)
        fprintf(stderr, "faultline: %s\n", crew->error);
    report_summary(rep, stdout);
    verdict_free(&verdict);
    rep->verdict = NULL; /* it lived here only */
    crew_close(crew);
    crew_free(crew);
    return code;
}

/* One `faultline run`: what its steps share. */
struct run {
    const struct run_opts *o;
    struct scenario sc;
    char dir[PATH_MAX];
    struct run_meta base;
    struct event_log events;
    bool events_open;
    struct lab lab;
    bool have_lab, lab_created;
    struct lab_place place; /* where the lab's target is, when it gives the target its place */
    bool placed;
    struct crew crew;
    struct timeline *tl;
    struct heal_watch heal;
    bool watching, abandoned;
};

static void say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct run *r, const char *fmt, ...)
{
    if (r->o->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "faultline: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The scenario, the run directory with its copy, the seed, the events. */
static int run_setup(struct run *r, char *err, size_t errlen)
{
    if (scenario_load(r->o->scenario, &r->sc, err, errlen) != 0 ||
        make_run_dir(r->o, r->sc.name, r->dir, sizeof r->dir, err, errlen) != 0)
        return -1;
    char copy[PATH_MAX + 32];
    snprintf(copy, sizeof copy, "%s/scenario.scn", r->dir);
    if (copy_file(r->o->scenario, copy, err, errlen) != 0)
        return -1;
    uint64_t seed = r->sc.seed_given ? r->sc.seed : random64();
    r->sc.workload.seed = seed;
    r->base = (struct run_meta){.run_id = random64(), .start_wall_ns = wall_ns(), .seed = seed,
                                .block_size = r->sc.workload.block_size, .target_id = 1};
    snprintf(r->base.name, sizeof r->base.name, "%s", r->sc.name);
    if (events_open(&r->events, r->dir, 1, 0, err, errlen) != 0)
        return -1;
    r->events_open = true;
    return 0;
}

/* The embedded lab, if the scenario asks for it; the target takes the
 * place the lab has for it. */
static int run_lab_up(struct run *r, char *err, size_t errlen)
{
    const struct lab_kind *k = r->sc.lab;
    if (!k)
        return 0;
    say(r, "bringing up the %s lab", k->name);
    char why[2048];
    if (lab_up(k, &r->sc.lab_opts, &r->lab, &r->lab_created, why, sizeof why) != 0) {
        snprintf(err, errlen, "lab up %s: %s", k->name, why);
        return -1;
    }
    r->have_lab = true;
    snprintf(r->base.lab_prefix, sizeof r->base.lab_prefix, "%s", r->lab.prefix);
    lab_place_of(&r->lab, &r->place);
    char detail[2400];
    snprintf(detail, sizeof detail, "%s lab %s (prefix %s), %s",
             r->lab_created ? "brought up" : "found up", k->name, r->lab.prefix, r->place.desc);
    events_emit(&r->events, 0, "lab-up", NULL, detail);
    r->placed = scenario_lab_places(&r->sc);
    return scenario_use_lab(&r->sc, &r->lab, err, errlen);
}

/* What a corrupt fault may write to when it names no path: the file that
 * holds the lab's target, or the target itself. */
static const char *target_path(const struct run *r)
{
    if (r->placed && r->place.backing[0])
        return r->place.backing;
    return r->sc.target.path[0] ? r->sc.target.path : NULL;
}

/* A lab that heals (a replicated volume): watched from the start. */
static void heal_start(struct run *r)
{
    if (!r->have_lab || !r->lab.kind->heal_pending)
        return;
    char err[512];
    if (heal_watch_start(&r->heal, &r->lab, err, sizeof err) == 0)
        r->watching = true;
    else
        fprintf(stderr, "faultline: %s; heal times are not measured\n", err);
}

/* After the workload: wait for the heal, then each fault's heal time. */
static void heal_finish(struct run *r, struct recovery *recov, uint64_t end_ns)
{
    if (!r->watching || r->crew.abandoned)
        return;
    say(r, "waiting (at most %.0f s) for %s to heal", (double)r->sc.heal_wait_ns / 1e9,
        r->place.name);
    heal_watch_finish(&r->heal, r->sc.heal_wait_ns);
    char detail[200];
    snprintf(detail, sizeof detail, "%s %s", r->place.name,
             heal_watch_healed(&r->heal) ? "has nothing left to heal"
                                         : "still has entries to heal after heal_wait");
    events_emit(&r->events, 0, "heal", NULL, detail);
    for (unsigned i = 0; recov && i < r->tl->n; i++) {
        if (!recov[i].injected)
            continue;
        /* from the clear: the server is back and healing can start */
        uint64_t clear = recov[i].lasting ? recov[i].clear_ns : end_ns;
        recov[i].heal_measured = true;
        recov[i].healed = heal_watch_time(&r->heal, r->crew.t0 + clear, &recov[i].heal_s);
    }
}

/* The crew and the faults, ready to start; -1 with err. */
static int run_prepare(struct run *r, char *err, size_t errlen)
{
    r->crew = (struct crew){.stop_workload = &stop_workload, .stop_sweep = &stop_sweep,
                            .events = &r->events, .quiet = r->o->quiet, .t0 = mono_ns()};
    if (!(r->tl = calloc(1, sizeof *r->tl))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (crew_prepare_run(&r->crew, &r->sc, r->dir, &r->base, err, errlen) != 0 ||
        timeline_prepare(r->tl, &r->sc, r->have_lab ? &r->lab : NULL, r->dir, &r->events,
                         target_path(r), r->crew.capacity, r->base.run_id, err, errlen) != 0) {
        crew_close(&r->crew);
        crew_free(&r->crew);
        return -1;
    }
    return 0;
}

/* The workload with its faults, the sweep, the analysis, the reports. */
static int run_workload(struct run *r)
{
    const struct scenario *sc = &r->sc;
    struct timeline *tl = r->tl;
    struct crew *crew = &r->crew;
    say(r, "%s on %s, %u worker%s, %u fault%s, for %.1f s; run directory %s", sc->name,
        crew->desc, crew->n, crew->n == 1 ? "" : "s", tl->n, tl->n == 1 ? "" : "s",
        (double)sc->duration_ns / 1e9, r->dir);
    /* Time zero is the start of the workload: faults count from there. */
    struct start_ctx sctx = {.tl = tl, .events = &r->events};
    crew->on_start = start_faults;
    crew->on_start_ctx = &sctx;
    crew->between = finish_faults;
    crew->between_ctx = tl;
    crew->active_faults = &tl->active;
    heal_start(r);
    crew_run(crew);
    struct run_meta meta = crew->w[0].meta;
    meta.nblocks = meta.total_blocks;
    struct report rep = crew_report("run", r->dir, sc, &meta, crew);
    rep.io = &crew->io;
    rep.sweep = crew->error ? NULL : &crew->sweep;
    rep.interrupted = crew->interrupted;
    rep.journal_stalls = crew->journal_stalls;
    rep.checkpoints = crew->checkpoints;
    rep.doubtful_writes = crew->doubtful_writes;
    rep.meta_streams = crew->meta_left_behind ? NULL : crew->meta;
    rep.nmeta = crew->meta_left_behind ? 0 : crew->nmeta;
    rep.prefill = sc->workload.prefill ? &crew->prefilled : NULL;
    rep.faults = tl->faults;
    rep.nfaults = tl->n;
    static struct remote_info agents[FL_MAX_HOSTS];
    rep.hosts = tl->env.hosts;
    rep.nhosts = tl->env.nhosts;
    rep.agents = agents;
    rep.nagents = timeline_agents(tl, agents, FL_MAX_HOSTS);
    rep.injections = timeline_delays(tl, &rep.inject_p50_ms, &rep.inject_p99_ms,
                                     &rep.inject_max_ms);
    for (unsigned i = 0; i < tl->n; i++) { /* each family once, in scenario order */
        const char *action = tl->faults[i].ops->action;
        bool seen = false;
        for (unsigned k = 0; k < rep.nfamily_timing && !seen; k++)
            seen = strcmp(rep.family_timing[k].action, action) == 0;
        struct family_timing *ft = &rep.family_timing[rep.nfamily_timing];
        if (seen || !(ft->injections = timeline_delays_of(tl, action, &ft->p50_ms, &ft->p99_ms,
                                                          &ft->max_ms)))
            continue;
        ft->action = action;
        rep.nfamily_timing++;
    }
    struct recovery *recov = calloc(tl->n ? tl->n : 1, sizeof *recov);
    if (!recov) {
        heal_finish(r, NULL, 0);
        fprintf(stderr, "faultline: out of memory\n");
        crew_close(crew);
        crew_free(crew);
        return 2;
    }
    analyse(&rep, crew, tl, recov);
    heal_finish(r, recov, rep.end_ns);
    r->abandoned = crew->abandoned;
    int code = finish(&rep, crew, &r->events);
    free(recov);
    return code;
}

/* Faults cleared, the lab down (if this run brought it up); the exit status. */
static int run_teardown(struct run *r, int code)
{
    char err[FL_ERRLEN];
    if (r->watching && !r->abandoned)
        heal_watch_free(&r->heal);
    if (r->tl) {
        timeline_free(r->tl); /* clears anything still active, on every path */
        free(r->tl);
    }
    const char *kind = r->have_lab ? r->lab.kind->name : "";
    if (r->have_lab && r->lab_created && !r->o->keep_lab) {
        if (lab_down(r->lab.kind, r->lab.prefix, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab down %s: %s (run `faultline lab down %s`)\n", kind,
                    err, kind);
            if (code == 0)
                code = 2;
        }
    } else if (r->have_lab) {
        say(r, "the %s lab (prefix %s) stays up; `faultline lab down %s` removes it", kind,
            r->lab.prefix, kind);
    }
    if (r->abandoned) {
        /* Workers are still parked in calls to a target that never answered;
         * their threads own memory nothing may free under them, and may still
         * emit events (the lab going down is a path loss to them): the event
         * log stays open.  The reports are written: leave without running
         * exit handlers over any of it. */
        fflush(stdout);
        fflush(stderr);
        _exit(code);
    }
    if (r->events_open)
        events_close(&r->events);
    return code;
}

int cmd_run(const struct run_opts *o)
{
    char err[FL_ERRLEN];
    struct run *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "faultline: out of memory\n");
        return 2;
    }
    r->o = o;
    int code = 2;
    if (run_setup(r, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        if (r->events_open)
            events_close(&r->events);
        free(r);
        return 2;
    }
    install_signals();
    if (run_lab_up(r, err, sizeof err) != 0 || run_prepare(r, err, sizeof err) != 0)
        fprintf(stderr, "faultline: %s\n", err);
    else
        code = run_workload(r);
    code = run_teardown(r, code);
    free(r);
    return code;
}

/* The run went to the lab's LUN or volume: it must still be there, and the
 * target takes its place again. */
static int use_lab_again(struct scenario *sc, const char *dir)
{
    char err[FL_ERRLEN], w0[PATH_MAX + 32];
    struct run_meta m;
    snprintf(w0, sizeof w0, "%s/worker-0", dir);
    if (state_read_meta(w0, &m, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return -1;
    }
    struct lab *lab = malloc(sizeof *lab);
    if (!lab) {
        fprintf(stderr, "faultline: out of memory\n");
        return -1;
    }
    int rc = lab_load(sc->lab, m.lab_prefix, lab, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "faultline: the run used the embedded %s lab (prefix %s): %s; its storage "
                        "went with it\n", sc->lab->name, m.lab_prefix, err);
    else if ((rc = scenario_use_lab(sc, lab, err, sizeof err)) != 0)
        fprintf(stderr, "faultline: %s\n", err);
    free(lab);
    return rc;
}

int cmd_verify(const char *dir, bool quiet)
{
    char err[FL_ERRLEN], path[PATH_MAX + 32];
    struct scenario sc;
    snprintf(path, sizeof path, "%s/scenario.scn", dir);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "faultline: %s is not a run directory (no scenario.scn: %s)\n", dir,
                strerror(errno));
        return 2;
    }
    if (scenario_load(path, &sc, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    if (scenario_lab_places(&sc) && use_lab_again(&sc, dir) != 0)
        return 2;
    struct event_log events;
    if (events_open(&events, dir, 0, mono_ns(), err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    struct crew crew = {.stop_workload = &stop_workload, .stop_sweep = &stop_sweep,
                        .events = &events, .quiet = quiet};
    if (crew_prepare_verify(&crew, &sc, dir, err, sizeof err) != 0) {
        events_close(&events);
        fprintf(stderr, "faultline: %s\n", err);
        crew_close(&crew);
        crew_free(&crew);
        return 2;
    }
    if (!quiet)
        fprintf(stderr, "faultline: verifying %s (%s) from %s%s\n", sc.target.path, crew.desc,
                dir, crew.state_final ? "" : "; the run did not end cleanly, so writes not yet "
                                             "durable are allowed either way");
    install_signals();
    /* Times in the report are seconds since the original run started. */
    struct run_meta meta = crew.w[0].meta;
    if (meta.name[0])
        snprintf(sc.name, sizeof sc.name, "%s", meta.name); /* the copy is named scenario.scn */
    meta.nblocks = meta.total_blocks;
    crew.t0 = mono_ns() - (wall_ns() - meta.start_wall_ns);
    events_set_t0(&events, crew.t0);
    crew_verify(&crew);
    struct report rep = crew_report("verify", dir, &sc, &meta, &crew);
    rep.io = &crew.sweep;
    rep.interrupted = stop_workload != 0;
    rep.state_final = crew.state_final;
    rep.replayed = crew.replayed;
    int code = finish(&rep, &crew, &events);
    events_close(&events);
    return code;
}

int cmd_check(const char *file)
{
    char err[FL_ERRLEN];
    struct scenario sc;
    if (scenario_load(file, &sc, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    char bs[32], size[32];
    format_size(sc.workload.block_size, bs, sizeof bs);
    if (sc.target.size)
        format_size(sc.target.size, size, sizeof size);
    else
        snprintf(size, sizeof size, "whole target");
    char where[PATH_MAX + 64];
    uint64_t offset;
    if (scenario_lab_places(&sc))
        snprintf(where, sizeof where, "%s", sc.lab->serves_what);
    else
        sc.backend->where(&sc.target, 0, 0, "", where, sizeof where, &offset);
    printf("%s: ok: %s on %s %s (%s), %s blocks, %s, %u%% reads, depth %u, %.1f s, %u fault%s, "
           "%u expectation%s\n", file, sc.name, sc.target.kind, where, size, bs,
           sc.workload.pattern == PATTERN_RANDOM ? "random" : "sequential", sc.workload.read_pct,
           sc.workload.depth, (double)sc.duration_ns / 1e9, sc.nfaults, sc.nfaults == 1 ? "" : "s",
           sc.nexpects, sc.nexpects == 1 ? "" : "s");
    return 0;
}
