/* lab_faults — what faults reach through a lab: a host's service started
 * again, a server's power, and the callbacks of fault.h that name the
 * lab's processes, replicas and disks.  Each acts on the state as it is now (PIDs
 * change with every restart).  See lab.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <unistd.h>

#include "../../lib/proc.h"
#include "lab_disk.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_server.h"
#include "lab_ssh.h"
#include "lab_switch.h"

int lab_restart(const struct lab *lab, const char *host, char *err, size_t errlen)
{
    struct lab now; /* the state as it is: PIDs change with every restart */
    if (lab_load(lab->kind, lab->prefix, &now, err, errlen) != 0)
        return -1;
    struct lab_host *h = lab_host_mut(&now, host);
    if (!h || !h->netns[0] || !now.kind->faults->restart) {
        snprintf(err, errlen, "lab host %s has no service to start", host);
        return -1;
    }
    int fd = lab_state_append(&now, err, errlen);
    if (fd < 0)
        return -1;
    /* The new PID goes after the old one: the newest record of a host wins,
     * and `lab down` kills every recorded one. */
    int rc = now.kind->faults->restart(&now, h, fd, err, errlen);
    close(fd);
    return rc;
}

/* What the kind's power-off left running of the whole host: its sshd (an
 * iSCSI controller's runs beside tgtd, not inside a PID namespace that
 * dies with the server's init).  The port is down already. */
static int power_off_rest(const struct lab_host *h, char *what, size_t whatlen, char *err,
                          size_t errlen)
{
    if (!h->sshd || proc_state(h->sshd, h->sshd_start) == PROC_GONE)
        return 0;
    if (proc_kill(h->sshd, h->sshd_start, SIGKILL, err, errlen) != 0)
        return -1;
    size_t len = strlen(what);
    snprintf(what + len, whatlen - len, ", its sshd (pid %d) killed", (int)h->sshd);
    return 0;
}

int lab_power(const struct lab *lab, const char *host, bool on, char *what, size_t whatlen,
              char *err, size_t errlen)
{
    struct lab now; /* the state as it is: PIDs change with every power-on */
    if (lab_load(lab->kind, lab->prefix, &now, err, errlen) != 0)
        return -1;
    struct lab_host *h = lab_host_mut(&now, host);
    if (!h || !h->netns[0] || lab_is_client_host(h) || !now.kind->faults->power) {
        snprintf(err, errlen, "the %s lab cannot cut the power of %s (only of its servers)",
                 now.kind->name, host);
        return -1;
    }
    int fd = lab_state_append(&now, err, errlen);
    if (fd < 0)
        return -1;
    what[0] = '\0';
    /* Off the network first, on it again before its daemons start: a
     * real cut is silent, and peers learn of it by their own timeouts. */
    int rc = lab_port_set(h, on, err, errlen);
    size_t len = (size_t)snprintf(what, whatlen, "switch port %s %s, then ", h->port,
                                  on ? "up" : "down");
    if (len >= whatlen)
        len = 0;
    if (rc == 0)
        rc = now.kind->faults->power(&now, h, on, fd, what + len, whatlen - len, err, errlen);
    if (rc == 0 && !on)
        rc = power_off_rest(h, what, whatlen, err, errlen);
    if (rc == 0 && on) {
        int sshd = lab_ssh_revive(&now, fd, h, err, errlen);
        if (sshd > 0) {
            len = strlen(what);
            snprintf(what + len, whatlen - len, "%sits sshd started again", len ? ", " : "");
        }
        rc = sshd < 0 ? -1 : 0;
    }
    close(fd);
    return rc;
}

/* Whether switch port `port` (in our namespace) is up: its flags. */
static int port_up(const char *port)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/class/net/%s/flags", port);
    FILE *f = fopen(path, "r");
    unsigned flags = 0;
    int n = f ? fscanf(f, "%x", &flags) : 0;
    if (f)
        fclose(f);
    return n == 1 ? (flags & IFF_UP) != 0 : -1;
}

int lab_power_state(const struct lab *lab, const char *host, char *what, size_t n)
{
    struct lab now; /* the state as it is: PIDs change with every power-on */
    char err[512];
    if (lab_load(lab->kind, lab->prefix, &now, err, sizeof err) != 0) {
        snprintf(what, n, "unknown: %s", err);
        return -1;
    }
    const struct lab_host *h = lab_host(&now, host);
    if (!h || !h->netns[0] || lab_is_client_host(h) || !now.kind->faults->power) {
        snprintf(what, n, "unknown: the %s lab cannot cut the power of %s (only of its servers)",
                 now.kind->name, host);
        return -1;
    }
    int port = port_up(h->port);
    /* A server with namespaces of its own lives while its init does; one
     * without (an iSCSI controller) while its service does. */
    bool alive = h->init ? lab_server_up(h)
                         : h->pid && proc_state(h->pid, h->start) == PROC_RUNNING;
    const char *part = h->init ? "its init" : "its service";
    if (port == 1 && alive) {
        snprintf(what, n, "on: switch port %s up, %s running", h->port, part);
        return 1;
    }
    if (port == 0 && !alive) {
        snprintf(what, n, "off: switch port %s down, %s gone", h->port, part);
        return 0;
    }
    snprintf(what, n, "unknown: switch port %s %s, %s %s", h->port,
             port < 0 ? "not found" : port ? "up" : "down", part, alive ? "running" : "gone");
    return -1;
}

/* --- for faults --- */

static int fault_process(void *ctx, const char *host, const char *process,
                         struct lab_process *p, char *err, size_t errlen)
{
    const struct lab *lab = ctx;
    struct lab now; /* the PID running now */
    if (!lab->kind->faults->process)
        return 1;
    if (lab_load(lab->kind, lab->prefix, &now, err, errlen) != 0)
        return -1;
    return lab->kind->faults->process(&now, host, process, p, err, errlen);
}

static int fault_restart(void *ctx, const char *host, const char *process, char *err,
                         size_t errlen)
{
    (void)process; /* the lab brings back whatever of the host is gone */
    return lab_restart(ctx, host, err, errlen);
}

static int fault_power(void *ctx, const char *host, bool on, char *what, size_t whatlen,
                       char *err, size_t errlen)
{
    return lab_power(ctx, host, on, what, whatlen, err, errlen);
}

static int fault_replica(void *ctx, const char *name, struct lab_replica *r, char *err,
                         size_t errlen)
{
    const struct lab *lab = ctx;
    return lab->kind->faults->replica(lab, name, r, err, errlen);
}

/* The layer as the state is now (it records a layer's PID). */
static int fault_disk(void *ctx, const char *host, struct lab_disk *d, char *err, size_t errlen)
{
    const struct lab *lab = ctx;
    struct lab now;
    if (lab_load(lab->kind, lab->prefix, &now, err, errlen) != 0)
        return -1;
    return lab_disk_of(&now, host, d, err, errlen);
}

/* In the server's own namespaces (its init's): one that boots has them. */
static int fault_run(void *ctx, const char *host, char *const argv[], char *out, size_t outlen,
                     int timeout_ms)
{
    const struct lab *lab = ctx;
    struct lab now; /* its init as it is now: a power cycle boots another */
    char err[512];
    if (lab_load(lab->kind, lab->prefix, &now, err, sizeof err) != 0) {
        snprintf(out, outlen, "%s", err);
        return -1;
    }
    const struct lab_host *h = lab_host(&now, host);
    if (!h || !h->init || !lab_server_up(h)) {
        snprintf(out, outlen, "lab host %s is not a server that runs (no namespaces of its own "
                 "to run in)", host);
        return -1;
    }
    struct proc_place at;
    lab_server_place(h, &at);
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

void lab_fault_lab(const struct lab *lab, struct fault_lab *out)
{
    *out = (struct fault_lab){.ctx = (void *)lab, .process = fault_process,
                              .restart = fault_restart,
                              .replica = lab->kind->faults->replica ? fault_replica : NULL,
                              .power = lab->kind->faults->power ? fault_power : NULL,
                              .disk = lab->kind->faults->disk ? fault_disk : NULL,
                              .run = fault_run};
}
