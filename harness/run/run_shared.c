/* run_shared — what every run verb shares (see run_parts.h): SIGINT and
 * SIGTERM cutting the workload, then the sweep, short; the progress lines. */
#include "run_parts.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

volatile sig_atomic_t run_stop_workload, run_stop_sweep, run_stop_signal;

static void on_signal(int sig)
{
    if (run_stop_workload)
        run_stop_sweep = 1;
    else
        run_stop_signal = sig;
    run_stop_workload = 1;
}

int run_cut_short_by(bool workload_cut)
{
    return workload_cut || run_stop_sweep ? (run_stop_signal ? run_stop_signal : SIGTERM) : 0;
}

int run_signal_that_cut(bool workload_cut)
{
    /* The sweep is also cut when workers are left behind, and the
     * workload when the faults could not start: no signal came then. */
    return workload_cut || run_stop_sweep ? run_stop_signal : 0;
}

void run_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool run_is_rank0(const struct run *r)
{
    return r->mpi.rank == 0;
}

void run_say(const struct run *r, const char *fmt, ...)
{
    if (r->o->quiet || !run_is_rank0(r))
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "faultline: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
