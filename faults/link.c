/*
 * link — link-down: a host's own interface down for `duration`, then up.
 * Through netlink inside the host's network namespace, like pulling its
 * cable: the host sees carrier loss, its peers see a silent host.
 */
#include <stdio.h>

#include "../lib/net.h"
#include "fault.h"

static int link_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!f->host.ifname[0]) {
        snprintf(err, errlen, "host %s has no known interface; say interface = NAME",
                 f->host.name);
        return -1;
    }
    f->sk = net_open(f->host.netns[0] ? f->host.netns : NULL, err, errlen);
    if (!f->sk || (f->ifindex[0] = net_ifindex(f->sk, f->host.ifname, err, errlen)) < 0)
        return -1;
    char args[128];
    snprintf(args, sizeof args, "%s %s", f->host.netns[0] ? f->host.netns : "-", f->host.ifname);
    return fault_plan_undo(f, "link-up", args);
}

static int link_inject(struct fault *f, char *err, size_t errlen)
{
    return net_link_set_up_index(f->sk, f->ifindex[0], false, err, errlen);
}

static void link_describe(const struct fault *f, char *out, size_t n)
{
    snprintf(out, n, "interface %s of %s%s%s down", f->host.ifname, f->host.name,
             f->host.netns[0] ? " in namespace " : "", f->host.netns);
}

const struct fault_ops fault_link_down = {
    .action = "link-down",
    .prepare = link_prepare,
    .inject = link_inject,
    .describe = link_describe,
};
