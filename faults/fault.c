/* fault — the table of families and what they share; see fault.h. */
#include "fault.h"

#include <stdio.h>
#include <string.h>

#include "undo.h"

extern const struct fault_ops fault_link_down, fault_port_down, fault_port_flap,
    fault_switch_down, fault_partition, fault_loss, fault_bandwidth, fault_kill, fault_pause,
    fault_restart, fault_corrupt, fault_command;

/* The order of this list is the order of fault_actions. */
static const struct fault_ops *const all[] = {
    &fault_link_down, &fault_port_down, &fault_port_flap, &fault_switch_down,
    &fault_partition, &fault_loss,      &fault_bandwidth, &fault_kill,
    &fault_pause,     &fault_restart,   &fault_corrupt,   &fault_command,
};

const char *const fault_actions = "link-down|port-down|port-flap|switch-down|partition|loss|"
                                  "bandwidth|kill|pause|restart|corrupt|command";

const struct fault_ops *fault_ops_of(int action_choice)
{
    if (action_choice < 0 || (size_t)action_choice >= sizeof all / sizeof all[0])
        return NULL;
    return all[action_choice];
}

const char *fault_action_name(int action_choice)
{
    const struct fault_ops *o = fault_ops_of(action_choice);
    return o ? o->action : "?";
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
