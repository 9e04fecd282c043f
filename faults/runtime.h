/*
 * runtime — one fault of a run (struct fault): its spec, where it acts,
 * its family's state, its undo records and what happened, for the
 * timeline, the verdict and the reports; and how it reaches its host
 * (struct fault_via): applied here by its family (fault_via_local,
 * dispatch.c), or sent to `faultline agent` on an ssh host, which applies
 * it with the same family code there (fault_via_ssh, ssh/remote.h).
 */
#ifndef FL_RUNTIME_H
#define FL_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "fault.h"
#include "host.h"

#define FL_MAX_FAULTS 256 /* a thrash of hours draws hundreds */
#define FL_MAX_UNDO 16 /* a switch-down of a lab with client hosts has up to 13 ports */

struct remote;
struct fault;

/* How a fault reaches what it acts on: applied here by its family
 * (fault_via_local), or sent to `faultline agent` on an ssh host, which
 * applies it with the same family code there (ssh/remote.h).  The timeline
 * uses only this table and never knows which one runs. */
struct fault_via {
    const char *transport; /* "local" or "ssh", for the report */
    /* Before the run: the family's prepare, here or on the host. */
    int (*prepare)(struct fault *f, char *err, size_t errlen);
    /* Shortly before its time: what must be done ahead — the undo records
     * to disk, or "apply at `at`, cleared by `clear_at`" to the agent (both
     * mono_ns here; clear_at 0: an instant fault).  0, or -1 with err
     * (then it is not applied). */
    int (*arm)(struct fault *f, uint64_t at, uint64_t clear_at, char *err, size_t errlen);
    /* At its time: applies it (or hears that the agent did); *when: the
     * mono_ns it took effect.  0, or -1 with err. */
    int (*inject)(struct fault *f, uint64_t *when, char *err, size_t errlen);
    /* Clears it (or has the agent do so); *when as for inject. */
    int (*clear)(struct fault *f, uint64_t *when, char *err, size_t errlen);
    /* One line for people. */
    void (*describe)(const struct fault *f, char *out, size_t n);
    /* The byte ranges it overwrote (fault_ops.overwrote), as applied here
     * or as its agent said.  Count; 0 for none. */
    unsigned (*overwrote)(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target);
};
extern const struct fault_via fault_via_local;

/* One fault of a run: its spec, where it acts and what happened. */
struct fault {
    unsigned index; /* in the scenario, for names */
    struct fault_spec spec;
    const struct fault_ops *ops;
    struct fault_env *env;
    struct fault_host host;
    struct fault_schedule schedule;
    /* what happened, ns since the run started */
    bool active;
    bool applied;        /* its change was made (even if its clear failed later) */
    uint64_t scheduled_ns, injected_ns, cleared_ns; /* 0: not (yet) */
    uint64_t apply_ns;   /* how long inject itself took */
    /* Set by a family whose change took effect before its inject or clear
     * returned (mono_ns: a BMC's power off returned, and the status that
     * confirms it came later); 0: when it returned. */
    uint64_t effect_ns;
    unsigned steps_done; /* a stepped fault's steps so far */
    char detail[1024];   /* what exactly was done, for the report */
    char error[1100];    /* why inject or clear failed */
    bool clear_failed;   /* its clear failed: the outage was not undone as written */
    /* undo: what puts it back, known before inject (written ahead by the
     * timeline), and the open records */
    char undo_kind[FL_MAX_UNDO][16];
    char undo_args[FL_MAX_UNDO][1200]; /* a command (1024) and its namespace */
    unsigned nplanned;
    int undo_seq[FL_MAX_UNDO];
    unsigned nundo;
    bool undo_failed; /* a record stays open for `faultline cleanup` */
    void *state;      /* the family's own, made by its prepare() */
    const struct fault_via *via; /* local, or through an agent */
    /* through an agent (ssh/remote.h): the connection, and what it said */
    struct remote *remote;   /* NULL: applied here */
    char via_host[32];       /* the host whose agent applies it (its own, or its switch) */
    char cleared_by[16];     /* "controller", "lease", "close" (agent); "" not cleared */
    bool indeterminate;      /* the agent did not answer in time, or nothing confirmed that
                                it took effect: it may or may not be in effect */
    char unsure[512];        /* why it is indeterminate when its family could not tell (a
                                power_status that never confirmed the cut); "": its agent */
    unsigned power_loss;     /* loses = unflushed: which power loss of the run (from 1); 0 none */
    bool answer_late;        /* its inject's answer came after the timeline moved on */
    /* settle = whole (harness/live/timeline.h): the wait for the storage
     * before its inject, and where the waits of the run put it */
    bool settle_asked;       /* it waited (0 ns when the storage was whole at once) */
    uint64_t settle_ns;      /* how long */
    bool begun;              /* its first inject step began: its times are fixed */
    uint64_t shift_ns;       /* the run's settle waits before it: every step moves by it */
    bool not_reached;        /* the waits moved it past the end of the workload */
    bool drawn;              /* drawn by [thrash]: not reached is no miss (it is left out
                                of the schedule the run writes) */
};

/* Frees f->state (through the family's release). */
void fault_release(struct fault *f);

/* The schedule of a spec (the family's, or lasting for its duration). */
void fault_schedule_of(const struct fault_spec *s, struct fault_schedule *out);

/* Whether the fault acts on its host's switch (fault_ops.on_switch). */
bool fault_on_switch(const struct fault_spec *s);

/* Whether the fault runs here whatever its host (fault_ops.on_controller). */
bool fault_on_controller(const struct fault *f);

/* The byte ranges f overwrote, through its transport (fault_via.overwrote):
 * its family's answer, or its agent's for a fault on an ssh host; 0 for
 * none. */
unsigned fault_overwrote(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target);

#endif
