/* report — see report.h. */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "units.h"

const char *report_verdict(const struct report *r)
{
    if (r->error)
        return "error";
    return findings_bad(r->findings) ? "fail" : "pass";
}

int report_exit_code(const struct report *r)
{
    if (r->error)
        return 2;
    return findings_bad(r->findings) ? 1 : 0;
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

static void json_io(struct json *j, const struct io_stats *s)
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

static void json_finding(struct json *j, const struct finding *f, const char *path)
{
    json_obj_begin(j);
    json_key(j, "class");
    json_str(j, class_name(f->cls));
    json_key(j, "block");
    json_u64(j, f->block);
    json_key(j, "offset");
    json_u64(j, f->offset);
    json_key(j, "path");
    json_str(j, path);
    json_key(j, "expected_gen");
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
    json_obj_end(j);
}

static FILE *open_tmp(const char *dir, const char *name, char *tmp, size_t n, char *err,
                      size_t errlen)
{
    snprintf(tmp, n, "%s/.%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
    return f;
}

static int install(FILE *f, const char *tmp, const char *dir, const char *name, char *err,
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

static int write_json(const struct report *r, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = open_tmp(r->dir, "report.json", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    struct json j;
    json_init(&j, f, true);
    char when[64];
    iso_time(r->meta->start_wall_ns, when, sizeof when);
    char runid[32];
    snprintf(runid, sizeof runid, "%016" PRIx64, r->meta->run_id);

    json_obj_begin(&j);
    json_key(&j, "verdict");
    json_str(&j, report_verdict(r));
    json_key(&j, "mode");
    json_str(&j, r->mode);
    if (r->error) {
        json_key(&j, "error");
        json_str(&j, r->error);
    }
    json_key(&j, "scenario");
    json_str(&j, r->sc->name);
    json_key(&j, "run_id");
    json_str(&j, runid);
    json_key(&j, "started_at");
    json_str(&j, when);
    json_key(&j, "seed");
    json_u64(&j, r->seed);
    json_key(&j, "interrupted");
    json_bool(&j, r->interrupted);
    json_key(&j, "workers");
    json_u64(&j, r->workers);

    json_key(&j, "target");
    json_obj_begin(&j);
    json_key(&j, "kind");
    json_str(&j, r->sc->target.kind);
    json_key(&j, "path");
    json_str(&j, r->sc->target.path);
    json_key(&j, "description");
    json_str(&j, r->target_desc ? r->target_desc : "");
    json_key(&j, "bytes");
    json_u64(&j, r->capacity);
    json_key(&j, "block_size");
    json_u64(&j, r->meta->block_size);
    json_key(&j, "blocks");
    json_u64(&j, r->meta->nblocks);
    json_obj_end(&j);

    json_key(&j, "counts");
    json_obj_begin(&j);
    for (int c = 0; c < CLS_COUNT; c++) {
        json_key(&j, class_name((enum fl_class)c));
        json_u64(&j, r->findings->counts[c]);
    }
    json_obj_end(&j);

    json_key(&j, "findings");
    json_arr_begin(&j);
    for (size_t i = 0; i < r->findings->n; i++)
        json_finding(&j, &r->findings->list[i], r->sc->target.path);
    json_arr_end(&j);
    json_key(&j, "findings_unlisted");
    json_u64(&j, r->findings->unlisted);

    json_key(&j, "io");
    json_io(&j, r->io);
    if (r->sweep) {
        json_key(&j, "sweep");
        json_io(&j, r->sweep);
    }
    if (r->prefill) {
        json_key(&j, "prefill");
        json_io(&j, r->prefill);
    }

    json_key(&j, "state_map");
    json_obj_begin(&j);
    json_key(&j, "bytes_per_block_at_rest");
    json_num(&j, r->meta->nblocks ? (double)r->map_bytes_at_rest / (double)r->meta->nblocks : 0,
             3);
    json_key(&j, "bytes_at_rest");
    json_u64(&j, r->map_bytes_at_rest);
    json_key(&j, "bytes_peak");
    json_u64(&j, r->map_bytes_peak);
    json_key(&j, "pending_peak");
    json_u64(&j, r->pending_peak);
    json_obj_end(&j);

    json_key(&j, "journal");
    json_obj_begin(&j);
    json_key(&j, "enabled");
    json_bool(&j, r->sc->journal);
    if (strcmp(r->mode, "run") == 0) {
        json_key(&j, "stalls");
        json_u64(&j, r->journal_stalls);
        json_key(&j, "checkpoints");
        json_u64(&j, r->checkpoints);
    } else {
        json_key(&j, "state_final");
        json_bool(&j, r->state_final);
        json_key(&j, "replayed_records");
        json_u64(&j, r->replayed);
    }
    json_obj_end(&j);

    json_key(&j, "faults");
    json_arr_begin(&j);
    for (unsigned i = 0; i < r->nfaults; i++) {
        const struct fault *f = &r->faults[i];
        json_obj_begin(&j);
        json_key(&j, "name");
        json_str(&j, f->spec.name);
        json_key(&j, "action");
        json_str(&j, f->ops->action);
        json_key(&j, "host");
        json_str(&j, f->spec.host);
        json_key(&j, "at");
        json_seconds(&j, f->spec.at_ns);
        json_key(&j, "injected_at");
        json_seconds(&j, f->injected_ns ? f->injected_ns : FL_TIME_UNKNOWN);
        json_key(&j, "cleared_at");
        json_seconds(&j, f->cleared_ns ? f->cleared_ns : FL_TIME_UNKNOWN);
        json_key(&j, "apply_ms");
        json_num(&j, (double)f->apply_ns / 1e6, 3);
        json_key(&j, "steps");
        json_u64(&j, f->steps_done);
        json_key(&j, "detail");
        json_str(&j, f->detail);
        if (f->nranges) {
            json_key(&j, "ranges");
            json_arr_begin(&j);
            for (unsigned k = 0; k < f->nranges; k++) {
                json_arr_begin(&j);
                json_u64(&j, f->ranges[k][0]);
                json_u64(&j, f->ranges[k][1]);
                json_arr_end(&j);
            }
            json_arr_end(&j);
        }
        json_key(&j, "error");
        if (f->error[0])
            json_str(&j, f->error);
        else
            json_null(&j);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_key(&j, "fault_timing");
    json_obj_begin(&j);
    json_key(&j, "injections");
    json_u64(&j, r->injections);
    json_key(&j, "p50_ms");
    json_num(&j, r->inject_p50_ms, 3);
    json_key(&j, "p99_ms");
    json_num(&j, r->inject_p99_ms, 3);
    json_key(&j, "max_ms");
    json_num(&j, r->inject_max_ms, 3);
    json_obj_end(&j);
    json_key(&j, "doubtful_writes");
    json_u64(&j, r->doubtful_writes);
    json_key(&j, "path_events");
    json_arr_begin(&j);
    for (size_t i = 0; r->events && i < r->events->n; i++) {
        const struct event *e = &r->events->list[i];
        if (!e->portal[0])
            continue;
        json_obj_begin(&j);
        json_key(&j, "t");
        json_num(&j, (double)e->t_ns / 1e9, 6);
        json_key(&j, "event");
        json_str(&j, e->event);
        json_key(&j, "worker");
        json_u64(&j, e->worker);
        json_key(&j, "portal");
        json_str(&j, e->portal);
        json_key(&j, "detail");
        json_str(&j, e->detail);
        json_obj_end(&j);
    }
    json_arr_end(&j);

    json_key(&j, "crc32c");
    json_str(&j, r->crc_impl);
    json_obj_end(&j);
    fputc('\n', f);
    return install(f, tmp, r->dir, "report.json", err, errlen);
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

static int write_text(const struct report *r, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = open_tmp(r->dir, "report.txt", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    const char *v = report_verdict(r);
    fprintf(f, "%s %s: %s\n", strcmp(r->mode, "run") == 0 ? "run" : "verify of", r->sc->name,
            strcmp(v, "pass") == 0 ? "PASS" : strcmp(v, "fail") == 0 ? "FAIL" : "ERROR");
    if (r->error)
        fprintf(f, "  error      %s\n", r->error);
    uint64_t bad = findings_bad(r->findings);
    uint64_t distinct = r->findings->n + r->findings->unlisted;
    if (!bad)
        fprintf(f, "  findings   0 (no acknowledged data was lost or corrupted)\n");
    else
        fprintf(f, "  findings   %" PRIu64 " (%" PRIu64 " bad reads or I/Os)\n", distinct, bad);
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
    if (r->doubtful_writes)
        fprintf(f, "  doubtful   %" PRIu64 " writes completed only after a reissue on another "
                   "path: either generation allowed until rewritten\n",
                r->doubtful_writes);
    if (r->nfaults) {
        fprintf(f, "\n  faults (%u injections, %.3f ms after their time at p50, %.3f ms at p99):\n",
                r->injections, r->inject_p50_ms, r->inject_p99_ms);
        for (unsigned i = 0; i < r->nfaults; i++) {
            const struct fault *x = &r->faults[i];
            char when[96];
            if (!x->injected_ns)
                snprintf(when, sizeof when, "not injected");
            else if (x->cleared_ns && x->cleared_ns != x->injected_ns)
                snprintf(when, sizeof when, "%.3f s .. %.3f s", (double)x->injected_ns / 1e9,
                         (double)x->cleared_ns / 1e9);
            else
                snprintf(when, sizeof when, "%.3f s", (double)x->injected_ns / 1e9);
            fprintf(f, "    %-16s %-11s at %7.3f s: %s; %s%s%s\n", x->spec.name, x->ops->action,
                    (double)x->spec.at_ns / 1e9, when, x->detail[0] ? x->detail : x->spec.host,
                    x->error[0] ? "; " : "", x->error);
        }
    }
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
            fprintf(f, "\n  %s (%" PRIu64 ")\n", class_name((enum fl_class)c),
                    r->findings->counts[c]);
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
                char again[64] = "";
                if (x->repeats)
                    snprintf(again, sizeof again, " (and %" PRIu64 " more times, last at %.3f s)",
                             x->repeats, (double)x->last_read_ns / 1e9);
                fprintf(f, "    block %" PRIu64 " at byte %" PRIu64 " of %s (%s %s): expected gen "
                           "%u, found %s; written at %s, read at %s%s\n      %s\n",
                        x->block, x->offset, r->sc->target.path, x->phase, x->op,
                        x->expected_gen, found, wt, rt, again, x->detail);
            }
        }
        if (r->findings->unlisted)
            fprintf(f, "\n  %" PRIu64 " more findings not listed (findings_limit)\n",
                    r->findings->unlisted);
    }
    return install(f, tmp, r->dir, "report.txt", err, errlen);
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
        json_finding(&j, &r->findings->list[i], r->sc->target.path);
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

int report_write(const struct report *r, char *err, size_t errlen)
{
    if (write_json(r, err, errlen) != 0 || write_text(r, err, errlen) != 0 ||
        write_events(r, err, errlen) != 0)
        return -1;
    return 0;
}

void report_summary(const struct report *r, FILE *out)
{
    const char *v = report_verdict(r);
    fprintf(out, "%s: %s", r->sc->name,
            strcmp(v, "pass") == 0 ? "PASS" : strcmp(v, "fail") == 0 ? "FAIL" : "ERROR");
    uint64_t bad = findings_bad(r->findings);
    uint64_t distinct = r->findings->n + r->findings->unlisted;
    if (r->error)
        fprintf(out, " (%s)", r->error);
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
    fprintf(out, "; %.0f IOPS over %.1f s\n", iops(r->io), secs(r->io->ns));
    fprintf(out, "report: %s/report.txt\n", r->dir);
}
