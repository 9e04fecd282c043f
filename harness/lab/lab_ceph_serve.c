/* lab_ceph_serve — what the ceph lab lends a run: the ceph CLI run in the
 * namespaces of a live daemon, the monitors' logs, the daemons' addresses,
 * the filesystem's mount.  See lab_ceph.h. */
#include <stdio.h>

#include "../../lib/proc.h"
#include "lab_ceph.h"

/* --- the ceph CLI --- */

/* The namespaces of a live daemon of the lab, a monitor preferred; -1
 * with out saying none runs. */
static int live_place(const struct lab *lab, struct proc_place *at, char *out, size_t outlen)
{
    *at = (struct proc_place){0};
    for (int pass = 0; pass < 2 && !at->join; pass++)
        for (unsigned i = 1; i < lab->nhosts && !at->join; i++)
            at->join = ceph_live_daemon(&lab->hosts[i], pass ? NULL : "ceph-mon", &at->join_start);
    if (!at->join) {
        snprintf(out, outlen, "no Ceph daemon runs in the lab");
        return -1;
    }
    return 0;
}

/* Runs `ceph ARGS` in the namespaces of a live daemon of the lab (a
 * monitor preferred), so that it works while the client's cable is out.
 * Exit status, or -1; out holds the output or why it could not run. */
int ceph_cli(const struct lab *lab, const char *const args[], char *out, size_t outlen,
                    int timeout_ms)
{
    struct proc_place at;
    if (live_place(lab, &at, out, outlen) != 0)
        return -1;
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", timeout_ms / 2000 > 0 ? timeout_ms / 2000 : 1);
    char *argv[40];
    int n = 0;
    argv[n++] = "ceph";
    argv[n++] = "-c";
    argv[n++] = (char *)priv(lab)->conf;
    argv[n++] = "--connect-timeout";
    argv[n++] = timeout;
    for (int i = 0; args[i] && n < 39; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

/* The storage's CLI (lab_serve.cli): argv in the namespaces of a live
 * daemon of the lab (a monitor preferred), whose /etc/ceph names the
 * cluster, as on that server. */
int ceph_run(const struct lab *lab, char *const argv[], char *out, size_t outlen,
                    int timeout_ms)
{
    struct proc_place at;
    if (live_place(lab, &at, out, outlen) != 0)
        return -1;
    return proc_run_at(&at, argv, out, outlen, timeout_ms);
}

/* A ceph command that must succeed; err names it and its output. */
int ceph_cli_ok(const struct lab *lab, const char *const args[], char *err, size_t errlen)
{
    char out[2048];
    int rc = ceph_cli(lab, args, out, sizeof out, CLI_TIMEOUT_MS);
    if (rc == 0)
        return 0;
    size_t used = (size_t)snprintf(err, errlen, "ceph");
    for (int i = 0; args[i] && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, " %s", args[i]);
    if (used < errlen)
        snprintf(err + used, errlen - used, " failed (%d): %.600s", rc, out);
    return -1;
}

/* --- what the monitors logged: their files, for the storage kind --- */

/* Each line of every monitor's log file mon.NAME.<which> ("log": its own,
 * "cluster.log": the cluster's), passed to fn with that monitor's server.
 * Each file is read: any monitor may have been down for a while. */
void ceph_logs(const struct lab *lab, const char *which, storage_line_fn fn, void *ctx)
{
    for (unsigned i = 1; i <= NSERVERS; i++) {
        char path[256], line[1024];
        snprintf(path, sizeof path, "%s/log/mon.%s.%s", lab->dir, lab->hosts[i].name, which);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f))
            fn(ctx, lab->hosts[i].name, line);
        fclose(f);
    }
}

/* "osd.N": the server whose OSD it is (csN+1). */
void ceph_address(const struct lab *lab, const char *daemon, char *out, size_t n)
{
    unsigned osd;
    if (sscanf(daemon, "osd.%u", &osd) == 1 && osd + 1 <= NSERVERS)
        snprintf(out, n, "%s", lab->hosts[osd + 1].addr);
}

/* A files target without path: the filesystem's FUSE mount. */
void ceph_place(const struct lab *lab, unsigned client, struct lab_place *p)
{
    (void)client; /* client hosts of their own: not yet */
    const struct ceph_lab *c = priv(lab);
    snprintf(p->where, sizeof p->where, "%.159s", c->mount);
    snprintf(p->name, sizeof p->name, "%.31s", c->fs);
    snprintf(p->desc, sizeof p->desc, "CephFS %.31s mounted at %.159s", c->fs, c->mount);
}
