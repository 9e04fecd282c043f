/*
 * wire — a byte buffer written and read field by field, for messages
 * between faultline processes of one machine architecture (MPI ranks).
 *
 * Writing appends to a growing buffer; a failed allocation is remembered
 * and reported once at the end (wire_done), so callers do not check every
 * put.  Reading never runs past the end: a short or damaged message makes
 * every later get return zeroes and wire_ok() false.
 */
#ifndef FL_WIRE_H
#define FL_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wire {
    unsigned char *buf;
    size_t len, cap, pos;
    bool failed; /* writing: out of memory; reading: ran past the end */
};

void wire_init(struct wire *w);
void wire_put(struct wire *w, const void *p, size_t n);
void wire_u64(struct wire *w, uint64_t v);
void wire_str(struct wire *w, const char *s); /* length, then the bytes */

/* Writing ended: 0 with the buffer in w->buf (free it), or -1 (memory). */
int wire_done(struct wire *w);
void wire_free(struct wire *w);

/* Reading buf[0..len). */
void wire_read(struct wire *w, const void *buf, size_t len);
bool wire_get(struct wire *w, void *p, size_t n);
uint64_t wire_get_u64(struct wire *w);
void wire_get_str(struct wire *w, char *out, size_t n); /* truncated to fit */
/* A pointer to the next n bytes (inside the buffer), or NULL. */
const void *wire_view(struct wire *w, size_t n);
bool wire_ok(const struct wire *w);

#endif
