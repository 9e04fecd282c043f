/*
 * rundir — the directory a run, a repeat or a launch of several clients
 * writes into: the one given with --out, or runs/<time>-<name> (with -2,
 * -3, ... when that second has one already).  A directory that holds a run
 * (its scenario.scn) is refused, so that no report is written over another.
 */
#ifndef FL_RUNDIR_H
#define FL_RUNDIR_H

#include <stddef.h>

/* Makes the run directory into dir.  0, or -1 with err. */
int run_dir_make(const char *out, const char *name, char *dir, size_t n, char *err,
                 size_t errlen);

#endif
