/* agent — the host's side of a remote fault; see agent.h for the messages. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/jsonl.h"
#include "../../lib/proc.h"
#include "../../lib/selfid.h"
#include "../runtime.h"
#include "spec.h"
#include "../undo.h"

#define AGENT_MAX_FAULTS 256
#define RESTART_TIMEOUT_MS 30000
#define SPIN_NS 200000ull /* sleep until this close to a fault's time, then spin */
/* A lease ends a tenth of itself before its deadline, at most this much,
 * so that the clear itself (an nft or netlink call, a restart command) is
 * done by then.  A fixed 50 ms was not enough: in CI's sanitizer pass,
 * waking up and removing a partition's nft table took 93 ms (the agent's
 * own clock put the end 43 ms past a 3 s lease).  The tenth leaves a short
 * lease to the controller's own clear: with 1 s, the controller still has
 * 900 ms to clear it first (it was at most 29 ms late in 100 clears). */
#define LEASE_MARGIN_MAX_NS 250000000ull
/* A controller pings every few seconds (remote_ping).  After this long
 * without a word, and with nothing armed or in effect, it is gone without
 * a close (its machine or the network died): the agent leaves. */
#define SILENCE_NS 300000000000ull

enum phase { PREPARED, ARMED, ACTIVE, DONE };

/* One fault the controller sent, with its own environment (its host and
 * peers as the controller resolved them). */
struct agent_fault {
    unsigned id;
    enum phase phase;
    struct fault f;
    struct fault_env env;
    struct fault_lab lab;
    uint64_t at, clear_at, lease; /* agent mono_ns; clear_at 0: instant */
    uint64_t armed_at;            /* when its apply came */
    uint64_t applied_at;          /* when it took effect (its last step) */
    uint64_t cleared_at;
    char by[16];
};

struct agent {
    const char *dir, *tag;
    char run[PATH_MAX];
    int out;
    struct undo_log undo;
    bool undo_open;
    struct agent_fault *faults[AGENT_MAX_FAULTS];
    unsigned n;
    uint64_t last_heard;
};

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
    signalled = sig;
}

void agent_run_dir(const char *dir, const char *tag, char *out, size_t n)
{
    snprintf(out, n, "%s/run-%s", dir, tag);
}

static void send_line(struct agent *a, struct jl_out *o)
{
    if (jl_end(o) != 0) {
        jl_begin(o);
        jl_put_str(o, "re", "error");
        jl_put_str(o, "error", "an answer too long for one line");
        jl_end(o);
    }
    /* A controller that is gone does not read: the close of stdin tells. */
    (void)write_full(a->out, o->buf, o->len);
}

static void send_error(struct agent *a, const char *re, unsigned id, const char *why)
{
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "re", re);
    if (id)
        jl_put_u64(&o, "id", id);
    jl_put_bool(&o, "ok", false);
    jl_put_str(&o, "error", why);
    send_line(a, &o);
}

/* --- what the host lends its faults: its service, and how to start it --- */

/* The service a host runs, from the prepare message: "service" names the
 * process (its comm), "restart" the command that starts it again. */
struct host_service {
    char comm[32];       /* its comm */
    char as[64];         /* the name the fault gives it ("": the host's service) */
    char restart[512];
    char netns[64];
};

static int service_process(void *ctx, const char *host, const char *process,
                           struct lab_process *p, char *err, size_t errlen)
{
    (void)host;
    (void)err;
    (void)errlen;
    const struct host_service *s = ctx;
    /* The service, or the process the fault names: by the comm the lab
     * gave that name (a lab host: brick is glusterfsd), else as named (a
     * real host's `process = tgtd`, started again by its restart command). */
    const char *comm = !process[0] || (s->comm[0] && strcmp(process, s->as) == 0) ? s->comm
                                                                                    : process;
    if (!comm[0])
        return 1;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", comm);
    snprintf(p->comm, sizeof p->comm, "%s", comm);
    p->restartable = s->restart[0] != '\0';
    return 0;
}

static int service_restart(void *ctx, const char *host, const char *process, char *err,
                           size_t errlen)
{
    (void)process;
    const struct host_service *s = ctx;
    if (!s->restart[0]) {
        snprintf(err, errlen, "host %s has no restart command", host);
        return -1;
    }
    char out[1024];
    char *argv[] = {"/bin/sh", "-c", (char *)s->restart, NULL};
    int rc = proc_run_in(s->netns, argv, out, sizeof out, RESTART_TIMEOUT_MS);
    if (rc != 0) {
        out[strcspn(out, "\n")] = '\0';
        snprintf(err, errlen, "restart command '%s' failed (%d): %s", s->restart, rc, out);
        return -1;
    }
    return 0;
}

/* --- messages --- */

static struct agent_fault *find(struct agent *a, uint64_t id)
{
    for (unsigned i = 0; i < a->n; i++)
        if (a->faults[i]->id == id)
            return a->faults[i];
    return NULL;
}

static void text(const struct jl_obj *m, const char *key, char *out, size_t n)
{
    const char *v = jl_str(m, key);
    snprintf(out, n, "%s", v ? v : "");
}

/* "name=addr,name=addr": the other hosts, for partition's peers. */
static void add_peers(struct fault_env *env, const char *peers)
{
    const char *p = peers ? peers : "";
    while (*p && env->nhosts < FL_MAX_HOSTS) {
        size_t len = strcspn(p, ",");
        char one[128];
        snprintf(one, sizeof one, "%.*s", (int)(len < 127 ? len : 127), p);
        char *eq = strchr(one, '=');
        if (eq) {
            *eq = '\0';
            struct fault_host *h = &env->hosts[env->nhosts++];
            memset(h, 0, sizeof *h);
            snprintf(h->name, sizeof h->name, "%.31s", one);
            snprintf(h->addr, sizeof h->addr, "%.63s", eq + 1);
        }
        p += len;
        if (*p == ',')
            p++;
    }
}

static void on_prepare(struct agent *a, const struct jl_obj *m)
{
    uint64_t id = 0;
    if (!jl_u64(m, "id", &id) || !id || find(a, id)) {
        send_error(a, "prepare", (unsigned)id, "a prepare needs a new id");
        return;
    }
    if (a->n == AGENT_MAX_FAULTS) {
        send_error(a, "prepare", (unsigned)id, "too many faults for one agent");
        return;
    }
    struct agent_fault *af = calloc(1, sizeof *af + sizeof(struct host_service));
    if (!af) {
        send_error(a, "prepare", (unsigned)id, "out of memory");
        return;
    }
    struct host_service *svc = (struct host_service *)(af + 1);
    af->id = (unsigned)id;
    struct fault *f = &af->f;
    struct fault_env *env = &af->env;
    struct fault_rules rules = {.allow_destructive = jl_bool(m, "allow_destructive", false)};
    char err[1100] = "";
    if (fault_spec_get(m, &rules, &f->spec, err, sizeof err) != 0) {
        send_error(a, "prepare", af->id, err);
        free(af);
        return;
    }
    /* Where it acts, as the controller resolved it for this host. */
    struct fault_host *h = &env->hosts[env->nhosts++];
    text(m, "host", h->name, sizeof h->name);
    text(m, "netns", h->netns, sizeof h->netns);
    text(m, "ifname", h->ifname, sizeof h->ifname);
    text(m, "port", h->port, sizeof h->port);
    text(m, "addr", h->addr, sizeof h->addr);
    text(m, "service", svc->comm, sizeof svc->comm);
    text(m, "service_as", svc->as, sizeof svc->as);
    text(m, "restart", svc->restart, sizeof svc->restart);
    snprintf(svc->netns, sizeof svc->netns, "%s", h->netns);
    h->lab = svc->comm[0] || svc->restart[0];
    add_peers(env, jl_str(m, "peers"));
    af->lab = (struct fault_lab){.ctx = svc, .process = service_process,
                                 .restart = service_restart};
    env->dir = a->run;
    env->undo = &a->undo;
    env->lab = &af->lab;
    env->replica_labs = "";
    uint64_t v = 0;
    env->block_size = jl_u64(m, "block", &v) ? (uint32_t)v : 4096;
    env->target_bytes = jl_u64(m, "target_bytes", &v) ? v : 0;
    env->seed = jl_u64(m, "seed", &v) ? v : 0;
    static char target_path[PATH_MAX], allow_paths[1024]; /* one run per agent */
    text(m, "target_path", target_path, sizeof target_path);
    text(m, "allow_paths", allow_paths, sizeof allow_paths);
    env->target_path = target_path;
    env->allow_paths = allow_paths;
    env->allow_destructive = rules.allow_destructive;
    text(m, "tag", env->tag, sizeof env->tag);
    text(m, "bridge", env->bridge, sizeof env->bridge);
    f->index = (unsigned)(id - 1);
    f->ops = f->spec.ops;
    f->env = env;
    f->host = *h;
    f->via = &fault_via_local;
    fault_schedule_of(&f->spec, &f->schedule);
    int rc = f->via->prepare(f, err, sizeof err);
    if (rc != 0) {
        send_error(a, "prepare", af->id, err);
        fault_release(f);
        free(af);
        return;
    }
    a->faults[a->n++] = af;
    char what[1024];
    f->via->describe(f, what, sizeof what);
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "re", "prepare");
    jl_put_u64(&o, "id", af->id);
    jl_put_bool(&o, "ok", true);
    jl_put_str(&o, "detail", what);
    send_line(a, &o);
}

static void on_apply(struct agent *a, const struct jl_obj *m)
{
    uint64_t id = 0, at = 0, clear_at = 0, lease = 0;
    struct agent_fault *af = jl_u64(m, "id", &id) ? find(a, id) : NULL;
    if (!af || !jl_u64(m, "at_ns", &at)) {
        send_error(a, "apply", (unsigned)id, "apply needs the id of a prepared fault and at_ns");
        return;
    }
    if (af->phase == ARMED || af->phase == ACTIVE) {
        send_error(a, "apply", af->id, "that fault is applied already");
        return;
    }
    jl_u64(m, "clear_at_ns", &clear_at);
    jl_u64(m, "lease_ns", &lease);
    /* Undo first, synced, before anything can happen. */
    char err[1024];
    if (fault_write_undo(&af->f, err, sizeof err) != 0) {
        struct jl_out o;
        jl_begin(&o);
        jl_put_str(&o, "ev", "applied");
        jl_put_u64(&o, "id", af->id);
        jl_put_bool(&o, "ok", false);
        jl_put_str(&o, "error", err);
        send_line(a, &o);
        return;
    }
    af->at = at;
    af->armed_at = mono_ns();
    af->clear_at = clear_at;
    af->lease = lease;
    af->by[0] = '\0';
    af->phase = ARMED;
}

static void note_restored(struct agent *a, const struct agent_fault *af)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/restored.log", a->run);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char line[256];
    int len = snprintf(line, sizeof line, "%s %s %llu %llu\n", af->f.spec.name, af->by,
                       (unsigned long long)af->cleared_at, (unsigned long long)af->applied_at);
    if (write(fd, line, (size_t)len) == len)
        fdatasync(fd);
    close(fd);
}

static void clear_one(struct agent *a, struct agent_fault *af, const char *by)
{
    char err[1024] = "";
    uint64_t when = mono_ns();
    int rc = 0;
    if (af->phase == ACTIVE)
        rc = af->f.via->clear(&af->f, &when, err, sizeof err);
    else if (af->phase == ARMED) /* never applied: its undo records say nothing is left */
        rc = fault_undo_all(&af->f, err, sizeof err);
    af->phase = DONE;
    af->cleared_at = when;
    snprintf(af->by, sizeof af->by, "%s", by);
    if (strcmp(by, "controller") != 0)
        note_restored(a, af);
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "ev", "cleared");
    jl_put_u64(&o, "id", af->id);
    jl_put_bool(&o, "ok", rc == 0);
    jl_put_u64(&o, "t_ns", when);
    jl_put_str(&o, "by", by);
    if (rc != 0)
        jl_put_str(&o, "error", err);
    send_line(a, &o);
}

static void on_clear(struct agent *a, const struct jl_obj *m)
{
    uint64_t id = 0;
    struct agent_fault *af = jl_u64(m, "id", &id) ? find(a, id) : NULL;
    if (!af) {
        send_error(a, "clear", (unsigned)id, "clear needs the id of a prepared fault");
        return;
    }
    if (af->phase == DONE && af->by[0]) { /* restored by itself already: say when */
        struct jl_out o;
        jl_begin(&o);
        jl_put_str(&o, "ev", "cleared");
        jl_put_u64(&o, "id", af->id);
        jl_put_bool(&o, "ok", true);
        jl_put_u64(&o, "t_ns", af->cleared_at);
        jl_put_str(&o, "by", af->by);
        send_line(a, &o);
        return;
    }
    clear_one(a, af, "controller");
}

static void inject_one(struct agent *a, struct agent_fault *af)
{
    char err[1024] = "";
    uint64_t when = 0, began = mono_ns();
    int rc = af->f.via->inject(&af->f, &when, err, sizeof err);
    af->applied_at = when;
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "ev", "applied");
    jl_put_u64(&o, "id", af->id);
    jl_put_bool(&o, "ok", rc == 0);
    jl_put_u64(&o, "t_ns", when);
    jl_put_u64(&o, "began_ns", began);     /* the family's inject ran from here */
    jl_put_u64(&o, "armed_ns", af->armed_at); /* and its apply had come then */
    /* What it overwrote (corrupt): "offset+length,..." and whether that is
     * the scenario's own target, for the controller's verdict. */
    const uint64_t(*ranges)[2];
    bool on_target = false;
    unsigned nranges = rc == 0 ? fault_overwrote(&af->f, &ranges, &on_target) : 0;
    if (nranges) {
        char text[64 * 44] = "";
        size_t used = 0;
        for (unsigned i = 0; i < nranges && used < sizeof text; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%llu+%llu", i ? "," : "",
                                     (unsigned long long)ranges[i][0],
                                     (unsigned long long)ranges[i][1]);
        jl_put_str(&o, "ranges", text);
        jl_put_bool(&o, "on_target", on_target);
    }
    char what[1024];
    af->f.via->describe(&af->f, what, sizeof what);
    jl_put_str(&o, rc == 0 ? "detail" : "error", rc == 0 ? what : err);
    if (rc != 0) { /* whatever part of it happened is undone at once */
        char e2[256];
        fault_undo_all(&af->f, e2, sizeof e2);
        af->phase = DONE;
    } else {
        af->phase = af->f.schedule.shape == FAULT_INSTANT && !af->clear_at ? DONE : ACTIVE;
    }
    send_line(a, &o);
}

/* When the agent clears an active fault by itself. */
static uint64_t lease_end(const struct agent_fault *af)
{
    uint64_t margin = af->lease / 10 < LEASE_MARGIN_MAX_NS ? af->lease / 10 : LEASE_MARGIN_MAX_NS;
    return af->clear_at + af->lease - margin;
}

/* The next thing due: an armed fault's time or an active one's lease. */
static uint64_t next_due(const struct agent *a)
{
    uint64_t due = UINT64_MAX;
    for (unsigned i = 0; i < a->n; i++) {
        const struct agent_fault *af = a->faults[i];
        if (af->phase == ARMED && af->at < due)
            due = af->at;
        if (af->phase == ACTIVE && af->clear_at && lease_end(af) < due)
            due = lease_end(af);
    }
    return due;
}

static void run_due(struct agent *a)
{
    uint64_t now = mono_ns();
    for (unsigned i = 0; i < a->n; i++) {
        struct agent_fault *af = a->faults[i];
        if (af->phase == ARMED && af->at <= now + SPIN_NS) {
            while (mono_ns() < af->at)
                ; /* the last 200 µs: a spin is far more exact than a timed wake-up */
            inject_one(a, af);
            now = mono_ns();
        } else if (af->phase == ACTIVE && af->clear_at && lease_end(af) <= now) {
            clear_one(a, af, "lease");
        }
    }
}

static bool busy(const struct agent *a)
{
    for (unsigned i = 0; i < a->n; i++)
        if (a->faults[i]->phase == ARMED || a->faults[i]->phase == ACTIVE)
            return true;
    return false;
}

static unsigned restore_all(struct agent *a, const char *by)
{
    unsigned n = 0;
    for (unsigned i = 0; i < a->n; i++)
        if (a->faults[i]->phase == ARMED || a->faults[i]->phase == ACTIVE) {
            clear_one(a, a->faults[i], by);
            n++;
        }
    return n;
}

static void on_line(struct agent *a, const char *line, bool *bye)
{
    struct jl_obj m;
    char why[256];
    if (jl_parse(line, &m, why, sizeof why) != 0) {
        char e[320];
        snprintf(e, sizeof e, "malformed message: %s", why);
        send_error(a, "error", 0, e);
        return;
    }
    const char *op = jl_str(&m, "op");
    if (op && strcmp(op, "time") == 0) {
        uint64_t seq = 0;
        jl_u64(&m, "seq", &seq);
        struct jl_out o;
        jl_begin(&o);
        jl_put_str(&o, "re", "time");
        jl_put_u64(&o, "seq", seq);
        jl_put_u64(&o, "mono_ns", mono_ns());
        send_line(a, &o);
    } else if (op && strcmp(op, "ping") == 0) {
        /* nothing to answer: that it came is the point */
    } else if (op && strcmp(op, "prepare") == 0) {
        on_prepare(a, &m);
    } else if (op && strcmp(op, "apply") == 0) {
        on_apply(a, &m);
    } else if (op && strcmp(op, "clear") == 0) {
        on_clear(a, &m);
    } else if (op && strcmp(op, "bye") == 0) {
        unsigned open = restore_all(a, "controller");
        struct jl_out o;
        jl_begin(&o);
        jl_put_str(&o, "re", "bye");
        jl_put_u64(&o, "open", open);
        send_line(a, &o);
        *bye = true;
    } else {
        char e[160];
        snprintf(e, sizeof e, "unknown op '%.64s' (time, ping, prepare, apply, clear, bye)",
                 op ? op : "");
        send_error(a, "error", 0, e);
    }
    jl_free(&m);
}

static void hello(struct agent *a)
{
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "ev", "hello");
    jl_put_str(&o, "build", self_build_id());
    jl_put_u64(&o, "pid", (uint64_t)getpid());
    jl_put_u64(&o, "mono_ns", mono_ns());
    /* the host, for the manifest of the run's report */
    struct utsname u;
    if (uname(&u) == 0) {
        jl_put_str(&o, "nodename", u.nodename);
        jl_put_str(&o, "kernel", u.release);
    }
    send_line(a, &o);
}

static void release_all(struct agent *a)
{
    for (unsigned i = 0; i < a->n; i++) {
        fault_release(&a->faults[i]->f);
        free(a->faults[i]);
    }
    a->n = 0;
}

/* The run's directory and its two files. */
static void remove_run(const char *run)
{
    const char *files[] = {"undo.log", "restored.log"};
    for (int i = 0; i < 2; i++) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/%s", run, files[i]);
        unlink(path);
    }
    rmdir(run);
}

/* The agent's home holds what it runs (itself) and what it replays (its
 * undo logs, with their commands): it goes on only where nobody but its
 * own user or root can have put anything.  The bootstrap (spawn.c) has
 * checked that already, before it ran anything there; this holds for an
 * agent started some other way too. */
static int own_home(const char *dir, char *err, size_t errlen)
{
    char why[1024];
    /* A new one is made with mode 700, as the bootstrap makes it; one that
     * exists is what private_dir judges. */
    if (access(dir, F_OK) != 0) {
        char up[PATH_MAX];
        snprintf(up, sizeof up, "%s", dir);
        char *slash = strrchr(up, '/');
        if (slash && slash != up) {
            *slash = '\0';
            if (mkdir_p(up, why, sizeof why) != 0) {
                snprintf(err, errlen, "refusing its directory: %s", why);
                return -1;
            }
        }
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "refusing its directory: cannot create %s: %s", dir,
                     strerror(errno));
            return -1;
        }
    }
    if (private_dir(dir, why, sizeof why) != 0) {
        snprintf(err, errlen, "refusing its directory: %s", why);
        return -1;
    }
    return 0;
}

int agent_serve(const char *dir, const char *tag, int in, int out)
{
    struct agent *a = calloc(1, sizeof *a);
    if (!a) {
        fprintf(stderr, "faultline agent: out of memory\n");
        return 2;
    }
    a->dir = dir;
    a->tag = tag;
    a->out = out;
    agent_run_dir(dir, tag, a->run, sizeof a->run);
    char err[1280];
    if (own_home(dir, err, sizeof err) != 0 || mkdir_p(a->run, err, sizeof err) != 0 ||
        undo_open_unlisted(&a->undo, a->run, err, sizeof err) != 0) {
        fprintf(stderr, "faultline agent: %s\n", err);
        free(a);
        return 2;
    }
    a->undo_open = true;
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    hello(a);
    static char buf[JL_MAX_LINE + 2];
    size_t have = 0;
    bool bye = false, eof = false;
    a->last_heard = mono_ns();
    while (!bye && !eof && !signalled) {
        uint64_t due = next_due(a), now = mono_ns();
        if (!busy(a)) {
            if (now >= a->last_heard + SILENCE_NS) {
                fprintf(stderr, "faultline agent: no word from the controller for %llu s, "
                        "and nothing in effect: leaving\n",
                        (unsigned long long)(SILENCE_NS / 1000000000ull));
                break;
            }
            if (a->last_heard + SILENCE_NS < due)
                due = a->last_heard + SILENCE_NS;
        }
        int timeout = -1;
        if (due != UINT64_MAX)
            timeout = due <= now + 2 * SPIN_NS ? 0 : (int)((due - now - SPIN_NS) / 1000000);
        struct pollfd p = {.fd = in, .events = POLLIN};
        int r = poll(&p, 1, timeout);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0) {
            ssize_t got = read(in, buf + have, sizeof buf - 1 - have);
            if (got <= 0 && !(got < 0 && errno == EINTR)) {
                eof = true;
            } else if (got > 0) {
                a->last_heard = mono_ns();
                have += (size_t)got;
                buf[have] = '\0';
                char *start = buf, *nl;
                while (!bye && (nl = memchr(start, '\n', have - (size_t)(start - buf)))) {
                    *nl = '\0';
                    if (nl > start)
                        on_line(a, start, &bye);
                    start = nl + 1;
                }
                have -= (size_t)(start - buf);
                memmove(buf, start, have);
                if (have == sizeof buf - 1) { /* a line longer than any message */
                    send_error(a, "error", 0, "malformed message: a line too long");
                    have = 0;
                }
            }
        }
        run_due(a);
    }
    if (!bye)
        restore_all(a, "close"); /* the controller is gone: put the host back now */
    bool all_done = true;
    for (unsigned i = 0; i < a->n; i++)
        all_done &= a->faults[i]->f.nundo == 0 && !a->faults[i]->f.undo_failed;
    undo_close(&a->undo, 0);
    /* Said bye with nothing left open: the run's files have no more use. */
    if (bye && all_done)
        remove_run(a->run);
    release_all(a);
    free(a);
    return all_done ? 0 : 1;
}

/* An agent still serving run `tag` holds the lock on its undo log (undo.h)
 * until it has put its host back: that host is its own, to clear at its
 * controller's word, at the controller's close or at a lease's end, and a
 * replay under it would undo faults it still reports as in effect.  One
 * whose controller has just gone is putting the host back right now (the
 * same few netlink and nft calls a clear makes): it gets LIVE_WAIT_MS to
 * finish before the cleanup says it is live. */
#define LIVE_WAIT_MS 1000
static bool agent_live(const char *run, struct undo_writer *w)
{
    for (unsigned waited = 0;; waited += 20) {
        undo_writer(run, w);
        if (!w->live || waited >= LIVE_WAIT_MS)
            return w->live;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int agent_cleanup(const char *dir, const char *tag, int out)
{
    char run[PATH_MAX], err[1280] = "";
    agent_run_dir(dir, tag, run, sizeof run);
    unsigned undone = 0;
    /* Nothing runs from a home others could have planted (the undo log
     * holds commands), and nothing is undone under a live agent. */
    bool home = own_home(dir, err, sizeof err) == 0;
    struct undo_writer w;
    bool live = home && agent_live(run, &w);
    bool found = home && access(run, F_OK) == 0; /* (said: "nothing undone" may mean elsewhere) */
    int rc = -1;
    if (live) {
        char pid[32] = "pid not known";
        if (w.pid)
            snprintf(pid, sizeof pid, "pid %d", (int)w.pid);
        snprintf(err, sizeof err, "the agent of run %s is still running here (%s): it puts "
                 "this host back by itself when its controller clears, its connection closes "
                 "or a lease ends; nothing was undone under it", tag, pid);
    } else if (home) {
        rc = undo_replay(run, &undone, err, sizeof err);
    }
    /* What the agent had restored by itself: "NAME BY TIME" lines. */
    char path[PATH_MAX + 16], restored[4096] = "";
    snprintf(path, sizeof path, "%s/restored.log", run);
    FILE *f = home ? fopen(path, "r") : NULL;
    char line[256];
    size_t used = 0;
    while (f && fgets(line, sizeof line, f) && used < sizeof restored) {
        char name[64], by[16];
        if (sscanf(line, "%63s %15s", name, by) == 2)
            used += (size_t)snprintf(restored + used, sizeof restored - used, "%s%s (%s)",
                                     used ? ", " : "", name, by);
    }
    if (f)
        fclose(f);
    if (rc == 0)
        remove_run(run); /* everything is back: nothing to ask for again */
    struct agent a = {.out = out};
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "re", "cleanup");
    jl_put_bool(&o, "ok", rc == 0);
    if (live) {
        jl_put_bool(&o, "live", true);
        jl_put_u64(&o, "pid", (uint64_t)w.pid);
    }
    jl_put_u64(&o, "undone", undone);
    jl_put_bool(&o, "found", found);
    jl_put_str(&o, "run", run);
    jl_put_str(&o, "restored", restored);
    if (rc != 0)
        jl_put_str(&o, "error", err);
    send_line(&a, &o);
    return rc == 0 ? 0 : 1;
}
