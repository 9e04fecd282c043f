/* report — see report.h. */
#include "report.h"
#include "report_paths.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../lib/json.h"
#include "../../lib/units.h"
#include "report_manifest.h"

const char *report_verdict(const struct report *r)
{
    if (r->error)
        return "error";
    if (r->verdict)
        return verdict_word(r->verdict);
    return findings_bad(r->findings) ? "fail" : "pass";
}

int report_exit_code(const struct report *r)
{
    if (r->error)
        return 2;
    if (r->verdict)
        return verdict_exit_code(r->verdict);
    return findings_bad(r->findings) ? 1 : 0;
}

const char *report_verdict_caps(const char *verdict)
{
    return strcmp(verdict, "pass") == 0          ? "PASS"
           : strcmp(verdict, "fail") == 0        ? "FAIL"
           : strcmp(verdict, "interrupted") == 0 ? "INTERRUPTED"
                                                 : "ERROR";
}

const char *report_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

const struct fault_miss *report_missed(const struct report *r, unsigned fault)
{
    for (size_t i = 0; r->verdict && i < r->verdict->nmissed; i++)
        if (r->verdict->missed[i].fault == fault)
            return &r->verdict->missed[i];
    return NULL;
}

void report_why_not_pass(const struct report *r, char *out, size_t n)
{
    out[0] = '\0';
    const struct verdict *v = r->verdict;
    if (r->error) {
        snprintf(out, n, "%s", r->error);
    } else if (v && v->outcome == OUTCOME_INTERRUPTED) {
        snprintf(out, n, "%s ended it early; what ran is reported, nothing about what did not",
                 report_signal_name(v->signal));
    } else if (v && v->outcome == OUTCOME_NOT_AS_WRITTEN) {
        size_t used = (size_t)snprintf(out, n, "not run as written: ");
        const char *sep = "";
        for (size_t i = 0; i < v->nmissed && used < n; i++) {
            const struct fault_miss *m = &v->missed[i];
            if (!m->counts)
                continue;
            used += (size_t)snprintf(out + used, n - used, "%s[fault %s] %s", sep,
                                     r->faults[m->fault].spec.name, m->why);
            sep = "; ";
        }
    }
}

bool report_event_in(const struct event *e, uint64_t from_ns, uint64_t to_ns)
{
    return e->portal[0] && e->t_ns >= 0 && (uint64_t)e->t_ns >= from_ns &&
           (uint64_t)e->t_ns <= to_ns;
}

static void iso_time(uint64_t wall_ns, char *out, size_t n)
{
    time_t t = (time_t)(wall_ns / 1000000000ull);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static double secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

static double iops(const struct io_stats *s)
{
    return s->ns ? (double)(s->reads + s->writes) / secs(s->ns) : 0;
}

static double mbps(const struct io_stats *s)
{
    return s->ns ? (double)(s->bytes_read + s->bytes_written) / 1e6 / secs(s->ns) : 0;
}

void report_json_io(struct json *j, const struct io_stats *s)
{
    json_obj_begin(j);
    json_key(j, "reads");
    json_u64(j, s->reads);
    json_key(j, "writes");
    json_u64(j, s->writes);
    json_key(j, "flushes");
    json_u64(j, s->flushes);
    json_key(j, "bytes_read");
    json_u64(j, s->bytes_read);
    json_key(j, "bytes_written");
    json_u64(j, s->bytes_written);
    json_key(j, "errors");
    json_u64(j, s->errors);
    json_key(j, "seconds");
    json_num(j, secs(s->ns), 3);
    json_key(j, "iops");
    json_num(j, iops(s), 0);
    json_key(j, "max_latency_s");
    json_num(j, secs(s->lat_max_ns), 6);
    json_obj_end(j);
}

void report_where(const struct report *r, const struct finding *f, char *path, size_t n,
                  uint64_t *offset)
{
    r->sc->backend->where(&r->sc->target, f->block, f->offset, f->path, path, n, offset);
}

static void meta_totals(const struct report *r, uint64_t *ops, uint64_t *errors)
{
    if (!r->meta_streams && r->meta_ops) { /* every client's, added up */
        for (int k = 0; k < MOP_COUNT; k++)
            ops[k] += r->meta_ops[k];
        *errors += r->meta_errors;
        return;
    }
    for (unsigned i = 0; i < r->nmeta; i++) {
        for (int k = 0; k < MOP_COUNT; k++)
            ops[k] += r->meta_streams[i].ops[k];
        *errors += r->meta_streams[i].errors;
    }
}

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

void report_json_maybe(struct json *j, const char *key, bool known, double v)
{
    json_key(j, key);
    if (known)
        json_num(j, v, 6);
    else
        json_null(j);
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

/* A metric's key in report.json (checks/metric.h). */
#define KEY(id) (metric_table[id].key)

/* A fault's recovery numbers (null where they could not be measured): its
 * metrics under their keys, and what tells more about them. */
static void json_recovery(struct json *j, const struct report *r, const struct recovery *x)
{
    report_json_maybe(j, KEY(F_IMPACT), x->injected && x->impact, x->impact_s);
    report_json_maybe(j, KEY(F_STALL), x->injected, x->stall_s);
    report_json_maybe(j, "stall_from", x->injected && x->stall_s > 0, secs(x->stall_from_ns));
    report_json_maybe(j, "stall_to", x->injected && x->stall_s > 0, secs(x->stall_to_ns));
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
    report_json_maybe(j, "metadata_stall_s", meta,
                      secs(meta ? meta_longest_gap(r->meta_streams, r->nmeta, x->inject_ns,
                                                   x->until_ns, NULL) : 0));
    report_json_maybe(j, "analysed_until", x->injected, secs(x->until_ns));
    json_key(j, "path_events");
    json_arr_begin(j);
    for (size_t i = 0; x->injected && r->events && i < r->events->n; i++)
        if (report_event_in(&r->events->list[i], x->inject_ns, x->until_ns))
            json_path_event(j, &r->events->list[i]);
    json_arr_end(j);
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

void report_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            /* XML 1.0 has no place for most control characters. */
            fputc(c < 0x20 && c != '\n' && c != '\t' ? '?' : c, f);
        }
    }
}

FILE *report_open_tmp(const char *dir, const char *name, char *tmp, size_t n, char *err,
                      size_t errlen)
{
    snprintf(tmp, n, "%s/.%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
    return f;
}

int report_install(FILE *f, const char *tmp, const char *dir, const char *name, char *err,
                   size_t errlen)
{
    char fin[PATH_MAX + 64];
    snprintf(fin, sizeof fin, "%s/%s", dir, name);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    if (rename(tmp, fin) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, fin, strerror(errno));
        return -1;
    }
    return 0;
}

/* The outage as measured: time zero, the baseline, the longest stall. */
static void json_outage(struct json *j, const struct report *r)
{
    json_key(j, "t0_wall");
    json_num(j, (double)r->t0_wall_ns / 1e9, 6);
    json_key(j, "workload_end");
    json_num(j, secs(r->end_ns), 6);
    json_key(j, "bucket_s");
    json_num(j, r->series ? secs(r->series->width_ns) : 0, 3);
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
    json_num(j, secs(r->baseline.from_ns), 3);
    json_key(j, "to");
    json_num(j, secs(r->baseline.to_ns), 3);
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

/* How a host is reached: over ssh (its agent), into a namespace, or here. */
static const struct remote_info *agent_of_host(const struct report *r, const char *name)
{
    for (unsigned i = 0; i < r->nagents; i++)
        if (strcmp(r->agents[i].host, name) == 0)
            return &r->agents[i];
    return NULL;
}

static bool host_used(const struct report *r, const char *name)
{
    for (unsigned i = 0; i < r->nfaults; i++)
        if (strcmp(r->faults[i].spec.host, name) == 0 ||
            strcmp(r->faults[i].via_host, name) == 0)
            return true;
    return false;
}

static const char *transport_of(const struct report *r, const struct fault_host *h)
{
    return agent_of_host(r, h->name) ? "ssh" : h->ssh.dest[0] ? "ssh" : h->netns[0] ? "netns"
                                                                                    : "local";
}

/* Per host the faults used: its transport, and over ssh the round trip and
 * clock offset measured at the start. */
static void json_hosts(struct json *j, const struct report *r)
{
    json_key(j, "hosts");
    json_arr_begin(j);
    for (unsigned i = 0; i < r->nhosts; i++) {
        const struct fault_host *h = &r->hosts[i];
        if (!host_used(r, h->name))
            continue;
        const struct remote_info *a = agent_of_host(r, h->name);
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
    meta_totals(r, ops, &errors);
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
    report_json_maybe(j, "max_stall_s", ran, secs(longest));
    report_json_maybe(j, "stall_from", ran && longest, secs(g.from_ns));
    report_json_maybe(j, "stall_to", ran && longest, secs(g.to_ns));
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

/* The run's identity: verdict, mode, scenario, seed. */
static void json_head(struct json *j, const struct report *r)
{
    char when[64], runid[32];
    iso_time(r->meta->start_wall_ns, when, sizeof when);
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

static int write_json(const struct report *r, char *err, size_t errlen)
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
    report_json_manifest(&j, r);
    json_obj_end(&j);
    fputc('\n', f);
    return report_install(f, tmp, r->dir, "report.json", err, errlen);
}

static void fmt_time(uint64_t ns, char *out, size_t n)
{
    if (ns == FL_TIME_UNKNOWN)
        snprintf(out, n, "?");
    else
        snprintf(out, n, "%.3f s", secs(ns));
}

static void text_io(FILE *f, const char *label, const struct io_stats *s)
{
    fprintf(f, "  %-10s %.1f s: %" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64
               " flushes, %" PRIu64 " errors; %.0f IOPS, %.1f MB/s, slowest %.1f ms\n",
            label, secs(s->ns), s->reads, s->writes, s->flushes, s->errors, iops(s), mbps(s),
            (double)s->lat_max_ns / 1e6);
}

/* Every bad read was on a block a corrupt fault overwrote. */
static bool all_explained(const struct report *r)
{
    if (!r->verdict)
        return false;
    for (int c = 0; c < CLS_COUNT; c++)
        if (class_is_finding((enum fl_class)c) && r->verdict->unexplained[c])
            return false;
    return true;
}

/* "0.214 s", or "-" for what could not be measured. */
static void fmt_maybe(bool known, double s, char *out, size_t n)
{
    if (known)
        snprintf(out, n, "%.3f s", s);
    else
        snprintf(out, n, "-");
}

/* One line of recovery numbers under a fault. */
static void text_recovery(FILE *f, const struct report *r, const struct recovery *x)
{
    if (!x->injected)
        return;
    char imp[32], stall[32], rec[32], fi[32], fc[32];
    fmt_maybe(x->impact, x->impact_s, imp, sizeof imp);
    fmt_maybe(true, x->stall_s, stall, sizeof stall);
    fmt_maybe(x->recovered, x->recovery_s, rec, sizeof rec);
    fmt_maybe(x->io_after_inject, x->first_io_after_inject_s, fi, sizeof fi);
    fmt_maybe(x->io_after_clear, x->first_io_after_clear_s, fc, sizeof fc);
    fprintf(f, "      impact %s, stall %s, recovery %s%s, %" PRIu64 " errors, slowest I/O %.3f s, "
               "first I/O after inject %s, after clear %s\n",
            imp, stall, rec, x->clear_failed ? " (its clear failed: none is claimed)"
                             : x->recovered ? "" : " (not recovered)",
            x->errors, x->max_latency_s, fi, fc);
    if (x->latency_known)
        fprintf(f, "      latency p50 %.3f s, p99 %.3f s, max %.3f s (I/Os completed from the "
                   "inject to the recovery)\n", x->latency_p50_s, x->latency_p99_s,
                x->latency_max_s);
    struct meta_gap g;
    uint64_t mstall = r->meta_streams && strcmp(r->mode, "run") == 0
                          ? meta_longest_gap(r->meta_streams, r->nmeta, x->inject_ns,
                                             x->until_ns, &g)
                          : 0;
    if (mstall)
        fprintf(f, "      metadata stall %.3f s (no metadata operation done from %.3f to "
                   "%.3f s)\n", secs(mstall), secs(g.from_ns), secs(g.to_ns));
    if (x->heal_measured && x->healed)
        fprintf(f, "      %sed %.3f s after the clear (%s)\n", x->heal_word, x->heal_s,
                x->heal_whole);
    else if (x->heal_measured)
        fprintf(f, "      NOT %sed within heal_wait: the %s event (events.jsonl) says what was "
                   "left (whole: %s)\n", x->heal_word, x->heal_word, x->heal_whole);
    size_t shown = 0;
    for (size_t i = 0; r->events && i < r->events->n; i++) {
        const struct event *e = &r->events->list[i];
        if (!report_event_in(e, x->inject_ns, x->until_ns))
            continue;
        if (shown++ < 6)
            fprintf(f, "      %8.3f s  path %-12s %s\n", (double)e->t_ns / 1e9, e->event,
                    e->portal);
    }
    if (shown > 6)
        fprintf(f, "      (and %zu more path events in report.json)\n", shown - 6);
}

static void text_faults(FILE *f, const struct report *r)
{
    if (!r->nfaults)
        return;
    unsigned happened = r->nfaults - (unsigned)(r->verdict ? r->verdict->nmissed : 0);
    fprintf(f, "\n  faults: %u of %u happened as written", happened, r->nfaults);
    if (r->injections)
        fprintf(f, " (%u inject step%s, %.3f ms after their time at p50, %.3f ms at p99)",
                r->injections, r->injections == 1 ? "" : "s", r->inject_p50_ms,
                r->inject_p99_ms);
    if (r->baseline.known)
        fprintf(f, "; baseline %.0f IOPS (median of %.1f..%.1f s):\n", r->baseline.iops,
                secs(r->baseline.from_ns), secs(r->baseline.to_ns));
    else if (r->recovery)
        fprintf(f, "; no baseline (no healthy time between warmup and the first fault):\n");
    else
        fprintf(f, ":\n");
    for (unsigned i = 0; i < r->nhosts; i++) {
        const struct fault_host *h = &r->hosts[i];
        const struct remote_info *a = agent_of_host(r, h->name);
        if (a && host_used(r, h->name))
            fprintf(f, "    host %-11s over ssh %s: round trip %.3f ms, clock offset %+.3f ms, "
                    "agent %s\n", h->name, a->dest, (double)a->rtt_ns / 1e6,
                    (double)a->offset_ns / 1e6, a->copied ? "copied over" : "up to date");
    }
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct fault *x = &r->faults[i];
        char when[96];
        const struct fault_miss *miss = report_missed(r, i);
        if (!x->applied)
            snprintf(when, sizeof when, "NOT INJECTED");
        else if (x->cleared_ns && x->cleared_ns != x->injected_ns)
            snprintf(when, sizeof when, "%.3f s .. %.3f s", (double)x->injected_ns / 1e9,
                     (double)x->cleared_ns / 1e9);
        else
            snprintf(when, sizeof when, "%.3f s", (double)x->injected_ns / 1e9);
        char by[160] = "";
        if (x->remote && x->applied)
            snprintf(by, sizeof by, "; through the agent on %s, cleared by %s", x->via_host,
                     x->cleared_by[0] ? x->cleared_by : "-");
        else if (x->remote)
            snprintf(by, sizeof by, "; through the agent on %s", x->via_host);
        /* What the fault does, said as planned when it did not happen. */
        fprintf(f, "    %-16s %-11s at %7.3f s: %s; %s%s%s\n", x->spec.name, x->ops->action,
                (double)x->spec.at_ns / 1e9, when, x->applied ? "" : "planned: ",
                x->detail[0] ? x->detail : x->spec.host, by);
        if (miss)
            fprintf(f, "      NOT AS WRITTEN: %s\n", miss->why);
        if (r->recovery)
            text_recovery(f, r, &r->recovery[i]);
    }
}

static void text_expectations(FILE *f, const struct report *r)
{
    if (!r->verdict)
        return;
    fprintf(f, "  expectations %zu of %zu hold\n", r->verdict->n - r->verdict->failed,
            r->verdict->n);
    for (size_t i = 0; i < r->verdict->n; i++) {
        const struct expect_result *x = &r->verdict->results[i];
        char line[256], where[96] = "";
        verdict_describe(x, line, sizeof line);
        if (x->rule.fault >= 0 && (unsigned)x->rule.fault < r->nfaults)
            snprintf(where, sizeof where, "[fault %s] ", r->faults[x->rule.fault].spec.name);
        fprintf(f, "    %s %s%s\n", x->pass ? "pass" : "FAIL", where, line);
    }
    if (r->verdict->corrupted_blocks)
        fprintf(f, "  corruption %" PRIu64 " blocks overwritten by corrupt faults: %" PRIu64
                   " detected, %" PRIu64 " not\n",
                r->verdict->corrupted_blocks, r->verdict->detected_corrupt,
                r->verdict->undetected_corrupt);
}

static int write_text(const struct report *r, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(r->dir, "report.txt", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    const char *v = report_verdict(r);
    fprintf(f, "%s %s: %s\n", strcmp(r->mode, "run") == 0 ? "run" : "verify of", r->sc->name,
            report_verdict_caps(v));
    if (r->error)
        fprintf(f, "  error      %s\n", r->error);
    if (r->interrupted)
        fprintf(f, "  interrupted by %s: the %s was cut short; nothing is said of what did not "
                   "run\n", report_signal_name(r->interrupt_signal),
                strcmp(r->mode, "run") == 0 ? "run" : "verify pass");
    for (size_t i = 0; r->verdict && i < r->verdict->nmissed; i++) {
        const struct fault_miss *m = &r->verdict->missed[i];
        fprintf(f, "  %-16s [fault %s] %s%s\n", i ? "" : "not as written", 
                r->faults[m->fault].spec.name, m->why,
                m->counts ? "" : " (the interruption's doing)");
    }
    text_expectations(f, r);
    uint64_t bad = findings_bad(r->findings);
    uint64_t distinct = r->findings->n + r->findings->unlisted;
    if (!bad)
        fprintf(f, "  findings   0 (no acknowledged data was lost or corrupted)\n");
    else
        fprintf(f, "  findings   %" PRIu64 " (%" PRIu64 " bad reads or I/Os%s)\n", distinct, bad,
                all_explained(r) ? ", all on blocks the corrupt faults overwrote" : "");
    if (r->hung)
        fprintf(f, "  hung       %" PRIu64 " I/Os outstanding longer than hung_after (%.1f s)%s\n",
                r->hung, secs(r->sc->hung_after_ns),
                r->abandoned ? "; the workers waiting on them were left behind" : "");
    if (r->recovery && r->max_stall_s >= 0)
        fprintf(f, "  max stall  %.3f s without a successful I/O\n", r->max_stall_s);
    text_faults(f, r);
    report_text_clients(f, r);
    fprintf(f, "\n");
    char when[64], size[64], bs[64];
    iso_time(r->meta->start_wall_ns, when, sizeof when);
    format_size(r->capacity, size, sizeof size);
    format_size(r->meta->block_size, bs, sizeof bs);
    fprintf(f, "  scenario   %s\n", r->sc->file);
    fprintf(f, "  target     %s, %s = %" PRIu64 " blocks of %s\n",
            r->target_desc ? r->target_desc : r->sc->target.path, size, r->meta->nblocks, bs);
    fprintf(f, "  run        id %016" PRIx64 ", seed %" PRIu64 ", started %s%s\n",
            r->meta->run_id, r->seed, when, r->interrupted ? ", INTERRUPTED" : "");
    if (strcmp(r->mode, "run") == 0) {
        const struct workload_cfg *w = &r->sc->workload;
        fprintf(f, "  workload   %s, %u%% reads, depth %u on %u worker%s, flush every %u writes "
                   "per worker%s\n",
                w->pattern == PATTERN_RANDOM ? "random" : "sequential", w->read_pct, w->depth,
                r->workers, r->workers == 1 ? "" : "s", w->flush_every,
                w->flush_every ? "" : " (only at the end)");
        if (r->prefill)
            text_io(f, "prefill", r->prefill);
        text_io(f, "io", r->io);
        if (r->sweep)
            text_io(f, "sweep", r->sweep);
        if (r->series)
            fprintf(f, "  timeline   timeline.csv, %.0f ms buckets; plots in report.html\n",
                    (double)r->series->width_ns / 1e6);
    } else {
        fprintf(f, "  state      %s; %" PRIu64 " journal records replayed\n",
                r->state_final ? "the run ended cleanly" : "the run did not end cleanly "
                                                           "(crash or kill): pending writes "
                                                           "may or may not be on the media",
                r->replayed);
        text_io(f, "verify", r->io);
    }
    fprintf(f, "  state map  %.2f bytes per block at rest, %zu pending at most\n",
            r->meta->nblocks ? (double)r->map_bytes_at_rest / (double)r->meta->nblocks : 0.0,
            r->pending_peak);
    if (r->nmeta) {
        uint64_t ops[MOP_COUNT] = {0}, errors = 0, all = 0;
        meta_totals(r, ops, &errors);
        for (int k = 0; k < MOP_COUNT; k++)
            all += ops[k];
        if (strcmp(r->mode, "verify") != 0) { /* a verify runs no operation */
            fprintf(f, "  metadata   %" PRIu64 " operations in %u streams (", all, r->nmeta);
            for (int k = 0; k < MOP_COUNT; k++)
                fprintf(f, "%s%s %" PRIu64, k ? ", " : "", meta_op_name((enum meta_op)k),
                        ops[k]);
            fprintf(f, "), %" PRIu64 " failed\n", errors);
            struct meta_gap g;
            uint64_t longest =
                r->meta_streams ? meta_longest_gap(r->meta_streams, r->nmeta, 0, UINT64_MAX, &g)
                                : 0;
            if (longest)
                fprintf(f, "             longest with no metadata operation done: %.3f s "
                           "(%.3f-%.3f s)\n",
                        secs(longest), secs(g.from_ns), secs(g.to_ns));
        }
        uint64_t checked = 0, reverted = 0, shorter = 0;
        unsigned rebuilt = 0;
        for (unsigned i = 0; r->meta_streams && i < r->nmeta; i++) {
            checked += r->meta_streams[i].names_checked;
            reverted += r->meta_streams[i].names_reverted;
            shorter += r->meta_streams[i].sizes_short;
            rebuilt += r->meta_streams[i].rebuilt;
        }
        if (rebuilt)
            fprintf(f, "  names      %" PRIu64 " checked; %u of %u models rebuilt from their "
                       "journals after a crash: %" PRIu64 " names changed after the last "
                       "durability point found as before (an operation the crash cut off or "
                       "took back), %" PRIu64 " files shorter (allowed)\n",
                    checked, rebuilt, r->nmeta, reverted, shorter);
    }
    if (r->doubtful_writes)
        fprintf(f, "  doubtful   %" PRIu64 " writes completed only after a reissue on another "
                   "path: either generation allowed until rewritten\n",
                r->doubtful_writes);
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct fault *x = &r->faults[i];
        if (!x->power_loss)
            continue;
        fprintf(f, "  power      [fault %s] at %.3f s: %" PRIu64 " blocks had writes not yet "
                   "durable; %" PRIu64 " reads found one of them reverted (allowed)\n",
                x->spec.name, (double)x->injected_ns / 1e9,
                r->at_risk ? r->at_risk[x->power_loss - 1] : 0,
                r->reverted_by_loss ? r->reverted_by_loss[x->power_loss] : 0);
    }
    if (r->reverted_by_loss && r->reverted_by_loss[0])
        fprintf(f, "  reverted   %" PRIu64 " reads found a write acknowledged before the run's "
                   "crash but never flushed missing (allowed)\n",
                r->reverted_by_loss[0]);
    report_text_manifest(f, r);
    size_t npath = 0;
    for (size_t i = 0; r->events && i < r->events->n; i++)
        npath += r->events->list[i].portal[0] != 0;
    if (npath) {
        fprintf(f, "\n  path events:\n");
        for (size_t i = 0; i < r->events->n; i++) {
            const struct event *e = &r->events->list[i];
            if (e->portal[0])
                fprintf(f, "    %8.3f s  w%u  %-15s %s  %s\n", (double)e->t_ns / 1e9, e->worker,
                        e->event, e->portal, e->detail);
        }
    }
    fprintf(f, "\n  reads by class:");
    for (int c = 0; c < CLS_COUNT; c++)
        fprintf(f, " %s %" PRIu64 "%s", class_name((enum fl_class)c), r->findings->counts[c],
                c + 1 < CLS_COUNT ? "," : "\n");

    if (bad) {
        fprintf(f, "\nFindings by class:\n");
        for (int c = 0; c < CLS_COUNT; c++) {
            if (!class_is_finding((enum fl_class)c) || !r->findings->counts[c])
                continue;
            fprintf(f, "\n  %s (%" PRIu64 ")", class_name((enum fl_class)c),
                    r->findings->counts[c]);
            if (r->verdict && r->verdict->explained[c])
                fprintf(f, ", %" PRIu64 " of them on blocks a corrupt fault overwrote",
                        r->verdict->explained[c]);
            fprintf(f, "\n");
            for (size_t i = 0; i < r->findings->n; i++) {
                const struct finding *x = &r->findings->list[i];
                if (x->cls != (enum fl_class)c)
                    continue;
                char wt[32], rt[32], found[16];
                fmt_time(x->written_ns, wt, sizeof wt);
                fmt_time(x->read_ns, rt, sizeof rt);
                if (x->found_known)
                    snprintf(found, sizeof found, "%u", x->found_gen);
                else
                    snprintf(found, sizeof found, "-");
                char gens[96];
                if (x->cls == CLS_CORRUPT && x->found_known && x->found_gen == x->expected_gen)
                    snprintf(gens, sizeof gens, "generation %u as expected, but damaged",
                             x->expected_gen); /* the detail says where */
                else
                    snprintf(gens, sizeof gens, "expected gen %u, found %s", x->expected_gen,
                             found);
                char again[64] = "";
                if (x->repeats)
                    snprintf(again, sizeof again, " (and %" PRIu64 " more times, last at %.3f s)",
                             x->repeats, (double)x->last_read_ns / 1e9);
                char where[PATH_MAX + 900];
                uint64_t offset;
                report_where(r, x, where, sizeof where, &offset);
                if (r->sc->target.ranks > 1) { /* whose it is, and who read it */
                    size_t len = strlen(where);
                    if (x->client >= 0 && x->client != x->owner)
                        snprintf(where + len, sizeof where - len, " (client %d's, read by "
                                 "client %d)", x->owner, x->client);
                    else
                        snprintf(where + len, sizeof where - len, " (client %d's)", x->owner);
                }
                if (x->block == FL_NO_BLOCK && x->written_ns == FL_TIME_UNKNOWN)
                    fprintf(f, "    %s (%s): %s; seen at %s\n", where, x->phase, x->detail, rt);
                else if (x->block == FL_NO_BLOCK)
                    fprintf(f, "    %s (%s, after %s at %s): %s; seen at %s\n", where, x->phase,
                            x->op, wt, x->detail, rt);
                else
                    fprintf(f, "    block %" PRIu64 " at byte %" PRIu64 " of %s (%s %s): %s; "
                               "written at %s, read at %s%s\n      %s\n",
                            x->block, offset, where, x->phase, x->op, gens, wt, rt, again,
                            x->detail);
            }
        }
        if (r->findings->unlisted)
            fprintf(f, "\n  %" PRIu64 " more findings not listed (findings_limit)\n",
                    r->findings->unlisted);
    }
    return report_install(f, tmp, r->dir, "report.txt", err, errlen);
}

static int write_events(const struct report *r, char *err, size_t errlen)
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

int report_write_refusal(const char *dir, const struct scenario *sc, const char *why, char *err,
                         size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, "report.json", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    struct json j;
    json_init(&j, f, true);
    json_obj_begin(&j);
    json_key(&j, "verdict");
    json_str(&j, "error");
    json_key(&j, "mode");
    json_str(&j, "run");
    json_key(&j, "started"); /* false: the workload never ran; nothing was measured */
    json_bool(&j, false);
    json_key(&j, "error");
    json_str(&j, why);
    json_key(&j, "exit_status");
    json_i64(&j, 2);
    json_key(&j, "scenario");
    json_str(&j, sc->name);
    json_key(&j, "scenario_file");
    json_str(&j, sc->file);
    json_obj_end(&j);
    fputc('\n', f);
    if (report_install(f, tmp, dir, "report.json", err, errlen) != 0 ||
        !(f = report_open_tmp(dir, "report.txt", tmp, sizeof tmp, err, errlen)))
        return -1;
    fprintf(f, "run %s: ERROR\n  could not start: %s\n  nothing ran and nothing was measured; "
               "the scenario is %s\n", sc->name, why, sc->file);
    if (report_install(f, tmp, dir, "report.txt", err, errlen) != 0 ||
        !(f = report_open_tmp(dir, "junit.xml", tmp, sizeof tmp, err, errlen)))
        return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"faultline\" "
               "tests=\"1\" failures=\"0\" errors=\"1\" time=\"0\">\n  <testsuite name=\"");
    report_escape(f, sc->name);
    fprintf(f, "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n"
               "    <testcase classname=\"faultline.");
    report_escape(f, sc->name);
    fprintf(f, "\" name=\"run\" time=\"0\">\n      <error message=\"could not start: ");
    report_escape(f, why);
    fprintf(f, "\" type=\"error\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
    return report_install(f, tmp, dir, "junit.xml", err, errlen);
}

int report_write(const struct report *r, char *err, size_t errlen)
{
    if (write_json(r, err, errlen) != 0 || write_text(r, err, errlen) != 0 ||
        write_events(r, err, errlen) != 0 || report_write_junit(r, err, errlen) != 0)
        return -1;
    if (report_write_html(r, err, errlen) != 0) /* a verify's page too (report_html.c) */
        return -1;
    return 0;
}

void report_summary(const struct report *r, FILE *out)
{
    const char *v = report_verdict(r);
    fprintf(out, "%s: %s", r->sc->name, report_verdict_caps(v));
    uint64_t bad = findings_bad(r->findings);
    uint64_t distinct = r->findings->n + r->findings->unlisted;
    char why[4096];
    report_why_not_pass(r, why, sizeof why);
    if (why[0])
        fprintf(out, " (%s)", why);
    else if (r->interrupted) /* a run that found something, then was stopped */
        fprintf(out, " (interrupted by %s)", report_signal_name(r->interrupt_signal));
    fprintf(out, ", %" PRIu64 " finding%s", distinct, distinct == 1 ? "" : "s");
    bool first = true;
    for (int c = 0; c < CLS_COUNT; c++) {
        uint64_t k = 0;
        for (size_t i = 0; i < r->findings->n; i++)
            k += r->findings->list[i].cls == (enum fl_class)c;
        if (!class_is_finding((enum fl_class)c) || !k)
            continue;
        fprintf(out, "%s%s %" PRIu64, first ? " (" : ", ", class_name((enum fl_class)c), k);
        first = false;
    }
    if (!first)
        fputc(')', out);
    if (bad != distinct)
        fprintf(out, " in %" PRIu64 " bad reads or I/Os", bad);
    fprintf(out, "; %.0f IOPS over %.1f s%s\n", iops(r->io), secs(r->io->ns),
            r->interrupted ? " (cut short)" : "");
    if (r->verdict && r->verdict->n) {
        fprintf(out, "expectations: %zu of %zu hold\n", r->verdict->n - r->verdict->failed,
                r->verdict->n);
        for (size_t i = 0; i < r->verdict->n; i++) {
            char line[256];
            if (r->verdict->results[i].pass)
                continue;
            verdict_describe(&r->verdict->results[i], line, sizeof line);
            fprintf(out, "  FAIL %s\n", line);
        }
    }
    for (unsigned i = 0; r->recovery && i < r->nfaults; i++) {
        const struct recovery *x = &r->recovery[i];
        if (!x->injected)
            continue;
        char rec[48];
        if (x->clear_failed)
            snprintf(rec, sizeof rec, "- (its clear failed)");
        else
            fmt_maybe(x->recovered, x->recovery_s, rec, sizeof rec);
        char heal[48] = "";
        if (x->heal_measured && x->healed)
            snprintf(heal, sizeof heal, ", %sed after %.1f s", x->heal_word, x->heal_s);
        else if (x->heal_measured)
            snprintf(heal, sizeof heal, ", NOT %sed", x->heal_word);
        fprintf(out, "fault %s (%s): stall %.3f s, recovery %s%s, %" PRIu64 " errors\n",
                r->faults[i].spec.name, r->faults[i].ops->action, x->stall_s, rec, heal,
                x->errors);
    }
    if (r->hung)
        fprintf(out, "hung: %" PRIu64 " I/Os outstanding longer than %.1f s\n", r->hung,
                secs(r->sc->hung_after_ns));
    fprintf(out, "report: %s/report.txt\n", r->dir);
    if (strcmp(r->mode, "run") == 0)
        fprintf(out, "plots: %s/report.html\n", r->dir);
}
