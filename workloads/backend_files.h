/*
 * backend_files — the options of kind = files (see backend_files.c for the
 * backend itself): a tree of many files on any mounted filesystem.  Its
 * [workload] keys fill this struct in target_cfg.opts.
 */
#ifndef FL_BACKEND_FILES_H
#define FL_BACKEND_FILES_H

#include <stdint.h>

#include "backend.h"

struct files_cfg {
    int tree_class;      /* enum tree_class */
    uint64_t procs;      /* parallel streams as written (0: depth) */
    uint64_t metadata;   /* metadata streams */
    uint32_t block_size; /* the workload's: files are whole blocks */
    char tree_name[128]; /* the tree is PATH/faultline-NAME (the scenario name) */
    unsigned workers;    /* the run's streams, each a worker: a new tree's layout (tree.h) */
};
_Static_assert(sizeof(struct files_cfg) <= FL_KIND_OPTS, "files options");

static inline struct files_cfg *files_cfg(struct target_cfg *t)
{
    return BACKEND_OPTS(t, struct files_cfg);
}

#endif
