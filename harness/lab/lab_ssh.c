/*
 * lab_ssh — an OpenSSH server on every lab host, so that faults can reach
 * the lab exactly as they reach a real cluster ([lab] control = ssh).
 *
 * Each server host runs `sshd -D -e -f CONFIG` in its own namespace,
 * listening only on its lab address, port 22; the switch (our namespace,
 * where the bridge and its ports are) gets one on the client's address,
 * port LAB_SWITCH_SSH_PORT.  The lab has its own host key and client key
 * under LAB/ssh/, and a known_hosts file naming every host, so no login
 * ever asks anything.  `lab down` stops the servers by their recorded PIDs
 * ("sshd HOST PID START" records) and removes the keys with the lab.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../faults/ssh/sshcmd.h"
#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"
#include "lab_server.h"
#include "lab_ssh.h"

#define SSHD "/usr/sbin/sshd"

static void ssh_dir(const struct lab *lab, char *out, size_t n)
{
    snprintf(out, n, "%s/ssh", lab->dir);
}

/* The address and port host `name` listens on; false: no such host. */
static bool endpoint(const struct lab *lab, const char *name, char *addr, size_t n,
                     unsigned *port)
{
    if (strcmp(name, LAB_SWITCH_HOST) == 0) {
        snprintf(addr, n, "%s", lab->hosts[0].addr);
        *port = LAB_SWITCH_SSH_PORT;
        return true;
    }
    const struct lab_host *h = lab_host(lab, name);
    if (!h || !h->netns[0])
        return false;
    /* a client host is reached on the management network, never faulted */
    snprintf(addr, n, "%s", h->mgmt_addr[0] ? h->mgmt_addr : h->addr);
    *port = 22;
    return true;
}

void lab_ssh_mpi_agent(const struct lab *lab, char *out, size_t n)
{
    snprintf(out, n, "%s/ssh/mpi-ssh", lab->dir);
}

/* mpirun's way in (its plm_rsh_agent): ssh with the lab's key, checking
 * the hosts' keys against the lab's known_hosts. */
static int write_mpi_agent(const struct lab *lab, const char *dir, char *err, size_t errlen)
{
    char path[256];
    lab_ssh_mpi_agent(lab, path, sizeof path);
    FILE *f = file_create(path, 0700, true, err, errlen);
    if (!f)
        return -1;
    fprintf(f, "#!/bin/sh\n# mpirun reaches the lab's client hosts with this (plm_rsh_agent)\n"
               "exec ssh -i %s/client_key -o IdentitiesOnly=yes -o UserKnownHostsFile=%s/"
               "known_hosts -o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=10 "
               "-o LogLevel=ERROR \"$@\"\n", dir, dir);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* In the child that becomes a client host's sshd: a hostname of its own
 * (the host's name), so that what runs there says where it is. */
static int own_hostname(void *ctx)
{
    const char *name = ctx;
    if (unshare(CLONE_NEWUTS) != 0 || sethostname(name, strlen(name)) != 0)
        return errno;
    return 0;
}

/* A new key pair at path, in the lab's new ssh directory. */
static int keygen(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        snprintf(err, errlen, "%s is there already: a lab's keys are made new", path);
        return -1;
    }
    char out[1024];
    char *argv[] = {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "faultline-lab",
                    "-f", (char *)path, NULL};
    int rc = proc_run(argv, out, sizeof out, 30000);
    if (rc != 0) {
        snprintf(err, errlen, "ssh-keygen -f %s failed (%d): %s", path, rc, out);
        return -1;
    }
    return 0;
}

/* Copies from's lines to the end of `to` (which must exist, when append)
 * or into a new file `to`, each after prefix_each. */
static int append_lines(const char *from, const char *to, const char *prefix_each, char *err,
                     size_t errlen, bool append)
{
    int ofd = append ? open(to, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC) : -1;
    FILE *out = append ? (ofd >= 0 ? fdopen(ofd, "a") : NULL)
                       : file_create(to, 0600, true, err, errlen);
    if (!out) {
        if (append)
            snprintf(err, errlen, "cannot append to %s: %s", to, strerror(errno));
        if (ofd >= 0)
            close(ofd);
        return -1;
    }
    FILE *in = fopen(from, "r");
    if (!in) {
        snprintf(err, errlen, "cannot read %s: %s", from, strerror(errno));
        fclose(out);
        return -1;
    }
    char line[2048];
    while (fgets(line, sizeof line, in))
        fprintf(out, "%s%s", prefix_each ? prefix_each : "", line);
    fclose(in);
    return fclose(out) == 0 ? 0 : -1;
}

static int write_config(const struct lab *lab, const char *name, const char *addr, unsigned port,
                        char *path, size_t n, char *err, size_t errlen)
{
    char dir[160];
    ssh_dir(lab, dir, sizeof dir);
    snprintf(path, n, "%s/sshd-%s.conf", dir, name);
    FILE *f = file_create(path, 0600, false, err, errlen); /* again at each power-on */
    if (!f)
        return -1;
    fprintf(f,
            "# sshd of lab host %s: only its lab address, only the lab's key\n"
            "ListenAddress %s:%u\n"
            "HostKey %s/host_key\n"
            "AuthorizedKeysFile %s/authorized_keys\n"
            "PermitRootLogin prohibit-password\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            "UsePAM no\n"
            "StrictModes no\n"
            "PidFile none\n"
            "LogLevel ERROR\n"
            "PrintMotd no\n"
            "AcceptEnv none\n",
            name, addr, port, dir, dir);
    return fclose(f) == 0 ? 0 : -1;
}

/* Waits (at most 5 s) until sshd of host `name` has its port open. */
static int wait_listening(const char *netns, const char *addr, unsigned port, pid_t pid,
                          uint64_t start, char *err, size_t errlen)
{
    char target[96];
    snprintf(target, sizeof target, "%s:%u", addr, port);
    for (int i = 0; i < 250; i++) {
        if (proc_state(pid, start) == PROC_GONE) {
            snprintf(err, errlen, "sshd for %s exited at once (see its log)", target);
            return -1;
        }
        char out[4096];
        char *argv[] = {"ss", "-Hltn", "src", target, NULL};
        if (proc_run_in(netns, argv, out, sizeof out, 5000) == 0 && strstr(out, "LISTEN"))
            return 0;
        usleep(20000);
    }
    snprintf(err, errlen, "sshd does not listen on %s after 5 s", target);
    return -1;
}

static int start_one(struct lab *lab, int fd, const char *name, const char *netns, bool client,
                     char *err, size_t errlen)
{
    char addr[64], conf[256], log[256], dir[160];
    unsigned port;
    endpoint(lab, name, addr, sizeof addr, &port);
    ssh_dir(lab, dir, sizeof dir);
    if (write_config(lab, name, addr, port, conf, sizeof conf, err, errlen) != 0)
        return -1;
    snprintf(log, sizeof log, "%s/sshd-%s.log", dir, name);
    char *argv[] = {SSHD, "-D", "-e", "-f", conf, NULL};
    pid_t pid;
    uint64_t start;
    struct proc_place at = {.netns = netns[0] ? netns : NULL, .setup = client ? own_hostname : NULL,
                            .ctx = (void *)name};
    /* A server that is a machine of its own (lab_server_boot): its sshd,
     * and every session, inside it. */
    const struct lab_host *h = lab_host(lab, name);
    if (h && h->init)
        lab_server_place(h, &at);
    if (proc_spawn_at(&at, argv, log, &pid, &start, err, errlen) != 0)
        return -1;
    if (lab_rec(fd, err, errlen, "sshd %s %d %llu", name, (int)pid,
                (unsigned long long)start) != 0)
        return -1;
    return wait_listening(netns, addr, port, pid, start, err, errlen);
}

int lab_ssh_start(struct lab *lab, int fd, char *err, size_t errlen)
{
    char dir[160], path[256], pub[256], known[256];
    ssh_dir(lab, dir, sizeof dir);
    if (access(SSHD, X_OK) != 0) {
        snprintf(err, errlen, "%s is missing (openssh-server; run make deps)", SSHD);
        return -1;
    }
    /* sshd's privilege separation directory (checked: sshd chroots there) */
    if (root_only_dir("/run/sshd", 0755, err, errlen) != 0)
        return -1;
    if (mkdir(dir, 0700) != 0) { /* new, in the lab's new directory */
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/host_key", dir);
    if (keygen(path, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/client_key", dir);
    if (keygen(path, err, errlen) != 0)
        return -1;
    snprintf(pub, sizeof pub, "%s/client_key.pub", dir);
    snprintf(path, sizeof path, "%s/authorized_keys", dir);
    if (append_lines(pub, path, NULL, err, errlen, false) != 0)
        return -1;
    /* known_hosts: every host's address with the one host key. */
    snprintf(known, sizeof known, "%s/known_hosts", dir);
    snprintf(pub, sizeof pub, "%s/host_key.pub", dir);
    FILE *k = file_create(known, 0644, true, err, errlen);
    if (!k)
        return -1;
    if (fclose(k) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", known, strerror(errno));
        return -1;
    }
    for (unsigned i = 0; i <= lab->nhosts + lab->nclients; i++) {
        const char *name = i < lab->nhosts                   ? lab->hosts[i].name
                           : i < lab->nhosts + lab->nclients ? lab->clients[i - lab->nhosts].name
                                                             : LAB_SWITCH_HOST;
        char addr[64], who[96];
        unsigned port;
        if (!endpoint(lab, name, addr, sizeof addr, &port))
            continue;
        if (port == 22)
            snprintf(who, sizeof who, "%s ", addr);
        else
            snprintf(who, sizeof who, "[%s]:%u ", addr, port);
        if (append_lines(pub, known, who, err, errlen, true) != 0)
            return -1;
    }
    for (unsigned i = 1; i < lab->nhosts; i++)
        if (lab->hosts[i].netns[0] &&
            start_one(lab, fd, lab->hosts[i].name, lab->hosts[i].netns, false, err, errlen) != 0)
            return -1;
    for (unsigned i = 0; i < lab->nclients; i++)
        if (start_one(lab, fd, lab->clients[i].name, lab->clients[i].netns, true, err,
                      errlen) != 0)
            return -1;
    if (lab->nclients && write_mpi_agent(lab, dir, err, errlen) != 0)
        return -1;
    return start_one(lab, fd, LAB_SWITCH_HOST, "", false, err, errlen);
}

int lab_ssh_revive(struct lab *lab, int fd, const struct lab_host *h, char *err, size_t errlen)
{
    if (!h->sshd || proc_state(h->sshd, h->sshd_start) != PROC_GONE)
        return 0;
    return start_one(lab, fd, h->name, h->netns, false, err, errlen) == 0 ? 1 : -1;
}

/* This faultline's path, for a command that runs it again later (a
 * restart, a power command, also from `faultline cleanup`'s undo record),
 * when the file is one no other user could have replaced: owned by root or
 * us, not writable by group or others.  false (said on stderr) otherwise. */
static bool self_path(char *self, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", self, n - 1);
    if (len <= 0)
        return false;
    self[len] = '\0';
    char why[512];
    int fd = open(self, O_RDONLY | O_CLOEXEC);
    bool ok = fd >= 0 && trusted_file(fd, self, why, sizeof why) == 0;
    if (fd >= 0)
        close(fd);
    else
        snprintf(why, sizeof why, "cannot open %s: %s", self, strerror(errno));
    if (!ok)
        fprintf(stderr, "faultline: no restart or power commands for the lab's hosts: %s\n", why);
    return ok;
}

bool lab_ssh_of(const struct lab *lab, const char *host, struct ssh_dest *d, char *restart,
                size_t n)
{
    memset(d, 0, sizeof *d);
    if (restart && n)
        restart[0] = '\0';
    char addr[64], dir[160];
    unsigned port;
    if (!endpoint(lab, host, addr, sizeof addr, &port))
        return false;
    ssh_dir(lab, dir, sizeof dir);
    snprintf(d->dest, sizeof d->dest, "root@%s", addr);
    d->port = port == 22 ? 0 : port;
    snprintf(d->identity, sizeof d->identity, "%s/client_key", dir);
    snprintf(d->known_hosts, sizeof d->known_hosts, "%s/known_hosts", dir);
    snprintf(d->agent_dir, sizeof d->agent_dir, "%s/agent-%s", lab->dir, host);
    d->lease_ns = 5000000000ull;
    /* A lab host's service starts again through the lab, as `faultline lab
     * restart` does it (the same binary, from the host's own session). */
    char self[PATH_MAX];
    const struct lab_host *h = lab_host(lab, host);
    if (restart && h && h->service[0] && self_path(self, sizeof self)) {
        char cmd[PATH_MAX + 64];
        snprintf(cmd, sizeof cmd, "%s lab restart %s %s --prefix %s", self, lab->kind->name,
                 host, lab->prefix);
        if (!h->init) {
            snprintf(restart, n, "%s", cmd);
            return true;
        }
        /* A server that is a machine of its own sees neither the lab's
         * state nor the other namespaces: the lab, which keeps its
         * processes' records, starts it again from the switch's sshd (in
         * our namespace), as a controller outside would through a
         * server's management port. */
        struct ssh_dest sw;
        lab_ssh_of(lab, LAB_SWITCH_HOST, &sw, NULL, 0);
        if (!sshcmd_text(&sw, cmd, restart, n)) /* none: its restart fault says so */
            fprintf(stderr, "faultline: the restart of lab host %s through the switch's sshd "
                    "is longer than %zu characters; it has none\n", host, n - 1);
    }
    return true;
}

void lab_ssh_json(const struct lab *lab, struct json *j, const char *host)
{
    struct ssh_dest d;
    if (!lab_ssh_of(lab, host, &d, NULL, 0))
        return;
    char dest[160];
    if (d.port)
        snprintf(dest, sizeof dest, "%s:%llu", d.dest, (unsigned long long)d.port);
    else
        snprintf(dest, sizeof dest, "%s", d.dest);
    json_key(j, "ssh");
    json_str(j, dest);
    json_key(j, "ssh_identity");
    json_str(j, d.identity);
    json_key(j, "ssh_known_hosts");
    json_str(j, d.known_hosts);
    json_key(j, "agent_dir");
    json_str(j, d.agent_dir);
}

bool lab_ssh_power(const struct lab *lab, const char *host, struct host_power *p)
{
    memset(p, 0, sizeof *p);
    const struct lab_host *h = lab_host(lab, host);
    if (!lab->kind->faults->power || !h || !h->netns[0] || lab_is_client_host(h))
        return false;
    char self[PATH_MAX];
    struct ssh_dest sw;
    if (!lab_ssh_of(lab, LAB_SWITCH_HOST, &sw, NULL, 0) || !self_path(self, sizeof self))
        return false;
    static const char *const what[] = {"off", "on", "status"};
    char *out[] = {p->off, p->on, p->status};
    for (int i = 0; i < 3; i++) {
        char cmd[PATH_MAX + 96];
        snprintf(cmd, sizeof cmd, "%s lab power %s %s %s --prefix %s", self, lab->kind->name,
                 host, what[i], lab->prefix);
        if (!sshcmd_text(&sw, cmd, out[i], sizeof p->off)) {
            fprintf(stderr, "faultline: the power %s of lab host %s through the switch's sshd "
                    "is longer than %zu characters; it has none\n", what[i], host,
                    sizeof p->off - 1);
            memset(p, 0, sizeof *p);
            return false;
        }
    }
    /* A power-on returns once the host's daemons run again: the status
     * says on at its first answer; the off is as quick. */
    p->wait_ns = 30000000000ull;
    return true;
}
