/*
 * partition — drop all traffic between a host and its peers (default: every
 * other host, the client included), `direction = both|in|out` as seen from
 * the host.  An nftables table in the host's namespace; unlike a link down,
 * the peers' TCP stacks see no reset and back off as in a real partition.
 */
#include <stdio.h>

#include "../fault.h"
#include "../runtime.h"
#include "nftfault.h"

struct partition_params {
    char peers[512];
    int direction; /* enum fault_dir */
};
_Static_assert(sizeof(struct partition_params) <= FAULT_PARAMS_MAX, "partition params");

static const struct key_def partition_keys[] = {
    FAULT_KEY_DURATION,
    {"peers", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct partition_params, peers), 0, 0,
     "partition: hosts to cut off from (default: every other host, the client included)", 0},
    FAULT_KEY_DIRECTION(struct partition_params, direction),
};

static int partition_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct partition_params *p = FAULT_PARAMS(&f->spec, const struct partition_params);
    if (!nftfault_prepare(f, "part", err, errlen))
        return -1;
    return nftfault_resolve_peers(f, p->peers, err, errlen);
}

static int partition_inject(struct fault *f, char *err, size_t errlen)
{
    const char *table = nftfault_table(f);
    char set[1024], rules[2600] = "";
    nftfault_peer_set(f, set, sizeof set);
    int d = FAULT_PARAMS(&f->spec, const struct partition_params)->direction;
    size_t u = 0;
    if (d != DIR_OUT)
        u += (size_t)snprintf(rules + u, sizeof rules - u,
                              "add rule inet %s in ip saddr { %s } counter drop\n", table, set);
    if (d != DIR_IN && u < sizeof rules)
        snprintf(rules + u, sizeof rules - u,
                 "add rule inet %s out ip daddr { %s } counter drop\n", table, set);
    return nftfault_apply(f, rules, err, errlen);
}

static void partition_describe(const struct fault *f, char *out, size_t n)
{
    char set[1024];
    nftfault_peer_set(f, set, sizeof set);
    static const char *const dirs[] = {"both ways", "incoming", "outgoing"};
    snprintf(out, n, "%s cut off from %s (%s; nft table %s)", f->host.name, set,
             dirs[FAULT_PARAMS(&f->spec, const struct partition_params)->direction],
             nftfault_table(f));
}

const struct fault_ops fault_partition = {
    .action = "partition",
    .hold_key = "duration",
    .keys = partition_keys,
    .nkeys = sizeof partition_keys / sizeof partition_keys[0],
    .prepare = partition_prepare,
    .inject = partition_inject,
    .describe = partition_describe,
};
