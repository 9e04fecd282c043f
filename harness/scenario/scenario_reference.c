/* scenario_reference — `faultline help scenario` and `faultline help
 * metrics`, from the key tables and the metric table (see scenario.h);
 * the other formats of help scenario are documents (scenario_doc.h). */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../checks/block.h"
#include "../../lib/ini.h"
#include "../../lib/errbuf.h"
#include "../../lib/units.h"
#include "scenario_doc.h"
#include "scenario_parts.h"

/* Every key of a section once, the general ones first. */
static void print_keys(FILE *out, int section)
{
    struct key_table general = scenario_general_keys(section);
    char printed[2048] = " ";
    for (unsigned i = 0; i < general.n; i++)
        key_print(out, &general.keys[i]);
    struct key_table t;
    const char *owner;
    for (unsigned k = 0; scenario_kind_keys(section, k, &t, &owner); k++)
        for (unsigned i = 0; i < t.n; i++) {
            char word[48];
            snprintf(word, sizeof word, " %s ", t.keys[i].name);
            if (strstr(printed, word) || key_find(general.keys, general.n, t.keys[i].name))
                continue; /* shared by several kinds */
            snprintf(printed + strlen(printed), sizeof printed - strlen(printed), "%s ",
                     t.keys[i].name);
            key_print(out, &t.keys[i]);
        }
}

void scenario_metrics_markdown(FILE *out)
{
    for (int scope = SCOPE_RUN; scope <= SCOPE_FAULT; scope++) {
        fprintf(out, "%s\n\n| key | type | default | meaning |\n|---|---|---|---|\n",
                scope == SCOPE_RUN ? "[expect]: the run's metrics (`metric OP value`)"
                                   : "[fault NAME]: each fault's metrics (`expect_metric OP value`)");
        for (int i = 0; i < METRIC_COUNT; i++) {
            const struct metric_def *m = &metric_table[i];
            if (m->scope == (enum metric_scope)scope)
                fprintf(out, "| `%s%s` | %s | %s | %s |\n", scope == SCOPE_FAULT ? "expect_" : "",
                        m->name, metric_unit_word(m), m->integrity ? "= 0" : "", m->help);
        }
        fprintf(out, scope == SCOPE_RUN ? "\n" : "");
    }
}

void scenario_reference(FILE *out)
{
    for (int s = 0; s < S_COUNT; s++) {
        bool named = s == S_FAULT || s == S_HOST;
        fprintf(out, "[%s%s]\n", section_names[s], named ? " NAME" : "");
        if (s == S_FAULT)
            fprintf(out, "  %-16s %-9s\n      what happens (required): %s\n", "action", "choice",
                    fault_actions());
        print_keys(out, s);
        /* Expectations: a metric, a comparison, a value. */
        for (int i = 0; i < METRIC_COUNT; i++) {
            const struct metric_def *m = &metric_table[i];
            if (s == S_EXPECT && m->scope == SCOPE_RUN)
                fprintf(out, "  %-16s  %-8s %s\n      %s\n", m->name, metric_unit_word(m),
                        m->integrity ? "default = 0 (integrity rule)" : "", m->help);
            if (s == S_FAULT && m->scope == SCOPE_FAULT)
                fprintf(out, "  expect_%-9s  %s\n      %s\n", m->name, metric_unit_word(m),
                        m->help);
        }
        if (s == S_EXPECT || s == S_FAULT)
            fprintf(out, "      (%s compare with =, <, <=, >, >=; with repeat = N a suffix _min, "
                         "_p50, _p95, _max, _mean or _sd\n       takes that statistic over the "
                         "repetitions: %s)\n",
                    s == S_EXPECT ? "metrics" : "expect_* keys",
                    s == S_EXPECT ? "recovery_p95 <= 8s" : "expect_stall_p95 <= 5s");
        fprintf(out, "\n");
    }
    const struct fault_ops *const *families;
    unsigned nf = fault_families(&families);
    for (unsigned i = 0; i < nf; i++) {
        char takes[512];
        fault_keys_text(families[i], takes, sizeof takes);
        fprintf(out, "%s %-12s takes%s\n", i ? "      " : "Faults:", families[i]->action, takes);
    }
    /* Every lab kind with its hosts, from the kinds' own table. */
    const struct lab_kind *const *kinds;
    unsigned nk = lab_kinds_all(&kinds);
    for (unsigned i = 0; i < nk; i++) {
        char hosts[LAB_MAX_HOSTS][16];
        unsigned nh = lab_kind_hosts(kinds[i], 1, hosts, LAB_MAX_HOSTS);
        fprintf(out, "%s %-8s %s\n             hosts:", i ? "     " : "\nLabs:", kinds[i]->name,
                kinds[i]->summary);
        for (unsigned h = 0; h < nh; h++)
            fprintf(out, " %s", hosts[h]);
        fputc('\n', out);
    }
    fprintf(out, "\n");
    fprintf(out, "Sizes: 512, 4k, 4KiB, 64MiB, 1GiB (binary units, as in fio).\n"
                 "Durations: 500ms, 10s, 2m, 1h; a bare number is seconds.\n"
                 "Comments start with # or ; (inline: after a blank).\n");
}

int scenario_reference_as(FILE *out, const char *format)
{
    if (strcmp(format, "text") == 0)
        scenario_reference(out);
    else if (strcmp(format, "markdown") == 0)
        scenario_doc(out, &doc_markdown);
    else if (strcmp(format, "man") == 0)
        scenario_doc(out, &doc_roff);
    else
        return -1;
    return 0;
}
