/*
 * cleanup — `faultline cleanup [--force] [DIR...]`: undoes what the faults
 * of a killed or crashed run left behind, from each run's undo log
 * (undo.h): the given run directories, or every run registered under
 * /run/faultline/runs and every runs/<x>/ here that has an undo.log.
 *
 * A run that is still going is left alone (undo_writer: its registered
 * PID and start time, or the lock it holds on its undo log): its faults
 * are its own to clear, and undoing one under it would end a fault the
 * run goes on reporting as active.  --force undoes them anyway, and says
 * the run was live.  Leaving a live run alone is no failure: exit 0.
 */
#include "cleanup.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../faults/undo.h"
#include "../../lib/proc.h"

/* One invocation: its option, its exit status, and the run directories
 * done so far (absolute), so that a run both registered and under runs/
 * is done once. */
struct sweep {
    bool force;
    int status;
    unsigned done;
    char **seen;
    size_t nseen;
};

/* Whether dir was done already; if not, it is now. */
static bool seen_before(struct sweep *s, const char *dir)
{
    char abs[PATH_MAX];
    if (!realpath(dir, abs))
        return false; /* gone: cleanup_one says what there is */
    for (size_t i = 0; i < s->nseen; i++)
        if (strcmp(s->seen[i], abs) == 0)
            return true;
    char **more = realloc(s->seen, (s->nseen + 1) * sizeof *more);
    char *copy = strdup(abs);
    if (!more || !copy) {
        free(copy);
        if (more)
            s->seen = more;
        return false; /* done twice at worst, which is harmless */
    }
    s->seen = more;
    s->seen[s->nseen++] = copy;
    return false;
}

/* "pid 1234" or "pid 1234, stopped", or how a writer without a known PID
 * was found. */
static void describe_writer(const struct undo_writer *w, char *out, size_t n)
{
    if (w->pid)
        snprintf(out, n, "pid %d%s", (int)w->pid, w->state == PROC_STOPPED ? ", stopped" : "");
    else
        snprintf(out, n, "a process that /proc/locks does not name holds its undo log");
}

/* verbose: say so also when there was nothing to undo (a DIR given, a
 * registered run); the sweep of runs/ speaks only of what it did. */
static void cleanup_one(struct sweep *s, const char *dir, bool verbose)
{
    struct undo_writer w;
    undo_writer(dir, &w);
    char who[128];
    describe_writer(&w, who, sizeof who);
    s->done++;
    if (w.live && !s->force) {
        printf("%s: left alone: the run is still going (%s); it clears its own faults.\n"
               "  `faultline cleanup --force %s` undoes them now\n", dir, who, dir);
        return;
    }
    if (w.live)
        printf("%s: the run is still going (%s): undoing its faults anyway (--force)\n", dir,
               who);
    unsigned undone = 0;
    char err[4096];
    int rc = undo_replay(dir, &undone, err, sizeof err);
    if (rc == -2) { /* the log itself refused: nothing of it was run */
        fprintf(stderr, "faultline: cleanup %s: %s\n", dir, err);
        s->status = 2;
        return;
    }
    if (rc != 0) {
        fprintf(stderr, "faultline: cleanup %s: %s\n"
                "  the log is kept, so that a later cleanup tries again; when what it\n"
                "  names is gone for good (a lab taken down, a host rebuilt), removing\n"
                "  %s/undo.log forgets it\n", dir, err, dir);
        s->status = 2;
        return;
    }
    if (verbose || undone)
        printf("%s: %s\n", dir,
               undone ? "undone what the run had left" : "nothing left to undo");
    if (undone)
        printf("  %u undo record%s applied\n", undone, undone == 1 ? "" : "s");
    /* A live run's registration stays its own: it removes it at its end. */
    if (!w.live)
        undo_unregister(dir);
}

static void clean_registered(const char *entry, const char *dir, void *ctx)
{
    struct sweep *s = ctx;
    if (access(dir, F_OK) != 0) {
        unlink(entry); /* the run directory is gone */
        return;
    }
    if (!seen_before(s, dir))
        cleanup_one(s, dir, true);
}

/* runs/<x>/ here with an undo.log that no registration named. */
static void clean_runs_here(struct sweep *s)
{
    DIR *d = opendir("runs");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_MAX];
        snprintf(p, sizeof p, "runs/%.200s/undo.log", e->d_name);
        if (access(p, F_OK) != 0)
            continue;
        snprintf(p, sizeof p, "runs/%.200s", e->d_name);
        if (!seen_before(s, p))
            cleanup_one(s, p, false);
    }
    if (d)
        closedir(d);
}

static void usage(void)
{
    printf("usage: faultline cleanup [--force] [DIR...]\n\n"
           "Undoes what the faults of a killed or crashed run left behind (links and\n"
           "switch ports down, nftables tables, qdiscs, paused processes, commands\n"
           "with an undo), from DIR/undo.log.  Without DIR: every run that is\n"
           "registered under %s and every runs/*/ here with an undo.log.\n"
           "Running it twice is harmless.\n\n"
           "A run that is still going is left alone, and cleanup says so with its\n"
           "directory and PID: its faults are its own to clear.  A run is live while\n"
           "the process that registered it (PID and start time, so a reused PID does\n"
           "not count) is alive, or while a process holds the lock on its undo.log.\n"
           "  --force  undo a live run's faults too (it says the run was live); an\n"
           "           agent still serving that run on an ssh host is left to put its\n"
           "           host back by itself, and is reported as not undone\n\n"
           "Exit status 0 when everything is undone or left alone because its run is\n"
           "live, 2 when something could not be undone, or an entry of the registry\n"
           "was refused (a link, or a file another user owns or may write; it says\n"
           "what and why).\n",
           UNDO_REGISTRY);
}

int cmd_cleanup(int argc, char **argv)
{
    struct sweep s = {0};
    int ndirs = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage();
            return 0;
        }
        if (strcmp(argv[i], "--force") == 0) {
            s.force = true;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "faultline: cleanup: unknown option %s (see faultline cleanup "
                    "--help)\n", argv[i]);
            return 2;
        } else {
            ndirs++;
        }
    }
    for (int i = 2; i < argc; i++)
        if (argv[i][0] != '-')
            cleanup_one(&s, argv[i], true);
    if (!ndirs) {
        /* Every registered run, then runs/ here. */
        /* an entry refused is a run that may still need undoing: never
         * "nothing to clean up" */
        int refused = undo_each_registered(clean_registered, &s);
        clean_runs_here(&s);
        if (refused) {
            fprintf(stderr, "faultline: cleanup: %d entr%s of %s refused (above): what %s "
                    "may still need undoing; give the run directory to cleanup by hand once "
                    "you have looked at it\n", refused, refused == 1 ? "y" : "ies",
                    UNDO_REGISTRY, refused == 1 ? "it names" : "they name");
            s.status = 2;
        } else if (!s.done) {
            printf("nothing to clean up: no run with an undo log\n");
        }
    }
    for (size_t i = 0; i < s.nseen; i++)
        free(s.seen[i]);
    free(s.seen);
    return s.status;
}
