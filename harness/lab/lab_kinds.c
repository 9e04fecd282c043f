/* lab_kinds — the table of lab kinds, the one file that names them all:
 * `faultline lab`, scenarios and messages look kinds up here (lab.h).  The
 * core files never use the table (they reach a kind through lab->kind), so
 * a kind's files may use the core without a loop. */
#include <stdio.h>
#include <string.h>

#include "lab_kind.h"

/* Every lab kind, one line each. */
#define KINDS(X)                                                                               \
    X(lab_iscsi)                                                                               \
    X(lab_gluster)                                                                             \
    X(lab_ceph)                                                                                \
    X(lab_ha)                                                                                  \
    /* one line per lab kind, each ending in a backslash */

#define DECLARE(kind) extern const struct lab_kind kind;
KINDS(DECLARE)
#define ENTRY(kind) &kind,
static const struct lab_kind *const kinds[] = {KINDS(ENTRY)};
#define NKINDS (sizeof kinds / sizeof kinds[0])

unsigned lab_kinds_all(const struct lab_kind *const **out)
{
    *out = kinds;
    return NKINDS;
}

const struct lab_kind *lab_kind_find(const char *name)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(kinds[i]->name, name) == 0)
            return kinds[i];
    return NULL;
}

/* "a, b" of the kinds that pass `want` (NULL: all). */
static const char *kind_list(char *text, size_t n, bool (*want)(const struct lab_kind *k))
{
    size_t used = 0;
    text[0] = '\0';
    for (size_t i = 0; i < NKINDS && used < n; i++)
        if (!want || want(kinds[i]))
            used += (size_t)snprintf(text + used, n - used, "%s%s", used ? ", " : "",
                                     kinds[i]->name);
    return text;
}

const char *lab_kinds(void)
{
    static char text[128];
    return text[0] ? text : kind_list(text, sizeof text, NULL);
}

static bool keeps_replicas(const struct lab_kind *k)
{
    return k->faults->replica != NULL;
}

const char *lab_kinds_with_replicas(void)
{
    static char text[128];
    return text[0] ? text : kind_list(text, sizeof text, keeps_replicas);
}

const struct lab_kind *lab_kind_serving(const char *target)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (kinds[i]->serves && strcmp(kinds[i]->serves, target) == 0)
            return kinds[i];
    return NULL;
}
