/* remote — the controller's side of an agent; see remote.h. */
#include "remote.h"
#include "spec.h"
#include "sshcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/jsonl.h"
#include "../../lib/proc.h"
#include "../../lib/selfid.h"
#include "../undo.h"

#define HELLO_TIMEOUT_MS 30000   /* ssh's login and, when needed, the copy */
#define PREPARE_TIMEOUT_MS 30000 /* the family's prepare on the host */
#define ANSWER_WAIT_NS 50000000ull /* the timeline waits this (plus 4 round trips) for an
                                      answer; a later one still fills in the times */
#define TIME_ROUNDS 8
#define MAX_REMOTE_FAULTS 256
#define REMOTE_MAX_RANGES 64
#define BOOT_SCRIPT_MAX 8192 /* the bootstrap and its variables */

/* What one fault's agent said (f->state of a fault that goes through r). */
struct remote_fault {
    unsigned id;
    struct fault *f;
    char desc[1024];
    bool applied_seen, cleared_seen, apply_ok, clear_ok;
    uint64_t applied_at, cleared_at; /* agent mono_ns */
    uint64_t clear_due;              /* our mono_ns of the planned clear, 0: instant */
    uint64_t began_at, armed_at;     /* agent mono_ns: its inject began; its apply came */
    uint64_t ranges[REMOTE_MAX_RANGES][2]; /* what it overwrote on the host (corrupt) */
    unsigned nranges;
    bool on_target;
    char by[16];
    char error[1024];
};

struct remote {
    struct fault_host host;
    char tag[16];
    pid_t ssh;
    int to, from; /* the agent's stdin, stdout */
    char buf[JL_MAX_LINE + 2];
    size_t have;
    char line[JL_MAX_LINE + 2];
    bool eof;
    char log[PATH_MAX];
    struct remote_info info;
    uint64_t t0;
    /* The reader thread takes every line the agent writes: events go into
     * their faults' remote_fault, an answer ("re") into `reply`; callers
     * wait on cv.  mu guards all of that; wmu the writes to the agent. */
    pthread_t reader;
    bool reader_on;
    pthread_mutex_t mu, wmu;
    pthread_cond_t cv;
    bool have_reply;
    struct jl_obj reply;
    struct remote_fault *faults[MAX_REMOTE_FAULTS];
    unsigned n;
    uint64_t last_lease;
    char first[4096]; /* the agent's first line: its hello, or its cleanup answer */
};

/* --- the ssh_dest as one line --- */

void remote_dest_encode(const struct ssh_dest *d, char *out, size_t n)
{
    snprintf(out, n, "%s|%llu|%s|%s|%d|%s|%llu|%s", d->dest, (unsigned long long)d->port,
             d->identity, d->known_hosts, d->sudo ? 1 : 0, d->agent_dir,
             (unsigned long long)d->lease_ns, d->options);
}

static const char *field(const char *p, char *out, size_t n)
{
    size_t len = strcspn(p, "|");
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), p);
    return p[len] ? p + len + 1 : p + len;
}

int remote_dest_decode(const char *text, struct ssh_dest *d)
{
    memset(d, 0, sizeof *d);
    char num[32];
    const char *p = field(text, d->dest, sizeof d->dest);
    p = field(p, num, sizeof num);
    d->port = strtoull(num, NULL, 10);
    p = field(p, d->identity, sizeof d->identity);
    p = field(p, d->known_hosts, sizeof d->known_hosts);
    p = field(p, num, sizeof num);
    d->sudo = num[0] == '1';
    p = field(p, d->agent_dir, sizeof d->agent_dir);
    p = field(p, num, sizeof num);
    d->lease_ns = strtoull(num, NULL, 10);
    snprintf(d->options, sizeof d->options, "%s", p);
    return d->dest[0] ? 0 : -1;
}

/* --- ssh --- */

/* The script the host's sh runs: find the agent's home, check that nobody
 * but its user (or root) can have put anything there, then check the
 * agent's copy, take ours over stdin when it differs, and exec it.  It
 * holds no single quote, so that it can be quoted once for the remote
 * shell.  Its variables come first (bootstrap_script); "FL-ERROR why" is
 * its last word when it gives up. */
static const char boot_body[] =
    "h=$(uname -n); u=$(id -u); me=\"$(id -un) (uid $u)\"; umask 077\n"
    "[ \"$u\" = 0 ] && who=root || who=\"root or $me\"\n"
    "no() { echo \"FL-ERROR $*\"; exit 1; }\n"
    "m=$(uname -m); [ \"$m\" = \"$arch\" ] || "
    "no \"$h is $m, and this faultline is built for $arch\"\n"
    /* The default home is the user's own: root's (and sudo's) under
     * /var/lib, another user's under its HOME. */
    "if [ -z \"$d\" ]; then\n"
    "  if [ \"$u\" = 0 ]; then d=$root\n"
    "  elif [ -n \"$HOME\" ]; then d=\"$HOME/$home\"\n"
    "  else no \"$me on $h has no HOME for the agent: give the host an agent_dir\"; fi\n"
    "fi\n"
    "base=$(basename -- \"$d\") && up=$(dirname -- \"$d\") || no \"cannot take $d apart on $h\"\n"
    "case $base in .|..|/) no \"agent_dir $d on $h names no directory of its own\" ;; esac\n"
    "d=\"${up%/}/$base\"\n"
    /* mkdir -p succeeds on a directory that exists, whoever owns it: what
     * follows is what decides. */
    "[ -L \"$d\" ] || mkdir -p -- \"$d\" || no \"cannot create $d on $h\"\n"
    /* The real path of its parent: no link above it is followed again. */
    "up=$(CDPATH= cd -P -- \"$up\" && pwd -P) || no \"cannot resolve $up on $h\"\n"
    "p=\"${up%/}/$base\"; b=\"$p/faultline\"\n"
    "look() { s=$(stat -c \"%u %a %U\" -- \"$1\" 2>&1) || no \"cannot look at $1 on $h: $s\"; "
    "set -- $s; o=$1; a=$2; w=\"owned by $3 (uid $1) with mode $2\"; }\n"
    /* The home and the binary: not links, ours, not writable by others. */
    "mine() {\n"
    "  [ ! -L \"$1\" ] || no \"refusing $1 on $h: it is a symbolic link (to "
    "$(readlink -- \"$1\")), and nothing is run through a link; nothing there was run: "
    "remove it (rm $1)\"\n"
    "  look \"$1\"\n"
    "  [ \"$o\" = \"$u\" ] && [ $((0$a & 022)) = 0 ] || no \"refusing $1 on $h: it is $w; "
    "it must be owned by $me and not writable by group or others. Nothing there was run: "
    "give it to that user alone (chown, chmod go-w) if nobody else has put anything in it, "
    "or name a new agent_dir, which faultline creates with mode 700\"\n"
    "}\n"
    "mine \"$p\"\n"
    "[ -d \"$p\" ] || no \"refusing $p on $h: it is not a directory\"\n"
    /* Every directory above: another user who may write to one could
     * rename the home away and put their own in its place (unless it is
     * root's and sticky, like /tmp). */
    "q=$p\n"
    "while [ \"$q\" != / ]; do\n"
    "  q=${q%/*}; q=${q:-/}; look \"$q\"\n"
    "  { [ \"$o\" = 0 ] || [ \"$o\" = \"$u\" ]; } && { [ $((0$a & 022)) = 0 ] || "
    "{ [ \"$o\" = 0 ] && [ $((0$a & 01000)) != 0 ]; }; } || no \"refusing $p on $h: it is "
    "under $q, $w, so another user could rename it away and put another in its place; "
    "nothing there was run. Give agent_dir a directory whose every parent is owned by "
    "$who and not writable by group or others (or sticky and owned by root, like /tmp)\"\n"
    "done\n"
    /* Which build a file is: the host's own sha256sum, so that nothing
     * that is not ours runs (without one: the copy itself, checked). */
    "sum() { if command -v sha256sum > /dev/null; then s=$(sha256sum < \"$1\") && "
    "echo \"${s%% *}\"; else \"$1\" build-id 2>&1; fi; }\n"
    "id=\n"
    "if [ -e \"$b\" ] || [ -L \"$b\" ]; then\n"
    "  mine \"$b\"\n"
    "  [ -f \"$b\" ] || no \"refusing $b on $h: it is not a regular file; remove it\"\n"
    "  id=$(sum \"$b\") || id=\n"
    "fi\n"
    /* Ours over stdin, into a new file only we can have made (mktemp:
     * O_EXCL, 0600), renamed over the old one whole; removed when the
     * session ends first (the controller gone: sshd's SIGHUP). */
    "c=; t=\n"
    "part() { [ -z \"$t\" ] || rm -f -- \"$t\"; }\n"
    "if [ \"$id\" != \"$want\" ]; then\n"
    "  trap \"part; exit 1\" HUP INT TERM PIPE\n"
    "  t=$(mktemp \"$p/.faultline.XXXXXX\") || no \"cannot create a file in $p on $h\"\n"
    "  echo \"FL-SEND ${id:-none}\"\n"
    "  head -c $n > \"$t\" && [ \"$(wc -c < \"$t\")\" -eq $n ] && chmod 700 \"$t\" && "
    "mv -f -- \"$t\" \"$b\" || { part; no \"cannot write $b on $h\"; }\n"
    "  t=; c=1; trap - HUP INT TERM PIPE\n"
    "fi\n"
    /* It is ours, whole, and runs here (a library the host lacks shows
     * now, by name; --version is cheap, build-id hashes the whole file). */
    "o=$(sum \"$b\")\n"
    "[ \"$o\" = \"$want\" ] || no \"the copy at $b on $h is another build (${o:-unknown})\"\n"
    "o=$(\"$b\" --version 2>&1) || no \"$b cannot run on $h: $(echo \"$o\" | tr \"\\n\" \" \")\"\n"
    "[ -z \"$c\" ] || echo FL-COPIED\n"
    "exec \"$b\" agent --dir \"$p\" --$how $tag\n";

/* The script's variables: the agent_dir ("" the default), our machine,
 * build id and size, the agent's mode and run tag.  agent_dir holds only
 * letters, digits and /._-+ (scenario.c), the others are ours: none needs
 * quotes. */
static void bootstrap_script(const struct ssh_dest *d, size_t size, const char *mode,
                             const char *tag, char *out, size_t n)
{
    snprintf(out, n, "d=%s; arch=%s; want=%s; n=%zu; how=%s; tag=%s; root=%s; home=%s\n%s",
             d->agent_dir, self_machine(), self_build_id(), size, mode, tag,
             REMOTE_ROOT_AGENT_DIR, REMOTE_USER_AGENT_DIR, boot_body);
}

/* Starts ssh with the agent's bootstrap; r->to/from/ssh filled. */
static int spawn_ssh(struct remote *r, const struct ssh_dest *d, const char *script, char *err,
                     size_t errlen)
{
    char command[BOOT_SCRIPT_MAX + 64];
    /* The remote shell gets one word: sh -c 'SCRIPT' (SCRIPT holds no '). */
    snprintf(command, sizeof command, "%ssh -c '%s'", d->sudo ? "sudo -n " : "", script);
    struct sshcmd c;
    sshcmd_argv(d, command, &c);

    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot make pipes for ssh: %s", strerror(errno));
        return -1;
    }
    int log = open(r->log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot fork for ssh: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* ssh dies with us: a controller that is gone closes the session,
         * and the agent restores its host at once. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (log >= 0)
            dup2(log, 2);
        setpgid(0, 0); /* our SIGINT is ours; the agent hears of it through us */
        proc_child_signals();
        execvp("ssh", c.argv);
        dprintf(2, "cannot run ssh: %s\n", strerror(errno));
        _exit(127);
    }
    if (log >= 0)
        close(log);
    close(in[0]);
    close(out[1]);
    r->ssh = pid;
    r->to = in[1];
    r->from = out[0];
    return 0;
}

/* The last line ssh wrote to its log, for messages. */
static void ssh_said(const struct remote *r, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(r->log, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n') {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(out, n, "%s", line);
        }
    if (f)
        fclose(f);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* One line from the agent, waiting at most until `deadline` (mono_ns;
 * UINT64_MAX: as long as it takes).  1: *line points at it (valid until
 * the next call); 0: time is up; -1: the connection closed. */
static int read_line(struct remote *r, uint64_t deadline, char **line)
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

static uint64_t to_ours(const struct remote *r, uint64_t agent_ns)
{
    return (uint64_t)((int64_t)agent_ns - r->info.offset_ns);
}

/* What an agent said of a fault, with where: its host's name first,
 * unless the text starts with it already (a command's detail is "on gs1:
 * ..."), so that a detail never reads "on gs1: on gs1: ...". */
static void on_host(char *out, size_t n, const char *host, const char *text)
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
            on_host(rf->desc, sizeof rf->desc, r->host.name, d);
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

static void *read_agent(void *arg)
{
    struct remote *r = arg;
    for (;;) {
        char *line;
        int rc = read_line(r, UINT64_MAX, &line);
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
static int await_reply(struct remote *r, const char *re, uint64_t id, uint64_t deadline,
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
static bool await_event(struct remote *r, const struct remote_fault *rf, bool cleared,
                        uint64_t deadline)
{
    pthread_mutex_lock(&r->mu);
    while (!(cleared ? rf->cleared_seen : rf->applied_seen) && wait_cv(r, deadline))
        ;
    bool seen = cleared ? rf->cleared_seen : rf->applied_seen;
    pthread_mutex_unlock(&r->mu);
    return seen;
}

static int send_msg(struct remote *r, struct jl_out *o, char *err, size_t errlen)
{
    if (jl_end(o) != 0) {
        snprintf(err, errlen, "a message to the agent on %s is too long", r->host.name);
        return -1;
    }
    pthread_mutex_lock(&r->wmu);
    int rc = r->to >= 0 ? write_all(r->to, o->buf, o->len) : -1;
    pthread_mutex_unlock(&r->wmu);
    if (rc != 0) {
        snprintf(err, errlen, "cannot write to the agent on %s: %s", r->host.name,
                 r->to >= 0 ? strerror(errno) : "the session is closed");
        return -1;
    }
    return 0;
}

/* The bootstrap's lines before the agent's hello; the copy when asked. */
static int bootstrap(struct remote *r, const unsigned char *img, size_t size, char *err,
                     size_t errlen)
{
    uint64_t deadline = mono_ns() + HELLO_TIMEOUT_MS * 1000000ull;
    for (int lines = 0; lines < 64; lines++) {
        char *line;
        int rc = read_line(r, deadline, &line);
        if (rc <= 0) {
            char said[512];
            ssh_said(r, said, sizeof said);
            snprintf(err, errlen, "ssh %s %s%s%s", r->host.ssh.dest,
                     rc == 0 ? "did not start the agent within 30 s" : "closed before the agent "
                                                                       "started",
                     said[0] ? ": " : "", said);
            return -1;
        }
        if (strncmp(line, "FL-ERROR ", 9) == 0) {
            snprintf(err, errlen, "%s", line + 9);
            return -1;
        }
        if (strncmp(line, "FL-SEND", 7) == 0) {
            if (!img) {
                snprintf(err, errlen, "the agent on %s needs a copy of this build", r->host.name);
                return -1;
            }
            if (write_all(r->to, img, size) != 0) {
                snprintf(err, errlen, "cannot copy faultline to %s: %s", r->host.name,
                         strerror(errno));
                return -1;
            }
            continue;
        }
        if (strcmp(line, "FL-COPIED") == 0) {
            r->info.copied = true;
            continue;
        }
        if (line[0] == '{') { /* the agent speaks */
            snprintf(r->first, sizeof r->first, "%s", line);
            return 1;
        }
    }
    snprintf(err, errlen, "the agent on %s did not say hello", r->host.name);
    return -1;
}

/* Round trip and offset: the sample with the shortest round trip. */
static int measure_clock(struct remote *r, char *err, size_t errlen)
{
    uint64_t best = UINT64_MAX;
    for (unsigned i = 1; i <= TIME_ROUNDS; i++) {
        struct jl_out o;
        jl_begin(&o);
        jl_put_str(&o, "op", "time");
        jl_put_u64(&o, "seq", i);
        uint64_t sent = mono_ns();
        if (send_msg(r, &o, err, errlen) != 0)
            return -1;
        struct jl_obj m;
        int rc = await_reply(r, "time", 0, sent + 5000000000ull, &m);
        uint64_t back = mono_ns();
        if (rc != 1) {
            snprintf(err, errlen, "the agent on %s does not answer the time", r->host.name);
            return -1;
        }
        uint64_t them = 0, seq = 0;
        bool ok = jl_u64(&m, "mono_ns", &them) && jl_u64(&m, "seq", &seq) && seq == i;
        jl_free(&m);
        if (ok && back - sent < best) {
            best = back - sent;
            r->info.rtt_ns = best;
            r->info.offset_ns = (int64_t)them - (int64_t)(sent + (back - sent) / 2);
        }
    }
    return 0;
}

static struct remote *connect_agent(const struct ssh_dest *d, const char *name, const char *mode,
                                    const char *tag, const char *log, char *err, size_t errlen)
{
    struct remote *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->to = r->from = -1;
    pthread_mutex_init(&r->mu, NULL);
    pthread_mutex_init(&r->wmu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cv, &ca);
    pthread_condattr_destroy(&ca);
    snprintf(r->host.name, sizeof r->host.name, "%s", name);
    r->host.ssh = *d;
    snprintf(r->tag, sizeof r->tag, "%s", tag);
    snprintf(r->info.host, sizeof r->info.host, "%s", name);
    snprintf(r->info.dest, sizeof r->info.dest, "%s", d->dest);
    snprintf(r->log, sizeof r->log, "%s", log);
    size_t size = 0;
    unsigned char *img = self_image(&size, err, errlen);
    if (!img) {
        free(r);
        return NULL;
    }
    char script[BOOT_SCRIPT_MAX];
    bootstrap_script(d, size, mode, tag, script, sizeof script);
    uint64_t began = mono_ns();
    char why[1024] = "";
    int rc = spawn_ssh(r, d, script, why, sizeof why) != 0 ? -1
                                                            : bootstrap(r, img, size, why, sizeof why);
    free(img);
    if (rc < 0) {
        char port[24] = "";
        if (d->port)
            snprintf(port, sizeof port, ":%llu", (unsigned long long)d->port);
        snprintf(err, errlen, "the agent on %s (ssh %s%s): %s", name, d->dest, port, why);
        remote_close(r);
        return NULL;
    }
    r->info.connect_ns = mono_ns() - began;
    return r;
}

struct remote *remote_open(const struct fault_host *h, const char *tag, const char *logdir,
                           char *err, size_t errlen)
{
    char log[PATH_MAX];
    snprintf(log, sizeof log, "%s/ssh-%s.log", logdir, h->name);
    struct remote *r = connect_agent(&h->ssh, h->name, "run", tag, log, err, errlen);
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
    int rc = pthread_create(&r->reader, NULL, read_agent, r);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start a thread for the agent on %s: %s", h->name,
                 strerror(rc));
        remote_close(r);
        return NULL;
    }
    r->reader_on = true;
    if (measure_clock(r, err, errlen) != 0) {
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

uint64_t remote_late_arm(const struct fault *f)
{
    const struct remote_fault *rf = f->state;
    if (!f->remote || !rf || !f->remote->t0 || !rf->armed_at)
        return 0;
    uint64_t armed = to_ours(f->remote, rf->armed_at), due = f->remote->t0 + f->scheduled_ns;
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
    send_msg(r, &o, err, sizeof err); /* a closed session shows at the next real call */
}

void remote_attach(struct remote *r, struct fault *f)
{
    f->remote = r;
    f->via = &fault_via_ssh;
    snprintf(f->via_host, sizeof f->via_host, "%s", r->host.name);
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
static void hang_up(struct remote *r, int wait_ms)
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

int remote_bye(struct remote *r, uint64_t deadline, char *err, size_t errlen)
{
    struct jl_out o;
    jl_begin(&o);
    jl_put_str(&o, "op", "bye");
    int rc = -1;
    if (send_msg(r, &o, err, errlen) == 0) {
        struct jl_obj m;
        int got = await_reply(r, "bye", 0, deadline, &m);
        if (got == 1) {
            jl_free(&m);
            rc = 0;
        } else {
            snprintf(err, errlen, "the agent on %s did not answer bye%s; its lease clears what "
                     "is left", r->host.name, got == 0 ? " in time" : " (the session closed)");
        }
    }
    hang_up(r, 3000);
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
        f->injected_ns = to_ours(r, rf->applied_at) - r->t0;
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
            on_host(where, sizeof where, r->host.name, rf->error);
            snprintf(f->error, sizeof f->error, "inject failed: %s", where);
        }
    }
    /* A clear the agent did (its lease), or answered late. */
    if (rf->cleared_seen && r->t0 && rf->cleared_at) {
        f->cleared_ns = to_ours(r, rf->cleared_at) - r->t0;
        snprintf(f->cleared_by, sizeof f->cleared_by, "%s", rf->by);
        if (!rf->clear_ok) {
            f->clear_failed = true;
            if (!f->error[0]) {
                char where[1000];
                on_host(where, sizeof where, r->host.name, rf->error);
                snprintf(f->error, sizeof f->error, "clear failed: %s", where);
            }
        }
    }
    pthread_mutex_unlock(&r->mu);
}

void remote_close(struct remote *r)
{
    if (!r)
        return;
    hang_up(r, 1000);
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

/* --- the fault_via of faults on an ssh host --- */

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
    jl_put_u64(&o, "target_bytes", env->target_bytes);
    jl_put_str(&o, "target_path", env->target_path ? env->target_path : "");
    jl_put_bool(&o, "allow_destructive", env->allow_destructive);
    jl_put_str(&o, "allow_paths", env->allow_paths ? env->allow_paths : "");
    jl_put_str(&o, "bridge", on_switch ? env->bridge : "");
    if (send_msg(r, &o, err, errlen) != 0)
        return -1;
    struct jl_obj m;
    int rc = await_reply(r, "prepare", rf->id, mono_ns() + PREPARE_TIMEOUT_MS * 1000000ull, &m);
    if (rc != 1) {
        snprintf(err, errlen, "the agent on %s did not answer the prepare%s", r->host.name,
                 rc == 0 ? " within 30 s" : " (the session closed)");
        return -1;
    }
    bool ok = jl_bool(&m, "ok", false);
    const char *text = jl_str(&m, ok ? "detail" : "error");
    on_host(ok ? rf->desc : err, ok ? sizeof rf->desc : errlen, r->host.name,
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
    return send_msg(r, &o, err, errlen);
}

static int ssh_inject(struct fault *f, uint64_t *when, char *err, size_t errlen)
{
    struct remote *r = f->remote;
    struct remote_fault *rf = rf_of(f);
    if (await_event(r, rf, false, mono_ns() + answer_ns(r))) {
        pthread_mutex_lock(&r->mu);
        *when = to_ours(r, rf->applied_at);
        f->apply_ns = rf->applied_at > rf->began_at && rf->began_at
                          ? rf->applied_at - rf->began_at : 0; /* what the host spent */
        bool ok = rf->apply_ok;
        if (!ok)
            on_host(err, errlen, r->host.name, rf->error);
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
        if (send_msg(r, &o, err, errlen) != 0)
            return -1;
        if (!await_event(r, rf, true, mono_ns() + answer_ns(r))) {
            /* The agent's lease clears it; a late answer fills in when
             * and by whom (remote_settle). */
            *when = 0;
            snprintf(f->cleared_by, sizeof f->cleared_by, "unconfirmed");
            return 0;
        }
    }
    pthread_mutex_lock(&r->mu);
    *when = to_ours(r, rf->cleared_at);
    snprintf(f->cleared_by, sizeof f->cleared_by, "%s", rf->by);
    bool ok = rf->clear_ok;
    if (!ok)
        on_host(err, errlen, r->host.name, rf->error);
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

/* --- cleanup of a killed run --- */

int remote_cleanup(const struct ssh_dest *dest, const char *tag, char *said, size_t saidlen,
                   char *err, size_t errlen)
{
    said[0] = '\0';
    char log[] = "/tmp/fl-ssh-XXXXXX";
    int fd = mkstemp(log);
    if (fd < 0) {
        snprintf(err, errlen, "cannot make a log file for ssh: %s", strerror(errno));
        return -1;
    }
    close(fd);
    struct remote *r = connect_agent(dest, dest->dest, "cleanup", tag, log, err, errlen);
    unlink(log);
    if (!r)
        return -1;
    struct jl_obj m;
    char why[256];
    int rc = -1;
    if (jl_parse(r->first, &m, why, sizeof why) != 0) {
        snprintf(err, errlen, "the agent on %s answered the cleanup with %s", dest->dest, why);
    } else {
        uint64_t undone = 0;
        jl_u64(&m, "undone", &undone);
        const char *restored = jl_str(&m, "restored"), *e = jl_str(&m, "error");
        const char *run = jl_str(&m, "run");
        if (jl_bool(&m, "ok", false) && !jl_bool(&m, "found", true)) {
            rc = 0;
            snprintf(said, saidlen, "%s: the agent holds no run %s (%s): it put everything "
                     "back and removed it, or it never served that run there", dest->dest, tag,
                     run ? run : "its home");
        } else if (jl_bool(&m, "ok", false)) {
            rc = 0;
            snprintf(said, saidlen, "%s: the agent undid %llu record(s); it had restored by "
                     "itself: %s", dest->dest, (unsigned long long)undone,
                     restored && restored[0] ? restored : "nothing");
        } else {
            snprintf(err, errlen, "%s: %s", dest->dest, e ? e : "the agent's cleanup failed");
        }
        jl_free(&m);
    }
    remote_close(r);
    return rc;
}
