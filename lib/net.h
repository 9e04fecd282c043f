/*
 * net — network namespaces and links, through netlink (libnl-route-3).
 *
 * The embedded labs are built from these, and the network faults act with
 * them.  No `ip` subprocess anywhere.
 *
 * Named namespaces follow iproute2's convention, so `ip netns` sees them: a
 * namespace NAME is kept alive by a bind mount of its nsfs inode on
 * /run/netns/NAME (a shared mount point, like iproute2 makes it).
 *
 * Every function returns 0 on success or -1 with `err` saying what failed
 * and why (the netlink or system error text).  Deleting something that is
 * already gone succeeds, so teardown can always be repeated.
 */
#ifndef FL_NET_H
#define FL_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsname.h" /* NETNS_DIR, netns_exists, netns_fd */

/* Creates namespace `name` (an existing one is fine). */
int netns_create(const char *name, char *err, size_t errlen);

/* Gives our own namespace the name `name` too (as `ip netns attach`), so
 * that a process in another one can enter it by name.  Deleting the name
 * leaves the namespace alone. */
int netns_name_ours(const char *name, char *err, size_t errlen);

/* Deletes namespace `name`: unmounts and removes /run/netns/name. */
int netns_delete(const char *name, char *err, size_t errlen);

struct nl_sock;

/* A route netlink socket that acts inside namespace `ns` (NULL: the one we
 * run in).  NULL with err filled on failure.  Free with net_close(). */
struct nl_sock *net_open(const char *ns, char *err, size_t errlen);
void net_close(struct nl_sock *sk);

/* Writes VALUE to /proc/sys/net/ipv4/conf/IFNAME/KEY (in our namespace).
 * 0, or -1 with err. */
int net_ipv4_conf(const char *ifname, const char *key, const char *value, char *err,
                  size_t errlen);

int net_bridge_add(struct nl_sock *sk, const char *name, char *err, size_t errlen);

/* A veth pair `name` <-> `peer`; the peer goes into namespace peer_ns
 * (NULL: stays here). */
int net_veth_add(struct nl_sock *sk, const char *name, const char *peer, const char *peer_ns,
                 char *err, size_t errlen);

/* Attaches link `name` to bridge `master` (a switch port). */
int net_link_set_master(struct nl_sock *sk, const char *name, const char *master, char *err,
                        size_t errlen);

int net_link_set_up(struct nl_sock *sk, const char *name, bool up, char *err, size_t errlen);

/* The index of link `name`, or -1 with err. */
int net_ifindex(struct nl_sock *sk, const char *name, char *err, size_t errlen);

/* net_link_set_up() by index: one netlink round trip, for faults on a
 * schedule (the index is looked up beforehand). */
int net_link_set_up_index(struct nl_sock *sk, int ifindex, bool up, char *err, size_t errlen);

/* Adds "198.18.10.1/24" to link `name`. */
int net_addr_add(struct nl_sock *sk, const char *name, const char *cidr, char *err,
                 size_t errlen);

int net_link_delete(struct nl_sock *sk, const char *name, char *err, size_t errlen);

/* tc: a tbf qdisc as the root of link `name` (replacing what is there):
 * rate in bytes per second, burst (bucket) in bytes, latency in µs. */
int net_tbf_set(struct nl_sock *sk, const char *name, uint64_t rate, uint32_t burst,
                uint32_t latency_us, char *err, size_t errlen);

/* Removes the root qdisc of link `name` (back to the default). */
int net_qdisc_delete_root(struct nl_sock *sk, const char *name, char *err, size_t errlen);

/* Names of the links attached to bridge `bridge` (its switch ports).
 * Returns how many (at most max), or -1 with err. */
int net_bridge_ports(struct nl_sock *sk, const char *bridge, char names[][16], int max, char *err,
                     size_t errlen);

struct link_state {
    bool exists;
    bool admin_up; /* IFF_UP: set by us */
    bool carrier;  /* IFF_LOWER_UP: the other end is up too */
    char master[32];
};

/* What netlink says about link `name` right now. */
int net_link_state(struct nl_sock *sk, const char *name, struct link_state *st, char *err,
                   size_t errlen);

#endif
