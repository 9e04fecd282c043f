/*
 * switch — switch-down: every port of the switch down at once, as in a
 * switch restart; back up at clear.  Only the ports that were up are
 * brought back.
 */
#include <stdio.h>
#include <string.h>

#include "../../lib/net.h"
#include "../fault.h"
#include "../runtime.h"
#include "links.h"

struct switch_params {
    char switch_name[16];
};
_Static_assert(sizeof(struct switch_params) <= FAULT_PARAMS_MAX, "switch-down params");

static const struct key_def switch_keys[] = {
    FAULT_KEY_DURATION,
    {"switch", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct switch_params, switch_name), 0, 0,
     "switch-down: the bridge (default: the lab's switch)", 0},
};

static int switch_prepare(struct fault *f, char *err, size_t errlen)
{
    const char *named = FAULT_PARAMS(&f->spec, const struct switch_params)->switch_name;
    const char *bridge = named[0] ? named : f->env->bridge;
    if (!bridge[0]) {
        snprintf(err, errlen, "no switch: say switch = BRIDGE (there is no lab)");
        return -1;
    }
    /* the lab's switch is in the lab's switch namespace; a named one in ours */
    const char *ns = named[0] ? "" : f->env->switch_netns;
    struct link_fault *s = link_fault_open(f, ns[0] ? ns : NULL, err, errlen);
    if (!s)
        return -1;
    snprintf(s->where, sizeof s->where, "%.15s", bridge);
    char names[FL_MAX_HOSTS][16];
    int n = net_bridge_ports(s->sk, bridge, names, FL_MAX_HOSTS, err, errlen);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        struct link_state st;
        if (net_link_state(s->sk, names[i], &st, err, errlen) != 0)
            return -1;
        if (!st.admin_up)
            continue;
        char args[128];
        snprintf(args, sizeof args, "%s %.15s", fault_netns_word(ns), names[i]);
        if (s->n == FL_MAX_UNDO || fault_plan_undo(f, "link-up", args) != 0) {
            snprintf(err, errlen, "switch %s has more ports than one fault can undo (%d)", bridge,
                     FL_MAX_UNDO);
            return -1;
        }
        if (link_fault_add(s, names[i], err, errlen) != 0)
            return -1;
    }
    return 0;
}

static void switch_describe(const struct fault *f, char *out, size_t n)
{
    const struct link_fault *s = f->state;
    size_t used = (size_t)snprintf(out, n, "every port of switch %s down:", s ? s->where : "?");
    for (unsigned i = 0; s && i < s->n && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, " %s", s->names[i]);
}

const struct fault_ops fault_switch_down = {
    .action = "switch-down",
    .hold_key = "duration",
    .keys = switch_keys,
    .nkeys = sizeof switch_keys / sizeof switch_keys[0],
    .prepare = switch_prepare,
    .inject = link_fault_down,
    .on_switch = fault_acts_on_switch,
    .describe = switch_describe,
    .release = link_fault_release,
};
