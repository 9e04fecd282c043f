/* fault — the table of families and what they share; see fault.h. */
#include "fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/clock.h"
#include "../lib/jsonl.h"
#include "ssh/remote.h"
#include "undo.h"

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
    X(fault_command)                                                                           \
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

void *fault_state(struct fault *f, size_t size, char *err, size_t errlen)
{
    fault_release(f); /* prepared again: start afresh */
    f->state = calloc(1, size);
    if (!f->state)
        snprintf(err, errlen, "out of memory for fault %s", f->spec.name);
    return f->state;
}

void fault_release(struct fault *f)
{
    if (!f->state)
        return;
    if (f->ops && f->ops->release && !f->remote) /* a remote fault's state is the connection's */
        f->ops->release(f);
    free(f->state);
    f->state = NULL;
}

void fault_schedule_of(const struct fault_spec *s, struct fault_schedule *out)
{
    memset(out, 0, sizeof *out);
    if (s->ops && s->ops->schedule) {
        s->ops->schedule(s, out);
        return;
    }
    out->shape = FAULT_LASTING;
    out->clear_after_ns = s->duration_ns;
}

int fault_plan_undo(struct fault *f, const char *kind, const char *args)
{
    if (f->nplanned == FL_MAX_UNDO)
        return -1;
    snprintf(f->undo_kind[f->nplanned], sizeof f->undo_kind[0], "%s", kind);
    snprintf(f->undo_args[f->nplanned], sizeof f->undo_args[0], "%s", args);
    f->nplanned++;
    return 0;
}

int fault_write_undo(struct fault *f, char *err, size_t errlen)
{
    while (f->nundo < f->nplanned) {
        unsigned i = f->nundo;
        if (undo_record(f->env->undo, f->undo_kind[i], f->undo_args[i], &f->undo_seq[i], err,
                        errlen) != 0)
            return -1;
        f->nundo++;
    }
    return 0;
}

int fault_undo_all(struct fault *f, char *err, size_t errlen)
{
    int rc = 0;
    /* Records were written in plan order: undo newest first. */
    while (f->nundo > 0) {
        unsigned i = f->nundo - 1;
        char e[1024];
        if (undo_apply(f->undo_kind[i], f->undo_args[i], e, sizeof e) != 0) {
            if (rc == 0)
                snprintf(err, errlen, "%s", e);
            rc = -1;
            /* No done mark: the record stays open for `faultline cleanup`. */
            f->undo_failed = true;
            f->nundo--;
            continue;
        }
        undo_done(f->env->undo, f->undo_seq[i], e, sizeof e);
        f->nundo--;
    }
    return rc;
}

const struct fault_host *fault_find_host(const struct fault_env *env, const char *name)
{
    for (unsigned i = 0; i < env->nhosts; i++)
        if (strcmp(env->hosts[i].name, name) == 0)
            return &env->hosts[i];
    return NULL;
}

const char *fault_netns_word(const char *netns)
{
    return netns[0] ? netns : "-";
}

const char *fault_netns_arg(const struct fault_host *h)
{
    return fault_netns_word(h->netns);
}

bool fault_acts_on_switch(const struct fault_spec *s)
{
    (void)s;
    return true;
}

bool fault_on_switch(const struct fault_spec *s)
{
    return s->ops && s->ops->on_switch && s->ops->on_switch(s);
}

unsigned fault_overwrote(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target)
{
    *on_target = false;
    if (f->remote) /* its state is the connection's: the agent said */
        return remote_overwrote(f, ranges, on_target);
    return f->ops->overwrote ? f->ops->overwrote(f, ranges, on_target) : 0;
}

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

/* --- applied here --- */

static int local_prepare(struct fault *f, char *err, size_t errlen)
{
    return f->ops->prepare ? f->ops->prepare(f, err, errlen) : 0;
}

static int local_arm(struct fault *f, uint64_t at, uint64_t clear_at, char *err, size_t errlen)
{
    (void)at;
    (void)clear_at;
    return fault_write_undo(f, err, errlen);
}

static int local_inject(struct fault *f, uint64_t *when, char *err, size_t errlen)
{
    int rc = f->ops->inject(f, err, errlen);
    *when = mono_ns();
    return rc;
}

static int local_clear(struct fault *f, uint64_t *when, char *err, size_t errlen)
{
    int rc = f->ops->clear ? f->ops->clear(f, err, errlen) : fault_undo_all(f, err, errlen);
    *when = mono_ns();
    return rc;
}

static void local_describe(const struct fault *f, char *out, size_t n)
{
    out[0] = '\0';
    if (f->ops->describe)
        f->ops->describe(f, out, n);
}

const struct fault_via fault_via_local = {
    .transport = "local",
    .prepare = local_prepare,
    .arm = local_arm,
    .inject = local_inject,
    .clear = local_clear,
    .describe = local_describe,
};
