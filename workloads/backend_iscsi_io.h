/*
 * backend_iscsi_io — the LUN's sessions and I/O (backend_iscsi.c), as the
 * kind's line in the table of target kinds (backend_iscsi_keys.c) calls
 * them: the backend_ops functions of kind = iscsi that need a session.
 */
#ifndef FL_BACKEND_ISCSI_IO_H
#define FL_BACKEND_ISCSI_IO_H

#include "backend.h"

int iscsi_backend_open(struct backend *be, const struct target_cfg *t, unsigned depth, char *err,
                       size_t n);
int iscsi_backend_submit(struct backend *be, struct io *io);
int iscsi_backend_reap(struct backend *be, struct io **done, int max, int wait_ms);
void iscsi_backend_close(struct backend *be);

/* The LUN as INQUIRY described it at open: vendor, product, revision
 * (standard INQUIRY), serial (VPD page 0x80); the target and LUN. */
void iscsi_backend_identify(const struct backend *be, const struct target_cfg *t,
                            struct kv_list *out);

#endif
