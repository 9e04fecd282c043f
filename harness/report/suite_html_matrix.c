/* suite_html_matrix — the outage matrix of a suite's report.html (see
 * suite_html.h): what each kind of outage did on each kind of storage,
 * the way a study tabulates it.
 *
 * One row per fault action (kill, power-off, link-down, partition, ...),
 * the scenario's first fault's, with "+N" when it has N more (a kill
 * during a partition is not a kill alone); one column per lab kind present
 * (iscsi, gluster, ceph, then cluster/none), so that GlusterFS and CephFS
 * under the same outage sit side by side.  Each cell lists its scenarios,
 * coloured by outcome, each with its verdict, its stall and its recovery,
 * heal or recover, linked to the run's own report.html. */
#include "suite_html.h"

#include <stdlib.h>
#include <string.h>

#include "report_files.h"

#define KEY_MAX 96

/* The rows' order: the process faults, power, the network from a cable to
 * the switch, then what damages data; any other action after these by
 * name, and the scenarios without a fault last. */
static const char *const action_order[] = {
    "kill", "pause", "restart", "power-off", "link-down", "port-down", "port-flap",
    "switch-down", "partition", "loss", "bandwidth", "corrupt", "scrub", "command"};
#define NORDER (sizeof action_order / sizeof action_order[0])
#define NO_FAULT "no fault"

/* The row of scenario x: "kill", "kill +1", "no fault". */
static void row_key(const struct suite_scenario *x, char *out, size_t n)
{
    if (!x->nfaults)
        snprintf(out, n, NO_FAULT);
    else if (x->nfaults == 1)
        snprintf(out, n, "%s", x->faults[0].action[0] ? x->faults[0].action : "?");
    else
        snprintf(out, n, "%s +%zu", x->faults[0].action[0] ? x->faults[0].action : "?",
                 x->nfaults - 1);
}

static size_t rank(const char *key)
{
    if (strcmp(key, NO_FAULT) == 0)
        return NORDER + 1;
    size_t len = strcspn(key, " ");
    for (size_t i = 0; i < NORDER; i++)
        if (strlen(action_order[i]) == len && strncmp(key, action_order[i], len) == 0)
            return i;
    return NORDER;
}

static int by_row(const void *a, const void *b)
{
    const char *x = a, *y = b;
    size_t rx = rank(x), ry = rank(y);
    if (rx != ry)
        return rx < ry ? -1 : 1;
    /* "kill" before "kill +1" before "kill +2"; strcmp would put +10 before +2 */
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* One scenario in its cell. */
static void item(FILE *f, const struct suite_scenario *x)
{
    fprintf(f, "<div class=\"item %s\"", suite_html_outcome_class(x));
    if (x->description) {
        fprintf(f, " title=\"");
        report_escape(f, x->description);
        fprintf(f, "\"");
    }
    fprintf(f, ">");
    if (x->report_html)
        suite_html_link(f, x->report_html, x->name);
    else {
        fprintf(f, "<span class=\"name\">");
        report_escape(f, x->name);
        fprintf(f, "</span>");
    }
    fprintf(f, " ");
    suite_html_met_badge(f, x);
    fprintf(f, "<br>");
    report_escape(f, x->verdict ? x->verdict : "no report");
    fprintf(f, " &#183; stall ");
    suite_html_secs(f, x->stall);
    fprintf(f, "<br>");
    suite_html_recovery(f, x->recovery, x->heal, x->recover, x->lab, " &#183; ");
    fprintf(f, "</div>");
}

static void matrix_row(FILE *f, const struct suite *s, const char *key, const char **kinds,
                       size_t nk)
{
    fprintf(f, "<tr><th class=\"row\">");
    report_escape(f, key);
    fprintf(f, "</th>");
    for (size_t k = 0; k < nk; k++) {
        size_t shown = 0;
        for (size_t i = 0; i < s->n; i++) {
            char mine[KEY_MAX];
            row_key(&s->sc[i], mine, sizeof mine);
            if (!suite_of_kind(&s->sc[i], kinds[k]) || strcmp(mine, key) != 0)
                continue;
            if (!shown++)
                fprintf(f, "<td>");
            item(f, &s->sc[i]);
        }
        fprintf(f, "%s", shown ? "</td>" : "<td class=\"empty\"></td>");
    }
    fprintf(f, "</tr>\n");
}

void suite_html_matrix(FILE *f, const struct suite *s)
{
    if (!s->n)
        return;
    char(*keys)[KEY_MAX] = calloc(s->n, sizeof *keys);
    if (!keys) {
        fprintf(f, "<p class=\"note\">The outage matrix is left out: out of memory.</p>\n");
        return;
    }
    size_t nkeys = 0;
    for (size_t i = 0; i < s->n; i++) {
        char key[KEY_MAX];
        row_key(&s->sc[i], key, sizeof key);
        size_t j = 0;
        while (j < nkeys && strcmp(keys[j], key) != 0)
            j++;
        if (j == nkeys)
            snprintf(keys[nkeys++], KEY_MAX, "%s", key);
    }
    qsort(keys, nkeys, sizeof *keys, by_row);
    const char *kinds[64]; /* the lab kinds are a handful (harness/lab/lab_kinds.c) */
    size_t nk = suite_kinds(s, kinds, sizeof kinds / sizeof kinds[0]);
    fprintf(f, "<h2>Outage matrix</h2>\n<p class=\"small\">One row per fault action (a "
               "scenario's first fault; +N: N more faults in it), one column per lab kind. "
               "Each scenario with its outcome, its verdict, its longest stall and its "
               "recovery (heal: until GlusterFS has healed; recover: until Ceph says "
               "HEALTH_OK); hover for its description, click for its own report.</p>\n"
               "<table class=\"matrix\"><tr><th>fault</th>");
    for (size_t k = 0; k < nk; k++) {
        fprintf(f, "<th>");
        report_escape(f, suite_kind_label(kinds[k]));
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr>\n");
    for (size_t r = 0; r < nkeys; r++)
        matrix_row(f, s, keys[r], kinds, nk);
    fprintf(f, "</table>\n");
    free(keys);
}
