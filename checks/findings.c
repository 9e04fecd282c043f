/* findings — see findings.h. */
#include "findings.h"

#include <stdlib.h>
#include <string.h>

void findings_init(struct findings *f, size_t limit)
{
    memset(f, 0, sizeof *f);
    f->limit = limit;
}

void findings_free(struct findings *f)
{
    free(f->list);
    f->list = NULL;
    f->n = f->cap = 0;
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
    f->list[f->n++] = *x;
}

uint64_t findings_bad(const struct findings *f)
{
    uint64_t n = 0;
    for (int c = 0; c < CLS_COUNT; c++)
        if (class_is_finding((enum fl_class)c))
            n += f->counts[c];
    return n;
}
