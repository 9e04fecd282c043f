/* lab_load — a lab from its prefix and state (lab_load.c; lab_load is in
 * lab.h). */
#ifndef FL_LAB_LOAD_H
#define FL_LAB_LOAD_H

#include "lab.h"

/* Everything but the subnet, options and PIDs, from the prefix: lab->dir,
 * the kind's hosts (lab_build.lay_out), the client hosts. */
void lab_lay_out(struct lab *lab);

#endif
