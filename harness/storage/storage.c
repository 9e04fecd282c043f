/* storage — the table of storage kinds, and a real cluster's CLI over
 * ssh; see storage.h. */
#include "storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../faults/ssh/sshcmd.h"
#include "../../lib/proc.h"

/* Every storage kind, one line each. */
#define KINDS(X)                                                                               \
    X(storage_gluster)                                                                         \
    X(storage_ceph)                                                                            \
    X(storage_pacemaker)                                                                       \
    /* one line per storage kind, each ending in a backslash */

#define DECLARE(kind) extern const struct storage_kind kind;
KINDS(DECLARE)
#define ENTRY(kind) &kind,
static const struct storage_kind *const kinds[] = {KINDS(ENTRY)};
#define NKINDS (sizeof kinds / sizeof kinds[0])

unsigned storage_kinds_all(const struct storage_kind *const **out)
{
    *out = kinds;
    return NKINDS;
}

const struct storage_kind *storage_kind_find(const char *name)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(kinds[i]->name, name) == 0)
            return kinds[i];
    return NULL;
}

const char *storage_kinds(void)
{
    static char text[64];
    if (text[0])
        return text;
    size_t used = 0;
    for (size_t i = 0; i < NKINDS && used < sizeof text; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", i ? "|" : "",
                                 kinds[i]->name);
    return text;
}

/* The CLI on the via host: one ssh per question, the words quoted for the
 * remote shell, through sudo -n when the host says sudo = yes (the
 * storage's CLI wants root, as the agent does).  ssh's own complaint (the
 * login, the host key) comes back in out like the CLI's. */
static int cli_over_ssh(const struct storage *st, char *const argv[], char *out, size_t outlen,
                        int timeout_ms)
{
    const struct ssh_dest *d = st->at;
    char command[4096] = "";
    if (d->sudo)
        snprintf(command, sizeof command, "sudo -n");
    for (int i = 0; argv[i]; i++)
        if (!sshcmd_quote(command, sizeof command, argv[i])) {
            snprintf(out, outlen, "the command for %s is too long", st->where);
            return -1;
        }
    struct sshcmd c;
    sshcmd_argv(d, command, &c);
    return proc_run(c.argv, out, outlen, timeout_ms);
}

void storage_over_ssh(struct storage *st, const struct storage_kind *k, const char *volume,
                      const char *host, const struct ssh_dest *via)
{
    memset(st, 0, sizeof *st);
    st->kind = k;
    snprintf(st->volume, sizeof st->volume, "%s", volume ? volume : "");
    st->cli = cli_over_ssh;
    st->at = via;
    char dest[160];
    if (via->port)
        snprintf(dest, sizeof dest, "%s:%llu", via->dest, (unsigned long long)via->port);
    else
        snprintf(dest, sizeof dest, "%s", via->dest);
    snprintf(st->where, sizeof st->where, "on %.31s (ssh %.140s%s)", host, dest,
             via->sudo ? ", sudo" : "");
}

int storage_cli_ok(const struct storage *st, char *const argv[], char *out, size_t outlen,
                   int timeout_ms, char *err, size_t errlen)
{
    int rc = st->cli(st, argv, out, outlen, timeout_ms);
    if (rc == 0)
        return 0;
    char where[sizeof st->where + 2];
    snprintf(where, sizeof where, " %s", st->where);
    proc_failed_text(argv, where, rc, out, err, errlen);
    return -1;
}

/* --- a real cluster's logs, over ssh --- */

#define LOG_TAIL_BYTES (4u << 20)
#define LOG_TIMEOUT_MS 30000

/* The path that `which` names among a comma-separated list: the first
 * whose file name holds it.  false: none. */
static bool log_named(const char *list, const char *which, char *out, size_t n)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        char path[512];
        snprintf(path, sizeof path, "%.*s", (int)len, p);
        char *s = path;
        while (*s == ' ')
            s++;
        const char *base = strrchr(s, '/');
        if (strstr(base ? base + 1 : s, which)) {
            snprintf(out, n, "%s", s);
            return true;
        }
        p += len + (p[len] == ',');
    }
    return false;
}

static void logs_over_ssh(const struct storage *st, const char *which, storage_line_fn fn,
                          void *ctx)
{
    char *text = malloc(LOG_TAIL_BYTES + 1);
    for (unsigned i = 0; text && i < st->nlog_hosts; i++) {
        const struct host_spec *h = &st->log_hosts[i];
        char path[512], command[1024] = "", size[16];
        if (!h->cluster_logs[0] || !h->via.dest[0] ||
            !log_named(h->cluster_logs, which, path, sizeof path))
            continue;
        snprintf(size, sizeof size, "%u", LOG_TAIL_BYTES);
        if (h->via.sudo)
            snprintf(command, sizeof command, "sudo -n");
        const char *words[] = {"tail", "-c", size, path};
        bool fits = true;
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
            fits &= sshcmd_quote(command, sizeof command, words[w]);
        struct sshcmd c;
        sshcmd_argv(&h->via, command, &c);
        if (!fits || proc_run(c.argv, text, LOG_TAIL_BYTES + 1, LOG_TIMEOUT_MS) != 0)
            continue; /* a host that does not answer tells nothing */
        /* the first line of a tail may be cut: it is never a whole line */
        char *line = strchr(text, '\n');
        for (line = line ? line + 1 : text; *line;) {
            char *end = strchr(line, '\n');
            if (end)
                *end = '\0';
            fn(ctx, h->name, line);
            if (!end)
                break;
            line = end + 1;
        }
    }
    free(text);
}

void storage_logs_over_ssh(struct storage *st, const struct host_spec *hosts, unsigned n)
{
    st->log_hosts = hosts;
    st->nlog_hosts = n;
    for (unsigned i = 0; i < n; i++)
        if (hosts[i].cluster_logs[0] && hosts[i].via.dest[0])
            st->logs = logs_over_ssh;
}
