/*
 * names — the namespace check of a file tree (kind = files).
 *
 * Blocks prove the data; this proves the names: after the sweep (and in
 * `faultline verify`) every directory and file of the tree's layout must be
 * there with its size, and nothing else may be.  Each difference becomes a
 * finding with its path:
 *
 *   missing-file     the layout (or a metadata stream's model) holds it, the
 *                    filesystem does not
 *   unexpected-file  the filesystem holds a name nothing made
 *   wrong-size       a file is there with another size
 */
#ifndef FL_NAMES_H
#define FL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../workloads/backend.h"
#include "findings.h"

/* Checks the tree of target t.  skip: names relative to the tree root that
 * are not the layout's (the metadata streams' directories), NULL-terminated
 * or NULL.  Findings go to f with phase and read_ns.  Number of findings, or
 * -1 with err when the tree cannot be read at all. */
long names_check_tree(const struct target_cfg *t, const char *const *skip, struct findings *f,
                      const char *phase, uint64_t read_ns, char *err, size_t errlen);

/* Adds one name finding (class, path relative to the tree root, the operation that should have made
 * what is expected, when it did, sizes for the detail). */
void names_add(struct findings *f, enum fl_class cls, const char *path, const char *op,
               const char *phase, uint64_t op_ns, uint64_t read_ns, const char *detail);

#endif
