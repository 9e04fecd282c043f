/*
 * port — port-down and port-flap: the switch port facing a host (the
 * bridge-side end of its veth pair, in our namespace) down for `duration`,
 * or bounced `count` times, one every `period` (down for half of it).  The
 * host keeps its link up but loses carrier, as when a switch port fails.
 */
#include <stdio.h>

#include "../lib/net.h"
#include "fault.h"

static int port_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!f->host.port[0]) {
        snprintf(err, errlen, "host %s has no known switch port; say switch_port = NAME",
                 f->host.name);
        return -1;
    }
    f->sk = net_open(NULL, err, errlen);
    if (!f->sk || (f->ifindex[0] = net_ifindex(f->sk, f->host.port, err, errlen)) < 0)
        return -1;
    char args[64];
    snprintf(args, sizeof args, "- %s", f->host.port);
    return fault_plan_undo(f, "link-up", args);
}

static int port_inject(struct fault *f, char *err, size_t errlen)
{
    return net_link_set_up_index(f->sk, f->ifindex[0], false, err, errlen);
}

static void port_describe(const struct fault *f, char *out, size_t n)
{
    snprintf(out, n, "switch port %s (facing %s) down", f->host.port, f->host.name);
}

static void flap_describe(const struct fault *f, char *out, size_t n)
{
    snprintf(out, n, "switch port %s (facing %s) bounced %llu times, one every %.3f s",
             f->host.port, f->host.name, (unsigned long long)f->spec.count,
             (double)f->spec.period_ns / 1e9);
}

const struct fault_ops fault_port_down = {
    .action = "port-down",
    .prepare = port_prepare,
    .inject = port_inject,
    .describe = port_describe,
};

/* The timeline turns a flap into `count` down/up steps of this same pair. */
const struct fault_ops fault_port_flap = {
    .action = "port-flap",
    .prepare = port_prepare,
    .inject = port_inject,
    .describe = flap_describe,
};
