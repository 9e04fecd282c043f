/*
 * lab_clients — client hosts c1..cN of a lab ([lab] clients = N > 1), for a
 * run over several clients, and the management network they are reached on.
 *
 *   cK          namespace P-KIND-cK with a hostname of its own (cK), eth0
 *               198.18.X.(100+K)/24 on the storage switch (port SWITCH-cK),
 *               mg0 198.19.X.(100+K)/24 on the management switch
 *   management  bridge P-Kmg in our namespace, 198.19.X.1/24; it carries
 *               ssh and MPI only, and no fault ever touches it, like a real
 *               cluster's admin network
 *   P-KIND-sw   a name for our own namespace (where both switches are), so
 *               that rank 0, which runs in c1, can act on the switch's ports
 *
 * Each client host runs an sshd on its management address (lab_ssh.c);
 * `faultline run` starts the ranks in them with mpirun over that ssh
 * (lab_mpirun), one rank per client host, and each rank finds its own
 * place of the target (the kind's place(), by client).  Everything is
 * recorded in the lab's state before it is made, as for the servers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/net.h"
#include "../../lib/proc.h"
#include "lab_clients.h"
#include "lab_kind.h"
#include "lab_record.h"
#include "lab_ssh.h"
#include "lab_switch.h"

void lab_lay_out_clients(struct lab *lab)
{
    unsigned n = lab->opts.clients > 1 ? (unsigned)lab->opts.clients : 0;
    if (n > LAB_MAX_CLIENTS)
        n = LAB_MAX_CLIENTS;
    lab->nclients = n;
    lab->mgmt_bridge[0] = lab->mgmt_addr[0] = lab->switch_netns[0] = '\0';
    if (!n)
        return;
    const char *P = lab->prefix, *kind = lab->kind->name;
    snprintf(lab->mgmt_bridge, sizeof lab->mgmt_bridge, "%.8s-%cmg", P, kind[0]);
    snprintf(lab->mgmt_addr, sizeof lab->mgmt_addr, "198.19.%u.1", lab->subnet);
    snprintf(lab->switch_netns, sizeof lab->switch_netns, "%s-%s-sw", P, kind);
    for (unsigned k = 1; k <= n; k++) {
        struct lab_host *h = &lab->clients[k - 1];
        memset(h, 0, sizeof *h);
        snprintf(h->name, sizeof h->name, "c%u", k);
        snprintf(h->netns, sizeof h->netns, "%s-%s-c%u", P, kind, k);
        snprintf(h->ifname, sizeof h->ifname, "eth0");
        snprintf(h->port, sizeof h->port, "%.12s-c%u", lab->bridge, k);
        snprintf(h->addr, sizeof h->addr, "198.18.%u.%u", lab->subnet, 100 + k);
        snprintf(h->mgmt_if, sizeof h->mgmt_if, "mg0");
        snprintf(h->mgmt_port, sizeof h->mgmt_port, "%.8s-%cm%u", P, kind[0], k);
        snprintf(h->mgmt_addr, sizeof h->mgmt_addr, "198.19.%u.%u", lab->subnet, 100 + k);
        snprintf(h->home, sizeof h->home, "%s/c%u", lab->dir, k);
        snprintf(h->log, sizeof h->log, "%s/client.log", h->home);
        snprintf(h->service, sizeof h->service, "%s",
                 lab->kind->build->client_service ? lab->kind->build->client_service : "");
    }
}

int lab_clients_build(struct lab *lab, struct nl_sock *sk, int fd, char *err, size_t errlen)
{
    if (!lab->nclients)
        return 0;
    char cidr[40];
    snprintf(cidr, sizeof cidr, "%s/24", lab->mgmt_addr);
    if (lab_rec(fd, err, errlen, "netns %s", lab->switch_netns) != 0 ||
        netns_name_ours(lab->switch_netns, err, errlen) != 0 ||
        lab_rec(fd, err, errlen, "link %s", lab->mgmt_bridge) != 0 ||
        net_bridge_add(sk, lab->mgmt_bridge, err, errlen) != 0 ||
        net_link_set_up(sk, lab->mgmt_bridge, true, err, errlen) != 0 ||
        net_addr_add(sk, lab->mgmt_bridge, cidr, err, errlen) != 0)
        return -1;
    for (unsigned k = 0; k < lab->nclients; k++) {
        const struct lab_host *h = &lab->clients[k];
        /* what runs there (a FUSE client, a rank) goes at lab down */
        if (lab_rec(fd, err, errlen, "nsprocs %s", h->netns) != 0 ||
            lab_rec(fd, err, errlen, "netns %s", h->netns) != 0 ||
            netns_create(h->netns, err, errlen) != 0)
            return -1;
        /* (inside the lab directory: it goes with it) */
        if (mkdir(h->home, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", h->home, strerror(errno));
            return -1;
        }
        if (lab_cable(sk, fd, lab->bridge, h->port, h->netns, h->ifname, h->addr, err,
                      errlen) != 0 ||
            lab_cable(sk, fd, lab->mgmt_bridge, h->mgmt_port, h->netns, h->mgmt_if,
                      h->mgmt_addr, err, errlen) != 0)
            return -1;
    }
    return 0;
}

bool lab_clients_healthy(const struct lab *lab, struct nl_sock *sk, char *why, size_t n)
{
    if (!lab->nclients)
        return true;
    char err[256];
    struct link_state st;
    if (!netns_exists(lab->switch_netns)) {
        snprintf(why, n, "the name %s of our namespace is missing", lab->switch_netns);
        return false;
    }
    if (net_link_state(sk, lab->mgmt_bridge, &st, err, sizeof err) != 0 || !st.exists) {
        snprintf(why, n, "management switch %s is missing", lab->mgmt_bridge);
        return false;
    }
    for (unsigned k = 0; k < lab->nclients; k++) {
        const struct lab_host *h = &lab->clients[k];
        if (!netns_exists(h->netns)) {
            snprintf(why, n, "namespace %s of client host %s is missing", h->netns, h->name);
            return false;
        }
        if (net_link_state(sk, h->port, &st, err, sizeof err) != 0 || !st.exists ||
            net_link_state(sk, h->mgmt_port, &st, err, sizeof err) != 0 || !st.exists) {
            snprintf(why, n, "a link of client host %s is missing", h->name);
            return false;
        }
        if (!h->sshd || proc_state(h->sshd, h->sshd_start) == PROC_GONE) {
            snprintf(why, n, "the sshd of %s is not running", h->name);
            return false;
        }
    }
    return true;
}

unsigned lab_client_of_self(const struct lab *lab)
{
    struct stat self, ns;
    if (stat("/proc/self/ns/net", &self) != 0)
        return 0;
    for (unsigned k = 0; k < lab->nclients; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", NETNS_DIR, lab->clients[k].netns);
        if (stat(path, &ns) == 0 && ns.st_ino == self.st_ino && ns.st_dev == self.st_dev)
            return k + 1;
    }
    return 0;
}

/* A word of the command line, copied. */
static int push(char ***v, size_t *n, const char *w)
{
    char **nv = realloc(*v, (*n + 2) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup(w)))
        return -1;
    nv[++*n] = NULL;
    return 0;
}

int lab_mpirun(const struct lab *lab, unsigned ranks, char *const argv[], char ***out, char *err,
               size_t errlen)
{
    *out = NULL;
    if (ranks < 2 || ranks > lab->nclients) {
        snprintf(err, errlen, "%u ranks on a lab of %u client hosts", ranks, lab->nclients);
        return -1;
    }
    char hosts[LAB_MAX_CLIENTS * 24] = "", n[16], net[40], agent[256], prefix[64];
    size_t used = 0;
    for (unsigned k = 0; k < ranks; k++)
        used += (size_t)snprintf(hosts + used, sizeof hosts - used, "%s%s:1", k ? "," : "",
                                 lab->clients[k].mgmt_addr);
    snprintf(n, sizeof n, "%u", ranks);
    snprintf(net, sizeof net, "198.19.%u.0/24", lab->subnet);
    lab_ssh_mpi_agent(lab, agent, sizeof agent);
    snprintf(prefix, sizeof prefix, "FAULTLINE_LAB_PREFIX=%s", lab->prefix);
    /* One rank per client host, in order (rank r in c(r+1)); every rank
     * keeps running when another dies (--enable-recovery), so that rank 0
     * can name it lost; no binding (each client host looks like a node of
     * its own, and all of them would take core 0); MPI and its launcher
     * only on the management network. */
    const char *words[] = {"mpirun", "--allow-run-as-root", "--enable-recovery", "--bind-to",
                           "none", "-n", n, "-H", hosts, "--mca", "plm_rsh_agent", agent,
                           "--mca", "oob_tcp_if_include", net, "--mca", "btl", "tcp,self",
                           "--mca", "btl_tcp_if_include", net, "-x", prefix, NULL};
    char **v = NULL;
    size_t nv = 0;
    int rc = 0;
    for (size_t i = 0; words[i] && rc == 0; i++)
        rc = push(&v, &nv, words[i]);
    /* The ranks start over ssh, which passes no environment: a sanitizer
     * build's options go with them, and that the run is one repetition of
     * several (repeat.h: REPEAT_ENV). */
    static const char *const pass_on[] = {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
                                          "FAULTLINE_REPETITION"};
    for (size_t i = 0; i < sizeof pass_on / sizeof pass_on[0] && rc == 0; i++)
        if (getenv(pass_on[i]) && (rc = push(&v, &nv, "-x")) == 0)
            rc = push(&v, &nv, pass_on[i]);
    for (size_t i = 0; argv[i] && rc == 0; i++)
        rc = push(&v, &nv, argv[i]);
    if (rc != 0) {
        for (size_t i = 0; v && i < nv; i++)
            free(v[i]);
        free(v);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *out = v;
    return 0;
}
