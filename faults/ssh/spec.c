/* spec — a fault's spec on the agent's wire; see spec.h. */
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonl.h"
#include "../table.h"

void fault_spec_put(const struct fault_spec *s, struct jl_out *o)
{
    jl_put_str(o, "name", s->name);
    jl_put_str(o, "action", s->ops->action);
    /* Only what differs from the defaults: a value the defaults leave
     * unset (0: "until the end") may be out of its key's range. */
    struct fault_spec *defaults = calloc(1, sizeof *defaults);
    char why[256];
    if (defaults)
        key_defaults(defaults, s->ops->keys, s->ops->nkeys, why, sizeof why);
    for (unsigned i = 0; i < s->ops->nkeys; i++) {
        char key[64], value[2048];
        if (defaults && key_same(s, defaults, &s->ops->keys[i]))
            continue;
        snprintf(key, sizeof key, "k.%s", s->ops->keys[i].name);
        key_format(s, &s->ops->keys[i], value, sizeof value);
        jl_put_str(o, key, value);
    }
    free(defaults);
}

int fault_spec_get(const struct jl_obj *m, const struct fault_rules *rules,
                   struct fault_spec *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    const char *name = jl_str(m, "name"), *action = jl_str(m, "action");
    if (!name || !action || !(s->ops = fault_ops_find(action))) {
        snprintf(err, errlen, "a fault needs a name and one of the actions %s", fault_actions());
        return -1;
    }
    snprintf(s->name, sizeof s->name, "%s", name);
    if (key_defaults(s, s->ops->keys, s->ops->nkeys, err, errlen) != 0)
        return -1;
    for (unsigned i = 0; i < m->n; i++) {
        const struct jl_item *it = &m->items[i];
        if (strncmp(it->key, "k.", 2) != 0)
            continue;
        const struct key_def *k = key_find(s->ops->keys, s->ops->nkeys, it->key + 2);
        if (!k || it->type != JL_STR) {
            snprintf(err, errlen, "%s takes no key '%s'", action, it->key + 2);
            return -1;
        }
        char why[256];
        if (key_set(s, k, it->str, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", it->key + 2, why);
            return -1;
        }
    }
    if (s->ops->check && s->ops->check(s, rules, err, errlen) != 0)
        return -1;
    return 0;
}
