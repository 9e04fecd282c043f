/*
 * ceph — a Ceph cluster with CephFS, as its CLI tells of it: what the
 * ceph lab also needs while it builds and shows itself (lab_ceph.c), the
 * rest through the storage kind (storage.h).
 */
#ifndef FL_STORAGE_CEPH_H
#define FL_STORAGE_CEPH_H

#include <stddef.h>

#include "storage.h"

/* What `ceph status -f json` says of the cluster. */
struct ceph_view {
    unsigned quorum, mons;
    char quorum_names[64];
    unsigned osds, osds_up, osds_in;
    unsigned pgs, pgs_clean, pgs_active;
    char active[16];       /* the active MDS ("" none) */
    unsigned mds_standby;  /* standbys, standby-replay included */
    char health[32];
    char checks[200];      /* the health checks that fail: "MDS_INSUFFICIENT_STANDBY, ..." */
};

/* Asks the cluster.  0, or -1 with err (the CLI's words, or not JSON). */
int storage_ceph_view(const struct storage *st, struct ceph_view *v, char *err, size_t errlen);

/* `ceph version`'s line ("ceph version 16.2.15 (...) pacific (stable)").
 * 0, or -1 with out saying why not. */
int storage_ceph_version(const struct storage *st, char *out, size_t n);

/* The --connect-timeout (whole seconds) of a question given timeout_ms. */
void storage_ceph_timeout(int timeout_ms, char *out, size_t n);

#endif
