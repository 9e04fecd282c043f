/*
 * meta_internal — what workloads/meta.c (the streams and their journal)
 * and workloads/meta_model.c (the model saved, loaded and rebuilt from the
 * journal) share: the journal's record and the model's slots.  Not an API.
 */
#ifndef FL_META_INTERNAL_H
#define FL_META_INTERNAL_H

#include <stdint.h>

#include "meta.h"

#define META_LOG_KIND 0x4154454du /* "META" */
enum { MR_INTENT = 1, MR_SET = 2, MR_POINT = 3, MR_CLOSED = 4 };
struct mrec {
    uint8_t type;
    uint8_t op;    /* enum meta_op */
    uint8_t state; /* enum slot_state */
    uint8_t dir;
    int16_t slot;  /* -1: the directory itself */
    uint16_t zero;
    uint32_t size;
    uint32_t zero2;
    uint64_t t_ns;
    uint64_t seq;  /* MR_POINT: its number */
};
_Static_assert(sizeof(struct mrec) == 32, "metadata journal record");

static inline struct meta_slot *slot_of(struct meta_stream *s, unsigned d, int f)
{
    return f < 0 ? &s->dirs[d] : &s->files[d][f];
}

static inline void set_slot(struct meta_slot *m, enum slot_state st, enum meta_op op, uint32_t size,
                     uint64_t now)
{
    *m = (struct meta_slot){.state = (uint8_t)st, .op = (uint8_t)op, .size = size, .op_ns = now};
}

#endif
