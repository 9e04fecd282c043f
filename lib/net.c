/* net — see net.h. */
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/bridge.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

#include "fsutil.h"
#include "proc.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000 /* <linux/if.h>, which clashes with <net/if.h> */
#endif

/* /run/netns must be a shared mount point, as iproute2 makes it, so that a
 * namespace mounted here shows in every mount namespace. */
static int netns_dir_ready(char *err, size_t n)
{
    /* what is mounted here is what every lab command enters as root */
    if (root_only_dir(NETNS_DIR, 0755, err, n) != 0)
        return -1;
    if (mount("", NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
        return 0;
    if (errno != EINVAL || mount(NETNS_DIR, NETNS_DIR, "none", MS_BIND | MS_REC, NULL) != 0 ||
        mount("", NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) != 0) {
        snprintf(err, n, "cannot make %s a shared mount point: %s", NETNS_DIR, strerror(errno));
        return -1;
    }
    return 0;
}

/* In a child: a new network namespace, bind-mounted on path (ctx). */
static int pin_new_netns(void *ctx, char *err, size_t errlen)
{
    if (unshare(CLONE_NEWNET) != 0 || mount("/proc/self/ns/net", ctx, "none", MS_BIND, NULL) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The empty file a namespace's name is mounted on. */
static int ns_file(const char *name, char *path, size_t n, char *err, size_t errlen)
{
    if (netns_dir_ready(err, errlen) != 0)
        return -1;
    netns_path(name, path, n);
    int fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

int netns_create(const char *name, char *err, size_t errlen)
{
    if (netns_exists(name))
        return 0;
    char path[256];
    if (ns_file(name, path, sizeof path, err, errlen) != 0)
        return -1;
    /* A child gets the new namespace and pins it with the bind mount; the
     * namespace outlives the child. */
    struct proc_place here = {.netns = NULL};
    char why[512];
    if (proc_call_at(&here, pin_new_netns, path, why, sizeof why) != 0) {
        unlink(path);
        snprintf(err, errlen, "cannot create network namespace %s: %s", name, why);
        return -1;
    }
    return 0;
}

int netns_name_ours(const char *name, char *err, size_t errlen)
{
    if (netns_exists(name))
        return 0;
    char path[256];
    if (ns_file(name, path, sizeof path, err, errlen) != 0)
        return -1;
    /* the namespace of the whole process (its first thread), not of this thread */
    char self[64];
    snprintf(self, sizeof self, "/proc/%d/ns/net", (int)getpid());
    if (mount(self, path, "none", MS_BIND, NULL) != 0) {
        int e = errno;
        unlink(path);
        snprintf(err, errlen, "cannot name our network namespace %s: %s", name, strerror(e));
        return -1;
    }
    return 0;
}

int netns_delete(const char *name, char *err, size_t errlen)
{
    char path[256];
    netns_path(name, path, sizeof path);
    if (umount2(path, MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
        snprintf(err, errlen, "cannot unmount %s: %s", path, strerror(errno));
        return -1;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

struct nl_sock *net_open(const char *ns, char *err, size_t errlen)
{
    int home = -1, target = -1;
    if (ns) {
        home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        target = netns_fd(ns, err, errlen);
        if (home < 0 || target < 0) {
            if (home < 0)
                snprintf(err, errlen, "cannot open our own network namespace: %s",
                         strerror(errno));
            goto fail;
        }
        /* The socket belongs to the namespace it is created in. */
        if (setns(target, CLONE_NEWNET) != 0) {
            snprintf(err, errlen, "cannot enter network namespace %s: %s", ns, strerror(errno));
            goto fail;
        }
    }
    struct nl_sock *sk = nl_socket_alloc();
    int rc = sk ? nl_connect(sk, NETLINK_ROUTE) : -NLE_NOMEM;
    if (ns && setns(home, CLONE_NEWNET) != 0) {
        /* Cannot happen short of a kernel bug; carrying on in the wrong
         * namespace would be worse than stopping. */
        snprintf(err, errlen, "cannot return from network namespace %s: %s", ns,
                 strerror(errno));
        if (sk)
            nl_socket_free(sk);
        goto fail;
    }
    if (rc < 0) {
        snprintf(err, errlen, "netlink socket%s%s: %s", ns ? " in " : "", ns ? ns : "",
                 nl_geterror(rc));
        if (sk)
            nl_socket_free(sk);
        goto fail;
    }
    if (home >= 0)
        close(home);
    if (target >= 0)
        close(target);
    return sk;
fail:
    if (home >= 0)
        close(home);
    if (target >= 0)
        close(target);
    return NULL;
}

void net_close(struct nl_sock *sk)
{
    if (sk)
        nl_socket_free(sk);
}

static int nlfail(char *err, size_t n, int rc, const char *what, const char *name)
{
    snprintf(err, n, "%s %s: %s", what, name, nl_geterror(rc));
    return -1;
}

int net_ipv4_conf(const char *ifname, const char *key, const char *value, char *err,
                  size_t errlen)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/net/ipv4/conf/%s/%s", ifname, key);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = fputs(value, f) < 0 ? -1 : 0;
    if (fclose(f) != 0 || rc != 0) {
        snprintf(err, errlen, "cannot write %s to %s: %s", value, path, strerror(errno));
        return -1;
    }
    return 0;
}

int net_bridge_add(struct nl_sock *sk, const char *name, char *err, size_t errlen)
{
    struct rtnl_link *l = rtnl_link_bridge_alloc();
    if (!l)
        return nlfail(err, errlen, -NLE_NOMEM, "cannot create bridge", name);
    rtnl_link_set_name(l, name);
    int rc = rtnl_link_add(sk, l, NLM_F_CREATE | NLM_F_EXCL);
    rtnl_link_put(l);
    if (rc < 0 && rc != -NLE_EXIST)
        return nlfail(err, errlen, rc, "cannot create bridge", name);
    return 0;
}

int net_veth_add(struct nl_sock *sk, const char *name, const char *peer, const char *peer_ns,
                 char *err, size_t errlen)
{
    int nsfd = -1;
    if (peer_ns && (nsfd = netns_fd(peer_ns, err, errlen)) < 0)
        return -1;
    struct rtnl_link *l = rtnl_link_veth_alloc();
    if (!l) {
        if (nsfd >= 0)
            close(nsfd);
        return nlfail(err, errlen, -NLE_NOMEM, "cannot create veth", name);
    }
    rtnl_link_set_name(l, name);
    struct rtnl_link *p = rtnl_link_veth_get_peer(l);
    rtnl_link_set_name(p, peer);
    if (nsfd >= 0)
        rtnl_link_set_ns_fd(p, nsfd);
    rtnl_link_put(p);
    int rc = rtnl_link_add(sk, l, NLM_F_CREATE | NLM_F_EXCL);
    rtnl_link_put(l);
    if (nsfd >= 0)
        close(nsfd);
    if (rc < 0 && rc != -NLE_EXIST)
        return nlfail(err, errlen, rc, "cannot create veth pair", name);
    return 0;
}

static int get_link(struct nl_sock *sk, const char *name, struct rtnl_link **l, char *err,
                    size_t errlen)
{
    int rc = rtnl_link_get_kernel(sk, 0, name, l);
    if (rc < 0)
        return nlfail(err, errlen, rc, "no link", name);
    return 0;
}

int net_ifindex(struct nl_sock *sk, const char *name, char *err, size_t errlen)
{
    struct rtnl_link *l;
    if (get_link(sk, name, &l, err, errlen) != 0)
        return -1;
    int i = rtnl_link_get_ifindex(l);
    rtnl_link_put(l);
    return i;
}

int net_link_set_master(struct nl_sock *sk, const char *name, const char *master, char *err,
                        size_t errlen)
{
    int port = net_ifindex(sk, name, err, errlen);
    int bridge = port < 0 ? -1 : net_ifindex(sk, master, err, errlen);
    if (bridge < 0)
        return -1;
    int rc = rtnl_link_enslave_ifindex(sk, bridge, port);
    if (rc < 0)
        return nlfail(err, errlen, rc, "cannot attach to the bridge:", name);
    return 0;
}

int net_link_set_up(struct nl_sock *sk, const char *name, bool up, char *err, size_t errlen)
{
    struct rtnl_link *l;
    if (get_link(sk, name, &l, err, errlen) != 0)
        return -1;
    struct rtnl_link *change = rtnl_link_alloc();
    if (!change) {
        rtnl_link_put(l);
        return nlfail(err, errlen, -NLE_NOMEM, "cannot change link", name);
    }
    if (up)
        rtnl_link_set_flags(change, IFF_UP);
    else
        rtnl_link_unset_flags(change, IFF_UP);
    int rc = rtnl_link_change(sk, l, change, 0);
    rtnl_link_put(change);
    rtnl_link_put(l);
    if (rc < 0)
        return nlfail(err, errlen, rc, up ? "cannot set up" : "cannot set down", name);
    return 0;
}

int net_link_set_up_index(struct nl_sock *sk, int ifindex, bool up, char *err, size_t errlen)
{
    struct rtnl_link *orig = rtnl_link_alloc(), *change = rtnl_link_alloc();
    int rc = -NLE_NOMEM;
    if (orig && change) {
        rtnl_link_set_ifindex(orig, ifindex);
        if (up)
            rtnl_link_set_flags(change, IFF_UP);
        else
            rtnl_link_unset_flags(change, IFF_UP);
        rc = rtnl_link_change(sk, orig, change, 0);
    }
    if (orig)
        rtnl_link_put(orig);
    if (change)
        rtnl_link_put(change);
    if (rc < 0) {
        snprintf(err, errlen, "cannot set link %d %s: %s", ifindex, up ? "up" : "down",
                 nl_geterror(rc));
        return -1;
    }
    return 0;
}

int net_addr_add(struct nl_sock *sk, const char *name, const char *cidr, char *err,
                 size_t errlen)
{
    int ifindex = net_ifindex(sk, name, err, errlen);
    if (ifindex < 0)
        return -1;
    struct nl_addr *local;
    int rc = nl_addr_parse(cidr, AF_INET, &local);
    if (rc < 0)
        return nlfail(err, errlen, rc, "bad address", cidr);
    struct rtnl_addr *a = rtnl_addr_alloc();
    if (!a) {
        nl_addr_put(local);
        return nlfail(err, errlen, -NLE_NOMEM, "cannot add address", cidr);
    }
    rtnl_addr_set_ifindex(a, ifindex);
    rtnl_addr_set_local(a, local);
    rc = rtnl_addr_add(sk, a, 0);
    rtnl_addr_put(a);
    nl_addr_put(local);
    if (rc < 0 && rc != -NLE_EXIST)
        return nlfail(err, errlen, rc, "cannot add address", cidr);
    return 0;
}

int net_link_delete(struct nl_sock *sk, const char *name, char *err, size_t errlen)
{
    struct rtnl_link *l;
    int rc = rtnl_link_get_kernel(sk, 0, name, &l);
    if (rc == -NLE_OBJ_NOTFOUND || rc == -NLE_NODEV)
        return 0;
    if (rc < 0)
        return nlfail(err, errlen, rc, "cannot look up link", name);
    rc = rtnl_link_delete(sk, l);
    rtnl_link_put(l);
    if (rc < 0 && rc != -NLE_OBJ_NOTFOUND && rc != -NLE_NODEV)
        return nlfail(err, errlen, rc, "cannot delete link", name);
    return 0;
}

int net_link_state(struct nl_sock *sk, const char *name, struct link_state *st, char *err,
                   size_t errlen)
{
    memset(st, 0, sizeof *st);
    struct rtnl_link *l;
    int rc = rtnl_link_get_kernel(sk, 0, name, &l);
    if (rc == -NLE_OBJ_NOTFOUND || rc == -NLE_NODEV)
        return 0;
    if (rc < 0)
        return nlfail(err, errlen, rc, "cannot look up link", name);
    unsigned flags = rtnl_link_get_flags(l);
    st->exists = true;
    st->admin_up = flags & IFF_UP;
    st->carrier = flags & IFF_LOWER_UP;
    int master = rtnl_link_get_master(l);
    rtnl_link_put(l);
    if (master > 0) {
        struct rtnl_link *m;
        if (rtnl_link_get_kernel(sk, master, NULL, &m) == 0) {
            snprintf(st->master, sizeof st->master, "%s", rtnl_link_get_name(m));
            rtnl_link_put(m);
        }
    }
    return 0;
}

int net_tbf_set(struct nl_sock *sk, const char *name, uint64_t rate, uint32_t burst,
                uint32_t latency_us, char *err, size_t errlen)
{
    int ifindex = net_ifindex(sk, name, err, errlen);
    if (ifindex < 0)
        return -1;
    if (rate == 0 || rate > INT32_MAX) {
        snprintf(err, errlen, "rate %llu bytes/s is out of range for tbf",
                 (unsigned long long)rate);
        return -1;
    }
    struct rtnl_qdisc *q = rtnl_qdisc_alloc();
    if (!q)
        return nlfail(err, errlen, -NLE_NOMEM, "cannot set tbf on", name);
    rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
    rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
    rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(0xf1, 0));
    int rc = rtnl_tc_set_kind(TC_CAST(q), "tbf");
    if (rc == 0) {
        rtnl_qdisc_tbf_set_rate(q, (int)rate, (int)burst, 0);
        rc = rtnl_qdisc_tbf_set_limit_by_latency(q, (int)latency_us);
    }
    if (rc == 0)
        rc = rtnl_qdisc_add(sk, q, NLM_F_CREATE | NLM_F_REPLACE);
    rtnl_qdisc_put(q);
    if (rc < 0)
        return nlfail(err, errlen, rc, "cannot set tbf on", name);
    return 0;
}

int net_qdisc_delete_root(struct nl_sock *sk, const char *name, char *err, size_t errlen)
{
    struct rtnl_link *l;
    int rc = rtnl_link_get_kernel(sk, 0, name, &l);
    if (rc == -NLE_OBJ_NOTFOUND || rc == -NLE_NODEV)
        return 0; /* the link is gone, and its qdisc with it */
    if (rc < 0)
        return nlfail(err, errlen, rc, "cannot look up link", name);
    int ifindex = rtnl_link_get_ifindex(l);
    rtnl_link_put(l);
    struct rtnl_qdisc *q = rtnl_qdisc_alloc();
    if (!q)
        return nlfail(err, errlen, -NLE_NOMEM, "cannot delete the qdisc of", name);
    rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
    rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
    rc = rtnl_qdisc_delete(sk, q);
    rtnl_qdisc_put(q);
    /* No qdisc of ours there (ENOENT, EINVAL for the default one): done. */
    if (rc < 0 && rc != -NLE_OBJ_NOTFOUND && rc != -NLE_INVAL && rc != -NLE_NOADDR)
        return nlfail(err, errlen, rc, "cannot delete the qdisc of", name);
    return 0;
}

int net_bridge_ports(struct nl_sock *sk, const char *bridge, char names[][16], int max, char *err,
                     size_t errlen)
{
    int master = net_ifindex(sk, bridge, err, errlen);
    if (master < 0)
        return -1;
    struct nl_cache *cache;
    int rc = rtnl_link_alloc_cache(sk, AF_UNSPEC, &cache);
    if (rc < 0)
        return nlfail(err, errlen, rc, "cannot list the links of", bridge);
    int n = 0;
    for (struct nl_object *o = nl_cache_get_first(cache); o && n < max; o = nl_cache_get_next(o)) {
        struct rtnl_link *l = (struct rtnl_link *)o;
        if (rtnl_link_get_master(l) == master)
            snprintf(names[n++], 16, "%s", rtnl_link_get_name(l));
    }
    nl_cache_free(cache);
    return n;
}
