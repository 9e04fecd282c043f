/* lab_disk — a lab server's disk on the disk layer: finding faultline-disk,
 * starting and recording it, its health and status, and the disk as the
 * faults reach it.  See lab_disk.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/diskctl.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "../../lib/units.h"
#include "lab_disk.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"

#define DISK_PROGRAM "faultline-disk"
#define DISK_START_WAIT_NS 10000000000ull
#define DISK_ASK_MS 2000 /* `status` asked of a layer for lab status */

/* Whether the program at path is ours to run as root: a regular file
 * owned by root or us that nobody else can write (a faultline-disk in a
 * directory others can write to is not run, and the one on PATH is). */
static bool owned_by_us(const char *path)
{
    char why[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool ok = fd >= 0 && trusted_file(fd, path, why, sizeof why) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

void lab_program(const char *name, char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        static const char *const near[] = {"/", "/build/", "/../"};
        for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
            snprintf(out, n, "%s%s%s", self, near[i], name);
            if (access(out, X_OK) == 0 && owned_by_us(out))
                return;
        }
    }
    snprintf(out, n, "%s", name);
}

bool lab_disk_faults(const struct lab *lab)
{
    const struct key_table *t = &lab->kind->keys;
    const struct key_def *k = key_find(t->keys, t->n, "disk_faults");
    bool on = false;
    if (k && k->type == KEY_BOOL)
        memcpy(&on, (const char *)&lab->opts + k->off, sizeof on);
    return on;
}

/* The layer's files: LAB/disk-NAME and LAB/disk-NAME.SUFFIX. */
static void layer_path(const struct lab *lab, const char *name, const char *suffix, char *out,
                       size_t n)
{
    snprintf(out, n, "%.127s/disk-%.15s%s", lab->dir, name, suffix);
}

void lab_disk_file(const struct lab *lab, const struct lab_disk_spec *s, char *out, size_t n)
{
    if (lab_disk_faults(lab))
        layer_path(lab, s->name, "/disk", out, n);
    else
        snprintf(out, n, "%s", s->image);
}

/* Waits (bounded) until the layer serves its file, as large as the image. */
static int wait_layer(const struct lab *lab, const struct lab_disk_spec *s, pid_t pid,
                      uint64_t start, const char *log, char *err, size_t errlen)
{
    char file[256];
    lab_disk_file(lab, s, file, sizeof file);
    for (uint64_t until = mono_ns() + DISK_START_WAIT_NS;; lab_pause_ms(20)) {
        struct stat st;
        if (stat(file, &st) == 0 && (uint64_t)st.st_size == s->size)
            return 0;
        enum proc_state ps = proc_state(pid, start);
        bool dead = ps == PROC_GONE || ps == PROC_ZOMBIE;
        if (dead || mono_ns() > until) {
            snprintf(err, errlen, "the disk layer of %s (%s) %s; see %s", s->name, DISK_PROGRAM,
                     dead ? "exited at start" : "does not serve its file in 10 s", log);
            return -1;
        }
    }
}

void lab_disk_note(struct lab *lab, const char *name, pid_t pid, uint64_t start)
{
    unsigned i = 0;
    while (i < lab->ndisks && strcmp(lab->disks[i].name, name) != 0)
        i++;
    if (i == LAB_MAX_HOSTS)
        return;
    if (i == lab->ndisks)
        lab->ndisks++;
    snprintf(lab->disks[i].name, sizeof lab->disks[i].name, "%.15s", name);
    lab->disks[i].pid = pid;
    lab->disks[i].start = start;
}

int lab_disk_start(struct lab *lab, const struct lab_disk_spec *s, int fd, char *err,
                   size_t errlen)
{
    if (!lab_disk_faults(lab))
        return 0;
    char mnt[200], sock[200], pidf[200], log[200], prog[PATH_MAX];
    layer_path(lab, s->name, "", mnt, sizeof mnt);
    layer_path(lab, s->name, ".sock", sock, sizeof sock);
    layer_path(lab, s->name, ".pid", pidf, sizeof pidf);
    layer_path(lab, s->name, ".log", log, sizeof log);
    lab_program(DISK_PROGRAM, prog, sizeof prog);
    /* its mount is undone after the servers that use it (lab_undo.c) */
    if (lab_rec(fd, err, errlen, "dir %s", mnt) != 0 ||
        lab_rec(fd, err, errlen, "file %s", log) != 0 ||
        lab_rec(fd, err, errlen, "file %s", pidf) != 0 ||
        lab_rec(fd, err, errlen, "socket %s", sock) != 0 ||
        lab_rec(fd, err, errlen, "diskmount %s", mnt) != 0)
        return -1;
    if (mkdir(mnt, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", mnt, strerror(errno));
        return -1;
    }
    char *argv[] = {prog,   "--backing", (char *)s->image, "--mount",   mnt,  "--control",
                    sock,   "--name",    "disk",           "--pidfile", pidf, NULL};
    pid_t pid;
    uint64_t start;
    if (proc_spawn(NULL, argv, log, &pid, &start, err, errlen) != 0 ||
        lab_rec(fd, err, errlen, "disk %s %d %llu", s->name, (int)pid,
                (unsigned long long)start) != 0)
        return -1;
    lab_disk_note(lab, s->name, pid, start);
    return wait_layer(lab, s, pid, start, log, err, errlen);
}

/* The layer recorded under name (NULL: none). */
static const struct lab_layer *layer_of(const struct lab *lab, const char *name)
{
    for (unsigned i = 0; i < lab->ndisks; i++)
        if (strcmp(lab->disks[i].name, name) == 0)
            return &lab->disks[i];
    return NULL;
}

/* Each disk of the lab once (the iSCSI controllers share theirs): fn for
 * every server's disk not seen before, until it returns false. */
static void each_disk(const struct lab *lab,
                      bool (*fn)(const struct lab *lab, const struct lab_disk_spec *s,
                                 const struct lab_host *h, void *ctx),
                      void *ctx)
{
    char seen[LAB_MAX_HOSTS][16];
    unsigned nseen = 0;
    for (unsigned i = 1; i < lab->nhosts && lab->kind->faults->disk; i++) {
        struct lab_disk_spec s;
        if (!lab->kind->faults->disk(lab, &lab->hosts[i], &s))
            continue;
        bool dup = false;
        for (unsigned k = 0; k < nseen; k++)
            dup |= strcmp(seen[k], s.name) == 0;
        if (dup || nseen == LAB_MAX_HOSTS)
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", s.name);
        if (!fn(lab, &s, &lab->hosts[i], ctx))
            return;
    }
}

struct health {
    char *why;
    size_t n;
    bool ok;
};

static bool layer_runs(const struct lab *lab, const struct lab_disk_spec *s,
                       const struct lab_host *h, void *ctx)
{
    (void)h;
    struct health *hl = ctx;
    const struct lab_layer *l = layer_of(lab, s->name);
    enum proc_state st = l ? proc_state(l->pid, l->start) : PROC_GONE;
    if (st == PROC_RUNNING)
        return true;
    if (l)
        snprintf(hl->why, hl->n, "the disk layer of %s (%s, pid %d) is %s", s->what,
                 DISK_PROGRAM, (int)l->pid, proc_state_name(st));
    else
        snprintf(hl->why, hl->n, "%s has no disk layer (%s) recorded", s->what, DISK_PROGRAM);
    hl->ok = false;
    return false;
}

bool lab_disks_healthy(const struct lab *lab, char *why, size_t n)
{
    struct health hl = {.why = why, .n = n, .ok = true};
    if (lab_disk_faults(lab))
        each_disk(lab, layer_runs, &hl);
    return hl.ok;
}

struct status {
    struct json *j;
    FILE *out;
};

static bool layer_status(const struct lab *lab, const struct lab_disk_spec *s,
                         const struct lab_host *h, void *ctx)
{
    (void)h;
    struct status *st = ctx;
    const struct lab_layer *l = layer_of(lab, s->name);
    enum proc_state ps = l ? proc_state(l->pid, l->start) : PROC_GONE;
    char sock[200], file[256], size[32], why[256] = "not running";
    layer_path(lab, s->name, ".sock", sock, sizeof sock);
    lab_disk_file(lab, s, file, sizeof file);
    format_size(s->size, size, sizeof size);
    /* its mode and counts, as the layer answers `status` (lib/diskctl.h) */
    enum disk_mode mode = DISK_OK;
    struct disk_counts c = {0};
    bool asked = ps == PROC_RUNNING &&
                 diskctl_ask(sock, "status", &mode, &c, DISK_ASK_MS, why, sizeof why) == 0;
    if (!st->j) {
        fprintf(st->out, "  disk    %s: %s over %s (%s), %s pid %d %s, ", s->what, file,
                s->image, size, DISK_PROGRAM, l ? (int)l->pid : 0, proc_state_name(ps));
        if (asked)
            fprintf(st->out, "mode %s (%llu reads, %llu writes, %llu failed)\n",
                    disk_mode_name(mode), (unsigned long long)c.reads,
                    (unsigned long long)c.writes,
                    (unsigned long long)(c.failed_reads + c.failed_writes + c.failed_syncs));
        else
            fprintf(st->out, "mode unknown (%s)\n", why);
        fprintf(st->out, "          control %s\n", sock);
        return true;
    }
    json_obj_begin(st->j);
    json_key(st->j, "name");
    json_str(st->j, s->name);
    json_key(st->j, "what");
    json_str(st->j, s->what);
    json_key(st->j, "image");
    json_str(st->j, s->image);
    json_key(st->j, "bytes");
    json_u64(st->j, s->size);
    json_key(st->j, "file");
    json_str(st->j, file);
    json_key(st->j, "control");
    json_str(st->j, sock);
    json_key(st->j, "pid");
    json_i64(st->j, l ? l->pid : 0);
    json_key(st->j, "state");
    json_str(st->j, proc_state_name(ps));
    json_key(st->j, "mode"); /* null: the layer did not answer (why: "mode_unknown") */
    if (asked) {
        char counts[512];
        json_str(st->j, disk_mode_name(mode));
        diskctl_counts_format(&c, counts, sizeof counts);
        json_key(st->j, "counts");
        json_str(st->j, counts);
    } else {
        json_null(st->j);
        json_key(st->j, "mode_unknown");
        json_str(st->j, why);
    }
    json_obj_end(st->j);
    return true;
}

void lab_disks_status(const struct lab *lab, struct json *j, FILE *out)
{
    if (!lab->kind->faults->disk)
        return;
    bool on = lab_disk_faults(lab);
    struct status st = {.j = j, .out = out};
    if (j) {
        json_key(j, "disk_faults");
        json_bool(j, on);
        json_key(j, "disks");
        json_arr_begin(j);
        if (on)
            each_disk(lab, layer_status, &st);
        json_arr_end(j);
    } else if (!on) {
        fprintf(out, "  disks   the images straight, no disk layer (disk_faults = no)\n");
    } else {
        each_disk(lab, layer_status, &st);
    }
}

const char *lab_disk_host(const struct lab *lab, const char *file)
{
    for (unsigned i = 1; i < lab->nhosts && lab->kind->faults->disk; i++) {
        struct lab_disk_spec s;
        char layer[256];
        if (!lab->kind->faults->disk(lab, &lab->hosts[i], &s))
            continue;
        layer_path(lab, s.name, "/disk", layer, sizeof layer);
        if (strcmp(file, s.image) == 0 || strcmp(file, layer) == 0)
            return lab->hosts[i].name;
    }
    return NULL;
}

int lab_disk_of(const struct lab *lab, const char *host, struct lab_disk *d, char *err,
                size_t errlen)
{
    const struct lab_host *h = lab_host(lab, host);
    struct lab_disk_spec s;
    if (!h) {
        snprintf(err, errlen, "%s is not a host of the %s lab", host, lab->kind->name);
        return -1;
    }
    if (!lab->kind->faults->disk || !lab->kind->faults->disk(lab, h, &s)) {
        snprintf(err, errlen, "%s has no disk of its own in the %s lab (only its servers have)",
                 host, lab->kind->name);
        return -1;
    }
    if (!lab_disk_faults(lab)) {
        snprintf(err, errlen, "the %s lab was brought up with [lab] disk_faults = no: %s is "
                 "the image itself, with no disk layer to fail it", lab->kind->name, s.what);
        return -1;
    }
    char why[512];
    struct health hl = {.why = why, .n = sizeof why, .ok = true};
    layer_runs(lab, &s, h, &hl);
    if (!hl.ok) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    char size[32];
    format_size(s.size, size, sizeof size);
    memset(d, 0, sizeof *d);
    layer_path(lab, s.name, ".sock", d->control, sizeof d->control);
    snprintf(d->what, sizeof d->what, "%.100s (%.120s, %.24s)", s.what, s.image, size);
    d->size = s.size;
    return 0;
}
