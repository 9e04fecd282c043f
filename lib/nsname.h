/*
 * nsname — where a named network namespace lives, by iproute2's
 * convention: NAME is kept alive by a bind mount of its nsfs inode on
 * /run/netns/NAME.  Whether one exists, and an fd to enter it.
 *
 * The lowest piece of the namespaces: net.c makes and deletes them (with
 * a child of proc.c's), proc.c enters them to run a process there; both
 * find them here.
 */
#ifndef FL_NSNAME_H
#define FL_NSNAME_H

#include <stdbool.h>
#include <stddef.h>

#define NETNS_DIR "/run/netns"

/* /run/netns/NAME into out (n bytes). */
void netns_path(const char *name, char *out, size_t n);

bool netns_exists(const char *name);

/* An fd for setns(), or -1 with err filled. */
int netns_fd(const char *name, char *err, size_t errlen);

#endif
