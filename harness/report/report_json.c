/* report_json — report.json and the findings of events.jsonl (see report.h). */
#include "report.h"
#include "report_failover.h"
#include "report_actions.h"
#include "report_paths.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/json.h"
#include "../../lib/units.h"
#include "../live/resources.h"
#include "report_manifest.h"

/* A metric's key in report.json (checks/metric.h). */
#define KEY(id) (metric_table[id].key)

static void json_finding(struct json *j, const struct report *r, const struct finding *f)
{
    char path[PATH_MAX + 800];
    uint64_t offset;
    report_where(r, f, path, sizeof path, &offset);
    bool name = f->block == FL_NO_BLOCK;
    json_obj_begin(j);
    json_key(j, "class");
    json_str(j, class_name(f->cls));
    json_key(j, "block");
    if (name)
        json_null(j);
    else
        json_u64(j, f->block);
    json_key(j, "offset");
    if (name)
        json_null(j);
    else
        json_u64(j, offset);
    json_key(j, "path");
    json_str(j, path);
    json_key(j, "expected_gen");
    if (name)
        json_null(j);
    else
        json_u64(j, f->expected_gen);
    json_key(j, "found_gen");
    if (f->found_known)
        json_u64(j, f->found_gen);
    else
        json_null(j);
    json_key(j, "written_at");
    json_seconds(j, f->written_ns);
    json_key(j, "read_at");
    json_seconds(j, f->read_ns);
    json_key(j, "found_written_at");
    json_seconds(j, f->found_written_ns);
    json_key(j, "repeats");
    json_u64(j, f->repeats);
    json_key(j, "last_read_at");
    json_seconds(j, f->last_read_ns);
    json_key(j, "op");
    json_str(j, f->op);
    json_key(j, "phase");
    json_str(j, f->phase);
    json_key(j, "detail");
    json_str(j, f->detail);
    if (r->sc->target.ranks > 1) { /* a run over several clients */
        json_key(j, "owner");
        json_i64(j, f->owner);
        json_key(j, "client");
        if (f->client >= 0)
            json_i64(j, f->client);
        else
            json_null(j); /* found by a later verify */
    }
    json_obj_end(j);
}

static void json_path_event(struct json *j, const struct event *e)
{
    json_obj_begin(j);
    json_key(j, "t");
    json_num(j, (double)e->t_ns / 1e9, 6);
    json_key(j, "event");
    json_str(j, e->event);
    json_key(j, "worker");
    json_u64(j, e->worker);
    json_key(j, "portal");
    json_str(j, e->portal);
    json_key(j, "detail");
    json_str(j, e->detail);
    json_obj_end(j);
}

/* An HA cluster's fault: its stall split by what the cluster did
 * (report_failover.h), when its events say it acted. */
static void json_failover(struct json *j, const struct report *r, const struct recovery *x)
{
    struct failover_split fs = {.known = false};
    if (x->injected && r->events)
        failover_split(r->events->list, r->events->n, x->inject_ns, x->until_ns, x->stall_s > 0,
                       x->stall_to_ns, &fs);
    if (!fs.known)
        return;
    json_key(j, "failover");
    json_obj_begin(j);
    json_key(j, "noticed_by");
    json_str(j, fs.lost_by);
    const struct failover_phase *p[] = {&fs.detection, &fs.fencing, &fs.start, &fs.reconnect};
    static const char *const key[] = {"detection_s", "fencing_s", "start_s", "reconnect_s"};
    for (int i = 0; i < 4; i++)
        report_json_maybe(j, key[i], p[i]->known, p[i]->s);
    json_obj_end(j);
}

/* A fault's recovery numbers (null where they could not be measured): its
 * metrics under their keys, and what tells more about them. */
static void json_recovery(struct json *j, const struct report *r, const struct recovery *x)
{
    report_json_maybe(j, KEY(F_IMPACT), x->injected && x->impact, x->impact_s);
    report_json_maybe(j, KEY(F_STALL), x->injected, x->stall_s);
    report_json_maybe(j, "stall_from", x->injected && x->stall_s > 0, report_secs(x->stall_from_ns));
    report_json_maybe(j, "stall_to", x->injected && x->stall_s > 0, report_secs(x->stall_to_ns));
    json_key(j, KEY(F_ERRORS));
    json_u64(j, x->errors);
    report_json_maybe(j, KEY(F_MAX_LATENCY), x->injected, x->max_latency_s);
    bool lat = x->injected && x->latency_known; /* null: nothing completed in the window */
    report_json_maybe(j, "latency_p50_s", lat, x->latency_p50_s);
    report_json_maybe(j, "latency_p99_s", lat, x->latency_p99_s);
    report_json_maybe(j, "latency_max_s", lat, x->latency_max_s);
    report_json_maybe(j, KEY(F_FIRST_IO_AFTER_INJECT), x->io_after_inject,
                      x->first_io_after_inject_s);
    report_json_maybe(j, KEY(F_FIRST_IO_AFTER_CLEAR), x->io_after_clear,
                      x->first_io_after_clear_s);
    report_json_maybe(j, KEY(F_RECOVERY), x->recovered, x->recovery_s);
    /* heal_s (gluster) and recover_s (ceph): each null unless its lab's word */
    bool healed = x->heal_measured && x->healed;
    report_json_maybe(j, KEY(F_HEAL), healed && strcmp(x->heal_word, "heal") == 0, x->heal_s);
    report_json_maybe(j, KEY(F_RECOVER), healed && strcmp(x->heal_word, "recover") == 0,
                      x->heal_s);
    /* the metadata streams' own stall in the fault's span (this process's
     * streams: null where only the clients' counts came back) */
    bool meta = x->injected && r->meta_streams && r->nmeta && strcmp(r->mode, "run") == 0;
    struct meta_gap mg = {0, 0};
    report_json_maybe(j, "metadata_stall_s", meta,
                      report_secs(meta ? meta_longest_gap(r->meta_streams, r->nmeta, x->inject_ns,
                                                   x->until_ns, &mg) : 0));
    report_json_maybe(j, "metadata_stall_from", meta && mg.to_ns > mg.from_ns,
                      report_secs(mg.from_ns));
    report_json_maybe(j, "metadata_stall_to", meta && mg.to_ns > mg.from_ns,
                      report_secs(mg.to_ns));
    if (x->heal_measured) { /* what report.txt says of it, also when it did not heal */
        json_key(j, "heal_word");
        json_str(j, x->heal_word);
        json_key(j, "healed");
        json_bool(j, x->healed);
        json_key(j, "heal_whole");
        json_str(j, x->heal_whole ? x->heal_whole : "");
    }
    report_json_maybe(j, "analysed_until", x->injected, report_secs(x->until_ns));
    json_key(j, "path_events");
    json_arr_begin(j);
    for (size_t i = 0; x->injected && r->events && i < r->events->n; i++)
        if (report_event_in(&r->events->list[i], x->inject_ns, x->until_ns))
            json_path_event(j, &r->events->list[i]);
    json_arr_end(j);
    json_failover(j, r, x);
}

/* `measured`: every metric of [expect] as this run measured it, written
 * in the scenario or not (null: could not be measured), so that repeats
 * and `faultline compare` can put any of them side by side. */
static void json_measured(struct json *j, const struct report *r)
{
    if (!r->verdict || strcmp(r->mode, "run") != 0)
        return;
    json_key(j, "measured");
    json_obj_begin(j);
    for (int m = 0; m < M_RUN_COUNT; m++) {
        if (m == M_PASS_RATE)
            continue;
        json_key(j, metric_table[m].name);
        if (r->verdict->known[m])
            json_num(j, r->verdict->value[m], metric_table[m].unit == UNIT_SECONDS ? 6 : 0);
        else
            json_null(j);
    }
    json_obj_end(j);
}

static void json_expectations(struct json *j, const struct report *r)
{
    json_key(j, "expectations");
    json_arr_begin(j);
    for (size_t i = 0; r->verdict && i < r->verdict->n; i++) {
        const struct expect_result *x = &r->verdict->results[i];
        const struct metric_def *m = expect_metric(&x->rule);
        json_obj_begin(j);
        json_key(j, "expect");
        json_str(j, x->rule.text);
        json_key(j, "metric");
        json_str(j, m->name);
        json_key(j, "fault");
        if (x->rule.fault >= 0 && (unsigned)x->rule.fault < r->nfaults)
            json_str(j, r->faults[x->rule.fault].spec.name);
        else
            json_null(j);
        json_key(j, "op");
        json_str(j, expect_op_text(x->rule.op));
        json_key(j, "value");
        bool seconds = m->unit == UNIT_SECONDS;
        json_num(j, x->rule.value, seconds ? 6 : 0);
        json_key(j, "unit");
        json_str(j, seconds ? "s" : "count");
        json_key(j, "measured");
        if (x->known)
            json_num(j, x->measured, seconds ? 6 : 0);
        else
            json_null(j);
        json_key(j, "pass");
        json_bool(j, x->pass);
        json_key(j, "line");
        if (x->rule.line)
            json_u64(j, (uint64_t)x->rule.line);
        else
            json_null(j);
        json_key(j, "implicit");
        json_bool(j, x->rule.line == 0);
        if (!x->known) {
            json_key(j, "why");
            json_str(j, x->why);
        }
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* The outage as measured: time zero, the baseline, the longest stall. */
static void json_outage(struct json *j, const struct report *r)
{
    json_key(j, "t0_wall");
    json_num(j, (double)r->t0_wall_ns / 1e9, 6);
    json_key(j, "workload_end");
    json_num(j, report_secs(r->end_ns), 6);
    json_key(j, "bucket_s");
    json_num(j, r->series ? report_secs(r->series->width_ns) : 0, 3);
    json_key(j, "timeline");
    json_str(j, "timeline.csv");
    json_key(j, "baseline");
    json_obj_begin(j);
    json_key(j, "iops");
    if (r->baseline.known)
        json_num(j, r->baseline.iops, 0);
    else
        json_null(j);
    json_key(j, "from");
    json_num(j, report_secs(r->baseline.from_ns), 3);
    json_key(j, "to");
    json_num(j, report_secs(r->baseline.to_ns), 3);
    json_key(j, "buckets"); /* how many buckets the median was taken of */
    json_u64(j, r->baseline.buckets);
    json_obj_end(j);
    json_key(j, "max_stall_s");
    if (r->max_stall_s >= 0)
        json_num(j, r->max_stall_s, 6);
    else
        json_null(j);
    json_key(j, "hung");
    json_u64(j, r->hung);
    json_key(j, "abandoned");
    json_bool(j, r->abandoned);
    report_json_paths(j, r);
}

/* What the corrupt faults overwrote and what reads found of it. */
static void json_corruption(struct json *j, const struct verdict *v)
{
    json_key(j, "corruption");
    json_obj_begin(j);
    json_key(j, "corrupted_blocks");
    json_u64(j, v->corrupted_blocks);
    json_key(j, "detected_corrupt");
    json_u64(j, v->detected_corrupt);
    json_key(j, "undetected_corrupt");
    json_u64(j, v->undetected_corrupt);
    json_key(j, "explained");
    json_obj_begin(j);
    for (int c = 0; c < CLS_COUNT; c++) {
        json_key(j, class_name((enum fl_class)c));
        json_u64(j, v->explained[c]);
    }
    json_obj_end(j);
    json_obj_end(j);
}

static void json_target(struct json *j, const struct report *r)
{
    json_key(j, "target");
    json_obj_begin(j);
    json_key(j, "kind");
    json_str(j, r->sc->target.kind);
    json_key(j, "path");
    json_str(j, r->sc->target.path);
    json_key(j, "description");
    json_str(j, r->target_desc ? r->target_desc : "");
    json_key(j, "bytes");
    json_u64(j, r->capacity);
    json_key(j, "block_size");
    json_u64(j, r->meta->block_size);
    json_key(j, "blocks");
    json_u64(j, r->meta->nblocks);
    json_obj_end(j);
}

/* Reads by class, and every finding. */
static void json_findings(struct json *j, const struct report *r)
{
    json_key(j, "counts");
    json_obj_begin(j);
    for (int c = 0; c < CLS_COUNT; c++) {
        json_key(j, class_name((enum fl_class)c));
        json_u64(j, r->findings->counts[c]);
    }
    json_obj_end(j);
    json_key(j, "findings");
    json_arr_begin(j);
    for (size_t i = 0; i < r->findings->n; i++)
        json_finding(j, r, &r->findings->list[i]);
    json_arr_end(j);
    json_key(j, "findings_unlisted");
    json_u64(j, r->findings->unlisted);
    json_key(j, "reverted");
    json_arr_begin(j);
    for (size_t i = 0; r->reverted && i < r->reverted->n; i++)
        json_finding(j, r, &r->reverted->list[i]);
    json_arr_end(j);
    json_key(j, "reverted_unlisted");
    json_u64(j, r->reverted ? r->reverted->unlisted : 0);
}

/* Each power loss: when, what was at risk, how much came back older. */
static void json_power(struct json *j, const struct report *r)
{
    json_key(j, "power");
    json_arr_begin(j);
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct fault *f = &r->faults[i];
        unsigned k = f->power_loss;
        if (!k)
            continue;
        json_obj_begin(j);
        json_key(j, "fault");
        json_str(j, f->spec.name);
        json_key(j, "at");
        json_seconds(j, f->injected_ns ? f->injected_ns : FL_TIME_UNKNOWN);
        json_key(j, "writes_at_risk");
        json_u64(j, r->at_risk ? r->at_risk[k - 1] : 0);
        json_key(j, "reverted");
        json_u64(j, r->reverted_by_loss ? r->reverted_by_loss[k] : 0);
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* The state map's memory and the journal's work. */
static void json_state(struct json *j, const struct report *r)
{
    json_key(j, "state_map");
    json_obj_begin(j);
    json_key(j, "bytes_per_block_at_rest");
    json_num(j, r->meta->nblocks ? (double)r->map_bytes_at_rest / (double)r->meta->nblocks : 0,
             3);
    json_key(j, "bytes_at_rest");
    json_u64(j, r->map_bytes_at_rest);
    json_key(j, "bytes_peak");
    json_u64(j, r->map_bytes_peak);
    json_key(j, "pending_peak");
    json_u64(j, r->pending_peak);
    json_obj_end(j);

    json_key(j, "journal");
    json_obj_begin(j);
    json_key(j, "enabled");
    json_bool(j, r->sc->journal);
    if (strcmp(r->mode, "run") == 0) {
        json_key(j, "stalls");
        json_u64(j, r->journal_stalls);
        json_key(j, "checkpoints");
        json_u64(j, r->checkpoints);
    } else {
        json_key(j, "state_final");
        json_bool(j, r->state_final);
        json_key(j, "replayed_records");
        json_u64(j, r->replayed);
        json_key(j, "acks_recovered");
        json_u64(j, r->acks_recovered);
    }
    json_obj_end(j);
}

/* One fault: what was asked, what happened, its recovery numbers. */
static void json_fault(struct json *j, const struct report *r, unsigned i)
{
    const struct fault *f = &r->faults[i];
    json_obj_begin(j);
    json_key(j, "name");
    json_str(j, f->spec.name);
    json_key(j, "action");
    json_str(j, f->ops->action);
    json_key(j, "host");
    json_str(j, f->spec.host);
    json_key(j, "at");
    json_seconds(j, f->spec.at_ns);
    json_key(j, "injected_at");
    json_seconds(j, f->injected_ns ? f->injected_ns : FL_TIME_UNKNOWN);
    json_key(j, "cleared_at");
    json_seconds(j, f->cleared_ns ? f->cleared_ns : FL_TIME_UNKNOWN);
    json_key(j, "applied");
    json_bool(j, f->applied);
    json_key(j, "apply_ms");
    json_num(j, (double)f->apply_ns / 1e6, 3);
    json_key(j, "steps");
    json_u64(j, f->steps_done);
    json_key(j, "detail");
    json_str(j, f->detail);
    const uint64_t(*ranges)[2];
    bool on_target;
    unsigned nranges = fault_overwrote(f, &ranges, &on_target);
    json_key(j, "transport");
    json_str(j, f->via ? f->via->transport : "local");
    json_key(j, "applied_by");
    if (f->remote)
        json_str(j, f->via_host); /* the host whose agent applied it */
    else
        json_null(j);
    json_key(j, "cleared_by"); /* controller, lease (the agent by itself), close, unconfirmed */
    if (f->cleared_by[0])
        json_str(j, f->cleared_by);
    else
        json_null(j);
    json_key(j, "indeterminate");
    json_bool(j, f->indeterminate);
    json_key(j, "drawn"); /* by [thrash] */
    json_bool(j, f->drawn);
    json_key(j, "settle_s"); /* settle = whole: its wait for the storage */
    if (f->settle_asked)
        json_num(j, (double)f->settle_ns / 1e9, 3);
    else
        json_null(j);
    json_key(j, "moved_s"); /* the settle waits before it */
    json_num(j, (double)f->shift_ns / 1e9, 3);
    json_key(j, "not_reached");
    json_bool(j, f->not_reached);
    const struct fault_miss *miss = report_missed(r, i);
    json_key(j, "happened"); /* as the scenario wrote it */
    json_bool(j, !miss);
    json_key(j, "not_happened_why");
    if (miss)
        json_str(j, miss->why);
    else
        json_null(j);
    json_key(j, "clear_failed");
    json_bool(j, f->clear_failed);
    if (nranges) {
        json_key(j, "ranges");
        json_arr_begin(j);
        for (unsigned k = 0; k < nranges; k++) {
            json_arr_begin(j);
            json_u64(j, ranges[k][0]);
            json_u64(j, ranges[k][1]);
            json_arr_end(j);
        }
        json_arr_end(j);
    }
    json_key(j, "error");
    if (f->error[0])
        json_str(j, f->error);
    else
        json_null(j);
    if (r->recovery)
        json_recovery(j, r, &r->recovery[i]);
    json_obj_end(j);
}

/* Whether a host with ssh was to be reached through its agent: not when
 * every fault on it runs here (a BMC's power-off, fault_on_controller). */
static bool agent_wanted(const struct report *r, const struct fault_host *h)
{
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct fault *f = &r->faults[i];
        if ((strcmp(f->spec.host, h->name) == 0 || strcmp(f->via_host, h->name) == 0) &&
            !fault_on_controller(f))
            return true;
    }
    return false;
}

/* How a host is reached: over ssh (its agent), into a namespace, or here. */
static const char *transport_of(const struct report *r, const struct fault_host *h)
{
    if (report_agent_of_host(r, h->name) || (h->ssh.dest[0] && agent_wanted(r, h)))
        return "ssh";
    return h->netns[0] ? "netns" : "local";
}

/* Per host the faults used: its transport, and over ssh the round trip and
 * clock offset measured at the start. */
static void json_hosts(struct json *j, const struct report *r)
{
    json_key(j, "hosts");
    json_arr_begin(j);
    for (unsigned i = 0; i < r->nhosts; i++) {
        const struct fault_host *h = &r->hosts[i];
        if (!report_host_used(r, h->name))
            continue;
        const struct remote_info *a = report_agent_of_host(r, h->name);
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, h->name);
        json_key(j, "transport");
        json_str(j, transport_of(r, h));
        if (a) {
            json_key(j, "ssh");
            json_str(j, a->dest);
            json_key(j, "rtt_ms");
            json_num(j, (double)a->rtt_ns / 1e6, 3);
            json_key(j, "clock_offset_ms");
            double off = (double)a->offset_ns / 1e6;
            json_num(j, off > -0.0005 && off < 0.0005 ? 0.0 : off, 3); /* no "-0" */
            json_key(j, "connect_s");
            json_num(j, (double)a->connect_ns / 1e9, 3);
            json_key(j, "agent_copied");
            json_bool(j, a->copied);
        }
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* Every fault, and how exactly the injections landed. */
static void json_faults(struct json *j, const struct report *r)
{
    json_hosts(j, r);
    json_key(j, "faults");
    json_arr_begin(j);
    for (unsigned i = 0; i < r->nfaults; i++)
        json_fault(j, r, i);
    json_arr_end(j);
    report_json_actions(j, r);
    json_key(j, "fault_timing");
    json_obj_begin(j);
    json_key(j, "injections");
    json_u64(j, r->injections);
    json_key(j, "p50_ms");
    json_num(j, r->inject_p50_ms, 3);
    json_key(j, "p99_ms");
    json_num(j, r->inject_p99_ms, 3);
    json_key(j, "max_ms");
    json_num(j, r->inject_max_ms, 3);
    json_key(j, "families");
    json_arr_begin(j);
    for (unsigned i = 0; i < r->nfamily_timing; i++) {
        const struct family_timing *ft = &r->family_timing[i];
        json_obj_begin(j);
        json_key(j, "action");
        json_str(j, ft->action);
        json_key(j, "injections");
        json_u64(j, ft->injections);
        json_key(j, "p50_ms");
        json_num(j, ft->p50_ms, 3);
        json_key(j, "p99_ms");
        json_num(j, ft->p99_ms, 3);
        json_key(j, "max_ms");
        json_num(j, ft->max_ms, 3);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_obj_end(j);
}

/* The metadata streams' operations by kind. */
static void json_metadata(struct json *j, const struct report *r)
{
    uint64_t ops[MOP_COUNT] = {0}, errors = 0;
    report_meta_totals(r, ops, &errors);
    json_key(j, "metadata");
    json_obj_begin(j);
    json_key(j, "streams");
    json_u64(j, r->nmeta);
    json_key(j, "errors");
    json_u64(j, errors);
    json_key(j, "ops");
    json_obj_begin(j);
    for (int k = 0; k < MOP_COUNT; k++) {
        json_key(j, meta_op_name((enum meta_op)k));
        json_u64(j, ops[k]);
    }
    json_obj_end(j);
    /* The longest time no metadata operation completed (this process's
     * streams; null where only the clients' counts came back, or in a
     * verify), and when: the metadata server's outage, apart from data I/O. */
    struct meta_gap g = {0, 0};
    bool ran = r->meta_streams && strcmp(r->mode, "run") == 0;
    uint64_t longest = ran ? meta_longest_gap(r->meta_streams, r->nmeta, 0, UINT64_MAX, &g) : 0;
    report_json_maybe(j, "max_stall_s", ran, report_secs(longest));
    report_json_maybe(j, "stall_from", ran && longest, report_secs(g.from_ns));
    report_json_maybe(j, "stall_to", ran && longest, report_secs(g.to_ns));
    /* The names' check and the streams' journals (this process's streams;
     * 0 where only the clients' counts came back). */
    uint64_t checked = 0, reverted = 0, shorter = 0, rebuilt = 0, records = 0, torn = 0,
             points = 0;
    for (unsigned i = 0; r->meta_streams && i < r->nmeta; i++) {
        const struct meta_stream *m = &r->meta_streams[i];
        checked += m->names_checked;
        reverted += m->names_reverted;
        shorter += m->sizes_short;
        rebuilt += m->rebuilt;
        records += m->journal_records;
        torn += m->journal_torn;
        points += m->durability_points;
    }
    const char *keys[] = {"names_checked", "names_reverted", "sizes_short", "rebuilt_from_journal",
                          "journal_records", "journal_torn", "durability_points"};
    const uint64_t vals[] = {checked, reverted, shorter, rebuilt, records, torn, points};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        json_key(j, keys[k]);
        json_u64(j, vals[k]);
    }
    json_obj_end(j);
}

/* An interface of this machine that is a bridge, or a port of one: some
 * lab's switch, not the client's cable (the resource plots leave it out). */
static bool bridged(const char *ifname)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/class/net/%s/brport", ifname);
    if (access(path, F_OK) == 0)
        return true;
    snprintf(path, sizeof path, "/sys/class/net/%s/bridge", ifname);
    return access(path, F_OK) == 0;
}

/* The machine's interfaces in resources.csv that are a switch's part. */
static void json_bridged(struct json *j, const struct resources *res)
{
    const char *machine = NULL;
    for (unsigned i = 0; i < res->nseries && !machine; i++)
        if (strcmp(res->series[i].kind, "cpu") == 0 && strcmp(res->series[i].name, "machine") == 0)
            machine = res->series[i].host;
    json_key(j, "bridged");
    json_arr_begin(j);
    for (unsigned i = 0; machine && i < res->nseries; i++) {
        const struct res_series *s = &res->series[i];
        if (strcmp(s->kind, "net") == 0 && strcmp(s->metric, "rx_bytes_per_s") == 0 &&
            strcmp(s->host, machine) == 0 && bridged(s->name))
            json_str(j, s->name);
    }
    json_arr_end(j);
}

/* How resources.csv was sampled, and what it does not say itself: the
 * period, the machine's CPUs, whether lab hosts' iowait is counted, why no
 * disk was sampled, the lab client's own interface, the machine's
 * interfaces that belong to a switch, each disk's role. */
static void json_resources(struct json *j, const struct resources *res)
{
    json_key(j, "resources");
    json_obj_begin(j);
    json_key(j, "file");
    json_str(j, "resources.csv");
    json_key(j, "period_s");
    json_num(j, report_secs(res->period_ns), 3);
    json_key(j, "samples");
    json_u64(j, res->nsamples);
    json_key(j, "cpus");
    json_u64(j, res->ncpus);
    json_key(j, "delayacct");
    json_bool(j, res->delayacct);
    json_key(j, "why_no_disk");
    json_str(j, res->why_no_disk);
    json_key(j, "client_if");
    json_str(j, res->client_if);
    json_bridged(j, res);
    json_key(j, "disks");
    json_arr_begin(j);
    for (unsigned i = 0; i < res->nseries; i++) {
        const struct res_series *s = &res->series[i];
        if (strcmp(s->kind, "disk") != 0 || strcmp(s->metric, "write_bytes_per_s") != 0)
            continue;
        json_obj_begin(j);
        json_key(j, "host");
        json_str(j, s->host);
        json_key(j, "name");
        json_str(j, s->name);
        json_key(j, "role");
        json_str(j, s->role);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_obj_end(j);
}

/* What the scenario said that the pages tell again: its file, its
 * description, the workload as set, the watchdog's limit. */
static void json_scenario_set(struct json *j, const struct report *r)
{
    const struct workload_cfg *w = &r->sc->workload;
    json_key(j, "scenario_file");
    json_str(j, r->sc->file);
    json_key(j, "scenario_description");
    json_str(j, r->sc->description);
    json_key(j, "hung_after_s");
    json_num(j, report_secs(r->sc->hung_after_ns), 3);
    json_key(j, "workload");
    json_obj_begin(j);
    json_key(j, "pattern");
    json_str(j, w->pattern == PATTERN_RANDOM ? "random" : "sequential");
    json_key(j, "read_pct");
    json_u64(j, w->read_pct);
    json_key(j, "depth");
    json_u64(j, w->depth);
    json_key(j, "flush_every");
    json_u64(j, w->flush_every);
    json_obj_end(j);
    if (r->resources)
        json_resources(j, r->resources);
}

/* The run's identity: verdict, mode, scenario, seed. */
static void json_head(struct json *j, const struct report *r)
{
    char when[64], runid[32];
    report_iso_time(r->meta->start_wall_ns, when, sizeof when);
    snprintf(runid, sizeof runid, "%016" PRIx64, r->meta->run_id);
    json_key(j, "verdict");
    json_str(j, report_verdict(r));
    json_key(j, "mode");
    json_str(j, r->mode);
    if (r->error) {
        json_key(j, "error");
        json_str(j, r->error);
    }
    json_key(j, "scenario");
    json_str(j, r->sc->name);
    json_key(j, "run_id");
    json_str(j, runid);
    json_key(j, "started_at");
    json_str(j, when);
    json_key(j, "seed");
    json_u64(j, r->seed);
    json_key(j, "interrupted");
    json_bool(j, r->interrupted);
    json_key(j, "interrupted_by");
    if (r->interrupted)
        json_str(j, report_signal_name(r->interrupt_signal));
    else
        json_null(j);
    json_key(j, "exit_status");
    json_i64(j, report_exit_code(r));
    json_key(j, "not_happened"); /* faults that did not happen as written, and why */
    json_arr_begin(j);
    for (size_t i = 0; r->verdict && i < r->verdict->nmissed; i++) {
        const struct fault_miss *m = &r->verdict->missed[i];
        json_obj_begin(j);
        json_key(j, "fault");
        json_str(j, r->faults[m->fault].spec.name);
        json_key(j, "action");
        json_str(j, r->faults[m->fault].ops->action);
        json_key(j, "why");
        json_str(j, m->why);
        json_key(j, "counts"); /* false: its time had not come when the run was interrupted */
        json_bool(j, m->counts);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_key(j, "workers");
    json_u64(j, r->workers);
}

int report_write_json(const struct report *r, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(r->dir, "report.json", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    struct json j;
    json_init(&j, f, true);
    json_obj_begin(&j);
    json_head(&j, r);
    json_expectations(&j, r);
    json_measured(&j, r);
    if (strcmp(r->mode, "run") == 0)
        json_outage(&j, r);
    if (r->verdict)
        json_corruption(&j, r->verdict);
    json_target(&j, r);
    json_findings(&j, r);
    json_key(&j, "io");
    report_json_io(&j, r->io);
    if (r->sweep) {
        json_key(&j, "sweep");
        report_json_io(&j, r->sweep);
    }
    if (r->prefill) {
        json_key(&j, "prefill");
        report_json_io(&j, r->prefill);
    }
    json_state(&j, r);
    json_faults(&j, r);
    json_key(&j, "doubtful_writes");
    json_u64(&j, r->doubtful_writes);
    json_power(&j, r);
    json_key(&j, "reverted_after_crash"); /* reads that found a write the run's crash lost */
    json_u64(&j, r->reverted_by_loss ? r->reverted_by_loss[0] : 0);
    if (r->nmeta)
        json_metadata(&j, r);
    report_json_clients(&j, r);
    json_key(&j, "path_events");
    json_arr_begin(&j);
    for (size_t i = 0; r->events && i < r->events->n; i++)
        if (r->events->list[i].portal[0])
            json_path_event(&j, &r->events->list[i]);
    json_arr_end(&j);
    json_key(&j, "crc32c");
    json_str(&j, r->crc_impl);
    json_scenario_set(&j, r);
    report_json_manifest(&j, r);
    json_obj_end(&j);
    fputc('\n', f);
    return report_install(f, tmp, r->dir, "report.json", err, errlen);
}

int report_write_events(const struct report *r, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/events.jsonl", r->dir);
    FILE *f = fopen(path, "a"); /* after the events of the run itself */
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    struct json j;
    for (size_t i = 0; i < r->findings->n; i++) {
        json_init(&j, f, false);
        json_obj_begin(&j);
        json_key(&j, "t");
        json_seconds(&j, r->findings->list[i].read_ns);
        json_key(&j, "event");
        json_str(&j, "finding");
        json_key(&j, "mode");
        json_str(&j, r->mode);
        json_key(&j, "finding");
        json_finding(&j, r, &r->findings->list[i]);
        json_obj_end(&j);
        fputc('\n', f);
    }
    json_init(&j, f, false);
    json_obj_begin(&j);
    json_key(&j, "event");
    json_str(&j, strcmp(r->mode, "run") == 0 ? "run-end" : "verify-end");
    json_key(&j, "verdict");
    json_str(&j, report_verdict(r));
    json_key(&j, "findings");
    json_u64(&j, findings_bad(r->findings));
    json_obj_end(&j);
    fputc('\n', f);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
