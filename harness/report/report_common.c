/* report_common — what every renderer of a run's report shares (see
 * report.h): the verdict's words, numbers in the reports' units, escaping,
 * and files written under a temporary name and renamed into place. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../lib/json.h"
#include "../../lib/units.h"

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


bool report_event_in(const struct event *e, uint64_t from_ns, uint64_t to_ns)
{
    return e->portal[0] && e->t_ns >= 0 && (uint64_t)e->t_ns >= from_ns &&
           (uint64_t)e->t_ns <= to_ns;
}

void report_iso_time(uint64_t wall_ns, char *out, size_t n)
{
    time_t t = (time_t)(wall_ns / 1000000000ull);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double report_secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

double report_iops(const struct io_stats *s)
{
    return s->ns ? (double)(s->reads + s->writes) / report_secs(s->ns) : 0;
}

double report_mbps(const struct io_stats *s)
{
    return s->ns ? (double)(s->bytes_read + s->bytes_written) / 1e6 / report_secs(s->ns) : 0;
}

void report_where(const struct report *r, const struct finding *f, char *path, size_t n,
                  uint64_t *offset)
{
    r->sc->backend->where(&r->sc->target, f->block, f->offset, f->path, path, n, offset);
}

void report_meta_totals(const struct report *r, uint64_t *ops, uint64_t *errors)
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

void report_json_maybe(struct json *j, const char *key, bool known, double v)
{
    json_key(j, key);
    if (known)
        json_num(j, v, 6);
    else
        json_null(j);
}

const struct remote_info *report_agent_of_host(const struct report *r, const char *name)
{
    for (unsigned i = 0; i < r->nagents; i++)
        if (strcmp(r->agents[i].host, name) == 0)
            return &r->agents[i];
    return NULL;
}

bool report_host_used(const struct report *r, const char *name)
{
    for (unsigned i = 0; i < r->nfaults; i++)
        if (strcmp(r->faults[i].spec.host, name) == 0 ||
            strcmp(r->faults[i].via_host, name) == 0)
            return true;
    return false;
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
    json_num(j, report_secs(s->ns), 3);
    json_key(j, "iops");
    json_num(j, report_iops(s), 0);
    json_key(j, "max_latency_s");
    json_num(j, report_secs(s->lat_max_ns), 6);
    json_key(j, "ns"); /* exact, for what is computed from it */
    json_u64(j, s->ns);
    json_obj_end(j);
}
