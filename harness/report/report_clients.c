/*
 * report_clients — what each client of a run over several (MPI ranks) did,
 * next to the combined verdict: `clients` and `cross_reads` in
 * report.json (report.txt and report.html tell them from there:
 * result_render.h, result_html.h).
 *
 * Per client: its host, its I/O, its findings, its own stall and recovery
 * for every fault (measured on its own completions: a fault on one
 * client's link shows there, not in the others' lines), whether it was
 * lost and what was last heard of it, and its clock against rank 0's.
 */
#include <inttypes.h>
#include <stdio.h>

#include "../../lib/json.h"
#include "report.h"

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static void json_clock(struct json *j, const struct report_client *c)
{
    report_json_maybe(j, "clock_offset_ms", true, ms(c->offset_ns));
    report_json_maybe(j, "clock_uncertainty_ms", true, ms((int64_t)c->uncertainty_ns));
    report_json_maybe(j, "clock_offset_end_ms", c->end_measured, ms(c->offset_end_ns));
    report_json_maybe(j, "clock_uncertainty_end_ms", c->end_measured,
                      ms((int64_t)c->uncertainty_end_ns));
    /* how far its timeline may be off rank 0's */
    report_json_maybe(j, "clock_error_ms", true, ms((int64_t)c->error_ns));
}

static void json_client_faults(struct json *j, const struct report *r,
                               const struct report_client *c)
{
    json_key(j, "faults");
    json_arr_begin(j);
    for (unsigned i = 0; c->recovery && i < r->nfaults; i++) {
        const struct recovery *x = &c->recovery[i];
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, r->faults[i].spec.name);
        report_json_maybe(j, metric_table[F_STALL].key, x->injected, x->stall_s);
        report_json_maybe(j, metric_table[F_RECOVERY].key, x->recovered, x->recovery_s);
        report_json_maybe(j, metric_table[F_IMPACT].key, x->injected && x->impact,
                          x->impact_s);
        json_key(j, metric_table[F_ERRORS].key);
        json_u64(j, x->errors);
        report_json_maybe(j, metric_table[F_FIRST_IO_AFTER_CLEAR].key, x->io_after_clear,
                          x->first_io_after_clear_s);
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* The cross reads, judged (a run over several clients, or its verify). */
static void json_cross(struct json *j, const struct report *r)
{
    const struct report_cross *x = r->cross;
    if (!x)
        return;
    json_key(j, "cross_reads");
    json_obj_begin(j);
    json_key(j, "rule");
    json_str(j, x->rule);
    json_key(j, "percent");
    json_u64(j, x->pct);
    json_key(j, "reads");
    json_u64(j, x->reads);
    json_key(j, "judged");
    json_u64(j, x->judged);
    json_key(j, "ok");
    json_u64(j, x->ok);
    json_key(j, "findings");
    json_u64(j, x->bad);
    json_key(j, "unjudged");
    json_u64(j, x->unjudged);
    json_obj_end(j);
}

void report_json_clients(struct json *j, const struct report *r)
{
    json_cross(j, r);
    if (!r->nclients)
        return;
    json_key(j, "clients");
    json_arr_begin(j);
    for (unsigned k = 0; k < r->nclients; k++) {
        const struct report_client *c = &r->clients[k];
        json_obj_begin(j);
        json_key(j, "rank");
        json_u64(j, c->rank);
        json_key(j, "host");
        json_str(j, c->host);
        json_key(j, "lost");
        json_bool(j, c->lost);
        json_key(j, "why");
        if (c->lost)
            json_str(j, c->why);
        else
            json_null(j);
        json_key(j, "last_heard");
        if (c->lost && c->heard[0])
            json_str(j, c->heard);
        else
            json_null(j);
        json_key(j, "dir");
        json_str(j, c->dir);
        json_key(j, "io");
        if (c->io)
            report_json_io(j, c->io);
        else
            json_null(j);
        json_key(j, "sweep");
        if (c->sweep)
            report_json_io(j, c->sweep);
        else
            json_null(j);
        json_key(j, "findings");
        json_u64(j, c->findings);
        report_json_maybe(j, "max_stall_s", c->max_stall_s >= 0, c->max_stall_s);
        json_client_faults(j, r, c);
        json_clock(j, c);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_key(j, "lost_clients");
    json_u64(j, r->lost_clients);
}
