/* timeline — see timeline.h for the life of a fault. */
#include "timeline.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../faults/ssh/remote.h"
#include "../../lib/clock.h"
#include "../../workloads/engine.h"
#include "settle.h"

#define UNDO_AHEAD_NS 20000000ull /* undo records go to disk this long before inject */
#define SPIN_NS 200000ull         /* sleep until this close, then spin */
/* "apply at T" goes to an agent this long before T: a link that has just
 * come back up passes no traffic until the kernel's link watch has seen
 * it (up to 1 s), and a segment lost then waits for TCP's retransmission. */
#define REMOTE_AHEAD_NS 1500000000ull
#define HEARTBEAT_NS 5000000000ull /* agents hear from us at least this often */

static struct fault_host *add_host(struct fault_env *env, const char *name, const char *netns,
                                   const char *ifname, const char *port, const char *addr,
                                   bool lab)
{
    if (env->nhosts == FL_MAX_HOSTS)
        return NULL;
    struct fault_host *h = &env->hosts[env->nhosts++];
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->netns, sizeof h->netns, "%s", netns);
    snprintf(h->ifname, sizeof h->ifname, "%s", ifname);
    snprintf(h->port, sizeof h->port, "%s", port);
    snprintf(h->addr, sizeof h->addr, "%s", addr);
    h->lab = lab;
    return h;
}

static int by_time(const void *a, const void *b)
{
    const struct step *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->inject != y->inject)
        return x->inject ? 1 : -1; /* at the same time: clear first */
    return x->fault < y->fault ? -1 : x->fault > y->fault;
}

int timeline_plan(const struct fault *faults, unsigned n, struct step **out, unsigned *nout)
{
    unsigned cap = 0;
    for (unsigned i = 0; i < n; i++)
        cap += faults[i].schedule.shape == FAULT_STEPPED ? 2 * (unsigned)faults[i].schedule.steps
                                                          : 2;
    struct step *steps = calloc(cap ? cap : 1, sizeof *steps);
    if (!steps)
        return -1;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct fault_schedule *s = &faults[i].schedule;
        uint64_t at = faults[i].spec.at_ns;
        switch (s->shape) {
        case FAULT_STEPPED:
            for (uint64_t j = 0; j < s->steps; j++) {
                uint64_t t = at + j * s->period_ns;
                steps[k++] = (struct step){t, i, true};
                steps[k++] = (struct step){t + s->period_ns / 2, i, false};
            }
            break;
        case FAULT_LASTING:
            steps[k++] = (struct step){at, i, true};
            if (s->clear_after_ns)
                steps[k++] = (struct step){at + s->clear_after_ns, i, false};
            break;
        case FAULT_INSTANT:
            steps[k++] = (struct step){at, i, true};
            break;
        }
    }
    qsort(steps, k, sizeof *steps, by_time);
    *out = steps;
    *nout = k;
    return 0;
}

static int build_steps(struct timeline *tl, char *err, size_t errlen)
{
    if (timeline_plan(tl->faults, tl->n, &tl->steps, &tl->nsteps) != 0 ||
        !(tl->delays = calloc(tl->nsteps ? tl->nsteps : 1, sizeof *tl->delays)) ||
        !(tl->delay_fault = calloc(tl->nsteps ? tl->nsteps : 1, sizeof *tl->delay_fault))) {
        snprintf(err, errlen, "out of memory for the fault schedule");
        return -1;
    }
    return 0;
}

/* Every host the scenario knows: the lab's, `local`, its [host] sections. */
static void gather_hosts(struct timeline *tl, const struct scenario *sc, const struct lab *lab)
{
    struct fault_env *env = &tl->env;
    if (lab) {
        tl->lab = *lab;
        lab_fault_lab(&tl->lab, &tl->fault_lab);
        env->lab = &tl->fault_lab;
        snprintf(env->bridge, sizeof env->bridge, "%s", lab->bridge);
        /* With client hosts, rank 0 runs in c1: the switch, and our own
         * client, are in the namespace the lab named for that. */
        snprintf(env->switch_netns, sizeof env->switch_netns, "%s", lab->switch_netns);
        for (unsigned i = 0; i < lab->nhosts + lab->nclients; i++) {
            const struct lab_host *h = i < lab->nhosts ? &lab->hosts[i]
                                                       : &lab->clients[i - lab->nhosts];
            struct fault_host *fh = add_host(env, h->name, h->netns[0] ? h->netns
                                                                       : lab->switch_netns,
                                             h->ifname, h->port, h->addr, true);
            if (fh)
                snprintf(fh->port_netns, sizeof fh->port_netns, "%s", lab->switch_netns);
            /* [lab] control = ssh: every server, and the switch, as a real
             * cluster's would be reached. */
            if (fh && sc->lab_opts.control == LAB_CONTROL_SSH && h->netns[0]) {
                lab_ssh_of(lab, h->name, &fh->ssh, fh->restart, sizeof fh->restart);
                fh->ssh.lease_ns = sc->lab_opts.lease_ns;
                fh->netns[0] = '\0'; /* its agent runs inside it: its own namespace */
                snprintf(fh->switch_host, sizeof fh->switch_host, "%s", LAB_SWITCH_HOST);
                /* and powered off and on as a real one: by commands run
                 * here, the lab's as its BMC's (families/power.c) */
                lab_ssh_power(lab, h->name, &fh->power);
            }
        }
        if (sc->lab_opts.control == LAB_CONTROL_SSH) {
            struct fault_host *sw = add_host(env, LAB_SWITCH_HOST, "", "", "", "", false);
            if (sw) {
                lab_ssh_of(lab, LAB_SWITCH_HOST, &sw->ssh, sw->restart, sizeof sw->restart);
                sw->ssh.lease_ns = sc->lab_opts.lease_ns;
            }
        }
    }
    struct fault_host *local = add_host(env, "local", "", "", "", "", false);
    /* A switch-down of the lab's switch goes through its agent too. */
    if (lab && local && sc->lab_opts.control == LAB_CONTROL_SSH)
        snprintf(local->switch_host, sizeof local->switch_host, "%s", LAB_SWITCH_HOST);
    for (unsigned i = 0; i < sc->nhosts; i++) {
        const struct host_spec *h = &sc->hosts[i];
        struct fault_host *fh = add_host(env, h->name, h->netns, h->interface, h->port,
                                         h->address, false);
        if (!fh)
            continue;
        snprintf(fh->switch_host, sizeof fh->switch_host, "%s", h->switch_host);
        snprintf(fh->restart, sizeof fh->restart, "%s", h->restart);
        fh->ssh = h->via;
        fh->power = h->power;
        /* A host with a way to start its service lends it to the faults
         * as a lab host does (process.c asks its agent). */
        fh->lab = h->via.dest[0] && h->restart[0];
    }
}

/* The agent of host index k, connected on first use; its undo record
 * ("agent TAG DEST") goes to disk before ssh starts. */
static struct remote *agent_of(struct timeline *tl, unsigned k, char *err, size_t errlen)
{
    if (tl->remotes[k])
        return tl->remotes[k];
    const struct fault_host *h = &tl->env.hosts[k];
    char dest[1600], args[1700];
    remote_dest_encode(&h->ssh, dest, sizeof dest);
    snprintf(args, sizeof args, "%s %s", tl->env.tag, dest);
    if (undo_record(&tl->undo, "agent", args, &tl->agent_seq[k], err, errlen) != 0)
        return NULL;
    if (!tl->quiet)
        fprintf(stderr, "faultline: connecting to the agent on %s (ssh %s)\n", h->name,
                h->ssh.dest);
    tl->remotes[k] = remote_open(h, tl->env.tag, tl->env.dir, err, errlen);
    tl->nremotes += tl->remotes[k] != NULL;
    if (!tl->remotes[k]) { /* no agent runs there: nothing for a cleanup to ask */
        char e[256];
        undo_done(&tl->undo, tl->agent_seq[k], e, sizeof e);
    } else {
        struct remote_info ri;
        remote_get_info(tl->remotes[k], &ri);
        char what[512];
        snprintf(what, sizeof what, "agent on %s (ssh %s, pid %llu there): round trip %.3f ms, "
                 "clock offset %+.3f ms, connected in %.3f s%s", h->name, ri.dest,
                 (unsigned long long)ri.agent_pid, (double)ri.rtt_ns / 1e6,
                 (double)ri.offset_ns / 1e6, (double)ri.connect_ns / 1e9,
                 ri.copied ? ", faultline copied over" : "");
        events_emit(tl->events, 0, "agent", NULL, what);
    }
    return tl->remotes[k];
}

/* Where fault f is applied: here, or by the agent of its host (or of the
 * switch that holds its port, for a fault on the switch); here whatever
 * its host for a family that acts from outside it (on_controller). */
static int choose_via(struct timeline *tl, struct fault *f, char *err, size_t errlen)
{
    f->via = &fault_via_local;
    /* A BMC's power off is ours to run: the host's agent would die with it. */
    if (fault_on_controller(f))
        return 0;
    const char *where = f->host.name;
    /* A host that names no switch is its own (a Linux switch reached over
     * ssh: port-down host = sw1, switch_port = swp12). */
    if (fault_on_switch(&f->spec) && f->host.switch_host[0])
        where = f->host.switch_host;
    for (unsigned k = 0; k < tl->env.nhosts; k++) {
        if (strcmp(tl->env.hosts[k].name, where) != 0)
            continue;
        if (!tl->env.hosts[k].ssh.dest[0]) {
            if (where != f->host.name) {
                snprintf(err, errlen, "switch %s of %s is not reached over ssh (it needs ssh = "
                         "ADDRESS)", where, f->host.name);
                return -1;
            }
            return 0;
        }
        struct remote *r = agent_of(tl, k, err, errlen);
        if (!r)
            return -1;
        remote_attach(r, f);
        return 0;
    }
    snprintf(err, errlen, "switch '%s' of %s is not a [host] of this scenario", where,
             f->host.name);
    return -1;
}

/* One fault: where it acts, how it lasts, and its family's preparation. */
static int prepare_fault(struct timeline *tl, const struct scenario *sc, unsigned i, char *err,
                         size_t errlen)
{
    struct fault *f = &tl->faults[i];
    f->index = i;
    f->spec = sc->faults[i];
    f->drawn = i >= sc->first_drawn;
    f->env = &tl->env;
    f->ops = f->spec.ops;
    fault_schedule_of(&f->spec, &f->schedule);
    const struct fault_host *h = fault_find_host(&tl->env, f->spec.host);
    if (!h) {
        snprintf(err, errlen, "%s:%d: [fault %s] host '%s' is not known", sc->file, f->spec.line,
                 f->spec.name, f->spec.host);
        return -1;
    }
    f->host = *h;
    if (f->spec.interface[0])
        snprintf(f->host.ifname, sizeof f->host.ifname, "%s", f->spec.interface);
    if (f->spec.switch_port[0])
        snprintf(f->host.port, sizeof f->host.port, "%s", f->spec.switch_port);
    char e[1024];
    if (choose_via(tl, f, e, sizeof e) != 0 || f->via->prepare(f, e, sizeof e) != 0) {
        snprintf(err, errlen, "%s:%d: [fault %s] %s: %s", sc->file, f->spec.line, f->spec.name,
                 f->ops->action, e);
        return -1;
    }
    return 0;
}

int timeline_prepare(struct timeline *tl, const struct scenario *sc, const struct lab *lab,
                     const char *dir, struct event_log *events, const char *target_path,
                     uint64_t target_bytes, uint64_t run_id, char *err, size_t errlen)
{
    memset(tl, 0, sizeof *tl);
    pthread_mutex_init(&tl->mu, NULL);
    pthread_mutex_init(&tl->power_mu, NULL);
    pthread_mutex_init(&tl->begin_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&tl->cv, &ca);
    pthread_condattr_destroy(&ca);
    tl->events = events;
    tl->end_ns = sc->duration_ns;
    atomic_store(&tl->current, -1);
    if (!sc->nfaults)
        return 0;
    struct fault_env *env = &tl->env;
    env->dir = dir;
    env->undo = &tl->undo;
    env->target_path = target_path;
    env->target_bytes = target_bytes;
    env->block_size = sc->workload.block_size;
    env->seed = sc->workload.seed;
    env->allow_destructive = sc->allow_destructive;
    env->allow_paths = sc->allow_paths;
    env->replica_labs = lab_kinds_with_replicas();
    snprintf(env->tag, sizeof env->tag, "fl%06llx", (unsigned long long)(run_id & 0xffffff));
    gather_hosts(tl, sc, lab);
    tl->faults = calloc(sc->nfaults, sizeof *tl->faults);
    if (!tl->faults) {
        snprintf(err, errlen, "out of memory for %u faults", sc->nfaults);
        return -1;
    }
    tl->n = sc->nfaults;
    /* Open first: an agent's record goes to disk before its ssh starts. */
    if (undo_open(&tl->undo, dir, err, errlen) != 0)
        return -1;
    tl->undo_open = true;
    for (unsigned i = 0; i < tl->n; i++)
        if (prepare_fault(tl, sc, i, err, errlen) != 0)
            return -1;
    if (build_steps(tl, err, errlen) != 0)
        return -1;
    return 0;
}


/* Sleeps until t (ns since the workload start) unless stopped first.
 * Returns false when stopped. */
/* The settle waits that move f: its own once it has begun, the run's
 * until then. */
static uint64_t shift_of(const struct timeline *tl, const struct fault *f)
{
    return f->begun ? f->shift_ns : atomic_load(&tl->shift_ns);
}

static bool wait_until(struct timeline *tl, const struct fault *f, uint64_t t, uint64_t lead)
{
    uint64_t abs = 0;
    pthread_mutex_lock(&tl->mu);
    while (!tl->stop) {
        /* again after each wake-up: a settle wait may have moved it */
        uint64_t at = t + shift_of(tl, f);
        abs = tl->t0 + (at > lead ? at - lead : 0);
        uint64_t now = mono_ns();
        if (now + SPIN_NS >= abs)
            break;
        uint64_t wake = abs - SPIN_NS;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                              .tv_nsec = (long)(wake % 1000000000ull)};
        pthread_cond_timedwait(&tl->cv, &tl->mu, &ts);
    }
    bool stopped = tl->stop;
    pthread_mutex_unlock(&tl->mu);
    while (!stopped && mono_ns() < abs)
        ; /* the last 200 µs: a spin is far more exact than a timed wake-up */
    return !stopped;
}

/* Sleeps ns unless stopped first; false when stopped. */
static bool nap(struct timeline *tl, uint64_t ns)
{
    uint64_t wake = mono_ns() + ns;
    struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                          .tv_nsec = (long)(wake % 1000000000ull)};
    pthread_mutex_lock(&tl->mu);
    while (!tl->stop && mono_ns() < wake)
        pthread_cond_timedwait(&tl->cv, &tl->mu, &ts);
    bool stopped = tl->stop;
    pthread_mutex_unlock(&tl->mu);
    return !stopped;
}

static void emit(struct timeline *tl, const char *event, const struct fault *f, const char *extra)
{
    char detail[2048];
    char what[1024] = "";
    f->via->describe(f, what, sizeof what);
    snprintf(detail, sizeof detail, "[fault %s] %s: %s%s%s", f->spec.name, f->ops->action, what,
             extra && *extra ? "; " : "", extra ? extra : "");
    events_emit(tl->events, 0, event, NULL, detail);
}

static void do_clear(struct timeline *tl, struct fault *f, const char *why)
{
    char err[1024] = "";
    uint64_t when = mono_ns();
    int rc = f->via->clear(f, &when, err, sizeof err);
    /* 0: not known yet (an agent's answer on its way; it fills it in) */
    f->cleared_ns = when > tl->t0 ? when - tl->t0 : mono_ns() - tl->t0;
    if (!f->cleared_by[0] && rc == 0)
        snprintf(f->cleared_by, sizeof f->cleared_by, "controller");
    if (f->active)
        atomic_fetch_sub(&tl->active, 1);
    f->active = false;
    atomic_store(&tl->last_clear, mono_ns()); /* a settle wait asks after it */
    if (rc != 0) {
        f->clear_failed = true;
        if (!f->error[0])
            snprintf(f->error, sizeof f->error, "clear failed: %s", err);
    }
    /* An agent that has not answered yet may still be clearing (a restart
     * of a server takes longer than the wait for its answer): say so. */
    if (rc == 0 && !why && strcmp(f->cleared_by, "unconfirmed") == 0)
        why = "sent; the agent has not confirmed it yet";
    emit(tl, rc == 0 ? "fault-clear" : "fault-clear-failed", f, rc == 0 ? why : err);
}

static void add_delay(struct timeline *tl, unsigned fault, uint64_t ns)
{
    pthread_mutex_lock(&tl->mu); /* every fault's thread adds its own */
    if (tl->ndelays < tl->nsteps) {
        tl->delay_fault[tl->ndelays] = fault;
        tl->delays[tl->ndelays++] = ns;
    }
    pthread_mutex_unlock(&tl->mu);
}

static void do_inject(struct timeline *tl, struct fault *f, const struct step *st)
{
    char err[1024] = "";
    if (!f->injected_ns)
        f->scheduled_ns = st->t; /* a flap keeps its first time */
    bool cut = f->spec.loses == LOSES_UNFLUSHED && !f->power_loss && tl->power;
    if (cut) {
        /* Said before the power goes: a completion the workers handle from
         * here on cannot make an earlier write durable (engine.h).  Losses
         * are taken in order, so their announcements do not overlap. */
        pthread_mutex_lock(&tl->power_mu);
        unsigned k = atomic_fetch_add_explicit(&tl->power->begun, 1, memory_order_acq_rel);
        f->power_loss = k < POWER_LOSSES_MAX ? k + 1 : 0;
    }
    uint64_t begin = mono_ns(), end = begin;
    int rc = f->via->inject(f, &end, err, sizeof err);
    if (cut) {
        atomic_fetch_add_explicit(&tl->power->ended, 1, memory_order_acq_rel);
        pthread_mutex_unlock(&tl->power_mu);
    }
    bool known = end != 0; /* an agent's answer may still be on its way */
    if (!known) {
        end = tl->t0 + st->t;
        f->answer_late = !f->injected_ns; /* its delay counts once the answer is in */
    }
    if (rc == 0 && known)
        add_delay(tl, st->fault, end - tl->t0 > st->t ? end - tl->t0 - st->t : 0);
    if (!f->injected_ns) {
        /* A first inject that failed has no time: it did not happen. */
        if (rc == 0)
            f->injected_ns = end - tl->t0;
        if (!f->remote && rc == 0) /* an agent says what its host spent (faults/ssh/via.c) */
            f->apply_ns = end > begin ? end - begin : 0;
        f->via->describe(f, f->detail, sizeof f->detail);
    }
    f->steps_done++;
    if (rc != 0) {
        snprintf(f->error, sizeof f->error, "inject failed: %s", err);
        emit(tl, "fault-failed", f, err);
        /* Whatever part of it happened is undone at once. */
        char e2[256];
        fault_undo_all(f, e2, sizeof e2);
        return;
    }
    if (!f->active)
        atomic_fetch_add(&tl->active, 1);
    if (!f->applied) {
        atomic_fetch_add(&tl->injected, 1);
        atomic_store(&tl->current, (int)f->index);
    }
    f->active = true;
    f->applied = true;
    char late[1200];
    uint64_t late_arm = f->remote ? remote_late_arm(f) : 0;
    if (known)
        snprintf(late, sizeof late, "%.3f ms after its time%s",
                 (double)((int64_t)(end - tl->t0) - (int64_t)st->t) / 1e6,
                 late_arm > 1000000 ? " (its apply reached the agent late)" : "");
    else
        snprintf(late, sizeof late, "sent to the agent on %s, not answered yet (indeterminate "
                 "until it is; its lease clears it at the latest)", f->via_host);
    emit(tl, "fault-inject", f, late);
    if (f->schedule.shape == FAULT_INSTANT) {
        atomic_fetch_sub(&tl->active, 1);
        f->active = false;
        f->cleared_ns = f->injected_ns;
        atomic_store(&tl->last_clear, mono_ns());
    }
}

/* How long ahead of its time a fault is armed: its undo records; for an
 * agent, "apply at" must also cross the network first, and a network that
 * has just come back from the previous fault can take a second, so it goes
 * well ahead.  The agent holds it until its time, and drops it if we are
 * gone before. */
static uint64_t lead_of(const struct fault *f)
{
    if (!f->remote)
        return UNDO_AHEAD_NS;
    struct remote_info ri;
    remote_get_info(f->remote, &ri);
    return REMOTE_AHEAD_NS + 2 * ri.rtt_ns;
}

/* The planned clear of the inject step st (mono_ns), 0 for an instant
 * fault: an agent restores by itself after it plus its lease. */
static uint64_t clear_time(const struct timeline *tl, const struct fault *f,
                           const struct step *st)
{
    const struct fault_schedule *s = &f->schedule;
    switch (s->shape) {
    case FAULT_STEPPED:
        return tl->t0 + st->t + s->period_ns / 2;
    case FAULT_LASTING:
        return tl->t0 + (s->clear_after_ns ? st->t + s->clear_after_ns : tl->end_ns);
    case FAULT_INSTANT:
        break;
    }
    return 0;
}

struct fault_thread {
    struct timeline *tl;
    unsigned fault;
};

#define SETTLE_ASK_NS 500000000ull /* a settle wait reads the heal watch twice a second */
#define SETTLE_COMMAND_NS 2000000000ull /* and runs a settle_command every 2 s */

/* settle = whole: waits until no other fault is in effect and the storage
 * is whole (settle.h), up to settle_timeout without progress.  false when
 * the run stopped; true otherwise (f->error says so when it gave up). */
static bool settle(struct timeline *tl, struct fault *f)
{
    struct settle_wait w = {0};
    uint64_t began = mono_ns(), moved = began;
    bool at_once = true, go_on = true;
    atomic_store(&tl->settling, true);
    for (;;) {
        bool progress;
        int rc = settle_ask(&f->spec, tl->heal, atomic_load(&tl->active),
                            atomic_load(&tl->last_clear), &w, &progress);
        if (rc == 1)
            break;
        uint64_t now = mono_ns();
        if (progress)
            moved = now;
        if (rc < 0 || now - moved >= f->spec.settle_timeout_ns) {
            if (rc < 0)
                snprintf(f->error, sizeof f->error, "not injected: settle = whole: %s", w.what);
            else
                snprintf(f->error, sizeof f->error, "not injected: the storage was not whole "
                         "within settle_timeout (%.0f s without progress, %.0f s in all): %s",
                         (double)f->spec.settle_timeout_ns / 1e9, (double)(now - began) / 1e9,
                         w.what);
            emit(tl, "fault-failed", f, f->error);
            break;
        }
        at_once = false;
        if (!(go_on = nap(tl, f->spec.settle_command[0] ? SETTLE_COMMAND_NS : SETTLE_ASK_NS))) {
            atomic_store(&tl->settle_cut, true); /* the workload ended first */
            break;
        }
    }
    atomic_store(&tl->settling, false);
    f->settle_asked = go_on;
    f->settle_ns = at_once ? 0 : mono_ns() - began;
    if (go_on && !f->error[0]) {
        char d[400];
        snprintf(d, sizeof d, "[fault %s] the storage was whole after %.3f s (%s)", f->spec.name,
                 (double)f->settle_ns / 1e9, w.what);
        events_emit(tl->events, 0, "settle", NULL, d);
    }
    return go_on;
}

/* A fault's first inject step: one fault at a time begins, so that a
 * settle wait under way moves every fault that has not begun.  It settles
 * if it must, then its times are fixed (f->shift_ns).  1: begun; 0: its
 * time moved while it waited its turn (wait again); -1: never (the run
 * stopped, its settle gave up, or the waits moved it past the end). */
static int begin_fault(struct timeline *tl, struct fault *f, uint64_t t, uint64_t lead)
{
    pthread_mutex_lock(&tl->begin_mu);
    int rc = 1;
    uint64_t at = t + atomic_load(&tl->shift_ns);
    pthread_mutex_lock(&tl->mu);
    bool stopped = tl->stop; /* while a settle wait held the turn */
    pthread_mutex_unlock(&tl->mu);
    if (stopped) {
        pthread_mutex_unlock(&tl->begin_mu);
        return -1;
    }
    if (at >= tl->end_ns) {
        rc = -1;
    } else if (mono_ns() + SPIN_NS < tl->t0 + (at > lead ? at - lead : 0)) {
        rc = 0;
    } else if (f->spec.settle == SETTLE_WHOLE) {
        if (!settle(tl, f) || f->error[0]) {
            rc = -1;
        } else if (f->settle_ns) {
            /* it arms now: it and every fault not begun move by as much */
            uint64_t now_t = mono_ns() - tl->t0 + lead;
            if (now_t > at)
                atomic_store(&tl->shift_ns, atomic_load(&tl->shift_ns) + (now_t - at));
            if (t + atomic_load(&tl->shift_ns) >= tl->end_ns)
                rc = -1;
        }
    }
    f->shift_ns = atomic_load(&tl->shift_ns);
    if (rc < 0 && !f->error[0] && t + f->shift_ns >= tl->end_ns && t < tl->end_ns)
        f->not_reached = true;
    if (rc == 1) {
        f->begun = true;
        if (f->settle_ns) {
            char d[200];
            snprintf(d, sizeof d, "[fault %s] and every fault after it move %.3f s later in all",
                     f->spec.name, (double)f->shift_ns / 1e9);
            events_emit(tl->events, 0, "settle", NULL, d);
        }
    }
    pthread_mutex_unlock(&tl->begin_mu);
    return rc;
}

/* One fault's own schedule, in a thread of its own: a slow step of one
 * fault (a restart of a server, a command) never holds back another's.
 * Its steps move by the settle waits before it began (shift_of). */
static void *run_fault(void *arg)
{
    struct fault_thread *ft = arg;
    struct timeline *tl = ft->tl;
    struct fault *f = &tl->faults[ft->fault];
    /* Real-time priority when allowed (root): the workload's threads keep
     * both cores busy, and a fault should not wait for a time slice.  The
     * thread sleeps almost all the time, so it costs them nothing. */
    struct sched_param sp = {.sched_priority = 10};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    for (unsigned i = 0; i < tl->nsteps; i++) {
        if (tl->steps[i].fault != ft->fault)
            continue;
        struct step st = tl->steps[i]; /* moved by the settle waits */
        if (st.t + shift_of(tl, f) >= tl->end_ns) {
            /* nothing starts after the workload; finish() clears */
            if (!f->begun && st.inject && st.t < tl->end_ns) {
                f->not_reached = true;
                f->shift_ns = atomic_load(&tl->shift_ns);
            }
            break;
        }
        if (st.inject && !f->error[0]) {
            uint64_t lead = lead_of(f);
            int b = 0;
            bool stopped = false;
            while (b == 0 && !(stopped = !wait_until(tl, f, st.t, lead)))
                b = f->begun ? 1 : begin_fault(tl, f, st.t, lead);
            if (stopped || b < 0) {
                /* Held back by settle waits until the workload ended: not
                 * reached, as one they moved past the end. */
                if (!f->begun && !f->error[0] && st.t < tl->end_ns &&
                    (atomic_load(&tl->shift_ns) || atomic_load(&tl->settle_cut))) {
                    f->not_reached = true;
                    f->shift_ns = atomic_load(&tl->shift_ns);
                }
                break;
            }
            st.t += f->shift_ns;
            char err[512];
            if (f->via->arm(f, tl->t0 + st.t, clear_time(tl, f, &st), err, sizeof err) != 0) {
                snprintf(f->error, sizeof f->error, "not injected: %s", err);
                emit(tl, "fault-failed", f, err);
                continue; /* never apply what could not be recorded */
            }
        } else {
            st.t += shift_of(tl, f);
        }
        if (!wait_until(tl, f, tl->steps[i].t, 0))
            break;
        if (st.inject) {
            if (!f->error[0])
                do_inject(tl, f, &st);
        } else if (f->active) {
            do_clear(tl, f, NULL);
        }
    }
    return NULL;
}

/* The agents hear from us every HEARTBEAT_NS until the workload ends:
 * they leave only after a long silence (agent.h). */
static void *run_heartbeat(void *arg)
{
    struct timeline *tl = arg;
    pthread_mutex_lock(&tl->mu);
    while (!tl->stop) {
        uint64_t wake = mono_ns() + HEARTBEAT_NS;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000ull),
                              .tv_nsec = (long)(wake % 1000000000ull)};
        pthread_cond_timedwait(&tl->cv, &tl->mu, &ts);
        if (tl->stop)
            break;
        pthread_mutex_unlock(&tl->mu);
        for (unsigned k = 0; k < FL_MAX_HOSTS; k++)
            if (tl->remotes[k])
                remote_ping(tl->remotes[k]);
        pthread_mutex_lock(&tl->mu);
    }
    pthread_mutex_unlock(&tl->mu);
    return NULL;
}

int timeline_start(struct timeline *tl, uint64_t t0, char *err, size_t errlen)
{
    tl->t0 = t0;
    atomic_store(&tl->last_clear, t0);
    if (!tl->n)
        return 0;
    for (unsigned i = 0; i < tl->n; i++) {
        const struct fault_spec *s = &tl->faults[i].spec;
        if (s->settle == SETTLE_WHOLE && !s->settle_command[0] && !tl->heal) {
            snprintf(err, errlen, "[fault %s] settle = whole: nothing here says whether the "
                     "storage is whole (only the gluster and ceph labs and a [cluster] heal "
                     "or recover, and their heal watch must run); give settle_command, or "
                     "settle = none", s->name);
            for (unsigned k = 0; k < tl->n; k++) /* none runs: the report says why */
                snprintf(tl->faults[k].error, sizeof tl->faults[k].error, "not injected: %s",
                         err);
            return -1;
        }
    }
    for (unsigned k = 0; k < FL_MAX_HOSTS; k++)
        if (tl->remotes[k])
            remote_set_t0(tl->remotes[k], t0);
    tl->threads = calloc(tl->n + 1, sizeof *tl->threads);
    tl->thread_args = calloc(tl->n, sizeof *tl->thread_args);
    if (!tl->threads || !tl->thread_args) {
        snprintf(err, errlen, "out of memory for the fault timeline");
        return -1;
    }
    tl->running = true;
    for (unsigned i = 0; i <= tl->n; i++) {
        int rc;
        if (i < tl->n) {
            tl->thread_args[i] = (struct fault_thread){tl, i};
            rc = pthread_create(&tl->threads[i], NULL, run_fault, &tl->thread_args[i]);
        } else if (tl->nremotes) {
            rc = pthread_create(&tl->threads[i], NULL, run_heartbeat, tl);
        } else {
            break;
        }
        if (rc != 0) {
            snprintf(err, errlen, "cannot start the fault timeline: %s", strerror(rc));
            return -1; /* timeline_finish() stops and joins the ones started */
        }
        tl->nthreads++;
    }
    return 0;
}

void timeline_finish(struct timeline *tl)
{
    if (tl->running) {
        pthread_mutex_lock(&tl->mu);
        tl->stop = true;
        pthread_cond_broadcast(&tl->cv);
        pthread_mutex_unlock(&tl->mu);
        for (unsigned i = 0; i < tl->nthreads; i++)
            pthread_join(tl->threads[i], NULL);
        tl->nthreads = 0;
        tl->running = false;
    }
    bool all_clear = true;
    for (unsigned i = 0; i < tl->n; i++) {
        struct fault *f = &tl->faults[i];
        if (f->active)
            do_clear(tl, f, "at the end of the workload");
        if (f->nundo || f->undo_failed)
            all_clear = false; /* an undo that failed: cleanup will retry */
    }
    /* Every agent says bye; late answers (a clear its lease did) come in.
     * Its answers to a session a fault cut come with TCP's backoff: the
     * agent's next try may come seconds after its lease ended the cut, so
     * the bye may wait up to 10 s past the last lease.  An answered bye
     * ends it at once, and a closed session too. */
    bool agents = false;
    for (unsigned k = 0; k < FL_MAX_HOSTS && !tl->agents_done; k++) {
        struct remote *r = tl->remotes[k];
        if (!r)
            continue;
        uint64_t now = mono_ns(), last = remote_last_lease(r) + 10000000000ull;
        uint64_t deadline = now + 3000000000ull > last ? now + 3000000000ull : last;
        if (deadline > now + 30000000000ull)
            deadline = now + 30000000000ull;
        char err[1024];
        agents = true;
        int rc = remote_bye(r, deadline, err, sizeof err);
        for (unsigned i = 0; i < tl->n; i++) /* what it said late goes into the faults */
            if (tl->faults[i].remote == r)
                remote_settle(&tl->faults[i]);
        if (rc == 0) {
            undo_done(&tl->undo, tl->agent_seq[k], err, sizeof err);
        } else {
            all_clear = false; /* `faultline cleanup` asks the agent again */
            char what[1400];
            snprintf(what, sizeof what, "%s; `faultline cleanup %s` has the agent on %s replay "
                     "its undo log", err, tl->env.dir, tl->env.hosts[k].name);
            events_emit(tl->events, 0, "agent-unconfirmed", NULL, what);
        }
    }
    tl->agents_done = true;
    /* An apply the agent answered late: its delay is known now. */
    for (unsigned i = 0; agents && i < tl->n; i++) {
        struct fault *f = &tl->faults[i];
        if (f->answer_late && f->applied && !f->indeterminate && tl->ndelays < tl->nsteps) {
            add_delay(tl, i, f->injected_ns > f->scheduled_ns ? f->injected_ns - f->scheduled_ns : 0);
            f->answer_late = false;
        }
    }
    if (tl->undo_open) {
        undo_close(&tl->undo, all_clear);
        tl->undo_open = false;
    }
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

unsigned timeline_delays(const struct timeline *tl, double *p50, double *p99, double *max)
{
    return timeline_delays_of(tl, NULL, p50, p99, max);
}

unsigned timeline_delays_of(const struct timeline *tl, const char *action, double *p50,
                            double *p99, double *max)
{
    *p50 = *p99 = *max = 0;
    if (!tl->ndelays)
        return 0;
    uint64_t *d = malloc(tl->ndelays * sizeof *d);
    if (!d)
        return 0;
    unsigned n = 0;
    for (unsigned i = 0; i < tl->ndelays; i++)
        if (!action || strcmp(tl->faults[tl->delay_fault[i]].ops->action, action) == 0)
            d[n++] = tl->delays[i];
    if (n) {
        qsort(d, n, sizeof *d, by_u64);
        *p50 = (double)d[(n - 1) / 2] / 1e6;
        *p99 = (double)d[(unsigned)((n - 1) * 0.99)] / 1e6;
        *max = (double)d[n - 1] / 1e6;
    }
    free(d);
    return n;
}

void timeline_free(struct timeline *tl)
{
    timeline_finish(tl);
    for (unsigned k = 0; k < FL_MAX_HOSTS; k++) {
        remote_close(tl->remotes[k]);
        tl->remotes[k] = NULL;
    }
    for (unsigned i = 0; tl->faults && i < tl->n; i++) {
        tl->faults[i].remote = NULL; /* its state went with the connection */
        if (tl->faults[i].via == &fault_via_ssh)
            tl->faults[i].state = NULL;
        fault_release(&tl->faults[i]);
    }
    free(tl->faults);
    free(tl->steps);
    free(tl->delays);
    free(tl->delay_fault);
    free(tl->threads);
    free(tl->thread_args);
    tl->threads = NULL;
    tl->thread_args = NULL;
    tl->delays = NULL;
    tl->delay_fault = NULL;
    tl->faults = NULL;
    tl->steps = NULL;
    pthread_mutex_destroy(&tl->mu);
    pthread_mutex_destroy(&tl->power_mu);
    pthread_mutex_destroy(&tl->begin_mu);
    pthread_cond_destroy(&tl->cv);
}

unsigned timeline_agents(const struct timeline *tl, struct remote_info *out, unsigned max)
{
    unsigned n = 0;
    for (unsigned k = 0; k < FL_MAX_HOSTS && n < max; k++)
        if (tl->remotes[k])
            remote_get_info(tl->remotes[k], &out[n++]);
    return n;
}

void timeline_progress(void *ctx, char *out, size_t n)
{
    struct timeline *tl = ctx;
    out[0] = '\0';
    if (!tl->n || !tl->t0)
        return;
    unsigned done = atomic_load(&tl->injected);
    int cur = atomic_load(&tl->current);
    size_t used = (size_t)snprintf(out, n, ", fault %u of %u", done, tl->n);
    if (cur >= 0 && (unsigned)cur < tl->n && used < n)
        used += (size_t)snprintf(out + used, n - used, " (latest: %s on %s)",
                                 tl->faults[cur].ops->action, tl->faults[cur].spec.host);
    if (atomic_load(&tl->settling) && used < n)
        used += (size_t)snprintf(out + used, n - used, ", settling");
    uint64_t now = mono_ns(), end = tl->t0 + tl->end_ns;
    if (tl->end_ns >= 600000000000ull && now < end && used < n) { /* a long run: time left */
        uint64_t left = (end - now) / 1000000000ull;
        snprintf(out + used, n - used, ", %llum%02llus left", (unsigned long long)(left / 60),
                 (unsigned long long)(left % 60));
    }
}
