/* conn — reading and writing an agent's session; see conn.h. */
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"

/* One line from the agent, waiting at most until `deadline` (mono_ns;
 * UINT64_MAX: as long as it takes).  1: *line points at it (valid until
 * the next call); 0: time is up; -1: the connection closed. */
int conn_read_line(struct remote *r, uint64_t deadline, char **line)
{
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->have);
        if (nl) {
            size_t len = (size_t)(nl - r->buf);
            memcpy(r->line, r->buf, len);
            r->line[len] = '\0';
            r->have -= len + 1;
            memmove(r->buf, nl + 1, r->have);
            *line = r->line;
            return 1;
        }
        if (r->eof)
            return -1;
        if (r->have == sizeof r->buf - 1)
            r->have = 0; /* no agent writes a line that long */
        uint64_t now = mono_ns();
        if (now >= deadline)
            return 0;
        struct pollfd p = {.fd = r->from, .events = POLLIN};
        int timeout = deadline == UINT64_MAX ? -1 : (int)((deadline - now + 999999) / 1000000);
        int rc = poll(&p, 1, timeout);
        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc <= 0)
            continue;
        ssize_t got = read(r->from, r->buf + r->have, sizeof r->buf - 1 - r->have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            r->eof = true;
            continue;
        }
        r->have += (size_t)got;
    }
}

static struct remote_fault *by_id(struct remote *r, uint64_t id)
{
    return id >= 1 && id <= r->n ? r->faults[id - 1] : NULL;
}

/* What an agent said of a fault, with where: its host's name first,
 * unless the text starts with it already (a command's detail is "on gs1:
 * ..."), so that a detail never reads "on gs1: on gs1: ...". */
void conn_on_host(char *out, size_t n, const char *host, const char *text)
{
    char own[64];
    snprintf(own, sizeof own, "on %s:", host);
    if (strncmp(text, own, strlen(own)) == 0)
        snprintf(out, n, "%s", text);
    else
        snprintf(out, n, "%s %s", own, text);
}

/* An event ("ev"), whenever it comes: into its fault's remote_fault only
 * (the fault itself is its own thread's; remote_settle() copies). */
static void on_event(struct remote *r, const struct jl_obj *m, const char *ev)
{
    uint64_t id = 0, t = 0;
    struct remote_fault *rf = jl_u64(m, "id", &id) ? by_id(r, id) : NULL;
    if (!rf)
        return;
    jl_u64(m, "t_ns", &t);
    const char *text = jl_str(m, "error");
    if (strcmp(ev, "applied") == 0) {
        rf->apply_ok = jl_bool(m, "ok", false);
        rf->applied_at = t;
        rf->began_at = rf->armed_at = 0;
        jl_u64(m, "began_ns", &rf->began_at);
        jl_u64(m, "armed_ns", &rf->armed_at);
        const char *d = jl_str(m, "detail"), *ranges = jl_str(m, "ranges");
        if (d && d[0])
            conn_on_host(rf->desc, sizeof rf->desc, r->host.name, d);
        rf->nranges = 0;
        rf->on_target = jl_bool(m, "on_target", false);
        for (const char *p = ranges; p && *p && rf->nranges < REMOTE_MAX_RANGES;) {
            char *end;
            uint64_t off = strtoull(p, &end, 10), len = 0;
            if (*end != '+')
                break;
            len = strtoull(end + 1, &end, 10);
            rf->ranges[rf->nranges][0] = off;
            rf->ranges[rf->nranges++][1] = len;
            p = *end == ',' ? end + 1 : end;
            if (!*end)
                break;
        }
        if (!rf->apply_ok)
            snprintf(rf->error, sizeof rf->error, "%s", text ? text : "the agent gave no reason");
        rf->applied_seen = true;
    } else if (strcmp(ev, "cleared") == 0) {
        rf->clear_ok = jl_bool(m, "ok", false);
        rf->cleared_at = t;
        const char *by = jl_str(m, "by");
        snprintf(rf->by, sizeof rf->by, "%s", by ? by : "");
        if (!rf->clear_ok)
            snprintf(rf->error, sizeof rf->error, "%s", text ? text : "the agent gave no reason");
        rf->cleared_seen = true;
    }
}

void *conn_reader(void *arg)
{
    struct remote *r = arg;
    for (;;) {
        char *line;
        int rc = conn_read_line(r, UINT64_MAX, &line);
        struct jl_obj m;
        char why[256];
        bool parsed = rc == 1 && jl_parse(line, &m, why, sizeof why) == 0;
        pthread_mutex_lock(&r->mu);
        if (rc != 1) {
            r->eof = true;
            pthread_cond_broadcast(&r->cv);
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
        if (parsed) {
            const char *ev = jl_str(&m, "ev");
            if (ev) {
                on_event(r, &m, ev);
                jl_free(&m);
            } else if (jl_str(&m, "re")) {
                if (r->have_reply)
                    jl_free(&r->reply); /* nobody waited for it */
                r->reply = m;
                r->have_reply = true;
            } else {
                jl_free(&m);
            }
            pthread_cond_broadcast(&r->cv);
        }
        pthread_mutex_unlock(&r->mu);
    }
}

/* Waits on cv until `deadline`; false when time is up.  Called with mu held. */
static bool wait_cv(struct remote *r, uint64_t deadline)
{
    uint64_t now = mono_ns();
    if (now >= deadline || r->eof)
        return false;
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000ull),
                          .tv_nsec = (long)(deadline % 1000000000ull)};
    pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    return true;
}

/* The answer `re` (with id, if any; a refusal "error" too).  1: *out holds
 * it (jl_free it); 0: time is up; -1: the connection closed. */
int conn_await_reply(struct remote *r, const char *re, uint64_t id, uint64_t deadline,
                       struct jl_obj *out)
{
    pthread_mutex_lock(&r->mu);
    int rc = 0;
    for (;;) {
        if (r->have_reply) {
            const char *got = jl_str(&r->reply, "re");
            uint64_t mid = 0;
            jl_u64(&r->reply, "id", &mid);
            if (got && (strcmp(got, "error") == 0 || (strcmp(got, re) == 0 && (!id || mid == id)))) {
                *out = r->reply;
                r->have_reply = false;
                rc = 1;
                break;
            }
            jl_free(&r->reply); /* an answer to something no longer waited for */
            r->have_reply = false;
        }
        if (r->eof) {
            rc = -1;
            break;
        }
        if (!wait_cv(r, deadline))
            break;
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* Waits until the agent said fault rf was applied (or cleared). */
bool conn_await_event(struct remote *r, const struct remote_fault *rf, bool cleared,
                        uint64_t deadline)
{
    pthread_mutex_lock(&r->mu);
    while (!(cleared ? rf->cleared_seen : rf->applied_seen) && wait_cv(r, deadline))
        ;
    bool seen = cleared ? rf->cleared_seen : rf->applied_seen;
    pthread_mutex_unlock(&r->mu);
    return seen;
}

int conn_send(struct remote *r, struct jl_out *o, char *err, size_t errlen)
{
    if (jl_end(o) != 0) {
        snprintf(err, errlen, "a message to the agent on %s is too long", r->host.name);
        return -1;
    }
    pthread_mutex_lock(&r->wmu);
    int rc = r->to >= 0 ? write_full(r->to, o->buf, o->len) : -1;
    pthread_mutex_unlock(&r->wmu);
    if (rc != 0) {
        snprintf(err, errlen, "cannot write to the agent on %s: %s", r->host.name,
                 r->to >= 0 ? strerror(errno) : "the session is closed");
        return -1;
    }
    return 0;
}

static void reap(struct remote *r, int wait_ms)
{
    if (r->ssh <= 0)
        return;
    for (int i = 0; i < wait_ms / 10; i++) {
        if (waitpid(r->ssh, NULL, WNOHANG) == r->ssh) {
            r->ssh = 0;
            return;
        }
        usleep(10000);
    }
    kill(r->ssh, SIGKILL); /* our own child, by PID */
    waitpid(r->ssh, NULL, 0);
    r->ssh = 0;
}

/* The agent's reader ends with the session: close ours, let ssh go (or
 * kill it), and the reader sees the end. */
void conn_hang_up(struct remote *r, int wait_ms)
{
    pthread_mutex_lock(&r->wmu);
    if (r->to >= 0)
        close(r->to);
    r->to = -1;
    pthread_mutex_unlock(&r->wmu);
    reap(r, wait_ms);
    if (r->reader_on)
        pthread_join(r->reader, NULL);
    r->reader_on = false;
}

void remote_close(struct remote *r)
{
    if (!r)
        return;
    conn_hang_up(r, 1000);
    if (r->from >= 0)
        close(r->from);
    if (r->have_reply)
        jl_free(&r->reply);
    for (unsigned i = 0; i < r->n; i++)
        free(r->faults[i]);
    pthread_mutex_destroy(&r->mu);
    pthread_mutex_destroy(&r->wmu);
    pthread_cond_destroy(&r->cv);
    free(r);
}
