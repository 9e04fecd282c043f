/* report_actions — report.json's "actions" (see report_actions.h). */
#include "report_actions.h"

#include <stdlib.h>
#include <string.h>

#include "../../checks/dist.h"
#include "../../lib/json.h"

#define KEY(id) (metric_table[id].key)

/* A distribution over faults (as a repeat summary gives a metric's over
 * runs, dist.h), or null when none measured it. */
static void json_dist(struct json *j, const char *key, const double *v, size_t n)
{
    struct dist d;
    json_key(j, key);
    if (!dist_of(v, n, &d)) {
        json_null(j);
        return;
    }
    json_obj_begin(j);
    json_key(j, "n");
    json_u64(j, d.n);
    const char *names[] = {"min", "p50", "p95", "max", "mean"};
    const double vals[] = {d.min, d.p50, d.p95, d.max, d.mean};
    for (int k = 0; k < 5; k++) {
        json_key(j, names[k]);
        json_num(j, vals[k], 3);
    }
    json_obj_end(j);
}

/* Per action: how many of its faults there were and began, and the
 * distribution of their stall, recovery and heal or recover (what a
 * thrash of many faults is read by). */
void report_json_actions(struct json *j, const struct report *r)
{
    json_key(j, "actions");
    json_arr_begin(j);
    double *v[3];
    for (int k = 0; k < 3; k++)
        v[k] = calloc(r->nfaults ? r->nfaults : 1, sizeof *v[k]);
    for (unsigned i = 0; v[0] && v[1] && v[2] && i < r->nfaults; i++) {
        const char *action = r->faults[i].ops->action;
        bool first = true;
        for (unsigned p = 0; p < i && first; p++)
            first = strcmp(r->faults[p].ops->action, action) != 0;
        if (!first)
            continue;
        unsigned count = 0, began = 0;
        size_t n[3] = {0, 0, 0};
        const char *word = NULL;
        for (unsigned k = i; k < r->nfaults; k++) {
            const struct fault *f = &r->faults[k];
            if (strcmp(f->ops->action, action) != 0 || (f->not_reached && f->drawn))
                continue;
            count++;
            began += f->applied;
            const struct recovery *x = r->recovery ? &r->recovery[k] : NULL;
            if (!x || !x->injected)
                continue;
            v[0][n[0]++] = x->stall_s;
            if (x->recovered)
                v[1][n[1]++] = x->recovery_s;
            if (x->heal_measured && x->healed) {
                v[2][n[2]++] = x->heal_s;
                word = x->heal_word;
            }
        }
        json_obj_begin(j);
        json_key(j, "action");
        json_str(j, action);
        json_key(j, "count");
        json_u64(j, count);
        json_key(j, "began");
        json_u64(j, began);
        json_dist(j, KEY(F_STALL), v[0], n[0]);
        json_dist(j, KEY(F_RECOVERY), v[1], n[1]);
        json_dist(j, word && strcmp(word, "recover") == 0 ? KEY(F_RECOVER) : KEY(F_HEAL), v[2],
                  n[2]);
        json_obj_end(j);
    }
    for (int k = 0; k < 3; k++)
        free(v[k]);
    json_arr_end(j);
}

