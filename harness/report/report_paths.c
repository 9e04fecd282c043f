/* report_paths — see report_paths.h. */
#include "report_paths.h"

#include <stdint.h>
#include <string.h>

#include "../../lib/json.h"
#include "../lab/lab.h"

static unsigned paths_of(const struct report *r)
{
    return r->path_names ? r->npaths : 0;
}

void report_path_name(const struct report *r, unsigned i, char *out, size_t n)
{
    const char *portal = r->path_names[i];
    /* the host part of HOST:PORT (a bracketed IPv6 address keeps its brackets) */
    const char *colon = strrchr(portal, ':');
    size_t hostlen = colon ? (size_t)(colon - portal) : strlen(portal);
    /* the lab's hosts (known with faults or without), then the faults' */
    for (unsigned k = 0; r->lab && k < r->lab->nhosts; k++) {
        const struct lab_host *h = &r->lab->hosts[k];
        if (h->addr[0] && strlen(h->addr) == hostlen && strncmp(h->addr, portal, hostlen) == 0) {
            snprintf(out, n, "%s %s", h->name, portal);
            return;
        }
    }
    for (unsigned k = 0; k < r->nhosts; k++) {
        const struct fault_host *h = &r->hosts[k];
        if (h->addr[0] && strlen(h->addr) == hostlen && strncmp(h->addr, portal, hostlen) == 0) {
            snprintf(out, n, "%s %s", h->name, portal);
            return;
        }
    }
    snprintf(out, n, "%s", portal);
}

void report_json_paths(struct json *j, const struct report *r)
{
    json_key(j, "paths");
    json_arr_begin(j);
    for (unsigned i = 0; i < paths_of(r); i++) {
        char name[FL_URL_MAX + 64];
        report_path_name(r, i, name, sizeof name);
        json_str(j, name);
    }
    json_arr_end(j);
}




