/* run_schedule — the schedule.scn of a run whose scenario has [thrash]
 * (see run_parts.h). */
#include "run_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/ini.h"

void run_write_schedule(const struct run *r)
{
    const struct thrash_spec *t = &r->sc.thrash;
    if (!t->line || !run_is_rank0(r))
        return;
    char err[FL_ERRLEN];
    char *text = ini_read_file(r->o->scenario, err, sizeof err);
    if (!text) {
        fprintf(stderr, "faultline: no schedule.scn: %s\n", err);
        return;
    }
    struct thrash_outcome *o = NULL;
    const struct timeline *tl = r->tl;
    if (tl && tl->n == r->sc.nfaults && tl->faults && (o = calloc(t->ndrawn + 1, sizeof *o))) {
        for (unsigned k = 0; k < t->ndrawn; k++) {
            const struct fault *f = &tl->faults[r->sc.first_drawn + k];
            o[k].reached = !f->not_reached;
            o[k].settle_s = f->settle_asked ? (double)f->settle_ns / 1e9 : -1;
        }
    }
    char *out = thrash_schedule_text(text, t, t->seed_drawn, o);
    free(text);
    free(o);
    char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
    snprintf(path, sizeof path, "%s/schedule.scn", r->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = out ? fopen(tmp, "w") : NULL;
    if (!f || fputs(out, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "faultline: cannot write %s: %s\n", path,
                out ? "write failed" : "out of memory");
        if (f)
            remove(tmp);
    }
    free(out);
}
