/*
 * nftfault — what partition and loss share: a table of their own in the
 * host's namespace (named after the run and the fault, so that removing it
 * removes exactly what they added), with an input and an output chain.
 */
#ifndef FL_NFTFAULT_H
#define FL_NFTFAULT_H

#include <stddef.h>

#include "../runtime.h"

/* The state of an nft fault (f->state). */
struct nft_fault {
    char table[48];
    char peers[FL_MAX_HOSTS][64]; /* partition: the peers' addresses */
    unsigned npeers;
};

/* Makes f->state, names the table, plans its removal as undo, checks the
 * namespace.  The state, or NULL with err. */
struct nft_fault *nftfault_prepare(struct fault *f, const char *what, char *err, size_t errlen);

/* Creates the table with chains `in` and `out` and adds the rules (nft
 * syntax, one per line, each already naming its chain). */
int nftfault_apply(struct fault *f, const char *rules, char *err, size_t errlen);

/* "198.18.1.1, 198.18.1.12": the peers' addresses for an nft set. */
void nftfault_peer_set(const struct fault *f, char *out, size_t n);

/* Resolves `peers` (host names, NULL or "": every other known host with an
 * address) into the state's peers.  0, or -1 with err. */
int nftfault_resolve_peers(struct fault *f, const char *peers, char *err, size_t errlen);

/* The table's name, for the report. */
const char *nftfault_table(const struct fault *f);

#endif
