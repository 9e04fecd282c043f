/* lab_ha — the HA lab's files (lab_ha.c: the nodes, faults, health and
 * status; lab_ha_config.c: what the cluster is configured with, written
 * before it starts).  The lab's names and settings are shared here. */
#ifndef FL_LAB_HA_H
#define FL_LAB_HA_H

#include "lab.h"

/* Its [lab] keys. */
struct ha_lab_opts {
    uint64_t token_ns;     /* corosync's totem.token */
    uint64_t consensus_ns; /* totem.consensus; 0: corosync's own (1.2 x token) */
    bool fencing;          /* stonith-enabled, with fence_faultline */
    bool write_cache;      /* each node's volatile cache (lab_cache.h) */
    uint64_t stickiness;   /* rsc_defaults resource-stickiness */
};

/* Its own names, from the prefix. */
struct ha_lab {
    char vip[24];     /* the floating IP: 198.18.X.100 */
    char lun[160];    /* LAB/lun.img: the shared storage */
    char iqn[128];
    char serial[32];
    char portal[256]; /* iscsi://VIP:3260/IQN/1: the one portal clients use */
    char fence[160];  /* LAB/fence: fence_faultline, seen by the nodes in /usr/sbin */
    char cache[160];  /* LAB/cache: where each node sees its own cache (LAB/cache-N) */
};

/* The file the LUN resource exports, the same path on both nodes: the
 * shared file, or (write_cache) LAB/cache/lun, each node's own cache. */
void ha_lun_path(const struct lab *lab, char *out, size_t n);

static inline const struct ha_lab_opts *ha_opts(const struct lab *lab)
{
    return LAB_OPTS(&lab->opts, const struct ha_lab_opts);
}

static inline struct ha_lab *ha_priv(const struct lab *lab)
{
    return LAB_PRIV((struct lab *)lab, struct ha_lab);
}

/* The cluster's resources, by their ids in the CIB, in the group's order
 * (tgtd first, the floating IP last: clients reach the target only once
 * it serves the LUN). */
#define HA_GROUP "target-group"
#define HA_RSC_TGTD "tgtd"
#define HA_RSC_TARGET "target"
#define HA_RSC_LUN "lun"
#define HA_RSC_VIP "vip"

/* Node h's corosync.conf, written to path.  0, or -1 with err. */
int ha_write_corosync_conf(const struct lab *lab, const char *path, const char *logfile,
                           char *err, size_t errlen);

/* The cluster's whole configuration as a CIB (cib.xml: properties, nodes,
 * fencing devices, the resource group, constraints), written to path
 * owned by uid:gid (pacemaker reads it as hacluster at its first start;
 * both nodes get the same one, so neither waits for the other's).  0, or
 * -1 with err. */
int ha_write_cib(const struct lab *lab, const char *path, unsigned uid, unsigned gid, char *err,
                 size_t errlen);

/* LAB/fence/fence_faultline: the fence agent the nodes run (as a real
 * cluster's fence_ipmilan reaches a BMC): it powers a node off, on or asks
 * its state through the lab's switch, with `faultline lab power` over the
 * switch's sshd (lab_ssh_power).  0, or -1 with err. */
int ha_write_fence_agent(const struct lab *lab, char *err, size_t errlen);

#endif
