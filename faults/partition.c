/*
 * partition — drop all traffic between a host and its peers (default: every
 * other host, the client included), `direction = both|in|out` as seen from
 * the host.  An nftables table in the host's namespace; unlike a link down,
 * the peers' TCP stacks see no reset and back off as in a real partition.
 */
#include <stdio.h>

#include "fault.h"
#include "nftfault.h"

static int partition_prepare(struct fault *f, char *err, size_t errlen)
{
    if (nftfault_resolve_peers(f, err, errlen) != 0)
        return -1;
    return nftfault_prepare(f, "part", err, errlen);
}

static int partition_inject(struct fault *f, char *err, size_t errlen)
{
    char set[1024], rules[2600] = "";
    nftfault_peer_set(f, set, sizeof set);
    int d = f->spec.direction_choice;
    size_t u = 0;
    if (d != DIR_OUT)
        u += (size_t)snprintf(rules + u, sizeof rules - u,
                              "add rule inet %s in ip saddr { %s } counter drop\n", f->table, set);
    if (d != DIR_IN && u < sizeof rules)
        snprintf(rules + u, sizeof rules - u,
                 "add rule inet %s out ip daddr { %s } counter drop\n", f->table, set);
    return nftfault_apply(f, rules, err, errlen);
}

static void partition_describe(const struct fault *f, char *out, size_t n)
{
    char set[1024];
    nftfault_peer_set(f, set, sizeof set);
    static const char *const dirs[] = {"both ways", "incoming", "outgoing"};
    snprintf(out, n, "%s cut off from %s (%s; nft table %s)", f->host.name, set,
             dirs[f->spec.direction_choice], f->table);
}

const struct fault_ops fault_partition = {
    .action = "partition",
    .prepare = partition_prepare,
    .inject = partition_inject,
    .describe = partition_describe,
};
