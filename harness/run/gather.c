/* gather — see gather.h. */
#include "gather.h"

#include <stdlib.h>
#include <string.h>

#include "conclude.h"

static int by_read_time(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    return x->read_ns < y->read_ns ? -1 : x->read_ns > y->read_ns;
}

int gather_combine(struct combined *all, struct clients *cl, const struct crew *crew,
                   const struct scenario *sc, const struct timeline *tl,
                   struct event_log *events, const char *dir)
{
    unsigned n = cl->n, nf = tl->n;
    memset(all, 0, sizeof *all);
    findings_init(&all->findings, sc->findings_limit);
    if (buckets_init(&all->series, sc->bucket_ns,
                     sc->duration_ns + sc->grace_ns + 10000000000ull) != 0 ||
        !(all->clients = calloc(n, sizeof *all->clients)) ||
        !(all->recov = calloc((size_t)n * (nf ? nf : 1), sizeof *all->recov)) ||
        !(all->dirs = calloc(n, sizeof *all->dirs)))
        return -1;
    uint64_t end = conclude_end(crew, sc);
    for (unsigned k = 0; k < n; k++) {
        struct client *c = &cl->c[k];
        struct report_client *rc = &all->clients[k];
        crew_client_dir(dir, n, k, all->dirs[k], sizeof all->dirs[k]);
        *rc = (struct report_client){.rank = k, .host = c->host, .lost = c->state == CLIENT_LOST,
                                     .why = c->why, .heard = c->heard, .max_stall_s = -1,
                                     .offset_ns = c->offset_ns[0],
                                     .uncertainty_ns = c->uncertainty_ns[0],
                                     .offset_end_ns = c->offset_ns[1],
                                     .uncertainty_end_ns = c->uncertainty_ns[1],
                                     .end_measured = c->end_measured,
                                     .error_ns = clients_error_ns(c), .dir = all->dirs[k]};
        if (!c->have_res)
            continue;
        const struct client_result *x = &c->res;
        rc->io = &x->io;
        rc->sweep = &x->sweep;
        rc->findings = findings_bad(&x->findings);
        io_stats_sum(&all->io, &x->io);
        io_stats_sum(&all->sweep, &x->sweep);
        io_stats_sum(&all->prefilled, &x->prefilled);
        findings_merge(&all->findings, &x->findings);
        for (int m = 0; m < MOP_COUNT; m++)
            all->meta_ops[m] += x->meta_ops[m];
        all->meta_errors += x->meta_errors;
        if (x->series.b) {
            buckets_merge(&all->series, &x->series);
            rc->series = &x->series;
            rc->recovery = &all->recov[(size_t)k * (nf ? nf : 1)];
            rc->max_stall_s = conclude_recovery(&x->series, sc, tl, end, &rc->baseline,
                                                &all->recov[(size_t)k * (nf ? nf : 1)]);
        }
        if (k > 0)
            for (size_t e = 0; e < x->nevents; e++)
                events_add_from(events, &x->events[e], (int)k);
    }
    return 0;
}

void gather_sort(struct combined *all)
{
    if (all->findings.n > 1)
        qsort(all->findings.list, all->findings.n, sizeof *all->findings.list, by_read_time);
}

void gather_free(struct combined *all)
{
    findings_free(&all->findings);
    buckets_free(&all->series);
    free(all->clients);
    free(all->recov);
    free(all->dirs);
}

/* A verify of a run over several clients judges every client's cross reads
 * again, against their owners' journals (also those of a client that was
 * lost: its journal is here now). */
struct report_cross *gather_verify_cross(struct crew *crew, const char *dir, unsigned ranks,
                                         struct report_cross *out)
{
    size_t n = 0;
    struct cross_tally t = {0};
    for (unsigned i = 0; i < crew->n; i++) {
        n += crew->w[i].cross.n;
        t.unjudged += crew->w[i].cross.unrecorded;
    }
    struct cross_read *all = malloc((n ? n : 1) * sizeof *all);
    uint64_t *errs = calloc(ranks, sizeof *errs);
    if (!all || !errs) {
        free(all);
        free(errs);
        return NULL;
    }
    size_t k = 0;
    for (unsigned i = 0; i < crew->n; i++) {
        if (!crew->w[i].cross.n)
            continue; /* a lost client kept none */
        memcpy(all + k, crew->w[i].cross.r, crew->w[i].cross.n * sizeof *all);
        k += crew->w[i].cross.n;
    }
    clients_load_clocks(dir, ranks, errs);
    clients_judge(crew, all, n, errs, &crew->findings, &t);
    free(all);
    free(errs);
    const char *rule = crew->sc->backend->cross_rule;
    *out = (struct report_cross){.rule = rule ? rule : "acknowledged",
                                 .pct = crew->sc->workload.cross_pct, .reads = n + t.unjudged,
                                 .judged = t.judged, .ok = t.ok, .bad = t.bad,
                                 .unjudged = t.unjudged};
    return out;
}
