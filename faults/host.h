/*
 * host — where a fault acts.  A [host NAME] section of the scenario
 * (struct host_spec) names a machine outside the lab, reached locally
 * through a network namespace or over ssh (struct ssh_dest, used by
 * ssh/); the timeline resolves every fault's host, from the lab, `local`
 * or such a section, into a struct fault_host, which is all a family sees.
 */
#ifndef FL_HOST_H
#define FL_HOST_H

#include <stdbool.h>
#include <stdint.h>

#define FL_MAX_HOSTS 16

/* How to reach a host over OpenSSH, where `faultline agent` runs its
 * faults (ssh/remote.h).  dest[0] == 0: the host is not reached over ssh. */
struct ssh_dest {
    char dest[128];        /* [USER@]ADDRESS */
    uint64_t port;         /* 0: ssh's own default */
    char identity[256];    /* ssh -i; "" none */
    char known_hosts[256]; /* UserKnownHostsFile; "" ssh's default */
    char options[512];     /* more ssh options, as words */
    bool sudo;             /* start the agent through sudo -n */
    char agent_dir[256];   /* where the agent lives on the host; "" the default */
    uint64_t lease_ns;     /* a fault outlives its planned clear by at most this */
};

/* How a [host] is powered off and on: commands run here, on the controller,
 * not on the host they power off (a BMC's `ipmitool ... chassis power off`),
 * with /bin/sh -c.  off[0] == 0: the host has none (power-off refused). */
struct host_power {
    char off[512];
    char on[512];
    char status[512];  /* optional: says "off" or "on" (families/power.c) */
    uint64_t wait_ns;  /* status must confirm a change within this long */
};

/* A [host NAME] section: a machine outside the lab, reachable locally
 * through a network namespace, or over ssh. */
struct host_spec {
    char name[32];
    int line;
    char netns[64];
    char interface[16];
    char port[16];
    char address[64];
    char switch_host[32]; /* the [host] of the Linux switch that holds its port */
    char restart[512];    /* starts its service again (restart, restart_after) */
    char ssh[160];        /* [USER@]ADDRESS[:PORT] as written */
    struct ssh_dest via;  /* ssh, parsed, and the other ssh_* keys */
    struct host_power power; /* power_off, power_on, power_status, power_wait */
    char cluster_logs[512];  /* a [cluster]'s logs on this host, comma-separated paths */
};

/* Where a fault acts, resolved from the lab, `local` or a [host] section. */
struct fault_host {
    char name[32];
    char netns[64];  /* "" = our own */
    char ifname[16]; /* its interface, inside netns */
    char port[16];   /* its switch port (in port_netns); "" unknown */
    char port_netns[64]; /* the namespace of the switch that holds `port`: "" ours (a
                            rank of a lab's client host reaches the lab's switch by name) */
    char addr[64];
    bool lab;        /* a host of the lab: the lab knows its processes */
    char switch_host[32]; /* the host that holds `port` ("" ours, or the lab's switch) */
    char restart[512];    /* a command that starts its service again; "" none */
    struct ssh_dest ssh;  /* reached over ssh (ssh.dest[0]), or not */
    struct host_power power; /* a [host]'s power commands; off[0] == 0: none */
};

#endif
