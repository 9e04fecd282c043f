/*
 * power — power-off: a host's power cut, and its power back.
 *
 *   [fault cut]
 *   action = power-off
 *   host = gs2              (a lab server: gs1..gs3, cs1..cs3, ctrl-a, ctrl-b;
 *                            or a [host] with power_off and power_on)
 *   at = 5s
 *   power_on_after = 5s     (default: powered on when the workload ends)
 *
 * What a power cut does to a lab host is the lab's business (fault_lab.power):
 * the host leaves the network first (its switch port down: a real cut is
 * silent, and peers learn of it by their own timeouts), then every process
 * of the host dies at once, and what it held but had not made
 * durable is gone — a gluster server's brick filesystem and a ceph
 * server's disk (the stores of all its daemons) are shut down without log
 * flush, an iSCSI controller's volatile write cache is dropped.
 * At power-on the lab brings the host up as after a cold start (a brick is
 * mounted again and replays its log; the service starts again).
 *
 * A real machine is powered off through its BMC, from the controller: its
 * [host] says power_off and power_on (and optionally power_status), commands
 * run here with /bin/sh -c, never on the host (whose agent would die with
 * it: on_controller keeps the fault here even when the host has ssh).  The
 * undo log holds power_on before the cut, so `faultline cleanup` powers the
 * host on after a killed run.  With power_status the cut counts once the
 * status says off (asked every STATUS_EVERY_NS for at most power_wait); a
 * status that never does leaves the fault indeterminate, as an agent that
 * never answers does: the command ran, but nothing says the power went.
 * A lab reached as a real cluster ([lab] control = ssh) gives its servers
 * such commands of its own (`faultline lab power`), so that this path runs
 * end to end on one machine.
 *
 * Such a cut loses what the storage acknowledged but had not flushed, so
 * power-off means `loses = unflushed` unless the section says otherwise
 * (`loses = nothing`: the storage claims its caches survive a power cut,
 * battery-backed, and any older data read back is then a lost write).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../../lib/clock.h"
#include "../../lib/proc.h"
#include "../fault.h"
#include "../runtime.h"
#include "../undo.h"

#define POWER_COMMAND_TIMEOUT_MS 30000 /* power_off, power_on: as a command fault's */
#define STATUS_EVERY_NS 500000000ull   /* power_status asked this often */
#define STATUS_TIMEOUT_MS 10000        /* one power_status at most (a BMC over the LAN) */

struct power_params {
    uint64_t on_after_ns;
};
_Static_assert(sizeof(struct power_params) <= FAULT_PARAMS_MAX, "power params");

static const struct key_def power_keys[] = {
    {"power_on_after", KEY_DURATION, NULL, NULL, FAULT_PARAM(struct power_params, on_after_ns),
     1000000, AT_MOST_A_DAY,
     "power-off: power the host on again this much later (default: when the workload ends)", 0},
    /* the common key, with the default a power cut implies */
    {"loses", KEY_CHOICE, "unflushed", "nothing|unflushed", FAULT_COMMON(loses), 0, 0,
     "power-off: what the storage may lose (default unflushed; nothing: its caches are "
     "battery-backed)", 0},
};

/* f->state: what the lab said it did, or what the host's commands did,
 * for the report. */
struct power_fault {
    char off[800], on[800];
};

static const struct power_params *params(const struct fault *f)
{
    return FAULT_PARAMS(&f->spec, const struct power_params);
}

/* A [host] with power commands (the parser allows none without both). */
static bool by_commands(const struct fault *f)
{
    return f->host.power.off[0] != '\0';
}

/* Lasting until power-on: after power_on_after, or at the end. */
static void power_schedule(const struct fault_spec *spec, struct fault_schedule *out)
{
    *out = (struct fault_schedule){
        .shape = FAULT_LASTING,
        .clear_after_ns = FAULT_PARAMS(spec, const struct power_params)->on_after_ns};
}

/* At parse time: a host outside the lab can be powered off only by its
 * own commands. */
static int power_check(const struct fault_spec *s, const struct fault_rules *r, char *err,
                       size_t errlen)
{
    if (!r->host_known || r->host_in_lab || r->host_powers)
        return 0;
    char what[96];
    if (strcmp(s->host, "local") == 0)
        snprintf(what, sizeof what, "local is neither");
    else
        snprintf(what, sizeof what, "[host %s] has no power_off and power_on", s->host);
    snprintf(err, errlen, "[fault %s] power-off cuts the power of a lab server, or of a [host] "
             "with power_off = COMMAND and power_on = COMMAND (run here, on the controller: "
             "the BMC's `ipmitool -I lanplus -H BMC -U USER -E chassis power off` and `... "
             "power on`), and %s", s->name, what);
    return -1;
}

/* The power commands run here, never on the host they power off. */
static bool power_on_controller(const struct fault *f)
{
    return by_commands(f);
}

/* A [host]'s: its power_on in the undo log (our own namespace: "-"),
 * written before the cut. */
static int commands_prepare(struct fault *f, char *err, size_t errlen)
{
    if (!fault_state(f, sizeof(struct power_fault), err, errlen))
        return -1;
    char args[sizeof f->host.power.on + 4];
    snprintf(args, sizeof args, "- %s", f->host.power.on);
    if (fault_plan_undo(f, "command", args) != 0) {
        snprintf(err, errlen, "too many undo records");
        return -1;
    }
    return 0;
}

static int power_prepare(struct fault *f, char *err, size_t errlen)
{
    if (by_commands(f))
        return commands_prepare(f, err, errlen);
    const struct fault_lab *lab = f->env->lab;
    if (!f->host.lab || !lab || !lab->power) {
        snprintf(err, errlen, "power-off cuts the power of a lab server through its lab, or of "
                 "a [host] with power_off = COMMAND and power_on = COMMAND (run here, on the "
                 "controller: the BMC's `ipmitool ... chassis power off` and `... power on`), "
                 "and %s is %s (with [lab] control = ssh a lab server is powered by the "
                 "commands the lab gives it, as a [host] by its BMC's)",
                 f->host.name, f->host.lab ? "not reached by the lab here" : "neither");
        return -1;
    }
    return fault_state(f, sizeof(struct power_fault), err, errlen) ? 0 : -1;
}

/* --- a [host]'s power commands --- */

/* Runs the host's command `key` (power_off, power_on) here.  0 with
 * `said` its output's first line (as " 'LINE'" for the report: a BMC's
 * "Chassis Power Control: Down/Off"; "" for none), or -1 with err naming
 * the host, the key, the command, its exit status and output. */
static int run_command(const struct fault *f, const char *key, const char *cmd, char *said,
                       size_t saidlen, char *err, size_t errlen)
{
    char out[1024];
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    int rc = proc_run(argv, out, sizeof out, POWER_COMMAND_TIMEOUT_MS);
    if (rc == 0) {
        size_t line = strcspn(out, "\n");
        if (line)
            snprintf(said, saidlen, " '%.*s'", line > 200 ? 200 : (int)line, out);
        else
            said[0] = '\0';
        return 0;
    }
    /* As a command fault says it, with whose command it was; -1: it did
     * not finish (its output says so) or could not run. */
    snprintf(err, errlen, "[host %s] %s '%s' failed (%d): %.400s", f->host.name, key, cmd, rc,
             out[0] ? out : "(no output)");
    return -1;
}

/* Whether text holds word as a word of its own, in any case. */
static bool has_word(const char *text, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = text; *p; p++) {
        if (strncasecmp(p, word, w) != 0)
            continue;
        bool before = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = !(isalnum((unsigned char)p[w]) || p[w] == '_');
        if (before && after)
            return true;
    }
    return false;
}

/* What power_status says: off, on, or neither (a failure, no word, both). */
static bool status_says(int rc, const char *out, bool on)
{
    return rc == 0 && has_word(out, on ? "on" : "off") && !has_word(out, on ? "off" : "on");
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
                          .tv_nsec = (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ; /* a signal: the rest of the wait */
}

/* Asks power_status until it says `on` (or off), for at most power_wait
 * (and as many tries as fit in it).  said: its last answer, for people.
 * true once it said so, *took: how long after the first ask. */
static bool await_status(const struct fault *f, bool on, char *said, size_t n, uint64_t *took)
{
    const struct host_power *p = &f->host.power;
    uint64_t start = mono_ns(), until = start + p->wait_ns;
    unsigned tries = (unsigned)(p->wait_ns / STATUS_EVERY_NS) + 2;
    snprintf(said, n, "nothing");
    for (unsigned i = 0; i < tries; i++) {
        uint64_t now = mono_ns();
        uint64_t left_ms = now < until ? (until - now) / 1000000 : 0;
        int timeout = left_ms < 1000 ? 1000 : left_ms > STATUS_TIMEOUT_MS ? STATUS_TIMEOUT_MS
                                                                           : (int)left_ms;
        char out[400];
        char *argv[] = {"/bin/sh", "-c", (char *)p->status, NULL};
        int rc = proc_run(argv, out, sizeof out, timeout);
        snprintf(said, n, "'%.300s', exit %d", out, rc);
        if (status_says(rc, out, on)) {
            *took = mono_ns() - start;
            return true;
        }
        now = mono_ns();
        if (now >= until)
            break;
        sleep_ns(until - now < STATUS_EVERY_NS ? until - now : STATUS_EVERY_NS);
    }
    return false;
}

/* power_off, then (with power_status) the cut confirmed.  A status that
 * never says off leaves it indeterminate: applied, since power_off said
 * it did its part, but not known to have happened. */
static int commands_inject(struct fault *f, char *err, size_t errlen)
{
    struct power_fault *s = f->state;
    const struct host_power *p = &f->host.power;
    uint64_t t0 = mono_ns();
    char out[220];
    if (run_command(f, "power_off", p->off, out, sizeof out, err, errlen) != 0)
        return -1;
    /* The cut is the BMC's from here: its time, not the status's later word. */
    f->effect_ns = mono_ns();
    double ran = (double)(f->effect_ns - t0) / 1e9;
    if (!p->status[0]) {
        snprintf(s->off, sizeof s->off, "power_off ran (%.3f s%s; no power_status to confirm "
                 "it)", ran, out);
        return 0;
    }
    char said[360];
    uint64_t took = 0;
    if (await_status(f, false, said, sizeof said, &took)) {
        snprintf(s->off, sizeof s->off, "power_off ran (%.3f s%s), power_status said off "
                 "%.3f s later (%s)", ran, out, (double)took / 1e9, said);
        return 0;
    }
    f->indeterminate = true;
    snprintf(f->unsure, sizeof f->unsure, "power_status of %s never said off within "
             "power_wait = %g s of its power_off (last: %s)", f->host.name,
             (double)p->wait_ns / 1e9, said);
    snprintf(s->off, sizeof s->off, "power_off ran (%.3f s%s), but power_status never said "
             "off within %g s (last: %s)", ran, out, (double)p->wait_ns / 1e9, said);
    return 0;
}

/* power_on, then (with power_status) the host confirmed on.  Until it is,
 * the record stays open: `faultline cleanup` runs power_on again. */
static int commands_clear(struct fault *f, char *err, size_t errlen)
{
    struct power_fault *s = f->state;
    const struct host_power *p = &f->host.power;
    uint64_t t0 = mono_ns();
    char out[220];
    if (run_command(f, "power_on", p->on, out, sizeof out, err, errlen) != 0) {
        f->undo_failed = f->nundo > 0;
        snprintf(s->on, sizeof s->on, "power_on failed");
        return -1;
    }
    f->effect_ns = mono_ns();
    double ran = (double)(f->effect_ns - t0) / 1e9;
    char said[360];
    uint64_t took = 0;
    if (p->status[0] && !await_status(f, true, said, sizeof said, &took)) {
        f->undo_failed = f->nundo > 0;
        snprintf(err, errlen, "[host %s] power_status never said on within power_wait = %g s "
                 "of its power_on (last: %s)", f->host.name, (double)p->wait_ns / 1e9, said);
        snprintf(s->on, sizeof s->on, "power_on ran (%.3f s%s), but power_status never said on",
                 ran, out);
        return -1;
    }
    fault_undo_done(f);
    if (p->status[0])
        snprintf(s->on, sizeof s->on, "power_on ran (%.3f s%s), power_status said on %.3f s "
                 "later (%s)", ran, out, (double)took / 1e9, said);
    else
        snprintf(s->on, sizeof s->on, "power_on ran (%.3f s%s)", ran, out);
    return 0;
}

/* --- either way --- */

static int power_inject(struct fault *f, char *err, size_t errlen)
{
    if (by_commands(f))
        return commands_inject(f, err, errlen);
    const struct fault_lab *lab = f->env->lab;
    struct power_fault *s = f->state;
    return lab->power(lab->ctx, f->host.name, false, s->off, sizeof s->off, err, errlen);
}

static int power_clear(struct fault *f, char *err, size_t errlen)
{
    if (by_commands(f))
        return commands_clear(f, err, errlen);
    const struct fault_lab *lab = f->env->lab;
    struct power_fault *s = f->state;
    return lab->power(lab->ctx, f->host.name, true, s->on, sizeof s->on, err, errlen);
}

static void power_describe(const struct fault *f, char *out, size_t n)
{
    const struct power_fault *s = f->state;
    char on[96] = "powered on when the workload ends";
    if (params(f)->on_after_ns)
        snprintf(on, sizeof on, "powered on after %.3f s", (double)params(f)->on_after_ns / 1e9);
    snprintf(out, n, "power of %s cut%s%s, %s%s%s", f->host.name, s && s->off[0] ? ": " : "",
             s ? s->off : "", on, s && s->on[0] ? ": " : "", s ? s->on : "");
}

const struct fault_ops fault_power_off = {
    .action = "power-off",
    .hold_key = "power_on_after",
    .keys = power_keys,
    .nkeys = sizeof power_keys / sizeof power_keys[0],
    .check = power_check,
    .schedule = power_schedule,
    .prepare = power_prepare,
    .inject = power_inject,
    .clear = power_clear,
    .describe = power_describe,
    .on_controller = power_on_controller,
};
