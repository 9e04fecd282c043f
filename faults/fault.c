/*
 * fault — what the families share (fault.h): their state, their undo
 * records, the hosts of the run.  It knows no family by name and no
 * transport: the families call it, and it calls nothing of theirs but
 * through their ops.
 */
#include "fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "undo.h"

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

void fault_undo_done(struct fault *f)
{
    char e[256];
    for (unsigned i = 0; i < f->nundo; i++)
        undo_done(f->env->undo, f->undo_seq[i], e, sizeof e);
    f->nundo = 0;
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

bool fault_on_controller(const struct fault *f)
{
    return f->ops && f->ops->on_controller && f->ops->on_controller(f);
}
