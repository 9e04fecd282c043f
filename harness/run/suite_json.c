/* suite_json — DIR/suite.json: the suite as it stands, the contract with
 * its reports (harness/report/suite_report*.c read it, and nothing else of
 * the suite).  Written whole into a temporary file and renamed into place,
 * as a run's reports are, after every scenario: a suite killed on the way
 * leaves one that reads.  Numbers that were not measured are null.  See
 * suite.h. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/json.h"
#include "../live/buildinfo.h"
#include "../report/report.h"
#include "../report/report_files.h"
#include "suite_parts.h"

const char *suite_verdict(const struct suite *s, int signal)
{
    if (signal)
        return "interrupted";
    unsigned errors = 0;
    bool all_met = s->ran == s->total;
    for (unsigned i = 0; i < s->ran; i++) {
        errors += strcmp(s->e[i].outcome, "error") == 0;
        all_met &= s->e[i].met;
    }
    if (!s->ran || errors == s->ran)
        return "error"; /* nothing could run */
    return all_met ? "pass" : "fail";
}

static void str_or_null(struct json *j, const char *key, const char *v)
{
    json_key(j, key);
    if (v && v[0])
        json_str(j, v);
    else
        json_null(j);
}

static void num_or_null(struct json *j, const char *key, struct suite_num n)
{
    json_key(j, key);
    if (n.known)
        json_num(j, n.v, 6);
    else
        json_null(j);
}

static void strings(struct json *j, const char *key, char **v, size_t n)
{
    json_key(j, key);
    json_arr_begin(j);
    for (size_t i = 0; i < n; i++)
        json_str(j, v[i]);
    json_arr_end(j);
}

/* What an attempt measured, as its own object and as the last one's in
 * the scenario's. */
static void measured(struct json *j, const struct suite_attempt *a)
{
    num_or_null(j, "stall_s", a ? a->stall : (struct suite_num){0});
    num_or_null(j, "recovery_s", a ? a->recovery : (struct suite_num){0});
    num_or_null(j, "heal_s", a ? a->heal : (struct suite_num){0});
    num_or_null(j, "recover_s", a ? a->recover : (struct suite_num){0});
    json_key(j, "findings");
    if (a && a->verdict[0])
        json_u64(j, a->findings);
    else
        json_null(j);
}

static void attempt(struct json *j, const struct suite_attempt *a)
{
    json_obj_begin(j);
    json_key(j, "try");
    json_u64(j, a->k);
    json_key(j, "dir");
    json_str(j, a->dir);
    str_or_null(j, "verdict", a->verdict);
    json_key(j, "exit");
    json_i64(j, a->exit);
    strings(j, "failing", a->failing, a->nfailing);
    json_key(j, "timing_only");
    json_bool(j, a->timing_only);
    measured(j, a);
    json_key(j, "wall_s");
    json_num(j, a->wall_s, 3);
    json_obj_end(j);
}

static void lab_part(struct json *j, const struct suite_entry *e)
{
    str_or_null(j, "lab", e->lab);
    str_or_null(j, "lab_prefix", e->lab_prefix);
    str_or_null(j, "lab_settings", e->lab_settings);
    json_key(j, "lab_use");
    json_str(j, e->lab_use);
    str_or_null(j, "lab_health", e->lab_health);
    json_key(j, "faults");
    json_arr_begin(j);
    for (unsigned i = 0; i < e->nfaults; i++) {
        json_obj_begin(j);
        json_key(j, "name");
        json_str(j, e->faults[i].name);
        json_key(j, "action");
        json_str(j, e->faults[i].action);
        json_key(j, "host");
        json_str(j, e->faults[i].host);
        json_obj_end(j);
    }
    json_arr_end(j);
}

static void entry(struct json *j, const struct suite *s, const struct suite_entry *e)
{
    const struct suite_attempt *last = e->ntries ? &e->tries[e->ntries - 1] : NULL;
    json_obj_begin(j);
    json_key(j, "name");
    json_str(j, e->name);
    json_key(j, "file");
    json_str(j, e->file);
    str_or_null(j, "description", e->description);
    json_key(j, "dir");
    json_str(j, e->dir);
    lab_part(j, e);
    json_key(j, "expect_verdict");
    json_str(j, e->expect_fail ? "fail" : "pass");
    json_key(j, "expect_failing");
    json_arr_begin(j);
    for (unsigned i = 0; i < e->nfailing; i++) {
        char rule[100];
        snprintf(rule, sizeof rule, "%s%s", e->failing[i].rule, e->failing[i].optional ? "?" : "");
        json_str(j, rule);
    }
    json_arr_end(j);
    json_key(j, "outcome");
    json_str(j, e->outcome);
    json_key(j, "met");
    json_bool(j, e->met);
    str_or_null(j, "why", e->why);
    str_or_null(j, "verdict", last ? last->verdict : NULL);
    json_key(j, "exit");
    if (last)
        json_i64(j, last->exit);
    else
        json_null(j);
    strings(j, "failing", last ? last->failing : NULL, last ? last->nfailing : 0);
    measured(j, last);
    json_key(j, "reverted");
    if (last && last->verdict[0])
        json_u64(j, last->reverted);
    else
        json_null(j);
    json_key(j, "wall_s");
    json_num(j, e->wall_s, 3);
    /* the last attempt's page, when it wrote one */
    char html[PATH_MAX + 16], path[2 * PATH_MAX + 32];
    snprintf(html, sizeof html, "%s/report.html", last ? last->dir : "");
    snprintf(path, sizeof path, "%s/%s", s->dir, html);
    str_or_null(j, "report_html", last && access(path, F_OK) == 0 ? html : NULL);
    json_key(j, "attempts");
    json_arr_begin(j);
    for (unsigned i = 0; i < e->ntries; i++)
        attempt(j, &e->tries[i]);
    json_arr_end(j);
    json_obj_end(j);
}

/* The counts of the suite: total, ran, met (flaky ones too), ... */
static void counts(struct json *j, const struct suite *s)
{
    unsigned met = 0, not_met = 0, flaky = 0, errors = 0;
    for (unsigned i = 0; i < s->ran; i++) {
        const char *o = s->e[i].outcome;
        met += s->e[i].met;
        flaky += strcmp(o, "flaky") == 0;
        errors += strcmp(o, "error") == 0;
        not_met += strcmp(o, "not-met") == 0;
    }
    const char *names[] = {"total", "ran", "met", "not_met", "flaky", "errors", "lab_ups",
                           "lab_shared"};
    const unsigned vals[] = {s->total, s->ran, met, not_met, flaky, errors, s->lab.ups,
                             s->lab.shared};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        json_key(j, names[i]);
        json_u64(j, vals[i]);
    }
    json_key(j, "lab_up_s");
    json_num(j, s->lab.up_s, 3);
    json_key(j, "lab_down_s");
    json_num(j, s->lab.down_s, 3);
}

int suite_json_write(const struct suite *s, int signal, char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(s->dir, "suite.json", tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    struct json j;
    json_init(&j, f, true);
    json_obj_begin(&j);
    json_key(&j, "mode");
    json_str(&j, "suite");
    json_key(&j, "faultline");
    json_str(&j, build_version());
    json_key(&j, "started_at");
    json_str(&j, s->started_at);
    json_key(&j, "wall_s");
    json_num(&j, (double)(mono_ns() - s->t0) / 1e9, 3);
    json_key(&j, "verdict");
    json_str(&j, suite_verdict(s, signal));
    str_or_null(&j, "interrupted_by", signal ? report_signal_name(signal) : NULL);
    json_key(&j, "retry_timing");
    json_u64(&j, s->o->retry_timing);
    counts(&j, s);
    json_key(&j, "scenarios");
    json_arr_begin(&j);
    for (unsigned i = 0; i < s->ran; i++)
        entry(&j, s, &s->e[i]);
    json_arr_end(&j);
    json_obj_end(&j);
    fputc('\n', f);
    return report_install(f, tmp, s->dir, "suite.json", err, errlen);
}
