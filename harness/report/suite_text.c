/* suite_text — report.txt of a suite (see suite.h), also what the console
 * shows at the end of `faultline suite`:
 *
 *   the verdict, N met of M (flaky among them), not met, errors; the wall
 *   time; labs brought up against labs shared, and the time lab up took
 *   one table per lab kind: scenario, fault(s), verdict, met, stall,
 *   recovery (with heal or recover), findings, reverted, wall time
 *   the scenarios not met, each with why and what it expected and got;
 *   those that could not run; the flaky ones with every attempt
 *
 * Columns are as wide as their widest cell, so that long scenario names
 * still line up. */
#include "suite.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report_files.h"

#define COLS 9
#define CELL 400

static const char *const heads[COLS] = {"scenario", "fault(s)", "verdict", "met", "stall",
                                        "recovery/heal/recover", "findings", "reverted", "wall"};
static const bool right[COLS] = {false, false, false, false, true, false, true, true, true};

/* Characters on the screen, not bytes: a UTF-8 name counts each letter
 * once. */
static size_t width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static void row_of(const struct suite_scenario *x, char (*c)[CELL])
{
    snprintf(c[0], CELL, "%s", x->name);
    suite_faults_text(x, c[1], CELL);
    snprintf(c[2], CELL, "%s", x->verdict ? x->verdict : "no report");
    snprintf(c[3], CELL, "%s", suite_met_word(x));
    suite_fmt_secs(x->stall, c[4], CELL);
    suite_recovery_text(x, c[5], CELL);
    suite_fmt_count(x->findings, c[6], CELL);
    suite_fmt_count(x->reverted, c[7], CELL);
    suite_fmt_duration(x->wall, c[8], CELL);
}

/* The table of one lab kind: a header row, then one row per scenario. */
static void kind_table(FILE *f, const struct suite *s, const char *kind)
{
    size_t rows = 1;
    for (size_t i = 0; i < s->n; i++)
        rows += suite_of_kind(&s->sc[i], kind);
    char(*cell)[COLS][CELL] = calloc(rows, sizeof *cell);
    if (!cell) { /* the table is left out, and says so */
        fprintf(f, "\nlab %s: (out of memory for its table)\n", suite_kind_label(kind));
        return;
    }
    for (size_t k = 0; k < COLS; k++)
        snprintf(cell[0][k], CELL, "%s", heads[k]);
    size_t r = 1;
    for (size_t i = 0; i < s->n; i++)
        if (suite_of_kind(&s->sc[i], kind))
            row_of(&s->sc[i], cell[r++]);
    size_t w[COLS] = {0};
    for (size_t i = 0; i < rows; i++)
        for (size_t k = 0; k < COLS; k++)
            if (width(cell[i][k]) > w[k])
                w[k] = width(cell[i][k]);
    if (kind)
        fprintf(f, "\n%s lab: %zu scenario%s\n", kind, rows - 1, rows == 2 ? "" : "s");
    else
        fprintf(f, "\nno lab (a [cluster], [host]s or a file): %zu scenario%s\n", rows - 1,
                rows == 2 ? "" : "s");
    for (size_t i = 0; i < rows; i++) {
        fputs(" ", f);
        for (size_t k = 0; k < COLS; k++) {
            size_t pad = w[k] - width(cell[i][k]);
            if (right[k]) /* numbers line up on their units */
                fprintf(f, " %*s%s", (int)pad, "", cell[i][k]);
            else
                fprintf(f, " %s%*s", cell[i][k], k + 1 < COLS ? (int)pad : 0, "");
        }
        fputc('\n', f);
    }
    free(cell);
}

/* Where a scenario's last report is, for people to read next. */
static void where(FILE *f, const struct suite_scenario *x)
{
    if (x->nattempts && x->attempts[x->nattempts - 1].dir[0])
        fprintf(f, "    %s/report.txt\n", x->attempts[x->nattempts - 1].dir);
    else if (x->dir[0])
        fprintf(f, "    %s/\n", x->dir);
}

/* Not met, or could not run: each with why, and what it expected. */
static void misses(FILE *f, const struct suite *s, enum suite_outcome which, const char *title)
{
    bool any = false;
    for (size_t i = 0; i < s->n; i++) {
        const struct suite_scenario *x = &s->sc[i];
        if (x->outcome != which)
            continue;
        if (!any)
            fprintf(f, "\n%s:\n", title);
        any = true;
        char line[2048];
        fprintf(f, "  %s: %s\n", x->name, x->why ? x->why : "(no reason given)");
        suite_expected_text(x, line, sizeof line);
        fprintf(f, "    %s\n", line);
        where(f, x);
    }
}

static void flaky(FILE *f, const struct suite *s)
{
    bool any = false;
    for (size_t i = 0; i < s->n; i++) {
        const struct suite_scenario *x = &s->sc[i];
        if (x->outcome != SUITE_FLAKY)
            continue;
        if (!any)
            fprintf(f, "\nflaky (missed on timing, then met on a retry):\n");
        any = true;
        fprintf(f, "  %s: %s\n", x->name, x->why ? x->why : "(no reason given)");
        for (size_t k = 0; k < x->nattempts; k++) {
            const struct suite_attempt *a = &x->attempts[k];
            char line[2048];
            suite_attempt_text(a, x->lab, line, sizeof line);
            fprintf(f, "    try-%u %s: %s\n", a->try_no, a->dir[0] ? a->dir : "(no directory)",
                    line);
        }
    }
}

/* The verdict and the totals, first. */
static void totals(FILE *f, const struct suite *s)
{
    char met[32], total[32], fl[32], nm[32], er[32], t[5][48];
    suite_fmt_count(s->met, met, sizeof met);
    suite_fmt_count(s->total, total, sizeof total);
    suite_fmt_count(s->flaky, fl, sizeof fl);
    suite_fmt_count(s->not_met, nm, sizeof nm);
    suite_fmt_count(s->errors, er, sizeof er);
    fprintf(f, "faultline suite: %s, %s of %s met (%s flaky), %s not met, %s error%s\n",
            report_verdict_caps(s->verdict), met, total, fl, nm, er,
            s->errors.known && s->errors.v == 1 ? "" : "s");
    if (s->interrupted_by) {
        suite_fmt_count(s->ran, t[0], sizeof t[0]);
        fprintf(f, "interrupted by %s: %s of %s scenarios ran\n", s->interrupted_by, t[0], total);
    }
    suite_fmt_duration(s->wall, t[0], sizeof t[0]);
    fprintf(f, "wall time %s, started %s, faultline %s", t[0],
            s->started_at[0] ? s->started_at : "unknown",
            s->faultline[0] ? s->faultline : "unknown");
    if (s->retry_timing.known && s->retry_timing.v > 0)
        fprintf(f, ", a timing failure retried up to %.0f time%s", s->retry_timing.v,
                s->retry_timing.v == 1 ? "" : "s");
    fputc('\n', f);
    suite_fmt_count(s->lab_ups, t[1], sizeof t[1]);
    suite_fmt_count(s->lab_shared, t[2], sizeof t[2]);
    suite_fmt_duration(s->lab_up_s, t[3], sizeof t[3]);
    suite_fmt_duration(s->lab_down_s, t[4], sizeof t[4]);
    fprintf(f, "labs: %s brought up, %s scenarios on a lab already up; %s in lab up, %s in "
               "lab down\n", t[1], t[2], t[3], t[4]);
}

void suite_text(FILE *f, const struct suite *s)
{
    totals(f, s);
    const char *kinds[64]; /* the lab kinds are a handful (harness/lab/lab_kinds.c) */
    size_t nk = suite_kinds(s, kinds, sizeof kinds / sizeof kinds[0]);
    for (size_t k = 0; k < nk; k++)
        kind_table(f, s, kinds[k]);
    if (!s->n)
        fprintf(f, "\nno scenario ran\n");
    misses(f, s, SUITE_NOT_MET, "not met");
    misses(f, s, SUITE_ERROR, "could not run");
    flaky(f, s);
}

int suite_write_text(const struct suite *s, const char *dir, char *err, size_t errlen)
{
    return suite_write_file(s, dir, "report.txt", suite_text, err, errlen);
}
