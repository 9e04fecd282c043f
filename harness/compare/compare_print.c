/*
 * compare_print — a comparison written out (see compare.h): an aligned
 * table for people, or one JSON object for scripts.  The table leaves out
 * rows measured on neither side (it counts them); the JSON has every row.
 * Both say which rows count for the exit status (those a --worse limit
 * checks) and which limit checks each, so that "worse" on a row no limit
 * names reads as what it is: information.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/json.h"

/* ---- the table ---- */

/* The last column names the limits that check a row: room for a few. */
enum { COLS = 9, CELL = 320 };

static void fmt_value(char *out, size_t n, struct cmp_value v)
{
    if (v.known)
        snprintf(out, n, "%.6g", v.v);
    else
        snprintf(out, n, "-");
}

static const char *judged(const struct cmp_row *row)
{
    if (!row->j.measured)
        return "not measured";
    if (row->j.worse)
        return "worse";
    return row->j.change == 0 ? "same" : "better";
}

static void row_cells(const struct cmp_row *row, char cell[COLS][CELL])
{
    snprintf(cell[0], CELL, "%s", row->fault ? row->fault : "(run)");
    snprintf(cell[1], CELL, "%s", row->metric->name);
    snprintf(cell[2], CELL, "%s", row->stat ? row->stat : "");
    fmt_value(cell[3], CELL, row->a);
    fmt_value(cell[4], CELL, row->b);
    if (row->j.measured) {
        snprintf(cell[5], CELL, "%+.6g", row->j.change);
        if (isinf(row->j.ratio))
            snprintf(cell[6], CELL, "inf");
        else
            snprintf(cell[6], CELL, "%.3f", row->j.ratio);
    } else {
        snprintf(cell[5], CELL, "-");
        snprintf(cell[6], CELL, "-");
    }
    snprintf(cell[7], CELL, "%s", judged(row));
    cell[8][0] = '\0';
}

/* "--worse tick.stall_s:1.5 ok", each limit that checks the row, with
 * whether B is within it ("ok") or beyond it ("BEYOND"); "" when none. */
static void limits_cell(const struct cmp_result *r, const struct cmp_row *row, char *out,
                        size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t l = 0; l < r->nlimits && used < n; l++) {
        const struct cmp_limit *lim = &r->limits[l];
        if (!cmp_row_matches(row, lim))
            continue;
        used += (size_t)snprintf(out + used, n - used, "%s--worse %s:%g %s", used ? ", " : "",
                                 lim->spec, lim->ratio,
                                 cmp_row_beyond(r, row, lim) ? "BEYOND" : "ok");
    }
}

/* A row's name as --worse would give it: [FAULT.]METRIC[.STAT]. */
static void row_name(const struct cmp_row *row, char *out, size_t n)
{
    snprintf(out, n, "%s%s%s%s%s", row->fault ? row->fault : "", row->fault ? "." : "",
             row->metric->name, row->stat ? "." : "", row->stat ? row->stat : "");
}

/* One line of the table: text left-aligned, numbers right-aligned, and no
 * trailing blanks after a short last column. */
static void print_cells(FILE *f, char cell[COLS][CELL], const int *width, bool stats)
{
    char line[COLS * (CELL + 2) + 1];
    size_t used = 0;
    for (int c = 0; c < COLS; c++) {
        if (c == 2 && !stats)
            continue;
        if (c == COLS - 1 && !cell[c][0])
            break; /* no limit checks the row: nothing after its judgement */
        bool number = c >= 3 && c <= 6;
        used += (size_t)snprintf(line + used, sizeof line - used, number ? "%*s  " : "%-*s  ",
                                 c == COLS - 1 ? 0 : width[c], cell[c]);
        if (used >= sizeof line)
            used = sizeof line - 1;
    }
    while (used > 0 && line[used - 1] == ' ')
        line[--used] = '\0';
    fprintf(f, "%s\n", line);
}

static void print_side(FILE *f, const char *label, const struct cmp_side *s)
{
    fprintf(f, "%s: %s  (%s, %s, scenario %s", label, s->dir, s->mode, s->verdict, s->scenario);
    if (s->summary) {
        double passed = 0, reps = 0;
        /* a summary's numbers: its tree (compare_side.c) */
        if (jv_num(jv_get(s->doc, "passed"), &passed) &&
            jv_num(jv_get(s->doc, "repetitions"), &reps))
            fprintf(f, ", passed %.0f of %.0f", passed, reps);
    }
    fprintf(f, ")%s%s\n", s->error ? ": " : "", s->error ? s->error : "");
}

static void print_names(FILE *f, const char *label, const char **names, size_t n)
{
    if (!n)
        return;
    fprintf(f, "%s:", label);
    for (size_t i = 0; i < n; i++)
        fprintf(f, " %s", names[i]);
    fputc('\n', f);
}

/* A failed expectation: a run's (its result) or a summary's (its tree),
 * told alike. */
static void print_expectation(FILE *f, const struct cmp_failed *x)
{
    const struct jv *e = x->rule;
    const char *fault = x->x ? x->x->fault : jv_str(jv_get(e, "fault"));
    const char *expect = x->x ? x->x->text : jv_str(jv_get(e, "expect"));
    const char *why = x->x ? x->x->why : jv_str(jv_get(e, "why"));
    double measured = 0, line = 0;
    bool has_measured = x->x ? x->x->known : jv_num(jv_get(e, "measured"), &measured);
    bool has_line = x->x ? x->x->line != 0 : jv_num(jv_get(e, "line"), &line);
    if (x->x) {
        measured = x->x->measured;
        line = x->x->line;
    }
    fprintf(f, "  %s%s%s%s", fault ? "[fault " : "", fault ? fault : "", fault ? "] " : "",
            expect ? expect : "?");
    if (has_measured)
        fprintf(f, ": measured %.6g", measured);
    else
        fprintf(f, ": nothing measured");
    if (has_line)
        fprintf(f, " (line %.0f)", line);
    else
        fprintf(f, " (integrity rule)");
    if (why && *why)
        fprintf(f, "; %s", why);
    fputc('\n', f);
}

static void print_breach(FILE *f, const struct cmp_breach *x)
{
    const struct cmp_row *row = x->row;
    const struct cmp_limit *l = x->limit;
    fprintf(f, "  --worse %s:%g  %s%s%s%s%s: %.6g -> %.6g, ", l->spec, l->ratio,
            row->fault ? row->fault : "", row->fault ? "." : "", row->metric->name,
            row->stat ? "." : "", row->stat ? row->stat : "", row->a.v, row->b.v);
    if (row->metric->better == CMP_LOWER_IS_BETTER && row->a.v == 0)
        fprintf(f, "was 0, may not grow\n");
    else if (row->metric->better == CMP_LOWER_IS_BETTER)
        fprintf(f, "ratio %.3f, at most %g allowed\n", row->j.ratio, l->ratio);
    else
        fprintf(f, "ratio %.3f, at least %.3f allowed\n", row->j.ratio, 1 / l->ratio);
}

/* The rows to name in the last line: those beyond a limit when there
 * are any, else those checked; at most NAMES of them, then how many more. */
#define NAMES 6
static void print_row_names(FILE *f, const struct cmp_result *r, bool beyond)
{
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const struct cmp_row *row = &r->rows[i];
        bool pick = false;
        for (size_t l = 0; l < r->nlimits && !pick; l++)
            pick = beyond ? cmp_row_beyond(r, row, &r->limits[l])
                          : cmp_row_matches(row, &r->limits[l]);
        if (!pick)
            continue;
        if (shown == NAMES) {
            more++;
            continue;
        }
        char name[600];
        row_name(row, name, sizeof name);
        fprintf(f, "%s%s", shown++ ? ", " : "", name);
    }
    if (more)
        fprintf(f, " and %zu more", more);
}

/* What counts for the exit status, under the table. */
static void print_counting(FILE *f, const struct cmp_result *r)
{
    size_t worse = 0;
    for (size_t i = 0; i < r->nrows; i++)
        worse += r->rows[i].j.worse;
    if (!r->nlimits)
        fprintf(f, "No row counts for the exit status (no --worse limit): \"worse\" above is "
                "information (%zu row%s).\n", worse, worse == 1 ? "" : "s");
    else
        fprintf(f, "Only the %zu row%s a --worse limit checks (last column) count%s for the exit "
                "status; \"worse\" elsewhere is information.\n", r->nchecked,
                r->nchecked == 1 ? "" : "s", r->nchecked == 1 ? "s" : "");
}

static void print_exit(FILE *f, const struct cmp_result *r)
{
    fprintf(f, "\nexit %d: ", r->exit);
    if (r->exit == 0 && !r->nlimits) {
        fprintf(f, "B's expectations hold; no --worse limit, so no row counted\n");
    } else if (r->exit == 0) {
        fprintf(f, "B's expectations hold, and no row a --worse limit checks is beyond it "
                "(%zu row%s: ", r->nchecked, r->nchecked == 1 ? "" : "s");
        print_row_names(f, r, false);
        fprintf(f, ")\n");
    } else {
        fprintf(f, "%zu expectation(s) of B failed, %zu value(s) worse than allowed%s%s",
                r->nfailed, r->nbreaches,
                r->b->error || strcmp(r->b->verdict, "error") == 0 ? ", B could not run" : "",
                cmp_side_cut_short(r->b) ? ", B was interrupted" : "");
        if (r->nbreaches) {
            fprintf(f, ": ");
            print_row_names(f, r, true);
        }
        fputc('\n', f);
    }
}

void cmp_print_text(FILE *f, const struct cmp_result *r)
{
    bool stats = r->a->summary || r->b->summary;
    print_side(f, "A", r->a);
    print_side(f, "B", r->b);
    print_names(f, "faults only in A", r->only_a, r->nonly_a);
    print_names(f, "faults only in B", r->only_b, r->nonly_b);
    fputc('\n', f);

    static const char *const head[COLS] = {"fault", "metric", "stat", "A", "B",
                                           "change", "ratio", "B is", "counts for exit"};
    static char cell[COLS][CELL]; /* 3 KiB: not on the stack */
    int width[COLS];
    for (int c = 0; c < COLS; c++)
        width[c] = (int)strlen(head[c]);
    size_t neither = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        if (!r->rows[i].a.known && !r->rows[i].b.known)
            continue;
        row_cells(&r->rows[i], cell);
        for (int c = 0; c < COLS; c++)
            if ((int)strlen(cell[c]) > width[c])
                width[c] = (int)strlen(cell[c]);
    }
    for (int c = 0; c < COLS; c++)
        snprintf(cell[c], CELL, "%s", head[c]);
    if (!r->nlimits)
        cell[COLS - 1][0] = '\0'; /* no limit: no column of them */
    print_cells(f, cell, width, stats);
    for (size_t i = 0; i < r->nrows; i++) {
        if (!r->rows[i].a.known && !r->rows[i].b.known) {
            neither++;
            continue;
        }
        row_cells(&r->rows[i], cell);
        limits_cell(r, &r->rows[i], cell[COLS - 1], CELL);
        print_cells(f, cell, width, stats);
    }
    if (neither)
        fprintf(f, "(%zu measured on neither side left out)\n", neither);
    print_counting(f, r);

    if (r->nfailed) {
        fprintf(f, "\nB's failed expectations (%zu):\n", r->nfailed);
        for (size_t i = 0; i < r->nfailed; i++)
            print_expectation(f, &r->failed[i]);
    }
    if (r->nbreaches) {
        fprintf(f, "\nworse than allowed (%zu):\n", r->nbreaches);
        for (size_t i = 0; i < r->nbreaches; i++)
            print_breach(f, &r->breaches[i]);
    }
    print_exit(f, r);
}

/* ---- JSON ---- */

static void json_number(struct json *j, double v)
{
    /* whole numbers (counts, iops) without a fraction, times to the µs
     * the reports give; infinity (a ratio over 0) is null */
    json_num(j, v, isfinite(v) && v == floor(v) && fabs(v) < 1e15 ? 0 : 6);
}

static void json_value(struct json *j, struct cmp_value v)
{
    if (v.known)
        json_number(j, v.v);
    else
        json_null(j);
}

static void json_str_or_null(struct json *j, const char *s)
{
    if (s)
        json_str(j, s);
    else
        json_null(j);
}

static void json_side(struct json *j, const char *key, const struct cmp_side *s)
{
    json_key(j, key);
    json_obj_begin(j);
    json_key(j, "dir");
    json_str(j, s->dir);
    json_key(j, "mode");
    json_str(j, s->mode);
    json_key(j, "verdict");
    json_str(j, s->verdict);
    json_key(j, "scenario");
    json_str(j, s->scenario);
    json_key(j, "error");
    json_str_or_null(j, s->error);
    json_obj_end(j);
}

static void json_names(struct json *j, const char *key, const char **names, size_t n)
{
    json_key(j, key);
    json_arr_begin(j);
    for (size_t i = 0; i < n; i++)
        json_str(j, names[i]);
    json_arr_end(j);
}

static void json_row_id(struct json *j, const struct cmp_row *row)
{
    json_key(j, "fault");
    json_str_or_null(j, row->fault);
    json_key(j, "metric");
    json_str(j, row->metric->name);
    json_key(j, "stat");
    json_str_or_null(j, row->stat);
}

/* "checked": whether a limit checks the row (it counts for the exit
 * status), "checked_by": those limits as given (METRIC:RATIO), "beyond":
 * whether B is worse than one of them allows. */
static void json_row_limits(struct json *j, const struct cmp_result *r,
                            const struct cmp_row *row)
{
    bool beyond = false, checked = false;
    json_key(j, "checked_by");
    json_arr_begin(j);
    for (size_t l = 0; l < r->nlimits; l++) {
        if (!cmp_row_matches(row, &r->limits[l]))
            continue;
        char spec[300];
        snprintf(spec, sizeof spec, "%s:%g", r->limits[l].spec, r->limits[l].ratio);
        json_str(j, spec);
        checked = true;
        beyond |= cmp_row_beyond(r, row, &r->limits[l]);
    }
    json_arr_end(j);
    json_key(j, "checked");
    json_bool(j, checked);
    json_key(j, "beyond");
    json_bool(j, beyond);
}

static void json_row(struct json *j, const struct cmp_result *r, const struct cmp_row *row)
{
    json_obj_begin(j);
    json_row_id(j, row);
    json_key(j, "better");
    json_str(j, row->metric->better == CMP_LOWER_IS_BETTER ? "lower" : "higher");
    json_key(j, "a");
    json_value(j, row->a);
    json_key(j, "b");
    json_value(j, row->b);
    json_key(j, "change");
    if (row->j.measured)
        json_number(j, row->j.change);
    else
        json_null(j);
    json_key(j, "ratio");
    if (row->j.measured)
        json_number(j, row->j.ratio);
    else
        json_null(j);
    json_key(j, "worse");
    json_bool(j, row->j.worse);
    json_row_limits(j, r, row);
    json_obj_end(j);
}

static void json_warnings(struct json *j, const struct cmp_result *r)
{
    json_key(j, "warnings");
    json_arr_begin(j);
    for (size_t i = 0; i < r->nwarnings; i++) {
        json_obj_begin(j);
        json_key(j, "kind");
        json_str(j, r->warnings[i].kind);
        json_key(j, "text");
        json_str(j, r->warnings[i].text);
        json_obj_end(j);
    }
    json_arr_end(j);
}

/* A number of a run's expectation as jv_emit wrote back what
 * report_json.c wrote: a count (no decimals) as it is; seconds (six
 * decimals) whole without them, else with six. */
static void json_expect_num(struct json *j, double v, bool seconds)
{
    json_num(j, v, seconds && !(isfinite(v) && v == floor(v) && fabs(v) < 1e15) ? 6 : 0);
}

/* A failed expectation of a run, from its result, as the run's report.json
 * has it under "expectations" (report_json.c): --json has always carried
 * them as written, and the result holds every field of them. */
static void json_expectation(struct json *j, const struct result_expect *x)
{
    json_obj_begin(j);
    json_key(j, "expect");
    json_str_or_null(j, x->text);
    json_key(j, "metric");
    json_str_or_null(j, x->metric);
    json_key(j, "fault");
    json_str_or_null(j, x->fault);
    json_key(j, "op");
    json_str_or_null(j, x->op);
    json_key(j, "value");
    json_expect_num(j, x->value, x->seconds);
    json_key(j, "unit");
    json_str(j, x->seconds ? "s" : "count");
    json_key(j, "measured");
    if (x->known)
        json_expect_num(j, x->measured, x->seconds);
    else
        json_null(j);
    json_key(j, "pass");
    json_bool(j, x->pass);
    json_key(j, "line");
    if (x->line)
        json_u64(j, (uint64_t)x->line);
    else
        json_null(j);
    json_key(j, "implicit");
    json_bool(j, x->line == 0);
    if (!x->known) {
        json_key(j, "why");
        json_str_or_null(j, x->why);
    }
    json_obj_end(j);
}

void cmp_print_json(FILE *f, const struct cmp_result *r)
{
    struct json j;
    json_init(&j, f, true);
    json_obj_begin(&j);
    json_side(&j, "a", r->a);
    json_side(&j, "b", r->b);
    json_names(&j, "faults_only_a", r->only_a, r->nonly_a);
    json_names(&j, "faults_only_b", r->only_b, r->nonly_b);
    json_warnings(&j, r);
    json_key(&j, "checked_rows");
    json_u64(&j, r->nchecked);
    json_key(&j, "metrics");
    json_arr_begin(&j);
    for (size_t i = 0; i < r->nrows; i++)
        json_row(&j, r, &r->rows[i]);
    json_arr_end(&j);
    json_key(&j, "failed_expectations_b");
    json_arr_begin(&j);
    for (size_t i = 0; i < r->nfailed; i++)
        if (r->failed[i].x)
            json_expectation(&j, r->failed[i].x);
        else
            jv_emit(&j, r->failed[i].rule);
    json_arr_end(&j);
    json_key(&j, "worse_than_allowed");
    json_arr_begin(&j);
    for (size_t i = 0; i < r->nbreaches; i++) {
        const struct cmp_breach *x = &r->breaches[i];
        json_obj_begin(&j);
        json_key(&j, "worse");
        json_str(&j, x->limit->spec);
        json_key(&j, "allowed_ratio");
        json_number(&j, x->limit->ratio);
        json_row_id(&j, x->row);
        json_key(&j, "a");
        json_number(&j, x->row->a.v);
        json_key(&j, "b");
        json_number(&j, x->row->b.v);
        json_key(&j, "ratio");
        json_number(&j, x->row->j.ratio);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    json_key(&j, "exit");
    json_i64(&j, r->exit);
    json_obj_end(&j);
    fputc('\n', f);
}
