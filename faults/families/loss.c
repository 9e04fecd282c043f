/*
 * loss — drop `percent` of a host's packets, each direction on its own
 * (`direction`), optionally only TCP to or from `port` (3260 for iSCSI).
 * nftables `numgen random` in the host's namespace: this kernel has no netem.
 */
#include <stdio.h>

#include "../fault.h"
#include "../runtime.h"
#include "nftfault.h"

struct loss_params {
    unsigned percent;
    uint64_t port;
    int direction; /* enum fault_dir */
};
_Static_assert(sizeof(struct loss_params) <= FAULT_PARAMS_MAX, "loss params");

static const struct key_def loss_keys[] = {
    FAULT_KEY_DURATION,
    {"percent", KEY_PERCENT, NULL, NULL, FAULT_PARAM(struct loss_params, percent), 0, 0,
     "loss: share of packets dropped (required). disk-errors: share of the I/Os that touch "
     "the bad ranges that fail (default 100; lab servers only below 100)", 0},
    {"port", KEY_COUNT, NULL, NULL, FAULT_PARAM(struct loss_params, port), 1, 65535,
     "loss: only TCP to or from this port (3260 for iSCSI)", 0},
    FAULT_KEY_DIRECTION(struct loss_params, direction),
};

static int loss_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                      size_t errlen)
{
    (void)r;
    if (FAULT_PARAMS(s, const struct loss_params)->percent == 0) {
        snprintf(err, errlen, "[fault %s] loss needs percent", s->name);
        return -1;
    }
    return 0;
}

static int loss_prepare(struct fault *f, char *err, size_t errlen)
{
    if (FAULT_PARAMS(&f->spec, const struct loss_params)->percent == 0) {
        snprintf(err, errlen, "loss needs percent (1 to 100)");
        return -1;
    }
    return nftfault_prepare(f, "loss", err, errlen) ? 0 : -1;
}

static int loss_inject(struct fault *f, char *err, size_t errlen)
{
    const struct loss_params *p = FAULT_PARAMS(&f->spec, const struct loss_params);
    const char *table = nftfault_table(f);
    char rules[2048] = "";
    size_t u = 0;
    const char *chains[2] = {p->direction != DIR_OUT ? "in" : NULL,
                             p->direction != DIR_IN ? "out" : NULL};
    for (int c = 0; c < 2; c++) {
        if (!chains[c])
            continue;
        if (p->port) {
            /* Traffic of that service either way: to the port or from it. */
            for (int k = 0; k < 2 && u < sizeof rules; k++)
                u += (size_t)snprintf(rules + u, sizeof rules - u,
                                      "add rule inet %s %s tcp %s %llu numgen random mod 100 < %u "
                                      "counter drop\n",
                                      table, chains[c], k ? "sport" : "dport",
                                      (unsigned long long)p->port, p->percent);
        } else if (u < sizeof rules) {
            u += (size_t)snprintf(rules + u, sizeof rules - u,
                                  "add rule inet %s %s numgen random mod 100 < %u counter drop\n",
                                  table, chains[c], p->percent);
        }
    }
    return nftfault_apply(f, rules, err, errlen);
}

static void loss_describe(const struct fault *f, char *out, size_t n)
{
    const struct loss_params *p = FAULT_PARAMS(&f->spec, const struct loss_params);
    static const char *const dirs[] = {"each way", "incoming", "outgoing"};
    char port[48] = "";
    if (p->port)
        snprintf(port, sizeof port, " of TCP port %llu", (unsigned long long)p->port);
    snprintf(out, n, "%u%% of the packets%s of %s dropped (%s; nft table %s)", p->percent, port,
             f->host.name, dirs[p->direction], nftfault_table(f));
}

const struct fault_ops fault_loss = {
    .action = "loss",
    .hold_key = "duration",
    .keys = loss_keys,
    .nkeys = sizeof loss_keys / sizeof loss_keys[0],
    .check = loss_check,
    .prepare = loss_prepare,
    .inject = loss_inject,
    .describe = loss_describe,
};
