/* settle — see settle.h. */
#include "settle.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/proc.h"

#define COMMAND_TIMEOUT_MS 60000 /* one settle_command run */

static uint64_t hash_of(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int settle_ask(const struct fault_spec *spec, struct heal_watch *heal, unsigned active,
               uint64_t since_ns, struct settle_wait *w, bool *progress)
{
    *progress = false;
    if (!w->asked)
        w->best = LONG_MAX;
    bool first = !w->asked;
    w->asked = true;
    if (active) {
        snprintf(w->what, sizeof w->what, "%u other fault%s in effect", active,
                 active == 1 ? "" : "s");
        return 0;
    }
    if (spec->settle_command[0]) {
        char out[4096] = "";
        char *argv[] = {"/bin/sh", "-c", (char *)spec->settle_command, NULL};
        int rc = proc_run(argv, out, sizeof out, COMMAND_TIMEOUT_MS);
        uint64_t h = hash_of(out) ^ (uint64_t)rc;
        *progress = !first && h != w->last_hash;
        w->last_hash = h;
        size_t l = strcspn(out, "\n");
        snprintf(w->what, sizeof w->what, "settle_command exited %d: %.*s", rc,
                 (int)(l > 200 ? 200 : l), out);
        return rc == 0;
    }
    if (!heal) {
        snprintf(w->what, sizeof w->what, "nothing says whether the storage is whole (no "
                 "heal or recovery of a lab or [cluster], no settle_command)");
        return -1;
    }
    long missing;
    unsigned whole = heal_watch_whole_since(heal, since_ns, &missing);
    if (whole >= 2) {
        snprintf(w->what, sizeof w->what, "nothing missing in %u answers", whole);
        return 1;
    }
    if (missing >= 0 && missing < w->best) {
        *progress = w->best != LONG_MAX;
        w->best = missing;
    }
    if (missing == -2)
        snprintf(w->what, sizeof w->what, "no answer since the latest clear yet");
    else if (missing == -1)
        snprintf(w->what, sizeof w->what, "the last question failed");
    else
        snprintf(w->what, sizeof w->what, "%ld entries or placement groups still short of "
                 "their replicas", missing);
    return 0;
}
