/* run_lab — a run's lab and storage (see run_parts.h): the lab brought up
 * (or found up), the storage the run knows, healing watched after the
 * faults, replicas looked at when a finding is made, and what the lab's
 * servers logged that the timeline needs. */
#include "run_parts.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"

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
    storage_logs_over_ssh(&r->storage, r->sc.hosts, r->sc.nhosts);
    r->have_storage = true;
    run_say(r, "the cluster: %s%s%s, its %s CLI asked %s", c->kind->what, c->volume[0] ? " " : "",
            c->volume, c->kind->cli, r->storage.where);
}

/* What the storage is called in messages: the lab's volume (filesystem),
 * the [cluster]'s volume, or "the cluster". */
static const char *storage_name(const struct run *r)
{
    return r->have_lab ? r->place.name : r->storage.volume[0] ? r->storage.volume : "the cluster";
}

int run_lab_up(struct run *r, char *err, size_t errlen)
{
    const struct lab_kind *k = r->sc.lab;
    if (!k) {
        run_storage(r);
        return 0;
    }
    char why[2048];
    if (r->multi) {
        char prefix[16];
        if (!run_is_rank0(r))
            snprintf(prefix, sizeof prefix, "%s", r->base.lab_prefix);
        else if (lab_prefix(r->sc.lab_opts.prefix, prefix, sizeof prefix, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
        if (lab_load(k, prefix, &r->lab, why, sizeof why) != 0) {
            snprintf(err, errlen, "a run over several clients uses a %s lab that is up: %s",
                     k->name, why);
            return -1;
        }
    } else {
        run_say(r, "bringing up the %s lab", k->name);
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

const char *run_target_path(const struct run *r)
{
    if (r->placed && r->place.backing[0])
        return r->place.backing;
    return r->sc.target.path[0] ? r->sc.target.path : NULL;
}

void run_heal_start(struct run *r)
{
    if (!r->have_storage || !r->storage.kind->heal || !run_is_rank0(r))
        return;
    char err[512];
    if (heal_watch_start(&r->heal, &r->storage, err, sizeof err) == 0)
        r->watching = true;
    else
        fprintf(stderr, "faultline: %s; %s times are not measured\n", err,
                r->storage.kind->heal->word);
}

void run_heal_finish(struct run *r, struct recovery *recov, uint64_t end_ns)
{
    if (!r->watching || r->crew.abandoned)
        return;
    const struct storage_heal *h = r->storage.kind->heal;
    run_say(r, "waiting (at most %.0f s) for %s to %s", (double)r->sc.heal_wait_ns / 1e9,
            storage_name(r), h->word);
    heal_watch_finish(&r->heal, r->sc.heal_wait_ns);
    char detail[1024], last[700];
    if (heal_watch_healed(&r->heal)) {
        snprintf(detail, sizeof detail, "%s is whole: %s", storage_name(r), h->whole);
    } else {
        heal_watch_last(&r->heal, last, sizeof last);
        snprintf(detail, sizeof detail, "%.200s did not %s within heal_wait (%s)", storage_name(r),
                 h->word, last);
        run_say(r, "%s", detail);
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
        recov[i].healed = heal_watch_time(&r->heal, r->crew.t0 + clear, until, &recov[i].heal_s);
    }
}

static void take_evidence(void *ctx, const struct finding *f, uint64_t t_ns)
{
    struct run *r = ctx;
    evidence_take(&r->evidence, f, (unsigned long long)t_ns);
}

void run_watch_replicas(struct run *r)
{
    if (!r->tl || r->multi || !r->tl->fault_lab.replica)
        return;
    struct evidence *e = &r->evidence;
    *e = (struct evidence){.lab = &r->tl->fault_lab,
                           .replicas = r->replicas,
                           .backend = r->sc.backend,
                           .target = &r->sc.target,
                           .events = &r->events,
                           .run_id = r->base.run_id};
    for (unsigned i = 1; i < r->lab.nhosts; i++) /* hosts[0] is the client */
        r->replicas[e->nreplicas++] = r->lab.hosts[i].name;
    snprintf(e->path, sizeof e->path, "%s/evidence.txt", r->dir);
    r->crew.on_finding = take_evidence;
    r->crew.on_finding_ctx = r;
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

void run_lab_happenings(struct run *r)
{
    if (!r->have_storage || !r->storage.kind->happened || !r->events.t0_known)
        return;
    uint64_t t0_wall = wall_ns() - (mono_ns() - r->events.t0);
    struct saw_ctx c = {.log = &r->events, .t0_wall_ns = (int64_t)t0_wall};
    r->storage.kind->happened(&r->storage, t0_wall, saw, &c);
}
