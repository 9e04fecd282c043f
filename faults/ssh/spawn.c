/*
 * spawn — ssh and the self-copy: the session to a host's agent started
 * (remote.h says how the bootstrap goes), our executable sent over it when
 * the host's copy is missing or another build, up to the agent's first
 * line.
 */
#include "conn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/proc.h"
#include "../../lib/selfid.h"
#include "../../lib/spawner.h"
#include "sshcmd.h"

#define HELLO_TIMEOUT_MS 30000 /* ssh's login and, when needed, the copy */
#define BOOT_SCRIPT_MAX 8192   /* the bootstrap and its variables */

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

/* What the ssh child needs. */
struct ssh_job {
    pid_t parent;
    int in, out, log;
    char **argv;
};

static void ssh_main(void *ctx)
{
    const struct ssh_job *j = ctx;
    /* ssh dies with us: a controller that is gone closes the session,
     * and the agent restores its host at once. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != j->parent)
        _exit(127);
    dup2(j->in, 0);
    dup2(j->out, 1);
    if (j->log >= 0)
        dup2(j->log, 2);
    setpgid(0, 0); /* our SIGINT is ours; the agent hears of it through us */
    proc_child_signals();
    execvp("ssh", j->argv);
    dprintf(2, "cannot run ssh: %s\n", strerror(errno));
    _exit(127);
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

    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot make pipes for ssh: %s", strerror(errno));
        for (int i = 0; i < 2; i++)
            if (in[i] >= 0)
                close(in[i]);
        return -1;
    }
    int log = open(r->log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct ssh_job job = {.parent = getpid(), .in = in[0], .out = out[1], .log = log,
                          .argv = c.argv};
    int keep[3] = {in[0], out[1], log};
    pid_t pid = spawner_fork(keep, log >= 0 ? 3 : 2, -1, ssh_main, &job);
    int e = errno;
    if (log >= 0)
        close(log);
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        snprintf(err, errlen, "cannot fork for ssh: %s", strerror(e));
        return -1;
    }
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

/* The bootstrap's lines before the agent's hello; the copy when asked. */
static int bootstrap(struct remote *r, const unsigned char *img, size_t size, char *err,
                     size_t errlen)
{
    uint64_t deadline = mono_ns() + HELLO_TIMEOUT_MS * 1000000ull;
    for (int lines = 0; lines < 64; lines++) {
        char *line;
        int rc = conn_read_line(r, deadline, &line);
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
            if (write_full(r->to, img, size) != 0) {
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

struct remote *remote_connect(const struct ssh_dest *d, const char *name, const char *mode,
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
