/* wire — see wire.h. */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

void wire_init(struct wire *w)
{
    memset(w, 0, sizeof *w);
}

void wire_put(struct wire *w, const void *p, size_t n)
{
    if (w->failed || n == 0)
        return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n)
            cap *= 2;
        unsigned char *b = realloc(w->buf, cap);
        if (!b) {
            w->failed = true;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void wire_u64(struct wire *w, uint64_t v)
{
    wire_put(w, &v, sizeof v);
}

void wire_str(struct wire *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    wire_u64(w, n);
    wire_put(w, s, n);
}

int wire_done(struct wire *w)
{
    if (!w->failed)
        return 0;
    wire_free(w);
    return -1;
}

void wire_free(struct wire *w)
{
    free(w->buf);
    wire_init(w);
}

void wire_read(struct wire *w, const void *buf, size_t len)
{
    wire_init(w);
    w->buf = (unsigned char *)buf;
    w->len = len;
}

const void *wire_view(struct wire *w, size_t n)
{
    if (w->failed || n > w->len - w->pos) {
        w->failed = true;
        return NULL;
    }
    const void *p = w->buf + w->pos;
    w->pos += n;
    return p;
}

bool wire_get(struct wire *w, void *p, size_t n)
{
    const void *src = wire_view(w, n);
    if (!src) {
        memset(p, 0, n);
        return false;
    }
    memcpy(p, src, n);
    return true;
}

uint64_t wire_get_u64(struct wire *w)
{
    uint64_t v = 0;
    wire_get(w, &v, sizeof v);
    return v;
}

void wire_get_str(struct wire *w, char *out, size_t n)
{
    uint64_t len = wire_get_u64(w);
    const char *p = len <= w->len ? wire_view(w, (size_t)len) : NULL;
    if (!p) {
        w->failed = true;
        if (n)
            out[0] = '\0';
        return;
    }
    size_t k = len < n ? (size_t)len : (n ? n - 1 : 0);
    memcpy(out, p, k);
    if (n)
        out[k] = '\0';
}

bool wire_ok(const struct wire *w)
{
    return !w->failed;
}
