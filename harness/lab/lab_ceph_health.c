/* lab_ceph_health — the cluster's health as it says it: its view through
 * the CLI, the waits of bring-up, the lab's health check, `lab status` and
 * the manifest.  See lab_ceph.h. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/clock.h"
#include "../../lib/json.h"
#include "../../lib/proc.h"
#include "../../lib/units.h"
#include "../storage/ceph.h"
#include "lab_ceph.h"
#include "lab_names.h"

/* What the cluster says of itself now (storage_ceph_view, through the
 * lab's CLI). */
int ceph_cluster_view(const struct lab *lab, struct ceph_view *v, char *err, size_t errlen)
{
    struct storage st;
    lab_storage(lab, &st);
    return storage_ceph_view(&st, v, err, errlen);
}

/* What a wait waits for. */
typedef bool (*ceph_view_test)(const struct lab *lab, const struct ceph_view *v);

bool ceph_quorum_formed(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->quorum == NSERVERS;
}

bool ceph_osds_up(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->osds == NSERVERS && v->osds_up == NSERVERS && v->osds_in == NSERVERS;
}

bool ceph_pgs_active(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->pgs > 0 && v->pgs_active == v->pgs;
}

bool ceph_mds_active(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->active[0] != '\0';
}

bool ceph_mds_ready(const struct lab *lab, const struct ceph_view *v)
{
    (void)lab;
    return v->active[0] != '\0' && v->mds_standby >= 1;
}

/* Waits (bounded) until test holds; err says what was seen last. */
int ceph_wait_view(const struct lab *lab, ceph_view_test test, const char *what, unsigned secs,
                     char *err, size_t errlen)
{
    uint64_t until = mono_ns() + secs * SECOND;
    struct ceph_view v;
    char last[512] = "no answer";
    for (;;) {
        if (ceph_cluster_view(lab, &v, last, sizeof last) == 0) {
            if (test(lab, &v))
                return 0;
            snprintf(last, sizeof last, "quorum %u of %u (%s), OSDs %u up and %u in of %u, "
                     "placement groups %u active of %u, MDS active '%s' with %u standby, %s",
                     v.quorum, v.mons, v.quorum_names, v.osds_up, v.osds_in, v.osds,
                     v.pgs_active, v.pgs, v.active, v.mds_standby, v.health);
        }
        if (mono_ns() > until) {
            snprintf(err, errlen, "no %s within %u s: %s", what, secs, last);
            return -1;
        }
        lab_pause_ms(1000); /* each question starts the ceph CLI: 0.4 s of CPU */
    }
}

/* The cluster as lab up left it, which the next run on a shared lab
 * relies on: cs1's MDS the active one with cs2's standby (a scenario that
 * kills "the active MDS on cs1" would otherwise kill a standby). */
bool ceph_as_built(const struct lab *lab, char *why, size_t n)
{
    struct ceph_view v;
    char err[512];
    if (ceph_cluster_view(lab, &v, err, sizeof err) != 0) {
        snprintf(why, n, "the cluster does not answer: %s", err);
        return false;
    }
    if (strcmp(v.active, lab->hosts[1].name) != 0 || v.mds_standby < 1) {
        snprintf(why, n, "the active MDS is %s with %u standby, not %s's with a standby as "
                 "the lab was built", v.active[0] ? v.active : "none", v.mds_standby,
                 lab->hosts[1].name);
        return false;
    }
    return true;
}

bool ceph_healthy(const struct lab *lab, char *why, size_t n)
{
    for (unsigned i = 1; i < lab->nhosts; i++) {
        const struct lab_host *h = &lab->hosts[i];
        for (size_t k = 0; k < NDAEMONS; k++) {
            uint64_t start;
            if (ceph_runs(&ceph_daemons[k], h) && !ceph_live_daemon(h, ceph_daemons[k].comm, &start)) {
                snprintf(why, n, "no %s runs on %s", ceph_daemons[k].comm, h->name);
                return false;
            }
        }
    }
    const char *mount = priv(lab)->mount;
    struct stat a, b;
    char parent[200];
    snprintf(parent, sizeof parent, "%s/..", mount);
    if (stat(mount, &a) != 0 || stat(parent, &b) != 0 || a.st_dev == b.st_dev) {
        snprintf(why, n, "the filesystem is not mounted at %s", mount);
        return false;
    }
    return true;
}

/* The value of [lab] key k, as the table has it (a duration: whole
 * seconds; every key of the table is a duration or yes/no). */
static uint64_t option_secs(const struct lab *lab, const struct key_def *k)
{
    uint64_t ns;
    memcpy(&ns, (const unsigned char *)&lab->opts + k->off, sizeof ns);
    return seconds(ns);
}

static bool option_bool(const struct lab *lab, const struct key_def *k)
{
    bool b;
    memcpy(&b, (const unsigned char *)&lab->opts + k->off, sizeof b);
    return b;
}

/* For people and the manifest: "15s", "no". */
static void option_text(const struct lab *lab, const struct key_def *k, char *out, size_t n)
{
    if (k->type == KEY_DURATION)
        snprintf(out, n, "%llus", (unsigned long long)option_secs(lab, k));
    else
        snprintf(out, n, "%s", option_bool(lab, k) ? "yes" : "no");
}

/* For `lab status --json`: durations as whole seconds (NAME_s), yes/no as
 * booleans. */
static void json_options(const struct lab *lab, struct json *j)
{
    for (size_t k = 0; k < lab->kind->keys.n; k++) {
        const struct key_def *d = &lab->kind->keys.keys[k];
        char name[48];
        if (d->type == KEY_DURATION) {
            snprintf(name, sizeof name, "%s_s", d->name);
            json_key(j, name);
            json_u64(j, option_secs(lab, d));
        } else {
            json_key(j, d->name);
            json_bool(j, option_bool(lab, d));
        }
    }
}

void ceph_status(const struct lab *lab, struct json *j, FILE *out)
{
    const struct ceph_lab *c = priv(lab);
    struct ceph_view v;
    char err[512] = "";
    bool seen = ceph_cluster_view(lab, &v, err, sizeof err) == 0;
    if (j) {
        json_key(j, "ceph");
        json_obj_begin(j);
        json_key(j, "fsid");
        json_str(j, c->fsid);
        json_key(j, "fs");
        json_str(j, c->fs);
        json_key(j, "pools");
        json_arr_begin(j);
        json_str(j, c->meta);
        json_str(j, c->data);
        json_arr_end(j);
        json_key(j, "mount");
        json_str(j, c->mount);
        json_key(j, "conf");
        json_str(j, c->conf);
        json_key(j, "osd_bytes");
        json_u64(j, lab->opts.size);
        json_options(lab, j);
        if (!seen) {
            json_key(j, "error");
            json_str(j, err);
        } else {
            json_key(j, "quorum");
            json_u64(j, v.quorum);
            json_key(j, "quorum_names");
            json_str(j, v.quorum_names);
            json_key(j, "osds");
            json_u64(j, v.osds);
            json_key(j, "osds_up");
            json_u64(j, v.osds_up);
            json_key(j, "osds_in");
            json_u64(j, v.osds_in);
            json_key(j, "pgs");
            json_u64(j, v.pgs);
            json_key(j, "pgs_active_clean");
            json_u64(j, v.pgs_clean);
            json_key(j, "mds_active");
            json_str(j, v.active);
            json_key(j, "mds_standby");
            json_u64(j, v.mds_standby);
            json_key(j, "health");
            json_str(j, v.health);
        }
        json_obj_end(j);
        return;
    }
    char size[32];
    format_size(lab->opts.size, size, sizeof size);
    fprintf(out, "  ceph    fs %s over pools %s and %s (size 3, min_size 2), OSDs of %s "
                 "(bluestore), fsid %s\n", c->fs, c->meta, c->data, size, c->fsid);
    fprintf(out, "         ");
    for (size_t k = 0; k < lab->kind->keys.n; k++) {
        char v[64];
        option_text(lab, &lab->kind->keys.keys[k], v, sizeof v);
        fprintf(out, "%s %s %s", k ? "," : "", lab->kind->keys.keys[k].name, v);
    }
    fputc('\n', out);
    if (seen)
        fprintf(out, "          quorum %u of %u (%s), OSDs %u up, %u in of %u, placement groups "
                     "%u active+clean of %u, MDS active %s with %u standby, %s\n",
                v.quorum, v.mons, v.quorum_names, v.osds_up, v.osds_in, v.osds, v.pgs_clean,
                v.pgs, v.active[0] ? v.active : "none", v.mds_standby, v.health);
    else
        fprintf(out, "          the cluster does not answer: %s\n", err);
    fprintf(out, "  mount   %s (ceph-fuse, pid %d %s)\n", c->mount, (int)lab->hosts[0].pid,
            proc_state_name(proc_state(lab->hosts[0].pid, lab->hosts[0].start)));
}

/* For the manifest: the cluster's version, its filesystem and pools. */
void ceph_describe(const struct lab *lab, struct kv_list *about, struct kv_list *options)
{
    const struct ceph_lab *c = priv(lab);
    struct storage st;
    char out[512];
    lab_storage(lab, &st);
    if (storage_ceph_version(&st, out, sizeof out) == 0)
        kv_add(about, "version", "%s", out);
    else
        kv_add(about, "error", "%s", out);
    kv_add(about, "fs", "%s", c->fs);
    kv_add(about, "pools", "%s, %s: replicated, size 3, min_size 2, %s placement groups each",
           c->meta, c->data, PG_NUM);
    for (size_t k = 0; k < lab->kind->keys.n; k++) {
        char v[64];
        option_text(lab, &lab->kind->keys.keys[k], v, sizeof v);
        kv_add(options, lab->kind->keys.keys[k].name, "%s", v);
    }
}
