/* tree — layout, creation and namespace check of a file tree; see tree.h. */
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/fsutil.h"
#include "../lib/rng.h"

const char *const tree_classes = "large|medium|small|tree|mixed";

int tree_class_of(const char *s)
{
    static const char *const names[] = {"large", "medium", "small", "tree", "mixed"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* Adds directory parent/NAME (NAME from fmt); its index, or -1. */
__attribute__((format(printf, 3, 4))) static int add_dir(struct tree *t, int parent,
                                                         const char *fmt, ...)
{
    if (t->ndirs == t->dirs_cap) {
        size_t cap = t->dirs_cap ? t->dirs_cap * 2 : 64;
        char **d = realloc(t->dirs, cap * sizeof *d);
        if (!d)
            return -1;
        t->dirs = d;
        t->dirs_cap = cap;
    }
    char name[64], buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    if (parent <= 0)
        snprintf(buf, sizeof buf, "%s", name);
    else
        snprintf(buf, sizeof buf, "%s/%s", t->dirs[parent], name);
    if (!(t->dirs[t->ndirs] = strdup(buf)))
        return -1;
    return (int)t->ndirs++;
}

static int add_file(struct tree *t, uint32_t dir, uint32_t name, uint64_t bytes)
{
    if (t->nfiles == t->files_cap) {
        size_t cap = t->files_cap ? t->files_cap * 2 : 256;
        struct tree_file *f = realloc(t->files, cap * sizeof *f);
        if (!f)
            return -1;
        t->files = f;
        t->files_cap = cap;
    }
    uint64_t blocks = bytes / t->block_size;
    if (blocks == 0)
        blocks = 1;
    t->files[t->nfiles++] =
        (struct tree_file){.dir = dir, .name = name, .first_block = t->blocks, .blocks = blocks};
    t->blocks += blocks;
    return 0;
}

/* The parent of a class's directories: "." alone, or the class's own
 * subdirectory in a mixed tree. */
static int class_top(struct tree *t, const char *sub)
{
    return sub[0] ? add_dir(t, 0, "%s", sub) : 0;
}

static int lay_large(struct tree *t, uint64_t budget, const char *sub)
{
    int top = class_top(t, sub);
    if (top < 0)
        return -1;
    uint64_t each = budget / 4 >= t->block_size ? budget / 4 : t->block_size;
    for (uint32_t i = 0; i < 4 && (i == 0 || each * (i + 1) <= budget); i++)
        if (add_file(t, (uint32_t)top, i, each) != 0)
            return -1;
    return 0;
}

static int lay_medium(struct tree *t, uint64_t budget, const char *sub)
{
    const uint64_t size = 10ull << 20;
    uint64_t n = budget / size;
    int top = class_top(t, sub);
    if (top < 0)
        return -1;
    if (n == 0) /* below one 10 MiB file: one file of the budget */
        return add_file(t, (uint32_t)top, 0, budget);
    int first = -1;
    for (unsigned d = 0; d < 10; d++) {
        int k = add_dir(t, top, "m%02u", d);
        if (k < 0)
            return -1;
        if (first < 0)
            first = k;
    }
    for (uint64_t i = 0; i < n; i++)
        if (add_file(t, (uint32_t)(first + (int)(i % 10)), (uint32_t)(i / 10), size) != 0)
            return -1;
    return 0;
}

static int lay_small(struct tree *t, uint64_t budget, const char *sub)
{
    uint64_t size = 3072 >= t->block_size ? 3072 / t->block_size * t->block_size : t->block_size;
    uint64_t n = budget / size ? budget / size : 1;
    const unsigned per_dir = 100, per_parent = 16;
    int top = class_top(t, sub);
    if (top < 0)
        return -1;
    int parent = -1, dir = -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t g = i / per_dir;
        if (i % per_dir == 0) {
            if (g % per_parent == 0) {
                parent = add_dir(t, top, "s%03u", (unsigned)(g / per_parent));
                if (parent < 0)
                    return -1;
            }
            dir = add_dir(t, parent, "%02u", (unsigned)(g % per_parent));
            if (dir < 0)
                return -1;
        }
        if (add_file(t, (uint32_t)dir, (uint32_t)(i % per_dir), size) != 0)
            return -1;
    }
    return 0;
}

static unsigned slashes(const char *s)
{
    unsigned n = 0;
    for (; *s; s++)
        n += *s == '/';
    return n;
}

/* A source tree: breadth first, each directory gets 4..24 files (most a few
 * KiB, some up to 1 MiB) and, above depth 4, 2..5 subdirectories, until the
 * budget is spent. */
static int lay_tree(struct tree *t, uint64_t budget, const char *sub)
{
    struct rng rng; /* a fixed seed: the same tree for the same budget, everywhere */
    rng_seed(&rng, 0x5eed0f7ee5ull);
    uint64_t used = 0;
    int top = class_top(t, sub);
    if (top < 0)
        return -1;
    unsigned base = sub[0] ? 1 : 0, tops = 0;
    size_t head = t->ndirs;
    while (used < budget) {
        if (head >= t->ndirs) { /* every directory is full (or none yet): another top */
            if (add_dir(t, top, "src%u", tops) < 0)
                return -1;
            tops++;
        }
        size_t d = head++;
        unsigned depth = slashes(t->dirs[d]) - base;
        unsigned nfiles = 4 + (unsigned)rng_below(&rng, 21);
        for (unsigned i = 0; i < nfiles && used < budget; i++) {
            uint64_t r = rng_below(&rng, 100);
            uint64_t max = r < 70 ? 8192 : r < 95 ? 65536 : 1u << 20;
            uint64_t bytes = (t->block_size + rng_below(&rng, max)) / t->block_size * t->block_size;
            if (bytes > budget - used)
                bytes = (budget - used) / t->block_size * t->block_size;
            if (bytes == 0)
                bytes = t->block_size;
            if (add_file(t, (uint32_t)d, i, bytes) != 0)
                return -1;
            used += bytes;
        }
        if (depth >= 4)
            continue;
        unsigned nsub = 2 + (unsigned)rng_below(&rng, 4);
        for (unsigned i = 0; i < nsub; i++)
            if (add_dir(t, (int)d, "d%u", i) < 0)
                return -1;
    }
    return 0;
}

int tree_layout(struct tree *t, enum tree_class cls, uint64_t budget, uint32_t block_size,
                const char *root, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    snprintf(t->root, sizeof t->root, "%s", root);
    t->block_size = block_size;
    if (budget < block_size)
        budget = block_size;
    int rc = add_dir(t, 0, ".") < 0 ? -1 : 0;
    switch (cls) {
    case TREE_LARGE:
        rc = rc ? rc : lay_large(t, budget, "");
        break;
    case TREE_MEDIUM:
        rc = rc ? rc : lay_medium(t, budget, "");
        break;
    case TREE_SMALL:
        rc = rc ? rc : lay_small(t, budget, "");
        break;
    case TREE_TREE:
        rc = rc ? rc : lay_tree(t, budget, "");
        break;
    case TREE_MIXED:
        rc = rc ? rc : lay_large(t, budget / 3, "large");
        rc = rc ? rc : lay_medium(t, budget / 3, "medium");
        rc = rc ? rc : lay_small(t, budget / 3, "small");
        break;
    }
    if (rc != 0) {
        snprintf(err, errlen, "out of memory laying out the file tree");
        tree_free(t);
        return -1;
    }
    tree_set_workers(t, 1);
    t->uniform = t->nfiles ? t->files[0].blocks : 0;
    for (size_t i = 1; i < t->nfiles && t->uniform; i++)
        if (t->files[i].blocks != t->uniform)
            t->uniform = 0;
    return 0;
}

void tree_set_workers(struct tree *t, unsigned workers)
{
    t->workers = workers ? workers : 1;
    t->per_worker = t->blocks / t->workers;
    t->more = t->blocks % t->workers;
}

void tree_free(struct tree *t)
{
    for (size_t i = 0; i < t->ndirs; i++)
        free(t->dirs[i]);
    free(t->dirs);
    free(t->files);
    memset(t, 0, sizeof *t);
}

/* Where block b sits in the files' order: worker w's blocks (b % workers
 * == w) one after another, after those of the workers before it.  Worker w
 * has q + 1 blocks when w < r, else q (q, r: blocks / workers, and the
 * rest), so the places are a permutation of 0..blocks-1. */
static uint64_t place_of(const struct tree *t, uint64_t b)
{
    uint64_t n = t->workers, w = b % n, q = t->per_worker, r = t->more;
    return w * q + (w < r ? w : r) + b / n;
}

const struct tree_file *tree_file_of(const struct tree *t, uint64_t b, uint64_t *index)
{
    if (b >= t->blocks || !t->nfiles)
        return NULL;
    uint64_t p = t->workers > 1 ? place_of(t, b) : b;
    size_t lo;
    if (t->uniform) {
        lo = (size_t)(p / t->uniform); /* every file alike: no search */
    } else {
        lo = 0;
        size_t hi = t->nfiles - 1;
        while (lo < hi) {
            size_t mid = (lo + hi + 1) / 2;
            if (t->files[mid].first_block <= p)
                lo = mid;
            else
                hi = mid - 1;
        }
    }
    if (index)
        *index = p - t->files[lo].first_block;
    return &t->files[lo];
}

int tree_marker_workers(const char *root, unsigned *workers, char *err, size_t errlen)
{
    char path[4200], buf[64] = "";
    snprintf(path, sizeof path, "%s/%s", root, TREE_MARKER);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s; is the filesystem mounted?", path, strerror(errno));
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int e = errno;
    close(fd);
    if (n < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
        return -1;
    }
    buf[n] = 0;
    unsigned w = 1;
    if (n > 0 && (sscanf(buf, "workers %u", &w) != 1 || w < 1)) {
        snprintf(err, errlen, "%s: '%.40s' is not a layout this build knows", path, buf);
        return -1;
    }
    *workers = w; /* empty: a tree from before the layout by worker */
    return 0;
}

void tree_relpath(const struct tree *t, const struct tree_file *f, char *out, size_t n)
{
    const char *d = t->dirs[f->dir];
    if (strcmp(d, ".") == 0)
        snprintf(out, n, "f-%05u", f->name);
    else
        snprintf(out, n, "%s/f-%05u", d, f->name);
}

void tree_path(const struct tree *t, const struct tree_file *f, char *out, size_t n)
{
    char rel[600];
    tree_relpath(t, f, rel, sizeof rel);
    snprintf(out, n, "%s/%s", t->root, rel);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level == 0)
        return 0; /* the root stays */
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int tree_empty(const char *root, char *err, size_t errlen)
{
    DIR *d = opendir(root);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot open %s: %s", root, strerror(errno));
        return -1;
    }
    bool empty = true;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = false;
    closedir(d);
    if (empty)
        return 0;
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/%s", root, TREE_MARKER);
    if (access(marker, F_OK) != 0) {
        snprintf(err, errlen, "%s is not empty and has no %s: not a tree of faultline, left "
                 "alone (choose another path or name)", root, TREE_MARKER);
        return -1;
    }
    if (nftw(root, remove_one, 32, FTW_DEPTH | FTW_PHYS) != 0) {
        snprintf(err, errlen, "cannot empty the earlier tree %s: %s", root, strerror(errno));
        return -1;
    }
    return 0;
}

static int remove_any(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int tree_remove_stale(const char *root, const char *name, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", root, TREE_MARKER);
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "%s has no %s: not a tree of faultline, %s left alone", root,
                 TREE_MARKER, name);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s", root, name);
    if (nftw(path, remove_any, 32, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove %s, left by an earlier run: %s", path,
                 strerror(errno));
        return -1;
    }
    return 0;
}

/* Empties an earlier tree at root, refusing a directory faultline did not
 * make. */
static int clear_root(const struct tree *t, char *err, size_t errlen)
{
    return tree_empty(t->root, err, errlen);
}

int tree_create(const struct tree *t, tree_progress_fn progress, void *ctx, char *err,
                size_t errlen)
{
    if (mkdir(t->root, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", t->root, strerror(errno));
        return -1;
    }
    if (clear_root(t, err, errlen) != 0)
        return -1;
    char path[4800];
    snprintf(path, sizeof path, "%s/%s", t->root, TREE_MARKER);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    /* how the blocks were laid out, for a verify of this tree */
    char line[32];
    int len = snprintf(line, sizeof line, "workers %u\n", t->workers);
    /* synced, with the root that names it: a verify after a power cut
     * must read the layout the blocks were written in */
    if (write(fd, line, (size_t)len) != len || fsync(fd) != 0 ||
        sync_dir(t->root) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        close(fd);
        return -1;
    }
    close(fd);
    for (size_t i = 1; i < t->ndirs; i++) {
        snprintf(path, sizeof path, "%s/%s", t->root, t->dirs[i]);
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
            return -1;
        }
    }
    for (size_t i = 0; i < t->nfiles; i++) {
        tree_path(t, &t->files[i], path, sizeof path);
        if (sparse_file(path, t->files[i].blocks * t->block_size, 0644, false, err, errlen) != 0)
            return -1;
        if (progress && (i + 1) % 100 == 0)
            progress(ctx, i + 1, t->nfiles);
    }
    if (progress)
        progress(ctx, t->nfiles, t->nfiles);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool skipped(const char *const *skip, const char *rel)
{
    for (size_t i = 0; skip && skip[i]; i++)
        if (strcmp(skip[i], rel) == 0)
            return true;
    return false;
}

long tree_check(const struct tree *t, const char *const *skip, tree_damage_fn fn, void *ctx,
                char *err, size_t errlen)
{
    struct stat st;
    if (stat(t->root, &st) != 0) {
        snprintf(err, errlen, "cannot read the tree %s: %s", t->root, strerror(errno));
        return -1;
    }
    /* Every name the layout holds, sorted, to tell the unexpected ones. */
    size_t n = t->ndirs + t->nfiles + 1;
    char **names = calloc(n, sizeof *names);
    if (!names) {
        snprintf(err, errlen, "out of memory checking the tree");
        return -1;
    }
    size_t k = 0;
    long damage = 0;
    char rel[600], path[4800];
    for (size_t i = 1; i < t->ndirs; i++) {
        names[k++] = strdup(t->dirs[i]);
        snprintf(path, sizeof path, "%s/%s", t->root, t->dirs[i]);
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fn(ctx, TREE_MISSING, t->dirs[i], 0, 0);
            damage++;
        }
    }
    names[k++] = strdup(TREE_MARKER);
    for (size_t i = 0; i < t->nfiles; i++) {
        const struct tree_file *f = &t->files[i];
        tree_relpath(t, f, rel, sizeof rel);
        names[k++] = strdup(rel);
        snprintf(path, sizeof path, "%s/%s", t->root, rel);
        uint64_t want = f->blocks * t->block_size;
        if (stat(path, &st) != 0) {
            fn(ctx, TREE_MISSING, rel, want, 0);
            damage++;
        } else if ((uint64_t)st.st_size != want) {
            fn(ctx, TREE_WRONG_SIZE, rel, want, (uint64_t)st.st_size);
            damage++;
        }
    }
    for (size_t i = 0; i < k; i++)
        if (!names[i]) {
            for (size_t j = 0; j < k; j++)
                free(names[j]);
            free(names);
            snprintf(err, errlen, "out of memory checking the tree");
            return -1;
        }
    qsort(names, k, sizeof *names, by_name);
    for (size_t i = 0; i < t->ndirs; i++) {
        snprintf(path, sizeof path, "%s/%s", t->root, t->dirs[i]);
        DIR *d = opendir(path);
        if (!d)
            continue; /* missing: told above */
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (i == 0)
                snprintf(rel, sizeof rel, "%s", e->d_name);
            else
                snprintf(rel, sizeof rel, "%s/%s", t->dirs[i], e->d_name);
            const char *key = rel;
            if (skipped(skip, rel) || bsearch(&key, names, k, sizeof *names, by_name))
                continue;
            snprintf(path, sizeof path, "%s/%s", t->root, rel);
            uint64_t size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
            fn(ctx, TREE_UNEXPECTED, rel, 0, size);
            damage++;
        }
        closedir(d);
    }
    for (size_t j = 0; j < k; j++)
        free(names[j]);
    free(names);
    return damage;
}
