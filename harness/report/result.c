/* result — what the renderers ask of the record, and its release (see
 * result.h). */
#include "result.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jread.h"

void result_expect_value(const struct result_expect *x, char *out, size_t n)
{
    if (!x->known)
        snprintf(out, n, "unknown");
    else if (x->seconds)
        snprintf(out, n, "%.3f s", x->measured);
    else
        snprintf(out, n, "%.0f", x->measured);
}

void result_expect_describe(const struct result_expect *x, char *out, size_t n)
{
    char value[64];
    result_expect_value(x, value, sizeof value);
    snprintf(out, n, "%s%s: measured %s%s%s", x->text, x->line ? "" : " (integrity rule)", value,
             x->known ? "" : " - ", x->why);
}

const struct result_value *result_value_of(const struct result_value *vals, size_t n,
                                           const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(vals[i].key, key) == 0)
            return &vals[i];
    return NULL;
}

const struct result_fault *result_fault_named(const struct result *res, const char *name)
{
    for (size_t i = 0; name && i < res->nfaults; i++)
        if (strcmp(res->faults[i].name, name) == 0)
            return &res->faults[i];
    return NULL;
}

double result_secs(const struct result_io *s)
{
    return (double)s->ns / 1e9;
}

double result_iops(const struct result_io *s)
{
    return s->ns ? (double)(s->reads + s->writes) / result_secs(s) : 0;
}

double result_mbps(const struct result_io *s)
{
    return s->ns ? (double)(s->bytes_read + s->bytes_written) / 1e6 / result_secs(s) : 0;
}

uint64_t result_bad(const struct result *res)
{
    uint64_t bad = 0;
    for (int c = 0; c < RESULT_CLASSES; c++)
        if (res->class_is_finding[c])
            bad += res->counts[c];
    return bad;
}

void result_why_not_pass(const struct result *res, char *out, size_t n)
{
    out[0] = '\0';
    if (res->error) {
        snprintf(out, n, "%s", res->error);
    } else if (strcmp(res->verdict, "interrupted") == 0) {
        snprintf(out, n, "%s ended it early; what ran is reported, nothing about what did not",
                 res->interrupted_by[0] ? res->interrupted_by : "a signal");
    } else if (strcmp(res->verdict, "error") == 0 && res->nmissed) { /* not as written */
        size_t used = (size_t)snprintf(out, n, "not run as written: ");
        const char *sep = "";
        for (size_t i = 0; i < res->nmissed && used < n; i++) {
            const struct result_miss *m = &res->missed[i];
            if (!m->counts)
                continue;
            used += (size_t)snprintf(out + used, n - used, "%s[fault %s] %s", sep, m->fault,
                                     m->why);
            sep = "; ";
        }
    }
}

static void free_events(struct result_event *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].event);
        free(e[i].portal);
        free(e[i].detail);
    }
    free(e);
}

static void free_values(struct result_value *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].key);
    free(v);
}

static void free_fault(struct result_fault *x)
{
    char *strs[] = {x->name,       x->action,     x->host,       x->detail,
                    x->error,      x->applied_by, x->cleared_by, x->not_happened_why,
                    x->heal_word,  x->heal_whole, x->failover_noticed_by};
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
        free(strs[k]);
    free_events(x->events, x->nevents);
    free_values(x->values, x->nvalues);
}

static void free_finding(struct result_finding *x)
{
    free(x->cls);
    free(x->path);
    free(x->op);
    free(x->phase);
    free(x->detail);
}

static void free_client(struct result_client *x)
{
    free(x->host);
    free(x->why);
    free(x->last_heard);
    free(x->dir);
    for (size_t i = 0; i < x->nfaults; i++)
        free(x->faults[i].name);
    free(x->faults);
}

static void free_lists(struct result *res)
{
    for (size_t i = 0; i < res->nmissed; i++) {
        free(res->missed[i].fault);
        free(res->missed[i].action);
        free(res->missed[i].why);
    }
    free(res->missed);
    for (size_t i = 0; i < res->nexpect; i++) {
        struct result_expect *x = &res->expect[i];
        free(x->text);
        free(x->metric);
        free(x->fault);
        free(x->op);
        free(x->why);
    }
    free(res->expect);
    for (size_t i = 0; i < res->nfaults; i++)
        free_fault(&res->faults[i]);
    free(res->faults);
    for (size_t i = 0; i < res->nactions; i++)
        free(res->actions[i].action);
    free(res->actions);
    for (size_t i = 0; i < res->nfindings; i++)
        free_finding(&res->findings[i]);
    free(res->findings);
    for (size_t i = 0; i < res->nhosts; i++) {
        free(res->hosts[i].name);
        free(res->hosts[i].transport);
        free(res->hosts[i].ssh);
    }
    free(res->hosts);
    for (size_t i = 0; i < res->npower; i++)
        free(res->power[i].fault);
    free(res->power);
    for (size_t i = 0; i < res->nclients; i++)
        free_client(&res->clients[i]);
    free(res->clients);
}

void result_free(struct result *res)
{
    free_lists(res);
    char *strs[] = {res->verdict,     res->mode,          res->error,
                    res->scenario,    res->scenario_file, res->run_id,
                    res->started_at,  res->interrupted_by, res->target_path,
                    res->target_description, res->pattern, res->cross_rule};
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
        free(strs[k]);
    for (int c = 0; c < RESULT_CLASSES; c++)
        free(res->class_name[c]);
    for (size_t k = 0; k < res->nmeta_ops; k++)
        free(res->meta_op_name[k]);
    free_values(res->measured, res->nmeasured);
    free_events(res->events, res->nevents);
    jv_free(res->manifest);
    memset(res, 0, sizeof *res);
}
