/* report_failover — a fault's stall split by what an HA cluster did; see
 * report_failover.h. */
#include "report_failover.h"

#include <stdio.h>
#include <string.h>

static bool is(const struct event *e, const char *name)
{
    return strcmp(e->event, name) == 0;
}

static struct failover_phase phase(int64_t from, int64_t to)
{
    struct failover_phase p = {.known = from >= 0 && to >= from};
    p.s = p.known ? (double)(to - from) / 1e9 : 0;
    return p;
}

void failover_split(const struct event *ev, size_t n, uint64_t inject_ns, uint64_t until_ns,
                    bool stalled, uint64_t stall_to_ns, struct failover_split *out)
{
    memset(out, 0, sizeof *out);
    /* the list holds the run's own path events and, after them, the
     * cluster's: each time is searched for, not taken from the order */
    int64_t I = (int64_t)inject_ns, L = -1, F = -1, R = stalled ? (int64_t)stall_to_ns : -1;
    for (size_t i = 0; i < n; i++)
        if (ev[i].t_ns >= I && ev[i].t_ns <= (int64_t)until_ns && (L < 0 || ev[i].t_ns < L) &&
            (is(&ev[i], "member-lost") || is(&ev[i], "rsc-failed"))) {
            L = ev[i].t_ns;
            snprintf(out->lost_by, sizeof out->lost_by, "%s", ev[i].event);
        }
    if (L < 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (ev[i].t_ns >= L && (F < 0 || ev[i].t_ns < F) && is(&ev[i], "fence-done"))
            F = ev[i].t_ns;
    int64_t from = F >= 0 ? F : L, before = -1, after = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t t = ev[i].t_ns;
        if (t < from || !is(&ev[i], "rsc-started"))
            continue;
        if (R >= 0 && t <= R && t > before)
            before = t; /* the last one before the client came back */
        else if ((R < 0 || t > R) && (after < 0 || t < after))
            after = t;
    }
    int64_t S = before >= 0 ? before : after;
    /* the client back: its first reconnect once the resources ran again
     * (a stall too short to hold the restart ends before S) */
    int64_t back = -1;
    for (size_t i = 0; S >= 0 && i < n; i++)
        if (ev[i].t_ns >= S && is(&ev[i], "reconnect") && (back < 0 || ev[i].t_ns < back))
            back = ev[i].t_ns;
    if (back >= 0)
        R = back;
    out->known = true;
    out->detection = phase(I, L);
    out->fencing = phase(F >= 0 ? L : -1, F);
    out->start = phase(S >= 0 ? from : -1, S);
    out->reconnect = phase(S, R);
}
