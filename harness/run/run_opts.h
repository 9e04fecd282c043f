/*
 * run_opts — what `faultline run` was asked on its command line, as the
 * run, a repeat (repeat.h) and a launch of several clients (launch.h) all
 * take it.
 */
#ifndef FL_RUN_OPTS_H
#define FL_RUN_OPTS_H

#include <stdbool.h>

struct run_opts {
    const char *scenario;
    const char *out; /* NULL: runs/<time>-<name> */
    bool quiet;      /* no progress lines */
    bool keep_lab;   /* a lab this run brings up stays up afterwards */
    const char *client_dir; /* several clients: rank R keeps its state in PATH/client-R
                               (DIR/client-R links to it); NULL: in DIR/client-R */
    unsigned repeat;        /* --repeat N; 0: the scenario's repeat (repeat.h) */
};

#endif
