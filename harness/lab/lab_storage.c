/* lab_storage — what a lab lends a run: where its target is, and the
 * storage it runs with the CLI, files and settings of the lab.  See lab.h. */
#include <stdio.h>
#include <string.h>

#include "lab_disk.h"
#include "lab_kind.h"

static int storage_cli(const struct storage *st, char *const argv[], char *out, size_t outlen,
                       int timeout_ms)
{
    const struct lab *lab = st->at;
    return lab->kind->serve->cli(lab, argv, out, outlen, timeout_ms);
}

static void storage_logs(const struct storage *st, const char *which, storage_line_fn fn,
                         void *ctx)
{
    const struct lab *lab = st->at;
    lab->kind->serve->logs(lab, which, fn, ctx);
}

/* A [lab] key's value as the lab was brought up with it: a duration (ns)
 * or a count. */
static bool storage_setting(const struct storage *st, const char *name, uint64_t *value)
{
    const struct lab *lab = st->at;
    const struct key_def *k = key_find(lab->kind->keys.keys, lab->kind->keys.n, name);
    if (!k || (k->type != KEY_DURATION && k->type != KEY_COUNT) || k->len != sizeof *value)
        return false;
    memcpy(value, (const unsigned char *)&lab->opts + k->off, sizeof *value);
    return true;
}

/* "mds.cs1": the address of host cs1; the kind knows other names. */
static void storage_address(const struct storage *st, const char *name, char *out, size_t n)
{
    const struct lab *lab = st->at;
    const char *dot = strchr(name, '.');
    const struct lab_host *h = dot ? lab_host(lab, dot + 1) : NULL;
    out[0] = '\0';
    if (h)
        snprintf(out, n, "%s", h->addr);
    else if (lab->kind->serve->address)
        lab->kind->serve->address(lab, name, out, n);
}

bool lab_storage(const struct lab *lab, struct storage *st)
{
    memset(st, 0, sizeof *st);
    if (!lab->kind->serve->storage || !lab->kind->serve->cli)
        return false;
    struct lab_place p;
    lab_place_of(lab, &p);
    st->kind = lab->kind->serve->storage;
    snprintf(st->volume, sizeof st->volume, "%s", p.name);
    st->cli = storage_cli;
    st->at = lab;
    snprintf(st->where, sizeof st->where, "in the %s lab (prefix %s)", lab->kind->name,
             lab->prefix);
    st->logs = lab->kind->serve->logs ? storage_logs : NULL;
    st->setting = storage_setting;
    st->address = storage_address;
    return true;
}

/* The storage as the kind, or its storage kind, describes it. */
static bool describe_storage(const struct lab *lab, struct kv_list *about,
                             struct kv_list *options)
{
    if (lab->kind->report->describe) {
        lab->kind->report->describe(lab, about, options);
        return true;
    }
    struct storage st;
    if (!lab_storage(lab, &st) || !st.kind->describe)
        return false;
    st.kind->describe(&st, about, options);
    return true;
}

bool lab_describe(const struct lab *lab, struct kv_list *about, struct kv_list *options)
{
    bool described = describe_storage(lab, about, options);
    /* [lab] disk_faults: whether the servers' disks were on the disk layer
     * (told beside the storage, also by a kind that runs none: iscsi) */
    if (lab->kind->faults->disk)
        kv_add(about, "disk_faults", "%s", lab_disk_faults(lab) ? "yes" : "no");
    return described;
}

void lab_place_for(const struct lab *lab, unsigned client, struct lab_place *p)
{
    memset(p, 0, sizeof *p);
    if (lab->kind->serve->place)
        lab->kind->serve->place(lab, client <= lab->nclients ? client : 0, p);
}

void lab_place_of(const struct lab *lab, struct lab_place *p)
{
    lab_place_for(lab, 0, p);
}
