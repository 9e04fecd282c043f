/*
 * switch — switch-down: every port of the switch down at once, as in a
 * switch restart; back up at clear.  Only the ports that were up are
 * brought back.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/net.h"
#include "fault.h"

static int switch_prepare(struct fault *f, char *err, size_t errlen)
{
    const char *bridge = f->spec.switch_name[0] ? f->spec.switch_name : f->env->bridge;
    if (!bridge[0]) {
        snprintf(err, errlen, "no switch: say switch = BRIDGE (there is no lab)");
        return -1;
    }
    f->sk = net_open(NULL, err, errlen);
    if (!f->sk)
        return -1;
    char names[FL_MAX_HOSTS][16];
    int n = net_bridge_ports(f->sk, bridge, names, FL_MAX_HOSTS, err, errlen);
    if (n < 0)
        return -1;
    f->nsaved = 0;
    for (int i = 0; i < n && f->nsaved < FL_MAX_UNDO; i++) {
        struct link_state st;
        if (net_link_state(f->sk, names[i], &st, err, errlen) != 0)
            return -1;
        if (!st.admin_up)
            continue;
        if ((f->ifindex[f->nsaved] = net_ifindex(f->sk, names[i], err, errlen)) < 0)
            return -1;
        snprintf(f->saved_ports[f->nsaved++], sizeof f->saved_ports[0], "%.15s", names[i]);
        char args[64];
        snprintf(args, sizeof args, "- %.15s", names[i]);
        if (fault_plan_undo(f, "link-up", args) != 0) {
            snprintf(err, errlen, "switch %s has more ports than one fault can undo (%d)", bridge,
                     FL_MAX_UNDO);
            return -1;
        }
    }
    snprintf(f->table, sizeof f->table, "%s", bridge);
    return 0;
}

static int switch_inject(struct fault *f, char *err, size_t errlen)
{
    for (unsigned i = 0; i < f->nsaved; i++)
        if (net_link_set_up_index(f->sk, f->ifindex[i], false, err, errlen) != 0)
            return -1;
    return 0;
}

static void switch_describe(const struct fault *f, char *out, size_t n)
{
    size_t used = (size_t)snprintf(out, n, "every port of switch %s down:", f->table);
    for (unsigned i = 0; i < f->nsaved && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, " %s", f->saved_ports[i]);
}

const struct fault_ops fault_switch_down = {
    .action = "switch-down",
    .prepare = switch_prepare,
    .inject = switch_inject,
    .describe = switch_describe,
};
