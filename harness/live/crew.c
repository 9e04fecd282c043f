/* crew — see crew.h: the run and the verify as a whole, and the teardown. */
#include "crew.h"
#include "crew_parts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../checks/memlimit.h"
#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/ini.h"
#include "../../lib/rng.h"

void crew_run(struct crew *c)
{
    crew_run_threads(c, false);
    crew_save_states(c);
    crew_merge(c);
    crew_check_after_sweep(c, "sweep");
}

void crew_verify(struct crew *c)
{
    crew_run_threads(c, true);
    crew_merge(c);
    crew_check_after_sweep(c, "verify");
}

bool crew_block_written(void *ctx, uint64_t b)
{
    struct crew *c = ctx;
    if (!c->n)
        return false;
    /* worker g of the run owns it; it is ours when its rank is */
    unsigned all = c->rank < 0 ? c->n : c->n * crew_ranks_of(c);
    unsigned g = (unsigned)(b % all);
    if (c->rank >= 0 && g % crew_ranks_of(c) != (unsigned)c->rank)
        return false;
    struct worker *w = &c->w[c->rank < 0 ? g : g / crew_ranks_of(c)];
    uint64_t local = b / all;
    if (!w->map_ready || w->left_behind || local >= w->map.nblocks)
        return false;
    return statemap_touched(&w->map, local);
}

void crew_discard(struct crew *c)
{
    if (!c->w || !c->n || !c->sc)
        return;
    struct backend *be = &c->w[0].be;
    if (be->created && be->ops && be->ops->discard)
        be->ops->discard(be, &c->sc->target);
}

void crew_close(struct crew *c)
{
    for (unsigned i = 0; c->w && i < c->n; i++) {
        struct worker *w = &c->w[i];
        if (w->left_behind)
            continue; /* its thread still uses all of it; the process exits soon */
        if (w->journal) {
            /* Only when preparation failed half-way: nothing ran. */
            char err[FL_ERRLEN];
            journal_close(w->journal, NULL, false, err, sizeof err);
            w->journal = NULL;
        }
        if (w->ver_ready)
            verifier_free(&w->ver);
        findings_free(&w->findings);
        findings_free(&w->reverted);
        cross_log_free(&w->cross);
        if (w->map_ready)
            statemap_free(&w->map);
        if (w->be_open)
            w->be.ops->close(&w->be);
    }
    for (unsigned i = 0; !c->meta_left_behind && i < c->nmeta; i++)
        meta_free(&c->meta[i]);
    if (!c->meta_left_behind) {
        free(c->meta);
        c->meta = NULL;
    }
    if (c->abandoned)
        return; /* left-behind threads still hold the gate and their worker */
    for (unsigned i = 0; c->w && i < c->n; i++)
        buckets_free(&c->w[i].buckets);
    if (c->w) {
        pthread_mutex_destroy(&c->gate_mu);
        pthread_cond_destroy(&c->gate_cv);
    }
    free(c->w);
    c->w = NULL;
}

int crew_save_cross(struct crew *c, char *err, size_t errlen)
{
    for (unsigned i = 0; i < c->n; i++) {
        struct worker *w = &c->w[i];
        if (!w->left_behind && w->eng.cross &&
            cross_log_save(&w->cross, w->dir, w->meta.run_id, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void crew_free(struct crew *c)
{
    findings_free(&c->findings);
    findings_free(&c->reverted);
    buckets_free(&c->series);
}
