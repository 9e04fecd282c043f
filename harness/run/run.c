/* run — see run.h. */
#include "run_parts.h"
#include "repeat.h"

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

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/jread.h"
#include "../../lib/ranks.h"
#include "../../lib/rng.h"
#include "../../lib/units.h"
#include "../../workloads/engine.h"
#include "../../workloads/journal.h"
#include "../../workloads/verify.h"
#include "../clients/client_result.h"
#include "../live/manifest.h"
#include "../report/report.h"
#include "conclude.h"
#include "gather.h"
#include "launch.h"
#include "rundir.h"

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
    struct resources *res; /* rank 0 (or alone) only */
};

/* The crew's hook at time zero: events count from here, faults start,
 * the hosts' resources are sampled. */
static void start_faults(void *ctx, uint64_t t0)
{
    struct start_ctx *s = ctx;
    char err[512];
    events_set_t0(s->events, t0);
    if (s->res && resources_start(s->res, t0, err, sizeof err) != 0)
        fprintf(stderr, "faultline: %s; no resources.csv\n", err);
    if (s->tl && timeline_start(s->tl, t0, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        run_stop_workload = 1; /* no half run: end at once, still report */
    }
}

/* The crew's hook between workload and sweep: every fault cleared, the
 * sampling of resources ended. */
static void finish_faults(void *ctx)
{
    struct start_ctx *s = ctx;
    timeline_finish(s->tl);
    if (s->res)
        resources_stop(s->res);
}

/* Rank r learns the run from rank 0, then loads the same scenario. */
static int rank_setup(struct run *r, char *err, size_t errlen)
{
    struct clients_hello h;
    if (clients_wait_hello(&r->cl, &h, 600000000000ull, err, errlen) != 0)
        return -1;
    snprintf(r->dir, sizeof r->dir, "%s", h.dir);
    if (scenario_load(r->o->scenario, &r->sc, err, errlen) != 0) {
        clients_failed(&r->cl, err);
        return -1;
    }
    r->sc.workload.seed = h.seed + RNG_GOLDEN * r->mpi.rank; /* its own op sequence */
    r->base = (struct run_meta){.run_id = h.run_id, .start_wall_ns = h.start_wall_ns,
                                .seed = h.seed, .block_size = r->sc.workload.block_size,
                                .target_id = 1};
    snprintf(r->base.name, sizeof r->base.name, "%s", r->sc.name);
    snprintf(r->base.lab_prefix, sizeof r->base.lab_prefix, "%s", h.lab_prefix);
    return 0;
}

/* Room for the reports on a run directory that fills up (ENOSPC): a file
 * that holds REPORT_ROOM bytes from the start, removed just before the
 * reports are written.  The journal fails with its own clear error first. */
#define REPORT_ROOM (2u << 20)
static void report_room(const struct run *r, bool reserve)
{
    char path[sizeof r->own_dir + 16], err[FL_ERRLEN];
    snprintf(path, sizeof path, "%s/.report-room", r->own_dir);
    if (!reserve)
        unlink(path);
    else if (reserve_file(path, REPORT_ROOM, err, sizeof err) != 0)
        fprintf(stderr, "faultline: %s; should the run directory fill up, the reports may not "
                "fit\n", err);
}

/* --client-dir: this rank's directory is PATH/client-R, and DIR/client-R
 * links to it (on this node; on all when DIR is shared), so that
 * everything that reads DIR/client-R finds it. */
static int client_dir_link(struct run *r, char *err, size_t errlen)
{
    char target[PATH_MAX + 64];
    crew_client_dir(r->o->client_dir, (unsigned)r->mpi.size, (unsigned)r->mpi.rank, target,
                    sizeof target);
    if (mkdir_p(target, err, errlen) != 0 || mkdir_p(r->dir, err, errlen) != 0)
        return -1;
    char abs_target[PATH_MAX];
    if (!realpath(target, abs_target)) {
        snprintf(err, errlen, "%s: %s", target, strerror(errno));
        return -1;
    }
    if (symlink(abs_target, r->own_dir) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot link %s to %s: %s", r->own_dir, abs_target,
                 strerror(errno));
        return -1;
    }
    return 0;
}

/* The scenario, the run directory with its copy, the seed, the events
 * (rank r: what rank 0 says, and its own directory DIR/client-R). */
static int run_setup(struct run *r, char *err, size_t errlen)
{
    if (r->multi && !run_is_rank0(r)) {
        if (rank_setup(r, err, errlen) != 0)
            return -1;
    } else {
        if (scenario_load(r->o->scenario, &r->sc, err, errlen) != 0 ||
            run_dir_make(r->o->out, r->sc.name, r->dir, sizeof r->dir, err, errlen) != 0)
            return -1;
        char copy[PATH_MAX + 32];
        snprintf(copy, sizeof copy, "%s/scenario.scn", r->dir);
        if (copy_file(r->o->scenario, copy, err, errlen) != 0)
            return -1;
        uint64_t seed = r->sc.seed_given ? r->sc.seed : random64();
        r->sc.workload.seed = seed;
        r->base = (struct run_meta){.run_id = random64(), .start_wall_ns = wall_ns(),
                                    .seed = seed, .block_size = r->sc.workload.block_size,
                                    .target_id = 1};
        snprintf(r->base.name, sizeof r->base.name, "%s", r->sc.name);
    }
    unsigned ranks = (unsigned)r->mpi.size;
    /* (as the scenario check does for [lab] clients, for ranks launched by
     * hand: the other clients would call what a cut took lost writes) */
    for (unsigned i = 0; ranks > 1 && i < r->sc.nfaults; i++)
        if (r->sc.faults[i].loses == LOSES_UNFLUSHED) {
            snprintf(err, errlen, "%s:%d: [fault %s] loses = unflushed: not with several "
                     "clients yet (%u ranks): the other clients could not be told of the cut "
                     "while the workload runs", r->sc.file, r->sc.faults[i].line,
                     r->sc.faults[i].name, ranks);
            if (!run_is_rank0(r))
                clients_failed(&r->cl, err);
            return -1;
        }
    crew_client_dir(r->dir, ranks, (unsigned)r->mpi.rank, r->own_dir, sizeof r->own_dir);
    if (ranks > 1 && r->o->client_dir && client_dir_link(r, err, errlen) != 0) {
        if (!run_is_rank0(r))
            clients_failed(&r->cl, err);
        return -1;
    }
    if (mkdir_p(r->own_dir, err, errlen) != 0 ||
        events_open(&r->events, r->own_dir, 1, 0, err, errlen) != 0) {
        if (r->multi && !run_is_rank0(r))
            clients_failed(&r->cl, err);
        return -1;
    }
    r->events_open = true;
    report_room(r, true);
    /* Which client this is: rank r owns b % ranks == r, and a file tree
     * gives it a subtree of its own. */
    r->sc.target.rank = r->mpi.rank;
    r->sc.target.ranks = ranks;
    r->sc.target.cross_reads = ranks > 1 && r->sc.workload.cross_pct > 0;
    return 0;
}

/* Rank r tells rank 0 when its workload is over (faults are being
 * cleared): what it did, in case it is not heard of again. */
static void rank_progress(void *ctx)
{
    struct run *r = ctx;
    struct crew *c = &r->crew;
    uint64_t reads = 0, writes = 0, errors = 0, findings = 0;
    for (unsigned i = 0; i < c->n; i++) {
        reads += atomic_load(&c->w[i].p_reads);
        writes += atomic_load(&c->w[i].p_writes);
        errors += atomic_load(&c->w[i].p_errors);
        findings += atomic_load(&c->w[i].p_findings);
    }
    char text[256];
    snprintf(text, sizeof text, "its workload ended at %.1f s with %" PRIu64 " reads, %" PRIu64
             " writes, %" PRIu64 " errors, %" PRIu64 " findings%s; then its sweep",
             (double)(mono_ns() - c->t0) / 1e9, reads, writes, errors, findings,
             c->abandoned ? " (workers left behind on a silent target)" : "");
    clients_progress(&r->cl, text);
}

/* The crew and the faults, ready to start; -1 with err. */
static int run_prepare(struct run *r, char *err, size_t errlen)
{
    r->crew = (struct crew){.stop_workload = &run_stop_workload,
                            .stop_sweep = &run_stop_sweep,
                            .events = &r->events,
                            .quiet = r->o->quiet || !run_is_rank0(r),
                            .t0 = mono_ns(),
                            .rank = r->mpi.rank,
                            .ranks = (unsigned)r->mpi.size};
    if (r->multi) {
        r->crew.time_zero = clients_time_zero;
        r->crew.time_zero_ctx = &r->cl;
    }
    if (!(r->tl = calloc(1, sizeof *r->tl))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (crew_prepare_run(&r->crew, &r->sc, r->dir, &r->base, err, errlen) != 0 ||
        (run_is_rank0(r) && timeline_prepare(r->tl, &r->sc, r->have_lab ? &r->lab : NULL, r->dir,
                                             &r->events, run_target_path(r), r->crew.capacity,
                                             r->base.run_id, err, errlen) != 0)) {
        crew_discard(&r->crew); /* a refusal leaves no target file it made */
        crew_close(&r->crew);
        crew_free(&r->crew);
        return -1;
    }
    if (!run_is_rank0(r)) { /* rank 0 owns the timeline */
        free(r->tl);
        r->tl = NULL;
    } else if ((r->res = malloc(sizeof *r->res)) &&
               resources_prepare(r->res, resources_period_for(r->sc.bucket_ns, r->sc.duration_ns),
                                 r->have_lab ? &r->lab : NULL,
                                 r->sc.target.path, err, errlen) != 0) {
        fprintf(stderr, "faultline: %s; the hosts' resources are not sampled\n", err);
        resources_free(r->res);
        free(r->res);
        r->res = NULL;
    }
    if (r->multi && run_is_rank0(r)) {
        struct clients_hello h = {.run_id = r->base.run_id, .seed = r->base.seed,
                                  .start_wall_ns = r->base.start_wall_ns};
        snprintf(h.dir, sizeof h.dir, "%s", r->dir);
        snprintf(h.lab_prefix, sizeof h.lab_prefix, "%s", r->base.lab_prefix);
        clients_hello(&r->cl, &h);
    }
    run_watch_replicas(r);
    return 0;
}

/* The faults' timing, for the report: every inject's delay, also per
 * family (each family once, in scenario order). */
static void fault_timing(struct report *rep, const struct timeline *tl)
{
    static struct remote_info agents[FL_MAX_HOSTS];
    rep->faults = tl->faults;
    rep->nfaults = tl->n;
    rep->hosts = tl->env.hosts;
    rep->nhosts = tl->env.nhosts;
    rep->agents = agents;
    rep->nagents = timeline_agents(tl, agents, FL_MAX_HOSTS);
    rep->injections = timeline_delays(tl, &rep->inject_p50_ms, &rep->inject_p99_ms,
                                      &rep->inject_max_ms);
    for (unsigned i = 0; i < tl->n; i++) {
        const char *action = tl->faults[i].ops->action;
        bool seen = false;
        for (unsigned k = 0; k < rep->nfamily_timing && !seen; k++)
            seen = strcmp(rep->family_timing[k].action, action) == 0;
        struct family_timing *ft = &rep->family_timing[rep->nfamily_timing];
        if (seen || !(ft->injections = timeline_delays_of(tl, action, &ft->p50_ms, &ft->p99_ms,
                                                          &ft->max_ms)))
            continue;
        ft->action = action;
        rep->nfamily_timing++;
    }
}

/* Rank 0 after its own sweep: every rank's result, the cross reads judged
 * by their owners, and one report over all of them. */
static int finish_rank0(struct run *r, struct report *rep, struct recovery *recov)
{
    struct crew *crew = &r->crew;
    struct clients *cl = &r->cl;
    char err[FL_ERRLEN];
    if (crew_save_cross(crew, err, sizeof err) != 0)
        fprintf(stderr, "faultline: %s\n", err);
    client_result_of(&cl->c[0].res, 0, crew, NULL);
    cl->c[0].have_res = true;
    cl->c[0].state = CLIENT_REPORTED;
    run_say(r, "gathering the results of %u clients", cl->n);
    /* A rank that has not reported by the end of the run (its duration, or
     * rank 0's own sweep when that ends later) plus grace is lost. */
    uint64_t end = crew->t0 + r->sc.duration_ns;
    clients_gather(cl, (mono_ns() > end ? mono_ns() : end) + r->sc.grace_ns);
    char cerr[512];
    if (clients_save_clocks(cl, r->dir, cerr, sizeof cerr) != 0)
        fprintf(stderr, "faultline: %s\n", cerr);
    struct combined all;
    int rc = gather_combine(&all, cl, crew, &r->sc, r->tl, &r->events, r->dir);
    if (rc == 0 && r->sc.workload.cross_pct) {
        all.cross.rule = r->sc.backend->cross_rule ? r->sc.backend->cross_rule : "acknowledged";
        all.cross.pct = r->sc.workload.cross_pct;
        struct cross_tally t = {0};
        clients_cross(cl, crew, cl->c[0].res.cross, cl->c[0].res.ncross, &all.findings, &t);
        all.cross.reads = t.reads;
        all.cross.judged = t.judged;
        all.cross.ok = t.ok;
        all.cross.bad = t.bad;
        all.cross.unjudged = t.unjudged;
        rep->cross = &all.cross;
    }
    if (rc != 0) {
        fprintf(stderr, "faultline: out of memory combining the clients' results\n");
        gather_free(&all);
        return 2;
    }
    gather_sort(&all);
    rep->findings = &all.findings;
    rep->io = &all.io;
    rep->sweep = crew->error ? NULL : &all.sweep;
    rep->prefill = r->sc.workload.prefill ? &all.prefilled : NULL;
    rep->meta_streams = NULL;
    rep->meta_ops = all.meta_ops;
    rep->meta_errors = all.meta_errors;
    rep->nmeta = 0;
    for (unsigned k = 0; k < cl->n; k++)
        rep->nmeta += cl->c[k].have_res ? cl->c[k].res.nmeta : 0;
    rep->clients = all.clients;
    rep->nclients = cl->n;
    rep->lost_clients = clients_lost(cl);
    rep->workers = crew->n * cl->n;
    for (unsigned k = 1; k < cl->n; k++) {
        const struct client_result *x = &cl->c[k].res;
        if (!cl->c[k].have_res)
            continue;
        rep->hung += x->hung;
        rep->abandoned |= x->abandoned;
        rep->journal_stalls += x->journal_stalls;
        rep->checkpoints += x->checkpoints;
        rep->doubtful_writes += x->doubtful_writes;
        rep->map_bytes_at_rest += x->bytes_at_rest;
        rep->map_bytes_peak += x->bytes_peak;
        rep->pending_peak += x->pending_peak;
        rep->interrupted |= x->interrupted;
    }
    if (rep->interrupted && !rep->interrupt_signal) /* a rank's own signal */
        rep->interrupt_signal = run_cut_short_by(true);
    conclude_analyse(rep, crew, &all.series, r->tl, recov);
    run_heal_finish(r, recov, rep->end_ns);
    r->abandoned = crew->abandoned;
    int code = conclude_finish(rep, crew, &r->events);
    launch_save_status(r->dir, code); /* mpirun may not pass our status on */
    r->clean_exit = clients_done(cl, code);
    gather_free(&all);
    return code;
}

/* Rank r after its sweep: its result into its own directory first, then
 * to rank 0, which answers with the exit status. */
static int finish_rank(struct run *r)
{
    struct crew *crew = &r->crew;
    char err[FL_ERRLEN];
    if (crew_save_cross(crew, err, sizeof err) != 0)
        fprintf(stderr, "faultline: rank %d: %s\n", r->mpi.rank, err);
    struct client_result res;
    void *buf = NULL;
    size_t len = 0;
    int code = 2;
    client_result_of(&res, (unsigned)r->mpi.rank, crew, &r->events);
    if (client_result_encode(&res, &buf, &len) != 0) {
        fprintf(stderr, "faultline: rank %d: out of memory for its result\n", r->mpi.rank);
    } else {
        if (client_result_save(&res, buf, len, r->own_dir, err, sizeof err) != 0)
            fprintf(stderr, "faultline: rank %d: %s\n", r->mpi.rank, err);
        r->cl.result = buf; /* MPI may read it until the end */
        code = clients_report(&r->cl, buf, len, crew, &r->clean_exit);
        if (r->cl.err[0])
            fprintf(stderr, "faultline: rank %d: %s\n", r->mpi.rank, r->cl.err);
    }
    client_result_free(&res);
    r->abandoned = crew->abandoned;
    crew_close(crew);
    crew_free(crew);
    return code;
}

/* The workload with its faults, the sweep, the analysis, the reports. */
static int run_workload(struct run *r)
{
    const struct scenario *sc = &r->sc;
    struct timeline *tl = r->tl;
    struct crew *crew = &r->crew;
    if (r->multi)
        run_say(r,
                "%s on %s, %u clients of %u worker%s each, %u fault%s, for %.1f s; run directory "
                "%s",
                sc->name, crew->desc, r->cl.n, crew->n, crew->n == 1 ? "" : "s", tl ? tl->n : 0,
                tl && tl->n == 1 ? "" : "s", (double)sc->duration_ns / 1e9, r->dir);
    else
        run_say(r, "%s on %s, %u worker%s, %u fault%s, for %.1f s; run directory %s", sc->name,
                crew->desc, crew->n, crew->n == 1 ? "" : "s", tl->n, tl->n == 1 ? "" : "s",
                (double)sc->duration_ns / 1e9, r->dir);
    /* Time zero is the start of the workload: faults count from there. */
    struct start_ctx sctx = {.tl = tl, .events = &r->events, .res = r->res};
    if (tl)
        tl->power = &crew->power;
    crew->on_start = start_faults;
    crew->on_start_ctx = &sctx;
    if (tl) {
        crew->between = finish_faults;
        crew->between_ctx = &sctx;
        crew->active_faults = &tl->active;
        crew->fault_progress = timeline_progress;
        crew->fault_progress_ctx = tl;
    } else {
        crew->between = rank_progress;
        crew->between_ctx = r;
    }
    run_heal_start(r);
    if (tl)
        tl->heal = r->watching ? &r->heal : NULL; /* what settle = whole asks */
    run_write_schedule(r);
    crew_run(crew);
    run_write_schedule(r); /* as it happened: the faults not reached left out */
    report_room(r, false); /* the workload and its journal are done: now the reports */
    if (!run_is_rank0(r))
        return finish_rank(r);
    run_lab_happenings(r);
    struct run_meta meta = crew->w[0].meta;
    meta.nblocks = meta.total_blocks;
    struct report rep = conclude_report("run", r->dir, sc, &meta, crew);
    rep.io = &crew->io;
    rep.sweep = crew->error ? NULL : &crew->sweep;
    rep.interrupt_signal = run_signal_that_cut(crew->interrupted);
    rep.interrupted = rep.interrupt_signal != 0;
    rep.journal_stalls = crew->journal_stalls;
    rep.checkpoints = crew->checkpoints;
    rep.doubtful_writes = crew->doubtful_writes;
    rep.at_risk = crew->at_risk;
    rep.meta_streams = crew->meta_left_behind ? NULL : crew->meta;
    rep.nmeta = crew->meta_left_behind ? 0 : crew->nmeta;
    rep.prefill = sc->workload.prefill ? &crew->prefilled : NULL;
    rep.hung = crew->hung;
    rep.abandoned = crew->abandoned;
    rep.lab = r->have_lab ? &r->lab : NULL; /* names the paths' hosts, faults or not */
    fault_timing(&rep, tl);
    char rerr[FL_ERRLEN];
    if (r->res && resources_write_csv(r->res, r->dir, rerr, sizeof rerr) != 0)
        fprintf(stderr, "faultline: %s\n", rerr);
    rep.resources = r->res;
    struct manifest *man = manifest_gather(&(struct manifest_from){
        .dir = r->dir, .sc = sc, .seed = r->base.seed, .be = manifest_backend(crew),
        .lab = r->have_lab ? &r->lab : NULL, .agents = rep.agents, .nagents = rep.nagents,
        .cluster = r->have_lab || !r->have_storage ? NULL : &r->storage});
    rep.manifest = man;
    struct recovery *recov = calloc(tl->n ? tl->n : 1, sizeof *recov);
    if (!recov) {
        run_heal_finish(r, NULL, 0);
        fprintf(stderr, "faultline: out of memory\n");
        if (r->multi)
            r->clean_exit = clients_done(&r->cl, 2);
        crew_close(crew);
        crew_free(crew);
        manifest_free(man);
        return 2;
    }
    int code;
    if (r->multi) {
        code = finish_rank0(r, &rep, recov);
    } else {
        conclude_analyse(&rep, crew, &crew->series, tl, recov);
        run_heal_finish(r, recov, rep.end_ns);
        r->abandoned = crew->abandoned;
        code = conclude_finish(&rep, crew, &r->events);
    }
    free(recov);
    manifest_free(man);
    return code;
}

/* Faults cleared, the lab down (if this run brought it up); the exit status. */
static int run_teardown(struct run *r, int code)
{
    char err[FL_ERRLEN];
    if (r->own_dir[0])
        report_room(r, false); /* a run refused or cut short */
    if (r->watching && !r->abandoned)
        heal_watch_free(&r->heal);
    if (r->tl) {
        timeline_free(r->tl); /* clears anything still active, on every path */
        free(r->tl);
    }
    if (r->res) {
        resources_free(r->res);
        free(r->res);
    }
    const char *kind = r->have_lab ? r->lab.kind->name : "";
    if (r->have_lab && r->lab_created && !r->o->keep_lab) {
        if (lab_down(r->lab.kind, r->lab.prefix, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: lab down %s: %s (run `faultline lab down %s`)\n", kind,
                    err, kind);
            if (code == 0)
                code = 2;
        }
    } else if (r->have_lab && !r->multi && !getenv(REPEAT_ENV)) {
        run_say(r, "the %s lab (prefix %s) stays up; `faultline lab down %s` removes it", kind,
                r->lab.prefix, kind);
    }
    if (r->abandoned || (r->multi && !r->clean_exit)) {
        /* Workers are still parked in calls to a target that never answered
         * (their threads own memory nothing may free under them, and may still
         * emit events: the event log stays open), or MPI may still read a
         * message that never left, or a rank is gone and MPI_Finalize would
         * wait for it.  The reports are written: leave without running exit
         * handlers over any of it. */
        fflush(stdout);
        fflush(stderr);
        _exit(code);
    }
    if (r->events_open)
        events_close(&r->events);
    clients_free(&r->cl);
    ranks_finish(&r->mpi, true);
    return code;
}

/* Whether mpirun was told to keep the job going when a rank dies. */
static bool survives_lost_ranks(void)
{
    const char *rec = getenv("OMPI_MCA_orte_enable_recovery");
    const char *abort = getenv("OMPI_MCA_orte_abort_on_non_zero_status");
    if (!getenv("OMPI_COMM_WORLD_SIZE"))
        return true; /* not Open MPI's mpirun: its launcher's own rules */
    return (rec && (strcmp(rec, "1") == 0 || strcmp(rec, "true") == 0)) ||
           (abort && (strcmp(abort, "0") == 0 || strcmp(abort, "false") == 0));
}

/* A run that cannot start: its directory says why (never a half-made run);
 * rank 0 releases the other ranks, a rank tells rank 0 why. */
static void run_refused(struct run *r, const char *why)
{
    char err[FL_ERRLEN];
    if (run_is_rank0(r) && r->dir[0] &&
        report_write_refusal(r->dir, &r->sc, why, err, sizeof err) != 0)
        fprintf(stderr, "faultline: %s\n", err);
    if (!r->multi)
        return;
    if (run_is_rank0(r)) {
        launch_save_status(r->dir, 2);
        clients_done(&r->cl, 2);
    } else {
        clients_failed(&r->cl, why);
    }
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
    /* Repetitions: this process runs each as a child (repeat.h). */
    if (scenario_load(o->scenario, &r->sc, err, sizeof err) == 0) {
        int n = repeat_count(o, &r->sc, err, sizeof err);
        if (n != 1) {
            int code = n < 0 ? 2 : cmd_repeat(o, &r->sc, (unsigned)n);
            if (n < 0)
                fprintf(stderr, "faultline: %s\n", err);
            free(r);
            return code;
        }
    }
    if (ranks_init(&r->mpi, NULL, NULL, err, sizeof err) != 0 ||
        clients_init(&r->cl, &r->mpi, 30000000000ull, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        free(r);
        return 2;
    }
    r->multi = r->mpi.size > 1;
    if (r->multi && run_is_rank0(r) && !survives_lost_ranks())
        fprintf(stderr, "faultline: note: mpirun ends the whole job when one rank dies, before "
                "rank 0 can name it lost and report; start it with --enable-recovery\n");
    if (!r->mpi.mpi) {
        /* A lab scenario with client hosts: this process brings the lab up
         * and starts the ranks (launch.h). */
        if (scenario_load(o->scenario, &r->sc, err, sizeof err) == 0 && launch_needed(&r->sc)) {
            int code = launch_run(o, &r->sc);
            clients_free(&r->cl);
            free(r);
            return code;
        }
    }
    int code = 2;
    /* Before the run directory shows: a repeat forwards its SIGINT as soon
     * as a repetition's events.jsonl exists, and the repetition must still
     * report (it ends its workload at once). */
    run_install_signals();
    if (run_setup(r, err, sizeof err) != 0) {
        if (r->multi && !run_is_rank0(r))
            fprintf(stderr, "faultline: rank %d: %s\n", r->mpi.rank, err);
        else
            fprintf(stderr, "faultline: %s\n", err);
        if (r->events_open)
            events_close(&r->events);
        if (r->multi) {
            if (run_is_rank0(r))
                clients_done(&r->cl, 2);
            fflush(stdout);
            fflush(stderr);
            _exit(2); /* a rank may be gone: MPI_Finalize could wait for it */
        }
        clients_free(&r->cl);
        ranks_finish(&r->mpi, true);
        free(r);
        return 2;
    }
    r->cl.grace_ns = r->sc.grace_ns;
    if (run_lab_up(r, err, sizeof err) != 0 || run_prepare(r, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        run_refused(r, err);
    } else {
        code = run_workload(r);
    }
    code = run_teardown(r, code);
    free(r);
    return code;
}
