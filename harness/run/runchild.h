/*
 * runchild — a `faultline run` of this very binary as a child process, as
 * a repeat starts each repetition and a suite each attempt of a scenario.
 *
 * The child runs in a process group of its own, so that a terminal's ^C
 * reaches only the parent, which passes each signal on once; the parent
 * waits for it and reads its report.json back.  What the two callers need
 * differently is said in struct run_child.
 */
#ifndef FL_RUNCHILD_H
#define FL_RUNCHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The environment variable a repetition is started with ("K/N"): it runs
 * once, and leaves the rules over repetitions to the summary.  A child
 * started without one (a suite's) does a scenario's repeat = N itself. */
#define REPEAT_ENV "FAULTLINE_REPETITION"

struct run_child {
    const char *scenario;   /* FILE */
    const char *out;        /* --out DIR */
    bool keep_lab;          /* --keep-lab: the lab is the parent's to take down */
    bool quiet;             /* --quiet */
    bool no_stdout;         /* its closing lines to /dev/null (they are in its report.txt) */
    const char *repetition; /* REPEAT_ENV's value, "K/N"; NULL: unset */
};

/* Starts the child; its pid, or -1 with err (what could not be done and
 * why). */
pid_t run_child_start(const struct run_child *c, char *err, size_t errlen);

/* Waits for child pid: 0 with *status, or -1 when it ended but cannot be
 * reaped.  A run whose workers are left waiting on a mount that will
 * never answer (a scenario that kills for good what the mount needs, as
 * cephfs-mds-grace-trap does) writes its report and ends, but those
 * threads stay in the kernel and the process cannot be reaped until they
 * come back.  On a lab the run did not bring up itself nothing else would
 * ever abort that mount: 3 s after the child's end, held(ctx) is called
 * once to let the lab go (lab_down aborts its FUSE connections, which
 * fails those calls); 60 s after that the wait gives up. */
int run_child_wait(pid_t pid, int *status, void (*held)(void *ctx), void *ctx);

#endif
