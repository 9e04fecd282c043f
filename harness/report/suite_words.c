/* suite_words — the words and numbers that report.txt, junit.xml and
 * report.html of a suite share (see suite.h), so that the three say a
 * scenario's outcome, its faults and its numbers the same way. */
#include "suite.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Appends to out[0..n) at *used, never past its end. */
static void add(char *out, size_t n, size_t *used, const char *form, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *out, size_t n, size_t *used, const char *form, ...)
{
    if (*used >= n)
        return;
    va_list ap;
    va_start(ap, form);
    int k = vsnprintf(out + *used, n - *used, form, ap);
    va_end(ap);
    if (k > 0)
        *used += (size_t)k < n - *used ? (size_t)k : n - *used - 1;
}

/* The kinds that have a place of their own, in the order of the outage
 * tables: block, then the two filesystems side by side. */
static const char *const known_kinds[] = {"iscsi", "gluster", "ceph"};
#define NKNOWN (sizeof known_kinds / sizeof known_kinds[0])

bool suite_of_kind(const struct suite_scenario *x, const char *kind)
{
    return kind ? x->lab && strcmp(x->lab, kind) == 0 : !x->lab;
}

static bool listed(const char **kinds, size_t n, const char *kind)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kinds[i], kind) == 0)
            return true;
    return false;
}

size_t suite_kinds(const struct suite *s, const char **kinds, size_t max)
{
    size_t n = 0;
    bool none = false;
    for (size_t k = 0; k < NKNOWN && n < max; k++)
        for (size_t i = 0; i < s->n; i++)
            if (suite_of_kind(&s->sc[i], known_kinds[k])) {
                kinds[n++] = known_kinds[k];
                break;
            }
    size_t first_other = n;
    for (size_t i = 0; i < s->n && n < max; i++) {
        const char *lab = s->sc[i].lab;
        none |= !lab;
        if (lab && !listed(kinds, n, lab))
            kinds[n++] = lab;
    }
    /* the others by name, so that the same kinds come in the same order */
    for (size_t i = first_other + 1; i < n; i++)
        for (size_t j = i; j > first_other && strcmp(kinds[j - 1], kinds[j]) > 0; j--) {
            const char *t = kinds[j];
            kinds[j] = kinds[j - 1];
            kinds[j - 1] = t;
        }
    if (none && n < max)
        kinds[n++] = NULL;
    return n;
}

const char *suite_kind_label(const char *kind)
{
    return kind ? kind : "cluster/none";
}

const char *suite_outcome_name(enum suite_outcome o)
{
    static const char *const names[] = {"met", "not-met", "flaky", "error"};
    return names[o];
}

const char *suite_met_word(const struct suite_scenario *x)
{
    switch (x->outcome) {
    case SUITE_MET:
        return strcmp(x->expect_verdict, "fail") == 0 ? "fail as expected" : "met";
    case SUITE_NOT_MET:
        return "NOT MET";
    case SUITE_FLAKY:
        return "flaky";
    default:
        return "error";
    }
}

void suite_faults_text(const struct suite_scenario *x, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    if (!x->nfaults)
        add(out, n, &used, "no fault");
    for (size_t i = 0; i < x->nfaults; i++)
        add(out, n, &used, "%s%s%s%s", i ? ", " : "", x->faults[i].action,
            x->faults[i].host[0] ? " " : "", x->faults[i].host);
}

void suite_fmt_secs(struct suite_num v, char *out, size_t n)
{
    if (v.known)
        snprintf(out, n, "%.3f s", v.v);
    else
        snprintf(out, n, "unknown");
}

void suite_fmt_count(struct suite_num v, char *out, size_t n)
{
    if (!v.known)
        snprintf(out, n, "unknown");
    else if (v.v == floor(v.v) && fabs(v.v) < 1e15)
        snprintf(out, n, "%.0f", v.v);
    else
        snprintf(out, n, "%g", v.v);
}

void suite_fmt_duration(struct suite_num v, char *out, size_t n)
{
    if (!v.known) {
        snprintf(out, n, "unknown");
        return;
    }
    double s = v.v < 0 ? 0 : v.v;
    if (!isfinite(s) || s >= 1e12) { /* no suite lasts that long: as written */
        snprintf(out, n, "%g s", s);
        return;
    }
    long whole = (long)(s + 0.5);
    if (s < 60)
        snprintf(out, n, "%.1f s", s);
    else if (s < 3600)
        snprintf(out, n, "%ld min %02ld s", whole / 60, whole % 60);
    else
        snprintf(out, n, "%ld h %02ld min", whole / 3600, whole / 60 % 60);
}

void suite_list_text(const struct suite_list *l, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    if (!l->n)
        add(out, n, &used, "none");
    for (size_t i = 0; i < l->n; i++)
        add(out, n, &used, "%s%s", i ? ", " : "", l->s[i]);
}

/* " heal 12.000 s": where measured, or where the kind heals and it was not. */
static void add_extra(char *out, size_t n, size_t *used, const char *what, struct suite_num v,
                      bool expected)
{
    if (!v.known && !expected)
        return;
    char t[48];
    suite_fmt_secs(v, t, sizeof t);
    add(out, n, used, ", %s %s", what, t);
}

void suite_recovery_text(const struct suite_scenario *x, char *out, size_t n)
{
    size_t used = 0;
    char t[48];
    out[0] = '\0';
    suite_fmt_secs(x->recovery, t, sizeof t);
    add(out, n, &used, "%s", t);
    add_extra(out, n, &used, "heal", x->heal, x->lab && strcmp(x->lab, "gluster") == 0);
    add_extra(out, n, &used, "recover", x->recover, x->lab && strcmp(x->lab, "ceph") == 0);
}

void suite_attempt_text(const struct suite_attempt *a, const char *lab, char *out, size_t n)
{
    size_t used = 0;
    char failing[600], t[4][48];
    out[0] = '\0';
    suite_list_text(&a->failing, failing, sizeof failing);
    if (a->verdict)
        add(out, n, &used, "%s", a->verdict);
    else
        add(out, n, &used, "no report");
    if (a->exit.known)
        add(out, n, &used, " (exit %.0f)", a->exit.v);
    add(out, n, &used, ", failing %s%s", failing, a->timing_only ? " (timing only)" : "");
    suite_fmt_secs(a->stall, t[0], sizeof t[0]);
    suite_fmt_secs(a->recovery, t[1], sizeof t[1]);
    add(out, n, &used, "; stall %s, recovery %s", t[0], t[1]);
    add_extra(out, n, &used, "heal", a->heal, lab && strcmp(lab, "gluster") == 0);
    add_extra(out, n, &used, "recover", a->recover, lab && strcmp(lab, "ceph") == 0);
    suite_fmt_count(a->findings, t[2], sizeof t[2]);
    suite_fmt_duration(a->wall, t[3], sizeof t[3]);
    add(out, n, &used, ", findings %s, wall %s", t[2], t[3]);
}

void suite_expected_text(const struct suite_scenario *x, char *out, size_t n)
{
    size_t used = 0;
    char list[600];
    out[0] = '\0';
    add(out, n, &used, "expected: %s", x->expect_verdict);
    if (x->expect_failing.n) {
        suite_list_text(&x->expect_failing, list, sizeof list);
        add(out, n, &used, ", failing %s", list);
    }
    add(out, n, &used, "; got: %s", x->verdict ? x->verdict : "no report");
    if (x->exit.known)
        add(out, n, &used, " (exit %.0f)", x->exit.v);
    if (x->failing.n) {
        suite_list_text(&x->failing, list, sizeof list);
        add(out, n, &used, ", failing %s", list);
    }
}
