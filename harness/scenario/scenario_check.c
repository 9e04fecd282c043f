/* scenario_check — the rules between sections, once every key is read: the
 * kinds, the workload, the faults' hosts and times, the cluster (see
 * scenario.h). */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../checks/block.h"
#include "../../lib/ini.h"
#include "../../lib/errbuf.h"
#include "../../lib/units.h"
#include "scenario_parts.h"

/* --- every mistake, not only the first --- */

void scenario_note(struct errlist *e, const char *msg)
{
    e->n++;
    if (e->n > SCENARIO_MAX_ERRORS || e->len + 1 >= e->cap)
        return;
    int w = snprintf(e->out + e->len, e->cap - e->len, "%s%s", e->len ? "\n" : "", msg);
    e->len = w < 0 ? e->len : e->len + (size_t)w >= e->cap ? e->cap - 1 : e->len + (size_t)w;
}

/* The list into err; -1 when it holds anything. */
int scenario_noted(struct errlist *e)
{
    if (e->n > SCENARIO_MAX_ERRORS && e->len + 1 < e->cap)
        snprintf(e->out + e->len, e->cap - e->len, "\n(and %u more mistakes)",
                 e->n - SCENARIO_MAX_ERRORS);
    return e->n ? -1 : 0;
}

int scenario_line_of(const struct ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++) {
        if (strcmp(ini->sections[i].type, section) != 0)
            continue;
        for (size_t k = 0; key && k < ini->sections[i].n; k++)
            if (strcmp(ini->sections[i].entries[k].key, key) == 0)
                return ini->sections[i].entries[k].line;
        return ini->sections[i].line;
    }
    return 1;
}

static bool has_key(const struct ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++)
        for (size_t k = 0; strcmp(ini->sections[i].type, section) == 0 && k < ini->sections[i].n;
             k++)
            if (strcmp(ini->sections[i].entries[k].key, key) == 0)
                return true;
    return false;
}

static bool setup_given(const struct backend_setup *s, const char *section, const char *key)
{
    return has_key(s->ctx, section, key);
}

bool scenario_lab_serves(const struct scenario *sc)
{
    return sc->lab && sc->lab->serves && strcmp(sc->lab->serves, sc->target.kind) == 0;
}

/* The target kind's own rules, with a lab that may give it its place. */
int scenario_check_kind(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    const struct lab_kind *server = lab_kind_serving(sc->target.kind);
    char hint[160] = "";
    if (server)
        snprintf(hint, sizeof hint, " (or [scenario] lab = %s for %s)", server->name,
                 server->serves_what);
    struct backend_setup s = {.t = &sc->target,
                              .w = &sc->workload,
                              .name = sc->name,
                              .engine_choice = sc->engine_choice,
                              .lab_serves = scenario_lab_serves(sc),
                              .lab_hint = hint,
                              .given = setup_given,
                              .ctx = ini};
    char why[1024];
    if (sc->backend->check && sc->backend->check(&s, why, sizeof why) != 0) {
        snprintf(err, n, "%s:%d: %s", ini->file,
                 scenario_line_of(ini, s.section ? s.section : "target", s.key), why);
        return -1;
    }
    return 0;
}

/* What holds for every kind once its own rules are applied. */
void scenario_check_workload(const struct scenario *sc, const struct ini *ini, struct errlist *errs)
{
    char err[1024];
    size_t n = sizeof err;
    const struct workload_cfg *w = &sc->workload;
    if (sc->block % FL_SECTOR != 0) {
        snprintf(err, n, "%s:%d: block: %llu is not a multiple of 512", ini->file,
                 scenario_line_of(ini, "workload", "block"), (unsigned long long)sc->block);
        scenario_note(errs, err);
    }
    bool sync = sc->target.engine == ENGINE_SYNC;
    if (sync && sc->workers) {
        snprintf(err, n,
                 "%s:%d: workers: the sync engine runs one worker per I/O in flight "
                 "(depth); workers applies to engine = io_uring",
                 ini->file, scenario_line_of(ini, "workload", "workers"));
        scenario_note(errs, err);
    }
    if (sync && w->depth > 256) {
        snprintf(err, n,
                 "%s:%d: depth: at most 256 with the sync engine (one thread per I/O in "
                 "flight); use engine = io_uring for more",
                 ini->file, scenario_line_of(ini, "workload", "depth"));
        scenario_note(errs, err);
    }
    if (sc->workers > w->depth) {
        snprintf(err, n, "%s:%d: workers: %llu workers need depth >= %llu", ini->file,
                 scenario_line_of(ini, "workload", "workers"), (unsigned long long)sc->workers,
                 (unsigned long long)sc->workers);
        scenario_note(errs, err);
    }
    if (sc->target.size && sc->target.size < sc->block) {
        snprintf(err, n, "%s:%d: size: %llu bytes is smaller than one block (%llu)", ini->file,
                 scenario_line_of(ini, "target", "size"), (unsigned long long)sc->target.size,
                 (unsigned long long)sc->block);
        scenario_note(errs, err);
    }
}

/* "client, ctrl-a, ctrl-b" of the lab, " (there is no lab)" without. */
static bool lab_host_known(const struct scenario *sc, const char *host, char *names, size_t n)
{
    if (!sc->lab) {
        snprintf(names, n, " (there is no lab)");
        return false;
    }
    char hosts[LAB_MAX_HOSTS + LAB_MAX_CLIENTS][16];
    unsigned nh = lab_kind_hosts(sc->lab, (unsigned)sc->lab_opts.clients, hosts,
                                 LAB_MAX_HOSTS + LAB_MAX_CLIENTS);
    size_t used = (size_t)snprintf(names, n, " (");
    bool known = false;
    for (unsigned i = 0; i < nh && used < n; i++) {
        known |= strcmp(hosts[i], host) == 0;
        used += (size_t)snprintf(names + used, n - used, "%s%s", i ? ", " : "", hosts[i]);
    }
    /* With control = ssh the switch is a host too: its agent holds the ports. */
    if (sc->lab_opts.control == LAB_CONTROL_SSH && used < n) {
        known |= strcmp(host, LAB_SWITCH_HOST) == 0;
        used += (size_t)snprintf(names + used, n - used, ", %s", LAB_SWITCH_HOST);
    }
    if (used < n)
        snprintf(names + used, n - used, ")");
    return known;
}

/* A fault happens within the workload, every step of it: one whose time
 * comes after the end would never happen, and a run of it would prove
 * nothing about it. */
static int at_in_workload(const struct scenario *sc, const struct fault_spec *f, char *err,
                          size_t n)
{
    char at[32], end[32];
    snprintf(at, sizeof at, "%gs", (double)f->at_ns / 1e9);
    snprintf(end, sizeof end, "%gs", (double)sc->duration_ns / 1e9);
    if (f->at_ns >= sc->duration_ns) {
        snprintf(err, n, "[fault %s] at = %s is not before the end of the workload (duration = "
                 "%s): it would never happen", f->name, at, end);
        return -1;
    }
    struct fault_schedule s;
    fault_schedule_of(f, &s);
    uint64_t last = f->at_ns + (s.steps ? s.steps - 1 : 0) * s.period_ns;
    if (s.shape == FAULT_STEPPED && last >= sc->duration_ns) {
        char l[32];
        snprintf(l, sizeof l, "%gs", (double)last / 1e9);
        snprintf(err, n, "[fault %s] its last step (at %s) is not before the end of the workload "
                 "(duration = %s): it would not happen whole", f->name, l, end);
        return -1;
    }
    return 0;
}

/* What only the whole scenario can tell about its faults: hosts exist,
 * they happen within the workload, and each family's own checks of its
 * section. */
void scenario_check_faults(const struct scenario *sc, const char *file, struct errlist *errs)
{
    char err[1400];
    size_t n = sizeof err;
    /* A [host]'s switch is another [host], reached over ssh. */
    for (unsigned i = 0; i < sc->nhosts; i++) {
        const struct host_spec *h = &sc->hosts[i];
        if (!h->switch_host[0])
            continue;
        bool ok = false;
        for (unsigned k = 0; k < sc->nhosts && !ok; k++)
            ok = k != i && strcmp(sc->hosts[k].name, h->switch_host) == 0 && sc->hosts[k].ssh[0];
        if (!ok) {
            snprintf(err, n, "%s:%d: [host %s] switch: '%s' is not another [host] of this "
                     "scenario with ssh = ADDRESS", file, h->line, h->name, h->switch_host);
            scenario_note(errs, err);
        }
    }
    struct fault_rules rules = {.allow_destructive = sc->allow_destructive};
    for (unsigned i = 0; i < sc->nfaults; i++) {
        const struct fault_spec *f = &sc->faults[i];
        char names[160];
        bool known = strcmp(f->host, "local") == 0;
        for (unsigned h = 0; h < sc->nhosts && !known; h++)
            known = strcmp(sc->hosts[h].name, f->host) == 0;
        if (!lab_host_known(sc, f->host, names, sizeof names) && !known) {
            snprintf(err, n, "%s:%d: [fault %s] host '%s' is neither a lab host%s, local, nor a "
                     "[host NAME] of this scenario", file, f->line, f->name, f->host, names);
            scenario_note(errs, err);
            continue;
        }
        /* What its host can do: a lab host's lab runs and restarts its
         * service; a [host] restarts with its own command. */
        rules.host_known = true;
        rules.host_in_lab = !known;
        rules.host_restarts = rules.host_powers = false;
        for (unsigned h = 0; h < sc->nhosts; h++)
            if (strcmp(sc->hosts[h].name, f->host) == 0) {
                rules.host_restarts = sc->hosts[h].restart[0] != '\0';
                rules.host_powers = sc->hosts[h].power.off[0] && sc->hosts[h].power.on[0];
            }
        char why[1024];
        if (at_in_workload(sc, f, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s", file, f->at_line, why);
            scenario_note(errs, err);
        }
        if (f->ops->check && f->ops->check(f, &rules, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s", file, f->line, why);
            scenario_note(errs, err);
        }
        if (f->loses == LOSES_UNFLUSHED && sc->lab && sc->lab_opts.clients > 1) {
            snprintf(err, n, "%s:%d: [fault %s] loses = unflushed: not with several clients yet "
                     "(the other clients could not be told of the cut while the workload runs, "
                     "and would call what it took lost writes)", file, f->line, f->name);
            scenario_note(errs, err);
        }
    }
}

/* [cluster]: a kind of storage known, what it needs, and a way to ask it:
 * a [host] reached over ssh.  Not with a lab, which knows its own storage
 * (lab = gluster is the cluster the run is against). */
int scenario_check_cluster(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    struct cluster_spec *c = &sc->cluster;
    for (size_t i = 0; i < ini->n && !c->line; i++)
        if (strcmp(ini->sections[i].type, "cluster") == 0)
            c->line = ini->sections[i].line;
    if (!c->line)
        return 0;
    const char *file = ini->file;
    if (sc->lab) {
        snprintf(err, n,
                 "%s:%d: [cluster] names a real cluster, and lab = %s (line %d) brings "
                 "up an embedded one whose storage the run knows already: one or the other",
                 file, c->line, sc->lab->name, scenario_line_of(ini, "scenario", "lab"));
        return -1;
    }
    if (!c->kind_name[0]) {
        snprintf(err, n, "%s:%d: [cluster] needs kind (%s)", file, c->line, storage_kinds());
        return -1;
    }
    if (!(c->kind = storage_kind_find(c->kind_name))) {
        snprintf(err, n, "%s:%d: kind: '%s' is not one of %s", file,
                 scenario_line_of(ini, "cluster", "kind"), c->kind_name, storage_kinds());
        return -1;
    }
    if (c->kind->needs_volume && !c->volume[0]) {
        snprintf(err, n, "%s:%d: [cluster] kind = %s needs volume (%s, as `%s volume info` "
                 "names it)", file, c->line, c->kind->name, c->kind->volume, c->kind->cli);
        return -1;
    }
    if (!c->kind->volume && c->volume[0]) {
        snprintf(err, n, "%s:%d: volume: kind = %s has none", file,
                 scenario_line_of(ini, "cluster", "volume"), c->kind->name);
        return -1;
    }
    if (!c->via[0]) {
        snprintf(err, n, "%s:%d: [cluster] needs via = the [host NAME] (with ssh) on which %s is "
                 "asked", file, c->line, c->kind->cli);
        return -1;
    }
    const struct host_spec *h = scenario_cluster_via(sc);
    if (!h || !h->ssh[0]) {
        snprintf(err, n,
                 "%s:%d: via: '%s' is not a [host] of this scenario with ssh = "
                 "[USER@]ADDRESS[:PORT] (%s is asked there, over ssh)",
                 file, scenario_line_of(ini, "cluster", "via"), c->via, c->kind->cli);
        return -1;
    }
    return 0;
}

const struct host_spec *scenario_cluster_via(const struct scenario *sc)
{
    if (!sc->cluster.line)
        return NULL;
    for (unsigned i = 0; i < sc->nhosts; i++)
        if (strcmp(sc->hosts[i].name, sc->cluster.via) == 0)
            return &sc->hosts[i];
    return NULL;
}
