/* nft — see nft.h. */
#include "nft.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <nftables/libnftables.h>

#include "net.h"

static int ours(const char *netns)
{
    return !netns || !*netns || strcmp(netns, "-") == 0;
}

int nft_run_in(const char *netns, const char *cmds, char *err, size_t errlen)
{
    int home = -1, target = -1;
    if (!ours(netns)) {
        /* The netlink socket libnftables opens belongs to the namespace the
         * thread is in when the context is created. */
        home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        if (home < 0) {
            snprintf(err, errlen, "cannot open our network namespace: %s", strerror(errno));
            return -1;
        }
        if ((target = netns_fd(netns, err, errlen)) < 0) {
            close(home);
            return -1;
        }
        if (setns(target, CLONE_NEWNET) != 0) {
            snprintf(err, errlen, "cannot enter network namespace %s: %s", netns,
                     strerror(errno));
            close(home);
            close(target);
            return -1;
        }
    }
    int rc = -1;
    struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
    if (!nft) {
        snprintf(err, errlen, "cannot create an nftables context");
    } else {
        nft_ctx_buffer_output(nft);
        nft_ctx_buffer_error(nft);
        if (nft_run_cmd_from_buffer(nft, cmds) == 0) {
            rc = 0;
        } else {
            const char *e = nft_ctx_get_error_buffer(nft);
            snprintf(err, errlen, "nft%s%s: %s", ours(netns) ? "" : " in ",
                     ours(netns) ? "" : netns, e && *e ? e : "failed");
            size_t l = strlen(err);
            while (l && (err[l - 1] == '\n' || err[l - 1] == ' '))
                err[--l] = '\0';
        }
        nft_ctx_free(nft);
    }
    if (home >= 0) {
        if (setns(home, CLONE_NEWNET) != 0 && rc == 0) {
            snprintf(err, errlen, "cannot return from network namespace %s: %s", netns,
                     strerror(errno));
            rc = -1;
        }
        close(home);
        close(target);
    }
    return rc;
}

int nft_delete_table(const char *netns, const char *name, char *err, size_t errlen)
{
    char cmd[128];
    /* "destroy" needs nftables 1.0.8; add-then-delete is idempotent on 1.0.6. */
    snprintf(cmd, sizeof cmd, "add table inet %s\ndelete table inet %s\n", name, name);
    return nft_run_in(netns, cmd, err, errlen);
}
