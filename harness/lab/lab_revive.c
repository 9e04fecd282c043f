/* lab_revive — a lab between two runs that share it (the repetitions of a
 * repeat, the scenarios of a suite): a run may leave a server killed (a
 * kill fault with no restart), paused or powered off, and the next run
 * needs the lab whole.  What can be brought back is brought back, the way
 * the lab's own faults do it (lab_restart, lab_power); what cannot leaves
 * the lab broken, for the caller to rebuild.  See lab.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_kind.h"
#include "lab_names.h"
#include "lab_server.h"

/* What was found and done, for people. */
struct revival {
    char *out;
    size_t n, used;
    bool acted;                            /* anything was brought back */
    char restarted[LAB_MAX_HOSTS][16];     /* servers whose service was started again */
    unsigned nrestarted;
    char err[512];                         /* why it could not be */
};

/* One more thing done: ", what" after the first. */
__attribute__((format(printf, 2, 3))) static void said(struct revival *r, const char *fmt, ...)
{
    if (r->used + 2 < r->n)
        r->used += (size_t)snprintf(r->out + r->used, r->n - r->used, "%s", r->acted ? ", " : " ");
    va_list ap;
    va_start(ap, fmt);
    if (r->used < r->n) {
        int w = vsnprintf(r->out + r->used, r->n - r->used, fmt, ap);
        r->used = w < 0 ? r->used : r->used + (size_t)w;
    }
    va_end(ap);
    r->acted = true;
}

/* Server `host` powered off and on again: what a power cut leaves behind
 * that a restart of its service does not bring back (the iscsi lab's write
 * cache) comes up with it. */
static int power_cycle(const struct lab *lab, const char *host, struct revival *r)
{
    char what[256], err[400];
    if (lab_power(lab, host, false, what, sizeof what, err, sizeof err) != 0 ||
        lab_power(lab, host, true, what, sizeof what, err, sizeof err) != 0) {
        snprintf(r->err, sizeof r->err, "powering %s off and on: %s", host, err);
        return -1;
    }
    said(r, "powered %s off and on (%s)", host, what);
    return 0;
}

/* One server: its stopped processes continued, then powered on when its
 * init is gone (a power cut), or its service started again when that alone
 * is gone (a kill).  0, or -1 with r->err. */
static int revive_host(const struct lab *lab, const struct lab_host *h, struct revival *r)
{
    char what[256], err[400];
    unsigned thawed = h->netns[0] ? lab_thaw_all_in(h->netns) : 0;
    if (thawed)
        said(r, "continued %u process%s of %s", thawed, thawed == 1 ? "" : "es", h->name);
    if (h->init && !lab_server_up(h)) {
        if (lab_power(lab, h->name, true, what, sizeof what, err, sizeof err) != 0) {
            snprintf(r->err, sizeof r->err, "powering on %s: %s", h->name, err);
            return -1;
        }
        said(r, "powered on %s (%s)", h->name, what);
        return 0;
    }
    enum proc_state st = h->pid ? proc_state(h->pid, h->start) : PROC_RUNNING;
    if (st != PROC_GONE && st != PROC_ZOMBIE)
        return 0;
    if (lab_restart(lab, h->name, err, sizeof err) == 0) {
        said(r, "restarted %s of %s", h->service, h->name);
        if (r->nrestarted < LAB_MAX_HOSTS)
            snprintf(r->restarted[r->nrestarted++], sizeof r->restarted[0], "%s", h->name);
        return 0;
    }
    if (!lab->kind->faults->power) {
        snprintf(r->err, sizeof r->err, "restarting %s of %s: %s", h->service, h->name, err);
        return -1;
    }
    return power_cycle(lab, h->name, r);
}

/* After the servers were brought back: healthy now, or (a kind that can
 * cut power) once each restarted server is powered off and on.  0, or -1
 * with r->err. */
static int settle(const struct lab_kind *k, const char *prefix, struct lab *lab,
                  struct revival *r)
{
    char why[512];
    if (lab_load(k, prefix, lab, r->err, sizeof r->err) != 0)
        return -1;
    /* a kind whose servers rejoin a cluster is given the time it needs */
    for (unsigned waited = 0; !lab_healthy(lab, why, sizeof why); waited++) {
        if (waited >= 2 * k->report->rejoin_s)
            break;
        lab_pause_ms(500);
    }
    if (lab_healthy(lab, why, sizeof why))
        return 0;
    if (!lab->kind->faults->power || !r->nrestarted) {
        snprintf(r->err, sizeof r->err, "%s", why);
        return -1;
    }
    for (unsigned i = 0; i < r->nrestarted; i++)
        if (power_cycle(lab, r->restarted[i], r) != 0)
            return -1;
    if (lab_load(k, prefix, lab, r->err, sizeof r->err) != 0)
        return -1;
    if (!lab_healthy(lab, why, sizeof why)) {
        snprintf(r->err, sizeof r->err, "%s", why);
        return -1;
    }
    return 0;
}

/* Healthy, and the storage as the next run relies on it: its replicas
 * agree (its heal question says nothing is pending: the next run measures
 * its own fault's heal, not what an earlier one left to heal), and what
 * the kind says (as_built).  A lab that is not is rebuilt by the caller,
 * which costs a gluster lab seconds and a ceph lab half a minute, less
 * than a heal may take. */
static bool whole(const struct lab *lab, char *why, size_t n)
{
    struct storage st;
    if (lab_storage(lab, &st) && st.kind->heal && st.kind->heal->pending) {
        char what[512];
        if (st.kind->heal->pending(&st, NULL, what, sizeof what) != 0) {
            snprintf(why, n, "%.100s is not whole (%.100s): %.250s",
                     st.volume[0] ? st.volume : st.kind->what, st.kind->heal->whole, what);
            return false;
        }
    }
    return !lab->kind->report->as_built || lab->kind->report->as_built(lab, why, n);
}

enum lab_revival lab_revive(const struct lab_kind *k, const char *prefix, char *out, size_t n)
{
    struct lab *lab = calloc(1, sizeof *lab);
    char why[512] = "";
    if (!lab) {
        snprintf(out, n, "broken: could not check it: out of memory");
        return LAB_BROKEN;
    }
    if (lab_load(k, prefix, lab, why, sizeof why) != 0) {
        snprintf(out, n, "gone: %s", why);
        free(lab);
        return LAB_BROKEN;
    }
    if (lab_healthy(lab, why, sizeof why)) {
        bool ok = whole(lab, why, sizeof why);
        snprintf(out, n, ok ? "healthy" : "broken: %s", why);
        free(lab);
        return ok ? LAB_HEALTHY : LAB_BROKEN;
    }
    struct revival *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(out, n, "broken: %s (could not bring it back: out of memory)", why);
        free(lab);
        return LAB_BROKEN;
    }
    *r = (struct revival){.out = out, .n = n};
    r->used = (size_t)snprintf(out, n, "%s;", why);
    int rc = 0;
    for (unsigned i = 1; rc == 0 && i < lab->nhosts; i++)
        rc = revive_host(lab, &lab->hosts[i], r);
    if (rc == 0 && r->acted)
        rc = settle(k, prefix, lab, r);
    if (rc == 0 && r->acted && !whole(lab, r->err, sizeof r->err))
        rc = -1;
    enum lab_revival res = LAB_REVIVED;
    if (rc != 0) {
        snprintf(out, n, "broken: %s (%s)", why, r->err);
        res = LAB_BROKEN;
    } else if (!r->acted) {
        snprintf(out, n, "broken: %s", why); /* nothing of it could be brought back */
        res = LAB_BROKEN;
    }
    free(r);
    free(lab);
    return res;
}
