/*
 * lab_ceph — what the files of the ceph lab share (lab_ceph.c says what
 * the lab is): its options and names, its daemons, its CLI and its view
 * of the cluster.  Private to the lab_ceph*.c files; each block names the
 * file it is in.  They use each other in one direction only: daemons <-
 * serve <- health <- build <- faults <- lab_ceph.c (the tables).
 */
#ifndef FL_LAB_CEPH_H
#define FL_LAB_CEPH_H

#include "../storage/ceph.h"
#include "lab_kind.h"

#define NSERVERS 3
#define PG_NUM "16"
#define CLI_TIMEOUT_MS 30000
#define SECOND 1000000000ull

/* Its [lab] keys: what the outages of a Ceph cluster depend on. */
struct ceph_lab_opts {
    uint64_t mds_beacon_grace_ns, mds_beacon_interval_ns, mon_tick_interval_ns;
    uint64_t mds_beacon_mon_down_grace_ns, osd_heartbeat_grace_ns, client_mount_timeout_ns;
    bool standby_replay, client_cache;
    bool disk_faults;
};
_Static_assert(sizeof(struct ceph_lab_opts) <= LAB_OPTS_MAX, "ceph lab options");

/* Its own names, from the prefix. */
struct ceph_lab {
    char fs[32], meta[32], data[32];
    char fsid[40];
    char conf[160], keyring[160], mount[160];
};
_Static_assert(sizeof(struct ceph_lab) <= LAB_PRIV_MAX, "ceph lab names");

static inline struct ceph_lab *priv(const struct lab *lab)
{
    return LAB_PRIV((struct lab *)lab, struct ceph_lab);
}

static inline const struct ceph_lab_opts *opts(const struct lab *lab)
{
    return LAB_OPTS(&lab->opts, const struct ceph_lab_opts);
}

static inline unsigned seconds(uint64_t ns)
{
    return (unsigned)(ns / SECOND);
}

/* --- lab_ceph_daemons.c: the daemons of a server --- */

/* A daemon type: its program, and which servers (1..3) run one. */
struct daemon_type {
    const char *type; /* process = TYPE */
    const char *comm; /* its program, as /proc/PID/comm names it */
    unsigned on;      /* bit N: csN runs one */
};

#define NDAEMONS 4
extern const struct daemon_type ceph_daemons[NDAEMONS]; /* mon, mgr, osd, mds */

/* The daemon type called `type` ("mon"), or NULL. */
const struct daemon_type *ceph_daemon_of(const char *type);

/* N of server csN, 0 for any other host. */
unsigned ceph_server_no(const struct lab_host *h);

/* Whether host h runs a daemon of type d. */
bool ceph_runs(const struct daemon_type *d, const struct lab_host *h);

/* The daemon's id: mon, mgr and mds by host name, the OSD by number. */
void ceph_daemon_id(const struct daemon_type *d, const struct lab_host *h, char *out, size_t n);

/* A live process of host h whose program is `comm` (NULL: any Ceph
 * daemon, which has the server's own namespaces: not its sshd); its start
 * time to *start.  0: none. */
pid_t ceph_live_daemon(const struct lab_host *h, const char *comm, uint64_t *start);

/* A server's disk (lab_faults.disk): HOME.img; false for any other host. */
bool ceph_disk(const struct lab *lab, const struct lab_host *h, struct lab_disk_spec *s);

/* The server's disk image, made, its disk layer started (lab_disk.h),
 * and the directory it is mounted on. */
int ceph_make_disk(struct lab *lab, const struct lab_host *h, int fd, char *err,
                   size_t errlen);

/* Waits until no loop device holds h's disk (its layer's file, or the
 * image) any more (lab_image_let_go). */
int ceph_disk_let_go(const struct lab *lab, const struct lab_host *h, char *err, size_t errlen);

/* Where a daemon of h starts: in the server as it runs, or in one booted
 * anew when nothing of it is left (its first start, a power cut). */
int ceph_place_of(const struct lab *lab, struct lab_host *h, int fd, struct proc_place *at,
                  char *err, size_t errlen);

/* Starts daemon d of h in the foreground; the monitor is the host's
 * service, its PID recorded. */
int ceph_start_daemon(const struct lab *lab, struct lab_host *h, const struct daemon_type *d,
                      int fd, char *err, size_t errlen);

/* Starts every daemon of server h that is not running, the monitor first. */
int ceph_run_missing(const struct lab *lab, struct lab_host *h, int fd, char *err,
                     size_t errlen);

/* --- lab_ceph_serve.c: the ceph CLI and what the lab lends a run --- */

/* Runs `ceph ARGS` in the namespaces of a live daemon of the lab (a
 * monitor preferred).  Exit status, or -1; out holds the output or why it
 * could not run. */
int ceph_cli(const struct lab *lab, const char *const args[], char *out, size_t outlen,
             int timeout_ms);

/* A ceph command that must succeed; err names it and its output. */
int ceph_cli_ok(const struct lab *lab, const char *const args[], char *err, size_t errlen);

/* lab_serve: the storage's CLI, the monitors' logs, a daemon's address,
 * the filesystem's mount. */
int ceph_run(const struct lab *lab, char *const argv[], char *out, size_t outlen,
             int timeout_ms);
void ceph_logs(const struct lab *lab, const char *which, storage_line_fn fn, void *ctx);
void ceph_address(const struct lab *lab, const char *daemon, char *out, size_t n);
void ceph_place(const struct lab *lab, unsigned client, struct lab_place *p);

/* --- lab_ceph_health.c: the cluster's view, health and status --- */

/* What the cluster says of itself now (storage_ceph_view, through the
 * lab's CLI). */
int ceph_cluster_view(const struct lab *lab, struct ceph_view *v, char *err, size_t errlen);

/* What a wait waits for. */
typedef bool (*ceph_view_test)(const struct lab *lab, const struct ceph_view *v);
bool ceph_quorum_formed(const struct lab *lab, const struct ceph_view *v);
bool ceph_osds_up(const struct lab *lab, const struct ceph_view *v);
bool ceph_pgs_active(const struct lab *lab, const struct ceph_view *v);
bool ceph_mds_active(const struct lab *lab, const struct ceph_view *v);
bool ceph_mds_ready(const struct lab *lab, const struct ceph_view *v);

/* Waits (bounded) until test holds; err says what was seen last. */
int ceph_wait_view(const struct lab *lab, ceph_view_test test, const char *what, unsigned secs,
                   char *err, size_t errlen);

/* lab_report */
bool ceph_healthy(const struct lab *lab, char *why, size_t n);
bool ceph_as_built(const struct lab *lab, char *why, size_t n);
void ceph_status(const struct lab *lab, struct json *j, FILE *out);
void ceph_describe(const struct lab *lab, struct kv_list *about, struct kv_list *options);

/* --- lab_ceph_build.c: bringing it up --- */

/* lab_build */
void ceph_lay_out(struct lab *lab);
int ceph_start(struct lab *lab, int fd, char *err, size_t errlen);

/* ceph-fuse of the client, in our namespace, in the foreground (the PID
 * recorded is the mount's process); waits until it has mounted. */
int ceph_mount_client(struct lab *lab, int fd, char *err, size_t errlen);

/* --- lab_ceph_faults.c: lab_faults --- */

int ceph_restart(struct lab *lab, struct lab_host *h, int fd, char *err, size_t errlen);
int ceph_power(struct lab *lab, struct lab_host *h, bool on, int fd, char *what,
               size_t whatlen, char *err, size_t errlen);
int ceph_process(const struct lab *lab, const char *host, const char *process,
                 struct lab_process *p, char *err, size_t errlen);
int ceph_replica(const struct lab *lab, const char *name, struct lab_replica *r, char *err,
                 size_t errlen);

#endif
