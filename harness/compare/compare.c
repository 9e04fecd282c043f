/*
 * compare — the `faultline compare` verb (see compare.h): both sides read,
 * the rows built (the run's metrics, then each fault both sides have),
 * every --worse limit checked against the rows it names, B's failed
 * expectations gathered, and the exit status decided.
 */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_compare[] =
    "usage: faultline compare DIR_A DIR_B [--worse METRIC:RATIO]... [--json]\n"
    "\n"
    "Sets two runs side by side, metric by metric, from their report.json: A's\n"
    "value, B's, the change (B - A) and the ratio (B / A), and whether B got worse.\n"
    "The run's metrics: iops, max_stall_s, run_errors, findings, hung; each fault's\n"
    "(faults matched by name; one on one side only is named): stall_s, recovery_s,\n"
    "impact_s, errors, heal_s, recover_s, first_io_after_clear_s, max_latency_s.  Higher is\n"
    "better for iops and pass_rate, lower for the rest.\n"
    "\n"
    "Summaries of repeats (`run --repeat N`, mode repeat) compare the p50, p95, max\n"
    "and mean of each metric, and pass_rate.  A run next to a summary counts as a\n"
    "distribution of one (each statistic is its value, pass_rate 1 if it passed).\n"
    "\n"
    "A value measured on one side only (null) is \"not measured\", never worse.\n"
    "A = 0 and B > 0 is a ratio of inf (JSON: null), worse where lower is better.\n"
    "\n"
    "Only the rows a --worse limit checks count for the exit status: their last\n"
    "column names the limit (\"--worse stall_s:1.5 ok\", or \"BEYOND\" when B is worse\n"
    "than it allows), and the last line names the rows that decided.  \"worse\" on any\n"
    "other row is information.  A warning (on stderr, and in --json) says when the\n"
    "two scenarios differ, a side is a verify, a summary of repeats stands next to\n"
    "a single run, a side was interrupted, or a verdict is missing or unknown.\n"
    "\n"
    "  --worse METRIC:RATIO  fail when METRIC got worse than RATIO (>= 1) allows:\n"
    "              B > A * RATIO where lower is better (A = 0: any B > 0), B < A / RATIO\n"
    "              where higher is better.  METRIC: NAME (the run's, or every fault's),\n"
    "              FAULT.NAME (one fault's); for summaries NAME.STAT or FAULT.NAME.STAT\n"
    "              (STAT p50, p95, max, mean; without it every statistic).  Repeatable.\n"
    "  --json      the comparison as one JSON object on stdout\n"
    "\n"
    "Exit status: 1 when an expectation of B failed (each is listed), B could not\n"
    "run or was interrupted, or a --worse limit was passed; 2 when a directory has\n"
    "no readable report.json, or on a mistake in the arguments (an unknown METRIC\n"
    "lists the known ones); 0 otherwise.\n";

static int bad_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "faultline compare: %s%s\n\n%s", msg, arg ? arg : "", usage_compare);
    return 2;
}

struct rows {
    struct cmp_row *list;
    size_t n, cap;
};

static int add_row(struct rows *rs, const struct cmp_side *a, const struct cmp_side *b,
                   const char *fault, const struct cmp_metric *m, const char *stat)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        struct cmp_row *l = realloc(rs->list, cap * sizeof *l);
        if (!l) {
            fprintf(stderr, "faultline compare: out of memory for %zu rows\n", cap);
            return -1;
        }
        rs->list = l;
        rs->cap = cap;
    }
    struct cmp_row *r = &rs->list[rs->n++];
    r->fault = fault;
    r->metric = m;
    r->stat = stat;
    r->a = cmp_side_value(a, fault, m, stat);
    r->b = cmp_side_value(b, fault, m, stat);
    r->j = cmp_judge(r->a, r->b, m->better);
    return 0;
}

/* One metric's rows: one per statistic when a summary is involved. */
static int add_metric(struct rows *rs, const struct cmp_side *a, const struct cmp_side *b,
                      const char *fault, const struct cmp_metric *m)
{
    bool stats = a->summary || b->summary;
    /* a metric only one kind of report has is left out: a run has no
     * pass_rate next to a run, a summary no findings */
    if (stats ? !m->in_summary : !m->in_run)
        return 0;
    if (!stats || m->id == M_PASS_RATE)
        return add_row(rs, a, b, fault, m, NULL);
    for (size_t s = 0; s < cmp_nstats; s++)
        if (add_row(rs, a, b, fault, m, cmp_stats[s]) != 0)
            return -1;
    return 0;
}

static int build_rows(struct cmp_result *r)
{
    struct rows rs = {0};
    size_t nm;
    const struct cmp_metric *list = cmp_metric_list(&nm);
    for (size_t m = 0; m < nm; m++)
        if (!list[m].per_fault && add_metric(&rs, r->a, r->b, NULL, &list[m]) != 0)
            goto fail;
    for (size_t f = 0; f < r->a->nfaults; f++) {
        if (!cmp_side_has_fault(r->b, r->a->faults[f]))
            continue;
        for (size_t m = 0; m < nm; m++)
            if (list[m].per_fault && add_metric(&rs, r->a, r->b, r->a->faults[f], &list[m]) != 0)
                goto fail;
    }
    r->rows = rs.list;
    r->nrows = rs.n;
    return 0;
fail:
    free(rs.list);
    return -1;
}

/* The faults of one side the other does not have. */
static const char **only_in(const struct cmp_side *s, const struct cmp_side *other, size_t *n)
{
    const char **list = calloc(s->nfaults ? s->nfaults : 1, sizeof *list);
    *n = 0;
    for (size_t i = 0; list && i < s->nfaults; i++)
        if (!cmp_side_has_fault(other, s->faults[i]))
            list[(*n)++] = s->faults[i];
    return list;
}

/* A limit that names nothing of these two reports is a mistake, not a pass:
 * say what is there instead. */
static int check_limit_names(const struct cmp_result *r, const struct cmp_limit *l)
{
    bool stats = r->a->summary || r->b->summary;
    if (l->stat && !stats) {
        fprintf(stderr,
                "faultline compare: --worse %s: both are runs, which have one value per metric; "
                "drop '.%s'\n",
                l->spec, l->stat);
        return 2;
    }
    bool on_both = cmp_side_has_fault(r->a, l->fault) && cmp_side_has_fault(r->b, l->fault);
    if (!l->any_fault && !on_both) {
        fprintf(stderr,
                "faultline compare: --worse %s: no fault '%s' on both sides; faults on both:",
                l->spec, l->fault);
        size_t both = 0;
        for (size_t i = 0; i < r->a->nfaults; i++)
            if (cmp_side_has_fault(r->b, r->a->faults[i]))
                fprintf(stderr, " %s", r->a->faults[i]), both++;
        fprintf(stderr, "%s\n", both ? "" : " none");
        return 2;
    }
    for (size_t i = 0; i < r->nrows; i++)
        if (cmp_row_matches(&r->rows[i], l))
            return 0;
    fprintf(stderr, "faultline compare: --worse %s: %s is not compared here (%s)\n", l->spec,
            l->metric->name,
            l->metric->per_fault ? "no fault on both sides"
                                 : stats ? "a summary of repeats does not have it"
                                         : "only summaries of repeats have it");
    return 2;
}

/* The rows that count for the exit status: those a limit checks. */
static void count_checked(struct cmp_result *r)
{
    r->nchecked = 0;
    for (size_t i = 0; i < r->nrows; i++)
        for (size_t l = 0; l < r->nlimits; l++)
            if (cmp_row_matches(&r->rows[i], &r->limits[l])) {
                r->nchecked++;
                break;
            }
}

static int find_breaches(struct cmp_result *r, const struct cmp_limit *limits, size_t nlimits)
{
    size_t n = 0;
    for (size_t l = 0; l < nlimits; l++)
        for (size_t i = 0; i < r->nrows; i++)
            n += cmp_row_matches(&r->rows[i], &limits[l]);
    r->breaches = calloc(n ? n : 1, sizeof *r->breaches);
    if (!r->breaches) {
        fprintf(stderr, "faultline compare: out of memory for %zu limits\n", n);
        return -1;
    }
    for (size_t l = 0; l < nlimits; l++)
        for (size_t i = 0; i < r->nrows; i++) {
            const struct cmp_row *row = &r->rows[i];
            if (cmp_row_matches(row, &limits[l]) && row->j.measured &&
                cmp_beyond(row->a.v, row->b.v, row->metric->better, limits[l].ratio))
                r->breaches[r->nbreaches++] = (struct cmp_breach){&limits[l], row};
        }
    return 0;
}

/* B's expectations that did not hold (pass false; integrity rules too):
 * a run's from its result, a summary's from its tree. */
static int failed_expectations(struct cmp_result *r)
{
    const struct result *res = r->b->res;
    const struct jv *list = res ? NULL : jv_get(r->b->doc, "expectations");
    size_t n = res ? res->nexpect : jv_len(list);
    r->failed = calloc(n ? n : 1, sizeof *r->failed);
    if (!r->failed) {
        fprintf(stderr, "faultline compare: out of memory for %zu expectations\n", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        bool pass = true;
        if (res && !res->expect[i].pass)
            r->failed[r->nfailed++] = (struct cmp_failed){.x = &res->expect[i]};
        else if (!res && jv_bool(jv_get(jv_at(list, i), "pass"), &pass) && !pass)
            r->failed[r->nfailed++] = (struct cmp_failed){.rule = jv_at(list, i)};
    }
    return 0;
}

static int compare(const char *dir_a, const char *dir_b, const struct cmp_limit *limits,
                   size_t nlimits, bool json)
{
    struct cmp_side a, b;
    char err[1024];
    if (cmp_side_load(&a, dir_a, err, sizeof err) != 0) {
        fprintf(stderr, "faultline compare: A: %s\n", err);
        return 2;
    }
    if (cmp_side_load(&b, dir_b, err, sizeof err) != 0) {
        fprintf(stderr, "faultline compare: B: %s\n", err);
        cmp_side_free(&a);
        return 2;
    }
    struct cmp_result r = {.a = &a, .b = &b, .limits = limits, .nlimits = nlimits, .exit = 2};
    if (build_rows(&r) != 0 || failed_expectations(&r) != 0)
        goto out;
    r.nwarnings = cmp_warnings(&a, &b, r.warnings);
    r.only_a = only_in(&a, &b, &r.nonly_a);
    r.only_b = only_in(&b, &a, &r.nonly_b);
    if (!r.only_a || !r.only_b) {
        fprintf(stderr, "faultline compare: out of memory for the fault lists\n");
        goto out;
    }
    for (size_t l = 0; l < nlimits; l++)
        if (check_limit_names(&r, &limits[l]) != 0)
            goto out;
    if (find_breaches(&r, limits, nlimits) != 0)
        goto out;
    count_checked(&r);
    /* On stderr whatever the format: a script reading --json finds them in
     * "warnings" too. */
    for (size_t i = 0; i < r.nwarnings; i++)
        fprintf(stderr, "faultline compare: warning: %s\n", r.warnings[i].text);
    r.exit = r.nfailed || r.nbreaches || b.error || strcmp(b.verdict, "error") == 0 ||
                     cmp_side_cut_short(&b)
                 ? 1
                 : 0;
    if (json)
        cmp_print_json(stdout, &r);
    else
        cmp_print_text(stdout, &r);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("faultline compare: cannot write the comparison");
        r.exit = 2;
    }
out:
    free(r.rows);
    free(r.only_a);
    free(r.only_b);
    free(r.failed);
    free(r.breaches);
    cmp_side_free(&a);
    cmp_side_free(&b);
    return r.exit;
}

int cmd_compare(int argc, char **argv)
{
    const char *dirs[2] = {NULL, NULL};
    size_t ndirs = 0, nlimits = 0;
    bool json = false;
    struct cmp_limit *limits = calloc((size_t)argc, sizeof *limits);
    if (!limits) {
        fprintf(stderr, "faultline compare: out of memory for %d arguments\n", argc);
        return 2;
    }
    int rc = 2;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage_compare, stdout);
            rc = 0;
            goto out;
        } else if (strcmp(arg, "--json") == 0) {
            json = true;
        } else if (strcmp(arg, "--worse") == 0) {
            if (++i >= argc) {
                rc = bad_usage("--worse needs METRIC:RATIO", NULL);
                goto out;
            }
            value = argv[i];
        } else if (strncmp(arg, "--worse=", 8) == 0) {
            value = arg + 8;
        } else if (arg[0] == '-' && arg[1]) {
            rc = bad_usage("unknown option ", arg);
            goto out;
        } else if (ndirs < 2) {
            dirs[ndirs++] = arg;
        } else {
            rc = bad_usage("two run directories, no more; extra argument ", arg);
            goto out;
        }
        if (value) {
            char err[1536];
            if (cmp_parse_limit(value, &limits[nlimits], err, sizeof err) != 0) {
                fprintf(stderr, "faultline compare: %s\n", err);
                goto out;
            }
            nlimits++;
        }
    }
    if (ndirs < 2) {
        rc = bad_usage("which two run directories? ", NULL);
        goto out;
    }
    rc = compare(dirs[0], dirs[1], limits, nlimits, json);
out:
    free(limits);
    return rc;
}
