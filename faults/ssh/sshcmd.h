/*
 * sshcmd — the OpenSSH command line that reaches a host (struct ssh_dest,
 * host.h), written once: spawn.c starts `faultline agent` through it,
 * and the storage kinds ask a real cluster's own CLI through it
 * (harness/storage).  The user's ~/.ssh/config applies; the host's
 * ssh_identity, ssh_known_hosts (then checked strictly), port and
 * ssh_options are handed to ssh as they are; no prompt can ever wait
 * (BatchMode), and a host that does not answer fails in 10 s.
 */
#ifndef FL_SSHCMD_H
#define FL_SSHCMD_H

#include <stddef.h>

#include "../host.h"

#define SSHCMD_MAX_ARGS 64

/* An argv for execvp and the words it points into (no allocation: one
 * per caller, valid while it lives). */
struct sshcmd {
    char *argv[SSHCMD_MAX_ARGS];
    char port[32], known_hosts[300], options[512];
};

/* ssh [OPTIONS] -- DEST COMMAND: COMMAND is one word, what the remote
 * shell runs (quote it for that shell: sshcmd_quote). */
void sshcmd_argv(const struct ssh_dest *d, const char *command, struct sshcmd *c);

/* The same as one line for /bin/sh, each word quoted.  false when it does
 * not fit in n (out is then empty). */
bool sshcmd_text(const struct ssh_dest *d, const char *command, char *out, size_t n);

/* Appends word to out quoted for a POSIX shell ('...', a ' as '\''),
 * preceded by a blank unless out is empty.  false when it does not fit
 * (out is then cut at the last whole word). */
bool sshcmd_quote(char *out, size_t n, const char *word);

#endif
