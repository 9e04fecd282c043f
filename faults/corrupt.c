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
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../workloads/devuse.h"
#include "fault.h"

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

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

static int corrupt_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct fault_spec *s = &f->spec;
    if (!f->env->allow_destructive) {
        snprintf(err, errlen, "refusing fault '%s' (corrupt): it needs [scenario] "
                 "allow_destructive = yes", s->name);
        return -1;
    }
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
    uint64_t seed = s->seed_given ? s->seed : (uint64_t)getpid() ^ (uint64_t)f->index << 40 ^
                                                  (uint64_t)time(NULL);
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
            uint64_t b = mix(&seed) % nb, k;
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

static int corrupt_inject(struct fault *f, char *err, size_t errlen)
{
    int fd = open(f->path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", f->path, strerror(errno));
        return -1;
    }
    uint64_t seed = f->starts[0];
    unsigned bit = (unsigned)(mix(&seed) % 8);
    int rc = 0;
    for (unsigned r = 0; r < f->nranges && rc == 0; r++) {
        uint64_t off = f->ranges[r][0], len = f->ranges[r][1];
        unsigned char buf[65536];
        for (uint64_t done = 0; done < len && rc == 0;) {
            size_t n = len - done < sizeof buf ? (size_t)(len - done) : sizeof buf;
            ssize_t got = pread(fd, buf, n, (off_t)(off + done));
            if (got != (ssize_t)n) {
                snprintf(err, errlen, "cannot read %s at %llu: %s", f->path,
                         (unsigned long long)(off + done), got < 0 ? strerror(errno) : "short");
                rc = -1;
                break;
            }
            for (size_t i = 0; i < n; i++) {
                switch (f->spec.mode_choice) {
                case CORRUPT_RANDOM: {
                    unsigned char v = (unsigned char)mix(&seed);
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
                snprintf(err, errlen, "cannot write %s at %llu: %s", f->path,
                         (unsigned long long)(off + done), strerror(errno));
                rc = -1;
            }
            done += n;
        }
    }
    if (rc == 0 && fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot sync %s: %s", f->path, strerror(errno));
        rc = -1;
    }
    close(fd);
    return rc;
}

static void corrupt_describe(const struct fault *f, char *out, size_t n)
{
    static const char *const modes[] = {"random bytes", "zeroes", "flipped bits"};
    size_t used;
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
