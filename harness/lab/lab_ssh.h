/* lab_ssh — an OpenSSH server on every lab host (lab_ssh.c; lab_ssh_of is
 * in lab.h): what the core calls while it brings a lab up, powers a server
 * on, and tells its status. */
#ifndef FL_LAB_SSH_H
#define FL_LAB_SSH_H

#include "lab.h"

/* Keys, known_hosts and one sshd per server and for the switch; each
 * recorded ("sshd HOST PID START") before it starts.  0, or -1 with err. */
int lab_ssh_start(struct lab *lab, int fd, char *err, size_t errlen);

/* After server h's power-on: its sshd started again (and recorded) if the
 * power cut took it, as a server's sshd comes up when the server boots.
 * 1 started, 0 still running (or none), -1 with err. */
int lab_ssh_revive(struct lab *lab, int fd, const struct lab_host *h, char *err, size_t errlen);

/* The script mpirun reaches the client hosts with (plm_rsh_agent). */
void lab_ssh_mpi_agent(const struct lab *lab, char *out, size_t n);

/* ssh, ssh_identity, ssh_known_hosts, agent_dir of a host, into `lab status --json`. */
void lab_ssh_json(const struct lab *lab, struct json *j, const char *host);

#endif
