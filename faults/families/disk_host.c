/*
 * disk_host — the disk faults on a machine's own disk ([host], here or
 * through `faultline agent` there):
 *
 *   disk-fail   device = sdX: the SCSI disk set offline through
 *               /sys/block/sdX/device/state (every I/O fails), running at
 *               clear; its ioerr_cnt says how many I/Os failed
 *   disk-errors dm = NAME: a device-mapper device the user made with one
 *               linear target over the disk gets, in its place, a table of
 *               linear segments and, over the bad ranges, `error` (reads
 *               and writes) or `flakey` up 0 s, down 1 s (always down) with
 *               error_reads (Linux 6.5 and later) or error_writes (4.10)
 *   disk-slow   dm = NAME: a `delay` target (whole milliseconds)
 *
 * Loaded with `dmsetup load` and `dmsetup resume`; the original table is
 * loaded back the same way at clear.  The undo records (registered with
 * undo, so that `faultline cleanup` replays them) are
 *
 *   scsi-running DEV        /sys/block/DEV/device/state = running
 *   dm-table NAME TABLE     dmsetup load NAME --table TABLE; dmsetup resume NAME
 *   disk-clear keep|replace SOCK   the lab's disk layer told `clear` (disk.c's)
 *
 * Each succeeds when there is nothing left to undo (no such disk, device
 * or socket).  FL_SYSFS_ROOT, for tests only, puts sysfs elsewhere (a fake
 * tree).
 */
#include "disk.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "../../lib/rng.h"
#include "../runtime.h"
#include "../undo.h"

#define DMSETUP_TIMEOUT_MS 30000
#define SECTOR 512u

const char *disk_sysfs_root(void)
{
    const char *r = getenv("FL_SYSFS_ROOT");
    return r && *r ? r : "/sys";
}

/* --- device-mapper tables (pure) --- */

int dm_parse_linear(const char *table, struct dm_linear *l, char *why, size_t n)
{
    memset(l, 0, sizeof *l);
    unsigned long long start, len, off;
    char type[32], dev[64];
    int used = 0;
    if (sscanf(table, "%llu %llu %31s %n", &start, &len, type, &used) < 3 || !used) {
        snprintf(why, n, "no table: '%.80s'", table);
        return -1;
    }
    const char *next = strchr(table, '\n');
    bool more = next && next[strspn(next, " \t\n")];
    if (strcmp(type, "linear") != 0 || more || start != 0) {
        snprintf(why, n, "its table is %s%s, not one linear target (make it with dmsetup create "
                 "NAME --table '0 SECTORS linear /dev/sdX 0')", more ? "several targets, the "
                 "first " : "a ", type);
        return -1;
    }
    if (sscanf(table + used, "%63s %llu", dev, &off) != 2 || !len) {
        snprintf(why, n, "a linear target without device and offset: '%.80s'", table);
        return -1;
    }
    l->sectors = len;
    snprintf(l->dev, sizeof l->dev, "%s", dev);
    l->offset = off;
    return 0;
}

void dm_linear_line(const struct dm_linear *l, char *out, size_t n)
{
    snprintf(out, n, "0 %" PRIu64 " linear %s %" PRIu64, l->sectors, l->dev, l->offset);
}

int dm_delay_table(const struct dm_linear *l, uint64_t latency_ns, uint64_t jitter_ns,
                   char *out, size_t n, char *why, size_t wn)
{
    if (jitter_ns) {
        snprintf(why, wn, "device-mapper's delay target has no jitter");
        return -1;
    }
    if (!latency_ns || latency_ns % 1000000) {
        snprintf(why, wn, "device-mapper's delay target counts whole milliseconds (latency "
                 "%.3f ms)", (double)latency_ns / 1e6);
        return -1;
    }
    snprintf(out, n, "0 %" PRIu64 " delay %s %" PRIu64 " %" PRIu64, l->sectors, l->dev,
             l->offset, latency_ns / 1000000);
    return 0;
}

/* One segment: sectors [a, b) of the device, mapped as before or failed. */
static int segment(const struct dm_linear *l, uint64_t a, uint64_t b, bool bad, unsigned on,
                   char *out, size_t n, size_t *used)
{
    int w;
    if (!bad)
        w = snprintf(out + *used, n - *used, "%" PRIu64 " %" PRIu64 " linear %s %" PRIu64 "\n",
                     a, b - a, l->dev, l->offset + a);
    else if (on == DISK_ON_BOTH)
        w = snprintf(out + *used, n - *used, "%" PRIu64 " %" PRIu64 " error\n", a, b - a);
    else
        w = snprintf(out + *used, n - *used,
                     "%" PRIu64 " %" PRIu64 " flakey %s %" PRIu64 " 0 1 1 %s\n", a, b - a,
                     l->dev, l->offset + a, on == DISK_ON_READ ? "error_reads" : "error_writes");
    if (w < 0 || (size_t)w >= n - *used)
        return -1;
    *used += (size_t)w;
    return 0;
}

int dm_errors_table(const struct dm_linear *l, unsigned on, const struct disk_ranges *r,
                    char *out, size_t n, char *why, size_t wn)
{
    if (on < DISK_ON_READ || on > DISK_ON_BOTH) {
        snprintf(why, wn, "no I/O kind to fail");
        return -1;
    }
    size_t used = 0;
    out[0] = '\0';
    uint64_t at = 0; /* sectors mapped so far */
    for (unsigned i = 0; i < r->n; i++) {
        /* whole sectors that hold any byte of the range */
        uint64_t a = r->r[i][0] / SECTOR, b = (r->r[i][0] + r->r[i][1] + SECTOR - 1) / SECTOR;
        if (b > l->sectors || !r->r[i][1]) {
            snprintf(why, wn, "range %" PRIu64 "+%" PRIu64 " is not within the device (%" PRIu64
                     " bytes)", r->r[i][0], r->r[i][1], l->sectors * SECTOR);
            return -1;
        }
        if (a < at)
            a = at; /* overlaps the one before (ranges come sorted) */
        if (b <= a)
            continue;
        if ((a > at && segment(l, at, a, false, on, out, n, &used) != 0) ||
            segment(l, a, b, true, on, out, n, &used) != 0) {
            snprintf(why, wn, "the table does not fit in %zu bytes", n);
            return -1;
        }
        at = b;
    }
    bool all = r->n == 0;
    if ((all || at < l->sectors) && segment(l, at, l->sectors, all, on, out, n, &used) != 0) {
        snprintf(why, wn, "the table does not fit in %zu bytes", n);
        return -1;
    }
    return 0;
}

int disk_pick_ranges(const struct disk_params *p, uint64_t size, uint64_t seed,
                     struct disk_ranges *out, char *why, size_t n)
{
    out->n = 0;
    if (p->blocks) {
        uint64_t nb = size / DISK_BLOCK;
        if (p->blocks > DISK_MAX_RANGES || p->blocks > nb) {
            snprintf(why, n, "blocks = %llu: at most %d, and the disk has %llu blocks of 4 KiB",
                     (unsigned long long)p->blocks, DISK_MAX_RANGES, (unsigned long long)nb);
            return -1;
        }
        while (out->n < p->blocks) {
            uint64_t off = rng_split(&seed) % nb * DISK_BLOCK;
            unsigned k = 0;
            while (k < out->n && out->r[k][0] < off)
                k++;
            if (k < out->n && out->r[k][0] == off)
                continue; /* distinct blocks */
            memmove(out->r[k + 1], out->r[k], (out->n - k) * sizeof out->r[0]);
            out->r[k][0] = off;
            out->r[k][1] = DISK_BLOCK;
            out->n++;
        }
        return 0;
    }
    if (!p->length)
        return 0;
    if (p->offset >= size || p->length > size - p->offset) {
        snprintf(why, n, "offset %llu + length %llu is beyond the end of the disk (%llu bytes)",
                 (unsigned long long)p->offset, (unsigned long long)p->length,
                 (unsigned long long)size);
        return -1;
    }
    out->r[0][0] = p->offset;
    out->r[0][1] = p->length;
    out->n = 1;
    return 0;
}

/* --- what the host has --- */

/* A name of a device: letters, digits and - _ . only. */
static bool plain_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
            return false;
    return true;
}

static int dmsetup(char *const argv[], char *out, size_t n)
{
    return proc_run(argv, out, n, DMSETUP_TIMEOUT_MS);
}

/* Whether the kernel has device-mapper and dmsetup is there.  0, or -1
 * with what the host lacks. */
static int have_dm(const char *host, char *err, size_t errlen)
{
    char mod[PATH_MAX], out[512];
    snprintf(mod, sizeof mod, "%s/module/dm_mod", disk_sysfs_root());
    struct stat st;
    bool module = stat(mod, &st) == 0;
    char *argv[] = {"dmsetup", "version", NULL};
    int rc = module ? dmsetup(argv, out, sizeof out) : -1;
    if (rc == 0)
        return 0;
    out[strcspn(out, "\n")] = '\0';
    snprintf(err, errlen, "%s has no device-mapper (%s): dm = NAME needs its kernel's dm_mod "
             "(modprobe dm_mod) and dmsetup; or fail the disk whole with action = disk-fail, "
             "device = sdX", host, !module ? "no /sys/module/dm_mod" : out);
    return -1;
}

/* --- prepare, inject, clear --- */

static int scsi_prepare(struct fault *f, struct disk_fault *s, char *err, size_t errlen)
{
    const struct disk_params *p = FAULT_PARAMS(&f->spec, const struct disk_params);
    const char *dev = strncmp(p->device, "/dev/", 5) == 0 ? p->device + 5 : p->device;
    if (p->replace) {
        snprintf(err, errlen, "replace = yes cannot be done to a real disk (%s)", dev);
        return -1;
    }
    if (!plain_name(dev)) {
        snprintf(err, errlen, "device = %s: not a disk's name (sdX)", p->device);
        return -1;
    }
    snprintf(s->state_path, sizeof s->state_path, "%s/block/%s/device/state", disk_sysfs_root(),
             dev);
    if (access(s->state_path, W_OK) != 0) {
        snprintf(err, errlen, "%s is not a SCSI disk of %s: no %s (%s)", dev, f->host.name,
                 s->state_path, strerror(errno));
        return -1;
    }
    return fault_plan_undo(f, "scsi-running", dev);
}

static int dm_prepare(struct fault *f, struct disk_fault *s, char *err, size_t errlen)
{
    const struct disk_params *p = FAULT_PARAMS(&f->spec, const struct disk_params);
    if (!plain_name(p->dm)) {
        snprintf(err, errlen, "dm = %s: not a device-mapper name (letters, digits, - _ .)",
                 p->dm);
        return -1;
    }
    if (have_dm(f->host.name, err, errlen) != 0)
        return -1;
    char out[4096], why[512];
    char *argv[] = {"dmsetup", "table", (char *)p->dm, NULL};
    if (dmsetup(argv, out, sizeof out) != 0) {
        out[strcspn(out, "\n")] = '\0';
        snprintf(err, errlen, "dmsetup table %s: %s", p->dm, out);
        return -1;
    }
    struct dm_linear l;
    if (dm_parse_linear(out, &l, why, sizeof why) != 0) {
        snprintf(err, errlen, "dm = %s: %s", p->dm, why);
        return -1;
    }
    dm_linear_line(&l, s->original, sizeof s->original);
    static char table[DISK_TABLE_MAX]; /* prepare runs on one thread */
    int rc;
    if (s->action == DISK_ACT_SLOW) {
        rc = dm_delay_table(&l, p->latency_ns, p->jitter_ns, table, sizeof table, why,
                            sizeof why);
        snprintf(s->target, sizeof s->target, "delay");
    } else if (p->percent < 100) {
        snprintf(why, sizeof why, "percent < 100: device-mapper fails all or nothing");
        rc = -1;
    } else {
        unsigned on = p->on == 0 ? DISK_ON_READ : p->on == 1 ? DISK_ON_WRITE : DISK_ON_BOTH;
        s->seed = f->env->seed ^ (uint64_t)(f->index + 1) * 0x9e3779b97f4a7c15ull;
        rc = disk_pick_ranges(p, l.sectors * SECTOR, s->seed, &s->ranges, why, sizeof why);
        if (rc == 0)
            rc = dm_errors_table(&l, on, &s->ranges, table, sizeof table, why, sizeof why);
        snprintf(s->target, sizeof s->target, "%s", on == DISK_ON_BOTH ? "error"
                 : on == DISK_ON_READ ? "flakey error_reads" : "flakey error_writes");
    }
    if (rc != 0) {
        snprintf(err, errlen, "dm = %s: %s", p->dm, why);
        return -1;
    }
    snprintf(s->table_file, sizeof s->table_file, "%s/disk-%u-%s.table", f->env->dir, f->index,
             p->dm);
    FILE *t = file_create(s->table_file, 0600, false, err, errlen);
    if (!t)
        return -1;
    snprintf(s->table, sizeof s->table, "%s", table);
    if (fputs(table, t) < 0 || fclose(t) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", s->table_file, strerror(errno));
        return -1;
    }
    char args[600];
    snprintf(args, sizeof args, "%s %s", p->dm, s->original);
    return fault_plan_undo(f, "dm-table", args);
}

int disk_host_prepare(struct fault *f, enum disk_action a, char *err, size_t errlen)
{
    const struct disk_params *p = FAULT_PARAMS(&f->spec, const struct disk_params);
    struct disk_fault *s = fault_state(f, sizeof *s, err, errlen);
    if (!s)
        return -1;
    s->action = a;
    if (s->action == DISK_ACT_FAIL && p->device[0])
        return scsi_prepare(f, s, err, errlen);
    if ((s->action == DISK_ACT_ERRORS || s->action == DISK_ACT_SLOW) && p->dm[0])
        return dm_prepare(f, s, err, errlen);
    snprintf(err, errlen, "%s takes %s", f->ops->action,
             s->action == DISK_ACT_FAIL ? "device = sdX on a [host], not dm"
             : s->action == DISK_ACT_FULL
                 ? "neither device nor dm: only a lab server's disk can be made full"
                 : "dm = NAME on a [host], not device");
    return -1;
}

static int put_text(const char *path, const char *text, char *err, size_t errlen)
{
    FILE *w = fopen(path, "w");
    if (!w || fputs(text, w) < 0 || fclose(w) != 0) {
        snprintf(err, errlen, "cannot write '%s' to %s: %s", text, path, strerror(errno));
        if (w)
            fclose(w);
        return -1;
    }
    return 0;
}

/* The SCSI disk's count of failed I/Os (device/ioerr_cnt, "0x1c"). */
static bool read_ioerr(const struct disk_fault *s, uint64_t *v)
{
    char path[PATH_MAX + 16], text[64];
    snprintf(path, sizeof path, "%.*s/ioerr_cnt", (int)(strlen(s->state_path) - 6),
             s->state_path);
    FILE *r = fopen(path, "r");
    bool ok = r && fgets(text, sizeof text, r);
    if (r)
        fclose(r);
    if (ok)
        *v = strtoull(text, NULL, 0);
    return ok;
}

/* dmsetup load NAME (--table LINE | FILE), then resume.  0, or -1 with err. */
static int dm_load(const char *name, const char *table, bool file, char *err, size_t errlen)
{
    char out[1024];
    char *load_t[] = {"dmsetup", "load", (char *)name, "--table", (char *)table, NULL};
    char *load_f[] = {"dmsetup", "load", (char *)name, (char *)table, NULL};
    char *resume[] = {"dmsetup", "resume", (char *)name, NULL};
    if (dmsetup(file ? load_f : load_t, out, sizeof out) != 0) {
        out[strcspn(out, "\n")] = '\0';
        snprintf(err, errlen, "dmsetup load %s: %s%s", name, out,
                 strstr(table, "error_reads") || file
                     ? " (flakey's error_reads needs Linux 6.5 or later, error_writes 4.10)"
                     : "");
        return -1;
    }
    if (dmsetup(resume, out, sizeof out) != 0) {
        out[strcspn(out, "\n")] = '\0';
        snprintf(err, errlen, "dmsetup resume %s: %s", name, out);
        return -1;
    }
    return 0;
}

/* Whether the table file still holds what prepare wrote, in a file nobody
 * else could have changed since (dmsetup reads it as root): a regular
 * file, no link, owned by root or us, not writable by group or others.
 * 0, or -1 with err. */
static int table_unchanged(const struct disk_fault *s, char *err, size_t errlen)
{
    int fd = open(s->table_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", s->table_file, strerror(errno));
        return -1;
    }
    char buf[DISK_TABLE_MAX + 1];
    ssize_t got = trusted_file(fd, s->table_file, err, errlen) == 0
                      ? read(fd, buf, sizeof buf - 1)
                      : -2;
    close(fd);
    if (got == -2)
        return -1;
    if (got < 0 || (size_t)got != strlen(s->table) || memcmp(buf, s->table, (size_t)got) != 0) {
        snprintf(err, errlen, "%s is not the table written before the run (changed since): "
                 "not loaded", s->table_file);
        return -1;
    }
    return 0;
}

int disk_host_inject(struct fault *f, char *err, size_t errlen)
{
    struct disk_fault *s = f->state;
    if (s->state_path[0]) {
        s->ioerr_known = read_ioerr(s, &s->ioerr_before);
        return put_text(s->state_path, "offline", err, errlen);
    }
    if (table_unchanged(s, err, errlen) != 0)
        return -1;
    return dm_load(FAULT_PARAMS(&f->spec, const struct disk_params)->dm, s->table_file, true,
                   err, errlen);
}

int disk_host_clear(struct fault *f, char *err, size_t errlen)
{
    struct disk_fault *s = f->state;
    int rc = fault_undo_all(f, err, errlen);
    if (rc == 0)
        s->cleared = true;
    if (rc == 0 && s->state_path[0] && s->ioerr_known)
        s->ioerr_known = read_ioerr(s, &s->ioerr_after);
    if (rc == 0)
        disk_host_describe(f, f->detail, sizeof f->detail);
    return rc;
}

void disk_host_describe(const struct fault *f, char *out, size_t n)
{
    const struct disk_fault *s = f->state;
    const struct disk_params *p = FAULT_PARAMS(&f->spec, const struct disk_params);
    if (s->state_path[0]) {
        char count[128] = "";
        if (s->cleared && s->ioerr_known)
            snprintf(count, sizeof count, ": %" PRIu64 " I/Os failed (its ioerr_cnt)",
                     s->ioerr_after - s->ioerr_before);
        snprintf(out, n, "SCSI disk %s of %s set offline, every I/O fails%s%s", p->device,
                 f->host.name, s->cleared ? ", then running again" : "", count);
        return;
    }
    char what[160];
    if (s->action == DISK_ACT_SLOW)
        snprintf(what, sizeof what, "every I/O held back %g ms (dm delay)",
                 (double)p->latency_ns / 1e6);
    else if (s->ranges.n)
        snprintf(what, sizeof what, "%s fail with EIO in %u range%s (dm %s)",
                 p->on == 0 ? "reads" : p->on == 1 ? "writes" : "reads and writes",
                 s->ranges.n, s->ranges.n == 1 ? "" : "s", s->target);
    else
        snprintf(what, sizeof what, "every %s fails with EIO (dm %s)",
                 p->on == 0 ? "read" : p->on == 1 ? "write" : "I/O", s->target);
    snprintf(out, n, "device-mapper device %s of %s: %s%s", p->dm, f->host.name, what,
             s->cleared ? "; its linear table loaded back (device-mapper counts no I/Os)" : "");
}

/* --- the undo records --- */

/* scsi-running DEV */
static int undo_scsi_running(const char *dev, const char *rest, char *err, size_t errlen)
{
    (void)rest;
    if (!plain_name(dev)) {
        snprintf(err, errlen, "scsi-running: '%s' is not a disk's name", dev);
        return -1;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/block/%s/device/state", disk_sysfs_root(), dev);
    if (access(path, F_OK) != 0)
        return 0; /* the disk is gone: nothing to set running */
    return put_text(path, "running", err, errlen);
}

static int check_scsi_running(const char *dev, const char *rest, char *err, size_t errlen)
{
    (void)rest;
    if (plain_name(dev))
        return 0;
    snprintf(err, errlen, "scsi-running: '%s' is not a disk's name", dev);
    return -1;
}

/* dm-table NAME TABLE */
static int undo_dm_table(const char *name, const char *table, char *err, size_t errlen)
{
    char out[512];
    char *info[] = {"dmsetup", "info", (char *)name, NULL};
    if (dmsetup(info, out, sizeof out) != 0)
        return 0; /* no such device (or no device-mapper): nothing to load back */
    return dm_load(name, table, false, err, errlen);
}

static int check_dm_table(const char *name, const char *table, char *err, size_t errlen)
{
    struct dm_linear l;
    char why[256];
    if (!plain_name(name) || dm_parse_linear(table, &l, why, sizeof why) != 0) {
        snprintf(err, errlen, "dm-table: '%s %s' is not a device and its linear table", name,
                 table);
        return -1;
    }
    return 0;
}

/* disk-clear keep|replace SOCK */
static int undo_disk_clear(const char *how, const char *sock, char *err, size_t errlen)
{
    struct stat st;
    if (stat(sock, &st) != 0)
        return 0; /* the layer is gone, and its faults with it */
    enum disk_mode mode;
    struct disk_counts c;
    char why[512];
    if (diskctl_ask(sock, strcmp(how, "replace") == 0 ? "clear replace" : "clear", &mode, &c,
                    5000, why, sizeof why) != 0) {
        snprintf(err, errlen, "the disk layer at %s: %s", sock, why);
        return -1;
    }
    return 0;
}

static int check_disk_clear(const char *how, const char *sock, char *err, size_t errlen)
{
    if ((strcmp(how, "keep") == 0 || strcmp(how, "replace") == 0) && sock[0] == '/')
        return 0;
    snprintf(err, errlen, "disk-clear: '%s %s' is not keep|replace and a socket", how, sock);
    return -1;
}

const struct undo_kind disk_undo_kinds[] = {
    {"scsi-running", false, undo_scsi_running, check_scsi_running},
    {"dm-table", false, undo_dm_table, check_dm_table},
    {"disk-clear", false, undo_disk_clear, check_disk_clear},
};

__attribute__((constructor)) static void register_disk_records(void)
{
    for (size_t i = 0; i < sizeof disk_undo_kinds / sizeof disk_undo_kinds[0]; i++)
        undo_register(&disk_undo_kinds[i]);
}
