/*
 * result_html_manifest — the "Manifest" table of report.html, from the
 * record's manifest tree (report.json's "manifest", report_manifest.c):
 * faultline's build, the machine, the target (and its lab or cluster), the
 * versions of what it ran with, the scenario's digest and seed, the hosts.
 */
#include <inttypes.h>
#include <string.h>

#include "../../lib/jread.h"
#include "result_html_parts.h"

/* A string of the tree, "" when it is not there. */
static const char *str(const struct jv *v, const char *path)
{
    const char *s = jv_str(jv_path(v, path));
    return s ? s : "";
}

static double number(const struct jv *v, const char *path)
{
    double x = 0;
    jv_num(jv_path(v, path), &x);
    return x;
}

static void row_begin(FILE *f, const char *label)
{
    fprintf(f, "<tr><td>%s</td><td>", label);
}

/* The string members of o but the keys of skip, as "<code>key</code>
 * value", comma separated; how many. */
static size_t html_kv(FILE *f, const struct jv *o, const char *const *skip)
{
    size_t shown = 0;
    for (size_t i = 0; o && o->type == JV_OBJ && i < o->n; i++) {
        bool skipped = false;
        for (const char *const *k = skip; k && *k && !skipped; k++)
            skipped = strcmp(o->key[i], *k) == 0;
        const char *v = jv_str(&o->item[i]);
        if (skipped || !v)
            continue;
        fprintf(f, "%s<code>", shown++ ? ", " : "");
        report_escape(f, o->key[i]);
        fprintf(f, "</code> ");
        report_escape(f, v);
    }
    return shown;
}

static size_t count_kv(const struct jv *o, const char *const *skip)
{
    size_t n = 0;
    for (size_t i = 0; o && o->type == JV_OBJ && i < o->n; i++) {
        bool skipped = false;
        for (const char *const *k = skip; k && *k && !skipped; k++)
            skipped = strcmp(o->key[i], *k) == 0;
        n += !skipped && jv_str(&o->item[i]);
    }
    return n;
}

/* options: "all at their defaults" when empty. */
static void options_row(FILE *f, const char *label, const struct jv *o)
{
    row_begin(f, label);
    if (!html_kv(f, o, NULL))
        fprintf(f, "all at their defaults");
    fprintf(f, "</td></tr>\n");
}

/* The target, and its lab or cluster when it has one. */
static void target_rows(FILE *f, const struct jv *t)
{
    static const char *const skip[] = {"kind", "lab", "cluster", NULL};
    static const char *const about[] = {"kind", "via", "options", NULL};
    row_begin(f, "target");
    report_escape(f, str(t, "kind"));
    fprintf(f, ": ");
    html_kv(f, t, skip);
    fprintf(f, "</td></tr>\n");
    const struct jv *lab = jv_get(t, "lab");
    if (lab && str(lab, "kind")[0]) {
        row_begin(f, "lab");
        report_escape(f, str(lab, "kind"));
        fprintf(f, count_kv(lab, about) ? ": " : "");
        html_kv(f, lab, about);
        fprintf(f, "</td></tr>\n");
        if (jv_get(lab, "options"))
            options_row(f, "lab options", jv_get(lab, "options"));
    }
    const struct jv *cl = jv_get(t, "cluster");
    if (cl && str(cl, "kind")[0]) {
        char line[1024];
        row_begin(f, "cluster");
        snprintf(line, sizeof line, "%s, asked %s%s", str(cl, "kind"), str(cl, "via"),
                 count_kv(cl, about) ? ": " : "");
        report_escape(f, line);
        html_kv(f, cl, about);
        fprintf(f, "</td></tr>\n");
        options_row(f, "cluster options", jv_get(cl, "options"));
    }
}

static void hosts_row(FILE *f, const struct jv *hosts)
{
    row_begin(f, "hosts");
    for (size_t i = 0; i < jv_len(hosts); i++) {
        const struct jv *h = jv_at(hosts, i);
        char line[1024];
        const char *hostname = str(h, "hostname"), *kernel = str(h, "kernel");
        snprintf(line, sizeof line, "%s: %s, kernel %s, %s", str(h, "name"),
                 hostname[0] ? hostname : "unknown", kernel[0] ? kernel : "unknown",
                 str(h, "via"));
        fprintf(f, i ? "<br>" : ""); /* one host a line */
        report_escape(f, line);
    }
    fprintf(f, "</td></tr>\n");
}

void result_html_manifest(FILE *f, const struct result *res)
{
    const struct jv *m = res->manifest;
    if (!m || m->type != JV_OBJ)
        return;
    char line[2048];
    fprintf(f, "<h2>Manifest</h2>\n<table class=\"meta\">");
    row_begin(f, "faultline");
    snprintf(line, sizeof line, "%s; %s; cflags %s; sanitizers %s", str(m, "faultline.version"),
             str(m, "faultline.build_flags.cc"), str(m, "faultline.build_flags.cflags"),
             str(m, "faultline.build_flags.sanitizers"));
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    row_begin(f, "machine");
    /* "23.5 GiB": memory sizes are never round */
    snprintf(line, sizeof line, "%s, kernel %s (%s), %.0f CPUs (%.0f usable) %s, %.1f GiB memory",
             str(m, "machine.hostname"), str(m, "machine.kernel"), str(m, "machine.arch"),
             number(m, "machine.cpus"), number(m, "machine.cpus_usable"),
             str(m, "machine.cpu_model"),
             number(m, "machine.memory_bytes") / (1024.0 * 1024 * 1024));
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    target_rows(f, jv_get(m, "target"));
    row_begin(f, "versions");
    snprintf(line, sizeof line, "tgtd %s, glusterfs %s, libiscsi %s, libnl %s",
             str(m, "versions.tgtd"), str(m, "versions.glusterfs"), str(m, "versions.libiscsi"),
             str(m, "versions.libnl"));
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    row_begin(f, "scenario");
    const struct jv *seed = jv_get(m, "seed");
    const char *sha = str(m, "scenario_sha256"), *why = str(m, "scenario_error");
    snprintf(line, sizeof line, "sha256 %s, seed %s", sha[0] ? sha : why[0] ? why : "unknown",
             seed && seed->type == JV_NUM && seed->str ? seed->str : "unknown");
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    hosts_row(f, jv_get(m, "hosts"));
    fprintf(f, "</table>\n");
}
