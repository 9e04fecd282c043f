/* sshcmd — see sshcmd.h. */
#include "sshcmd.h"

#include <stdio.h>
#include <string.h>

static void add(struct sshcmd *c, int *argc, char *arg)
{
    if (*argc < SSHCMD_MAX_ARGS - 1)
        c->argv[(*argc)++] = arg;
}

void sshcmd_argv(const struct ssh_dest *d, const char *command, struct sshcmd *c)
{
    int argc = 0;
    add(c, &argc, "ssh");
    add(c, &argc, "-T");
    add(c, &argc, "-oBatchMode=yes");
    add(c, &argc, "-oConnectTimeout=10");
    add(c, &argc, "-oLogLevel=ERROR");
    if (d->port) {
        snprintf(c->port, sizeof c->port, "%llu", (unsigned long long)d->port);
        add(c, &argc, "-p");
        add(c, &argc, c->port);
    }
    if (d->identity[0]) {
        add(c, &argc, "-i");
        add(c, &argc, (char *)d->identity);
        add(c, &argc, "-oIdentitiesOnly=yes");
    }
    if (d->known_hosts[0]) {
        snprintf(c->known_hosts, sizeof c->known_hosts, "-oUserKnownHostsFile=%s",
                 d->known_hosts);
        add(c, &argc, c->known_hosts);
        add(c, &argc, "-oStrictHostKeyChecking=yes");
    }
    snprintf(c->options, sizeof c->options, "%s", d->options);
    char *save = NULL;
    for (char *w = strtok_r(c->options, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        add(c, &argc, w);
    add(c, &argc, "--");
    add(c, &argc, (char *)d->dest);
    add(c, &argc, (char *)command);
    c->argv[argc] = NULL;
}

bool sshcmd_quote(char *out, size_t n, const char *word)
{
    size_t len = strlen(out), at = len;
    if (len && at < n)
        out[at++] = ' ';
    if (at < n)
        out[at++] = '\'';
    for (const char *p = word; *p && at < n; p++) {
        if (*p == '\'') {
            for (const char *q = "'\\''"; *q && at < n; q++)
                out[at++] = *q;
        } else {
            out[at++] = *p;
        }
    }
    if (at + 1 < n) {
        out[at++] = '\'';
        out[at] = '\0';
        return true;
    }
    out[len] = '\0';
    return false;
}

bool sshcmd_text(const struct ssh_dest *d, const char *command, char *out, size_t n)
{
    struct sshcmd c;
    sshcmd_argv(d, command, &c);
    out[0] = '\0';
    for (int i = 0; c.argv[i]; i++)
        if (!sshcmd_quote(out, n, c.argv[i])) {
            out[0] = '\0';
            return false;
        }
    return true;
}
