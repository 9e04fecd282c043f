/*
 * nft — nftables commands inside a network namespace, through libnftables.
 *
 * The partition and loss faults build a table of their own per fault
 * (family inet, named after the run and the fault), so removing it removes
 * exactly what they added and nothing else.
 */
#ifndef FL_NFT_H
#define FL_NFT_H

#include <stddef.h>

/* Runs nft commands (the text of an nft script) in namespace netns (NULL or
 * "" or "-": ours).  0, or -1 with err holding nft's own message. */
int nft_run_in(const char *netns, const char *cmds, char *err, size_t errlen);

/* Deletes table `inet NAME` in netns; gone already is fine. */
int nft_delete_table(const char *netns, const char *name, char *err, size_t errlen);

#endif
