/*
 * switchover — a planned move of an HA cluster's resources to another
 * node, as an admin makes one for maintenance, with Pacemaker's own CLI on
 * the fault's host:
 *
 *   inject  crm_resource --move --resource R [--node TO]: a constraint that
 *           moves R; the cluster stops it where it runs and starts it
 *           elsewhere
 *   clear   (after `duration`, or at the end of the workload) once
 *           crm_resource --locate says R runs elsewhere (or on TO), within
 *           `timeout` of the inject: crm_resource --clear --resource R, the
 *           constraint gone (stickiness keeps R where it went).  A move that
 *           did not happen fails the clear (the constraint is cleared all the
 *           same): the fault did not happen as written.
 *
 * On a lab host the lab runs them inside the host's namespaces
 * (fault_lab.run: the cluster's IPC needs its /dev/shm); on any other host
 * in its network namespace (over ssh, its agent runs them there), with the
 * clear in the undo log, so that `faultline cleanup` removes a constraint a
 * killed run left.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../lib/clock.h"
#include "../../lib/proc.h"
#include "../fault.h"
#include "../runtime.h"

#define CLI_TIMEOUT_MS 30000
#define POLL_MS 250

struct switchover_params {
    char resource[128];
    char to[64];
    uint64_t timeout_ns;
};
_Static_assert(sizeof(struct switchover_params) <= FAULT_PARAMS_MAX, "switchover params");

static const struct key_def switchover_keys[] = {
    FAULT_KEY_DURATION,
    {"resource", KEY_TEXT, "target-group", NULL,
     FAULT_PARAM(struct switchover_params, resource), 0, 0,
     "switchover: the resource or group to move (the ha lab's: target-group)", 0},
    {"to", KEY_TEXT, "", NULL, FAULT_PARAM(struct switchover_params, to), 0, 0,
     "switchover: the node to move it to (default: away from the node it runs on)", 0},
    {"timeout", KEY_DURATION, "60s", NULL, FAULT_PARAM(struct switchover_params, timeout_ns),
     1000000000ull, 3600000000000ull,
     "switchover: how long the move may take before the inject fails", 0},
};

static const struct switchover_params *params(const struct fault_spec *s)
{
    return FAULT_PARAMS(s, const struct switchover_params);
}

/* What it found and did, for the report. */
struct switchover_state {
    char from[64], to[64];
    uint64_t moved_ns; /* the move's inject, mono_ns */
};

/* A name as Pacemaker's ids and node names are (the undo's command line
 * takes the resource's as it is). */
static bool a_name(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

static int switchover_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                            size_t errlen)
{
    (void)r;
    const struct switchover_params *p = params(s);
    if (!p->resource[0] || !a_name(p->resource) || !a_name(p->to)) {
        snprintf(err, errlen, "[fault %s] switchover: resource and to are a resource's and a "
                 "node's name (letters, digits, '-', '_', '.'): '%s', '%s'", s->name,
                 p->resource, p->to);
        return -1;
    }
    return 0;
}

static void switchover_schedule(const struct fault_spec *s, struct fault_schedule *out)
{
    *out = (struct fault_schedule){.shape = FAULT_LASTING, .clear_after_ns = s->duration_ns};
}

/* argv on the fault's host: through the lab, or in its namespace. */
static int run(const struct fault *f, char *const argv[], char *out, size_t outlen)
{
    const struct fault_lab *lab = f->env->lab;
    if (f->host.lab && lab && lab->run)
        return lab->run(lab->ctx, f->host.name, argv, out, outlen, CLI_TIMEOUT_MS);
    return proc_run_in(f->host.netns, argv, out, outlen, CLI_TIMEOUT_MS);
}

/* The node R runs on, as crm_resource --locate says ("" none, with why). */
static int locate(const struct fault *f, char *node, size_t n, char *why, size_t whylen)
{
    char out[1024];
    char *argv[] = {"crm_resource", "--locate", "--resource",
                    (char *)params(&f->spec)->resource, NULL};
    int rc = run(f, argv, out, sizeof out);
    const char *on = strstr(out, "is running on: ");
    node[0] = '\0';
    if (rc != 0) {
        snprintf(why, whylen, "crm_resource --locate failed (%d): %.300s", rc, out);
        return -1;
    }
    if (on) {
        on += strlen("is running on: ");
        snprintf(node, n, "%.*s", (int)strcspn(on, " \n"), on);
    }
    return 0;
}

static int switchover_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!fault_state(f, sizeof(struct switchover_state), err, errlen))
        return -1;
    if (f->host.lab)
        return 0; /* a constraint left in the lab's cluster: the lab's check finds the
                     group moved, and builds it again */
    char args[256];
    snprintf(args, sizeof args, "%.63s crm_resource --clear --resource %.127s",
             fault_netns_arg(&f->host), params(&f->spec)->resource);
    return fault_plan_undo(f, "command", args);
}

static int clear_constraint(struct fault *f, char *err, size_t errlen)
{
    char out[1024];
    char *argv[] = {"crm_resource", "--clear", "--resource",
                    (char *)params(&f->spec)->resource, NULL};
    int rc = run(f, argv, out, sizeof out);
    if (rc != 0) {
        snprintf(err, errlen, "crm_resource --clear --resource %s failed (%d): %.300s",
                 params(&f->spec)->resource, rc, out);
        return -1;
    }
    fault_undo_done(f);
    return 0;
}

static int switchover_inject(struct fault *f, char *err, size_t errlen)
{
    const struct switchover_params *p = params(&f->spec);
    struct switchover_state *st = f->state;
    if (locate(f, st->from, sizeof st->from, err, errlen) != 0)
        return -1;
    if (!st->from[0]) {
        snprintf(err, errlen, "%s runs on no node: nothing to move", p->resource);
        return -1;
    }
    if (p->to[0] && strcmp(p->to, st->from) == 0) {
        snprintf(err, errlen, "%s runs on %s already", p->resource, p->to);
        return -1;
    }
    char out[1024];
    char *move[] = {"crm_resource", "--move", "--resource", (char *)p->resource,
                    p->to[0] ? "--node" : NULL, (char *)p->to, NULL};
    st->moved_ns = mono_ns();
    int rc = run(f, move, out, sizeof out);
    if (rc != 0) {
        snprintf(err, errlen, "crm_resource --move --resource %s%s%s failed (%d): %.300s",
                 p->resource, p->to[0] ? " --node " : "", p->to, rc, out);
        return -1;
    }
    return 0;
}

/* Once it runs elsewhere (bounded: timeout from the inject), the move's
 * constraint goes. */
static int switchover_clear(struct fault *f, char *err, size_t errlen)
{
    const struct switchover_params *p = params(&f->spec);
    struct switchover_state *st = f->state;
    char why[512] = "";
    for (;;) {
        if (locate(f, st->to, sizeof st->to, why, sizeof why) == 0 && st->to[0] &&
            strcmp(st->to, st->from) != 0 && (!p->to[0] || strcmp(st->to, p->to) == 0))
            return clear_constraint(f, err, errlen);
        if (mono_ns() - st->moved_ns > p->timeout_ns)
            break;
        struct timespec ts = {0, POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
    char e[512] = "";
    int rc = clear_constraint(f, e, sizeof e);
    snprintf(err, errlen, "%s did not move from %s within %.0f s of the move (%s)%s%s",
             p->resource, st->from, (double)p->timeout_ns / 1e9,
             st->to[0] ? st->to : why[0] ? why : "it runs nowhere", rc ? "; " : "", e);
    st->to[0] = '\0';
    return -1;
}

static void switchover_describe(const struct fault *f, char *out, size_t n)
{
    const struct switchover_params *p = params(&f->spec);
    const struct switchover_state *st = f->state;
    if (st && st->to[0])
        snprintf(out, n, "%s moved from %s to %s (crm_resource --move on %s; --clear at the "
                 "clear)", p->resource, st->from, st->to, f->host.name);
    else
        snprintf(out, n, "%s moved %s%s (crm_resource --move on %s, then --clear)", p->resource,
                 p->to[0] ? "to " : "away from the node it runs on", p->to, f->host.name);
}

const struct fault_ops fault_switchover = {
    .action = "switchover",
    .hold_key = "duration",
    .keys = switchover_keys,
    .nkeys = sizeof switchover_keys / sizeof switchover_keys[0],
    .check = switchover_check,
    .schedule = switchover_schedule,
    .prepare = switchover_prepare,
    .inject = switchover_inject,
    .clear = switchover_clear,
    .describe = switchover_describe,
};
