/* lab_switch — the lab's network (lab_switch.c): a /24 of 198.18.0.0/15
 * of its own, the switch (a bridge in our namespace) with the client's
 * port and cable, and the cables of servers and client hosts; every link
 * recorded before it is made. */
#ifndef FL_LAB_SWITCH_H
#define FL_LAB_SWITCH_H

#include "lab.h"

struct nl_sock;

/* A /24 of 198.18.0.0/15 that no other lab's state file names: X of
 * 198.18.X.0/24. */
unsigned lab_pick_subnet(const char *prefix, const char *own_state);

/* The switch, with the client's port and cable, in our namespace.  0, or
 * -1 with err. */
int lab_switch_build(struct lab *lab, struct nl_sock *sk, int fd, char *err, size_t errlen);

/* A cable from switch `bridge` (port `port`, in our namespace) to
 * interface `ifname` in namespace `netns`, with addr/24 and lo up; the
 * link recorded first.  0, or -1 with err. */
int lab_cable(struct nl_sock *sk, int fd, const char *bridge, const char *port,
              const char *netns, const char *ifname, const char *addr, char *err, size_t errlen);

/* A server: its namespace, on the switch through its port.  0, or -1. */
int lab_switch_server(struct lab *lab, const struct lab_host *h, struct nl_sock *sk, int fd,
                      char *err, size_t errlen);

/* Host h's switch port down or up again: its cable pulled at the switch.
 * A power cut takes the host off the network first, so that nothing its
 * kernel sends after the cut (the FIN or RST of a process killed in it)
 * reaches a peer, which must find out by its own timeouts, as from a real
 * host that lost power.  0, or -1 with err. */
int lab_port_set(const struct lab_host *h, bool up, char *err, size_t errlen);

#endif
