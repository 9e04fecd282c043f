/*
 * process — kill, pause, restart a process inside a host.
 *
 *   kill     SIGKILL; with restart_after, a lab host's service starts again
 *            that much later (a server powered off and back on)
 *   pause    SIGSTOP now, SIGCONT at clear (a hung server)
 *   restart  SIGKILL and start again at once (a lab host's service)
 *
 * Which process: on a lab host, whatever the lab calls by that name (the
 * default: the host's service), found and started again through the lab's
 * callbacks (fault_lab); otherwise pidfile = PATH, pid = N, or process =
 * NAME (every process of that name in the host's network namespace).  A
 * process is signalled only if it still is the one that was found (PID and
 * start time).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/proc.h"
#include "../fault.h"
#include "../runtime.h"

#define MAX_PIDS 16

extern const struct fault_ops fault_restart;

struct process_params {
    char process[64];
    char pidfile[256];
    uint64_t pid;
    uint64_t restart_after_ns;
};
_Static_assert(sizeof(struct process_params) <= FAULT_PARAMS_MAX, "process params");

#define KEY_PROCESS                                                                            \
    {"process", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct process_params, process), 0, 0,       \
     "kill, pause, restart: process name (default on a lab host: its service, as `faultline "     \
     "lab status` names it)", 0}
#define KEY_PIDFILE                                                                            \
    {"pidfile", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct process_params, pidfile), 0, 0,       \
     "kill, pause: the process whose PID this file holds", 0}
#define KEY_PID                                                                                \
    {"pid", KEY_COUNT, NULL, NULL, FAULT_PARAM(struct process_params, pid), 1, 4194304,        \
     "kill, pause: this PID", 0}

static const struct key_def kill_keys[] = {
    KEY_PROCESS, KEY_PIDFILE, KEY_PID,
    {"restart_after", KEY_DURATION, NULL, NULL,
     FAULT_PARAM(struct process_params, restart_after_ns), 1000000, AT_MOST_A_DAY,
     "kill: start a lab host's service again this much later", 0},
};
static const struct key_def pause_keys[] = {FAULT_KEY_DURATION, KEY_PROCESS, KEY_PIDFILE,
                                            KEY_PID};
static const struct key_def restart_keys[] = {KEY_PROCESS, KEY_PIDFILE, KEY_PID};

/* f->state: the processes found at inject, and what the lab says of them. */
struct process_fault {
    bool by_lab;            /* a process the lab runs (and names) */
    struct lab_process lab;
    pid_t pids[MAX_PIDS];
    uint64_t starts[MAX_PIDS];
    unsigned npids;
};

static const struct process_params *params(const struct fault *f)
{
    return FAULT_PARAMS(&f->spec, const struct process_params);
}

/* What the lab says of the process (0: it runs it, 1: it does not). */
static int ask_lab(const struct fault *f, struct lab_process *lp, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    if (!f->host.lab || !lab || !lab->process || params(f)->pidfile[0] || params(f)->pid)
        return 1;
    memset(lp, 0, sizeof *lp);
    return lab->process(lab->ctx, f->host.name, params(f)->process, lp, err, errlen);
}

struct by_comm {
    struct process_fault *s;
    const char *comm;
};

static int collect(void *ctx, const struct proc_seen *p)
{
    struct by_comm *c = ctx;
    if (strcmp(p->comm, c->comm) == 0 && c->s->npids < MAX_PIDS) {
        c->s->pids[c->s->npids] = p->pid;
        c->s->starts[c->s->npids++] = p->start;
    }
    return c->s->npids == MAX_PIDS;
}

/* The PID a pidfile holds.  0, or -1 with err. */
static int read_pidfile(const char *path, long *pid, char *err, size_t errlen)
{
    FILE *pf = fopen(path, "r");
    if (!pf || fscanf(pf, "%ld", pid) != 1) {
        snprintf(err, errlen, "cannot read a PID from %s: %s", path,
                 pf ? "no number in it" : strerror(errno));
        if (pf)
            fclose(pf);
        return -1;
    }
    fclose(pf);
    return 0;
}

/* Finds the processes now (not at prepare: a restart changes the PID). */
static int find_targets(struct fault *f, char *err, size_t errlen)
{
    struct process_fault *s = f->state;
    const struct process_params *p = params(f);
    s->npids = 0;
    const char *comm = p->process;
    if (s->by_lab) {
        int known = ask_lab(f, &s->lab, err, errlen);
        if (known != 0) {
            if (known > 0)
                snprintf(err, errlen, "the lab no longer knows %s on %s", params(f)->process,
                         f->host.name);
            return -1;
        }
        if (!s->lab.comm[0] && !s->lab.pid) {
            snprintf(err, errlen, "lab host %s runs no service", f->host.name);
            return -1;
        }
        if (s->lab.pid) {
            s->pids[0] = s->lab.pid;
            s->starts[0] = s->lab.start;
            s->npids = 1;
        }
        comm = s->lab.comm;
    } else if (p->pidfile[0] || p->pid) {
        long pid = (long)p->pid;
        if (p->pidfile[0] && read_pidfile(p->pidfile, &pid, err, errlen) != 0)
            return -1;
        s->pids[0] = (pid_t)pid;
        s->starts[0] = proc_starttime((pid_t)pid);
        s->npids = s->starts[0] ? 1 : 0;
        comm = "";
    }
    if (comm[0] && !s->npids) {
        struct by_comm c = {.s = s, .comm = comm};
        proc_each_in_netns(f->host.netns, collect, &c);
    }
    if (!s->npids) {
        snprintf(err, errlen, "no such process on %s", f->host.name);
        return -1;
    }
    return 0;
}

static int process_prepare(struct fault *f, char *err, size_t errlen)
{
    struct process_fault *s = fault_state(f, sizeof *s, err, errlen);
    if (!s)
        return -1;
    int known = ask_lab(f, &s->lab, err, errlen);
    if (known < 0)
        return -1;
    s->by_lab = known == 0;
    bool needs_start = f->ops == &fault_restart || params(f)->restart_after_ns;
    if (needs_start && !(s->by_lab && s->lab.restartable)) {
        snprintf(err, errlen, "%s only knows how to start again what a lab runs (a host's "
                 "service, or a part the lab names); %s is %s",
                 params(f)->restart_after_ns ? "restart_after" : "restart", f->host.name,
                 f->host.lab ? "not given as one of those" : "not a lab host");
        return -1;
    }
    if (!s->by_lab && !params(f)->pidfile[0] && !params(f)->pid && !params(f)->process[0]) {
        snprintf(err, errlen, "say which process: process = NAME, pidfile = PATH or pid = N");
        return -1;
    }
    return 0;
}

/* At parse time: what the host can do for it.  A process is named unless
 * the lab names the host's service; a restart needs a host that knows how
 * to start it again. */
static int process_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                         size_t errlen)
{
    const struct process_params *p = FAULT_PARAMS(s, const struct process_params);
    if (!r->host_known)
        return 0; /* an agent's check: the controller's already ran */
    bool named = p->process[0] || p->pidfile[0] || p->pid;
    if (!named && !r->host_in_lab) {
        snprintf(err, errlen, "[fault %s] %s: say which process on %s: process = NAME, "
                 "pidfile = PATH or pid = N (only a lab host has a service of its own)",
                 s->name, s->ops->action, s->host);
        return -1;
    }
    bool needs_start = s->ops == &fault_restart || p->restart_after_ns;
    if (needs_start && !r->host_in_lab && !r->host_restarts) {
        snprintf(err, errlen, "[fault %s] %s: %s cannot start a process again: give [host %s] "
                 "restart = COMMAND (what starts its service, run there over ssh), or use a lab "
                 "host", s->name, p->restart_after_ns ? "restart_after" : "restart", s->host,
                 s->host);
        return -1;
    }
    if (needs_start && !r->host_in_lab && (p->pidfile[0] || p->pid)) {
        snprintf(err, errlen, "[fault %s] %s: the process to start again is named by process = "
                 "NAME (its restart command starts it; a pid or pidfile names only the one that "
                 "dies)", s->name, p->restart_after_ns ? "restart_after" : "restart");
        return -1;
    }
    return 0;
}

static void list_pids(const struct fault *f, char *out, size_t n)
{
    const struct process_fault *s = f->state;
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; s && i < s->npids && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%d", i ? ", " : "", (int)s->pids[i]);
}

static int signal_all(struct fault *f, int sig, char *err, size_t errlen)
{
    struct process_fault *s = f->state;
    for (unsigned i = 0; i < s->npids; i++)
        if (proc_kill(s->pids[i], s->starts[i], sig, err, errlen) != 0)
            return -1;
    return 0;
}

static int kill_inject(struct fault *f, char *err, size_t errlen)
{
    if (find_targets(f, err, errlen) != 0)
        return -1;
    return signal_all(f, SIGKILL, err, errlen);
}

/* The lab starts it again. */
static int start_again(struct fault *f, char *err, size_t errlen)
{
    const struct fault_lab *lab = f->env->lab;
    return lab->restart(lab->ctx, f->host.name, params(f)->process, err, errlen);
}

/* With restart_after it lasts until the lab starts it again. */
static void kill_schedule(const struct fault_spec *spec, struct fault_schedule *out)
{
    uint64_t after = FAULT_PARAMS(spec, const struct process_params)->restart_after_ns;
    *out = (struct fault_schedule){.shape = after ? FAULT_LASTING : FAULT_INSTANT,
                                   .clear_after_ns = after};
}

/* kill's clear: bring the service back after restart_after. */
static int kill_clear(struct fault *f, char *err, size_t errlen)
{
    return params(f)->restart_after_ns ? start_again(f, err, errlen) : 0;
}

static int pause_inject(struct fault *f, char *err, size_t errlen)
{
    if (find_targets(f, err, errlen) != 0)
        return -1;
    struct process_fault *s = f->state;
    /* The PIDs are known only now: their undo goes to disk before SIGSTOP. */
    for (unsigned i = 0; i < s->npids; i++) {
        char args[64];
        snprintf(args, sizeof args, "%d %llu", (int)s->pids[i], (unsigned long long)s->starts[i]);
        if (fault_plan_undo(f, "sigcont", args) != 0) {
            snprintf(err, errlen, "too many processes to pause at once");
            return -1;
        }
    }
    if (fault_write_undo(f, err, errlen) != 0)
        return -1;
    return signal_all(f, SIGSTOP, err, errlen);
}

static int pause_clear(struct fault *f, char *err, size_t errlen)
{
    int rc = fault_undo_all(f, err, errlen);
    f->nplanned = 0; /* planned at inject: a later inject plans again */
    return rc;
}

/* Instant: killed and started again within the inject. */
static void restart_schedule(const struct fault_spec *spec, struct fault_schedule *out)
{
    (void)spec;
    *out = (struct fault_schedule){.shape = FAULT_INSTANT};
}

static int restart_inject(struct fault *f, char *err, size_t errlen)
{
    if (kill_inject(f, err, errlen) != 0)
        return -1;
    return start_again(f, err, errlen);
}

static void describe_as(const struct fault *f, const char *what, char *out, size_t n)
{
    const struct process_fault *s = f->state;
    char pids[128];
    list_pids(f, pids, sizeof pids);
    const struct process_params *p = params(f);
    const char *which = s && s->by_lab ? s->lab.name
                        : p->process[0] ? p->process
                        : p->pidfile[0] ? p->pidfile
                                        : "process";
    snprintf(out, n, "%s of %s %s%s%s%s", which, f->host.name, what, pids[0] ? " (pid " : "",
             pids, pids[0] ? ")" : "");
}

static void kill_describe(const struct fault *f, char *out, size_t n)
{
    char what[96] = "killed (SIGKILL)";
    if (params(f)->restart_after_ns)
        snprintf(what, sizeof what, "killed (SIGKILL), started again after %.3f s",
                 (double)params(f)->restart_after_ns / 1e9);
    describe_as(f, what, out, n);
}

static void pause_describe(const struct fault *f, char *out, size_t n)
{
    describe_as(f, "paused (SIGSTOP, then SIGCONT)", out, n);
}

static void restart_describe(const struct fault *f, char *out, size_t n)
{
    describe_as(f, "killed and started again", out, n);
}

const struct fault_ops fault_kill = {
    .check = process_check,
    .action = "kill",
    .hold_key = "restart_after",
    .keys = kill_keys,
    .nkeys = sizeof kill_keys / sizeof kill_keys[0],
    .schedule = kill_schedule,
    .prepare = process_prepare,
    .inject = kill_inject,
    .clear = kill_clear,
    .describe = kill_describe,
};

const struct fault_ops fault_pause = {
    .check = process_check,
    .action = "pause",
    .hold_key = "duration",
    .keys = pause_keys,
    .nkeys = sizeof pause_keys / sizeof pause_keys[0],
    .prepare = process_prepare,
    .inject = pause_inject,
    .clear = pause_clear,
    .describe = pause_describe,
};

const struct fault_ops fault_restart = {
    .check = process_check,
    .action = "restart",
    .keys = restart_keys,
    .nkeys = sizeof restart_keys / sizeof restart_keys[0],
    .schedule = restart_schedule,
    .prepare = process_prepare,
    .inject = restart_inject,
    .describe = restart_describe,
};
