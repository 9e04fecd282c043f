/* client_result — see client_result.h.  The bytes are for a peer built
 * from the same source (a rank of the same job): plain structs go as they
 * are, pointers and strings field by field. */
#include "client_result.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/json.h"
#include "../../lib/wire.h"

#define RESULT_MAGIC 0x31534552434c46ull /* "FLCRES1" */

/* The words a finding's phase and op point to, so that a received one
 * points to the same static text. */
static const char *const words[] = {"workload", "sweep",  "verify", "read",    "write",
                                    "flush",    "create", "rename", "mkdir",   "unlink",
                                    "stat",     "readdir", "none",  "cross read"};

static const char *word(const char *s)
{
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(words[i], s) == 0)
            return words[i];
    return "?";
}

int client_result_of(struct client_result *r, unsigned rank, const struct crew *c,
                     const struct event_log *events)
{
    memset(r, 0, sizeof *r);
    r->rank = rank;
    if (gethostname(r->host, sizeof r->host - 1) != 0)
        snprintf(r->host, sizeof r->host, "?");
    if (c->error)
        snprintf(r->error, sizeof r->error, "%s", c->error);
    r->io = c->io;
    r->sweep = c->sweep;
    r->prefilled = c->prefilled;
    r->hung = c->hung;
    r->abandoned = c->abandoned;
    r->interrupted = c->interrupted;
    r->workload_end_ns = c->workload_end_ns;
    r->journal_stalls = c->journal_stalls;
    r->checkpoints = c->checkpoints;
    r->doubtful_writes = c->doubtful_writes;
    r->bytes_at_rest = c->bytes_at_rest;
    r->bytes_peak = c->bytes_peak;
    r->pending_peak = c->pending_peak;
    for (unsigned i = 0; !c->meta_left_behind && i < c->nmeta; i++) {
        for (int k = 0; k < MOP_COUNT; k++)
            r->meta_ops[k] += c->meta[i].ops[k];
        r->meta_errors += c->meta[i].errors;
        r->nmeta++;
    }
    findings_init(&r->findings, c->findings.limit);
    findings_merge(&r->findings, &c->findings);
    if (c->series.b && buckets_init(&r->series, c->series.width_ns,
                                    (uint64_t)c->series.n * c->series.width_ns) == 0)
        buckets_merge(&r->series, &c->series);
    if (events && events->n) {
        r->events = malloc(events->n * sizeof *r->events);
        if (r->events) {
            memcpy(r->events, events->list, events->n * sizeof *r->events);
            r->nevents = events->n;
        }
    }
    size_t ncross = 0;
    for (unsigned i = 0; i < c->n; i++)
        if (!c->w[i].left_behind) {
            ncross += c->w[i].cross.n;
            r->cross_unrecorded += c->w[i].cross.unrecorded;
        }
    if (ncross && (r->cross = malloc(ncross * sizeof *r->cross))) {
        for (unsigned i = 0; i < c->n; i++) {
            const struct worker *w = &c->w[i];
            if (w->left_behind || !w->cross.n)
                continue;
            memcpy(r->cross + r->ncross, w->cross.r, w->cross.n * sizeof *r->cross);
            r->ncross += w->cross.n;
        }
    } else if (ncross) {
        r->cross_unrecorded += ncross;
    }
    return 0;
}

static void put_finding(struct wire *w, const struct finding *f)
{
    struct finding x = *f;
    x.phase = NULL;
    x.op = NULL;
    wire_put(w, &x, sizeof x);
    wire_str(w, f->phase ? f->phase : "");
    wire_str(w, f->op ? f->op : "");
}

static void get_finding(struct wire *w, struct finding *f)
{
    char phase[32], op[32];
    wire_get(w, f, sizeof *f);
    wire_get_str(w, phase, sizeof phase);
    wire_get_str(w, op, sizeof op);
    f->phase = word(phase);
    f->op = word(op);
    f->detail[sizeof f->detail - 1] = '\0';
    f->path[sizeof f->path - 1] = '\0';
}

int client_result_encode(const struct client_result *r, void **buf, size_t *len)
{
    struct wire w;
    wire_init(&w);
    wire_u64(&w, RESULT_MAGIC);
    wire_u64(&w, r->rank);
    wire_str(&w, r->host);
    wire_str(&w, r->error);
    wire_put(&w, &r->io, sizeof r->io);
    wire_put(&w, &r->sweep, sizeof r->sweep);
    wire_put(&w, &r->prefilled, sizeof r->prefilled);
    uint64_t flags = (r->abandoned ? 1u : 0u) | (r->interrupted ? 2u : 0u);
    uint64_t nums[] = {r->hung, flags, r->workload_end_ns, r->journal_stalls, r->checkpoints,
                       r->doubtful_writes, r->bytes_at_rest, r->bytes_peak, r->pending_peak,
                       r->meta_errors, r->nmeta, r->cross_unrecorded};
    wire_put(&w, nums, sizeof nums);
    wire_put(&w, r->meta_ops, sizeof r->meta_ops);
    /* findings: counts, then the list */
    wire_put(&w, r->findings.counts, sizeof r->findings.counts);
    wire_u64(&w, r->findings.unlisted);
    wire_u64(&w, r->findings.limit);
    wire_u64(&w, r->findings.n);
    for (size_t i = 0; i < r->findings.n; i++)
        put_finding(&w, &r->findings.list[i]);
    /* buckets */
    wire_u64(&w, r->series.width_ns);
    wire_u64(&w, r->series.b ? r->series.used : 0);
    if (r->series.b)
        wire_put(&w, r->series.b, r->series.used * sizeof *r->series.b);
    /* the buckets' latency rows (their lat_row indexes point into these),
     * then how many paths they count */
    wire_u64(&w, r->series.b ? r->series.rows : 0);
    for (size_t k = 0; r->series.b && k < r->series.rows; k++)
        wire_put(&w, buckets_row(&r->series, k), LATHIST_SUB * sizeof(uint32_t));
    wire_u64(&w, r->series.b ? r->series.npaths : 0);
    wire_u64(&w, r->nevents);
    wire_put(&w, r->events, r->nevents * sizeof *r->events);
    wire_u64(&w, r->ncross);
    wire_put(&w, r->cross, r->ncross * sizeof *r->cross);
    wire_u64(&w, RESULT_MAGIC);
    if (wire_done(&w) != 0)
        return -1;
    *buf = w.buf;
    *len = w.len;
    return 0;
}

int client_result_decode(struct client_result *r, const void *buf, size_t len, char *err,
                         size_t errlen)
{
    memset(r, 0, sizeof *r);
    struct wire w;
    wire_read(&w, buf, len);
    if (wire_get_u64(&w) != RESULT_MAGIC) {
        snprintf(err, errlen, "not a client result");
        return -1;
    }
    r->rank = (unsigned)wire_get_u64(&w);
    wire_get_str(&w, r->host, sizeof r->host);
    wire_get_str(&w, r->error, sizeof r->error);
    wire_get(&w, &r->io, sizeof r->io);
    wire_get(&w, &r->sweep, sizeof r->sweep);
    wire_get(&w, &r->prefilled, sizeof r->prefilled);
    uint64_t nums[12];
    wire_get(&w, nums, sizeof nums);
    r->hung = nums[0];
    r->abandoned = nums[1] & 1;
    r->interrupted = nums[1] & 2;
    r->workload_end_ns = nums[2];
    r->journal_stalls = nums[3];
    r->checkpoints = nums[4];
    r->doubtful_writes = nums[5];
    r->bytes_at_rest = nums[6];
    r->bytes_peak = nums[7];
    r->pending_peak = nums[8];
    r->meta_errors = nums[9];
    r->nmeta = (unsigned)nums[10];
    r->cross_unrecorded = nums[11];
    wire_get(&w, r->meta_ops, sizeof r->meta_ops);
    uint64_t counts[CLS_COUNT];
    wire_get(&w, counts, sizeof counts);
    uint64_t unlisted = wire_get_u64(&w);
    uint64_t limit = wire_get_u64(&w);
    uint64_t n = wire_get_u64(&w);
    findings_init(&r->findings, limit ? (size_t)limit : 1);
    for (uint64_t i = 0; i < n && wire_ok(&w) && n <= len; i++) {
        struct finding f;
        get_finding(&w, &f);
        if (wire_ok(&w))
            findings_keep(&r->findings, &f);
    }
    memcpy(r->findings.counts, counts, sizeof counts);
    r->findings.unlisted += unlisted;
    uint64_t width = wire_get_u64(&w), used = wire_get_u64(&w);
    if (wire_ok(&w) && used && width && used <= len / sizeof(struct bucket)) {
        if (buckets_init(&r->series, width, used * width) != 0 || r->series.n < used) {
            snprintf(err, errlen, "out of memory for %llu buckets", (unsigned long long)used);
            client_result_free(r);
            return -1;
        }
        wire_get(&w, r->series.b, (size_t)used * sizeof *r->series.b);
        r->series.used = (size_t)used;
    }
    uint64_t rows = wire_get_u64(&w);
    size_t row_bytes = LATHIST_SUB * sizeof(uint32_t);
    if (wire_ok(&w) && rows && (!r->series.b || rows > len / row_bytes ||
                                buckets_rows_reserve(&r->series, (size_t)rows) != 0)) {
        snprintf(err, errlen, "%s for %llu latency rows",
                 r->series.b ? "out of memory" : "no buckets", (unsigned long long)rows);
        client_result_free(r);
        return -1;
    }
    for (size_t k = 0; k < rows && wire_ok(&w); k++)
        wire_get(&w, buckets_row(&r->series, k), row_bytes);
    /* a row index past what came is damage: that range is left out */
    for (size_t i = 0; r->series.b && i < r->series.used; i++)
        for (unsigned k = 0; k < LATHIST_ROWS; k++)
            if (r->series.b[i].lat_row[k] > rows)
                r->series.b[i].lat_row[k] = 0;
    uint64_t npaths = wire_get_u64(&w);
    if (r->series.b)
        r->series.npaths = npaths < BUCKET_PATHS ? (unsigned)npaths : BUCKET_PATHS;
    uint64_t ne = wire_get_u64(&w);
    if (wire_ok(&w) && ne && ne <= len / sizeof(struct event)) {
        if ((r->events = malloc((size_t)ne * sizeof *r->events))) {
            wire_get(&w, r->events, (size_t)ne * sizeof *r->events);
            r->nevents = (size_t)ne;
        }
    }
    uint64_t nc = wire_get_u64(&w);
    if (wire_ok(&w) && nc && nc <= len / sizeof(struct cross_read)) {
        if ((r->cross = malloc((size_t)nc * sizeof *r->cross))) {
            wire_get(&w, r->cross, (size_t)nc * sizeof *r->cross);
            r->ncross = (size_t)nc;
        }
    }
    if (wire_get_u64(&w) != RESULT_MAGIC || !wire_ok(&w)) {
        snprintf(err, errlen, "a damaged client result (%zu bytes)", len);
        client_result_free(r);
        return -1;
    }
    return 0;
}

static int write_findings(const struct client_result *r, const char *dir, char *err,
                          size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/findings.jsonl", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < r->findings.n; i++) {
        const struct finding *x = &r->findings.list[i];
        struct json j;
        json_init(&j, f, false);
        json_obj_begin(&j);
        json_key(&j, "class");
        json_str(&j, class_name(x->cls));
        json_key(&j, "client");
        json_i64(&j, x->client);
        json_key(&j, "owner");
        json_i64(&j, x->owner);
        if (x->block != FL_NO_BLOCK) {
            json_key(&j, "block");
            json_u64(&j, x->block);
            json_key(&j, "offset");
            json_u64(&j, x->offset);
        }
        if (x->path[0]) {
            json_key(&j, "path");
            json_str(&j, x->path);
        }
        json_key(&j, "phase");
        json_str(&j, x->phase ? x->phase : "");
        json_key(&j, "op");
        json_str(&j, x->op ? x->op : "");
        json_key(&j, "expected_gen");
        json_u64(&j, x->expected_gen);
        json_key(&j, "found_gen");
        if (x->found_known)
            json_u64(&j, x->found_gen);
        else
            json_null(&j);
        json_key(&j, "read_at");
        json_num(&j, (double)x->read_ns / 1e9, 6);
        json_key(&j, "repeats");
        json_u64(&j, x->repeats);
        json_key(&j, "detail");
        json_str(&j, x->detail);
        json_obj_end(&j);
        fputc('\n', f);
    }
    if (ferror(f) | (fflush(f) != 0) | (fsync(fileno(f)) != 0) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int client_result_save(const struct client_result *r, const void *buf, size_t len,
                       const char *dir, char *err, size_t errlen)
{
    if (write_findings(r, dir, err, errlen) != 0)
        return -1;
    char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/result.bin", dir);
    snprintf(tmp, sizeof tmp, "%s/.result.tmp", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    bool ok = fwrite(buf, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if ((fclose(f) != 0) | !ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void client_result_free(struct client_result *r)
{
    findings_free(&r->findings);
    buckets_free(&r->series);
    free(r->events);
    free(r->cross);
    r->events = NULL;
    r->cross = NULL;
    r->nevents = r->ncross = 0;
}
