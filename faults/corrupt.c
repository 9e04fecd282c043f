/*
 * corrupt — overwrite byte ranges (`offset`, `length`) or `blocks = N`
 * random blocks of a file or device, `mode = random|zero|bitflip`:
 *
 *   random   every byte replaced by a random byte that differs from it
 *   zero     every byte set to zero
 *   bitflip  one bit (chosen by the seed) flipped in every byte
 *
 * Written through the page cache and synced, so a storage server reading
 * the same file (tgtd's backing file) sees it, as does a later O_DIRECT read.
 * Destructive, so refused unless [scenario] allow_destructive = yes and the
 * path is the scenario's own target or listed in allow_paths; a mounted
 * block device is always refused.  Nothing to undo.
 *
 * replica = gsN (the gluster lab): the same, but on that one server's brick
 * copy of a file or of every file under a directory of the volume (blocks
 * spread over the files at random; the tree's metadata-stream directories
 * are left out, their contents are not data of the run).  The copy is
 * written inside the server's mount namespace, where its brick is mounted,
 * through the page cache the brick process reads.  This is bit rot on one
 * replica: the storage has two good copies and must not serve the bad one,
 * so what a client then reads is damage, not explained by the fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <sys/wait.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../harness/lab.h"
#include "../lib/devuse.h"
#include "../lib/fsutil.h"
#include "../lib/rng.h"
#include "fault.h"

static bool allowed(const struct fault *f, const char *path)
{
    if (f->env->target_path && same_file(path, f->env->target_path))
        return true;
    const char *p = f->env->allow_paths ? f->env->allow_paths : "";
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ",");
        char one[PATH_MAX];
        snprintf(one, sizeof one, "%.*s", (int)len, p);
        size_t l = strlen(one);
        while (l && one[l - 1] == ' ')
            one[--l] = '\0';
        if (l && same_file(path, one))
            return true;
        p += len;
    }
    return false;
}

static uint64_t seed_of(const struct fault *f)
{
    const struct fault_spec *s = &f->spec;
    return s->seed_given ? s->seed
                         : (uint64_t)getpid() ^ (uint64_t)f->index << 40 ^ (uint64_t)time(NULL);
}

/* replica: the path inside the volume (relative to its root). */
static int replica_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct fault_spec *s = &f->spec;
    const struct lab *lab = f->env->lab;
    if (!lab || strcmp(lab->kind, "gluster") != 0) {
        snprintf(err, errlen, "replica = %s: only on the gluster lab ([scenario] lab = gluster)",
                 s->replica);
        return -1;
    }
    if (!lab_host(lab, s->replica) || strcmp(s->replica, "client") == 0) {
        snprintf(err, errlen, "replica = %s: not a server of the gluster lab (gs1, gs2, gs3)",
                 s->replica);
        return -1;
    }
    if (!s->blocks && !s->length) {
        snprintf(err, errlen, "corrupt needs offset and length, or blocks = N");
        return -1;
    }
    size_t m = strlen(lab->mount);
    const char *p = s->path[0] ? s->path : f->env->target_path ? f->env->target_path : "";
    if (strncmp(p, lab->mount, m) == 0 && (p[m] == '/' || !p[m]))
        p += m;
    while (*p == '/')
        p++;
    snprintf(f->path, sizeof f->path, "%s", p); /* "" is the whole volume */
    char full[PATH_MAX + 200];
    snprintf(full, sizeof full, "%s/%s", lab->mount, f->path);
    struct stat st;
    if (stat(full, &st) != 0) {
        snprintf(err, errlen, "corrupt: %s is not in the volume: %s", full, strerror(errno));
        return -1;
    }
    f->starts[0] = seed_of(f);
    return 0;
}

static int corrupt_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct fault_spec *s = &f->spec;
    if (!f->env->allow_destructive) {
        snprintf(err, errlen, "refusing fault '%s' (corrupt): it needs [scenario] "
                 "allow_destructive = yes", s->name);
        return -1;
    }
    if (s->replica[0])
        return replica_prepare(f, err, errlen);
    const char *path = s->path[0] ? s->path : f->env->target_path;
    if (!path || !*path) {
        snprintf(err, errlen, "corrupt needs path (the scenario's target is not a file)");
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
        return -1;
    }
    if (!allowed(f, path)) {
        snprintf(err, errlen, "refusing fault '%s' (corrupt): %s is neither the scenario's "
                 "target nor listed in [scenario] allow_paths", s->name, path);
        return -1;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (S_ISBLK(st.st_mode)) {
        char why[2300];
        int busy = blockdev_in_use(st.st_rdev, why, sizeof why);
        if (busy != 0) {
            snprintf(err, errlen, "refusing fault '%s' (corrupt): %s: %s; a mounted block "
                     "device is always refused", s->name, path, busy > 0 ? why : "unknown use");
            return -1;
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) != 0) {
            snprintf(err, errlen, "cannot read the size of %s: %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        close(fd);
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "corrupt: %s is neither a file nor a block device", path);
        return -1;
    }
    if (same_file(path, f->env->target_path ? f->env->target_path : "") && f->env->target_bytes)
        size = f->env->target_bytes; /* the tested region only */
    uint64_t seed = seed_of(f);
    f->nranges = 0;
    if (s->blocks) {
        uint32_t bs = f->env->block_size ? f->env->block_size : 4096;
        uint64_t nb = size / bs;
        if (s->blocks > 64 || s->blocks > nb) {
            snprintf(err, errlen, "blocks = %llu: at most 64, and %s has %llu blocks of %u",
                     (unsigned long long)s->blocks, path, (unsigned long long)nb, bs);
            return -1;
        }
        while (f->nranges < s->blocks) {
            uint64_t b = rng_split(&seed) % nb, k;
            for (k = 0; k < f->nranges && f->ranges[k][0] != b * bs; k++)
                ;
            if (k < f->nranges)
                continue; /* distinct blocks */
            f->ranges[f->nranges][0] = b * bs;
            f->ranges[f->nranges++][1] = bs;
        }
    } else if (s->length) {
        if (s->offset + s->length > size) {
            snprintf(err, errlen, "offset %llu + length %llu is beyond the end of %s (%llu bytes)",
                     (unsigned long long)s->offset, (unsigned long long)s->length, path,
                     (unsigned long long)size);
            return -1;
        }
        f->ranges[0][0] = s->offset;
        f->ranges[0][1] = s->length;
        f->nranges = 1;
    } else {
        snprintf(err, errlen, "corrupt needs offset and length, or blocks = N");
        return -1;
    }
    f->starts[0] = seed; /* the bytes written follow from it */
    return 0;
}

/* Changes bytes off..off+len of fd as the mode says. */
static int change(const struct fault *f, int fd, const char *path, uint64_t off, uint64_t len,
                  uint64_t *seed, unsigned bit, char *err, size_t errlen)
{
    int rc = 0;
    {
        unsigned char buf[65536];
        for (uint64_t done = 0; done < len && rc == 0;) {
            size_t n = len - done < sizeof buf ? (size_t)(len - done) : sizeof buf;
            ssize_t got = pread(fd, buf, n, (off_t)(off + done));
            if (got != (ssize_t)n) {
                snprintf(err, errlen, "cannot read %s at %llu: %s", path,
                         (unsigned long long)(off + done), got < 0 ? strerror(errno) : "short");
                rc = -1;
                break;
            }
            for (size_t i = 0; i < n; i++) {
                switch (f->spec.mode_choice) {
                case CORRUPT_RANDOM: {
                    unsigned char v = (unsigned char)rng_split(seed);
                    buf[i] = v != buf[i] ? v : (unsigned char)(v ^ 0x5a);
                    break;
                }
                case CORRUPT_ZERO:
                    buf[i] = 0;
                    break;
                default:
                    buf[i] ^= (unsigned char)(1u << bit);
                }
            }
            if (pwrite(fd, buf, n, (off_t)(off + done)) != (ssize_t)n) {
                snprintf(err, errlen, "cannot write %s at %llu: %s", path,
                         (unsigned long long)(off + done), strerror(errno));
                rc = -1;
            }
            done += n;
        }
    }
    return rc;
}

static int corrupt_inject(struct fault *f, char *err, size_t errlen);

static int local_inject(struct fault *f, char *err, size_t errlen)
{
    int fd = open(f->path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", f->path, strerror(errno));
        return -1;
    }
    uint64_t seed = f->starts[0];
    unsigned bit = (unsigned)(rng_split(&seed) % 8);
    int rc = 0;
    for (unsigned r = 0; r < f->nranges && rc == 0; r++)
        rc = change(f, fd, f->path, f->ranges[r][0], f->ranges[r][1], &seed, bit, err, errlen);
    if (rc == 0 && fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot sync %s: %s", f->path, strerror(errno));
        rc = -1;
    }
    close(fd);
    return rc;
}

/* --- replica: one server's brick copy --- */

struct walk {
    char (*rel)[PATH_MAX];
    uint64_t *size;
    size_t n, cap;
    size_t skip; /* length of the mount prefix */
    uint32_t bs;
};

static struct walk *walking; /* nftw passes no context */

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    struct walk *w = walking;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    unsigned k;
    char tail;
    if (flag == FTW_D && sscanf(base, "meta-%u%c", &k, &tail) == 1)
        return FTW_SKIP_SUBTREE; /* a metadata stream's names, not data of the run */
    if (flag != FTW_F || !S_ISREG(st->st_mode) || (uint64_t)st->st_size < w->bs)
        return FTW_CONTINUE;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        char(*r)[PATH_MAX] = realloc(w->rel, cap * sizeof *r);
        uint64_t *sz = r ? realloc(w->size, cap * sizeof *sz) : NULL;
        if (r)
            w->rel = r;
        if (!sz)
            return FTW_STOP;
        w->size = sz;
        w->cap = cap;
    }
    snprintf(w->rel[w->n], PATH_MAX, "%s", path + w->skip);
    w->size[w->n++] = (uint64_t)st->st_size;
    return FTW_CONTINUE;
}

/* Picks the ranges (and their files) in the volume as the client sees it. */
static int replica_pick(struct fault *f, uint64_t *seed, char *err, size_t errlen)
{
    const struct lab *lab = f->env->lab;
    struct walk w = {.skip = strlen(lab->mount) + 1,
                     .bs = f->env->block_size ? f->env->block_size : 4096};
    char root[PATH_MAX + 200];
    snprintf(root, sizeof root, "%s%s%s", lab->mount, f->path[0] ? "/" : "", f->path);
    walking = &w;
    int rc = nftw(root, collect, 32, FTW_PHYS | FTW_ACTIONRETVAL);
    walking = NULL;
    if (rc != 0 || !w.n) {
        snprintf(err, errlen, "corrupt: %s holds no file of at least one block%s", root,
                 rc ? " (or cannot be walked)" : "");
        free(w.rel);
        free(w.size);
        return -1;
    }
    const struct fault_spec *s = &f->spec;
    f->nranges = 0;
    size_t used = 0, cap = 64 * 256;
    free(f->files);
    f->files = calloc(1, cap);
    unsigned which[64];
    for (unsigned tries = 0; f->files && f->nranges < (s->blocks ? s->blocks : 1) &&
                             tries < 100000; tries++) {
        unsigned fi = (unsigned)(rng_split(seed) % w.n);
        uint64_t off = s->offset, len = s->length;
        if (s->blocks) {
            off = rng_split(seed) % (w.size[fi] / w.bs) * w.bs;
            len = w.bs;
        } else if (w.n > 1 || off + len > w.size[fi]) {
            snprintf(err, errlen, "corrupt: offset and length need one file big enough; %s %s",
                     root, w.n > 1 ? "is a directory (use blocks = N)" : "is too short");
            rc = -1;
            break;
        }
        unsigned k;
        for (k = 0; k < f->nranges && !(which[k] == fi && f->ranges[k][0] == off); k++)
            ;
        if (k < f->nranges)
            continue; /* distinct blocks */
        size_t l = strlen(w.rel[fi]) + 1;
        if (used + l > cap)
            break;
        memcpy(f->files + used, w.rel[fi], l);
        used += l;
        which[f->nranges] = fi;
        f->ranges[f->nranges][0] = off;
        f->ranges[f->nranges++][1] = len;
    }
    free(w.rel);
    free(w.size);
    if (!f->files) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return rc;
}

static int replica_inject(struct fault *f, char *err, size_t errlen)
{
    uint64_t seed = f->starts[0];
    unsigned bit = (unsigned)(rng_split(&seed) % 8);
    if (replica_pick(f, &seed, err, errlen) != 0)
        return -1;
    char brick[256];
    pid_t holder;
    uint64_t start;
    if (lab_gluster_brick(f->env->lab, f->spec.replica, brick, sizeof brick, &holder, &start, err,
                          errlen) != 0)
        return -1;
    char nspath[64];
    snprintf(nspath, sizeof nspath, "/proc/%d/ns/mnt", (int)holder);
    int nsfd = open(nspath, O_RDONLY | O_CLOEXEC);
    int pipefd[2];
    if (nsfd < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot enter the mount namespace of %s: %s", f->spec.replica,
                 strerror(errno));
        if (nsfd >= 0)
            close(nsfd);
        return -1;
    }
    pid_t child = fork();
    if (child == 0) {
        /* In the server's mount namespace: its brick is mounted there only. */
        char e[512] = "";
        int rc = setns(nsfd, CLONE_NEWNS) == 0 ? 0 : -1;
        if (rc)
            snprintf(e, sizeof e, "setns: %s", strerror(errno));
        const char *rel = f->files;
        for (unsigned r = 0; rc == 0 && r < f->nranges; r++, rel += strlen(rel) + 1) {
            char path[PATH_MAX + 300];
            snprintf(path, sizeof path, "%s/%s", brick, rel);
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd < 0) {
                snprintf(e, sizeof e, "cannot open %.400s on %s: %s", path, f->spec.replica,
                         strerror(errno));
                rc = -1;
                break;
            }
            rc = change(f, fd, path, f->ranges[r][0], f->ranges[r][1], &seed, bit, e, sizeof e);
            if (rc == 0 && fdatasync(fd) != 0) {
                snprintf(e, sizeof e, "cannot sync %.400s: %s", path, strerror(errno));
                rc = -1;
            }
            close(fd);
        }
        if (rc && write(pipefd[1], e, strlen(e)) < 0)
            _exit(2);
        _exit(rc ? 1 : 0);
    }
    close(nsfd);
    close(pipefd[1]);
    if (child < 0) {
        close(pipefd[0]);
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    char e[512];
    ssize_t n = read(pipefd[0], e, sizeof e - 1);
    close(pipefd[0]);
    int status;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        e[n > 0 ? n : 0] = 0;
        snprintf(err, errlen, "corrupt on %s: %s", f->spec.replica, n > 0 ? e : "failed");
        return -1;
    }
    return 0;
}

static int corrupt_inject(struct fault *f, char *err, size_t errlen)
{
    return f->spec.replica[0] ? replica_inject(f, err, errlen) : local_inject(f, err, errlen);
}

static void corrupt_describe(const struct fault *f, char *out, size_t n)
{
    static const char *const modes[] = {"random bytes", "zeroes", "flipped bits"};
    size_t used;
    if (f->spec.replica[0]) {
        used = (size_t)snprintf(out, n, "%s written over %u ranges of %s's brick copy of the "
                                "volume%s%s:", modes[f->spec.mode_choice], f->nranges,
                                f->spec.replica, f->path[0] ? ", under " : "", f->path);
        const char *rel = f->files;
        for (unsigned i = 0; rel && i < f->nranges && used < n; i++, rel += strlen(rel) + 1)
            used += (size_t)snprintf(out + used, n - used, " %s@%llu", rel,
                                     (unsigned long long)f->ranges[i][0]);
        return;
    }
    if (f->spec.blocks) {
        uint32_t bs = f->env->block_size ? f->env->block_size : 4096;
        used = (size_t)snprintf(out, n, "%s written over %u blocks of %u bytes of %s:",
                                modes[f->spec.mode_choice], f->nranges, bs, f->path);
        for (unsigned i = 0; i < f->nranges && used < n; i++)
            used += (size_t)snprintf(out + used, n - used, " %llu",
                                     (unsigned long long)(f->ranges[i][0] / bs));
    } else {
        snprintf(out, n, "%s written over bytes %llu..%llu of %s", modes[f->spec.mode_choice],
                 (unsigned long long)f->ranges[0][0],
                 (unsigned long long)(f->ranges[0][0] + f->ranges[0][1] - 1), f->path);
    }
}

const struct fault_ops fault_corrupt = {
    .action = "corrupt",
    .prepare = corrupt_prepare,
    .inject = corrupt_inject,
    .describe = corrupt_describe,
};
