/* links — see links.h. */
#include "links.h"

#include <stdio.h>

#include "../../lib/net.h"

struct link_fault *link_fault_open(struct fault *f, const char *netns, char *err,
                                   size_t errlen)
{
    struct link_fault *s = fault_state(f, sizeof *s, err, errlen);
    if (s && !(s->sk = net_open(netns, err, errlen)))
        return NULL;
    return s;
}

int link_fault_add(struct link_fault *s, const char *name, char *err, size_t errlen)
{
    if (s->n == FL_MAX_UNDO) {
        snprintf(err, errlen, "more than %d links for one fault", FL_MAX_UNDO);
        return -1;
    }
    if ((s->ifindex[s->n] = net_ifindex(s->sk, name, err, errlen)) < 0)
        return -1;
    snprintf(s->names[s->n++], sizeof s->names[0], "%.15s", name);
    return 0;
}

int link_fault_down(struct fault *f, char *err, size_t errlen)
{
    struct link_fault *s = f->state;
    for (unsigned i = 0; i < s->n; i++)
        if (net_link_set_up_index(s->sk, s->ifindex[i], false, err, errlen) != 0)
            return -1;
    return 0;
}

void link_fault_release(struct fault *f)
{
    struct link_fault *s = f->state;
    net_close(s->sk);
    s->sk = NULL;
}
