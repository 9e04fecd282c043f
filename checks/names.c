/* names — the namespace check of a file tree; see names.h. */
#include "names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../workloads/tree.h"

void names_add(struct findings *f, enum fl_class cls, const char *path, const char *op,
               const char *phase, uint64_t op_ns, uint64_t read_ns, const char *detail)
{
    struct finding x = {.cls = cls, .phase = phase, .op = op, .block = FL_NO_BLOCK,
                        .written_ns = op_ns, .read_ns = read_ns,
                        .found_written_ns = FL_TIME_UNKNOWN};
    snprintf(x.path, sizeof x.path, "%s", path);
    snprintf(x.detail, sizeof x.detail, "%s", detail);
    findings_add(f, &x);
}

struct ctx {
    struct findings *f;
    const char *phase;
    uint64_t read_ns;
};

static void damage(void *arg, enum tree_damage what, const char *rel, uint64_t want,
                   uint64_t found)
{
    struct ctx *c = arg;
    const char *path = rel;
    char detail[192];
    switch (what) {
    case TREE_MISSING:
        snprintf(detail, sizeof detail, "made when the tree was created, gone now");
        names_add(c->f, CLS_MISSING_FILE, path, "create", c->phase, 0, c->read_ns, detail);
        break;
    case TREE_UNEXPECTED:
        snprintf(detail, sizeof detail, "%" PRIu64 " bytes; no operation of the run made it",
                 found);
        names_add(c->f, CLS_UNEXPECTED_FILE, path, "none", c->phase, FL_TIME_UNKNOWN,
                  c->read_ns, detail);
        break;
    case TREE_WRONG_SIZE:
        snprintf(detail, sizeof detail, "%" PRIu64 " bytes, must be %" PRIu64, found, want);
        names_add(c->f, CLS_WRONG_SIZE, path, "create", c->phase, 0, c->read_ns, detail);
        break;
    }
}

long names_check_tree(const struct target_cfg *t, const char *const *skip, struct findings *f,
                      const char *phase, uint64_t read_ns, char *err, size_t errlen)
{
    char root[PATH_MAX + 160];
    files_root(t, root, sizeof root);
    struct tree tr;
    if (tree_layout(&tr, (enum tree_class)t->files.tree_class, t->size, t->files.block_size, root,
                    err, errlen) != 0)
        return -1;
    struct ctx c = {.f = f, .phase = phase, .read_ns = read_ns};
    long n = tree_check(&tr, skip, damage, &c, err, errlen);
    tree_free(&tr);
    return n;
}
