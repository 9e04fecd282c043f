/* lab_status — `faultline lab status`: the lab's hosts, ports and
 * services, as lines or JSON, and the kind's own part.  See lab.h. */
#include <stdio.h>

#include "../../lib/json.h"
#include "../../lib/net.h"
#include "../../lib/proc.h"
#include "lab_disk.h"
#include "lab_kind.h"
#include "lab_ssh.h"

static void host_json(struct json *j, const struct lab *lab, const struct lab_host *h,
                      struct nl_sock *sk)
{
    struct link_state st = {0};
    char err[256];
    if (sk)
        net_link_state(sk, h->port, &st, err, sizeof err);
    json_obj_begin(j);
    json_key(j, "name");
    json_str(j, h->name);
    json_key(j, "netns");
    if (h->netns[0])
        json_str(j, h->netns);
    else
        json_null(j);
    json_key(j, "interface");
    json_str(j, h->ifname);
    json_key(j, "address");
    json_str(j, h->addr);
    json_key(j, "switch_port");
    json_str(j, h->port);
    json_key(j, "port_up");
    json_bool(j, st.exists && st.admin_up);
    if (h->mgmt_addr[0]) {
        json_key(j, "management_address");
        json_str(j, h->mgmt_addr);
    }
    lab_ssh_json(lab, j, h->name);
    if (h->pid) {
        json_key(j, "process");
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, h->service);
        json_key(j, "pid");
        json_i64(j, h->pid);
        json_key(j, "state");
        json_str(j, proc_state_name(proc_state(h->pid, h->start)));
        if (h->ctlport) {
            json_key(j, "control_port");
            json_u64(j, h->ctlport);
        }
        json_key(j, "log");
        json_str(j, h->log);
        json_obj_end(j);
    }
    json_obj_end(j);
}

static void status_json(const struct lab *lab, struct nl_sock *sk, FILE *out)
{
    struct json j;
    json_init(&j, out, true);
    json_obj_begin(&j);
    json_key(&j, "lab");
    json_str(&j, lab->kind->name);
    json_key(&j, "prefix");
    json_str(&j, lab->prefix);
    json_key(&j, "switch");
    json_str(&j, lab->bridge);
    json_key(&j, "subnet");
    char net[32];
    snprintf(net, sizeof net, "198.18.%u.0/24", lab->subnet);
    json_str(&j, net);
    json_key(&j, "hosts");
    json_arr_begin(&j);
    for (unsigned i = 0; i < lab->nhosts; i++)
        host_json(&j, lab, &lab->hosts[i], sk);
    json_arr_end(&j);
    json_key(&j, "clients"); /* client hosts c1..cN ([lab] clients) */
    json_arr_begin(&j);
    for (unsigned i = 0; i < lab->nclients; i++)
        host_json(&j, lab, &lab->clients[i], sk);
    json_arr_end(&j);
    if (lab->nclients) {
        json_key(&j, "management");
        json_obj_begin(&j);
        json_key(&j, "switch");
        json_str(&j, lab->mgmt_bridge);
        json_key(&j, "address");
        json_str(&j, lab->mgmt_addr);
        json_key(&j, "subnet");
        char mnet[32];
        snprintf(mnet, sizeof mnet, "198.19.%u.0/24", lab->subnet);
        json_str(&j, mnet);
        json_obj_end(&j);
    }
    json_key(&j, "switch_host"); /* the switch, reached over ssh ([lab] control = ssh) */
    json_obj_begin(&j);
    json_key(&j, "name");
    json_str(&j, LAB_SWITCH_HOST);
    lab_ssh_json(lab, &j, LAB_SWITCH_HOST);
    json_obj_end(&j);
    lab->kind->report->status(lab, &j, out);
    lab_disks_status(lab, &j, out);
    json_obj_end(&j);
    fputc('\n', out);
}

/* One host of `lab status`: where it is, its port, its service, its ssh. */
static void host_line(const struct lab_host *h, struct nl_sock *sk, FILE *out)
{
    struct link_state st = {0};
    char err[256];
    if (sk)
        net_link_state(sk, h->port, &st, err, sizeof err);
    fprintf(out, "  %-7s %s%s, %s %s/24, switch port %s (%s)", h->name,
            h->netns[0] ? "namespace " : "our namespace", h->netns, h->ifname, h->addr, h->port,
            !st.exists ? "missing" : st.admin_up ? "up" : "DOWN");
    if (h->mgmt_addr[0])
        fprintf(out, ", management %s", h->mgmt_addr);
    if (h->pid && h->ctlport)
        fprintf(out, ", %s pid %d %s (control port %u)", h->service, (int)h->pid,
                proc_state_name(proc_state(h->pid, h->start)), h->ctlport);
    else if (h->pid && h->netns[0])
        fprintf(out, ", %s pid %d %s", h->service, (int)h->pid,
                proc_state_name(proc_state(h->pid, h->start)));
    if (h->sshd)
        fprintf(out, ", ssh root@%s", h->mgmt_addr[0] ? h->mgmt_addr : h->addr);
    fputc('\n', out);
}

static void status_text(const struct lab *lab, struct nl_sock *sk, FILE *out)
{
    fprintf(out, "lab %s (prefix %s): switch %s, subnet 198.18.%u.0/24\n", lab->kind->name,
            lab->prefix, lab->bridge, lab->subnet);
    for (unsigned i = 0; i < lab->nhosts; i++)
        host_line(&lab->hosts[i], sk, out);
    if (lab->switch_sshd)
        fprintf(out, "  switch  ssh root@%s port %d (its ports, for faults over ssh)\n",
                lab->hosts[0].addr, LAB_SWITCH_SSH_PORT);
    if (lab->nclients)
        fprintf(out, "  management network %s, 198.19.%u.0/24 (ssh and MPI to the client hosts; "
                     "never faulted)\n", lab->mgmt_bridge, lab->subnet);
    for (unsigned i = 0; i < lab->nclients; i++)
        host_line(&lab->clients[i], sk, out);
    lab->kind->report->status(lab, NULL, out);
    lab_disks_status(lab, NULL, out);
}

void lab_status(const struct lab *lab, bool json, FILE *out)
{
    char err[256];
    struct nl_sock *sk = net_open(NULL, err, sizeof err);
    if (json)
        status_json(lab, sk, out);
    else
        status_text(lab, sk, out);
    net_close(sk);
}
