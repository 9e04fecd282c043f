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
    /* room for every row every bucket could touch; the chunks come later */
    s->row_chunks = (s->n * LATHIST_ROWS + BUCKET_ROW_CHUNK - 1) / BUCKET_ROW_CHUNK;
    s->row_chunk = calloc(s->row_chunks, sizeof *s->row_chunk);
    if (!s->b || !s->row_chunk) {
        buckets_free(s);
        return -1;
    }
    for (size_t i = 0; i < s->n; i++)
        clear_one(&s->b[i]);
    return 0;
}

void buckets_free(struct buckets *s)
{
    for (size_t k = 0; s->row_chunk && k < s->row_chunks; k++)
        free(s->row_chunk[k]);
    free(s->row_chunk);
    free(s->b);
    s->row_chunk = NULL;
    s->b = NULL;
    s->n = s->used = s->row_chunks = s->rows = 0;
}

uint32_t *buckets_row(const struct buckets *s, size_t k)
{
    return s->row_chunk[k / BUCKET_ROW_CHUNK][k % BUCKET_ROW_CHUNK];
}

/* A new zeroed row; its index + 1, or 0 without memory.  The chunk is
 * allocated once per BUCKET_ROW_CHUNK rows: rarely, and only by the
 * series' own thread. */
static uint32_t new_row(struct buckets *s)
{
    size_t k = s->rows;
    size_t c = k / BUCKET_ROW_CHUNK;
    if (c >= s->row_chunks || k >= UINT32_MAX)
        return 0;
    if (!s->row_chunk[c] &&
        !(s->row_chunk[c] = calloc(BUCKET_ROW_CHUNK, sizeof *s->row_chunk[c])))
        return 0;
    s->rows++;
    return (uint32_t)(k + 1);
}

int buckets_rows_reserve(struct buckets *s, size_t n)
{
    while (s->rows < n)
        if (!new_row(s))
            return -1;
    return 0;
}

/* Bin `bin` of bucket b's histogram, its row made if need be; NULL without
 * memory. */
static uint32_t *lat_bin(struct buckets *s, struct bucket *b, unsigned bin)
{
    unsigned row = bin / LATHIST_SUB;
    if (!b->lat_row[row] && !(b->lat_row[row] = new_row(s)))
        return NULL;
    return &buckets_row(s, b->lat_row[row] - 1)[bin % LATHIST_SUB];
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
    uint32_t *bin = lat_bin(s, b, lathist_bin(lat_ns));
    if (bin)
        (*bin)++;
    else
        s->lat_lost++;
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

void buckets_path(struct buckets *s, uint64_t t_ns, unsigned path)
{
    if (path >= BUCKET_PATHS)
        return;
    size_t i = (size_t)(t_ns / s->width_ns);
    if (i >= s->n)
        i = s->n - 1;
    s->b[i].path_ios[path]++;
    if (path + 1 > s->npaths)
        s->npaths = path + 1;
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
        for (unsigned p = 0; p < BUCKET_PATHS; p++)
            a->path_ios[p] += b->path_ios[p];
        for (unsigned r = 0; r < LATHIST_ROWS; r++) {
            if (!b->lat_row[r])
                continue;
            const uint32_t *src = buckets_row(from, b->lat_row[r] - 1);
            for (unsigned k = 0; k < LATHIST_SUB; k++) {
                if (!src[k])
                    continue;
                uint32_t *dst = lat_bin(to, a, r * LATHIST_SUB + k);
                if (dst)
                    *dst += src[k];
                else
                    to->lat_lost += src[k];
            }
        }
    }
    to->lat_lost += from->lat_lost;
    if (from->npaths > to->npaths)
        to->npaths = from->npaths;
    if (n > to->used)
        to->used = n;
}

void buckets_latency(const struct buckets *s, size_t first, size_t last, struct lathist *out)
{
    lathist_clear(out);
    for (size_t i = first; i <= last && i < s->used; i++) {
        const struct bucket *b = &s->b[i];
        for (unsigned r = 0; r < LATHIST_ROWS; r++) {
            if (!b->lat_row[r])
                continue;
            const uint32_t *row = buckets_row(s, b->lat_row[r] - 1);
            for (unsigned k = 0; k < LATHIST_SUB; k++)
                lathist_add_bin(out, r * LATHIST_SUB + k, row[k]);
        }
        if (b->lat_max_ns > out->max_ns)
            out->max_ns = b->lat_max_ns;
    }
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
    /* New columns go at the end of the row: readers count columns. */
    fprintf(f, "t_s,reads,writes,flushes,errors,bytes,iops,mb_s,max_latency_ms,inflight,"
               "oldest_inflight_ms,p50_latency_ms,p99_latency_ms");
    for (unsigned p = 0; p < s->npaths && p < BUCKET_PATHS; p++)
        fprintf(f, ",path_%u_ios", p);
    fputc('\n', f);
    double w = (double)s->width_ns / 1e9;
    struct lathist *h = malloc(sizeof *h);
    if (!h) {
        fclose(f);
        snprintf(err, errlen, "cannot write %s: out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < s->used; i++) {
        const struct bucket *b = &s->b[i];
        fprintf(f, "%.3f,%u,%u,%u,%u,%" PRIu64 ",%.0f,%.3f,%.3f,%u,%.3f", (double)i * w,
                b->reads, b->writes, b->flushes, b->errors, b->bytes, bucket_iops(s, i),
                (double)b->bytes / 1e6 / w, (double)b->lat_max_ns / 1e6, b->inflight,
                (double)b->oldest_age_ns / 1e6);
        /* empty where nothing completed */
        buckets_latency(s, i, i, h);
        uint64_t p50, p99;
        if (lathist_percentile(h, 50, &p50) && lathist_percentile(h, 99, &p99))
            fprintf(f, ",%.3f,%.3f", (double)p50 / 1e6, (double)p99 / 1e6);
        else
            fprintf(f, ",,");
        for (unsigned p = 0; p < s->npaths && p < BUCKET_PATHS; p++)
            fprintf(f, ",%u", b->path_ios[p]);
        fputc('\n', f);
    }
    free(h);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
