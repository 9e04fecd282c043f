/*
 * manifest — on exactly what a run (or a later verify) ran, for its report
 * (`manifest` in report.json, a section of report.txt and report.html,
 * written by report/report_manifest.c):
 *
 *   faultline   this build: git describe, compiler, flags, sanitizers
 *               (buildinfo.h)
 *   machine     kernel release, CPU model and count, memory
 *   target      what the target is, as its backend says (backend_ops.
 *               identify: a device's model and serial, a LUN's INQUIRY data,
 *               a filesystem's type and mount options), and for a lab that
 *               describes its storage (lab_report.describe) the volume and
 *               its options; for a real cluster ([cluster]) the same,
 *               as its storage kind asks it on the cluster's via host
 *               (storage.h)
 *   versions    tgtd, glusterfs, libiscsi and libnl as found on this
 *               machine ("not found" when absent)
 *   scenario    the SHA-256 of the scenario file as run (DIR/scenario.scn)
 *               and the seed
 *   hosts       each host's name and kernel: this one, the lab's servers
 *               (their own hostname when they have a UTS namespace), the
 *               ssh hosts as their agents said hello
 *
 * Gathering asks a few programs for their versions and, for a GlusterFS
 * lab, the volume: some tens of milliseconds.  Whatever cannot be learned
 * is said so, never fatal.
 */
#ifndef FL_MANIFEST_H
#define FL_MANIFEST_H

#include <stdint.h>

#include "../../faults/ssh/remote.h"
#include "../../lib/kvlist.h"
#include "../../lib/sha256.h"
#include "../../workloads/backend.h"
#include "crew.h"
#include "../lab/lab.h"
#include "../scenario/scenario.h"

#define MANIFEST_MAX_HOSTS (LAB_MAX_HOSTS + LAB_MAX_CLIENTS + FL_MAX_HOSTS + 1)
#define MANIFEST_NOT_FOUND "not found"

struct manifest_host {
    char name[32];     /* as the scenario and lab call it: client, ctrl-a, gs1, [host X] */
    char hostname[65]; /* its uname nodename ("" unknown) */
    char kernel[65];   /* its uname release ("" unknown) */
    const char *via;   /* "local", "netns" (a lab namespace), "ssh" (its agent) */
};

struct manifest {
    char version[128], cc[160], cflags[512], sanitizers[128];
    char hostname[65], kernel[65], arch[65];
    char cpu_model[160];
    unsigned cpus, cpus_usable; /* online; usable by this process (affinity) */
    uint64_t memory_bytes;      /* MemTotal */
    char target_kind[16];
    struct kv_list target;      /* backend_ops.identify */
    char lab_kind[16];          /* "" without a lab */
    struct kv_list lab_about, lab_options; /* lab_report.describe */
    bool lab_described;
    char cluster_kind[16];      /* [cluster] kind, "" without one */
    char cluster_via[192];      /* where its CLI was asked */
    struct kv_list cluster_about, cluster_options; /* storage_kind.describe */
    char tgtd[96], glusterfs[96], libiscsi[128], libnl[64];
    char scenario_sha256[2 * SHA256_BYTES + 1]; /* "" when it could not be read */
    char scenario_error[256];
    uint64_t seed;
    struct manifest_host hosts[MANIFEST_MAX_HOSTS];
    unsigned nhosts;
    double gather_s; /* how long gathering took */
};

/* Where the manifest learns what it holds. */
struct manifest_from {
    const char *dir;                /* the run directory (scenario.scn) */
    const struct scenario *sc;
    uint64_t seed;
    const struct backend *be;       /* the target as opened, or NULL */
    const struct lab *lab;          /* the run's lab, or NULL ... */
    const char *lab_prefix;         /* ... or (verify) the prefix of sc->lab's to load, "" none */
    const struct remote_info *agents; /* the ssh hosts' agents */
    unsigned nagents;
    const struct storage *cluster;  /* the [cluster]'s storage, or NULL */
};

/* Gathers it (allocated; NULL only when out of memory, said on stderr). */
struct manifest *manifest_gather(const struct manifest_from *from);

void manifest_free(struct manifest *m);

/* The crew's first worker's target, while it is open (NULL otherwise), for
 * manifest_from.be. */
const struct backend *manifest_backend(const struct crew *crew);

#endif
