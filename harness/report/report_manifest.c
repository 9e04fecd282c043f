/* report_manifest — see report_manifest.h. */
#include "report_manifest.h"

#include <inttypes.h>
#include <string.h>

#include "../live/manifest.h"

static void json_kv_object(struct json *j, const struct kv_list *l)
{
    for (unsigned i = 0; i < l->n; i++) {
        json_key(j, l->kv[i].key);
        json_str(j, l->kv[i].value);
    }
}

static void json_target(struct json *j, const struct manifest *m)
{
    json_key(j, "target");
    json_obj_begin(j);
    json_key(j, "kind");
    json_str(j, m->target_kind);
    json_kv_object(j, &m->target);
    if (m->lab_kind[0]) {
        json_key(j, "lab");
        json_obj_begin(j);
        json_key(j, "kind");
        json_str(j, m->lab_kind);
        json_kv_object(j, &m->lab_about);
        if (m->lab_described) {
            json_key(j, "options");
            json_obj_begin(j);
            json_kv_object(j, &m->lab_options);
            json_obj_end(j);
        }
        json_obj_end(j);
    }
    if (m->cluster_kind[0]) { /* a real cluster ([cluster]), as its storage kind says it */
        json_key(j, "cluster");
        json_obj_begin(j);
        json_key(j, "kind");
        json_str(j, m->cluster_kind);
        json_key(j, "via");
        json_str(j, m->cluster_via);
        json_kv_object(j, &m->cluster_about);
        json_key(j, "options");
        json_obj_begin(j);
        json_kv_object(j, &m->cluster_options);
        json_obj_end(j);
        json_obj_end(j);
    }
    json_obj_end(j);
}

void report_json_manifest(struct json *j, const struct report *r)
{
    const struct manifest *m = r->manifest;
    if (!m)
        return;
    json_key(j, "manifest");
    json_obj_begin(j);
    json_key(j, "faultline");
    json_obj_begin(j);
    json_key(j, "version");
    json_str(j, m->version);
    json_key(j, "build_flags");
    json_obj_begin(j);
    json_key(j, "cc");
    json_str(j, m->cc);
    json_key(j, "cflags");
    json_str(j, m->cflags);
    json_key(j, "sanitizers");
    json_str(j, m->sanitizers);
    json_obj_end(j);
    json_obj_end(j);

    json_key(j, "machine");
    json_obj_begin(j);
    json_key(j, "hostname");
    json_str(j, m->hostname);
    json_key(j, "kernel");
    json_str(j, m->kernel);
    json_key(j, "arch");
    json_str(j, m->arch);
    json_key(j, "cpu_model");
    json_str(j, m->cpu_model);
    json_key(j, "cpus");
    json_u64(j, m->cpus);
    json_key(j, "cpus_usable");
    json_u64(j, m->cpus_usable);
    json_key(j, "memory_bytes");
    json_u64(j, m->memory_bytes);
    json_obj_end(j);

    json_target(j, m);

    json_key(j, "versions");
    json_obj_begin(j);
    json_key(j, "tgtd");
    json_str(j, m->tgtd);
    json_key(j, "glusterfs");
    json_str(j, m->glusterfs);
    json_key(j, "libiscsi");
    json_str(j, m->libiscsi);
    json_key(j, "libnl");
    json_str(j, m->libnl);
    json_obj_end(j);

    json_key(j, "scenario_sha256");
    if (m->scenario_sha256[0])
        json_str(j, m->scenario_sha256);
    else
        json_null(j);
    if (!m->scenario_sha256[0]) { /* why there is no digest */
        json_key(j, "scenario_error");
        json_str(j, m->scenario_error);
    }
    json_key(j, "seed");
    json_u64(j, m->seed);

    json_key(j, "hosts");
    json_arr_begin(j);
    for (unsigned i = 0; i < m->nhosts; i++) {
        const struct manifest_host *h = &m->hosts[i];
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, h->name);
        json_key(j, "hostname");
        json_str(j, h->hostname[0] ? h->hostname : "unknown");
        json_key(j, "kernel");
        json_str(j, h->kernel[0] ? h->kernel : "unknown");
        json_key(j, "via");
        json_str(j, h->via);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_key(j, "gather_s");
    json_num(j, m->gather_s, 3);
    json_obj_end(j);
}

/* "23.5 GiB": memory sizes are never round */
static void memory(uint64_t bytes, char *out, size_t n)
{
    snprintf(out, n, "%.1f GiB", (double)bytes / (1024.0 * 1024 * 1024));
}

static void text_kv(FILE *f, const struct kv_list *l, const char *sep)
{
    for (unsigned i = 0; i < l->n; i++)
        fprintf(f, "%s%s %s", i ? sep : "", l->kv[i].key, l->kv[i].value);
}

void report_text_manifest(FILE *f, const struct report *r)
{
    const struct manifest *m = r->manifest;
    if (!m)
        return;
    char mem[32];
    memory(m->memory_bytes, mem, sizeof mem);
    fprintf(f, "\n  manifest:\n");
    fprintf(f, "    faultline  %s; %s; cflags %s; sanitizers %s\n", m->version, m->cc, m->cflags,
            m->sanitizers);
    fprintf(f, "    machine    %s, kernel %s (%s), %u CPUs (%u usable) %s, %s memory\n",
            m->hostname, m->kernel, m->arch, m->cpus, m->cpus_usable, m->cpu_model, mem);
    fprintf(f, "    target     %s: ", m->target_kind);
    text_kv(f, &m->target, ", ");
    fprintf(f, "\n");
    if (m->lab_kind[0]) {
        fprintf(f, "    lab        %s%s", m->lab_kind, m->lab_about.n ? ": " : "");
        text_kv(f, &m->lab_about, ", ");
        fprintf(f, "\n");
        if (m->lab_described) {
            fprintf(f, "    options    ");
            if (m->lab_options.n)
                text_kv(f, &m->lab_options, ", ");
            else
                fprintf(f, "all at their defaults");
            fprintf(f, "\n");
        }
    }
    if (m->cluster_kind[0]) {
        fprintf(f, "    cluster    %s, asked %s%s", m->cluster_kind, m->cluster_via,
                m->cluster_about.n ? ": " : "");
        text_kv(f, &m->cluster_about, ", ");
        fprintf(f, "\n    options    ");
        if (m->cluster_options.n)
            text_kv(f, &m->cluster_options, ", ");
        else
            fprintf(f, "all at their defaults");
        fprintf(f, "\n");
    }
    fprintf(f, "    versions   tgtd %s, glusterfs %s, libiscsi %s, libnl %s\n", m->tgtd,
            m->glusterfs, m->libiscsi, m->libnl);
    fprintf(f, "    scenario   sha256 %s, seed %" PRIu64 "\n",
            m->scenario_sha256[0] ? m->scenario_sha256 : m->scenario_error, m->seed);
    for (unsigned i = 0; i < m->nhosts; i++) {
        const struct manifest_host *h = &m->hosts[i];
        fprintf(f, "    %-10s %s, kernel %s (%s)\n", i ? "" : "hosts", h->name,
                h->kernel[0] ? h->kernel : "unknown", h->hostname[0] ? h->hostname : "unknown");
    }
}

static void row_begin(FILE *f, const char *label)
{
    fprintf(f, "<tr><td>%s</td><td>", label);
}

static void html_kv(FILE *f, const struct kv_list *l)
{
    for (unsigned i = 0; i < l->n; i++) {
        fprintf(f, "%s<code>", i ? ", " : "");
        report_escape(f, l->kv[i].key);
        fprintf(f, "</code> ");
        report_escape(f, l->kv[i].value);
    }
}

void report_html_manifest(FILE *f, const struct report *r)
{
    const struct manifest *m = r->manifest;
    if (!m)
        return;
    char line[1024], mem[32];
    memory(m->memory_bytes, mem, sizeof mem);
    fprintf(f, "<h2>Manifest</h2>\n<table class=\"meta\">");
    row_begin(f, "faultline");
    snprintf(line, sizeof line, "%s; %s; cflags %s; sanitizers %s", m->version, m->cc, m->cflags,
             m->sanitizers);
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    row_begin(f, "machine");
    snprintf(line, sizeof line, "%s, kernel %s (%s), %u CPUs (%u usable) %s, %s memory",
             m->hostname, m->kernel, m->arch, m->cpus, m->cpus_usable, m->cpu_model, mem);
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    row_begin(f, "target");
    report_escape(f, m->target_kind);
    fprintf(f, ": ");
    html_kv(f, &m->target);
    fprintf(f, "</td></tr>\n");
    if (m->lab_kind[0]) {
        row_begin(f, "lab");
        report_escape(f, m->lab_kind);
        fprintf(f, m->lab_about.n ? ": " : "");
        html_kv(f, &m->lab_about);
        fprintf(f, "</td></tr>\n");
        if (m->lab_described) {
            row_begin(f, "lab options");
            if (m->lab_options.n)
                html_kv(f, &m->lab_options);
            else
                fprintf(f, "all at their defaults");
            fprintf(f, "</td></tr>\n");
        }
    }
    if (m->cluster_kind[0]) {
        row_begin(f, "cluster");
        snprintf(line, sizeof line, "%s, asked %s%s", m->cluster_kind, m->cluster_via,
                 m->cluster_about.n ? ": " : "");
        report_escape(f, line);
        html_kv(f, &m->cluster_about);
        fprintf(f, "</td></tr>\n");
        row_begin(f, "cluster options");
        if (m->cluster_options.n)
            html_kv(f, &m->cluster_options);
        else
            fprintf(f, "all at their defaults");
        fprintf(f, "</td></tr>\n");
    }
    row_begin(f, "versions");
    snprintf(line, sizeof line, "tgtd %s, glusterfs %s, libiscsi %s, libnl %s", m->tgtd,
             m->glusterfs, m->libiscsi, m->libnl);
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    row_begin(f, "scenario");
    snprintf(line, sizeof line, "sha256 %s, seed %" PRIu64,
             m->scenario_sha256[0] ? m->scenario_sha256 : m->scenario_error, m->seed);
    report_escape(f, line);
    fprintf(f, "</td></tr>\n");
    row_begin(f, "hosts");
    for (unsigned i = 0; i < m->nhosts; i++) {
        const struct manifest_host *h = &m->hosts[i];
        snprintf(line, sizeof line, "%s: %s, kernel %s, %s", h->name,
                 h->hostname[0] ? h->hostname : "unknown", h->kernel[0] ? h->kernel : "unknown",
                 h->via);
        fprintf(f, i ? "<br>" : ""); /* one host a line */
        report_escape(f, line);
    }
    fprintf(f, "</td></tr>\n</table>\n");
}
