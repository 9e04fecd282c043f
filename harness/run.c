/* run — see run.h. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../workloads/verify.h"
#include "../lib/clock.h"
#include "../lib/crc32c.h"
#include "../workloads/engine.h"
#include "../workloads/journal.h"
#include "crew.h"
#include "../lib/fsutil.h"
#include "events.h"
#include "heal.h"
#include "lab.h"
#include "timeline.h"
#include "report.h"
#include "scenario.h"
#include "../lib/units.h"
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

/* The lab a scenario asks for, or NULL. */
static const char *lab_kind_of(const struct scenario *sc)
{
    static const char *const kinds[] = {NULL, "iscsi", "gluster"};
    return kinds[sc->lab_choice];
}

/* What a corrupt fault may write to when the scenario names no path. */
static const char *target_of(const struct scenario *sc, const struct lab *lab)
{
    if (strcmp(sc->target.kind, "iscsi") == 0)
        return lab ? lab->lun : NULL;
    return sc->target.path;
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

/* Whether a fault's change was made (a failed clear still counts). */
static bool applied(const struct fault *f)
{
    return f->injected_ns && strncmp(f->error, "inject failed", 13) != 0 &&
           strncmp(f->error, "not injected", 12) != 0;
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
        if (!applied(f))
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
static int finish(struct report *rep, struct crew *crew, struct event_log *events,
                  const char *target_path)
{
    char err[FL_ERRLEN];
    rep->events = events;
    struct run_verdict verdict;
    struct verdict_input vin = {
        .sc = rep->sc, .run = strcmp(rep->mode, "run") == 0, .findings = rep->findings,
        .faults = rep->faults, .nfaults = rep->nfaults, .recovery = rep->recovery,
        .target_path = target_path, .block_size = rep->meta->block_size,
        .nblocks = rep->meta->nblocks, .written = crew_block_written, .written_ctx = crew,
        .io = rep->io, .sweep = rep->sweep, .doubtful_writes = rep->doubtful_writes,
        .hung = rep->hung, .max_stall_s = rep->recovery ? rep->max_stall_s : -1};
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
    crew_close(crew);
    crew_free(crew);
    return code;
}

int cmd_run(const struct run_opts *o)
{
    char err[FL_ERRLEN];
    struct scenario sc;
    if (scenario_load(o->scenario, &sc, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    char dir[PATH_MAX];
    if (make_run_dir(o, sc.name, dir, sizeof dir, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    char copy[PATH_MAX + 32];
    snprintf(copy, sizeof copy, "%s/scenario.scn", dir);
    if (copy_file(o->scenario, copy, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    uint64_t seed = sc.seed_given ? sc.seed : random64();
    sc.workload.seed = seed;
    struct run_meta base = {.run_id = random64(), .start_wall_ns = wall_ns(), .seed = seed,
                            .block_size = sc.workload.block_size, .target_id = 1};
    snprintf(base.name, sizeof base.name, "%s", sc.name);
    uint64_t t0 = mono_ns(); /* provisional; time zero is the workload start */
    struct event_log events;
    if (events_open(&events, dir, 1, 0, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    install_signals();

    /* The embedded lab, if the scenario asks for it. */
    struct lab lab;
    bool lab_created = false, have_lab = false;
    const char *lab_kind = lab_kind_of(&sc);
    if (lab_kind) {
        struct lab_opts lo = {
            .size = sc.lab_size,
            .write_cache = sc.lab_write_cache,
            .ping_timeout_s = (unsigned)(sc.lab_ping_timeout_ns / 1000000000ull),
            .heal_timeout_s = (unsigned)(sc.lab_heal_timeout_ns / 1000000000ull),
            .bitrot = sc.lab_bitrot};
        if (!o->quiet)
            fprintf(stderr, "faultline: bringing up the %s lab\n", lab_kind);
        if (lab_up(lab_kind, &lo, &lab, &lab_created, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab up %s: %s\n", lab_kind, err);
            events_close(&events);
            return 2;
        }
        have_lab = true;
        snprintf(base.lab_prefix, sizeof base.lab_prefix, "%s", lab.prefix);
        char detail[3 * FL_URL_MAX];
        if (lab.nportals)
            snprintf(detail, sizeof detail, "%s lab %s (prefix %s), portals %s and %s",
                     lab_created ? "brought up" : "found up", lab.kind, lab.prefix,
                     lab.portals[0], lab.portals[1]);
        else
            snprintf(detail, sizeof detail, "%s lab %s (prefix %s), volume %s mounted at %s",
                     lab_created ? "brought up" : "found up", lab.kind, lab.prefix, lab.volume,
                     lab.mount);
        events_emit(&events, 0, "lab-up", NULL, detail);
        if (strcmp(sc.target.kind, "iscsi") == 0 && sc.target.iscsi.nportals == 0)
            scenario_use_portals(&sc, lab.portals, lab.nportals);
        if (strcmp(sc.target.kind, "files") == 0 && !sc.target.path[0])
            scenario_use_mount(&sc, lab.mount);
    }

    struct crew crew = {.stop_workload = &stop_workload, .stop_sweep = &stop_sweep,
                        .events = &events, .quiet = o->quiet, .t0 = t0};
    struct heal_watch heal;
    bool watching = false;
    bool abandoned = false;
    struct timeline *tl = calloc(1, sizeof *tl);
    int code;
    if (!tl) {
        fprintf(stderr, "faultline: out of memory\n");
        code = 2;
    } else if (crew_prepare_run(&crew, &sc, dir, &base, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        crew_close(&crew);
        crew_free(&crew);
        code = 2;
    } else if (timeline_prepare(tl, &sc, have_lab ? &lab : NULL, dir, &events,
                                target_of(&sc, have_lab ? &lab : NULL), crew.capacity,
                                base.run_id, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        crew_close(&crew);
        crew_free(&crew);
        code = 2;
    } else {
        if (!o->quiet)
            fprintf(stderr, "faultline: %s on %s, %u worker%s, %u fault%s, for %.1f s; run "
                            "directory %s\n",
                    sc.name, crew.desc, crew.n, crew.n == 1 ? "" : "s", tl->n,
                    tl->n == 1 ? "" : "s", (double)sc.duration_ns / 1e9, dir);
        /* Time zero is the start of the workload: faults count from there. */
        struct start_ctx sctx = {.tl = tl, .events = &events};
        crew.on_start = start_faults;
        crew.on_start_ctx = &sctx;
        crew.between = finish_faults;
        crew.between_ctx = tl;
        crew.active_faults = &tl->active;
        /* A replicated volume's healing, watched from the start. */
        if (have_lab && strcmp(lab.kind, "gluster") == 0 &&
            heal_watch_start(&heal, &lab, err, sizeof err) == 0)
            watching = true;
        else if (have_lab && strcmp(lab.kind, "gluster") == 0)
            fprintf(stderr, "faultline: %s; heal times are not measured\n", err);
        crew_run(&crew);
        if (watching && !crew.abandoned) {
            if (!o->quiet)
                fprintf(stderr, "faultline: waiting (at most %.0f s) for %s to heal\n",
                        (double)sc.heal_wait_ns / 1e9, lab.volume);
            heal_watch_finish(&heal, sc.heal_wait_ns);
            char detail[160];
            snprintf(detail, sizeof detail, "%s %s", lab.volume,
                     heal_watch_healed(&heal) ? "has nothing left to heal"
                                              : "still has entries to heal after heal_wait");
            events_emit(&events, 0, "heal", NULL, detail);
        }
        struct run_meta meta = crew.w[0].meta;
        meta.nblocks = meta.total_blocks;
        struct report rep = crew_report("run", dir, &sc, &meta, &crew);
        rep.io = &crew.io;
        rep.sweep = crew.error ? NULL : &crew.sweep;
        rep.interrupted = crew.interrupted;
        rep.journal_stalls = crew.journal_stalls;
        rep.checkpoints = crew.checkpoints;
        rep.doubtful_writes = crew.doubtful_writes;
        rep.meta_streams = crew.meta_left_behind ? NULL : crew.meta;
        rep.nmeta = crew.meta_left_behind ? 0 : crew.nmeta;
        rep.prefill = sc.workload.prefill ? &crew.prefilled : NULL;
        rep.faults = tl->faults;
        rep.nfaults = tl->n;
        rep.injections = timeline_delays(tl, &rep.inject_p50_ms, &rep.inject_p99_ms,
                                         &rep.inject_max_ms);
        struct recovery *recov = calloc(tl->n ? tl->n : 1, sizeof *recov);
        if (!recov) {
            fprintf(stderr, "faultline: out of memory\n");
            crew_close(&crew);
            crew_free(&crew);
            code = 2;
        } else {
            analyse(&rep, &crew, tl, recov);
            for (unsigned i = 0; watching && !crew.abandoned && i < tl->n; i++) {
                if (!recov[i].injected)
                    continue;
                /* from the clear: the server is back and healing can start */
                uint64_t clear = recov[i].lasting ? recov[i].clear_ns : rep.end_ns;
                recov[i].heal_measured = true;
                recov[i].healed = heal_watch_time(&heal, crew.t0 + clear, &recov[i].heal_s);
            }
            abandoned = crew.abandoned;
            code = finish(&rep, &crew, &events, target_of(&sc, have_lab ? &lab : NULL));
            free(recov);
        }
    }
    if (watching && !abandoned)
        heal_watch_free(&heal);
    if (tl) {
        timeline_free(tl); /* clears anything still active, on every path */
        free(tl);
    }
    if (have_lab && lab_created && !o->keep_lab) {
        if (lab_down(lab_kind, lab.prefix, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab down %s: %s (run `faultline lab down %s`)\n",
                    lab_kind, err, lab_kind);
            if (code == 0)
                code = 2;
        }
    } else if (have_lab && !o->quiet) {
        fprintf(stderr, "faultline: the %s lab (prefix %s) stays up; `faultline lab down "
                        "%s` removes it\n", lab_kind, lab.prefix, lab_kind);
    }
    if (abandoned) {
        /* Workers are still parked in calls to a target that never answered;
         * their threads own memory nothing may free under them, and may still
         * emit events (the lab going down is a path loss to them): the event
         * log stays open.  The reports are written: leave without running
         * exit handlers over any of it. */
        fflush(stdout);
        fflush(stderr);
        _exit(code);
    }
    events_close(&events);
    return code;
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
    bool lab_target = (strcmp(sc.target.kind, "iscsi") == 0 && sc.target.iscsi.nportals == 0) ||
                      (strcmp(sc.target.kind, "files") == 0 && !sc.target.path[0]);
    if (lab_target && lab_kind_of(&sc)) {
        /* The run went to the lab's LUN or volume: it must still be there. */
        struct run_meta m;
        char w0[PATH_MAX + 32];
        snprintf(w0, sizeof w0, "%s/worker-0", dir);
        struct lab lab;
        if (state_read_meta(w0, &m, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: %s\n", err);
            return 2;
        }
        if (lab_load(lab_kind_of(&sc), m.lab_prefix, &lab, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: the run used the embedded %s lab (prefix %s): %s; "
                            "its storage went with it\n", lab_kind_of(&sc), m.lab_prefix, err);
            return 2;
        }
        if (lab.nportals)
            scenario_use_portals(&sc, lab.portals, lab.nportals);
        else
            scenario_use_mount(&sc, lab.mount);
    }
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
    int code = finish(&rep, &crew, &events, NULL);
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
    const char *where = sc.target.path;
    if (strcmp(sc.target.kind, "iscsi") == 0)
        where = sc.target.iscsi.nportals ? sc.target.iscsi.portals[0] : "the lab's LUN";
    else if (!where[0])
        where = "the lab's volume";
    printf("%s: ok: %s on %s %s (%s), %s blocks, %s, %u%% reads, depth %u, %.1f s, %u fault%s, "
           "%u expectation%s\n", file, sc.name, sc.target.kind, where, size, bs,
           sc.workload.pattern == PATTERN_RANDOM ? "random" : "sequential", sc.workload.read_pct,
           sc.workload.depth, (double)sc.duration_ns / 1e9, sc.nfaults, sc.nfaults == 1 ? "" : "s",
           sc.nexpects, sc.nexpects == 1 ? "" : "s");
    return 0;
}
