/* lab_faults — what faults reach through a lab: a host's service started
 * again, a server's power, and the callbacks of fault.h that name the
 * lab's processes and replicas.  Each acts on the state as it is now (PIDs
 * change with every restart).  See lab.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_ssh.h"

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
    int rc = now.kind->faults->power(&now, h, on, fd, what, whatlen, err, errlen);
    if (rc == 0 && on) {
        int sshd = lab_ssh_revive(&now, fd, h, err, errlen);
        if (sshd > 0) {
            size_t len = strlen(what);
            snprintf(what + len, whatlen - len, "%sits sshd started again", len ? ", " : "");
        }
        rc = sshd < 0 ? -1 : 0;
    }
    close(fd);
    return rc;
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

void lab_fault_lab(const struct lab *lab, struct fault_lab *out)
{
    *out = (struct fault_lab){.ctx = (void *)lab, .process = fault_process,
                              .restart = fault_restart,
                              .replica = lab->kind->faults->replica ? fault_replica : NULL,
                              .power = lab->kind->faults->power ? fault_power : NULL};
}
