/* resources — see resources.h for what is sampled and why. */
#include "resources.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/net.h"
#include "../lab/lab_disk.h"

#define SECTOR 512.0 /* /proc/diskstats counts 512-byte sectors, whatever the device's */
#define MAX_HOSTS (1 + LAB_MAX_HOSTS + LAB_MAX_CLIENTS) /* the machine, the lab's hosts */

/* A process of a lab host, from one sample to the next. */
struct res_proc {
    pid_t pid;
    uint64_t start; /* starttime: a reused PID is another process */
    uint64_t ticks, blkio;
    bool seen;
};

struct res_iface {
    char name[32];
    uint64_t v[6]; /* rx bytes, packets, drops, tx bytes, packets, drops */
    uint64_t at;   /* mono_ns of v */
};

struct res_host {
    char name[16];
    bool machine;     /* the client: the whole machine's CPU */
    bool own_ns;      /* its namespace is ours: /proc/self/net/dev */
    dev_t ns_dev;
    ino_t ns_ino;
    /* the machine's CPU (/proc/stat) */
    uint64_t busy, iowait, total;
    bool have_stat;
    /* a lab host's processes */
    struct res_proc *procs;
    unsigned nprocs, procs_cap;
    uint64_t cpu_at; /* mono_ns of the last process sample, 0 none */
    uint64_t boot_at; /* CLOCK_BOOTTIME ticks of it, for new processes */
    pid_t any_pid;   /* a process in its namespace at this sample, 0 none */
    struct res_iface *ifs;
    unsigned nifs;
};

struct res_disk {
    char host[16];
    char name[32];
    char role[64];
    unsigned maj, min;
    uint64_t f[11];
    uint64_t at; /* mono_ns of f, 0 none */
};

static const char *const net_metrics[6] = {"rx_bytes_per_s", "rx_packets_per_s",
                                           "rx_drops_per_s", "tx_bytes_per_s",
                                           "tx_packets_per_s", "tx_drops_per_s"};

uint64_t resources_period(uint64_t bucket_ns)
{
    if (bucket_ns < RES_MIN_PERIOD_NS)
        return RES_MIN_PERIOD_NS;
    return bucket_ns > RES_MAX_PERIOD_NS ? RES_MAX_PERIOD_NS : bucket_ns;
}

uint64_t resources_period_for(uint64_t bucket_ns, uint64_t duration_ns)
{
    uint64_t p = resources_period(bucket_ns), least = duration_ns / RES_MAX_SAMPLES;
    if (p >= least)
        return p;
    return (least + RES_MIN_PERIOD_NS - 1) / RES_MIN_PERIOD_NS * RES_MIN_PERIOD_NS;
}

/* ---------------------------------------------------------------- parsers */

bool resources_parse_diskstats(const char *line, unsigned *maj, unsigned *min, char *name,
                               size_t namelen, uint64_t fields[11])
{
    char dev[64];
    unsigned long long f[11];
    int n = sscanf(line, " %u %u %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                   maj, min, dev, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7],
                   &f[8], &f[9], &f[10]);
    if (n != 14)
        return false;
    snprintf(name, namelen, "%s", dev);
    for (int i = 0; i < 11; i++)
        fields[i] = f[i];
    return true;
}

bool resources_parse_netdev(const char *line, char *ifname, size_t n, uint64_t v[6])
{
    const char *colon = strchr(line, ':');
    if (!colon)
        return false;
    const char *s = line;
    while (*s == ' ')
        s++;
    if (colon == s || (size_t)(colon - s) >= n)
        return false;
    snprintf(ifname, n, "%.*s", (int)(colon - s), s);
    unsigned long long f[16];
    if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                          "%llu %llu",
               &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10],
               &f[11], &f[12], &f[13], &f[14], &f[15]) != 16)
        return false;
    /* rx: bytes packets errs drop ...; tx (from the 9th): bytes packets errs drop ... */
    v[0] = f[0], v[1] = f[1], v[2] = f[3], v[3] = f[8], v[4] = f[9], v[5] = f[11];
    return true;
}

bool resources_parse_pidstat(const char *text, uint64_t *cpu_ticks, uint64_t *start,
                             uint64_t *blkio_ticks)
{
    /* The command may hold spaces and parentheses: fields count from the
     * last ')'; the token after it is field 3 (state). */
    const char *p = strrchr(text, ')');
    if (!p)
        return false;
    p++;
    uint64_t utime = 0, stime = 0;
    bool have_start = false;
    *blkio_ticks = 0;
    for (int field = 3; field <= 42; field++) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\n')
            break;
        char *end;
        unsigned long long v = field == 3 ? 0 : strtoull(p, &end, 10);
        if (field == 14)
            utime = v;
        else if (field == 15)
            stime = v;
        else if (field == 22)
            *start = v, have_start = true;
        else if (field == 42)
            *blkio_ticks = v;
        while (*p && *p != ' ' && *p != '\n')
            p++;
    }
    *cpu_ticks = utime + stime;
    return have_start;
}

/* ---------------------------------------------------------------- series */

/* The series of (host, kind, name, metric), made when new.  NULL when
 * memory is short. */
static struct res_series *series_of(struct resources *res, const char *host, const char *kind,
                                    const char *name, const char *metric)
{
    for (unsigned i = 0; i < res->nseries; i++) {
        struct res_series *s = &res->series[i];
        if (strcmp(s->metric, metric) == 0 && strcmp(s->name, name) == 0 &&
            strcmp(s->host, host) == 0 && strcmp(s->kind, kind) == 0)
            return s;
    }
    if (res->nseries == res->series_cap) {
        unsigned cap = res->series_cap ? 2 * res->series_cap : 32;
        struct res_series *more = realloc(res->series, cap * sizeof *more);
        if (!more)
            return NULL;
        res->series = more;
        res->series_cap = cap;
    }
    double *values = malloc((res->cap ? res->cap : 1) * sizeof *values);
    if (!values)
        return NULL;
    for (size_t i = 0; i < res->cap; i++)
        values[i] = NAN;
    struct res_series *s = &res->series[res->nseries++];
    memset(s, 0, sizeof *s);
    snprintf(s->host, sizeof s->host, "%s", host);
    snprintf(s->kind, sizeof s->kind, "%s", kind);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->metric, sizeof s->metric, "%s", metric);
    s->values = values;
    return s;
}

static void put_role(struct resources *res, const char *host, const char *kind,
                     const char *name, const char *metric, const char *role, double v)
{
    struct res_series *s = series_of(res, host, kind, name, metric);
    if (!s) {
        res->failed = true;
        snprintf(res->err, sizeof res->err, "out of memory for the resource samples");
        return;
    }
    if (role && !s->role[0])
        snprintf(s->role, sizeof s->role, "%s", role);
    s->values[res->nsamples - 1] = v;
}

static void put(struct resources *res, const char *host, const char *kind, const char *name,
                const char *metric, double v)
{
    put_role(res, host, kind, name, metric, NULL, v);
}

/* Room for one more sample in t_s and every series.  0, or -1. */
static int new_sample(struct resources *res, double t_s)
{
    if (res->nsamples == res->cap) {
        size_t cap = res->cap ? 2 * res->cap : 256;
        double *t = realloc(res->t_s, cap * sizeof *t);
        if (!t)
            return -1;
        res->t_s = t;
        for (unsigned i = 0; i < res->nseries; i++) {
            double *v = realloc(res->series[i].values, cap * sizeof *v);
            if (!v)
                return -1; /* the ones grown stay valid: cap is raised only at the end */
            for (size_t k = res->cap; k < cap; k++)
                v[k] = NAN;
            res->series[i].values = v;
        }
        res->cap = cap;
    }
    res->t_s[res->nsamples++] = t_s;
    return 0;
}

/* ---------------------------------------------------------------- sources */

static void sample_machine_cpu(struct resources *res, struct res_host *h)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return;
    unsigned long long v[8] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 5)
        return;
    uint64_t total = 0;
    for (int i = 0; i < 8; i++)
        total += v[i]; /* user nice system idle iowait irq softirq steal */
    uint64_t idle = v[3], iowait = v[4], busy = total - idle - iowait;
    if (h->have_stat && total > h->total) {
        double dt = (double)(total - h->total);
        put(res, h->name, "cpu", "machine", "busy_pct",
            busy >= h->busy ? 100.0 * (double)(busy - h->busy) / dt : 0);
        put(res, h->name, "cpu", "machine", "iowait_pct",
            iowait >= h->iowait ? 100.0 * (double)(iowait - h->iowait) / dt : 0);
    }
    h->busy = busy;
    h->iowait = iowait;
    h->total = total;
    h->have_stat = true;
}

static struct res_proc *proc_of(struct res_host *h, pid_t pid, uint64_t start)
{
    for (unsigned i = 0; i < h->nprocs; i++)
        if (h->procs[i].pid == pid && h->procs[i].start == start)
            return &h->procs[i];
    if (h->nprocs == h->procs_cap) {
        unsigned cap = h->procs_cap ? 2 * h->procs_cap : 16;
        struct res_proc *more = realloc(h->procs, cap * sizeof *more);
        if (!more)
            return NULL;
        h->procs = more;
        h->procs_cap = cap;
    }
    struct res_proc *p = &h->procs[h->nprocs++];
    *p = (struct res_proc){.pid = pid, .start = start, .ticks = UINT64_MAX};
    return p;
}

static uint64_t boottime_ticks(long hz)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * (uint64_t)hz + (uint64_t)ts.tv_nsec * (uint64_t)hz / 1000000000ull;
}

/* One pass over /proc: every process whose network namespace is a lab
 * host's adds its CPU since the last sample to that host. */
static void sample_processes(struct resources *res, uint64_t now)
{
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0)
        hz = 100;
    uint64_t boot_now = boottime_ticks(hz);
    uint64_t dticks[MAX_HOSTS] = {0}, dblkio[MAX_HOSTS] = {0};
    for (unsigned k = 0; k < res->nhosts; k++) {
        res->hosts[k].any_pid = 0;
        for (unsigned i = 0; i < res->hosts[k].nprocs; i++)
            res->hosts[k].procs[i].seen = false;
    }
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    char path[64], text[1024];
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        struct stat st;
        if (*end || pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
        if (stat(path, &st) != 0)
            continue;
        unsigned k = 0;
        while (k < res->nhosts &&
               (res->hosts[k].ns_ino != st.st_ino || res->hosts[k].ns_dev != st.st_dev))
            k++;
        if (k == res->nhosts)
            continue;
        struct res_host *h = &res->hosts[k];
        if (!h->any_pid)
            h->any_pid = (pid_t)pid;
        if (h->machine)
            continue; /* its CPU is the machine's */
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* gone meanwhile */
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        uint64_t ticks, start, blkio;
        if (!resources_parse_pidstat(text, &ticks, &start, &blkio))
            continue;
        struct res_proc *p = proc_of(h, (pid_t)pid, start);
        if (!p)
            continue;
        p->seen = true;
        if (p->ticks != UINT64_MAX) {
            dticks[k] += ticks >= p->ticks ? ticks - p->ticks : 0;
            dblkio[k] += blkio >= p->blkio ? blkio - p->blkio : 0;
        } else if (h->cpu_at && start >= h->boot_at) {
            dticks[k] += ticks; /* started since the last sample: all of it is new */
            dblkio[k] += blkio;
        }
        p->ticks = ticks;
        p->blkio = blkio;
    }
    closedir(d);
    for (unsigned k = 0; k < res->nhosts; k++) {
        struct res_host *h = &res->hosts[k];
        if (h->machine)
            continue;
        unsigned kept = 0;
        for (unsigned i = 0; i < h->nprocs; i++) /* the ones that ended */
            if (h->procs[i].seen)
                h->procs[kept++] = h->procs[i];
        h->nprocs = kept;
        if (h->cpu_at && now > h->cpu_at) {
            double secs = (double)(now - h->cpu_at) / 1e9;
            put(res, h->name, "cpu", "processes", "busy_pct",
                100.0 * (double)dticks[k] / (double)hz / secs);
            if (res->delayacct)
                put(res, h->name, "cpu", "processes", "iowait_pct",
                    100.0 * (double)dblkio[k] / (double)hz / secs);
        }
        h->cpu_at = now;
        h->boot_at = boot_now;
    }
}

static void sample_net(struct resources *res, struct res_host *h, uint64_t now)
{
    char path[64];
    if (h->own_ns)
        snprintf(path, sizeof path, "/proc/thread-self/net/dev");
    else if (h->any_pid)
        snprintf(path, sizeof path, "/proc/%d/net/dev", (int)h->any_pid);
    else
        return; /* nothing runs in it now: not measured */
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char name[32];
        uint64_t v[6];
        if (!resources_parse_netdev(line, name, sizeof name, v))
            continue; /* the two header lines */
        struct res_iface *x = NULL;
        for (unsigned i = 0; i < h->nifs && !x; i++)
            if (strcmp(h->ifs[i].name, name) == 0)
                x = &h->ifs[i];
        if (!x) {
            struct res_iface *more = realloc(h->ifs, (h->nifs + 1) * sizeof *more);
            if (!more)
                break;
            h->ifs = more;
            x = &h->ifs[h->nifs++];
            memset(x, 0, sizeof *x);
            snprintf(x->name, sizeof x->name, "%s", name);
        }
        if (x->at && now > x->at) {
            double secs = (double)(now - x->at) / 1e9;
            for (int m = 0; m < 6; m++) /* a counter that went back: the interface is new */
                put(res, h->name, "net", name, net_metrics[m],
                    v[m] >= x->v[m] ? (double)(v[m] - x->v[m]) / secs : 0);
        }
        memcpy(x->v, v, sizeof x->v);
        x->at = now;
    }
    fclose(f);
}

static void sample_disks(struct resources *res, uint64_t now)
{
    if (!res->ndisks)
        return;
    FILE *f = fopen("/proc/diskstats", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned maj, min;
        char name[64];
        uint64_t v[11];
        if (!resources_parse_diskstats(line, &maj, &min, name, sizeof name, v))
            continue;
        for (unsigned i = 0; i < res->ndisks; i++) {
            struct res_disk *d = &res->disks[i];
            if (d->maj != maj || d->min != min)
                continue;
            if (d->at && now > d->at) {
                double secs = (double)(now - d->at) / 1e9;
#define RATE(k) (v[k] >= d->f[k] ? (double)(v[k] - d->f[k]) / secs : 0)
#define PUT(metric, value) put_role(res, d->host, "disk", d->name, metric, d->role, value)
                PUT("reads_per_s", RATE(0));
                PUT("writes_per_s", RATE(4));
                PUT("read_bytes_per_s", RATE(2) * SECTOR);
                PUT("write_bytes_per_s", RATE(6) * SECTOR);
                PUT("in_flight", (double)v[8]);
                double util = RATE(9) / 10.0; /* ms busy per s, as % */
                PUT("util_pct", util > 100 ? 100 : util);
#undef PUT
#undef RATE
            }
            memcpy(d->f, v, sizeof d->f);
            d->at = now;
        }
    }
    fclose(f);
}

/* Later: an ssh host's agent reads the same files on its host (its
 * /proc/stat, the devices it is told of, its /proc/net/dev) and answers a
 * "resources" request with the counters; they would be put() here under
 * the host's name, with the same rates, at the same sample times. */
static void resources_remote_hook(struct resources *res, uint64_t now)
{
    (void)res;
    (void)now;
}

static void sample(struct resources *res)
{
    uint64_t now = mono_ns();
    if (res->failed || new_sample(res, (double)(now - res->t0) / 1e9) != 0) {
        if (!res->failed)
            snprintf(res->err, sizeof res->err, "out of memory for the resource samples");
        res->failed = true;
        return;
    }
    bool others = false; /* a host other than the machine in our own namespace */
    for (unsigned k = 0; k < res->nhosts; k++) {
        if (res->hosts[k].machine)
            sample_machine_cpu(res, &res->hosts[k]);
        others |= !res->hosts[k].machine || !res->hosts[k].own_ns;
    }
    if (others) /* else nothing to look for in /proc */
        sample_processes(res, now);
    for (unsigned k = 0; k < res->nhosts; k++)
        sample_net(res, &res->hosts[k], now);
    sample_disks(res, now);
    resources_remote_hook(res, now);
}

/* ---------------------------------------------------------------- devices */

/* The whole disk of device maj:min (a partition's parent), its name in
 * /proc/diskstats.  false when the kernel knows no such block device. */
static bool whole_disk(unsigned *maj, unsigned *min, char *name, size_t n)
{
    char link[64], real[PATH_MAX], path[PATH_MAX + 16];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", *maj, *min);
    if (!realpath(link, real))
        return false;
    snprintf(path, sizeof path, "%s/partition", real);
    if (access(path, F_OK) == 0) {
        char *slash = strrchr(real, '/');
        if (!slash)
            return false;
        *slash = '\0'; /* the partition's directory is under its disk's */
        snprintf(path, sizeof path, "%s/dev", real);
        FILE *f = fopen(path, "r");
        if (!f)
            return false;
        int got = fscanf(f, "%u:%u", maj, min);
        fclose(f);
        if (got != 2)
            return false;
    }
    const char *base = strrchr(real, '/');
    snprintf(name, n, "%.31s", base ? base + 1 : real); /* kernel names are short */
    return true;
}

static void add_disk(struct resources *res, const char *host, unsigned maj, unsigned min,
                     const char *name, const char *role)
{
    for (unsigned i = 0; i < res->ndisks; i++) {
        struct res_disk *d = &res->disks[i];
        if (d->maj == maj && d->min == min) {
            if (!strstr(d->role, role)) {
                size_t len = strlen(d->role);
                snprintf(d->role + len, sizeof d->role - len, ", %s", role);
            }
            return;
        }
    }
    struct res_disk *more = realloc(res->disks, (res->ndisks + 1) * sizeof *more);
    if (!more)
        return;
    res->disks = more;
    struct res_disk *d = &res->disks[res->ndisks++];
    memset(d, 0, sizeof *d);
    snprintf(d->host, sizeof d->host, "%s", host);
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->role, sizeof d->role, "%s", role);
    d->maj = maj;
    d->min = min;
}

/* The device under path (a block device itself, or the filesystem that
 * holds it).  false with why when there is none. */
static bool disk_under(struct resources *res, const char *host, const char *path,
                       const char *role, char *why, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return false;
    }
    dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
    unsigned maj = major(dev), min = minor(dev);
    char name[64];
    if (maj == 0 || !whole_disk(&maj, &min, name, sizeof name)) {
        snprintf(why, n, "%s is on no block device (a tmpfs, overlay, FUSE or network "
                 "filesystem: device %u:%u)", path, major(dev), minor(dev));
        return false;
    }
    add_disk(res, host, maj, min, name, role);
    return true;
}

/* The loop devices whose backing file is in the lab's directory (the
 * gluster bricks, the ceph servers' disks), each under the server whose
 * disk it is (lab_disk.h: its image, or its disk layer's file), else the
 * host whose own files hold it. */
static void lab_loops(struct resources *res, const struct lab *lab)
{
    DIR *d = opendir("/sys/block");
    if (!d)
        return;
    size_t dirlen = strlen(lab->dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "loop", 4) != 0)
            continue;
        char path[PATH_MAX], backing[PATH_MAX] = "";
        snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* not bound */
        if (!fgets(backing, sizeof backing, f))
            backing[0] = '\0';
        fclose(f);
        backing[strcspn(backing, "\n")] = '\0';
        if (!dirlen || strncmp(backing, lab->dir, dirlen) != 0 || backing[dirlen] != '/')
            continue;
        const char *host = lab_disk_host(lab, backing);
        for (unsigned i = 0; i < lab->nhosts && !host; i++) {
            size_t hl = strlen(lab->hosts[i].home);
            if (hl && strncmp(backing, lab->hosts[i].home, hl) == 0 && backing[hl] == '/')
                host = lab->hosts[i].name;
        }
        if (!host)
            host = "client";
        snprintf(path, sizeof path, "/sys/block/%s/dev", e->d_name);
        unsigned maj, min;
        f = fopen(path, "r");
        if (!f)
            continue;
        int got = fscanf(f, "%u:%u", &maj, &min);
        fclose(f);
        if (got == 2) {
            char role[64];
            snprintf(role, sizeof role, "%.63s", backing + dirlen + 1);
            add_disk(res, host, maj, min, e->d_name, role);
        }
    }
    closedir(d);
}

/* ---------------------------------------------------------------- hosts */

static int add_host(struct resources *res, const char *name, const char *netns, bool machine,
                    char *err, size_t errlen)
{
    char path[PATH_MAX];
    bool own = !netns || !*netns;
    if (own)
        snprintf(path, sizeof path, "/proc/self/ns/net");
    else
        snprintf(path, sizeof path, "%s/%s", NETNS_DIR, netns);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cannot find the network namespace of %s (%s): %s", name, path,
                 strerror(errno));
        return -1;
    }
    for (unsigned k = 0; k < res->nhosts; k++)
        if (res->hosts[k].ns_ino == st.st_ino && res->hosts[k].ns_dev == st.st_dev)
            return 0; /* the same namespace under another name: sampled once */
    if (res->nhosts == MAX_HOSTS)
        return 0; /* (a lab has no more) */
    struct res_host *more = realloc(res->hosts, (res->nhosts + 1) * sizeof *more);
    if (!more) {
        snprintf(err, errlen, "out of memory for the resource samples");
        return -1;
    }
    res->hosts = more;
    struct res_host *h = &res->hosts[res->nhosts++];
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    h->machine = machine;
    h->own_ns = own;
    h->ns_dev = st.st_dev;
    h->ns_ino = st.st_ino;
    return 0;
}

int resources_prepare(struct resources *res, uint64_t period_ns, const struct lab *lab,
                      const char *target, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    pthread_mutex_init(&res->mu, NULL);
    pthread_cond_init(&res->cv, NULL);
    res->period_ns = period_ns;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    res->ncpus = cpus > 0 ? (unsigned)cpus : 1;
    FILE *f = fopen("/proc/sys/kernel/task_delayacct", "r");
    int on = 0;
    if (f) {
        if (fscanf(f, "%d", &on) != 1)
            on = 0;
        fclose(f);
    }
    res->delayacct = on == 1;
    /* The machine: the namespace where the lab's switch is (ours, unless
     * this rank runs in a client host's). */
    const char *machine_ns = lab && lab->switch_netns[0] ? lab->switch_netns : "";
    const char *client = lab && lab->nhosts ? lab->hosts[0].name : "client";
    if (lab && lab->nhosts)
        snprintf(res->client_if, sizeof res->client_if, "%s", lab->hosts[0].ifname);
    if (add_host(res, client, machine_ns, true, err, errlen) != 0)
        return -1;
    for (unsigned i = 0; lab && i < lab->nhosts + lab->nclients; i++) {
        const struct lab_host *h = i < lab->nhosts ? &lab->hosts[i]
                                                   : &lab->clients[i - lab->nhosts];
        if (h->netns[0] && add_host(res, h->name, h->netns, false, err, errlen) != 0)
            return -1;
    }
    char why[512] = "";
    if (target && *target && !disk_under(res, client, target, "target", why, sizeof why))
        snprintf(res->why_no_disk, sizeof res->why_no_disk, "%s", why);
    if (lab && lab->dir[0]) {
        if (!disk_under(res, client, lab->dir, "lab files", why, sizeof why) &&
            !res->why_no_disk[0])
            snprintf(res->why_no_disk, sizeof res->why_no_disk, "%s", why);
        lab_loops(res, lab);
    }
    return 0;
}

/* ---------------------------------------------------------------- thread */

static void *run_sampler(void *arg)
{
    struct resources *res = arg;
    sample(res); /* the baseline, at time zero */
    pthread_mutex_lock(&res->mu);
    for (uint64_t k = 1; !res->stop; k++) {
        uint64_t at = res->t0 + k * res->period_ns;
        if (mono_ns() >= at)
            continue; /* a late sample: the next on the grid */
        struct timespec ts = {.tv_sec = (time_t)(at / 1000000000ull),
                              .tv_nsec = (long)(at % 1000000000ull)};
        while (!res->stop && mono_ns() < at)
            pthread_cond_timedwait(&res->cv, &res->mu, &ts);
        if (res->stop)
            break;
        pthread_mutex_unlock(&res->mu);
        sample(res);
        pthread_mutex_lock(&res->mu);
    }
    pthread_mutex_unlock(&res->mu);
    /* the end of the workload: the last interval, unless it is a sliver */
    if (res->nsamples && mono_ns() - res->t0 >
                             (uint64_t)(res->t_s[res->nsamples - 1] * 1e9) + res->period_ns / 5)
        sample(res);
    return NULL;
}

int resources_start(struct resources *res, uint64_t t0, char *err, size_t errlen)
{
    res->t0 = t0;
    /* the condition's clock is the monotonic one, like mono_ns() */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_destroy(&res->cv);
    pthread_cond_init(&res->cv, &ca);
    pthread_condattr_destroy(&ca);
    int rc = pthread_create(&res->thread, NULL, run_sampler, res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the resource sampler: %s", strerror(rc));
        return -1;
    }
    res->running = true;
    return 0;
}

void resources_stop(struct resources *res)
{
    if (!res->running)
        return;
    pthread_mutex_lock(&res->mu);
    res->stop = true;
    pthread_cond_broadcast(&res->cv);
    pthread_mutex_unlock(&res->mu);
    pthread_join(res->thread, NULL);
    res->running = false;
}

const struct res_series *resources_find(const struct resources *res, const char *host,
                                        const char *kind, const char *name, const char *metric)
{
    for (unsigned i = 0; res && i < res->nseries; i++) {
        const struct res_series *s = &res->series[i];
        if (strcmp(s->metric, metric) == 0 && strcmp(s->name, name) == 0 &&
            strcmp(s->host, host) == 0 && strcmp(s->kind, kind) == 0)
            return s;
    }
    return NULL;
}

/* An interface that moved no byte in the whole run is left out. */
static bool idle_iface(const struct resources *res, const struct res_series *s)
{
    if (strcmp(s->kind, "net") != 0)
        return false;
    for (int m = 0; m < 6; m += 3) {
        const struct res_series *b = resources_find(res, s->host, "net", s->name, net_metrics[m]);
        for (size_t i = 0; b && i < res->nsamples; i++)
            if (b->values[i] > 0)
                return false;
    }
    return true;
}

int resources_write_csv(const struct resources *res, const char *dir, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 32], path[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s/.resources.csv.tmp", dir);
    snprintf(path, sizeof path, "%s/resources.csv", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    bool *idle = calloc(res->nseries ? res->nseries : 1, sizeof *idle);
    if (!idle) {
        fclose(f);
        unlink(tmp);
        snprintf(err, errlen, "out of memory writing %s", path);
        return -1;
    }
    for (unsigned k = 0; k < res->nseries; k++)
        idle[k] = idle_iface(res, &res->series[k]);
    fprintf(f, "t_s,host,kind,name,metric,value\n");
    for (size_t i = 0; i < res->nsamples; i++)
        for (unsigned k = 0; k < res->nseries; k++) {
            const struct res_series *s = &res->series[k];
            if (!idle[k] && !isnan(s->values[i]))
                fprintf(f, "%.3f,%s,%s,%s,%s,%.3f\n", res->t_s[i], s->host, s->kind, s->name,
                        s->metric, s->values[i]);
        }
    free(idle);
    if (fflush(f) != 0 || ferror(f)) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        fclose(f);
        unlink(tmp);
        return -1;
    }
    fclose(f);
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void resources_free(struct resources *res)
{
    resources_stop(res);
    for (unsigned i = 0; i < res->nseries; i++)
        free(res->series[i].values);
    for (unsigned k = 0; k < res->nhosts; k++) {
        free(res->hosts[k].procs);
        free(res->hosts[k].ifs);
    }
    free(res->series);
    free(res->hosts);
    free(res->disks);
    free(res->t_s);
    pthread_mutex_destroy(&res->mu);
    pthread_cond_destroy(&res->cv);
    memset(res, 0, sizeof *res);
}
