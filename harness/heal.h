/*
 * heal — how long a replicated volume takes to heal after each fault.
 *
 * With a lab whose kind heals (lab_kind.heal_pending: the gluster lab asks
 * `gluster volume heal VOL info summary`), a thread asks about twice a
 * second from the start of the workload how many entries are still to heal
 * (a replica that cannot answer counts as pending).  After the workload
 * and the sweep it goes on until nothing is pending or `heal_wait` has
 * passed.  A fault's heal_s is from its clear
 * (the server back) to the first answer with nothing pending; a fault whose
 * volume never healed within the wait has none, and `expect_heal` fails.
 */
#ifndef FL_HEAL_H
#define FL_HEAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lab/lab.h"

struct heal_sample {
    uint64_t t_ns;   /* mono_ns() of the answer */
    long pending;    /* entries to heal; -1: the question failed */
};

struct heal_watch {
    struct lab lab;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    struct heal_sample *s;
    size_t n, cap;
    _Atomic bool finishing;  /* the workload is over: stop at the first 0 */
    _Atomic uint64_t deadline; /* mono_ns() to give up at once finishing */
    _Atomic bool stop;
    char err[512];           /* the last failed question */
};

/* Starts watching the lab's volume (its kind must heal).  0, or -1 with err. */
int heal_watch_start(struct heal_watch *w, const struct lab *lab, char *err, size_t errlen);

/* The workload is over: waits until nothing is pending or wait_ns passed. */
void heal_watch_finish(struct heal_watch *w, uint64_t wait_ns);

/* Seconds from clear_ns (mono_ns()) to the first answer after it with
 * nothing pending; false when there is none. */
bool heal_watch_time(struct heal_watch *w, uint64_t clear_ns, double *heal_s);

/* Whether the volume was healed when the watch ended. */
bool heal_watch_healed(struct heal_watch *w);

/* The last answer, for the report when the volume did not heal: "N entries
 * still to heal" (the newest answer, and then how many questions after it
 * failed and why), or why no question was answered. */
void heal_watch_last(struct heal_watch *w, char *out, size_t n);

void heal_watch_free(struct heal_watch *w);

#endif
