/*
 * disk — a server's disk misbehaving, until the fault clears:
 *
 *   disk-fail    every I/O fails with EIO (a disk gone from the bus);
 *                replace = yes: it comes back empty, as a replaced disk does
 *   disk-errors  bad sectors: I/Os (on = read|write|both) that touch the
 *                ranges (offset + length, or blocks = N random 4 KiB blocks
 *                drawn from the run's seed; neither: any I/O) fail with EIO,
 *                each with `percent` odds
 *   disk-slow    every I/O takes `latency` longer, plus up to `jitter`
 *   disk-full    a write that needs new space fails with ENOSPC
 *
 * On a lab server the lab's disk layer does it (faultline-disk, a FUSE
 * layer under the server's disk, lib/diskctl.h): the fault asks the lab
 * for the disk (fault_lab.disk), sends `set ...` at inject and `clear` at
 * clear, and the report says what the layer counted in between.  Its undo
 * record, `disk-clear keep|replace SOCK`, clears the layer after a killed
 * run too.  disk-errors that fail reads drop this machine's clean page
 * cache at inject, so that reads reach the disk within a short scenario.
 *
 * On a machine of one's own ([host], also through `faultline agent`):
 * disk-fail sets a SCSI disk offline (device = sdX), disk-errors and
 * disk-slow load a faulty device-mapper table over a linear device the
 * user made (dm = NAME); see disk_host.c.  disk-full has no such way.
 */
#include "disk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/proc.h"
#include "../../lib/rng.h"
#include "../runtime.h"
#include "../undo.h"

#define ASK_TIMEOUT_MS 5000

extern const struct fault_ops fault_disk_fail, fault_disk_errors, fault_disk_slow,
    fault_disk_full;

#define P(field) FAULT_PARAM(struct disk_params, field)
#define KEY_DM                                                                                 \
    {"dm", KEY_TEXT, NULL, NULL, P(dm), 0, 0,                                                  \
     "disk-errors, disk-slow: on a [host], a device-mapper device you made over the disk, with "  \
     "one linear target (dmsetup create NAME --table '0 SECTORS linear /dev/sdX 0'); the "      \
     "fault loads a faulty table in its place and puts the linear one back", 0}

static const struct key_def fail_keys[] = {
    FAULT_KEY_DURATION,
    {"replace", KEY_BOOL, "no", NULL, P(replace), 0, 0,
     "disk-fail: the disk comes back empty when the fault clears, as a replaced disk does "
     "(lab servers only)", 0},
    {"device", KEY_TEXT, NULL, NULL, P(device), 0, 0,
     "disk-fail: on a [host], the SCSI disk (sdX or /dev/sdX) to set offline through "
     "/sys/block/sdX/device/state (running again at clear)", 0},
};

static const struct key_def errors_keys[] = {
    FAULT_KEY_DURATION,
    {"on", KEY_CHOICE, "read", "read|write|both", P(on), 0, 0,
     "disk-errors: which I/Os fail (on = read on a lab server drops this machine's clean page "
     "cache at inject, so that reads reach the disk instead of the server's cache)", 0},
    {"offset", KEY_SIZE, NULL, NULL, P(offset), 0, 0,
     "corrupt: first byte. disk-errors: first byte of the bad range", FAULT_PARAM_GIVEN(struct disk_params, offset_given)},
    {"length", KEY_SIZE, NULL, NULL, P(length), 1, 0,
     "corrupt: bytes from offset. disk-errors: bytes of the bad range from offset", 0},
    {"blocks", KEY_COUNT, NULL, NULL, P(blocks), 1, DISK_MAX_RANGES,
     "corrupt: this many random blocks (of the workload's block size) instead. disk-errors: "
     "this many random 4 KiB blocks of the disk are bad, drawn from the run's seed (neither "
     "blocks nor offset: every I/O fails)", 0},
    {"percent", KEY_PERCENT, "100", NULL, P(percent), 0, 0,
     "loss: share of packets dropped (required). disk-errors: share of the I/Os that touch "
     "the bad ranges that fail (default 100; lab servers only below 100)", 0},
    KEY_DM,
};

static const struct key_def slow_keys[] = {
    FAULT_KEY_DURATION,
    {"latency", KEY_DURATION, NULL, NULL, P(latency_ns), 1000, AT_MOST_A_DAY,
     "disk-slow: every I/O takes this much longer (required; whole milliseconds with dm)", 0},
    {"jitter", KEY_DURATION, NULL, NULL, P(jitter_ns), 1000, AT_MOST_A_DAY,
     "disk-slow: plus a uniform 0..jitter more (lab servers only)", 0},
    KEY_DM,
};

static const struct key_def full_keys[] = {FAULT_KEY_DURATION};

static const struct disk_params *params(const struct fault_spec *s)
{
    return FAULT_PARAMS(s, const struct disk_params);
}

enum disk_action disk_action_of(const struct fault_spec *s)
{
    return s->ops == &fault_disk_fail     ? DISK_ACT_FAIL
           : s->ops == &fault_disk_errors ? DISK_ACT_ERRORS
           : s->ops == &fault_disk_slow   ? DISK_ACT_SLOW
                                          : DISK_ACT_FULL;
}

/* --- the checks of a section --- */

/* What a [host] (not a lab server) needs; r->host_known. */
static int check_host_kind(const struct fault_spec *s, const struct fault_rules *r, char *err,
                           size_t errlen)
{
    const struct disk_params *p = params(s);
    enum disk_action a = disk_action_of(s);
    const char *act = s->ops->action;
    if (r->host_in_lab) {
        if (!p->device[0] && !p->dm[0])
            return 0;
        snprintf(err, errlen, "[fault %s] %s: %s is a lab server, whose disk is the lab's: "
                 "leave out %s", s->name, act, s->host, p->device[0] ? "device" : "dm");
        return -1;
    }
    if (a == DISK_ACT_FULL)
        snprintf(err, errlen, "[fault %s] disk-full: only a lab server's disk can be made full "
                 "(%s is not one); on a machine of your own, fill its filesystem: action = "
                 "command, command = fallocate -l SIZE FILE, undo = rm -f FILE", s->name,
                 s->host);
    else if (a == DISK_ACT_FAIL && !p->device[0])
        snprintf(err, errlen, "[fault %s] disk-fail on %s (not a lab server): say which disk, "
                 "device = sdX (a SCSI disk, set offline through sysfs)", s->name, s->host);
    else if (a != DISK_ACT_FAIL && !p->dm[0])
        snprintf(err, errlen, "[fault %s] %s on %s (not a lab server): say which disk, dm = "
                 "NAME (a device-mapper device with one linear target over it, which the "
                 "fault replaces by a faulty one)", s->name, act, s->host);
    else
        return 0;
    return -1;
}

/* What the keys say together: what needs no host to be told. */
static int check_keys(const struct fault_spec *s, bool whole, char *err, size_t errlen)
{
    const struct disk_params *p = params(s);
    const char *n = s->name;
    switch (disk_action_of(s)) {
    case DISK_ACT_FAIL:
        if (p->replace && p->device[0]) {
            snprintf(err, errlen, "[fault %s] disk-fail: replace = yes cannot be done to a real "
                     "disk (%s); only a lab server's disk comes back empty", n, p->device);
            return -1;
        }
        return 0;
    case DISK_ACT_ERRORS:
        /* offset_given is not sent to an agent (whole: the controller's check) */
        if (whole && p->length && !p->offset_given)
            snprintf(err, errlen, "[fault %s] disk-errors: length needs offset (the bad range "
                     "is offset + length)", n);
        else if (whole && p->offset_given && !p->length && !p->blocks)
            snprintf(err, errlen, "[fault %s] disk-errors: offset needs length (the bad range "
                     "is offset + length; without both, every I/O fails)", n);
        else if (p->blocks && (p->offset_given || p->length))
            snprintf(err, errlen, "[fault %s] disk-errors takes blocks, or offset and length, "
                     "not both", n);
        else if (p->percent == 0)
            snprintf(err, errlen, "[fault %s] disk-errors: percent = 0 fails nothing (1 to "
                     "100)", n);
        else if (p->dm[0] && p->percent < 100)
            snprintf(err, errlen, "[fault %s] disk-errors: percent = %u: device-mapper fails "
                     "every I/O of a range or none (only a lab server's disk fails a share)",
                     n, p->percent);
        else
            return 0;
        return -1;
    case DISK_ACT_SLOW:
        if (!p->latency_ns)
            snprintf(err, errlen, "[fault %s] disk-slow needs latency", n);
        else if (p->dm[0] && p->jitter_ns)
            snprintf(err, errlen, "[fault %s] disk-slow: jitter: device-mapper's delay target "
                     "delays every I/O alike (leave jitter out with dm)", n);
        else if (p->dm[0] && p->latency_ns % 1000000)
            snprintf(err, errlen, "[fault %s] disk-slow: latency: device-mapper's delay target "
                     "counts whole milliseconds", n);
        else
            return 0;
        return -1;
    case DISK_ACT_FULL:
        return 0;
    }
    return 0;
}

static int disk_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                      size_t errlen)
{
    if (check_keys(s, r->host_known, err, errlen) != 0)
        return -1;
    return r->host_known ? check_host_kind(s, r, err, errlen) : 0;
}

/* --- the ranges and the words --- */

/* "in 5 random 4 KiB blocks" / "in bytes 4096..8191" / "anywhere" */
static void where_text(const struct disk_params *p, const struct disk_ranges *r, char *out,
                       size_t n)
{
    if (p->blocks)
        snprintf(out, n, "in %u random 4 KiB block%s", r->n, r->n == 1 ? "" : "s");
    else if (r->n)
        snprintf(out, n, "in bytes %llu..%llu", (unsigned long long)r->r[0][0],
                 (unsigned long long)(r->r[0][0] + r->r[0][1] - 1));
    else
        snprintf(out, n, "anywhere on the disk");
}

static const char *on_word(int on)
{
    return on == 0 ? "reads" : on == 1 ? "writes" : "reads and writes";
}

void disk_detail(enum disk_action a, const struct disk_params *p, const struct disk_fault *s,
                 const struct disk_counts *d, char *out, size_t n)
{
    typedef unsigned long long ull;
    int used = snprintf(out, n, "%s: ", s->lab.what);
    if (used < 0 || (size_t)used >= n)
        return;
    char *o = out + used;
    size_t left = n - (size_t)used;
    switch (a) {
    case DISK_ACT_FAIL:
        snprintf(o, left, "%llu of %llu reads, %llu of %llu writes and %llu of %llu syncs failed "
                 "with EIO%s", (ull)d->failed_reads, (ull)d->reads, (ull)d->failed_writes,
                 (ull)d->writes, (ull)d->failed_syncs, (ull)d->syncs,
                 p->replace ? "; it came back empty (replaced)" : "");
        return;
    case DISK_ACT_ERRORS: {
        char where[96], odds[48] = "";
        where_text(p, &s->ranges, where, sizeof where);
        if (p->percent < 100)
            snprintf(odds, sizeof odds, ", each with %u%% odds", p->percent);
        char r[96] = "", w[96] = "";
        if (p->on != 1)
            snprintf(r, sizeof r, "%llu of %llu reads", (ull)d->failed_reads, (ull)d->reads);
        if (p->on != 0)
            snprintf(w, sizeof w, "%llu of %llu writes", (ull)d->failed_writes, (ull)d->writes);
        snprintf(o, left, "%s%s%s failed with EIO (bad %s %s%s)%s%s%s%s", r,
                 r[0] && w[0] ? " and " : "", w, on_word(p->on), where, odds,
                 s->cache_dropped ? "; the page cache was dropped at inject" : "",
                 s->reread[0] ? ", and the server's own cache (`" : "", s->reread,
                 s->cache_dropped ? s->reread[0] ? "`), so that reads reached the disk"
                                                 : ", so that reads reached the disk"
                                  : "");
        return;
    }
    case DISK_ACT_SLOW: {
        char jitter[48] = "";
        if (p->jitter_ns)
            snprintf(jitter, sizeof jitter, " (+0..%g ms)", (double)p->jitter_ns / 1e6);
        snprintf(o, left, "%llu I/O%s held back %g ms%s (of %llu reads, %llu writes and %llu "
                 "syncs)", (ull)d->slowed, d->slowed == 1 ? "" : "s",
                 (double)p->latency_ns / 1e6, jitter, (ull)d->reads, (ull)d->writes,
                 (ull)d->syncs);
        return;
    }
    case DISK_ACT_FULL:
        snprintf(o, left, "%llu of %llu writes failed with ENOSPC", (ull)d->nospace,
                 (ull)d->writes);
        return;
    }
}

/* --- on a lab server: the lab's disk layer --- */

static int disk_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct disk_params *p = params(&f->spec);
    if (p->device[0] || p->dm[0])
        return disk_host_prepare(f, disk_action_of(&f->spec), err, errlen);
    const struct fault_lab *lab = f->env->lab;
    enum disk_action a = disk_action_of(&f->spec);
    if (!f->host.lab || !lab || !lab->disk) {
        snprintf(err, errlen, "%s needs a lab server's disk layer, and %s %s%s", f->ops->action,
                 f->host.name, f->host.lab ? "is not reached by the lab here (with [lab] control "
                                             "= ssh it is not available yet)"
                                           : "is not a lab server",
                 f->host.lab ? ""
                 : a == DISK_ACT_FULL ? "; on a machine of your own, fill its filesystem: "
                                        "action = command, command = fallocate -l SIZE FILE, "
                                        "undo = rm -f FILE"
                 : a == DISK_ACT_FAIL ? "; on a machine of your own say which disk: device = sdX"
                                      : "; on a machine of your own say which disk: dm = NAME");
        return -1;
    }
    struct disk_fault *s = fault_state(f, sizeof *s, err, errlen);
    if (!s)
        return -1;
    s->action = a;
    s->on_lab = true;
    char why[768];
    if (lab->disk(lab->ctx, f->host.name, &s->lab, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    s->seed = rng_mix(f->env->seed ^ (uint64_t)(f->index + 1) * RNG_GOLDEN);
    struct disk_cmd *c = &s->cmd;
    switch (a) {
    case DISK_ACT_FAIL:
        c->mode = DISK_FAIL;
        break;
    case DISK_ACT_ERRORS:
        if (disk_pick_ranges(p, s->lab.size, s->seed, &s->ranges, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", s->lab.what, why);
            return -1;
        }
        c->mode = DISK_ERRORS;
        c->on = p->on == 0 ? DISK_ON_READ : p->on == 1 ? DISK_ON_WRITE : DISK_ON_BOTH;
        c->percent = p->percent;
        c->seed = s->seed;
        memcpy(c->ranges, s->ranges.r, sizeof c->ranges);
        c->nranges = s->ranges.n;
        break;
    case DISK_ACT_SLOW:
        c->mode = DISK_SLOW;
        c->latency_us = p->latency_ns / 1000;
        c->jitter_us = p->jitter_ns / 1000;
        break;
    case DISK_ACT_FULL:
        c->mode = DISK_FULL;
        break;
    }
    char line[DISKCTL_LINE_MAX], args[PATH_MAX + 16];
    if (diskctl_format(c, line, sizeof line) != 0) {
        snprintf(err, errlen, "the command for %s does not fit in a line", s->lab.what);
        return -1;
    }
    snprintf(args, sizeof args, "%s %s", p->replace ? "replace" : "keep", s->lab.control);
    return fault_plan_undo(f, "disk-clear", args);
}

/* This machine's clean page cache dropped: reads of the server reach its
 * disk (the lab's servers share this kernel). */
static int drop_page_cache(char *err, size_t errlen)
{
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "1", 1) != 1) {
        snprintf(err, errlen, "cannot drop the page cache (/proc/sys/vm/drop_caches): %s",
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

/* A server that keeps a cache of its own above the disk (ceph's OSD, its
 * bluestore cache) answers reads from it as long as the data fits: the
 * lab's command that has it read from its disk again (lab_replica.reread,
 * what corrupt uses) is run too, so that reads meet the bad sectors.  A
 * lab or a server without one: nothing to do.  0, or -1 with err. */
static int drop_server_cache(struct fault *f, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    struct disk_fault *s = f->state;
    struct lab_replica r;
    char why[256];
    if (!lab->replica || lab->replica(lab->ctx, f->host.name, &r, why, sizeof why) != 0 ||
        !r.reread[0])
        return 0;
    char *argv[] = {"/bin/sh", "-c", r.reread, NULL};
    char out[1024];
    int st = proc_run_at(&r.at, argv, out, sizeof out, 30000);
    if (st != 0) {
        snprintf(err, errlen, "%s: the reads fail now, but `%s` (the server's own cache "
                 "dropped) failed (%d): %.400s", s->lab.what, r.reread, st, out);
        return -1;
    }
    const char *tell = strstr(r.reread, " tell ");
    snprintf(s->reread, sizeof s->reread, "%.95s", tell ? tell + 1 : r.reread);
    return 0;
}

static int disk_inject(struct fault *f, char *err, size_t errlen)
{
    struct disk_fault *s = f->state;
    if (!s->on_lab)
        return disk_host_inject(f, err, errlen);
    char line[DISKCTL_LINE_MAX], why[768];
    enum disk_mode mode;
    struct disk_counts before, now;
    diskctl_format(&s->cmd, line, sizeof line);
    if (diskctl_ask(s->lab.control, "status", &mode, &before, ASK_TIMEOUT_MS, why,
                    sizeof why) != 0 ||
        diskctl_ask(s->lab.control, line, &mode, &now, ASK_TIMEOUT_MS, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", s->lab.what, why);
        return -1;
    }
    /* What the layer did before is not the fault's: the clear's answer
     * minus this. */
    s->done = before;
    s->cleared = false;
    if (s->action == DISK_ACT_ERRORS && (s->cmd.on & DISK_ON_READ)) {
        if (drop_page_cache(err, errlen) != 0 || drop_server_cache(f, err, errlen) != 0)
            return -1;
        s->cache_dropped = true;
    }
    return 0;
}

static int disk_clear(struct fault *f, char *err, size_t errlen)
{
    struct disk_fault *s = f->state;
    if (!s->on_lab)
        return disk_host_clear(f, err, errlen);
    const struct disk_params *p = params(&f->spec);
    char why[768];
    enum disk_mode mode;
    struct disk_counts after;
    if (diskctl_ask(s->lab.control, p->replace ? "clear replace" : "clear", &mode, &after,
                    ASK_TIMEOUT_MS, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", s->lab.what, why);
        f->undo_failed = f->nundo > 0; /* its record stays open for `faultline cleanup` */
        return -1;
    }
    fault_undo_done(f);
    s->done = disk_counts_since(&s->done, &after);
    s->cleared = true;
    disk_detail(s->action, p, s, &s->done, f->detail, sizeof f->detail);
    return 0;
}

static void mode_text(const struct fault *f, char *out, size_t n)
{
    const struct disk_params *p = params(&f->spec);
    const struct disk_fault *s = f->state;
    switch (disk_action_of(&f->spec)) {
    case DISK_ACT_FAIL:
        snprintf(out, n, "every I/O fails with EIO%s",
                 p->replace ? ", and it comes back empty (replaced)" : "");
        return;
    case DISK_ACT_ERRORS: {
        char where[96] = "in the bad ranges", odds[48] = "";
        if (s)
            where_text(p, &s->ranges, where, sizeof where);
        if (p->percent < 100)
            snprintf(odds, sizeof odds, " (%u%% of them)", p->percent);
        snprintf(out, n, "%s %s fail with EIO%s%s", on_word(p->on), where, odds,
                 s && s->cache_dropped ? "; page cache dropped at inject" : "");
        return;
    }
    case DISK_ACT_SLOW: {
        char jitter[48] = "";
        if (p->jitter_ns)
            snprintf(jitter, sizeof jitter, " (+0..%g ms)", (double)p->jitter_ns / 1e6);
        snprintf(out, n, "every I/O held back %g ms%s", (double)p->latency_ns / 1e6, jitter);
        return;
    }
    case DISK_ACT_FULL:
        snprintf(out, n, "writes that need new space fail with ENOSPC");
        return;
    }
}

static void disk_describe(const struct fault *f, char *out, size_t n)
{
    const struct disk_fault *s = f->state;
    if (s && !s->on_lab) {
        disk_host_describe(f, out, n);
        return;
    }
    if (s && s->cleared) {
        disk_detail(s->action, params(&f->spec), s, &s->done, out, n);
        return;
    }
    char mode[256];
    mode_text(f, mode, sizeof mode);
    char name[64];
    snprintf(name, sizeof name, "the disk of %s", f->host.name);
    snprintf(out, n, "%s: %s", s ? s->lab.what : name, mode);
}

#define DISK_OPS(name, act, keytab)                                                            \
    const struct fault_ops name = {                                                            \
        .action = act,                                                                         \
        .hold_key = "duration",                                                                \
        .keys = keytab,                                                                        \
        .nkeys = sizeof keytab / sizeof keytab[0],                                             \
        .check = disk_check,                                                                   \
        .prepare = disk_prepare,                                                               \
        .inject = disk_inject,                                                                 \
        .clear = disk_clear,                                                                   \
        .describe = disk_describe,                                                             \
    }

DISK_OPS(fault_disk_fail, "disk-fail", fail_keys);
DISK_OPS(fault_disk_errors, "disk-errors", errors_keys);
DISK_OPS(fault_disk_slow, "disk-slow", slow_keys);
DISK_OPS(fault_disk_full, "disk-full", full_keys);
