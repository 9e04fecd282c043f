/* findings — see findings.h. */
#include "findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/rng.h"

void findings_init(struct findings *f, size_t limit)
{
    memset(f, 0, sizeof *f);
    f->limit = limit;
}

void findings_free(struct findings *f)
{
    free(f->list);
    free(f->index);
    f->list = NULL;
    f->index = NULL;
    f->n = f->cap = f->index_cap = 0;
}

static size_t slot_of(const struct findings *f, uint64_t block, enum fl_class c)
{
    return (size_t)rng_slot(block * 16 + (uint64_t)c) & (f->index_cap - 1);
}

/* The listed finding for (block, class), or NULL. */
static struct finding *lookup(const struct findings *f, uint64_t block, enum fl_class c)
{
    if (!f->index_cap)
        return NULL;
    for (size_t i = slot_of(f, block, c);; i = (i + 1) & (f->index_cap - 1)) {
        if (!f->index[i])
            return NULL;
        struct finding *x = &f->list[f->index[i] - 1];
        if (x->block == block && x->cls == c)
            return x;
    }
}

static int index_add(struct findings *f, size_t pos)
{
    if ((f->n + 1) * 2 > f->index_cap) {
        size_t cap = f->index_cap ? f->index_cap * 2 : 128;
        size_t *idx = calloc(cap, sizeof *idx);
        if (!idx)
            return -1;
        free(f->index);
        f->index = idx;
        f->index_cap = cap;
        for (size_t k = 0; k < pos; k++) { /* rebuild with everything listed so far */
            size_t i = slot_of(f, f->list[k].block, f->list[k].cls);
            while (f->index[i])
                i = (i + 1) & (cap - 1);
            f->index[i] = k + 1;
        }
    }
    size_t i = slot_of(f, f->list[pos].block, f->list[pos].cls);
    while (f->index[i])
        i = (i + 1) & (f->index_cap - 1);
    f->index[i] = pos + 1;
    return 0;
}

void findings_count(struct findings *f, enum fl_class c)
{
    f->counts[c]++;
}

void findings_add(struct findings *f, const struct finding *x)
{
    f->counts[x->cls]++;
    findings_keep(f, x);
}

void findings_keep(struct findings *f, const struct finding *x)
{
    /* Name findings (no block) are one per path and never repeat. */
    struct finding *seen = x->block == FL_NO_BLOCK ? NULL : lookup(f, x->block, x->cls);
    if (seen) {
        seen->repeats += 1 + x->repeats;
        if (x->read_ns > seen->last_read_ns)
            seen->last_read_ns = x->read_ns;
        return;
    }
    if (f->n >= f->limit) {
        f->unlisted++;
        return;
    }
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 64;
        struct finding *l = realloc(f->list, cap * sizeof *l);
        if (!l) {
            f->unlisted++;
            return;
        }
        f->list = l;
        f->cap = cap;
    }
    f->list[f->n] = *x;
    if (!f->list[f->n].last_read_ns)
        f->list[f->n].last_read_ns = x->read_ns;
    if (x->block != FL_NO_BLOCK)
        index_add(f, f->n); /* without the index a repeat is listed again: harmless */
    f->n++;
}

void findings_merge(struct findings *to, const struct findings *from)
{
    for (int k = 0; k < CLS_COUNT; k++)
        to->counts[k] += from->counts[k];
    to->unlisted += from->unlisted;
    for (size_t k = 0; k < from->n; k++)
        findings_keep(to, &from->list[k]);
}

uint64_t findings_bad(const struct findings *f)
{
    uint64_t n = 0;
    for (int c = 0; c < CLS_COUNT; c++)
        if (class_is_finding((enum fl_class)c))
            n += f->counts[c];
    return n;
}

void findings_add_name(struct findings *f, enum fl_class cls, const char *path, const char *op,
                       const char *phase, uint64_t op_ns, uint64_t read_ns, const char *detail)
{
    struct finding x = {.cls = cls, .phase = phase, .op = op, .block = FL_NO_BLOCK,
                        .written_ns = op_ns, .read_ns = read_ns,
                        .found_written_ns = FL_TIME_UNKNOWN};
    snprintf(x.path, sizeof x.path, "%s", path);
    snprintf(x.detail, sizeof x.detail, "%s", detail);
    findings_add(f, &x);
}
