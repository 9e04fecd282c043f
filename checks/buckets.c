/* buckets — see buckets.h. */
#include "buckets.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void clear_one(struct bucket *b)
{
    memset(b, 0, sizeof *b);
    b->first_ns = b->first_ok_ns = BUCKET_NONE;
}

int buckets_init(struct buckets *s, uint64_t width_ns, uint64_t span_ns)
{
    memset(s, 0, sizeof *s);
    s->width_ns = width_ns ? width_ns : 100000000ull;
    s->n = (size_t)(span_ns / s->width_ns) + 2;
    s->b = malloc(s->n * sizeof *s->b);
    if (!s->b)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        clear_one(&s->b[i]);
    return 0;
}

void buckets_free(struct buckets *s)
{
    free(s->b);
    s->b = NULL;
    s->n = s->used = 0;
}

void buckets_add(struct buckets *s, uint64_t t_ns, bool read, bool write, bool ok,
                 uint64_t bytes, uint64_t lat_ns)
{
    size_t i = (size_t)(t_ns / s->width_ns);
    if (i >= s->n)
        i = s->n - 1; /* past the planned span (a long drain): the last bucket */
    struct bucket *b = &s->b[i];
    if (!ok)
        b->errors++;
    else if (read)
        b->reads++;
    else if (write)
        b->writes++;
    else
        b->flushes++;
    if (ok)
        b->bytes += bytes;
    if (lat_ns > b->lat_max_ns)
        b->lat_max_ns = lat_ns;
    if (b->first_ns == BUCKET_NONE || t_ns < b->first_ns)
        b->first_ns = t_ns;
    if (t_ns > b->last_ns)
        b->last_ns = t_ns;
    if (ok && (read || write)) {
        if (b->first_ok_ns == BUCKET_NONE || t_ns < b->first_ok_ns)
            b->first_ok_ns = t_ns;
        if (t_ns > b->last_ok_ns)
            b->last_ok_ns = t_ns;
    }
    if (i + 1 > s->used)
        s->used = i + 1;
}

void buckets_merge(struct buckets *to, const struct buckets *from)
{
    size_t n = from->used < to->n ? from->used : to->n;
    for (size_t i = 0; i < n; i++) {
        struct bucket *a = &to->b[i];
        const struct bucket *b = &from->b[i];
        a->reads += b->reads;
        a->writes += b->writes;
        a->flushes += b->flushes;
        a->errors += b->errors;
        a->bytes += b->bytes;
        if (b->lat_max_ns > a->lat_max_ns)
            a->lat_max_ns = b->lat_max_ns;
        if (b->first_ns < a->first_ns)
            a->first_ns = b->first_ns;
        if (b->last_ns > a->last_ns)
            a->last_ns = b->last_ns;
        if (b->first_ok_ns < a->first_ok_ns)
            a->first_ok_ns = b->first_ok_ns;
        if (b->last_ok_ns > a->last_ok_ns)
            a->last_ok_ns = b->last_ok_ns;
        /* sampled: several clients' I/Os in flight add up */
        a->inflight += b->inflight;
        if (b->oldest_age_ns > a->oldest_age_ns)
            a->oldest_age_ns = b->oldest_age_ns;
    }
    if (n > to->used)
        to->used = n;
}

double bucket_iops(const struct buckets *s, size_t i)
{
    const struct bucket *b = &s->b[i];
    return (double)(b->reads + b->writes) * 1e9 / (double)s->width_ns;
}

int buckets_write_csv(const struct buckets *s, const char *dir, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/timeline.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "t_s,reads,writes,flushes,errors,bytes,iops,mb_s,max_latency_ms,inflight,"
               "oldest_inflight_ms\n");
    double w = (double)s->width_ns / 1e9;
    for (size_t i = 0; i < s->used; i++) {
        const struct bucket *b = &s->b[i];
        fprintf(f, "%.3f,%u,%u,%u,%u,%" PRIu64 ",%.0f,%.3f,%.3f,%u,%.3f\n", (double)i * w,
                b->reads, b->writes, b->flushes, b->errors, b->bytes, bucket_iops(s, i),
                (double)b->bytes / 1e6 / w, (double)b->lat_max_ns / 1e6, b->inflight,
                (double)b->oldest_age_ns / 1e6);
    }
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
