/* report_paths — see report_paths.h. */
#include "report_paths.h"

#include <stdint.h>
#include <string.h>

#include "../../lib/json.h"
#include "../lab/lab.h"

/* The paths' colours, apart from the curves' (blue IOPS, green baseline). */
static const char *const path_hue[BUCKET_PATHS] = {"#f9a825", "#8e24aa", "#00acc1", "#6d4c41"};

static unsigned paths_of(const struct report *r)
{
    return r->path_names ? r->npaths : 0;
}

void report_path_name(const struct report *r, unsigned i, char *out, size_t n)
{
    const char *portal = r->path_names[i];
    /* the host part of HOST:PORT (a bracketed IPv6 address keeps its brackets) */
    const char *colon = strrchr(portal, ':');
    size_t hostlen = colon ? (size_t)(colon - portal) : strlen(portal);
    /* the lab's hosts (known with faults or without), then the faults' */
    for (unsigned k = 0; r->lab && k < r->lab->nhosts; k++) {
        const struct lab_host *h = &r->lab->hosts[k];
        if (h->addr[0] && strlen(h->addr) == hostlen && strncmp(h->addr, portal, hostlen) == 0) {
            snprintf(out, n, "%s %s", h->name, portal);
            return;
        }
    }
    for (unsigned k = 0; k < r->nhosts; k++) {
        const struct fault_host *h = &r->hosts[k];
        if (h->addr[0] && strlen(h->addr) == hostlen && strncmp(h->addr, portal, hostlen) == 0) {
            snprintf(out, n, "%s %s", h->name, portal);
            return;
        }
    }
    snprintf(out, n, "%s", portal);
}

void report_json_paths(struct json *j, const struct report *r)
{
    json_key(j, "paths");
    json_arr_begin(j);
    for (unsigned i = 0; i < paths_of(r); i++) {
        char name[FL_URL_MAX + 64];
        report_path_name(r, i, name, sizeof name);
        json_str(j, name);
    }
    json_arr_end(j);
}

int report_path_carrier(const struct buckets *s, size_t first, size_t last)
{
    uint64_t ios[BUCKET_PATHS] = {0};
    for (size_t i = first; i <= last && i < s->used; i++)
        for (unsigned p = 0; p < BUCKET_PATHS; p++)
            ios[p] += s->b[i].path_ios[p];
    int best = -1;
    for (unsigned p = 0; p < BUCKET_PATHS; p++)
        if (ios[p] && (best < 0 || ios[p] > ios[best]))
            best = (int)p;
    return best;
}

/* Where the area of point i begins and ends: half way to its neighbours. */
static double edge(const struct frame *fr, const double *t, size_t n, size_t i, bool right)
{
    if (right)
        return svg_x(fr, i + 1 < n ? (t[i] + t[i + 1]) / 2 : t[i]);
    return svg_x(fr, i > 0 ? (t[i - 1] + t[i]) / 2 : t[i]);
}

void report_html_paths(FILE *f, const struct report *r, const struct frame *fr, size_t n,
                       const double *t, const double *iops, const int *path)
{
    unsigned np = paths_of(r) < BUCKET_PATHS ? paths_of(r) : BUCKET_PATHS;
    if (!np)
        return;
    double y0 = svg_y(fr, 0);
    fprintf(f, "<g class=\"paths\">\n");
    /* one polygon per run of points carried by the same path */
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && path[b + 1] == path[a])
            b++;
        if (path[a] >= 0 && (unsigned)path[a] < np) {
            char name[FL_URL_MAX + 64];
            report_path_name(r, (unsigned)path[a], name, sizeof name);
            fprintf(f, "<polygon class=\"path\" fill=\"%s\" points=\"%.1f,%.1f %.1f,%.1f ",
                    path_hue[path[a]], edge(fr, t, n, a, false), y0, edge(fr, t, n, a, false),
                    svg_y(fr, iops[a]));
            for (size_t i = a; i <= b; i++)
                fprintf(f, "%.1f,%.1f ", svg_x(fr, t[i]), svg_y(fr, iops[i]));
            fprintf(f, "%.1f,%.1f %.1f,%.1f\"><title>", edge(fr, t, n, b, true),
                    svg_y(fr, iops[b]), edge(fr, t, n, b, true), y0);
            fprintf(f, "%.2f s to %.2f s: I/O mostly over path %d, ", t[a], t[b], path[a]);
            report_escape(f, name);
            fprintf(f, "</title></polygon>\n");
        }
        a = b + 1;
    }
    fprintf(f, "</g>\n");
}

void report_html_path_keys(FILE *f, const struct report *r)
{
    unsigned np = paths_of(r) < BUCKET_PATHS ? paths_of(r) : BUCKET_PATHS;
    for (unsigned p = 0; p < np; p++) {
        char name[FL_URL_MAX + 64], text[FL_URL_MAX + 96];
        report_path_name(r, p, name, sizeof name);
        snprintf(text, sizeof text, "path %u: %s", p, name);
        svg_legend(f, path_hue[p], KEY_AREA, text);
    }
}
