/* table — the table of fault families; see table.h. */
#include "table.h"

#include <stdio.h>
#include <string.h>

/* Every family, one line each, in the order of the reference. */
#define FAMILIES(X)                                                                            \
    X(fault_link_down)                                                                         \
    X(fault_port_down)                                                                         \
    X(fault_port_flap)                                                                         \
    X(fault_switch_down)                                                                       \
    X(fault_partition)                                                                         \
    X(fault_loss)                                                                              \
    X(fault_bandwidth)                                                                         \
    X(fault_kill)                                                                              \
    X(fault_pause)                                                                             \
    X(fault_restart)                                                                           \
    X(fault_corrupt)                                                                           \
    X(fault_scrub)                                                                             \
    X(fault_power_off)                                                                         \
    X(fault_disk_fail)                                                                         \
    X(fault_disk_errors)                                                                       \
    X(fault_disk_slow)                                                                         \
    X(fault_disk_full)                                                                         \
    X(fault_command)                                                                           \
    X(fault_switchover)                                                                        \
    /* one line per family, each ending in a backslash */

#define DECLARE(ops) extern const struct fault_ops ops;
FAMILIES(DECLARE)
#define ENTRY(ops) &ops,
static const struct fault_ops *const families[] = {FAMILIES(ENTRY)};
#define NFAMILIES (sizeof families / sizeof families[0])

unsigned fault_families(const struct fault_ops *const **out)
{
    *out = families;
    return NFAMILIES;
}

const struct fault_ops *fault_ops_find(const char *action)
{
    for (size_t i = 0; i < NFAMILIES; i++)
        if (strcmp(families[i]->action, action) == 0)
            return families[i];
    return NULL;
}

const char *fault_actions(void)
{
    static char text[512];
    if (!text[0]) {
        size_t used = 0;
        for (size_t i = 0; i < NFAMILIES && used < sizeof text; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", i ? "|" : "",
                                     families[i]->action);
    }
    return text;
}

void fault_keys_text(const struct fault_ops *ops, char *out, size_t n)
{
    size_t used = (size_t)snprintf(out, n, " ");
    for (unsigned i = 0; i < ops->nkeys && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s ", ops->keys[i].name);
}
