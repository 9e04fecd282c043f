/*
 * process — kill, pause, restart a process inside a host.
 *
 *   kill     SIGKILL; with restart_after, a lab host's service starts again
 *            that much later (a server powered off and back on)
 *   pause    SIGSTOP now, SIGCONT at clear (a hung server)
 *   restart  SIGKILL and start again at once (a lab host's service)
 *
 * Which process: on a lab host, its service (process = tgtd on the iscsi
 * lab, glusterd on a gluster server; the default); on a gluster server also
 * process = brick (its glusterfsd) or shd (its self-heal daemon), which the
 * lab starts again with `gluster volume start VOL force`; otherwise
 * pidfile = PATH, pid = N, or process = NAME (every process of that name in
 * the host's network namespace).  A process is signalled only
 * if it still is the one that was found (PID and start time).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness/lab.h"
#include "../lib/proc.h"
#include "fault.h"

static bool gluster_lab(const struct fault *f)
{
    return f->env->lab && strcmp(f->env->lab->kind, "gluster") == 0;
}

static const char *service_of(const struct fault *f)
{
    if (gluster_lab(f))
        return f->host.netns[0] ? "glusterd" : "glusterfs"; /* a server; the FUSE client */
    return "tgtd";
}

static bool lab_service(const struct fault *f)
{
    return f->host.lab && !f->spec.pidfile[0] && !f->spec.pid &&
           (!f->spec.process[0] || strcmp(f->spec.process, service_of(f)) == 0);
}

/* A gluster server's brick or self-heal daemon, by the lab's name for it. */
static bool gluster_part(const struct fault *f)
{
    return gluster_lab(f) && f->host.lab && f->host.netns[0] &&
           (strcmp(f->spec.process, "brick") == 0 || strcmp(f->spec.process, "shd") == 0);
}

/* The process name (comm) to look for. */
static const char *comm_of(const struct fault *f)
{
    if (gluster_part(f))
        return strcmp(f->spec.process, "brick") == 0 ? "glusterfsd" : "glusterfs";
    return f->spec.process;
}

/* The lab knows how to bring it back. */
static bool restartable(const struct fault *f)
{
    return lab_service(f) || gluster_part(f);
}

/* Inode of a network namespace, to match processes to a host. */
static ino_t ns_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* Finds the processes now (not at prepare: a restart changes the PID). */
static int find(struct fault *f, char *err, size_t errlen)
{
    f->npids = 0;
    if (lab_service(f)) {
        struct lab lab;
        if (lab_load(f->env->lab->kind, f->env->lab->prefix, &lab, err, errlen) != 0)
            return -1;
        const struct lab_host *h = lab_host(&lab, f->host.name);
        if (!h || !h->pid) {
            snprintf(err, errlen, "lab host %s runs no service", f->host.name);
            return -1;
        }
        f->pids[0] = h->pid;
        f->starts[0] = h->start;
        f->npids = 1;
    } else if (f->spec.pidfile[0] || f->spec.pid) {
        long pid = (long)f->spec.pid;
        if (f->spec.pidfile[0]) {
            FILE *pf = fopen(f->spec.pidfile, "r");
            if (!pf || fscanf(pf, "%ld", &pid) != 1) {
                snprintf(err, errlen, "cannot read a PID from %s: %s", f->spec.pidfile,
                         pf ? "no number in it" : strerror(errno));
                if (pf)
                    fclose(pf);
                return -1;
            }
            fclose(pf);
        }
        f->pids[0] = (pid_t)pid;
        f->starts[0] = proc_starttime((pid_t)pid);
        f->npids = f->starts[0] ? 1 : 0;
    } else {
        char nspath[128];
        snprintf(nspath, sizeof nspath, f->host.netns[0] ? "/run/netns/%s" : "/proc/self/ns/net",
                 f->host.netns);
        ino_t want = ns_inode(nspath);
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d)) && f->npids < 16) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            if (*end || pid <= 0 || pid == getpid())
                continue;
            char p[64], comm[64] = "";
            snprintf(p, sizeof p, "/proc/%ld/comm", pid);
            FILE *c = fopen(p, "r");
            if (!c)
                continue;
            if (fgets(comm, sizeof comm, c))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(c);
            snprintf(p, sizeof p, "/proc/%ld/ns/net", pid);
            if (strcmp(comm, comm_of(f)) != 0 || ns_inode(p) != want)
                continue;
            f->pids[f->npids] = (pid_t)pid;
            f->starts[f->npids] = proc_starttime((pid_t)pid);
            f->npids++;
        }
        if (d)
            closedir(d);
    }
    if (!f->npids) {
        snprintf(err, errlen, "no such process on %s", f->host.name);
        return -1;
    }
    return 0;
}

static int process_prepare(struct fault *f, char *err, size_t errlen)
{
    bool needs_service = strcmp(f->ops->action, "restart") == 0 || f->spec.restart_after_ns;
    if (needs_service && !restartable(f)) {
        snprintf(err, errlen, "%s only knows how to start a lab host's service again (and a "
                 "gluster server's brick or shd); %s is %s",
                 f->spec.restart_after_ns ? "restart_after" : "restart", f->host.name,
                 f->host.lab ? "not given as one of those" : "not a lab host");
        return -1;
    }
    if (!lab_service(f) && !f->spec.pidfile[0] && !f->spec.pid && !f->spec.process[0]) {
        snprintf(err, errlen, "say which process: process = NAME, pidfile = PATH or pid = N");
        return -1;
    }
    return 0;
}

static void list_pids(const struct fault *f, char *out, size_t n)
{
    size_t used = 0;
    for (unsigned i = 0; i < f->npids && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%d", i ? ", " : "", (int)f->pids[i]);
}

static int kill_inject(struct fault *f, char *err, size_t errlen)
{
    if (find(f, err, errlen) != 0)
        return -1;
    for (unsigned i = 0; i < f->npids; i++)
        if (proc_kill(f->pids[i], f->starts[i], SIGKILL, err, errlen) != 0)
            return -1;
    return 0;
}

/* kill's clear: bring the service back after restart_after. */
static int kill_clear(struct fault *f, char *err, size_t errlen)
{
    if (!f->spec.restart_after_ns)
        return 0;
    return lab_restart_service(f->env->lab->kind, f->env->lab->prefix, f->host.name, err, errlen);
}

static int pause_inject(struct fault *f, char *err, size_t errlen)
{
    if (find(f, err, errlen) != 0)
        return -1;
    /* The PIDs are known only now: their undo goes to disk before SIGSTOP. */
    for (unsigned i = 0; i < f->npids; i++) {
        char args[64];
        snprintf(args, sizeof args, "%d %llu", (int)f->pids[i], (unsigned long long)f->starts[i]);
        if (fault_plan_undo(f, "sigcont", args) != 0) {
            snprintf(err, errlen, "too many processes to pause at once");
            return -1;
        }
    }
    if (fault_write_undo(f, err, errlen) != 0)
        return -1;
    for (unsigned i = 0; i < f->npids; i++)
        if (proc_kill(f->pids[i], f->starts[i], SIGSTOP, err, errlen) != 0)
            return -1;
    return 0;
}

static int pause_clear(struct fault *f, char *err, size_t errlen)
{
    int rc = fault_undo_all(f, err, errlen);
    f->nplanned = 0; /* planned at inject: a later inject plans again */
    return rc;
}

static int restart_inject(struct fault *f, char *err, size_t errlen)
{
    if (kill_inject(f, err, errlen) != 0)
        return -1;
    return lab_restart_service(f->env->lab->kind, f->env->lab->prefix, f->host.name, err, errlen);
}

static void describe_as(const struct fault *f, const char *what, char *out, size_t n)
{
    char pids[128] = "";
    list_pids(f, pids, sizeof pids);
    const char *which = lab_service(f) ? service_of(f) : f->spec.process[0] ? f->spec.process
                                      : f->spec.pidfile[0]           ? f->spec.pidfile
                                                                     : "process";
    snprintf(out, n, "%s of %s %s%s%s%s", which, f->host.name, what, pids[0] ? " (pid " : "",
             pids, pids[0] ? ")" : "");
}

static void kill_describe(const struct fault *f, char *out, size_t n)
{
    char what[96] = "killed (SIGKILL)";
    if (f->spec.restart_after_ns)
        snprintf(what, sizeof what, "killed (SIGKILL), started again after %.3f s",
                 (double)f->spec.restart_after_ns / 1e9);
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
    .action = "kill",
    .prepare = process_prepare,
    .inject = kill_inject,
    .clear = kill_clear,
    .describe = kill_describe,
};

const struct fault_ops fault_pause = {
    .action = "pause",
    .prepare = process_prepare,
    .inject = pause_inject,
    .clear = pause_clear,
    .describe = pause_describe,
};

const struct fault_ops fault_restart = {
    .action = "restart",
    .prepare = process_prepare,
    .inject = restart_inject,
    .clear = NULL,
    .describe = restart_describe,
};
