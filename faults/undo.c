/* undo — see undo.h for the record format and the primitives. */
#include "undo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/fsutil.h"
#include "../lib/net.h"
#include "../lib/proc.h"
#include "../lib/nft.h"

#define COMMAND_TIMEOUT_MS 30000

int undo_open(struct undo_log *u, const char *dir, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    u->fd = -1;
    u->next = 1;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/undo.log", dir);
    u->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (u->fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    /* The registry names the run directory by its absolute path. */
    char abs[PATH_MAX];
    if (!realpath(dir, abs)) {
        snprintf(err, errlen, "cannot resolve %s: %s", dir, strerror(errno));
        return -1;
    }
    if (mkdir_p(UNDO_REGISTRY, err, errlen) != 0)
        return -1;
    snprintf(u->registry, sizeof u->registry, "%s/%d-%lx", UNDO_REGISTRY, (int)getpid(),
             (unsigned long)(uintptr_t)u ^ (unsigned long)time(NULL));
    FILE *f = fopen(u->registry, "w");
    if (!f || fprintf(f, "%s\n", abs) < 0 || fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", u->registry, strerror(errno));
        return -1;
    }
    return 0;
}

void undo_close(struct undo_log *u, int clean)
{
    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
    if (clean && u->registry[0])
        unlink(u->registry);
}

static int append(int fd, const char *line, char *err, size_t errlen)
{
    size_t len = strlen(line);
    if (write(fd, line, len) != (ssize_t)len || fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot write the undo log: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int undo_record(struct undo_log *u, const char *kind, const char *args, int *seq, char *err,
                size_t errlen)
{
    char line[PATH_MAX + 2048];
    snprintf(line, sizeof line, "U %d %s %s\n", u->next, kind, args);
    if (append(u->fd, line, err, errlen) != 0)
        return -1;
    *seq = u->next++;
    return 0;
}

int undo_done(struct undo_log *u, int seq, char *err, size_t errlen)
{
    char line[32];
    snprintf(line, sizeof line, "D %d\n", seq);
    return append(u->fd, line, err, errlen);
}

/* "NETNS REST": splits off the first word ("-" means our own namespace). */
static const char *split(const char *args, char *first, size_t n)
{
    size_t l = strcspn(args, " ");
    snprintf(first, n, "%.*s", (int)(l < n ? l : n - 1), args);
    if (strcmp(first, "-") == 0)
        first[0] = '\0';
    return args[l] ? args + l + 1 : args + l;
}

int undo_apply(const char *kind, const char *args, char *err, size_t errlen)
{
    char ns[64];
    const char *rest = split(args, ns, sizeof ns);
    /* A namespace that is gone took whatever we did in it along. */
    if (ns[0] && strcmp(kind, "sigcont") != 0 && !netns_exists(ns))
        return 0;
    if (strcmp(kind, "link-up") == 0) {
        struct nl_sock *sk = net_open(ns[0] ? ns : NULL, err, errlen);
        if (!sk)
            return -1;
        struct link_state st;
        int rc = net_link_state(sk, rest, &st, err, errlen);
        if (rc == 0 && st.exists)
            rc = net_link_set_up(sk, rest, true, err, errlen);
        net_close(sk);
        return rc;
    }
    if (strcmp(kind, "nft-delete") == 0)
        return nft_delete_table(ns, rest, err, errlen);
    if (strcmp(kind, "qdisc-delete") == 0) {
        struct nl_sock *sk = net_open(ns[0] ? ns : NULL, err, errlen);
        if (!sk)
            return -1;
        int rc = net_qdisc_delete_root(sk, rest, err, errlen);
        net_close(sk);
        return rc;
    }
    if (strcmp(kind, "sigcont") == 0) {
        /* args: PID START (no namespace word) */
        long pid = strtol(args, NULL, 10);
        const char *sp = strchr(args, ' ');
        uint64_t start = sp ? strtoull(sp + 1, NULL, 10) : 0;
        if (pid > 0 && proc_state((pid_t)pid, start) != PROC_GONE && kill((pid_t)pid, SIGCONT) != 0 &&
            errno != ESRCH) {
            snprintf(err, errlen, "cannot continue process %ld: %s", pid, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (strcmp(kind, "command") == 0) {
        char out[1024];
        char *argv[] = {"/bin/sh", "-c", (char *)rest, NULL};
        int rc = proc_run_in(ns, argv, out, sizeof out, COMMAND_TIMEOUT_MS);
        if (rc != 0) {
            snprintf(err, errlen, "undo command '%s' failed (%d): %s", rest, rc, out);
            return -1;
        }
        return 0;
    }
    snprintf(err, errlen, "unknown undo record '%s'", kind);
    return -1;
}

struct urec {
    int seq;
    bool done;
    char kind[16];
    char args[PATH_MAX + 1024];
};

int undo_replay(const char *dir, unsigned *undone, char *err, size_t errlen)
{
    *undone = 0;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/undo.log", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = 0, cap = 16;
    struct urec *r = malloc(cap * sizeof *r);
    char line[PATH_MAX + 2048];
    while (r && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        int seq;
        if (line[0] == 'D' && sscanf(line, "D %d", &seq) == 1) {
            for (size_t i = 0; i < n; i++)
                if (r[i].seq == seq)
                    r[i].done = true;
            continue;
        }
        char kind[16];
        int off = 0;
        if (line[0] != 'U' || sscanf(line, "U %d %15s %n", &seq, kind, &off) < 2 || !off)
            continue; /* a torn last line: nothing was applied after it */
        if (n == cap) {
            struct urec *nr = realloc(r, cap * 2 * sizeof *nr);
            if (!nr)
                break;
            r = nr;
            cap *= 2;
        }
        r[n].seq = seq;
        r[n].done = false;
        snprintf(r[n].kind, sizeof r[n].kind, "%s", kind);
        snprintf(r[n].args, sizeof r[n].args, "%s", line + off);
        n++;
    }
    fclose(f);
    if (!r) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    int rc = 0;
    for (size_t i = n; i-- > 0;) {
        if (r[i].done)
            continue;
        char e[1024];
        if (undo_apply(r[i].kind, r[i].args, e, sizeof e) != 0) {
            if (rc == 0)
                snprintf(err, errlen, "%s: %s %s: %s", path, r[i].kind, r[i].args, e);
            rc = -1;
            continue;
        }
        (*undone)++;
        char done[32];
        snprintf(done, sizeof done, "D %d\n", r[i].seq);
        if (fd >= 0 && write(fd, done, strlen(done)) < 0 && rc == 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            rc = -1;
        }
    }
    if (fd >= 0) {
        fdatasync(fd);
        close(fd);
    }
    free(r);
    return rc;
}

/* Calls fn for every entry under UNDO_REGISTRY with the run directory it
 * names (the entry's own path too, to remove it). */
static void for_each_registered(void (*fn)(const char *entry, const char *dir, void *ctx),
                                void *ctx)
{
    DIR *d = opendir(UNDO_REGISTRY);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_MAX + 300], line[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", UNDO_REGISTRY, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        bool ok = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        if (!ok)
            continue;
        line[strcspn(line, "\n")] = '\0';
        fn(p, line, ctx);
    }
    if (d)
        closedir(d);
}

static void drop_if_same(const char *entry, const char *dir, void *ctx)
{
    if (strcmp(dir, ctx) == 0)
        unlink(entry);
}

/* Removes registry entries that name dir. */
static void unregister(const char *dir)
{
    char abs[PATH_MAX];
    if (realpath(dir, abs))
        for_each_registered(drop_if_same, abs);
}

static int cleanup_one(const char *dir, int *status)
{
    unsigned undone = 0;
    char err[4096];
    if (undo_replay(dir, &undone, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: cleanup %s: %s\n", dir, err);
        *status = 2;
        return -1;
    }
    printf("%s: %s\n", dir,
           undone ? "undone what the run had left" : "nothing left to undo");
    if (undone)
        printf("  %u undo record%s applied\n", undone, undone == 1 ? "" : "s");
    unregister(dir);
    return 0;
}

struct sweep_ctx {
    int *status, *done;
};

static void clean_registered(const char *entry, const char *dir, void *ctx)
{
    struct sweep_ctx *c = ctx;
    if (access(dir, F_OK) != 0) {
        unlink(entry); /* the run directory is gone */
        return;
    }
    cleanup_one(dir, c->status);
    (*c->done)++;
}

int cmd_cleanup(int argc, char **argv)
{
    int status = 0, done = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: faultline cleanup [DIR...]\n\n"
                   "Undoes what the faults of a killed or crashed run left behind (links and\n"
                   "switch ports down, nftables tables, qdiscs, paused processes, commands\n"
                   "with an undo), from DIR/undo.log.  Without DIR: every run that is\n"
                   "registered under %s and every runs/*/ here with an undo.log.\n"
                   "Running it twice is harmless.  Exit status 0, or 2 when something could\n"
                   "not be undone (it says what and why).\n",
                   UNDO_REGISTRY);
            return 0;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "faultline: cleanup: unknown option %s\n", argv[i]);
            return 2;
        }
        cleanup_one(argv[i], &status);
        done++;
    }
    if (done)
        return status;
    /* Every registered run, then runs/ here. */
    struct sweep_ctx sc = {.status = &status, .done = &done};
    for_each_registered(clean_registered, &sc);
    DIR *d;
    struct dirent *e;
    d = opendir("runs");
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "runs/%.200s/undo.log", e->d_name);
        if (access(p, F_OK) != 0)
            continue;
        snprintf(p, sizeof p, "runs/%.200s", e->d_name);
        unsigned undone = 0;
        char err[4096];
        /* Registered ones were done above; this pass finds the rest. */
        if (undo_replay(p, &undone, err, sizeof err) != 0) {
            fprintf(stderr, "faultline: cleanup %s: %s\n", p, err);
            status = 2;
        } else if (undone) {
            printf("%s: undone what the run had left\n  %u undo records applied\n", p, undone);
        }
        done++;
    }
    if (d)
        closedir(d);
    if (!done)
        printf("nothing to clean up: no run with an undo log\n");
    return status;
}
