/* scenario_doc — see scenario_doc.h.  The prose is here; every key, metric,
 * action and lab kind comes from its table. */
#include "scenario_doc.h"

#include <stdio.h>
#include <string.h>

#include "../../checks/expect.h"
#include "../../checks/metric.h"
#include "scenario_parts.h"

/* What each section is for (its keys follow, from the tables). */
static const char *const purposes[S_COUNT] = {
    [S_SCENARIO] = "The run as a whole: its name, how long the workload runs, the seed of its "
                   "operations, how often it is repeated, the journal that `faultline verify` "
                   "reads after a crash, the watchdog's limits, and the embedded lab it brings up.",
    [S_TARGET] = "What is tested: a file, a block device, an iSCSI LUN (through one or more "
                 "portals) or a tree of files on any mounted filesystem.  Every block faultline "
                 "writes there carries its generation and a checksum, so that every read can be "
                 "verified.  Some keys belong to one target kind only; they are named so.",
    [S_WORKLOAD] = "The I/O that runs against the target for the run's duration: block size, "
                   "pattern, share of reads, how much is in flight, how often it flushes, the "
                   "engine; for a tree of files its shape and the metadata streams.  Every read "
                   "is verified against what was written.",
    [S_LAB] = "The settings of the embedded lab the scenario brings up (`lab = KIND` in "
              "[scenario]; see Labs below).  `faultline lab up KIND` takes the same keys as "
              "options, `-` for `_` (`--write-cache on`).  A key of another lab kind is refused, "
              "naming the kind it is for; a lab found up with other settings than the scenario "
              "asks for is refused too (take it down first).",
    [S_EXPECT] = "What must hold for the run to pass, one rule per line: `metric OP value`.  "
                 "The metrics, the comparisons and the integrity rules every run has anyway are "
                 "under Expectations below.",
    [S_FAULT] = "One fault, named (`[fault bounce]`), any number of them: what happens (`action`), "
                "where (`host`), when (`at`) and for how long.  Each action takes keys of its "
                "own (listed under Faults below, and named so here); a fault may also carry "
                "expectations of its own, `expect_METRIC OP value`, measured over its window "
                "(under Expectations below).",
    [S_HOST] = "A machine outside the lab that faults act on, named (`[host array1]`) and named "
               "by a fault's `host`: a network namespace here, or a machine reached over ssh, "
               "where `faultline agent` applies the faults and puts them back.  Its power is "
               "cut (power-off) by commands run here, on the controller: `power_off` and "
               "`power_on`, a BMC's, with or without ssh.",
    /* parenthesised: clang takes a two-piece literal in an array for a missing comma */
    [S_CLUSTER] = ("The real storage a run is against (GlusterFS or CephFS), known as a lab "
                   "knows its own; not together with a lab."),
    [S_THRASH] = ("Random outages for as long as the workload runs, drawn from the run's seed: "
                  "which actions (weighted), on which hosts, how many hosts at once, the time "
                  "between faults and how long each holds, and whether to wait for the storage "
                  "to be whole before each.  The draw becomes [fault] sections: the run writes "
                  "them into its directory as `schedule.scn`, the same scenario with every "
                  "fault explicit, which `faultline run` replays and `faultline shrink` makes "
                  "smaller.  An action's own keys are written once, as `ACTION.KEY = VALUE`."),
};

static const char *const description[] = {
    "A scenario is a text file (by convention `NAME.scn`) that says what faultline tests, how "
    "it loads it, what it breaks and when, and what must hold for the run to pass.  `faultline "
    "run FILE` runs it; `faultline check FILE` checks it without opening its target and names "
    "every mistake it finds as `FILE:LINE: message` (exit status 0 when the scenario is good, "
    "2 otherwise).",
    "The file is fio-style INI: a line `[section]` starts a section, and each `key = value` line "
    "after it sets one of the section's keys.  Unknown sections and keys are errors, named with "
    "the closest known key; so is a key given twice, and a key of one kind (of target, lab or "
    "fault action) in a section of another, which names the kind the key is for.  The minimum:",
    NULL, /* the example */
    "Sizes use binary units, as fio does: `512`, `4k` = `4KiB` = `4KB` = 4096, `64MiB`, `1GiB`.  "
    "Durations: `500ms`, `10s`, `2m`, `1h`, `1.5s`; a bare number is seconds.  Percentages: "
    "`50%`.  A yes/no key takes `yes`, `true`, `on` or `1`, and `no`, `false`, `off` or `0`.  "
    "Rates are written as tc writes them: `10mbit`, `500kbit`, `1gbit` (bits/s), `10mbps` "
    "(bytes/s).",
    "Comments start with `#` or `;`, at the start of a line or after a blank "
    "(`depth = 8 # in flight`).",
    "`[fault NAME]` and `[host NAME]` may appear any number of times, each with a name of its "
    "own after its type (`[fault bounce]`, `[host array1]`): a fault is reported under its "
    "name, and a fault's `host = NAME` names a `[host NAME]` of the file (or a lab host, or "
    "`local`).  Every other section appears at most once.",
    "`faultline help scenario` prints this reference in brief.  Both are made from the tables "
    "the parser itself reads, so they name every key it knows and no other.",
};

static const char example[] = "[scenario]\n"
                              "name = smoke\n"
                              "duration = 10s\n"
                              "[target]\n"
                              "kind = file          # or blockdev, iscsi, files\n"
                              "path = /tmp/x.img\n"
                              "size = 64MiB         # created or extended if needed\n"
                              "[workload]\n"
                              "block = 4KiB\n"
                              "pattern = random\n"
                              "read = 50%\n"
                              "depth = 8\n"
                              "flush = 64           # writes between flushes\n";

/* "a|b|c" as "a, b, c" */
static void choices_text(const char *choices, char *out, size_t n)
{
    size_t used = 0;
    for (const char *c = choices; *c && used + 3 < n; c++) {
        if (*c == '|') {
            out[used++] = ',';
            out[used++] = ' ';
        } else {
            out[used++] = *c;
        }
    }
    out[used] = '\0';
}

/* The kinds that take a key, unless its help begins by naming them. */
static const char *owners_unless_said(const char *owners, const char *help)
{
    size_t first = strcspn(owners, ",");
    if (first && strncmp(help, owners, first) == 0 && (help[first] == ':' || help[first] == ','))
        return "";
    return owners;
}

static void key_row(struct doc_out *d, const struct doc_renderer *r, const struct key_def *k,
                    const char *owners)
{
    char type[128];
    if (k->type == KEY_CHOICE && k->choices)
        choices_text(k->choices, type, sizeof type);
    else
        snprintf(type, sizeof type, "%s", key_type_name(k->type));
    struct doc_row row = {k->name, type, k->def ? k->def : "", owners_unless_said(owners, k->help),
                          k->help};
    r->row(d, &row);
}

/* Every key of a section once, the general ones first, then each kind's
 * own (one that several kinds share once, with all of them; a general key
 * that a kind takes in a meaning of its own once more, for that kind). */
static void section_keys(struct doc_out *d, const struct doc_renderer *r, int s)
{
    struct key_table general = scenario_general_keys(s);
    for (unsigned i = 0; i < general.n; i++)
        key_row(d, r, &general.keys[i], "");
    char seen[2048] = " ";
    struct key_table t;
    const char *owner;
    for (unsigned k = 0; scenario_kind_keys(s, k, &t, &owner); k++)
        for (unsigned i = 0; i < t.n; i++) {
            char word[48], owners[512];
            const struct key_def *def;
            snprintf(word, sizeof word, " %s ", t.keys[i].name);
            const struct key_def *g = key_find(general.keys, general.n, t.keys[i].name);
            if (strstr(seen, word) || (g && strcmp(g->help, t.keys[i].help) == 0))
                continue;
            snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s ", t.keys[i].name);
            scenario_owners_of(s, t.keys[i].name, owners, sizeof owners, &def);
            key_row(d, r, g ? &t.keys[i] : def, g ? owner : owners);
        }
}

/* "`a`, `b`, `c`" of the names of a key table */
static void key_names(const struct key_def *keys, unsigned n, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s`%s`",
                                 !i ? "" : i + 1 == n ? " and " : ", ", keys[i].name);
}

static void synopsis(struct doc_out *d, const struct doc_renderer *r)
{
    char text[1024];
    size_t used = 0;
    for (int s = 0; s < S_COUNT && used < sizeof text; s++) {
        bool named = s == S_FAULT || s == S_HOST;
        used += (size_t)snprintf(text + used, sizeof text - used, "[%s%s]\n%s\n", section_names[s],
                                 named ? " NAME" : "",
                                 s == S_EXPECT  ? "metric OP value"
                                 : s == S_FAULT ? "key = value\nexpect_metric OP value"
                                                : "key = value");
    }
    r->heading(d, 1, "Synopsis");
    r->example(d, text);
}

static void sections(struct doc_out *d, const struct doc_renderer *r)
{
    r->heading(d, 1, "Sections");
    for (int s = 0; s < S_COUNT; s++) {
        char title[64], actions[512];
        bool named = s == S_FAULT || s == S_HOST;
        snprintf(title, sizeof title, "[%s%s]", section_names[s], named ? " NAME" : "");
        r->heading(d, 2, title);
        r->para(d, purposes[s]);
        if (s == S_EXPECT)
            continue;
        r->table_begin(d);
        if (s == S_FAULT) {
            const struct fault_ops *const *f;
            unsigned nf = fault_families(&f);
            size_t used = (size_t)snprintf(actions, sizeof actions, "what happens (required): ");
            for (unsigned i = 0; i < nf && used < sizeof actions; i++)
                used += (size_t)snprintf(actions + used, sizeof actions - used, "%s`%s`",
                                         i ? ", " : "", f[i]->action);
            r->row(d, &(struct doc_row){"action", "choice", "", "", actions});
        }
        section_keys(d, r, s);
        r->table_end(d);
    }
}

static void metric_table_of(struct doc_out *d, const struct doc_renderer *r,
                            enum metric_scope scope)
{
    r->table_begin(d);
    for (int i = 0; i < METRIC_COUNT; i++) {
        const struct metric_def *m = &metric_table[i];
        char key[64];
        if (m->scope != scope)
            continue;
        snprintf(key, sizeof key, "%s%s", scope == SCOPE_FAULT ? "expect_" : "", m->name);
        r->row(d, &(struct doc_row){key, metric_unit_word(m), m->integrity ? "= 0" : "", "",
                                    m->help});
    }
    r->table_end(d);
}

static void expectations(struct doc_out *d, const struct doc_renderer *r)
{
    char text[1024], list[256], rules[512];
    size_t used = 0;
    for (int op = EXP_EQ; op <= EXP_GE; op++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s`%s`",
                                 op == EXP_EQ ? "" : op == EXP_GE ? " or " : ", ",
                                 expect_op_text((enum expect_op)op));
    used = 0;
    rules[0] = '\0';
    for (int i = 0; i < METRIC_COUNT && used < sizeof rules; i++)
        if (metric_table[i].integrity)
            used += (size_t)snprintf(rules + used, sizeof rules - used, "%s`%s`",
                                     used ? ", " : "", metric_table[i].name);
    r->heading(d, 1, "Expectations");
    snprintf(text, sizeof text,
             "A rule is a metric, a comparison (%s) and a value in the metric's unit (a duration "
             "for a time: `max_stall <= 20s`).  The run's rules are the lines of [expect]; a "
             "fault's are keys of its own section, `expect_` and the metric (`expect_stall <= 8s`), "
             "measured over that fault's window.  A value that could not be measured (a fault "
             "that never recovered) satisfies no rule.",
             list);
    r->para(d, text);
    snprintf(text, sizeof text,
             "The integrity rules hold in every run: %s, each `= 0` unless the scenario says "
             "something about that metric itself (`lost_writes <= 2`), which then replaces the "
             "rule.  Pass needs every integrity rule and every expectation to hold.",
             rules);
    r->para(d, text);
    r->heading(d, 2, "The run's metrics ([expect])");
    metric_table_of(d, r, SCOPE_RUN);
    r->heading(d, 2, "Each fault's metrics ([fault NAME])");
    metric_table_of(d, r, SCOPE_FAULT);
    used = 0;
    for (int s = DS_NONE + 1; s < DS_COUNT; s++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s`_%s`",
                                 s == DS_NONE + 1 ? "" : s == DS_COUNT - 1 ? " or " : ", ",
                                 dist_stat_names[s]);
    snprintf(text, sizeof text,
             "With `repeat = N`, a metric (and a fault's `expect_` key) with a suffix %s is that "
             "statistic over the repetitions: `recovery_p95 <= 8s`, `expect_stall_p95 <= 5s`.  "
             "Only the summary of the repetitions checks such a rule; each repetition checks "
             "the plain ones.",
             list);
    r->para(d, text);
}

static void fault_actions_doc(struct doc_out *d, const struct doc_renderer *r)
{
    char text[1024];
    struct key_table general = scenario_general_keys(S_FAULT);
    key_names(general.keys, general.n, text, sizeof text);
    r->heading(d, 1, "Faults");
    char para[1200];
    snprintf(para, sizeof para, "Every fault takes %s; each action takes these keys of its own:",
             text);
    r->para(d, para);
    const struct fault_ops *const *f;
    unsigned nf = fault_families(&f);
    for (unsigned i = 0; i < nf; i++) {
        key_names(f[i]->keys, f[i]->nkeys, text, sizeof text);
        r->item(d, f[i]->action, f[i]->nkeys ? text : "none");
    }
    r->list_end(d);
}

static void lab_kinds_doc(struct doc_out *d, const struct doc_renderer *r)
{
    r->heading(d, 1, "Labs");
    r->para(d, "An embedded lab is a storage cluster on this machine, in network namespaces on a "
               "Linux bridge.  `lab = KIND` in [scenario] brings it up for the run (and takes it "
               "down after, unless `faultline run --keep-lab`); `faultline lab up KIND` brings it "
               "up by hand.  Its hosts are what a fault's `host` names; with more than one "
               "client (`clients` in [lab]) the client hosts are `c1` to `cN`.");
    const struct lab_kind *const *kinds;
    unsigned nk = lab_kinds_all(&kinds);
    for (unsigned i = 0; i < nk; i++) {
        char hosts[LAB_MAX_HOSTS][16], text[2048], keys[1024];
        unsigned nh = lab_kind_hosts(kinds[i], 1, hosts, LAB_MAX_HOSTS);
        size_t used = (size_t)snprintf(text, sizeof text, "%s.  Hosts:", kinds[i]->summary);
        for (unsigned h = 0; h < nh && used < sizeof text; h++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s `%s`", h ? "," : "",
                                     hosts[h]);
        key_names(kinds[i]->keys.keys, kinds[i]->keys.n, keys, sizeof keys);
        if (used < sizeof text)
            snprintf(text + used, sizeof text - used, ".  Its own [lab] keys: %s.",
                     kinds[i]->keys.n ? keys : "none");
        r->item(d, kinds[i]->name, text);
    }
    r->list_end(d);
}

void scenario_doc(FILE *out, const struct doc_renderer *r)
{
    struct doc_out d = {out, DOC_NOTHING};
    r->begin(&d, &(struct doc_meta){"The scenario language", "faultline-scenario", 5,
                                    "the scenario language of faultline", "help scenario",
                                    "2026-12-06"});
    synopsis(&d, r);
    r->heading(&d, 1, "Description");
    for (size_t i = 0; i < sizeof description / sizeof description[0]; i++) {
        if (description[i])
            r->para(&d, description[i]);
        else
            r->example(&d, example);
    }
    sections(&d, r);
    expectations(&d, r);
    fault_actions_doc(&d, r);
    lab_kinds_doc(&d, r);
    r->heading(&d, 1, "Files");
    r->para(&d, "`PREFIX/share/faultline/scenarios/*.scn`: the scenarios shipped with faultline "
                "(`scenarios/` of its source), each a worked example; PREFIX is `/usr/local` "
                "unless faultline was installed elsewhere.");
    r->heading(&d, 1, "See also");
    r->para(&d, "`faultline`(1): running a scenario, verifying, comparing and repeating runs, "
                "the labs.");
}
