/*
 * via — fault_via_ssh: a fault of an ssh host sent to its agent (remote.h):
 * prepared there, armed ahead as "apply at T, cleared by C" in the agent's
 * clock, and its inject and clear heard back.
 */
#include "conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "../../lib/clock.h"
#include "../../lib/jsonl.h"
#include "spec.h"

#define PREPARE_TIMEOUT_MS 30000 /* the family's prepare on the host */
#define ANSWER_WAIT_NS 50000000ull /* the timeline waits this (plus 4 round trips) for an
                                      answer; a later one still fills in the times */

uint64_t remote_late_arm(const struct fault *f)
{
    const struct remote_fault *rf = f->state;
    if (!f->remote || !rf || !f->remote->t0 || !rf->armed_at)
        return 0;
    uint64_t armed = remote_to_ours(f->remote, rf->armed_at), due = f->remote->t0 + f->scheduled_ns;
    return armed > due ? armed - due : 0;
}

unsigned remote_overwrote(const struct fault *f, const uint64_t (**ranges)[2], bool *on_target)
{
    const struct remote_fault *rf = f->state;
    if (!f->remote || !rf || !rf->applied_seen || !rf->apply_ok)
        return 0;
    *ranges = (const uint64_t(*)[2])rf->ranges;
    *on_target = rf->on_target;
    return rf->nranges;
}

void remote_attach(struct remote *r, struct fault *f)
{
    f->remote = r;
    f->via = &fault_via_ssh;
    snprintf(f->via_host, sizeof f->via_host, "%s", r->host.name);
}

static struct remote_fault *rf_of(const struct fault *f)
{
    return f->state;
}

/* "name=addr,...": every other host with an address, for partition. */
static void peers_of(const struct fault *f, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < f->env->nhosts && used < n; i++) {
        const struct fault_host *h = &f->env->hosts[i];
        if (h->addr[0] && strcmp(h->name, f->host.name) != 0)
            used += (size_t)snprintf(out + used, n - used, "%s%s=%s", used ? "," : "", h->name,
                                     h->addr);
    }
}

static int ssh_prepare(struct fault *f, char *err, size_t errlen)
{
    struct remote *r = f->remote;
    if (r->n == MAX_REMOTE_FAULTS) {
        snprintf(err, errlen, "too many faults for the agent on %s", r->host.name);
        return -1;
    }
    struct remote_fault *rf = calloc(1, sizeof *rf);
    if (!rf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rf->f = f;
    rf->id = r->n + 1;
    r->faults[r->n++] = rf;
    f->state = rf;
    const struct fault_env *env = f->env;
    bool on_switch = fault_on_switch(&f->spec);
    static struct jl_out o; /* large; prepare runs on one thread */
    jl_begin(&o);
    jl_put_str(&o, "op", "prepare");
    jl_put_u64(&o, "id", rf->id);
    fault_spec_put(&f->spec, &o);
    jl_put_str(&o, "host", f->host.name);
    /* On the switch, the host's port is one of the switch's own links. */
    jl_put_str(&o, "netns", on_switch ? "" : f->host.netns);
    jl_put_str(&o, "ifname", on_switch ? "" : f->host.ifname);
    jl_put_str(&o, "port", on_switch ? f->host.port : "");
    jl_put_str(&o, "addr", f->host.addr);
    jl_put_str(&o, "restart", on_switch ? "" : f->host.restart);
    /* The process a lab host's fault names ("" its service, or the lab's
     * own names: brick, shd), as the comm the lab says it runs under. */
    char service[32] = "", named[64] = "";
    const struct key_def *pk = key_find(f->ops->keys, f->ops->nkeys, "process");
    if (pk)
        key_format(&f->spec, pk, named, sizeof named);
    if (!on_switch && f->host.lab && env->lab && env->lab->process) {
        struct lab_process lp;
        char e[256];
        if (env->lab->process(env->lab->ctx, f->host.name, named, &lp, e, sizeof e) == 0)
            snprintf(service, sizeof service, "%.31s", lp.comm[0] ? lp.comm : lp.name);
    }
    jl_put_str(&o, "service", service);
    jl_put_str(&o, "service_as", named);
    char peers[2048];
    peers_of(f, peers, sizeof peers);
    jl_put_str(&o, "peers", peers);
    jl_put_str(&o, "tag", env->tag);
    jl_put_u64(&o, "block", env->block_size);
    jl_put_u64(&o, "seed", env->seed);
    jl_put_u64(&o, "target_bytes", env->target_bytes);
    jl_put_str(&o, "target_path", env->target_path ? env->target_path : "");
    jl_put_bool(&o, "allow_destructive", env->allow_destructive);
    jl_put_str(&o, "allow_paths", env->allow_paths ? env->allow_paths : "");
    jl_put_str(&o, "bridge", on_switch ? env->bridge : "");
    if (conn_send(r, &o, err, errlen) != 0)
        return -1;
    struct jl_obj m;
    int rc = conn_await_reply(r, "prepare", rf->id, mono_ns() + PREPARE_TIMEOUT_MS * 1000000ull, &m);
    if (rc != 1) {
        snprintf(err, errlen, "the agent on %s did not answer the prepare%s", r->host.name,
                 rc == 0 ? " within 30 s" : " (the session closed)");
        return -1;
    }
    bool ok = jl_bool(&m, "ok", false);
    const char *text = jl_str(&m, ok ? "detail" : "error");
    conn_on_host(ok ? rf->desc : err, ok ? sizeof rf->desc : errlen, r->host.name,
            text ? text : "the agent gave no reason");
    jl_free(&m);
    return ok ? 0 : -1;
}

/* How long the timeline waits for the answer to an apply or clear: a
 * fault that cuts the session cannot be answered, and the schedule must
 * go on; a late answer still fills in its times (on_event). */
static uint64_t answer_ns(const struct remote *r)
{
    return ANSWER_WAIT_NS + 4 * r->info.rtt_ns;
}

static int ssh_arm(struct fault *f, uint64_t at, uint64_t clear_at, char *err, size_t errlen)
{
    struct remote *r = f->remote;
    struct remote_fault *rf = rf_of(f);
    uint64_t lease = r->host.ssh.lease_ns;
    pthread_mutex_lock(&r->mu);
    rf->applied_seen = rf->cleared_seen = false;
    rf->clear_due = clear_at;
    rf->by[0] = '\0';
    if (clear_at && clear_at + lease > r->last_lease)
        r->last_lease = clear_at + lease;
    pthread_mutex_unlock(&r->mu);
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "op", "apply");
    jl_put_u64(&o, "id", rf->id);
    jl_put_u64(&o, "at_ns", (uint64_t)((int64_t)at + r->info.offset_ns));
    jl_put_u64(&o, "clear_at_ns", clear_at ? (uint64_t)((int64_t)clear_at + r->info.offset_ns)
                                           : 0);
    jl_put_u64(&o, "lease_ns", lease);
    return conn_send(r, &o, err, errlen);
}

static int ssh_inject(struct fault *f, uint64_t *when, char *err, size_t errlen)
{
    struct remote *r = f->remote;
    struct remote_fault *rf = rf_of(f);
    if (conn_await_event(r, rf, false, mono_ns() + answer_ns(r))) {
        pthread_mutex_lock(&r->mu);
        *when = remote_to_ours(r, rf->applied_at);
        f->apply_ns = rf->applied_at > rf->began_at && rf->began_at
                          ? rf->applied_at - rf->began_at : 0; /* what the host spent */
        bool ok = rf->apply_ok;
        if (!ok)
            conn_on_host(err, errlen, r->host.name, rf->error);
        pthread_mutex_unlock(&r->mu);
        return ok ? 0 : -1;
    }
    /* No answer yet: it may well be in effect (a fault that cuts the
     * session cuts its answer too).  It counts as applied, time unknown
     * (*when 0) until the answer comes (remote_settle); the agent clears
     * it by itself at its lease at the latest. */
    f->indeterminate = true;
    *when = 0;
    return 0;
}

static int ssh_clear(struct fault *f, uint64_t *when, char *err, size_t errlen)
{
    struct remote *r = f->remote;
    struct remote_fault *rf = rf_of(f);
    pthread_mutex_lock(&r->mu);
    bool done = rf->cleared_seen; /* its lease came first */
    pthread_mutex_unlock(&r->mu);
    if (!done) {
        struct jl_out o;
        jl_begin(&o);
        jl_put_str(&o, "op", "clear");
        jl_put_u64(&o, "id", rf->id);
        if (conn_send(r, &o, err, errlen) != 0)
            return -1;
        if (!conn_await_event(r, rf, true, mono_ns() + answer_ns(r))) {
            /* The agent's lease clears it; a late answer fills in when
             * and by whom (remote_settle). */
            *when = 0;
            snprintf(f->cleared_by, sizeof f->cleared_by, "unconfirmed");
            return 0;
        }
    }
    pthread_mutex_lock(&r->mu);
    *when = remote_to_ours(r, rf->cleared_at);
    snprintf(f->cleared_by, sizeof f->cleared_by, "%s", rf->by);
    bool ok = rf->clear_ok;
    if (!ok)
        conn_on_host(err, errlen, r->host.name, rf->error);
    pthread_mutex_unlock(&r->mu);
    return ok ? 0 : -1;
}

static void ssh_describe(const struct fault *f, char *out, size_t n)
{
    struct remote_fault *rf = rf_of(f);
    if (!rf) {
        out[0] = '\0';
        return;
    }
    pthread_mutex_lock(&f->remote->mu);
    snprintf(out, n, "%s", rf->desc);
    pthread_mutex_unlock(&f->remote->mu);
}

const struct fault_via fault_via_ssh = {
    .transport = "ssh",
    .prepare = ssh_prepare,
    .arm = ssh_arm,
    .inject = ssh_inject,
    .clear = ssh_clear,
    .describe = ssh_describe,
    .overwrote = remote_overwrote,
};
