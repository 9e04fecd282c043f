/* result_read — report.json read back into a struct result (see result.h). */
#include "result.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../checks/findings.h"
#include "../../checks/metric.h"
#include "../../lib/jread.h"

/* A fault metric's key in report.json (checks/metric.h): the table names it. */
#define KEY(id) (metric_table[id].key)

/* What the reading of one document shares: whether memory ran out. */
struct reader {
    bool oom;
};

static char *dup_str(struct reader *rd, const struct jv *v)
{
    const char *s = jv_str(v);
    if (!s)
        return NULL;
    char *d = strdup(s);
    rd->oom |= !d;
    return d;
}

/* A string member that is never NULL in the record ("" when absent). */
static char *dup_or_empty(struct reader *rd, const struct jv *v)
{
    char *d = dup_str(rd, v);
    if (d || rd->oom)
        return d;
    d = strdup("");
    rd->oom |= !d;
    return d;
}

static void *alloc_items(struct reader *rd, size_t n, size_t size)
{
    if (!n)
        return NULL;
    void *p = calloc(n, size);
    rd->oom |= !p;
    return p;
}

static double num(const struct jv *v)
{
    double d = 0;
    jv_num(v, &d);
    return d;
}

/* A whole number, exact to 64 bits (jv keeps the digits as written). */
static uint64_t u64(const struct jv *v)
{
    if (!v || v->type != JV_NUM)
        return 0;
    if (v->str && v->str[0] != '-' && !strpbrk(v->str, ".eE"))
        return strtoull(v->str, NULL, 10);
    return v->num > 0 ? (uint64_t)v->num : 0;
}

static bool flag(const struct jv *v)
{
    bool b = false;
    jv_bool(v, &b);
    return b;
}

static struct result_time maybe(const struct jv *v)
{
    struct result_time t = {false, 0};
    t.known = jv_num(v, &t.s);
    return t;
}

static void read_io(const struct jv *v, struct result_io *io)
{
    memset(io, 0, sizeof *io);
    if (!v || v->type != JV_OBJ)
        return;
    io->present = true;
    io->reads = u64(jv_get(v, "reads"));
    io->writes = u64(jv_get(v, "writes"));
    io->flushes = u64(jv_get(v, "flushes"));
    io->bytes_read = u64(jv_get(v, "bytes_read"));
    io->bytes_written = u64(jv_get(v, "bytes_written"));
    io->errors = u64(jv_get(v, "errors"));
    io->max_latency_s = num(jv_get(v, "max_latency_s"));
    io->iops = num(jv_get(v, "iops")); /* as written: compare shows it */
    if (jv_get(v, "ns"))
        io->ns = u64(jv_get(v, "ns"));
    else /* an older report: its seconds, to the ms */
        io->ns = (uint64_t)(num(jv_get(v, "seconds")) * 1e9 + 0.5);
}

static void read_events(struct reader *rd, const struct jv *arr, struct result_event **out,
                        size_t *n)
{
    *n = jv_len(arr);
    *out = alloc_items(rd, *n, sizeof **out);
    if (!*out) {
        *n = 0;
        return;
    }
    for (size_t i = 0; i < *n; i++) {
        const struct jv *e = jv_at(arr, i);
        struct result_event *x = &(*out)[i];
        x->t = num(jv_get(e, "t"));
        x->worker = (unsigned)u64(jv_get(e, "worker"));
        x->event = dup_or_empty(rd, jv_get(e, "event"));
        x->portal = dup_or_empty(rd, jv_get(e, "portal"));
        x->detail = dup_or_empty(rd, jv_get(e, "detail"));
    }
}

/* Every number or null member of an object, by key. */
static void read_values(struct reader *rd, const struct jv *obj, struct result_value **out,
                        size_t *n)
{
    *n = 0;
    *out = alloc_items(rd, jv_len(obj), sizeof **out);
    for (size_t i = 0; *out && obj && i < obj->n; i++) {
        const struct jv *v = &obj->item[i];
        if (v->type != JV_NUM && v->type != JV_NULL)
            continue;
        struct result_value *x = &(*out)[(*n)++];
        x->key = strdup(obj->key[i]);
        rd->oom |= !x->key;
        x->known = jv_num(v, &x->v);
    }
}

static void read_expectations(struct reader *rd, const struct jv *doc, struct result *res)
{
    const struct jv *arr = jv_get(doc, "expectations");
    res->nexpect = jv_len(arr);
    res->expect = alloc_items(rd, res->nexpect, sizeof *res->expect);
    if (!res->expect)
        res->nexpect = 0;
    for (size_t i = 0; i < res->nexpect; i++) {
        const struct jv *e = jv_at(arr, i);
        struct result_expect *x = &res->expect[i];
        x->text = dup_or_empty(rd, jv_get(e, "expect"));
        x->metric = dup_or_empty(rd, jv_get(e, "metric"));
        x->fault = dup_str(rd, jv_get(e, "fault"));
        x->op = dup_or_empty(rd, jv_get(e, "op"));
        x->why = dup_or_empty(rd, jv_get(e, "why"));
        x->value = num(jv_get(e, "value"));
        x->known = jv_num(jv_get(e, "measured"), &x->measured);
        const char *unit = jv_str(jv_get(e, "unit"));
        x->seconds = unit && strcmp(unit, "s") == 0;
        x->pass = flag(jv_get(e, "pass"));
        x->line = (int)u64(jv_get(e, "line"));
        res->failed += !x->pass;
    }
}

/* A fault's recovery numbers (null where they could not be measured). */
static void read_recovery(struct reader *rd, const struct jv *f, struct result_fault *x)
{
    x->analysed = maybe(jv_get(f, "analysed_until")).known;
    x->impact = maybe(jv_get(f, KEY(F_IMPACT)));
    x->stall = maybe(jv_get(f, KEY(F_STALL)));
    x->recovery = maybe(jv_get(f, KEY(F_RECOVERY)));
    x->first_io_after_inject = maybe(jv_get(f, KEY(F_FIRST_IO_AFTER_INJECT)));
    x->first_io_after_clear = maybe(jv_get(f, KEY(F_FIRST_IO_AFTER_CLEAR)));
    x->errors = u64(jv_get(f, KEY(F_ERRORS)));
    x->max_latency_s = num(jv_get(f, KEY(F_MAX_LATENCY)));
    x->latency_known = jv_num(jv_get(f, "latency_p50_s"), &x->latency_p50_s);
    x->latency_p99_s = num(jv_get(f, "latency_p99_s"));
    x->latency_max_s = num(jv_get(f, "latency_max_s"));
    x->metadata_stall = maybe(jv_get(f, "metadata_stall_s"));
    x->metadata_stall_from = maybe(jv_get(f, "metadata_stall_from"));
    x->metadata_stall_to = maybe(jv_get(f, "metadata_stall_to"));
    x->heal_word = dup_str(rd, jv_get(f, "heal_word"));
    x->heal_measured = x->heal_word != NULL;
    x->healed = flag(jv_get(f, "healed"));
    x->heal_whole = dup_or_empty(rd, jv_get(f, "heal_whole"));
    struct result_time h = maybe(jv_get(f, KEY(F_HEAL)));
    if (!h.known)
        h = maybe(jv_get(f, KEY(F_RECOVER)));
    x->heal_s = h.s;
    read_events(rd, jv_get(f, "path_events"), &x->events, &x->nevents);
    const struct jv *fo = jv_get(f, "failover");
    if ((x->failover = fo && fo->type == JV_OBJ)) {
        x->failover_noticed_by = dup_or_empty(rd, jv_get(fo, "noticed_by"));
        x->fo_detection = maybe(jv_get(fo, "detection_s"));
        x->fo_fencing = maybe(jv_get(fo, "fencing_s"));
        x->fo_start = maybe(jv_get(fo, "start_s"));
        x->fo_reconnect = maybe(jv_get(fo, "reconnect_s"));
    }
    read_values(rd, f, &x->values, &x->nvalues);
}

static void read_dist(const struct jv *d, struct result_dist *x)
{
    x->known = d && jv_get(d, "n");
    if (!x->known)
        return;
    x->n = num(jv_get(d, "n"));
    x->min = num(jv_get(d, "min"));
    x->p50 = num(jv_get(d, "p50"));
    x->p95 = num(jv_get(d, "p95"));
    x->max = num(jv_get(d, "max"));
    x->mean = num(jv_get(d, "mean"));
}

static void read_faults(struct reader *rd, const struct jv *doc, struct result *res)
{
    const struct jv *arr = jv_get(doc, "faults");
    res->nfaults = jv_len(arr);
    res->faults = alloc_items(rd, res->nfaults, sizeof *res->faults);
    if (!res->faults)
        res->nfaults = 0;
    for (size_t i = 0; i < res->nfaults; i++) {
        const struct jv *f = jv_at(arr, i);
        struct result_fault *x = &res->faults[i];
        x->name = dup_or_empty(rd, jv_get(f, "name"));
        x->action = dup_or_empty(rd, jv_get(f, "action"));
        x->host = dup_or_empty(rd, jv_get(f, "host"));
        x->detail = dup_or_empty(rd, jv_get(f, "detail"));
        x->error = dup_str(rd, jv_get(f, "error"));
        x->at = num(jv_get(f, "at"));
        x->injected_at = maybe(jv_get(f, "injected_at"));
        x->cleared_at = maybe(jv_get(f, "cleared_at"));
        const struct jv *applied = jv_get(f, "applied");
        x->applied = applied ? flag(applied) : x->injected_at.known;
        x->applied_by = dup_str(rd, jv_get(f, "applied_by"));
        x->cleared_by = dup_str(rd, jv_get(f, "cleared_by"));
        x->happened = flag(jv_get(f, "happened"));
        x->not_happened_why = dup_str(rd, jv_get(f, "not_happened_why"));
        x->clear_failed = flag(jv_get(f, "clear_failed"));
        x->indeterminate = flag(jv_get(f, "indeterminate"));
        x->drawn = flag(jv_get(f, "drawn"));
        x->not_reached = flag(jv_get(f, "not_reached"));
        x->settle = maybe(jv_get(f, "settle_s"));
        x->moved_s = num(jv_get(f, "moved_s"));
        read_recovery(rd, f, x);
    }
    arr = jv_get(doc, "actions");
    res->nactions = jv_len(arr);
    res->actions = alloc_items(rd, res->nactions, sizeof *res->actions);
    if (!res->actions)
        res->nactions = 0;
    for (size_t i = 0; i < res->nactions; i++) {
        const struct jv *a = jv_at(arr, i);
        struct result_action *x = &res->actions[i];
        x->action = dup_or_empty(rd, jv_get(a, "action"));
        x->count = (uint64_t)num(jv_get(a, "count"));
        x->began = (uint64_t)num(jv_get(a, "began"));
        read_dist(jv_get(a, KEY(F_STALL)), &x->stall);
        read_dist(jv_get(a, KEY(F_RECOVERY)), &x->recovery);
        x->heal_key = KEY(F_HEAL);
        read_dist(jv_get(a, KEY(F_HEAL)), &x->heal);
        if (!x->heal.known) {
            x->heal_key = KEY(F_RECOVER);
            read_dist(jv_get(a, KEY(F_RECOVER)), &x->heal);
        }
    }
    arr = jv_get(doc, "not_happened");
    res->nmissed = jv_len(arr);
    res->missed = alloc_items(rd, res->nmissed, sizeof *res->missed);
    if (!res->missed)
        res->nmissed = 0;
    for (size_t i = 0; i < res->nmissed; i++) {
        const struct jv *m = jv_at(arr, i);
        res->missed[i].fault = dup_or_empty(rd, jv_get(m, "fault"));
        res->missed[i].action = dup_or_empty(rd, jv_get(m, "action"));
        res->missed[i].why = dup_or_empty(rd, jv_get(m, "why"));
        const struct jv *counts = jv_get(m, "counts");
        res->missed[i].counts = counts ? flag(counts) : true;
    }
}

static void read_hosts_and_power(struct reader *rd, const struct jv *doc, struct result *res)
{
    const struct jv *arr = jv_get(doc, "hosts");
    res->nhosts = jv_len(arr);
    res->hosts = alloc_items(rd, res->nhosts, sizeof *res->hosts);
    if (!res->hosts)
        res->nhosts = 0;
    for (size_t i = 0; i < res->nhosts; i++) {
        const struct jv *h = jv_at(arr, i);
        struct result_host *x = &res->hosts[i];
        x->name = dup_or_empty(rd, jv_get(h, "name"));
        x->transport = dup_or_empty(rd, jv_get(h, "transport"));
        x->ssh = dup_str(rd, jv_get(h, "ssh"));
        x->agent = jv_num(jv_get(h, "rtt_ms"), &x->rtt_ms);
        x->clock_offset_ms = num(jv_get(h, "clock_offset_ms"));
        x->agent_copied = flag(jv_get(h, "agent_copied"));
    }
    arr = jv_get(doc, "power");
    res->npower = jv_len(arr);
    res->power = alloc_items(rd, res->npower, sizeof *res->power);
    if (!res->power)
        res->npower = 0;
    for (size_t i = 0; i < res->npower; i++) {
        const struct jv *p = jv_at(arr, i);
        res->power[i].fault = dup_or_empty(rd, jv_get(p, "fault"));
        res->power[i].at = maybe(jv_get(p, "at"));
        res->power[i].at_risk = u64(jv_get(p, "writes_at_risk"));
        res->power[i].reverted = u64(jv_get(p, "reverted"));
    }
}

static void read_finding(struct reader *rd, const struct jv *f, struct result_finding *x)
{
    x->cls = dup_or_empty(rd, jv_get(f, "class"));
    x->has_block = jv_get(f, "block") && jv_get(f, "block")->type == JV_NUM;
    x->block = u64(jv_get(f, "block"));
    x->offset = u64(jv_get(f, "offset"));
    x->path = dup_or_empty(rd, jv_get(f, "path"));
    x->op = dup_or_empty(rd, jv_get(f, "op"));
    x->phase = dup_or_empty(rd, jv_get(f, "phase"));
    x->detail = dup_or_empty(rd, jv_get(f, "detail"));
    x->expected_gen = u64(jv_get(f, "expected_gen"));
    x->found_known = jv_get(f, "found_gen") && jv_get(f, "found_gen")->type == JV_NUM;
    x->found_gen = u64(jv_get(f, "found_gen"));
    x->written_at = maybe(jv_get(f, "written_at"));
    x->read_at = maybe(jv_get(f, "read_at"));
    x->last_read_at = maybe(jv_get(f, "last_read_at"));
    x->repeats = u64(jv_get(f, "repeats"));
    x->has_owner = jv_get(f, "owner") != NULL;
    x->owner = (int)num(jv_get(f, "owner"));
    x->client = jv_get(f, "client") && jv_get(f, "client")->type == JV_NUM
                    ? (int)num(jv_get(f, "client"))
                    : -1;
}

/* Reads by class, the classes' names and which are findings, the findings. */
static void read_findings(struct reader *rd, const struct jv *doc, struct result *res)
{
    for (int c = 0; c < CLS_COUNT && c < RESULT_CLASSES; c++) {
        const char *name = class_name((enum fl_class)c);
        res->class_name[c] = strdup(name);
        rd->oom |= !res->class_name[c];
        res->class_is_finding[c] = class_is_finding((enum fl_class)c);
        res->counts[c] = u64(jv_get(jv_get(doc, "counts"), name));
        res->explained[c] = u64(jv_path(doc, "corruption.explained") ? jv_get(
                                    jv_path(doc, "corruption.explained"), name) : NULL);
    }
    const struct jv *arr = jv_get(doc, "findings");
    res->nfindings = jv_len(arr);
    res->findings = alloc_items(rd, res->nfindings, sizeof *res->findings);
    if (!res->findings)
        res->nfindings = 0;
    for (size_t i = 0; i < res->nfindings; i++)
        read_finding(rd, jv_at(arr, i), &res->findings[i]);
    res->findings_unlisted = u64(jv_get(doc, "findings_unlisted"));
}

static void read_client(struct reader *rd, const struct jv *c, struct result_client *x)
{
    x->rank = (unsigned)u64(jv_get(c, "rank"));
    x->host = dup_or_empty(rd, jv_get(c, "host"));
    x->lost = flag(jv_get(c, "lost"));
    x->why = dup_or_empty(rd, jv_get(c, "why"));
    x->last_heard = dup_or_empty(rd, jv_get(c, "last_heard"));
    x->dir = dup_or_empty(rd, jv_get(c, "dir"));
    read_io(jv_get(c, "io"), &x->io);
    read_io(jv_get(c, "sweep"), &x->sweep);
    x->findings = u64(jv_get(c, "findings"));
    x->clock_offset_ms = num(jv_get(c, "clock_offset_ms"));
    x->clock_uncertainty_ms = num(jv_get(c, "clock_uncertainty_ms"));
    x->end_measured = jv_num(jv_get(c, "clock_offset_end_ms"), &x->clock_offset_end_ms);
    x->clock_uncertainty_end_ms = num(jv_get(c, "clock_uncertainty_end_ms"));
    const struct jv *arr = jv_get(c, "faults");
    x->nfaults = jv_len(arr);
    x->faults = alloc_items(rd, x->nfaults, sizeof *x->faults);
    if (!x->faults)
        x->nfaults = 0;
    for (size_t i = 0; i < x->nfaults; i++) {
        const struct jv *f = jv_at(arr, i);
        x->faults[i].name = dup_or_empty(rd, jv_get(f, "name"));
        x->faults[i].stall = maybe(jv_get(f, KEY(F_STALL)));
        x->faults[i].recovery = maybe(jv_get(f, KEY(F_RECOVERY)));
        x->faults[i].errors = u64(jv_get(f, KEY(F_ERRORS)));
    }
}

static void read_clients(struct reader *rd, const struct jv *doc, struct result *res)
{
    const struct jv *arr = jv_get(doc, "clients");
    res->nclients = jv_len(arr);
    res->clients = alloc_items(rd, res->nclients, sizeof *res->clients);
    if (!res->clients)
        res->nclients = 0;
    for (size_t i = 0; i < res->nclients; i++)
        read_client(rd, jv_at(arr, i), &res->clients[i]);
    res->lost_clients = u64(jv_get(doc, "lost_clients"));
    const struct jv *x = jv_get(doc, "cross_reads");
    res->cross = x != NULL;
    res->cross_rule = dup_or_empty(rd, jv_get(x, "rule"));
    res->cross_pct = (unsigned)u64(jv_get(x, "percent"));
    res->cross_reads = u64(jv_get(x, "reads"));
    res->cross_judged = u64(jv_get(x, "judged"));
    res->cross_ok = u64(jv_get(x, "ok"));
    res->cross_bad = u64(jv_get(x, "findings"));
    res->cross_unjudged = u64(jv_get(x, "unjudged"));
}

static void read_metadata(struct reader *rd, const struct jv *doc, struct result *res)
{
    const struct jv *m = jv_get(doc, "metadata");
    res->metadata = m != NULL;
    res->meta_streams = (unsigned)u64(jv_get(m, "streams"));
    res->meta_errors = u64(jv_get(m, "errors"));
    const struct jv *ops = jv_get(m, "ops");
    for (size_t k = 0; ops && ops->type == JV_OBJ && k < ops->n && k < 8; k++) {
        res->meta_op_name[k] = strdup(ops->key[k]);
        rd->oom |= !res->meta_op_name[k];
        res->meta_ops[k] = u64(&ops->item[k]);
        res->nmeta_ops = k + 1;
    }
    res->meta_max_stall = maybe(jv_get(m, "max_stall_s"));
    res->meta_stall_from = maybe(jv_get(m, "stall_from"));
    res->meta_stall_to = maybe(jv_get(m, "stall_to"));
    res->names_checked = u64(jv_get(m, "names_checked"));
    res->names_reverted = u64(jv_get(m, "names_reverted"));
    res->sizes_short = u64(jv_get(m, "sizes_short"));
    res->rebuilt = u64(jv_get(m, "rebuilt_from_journal"));
}

/* The run's identity and verdict. */
static void read_head(struct reader *rd, const struct jv *doc, struct result *res)
{
    res->verdict = dup_or_empty(rd, jv_get(doc, "verdict"));
    res->mode = dup_or_empty(rd, jv_get(doc, "mode"));
    res->error = dup_str(rd, jv_get(doc, "error"));
    res->scenario = dup_or_empty(rd, jv_get(doc, "scenario"));
    res->scenario_file = dup_or_empty(rd, jv_get(doc, "scenario_file"));
    res->run_id = dup_or_empty(rd, jv_get(doc, "run_id"));
    res->started_at = dup_or_empty(rd, jv_get(doc, "started_at"));
    res->seed = u64(jv_get(doc, "seed"));
    res->interrupted = flag(jv_get(doc, "interrupted"));
    res->interrupted_by = dup_or_empty(rd, jv_get(doc, "interrupted_by"));
    double exit = 0;
    jv_num(jv_get(doc, "exit_status"), &exit);
    res->exit_status = (int)exit;
    res->workers = (unsigned)u64(jv_get(doc, "workers"));
    const struct jv *w = jv_get(doc, "workload");
    res->pattern = dup_or_empty(rd, jv_get(w, "pattern"));
    res->read_pct = (unsigned)u64(jv_get(w, "read_pct"));
    res->depth = (unsigned)u64(jv_get(w, "depth"));
    res->flush_every = (unsigned)u64(jv_get(w, "flush_every"));
    res->hung_after_s = num(jv_get(doc, "hung_after_s"));
    read_values(rd, jv_get(doc, "measured"), &res->measured, &res->nmeasured);
}

/* The outage (a run), the target, the state map and journal. */
static void read_run(struct reader *rd, const struct jv *doc, struct result *res)
{
    res->outage = jv_get(doc, "workload_end") != NULL;
    res->bucket_s = num(jv_get(doc, "bucket_s"));
    const struct jv *b = jv_get(doc, "baseline");
    res->baseline_known = jv_num(jv_get(b, "iops"), &res->baseline_iops);
    res->baseline_from = num(jv_get(b, "from"));
    res->baseline_to = num(jv_get(b, "to"));
    res->max_stall = maybe(jv_get(doc, "max_stall_s"));
    res->hung = u64(jv_get(doc, "hung"));
    res->abandoned = flag(jv_get(doc, "abandoned"));
    const struct jv *c = jv_get(doc, "corruption");
    res->judged = c != NULL;
    res->corrupted_blocks = u64(jv_get(c, "corrupted_blocks"));
    res->detected_corrupt = u64(jv_get(c, "detected_corrupt"));
    res->undetected_corrupt = u64(jv_get(c, "undetected_corrupt"));
    const struct jv *t = jv_get(doc, "target");
    res->target_path = dup_or_empty(rd, jv_get(t, "path"));
    res->target_description = dup_or_empty(rd, jv_get(t, "description"));
    res->capacity = u64(jv_get(t, "bytes"));
    res->block_size = u64(jv_get(t, "block_size"));
    res->blocks = u64(jv_get(t, "blocks"));
    read_io(jv_get(doc, "io"), &res->io);
    read_io(jv_get(doc, "sweep"), &res->sweep);
    read_io(jv_get(doc, "prefill"), &res->prefill);
    res->bytes_at_rest = u64(jv_path(doc, "state_map.bytes_at_rest"));
    res->pending_peak = u64(jv_path(doc, "state_map.pending_peak"));
    res->state_final = flag(jv_path(doc, "journal.state_final"));
    res->replayed = u64(jv_path(doc, "journal.replayed_records"));
    res->acks_recovered = u64(jv_path(doc, "journal.acks_recovered"));
    const struct jv *ft = jv_get(doc, "fault_timing");
    res->injections = (unsigned)u64(jv_get(ft, "injections"));
    res->inject_p50_ms = num(jv_get(ft, "p50_ms"));
    res->inject_p99_ms = num(jv_get(ft, "p99_ms"));
    res->doubtful_writes = u64(jv_get(doc, "doubtful_writes"));
    res->reverted_after_crash = u64(jv_get(doc, "reverted_after_crash"));
}

int result_from_json(const struct jv *doc, struct result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (!doc || doc->type != JV_OBJ) { /* a report that lacks a field reads as without it */
        snprintf(err, errlen, "not a report: not a JSON object");
        return -1;
    }
    struct reader rd = {false};
    read_head(&rd, doc, res);
    read_expectations(&rd, doc, res);
    read_run(&rd, doc, res);
    read_findings(&rd, doc, res);
    read_faults(&rd, doc, res);
    read_hosts_and_power(&rd, doc, res);
    read_metadata(&rd, doc, res);
    read_clients(&rd, doc, res);
    read_events(&rd, jv_get(doc, "path_events"), &res->events, &res->nevents);
    const struct jv *m = jv_get(doc, "manifest");
    if (m && m->type == JV_OBJ && jv_copy(m, &res->manifest) != 0) /* kept as written */
        rd.oom = true;
    if (rd.oom) {
        snprintf(err, errlen, "cannot read the report: %s", strerror(ENOMEM));
        return -1;
    }
    return 0;
}

int result_read(const char *dir, struct result *res, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/report.json", dir);
    struct jv *doc;
    memset(res, 0, sizeof *res);
    if (jv_load(path, &doc, err, errlen) != 0)
        return -1;
    char why[256];
    int rc = result_from_json(doc, res, why, sizeof why);
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, why);
    jv_free(doc);
    return rc;
}
