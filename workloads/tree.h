/*
 * tree — the file tree a `files` target tests: which directories and files,
 * how big, and which blocks of the run live in which file.
 *
 * The classes follow the published comparison of Lustre, GlusterFS and
 * CephFS, scaled to the `size` budget of the target:
 *
 *   large   4 big files in one directory (budget / 4 each)
 *   medium  10 MiB files spread over 10 directories
 *   small   3 KiB files (one block when the block is larger), 100 per
 *           directory, directories two levels deep
 *   tree    a source tree: directories up to 4 deep, 2-5 subdirectories and
 *           up to 24 files each, sizes from one block to 1 MiB, most small
 *   mixed   a third of the budget each for large, medium and small
 *
 * Every file is a whole number of blocks.  The blocks of the run are placed
 * across the files in order (file 0's first), worker by worker: the engine
 * gives block b to worker b % workers, and that worker's blocks take the
 * next run of places, so each file is read and written by one worker (two
 * where their runs meet), as each job of fio has files of its own; threads
 * sharing a file would pass its pages' cache lines between the CPUs on
 * every I/O.  The block number in a sector's stamp names the file and the
 * place in it: data found in the wrong file is `misdirected`.  The layout
 * depends only on class, budget, block size and workers (written into the
 * tree's marker file), so `faultline verify` rebuilds the same one.
 */
#ifndef FL_TREE_H
#define FL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tree_class { TREE_LARGE, TREE_MEDIUM, TREE_SMALL, TREE_TREE, TREE_MIXED };

/* "large|medium|small|tree|mixed" in enum order. */
extern const char *const tree_classes;

struct tree_file {
    uint32_t dir;         /* index into dirs */
    uint32_t name;        /* f-NNNNN inside it */
    uint64_t first_block; /* of the run's numbering */
    uint64_t blocks;
};

struct tree {
    char root[4096];      /* the tree's own directory, under the target path */
    uint32_t block_size;
    char **dirs;          /* relative to root, parents before children; dirs[0] = "." */
    size_t ndirs, dirs_cap;
    struct tree_file *files;
    size_t nfiles, files_cap;
    uint64_t blocks;      /* all files together */
    unsigned workers;     /* whose blocks are placed one worker after another (1: in order) */
    uint64_t per_worker, more; /* blocks / workers, and blocks % workers: the first `more`
                                  workers have one block more */
    uint64_t uniform;     /* blocks of every file when all are alike, else 0 */
};

/* The marker file every tree root carries: only a directory with it is ever
 * emptied by faultline. */
#define TREE_MARKER ".faultline-tree"

/* The class named s, or -1. */
int tree_class_of(const char *s);

/* Lays out class over `budget` bytes with block_size blocks below root.
 * Nothing is touched on disk.  0, or -1 with err. */
int tree_layout(struct tree *t, enum tree_class cls, uint64_t budget, uint32_t block_size,
                const char *root, char *err, size_t errlen);
void tree_free(struct tree *t);

/* Lays the blocks out for `workers` workers (after tree_layout, which
 * gives 1: in order). */
void tree_set_workers(struct tree *t, unsigned workers);

/* The file holding block b, and into *index (may be NULL) the block's place
 * in it, counted in blocks from the file's start; NULL past the end. */
const struct tree_file *tree_file_of(const struct tree *t, uint64_t b, uint64_t *index);

/* The workers a tree at root was laid out for, from its marker file: 1 for
 * an empty marker (a tree of a build before the layout by worker).  0, or
 * -1 with err (no marker: not mounted?; a marker this build cannot read). */
int tree_marker_workers(const char *root, unsigned *workers, char *err, size_t errlen);

/* Path of a file relative to the root (dir/f-NNNNN), and the full one. */
void tree_relpath(const struct tree *t, const struct tree_file *f, char *out, size_t n);
void tree_path(const struct tree *t, const struct tree_file *f, char *out, size_t n);

/* How far a long piece of work is: `done` of `total` files made. */
typedef void (*tree_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Creates the tree on disk: empties an earlier tree at root (only if it
 * carries the marker file; any other non-empty directory is refused), the
 * marker with the tree's workers in it, then
 * every directory, then every file at its size (sparse), telling progress
 * (may be NULL) every 100 files: thousands of files on a parallel
 * filesystem take a minute.  0, or -1 with err naming the path and errno. */
int tree_create(const struct tree *t, tree_progress_fn progress, void *ctx, char *err,
                size_t errlen);

/* Removes everything inside root, a directory that carries the marker file
 * (a tree faultline made); a non-empty one without it is refused, naming
 * it.  A missing root is fine.  0, or -1 with err. */
int tree_empty(const char *root, char *err, size_t errlen);

/* Removes root/name and everything in it, root being a tree faultline made
 * (it carries the marker; refused otherwise).  For what tree_empty could
 * not see: a replicated filesystem whose replica that lists the directory
 * lost an entry in a power cut, which a lookup still finds on the others
 * (GlusterFS, after a brick's power cut: a run's mkdir of a name tree_empty
 * had just emptied the root of then fails with EEXIST).  0, or -1 with err. */
int tree_remove_stale(const char *root, const char *name, char *err, size_t errlen);

/* What a walk of the tree on disk found that the layout does not allow. */
enum tree_damage { TREE_MISSING, TREE_UNEXPECTED, TREE_WRONG_SIZE };
typedef void (*tree_damage_fn)(void *ctx, enum tree_damage what, const char *relpath,
                               uint64_t want_size, uint64_t found_size);

/* Stats every file and directory of the layout and lists every directory:
 * a missing one, a wrong size, or a name the layout does not hold (names
 * listed in `skip`, NULL-terminated, relative to the root, are not looked
 * at: the metadata streams' own directories) go to fn.  Number of damages,
 * or -1 with err when the root itself cannot be read. */
long tree_check(const struct tree *t, const char *const *skip, tree_damage_fn fn, void *ctx,
                char *err, size_t errlen);

#endif
