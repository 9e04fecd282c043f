/* iopool — see iopool.h. */
#include "iopool.h"

#include <stdlib.h>
#include <string.h>

#define BUF_ALIGN 4096

int iopool_init(struct iopool *p, unsigned n, uint32_t buflen)
{
    memset(p, 0, sizeof *p);
    p->ios = calloc(n, sizeof *p->ios);
    p->free = calloc(n, sizeof *p->free);
    size_t stride = ((size_t)buflen + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN;
    if (!p->ios || !p->free || posix_memalign(&p->mem, BUF_ALIGN, stride * n) != 0) {
        p->mem = NULL;
        iopool_free(p);
        return -1;
    }
    memset(p->mem, 0, stride * n);
    p->n = p->nfree = n;
    for (unsigned i = 0; i < n; i++) {
        p->ios[i].buf = (char *)p->mem + stride * i;
        p->ios[i].len = buflen;
        p->free[i] = &p->ios[n - 1 - i];
    }
    return 0;
}

void iopool_free(struct iopool *p)
{
    free(p->ios);
    free(p->free);
    free(p->mem);
    memset(p, 0, sizeof *p);
}

struct io *iopool_get(struct iopool *p)
{
    return p->nfree ? p->free[--p->nfree] : NULL;
}

void iopool_put(struct iopool *p, struct io *io)
{
    p->free[p->nfree++] = io;
}
