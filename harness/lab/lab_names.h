/* lab_names — names that follow from a prefix, and small shared helpers
 * (lab_names.c; lab_prefix and lab_host are in lab.h).  For the core and
 * the kinds' files. */
#ifndef FL_LAB_NAMES_H
#define FL_LAB_NAMES_H

#include "lab.h"

/* hosts[0], the client in our namespace: P-IFNAME, port BRIDGE-c, .1 */
void lab_lay_out_client(struct lab *lab, const char *ifname);

/* A server host: namespace P-KIND-NAME, eth0, port PORT, 198.18.X.HOSTNO. */
void lab_lay_out_server(struct lab *lab, struct lab_host *h, const char *name, const char *port,
                        unsigned hostno);

/* Whether h is a client host c1..cN (not the servers, not our namespace). */
static inline bool lab_is_client_host(const struct lab_host *h)
{
    return h->mgmt_addr[0] != '\0';
}

/* lab_host, for changing what the state says of the host (its PIDs). */
struct lab_host *lab_host_mut(struct lab *lab, const char *name);

/* Sleeps ms milliseconds: the bounded polling loops. */
void lab_pause_ms(unsigned ms);

/* fnv-1a of a string: names that follow from a prefix. */
uint32_t lab_hash(const char *s);

#endif
