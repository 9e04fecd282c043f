/*
 * cleanup — `faultline cleanup [DIR...]`: undoes what the faults of a
 * killed or crashed run left behind, from each run's undo log (undo.h):
 * the given run directories, or every run registered under
 * /run/faultline/runs and every runs/<x>/ here that has an undo.log.
 */
#include "cleanup.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../faults/undo.h"

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
    undo_unregister(dir);
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
    undo_each_registered(clean_registered, &sc);
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
