/* manifest — see manifest.h. */
#include "manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <netlink/version.h>

#include "../../lib/clock.h"
#include "../../lib/errbuf.h"
#include "../../lib/proc.h"
#include "buildinfo.h"

#define VERSION_TIMEOUT_MS 2000

/* The first line of `argv` (run to completion), after `skip` when it
 * starts so ("glusterfs 10.3" -> "10.3"); "not found" when it cannot run. */
static void program_version(char *const argv[], const char *skip, char *out, size_t n)
{
    char text[1024];
    int rc = proc_run(argv, text, sizeof text, VERSION_TIMEOUT_MS);
    text[strcspn(text, "\n")] = '\0';
    const char *v = text;
    if (skip && strncmp(v, skip, strlen(skip)) == 0)
        v += strlen(skip);
    if (rc != 0 || !v[0])
        snprintf(out, n, "%s", MANIFEST_NOT_FOUND);
    else
        snprintf(out, n, "%.*s", (int)n - 1, v);
}

struct lib_search {
    const char *prefix; /* "libiscsi.so." */
    char path[PATH_MAX];
};

static int find_loaded(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct lib_search *s = ctx;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, s->prefix, strlen(s->prefix)) != 0)
        return 0;
    snprintf(s->path, sizeof s->path, "%s", info->dlpi_name);
    return 1;
}

/* The version of Debian package pkg from dpkg's database (read, not asked
 * of dpkg-query: that costs a process and tens of milliseconds); 0, or -1
 * when it is not installed or there is no dpkg. */
static int dpkg_version(const char *pkg, char *out, size_t n)
{
    FILE *f = fopen("/var/lib/dpkg/status", "r");
    if (!f)
        return -1;
    char line[1024];
    bool in = false, installed = false;
    out[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0]) { /* end of a stanza */
            if (in && installed && out[0])
                break;
            in = installed = false;
            out[0] = '\0';
        } else if (strncmp(line, "Package: ", 9) == 0) {
            in = strcmp(line + 9, pkg) == 0;
        } else if (in && strncmp(line, "Status: ", 8) == 0) {
            installed = strstr(line, " installed") != NULL;
        } else if (in && strncmp(line, "Version: ", 9) == 0) {
            snprintf(out, n, "%.*s", (int)n - 1, line + 9);
        }
    }
    fclose(f);
    return in && installed && out[0] ? 0 : -1;
}

/* libiscsi as loaded: its Debian package's version (named after the
 * soname: libiscsi.so.7 is in libiscsi7) and the file it really is
 * ("1.19.0-3 (libiscsi.so.7.0.0)"); the file alone without dpkg. */
static void libiscsi_version(char *out, size_t n)
{
    struct lib_search s = {.prefix = "libiscsi.so."};
    if (!dl_iterate_phdr(find_loaded, &s)) {
        snprintf(out, n, "%s", MANIFEST_NOT_FOUND);
        return;
    }
    char real[PATH_MAX];
    const char *file = realpath(s.path, real) ? strrchr(real, '/') + 1 : s.path;
    const char *major = strrchr(s.path, '/');
    major = (major ? major + 1 : s.path) + strlen(s.prefix);
    char pkg[64], ver[128];
    snprintf(pkg, sizeof pkg, "libiscsi%.*s", (int)strcspn(major, "."), major);
    if (dpkg_version(pkg, ver, sizeof ver) == 0)
        snprintf(out, n, "%.40s (%.*s)", ver, (int)n - 44, file);
    else
        snprintf(out, n, "%.*s", (int)n - 1, file);
}

struct version_job {
    char *const *argv;
    const char *skip;
    char *out;
    size_t n;
};

static void *version_thread(void *ctx)
{
    struct version_job *j = ctx;
    program_version(j->argv, j->skip, j->out, j->n);
    return NULL;
}

/* tgt (tgtadm, of the same package as tgtd) and glusterfs asked at the same
 * time: the report waits for the slower only. */
static void versions(struct manifest *m)
{
    char *tgtd[] = {"tgtadm", "--version", NULL}; /* tgt's, as tgtd; starts faster */
    char *gluster[] = {"glusterfs", "--version", NULL};
    struct version_job job = {tgtd, NULL, m->tgtd, sizeof m->tgtd};
    pthread_t t;
    bool threaded = pthread_create(&t, NULL, version_thread, &job) == 0;
    if (!threaded)
        version_thread(&job);
    program_version(gluster, "glusterfs ", m->glusterfs, sizeof m->glusterfs);
    libiscsi_version(m->libiscsi, sizeof m->libiscsi);
    /* libnl's own idea of its version, from the library loaded */
    snprintf(m->libnl, sizeof m->libnl, "%d.%d.%d", nl_ver_maj, nl_ver_min, nl_ver_mic);
    if (threaded)
        pthread_join(t, NULL);
}

static void machine(struct manifest *m)
{
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(m->hostname, sizeof m->hostname, "%s", u.nodename);
        snprintf(m->kernel, sizeof m->kernel, "%s", u.release);
        snprintf(m->arch, sizeof m->arch, "%s", u.machine);
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = online > 0 ? (unsigned)online : 0;
    cpu_set_t set;
    m->cpus_usable = sched_getaffinity(0, sizeof set, &set) == 0 ? (unsigned)CPU_COUNT(&set)
                                                                 : m->cpus;
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f) && !m->cpu_model[0]) {
        char *colon = strchr(line, ':');
        /* "model name" on x86; other architectures name it otherwise */
        if (colon && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0 ||
                      strncmp(line, "cpu model", 9) == 0)) {
            char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            v[strcspn(v, "\n")] = '\0';
            snprintf(m->cpu_model, sizeof m->cpu_model, "%s", v);
        }
    }
    if (f)
        fclose(f);
    if (!m->cpu_model[0])
        snprintf(m->cpu_model, sizeof m->cpu_model, "%s", m->arch[0] ? m->arch : "unknown");
    f = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    m->memory_bytes = (uint64_t)kb * 1024;
}

struct uts_probe {
    int fd;
    int err;
    struct utsname u;
};

/* In a thread of its own: a thread's UTS namespace is its own, so the
 * process stays where it is. */
static void *uts_in(void *ctx)
{
    struct uts_probe *p = ctx;
    if (setns(p->fd, CLONE_NEWUTS) != 0 || uname(&p->u) != 0)
        p->err = errno;
    return NULL;
}

/* The name and kernel of the host process pid lives on: its own UTS
 * namespace's, or (none of its own) this machine's. */
static void host_of_pid(const struct manifest *m, pid_t pid, uint64_t start,
                        struct manifest_host *h)
{
    snprintf(h->hostname, sizeof h->hostname, "%s", m->hostname);
    snprintf(h->kernel, sizeof h->kernel, "%s", m->kernel); /* one kernel for all namespaces */
    if (!pid || proc_state(pid, start) != PROC_RUNNING)
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/uts", (int)pid);
    struct stat theirs, ours;
    if (stat(path, &theirs) != 0 || stat("/proc/self/ns/uts", &ours) != 0 ||
        (theirs.st_ino == ours.st_ino && theirs.st_dev == ours.st_dev))
        return;
    struct uts_probe p = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
    if (p.fd < 0)
        return;
    pthread_t t;
    if (pthread_create(&t, NULL, uts_in, &p) == 0) {
        pthread_join(t, NULL);
        if (!p.err)
            snprintf(h->hostname, sizeof h->hostname, "%s", p.u.nodename);
        else
            fprintf(stderr, "faultline: manifest: cannot enter the UTS namespace of process %d: "
                    "%s\n", (int)pid, strerror(p.err));
    }
    close(p.fd);
}

static struct manifest_host *add_host(struct manifest *m, const char *name, const char *via)
{
    for (unsigned i = 0; i < m->nhosts; i++)
        if (strcmp(m->hosts[i].name, name) == 0)
            return NULL; /* named already */
    if (m->nhosts == MANIFEST_MAX_HOSTS)
        return NULL;
    struct manifest_host *h = &m->hosts[m->nhosts++];
    snprintf(h->name, sizeof h->name, "%s", name);
    h->via = via;
    return h;
}

static void lab_hosts(struct manifest *m, const struct lab *lab)
{
    for (unsigned i = 1; i < lab->nhosts + lab->nclients; i++) {
        const struct lab_host *x = i < lab->nhosts ? &lab->hosts[i] : &lab->clients[i - lab->nhosts];
        struct manifest_host *h = add_host(m, x->name, "netns");
        if (!h)
            continue;
        /* Any live process of the host: the PID the lab recorded is gone
         * once a fault powered the host off and on again. */
        uint64_t start = 0;
        pid_t pid = lab_live_in(x, "", &start);
        if (!pid) { /* its service, else its sshd (a client host's own hostname) */
            pid = x->pid ? x->pid : x->sshd;
            start = x->pid ? x->start : x->sshd_start;
        }
        host_of_pid(m, pid, start, h);
    }
}

static void hosts(struct manifest *m, const struct manifest_from *from, const struct lab *lab)
{
    struct manifest_host *me = add_host(m, "client", "local");
    if (me) {
        snprintf(me->hostname, sizeof me->hostname, "%s", m->hostname);
        snprintf(me->kernel, sizeof me->kernel, "%s", m->kernel);
    }
    /* the ssh hosts first: a lab server reached over ssh is named by its agent */
    for (unsigned i = 0; i < from->nagents; i++) {
        const struct remote_info *a = &from->agents[i];
        struct manifest_host *h = add_host(m, a->host, "ssh");
        if (h) {
            snprintf(h->hostname, sizeof h->hostname, "%s", a->nodename);
            snprintf(h->kernel, sizeof h->kernel, "%s", a->kernel);
        }
    }
    if (lab)
        lab_hosts(m, lab);
}

struct manifest *manifest_gather(const struct manifest_from *from)
{
    uint64_t began = mono_ns();
    struct manifest *m = calloc(1, sizeof *m);
    if (!m) {
        fprintf(stderr, "faultline: out of memory for the report's manifest\n");
        return NULL;
    }
    snprintf(m->version, sizeof m->version, "%s", build_version());
    snprintf(m->cc, sizeof m->cc, "%s", build_cc());
    snprintf(m->cflags, sizeof m->cflags, "%s", build_cflags());
    snprintf(m->sanitizers, sizeof m->sanitizers, "%s", build_sanitizers());
    machine(m);
    versions(m);
    m->seed = from->seed;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/scenario.scn", from->dir);
    if (sha256_file(path, m->scenario_sha256, m->scenario_error, sizeof m->scenario_error) != 0)
        m->scenario_sha256[0] = '\0';
    const struct scenario *sc = from->sc;
    snprintf(m->target_kind, sizeof m->target_kind, "%s", sc->target.kind);
    if (sc->backend && sc->backend->identify)
        sc->backend->identify(from->be, &sc->target, &m->target);
    /* a verify finds the run's lab again by its prefix, if it is still up */
    const struct lab *lab = from->lab;
    struct lab *loaded = NULL;
    if (!lab && sc->lab && from->lab_prefix && from->lab_prefix[0]) {
        char err[FL_ERRLEN];
        loaded = malloc(sizeof *loaded);
        if (loaded && lab_load(sc->lab, from->lab_prefix, loaded, err, sizeof err) == 0)
            lab = loaded;
        else if (loaded)
            kv_add(&m->lab_about, "error", "%s", err);
    }
    if (sc->lab)
        snprintf(m->lab_kind, sizeof m->lab_kind, "%s", sc->lab->name);
    if (lab)
        m->lab_described = lab_describe(lab, &m->lab_about, &m->lab_options);
    const struct storage *cl = from->cluster;
    if (cl) {
        snprintf(m->cluster_kind, sizeof m->cluster_kind, "%s", cl->kind->name);
        snprintf(m->cluster_via, sizeof m->cluster_via, "%s", cl->where);
        if (cl->kind->describe)
            cl->kind->describe(cl, &m->cluster_about, &m->cluster_options);
    }
    hosts(m, from, lab);
    free(loaded);
    m->gather_s = (double)(mono_ns() - began) / 1e9;
    return m;
}

void manifest_free(struct manifest *m)
{
    free(m);
}

const struct backend *manifest_backend(const struct crew *crew)
{
    if (!crew->w || !crew->n || !crew->w[0].be_open || crew->w[0].left_behind)
        return NULL;
    return &crew->w[0].be;
}
