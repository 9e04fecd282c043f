/* run_verify — `faultline verify` and `faultline check` (see run.h). */
#include "run_parts.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/fsutil.h"
#include "../../lib/ini.h"
#include "../../lib/jread.h"
#include "../../lib/units.h"
#include "../live/manifest.h"
#include "../report/report.h"
#include "conclude.h"
#include "gather.h"

/* The run went to the lab's LUN or volume: it must still be there, and the
 * target takes its place again. */
static int use_lab_again(struct scenario *sc, const char *dir, unsigned ranks)
{
    char err[FL_ERRLEN], w0[PATH_MAX + 64], client[PATH_MAX + 32];
    struct run_meta m;
    crew_client_dir(dir, ranks, 0, client, sizeof client);
    snprintf(w0, sizeof w0, "%s/worker-0", client);
    if (state_read_meta(w0, &m, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return -1;
    }
    struct lab *lab = malloc(sizeof *lab);
    if (!lab) {
        fprintf(stderr, "faultline: out of memory\n");
        return -1;
    }
    int rc = lab_load(sc->lab, m.lab_prefix, lab, err, sizeof err);
    if (rc != 0)
        fprintf(stderr,
                "faultline: the run used the embedded %s lab (prefix %s): %s; its storage "
                "went with it\n",
                sc->lab->name, m.lab_prefix, err);
    else if ((rc = scenario_use_lab(sc, lab, 0, err, sizeof err)) != 0)
        fprintf(stderr, "faultline: %s\n", err);
    free(lab);
    return rc;
}

/* Whether the run in dir never started (its report says so, and why):
 * there is nothing to verify. */
static bool never_started(const char *dir, char *why, size_t n)
{
    char path[PATH_MAX + 32], e[256];
    snprintf(path, sizeof path, "%s/report.json", dir);
    struct jv *rep = NULL;
    bool started = true;
    if (access(path, F_OK) != 0 || jv_load(path, &rep, e, sizeof e) != 0)
        return false; /* a crashed run has no report: verify is what it needs */
    if (jv_bool(jv_get(rep, "started"), &started) && !started) {
        const char *err = jv_str(jv_get(rep, "error"));
        snprintf(why, n, "the run in %s never started (%s): there is nothing to verify", dir,
                 err ? err : "its report says why");
    }
    jv_free(rep);
    return !started;
}

int cmd_verify(const char *dir, bool quiet)
{
    char err[FL_ERRLEN], path[PATH_MAX + 32];
    struct scenario sc;
    snprintf(path, sizeof path, "%s/scenario.scn", dir);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "faultline: %s is not a run directory (no scenario.scn: %s)\n", dir,
                strerror(errno));
        return 2;
    }
    if (scenario_load(path, &sc, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    if (never_started(dir, err, sizeof err)) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    char rep1[PATH_MAX + 32], own[PATH_MAX + 32];
    snprintf(rep1, sizeof rep1, "%s/rep-1", dir);
    snprintf(own, sizeof own, "%s/worker-0", dir);
    if (access(rep1, F_OK) == 0 && access(own, F_OK) != 0) {
        fprintf(stderr,
                "faultline: %s holds the repetitions of a repeat, each a run of its own: "
                "verify one of them (faultline verify %s/rep-K; the target holds the last one's "
                "data)\n",
                dir, dir);
        return 2;
    }
    unsigned ranks;
    if (crew_run_ranks(dir, &ranks, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    /* every client's share, each file tree subtree */
    sc.target.rank = -1;
    sc.target.ranks = ranks;
    if (scenario_lab_places(&sc) && use_lab_again(&sc, dir, ranks) != 0)
        return 2;
    struct event_log events;
    if (events_open(&events, dir, 0, mono_ns(), err, sizeof err) != 0) {
        fprintf(stderr, "faultline: %s\n", err);
        return 2;
    }
    struct crew crew = {.stop_workload = &run_stop_workload,
                        .stop_sweep = &run_stop_sweep,
                        .events = &events,
                        .quiet = quiet};
    if (crew_prepare_verify(&crew, &sc, dir, err, sizeof err) != 0) {
        events_close(&events);
        fprintf(stderr, "faultline: %s\n", err);
        crew_close(&crew);
        crew_free(&crew);
        return 2;
    }
    if (!quiet)
        fprintf(stderr, "faultline: verifying %s (%s) from %s%s\n", sc.target.path, crew.desc, dir,
                crew.state_final ? ""
                                 : "; the run did not end cleanly, so writes not yet "
                                   "durable are allowed either way");
    run_install_signals();
    /* Times in the report are seconds since the original run started. */
    struct run_meta meta = crew.w[0].meta;
    if (meta.name[0])
        snprintf(sc.name, sizeof sc.name, "%s", meta.name); /* the copy is named scenario.scn */
    meta.nblocks = meta.total_blocks;
    crew.t0 = mono_ns() - (wall_ns() - meta.start_wall_ns);
    events_set_t0(&events, crew.t0);
    crew_verify(&crew);
    if (crew_verify_refusal(&crew, err, sizeof err) != 0) {
        events_close(&events);
        fprintf(stderr, "faultline: %s\n", err);
        crew_close(&crew);
        crew_free(&crew);
        return 2;
    }
    struct report rep = conclude_report("verify", dir, &sc, &meta, &crew);
    struct report_cross cross;
    if (ranks > 1 && sc.workload.cross_pct)
        rep.cross = gather_verify_cross(&crew, dir, ranks, &cross);
    rep.io = &crew.sweep;
    rep.meta_streams = crew.meta; /* the names' check, and how each model was rebuilt */
    rep.nmeta = crew.nmeta;
    rep.interrupt_signal = run_stop_workload ? (run_stop_signal ? run_stop_signal : SIGTERM) : 0;
    rep.interrupted = rep.interrupt_signal != 0;
    rep.state_final = crew.state_final;
    rep.replayed = crew.replayed;
    rep.acks_recovered = crew.acks_recovered;
    struct manifest *man = manifest_gather(&(struct manifest_from){.dir = dir,
                                                                   .sc = &sc,
                                                                   .seed = meta.seed,
                                                                   .be = manifest_backend(&crew),
                                                                   .lab_prefix = meta.lab_prefix});
    rep.manifest = man;
    int code = conclude_finish(&rep, &crew, &events);
    manifest_free(man);
    events_close(&events);
    return code;
}

int cmd_check(const char *file, bool schedule)
{
    char err[FL_ERRLEN];
    struct scenario sc;
    if (scenario_load(file, &sc, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (schedule) {
        if (!sc.thrash.line) {
            fprintf(stderr, "faultline: check --schedule: %s has no [thrash] section\n", file);
            return 2;
        }
        char *text = ini_read_file(file, err, sizeof err);
        char *out = text ? thrash_schedule_text(text, &sc.thrash, sc.thrash.seed_drawn, NULL)
                         : NULL;
        if (!out) {
            fprintf(stderr, "faultline: check --schedule: %s\n", text ? "out of memory" : err);
            free(text);
            return 2;
        }
        fputs(out, stdout);
        free(out);
        free(text);
    }
    char bs[32], size[32];
    format_size(sc.workload.block_size, bs, sizeof bs);
    if (sc.target.size)
        format_size(sc.target.size, size, sizeof size);
    else
        snprintf(size, sizeof size, "whole target");
    char where[PATH_MAX + 64];
    uint64_t offset;
    if (scenario_lab_places(&sc))
        snprintf(where, sizeof where, "%s", sc.lab->serves_what);
    else
        sc.backend->where(&sc.target, 0, 0, "", where, sizeof where, &offset);
    char drawn[96] = "";
    if (sc.thrash.line)
        snprintf(drawn, sizeof drawn, " (%u drawn by [thrash] from seed %llu)", sc.thrash.ndrawn,
                 (unsigned long long)sc.thrash.seed);
    fprintf(schedule ? stderr : stdout,
           "%s: ok: %s on %s %s (%s), %s blocks, %s, %u%% reads, depth %u, %.1f s, %u fault%s%s, "
           "%u expectation%s\n",
           file, sc.name, sc.target.kind, where, size, bs,
           sc.workload.pattern == PATTERN_RANDOM ? "random" : "sequential", sc.workload.read_pct,
           sc.workload.depth, (double)sc.duration_ns / 1e9, sc.nfaults, sc.nfaults == 1 ? "" : "s",
           drawn, sc.nexpects, sc.nexpects == 1 ? "" : "s");
    return 0;
}
