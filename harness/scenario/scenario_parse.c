/* scenario_parse — a scenario file's sections bound to the fields of
 * struct scenario, every mistake noted (see scenario.h). */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../../checks/block.h"
#include "../../lib/ini.h"
#include "../../lib/errbuf.h"
#include "../../lib/units.h"
#include "scenario_parts.h"

/* What binding needs beyond the scenario: the file, and the entries that
 * belong to a kind not known yet (bound once [target] kind and [scenario]
 * lab are). */
struct binding {
    const struct ini *ini;
    struct scenario *sc;
    struct errlist *errs; /* every mistake found, for `faultline check` */
    const struct ini_entry *deferred[256];
    int deferred_section[256];
    unsigned ndeferred;
};

static int set_key(const struct binding *b, void *base, const struct key_def *k,
                   const struct ini_entry *e, char *err, size_t n)
{
    char why[300];
    if (key_set(base, k, e->value, why, sizeof why) != 0) {
        snprintf(err, n, "%s:%d: %s: %s", b->ini->file, e->line, e->key, why);
        return -1;
    }
    return 0;
}

/* Mistakes every entry of a section can make: a comparison outside
 * [expect], a key given twice. */
static int plain_entry(const struct binding *b, const struct ini_section *s, size_t k, char *err,
                       size_t n)
{
    const struct ini_entry *e = &s->entries[k];
    if (strcmp(e->op, "=") != 0) {
        snprintf(err, n, "%s:%d: %s %s %s: only [expect] and expect_* keys compare; set it with "
                 "'='", b->ini->file, e->line, e->key, e->op, e->value);
        return -1;
    }
    for (size_t p = 0; p < k; p++)
        if (strcmp(s->entries[p].key, e->key) == 0) {
            snprintf(err, n, "%s:%d: '%s' is set twice in [%s] (first at line %d)", b->ini->file,
                     e->line, e->key, s->type, s->entries[p].line);
            return -1;
        }
    return 0;
}

static int unknown_key(const struct binding *b, int section, const struct ini_entry *e,
                       char *err, size_t n)
{
    char hint[1400];
    scenario_unknown_key_hint(section, e->key, hint, sizeof hint);
    snprintf(err, n, "%s:%d: unknown key '%s' in [%s]%s", b->ini->file, e->line, e->key,
             section_names[section], hint);
    return -1;
}

/* Where a kind's key is parsed to check its value before its kind is known
 * (the parser runs on one thread). */
static struct scenario scratch;

/* The block of memory a general key of a section fills. */
static void *general_base(struct scenario *sc, int section)
{
    return section == S_LAB       ? (void *)&sc->lab_opts
           : section == S_CLUSTER ? (void *)&sc->cluster
           : section == S_THRASH  ? (void *)&sc->thrash
                                  : (void *)sc;
}

/* [thrash]: its general keys, and each ACTION.KEY kept for its action
 * (thrash.h reads them once the section is bound). */
static void bind_thrash(struct binding *b, const struct ini_section *s, char *err, size_t n)
{
    struct thrash_spec *t = &b->sc->thrash;
    struct key_table keys = thrash_keys();
    t->line = s->line;
    for (size_t k = 0; k < s->n; k++) {
        const struct ini_entry *e = &s->entries[k];
        if (plain_entry(b, s, k, err, n) != 0) {
            scenario_note(b->errs, err);
            continue;
        }
        const struct key_def *def = key_find(keys.keys, keys.n, e->key);
        if (def) {
            if (set_key(b, t, def, e, err, n) != 0)
                scenario_note(b->errs, err);
        } else if (strchr(e->key, '.')) {
            if (thrash_keep_entry(t, b->ini->file, e->line, e->key, e->value, err, n) != 0)
                scenario_note(b->errs, err);
        } else {
            unknown_key(b, S_THRASH, e, err, n);
            scenario_note(b->errs, err);
        }
    }
}

/* [scenario], [target], [workload], [lab]: the general keys now, a kind's
 * own keys once the kinds are known. */
static int bind_plain(struct binding *b, int section, const struct ini_section *s, char *err,
                      size_t n)
{
    struct key_table general = scenario_general_keys(section);
    unsigned before = b->errs->n;
    for (size_t k = 0; k < s->n; k++) {
        const struct ini_entry *e = &s->entries[k];
        if (plain_entry(b, s, k, err, n) != 0) {
            scenario_note(b->errs, err);
            continue;
        }
        const struct key_def *def = key_find(general.keys, general.n, e->key);
        if (def) {
            if (set_key(b, general_base(b->sc, section), def, e, err, n) != 0)
                scenario_note(b->errs, err);
            continue;
        }
        char owners[256];
        scenario_owners_of(section, e->key, owners, sizeof owners, &def);
        if (!def) {
            unknown_key(b, section, e, err, n);
            scenario_note(b->errs, err);
            continue;
        }
        /* Its value is checked now, whatever kind it turns out to be for. */
        if (set_key(b, section == S_LAB ? (void *)&scratch.lab_opts : (void *)&scratch.target, def,
                    e, err, n) != 0) {
            scenario_note(b->errs, err);
            continue;
        }
        if (b->ndeferred == sizeof b->deferred / sizeof b->deferred[0]) {
            snprintf(err, n, "%s:%d: too many keys", b->ini->file, e->line);
            scenario_note(b->errs, err);
            break;
        }
        b->deferred_section[b->ndeferred] = section;
        b->deferred[b->ndeferred++] = e;
    }
    return b->errs->n > before ? -1 : 0;
}

/* A kind's key, once the kinds are known: into the chosen kind's options;
 * for another kind, checked and refused, naming the kinds it is for. */
static int bind_deferred(struct binding *b, int section, const struct ini_entry *e, char *err,
                         size_t n)
{
    struct scenario *sc = b->sc;
    bool lab = section == S_LAB;
    struct key_table mine = {NULL, 0};
    if (lab && sc->lab)
        mine = sc->lab->keys;
    else if (!lab && sc->backend)
        mine = section == S_TARGET ? sc->backend->target_keys : sc->backend->workload_keys;
    const struct key_def *def = key_find(mine.keys, mine.n, e->key);
    void *base = lab ? (void *)&sc->lab_opts : (void *)&sc->target;
    if (def)
        return set_key(b, base, def, e, err, n);
    char owners[256];
    scenario_owners_of(section, e->key, owners, sizeof owners, &def);
    snprintf(err, n, "%s:%d: %s: only for %s = %s", b->ini->file, e->line, e->key,
             lab ? "lab" : "kind", owners);
    return -1;
}

/* [fault NAME]: its action first, then every key against the action's
 * family. */
static int bind_fault(struct binding *b, const struct ini_section *s, char *err, size_t n)
{
    struct scenario *sc = b->sc;
    const char *file = b->ini->file;
    for (unsigned i = 0; i < sc->nfaults; i++)
        if (strcmp(sc->faults[i].name, s->name) == 0) {
            snprintf(err, n, "%s:%d: a second [fault %s] (the first is at line %d)", file,
                     s->line, s->name, sc->faults[i].line);
            scenario_note(b->errs, err);
            return -1;
        }
    if (sc->nfaults == FL_MAX_FAULTS) {
        snprintf(err, n, "%s:%d: at most %d faults", file, s->line, FL_MAX_FAULTS);
        scenario_note(b->errs, err);
        return -1;
    }
    struct fault_spec *f = &sc->faults[sc->nfaults++];
    memset(f, 0, sizeof *f);
    f->line = f->at_line = s->line;
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->entries[k].key, "at") == 0)
            f->at_line = s->entries[k].line;
    snprintf(f->name, sizeof f->name, "%s", s->name);
    const struct ini_entry *action = NULL;
    for (size_t k = 0; k < s->n && !action; k++)
        if (strcmp(s->entries[k].key, "action") == 0)
            action = &s->entries[k];
    if (!action) {
        snprintf(err, n, "%s:%d: [fault %s] needs action (%s)", file, s->line, f->name,
                 fault_actions());
        scenario_note(b->errs, err);
        sc->nfaults--; /* nothing of it can be checked further */
        return -1;
    }
    if (!(f->ops = fault_ops_find(action->value))) {
        snprintf(err, n, "%s:%d: action: '%s' is not one of %s", file, action->line,
                 action->value, fault_actions());
        scenario_note(b->errs, err);
        sc->nfaults--;
        return -1;
    }
    struct key_table common = scenario_general_keys(S_FAULT);
    if (key_defaults(f, common.keys, common.n, err, n) != 0 ||
        key_defaults(f, f->ops->keys, f->ops->nkeys, err, n) != 0) {
        scenario_note(b->errs, err);
        return -1;
    }
    unsigned before = b->errs->n;
    for (size_t k = 0; k < s->n; k++) {
        const struct ini_entry *e = &s->entries[k];
        if (e == action)
            continue;
        if (strncmp(e->key, "expect_", 7) == 0) {
            if (scenario_add_expectation(b->ini, sc, (int)sc->nfaults - 1, e, err, n) != 0)
                scenario_note(b->errs, err);
            continue;
        }
        if (plain_entry(b, s, k, err, n) != 0) {
            scenario_note(b->errs, err);
            continue;
        }
        const struct key_def *def = key_find(common.keys, common.n, e->key);
        if (!def)
            def = key_find(f->ops->keys, f->ops->nkeys, e->key);
        if (def) {
            if (set_key(b, f, def, e, err, n) != 0)
                scenario_note(b->errs, err);
            continue;
        }
        char owners[256], takes[512];
        scenario_owners_of(S_FAULT, e->key, owners, sizeof owners, &def);
        if (!def) {
            unknown_key(b, S_FAULT, e, err, n);
        } else {
            fault_keys_text(f->ops, takes, sizeof takes);
            snprintf(err, n, "%s:%d: '%s' does not apply to action %s (it takes:%s)", file,
                     e->line, e->key, f->ops->action, takes);
        }
        scenario_note(b->errs, err);
    }
    return b->errs->n > before ? -1 : 0;
}

/* Whether text may go into the agent's shell script and undo record as
 * it is (no quoting there). */
static bool plain_path(const char *t)
{
    return strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") ==
           strlen(t);
}

/* The ssh keys of a [host]: ssh parsed into dest and port; the others only
 * with it. */
static int check_host_ssh(const char *file, const struct ini_section *s, struct host_spec *h,
                          char *err, size_t n)
{
    struct ssh_dest *d = &h->via;
    const char *need = d->identity[0] ? "ssh_identity" : d->known_hosts[0] ? "ssh_known_hosts"
                       : d->options[0] ? "ssh_options" : d->agent_dir[0] ? "agent_dir"
                       : d->sudo ? "sudo" : NULL;
    if (!h->ssh[0] && !need && h->restart[0])
        need = "restart"; /* started again by the host's agent */
    if (!h->ssh[0]) {
        if (need) {
            snprintf(err, n, "%s:%d: [host %s] %s needs ssh = [USER@]ADDRESS[:PORT]", file,
                     s->line, h->name, need);
            return -1;
        }
        return 0;
    }
    char text[160];
    snprintf(text, sizeof text, "%s", h->ssh);
    char *at = strrchr(text, '@'), *colon = strrchr(text, ':');
    if (colon && (!at || colon > at)) {
        char *end;
        unsigned long port = strtoul(colon + 1, &end, 10);
        if (*end || !port || port > 65535) {
            snprintf(err, n, "%s:%d: [host %s] ssh: '%s' is not a port (1..65535)", file,
                     s->line, h->name, colon + 1);
            return -1;
        }
        d->port = port;
        *colon = '\0';
    }
    if (!text[0] || (at && !at[1]) || strchr(text, ' ') || strchr(text, '|')) {
        snprintf(err, n, "%s:%d: [host %s] ssh: '%s' is not [USER@]ADDRESS[:PORT]", file,
                 s->line, h->name, h->ssh);
        return -1;
    }
    if (strlen(text) >= sizeof d->dest) {
        snprintf(err, n, "%s:%d: [host %s] ssh: longer than %zu characters", file, s->line,
                 h->name, sizeof d->dest - 1);
        return -1;
    }
    memcpy(d->dest, text, strlen(text) + 1);
    const char *paths[] = {d->identity, d->known_hosts, d->agent_dir};
    const char *names[] = {"ssh_identity", "ssh_known_hosts", "agent_dir"};
    for (int i = 0; i < 3; i++)
        if (!plain_path(paths[i])) {
            snprintf(err, n, "%s:%d: [host %s] %s: '%s' may hold only letters, digits and "
                     "/._-+", file, s->line, h->name, names[i], paths[i]);
            return -1;
        }
    if (strchr(d->options, '\'') || strchr(d->options, '|')) {
        snprintf(err, n, "%s:%d: [host %s] ssh_options: no quotes or '|' (give options as "
                 "plain words)", file, s->line, h->name);
        return -1;
    }
    return 0;
}

/* The line of key in section s (the section's own when not given). */
static int entry_line(const struct ini_section *s, const char *key)
{
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->entries[k].key, key) == 0)
            return s->entries[k].line;
    return s->line;
}

/* The power keys of a [host]: power_off and power_on together (a cut
 * whose power-on is unknown could never be undone), power_status only
 * with them. */
static int check_host_power(const char *file, const struct ini_section *s,
                            const struct host_spec *h, char *err, size_t n)
{
    const struct host_power *p = &h->power;
    if (p->off[0] && !p->on[0]) {
        snprintf(err, n, "%s:%d: [host %s] power_off needs power_on = COMMAND (it powers the "
                 "host on again at the fault's clear and in `faultline cleanup`)", file,
                 entry_line(s, "power_off"), h->name);
        return -1;
    }
    if (p->on[0] && !p->off[0]) {
        snprintf(err, n, "%s:%d: [host %s] power_on needs power_off = COMMAND (the cut it "
                 "undoes)", file, entry_line(s, "power_on"), h->name);
        return -1;
    }
    if (p->status[0] && !p->off[0]) {
        snprintf(err, n, "%s:%d: [host %s] power_status needs power_off and power_on (it only "
                 "confirms what they do)", file, entry_line(s, "power_status"), h->name);
        return -1;
    }
    return 0;
}

/* [host NAME] */
static int bind_host(struct binding *b, const struct ini_section *s, char *err, size_t n)
{
    struct scenario *sc = b->sc;
    for (unsigned i = 0; i < sc->nhosts; i++)
        if (strcmp(sc->hosts[i].name, s->name) == 0) {
            snprintf(err, n, "%s:%d: a second [host %s] (the first is at line %d)", b->ini->file,
                     s->line, s->name, sc->hosts[i].line);
            scenario_note(b->errs, err);
            return -1;
        }
    if (sc->nhosts == FL_MAX_HOSTS) {
        snprintf(err, n, "%s:%d: at most %d hosts", b->ini->file, s->line, FL_MAX_HOSTS);
        scenario_note(b->errs, err);
        return -1;
    }
    struct host_spec *h = &sc->hosts[sc->nhosts++];
    memset(h, 0, sizeof *h);
    h->line = s->line;
    snprintf(h->name, sizeof h->name, "%s", s->name);
    struct key_table keys = scenario_general_keys(S_HOST);
    if (key_defaults(h, keys.keys, keys.n, err, n) != 0) {
        scenario_note(b->errs, err);
        return -1;
    }
    unsigned before = b->errs->n;
    for (size_t k = 0; k < s->n; k++) {
        const struct ini_entry *e = &s->entries[k];
        if (plain_entry(b, s, k, err, n) != 0) {
            scenario_note(b->errs, err);
            continue;
        }
        const struct key_def *def = key_find(keys.keys, keys.n, e->key);
        if (!def) {
            unknown_key(b, S_HOST, e, err, n);
            scenario_note(b->errs, err);
        } else if (set_key(b, h, def, e, err, n) != 0) {
            scenario_note(b->errs, err);
        }
    }
    if (b->errs->n > before)
        return -1; /* the ssh keys are checked together once each is good */
    if (check_host_ssh(b->ini->file, s, h, err, n) != 0 ||
        check_host_power(b->ini->file, s, h, err, n) != 0) {
        scenario_note(b->errs, err);
        return -1;
    }
    return 0;
}

/* Which sections there are, named or not, each once. */
static int check_section(const struct ini *ini, size_t i, int *type, char *err, size_t n)
{
    const struct ini_section *s = &ini->sections[i];
    *type = scenario_section_of(s->type);
    if (*type < 0) {
        snprintf(err, n, "%s:%d: unknown section [%s] (known: scenario, target, workload, lab, "
                 "expect, fault NAME, host NAME, cluster, thrash)", ini->file, s->line, s->type);
        return -1;
    }
    bool named = *type == S_FAULT || *type == S_HOST;
    if (s->name && !named && *type != S_WORKLOAD) {
        snprintf(err, n, "%s:%d: [%s] takes no name", ini->file, s->line, s->type);
        return -1;
    }
    if (named && !s->name) {
        snprintf(err, n, "%s:%d: [%s] needs a name: [%s NAME]", ini->file, s->line, s->type,
                 s->type);
        return -1;
    }
    for (size_t j = 0; j < i && !named; j++)
        if (strcmp(ini->sections[j].type, s->type) == 0) {
            snprintf(err, n, "%s:%d: a second [%s] section (the first is at line %d); one %s per "
                     "scenario", ini->file, s->line, s->type, ini->sections[j].line, s->type);
            return -1;
        }
    return 0;
}

/* Every section, going on past each mistake (the sections after it are
 * checked too); -1 when there was any (b->errs has them all). */
static int bind_sections(struct binding *b, char *err, size_t n)
{
    const struct ini *ini = b->ini;
    unsigned before = b->errs->n;
    for (size_t i = 0; i < ini->n; i++) {
        const struct ini_section *s = &ini->sections[i];
        int type;
        if (check_section(ini, i, &type, err, n) != 0) {
            scenario_note(b->errs, err);
            continue;
        }
        /* each binder notes its own mistakes and goes on */
        if (type == S_FAULT)
            bind_fault(b, s, err, n);
        else if (type == S_HOST)
            bind_host(b, s, err, n);
        else if (type == S_THRASH)
            bind_thrash(b, s, err, n);
        else if (type == S_EXPECT)
            for (size_t k = 0; k < s->n; k++) {
                if (scenario_add_expectation(ini, b->sc, -1, &s->entries[k], err, n) != 0)
                    scenario_note(b->errs, err);
            }
        else
            bind_plain(b, type, s, err, n);
    }
    return b->errs->n > before ? -1 : 0;
}

/* [scenario] lab and [target] kind: which kinds the rest is about. */
static int resolve_kinds(struct binding *b, char *err, size_t n)
{
    struct scenario *sc = b->sc;
    const struct ini *ini = b->ini;
    if (strcmp(sc->lab_name, "none") != 0 && !(sc->lab = lab_kind_find(sc->lab_name))) {
        char names[128] = "none";
        const struct lab_kind *const *kinds;
        unsigned nk = lab_kinds_all(&kinds);
        for (unsigned i = 0; i < nk; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "|%s", kinds[i]->name);
        snprintf(err, n, "%s:%d: lab: '%s' is not one of %s", ini->file,
                 scenario_line_of(ini, "scenario", "lab"), sc->lab_name, names);
        return -1;
    }
    if (sc->lab && key_defaults(&sc->lab_opts, sc->lab->keys.keys, sc->lab->keys.n, err, n) != 0)
        return -1;
    bool have_target = false;
    for (size_t i = 0; i < ini->n; i++)
        have_target |= strcmp(ini->sections[i].type, "target") == 0;
    if (!have_target) {
        snprintf(err, n, "%s: no [target] section (say what to test: kind and path)", ini->file);
        return -1;
    }
    if (!sc->target.kind[0]) {
        snprintf(err, n, "%s:%d: [target] needs 'kind' (%s)", ini->file,
                 scenario_line_of(ini, "target", NULL), backend_kinds());
        return -1;
    }
    if (!(sc->backend = backend_find(sc->target.kind))) {
        snprintf(err, n, "%s:%d: kind: unknown target kind '%s' (known: %s)", ini->file,
                 scenario_line_of(ini, "target", "kind"), sc->target.kind, backend_kinds());
        return -1;
    }
    const struct backend_ops *o = sc->backend;
    if (key_defaults(&sc->target, o->target_keys.keys, o->target_keys.n, err, n) != 0 ||
        key_defaults(&sc->target, o->workload_keys.keys, o->workload_keys.n, err, n) != 0)
        return -1;
    int rc = 0;
    for (unsigned i = 0; i < b->ndeferred; i++)
        if (bind_deferred(b, b->deferred_section[i], b->deferred[i], err, n) != 0) {
            scenario_note(b->errs, err); /* each one: the others are checked too */
            rc = -1;
        }
    if (rc != 0)
        err[0] = '\0'; /* noted already */
    return rc;
}

/* The workload as the engine reads it, and the target's engine. */
static void derive(struct scenario *sc)
{
    struct workload_cfg *w = &sc->workload;
    w->block_size = (uint32_t)sc->block;
    w->pattern = sc->pattern_choice == 0 ? PATTERN_RANDOM : PATTERN_SEQUENTIAL;
    w->depth = (unsigned)sc->depth;
    w->flush_every = sc->flush > UINT32_MAX ? UINT32_MAX : (unsigned)sc->flush;
    w->duration_ns = sc->duration_ns;
    w->seed = sc->seed;
    w->prefill = sc->prefill;
    sc->target.direct = sc->direct;
    sc->target.engine = sc->engine_choice == 1   ? ENGINE_URING
                        : sc->engine_choice == 2 ? ENGINE_SYNC
                        : sc->target.direct      ? ENGINE_URING
                                                 : ENGINE_SYNC;
}

/* Name of the scenario from its file: basename without ".scn". */
static void name_from_file(const char *file, char *out, size_t n)
{
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    size_t l = strlen(b);
    if (l > 4 && strcmp(b + l - 4, ".scn") == 0)
        l -= 4;
    if (l >= n)
        l = n - 1;
    memcpy(out, b, l);
    out[l] = '\0';
}

static void note_to(void *ctx, const char *msg)
{
    scenario_note(ctx, msg);
}

/* A seed for a thrash whose scenario gave none: the schedule is drawn at
 * once, and the run uses the same seed. */
static uint64_t fresh_seed(void)
{
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s)
        s = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return s;
}

/* The mistakes of the drawn text, each said at [thrash]'s line with the
 * drawn fault its line is in (the text's own lines past the file's end
 * mean nothing to whoever reads the message). */
static void drawn_mistakes(const char *full, const char *file, int line, const char *found,
                           struct errlist *errs)
{
    size_t fl = strlen(file);
    for (const char *m = found; *m;) {
        const char *nl = strchr(m, '\n');
        size_t len = nl ? (size_t)(nl - m) : strlen(m);
        char what[128] = "a drawn fault", msg[FL_ERRLEN];
        const char *rest = m;
        if (len > fl + 1 && strncmp(m, file, fl) == 0 && m[fl] == ':') {
            int at = atoi(m + fl + 1);
            rest = strchr(m + fl + 1, ':');
            rest = rest && rest < m + len ? rest + 1 + (rest[1] == ' ') : m;
            /* the header of the section that line is in */
            const char *p = full, *header = NULL;
            for (int k = 1; *p && k <= at; k++) {
                if (strncmp(p, "[fault ", 7) == 0)
                    header = p;
                p = strchr(p, '\n');
                if (!p)
                    break;
                p++;
            }
            if (header)
                snprintf(what, sizeof what, "%.*s", (int)strcspn(header, "\n"), header);
        }
        snprintf(msg, sizeof msg, "%s:%d: [thrash] drew %s, which does not hold: %.*s", file,
                 line, what, (int)(len - (size_t)(rest - m)), rest);
        scenario_note(errs, msg);
        m += len + (nl != NULL);
    }
}

/* [thrash]: the schedule drawn, and the scenario parsed again as the text
 * it becomes (thrash.h), so that a run runs what schedule.scn says. */
static void expand_thrash(const char *text, const char *file, struct scenario *sc,
                          struct errlist *errs)
{
    struct thrash_spec *t = &sc->thrash;
    if (thrash_read(t, file, scenario_general_keys(S_FAULT), note_to, errs) != 0)
        return;
    char one[FL_ERRLEN];
    uint64_t seed = sc->seed_given ? sc->seed : fresh_seed();
    if (thrash_draw(t, seed, sc->duration_ns, FL_MAX_FAULTS - sc->nfaults, one, sizeof one) != 0) {
        char msg[FL_ERRLEN + 64];
        snprintf(msg, sizeof msg, "%s:%d: [thrash]: %s", file, t->line, one);
        scenario_note(errs, msg);
        return;
    }
    char *full = thrash_schedule_text(text, t, false, NULL);
    struct scenario *x = malloc(sizeof *x);
    struct thrash_spec *keep = malloc(sizeof *keep);
    if (!full || !x || !keep) {
        scenario_note(errs, "out of memory drawing the [thrash] schedule");
    } else if (scenario_parse(full, file, x, one, sizeof one) != 0) {
        drawn_mistakes(full, file, t->line, one, errs);
    } else {
        *keep = *t;
        *sc = *x;
        sc->thrash = *keep;
        sc->thrash.seed_drawn = !sc->seed_given;
        sc->first_drawn = sc->nfaults - keep->ndrawn;
        sc->seed = seed;
        sc->seed_given = true;
        sc->workload.seed = seed;
    }
    free(full);
    free(x);
    free(keep);
}

int scenario_parse(const char *text, const char *file, struct scenario *sc, char *err,
                   size_t errlen)
{
    memset(sc, 0, sizeof *sc);
    snprintf(sc->file, sizeof sc->file, "%s", file);
    struct key_table t = scenario_general_keys(S_SCENARIO), tt = scenario_general_keys(S_TARGET),
                     wt = scenario_general_keys(S_WORKLOAD), lt = scenario_general_keys(S_LAB);
    if (key_defaults(sc, t.keys, t.n, err, errlen) != 0 ||
        key_defaults(sc, tt.keys, tt.n, err, errlen) != 0 ||
        key_defaults(sc, wt.keys, wt.n, err, errlen) != 0 ||
        key_defaults(&sc->lab_opts, lt.keys, lt.n, err, errlen) != 0 ||
        key_defaults(&sc->thrash, thrash_keys().keys, thrash_keys().n, err, errlen) != 0)
        return -1;
    struct ini ini;
    if (ini_parse(text, file, &ini, err, errlen) != 0)
        return -1;
    struct binding *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        ini_free(&ini);
        return -1;
    }
    /* Every mistake goes to err, one per line: the keys and sections
     * first (all of them), then, once each key has its place, the rules
     * that hold between them. */
    err[0] = '\0';
    struct errlist errs = {.out = err, .cap = errlen};
    char one[FL_ERRLEN];
    *b = (struct binding){.ini = &ini, .sc = sc, .errs = &errs};
    if (bind_sections(b, one, sizeof one) == 0 && resolve_kinds(b, one, sizeof one) != 0 &&
        one[0])
        scenario_note(&errs, one);
    if (!errs.n) {
        if (!sc->name[0])
            name_from_file(file, sc->name, sizeof sc->name);
        derive(sc);
        if (scenario_check_kind(sc, &ini, one, sizeof one) != 0)
            scenario_note(&errs, one);
        scenario_check_workload(sc, &ini, &errs);
        scenario_check_faults(sc, file, &errs);
        scenario_check_outcome(sc, &ini, &errs);
        if (scenario_check_cluster(sc, &ini, one, sizeof one) != 0)
            scenario_note(&errs, one);
        sc->first_drawn = sc->nfaults;
        if (!errs.n && sc->thrash.line)
            expand_thrash(text, file, sc, &errs);
    }
    free(b);
    ini_free(&ini);
    return scenario_noted(&errs);
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
    char *text = ini_read_file(path, err, errlen);
    if (!text)
        return -1;
    int rc = scenario_parse(text, path, sc, err, errlen);
    free(text);
    return rc;
}

bool scenario_lab_places(const struct scenario *sc)
{
    return scenario_lab_serves(sc) && !sc->target.located;
}

int scenario_use_lab(struct scenario *sc, const struct lab *lab, unsigned client, char *err,
                     size_t errlen)
{
    if (!scenario_lab_places(sc) || !sc->backend->place)
        return 0;
    struct lab_place p;
    lab_place_for(lab, client, &p);
    return sc->backend->place(&sc->target, p.where, err, errlen);
}
