/*
 * gen — block generations and their wrap-around.
 *
 * Every write of a block carries the next generation of that block.  A
 * generation is 16 bits so that the state map costs 2 bytes per block: the
 * values 1..65535 form a ring (65535 is followed by 1) and 0 means "never
 * written in this run".  Two generations are ordered by serial-number
 * arithmetic (RFC 1982 style): b is newer than a when b lies less than half
 * the ring ahead of a.  A block would have to be rewritten 32767 times
 * between a durable write and a read for the order to be misjudged; the
 * state map never lets pending generations run that far ahead.
 */
#ifndef FL_GEN_H
#define FL_GEN_H

#include <stdint.h>

typedef uint16_t gen_t;

#define GEN_NONE ((gen_t)0)
#define GEN_RING 65535
#define GEN_HALF 32767

static inline gen_t gen_next(gen_t g)
{
    return g == GEN_RING ? (gen_t)1 : (gen_t)(g + 1);
}

/* <0 when a is older than b, 0 when equal, >0 when a is newer.  GEN_NONE is
 * older than every written generation. */
static inline int gen_cmp(gen_t a, gen_t b)
{
    if (a == b)
        return 0;
    if (a == GEN_NONE)
        return -1;
    if (b == GEN_NONE)
        return 1;
    int d = ((int)a - (int)b + GEN_RING) % GEN_RING;
    return d <= GEN_HALF ? 1 : -1;
}

/* How many generations b is ahead of a (both written): 0..65534. */
static inline int gen_distance(gen_t a, gen_t b)
{
    if (a == GEN_NONE)
        return b;
    return ((int)b - (int)a + GEN_RING) % GEN_RING;
}

static inline gen_t gen_newest(gen_t a, gen_t b)
{
    return gen_cmp(a, b) >= 0 ? a : b;
}

#endif
