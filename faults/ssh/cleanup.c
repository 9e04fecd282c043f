/*
 * cleanup — a killed run's agents: the controller's undo log names each
 * one as "agent TAG DEST" (DEST the host's ssh_dest as one line), and
 * `faultline cleanup` has each replay what its run left open there.
 */
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/jsonl.h"

/* --- the ssh_dest as one line --- */

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

int remote_cleanup(const struct ssh_dest *dest, const char *tag, char *said, size_t saidlen,
                   char *err, size_t errlen)
{
    said[0] = '\0';
    char log[] = "/tmp/fl-ssh-XXXXXX";
    int fd = mkstemp(log);
    if (fd < 0) {
        snprintf(err, errlen, "cannot make a log file for ssh: %s", strerror(errno));
        return -1;
    }
    close(fd);
    struct remote *r = remote_connect(dest, dest->dest, "cleanup", tag, log, err, errlen);
    unlink(log);
    if (!r)
        return -1;
    struct jl_obj m;
    char why[256];
    int rc = -1;
    if (jl_parse(r->first, &m, why, sizeof why) != 0) {
        snprintf(err, errlen, "the agent on %s answered the cleanup with %s", dest->dest, why);
    } else {
        uint64_t undone = 0;
        jl_u64(&m, "undone", &undone);
        const char *restored = jl_str(&m, "restored"), *e = jl_str(&m, "error");
        const char *run = jl_str(&m, "run");
        if (jl_bool(&m, "ok", false) && !jl_bool(&m, "found", true)) {
            rc = 0;
            snprintf(said, saidlen, "%s: the agent holds no run %s (%s): it put everything "
                     "back and removed it, or it never served that run there", dest->dest, tag,
                     run ? run : "its home");
        } else if (jl_bool(&m, "ok", false)) {
            rc = 0;
            snprintf(said, saidlen, "%s: the agent undid %llu record(s); it had restored by "
                     "itself: %s", dest->dest, (unsigned long long)undone,
                     restored && restored[0] ? restored : "nothing");
        } else {
            snprintf(err, errlen, "%s: %s", dest->dest, e ? e : "the agent's cleanup failed");
        }
        jl_free(&m);
    }
    remote_close(r);
    return rc;
}
