/*
 * bandwidth — cap a host's link at `rate` with a tc tbf qdisc (libnl).
 * direction out: on the host's own interface (what it sends); in: on its
 * switch port (what it receives, without needing an ifb device); both: both.
 */
#include <stdio.h>

#include "../lib/net.h"
#include "fault.h"

#define TBF_LATENCY_US 50000 /* queue at most 50 ms worth, then drop */

static uint32_t burst_of(const struct fault *f)
{
    if (f->spec.burst)
        return (uint32_t)f->spec.burst;
    /* 10 ms worth of the rate, but at least two full-size frames. */
    uint64_t b = f->spec.rate_bps / 8 / 100;
    return b < 3200 ? 3200 : b > 1u << 24 ? 1u << 24 : (uint32_t)b;
}

static int bw_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!f->spec.rate_bps) {
        snprintf(err, errlen, "bandwidth needs rate (e.g. rate = 10mbit)");
        return -1;
    }
    char args[128];
    int d = f->spec.direction_choice;
    if (d != DIR_IN) {
        if (!f->host.ifname[0]) {
            snprintf(err, errlen, "host %s has no known interface; say interface = NAME",
                     f->host.name);
            return -1;
        }
        snprintf(args, sizeof args, "%s %s", f->host.netns[0] ? f->host.netns : "-",
                 f->host.ifname);
        fault_plan_undo(f, "qdisc-delete", args);
    }
    if (d != DIR_OUT) {
        if (!f->host.port[0]) {
            snprintf(err, errlen, "host %s has no known switch port; say switch_port = NAME",
                     f->host.name);
            return -1;
        }
        snprintf(args, sizeof args, "- %s", f->host.port);
        fault_plan_undo(f, "qdisc-delete", args);
    }
    return 0;
}

static int bw_inject(struct fault *f, char *err, size_t errlen)
{
    uint64_t rate = f->spec.rate_bps / 8; /* tbf counts bytes */
    int d = f->spec.direction_choice, rc = 0;
    if (d != DIR_IN) {
        struct nl_sock *sk = net_open(f->host.netns[0] ? f->host.netns : NULL, err, errlen);
        rc = sk ? net_tbf_set(sk, f->host.ifname, rate, burst_of(f), TBF_LATENCY_US, err, errlen)
                : -1;
        net_close(sk);
    }
    if (rc == 0 && d != DIR_OUT) {
        struct nl_sock *sk = net_open(NULL, err, errlen);
        rc = sk ? net_tbf_set(sk, f->host.port, rate, burst_of(f), TBF_LATENCY_US, err, errlen)
                : -1;
        net_close(sk);
    }
    return rc;
}

static void bw_describe(const struct fault *f, char *out, size_t n)
{
    static const char *const dirs[] = {"both ways", "incoming", "outgoing"};
    snprintf(out, n, "%s capped at %.3f Mbit/s (%s; tc tbf, burst %u bytes)", f->host.name,
             (double)f->spec.rate_bps / 1e6, dirs[f->spec.direction_choice], burst_of(f));
}

const struct fault_ops fault_bandwidth = {
    .action = "bandwidth",
    .prepare = bw_prepare,
    .inject = bw_inject,
    .describe = bw_describe,
};
