/*
 * command — any command on a host at inject, and `undo` at clear: for real
 * clusters (ipmitool, pcs, systemctl, SNMP).  Run with /bin/sh -c inside
 * the host's network namespace; a command that fails fails the inject.
 */
#include <stdio.h>

#include "../../lib/proc.h"
#include "../fault.h"
#include "../runtime.h"

#define COMMAND_TIMEOUT_MS 30000

struct command_params {
    char command[1024];
    char undo[1024];
};
_Static_assert(sizeof(struct command_params) <= FAULT_PARAMS_MAX, "command params");

static const struct key_def command_keys[] = {
    FAULT_KEY_DURATION,
    {"command", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct command_params, command), 0, 0,
     "command: run with /bin/sh -c on the host at inject (required)", 0},
    {"undo", KEY_TEXT, NULL, NULL, FAULT_PARAM(struct command_params, undo), 0, 0,
     "command: run at clear, and by faultline cleanup after a crash", 0},
};

static const struct command_params *params(const struct fault_spec *s)
{
    return FAULT_PARAMS(s, const struct command_params);
}

static int command_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                         size_t errlen)
{
    (void)r;
    if (!params(s)->command[0]) {
        snprintf(err, errlen, "[fault %s] command needs command", s->name);
        return -1;
    }
    return 0;
}

/* With an undo or a duration it lasts until cleared; else it is done once run. */
static void command_schedule(const struct fault_spec *s, struct fault_schedule *out)
{
    bool lasts = params(s)->undo[0] || s->duration_ns;
    *out = (struct fault_schedule){.shape = lasts ? FAULT_LASTING : FAULT_INSTANT,
                                   .clear_after_ns = s->duration_ns};
}

static int command_prepare(struct fault *f, char *err, size_t errlen)
{
    const struct command_params *p = params(&f->spec);
    if (!p->command[0]) {
        snprintf(err, errlen, "command needs command = ...");
        return -1;
    }
    if (!p->undo[0])
        return 0;
    char args[1200];
    snprintf(args, sizeof args, "%s %s", fault_netns_arg(&f->host), p->undo);
    return fault_plan_undo(f, "command", args);
}

static int command_inject(struct fault *f, char *err, size_t errlen)
{
    char out[512];
    char *argv[] = {"/bin/sh", "-c", (char *)params(&f->spec)->command, NULL};
    int rc = proc_run_in(f->host.netns, argv, out, sizeof out, COMMAND_TIMEOUT_MS);
    if (rc != 0) {
        snprintf(err, errlen, "'%s' failed (%d): %s", params(&f->spec)->command, rc, out);
        return -1;
    }
    return 0;
}

static void command_describe(const struct fault *f, char *out, size_t n)
{
    const struct command_params *p = params(&f->spec);
    snprintf(out, n, "on %s: '%s'%s%s%s", f->host.name, p->command,
             p->undo[0] ? ", undone by '" : "", p->undo, p->undo[0] ? "'" : "");
}

const struct fault_ops fault_command = {
    .action = "command",
    .hold_key = "duration",
    .keys = command_keys,
    .nkeys = sizeof command_keys / sizeof command_keys[0],
    .check = command_check,
    .schedule = command_schedule,
    .prepare = command_prepare,
    .inject = command_inject,
    .describe = command_describe,
};
