/* remote — the controller's side of an agent; see remote.h. */
#include "remote.h"

#include <stdio.h>
#include <string.h>
#include <pthread.h>

#include "../../lib/jsonl.h"
#include "../../lib/selfid.h"
#include "conn.h"

struct remote *remote_open(const struct fault_host *h, const char *tag, const char *logdir,
                           char *err, size_t errlen)
{
    char log[PATH_MAX];
    snprintf(log, sizeof log, "%s/ssh-%s.log", logdir, h->name);
    struct remote *r = remote_connect(&h->ssh, h->name, "run", tag, log, err, errlen);
    if (!r)
        return NULL;
    r->host = *h;
    struct jl_obj m;
    char why[256];
    const char *build = NULL;
    if (jl_parse(r->first, &m, why, sizeof why) == 0) {
        build = jl_str(&m, "build");
        snprintf(r->info.build, sizeof r->info.build, "%s", build ? build : "");
        jl_u64(&m, "pid", &r->info.agent_pid);
        const char *node = jl_str(&m, "nodename"), *kernel = jl_str(&m, "kernel");
        snprintf(r->info.nodename, sizeof r->info.nodename, "%s", node ? node : "");
        snprintf(r->info.kernel, sizeof r->info.kernel, "%s", kernel ? kernel : "");
        jl_free(&m);
    }
    if (!build || strcmp(r->info.build, self_build_id()) != 0) {
        snprintf(err, errlen, "the agent on %s is build %s, not ours (%s)", h->name,
                 r->info.build[0] ? r->info.build : "unknown", self_build_id());
        remote_close(r);
        return NULL;
    }
    int rc = pthread_create(&r->reader, NULL, conn_reader, r);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start a thread for the agent on %s: %s", h->name,
                 strerror(rc));
        remote_close(r);
        return NULL;
    }
    r->reader_on = true;
    if (remote_measure_clock(r, err, errlen) != 0) {
        remote_close(r);
        return NULL;
    }
    return r;
}

void remote_get_info(const struct remote *r, struct remote_info *out)
{
    *out = r->info;
}

void remote_set_t0(struct remote *r, uint64_t t0)
{
    r->t0 = t0;
}

uint64_t remote_last_lease(const struct remote *r)
{
    return r->last_lease;
}

void remote_ping(struct remote *r)
{
    struct jl_out o;
    char err[256];
    jl_begin(&o);
    jl_put_str(&o, "op", "ping");
    conn_send(r, &o, err, sizeof err); /* a closed session shows at the next real call */
}

int remote_bye(struct remote *r, uint64_t deadline, char *err, size_t errlen)
{
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "op", "bye");
    int rc = -1;
    if (conn_send(r, &o, err, errlen) == 0) {
        struct jl_obj m;
        int got = conn_await_reply(r, "bye", 0, deadline, &m);
        if (got == 1) {
            jl_free(&m);
            rc = 0;
        } else {
            snprintf(err, errlen, "the agent on %s did not answer bye%s; its lease clears what "
                     "is left", r->host.name, got == 0 ? " in time" : " (the session closed)");
        }
    }
    conn_hang_up(r, 3000);
    for (unsigned i = 0; i < r->n; i++) {
        const struct remote_fault *rf = r->faults[i];
        if (rf->applied_seen && rf->apply_ok && rf->clear_due && !rf->cleared_seen && rc == 0) {
            snprintf(err, errlen, "the agent on %s never confirmed the clear of %s",
                     r->host.name, rf->f->spec.name);
            rc = -1;
        }
    }
    return rc;
}

void remote_settle(struct fault *f)
{
    struct remote_fault *rf = f->state;
    struct remote *r = f->remote;
    if (!r || !rf)
        return;
    pthread_mutex_lock(&r->mu);
    /* An apply answered late: now its time is known. */
    if (f->indeterminate && rf->applied_seen && rf->apply_ok && r->t0 && rf->applied_at) {
        f->injected_ns = remote_to_ours(r, rf->applied_at) - r->t0;
        f->applied = true;
        f->indeterminate = false;
        f->apply_ns = rf->applied_at > rf->began_at && rf->began_at
                          ? rf->applied_at - rf->began_at : 0;
        if (f->schedule.shape == FAULT_INSTANT) /* done once applied */
            f->cleared_ns = f->injected_ns;
        snprintf(f->detail, sizeof f->detail, "%s", rf->desc);
    }
    /* An apply answered late, and refused: it did not happen (it is no
     * longer indeterminate, and no longer counted as applied). */
    if (rf->applied_seen && !rf->apply_ok) {
        f->indeterminate = false;
        f->applied = false;
        f->injected_ns = 0;
        if (!f->error[0]) {
            char where[1000];
            conn_on_host(where, sizeof where, r->host.name, rf->error);
            snprintf(f->error, sizeof f->error, "inject failed: %s", where);
        }
    }
    /* A clear the agent did (its lease), or answered late. */
    if (rf->cleared_seen && r->t0 && rf->cleared_at) {
        f->cleared_ns = remote_to_ours(r, rf->cleared_at) - r->t0;
        snprintf(f->cleared_by, sizeof f->cleared_by, "%s", rf->by);
        if (!rf->clear_ok) {
            f->clear_failed = true;
            if (!f->error[0]) {
                char where[1000];
                conn_on_host(where, sizeof where, r->host.name, rf->error);
                snprintf(f->error, sizeof f->error, "clear failed: %s", where);
            }
        }
    }
    pthread_mutex_unlock(&r->mu);
}
