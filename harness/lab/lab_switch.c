/* lab_switch — the lab's network: its subnet, the switch (a bridge) with
 * the client's port and cable, and each server's namespace on a cable of
 * its own.  See lab_switch.h. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/net.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_switch.h"

int lab_port_set(const struct lab_host *h, bool up, char *err, size_t errlen)
{
    if (!h->port[0]) {
        snprintf(err, errlen, "%s has no switch port", h->name);
        return -1;
    }
    struct nl_sock *sk = net_open(NULL, err, errlen);
    if (!sk)
        return -1;
    char why[256];
    int rc = net_link_set_up(sk, h->port, up, why, sizeof why);
    net_close(sk);
    if (rc != 0)
        snprintf(err, errlen, "cannot take the switch port %s of %s %s: %s", h->port, h->name,
                 up ? "up" : "down", why);
    return rc;
}

/* A /24 of 198.18.0.0/15 that no other lab's state file names. */
unsigned lab_pick_subnet(const char *prefix, const char *own_state)
{
    bool used[256] = {false};
    DIR *d = opendir(LAB_STATE_DIR);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", LAB_STATE_DIR, de->d_name);
        if (de->d_name[0] == '.' || strcmp(path, own_state) == 0)
            continue;
        FILE *f = fopen(path, "r");
        char line[256];
        unsigned x;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "subnet %u", &x) == 1 && x < 256)
                used[x] = true;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    unsigned x = 10 + lab_hash(prefix) % 240;
    for (unsigned k = 0; k < 240 && used[x]; k++)
        x = 10 + (x - 10 + 1) % 240;
    return x;
}

/* A link's address and up, through a socket in its namespace. */
static int link_ready(struct nl_sock *sk, const char *ifname, const char *addr, char *err,
                      size_t errlen)
{
    char cidr[40];
    snprintf(cidr, sizeof cidr, "%s/24", addr);
    return net_link_set_up(sk, ifname, true, err, errlen) != 0 ||
                   net_addr_add(sk, ifname, cidr, err, errlen) != 0
               ? -1
               : 0;
}

/* The switch, with the client's port and cable, in our namespace. */
int lab_switch_build(struct lab *lab, struct nl_sock *sk, int fd, char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "link %s", lab->bridge) != 0)
        return -1;
    /* The client's address lives in our namespace, which also holds the
     * switch (the bridge device).  Without arp_ignore the bridge answers the
     * servers' ARP for the client too, and after a link bounce their
     * replies may come in through the bridge device, around the client's own
     * port and cable: faults on those would then cut nothing. */
    if (net_bridge_add(sk, lab->bridge, err, errlen) != 0 ||
        net_ipv4_conf(lab->bridge, "arp_ignore", "1", err, errlen) != 0 ||
        net_link_set_up(sk, lab->bridge, true, err, errlen) != 0)
        return -1;
    const struct lab_host *c = &lab->hosts[0];
    /* deleting one end of a veth pair deletes both */
    if (lab_rec(fd, err, errlen, "link %s", c->ifname) != 0 ||
        lab_rec(fd, err, errlen, "link %s", c->port) != 0)
        return -1;
    if (net_veth_add(sk, c->ifname, c->port, NULL, err, errlen) != 0 ||
        net_link_set_master(sk, c->port, lab->bridge, err, errlen) != 0 ||
        net_link_set_up(sk, c->port, true, err, errlen) != 0)
        return -1;
    return link_ready(sk, c->ifname, c->addr, err, errlen);
}

int lab_cable(struct nl_sock *sk, int fd, const char *bridge, const char *port,
              const char *netns, const char *ifname, const char *addr, char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "link %s", port) != 0 ||
        net_veth_add(sk, port, ifname, netns, err, errlen) != 0 ||
        net_link_set_master(sk, port, bridge, err, errlen) != 0 ||
        net_link_set_up(sk, port, true, err, errlen) != 0)
        return -1;
    struct nl_sock *in = net_open(netns, err, errlen);
    if (!in)
        return -1;
    int rc = net_link_set_up(in, "lo", true, err, errlen) != 0 ||
                     link_ready(in, ifname, addr, err, errlen) != 0
                 ? -1
                 : 0;
    net_close(in);
    return rc;
}

/* A server: its namespace, on the switch through its port. */
int lab_switch_server(struct lab *lab, const struct lab_host *h, struct nl_sock *sk, int fd,
                        char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "netns %s", h->netns) != 0 ||
        netns_create(h->netns, err, errlen) != 0)
        return -1;
    return lab_cable(sk, fd, lab->bridge, h->port, h->netns, h->ifname, h->addr, err, errlen);
}
