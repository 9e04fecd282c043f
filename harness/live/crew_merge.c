/* crew_merge — every worker's findings, buckets and state brought together
 * after the workload (see crew.h), the times of writes resolved, the states
 * saved and the target's own checks after the sweep. */
#include "crew.h"
#include "crew_parts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/clock.h"

static int by_read_time(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    return x->read_ns < y->read_ns ? -1 : x->read_ns > y->read_ns;
}

/* Fills in written_at of one worker's findings from its journal. */
static void resolve_written_at(struct worker *w)
{
    struct findings *f = &w->findings;
    size_t n = f->n;
    if (!n)
        return;
    uint64_t *blocks = calloc(n, sizeof *blocks), *t = calloc(n, sizeof *t);
    gen_t *gens = calloc(n, sizeof *gens);
    if (blocks && t && gens) {
        for (size_t i = 0; i < n; i++) {
            blocks[i] = f->list[i].block / w->meta.workers; /* journals hold local numbers */
            gens[i] = f->list[i].expected_gen;
        }
        if (journal_lookup_done(w->dir, n, blocks, gens, t) == 0)
            for (size_t i = 0; i < n; i++)
                if (f->list[i].written_ns == FL_TIME_UNKNOWN)
                    f->list[i].written_ns = t[i];
    }
    free(blocks);
    free(t);
    free(gens);
}

void crew_merge(struct crew *c)
{
    findings_init(&c->findings, c->sc->findings_limit);
    findings_init(&c->reverted, c->sc->findings_limit);
    memset(c->reverted_by_loss, 0, sizeof c->reverted_by_loss);
    memset(&c->io, 0, sizeof c->io);
    memset(&c->sweep, 0, sizeof c->sweep);
    memset(&c->prefilled, 0, sizeof c->prefilled);
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        /* Completions in time, a left-behind worker's too: it is parked
         * waiting on its target, and what it did before is the story. */
        if (c->series.b && w->buckets.b)
            buckets_merge(&c->series, &w->buckets);
        if (w->left_behind) {
            /* Its engine never returned to stamp how long it ran. */
            struct io_stats st = w->eng.stats;
            st.ns = c->workload_end_ns;
            io_stats_sum(&c->io, &st);
            continue;
        }
        io_stats_sum(&c->io, &w->eng.stats);
        resolve_written_at(w);
        for (size_t k = 0; crew_ranks_of(c) > 1 && k < w->findings.n; k++) {
            struct finding *x = &w->findings.list[k];
            x->client = c->rank;
            x->owner = x->block == FL_NO_BLOCK ? c->rank : (int)(x->block % crew_ranks_of(c));
        }
        io_stats_sum(&c->prefilled, &w->eng.prefilled);
        io_stats_sum(&c->sweep, &w->sweep);
        findings_merge(&c->findings, &w->findings);
        findings_merge(&c->reverted, &w->reverted);
        for (unsigned k = 0; k <= POWER_LOSSES_MAX; k++)
            c->reverted_by_loss[k] += w->ver.reverted_by_loss[k];
        c->bytes_at_rest += w->map_ready ? statemap_bytes_at_rest(&w->map) : 0;
        c->bytes_peak += w->map_ready ? statemap_bytes_total(&w->map) : 0;
        c->pending_peak += w->map.peak;
        c->journal_stalls += w->eng.journal_stalls;
        c->checkpoints += w->eng.checkpoints;
        c->doubtful_writes += w->eng.doubtful_writes;
        for (unsigned k = 0; k < POWER_LOSSES_MAX; k++)
            c->at_risk[k] += w->eng.at_risk[k];
        c->replayed += w->info.replayed;
        c->acks_recovered += w->info.acks_recovered;
        if (w->eng.interrupted)
            c->interrupted = true;
        if (w->rc != 0 && !c->error)
            c->error = w->err;
    }
    if (c->findings.n > 1)
        qsort(c->findings.list, c->findings.n, sizeof *c->findings.list, by_read_time);
}

void crew_save_states(struct crew *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        char err[FL_ERRLEN];
        int rc;
        if (w->left_behind)
            continue; /* its journal stays as it is: `faultline verify` later treats the
                         run like one that crashed */
        if (w->journal) {
            rc = journal_close(w->journal, &w->map, w->rc == 0, err, sizeof err);
            w->journal = NULL;
        } else {
            rc = state_save(w->dir, &w->meta, &w->map, w->rc == 0, err, sizeof err);
        }
        if (rc != 0 && w->rc == 0) {
            w->rc = -1;
            snprintf(w->err, sizeof w->err, "worker %u: %s", i, err);
        }
    }
}

void crew_check_after_sweep(struct crew *c, const char *phase)
{
    const struct scenario *sc = c->sc;
    if (c->abandoned)
        return;
    uint64_t now = c->t0 ? mono_ns() - c->t0 : 0;
    for (unsigned r = crew_first_rank(c); r <= crew_last_rank(c); r++) {
        /* each client's subtree, its own metadata streams left out */
        const char *skip[17] = {NULL};
        unsigned k = 0;
        for (unsigned i = 0; i < c->nmeta && k < 16; i++)
            if (c->meta[i].client == r)
                skip[k++] = c->meta[i].rel;
        if (sc->backend->check_after &&
            sc->backend->check_after(crew_target_of(c, r), skip, &c->findings, phase, now,
                                     c->names_err, sizeof c->names_err) < 0 &&
            !c->error)
            c->error = c->names_err;
    }
    for (unsigned i = 0; i < c->nmeta; i++) {
        struct meta_stream *m = &c->meta[i];
        char client[PATH_MAX + 32];
        crew_client_dir(c->dir, crew_ranks_of(c), m->client, client, sizeof client);
        meta_check_all(m, phase, now);
        if (!c->verifying &&
            (m->log_failed || meta_save(m, client) != 0 || meta_journal_close(m) != 0) &&
            !c->error) {
            snprintf(c->names_err, sizeof c->names_err, "metadata stream %u: %s", m->index, m->err);
            c->error = c->names_err;
        }
        /* A stream names its paths below its client's subtree. */
        for (size_t f = 0; crew_ranks_of(c) > 1 && f < m->findings.n; f++) {
            struct finding *x = &m->findings.list[f];
            char rel[FL_FINDING_PATH];
            snprintf(rel, sizeof rel, "client-%u/%.*s", m->client, (int)sizeof rel - 24, x->path);
            snprintf(x->path, sizeof x->path, "%s", rel);
            x->client = (int)m->client;
            x->owner = (int)m->client;
        }
        findings_merge(&c->findings, &m->findings);
    }
}
