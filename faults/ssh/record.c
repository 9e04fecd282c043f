/*
 * record — the record the ssh transport adds to the controller's undo log
 * (undo.h): "agent TAG DEST", one for every agent a run started, DEST the
 * host's ssh_dest as one line.  The kind registers itself with undo before
 * main() runs, so that `faultline cleanup` (undo_replay) has the agent of
 * a killed run replay what it left open on its host (cleanup.c), without
 * undo knowing the transport.
 */
#include "remote.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../undo.h"


void remote_dest_encode(const struct ssh_dest *d, char *out, size_t n)
{
    snprintf(out, n, "%s|%llu|%s|%s|%d|%s|%llu|%s", d->dest, (unsigned long long)d->port,
             d->identity, d->known_hosts, d->sudo ? 1 : 0, d->agent_dir,
             (unsigned long long)d->lease_ns, d->options);
}

static const char *field(const char *p, char *out, size_t n)
{
    size_t len = strcspn(p, "|");
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
    return p[len] ? p + len + 1 : p + len;
}

int remote_dest_decode(const char *text, struct ssh_dest *d)
{
    memset(d, 0, sizeof *d);
    char num[32];
    const char *p = field(text, d->dest, sizeof d->dest);
    p = field(p, num, sizeof num);
    d->port = strtoull(num, NULL, 10);
    p = field(p, d->identity, sizeof d->identity);
    p = field(p, d->known_hosts, sizeof d->known_hosts);
    p = field(p, num, sizeof num);
    d->sudo = num[0] == '1';
    p = field(p, d->agent_dir, sizeof d->agent_dir);
    p = field(p, num, sizeof num);
    d->lease_ns = strtoull(num, NULL, 10);
    snprintf(d->options, sizeof d->options, "%s", p);
    return d->dest[0] ? 0 : -1;
}

/* --- cleanup of a killed run --- */

/* agent TAG DEST: the agent of an ssh host replays run TAG there; what it
 * says goes to stdout for `faultline cleanup`. */
static int replay_agent(const char *tag, const char *rest, char *err, size_t errlen)
{
    struct ssh_dest d;
    if (remote_dest_decode(rest, &d) != 0) {
        snprintf(err, errlen, "an agent record without a host: '%s'", rest);
        return -1;
    }
    char said[4096];
    if (remote_cleanup(&d, tag, said, sizeof said, err, errlen) != 0)
        return -1;
    printf("  %s\n", said);
    return 0;
}

static int check_agent(const char *tag, const char *rest, char *err, size_t errlen)
{
    (void)tag;
    struct ssh_dest d;
    if (remote_dest_decode(rest, &d) != 0) {
        snprintf(err, errlen, "an agent record without a host: '%s'", rest);
        return -1;
    }
    return 0;
}

const struct undo_kind remote_undo_kind = {"agent", false, replay_agent, check_agent};

__attribute__((constructor)) static void register_agent_records(void)
{
    undo_register(&remote_undo_kind);
}
