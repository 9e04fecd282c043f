/* conclude — see conclude.h. */
#include "conclude.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/clock.h"
#include "../../lib/crc32c.h"
#include "../../lib/errbuf.h"
#include "../judge/verdict.h"
#include "../report/result_render.h"

/* The report fields both verbs fill from the crew the same way. */
struct report conclude_report(const char *mode, const char *dir, const struct scenario *sc,
                              const struct run_meta *meta, struct crew *crew)
{
    return (struct report){.mode = mode, .dir = dir, .sc = sc, .meta = meta,
                           .target_desc = crew->desc, .capacity = crew->capacity,
                           .findings = &crew->findings, .seed = meta->seed,
                           .error = crew->error, .crc_impl = crc32c_impl(),
                           .workers = crew->n, .map_bytes_at_rest = crew->bytes_at_rest,
                           .map_bytes_peak = crew->bytes_peak,
                           .pending_peak = crew->pending_peak, .reverted = &crew->reverted,
                           .reverted_by_loss = crew->reverted_by_loss};
}

/* Each fault's recovery numbers from the completions of `series` (recov:
 * one per fault) and the baseline they are measured against; the longest
 * stall.  end: where the workload ended. */
double conclude_recovery(const struct buckets *series, const struct scenario *sc,
                         const struct timeline *tl, uint64_t end, struct baseline *base,
                         struct recovery *recov)
{
    uint64_t first = UINT64_MAX;
    for (unsigned i = 0; i < tl->n; i++)
        if (tl->faults[i].applied && tl->faults[i].injected_ns < first)
            first = tl->faults[i].injected_ns;
    recovery_baseline(series, sc->warmup_ns, first, end, base);
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
        recovery_analyze(series, base, begin, clear, horizon, end, &recov[i]);
        if (f->clear_failed) {
            /* The outage was not undone as written: what came after its
             * clear is no recovery from it. */
            recov[i].clear_failed = true;
            recov[i].recovered = false;
            recov[i].io_after_clear = false;
        }
    }
    uint64_t a, b;
    return series->b ? (double)recovery_longest_gap(series, 0, end, end, &a, &b) / 1e9 : -1;
}

/* Where the workload ended, for the analysis: past the duration only the
 * drain (nothing new is issued), unless workers were left behind. */
uint64_t conclude_end(const struct crew *crew, const struct scenario *sc)
{
    uint64_t end = crew->workload_end_ns;
    return !crew->abandoned && end > sc->duration_ns ? sc->duration_ns : end;
}

/* The outage measured from the time buckets of `series`: baseline, each
 * fault's recovery numbers, the longest stall; timeline.csv. */
void conclude_analyse(struct report *rep, const struct crew *crew, const struct buckets *series,
                      const struct timeline *tl, struct recovery *recov)
{
    const struct scenario *sc = rep->sc;
    uint64_t end = conclude_end(crew, sc);
    rep->end_ns = end;
    rep->series = series;
    rep->t0_wall_ns = wall_ns() - (mono_ns() - crew->t0);
    rep->max_stall_s = conclude_recovery(series, sc, tl, end, &rep->baseline, recov);
    rep->recovery = recov;
    if (crew->n) { /* who carried the I/O: every worker has the same paths */
        rep->path_names = (const char(*)[FL_URL_MAX])crew->w[0].be.path_names;
        rep->npaths = crew->w[0].be.npaths;
    }
    char err[FL_ERRLEN];
    if (series->b && buckets_write_csv(series, rep->dir, err, sizeof err) != 0)
        fprintf(stderr, "faultline: %s\n", err);
}

/* A run over several clients: each client's own completions in time, in
 * DIR/client-R/timeline.csv, where report.html draws its line from. */
static void write_client_timelines(const struct report *rep)
{
    for (unsigned k = 0; rep->nclients > 1 && k < rep->nclients; k++) {
        const struct report_client *c = &rep->clients[k];
        char dir[PATH_MAX], err[FL_ERRLEN];
        if (!c->series || !c->series->used)
            continue;
        snprintf(dir, sizeof dir, "%s/client-%u", rep->dir, c->rank);
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            fprintf(stderr, "faultline: cannot make %s: %s\n", dir, strerror(errno));
        else if (buckets_write_csv(c->series, dir, err, sizeof err) != 0)
            fprintf(stderr, "faultline: %s\n", err);
    }
}

/* Writes the reports, prints the summary, releases the crew; the exit status. */
int conclude_finish(struct report *rep, struct crew *crew, struct event_log *events)
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
        .clients = rep->nclients, .lost_clients = rep->lost_clients,
        .max_stall_s = rep->recovery ? rep->max_stall_s : -1, .end_ns = rep->sc->duration_ns,
        .interrupted = rep->interrupted ? rep->interrupt_signal : 0, .abandoned = rep->abandoned};
    if (verdict_evaluate(&vin, &verdict) != 0) {
        fprintf(stderr, "faultline: out of memory for the verdict\n");
        return 2;
    }
    rep->verdict = &verdict;
    int code = report_exit_code(rep);
    write_client_timelines(rep);
    struct result res;
    bool written = report_write(rep, &res, err, sizeof err) == 0;
    if (!written) {
        fprintf(stderr, "faultline: %s\n", err);
        code = 2;
    }
    if (crew->error)
        fprintf(stderr, "faultline: %s\n", crew->error);
    if (written) /* what the report says, as it says it */
        result_summary(&res, rep->dir, stdout);
    result_free(&res);
    verdict_free(&verdict);
    rep->verdict = NULL; /* it lived here only */
    crew_close(crew);
    crew_free(crew);
    return code;
}

