/* result_series — see result_series.h. */
#include "result_series.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jread.h"

#define MAX_COLS 64
#define MAX_PATHS 16

/* One CSV line split in place at its commas (no quoting: faultline's CSVs
 * hold none).  The number of fields, at most MAX_COLS. */
static size_t split(char *line, char *field[MAX_COLS])
{
    size_t n = 0, len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
    for (char *p = line; n < MAX_COLS;) {
        field[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static bool num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno)
        return false;
    *out = v;
    return true;
}

/* Room for one more of each of count things of size `size`. */
static bool grow(void **p, size_t *cap, size_t used, size_t size)
{
    if (used < *cap)
        return true;
    size_t want = *cap ? *cap * 2 : 256;
    void *more = realloc(*p, want * size);
    if (!more)
        return false;
    *p = more;
    *cap = want;
    return true;
}

/* The columns of timeline.csv the plots use, by name. */
enum tcol { T_T, T_READS, T_WRITES, T_ERRORS, T_MAXLAT, T_P50, T_P99, T_COUNT };
static const char *const tcol_name[T_COUNT] = {"t_s", "reads", "writes", "errors",
                                               "max_latency_ms", "p50_latency_ms",
                                               "p99_latency_ms"};

struct tl_cols {
    int at[T_COUNT];
    int path[MAX_PATHS];
    size_t cap;
};

static int tl_header(char *line, struct tl_cols *c, struct result_series *s)
{
    char *field[MAX_COLS];
    size_t n = split(line, field);
    for (int k = 0; k < T_COUNT; k++)
        c->at[k] = -1;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < T_COUNT; k++)
            if (strcmp(field[i], tcol_name[k]) == 0)
                c->at[k] = (int)i;
        unsigned p;
        char tail[8];
        if (sscanf(field[i], "path_%u_%7s", &p, tail) == 2 && strcmp(tail, "ios") == 0 &&
            p < MAX_PATHS && p == s->npaths)
            c->path[s->npaths++] = (int)i;
    }
    for (int k = 0; k < T_COUNT; k++)
        if (c->at[k] < 0)
            return k;
    return -1;
}

static bool tl_grow(struct result_series *s, struct tl_cols *c)
{
    size_t cap = c->cap;
    bool ok = grow((void **)&s->t_s, &cap, s->n, sizeof *s->t_s);
    double **d[] = {&s->max_latency_ms, &s->p50_ms, &s->p99_ms};
    uint64_t **u[] = {&s->reads, &s->writes, &s->errors};
    for (size_t k = 0; ok && k < 3; k++) {
        size_t c2 = c->cap;
        ok = grow((void **)d[k], &c2, s->n, sizeof **d[k]);
        c2 = c->cap;
        ok = ok && grow((void **)u[k], &c2, s->n, sizeof **u[k]);
    }
    size_t c3 = c->cap;
    ok = ok && grow((void **)&s->path_ios, &c3, s->n, sizeof *s->path_ios * (s->npaths + 1));
    c->cap = cap;
    return ok;
}

static bool tl_row(char *line, const struct tl_cols *c, struct result_series *s)
{
    char *field[MAX_COLS];
    size_t n = split(line, field), i = s->n;
    double v[T_COUNT] = {0};
    for (int k = 0; k < T_COUNT; k++) {
        if ((size_t)c->at[k] >= n)
            return false;
        const char *x = field[c->at[k]];
        if (!(k == T_P50 || k == T_P99) || *x) /* percentiles: empty where none */
            if (!num(x, &v[k]) || v[k] < 0)
                return false;
    }
    s->t_s[i] = v[T_T];
    s->reads[i] = (uint64_t)v[T_READS];
    s->writes[i] = (uint64_t)v[T_WRITES];
    s->errors[i] = (uint64_t)v[T_ERRORS];
    s->max_latency_ms[i] = v[T_MAXLAT];
    s->p50_ms[i] = v[T_P50];
    s->p99_ms[i] = v[T_P99];
    for (unsigned p = 0; p < s->npaths; p++) {
        double x;
        if ((size_t)c->path[p] >= n || !num(field[c->path[p]], &x))
            return false;
        s->path_ios[i * s->npaths + p] = (uint64_t)x;
    }
    s->n++;
    return true;
}

static FILE *open_in(const char *dir, const char *name, char *path, size_t n, char *err,
                     size_t errlen, int *rc)
{
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    *rc = 0;
    if (!f && errno != ENOENT) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        *rc = -1;
    }
    return f;
}

static int read_timeline(const char *dir, struct result_series *s, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    int rc;
    FILE *f = open_in(dir, "timeline.csv", path, sizeof path, err, errlen, &rc);
    if (!f)
        return rc;
    char *line = NULL;
    size_t cap = 0, lineno = 1;
    struct tl_cols c = {.cap = 0};
    if (getline(&line, &cap, f) < 0) {
        snprintf(err, errlen, "%s: empty", path);
        rc = -1;
    } else {
        int missing = tl_header(line, &c, s);
        if (missing >= 0) {
            snprintf(err, errlen, "%s:1: no column %s", path, tcol_name[missing]);
            rc = -1;
        }
    }
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (!tl_grow(s, &c)) {
            snprintf(err, errlen, "%s: out of memory", path);
            rc = -1;
        } else if (!tl_row(line, &c, s)) {
            snprintf(err, errlen, "%s:%zu: not a row of numbers", path, lineno);
            rc = -1;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* The sample at time t: the last one, or a new one after it. */
static long sample_at(struct result_resources *r, double t, size_t *cap)
{
    if (r->nsamples && r->t_s[r->nsamples - 1] == t)
        return (long)r->nsamples - 1;
    if (r->nsamples && t < r->t_s[r->nsamples - 1])
        return -1; /* the samples go forward */
    size_t c = *cap;
    if (!grow((void **)&r->t_s, &c, r->nsamples, sizeof *r->t_s))
        return -2;
    for (unsigned k = 0; c != *cap && k < r->nseries; k++) {
        double *more = realloc(r->series[k].values, c * sizeof *more);
        if (!more)
            return -2;
        r->series[k].values = more;
    }
    *cap = c;
    for (unsigned k = 0; k < r->nseries; k++)
        r->series[k].values[r->nsamples] = NAN;
    r->t_s[r->nsamples] = t;
    return (long)r->nsamples++;
}

/* The series of those names, made (every sample NaN) when new. */
static struct result_res_series *series_of(struct result_resources *r, char *const f[5],
                                           size_t scap, size_t *cap)
{
    for (unsigned k = 0; k < r->nseries; k++) {
        struct result_res_series *s = &r->series[k];
        if (!strcmp(s->host, f[1]) && !strcmp(s->kind, f[2]) && !strcmp(s->name, f[3]) &&
            !strcmp(s->metric, f[4]))
            return s;
    }
    if (!grow((void **)&r->series, cap, r->nseries, sizeof *r->series))
        return NULL;
    struct result_res_series *s = &r->series[r->nseries];
    memset(s, 0, sizeof *s);
    s->values = malloc((scap ? scap : 1) * sizeof *s->values);
    s->host = strdup(f[1]), s->kind = strdup(f[2]), s->name = strdup(f[3]);
    s->metric = strdup(f[4]), s->role = strdup("");
    r->nseries++; /* counted even when short of memory: freed whole */
    if (!s->values || !s->host || !s->kind || !s->name || !s->metric || !s->role)
        return NULL;
    for (size_t i = 0; i < scap; i++)
        s->values[i] = NAN;
    return s;
}

static int read_resources(const char *dir, struct result_resources *r, char *err,
                          size_t errlen)
{
    char path[PATH_MAX + 32];
    int rc;
    FILE *f = open_in(dir, "resources.csv", path, sizeof path, err, errlen, &rc);
    if (!f)
        return rc;
    char *line = NULL, *field[MAX_COLS];
    size_t cap = 0, lineno = 0, scap = 0, sercap = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        if (++lineno == 1)
            continue; /* t_s,host,kind,name,metric,value */
        double t, v;
        if (split(line, field) != 6 || !num(field[0], &t) || !num(field[5], &v)) {
            snprintf(err, errlen, "%s:%zu: not t_s,host,kind,name,metric,value", path, lineno);
            rc = -1;
            break;
        }
        long i = sample_at(r, t, &scap);
        struct result_res_series *s = i >= 0 ? series_of(r, field, scap, &sercap) : NULL;
        if (!s) {
            snprintf(err, errlen, "%s:%zu: %s", path, lineno,
                     i == -1 ? "a sample before the one above" : "out of memory");
            rc = -1;
        } else {
            s->values[i] = v;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

static char *dup_str(const struct jv *v)
{
    const char *s = jv_str(v);
    return strdup(s ? s : "");
}

/* report.json's "resources": how the CSV was sampled, each disk's role. */
static bool extras_resources(const struct jv *o, struct result_resources *r)
{
    double v;
    if (jv_num(jv_get(o, "period_s"), &v))
        r->period_s = v;
    if (jv_num(jv_get(o, "cpus"), &v))
        r->ncpus = (unsigned)v;
    jv_bool(jv_get(o, "delayacct"), &r->delayacct);
    r->why_no_disk = dup_str(jv_get(o, "why_no_disk"));
    r->client_if = dup_str(jv_get(o, "client_if"));
    const struct jv *br = jv_get(o, "bridged");
    r->bridged = calloc(jv_len(br) + 1, sizeof *r->bridged);
    for (size_t i = 0; r->bridged && i < jv_len(br); i++, r->nbridged++)
        if (!(r->bridged[i] = dup_str(jv_at(br, i))))
            return false;
    const struct jv *disks = jv_get(o, "disks");
    for (size_t i = 0; i < jv_len(disks); i++) {
        const struct jv *d = jv_at(disks, i);
        const char *host = jv_str(jv_get(d, "host")), *name = jv_str(jv_get(d, "name")),
                   *role = jv_str(jv_get(d, "role"));
        for (unsigned k = 0; host && name && role && k < r->nseries; k++) {
            struct result_res_series *s = &r->series[k];
            if (strcmp(s->kind, "disk") || strcmp(s->host, host) || strcmp(s->name, name))
                continue;
            free(s->role);
            if (!(s->role = strdup(role)))
                return false;
        }
    }
    return r->why_no_disk && r->client_if && r->bridged;
}

static int read_extras(const char *dir, struct result_series *s, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/report.json", dir);
    struct jv *doc;
    if (jv_load(path, &doc, err, errlen) != 0)
        return -1;
    s->end_known = jv_num(jv_get(doc, "workload_end"), &s->end_s);
    double b;
    if (jv_num(jv_path(doc, "baseline.buckets"), &b))
        s->baseline_buckets = (unsigned)b;
    s->description = dup_str(jv_get(doc, "scenario_description"));
    const struct jv *paths = jv_get(doc, "paths");
    size_t np = jv_len(paths);
    s->path_names = calloc(np ? np : 1, sizeof *s->path_names);
    bool ok = s->description && s->path_names;
    for (size_t i = 0; ok && i < np; i++, s->npath_names++)
        ok = (s->path_names[i] = dup_str(jv_at(paths, i))) != NULL;
    ok = ok && extras_resources(jv_get(doc, "resources"), &s->res);
    jv_free(doc);
    if (!ok)
        snprintf(err, errlen, "%s: out of memory", path);
    return ok ? 0 : -1;
}

int result_series_read(const char *dir, struct result_series *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (read_timeline(dir, s, err, errlen) != 0 ||
        read_resources(dir, &s->res, err, errlen) != 0 || read_extras(dir, s, err, errlen) != 0)
        return -1;
    s->bucket_s = s->n > 1 ? s->t_s[1] - s->t_s[0] : 0;
    return 0;
}

int result_series_clients(const char *dir, const unsigned *ranks, size_t n,
                          struct result_series *s, char *err, size_t errlen)
{
    if (!n)
        return 0;
    if (!(s->clients = calloc(n, sizeof *s->clients))) {
        snprintf(err, errlen, "%s: out of memory for the clients' timelines", dir);
        return -1;
    }
    s->nclients = n;
    for (size_t k = 0; k < n; k++) {
        char cdir[PATH_MAX];
        snprintf(cdir, sizeof cdir, "%s/client-%u", dir, ranks[k]);
        if (read_timeline(cdir, &s->clients[k], err, errlen) != 0)
            return -1;
        s->clients[k].bucket_s = s->bucket_s; /* the run's buckets and end are theirs */
        s->clients[k].end_known = s->end_known;
        s->clients[k].end_s = s->end_s;
    }
    return 0;
}

void result_series_free(struct result_series *s)
{
    for (size_t k = 0; k < s->nclients; k++)
        result_series_free(&s->clients[k]);
    free(s->clients);
    free(s->t_s);
    free(s->reads);
    free(s->writes);
    free(s->errors);
    free(s->max_latency_ms);
    free(s->p50_ms);
    free(s->p99_ms);
    free(s->path_ios);
    for (size_t i = 0; i < s->npath_names; i++)
        free(s->path_names[i]);
    free(s->path_names);
    free(s->description);
    struct result_resources *r = &s->res;
    for (unsigned k = 0; k < r->nseries; k++) {
        struct result_res_series *x = &r->series[k];
        free(x->host);
        free(x->kind);
        free(x->name);
        free(x->metric);
        free(x->role);
        free(x->values);
    }
    free(r->series);
    free(r->t_s);
    free(r->why_no_disk);
    free(r->client_if);
    for (size_t i = 0; i < r->nbridged; i++)
        free(r->bridged[i]);
    free(r->bridged);
    memset(s, 0, sizeof *s);
}

const struct result_res_series *result_res_find(const struct result_resources *res,
                                                const char *host, const char *kind,
                                                const char *name, const char *metric)
{
    for (unsigned i = 0; res && i < res->nseries; i++) {
        const struct result_res_series *s = &res->series[i];
        if (strcmp(s->metric, metric) == 0 && strcmp(s->name, name) == 0 &&
            strcmp(s->host, host) == 0 && strcmp(s->kind, kind) == 0)
            return s;
    }
    return NULL;
}
