/* expect — see expect.h. */
#include "expect.h"

#include <stdio.h>
#include <string.h>

const char *const dist_stat_names[DS_COUNT] = {"", "min", "p50", "p95", "max", "mean", "sd"};

enum dist_stat expect_split_stat(const char *name, char *base, size_t n)
{
    size_t len = strlen(name);
    for (int s = DS_COUNT - 1; s > DS_NONE; s--) {
        size_t sl = strlen(dist_stat_names[s]);
        if (len > sl + 1 && name[len - sl - 1] == '_' &&
            strcmp(name + len - sl, dist_stat_names[s]) == 0) {
            snprintf(base, n, "%.*s", (int)(len - sl - 1), name);
            return (enum dist_stat)s;
        }
    }
    snprintf(base, n, "%s", name);
    return DS_NONE;
}

int expect_op_parse(const char *text, enum expect_op *op)
{
    static const struct {
        const char *text;
        enum expect_op op;
    } ops[] = {{"=", EXP_EQ}, {"==", EXP_EQ}, {"<", EXP_LT},
               {"<=", EXP_LE}, {">", EXP_GT}, {">=", EXP_GE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].text, text) == 0) {
            *op = ops[i].op;
            return 0;
        }
    return -1;
}

const char *expect_op_text(enum expect_op op)
{
    switch (op) {
    case EXP_EQ:
        return "=";
    case EXP_LT:
        return "<";
    case EXP_LE:
        return "<=";
    case EXP_GT:
        return ">";
    case EXP_GE:
        return ">=";
    }
    return "?";
}

bool expect_holds(const struct expect_rule *e, double measured, bool known)
{
    if (!known)
        return false;
    /* Durations are measured in ns and written in ms at best: compare to
     * the microsecond so that 0.1 + 0.2 is not "more than 0.3". */
    double eps = expect_metric(e)->unit == UNIT_SECONDS ? 1e-6 : 1e-9;
    switch (e->op) {
    case EXP_EQ:
        return measured > e->value - eps && measured < e->value + eps;
    case EXP_LT:
        return measured < e->value - eps;
    case EXP_LE:
        return measured < e->value + eps;
    case EXP_GT:
        return measured > e->value + eps;
    case EXP_GE:
        return measured > e->value - eps;
    }
    return false;
}

const struct metric_def *expect_metric(const struct expect_rule *e)
{
    return &metric_table[e->metric];
}

bool expect_over_repeats(const struct expect_rule *e)
{
    return e->stat != DS_NONE || (e->fault < 0 && e->metric == M_PASS_RATE);
}
