/*
 * heal — how long replicated storage takes to be whole again after each
 * fault: the gluster volume's heal, the ceph cluster's recovery.
 *
 * With storage whose kind heals (storage_kind.heal, storage.h: gluster asks
 * `gluster volume heal VOL info summary` twice a second; ceph asks `ceph
 * status` every 2 s, as each question costs 0.4 s of CPU), a lab's or a
 * real cluster's ([cluster]), a thread asks from the start of the
 * workload what is still pending (a question that fails counts as
 * pending).  After the workload and the sweep it goes on until nothing is
 * pending or `heal_wait` has passed.  A fault's time (heal_s, recover_s:
 * storage_heal.word) is from its clear (the server back) to the first answer
 * with nothing pending that stayed so until the next fault's inject (a
 * whole answer just after the clear can be stale); a fault after which
 * the storage was never whole within the wait has none, and `expect_heal`
 * (`expect_recover`) fails.
 */
#ifndef FL_HEAL_H
#define FL_HEAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../storage/storage.h"

struct heal_sample {
    uint64_t t_ns;   /* mono_ns() of the answer */
    long pending;    /* entries to heal; -1: the question failed */
    long missing;    /* of them, what keeps the data short of full redundancy
                        (storage_heal.pending); -1: the question failed */
};

struct heal_watch {
    struct storage st;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    struct heal_sample *s;
    size_t n, cap;
    _Atomic bool finishing;  /* the workload is over: stop at the first 0 */
    _Atomic uint64_t deadline; /* mono_ns() to give up at once finishing */
    _Atomic bool stop;
    char err[512];           /* the last failed question */
    char what[512];          /* what the last answer said was pending */
};

/* Starts watching the storage (its kind must heal; what st->at points to
 * must outlive the watch).  0, or -1 with err. */
int heal_watch_start(struct heal_watch *w, const struct storage *st, char *err, size_t errlen);

/* The workload is over: waits until nothing is pending or wait_ns passed. */
void heal_watch_finish(struct heal_watch *w, uint64_t wait_ns);

/* Seconds from clear_ns (mono_ns()) to the answer from which on nothing
 * was pending, up to until_ns (the next fault's inject, or UINT64_MAX):
 * the first answer with nothing pending that no later answer before
 * until_ns contradicts (a failed question contradicts nothing).  False
 * when there is none. */
bool heal_watch_time(struct heal_watch *w, uint64_t clear_ns, uint64_t until_ns, double *heal_s);

/* The same over samples in time order (what heal_watch_time reads). */
bool heal_time_of(const struct heal_sample *s, size_t n, uint64_t clear_ns, uint64_t until_ns,
                  double *heal_s);

/* The answers after since_ns (mono_ns()) that said the data has its full
 * redundancy (nothing missing: ceph's placement groups all active+clean,
 * whatever else its health warns of; gluster's heal, nothing pending),
 * counted back from the newest (0: the newest said something was missing,
 * or failed, or there is none); *missing: what the newest of them said
 * (-1 failed, -2 none yet).  For a fault's settle wait (settle.h). */
unsigned heal_watch_whole_since(struct heal_watch *w, uint64_t since_ns, long *missing);

/* Whether nothing was pending when the watch ended. */
bool heal_watch_healed(struct heal_watch *w);

/* The last answer, for the report when the storage was not whole: what
 * the newest answer said was pending ("N entries still to heal"), and then
 * how many questions after it failed and why; or why none was answered. */
void heal_watch_last(struct heal_watch *w, char *out, size_t n);

void heal_watch_free(struct heal_watch *w);

#endif
