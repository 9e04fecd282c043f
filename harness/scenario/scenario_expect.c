/* scenario_expect — a line of [expect], or an expect_* key of a fault, read
 * into a rule of checks/metric.h's table (see scenario.h). */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../checks/block.h"
#include "../../lib/ini.h"
#include "../../lib/errbuf.h"
#include "../../lib/units.h"
#include "scenario_parts.h"

/* "; did you mean 'max_stall'? (known: ...)" for a metric name. */
static void unknown_metric_hint(const char *name, bool fault, char *out, size_t n)
{
    char best[48] = "", known[768] = "";
    size_t bestd = 3, used = 0;
    for (int i = 0; i < METRIC_COUNT; i++) {
        if (metric_table[i].scope != (fault ? SCOPE_FAULT : SCOPE_RUN))
            continue;
        char full[48];
        snprintf(full, sizeof full, "%s%s", fault ? "expect_" : "", metric_table[i].name);
        size_t d = key_distance(name, full);
        if (d < bestd) {
            bestd = d;
            snprintf(best, sizeof best, "%s", full);
        }
        used += (size_t)snprintf(known + used, used < sizeof known ? sizeof known - used : 0,
                                 "%s%s", used ? ", " : "", full);
    }
    if (best[0])
        snprintf(out, n, "; did you mean '%s'? (known: %s)", best, known);
    else
        snprintf(out, n, " (known: %s)", known);
}

/* One line of [expect] (fault < 0) or an expect_* key of a fault. */
int scenario_add_expectation(const struct ini *ini, struct scenario *sc, int fault,
                             const struct ini_entry *e, char *err, size_t n)
{
    char name[64];
    enum dist_stat stat = expect_split_stat(fault >= 0 ? e->key + 7 : e->key, name, sizeof name);
    enum metric_scope scope = fault >= 0 ? SCOPE_FAULT : SCOPE_RUN;
    int m = metric_find(scope, name);
    if (m < 0 && stat != DS_NONE) { /* a metric whose own name ends so ("max_latency_max") */
        stat = DS_NONE;
        snprintf(name, sizeof name, "%s", fault >= 0 ? e->key + 7 : e->key);
        m = metric_find(scope, name);
    }
    if (m < 0) {
        char hint[1200];
        unknown_metric_hint(e->key, fault >= 0, hint, sizeof hint);
        snprintf(err, n, "%s:%d: unknown %s '%s'%s", ini->file, e->line,
                 fault >= 0 ? "fault expectation" : "metric in [expect]", e->key, hint);
        return -1;
    }
    if (sc->nexpects == FL_MAX_EXPECTS) {
        snprintf(err, n, "%s:%d: at most %d expectations", ini->file, e->line, FL_MAX_EXPECTS);
        return -1;
    }
    struct expect_rule *x = &sc->expects[sc->nexpects];
    memset(x, 0, sizeof *x);
    x->metric = m;
    x->fault = fault;
    x->line = e->line;
    x->stat = stat;
    if (fault < 0 && m == M_PASS_RATE && stat != DS_NONE) {
        snprintf(err, n, "%s:%d: %s: pass_rate is one number over the repetitions; it has no "
                 "%s", ini->file, e->line, e->key, dist_stat_names[stat]);
        return -1;
    }
    if (expect_op_parse(e->op, &x->op) != 0) {
        snprintf(err, n, "%s:%d: %s: '%s' is not a comparison (=, <, <=, >, >=)", ini->file,
                 e->line, e->key, e->op);
        return -1;
    }
    char why[256];
    uint64_t u;
    if (expect_metric(x)->unit == UNIT_SECONDS) {
        if (parse_duration(e->value, &u, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s: %s (a duration: 500ms, 20s)", ini->file, e->line,
                     e->key, why);
            return -1;
        }
        x->value = (double)u / 1e9;
    } else if (expect_metric(x)->unit == UNIT_PERCENT) {
        char *end;
        double pct = strtod(e->value, &end);
        if (end == e->value || strcmp(end, "%") != 0 || pct < 0 || pct > 100) {
            snprintf(err, n, "%s:%d: %s: '%s' is not a percentage from 0%% to 100%%", ini->file,
                     e->line, e->key, e->value);
            return -1;
        }
        x->value = pct;
    } else if (stat == DS_MEAN || stat == DS_SD) { /* a mean of counts need not be whole */
        char *end;
        double v = strtod(e->value, &end);
        if (end == e->value || *end || v < 0) {
            snprintf(err, n, "%s:%d: %s: '%s' is not a number", ini->file, e->line, e->key,
                     e->value);
            return -1;
        }
        x->value = v;
    } else {
        if (parse_count(e->value, &u, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s: %s (a count)", ini->file, e->line, e->key, why);
            return -1;
        }
        x->value = (double)u;
    }
    snprintf(x->text, sizeof x->text, "%s %s %s", e->key, expect_op_text(x->op), e->value);
    sc->nexpects++;
    return 0;
}
