/*
 * loss — drop `percent` of a host's packets, each direction on its own
 * (`direction`), optionally only TCP to or from `port` (3260 for iSCSI).
 * nftables `numgen random` in the host's namespace: this kernel has no netem.
 */
#include <stdio.h>

#include "fault.h"
#include "nftfault.h"

static int loss_prepare(struct fault *f, char *err, size_t errlen)
{
    if (f->spec.percent == 0) {
        snprintf(err, errlen, "loss needs percent (1 to 100)");
        return -1;
    }
    return nftfault_prepare(f, "loss", err, errlen);
}

static int loss_inject(struct fault *f, char *err, size_t errlen)
{
    char rules[2048] = "";
    size_t u = 0;
    const char *chains[2] = {f->spec.direction_choice != DIR_OUT ? "in" : NULL,
                             f->spec.direction_choice != DIR_IN ? "out" : NULL};
    for (int c = 0; c < 2; c++) {
        if (!chains[c])
            continue;
        if (f->spec.port) {
            /* Traffic of that service either way: to the port or from it. */
            for (int k = 0; k < 2 && u < sizeof rules; k++)
                u += (size_t)snprintf(rules + u, sizeof rules - u,
                                      "add rule inet %s %s tcp %s %llu numgen random mod 100 < %u "
                                      "counter drop\n",
                                      f->table, chains[c], k ? "sport" : "dport",
                                      (unsigned long long)f->spec.port, f->spec.percent);
        } else if (u < sizeof rules) {
            u += (size_t)snprintf(rules + u, sizeof rules - u,
                                  "add rule inet %s %s numgen random mod 100 < %u counter drop\n",
                                  f->table, chains[c], f->spec.percent);
        }
    }
    return nftfault_apply(f, rules, err, errlen);
}

static void loss_describe(const struct fault *f, char *out, size_t n)
{
    static const char *const dirs[] = {"each way", "incoming", "outgoing"};
    char port[48] = "";
    if (f->spec.port)
        snprintf(port, sizeof port, " of TCP port %llu", (unsigned long long)f->spec.port);
    snprintf(out, n, "%u%% of the packets%s of %s dropped (%s; nft table %s)", f->spec.percent,
             port, f->host.name, dirs[f->spec.direction_choice], f->table);
}

const struct fault_ops fault_loss = {
    .action = "loss",
    .prepare = loss_prepare,
    .inject = loss_inject,
    .describe = loss_describe,
};
