/*
 * faultline — failure injection and data-integrity verification for shared
 * storage.  This file only dispatches verbs; see run.h for what they do.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../faults/ssh/agent.h"
#include "../../lib/selfid.h"
#include "../../lib/spawner.h"
#include "../../lib/units.h"
#include "../live/buildinfo.h"
#include "cleanup.h"
#include "../compare/compare.h"
#include "../lab/lab.h"
#include "../run/run.h"
#include "../run/shrink.h"
#include "../run/suite.h"
#include "../scenario/scenario.h"

static const char usage_main[] =
    "usage: faultline VERB [ARGS]\n"
    "\n"
    "  run FILE [--out DIR] [--quiet] [--keep-lab] [--repeat N]\n"
    "                                   run a scenario (N times: DIR/rep-K and a\n"
    "                                   summary); reports go to DIR\n"
    "                                   (default runs/<time>-<name>/)\n"
    "  verify DIR [--quiet]             re-read the target of a finished (or crashed)\n"
    "                                   run from its saved state and report again\n"
    "  check FILE [--schedule]          lint a scenario without running it (--schedule:\n"
    "                                   the faults its [thrash] draws, as a scenario)\n"
    "  shrink DIR [--budget 2h] [--tries N] [--out SDIR]\n"
    "                                   a failed run made as small as it can be while it\n"
    "                                   still fails the same way: SDIR/minimal.scn\n"
    "  suite PATH... [--out DIR] [--retry-timing N] [--keep-lab] [--quiet]\n"
    "                                   run many scenarios (files, folders of *.scn), each\n"
    "                                   judged against its expected outcome, labs shared\n"
    "  cleanup [--force] [DIR...]       undo what the faults of a killed run left behind\n"
    "                                   (a run still going is left alone)\n"
    "  compare DIR_A DIR_B [--worse METRIC:RATIO]... [--json]\n"
    "                                   two runs (or summaries of repeats) metric by metric;\n"
    "                                   exit 1 when B failed an expectation or got worse\n"
    "                                   than a --worse limit allows\n"
    "  lab up|down|status|restart KIND  the embedded lab (`faultline lab --help`)\n"
    "  agent --dir DIR --run TAG        the far side of faults on an ssh host (started\n"
    "                                   by faultline over ssh, not by hand)\n"
    "  build-id                         which build this is: the SHA-256 of this\n"
    "                                   executable (the agent's copy check)\n"
    "  help scenario [--format text|markdown|man]\n"
    "                                   every scenario section and key (markdown, man:\n"
    "                                   the whole reference, as docs/scenario.md and\n"
    "                                   faultline-scenario(5))\n"
    "  help metrics                     every metric of [expect] and expect_* (markdown)\n"
    "\n"
    "Exit status: 0 pass, 1 fail (a finding other than ok/unwritten), 2 could not run.\n"
    "`faultline VERB --help` tells more about one verb.\n";

static const char usage_run[] =
    "usage: faultline run FILE [--out DIR] [--quiet] [--keep-lab] [--client-dir PATH]\n"
    "                          [--repeat N]\n"
    "\n"
    "Runs the scenario in FILE: the workload for `duration` with every read\n"
    "verified, a final flush, then a sweep that reads every written block once.\n"
    "Writes DIR/report.txt, report.json, events.jsonl, the journal and the state\n"
    "that `faultline verify DIR` needs.  SIGINT/SIGTERM end the workload early\n"
    "(still flushed, swept and reported); a second one also cuts the sweep short.\n"
    "\n"
    "  --out DIR   run directory (default runs/<YYYYmmdd-HHMMSS>-<name>/)\n"
    "  --quiet     no progress lines on stderr\n"
    "  --keep-lab  a lab the scenario brings up ([scenario] lab) stays up after the run;\n"
    "              `faultline lab down KIND` removes it\n"
    "  --client-dir PATH  several clients: each rank keeps its state, journal and\n"
    "              findings in PATH/client-R (e.g. a node's local disk while DIR is\n"
    "              shared); DIR/client-R is a link to it\n"
    "  --repeat N  run the scenario N times (overrides [scenario] repeat): the lab comes\n"
    "              up once and is checked between repetitions; each repetition is a\n"
    "              whole run in DIR/rep-K; DIR/report.txt, report.json and report.html\n"
    "              give each metric's distribution (min, p50, p95, max, mean, sd), the\n"
    "              verdicts (passed K of N) and the rules over repetitions\n"
    "              (recovery_p95 <= 8s, expect_stall_p95 <= 5s, pass_rate = 100%)\n"
    "\n"
    "Several clients: under `mpirun --enable-recovery -n N` (or srun) every rank is a\n"
    "client: rank 0 runs the faults and writes the report, rank r owns the blocks b\n"
    "with b % N == r and keeps its state in DIR/client-R; give the same --out to all.\n"
    "A scenario with [lab] clients = N runs mpirun by itself, one rank per lab client\n"
    "host.\n"
    "\n"
    "Exit status: 0 pass, 1 fail, 2 could not run (under mpirun --enable-recovery,\n"
    "which does not pass it on: DIR/exit-status).\n";

static const char usage_verify[] =
    "usage: faultline verify DIR [--quiet]\n"
    "\n"
    "Re-reads every block the run in DIR wrote and classifies it against the\n"
    "saved state (state.bin plus the journal).  After a clean end each block\n"
    "must hold exactly its last acknowledged generation; after a crash or kill\n"
    "of the run, any generation between the durable and the newest planned one\n"
    "is allowed.  Rewrites DIR/report.txt and DIR/report.json for this pass.\n"
    "\n"
    "Exit status: 0 pass, 1 fail, 2 could not run.\n";

static const char usage_check[] =
    "usage: faultline check FILE [--schedule]\n"
    "\n"
    "Parses and checks a scenario without opening its target.  Mistakes are\n"
    "reported as FILE:LINE: message.  Exit status 0 when the scenario is good,\n"
    "2 otherwise.\n"
    "\n"
    "  --schedule  a scenario with [thrash]: print the schedule it draws, the\n"
    "              scenario with every fault explicit (what a run writes as\n"
    "              schedule.scn); the same seed prints the same schedule\n";

static const char usage_suite[] =
    "usage: faultline suite PATH... [--out DIR] [--retry-timing N] [--keep-lab] [--quiet]\n"
    "\n"
    "Runs many scenarios one after another: each PATH is a scenario file or a folder\n"
    "(its *.scn, sorted by name, not its subfolders).  Every scenario is linted first;\n"
    "one with a mistake stops the suite before anything runs.  Each scenario runs as\n"
    "`faultline run` into DIR/NAME/try-K (NAME-2 for a second scenario of one name),\n"
    "with a copy of it in DIR/NAME/scenario.scn, and is judged against the outcome it\n"
    "expects: [scenario] expect_verdict = pass (the default) is met by a pass; a\n"
    "scenario that must fail (expect_verdict = fail) is met when it fails on the rules\n"
    "of its expect_failing (RULE? may fail) and on no other.\n"
    "\n"
    "The suite brings up the labs itself: consecutive scenarios that need the same lab\n"
    "kind with the same [lab] settings share one, checked between them (servers a\n"
    "scenario left killed, paused or powered off are brought back; a lab that cannot\n"
    "be made healthy is rebuilt).  Scenarios with [host] sections run as they are.\n"
    "DIR/suite.json is rewritten after every scenario; at the end junit.xml,\n"
    "report.txt and report.html.  SIGINT/SIGTERM end the scenario under way early (it\n"
    "still reports) and no other starts: the suite's verdict is interrupted.\n"
    "\n"
    "  --out DIR           the suite's directory (default runs/<YYYYmmdd-HHMMSS>-suite/)\n"
    "  --retry-timing N    a scenario that missed only timing rules (stall, max_stall,\n"
    "                      recovery, impact, max_latency, first_io_after_*, heal,\n"
    "                      recover), with no finding and every fault as written, is run\n"
    "                      up to N more times (0..20, default 0); met on a retry it is\n"
    "                      flaky, which counts as met\n"
    "  --keep-lab          the lab up at the end stays up (`faultline lab down KIND`)\n"
    "  --quiet             no progress lines on stderr, no report on stdout\n"
    "\n"
    "Exit status: 0 every scenario met its expected outcome, 1 one did not (or could\n"
    "not run, or the suite was interrupted), 2 the suite could not run at all (bad\n"
    "usage, no scenario, a scenario with a mistake).\n";

static const char usage_agent[] =
    "usage: faultline agent --dir DIR (--run TAG | --cleanup TAG)\n"
    "\n"
    "The far side of faults on a [host] with ssh = ADDRESS.  faultline starts it over\n"
    "ssh (copying itself to DIR when the host has no copy of this build) and talks\n"
    "to it in JSON lines on stdin and stdout; it never listens on a port.  It applies\n"
    "each fault at its time with the same code as a local run, keeps its own undo\n"
    "log in DIR/run-TAG/, and restores the host by itself when stdin closes or a\n"
    "fault's planned clear time plus its lease has passed.  It refuses a DIR that is\n"
    "a link, not its own user's, or writable by group or others, or under a directory\n"
    "that another user could write to (but for root's sticky ones, like /tmp).\n"
    "\n"
    "  --run TAG      serve one run\n"
    "  --cleanup TAG  replay what run TAG left open here and say so in one JSON line\n";

static int wants_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

static int bad_usage(const char *msg, const char *arg, const char *usage)
{
    fprintf(stderr, "faultline: %s%s\n\n%s", msg, arg ? arg : "", usage);
    return 2;
}

static int verb_agent(int argc, char **argv)
{
    const char *dir = NULL, *run = NULL, *cleanup = NULL;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--dir") == 0)
            dir = argv[i + 1];
        else if (strcmp(argv[i], "--run") == 0)
            run = argv[i + 1];
        else if (strcmp(argv[i], "--cleanup") == 0)
            cleanup = argv[i + 1];
        else
            return bad_usage("unknown option ", argv[i], usage_agent);
    }
    if (!dir || (!run == !cleanup) || argc % 2)
        return bad_usage("agent needs --dir DIR and one of --run TAG, --cleanup TAG", NULL,
                         usage_agent);
    return cleanup ? agent_cleanup(dir, cleanup, 1) : agent_serve(dir, run, 0, 1);
}

static int verb_run(int argc, char **argv)
{
    struct run_opts o = {0};
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0) {
            if (++i >= argc)
                return bad_usage("--out needs a directory", NULL, usage_run);
            o.out = argv[i];
        } else if (strncmp(argv[i], "--out=", 6) == 0) {
            o.out = argv[i] + 6;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            o.quiet = 1;
        } else if (strcmp(argv[i], "--keep-lab") == 0) {
            o.keep_lab = 1;
        } else if (strcmp(argv[i], "--repeat") == 0) {
            char *end;
            unsigned long n = ++i < argc ? strtoul(argv[i], &end, 10) : 0;
            if (i >= argc || !*argv[i] || *end || n < 1 || n > 1000)
                return bad_usage("--repeat needs a count from 1 to 1000", NULL, usage_run);
            o.repeat = (unsigned)n;
        } else if (strcmp(argv[i], "--client-dir") == 0) {
            if (++i >= argc)
                return bad_usage("--client-dir needs a directory", NULL, usage_run);
            o.client_dir = argv[i];
        } else if (argv[i][0] == '-') {
            return bad_usage("unknown option ", argv[i], usage_run);
        } else if (!o.scenario) {
            o.scenario = argv[i];
        } else {
            return bad_usage("one scenario at a time; extra argument ", argv[i], usage_run);
        }
    }
    if (!o.scenario)
        return bad_usage("which scenario? ", NULL, usage_run);
    return cmd_run(&o);
}

/* suite PATH... [--out DIR] [--retry-timing N] [--keep-lab] [--quiet] */
static int verb_suite(int argc, char **argv)
{
    struct suite_opts o = {.paths = argv + 2};
    char **paths = argv + 2; /* the PATHs, gathered in place at the front */
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0) {
            if (++i >= argc)
                return bad_usage("--out needs a directory", NULL, usage_suite);
            o.out = argv[i];
        } else if (strncmp(argv[i], "--out=", 6) == 0) {
            o.out = argv[i] + 6;
        } else if (strcmp(argv[i], "--retry-timing") == 0) {
            char *end;
            unsigned long n = ++i < argc ? strtoul(argv[i], &end, 10) : 0;
            if (i >= argc || !*argv[i] || *end || n > SUITE_MAX_RETRY)
                return bad_usage("--retry-timing needs a count from 0 to 20", NULL, usage_suite);
            o.retry_timing = (unsigned)n;
        } else if (strcmp(argv[i], "--keep-lab") == 0) {
            o.keep_lab = true;
        } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
            o.quiet = true;
        } else if (argv[i][0] == '-') {
            return bad_usage("unknown option ", argv[i], usage_suite);
        } else {
            paths[o.npaths++] = argv[i];
        }
    }
    if (!o.npaths)
        return bad_usage("which scenarios? give files or folders", NULL, usage_suite);
    return cmd_suite(&o);
}

static const char usage_shrink[] =
    "usage: faultline shrink DIR [--budget 2h] [--tries N] [--out SDIR]\n"
    "\n"
    "DIR is a run whose verdict is fail.  Its scenario (DIR/schedule.scn when a\n"
    "[thrash] drew it, else DIR/scenario.scn) is made smaller while it still\n"
    "fails the same way: faults dropped (halves first, then one at a time), each\n"
    "fault's hold halved, the workload cut to 20 s past the last fault.  Each\n"
    "candidate runs as `faultline run` on a fresh lab, up to N times (default 3):\n"
    "a failure may need several runs to show.  The same way: the verdict is\n"
    "fail, every rule that failed failed in DIR's run too, and when DIR's run\n"
    "had findings, at least one of the candidate's is of a class it had.\n"
    "\n"
    "  --budget T   start no run that would end after T (default 2h)\n"
    "  --tries N    runs of each candidate until it fails (1..100, default 3)\n"
    "  --out SDIR   where the candidates, their runs, shrink.log and\n"
    "               minimal.scn go (default DIR/shrink)\n"
    "\n"
    "Exit status 0 when a smaller scenario failed the same way (SDIR/minimal.scn),\n"
    "1 when none did, 2 when it could not run; SIGINT/SIGTERM end the run under\n"
    "way and keep what was found.\n";

static int verb_shrink(int argc, char **argv)
{
    struct shrink_opts o = {.budget_ns = 7200000000000ull, .tries = 3};
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0) {
            if (++i >= argc)
                return bad_usage("--out needs a directory", NULL, usage_shrink);
            o.out = argv[i];
        } else if (strcmp(argv[i], "--budget") == 0) {
            char why[200];
            if (++i >= argc || parse_duration(argv[i], &o.budget_ns, why, sizeof why) != 0 ||
                !o.budget_ns)
                return bad_usage("--budget needs a duration (90m, 2h)", NULL, usage_shrink);
        } else if (strcmp(argv[i], "--tries") == 0) {
            char *end;
            unsigned long n = ++i < argc ? strtoul(argv[i], &end, 10) : 0;
            if (i >= argc || !*argv[i] || *end || n < 1 || n > 100)
                return bad_usage("--tries needs a count from 1 to 100", NULL, usage_shrink);
            o.tries = (unsigned)n;
        } else if (argv[i][0] == '-') {
            return bad_usage("unknown option ", argv[i], usage_shrink);
        } else if (!o.dir) {
            o.dir = argv[i];
        } else {
            return bad_usage("one run directory; extra argument ", argv[i], usage_shrink);
        }
    }
    if (!o.dir)
        return bad_usage("which run? give its directory", NULL, usage_shrink);
    return cmd_shrink(&o);
}

static int verb_verify(int argc, char **argv)
{
    const char *dir = NULL;
    int quiet = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0)
            quiet = 1;
        else if (argv[i][0] == '-')
            return bad_usage("unknown option ", argv[i], usage_verify);
        else if (!dir)
            dir = argv[i];
        else
            return bad_usage("one run directory at a time; extra argument ", argv[i],
                             usage_verify);
    }
    if (!dir)
        return bad_usage("which run directory? ", NULL, usage_verify);
    return cmd_verify(dir, quiet);
}

/* help scenario [--format F] */
static int help_scenario(int argc, char **argv)
{
    const char *format = "text";
    if (argc == 5 && strcmp(argv[3], "--format") == 0)
        format = argv[4];
    else if (argc == 4 && strncmp(argv[3], "--format=", 9) == 0)
        format = argv[3] + 9;
    else if (argc != 3)
        return bad_usage("help scenario takes only --format text|markdown|man", NULL, usage_main);
    if (scenario_reference_as(stdout, format) != 0)
        return bad_usage("--format is text, markdown or man, not ", format, usage_main);
    return 0;
}

int main(int argc, char **argv)
{
    /* A socket or pipe whose far end is gone (a killed tgtd's connection,
     * an ssh session, mpirun) must fail the write(), which every caller
     * handles, not kill the run before its report: libiscsi writes to its
     * socket without MSG_NOSIGNAL.  Children get the default back
     * (proc_child_signals). */
    signal(SIGPIPE, SIG_IGN);
    /* Before any file of a target is open: every child is forked from
     * a table without one (lib/spawner.h). */
    char serr[256];
    if (spawner_start(serr, sizeof serr) != 0)
        fprintf(stderr, "faultline: %s\n", serr);
    if (argc < 2)
        return bad_usage("no verb given", NULL, usage_main);
    const char *verb = argv[1];
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
        if (argc > 2 && strcmp(verb, "help") == 0) {
            if (strcmp(argv[2], "scenario") == 0)
                return help_scenario(argc, argv);
            if (strcmp(argv[2], "metrics") == 0) {
                scenario_metrics_markdown(stdout);
                return 0;
            }
            return bad_usage("no help on ", argv[2], usage_main);
        }
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(verb, "--version") == 0) {
        printf("faultline %s\n", build_version());
        return 0;
    }
    if (strcmp(verb, "run") == 0) {
        if (wants_help(argc, argv)) {
            fputs(usage_run, stdout);
            return 0;
        }
        return verb_run(argc, argv);
    }
    if (strcmp(verb, "verify") == 0) {
        if (wants_help(argc, argv)) {
            fputs(usage_verify, stdout);
            return 0;
        }
        return verb_verify(argc, argv);
    }
    if (strcmp(verb, "suite") == 0) {
        if (wants_help(argc, argv)) {
            fputs(usage_suite, stdout);
            return 0;
        }
        return verb_suite(argc, argv);
    }
    if (strcmp(verb, "shrink") == 0) {
        if (wants_help(argc, argv)) {
            fputs(usage_shrink, stdout);
            return 0;
        }
        return verb_shrink(argc, argv);
    }
    if (strcmp(verb, "lab") == 0)
        return cmd_lab(argc, argv);
    if (strcmp(verb, "agent") == 0) {
        if (wants_help(argc, argv)) {
            fputs(usage_agent, stdout);
            return 0;
        }
        return verb_agent(argc, argv);
    }
    if (strcmp(verb, "build-id") == 0) {
        printf("%s\n", self_build_id());
        return 0;
    }
    if (strcmp(verb, "cleanup") == 0)
        return cmd_cleanup(argc, argv);
    if (strcmp(verb, "compare") == 0)
        return cmd_compare(argc, argv);
    if (strcmp(verb, "check") == 0) {
        if (wants_help(argc, argv)) {
            fputs(usage_check, stdout);
            return 0;
        }
        bool schedule = argc == 4 && strcmp(argv[3], "--schedule") == 0;
        if (argc != 3 && !schedule)
            return bad_usage("check takes one scenario file (and --schedule)", NULL, usage_check);
        return cmd_check(argv[2], schedule);
    }
    return bad_usage("unknown verb ", verb, usage_main);
}
