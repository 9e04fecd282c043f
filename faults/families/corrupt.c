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
 * replica = NAME (a lab that keeps replicas): the same, but on that one
 * server's copy of a file or of every file under a directory of the volume
 * (blocks spread over the files at random; the tree's metadata-stream
 * directories are left out, their contents are not data of the run).  The
 * lab says where the copy lives and in which namespaces it is mounted
 * (fault_lab.replica); it is written from there, through the page cache
 * the server reads.  A replica that keeps objects in a store of its own
 * (ceph's OSD) has each block found in the store by its bytes and
 * overwritten there, under the store's own checksums, and is then asked to
 * drop what it cached (lab_replica.reread).  This is bit rot on one
 * replica: the storage has other good copies and must not serve the bad
 * one, so what a client then reads is damage, not explained by the fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/devuse.h"
#include "../../lib/fsutil.h"
#include "../../lib/rng.h"
#include "../fault.h"
#include "../runtime.h"

#define MAX_RANGES 64

enum corrupt_mode { CORRUPT_RANDOM, CORRUPT_ZERO, CORRUPT_BITFLIP };

struct corrupt_params {
    char path[1024];
    char replica[16];
    uint64_t offset, length, blocks;
    int mode; /* enum corrupt_mode */
    uint64_t seed;
    bool seed_given;
};
_Static_assert(sizeof(struct corrupt_params) <= FAULT_PARAMS_MAX, "corrupt params");

static const struct key_def corrupt_keys[] = {
    {"path", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct corrupt_params, path), 0, 0,
     "corrupt: file or device (default: the scenario's target; for the iscsi lab its LUN)", 0},
    {"replica", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct corrupt_params, replica), 0, 0,
     "corrupt: a server of a lab that keeps replicas (gluster: gs1..gs3, its brick; ceph: "
     "cs1..cs3, its OSD's store): overwrite that server's copy of path (a file or directory "
     "of the volume; default: the tree of the target), the bit-rot case; the clients' view "
     "is not touched. scrub: the server whose copy the lab checks against the others", 0},
    {"offset", KEY_SIZE, "0", NULL, FAULT_PARAM(struct corrupt_params, offset), 0, 0,
     "corrupt: first byte. disk-errors: first byte of the bad range", 0},
    {"length", KEY_SIZE, NULL, NULL, FAULT_PARAM(struct corrupt_params, length), 1, 0,
     "corrupt: bytes from offset. disk-errors: bytes of the bad range from offset", 0},
    {"blocks", KEY_COUNT, NULL, NULL, FAULT_PARAM(struct corrupt_params, blocks), 1, MAX_RANGES,
     "corrupt: this many random blocks (of the workload's block size) instead. disk-errors: "
     "this many random 4 KiB blocks of the disk are bad, drawn from the run's seed (neither "
     "blocks nor offset: every I/O fails)", 0},
    {"mode", KEY_CHOICE, "random", "random|zero|bitflip", FAULT_PARAM(struct corrupt_params, mode),
     0, 0, "corrupt: random bytes, zeroes, or one bit flipped in every byte", 0},
    {"seed", KEY_COUNT, NULL, NULL, FAULT_PARAM(struct corrupt_params, seed), 0, 0,
     "corrupt: which blocks and bytes (default: random, in the report)",
     FAULT_PARAM_GIVEN(struct corrupt_params, seed_given)},
};

/* f->state: what will be (and was) overwritten. */
struct corrupt_fault {
    char path[PATH_MAX];  /* the file or device; with replica, relative to the volume */
    uint64_t ranges[MAX_RANGES][2]; /* byte offset and length of each range */
    unsigned nranges;
    char *files;          /* replica: the file of each range, NUL-separated */
    uint64_t seed;        /* the bytes written follow from it */
    bool on_target;       /* the ranges are of the scenario's own target */
    unsigned store_places; /* replica with a store: the places overwritten in it */
};

static const struct corrupt_params *params(const struct fault *f)
{
    return FAULT_PARAMS(&f->spec, const struct corrupt_params);
}

static uint32_t block_size(const struct fault *f)
{
    return f->env->block_size ? f->env->block_size : 4096;
}

static int corrupt_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                         size_t errlen)
{
    const struct corrupt_params *p = FAULT_PARAMS(s, const struct corrupt_params);
    if (!r->allow_destructive)
        snprintf(err, errlen, "refusing [fault %s] (corrupt): it needs [scenario] "
                 "allow_destructive = yes", s->name);
    else if (!p->length && !p->blocks)
        snprintf(err, errlen, "[fault %s] corrupt needs offset and length, or blocks", s->name);
    else if (p->length && p->blocks)
        snprintf(err, errlen, "[fault %s] corrupt takes length or blocks, not both", s->name);
    else
        return 0;
    return -1;
}

/* Instant: the bytes are changed once. */
static void corrupt_schedule(const struct fault_spec *s, struct fault_schedule *out)
{
    (void)s;
    *out = (struct fault_schedule){.shape = FAULT_INSTANT};
}

/* The path is the scenario's target or one of allow_paths. */
static bool allowed(const struct fault *f, const char *path)
{
    if (same_file(path, f->env->target_path))
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
    return params(f)->seed_given ? params(f)->seed
                                 : (uint64_t)getpid() ^ (uint64_t)f->index << 40 ^
                                       (uint64_t)time(NULL);
}

/* replica: the path inside the volume (relative to its root), checked. */
static int replica_prepare(struct fault *f, struct corrupt_fault *s, char *err, size_t errlen)
{
    const struct corrupt_params *p = params(f);
    const struct fault_lab *lab = f->env->lab;
    struct lab_replica r;
    if (!lab || !lab->replica) {
        snprintf(err, errlen, "replica = %s: only on the %s lab ([scenario] lab = %s)",
                 p->replica, f->env->replica_labs, f->env->replica_labs);
        return -1;
    }
    char why[512];
    if (lab->replica(lab->ctx, p->replica, &r, why, sizeof why) != 0) {
        snprintf(err, errlen, "replica = %s: %s", p->replica, why);
        return -1;
    }
    size_t m = strlen(r.mount);
    const char *rel = p->path[0] ? p->path : f->env->target_path ? f->env->target_path : "";
    if (strncmp(rel, r.mount, m) == 0 && (rel[m] == '/' || !rel[m]))
        rel += m;
    while (*rel == '/')
        rel++;
    snprintf(s->path, sizeof s->path, "%s", rel); /* "" is the whole volume */
    char full[2 * PATH_MAX + 2];
    snprintf(full, sizeof full, "%s/%s", r.mount, s->path);
    struct stat st;
    if (stat(full, &st) != 0) {
        snprintf(err, errlen, "corrupt: %s is not in the volume: %s", full, strerror(errno));
        return -1;
    }
    s->seed = seed_of(f);
    return 0;
}

/* A local file or device that may be overwritten: its size (the tested
 * region of the target).  0, or -1 with err naming the rule. */
static int local_size(const struct fault *f, const char *path, uint64_t *size, char *err,
                      size_t errlen)
{
    const char *name = f->spec.name;
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
        return -1;
    }
    if (!allowed(f, path)) {
        snprintf(err, errlen, "refusing fault '%s' (corrupt): %s is neither the scenario's "
                 "target nor listed in [scenario] allow_paths", name, path);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    if (S_ISBLK(st.st_mode)) {
        char why[2300];
        int busy = blockdev_in_use(st.st_rdev, why, sizeof why);
        if (busy != 0) {
            snprintf(err, errlen, "refusing fault '%s' (corrupt): %s: %s; a mounted block "
                     "device is always refused", name, path, busy > 0 ? why : "unknown use");
            return -1;
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ioctl(fd, BLKGETSIZE64, size) != 0) {
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
    if (same_file(path, f->env->target_path) && f->env->target_bytes)
        *size = f->env->target_bytes; /* the tested region only */
    return 0;
}

/* The ranges of a local path of `size` bytes: distinct random blocks, or
 * the one range offset..offset+length. */
static int pick_ranges(const struct fault *f, struct corrupt_fault *s, uint64_t size, char *err,
                       size_t errlen)
{
    const struct corrupt_params *p = params(f);
    uint64_t seed = s->seed;
    s->nranges = 0;
    if (p->blocks) {
        uint32_t bs = block_size(f);
        uint64_t nb = size / bs;
        if (p->blocks > MAX_RANGES || p->blocks > nb) {
            snprintf(err, errlen, "blocks = %llu: at most %d, and %s has %llu blocks of %u",
                     (unsigned long long)p->blocks, MAX_RANGES, s->path, (unsigned long long)nb,
                     bs);
            return -1;
        }
        while (s->nranges < p->blocks) {
            uint64_t b = rng_split(&seed) % nb, k;
            for (k = 0; k < s->nranges && s->ranges[k][0] != b * bs; k++)
                ;
            if (k < s->nranges)
                continue; /* distinct blocks */
            s->ranges[s->nranges][0] = b * bs;
            s->ranges[s->nranges++][1] = bs;
        }
        return 0;
    }
    if (!p->length) {
        snprintf(err, errlen, "corrupt needs offset and length, or blocks = N");
        return -1;
    }
    if (p->offset + p->length > size) {
        snprintf(err, errlen, "offset %llu + length %llu is beyond the end of %s (%llu bytes)",
                 (unsigned long long)p->offset, (unsigned long long)p->length, s->path,
                 (unsigned long long)size);
        return -1;
    }
    s->ranges[0][0] = p->offset;
    s->ranges[0][1] = p->length;
    s->nranges = 1;
    return 0;
}

static int corrupt_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct corrupt_params *p = params(f);
    if (!f->env->allow_destructive) {
        snprintf(err, errlen, "refusing fault '%s' (corrupt): it needs [scenario] "
                 "allow_destructive = yes", f->spec.name);
        return -1;
    }
    struct corrupt_fault *s = fault_state(f, sizeof *s, err, errlen);
    if (!s)
        return -1;
    if (p->replica[0]) {
        if (!p->blocks && !p->length) {
            snprintf(err, errlen, "corrupt needs offset and length, or blocks = N");
            return -1;
        }
        return replica_prepare(f, s, err, errlen);
    }
    const char *path = p->path[0] ? p->path : f->env->target_path;
    if (!path || !*path) {
        snprintf(err, errlen, "corrupt needs path (the scenario's target is not a file)");
        return -1;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    uint64_t size;
    if (local_size(f, path, &size, err, errlen) != 0)
        return -1;
    s->seed = seed_of(f);
    s->on_target = same_file(path, f->env->target_path);
    return pick_ranges(f, s, size, err, errlen);
}

/* Changes bytes off..off+len of fd as the mode says. */
static int change(int mode, int fd, const char *path, uint64_t off, uint64_t len, uint64_t *seed,
                  unsigned bit, char *err, size_t errlen)
{
    unsigned char buf[65536];
    for (uint64_t done = 0; done < len;) {
        size_t n = len - done < sizeof buf ? (size_t)(len - done) : sizeof buf;
        ssize_t got = pread(fd, buf, n, (off_t)(off + done));
        if (got != (ssize_t)n) {
            snprintf(err, errlen, "cannot read %s at %llu: %s", path,
                     (unsigned long long)(off + done), got < 0 ? strerror(errno) : "short");
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            switch (mode) {
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
            return -1;
        }
        done += n;
    }
    return 0;
}

/* Overwrites one range of one file and syncs it. */
static int change_file(int mode, const char *path, const uint64_t range[2], uint64_t *seed,
                       unsigned bit, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %.400s: %s", path, strerror(errno));
        return -1;
    }
    int rc = change(mode, fd, path, range[0], range[1], seed, bit, err, errlen);
    if (rc == 0 && fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot sync %.400s: %s", path, strerror(errno));
        rc = -1;
    }
    close(fd);
    return rc;
}

static int local_inject(struct fault *f, char *err, size_t errlen)
{
    struct corrupt_fault *s = f->state;
    uint64_t seed = s->seed;
    unsigned bit = (unsigned)(rng_split(&seed) % 8);
    for (unsigned r = 0; r < s->nranges; r++)
        if (change_file(params(f)->mode, s->path, s->ranges[r], &seed, bit, err, errlen) != 0)
            return -1;
    return 0;
}

/* --- replica: one server's copy --- */

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

/* Picks the ranges (and their files) in the volume as the client sees it
 * under mount. */
static int replica_pick(struct fault *f, const char *mount, uint64_t *seed, char *err,
                        size_t errlen)
{
    struct corrupt_fault *s = f->state;
    const struct corrupt_params *p = params(f);
    struct walk w = {.skip = strlen(mount) + 1, .bs = block_size(f)};
    char root[2 * PATH_MAX + 2];
    snprintf(root, sizeof root, "%s%s%s", mount, s->path[0] ? "/" : "", s->path);
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
    s->nranges = 0;
    size_t used = 0, cap = MAX_RANGES * 256;
    free(s->files);
    s->files = calloc(1, cap);
    unsigned which[MAX_RANGES];
    for (unsigned tries = 0; s->files && s->nranges < (p->blocks ? p->blocks : 1) &&
                             tries < 100000; tries++) {
        unsigned fi = (unsigned)(rng_split(seed) % w.n);
        uint64_t off = p->offset, len = p->length;
        if (p->blocks) {
            off = rng_split(seed) % (w.size[fi] / w.bs) * w.bs;
            len = w.bs;
        } else if (w.n > 1 || off + len > w.size[fi]) {
            snprintf(err, errlen, "corrupt: offset and length need one file big enough; %s %s",
                     root, w.n > 1 ? "is a directory (use blocks = N)" : "is too short");
            rc = -1;
            break;
        }
        unsigned k;
        for (k = 0; k < s->nranges && !(which[k] == fi && s->ranges[k][0] == off); k++)
            ;
        if (k < s->nranges)
            continue; /* distinct blocks */
        size_t l = strlen(w.rel[fi]) + 1;
        if (used + l > cap)
            break;
        memcpy(s->files + used, w.rel[fi], l);
        used += l;
        which[s->nranges] = fi;
        s->ranges[s->nranges][0] = off;
        s->ranges[s->nranges++][1] = len;
    }
    free(w.rel);
    free(w.size);
    if (!s->files) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return rc;
}

/* What the child that writes the replica's copy needs. */
struct replica_write {
    const struct fault *f;
    const char *copy;
    uint64_t seed;
    unsigned bit;
};

/* In the child, inside the namespaces where the copy is mounted. */
static int write_copy(void *ctx, char *err, size_t errlen)
{
    struct replica_write *w = ctx;
    const struct corrupt_fault *s = w->f->state;
    const char *rel = s->files;
    for (unsigned r = 0; r < s->nranges; r++, rel += strlen(rel) + 1) {
        char path[2 * PATH_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", w->copy, rel);
        if (change_file(params(w->f)->mode, path, s->ranges[r], &w->seed, w->bit, err, errlen) !=
            0)
            return -1;
    }
    return 0;
}

/* --- replica with a store (ceph's OSD): each block found by its bytes --- */

#define STORE_CHUNK (4u << 20) /* read at a time; a multiple of any allocation unit */
#define STORE_MATCHES 4        /* places of one piece overwritten at most */
#define STORE_TRIES 10         /* a block just written may not be in place yet */

/* One piece of a range: its part within one allocation unit of the file,
 * which the store keeps in one place.  bytes: what the client reads there
 * now, so what the store holds, at an offset equal to file_off modulo the
 * unit.  A block names itself (file, offset, generation, run), so the
 * bytes are found where the store keeps the block now, and at most in a
 * freed place that held the same generation; both are overwritten. */
struct piece {
    const char *file; /* relative to the volume */
    uint64_t file_off;
    uint32_t len;
    unsigned char *bytes;
    uint64_t at[STORE_MATCHES];
    unsigned found;
};

/* What the child that scans and writes the store needs; it shares our
 * memory (proc_call_at_shared) and allocates nothing. */
struct store_write {
    const char *store;
    uint32_t align;
    int mode;
    struct piece *pieces;
    size_t npieces;
    unsigned char *chunk; /* STORE_CHUNK bytes */
    uint64_t seed;
    unsigned bit;
    bool missing;         /* some piece was not found: nothing was written */
};

/* Every piece's places in the chunk read from store offset base. */
static void match_chunk(struct store_write *w, uint64_t base, size_t got)
{
    for (size_t u = 0; u < got; u += w->align)
        for (size_t k = 0; k < w->npieces; k++) {
            struct piece *p = &w->pieces[k];
            size_t o = u + (size_t)(p->file_off % w->align);
            if (p->found < STORE_MATCHES && o + p->len <= got && w->chunk[o] == p->bytes[0] &&
                memcmp(w->chunk + o, p->bytes, p->len) == 0)
                p->at[p->found++] = base + o;
        }
}

/* In the child, where the store is mounted: finds every piece in the
 * store's data (its holes skipped); writes only when each was found. */
static int write_store(void *ctx, char *err, size_t errlen)
{
    struct store_write *w = ctx;
    int fd = open(w->store, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open the store %.400s: %s", w->store, strerror(errno));
        return -1;
    }
    for (size_t k = 0; k < w->npieces; k++)
        w->pieces[k].found = 0;
    off_t pos = 0;
    for (;;) {
        off_t data = lseek(fd, pos, SEEK_DATA);
        if (data < 0)
            break; /* ENXIO: no data after pos */
        off_t hole = lseek(fd, data, SEEK_HOLE);
        if (hole < 0)
            hole = data + STORE_CHUNK;
        data -= data % (off_t)w->align;
        for (pos = data; pos < hole;) {
            ssize_t got = pread(fd, w->chunk, STORE_CHUNK, pos);
            if (got < 0) {
                snprintf(err, errlen, "cannot read the store %.400s at %lld: %s", w->store,
                         (long long)pos, strerror(errno));
                close(fd);
                return -1;
            }
            if (got == 0)
                break;
            match_chunk(w, (uint64_t)pos, (size_t)got);
            pos += got;
        }
    }
    w->missing = false;
    for (size_t k = 0; k < w->npieces; k++)
        w->missing |= !w->pieces[k].found;
    int rc = 0;
    for (size_t k = 0; !w->missing && rc == 0 && k < w->npieces; k++)
        for (unsigned m = 0; rc == 0 && m < w->pieces[k].found; m++)
            rc = change(w->mode, fd, w->store, w->pieces[k].at[m], w->pieces[k].len, &w->seed,
                        w->bit, err, errlen);
    if (rc == 0 && !w->missing && fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot sync the store %.400s: %s", w->store, strerror(errno));
        rc = -1;
    }
    close(fd);
    return rc;
}

/* The pieces of every range, with the bytes the client reads there. */
static int read_pieces(const struct corrupt_fault *s, const char *mount, uint32_t align,
                       struct piece *pieces, size_t max, size_t *n, char *err, size_t errlen)
{
    const char *rel = s->files;
    *n = 0;
    for (unsigned r = 0; r < s->nranges; r++, rel += strlen(rel) + 1) {
        char path[2 * PATH_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", mount, rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            snprintf(err, errlen, "cannot open %.400s: %s", path, strerror(errno));
            return -1;
        }
        uint64_t off = s->ranges[r][0], end = off + s->ranges[r][1];
        while (off < end && *n < max) {
            uint64_t unit_end = off - off % align + align;
            struct piece *p = &pieces[(*n)++];
            *p = (struct piece){.file = rel, .file_off = off,
                                .len = (uint32_t)((unit_end < end ? unit_end : end) - off)};
            p->bytes = malloc(p->len);
            ssize_t got = p->bytes ? pread(fd, p->bytes, p->len, (off_t)off) : -1;
            if (got != (ssize_t)p->len) {
                snprintf(err, errlen, "cannot read %.400s at %llu: %s", path,
                         (unsigned long long)off, !p->bytes ? "out of memory" : got < 0 ?
                         strerror(errno) : "short (the file is shorter now)");
                close(fd);
                return -1;
            }
            off += p->len;
        }
        close(fd);
        if (off < end) {
            snprintf(err, errlen, "corrupt: more than %zu pieces of the store to change", max);
            return -1;
        }
    }
    return 0;
}

/* Finds the ranges' bytes in the replica's store and overwrites them
 * there, then has its server drop what it cached of them. */
static int store_inject(struct fault *f, const struct lab_replica *r, uint64_t seed,
                        unsigned bit, char *err, size_t errlen)
{
    struct corrupt_fault *s = f->state;
    const char *name = params(f)->replica;
    uint32_t align = r->align ? r->align : 4096;
    if (STORE_CHUNK % align) {
        snprintf(err, errlen, "corrupt on %s: its store's unit of %u bytes does not divide %u",
                 name, align, STORE_CHUNK);
        return -1;
    }
    size_t max = MAX_RANGES * 16, n = 0;
    struct piece *pieces = calloc(max, sizeof *pieces);
    struct store_write w = {.store = r->store, .align = align, .mode = params(f)->mode,
                            .pieces = pieces, .chunk = malloc(STORE_CHUNK), .seed = seed,
                            .bit = bit};
    int rc = -1;
    char why[1024];
    if (!pieces || !w.chunk)
        snprintf(err, errlen, "out of memory");
    else if (read_pieces(s, r->mount, align, pieces, max, &n, err, errlen) == 0) {
        w.npieces = n;
        for (unsigned t = 0; t < STORE_TRIES; t++) {
            if (t)
                nanosleep(&(struct timespec){.tv_nsec = 300000000}, NULL);
            rc = proc_call_at_shared(&r->at, write_store, &w, why, sizeof why);
            if (rc != 0 || !w.missing)
                break;
        }
        if (rc != 0)
            snprintf(err, errlen, "corrupt on %s: %s", name, why);
        else if (w.missing) {
            size_t k = 0;
            while (pieces[k].found)
                k++;
            snprintf(err, errlen, "corrupt on %s: the bytes of %.300s at %llu are not in its "
                     "store %.300s (not written there yet?); nothing was changed", name,
                     pieces[k].file, (unsigned long long)pieces[k].file_off, r->store);
            rc = -1;
        }
    }
    s->store_places = 0;
    for (size_t k = 0; rc == 0 && k < n; k++)
        s->store_places += pieces[k].found;
    for (size_t k = 0; k < n; k++)
        free(pieces[k].bytes);
    free(pieces);
    free(w.chunk);
    if (rc == 0 && r->reread[0]) {
        char *argv[] = {"/bin/sh", "-c", (char *)r->reread, NULL};
        char out[1024];
        int st = proc_run_at(&r->at, argv, out, sizeof out, 30000);
        if (st != 0) {
            snprintf(err, errlen, "corrupt on %s: its store was changed, but `%s` failed (%d): "
                     "%.400s", name, r->reread, st, out);
            rc = -1;
        }
    }
    return rc;
}

static int replica_inject(struct fault *f, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    struct corrupt_fault *s = f->state;
    struct lab_replica r;
    if (lab->replica(lab->ctx, params(f)->replica, &r, err, errlen) != 0)
        return -1;
    struct replica_write w = {.f = f, .copy = r.copy, .seed = s->seed};
    w.bit = (unsigned)(rng_split(&w.seed) % 8);
    if (replica_pick(f, r.mount, &w.seed, err, errlen) != 0)
        return -1;
    if (!r.copy[0])
        return store_inject(f, &r, w.seed, w.bit, err, errlen);
    char why[1024];
    if (proc_call_at(&r.at, write_copy, &w, why, sizeof why) != 0) {
        snprintf(err, errlen, "corrupt on %s: %s", params(f)->replica, why);
        return -1;
    }
    return 0;
}

static int corrupt_inject(struct fault *f, char *err, size_t errlen)
{
    return params(f)->replica[0] ? replica_inject(f, err, errlen) : local_inject(f, err, errlen);
}

static void corrupt_describe(const struct fault *f, char *out, size_t n)
{
    static const char *const modes[] = {"random bytes", "zeroes", "flipped bits"};
    const struct corrupt_fault *s = f->state;
    const struct corrupt_params *p = params(f);
    if (!s) {
        snprintf(out, n, "%s", modes[p->mode]);
        return;
    }
    size_t used;
    if (p->replica[0]) {
        char places[64] = "";
        if (s->store_places)
            snprintf(places, sizeof places, " (%u places of its store)", s->store_places);
        used = (size_t)snprintf(out, n, "%s written over %u ranges of %s's copy of the "
                                "volume%s%s%s:", modes[p->mode], s->nranges, p->replica,
                                s->path[0] ? ", under " : "", s->path, places);
        const char *rel = s->files;
        for (unsigned i = 0; rel && i < s->nranges && used < n; i++, rel += strlen(rel) + 1)
            used += (size_t)snprintf(out + used, n - used, " %s@%llu", rel,
                                     (unsigned long long)s->ranges[i][0]);
        return;
    }
    if (p->blocks) {
        uint32_t bs = block_size(f);
        used = (size_t)snprintf(out, n, "%s written over %u blocks of %u bytes of %s:",
                                modes[p->mode], s->nranges, bs, s->path);
        for (unsigned i = 0; i < s->nranges && used < n; i++)
            used += (size_t)snprintf(out + used, n - used, " %llu",
                                     (unsigned long long)(s->ranges[i][0] / bs));
    } else {
        snprintf(out, n, "%s written over bytes %llu..%llu of %s", modes[p->mode],
                 (unsigned long long)s->ranges[0][0],
                 (unsigned long long)(s->ranges[0][0] + s->ranges[0][1] - 1), s->path);
    }
}

static unsigned corrupt_overwrote(const struct fault *f, const uint64_t (**ranges)[2],
                                  bool *on_target)
{
    const struct corrupt_fault *s = f->state;
    if (!s)
        return 0;
    *ranges = s->ranges;
    *on_target = s->on_target;
    return s->nranges;
}

static void corrupt_release(struct fault *f)
{
    struct corrupt_fault *s = f->state;
    free(s->files);
    s->files = NULL;
}

const struct fault_ops fault_corrupt = {
    .action = "corrupt",
    .keys = corrupt_keys,
    .nkeys = sizeof corrupt_keys / sizeof corrupt_keys[0],
    .check = corrupt_check,
    .schedule = corrupt_schedule,
    .prepare = corrupt_prepare,
    .inject = corrupt_inject,
    .describe = corrupt_describe,
    .overwrote = corrupt_overwrote,
    .release = corrupt_release,
};
