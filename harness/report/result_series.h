/*
 * result_series — a run's numbers over time, read back from the files the
 * run wrote next to report.json, for the plots of report.html:
 *
 *   timeline.csv    one row per bucket: t_s, reads, writes, flushes, errors,
 *                   bytes, iops, mb_s, max_latency_ms, inflight,
 *                   oldest_inflight_ms, p50_latency_ms, p99_latency_ms (empty
 *                   where nothing completed), then path_N_ios per path of
 *                   the backend (checks/buckets.c: columns are found by
 *                   their names, new ones may follow)
 *   resources.csv   t_s,host,kind,name,metric,value: one row per series and
 *                   sample (harness/live/resources.h); a series not measured
 *                   at a sample has no row there (NaN here)
 *   report.json     what neither CSV says and the plots need (extras below):
 *                   the end of the workload, the paths' names, how
 *                   resources.csv was sampled; and two words of the page
 *                   that struct result does not hold
 *
 * A file that is missing reads as no series (n, nsamples 0): a verify, or
 * a run that sampled no resources.  A file that is there but wrong is an
 * error.
 */
#ifndef FL_RESULT_SERIES_H
#define FL_RESULT_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One line of resources.csv over time: values[i] at samples t_s[i] (NaN:
 * not measured then). */
struct result_res_series {
    char *host, *kind, *name, *metric;
    char *role;           /* a disk: what it carries ("target"), from report.json; "" */
    double *values;
};

struct result_resources {
    size_t nsamples;
    double *t_s;          /* each sample's time, s since time zero */
    struct result_res_series *series; /* in the order of their first row */
    unsigned nseries;
    /* report.json "resources" (0, false, "" in an older one) */
    double period_s;      /* 0: unknown (the plots take the samples' spacing) */
    unsigned ncpus;
    bool delayacct;       /* lab hosts' iowait is counted */
    char *why_no_disk;    /* no disk sampled for the target: why; "" */
    char *client_if;      /* the lab client's own interface; "" */
    char **bridged;       /* the machine's interfaces that are a switch's part */
    size_t nbridged;
};

struct result_series {
    /* timeline.csv */
    size_t n;             /* rows (buckets); 0: no timeline */
    double bucket_s;      /* a row's width */
    double *t_s;          /* a row's start */
    uint64_t *reads, *writes, *errors;
    double *max_latency_ms;
    double *p50_ms, *p99_ms; /* 0 where nothing completed */
    unsigned npaths;      /* path_N_ios columns */
    uint64_t *path_ios;   /* [row * npaths + path] */
    /* report.json */
    bool end_known;
    double end_s;         /* "workload_end": rows after it are the drain */
    char **path_names;    /* "paths": [i] names path_i_ios's path */
    size_t npath_names;
    unsigned baseline_buckets; /* "baseline.buckets": how many the median is of; 0 */
    char *description;    /* "scenario_description": the scenario's one line; "" */
    /* resources.csv */
    struct result_resources res;
    /* a run over several clients: each client's own DIR/client-R/timeline.csv,
     * in the order of report.json's "clients" (n 0 where there is none) */
    struct result_series *clients;
    size_t nclients;
};

/* Reads DIR/timeline.csv, DIR/resources.csv and the extras of
 * DIR/report.json into s.  0, or -1 with err (the file, the line, what is
 * wrong).  result_series_free(s) either way. */
int result_series_read(const char *dir, struct result_series *s, char *err, size_t errlen);

void result_series_free(struct result_series *s);

/* The clients' own timelines into s->clients, ranks[0..n) as report.json
 * lists them.  0, or -1 with err (a file there but not a timeline). */
int result_series_clients(const char *dir, const unsigned *ranks, size_t n,
                          struct result_series *s, char *err, size_t errlen);

/* The series of (host, kind, name, metric), or NULL. */
const struct result_res_series *result_res_find(const struct result_resources *res,
                                                const char *host, const char *kind,
                                                const char *name, const char *metric);

#endif
