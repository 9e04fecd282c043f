/*
 * power — power-off: a lab host's power cut, and its power back.
 *
 *   [fault cut]
 *   action = power-off
 *   host = gs2              (a lab server: gs1..gs3, cs1..cs3, ctrl-a, ctrl-b)
 *   at = 5s
 *   power_on_after = 5s     (default: powered on when the workload ends)
 *
 * What a power cut does to a host is the lab's business (fault_lab.power):
 * every process of the host dies at once, and what it held but had not made
 * durable is gone — a gluster server's brick filesystem and a ceph
 * server's disk (the stores of all its daemons) are shut down without log
 * flush, an iSCSI controller's volatile write cache is dropped.
 * At power-on the lab brings the host up as after a cold start (a brick is
 * mounted again and replays its log; the service starts again).
 *
 * Such a cut loses what the storage acknowledged but had not flushed, so
 * power-off means `loses = unflushed` unless the section says otherwise
 * (`loses = nothing`: the storage claims its caches survive a power cut,
 * battery-backed, and any older data read back is then a lost write).
 *
 * On a machine of one's own, the same cut is `action = command` (the BMC's
 * `ipmitool ... chassis power off`) with `loses = unflushed`.
 */
#include <stdio.h>
#include <string.h>

#include "../fault.h"
#include "../runtime.h"

struct power_params {
    uint64_t on_after_ns;
};
_Static_assert(sizeof(struct power_params) <= FAULT_PARAMS_MAX, "power params");

static const struct key_def power_keys[] = {
    {"power_on_after", KEY_DURATION, NULL, NULL, FAULT_PARAM(struct power_params, on_after_ns),
     1000000, AT_MOST_A_DAY,
     "power-off: power the host on again this much later (default: when the workload ends)", 0},
    /* the common key, with the default a power cut implies */
    {"loses", KEY_CHOICE, "unflushed", "nothing|unflushed", FAULT_COMMON(loses), 0, 0,
     "power-off: what the storage may lose (default unflushed; nothing: its caches are "
     "battery-backed)", 0},
};

/* f->state: what the lab said it did, for the report. */
struct power_fault {
    char off[512], on[512];
};

static const struct power_params *params(const struct fault *f)
{
    return FAULT_PARAMS(&f->spec, const struct power_params);
}

/* Lasting until power-on: after power_on_after, or at the end. */
static void power_schedule(const struct fault_spec *spec, struct fault_schedule *out)
{
    *out = (struct fault_schedule){
        .shape = FAULT_LASTING,
        .clear_after_ns = FAULT_PARAMS(spec, const struct power_params)->on_after_ns};
}

static int power_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    if (!f->host.lab || !lab || !lab->power) {
        snprintf(err, errlen, "power-off cuts the power of a lab server, and %s is %s (on a "
                 "machine of your own: action = command, command = the BMC's power off, "
                 "loses = unflushed; with [lab] control = ssh it is not available yet)",
                 f->host.name, f->host.lab ? "not reached by the lab here" : "not one");
        return -1;
    }
    return fault_state(f, sizeof(struct power_fault), err, errlen) ? 0 : -1;
}

static int power_inject(struct fault *f, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    struct power_fault *s = f->state;
    return lab->power(lab->ctx, f->host.name, false, s->off, sizeof s->off, err, errlen);
}

static int power_clear(struct fault *f, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    struct power_fault *s = f->state;
    return lab->power(lab->ctx, f->host.name, true, s->on, sizeof s->on, err, errlen);
}

static void power_describe(const struct fault *f, char *out, size_t n)
{
    const struct power_fault *s = f->state;
    char on[96] = "powered on when the workload ends";
    if (params(f)->on_after_ns)
        snprintf(on, sizeof on, "powered on after %.3f s", (double)params(f)->on_after_ns / 1e9);
    snprintf(out, n, "power of %s cut%s%s, %s%s%s", f->host.name, s && s->off[0] ? ": " : "",
             s ? s->off : "", on, s && s->on[0] ? ": " : "", s ? s->on : "");
}

const struct fault_ops fault_power_off = {
    .action = "power-off",
    .keys = power_keys,
    .nkeys = sizeof power_keys / sizeof power_keys[0],
    .schedule = power_schedule,
    .prepare = power_prepare,
    .inject = power_inject,
    .clear = power_clear,
    .describe = power_describe,
};
