/*
 * links — what link-down, port-down, port-flap and switch-down share: a
 * netlink socket kept open in the right namespace and the indexes of the
 * links to switch, looked up at prepare, so that an inject on schedule is
 * one netlink round trip per link.  Their undo is "link-up" (undo.h).
 */
#ifndef FL_LINKS_H
#define FL_LINKS_H

#include <stddef.h>

#include "../runtime.h"

struct link_fault {
    struct nl_sock *sk;
    int ifindex[FL_MAX_UNDO];
    char names[FL_MAX_UNDO][16];
    unsigned n;
    char where[16]; /* switch-down: the bridge */
};

/* Makes f->state a link_fault with a socket in netns (NULL: ours).
 * The state, or NULL with err. */
struct link_fault *link_fault_open(struct fault *f, const char *netns, char *err,
                                   size_t errlen);

/* Adds link `name` (looked up now).  0, or -1 with err. */
int link_fault_add(struct link_fault *s, const char *name, char *err, size_t errlen);

/* inject: every added link down. */
int link_fault_down(struct fault *f, char *err, size_t errlen);

/* release: closes the socket. */
void link_fault_release(struct fault *f);

#endif
