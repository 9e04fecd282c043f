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

#endif
