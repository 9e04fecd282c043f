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
    if (m->scenario_sha256[0]) {
        json_str(j, m->scenario_sha256);
    } else {
        json_null(j);
        json_key(j, "scenario_error"); /* why there is no digest */
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
