/*
 * link — link-down: a host's own interface down for `duration`, then up.
 * Through netlink inside the host's network namespace, like pulling its
 * cable: the host sees carrier loss, its peers see a silent host.
 */
#include <stdio.h>

#include "../../lib/net.h"
#include "../fault.h"
#include "../runtime.h"
#include "links.h"

static const struct key_def link_keys[] = {FAULT_KEY_DURATION, FAULT_KEY_INTERFACE};

static int link_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!f->host.ifname[0]) {
        snprintf(err, errlen, "host %s has no known interface; say interface = NAME",
                 f->host.name);
        return -1;
    }
    struct link_fault *s = link_fault_open(f, f->host.netns[0] ? f->host.netns : NULL, err,
                                           errlen);
    if (!s || link_fault_add(s, f->host.ifname, err, errlen) != 0)
        return -1;
    char args[128];
    snprintf(args, sizeof args, "%s %s", fault_netns_arg(&f->host), f->host.ifname);
    return fault_plan_undo(f, "link-up", args);
}

static void link_describe(const struct fault *f, char *out, size_t n)
{
    snprintf(out, n, "interface %s of %s%s%s down", f->host.ifname, f->host.name,
             f->host.netns[0] ? " in namespace " : "", f->host.netns);
}

const struct fault_ops fault_link_down = {
    .action = "link-down",
    .hold_key = "duration",
    .keys = link_keys,
    .nkeys = sizeof link_keys / sizeof link_keys[0],
    .prepare = link_prepare,
    .inject = link_fault_down,
    .describe = link_describe,
    .release = link_fault_release,
};
