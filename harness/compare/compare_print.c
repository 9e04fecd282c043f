/*
 * compare_print — a comparison written out (see compare.h): an aligned
 * table for people, or one JSON object for scripts.  The table leaves out
 * rows measured on neither side (it counts them); the JSON has every row.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/json.h"

/* ---- the table ---- */

enum { COLS = 8, CELL = 64 };

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
        bool number = c >= 3 && c <= 6;
        used += (size_t)snprintf(line + used, sizeof line - used, number ? "%*s  " : "%-*s  ",
                                 c == COLS - 1 ? 0 : width[c], cell[c]);
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

static void print_expectation(FILE *f, const struct jv *e)
{
    const char *fault = jv_str(jv_get(e, "fault"));
    const char *expect = jv_str(jv_get(e, "expect"));
    const char *why = jv_str(jv_get(e, "why"));
    double measured, line;
    fprintf(f, "  %s%s%s%s", fault ? "[fault " : "", fault ? fault : "", fault ? "] " : "",
            expect ? expect : "?");
    if (jv_num(jv_get(e, "measured"), &measured))
        fprintf(f, ": measured %.6g", measured);
    else
        fprintf(f, ": nothing measured");
    if (jv_num(jv_get(e, "line"), &line))
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

void cmp_print_text(FILE *f, const struct cmp_result *r)
{
    bool stats = r->a->summary || r->b->summary;
    print_side(f, "A", r->a);
    print_side(f, "B", r->b);
    print_names(f, "faults only in A", r->only_a, r->nonly_a);
    print_names(f, "faults only in B", r->only_b, r->nonly_b);
    fputc('\n', f);

    static const char *const head[COLS] = {"fault", "metric", "stat",  "A",
                                           "B",     "change", "ratio", ""};
    char cell[COLS][CELL];
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
    print_cells(f, cell, width, stats);
    for (size_t i = 0; i < r->nrows; i++) {
        if (!r->rows[i].a.known && !r->rows[i].b.known) {
            neither++;
            continue;
        }
        row_cells(&r->rows[i], cell);
        print_cells(f, cell, width, stats);
    }
    if (neither)
        fprintf(f, "(%zu measured on neither side left out)\n", neither);

    if (r->nfailed) {
        fprintf(f, "\nB's failed expectations (%zu):\n", r->nfailed);
        for (size_t i = 0; i < r->nfailed; i++)
            print_expectation(f, r->failed[i]);
    }
    if (r->nbreaches) {
        fprintf(f, "\nworse than allowed (%zu):\n", r->nbreaches);
        for (size_t i = 0; i < r->nbreaches; i++)
            print_breach(f, &r->breaches[i]);
    }
    fprintf(f, "\nexit %d: ", r->exit);
    if (r->exit == 0)
        fprintf(f, "B's expectations hold, nothing worse than --worse allows\n");
    else
        fprintf(f, "%zu expectation(s) of B failed, %zu value(s) worse than allowed%s\n",
                r->nfailed, r->nbreaches, r->b->error || strcmp(r->b->verdict, "error") == 0
                                              ? ", B could not run"
                                              : "");
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

static void json_row(struct json *j, const struct cmp_row *row)
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
    json_key(&j, "metrics");
    json_arr_begin(&j);
    for (size_t i = 0; i < r->nrows; i++)
        json_row(&j, &r->rows[i]);
    json_arr_end(&j);
    json_key(&j, "failed_expectations_b");
    json_arr_begin(&j);
    for (size_t i = 0; i < r->nfailed; i++)
        jv_emit(&j, r->failed[i]);
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
