/*
 * scrub — asks a lab that keeps replicas to check one server's copy
 * against the others now (`replica = NAME`), as its periodic scrub would
 * some day: ceph deep-scrubs the data pool's placement groups, reading
 * every copy and comparing them.  What the scrub finds comes back as path
 * events from the servers' logs (ceph: scrub-errors), and storage with
 * damage found is not whole, so the recover check says what is pending.
 * The lab says the command (lab_replica.scrub); a lab that has none
 * refuses the fault before the run.  Instant: nothing to undo.
 */
#include <stdio.h>
#include <string.h>

#include "../../lib/proc.h"
#include "../fault.h"
#include "../runtime.h"

#define SCRUB_TIMEOUT_MS 30000

struct scrub_params {
    char replica[16];
};
_Static_assert(sizeof(struct scrub_params) <= FAULT_PARAMS_MAX, "scrub params");

static const struct key_def scrub_keys[] = {
    {"replica", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct scrub_params, replica), 0, 0,
     "scrub: the server whose copy is checked against the others (ceph: cs1..cs3; a deep "
     "scrub of the data pool) (required)", 0},
};

static const struct scrub_params *params(const struct fault_spec *s)
{
    return FAULT_PARAMS(s, const struct scrub_params);
}

static int scrub_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                       size_t errlen)
{
    (void)r;
    if (params(s)->replica[0])
        return 0;
    snprintf(err, errlen, "[fault %s] scrub needs replica = NAME (a server of the lab)", s->name);
    return -1;
}

static void scrub_schedule(const struct fault_spec *s, struct fault_schedule *out)
{
    (void)s;
    *out = (struct fault_schedule){.shape = FAULT_INSTANT};
}

/* The lab's scrub of that replica; 0, or -1 with err. */
static int scrub_of(const struct fault *f, struct lab_replica *r, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    const char *name = params(&f->spec)->replica;
    char why[512];
    if (!lab || !lab->replica) {
        snprintf(err, errlen, "scrub of %s: only on a lab that keeps replicas (%s)", name,
                 f->env->replica_labs);
        return -1;
    }
    if (lab->replica(lab->ctx, name, r, why, sizeof why) != 0) {
        snprintf(err, errlen, "scrub of %s: %s", name, why);
        return -1;
    }
    if (!r->scrub[0]) {
        snprintf(err, errlen, "scrub of %s: this lab cannot scrub on demand", name);
        return -1;
    }
    return 0;
}

static int scrub_prepare(struct fault *f, char *err, size_t errlen)
{
    struct lab_replica r;
    return scrub_of(f, &r, err, errlen);
}

static int scrub_inject(struct fault *f, char *err, size_t errlen)
{
    struct lab_replica r;
    if (scrub_of(f, &r, err, errlen) != 0)
        return -1;
    char *argv[] = {"/bin/sh", "-c", r.scrub, NULL};
    char out[1024];
    int st = proc_run_at(&r.at, argv, out, sizeof out, SCRUB_TIMEOUT_MS);
    if (st != 0) {
        snprintf(err, errlen, "scrub of %s: `%s` failed (%d): %.400s", params(&f->spec)->replica,
                 r.scrub, st, out);
        return -1;
    }
    return 0;
}

static void scrub_describe(const struct fault *f, char *out, size_t n)
{
    snprintf(out, n, "%s's copy checked against the others (the lab's scrub, on demand)",
             params(&f->spec)->replica);
}

const struct fault_ops fault_scrub = {
    .action = "scrub",
    .keys = scrub_keys,
    .nkeys = sizeof scrub_keys / sizeof scrub_keys[0],
    .check = scrub_check,
    .schedule = scrub_schedule,
    .prepare = scrub_prepare,
    .inject = scrub_inject,
    .describe = scrub_describe,
};
