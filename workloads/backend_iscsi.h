/*
 * backend_iscsi — the options of kind = iscsi (see backend_iscsi.c for the
 * backend itself): a LUN through libiscsi over one or more portals, with
 * failover.  Its keys fill this struct in target_cfg.opts.
 */
#ifndef FL_BACKEND_ISCSI_H
#define FL_BACKEND_ISCSI_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

#define FL_MAX_PORTALS 8

struct iscsi_cfg {
    char portals_text[FL_MAX_PORTALS * FL_URL_MAX]; /* [target] portals, as written */
    char portals[FL_MAX_PORTALS][FL_URL_MAX];       /* iscsi://HOST[:PORT]/IQN/LUN */
    unsigned nportals;
    bool fua;                     /* every write with FUA: durable at completion */
    /* as written (ns, counts) */
    uint64_t command_timeout_ns, tcp_user_timeout_ns, nop_interval_ns, nop_missed;
    /* as the backend uses them */
    unsigned command_timeout_s;   /* a command unanswered this long: the path is dead */
    unsigned tcp_user_timeout_ms; /* unacknowledged data this long: the connection is dead */
    unsigned nop_interval_ms;     /* NOP-Out on every path this often */
    uint64_t io_timeout_ns;       /* an I/O finds no path for this long: it fails */
    uint64_t login_timeout_ns;    /* connecting and logging in at the start */
    uint64_t retry_interval_ns;   /* a dead path is tried again this often */
};
_Static_assert(sizeof(struct iscsi_cfg) <= FL_KIND_OPTS, "iscsi options");

static inline struct iscsi_cfg *iscsi_cfg(struct target_cfg *t)
{
    return BACKEND_OPTS(t, struct iscsi_cfg);
}

#endif
