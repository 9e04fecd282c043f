/* run — see run.h. */
#include "run.h"
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

#include "../lib/clock.h"
#include "../lib/fsutil.h"
#include "../lib/jread.h"
#include "../lib/ranks.h"
#include "../lib/rng.h"
#include "../lib/units.h"
#include "../workloads/engine.h"
#include "../workloads/journal.h"
#include "../workloads/verify.h"
#include "client_result.h"
#include "clients.h"
#include "conclude.h"
#include "crew.h"
#include "events.h"
#include "evidence.h"
#include "gather.h"
#include "heal.h"
#include "lab/lab.h"
#include "launch.h"
#include "manifest.h"
#include "report/report.h"
#include "resources.h"
#include "rundir.h"
#include "scenario/scenario.h"
#include "timeline.h"

/* First SIGINT/SIGTERM: end the workload early, still flush, sweep and
 * report.  Second: also cut the sweep short.  (During `verify` the first
 * one ends the pass.) */
static volatile sig_atomic_t stop_workload, stop_sweep;
static volatile sig_atomic_t stop_signal; /* the first one: the exit status is 128 + it */

static void on_signal(int sig)
{
    if (stop_workload)
        stop_sweep = 1;
    else
        stop_signal = sig;
    stop_workload = 1;
}

/* The signal that cut the run short, or 0: the workload ended early, or
 * a second signal cut the sweep (one during the sweep lets it finish). */
static int cut_short_by(bool workload_cut)
{
    return workload_cut || stop_sweep ? (stop_signal ? stop_signal : SIGTERM) : 0;
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
        stop_workload = 1; /* no half run: end at once, still report */
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

/* One `faultline run`: what its steps share. */
struct run {
    const struct run_opts *o;
    struct scenario sc;
    char dir[PATH_MAX];
    char own_dir[PATH_MAX + 32]; /* DIR, or DIR/client-R with several clients */
    struct run_meta base;
    struct event_log events;
    bool events_open;
    struct lab lab;
    bool have_lab, lab_created;
    struct storage storage; /* what the run knows of its storage: the lab's, or [cluster]'s */
    bool have_storage;
    struct lab_place place; /* where the lab's target is, when it gives the target its place */
    bool placed;
    struct crew crew;
    struct timeline *tl;    /* rank 0 (or alone) only */
    struct resources *res;  /* rank 0 (or alone) only; NULL when it cannot sample */
    struct heal_watch heal;
    bool watching, abandoned;
    struct evidence evidence;     /* a look at the replicas at early findings */
    const char *replicas[LAB_MAX_HOSTS];
    /* a run over several clients: the MPI job, and the exchange with rank 0 */
    struct ranks mpi;
    struct clients cl;
    bool multi;             /* more than one rank */
    bool clean_exit;        /* every rank took part to the end: MPI_Finalize */
};

static bool is_rank0(const struct run *r)
{
    return r->mpi.rank == 0;
}

static void say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct run *r, const char *fmt, ...)
{
    if (r->o->quiet || !is_rank0(r))
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "faultline: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
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
    if (r->multi && !is_rank0(r)) {
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
            if (!is_rank0(r))
                clients_failed(&r->cl, err);
            return -1;
        }
    crew_client_dir(r->dir, ranks, (unsigned)r->mpi.rank, r->own_dir, sizeof r->own_dir);
    if (ranks > 1 && r->o->client_dir && client_dir_link(r, err, errlen) != 0) {
        if (!is_rank0(r))
            clients_failed(&r->cl, err);
        return -1;
    }
    if (mkdir_p(r->own_dir, err, errlen) != 0 ||
        events_open(&r->events, r->own_dir, 1, 0, err, errlen) != 0) {
        if (r->multi && !is_rank0(r))
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

/* The storage the run is against, known as a lab knows its own: the
 * lab's, or the [cluster]'s, whose CLI is asked on its via host over ssh. */
static void run_storage(struct run *r)
{
    if (r->have_lab) {
        r->have_storage = lab_storage(&r->lab, &r->storage);
        return;
    }
    const struct host_spec *via = scenario_cluster_via(&r->sc);
    if (!via)
        return;
    const struct cluster_spec *c = &r->sc.cluster;
    storage_over_ssh(&r->storage, c->kind, c->volume, via->name, &via->via);
    r->have_storage = true;
    say(r, "the cluster: %s%s%s, its %s CLI asked %s", c->kind->what, c->volume[0] ? " " : "",
        c->volume, c->kind->cli, r->storage.where);
}

/* What the storage is called in messages: the lab's volume (filesystem),
 * the [cluster]'s volume, or "the cluster". */
static const char *storage_name(const struct run *r)
{
    return r->have_lab ? r->place.name : r->storage.volume[0] ? r->storage.volume : "the cluster";
}

/* The embedded lab, if the scenario asks for it; the target takes the
 * place the lab has for it.  A run over several clients uses the lab that
 * is up (`faultline run` brings it up before it starts mpirun).  Then the
 * storage the run is against (run_storage). */
static int run_lab_up(struct run *r, char *err, size_t errlen)
{
    const struct lab_kind *k = r->sc.lab;
    if (!k) {
        run_storage(r);
        return 0;
    }
    char why[2048];
    if (r->multi) {
        char prefix[16];
        if (!is_rank0(r))
            snprintf(prefix, sizeof prefix, "%s", r->base.lab_prefix);
        else if (lab_prefix(r->sc.lab_opts.prefix, prefix, sizeof prefix, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        if (lab_load(k, prefix, &r->lab, why, sizeof why) != 0) {
            snprintf(err, errlen, "a run over several clients uses a %s lab that is up: %s", k->name,
                     why);
            return -1;
        }
    } else {
        say(r, "bringing up the %s lab", k->name);
        if (lab_up(k, &r->sc.lab_opts, &r->lab, &r->lab_created, why, sizeof why) != 0) {
            snprintf(err, errlen, "lab up %s: %s", k->name, why);
            return -1;
        }
    }
    r->have_lab = true;
    snprintf(r->base.lab_prefix, sizeof r->base.lab_prefix, "%s", r->lab.prefix);
    /* a rank in a client host works through that host's place of the target */
    unsigned client = r->multi ? lab_client_of_self(&r->lab) : 0;
    lab_place_for(&r->lab, client, &r->place);
    char detail[2400];
    snprintf(detail, sizeof detail, "%s lab %s (prefix %s), %s",
             r->lab_created ? "brought up" : "found up", k->name, r->lab.prefix, r->place.desc);
    events_emit(&r->events, 0, "lab-up", NULL, detail);
    r->placed = scenario_lab_places(&r->sc);
    run_storage(r);
    return scenario_use_lab(&r->sc, &r->lab, client, err, errlen);
}

/* What a corrupt fault may write to when it names no path: the file that
 * holds the lab's target, or the target itself. */
static const char *target_path(const struct run *r)
{
    if (r->placed && r->place.backing[0])
        return r->place.backing;
    return r->sc.target.path[0] ? r->sc.target.path : NULL;
}

/* Storage that heals (a replicated volume, a cluster that recovers), a
 * lab's or a [cluster]'s: watched from the start. */
static void heal_start(struct run *r)
{
    if (!r->have_storage || !r->storage.kind->heal || !is_rank0(r))
        return;
    char err[512];
    if (heal_watch_start(&r->heal, &r->storage, err, sizeof err) == 0)
        r->watching = true;
    else
        fprintf(stderr, "faultline: %s; %s times are not measured\n", err,
                r->storage.kind->heal->word);
}

/* After the workload: wait for the heal (recovery), then each fault's. */
static void heal_finish(struct run *r, struct recovery *recov, uint64_t end_ns)
{
    if (!r->watching || r->crew.abandoned)
        return;
    const struct storage_heal *h = r->storage.kind->heal;
    say(r, "waiting (at most %.0f s) for %s to %s", (double)r->sc.heal_wait_ns / 1e9,
        storage_name(r), h->word);
    heal_watch_finish(&r->heal, r->sc.heal_wait_ns);
    char detail[1024], last[700];
    if (heal_watch_healed(&r->heal)) {
        snprintf(detail, sizeof detail, "%s is whole: %s", storage_name(r), h->whole);
    } else {
        heal_watch_last(&r->heal, last, sizeof last);
        snprintf(detail, sizeof detail, "%.200s did not %s within heal_wait (%s)", storage_name(r),
                 h->word, last);
        say(r, "%s", detail);
    }
    events_emit(&r->events, 0, h->word, NULL, detail);
    for (unsigned i = 0; recov && i < r->tl->n; i++) {
        if (!recov[i].injected || recov[i].clear_failed)
            continue; /* (no clear to measure from: its clear failed) */
        /* from the clear: the server is back and healing can start */
        uint64_t clear = recov[i].lasting ? recov[i].clear_ns : end_ns;
        /* whole until the next fault's inject, which may undo it */
        uint64_t until = UINT64_MAX;
        for (unsigned k = 0; k < r->tl->n; k++)
            if (recov[k].injected && recov[k].inject_ns > clear &&
                r->crew.t0 + recov[k].inject_ns < until)
                until = r->crew.t0 + recov[k].inject_ns;
        recov[i].heal_measured = true;
        recov[i].heal_word = h->word;
        recov[i].heal_whole = h->whole;
        recov[i].healed =
            heal_watch_time(&r->heal, r->crew.t0 + clear, until, &recov[i].heal_s);
    }
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

static void take_evidence(void *ctx, const struct finding *f, uint64_t t_ns)
{
    struct run *r = ctx;
    evidence_take(&r->evidence, f, (unsigned long long)t_ns);
}

/* On a lab that keeps replicas, alone on it: the replicas looked at, at
 * the first findings (evidence.h). */
static void watch_replicas(struct run *r)
{
    if (!r->tl || r->multi || !r->tl->fault_lab.replica)
        return;
    struct evidence *e = &r->evidence;
    *e = (struct evidence){.lab = &r->tl->fault_lab, .replicas = r->replicas,
                           .backend = r->sc.backend, .target = &r->sc.target,
                           .events = &r->events, .run_id = r->base.run_id};
    for (unsigned i = 1; i < r->lab.nhosts; i++) /* hosts[0] is the client */
        r->replicas[e->nreplicas++] = r->lab.hosts[i].name;
    snprintf(e->path, sizeof e->path, "%s/evidence.txt", r->dir);
    r->crew.on_finding = take_evidence;
    r->crew.on_finding_ctx = r;
}

/* The crew and the faults, ready to start; -1 with err. */
static int run_prepare(struct run *r, char *err, size_t errlen)
{
    r->crew = (struct crew){.stop_workload = &stop_workload, .stop_sweep = &stop_sweep,
                            .events = &r->events, .quiet = r->o->quiet || !is_rank0(r),
                            .t0 = mono_ns(), .rank = r->mpi.rank,
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
        (is_rank0(r) &&
         timeline_prepare(r->tl, &r->sc, r->have_lab ? &r->lab : NULL, r->dir, &r->events,
                          target_path(r), r->crew.capacity, r->base.run_id, err, errlen) != 0)) {
        crew_discard(&r->crew); /* a refusal leaves no target file it made */
        crew_close(&r->crew);
        crew_free(&r->crew);
        return -1;
    }
    if (!is_rank0(r)) { /* rank 0 owns the timeline */
        free(r->tl);
        r->tl = NULL;
    } else if ((r->res = malloc(sizeof *r->res)) &&
               resources_prepare(r->res, r->sc.bucket_ns, r->have_lab ? &r->lab : NULL,
                                 r->sc.target.path, err, errlen) != 0) {
        fprintf(stderr, "faultline: %s; the hosts' resources are not sampled\n", err);
        resources_free(r->res);
        free(r->res);
        r->res = NULL;
    }
    if (r->multi && is_rank0(r)) {
        struct clients_hello h = {.run_id = r->base.run_id, .seed = r->base.seed,
                                  .start_wall_ns = r->base.start_wall_ns};
        snprintf(h.dir, sizeof h.dir, "%s", r->dir);
        snprintf(h.lab_prefix, sizeof h.lab_prefix, "%s", r->base.lab_prefix);
        clients_hello(&r->cl, &h);
    }
    watch_replicas(r);
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
    say(r, "gathering the results of %u clients", cl->n);
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
        rep->interrupt_signal = cut_short_by(true);
    conclude_analyse(rep, crew, &all.series, r->tl, recov);
    heal_finish(r, recov, rep->end_ns);
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

/* What the storage's servers logged during the run (storage_kind.happened:
 * a lab's or a [cluster]'s) joins the timeline as path events, at the
 * times they logged it. */
struct saw_ctx {
    struct event_log *log;
    int64_t t0_wall_ns;
};

static void saw(void *ctx, uint64_t wall_ns, const char *event, const char *where,
                const char *detail)
{
    struct saw_ctx *c = ctx;
    struct event e = {.t_ns = (int64_t)wall_ns - c->t0_wall_ns};
    snprintf(e.event, sizeof e.event, "%s", event);
    snprintf(e.portal, sizeof e.portal, "%s", where);
    snprintf(e.detail, sizeof e.detail, "%s", detail);
    events_add_from(c->log, &e, -1);
}

static void lab_happenings(struct run *r)
{
    if (!r->have_storage || !r->storage.kind->happened || !r->events.t0_known)
        return;
    uint64_t t0_wall = wall_ns() - (mono_ns() - r->events.t0);
    struct saw_ctx c = {.log = &r->events, .t0_wall_ns = (int64_t)t0_wall};
    r->storage.kind->happened(&r->storage, t0_wall, saw, &c);
}

/* The workload with its faults, the sweep, the analysis, the reports. */
static int run_workload(struct run *r)
{
    const struct scenario *sc = &r->sc;
    struct timeline *tl = r->tl;
    struct crew *crew = &r->crew;
    if (r->multi)
        say(r, "%s on %s, %u clients of %u worker%s each, %u fault%s, for %.1f s; run directory "
            "%s", sc->name, crew->desc, r->cl.n, crew->n, crew->n == 1 ? "" : "s",
            tl ? tl->n : 0, tl && tl->n == 1 ? "" : "s", (double)sc->duration_ns / 1e9, r->dir);
    else
        say(r, "%s on %s, %u worker%s, %u fault%s, for %.1f s; run directory %s", sc->name,
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
    } else {
        crew->between = rank_progress;
        crew->between_ctx = r;
    }
    heal_start(r);
    crew_run(crew);
    report_room(r, false); /* the workload and its journal are done: now the reports */
    if (!is_rank0(r))
        return finish_rank(r);
    lab_happenings(r);
    struct run_meta meta = crew->w[0].meta;
    meta.nblocks = meta.total_blocks;
    struct report rep = conclude_report("run", r->dir, sc, &meta, crew);
    rep.io = &crew->io;
    rep.sweep = crew->error ? NULL : &crew->sweep;
    rep.interrupted = cut_short_by(crew->interrupted) != 0;
    rep.interrupt_signal = cut_short_by(crew->interrupted);
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
        heal_finish(r, NULL, 0);
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
        heal_finish(r, recov, rep.end_ns);
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
        say(r, "the %s lab (prefix %s) stays up; `faultline lab down %s` removes it", kind,
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
    if (is_rank0(r) && r->dir[0] && report_write_refusal(r->dir, &r->sc, why, err,
                                                         sizeof err) != 0)
        fprintf(stderr, "faultline: %s\n", err);
    if (!r->multi)
        return;
    if (is_rank0(r)) {
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
    if (r->multi && is_rank0(r) && !survives_lost_ranks())
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
    install_signals();
    if (run_setup(r, err, sizeof err) != 0) {
        if (r->multi && !is_rank0(r))
            fprintf(stderr, "faultline: rank %d: %s\n", r->mpi.rank, err);
        else
            fprintf(stderr, "faultline: %s\n", err);
        if (r->events_open)
            events_close(&r->events);
        if (r->multi) {
            if (is_rank0(r))
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

/* The run went to the lab's LUN or volume: it must still be there, and the
 * target takes its place again. */
static int use_lab_again(struct scenario *sc, const char *dir, unsigned ranks)
{
    char err[FL_ERRLEN], w0[PATH_MAX + 64], client[PATH_MAX + 32];
    struct run_meta m;
    crew_client_dir(dir, ranks, 0, client, sizeof client);
    snprintf(w0, sizeof w0, "%s/worker-0", client);
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
    else if ((rc = scenario_use_lab(sc, lab, 0, err, sizeof err)) != 0)
        fprintf(stderr, "faultline: %s\n", err);
    free(lab);
    return rc;
}

/* Whether the run in dir never started (its report says so, and why):
 * there is nothing to verify. */
static bool never_started(const char *dir, char *why, size_t n)
{
    char path[PATH_MAX + 32], e[256];
    snprintf(path, sizeof path, "%s/report.json", dir);
    struct jv *rep = NULL;
    bool started = true;
    if (access(path, F_OK) != 0 || jv_load(path, &rep, e, sizeof e) != 0)
        return false; /* a crashed run has no report: verify is what it needs */
    if (jv_bool(jv_get(rep, "started"), &started) && !started) {
        const char *err = jv_str(jv_get(rep, "error"));
        snprintf(why, n, "the run in %s never started (%s): there is nothing to verify", dir,
                 err ? err : "its report says why");
    }
    jv_free(rep);
    return !started;
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
    if (never_started(dir, err, sizeof err)) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    char rep1[PATH_MAX + 32], own[PATH_MAX + 32];
    snprintf(rep1, sizeof rep1, "%s/rep-1", dir);
    snprintf(own, sizeof own, "%s/worker-0", dir);
    if (access(rep1, F_OK) == 0 && access(own, F_OK) != 0) {
        fprintf(stderr, "faultline: %s holds the repetitions of a repeat, each a run of its own: "
                "verify one of them (faultline verify %s/rep-K; the target holds the last one's "
                "data)\n", dir, dir);
        return 2;
    }
    unsigned ranks;
    if (crew_run_ranks(dir, &ranks, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    /* every client's share, each file tree subtree */
    sc.target.rank = -1;
    sc.target.ranks = ranks;
    if (scenario_lab_places(&sc) && use_lab_again(&sc, dir, ranks) != 0)
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
    if (crew_verify_refusal(&crew, err, sizeof err) != 0) {
        events_close(&events);
        fprintf(stderr, "faultline: %s\n", err);
        crew_close(&crew);
        crew_free(&crew);
        return 2;
    }
    struct report rep = conclude_report("verify", dir, &sc, &meta, &crew);
    struct report_cross cross;
    if (ranks > 1 && sc.workload.cross_pct)
        rep.cross = gather_verify_cross(&crew, dir, ranks, &cross);
    rep.io = &crew.sweep;
    rep.meta_streams = crew.meta; /* the names' check, and how each model was rebuilt */
    rep.nmeta = crew.nmeta;
    rep.interrupt_signal = stop_workload ? (stop_signal ? stop_signal : SIGTERM) : 0;
    rep.interrupted = rep.interrupt_signal != 0;
    rep.state_final = crew.state_final;
    rep.replayed = crew.replayed;
    struct manifest *man = manifest_gather(&(struct manifest_from){
        .dir = dir, .sc = &sc, .seed = meta.seed, .be = manifest_backend(&crew),
        .lab_prefix = meta.lab_prefix});
    rep.manifest = man;
    int code = conclude_finish(&rep, &crew, &events);
    manifest_free(man);
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
