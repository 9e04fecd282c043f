/*
 * nftfault — what partition and loss share: a table of their own in the
 * host's namespace, with an input and an output chain.
 */
#ifndef FL_NFTFAULT_H
#define FL_NFTFAULT_H

#include <stddef.h>

#include "fault.h"

/* Names the table, plans its removal as undo, checks the namespace. */
int nftfault_prepare(struct fault *f, const char *what, char *err, size_t errlen);

/* Creates the table with chains `in` and `out` and adds the rules (nft
 * syntax, one per line, each already naming its chain). */
int nftfault_apply(struct fault *f, const char *rules, char *err, size_t errlen);

/* "198.18.1.1, 198.18.1.12": the peers' addresses for an nft set. */
void nftfault_peer_set(const struct fault *f, char *out, size_t n);

/* Resolves `peers` (host names, default every other known host) into
 * f->peers.  0, or -1 with err. */
int nftfault_resolve_peers(struct fault *f, char *err, size_t errlen);

#endif
