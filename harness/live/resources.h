/*
 * resources — the hosts' resources sampled over the workload: where the
 * bottleneck was (resources.csv, the resource plots of report.html).
 *
 * A thread of its own, started at the workload's time zero and stopped at
 * its end (as the fault timeline), samples at t0 + k * period:
 *
 *   period   the bucket when it is >= 100 ms (samples then line up with the
 *            buckets of timeline.csv), else 100 ms: a finer sample costs a
 *            scan of /proc each time and says little more about CPU and
 *            disks, whose counters tick in 10 ms jiffies and ms; never
 *            longer than 1 s, so a run with large buckets still sees a
 *            failover's second by second.  But at most RES_MAX_SAMPLES
 *            samples over the workload (whole multiples of 100 ms): a run
 *            of hours keeps its memory and resources.csv bounded (a
 *            20-minute thrash on the gluster lab wrote 75 MB at 100 ms).
 *
 * Hosts: the client (the machine we run on) and every host of the lab:
 * each lab server, and each client host c1..cN, is a network namespace on
 * this same kernel.  An ssh host of the scenario ([host N] ssh = ...) is
 * not sampled yet: its agent (faults/ssh/agent.c) would read the same files
 * there and send them back, see resources_remote_hook() in resources.c.
 *
 * What each host reports (kind, name, metric in resources.csv):
 *   cpu   the client: the whole machine from /proc/stat, name "machine":
 *         busy_pct (not idle and not iowait) and iowait_pct, as % of all
 *         its CPUs (100 = every CPU busy).  A lab host shares that kernel,
 *         so its CPU is that of its processes (those whose network
 *         namespace is the host's), name "processes": busy_pct is their
 *         utime + stime as % of one CPU (200 = two CPUs busy), iowait_pct
 *         their delayacct_blkio_ticks likewise, only when the kernel counts
 *         it (sysctl kernel.task_delayacct = 1; otherwise no iowait row:
 *         the counter would read 0 and look like no iowait at all).
 *         A process that ends between two samples loses its last interval.
 *   disk  per block device carrying the target or the lab's data, from
 *         /proc/diskstats: reads_per_s, writes_per_s, read_bytes_per_s,
 *         write_bytes_per_s, in_flight (field 9: I/Os in flight at the
 *         sample, the queue depth) and util_pct (io_ticks: % of the
 *         interval with I/O in flight).  Which devices: the one under the
 *         target (a file's filesystem, its whole disk for a partition, or
 *         the target block device), the one under the lab's directory
 *         (the iSCSI LUN image, the brick images), and the loop devices
 *         whose backing file is in the lab's directory (a gluster brick:
 *         host gsN, the server whose directory holds the image; the loop
 *         is resolved once, at the start).  A tmpfs, overlay or FUSE file
 *         has no block device: no disk rows then.
 *   net   per interface of the host's namespace, from /proc/net/dev read
 *         as /proc/PID/net/dev of a process in that namespace (no setns):
 *         rx_/tx_ bytes_per_s, packets_per_s, drops_per_s.  Interfaces
 *         that moved nothing over the whole run are left out (our own
 *         namespace holds every lab's bridge and ports).
 * Counters are written as rates per second over the interval that ends at
 * the sample (t_s); in_flight is the value at t_s.
 *
 * With several clients (MPI ranks), rank 0 samples: every lab host is a
 * namespace on its machine.
 */
#ifndef FL_RESOURCES_H
#define FL_RESOURCES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lab/lab.h"

#define RES_MIN_PERIOD_NS 100000000ull  /* 100 ms */
#define RES_MAX_PERIOD_NS 1000000000ull /* 1 s */
#define RES_MAX_SAMPLES 3600ull          /* over a workload: its duration / this at least */

/* One line of resources.csv over time: values[i] at samples t_s[i]
 * (NaN: not measured then). */
struct res_series {
    char host[16];
    char kind[8];    /* cpu, disk, net */
    char name[32];   /* machine / processes, the device, the interface */
    char metric[24];
    char role[64];   /* disk: what it carries, for people ("target, lab files") */
    double *values;
};

struct res_host; /* what is sampled of a host (resources.c) */
struct res_disk;

struct resources {
    uint64_t period_ns;
    uint64_t t0;     /* mono_ns() at the workload start */
    unsigned ncpus;  /* of the machine */
    bool delayacct;  /* the kernel counts block I/O delays per task */
    size_t nsamples, cap;
    double *t_s;     /* each sample's time, s since t0 */
    struct res_series *series;
    unsigned nseries, series_cap;
    char why_no_disk[256]; /* no device found for the target: why, for the report */
    char client_if[16];    /* the lab client's own cable (its traffic to the lab), "" none */
    /* the sources */
    struct res_host *hosts;
    unsigned nhosts;
    struct res_disk *disks;
    unsigned ndisks;
    /* the thread */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool running, stop, failed;
    char err[256];
};

/* The period for a bucket of bucket_ns (see above). */
uint64_t resources_period(uint64_t bucket_ns);

/* The same for a workload of duration_ns: never more than RES_MAX_SAMPLES
 * samples (see above). */
uint64_t resources_period_for(uint64_t bucket_ns, uint64_t duration_ns);

/* What to sample: the client, every host of lab (NULL: none), the device
 * under target (a path, NULL or "" for none).  0, or -1 with err. */
int resources_prepare(struct resources *res, uint64_t period_ns, const struct lab *lab,
                      const char *target, char *err, size_t errlen);

/* Starts sampling at t0 (the workload start: the first sample is the
 * baseline the rates count from).  0, or -1 with err. */
int resources_start(struct resources *res, uint64_t t0, char *err, size_t errlen);

/* A last sample, and the thread stopped.  Harmless twice or unstarted. */
void resources_stop(struct resources *res);

/* DIR/resources.csv: t_s,host,kind,name,metric,value (see above).
 * 0, or -1 with err. */
int resources_write_csv(const struct resources *res, const char *dir, char *err, size_t errlen);

/* The series of (host, kind, name, metric), or NULL. */
const struct res_series *resources_find(const struct resources *res, const char *host,
                                        const char *kind, const char *name, const char *metric);

void resources_free(struct resources *res);

/* Parsers of the kernel's lines, for the tests.  Each returns true when
 * the line was understood. */
/* A line of /proc/diskstats: name and fields 1..11 (reads, ..., io_ticks,
 * weighted) of MAJ:MIN. */
bool resources_parse_diskstats(const char *line, unsigned *maj, unsigned *min, char *name,
                               size_t namelen, uint64_t fields[11]);
/* A line of /proc/net/dev: the interface and rx bytes, packets, drops,
 * tx bytes, packets, drops. */
bool resources_parse_netdev(const char *line, char *ifname, size_t n, uint64_t v[6]);
/* /proc/PID/stat: utime + stime, starttime, delayacct_blkio_ticks (ticks). */
bool resources_parse_pidstat(const char *text, uint64_t *cpu_ticks, uint64_t *start,
                             uint64_t *blkio_ticks);

#endif
