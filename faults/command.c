/*
 * command — any command on a host at inject, and `undo` at clear: for real
 * clusters (ipmitool, pcs, systemctl, SNMP).  Run with /bin/sh -c inside
 * the host's network namespace; a command that fails fails the inject.
 */
#include <stdio.h>

#include "../lib/proc.h"
#include "fault.h"

#define COMMAND_TIMEOUT_MS 30000

static int command_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!f->spec.command[0]) {
        snprintf(err, errlen, "command needs command = ...");
        return -1;
    }
    if (!f->spec.undo[0])
        return 0;
    char args[1200];
    snprintf(args, sizeof args, "%s %s", f->host.netns[0] ? f->host.netns : "-", f->spec.undo);
    return fault_plan_undo(f, "command", args);
}

static int command_inject(struct fault *f, char *err, size_t errlen)
{
    char out[512];
    char *argv[] = {"/bin/sh", "-c", f->spec.command, NULL};
    int rc = proc_run_in(f->host.netns, argv, out, sizeof out, COMMAND_TIMEOUT_MS);
    if (rc != 0) {
        snprintf(err, errlen, "'%s' failed (%d): %s", f->spec.command, rc, out);
        return -1;
    }
    return 0;
}

static void command_describe(const struct fault *f, char *out, size_t n)
{
    snprintf(out, n, "on %s: '%s'%s%s%s", f->host.name, f->spec.command,
             f->spec.undo[0] ? ", undone by '" : "", f->spec.undo, f->spec.undo[0] ? "'" : "");
}

const struct fault_ops fault_command = {
    .action = "command",
    .prepare = command_prepare,
    .inject = command_inject,
    .describe = command_describe,
};
