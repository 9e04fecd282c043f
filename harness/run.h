/*
 * run — the verbs that touch a target: `run`, `verify` and `check`.
 *
 *   run     scenario -> run directory: workload, final flush, sweep, reports
 *   verify  run directory -> re-read the target from the saved state, reports
 *   check   scenario -> lint only (nothing is opened or created)
 *
 * Each returns the process exit status: 0 pass, 1 fail, 2 could not run.
 */
#ifndef FL_RUN_H
#define FL_RUN_H

#include <stdbool.h>
#include <stddef.h>

struct run_opts {
    const char *scenario;
    const char *out; /* NULL: runs/<time>-<name> */
    bool quiet;      /* no progress lines */
    bool keep_lab;   /* a lab this run brings up stays up afterwards */
    const char *client_dir; /* several clients: rank R keeps its state in PATH/client-R
                               (DIR/client-R links to it); NULL: in DIR/client-R */
    unsigned repeat;        /* --repeat N; 0: the scenario's repeat (repeat.h) */
};

int cmd_run(const struct run_opts *o);

/* The run directory: `out`, or runs/<time>-<name>; made, and refused when
 * it holds a run already.  0, or -1 with err. */
int run_dir_make(const char *out, const char *name, char *dir, size_t n, char *err,
                 size_t errlen);
int cmd_verify(const char *dir, bool quiet);
int cmd_check(const char *file);

#endif
