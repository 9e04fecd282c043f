/*
 * port — port-down and port-flap: the switch port facing a host (the
 * bridge-side end of its veth pair, in our namespace) down for `duration`,
 * or bounced `count` times, one every `period` (down for half of it).  The
 * host keeps its link up but loses carrier, as when a switch port fails.
 */
#include <stdio.h>

#include "../fault.h"
#include "../runtime.h"
#include "links.h"

struct flap_params {
    uint64_t count, period_ns;
};
_Static_assert(sizeof(struct flap_params) <= FAULT_PARAMS_MAX, "port-flap params");

static const struct key_def port_keys[] = {FAULT_KEY_DURATION, FAULT_KEY_SWITCH_PORT};

static const struct key_def flap_keys[] = {
    FAULT_KEY_SWITCH_PORT,
    {"count", KEY_COUNT, "3", NULL, FAULT_PARAM(struct flap_params, count), 1, 100000,
     "port-flap: bounces", 0},
    {"period", KEY_DURATION, "2s", NULL, FAULT_PARAM(struct flap_params, period_ns), 2000000,
     AT_MOST_A_DAY, "port-flap: one bounce every period, down for half of it", 0},
};

static int port_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!f->host.port[0]) {
        snprintf(err, errlen, "host %s has no known switch port; say switch_port = NAME",
                 f->host.name);
        return -1;
    }
    const char *ns = f->host.port_netns;
    struct link_fault *s = link_fault_open(f, ns[0] ? ns : NULL, err, errlen);
    if (!s || link_fault_add(s, f->host.port, err, errlen) != 0)
        return -1;
    char args[128];
    snprintf(args, sizeof args, "%s %s", fault_netns_word(ns), f->host.port);
    return fault_plan_undo(f, "link-up", args);
}

static void port_describe(const struct fault *f, char *out, size_t n)
{
    snprintf(out, n, "switch port %s (facing %s) down", f->host.port, f->host.name);
}

static int flap_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                      size_t errlen)
{
    (void)r;
    if (FAULT_PARAMS(s, const struct flap_params)->period_ns < 2000000) {
        snprintf(err, errlen, "[fault %s] period is too short", s->name);
        return -1;
    }
    return 0;
}

/* `count` down/up steps of this same pair. */
static void flap_schedule(const struct fault_spec *s, struct fault_schedule *out)
{
    const struct flap_params *p = FAULT_PARAMS(s, const struct flap_params);
    *out = (struct fault_schedule){.shape = FAULT_STEPPED, .steps = p->count,
                                   .period_ns = p->period_ns};
}

static void flap_describe(const struct fault *f, char *out, size_t n)
{
    const struct flap_params *p = FAULT_PARAMS(&f->spec, const struct flap_params);
    snprintf(out, n, "switch port %s (facing %s) bounced %llu times, one every %.3f s",
             f->host.port, f->host.name, (unsigned long long)p->count,
             (double)p->period_ns / 1e9);
}

const struct fault_ops fault_port_down = {
    .action = "port-down",
    .hold_key = "duration",
    .keys = port_keys,
    .nkeys = sizeof port_keys / sizeof port_keys[0],
    .prepare = port_prepare,
    .inject = link_fault_down,
    .on_switch = fault_acts_on_switch,
    .describe = port_describe,
    .release = link_fault_release,
};

const struct fault_ops fault_port_flap = {
    .action = "port-flap",
    .keys = flap_keys,
    .nkeys = sizeof flap_keys / sizeof flap_keys[0],
    .check = flap_check,
    .schedule = flap_schedule,
    .prepare = port_prepare,
    .inject = link_fault_down,
    .on_switch = fault_acts_on_switch,
    .describe = flap_describe,
    .release = link_fault_release,
};
