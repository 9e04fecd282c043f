/* nftfault — see nftfault.h. */
#include "nftfault.h"

#include <stdio.h>
#include <string.h>

#include "../../lib/net.h"
#include "../../lib/nft.h"

struct nft_fault *nftfault_prepare(struct fault *f, const char *what, char *err, size_t errlen)
{
    if (f->host.netns[0] && !netns_exists(f->host.netns)) {
        snprintf(err, errlen, "network namespace %s of host %s does not exist", f->host.netns,
                 f->host.name);
        return NULL;
    }
    struct nft_fault *s = fault_state(f, sizeof *s, err, errlen);
    if (!s)
        return NULL;
    /* One table per fault of this run: removing it removes exactly ours. */
    snprintf(s->table, sizeof s->table, "%s_%s_%u", f->env->tag, what, f->index);
    char args[160];
    snprintf(args, sizeof args, "%s %s", fault_netns_arg(&f->host), s->table);
    return fault_plan_undo(f, "nft-delete", args) == 0 ? s : NULL;
}

int nftfault_apply(struct fault *f, const char *rules, char *err, size_t errlen)
{
    const struct nft_fault *s = f->state;
    char cmds[4096];
    /* Priority -10: before any filter the host has of its own. */
    snprintf(cmds, sizeof cmds,
             "add table inet %s\n"
             "add chain inet %s in { type filter hook input priority -10; policy accept; }\n"
             "add chain inet %s out { type filter hook output priority -10; policy accept; }\n"
             "%s",
             s->table, s->table, s->table, rules);
    return nft_run_in(f->host.netns, cmds, err, errlen);
}

const char *nftfault_table(const struct fault *f)
{
    const struct nft_fault *s = f->state;
    return s ? s->table : "?";
}

void nftfault_peer_set(const struct fault *f, char *out, size_t n)
{
    const struct nft_fault *s = f->state;
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; s && i < s->npeers && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", i ? ", " : "", s->peers[i]);
}

int nftfault_resolve_peers(struct fault *f, const char *peers, char *err, size_t errlen)
{
    struct nft_fault *s = f->state;
    const struct fault_env *env = f->env;
    s->npeers = 0;
    if (!peers || !peers[0]) {
        /* Default: every other host, the client included. */
        for (unsigned i = 0; i < env->nhosts && s->npeers < FL_MAX_HOSTS; i++)
            if (strcmp(env->hosts[i].name, f->host.name) != 0 && env->hosts[i].addr[0])
                snprintf(s->peers[s->npeers++], sizeof s->peers[0], "%s", env->hosts[i].addr);
    } else {
        const char *p = peers;
        while (*p && s->npeers < FL_MAX_HOSTS) {
            while (*p == ' ' || *p == ',')
                p++;
            size_t len = strcspn(p, ", ");
            if (!len)
                break;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
            const struct fault_host *h = fault_find_host(env, name);
            if (!h || !h->addr[0]) {
                snprintf(err, errlen, "peer '%s' is not a host with a known address", name);
                return -1;
            }
            snprintf(s->peers[s->npeers++], sizeof s->peers[0], "%s", h->addr);
            p += len;
        }
    }
    if (!s->npeers) {
        snprintf(err, errlen, "no peers to cut %s off from (no other host has an address)",
                 f->host.name);
        return -1;
    }
    return 0;
}
