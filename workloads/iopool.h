/*
 * iopool — a fixed set of I/O requests with aligned buffers.
 *
 * The engine and the sweep keep at most `depth` reads and writes in flight;
 * each request owns one block-sized buffer aligned to 4 KiB (enough for
 * O_DIRECT on every device we meet).  Buffers live as long as the pool.
 */
#ifndef FL_IOPOOL_H
#define FL_IOPOOL_H

#include "backend.h"

struct iopool {
    struct io *ios;
    struct io **free;
    unsigned n, nfree;
    void *mem;
};

/* 0, or -1 when memory is short. */
int iopool_init(struct iopool *p, unsigned n, uint32_t buflen);
void iopool_free(struct iopool *p);

/* A free request, or NULL when all are in flight. */
struct io *iopool_get(struct iopool *p);
void iopool_put(struct iopool *p, struct io *io);

/* Requests in flight. */
static inline unsigned iopool_busy(const struct iopool *p)
{
    return p->n - p->nfree;
}

#endif
