/* suite_read — DIR/suite.json into a struct suite (see suite.h).
 *
 * What the reports sort and count by must be there and right: "mode" is
 * "suite", "verdict" one of its four words, "scenarios" an array, and each
 * scenario has a "name" and an "outcome" of the four.  Every other field
 * may be missing or null (it then reads as unknown, or empty), but one of
 * the wrong type is refused, named by its JSON path: a writer that puts a
 * string where a number goes has a bug, and a report that silently said
 * "unknown" would hide it. */
#include "suite.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jread.h"

/* The reading of one document: where it is, and its first mistake. */
struct reader {
    const char *file;
    char *err;
    size_t errlen;
    bool bad;
};

static const char *type_name(const struct jv *v)
{
    static const char *const names[] = {"null", "a boolean", "a number", "a string",
                                        "an array", "an object"};
    return names[v->type];
}

/* Notes the first mistake: "FILE: PATH.KEY: WHAT". */
static void wrong(struct reader *rd, const char *path, const char *key, const char *what,
                  const struct jv *v)
{
    if (rd->bad)
        return;
    rd->bad = true;
    char where[400];
    snprintf(where, sizeof where, "%s%s%s: ", path, *path && *key ? "." : "", key);
    snprintf(rd->err, rd->errlen, "%s: %s%s%s%s", rd->file, *path || *key ? where : "", what,
             v ? ", not " : "", v ? type_name(v) : "");
}

/* A string member; NULL when missing or null, a mistake when of another
 * type. */
static const char *text_or_null(struct reader *rd, const struct jv *obj, const char *path,
                                const char *key)
{
    const struct jv *v = jv_get(obj, key);
    if (!v || v->type == JV_NULL)
        return NULL;
    if (v->type != JV_STR)
        wrong(rd, path, key, "must be a string or null", v);
    return jv_str(v);
}

/* The same, "" for NULL: for the fields every scenario has. */
static const char *text(struct reader *rd, const struct jv *obj, const char *path,
                        const char *key)
{
    const char *s = text_or_null(rd, obj, path, key);
    return s ? s : "";
}

/* A string member that must be there and be one of words[] (NULL-ended);
 * words may be NULL: any string. */
static const char *word(struct reader *rd, const struct jv *obj, const char *path,
                        const char *key, const char *const *words)
{
    const struct jv *v = jv_get(obj, key);
    if (!v || v->type != JV_STR) {
        wrong(rd, path, key, v ? "must be a string" : "is missing", v);
        return NULL;
    }
    for (size_t i = 0; words && words[i]; i++)
        if (strcmp(v->str, words[i]) == 0)
            return v->str;
    if (words) {
        char what[200];
        size_t used = (size_t)snprintf(what, sizeof what, "\"%.40s\" is none of", v->str);
        for (size_t i = 0; words[i] && used < sizeof what; i++)
            used += (size_t)snprintf(what + used, sizeof what - used, "%s %s", i ? "," : "",
                                     words[i]);
        wrong(rd, path, key, what, NULL);
        return NULL;
    }
    return v->str;
}

static struct suite_num number(struct reader *rd, const struct jv *obj, const char *path,
                               const char *key)
{
    struct suite_num n = {false, 0};
    const struct jv *v = jv_get(obj, key);
    if (v && v->type != JV_NULL && !(n.known = jv_num(v, &n.v)))
        wrong(rd, path, key, "must be a number or null", v);
    return n;
}

static bool boolean(struct reader *rd, const struct jv *obj, const char *path, const char *key)
{
    bool b = false;
    const struct jv *v = jv_get(obj, key);
    if (v && v->type != JV_NULL && !jv_bool(v, &b))
        wrong(rd, path, key, "must be true or false", v);
    return b;
}

/* An array of strings; empty when missing or null. */
static void strings(struct reader *rd, const struct jv *obj, const char *path, const char *key,
                    struct suite_list *out)
{
    const struct jv *v = jv_get(obj, key);
    out->s = NULL;
    out->n = 0;
    if (!v || v->type == JV_NULL)
        return;
    if (v->type != JV_ARR) {
        wrong(rd, path, key, "must be an array of strings", v);
        return;
    }
    if (!v->n)
        return;
    out->s = calloc(v->n, sizeof *out->s);
    if (!out->s) {
        wrong(rd, path, key, "out of memory for its items", NULL);
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        if (v->item[i].type != JV_STR) {
            char where[64];
            snprintf(where, sizeof where, "%s[%zu]", key, i);
            wrong(rd, path, where, "must be a string", &v->item[i]);
            return;
        }
        out->s[out->n++] = v->item[i].str;
    }
}

/* An array member: its items (NULL and 0 when missing or null). */
static const struct jv *array(struct reader *rd, const struct jv *obj, const char *path,
                              const char *key)
{
    const struct jv *v = jv_get(obj, key);
    if (!v || v->type == JV_NULL)
        return NULL;
    if (v->type != JV_ARR) {
        wrong(rd, path, key, "must be an array", v);
        return NULL;
    }
    return v;
}

static void *items(struct reader *rd, const char *path, size_t n, size_t size)
{
    if (!n)
        return NULL;
    void *p = calloc(n, size);
    if (!p)
        wrong(rd, path, "", "out of memory", NULL);
    return p;
}

static const char *const verdicts[] = {"pass", "fail", "interrupted", "error", NULL};

static void read_attempt(struct reader *rd, const struct jv *v, const char *path,
                         struct suite_attempt *a)
{
    if (v->type != JV_OBJ) {
        wrong(rd, path, "", "must be an object", v);
        return;
    }
    struct suite_num t = number(rd, v, path, "try");
    a->try_no = t.known && t.v >= 1 && t.v < 1e6 ? (unsigned)t.v : 0;
    a->dir = text(rd, v, path, "dir");
    a->verdict = text_or_null(rd, v, path, "verdict");
    a->exit = number(rd, v, path, "exit");
    strings(rd, v, path, "failing", &a->failing);
    a->timing_only = boolean(rd, v, path, "timing_only");
    a->stall = number(rd, v, path, "stall_s");
    a->recovery = number(rd, v, path, "recovery_s");
    a->heal = number(rd, v, path, "heal_s");
    a->recover = number(rd, v, path, "recover_s");
    a->findings = number(rd, v, path, "findings");
    a->wall = number(rd, v, path, "wall_s");
}

static void read_faults(struct reader *rd, const struct jv *v, const char *path,
                        struct suite_scenario *x)
{
    const struct jv *arr = array(rd, v, path, "faults");
    char where[300];
    snprintf(where, sizeof where, "%s.faults", path);
    x->faults = items(rd, where, jv_len(arr), sizeof *x->faults);
    for (size_t i = 0; x->faults && i < arr->n; i++) {
        const struct jv *f = &arr->item[i];
        snprintf(where, sizeof where, "%s.faults[%zu]", path, i);
        if (f->type != JV_OBJ) {
            wrong(rd, where, "", "must be an object", f);
            return;
        }
        x->faults[i].name = text(rd, f, where, "name");
        x->faults[i].action = text(rd, f, where, "action");
        x->faults[i].host = text(rd, f, where, "host");
        x->nfaults++;
    }
}

static void read_last_attempt(struct reader *rd, const struct jv *v, const char *path,
                              struct suite_scenario *x)
{
    x->verdict = text_or_null(rd, v, path, "verdict");
    if (x->verdict && !word(rd, v, path, "verdict", verdicts))
        return;
    x->exit = number(rd, v, path, "exit");
    strings(rd, v, path, "failing", &x->failing);
    x->stall = number(rd, v, path, "stall_s");
    x->recovery = number(rd, v, path, "recovery_s");
    x->heal = number(rd, v, path, "heal_s");
    x->recover = number(rd, v, path, "recover_s");
    x->findings = number(rd, v, path, "findings");
    x->reverted = number(rd, v, path, "reverted");
    x->wall = number(rd, v, path, "wall_s");
    x->report_html = text_or_null(rd, v, path, "report_html");
}

static void read_scenario(struct reader *rd, const struct jv *v, const char *path,
                          struct suite_scenario *x)
{
    static const char *const outcomes[] = {"met", "not-met", "flaky", "error", NULL};
    if (v->type != JV_OBJ) {
        wrong(rd, path, "", "must be an object", v);
        return;
    }
    x->name = word(rd, v, path, "name", NULL);
    const char *o = word(rd, v, path, "outcome", outcomes);
    if (!x->name || !o)
        return;
    for (int k = 0; outcomes[k]; k++)
        if (strcmp(o, outcomes[k]) == 0)
            x->outcome = (enum suite_outcome)k;
    x->file = text(rd, v, path, "file");
    x->description = text_or_null(rd, v, path, "description");
    x->dir = text(rd, v, path, "dir");
    x->lab = text_or_null(rd, v, path, "lab");
    x->lab_prefix = text_or_null(rd, v, path, "lab_prefix");
    x->lab_settings = text_or_null(rd, v, path, "lab_settings");
    x->lab_use = text_or_null(rd, v, path, "lab_use");
    if (!x->lab_use)
        x->lab_use = x->lab ? "unknown" : "none";
    x->lab_health = text_or_null(rd, v, path, "lab_health");
    read_faults(rd, v, path, x);
    x->expect_verdict = text_or_null(rd, v, path, "expect_verdict");
    if (!x->expect_verdict)
        x->expect_verdict = "pass"; /* the default of [scenario] expect_verdict */
    strings(rd, v, path, "expect_failing", &x->expect_failing);
    /* met as written; a record without it goes by the outcome, which says
     * the same (flaky counts as met) */
    x->met = jv_get(v, "met") ? boolean(rd, v, path, "met")
                              : x->outcome == SUITE_MET || x->outcome == SUITE_FLAKY;
    x->why = text_or_null(rd, v, path, "why");
    read_last_attempt(rd, v, path, x);
    const struct jv *arr = array(rd, v, path, "attempts");
    x->attempts = items(rd, path, jv_len(arr), sizeof *x->attempts);
    for (size_t i = 0; x->attempts && i < arr->n && !rd->bad; i++) {
        char where[300];
        snprintf(where, sizeof where, "%s.attempts[%zu]", path, i);
        read_attempt(rd, &arr->item[i], where, &x->attempts[i]);
        x->nattempts++;
    }
}

static void read_totals(struct reader *rd, const struct jv *doc, struct suite *s)
{
    s->faultline = text(rd, doc, "", "faultline");
    s->started_at = text(rd, doc, "", "started_at");
    s->interrupted_by = text_or_null(rd, doc, "", "interrupted_by");
    s->wall = number(rd, doc, "", "wall_s");
    s->retry_timing = number(rd, doc, "", "retry_timing");
    s->total = number(rd, doc, "", "total");
    s->ran = number(rd, doc, "", "ran");
    s->met = number(rd, doc, "", "met");
    s->not_met = number(rd, doc, "", "not_met");
    s->flaky = number(rd, doc, "", "flaky");
    s->errors = number(rd, doc, "", "errors");
    s->lab_ups = number(rd, doc, "", "lab_ups");
    s->lab_shared = number(rd, doc, "", "lab_shared");
    s->lab_up_s = number(rd, doc, "", "lab_up_s");
    s->lab_down_s = number(rd, doc, "", "lab_down_s");
}

int suite_from_json(struct jv *doc, const char *file, struct suite *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->doc = doc;
    struct reader rd = {file, err, errlen, false};
    if (doc->type != JV_OBJ) {
        snprintf(err, errlen, "%s: not a suite's report: an object was expected, not %s", file,
                 type_name(doc));
        return -1;
    }
    const char *mode = jv_str(jv_get(doc, "mode"));
    if (!mode || strcmp(mode, "suite") != 0) { /* a run's report.json, a repeat's summary */
        snprintf(err, errlen, "%s: not a suite's report: its mode is %s%.40s%s, not \"suite\"",
                 file, mode ? "\"" : "", mode ? mode : "missing", mode ? "\"" : "");
        return -1;
    }
    s->verdict = word(&rd, doc, "", "verdict", verdicts);
    read_totals(&rd, doc, s);
    const struct jv *arr = jv_get(doc, "scenarios");
    if (!rd.bad && (!arr || arr->type != JV_ARR))
        wrong(&rd, "", "scenarios", arr ? "must be an array" : "is missing", arr);
    if (rd.bad)
        return -1;
    s->sc = items(&rd, "scenarios", arr->n, sizeof *s->sc);
    for (size_t i = 0; s->sc && i < arr->n && !rd.bad; i++) {
        char path[64];
        snprintf(path, sizeof path, "scenarios[%zu]", i);
        s->n++;
        read_scenario(&rd, &arr->item[i], path, &s->sc[i]);
    }
    return rd.bad ? -1 : 0;
}

int suite_read(const char *dir, struct suite *s, char *err, size_t errlen)
{
    char path[PATH_MAX];
    memset(s, 0, sizeof *s);
    if ((size_t)snprintf(path, sizeof path, "%s/suite.json", dir) >= sizeof path) {
        snprintf(err, errlen, "%.200s...: the path of suite.json is too long", dir);
        return -1;
    }
    struct jv *doc = NULL;
    if (jv_load(path, &doc, err, errlen) != 0)
        return -1;
    return suite_from_json(doc, path, s, err, errlen);
}

void suite_free(struct suite *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct suite_scenario *x = &s->sc[i];
        free(x->faults);
        free(x->expect_failing.s);
        free(x->failing.s);
        for (size_t k = 0; k < x->nattempts; k++)
            free(x->attempts[k].failing.s);
        free(x->attempts);
    }
    free(s->sc);
    jv_free(s->doc);
    memset(s, 0, sizeof *s);
}
