/*
 * bandwidth — cap a host's link at `rate` with a tc tbf qdisc (libnl).
 * direction out: on the host's own interface (what it sends); in: on its
 * switch port (what it receives, without needing an ifb device); both: both.
 */
#include <stdio.h>

#include "../../lib/net.h"
#include "../fault.h"
#include "../runtime.h"

#define TBF_LATENCY_US 50000 /* queue at most 50 ms worth, then drop */

struct bandwidth_params {
    uint64_t rate_bps, burst;
    int direction; /* enum fault_dir */
};
_Static_assert(sizeof(struct bandwidth_params) <= FAULT_PARAMS_MAX, "bandwidth params");

static const struct key_def bandwidth_keys[] = {
    FAULT_KEY_DURATION,
    {"rate", KEY_RATE, NULL, NULL, FAULT_PARAM(struct bandwidth_params, rate_bps), 0, 0,
     "bandwidth: the cap (required), e.g. 10mbit", 0},
    {"burst", KEY_SIZE, NULL, NULL, FAULT_PARAM(struct bandwidth_params, burst), 1500, 1u << 24,
     "bandwidth: bucket size (default 10 ms of the rate)", 0},
    FAULT_KEY_DIRECTION(struct bandwidth_params, direction),
    FAULT_KEY_INTERFACE,
    FAULT_KEY_SWITCH_PORT,
};

static const struct bandwidth_params *params(const struct fault *f)
{
    return FAULT_PARAMS(&f->spec, const struct bandwidth_params);
}

static uint32_t burst_of(const struct fault *f)
{
    if (params(f)->burst)
        return (uint32_t)params(f)->burst;
    /* 10 ms worth of the rate, but at least two full-size frames. */
    uint64_t b = params(f)->rate_bps / 8 / 100;
    return b < 3200 ? 3200 : b > 1u << 24 ? 1u << 24 : (uint32_t)b;
}

static int bw_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                    size_t errlen)
{
    (void)r;
    if (FAULT_PARAMS(s, const struct bandwidth_params)->rate_bps == 0) {
        snprintf(err, errlen, "[fault %s] bandwidth needs rate (e.g. 10mbit)", s->name);
        return -1;
    }
    return 0;
}

static int bw_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!params(f)->rate_bps) {
        snprintf(err, errlen, "bandwidth needs rate (e.g. rate = 10mbit)");
        return -1;
    }
    char args[128];
    int d = params(f)->direction;
    if (d != DIR_IN) {
        if (!f->host.ifname[0]) {
            snprintf(err, errlen, "host %s has no known interface; say interface = NAME",
                     f->host.name);
            return -1;
        }
        snprintf(args, sizeof args, "%s %s", fault_netns_arg(&f->host), f->host.ifname);
        fault_plan_undo(f, "qdisc-delete", args);
    }
    if (d != DIR_OUT) {
        if (!f->host.port[0]) {
            snprintf(err, errlen, "host %s has no known switch port here; say switch_port = "
                     "NAME (over ssh the port is on the switch: give direction = in and "
                     "direction = out as two faults)", f->host.name);
            return -1;
        }
        snprintf(args, sizeof args, "%s %s", fault_netns_word(f->host.port_netns), f->host.port);
        fault_plan_undo(f, "qdisc-delete", args);
    }
    return 0;
}

/* The cap on one link, through a socket in its namespace (NULL: ours). */
static int cap(const struct fault *f, const char *netns, const char *link, char *err,
               size_t errlen)
{
    struct nl_sock *sk = net_open(netns, err, errlen);
    int rc = sk ? net_tbf_set(sk, link, params(f)->rate_bps / 8 /* tbf counts bytes */,
                              burst_of(f), TBF_LATENCY_US, err, errlen)
                : -1;
    net_close(sk);
    return rc;
}

static int bw_inject(struct fault *f, char *err, size_t errlen)
{
    int d = params(f)->direction, rc = 0;
    if (d != DIR_IN)
        rc = cap(f, f->host.netns[0] ? f->host.netns : NULL, f->host.ifname, err, errlen);
    if (rc == 0 && d != DIR_OUT)
        rc = cap(f, f->host.port_netns[0] ? f->host.port_netns : NULL, f->host.port, err,
                 errlen);
    return rc;
}

static void bw_describe(const struct fault *f, char *out, size_t n)
{
    static const char *const dirs[] = {"both ways", "incoming", "outgoing"};
    snprintf(out, n, "%s capped at %.3f Mbit/s (%s; tc tbf, burst %u bytes)", f->host.name,
             (double)params(f)->rate_bps / 1e6, dirs[params(f)->direction], burst_of(f));
}

/* Incoming traffic is capped on the switch port, so that part runs on the
 * switch; outgoing (and both ways) on the host's own interface. */
static bool bw_on_switch(const struct fault_spec *spec)
{
    return FAULT_PARAMS(spec, const struct bandwidth_params)->direction == DIR_IN;
}

const struct fault_ops fault_bandwidth = {
    .action = "bandwidth",
    .hold_key = "duration",
    .keys = bandwidth_keys,
    .nkeys = sizeof bandwidth_keys / sizeof bandwidth_keys[0],
    .check = bw_check,
    .prepare = bw_prepare,
    .inject = bw_inject,
    .describe = bw_describe,
    .on_switch = bw_on_switch,
};
