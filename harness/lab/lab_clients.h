/* lab_clients — client hosts c1..cN and the management network
 * (lab_clients.c; lab_client_of_self and lab_mpirun are in lab.h): what the
 * core calls to lay them out, build them and check them. */
#ifndef FL_LAB_CLIENTS_H
#define FL_LAB_CLIENTS_H

#include "lab.h"

struct nl_sock;

/* Names and addresses of the client hosts, from [lab] clients. */
void lab_lay_out_clients(struct lab *lab);

/* A name for our namespace, the management switch with our address, and
 * every client host (namespace with its own hostname, storage link on the
 * switch, management link), each recorded first.  0, or -1 with err. */
int lab_clients_build(struct lab *lab, struct nl_sock *sk, int fd, char *err, size_t errlen);

/* Whether every client host and the management switch are there. */
bool lab_clients_healthy(const struct lab *lab, struct nl_sock *sk, char *why, size_t n);

#endif
