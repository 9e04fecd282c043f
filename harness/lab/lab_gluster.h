/* lab_gluster — the gluster lab's files (lab_gluster.c: the servers, the
 * volume, faults and health; lab_gluster_logs.c: its servers' logs, for
 * the storage kind's path events). */
#ifndef FL_LAB_GLUSTER_H
#define FL_LAB_GLUSTER_H

#include "lab.h"

/* Each line of the servers' log files `which` ("brick": every brick's
 * log, LAB/gsN/log/bricks/ *.log), passed to fn with the server's name
 * (storage.logs). */
void gluster_logs(const struct lab *lab, const char *which, storage_line_fn fn, void *ctx);

#endif
