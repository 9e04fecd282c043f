/*
 * cleanup — a killed run's agents: for each "agent TAG DEST" record of the
 * controller's undo log (record.c), `faultline cleanup` has the agent on
 * DEST replay what run TAG left open there.
 */
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/jsonl.h"

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
