/* scenario — see scenario.h.  The table `keys` is the scenario reference. */
#include "scenario.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/block.h"
#include "ini.h"
#include "units.h"

enum ktype { K_STRING, K_SIZE, K_DURATION, K_PERCENT, K_BOOL, K_COUNT, K_CHOICE };

struct key {
    const char *section;
    const char *key;
    enum ktype type;
    const char *def;     /* default as it would be written; NULL: see help */
    const char *choices; /* K_CHOICE: "a|b|c" */
    size_t off;          /* field in struct scenario */
    size_t len;          /* K_STRING: buffer size */
    uint64_t min, max;   /* K_COUNT, K_SIZE, K_DURATION: allowed range (max 0: none) */
    const char *help;
};

#define F(field) offsetof(struct scenario, field), sizeof(((struct scenario *)0)->field)

static const struct key keys[] = {
    {"scenario", "name", K_STRING, NULL, NULL, F(name), 0, 0,
     "names the run and its directory (default: the file name without .scn)"},
    {"scenario", "description", K_STRING, NULL, NULL, F(description), 0, 0,
     "one line for the report"},
    {"scenario", "duration", K_DURATION, "10s", NULL, F(duration_ns), 1000000, 0,
     "how long the workload runs (then: final flush and a sweep over every written block)"},
    {"scenario", "seed", K_COUNT, NULL, NULL, F(seed), 0, 0,
     "seed of the op sequence; the same seed repeats the same ops (default: random, "
     "printed in the report)"},
    {"scenario", "journal", K_BOOL, "yes", NULL, F(journal), 0, 0,
     "journal write intents so that `faultline verify` works even after a crash"},
    {"scenario", "journal_segment", K_SIZE, NULL, NULL, F(journal_segment), 1u << 16, 0,
     "journal size before a state checkpoint starts a new segment (default: 64 MiB or 4 "
     "times the state map, the larger)"},
    {"scenario", "findings_limit", K_COUNT, "10000", NULL, F(findings_limit), 1, 0,
     "findings listed in detail (counts always cover all)"},
    {"scenario", "lab", K_CHOICE, "none", "none|iscsi", F(lab_choice), 0, 0,
     "bring up this embedded lab for the run (and take it down after, unless --keep-lab); an "
     "iscsi target without portals then means the lab LUN through both controllers"},

    {"target", "kind", K_STRING, NULL, NULL, F(target.kind), 0, 0,
     "file or blockdev (required)"},
    {"target", "path", K_STRING, NULL, NULL, F(target.path), 0, 0,
     "the file or device (required)"},
    {"target", "size", K_SIZE, NULL, NULL, F(target.size), FL_BLOCK_MIN, 0,
     "bytes to test; a file is created or extended to it (default: the whole device or "
     "existing file)"},
    {"target", "sync", K_BOOL, "no", NULL, F(target.sync), 0, 0,
     "open with O_DSYNC: every write is durable when it completes"},
    {"target", "portals", K_STRING, NULL, NULL, F(portals_text), 0, 0,
     "iscsi: paths to one LUN, comma-separated iscsi://HOST[:PORT]/IQN/LUN; the first that "
     "logs in carries I/O, the next takes over when it fails"},
    {"target", "fua", K_BOOL, "no", NULL, F(target.iscsi.fua), 0, 0,
     "iscsi: every write with FUA, durable when it completes"},
    {"target", "command_timeout", K_DURATION, "5s", NULL, F(command_timeout_ns), 1000000000ull,
     3600000000000ull, "iscsi: a command unanswered this long fails its path (whole seconds)"},
    {"target", "tcp_user_timeout", K_DURATION, "5s", NULL, F(tcp_user_timeout_ns), 100000000ull,
     3600000000000ull, "iscsi: data unacknowledged this long breaks the connection"},
    {"target", "nop_interval", K_DURATION, "1s", NULL, F(nop_interval_ns), 100000000ull,
     3600000000000ull, "iscsi: a NOP-Out on every path this often"},
    {"target", "nop_missed", K_COUNT, "3", NULL, F(nop_missed), 1, 1000,
     "iscsi: NOP-Outs without answer before the path counts as dead"},
    {"target", "io_timeout", K_DURATION, "30s", NULL, F(io_timeout_ns), 1000000000ull, 0,
     "iscsi: an I/O that finds no healthy path this long fails"},
    {"target", "login_timeout", K_DURATION, "10s", NULL, F(login_timeout_ns), 1000000000ull, 0,
     "iscsi: connecting and logging in on a path"},
    {"target", "retry_interval", K_DURATION, "1s", NULL, F(retry_interval_ns), 100000000ull, 0,
     "iscsi: a dead path is tried again this often"},

    {"workload", "block", K_SIZE, "4KiB", NULL, F(block), FL_BLOCK_MIN, FL_BLOCK_MAX,
     "block size, 512 B to 1 MiB in steps of 512 B"},
    {"workload", "pattern", K_CHOICE, "random", "random|sequential", F(pattern_choice), 0, 0,
     "which block comes next"},
    {"workload", "read", K_PERCENT, "50%", NULL, F(workload.read_pct), 0, 0,
     "share of reads; every read is verified"},
    {"workload", "depth", K_COUNT, "8", NULL, F(depth), 1, 4096,
     "reads and writes in flight"},
    {"workload", "flush", K_COUNT, "64", NULL, F(flush), 0, 0,
     "writes between flushes (fdatasync), counted per worker; 0: only at the end of the "
     "run"},
    {"workload", "direct", K_BOOL, "no", NULL, F(direct), 0, 0,
     "O_DIRECT for files (block devices always use it)"},
    {"workload", "engine", K_CHOICE, "auto", "auto|io_uring|sync", F(engine_choice), 0, 0,
     "how I/O is issued: io_uring keeps `depth` I/Os in flight from one thread; sync runs "
     "one thread per I/O in flight with pread/pwrite (auto: io_uring with O_DIRECT, sync "
     "for buffered files, where the kernel would hand io_uring's work to helper threads)"},
    {"workload", "workers", K_COUNT, NULL, NULL, F(workers), 1, 256,
     "io_uring (or iscsi) threads sharing `depth`, each owning every workers-th block "
     "(default 1)"},

    {"lab", "write_cache", K_BOOL, "off", NULL, F(lab_write_cache), 0, 0,
     "the lab LUN acknowledges writes from its cache (on) or only once they are on disk "
     "(off)"},
    {"lab", "size", K_SIZE, "256MiB", NULL, F(lab_size), 1u << 20, 0,
     "size of the lab LUN (a sparse file shared by both controllers)"},
};

#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const sections[] = {"scenario", "target", "workload", "lab"};
#define NSECTIONS (sizeof sections / sizeof sections[0])

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    size_t d[32][32];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

static const struct key *find_key(const char *section, const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0)
            return &keys[i];
    return NULL;
}

/* "; did you mean 'block'? known keys: a, b, c" */
static void unknown_key_hint(const char *section, const char *key, char *out, size_t n)
{
    const char *best = NULL;
    size_t bestd = 3;
    size_t used = 0;
    char known[512] = "";
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].section, section) != 0)
            continue;
        size_t d = edit_distance(key, keys[i].key);
        if (d < bestd) {
            bestd = d;
            best = keys[i].key;
        }
        used += (size_t)snprintf(known + used, used < sizeof known ? sizeof known - used : 0,
                                 "%s%s", used ? ", " : "", keys[i].key);
    }
    if (best)
        snprintf(out, n, "; did you mean '%s'? (known keys: %s)", best, known);
    else
        snprintf(out, n, " (known keys: %s)", known);
}

static int set_value(struct scenario *sc, const struct key *k, const char *value, char *why,
                     size_t n)
{
    char *field = (char *)sc + k->off;
    uint64_t u;
    switch (k->type) {
    case K_STRING:
        if (strlen(value) >= k->len) {
            snprintf(why, n, "value longer than %zu characters", k->len - 1);
            return -1;
        }
        memcpy(field, value, strlen(value) + 1);
        return 0;
    case K_SIZE:
    case K_DURATION:
    case K_COUNT:
        if ((k->type == K_SIZE ? parse_size(value, &u, why, n)
             : k->type == K_DURATION ? parse_duration(value, &u, why, n)
                                     : parse_count(value, &u, why, n)) != 0)
            return -1;
        if (u < k->min || (k->max && u > k->max)) {
            if (k->type == K_DURATION)
                snprintf(why, n, "'%s' is too short (at least %llu ms)", value,
                         (unsigned long long)(k->min / 1000000));
            else if (k->max)
                snprintf(why, n, "'%s' is out of range (%llu to %llu)", value,
                         (unsigned long long)k->min, (unsigned long long)k->max);
            else
                snprintf(why, n, "'%s' is too small (at least %llu)", value,
                         (unsigned long long)k->min);
            return -1;
        }
        memcpy(field, &u, sizeof u);
        return 0;
    case K_PERCENT: {
        unsigned p;
        if (parse_percent(value, &p, why, n) != 0)
            return -1;
        memcpy(field, &p, sizeof p);
        return 0;
    }
    case K_BOOL: {
        bool b;
        if (parse_bool(value, &b, why, n) != 0)
            return -1;
        memcpy(field, &b, sizeof b);
        return 0;
    }
    case K_CHOICE: {
        const char *c = k->choices;
        int idx = 0;
        size_t vl = strlen(value);
        while (*c) {
            size_t l = strcspn(c, "|");
            if (l == vl && strncmp(c, value, l) == 0) {
                memcpy(field, &idx, sizeof idx);
                return 0;
            }
            c += l + (c[l] == '|');
            idx++;
        }
        snprintf(why, n, "'%s' is not one of %s", value, k->choices);
        return -1;
    }
    }
    return -1;
}

void scenario_use_portals(struct scenario *sc, char urls[][FL_URL_MAX], unsigned n)
{
    struct iscsi_cfg *c = &sc->target.iscsi;
    c->nportals = 0;
    for (unsigned i = 0; i < n && i < FL_MAX_PORTALS; i++)
        snprintf(c->portals[c->nportals++], FL_URL_MAX, "%s", urls[i]);
}

static int set_defaults(struct scenario *sc, char *err, size_t n)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (!keys[i].def)
            continue;
        char why[256];
        if (set_value(sc, &keys[i], keys[i].def, why, sizeof why) != 0) {
            snprintf(err, n, "internal: default of %s.%s: %s", keys[i].section, keys[i].key, why);
            return -1;
        }
    }
    return 0;
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

/* Line of key in the first section of that type (the section's line when the
 * key is absent), for messages about combinations. */
static int line_of(const struct ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++) {
        if (strcmp(ini->sections[i].type, section) != 0)
            continue;
        for (size_t k = 0; k < ini->sections[i].n; k++)
            if (strcmp(ini->sections[i].entries[k].key, key) == 0)
                return ini->sections[i].entries[k].line;
        return ini->sections[i].line;
    }
    return 1;
}

/* "iscsi://a/iqn/1, iscsi://b/iqn/1" -> target.iscsi.portals[] */
static int split_portals(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    struct iscsi_cfg *c = &sc->target.iscsi;
    c->nportals = 0;
    const char *p = sc->portals_text;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ", ");
        if (!len)
            break;
        if (c->nportals == FL_MAX_PORTALS) {
            snprintf(err, n, "%s:%d: portals: at most %d", ini->file,
                     line_of(ini, "target", "portals"), FL_MAX_PORTALS);
            return -1;
        }
        if (len >= FL_URL_MAX || strncmp(p, "iscsi://", 8) != 0) {
            snprintf(err, n, "%s:%d: portals: '%.*s' is not iscsi://HOST[:PORT]/IQN/LUN",
                     ini->file, line_of(ini, "target", "portals"), (int)(len < 200 ? len : 200),
                     p);
            return -1;
        }
        memcpy(c->portals[c->nportals], p, len);
        c->portals[c->nportals++][len] = '\0';
        p += len;
    }
    return 0;
}

/* Checks that only make sense with the whole scenario in view. */
static int check_whole(struct scenario *sc, const struct ini *ini, char *err, size_t n)
{
    int target_line = 0;
    for (size_t i = 0; i < ini->n; i++)
        if (strcmp(ini->sections[i].type, "target") == 0)
            target_line = ini->sections[i].line;
    if (!target_line) {
        snprintf(err, n, "%s: no [target] section (say what to test: kind and path)", ini->file);
        return -1;
    }
    if (!sc->target.kind[0]) {
        snprintf(err, n, "%s:%d: [target] needs 'kind' (%s)", ini->file, target_line,
                 backend_kinds());
        return -1;
    }
    bool iscsi = strcmp(sc->target.kind, "iscsi") == 0;
    if (!iscsi && !sc->target.path[0]) {
        snprintf(err, n, "%s:%d: [target] needs 'path'", ini->file, target_line);
        return -1;
    }
    if (iscsi && sc->target.path[0]) {
        snprintf(err, n, "%s:%d: path: kind = iscsi takes portals, not a path", ini->file,
                 line_of(ini, "target", "path"));
        return -1;
    }
    if (iscsi && !sc->portals_text[0] && sc->lab_choice != 1) {
        snprintf(err, n, "%s:%d: [target] kind = iscsi needs portals (or [scenario] lab = iscsi "
                 "for the embedded lab)", ini->file, target_line);
        return -1;
    }
    if (!iscsi && sc->portals_text[0]) {
        snprintf(err, n, "%s:%d: portals: only for kind = iscsi", ini->file,
                 line_of(ini, "target", "portals"));
        return -1;
    }
    if (sc->portals_text[0] && split_portals(sc, ini, err, n) != 0)
        return -1;
    if (sc->block % FL_SECTOR != 0) {
        snprintf(err, n, "%s:%d: block: %llu is not a multiple of 512", ini->file,
                 line_of(ini, "workload", "block"), (unsigned long long)sc->block);
        return -1;
    }
    bool direct = sc->direct || strcmp(sc->target.kind, "blockdev") == 0;
    bool sync = !iscsi && (sc->engine_choice == 2 || (sc->engine_choice == 0 && !direct));
    if (sync && sc->workers) {
        snprintf(err, n, "%s:%d: workers: the sync engine runs one worker per I/O in flight "
                 "(depth); workers applies to engine = io_uring", ini->file,
                 line_of(ini, "workload", "workers"));
        return -1;
    }
    if (sync && sc->depth > 256) {
        snprintf(err, n, "%s:%d: depth: at most 256 with the sync engine (one thread per I/O "
                 "in flight); use engine = io_uring for more", ini->file,
                 line_of(ini, "workload", "depth"));
        return -1;
    }
    if (sc->workers > sc->depth) {
        snprintf(err, n, "%s:%d: workers: %llu workers need depth >= %llu", ini->file,
                 line_of(ini, "workload", "workers"), (unsigned long long)sc->workers,
                 (unsigned long long)sc->workers);
        return -1;
    }
    if (sc->target.size && sc->target.size < sc->block) {
        snprintf(err, n, "%s:%d: size: %llu bytes is smaller than one block (%llu)", ini->file,
                 line_of(ini, "target", "size"), (unsigned long long)sc->target.size,
                 (unsigned long long)sc->block);
        return -1;
    }
    return 0;
}

static int bind(const struct ini *ini, struct scenario *sc, char *err, size_t n)
{
    for (size_t i = 0; i < ini->n; i++) {
        const struct ini_section *s = &ini->sections[i];
        size_t t = 0;
        while (t < NSECTIONS && strcmp(sections[t], s->type) != 0)
            t++;
        if (t == NSECTIONS) {
            snprintf(err, n, "%s:%d: unknown section [%s] (known: scenario, target, workload, lab)",
                     ini->file, s->line, s->type);
            return -1;
        }
        if (s->name && strcmp(s->type, "workload") != 0 && strcmp(s->type, "lab") != 0) {
            snprintf(err, n, "%s:%d: [%s] takes no name", ini->file, s->line, s->type);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(ini->sections[j].type, s->type) == 0) {
                snprintf(err, n, "%s:%d: a second [%s] section (the first is at line %d); one "
                         "%s per scenario", ini->file, s->line, s->type, ini->sections[j].line,
                         s->type);
                return -1;
            }
        for (size_t k = 0; k < s->n; k++) {
            const struct ini_entry *e = &s->entries[k];
            const struct key *spec = find_key(s->type, e->key);
            if (!spec) {
                char hint[640];
                unknown_key_hint(s->type, e->key, hint, sizeof hint);
                snprintf(err, n, "%s:%d: unknown key '%s' in [%s]%s", ini->file, e->line, e->key,
                         s->type, hint);
                return -1;
            }
            for (size_t p = 0; p < k; p++)
                if (strcmp(s->entries[p].key, e->key) == 0) {
                    snprintf(err, n, "%s:%d: '%s' is set twice in [%s] (first at line %d)",
                             ini->file, e->line, e->key, s->type, s->entries[p].line);
                    return -1;
                }
            char why[300];
            if (set_value(sc, spec, e->value, why, sizeof why) != 0) {
                snprintf(err, n, "%s:%d: %s: %s", ini->file, e->line, e->key, why);
                return -1;
            }
            if (strcmp(e->key, "seed") == 0)
                sc->seed_given = true;
            if (strcmp(s->type, "target") == 0 && strcmp(e->key, "kind") == 0 &&
                !backend_find(e->value)) {
                snprintf(err, n, "%s:%d: kind: unknown target kind '%s' (known: %s)", ini->file,
                         e->line, e->value, backend_kinds());
                return -1;
            }
        }
    }
    return 0;
}

static void derive(struct scenario *sc)
{
    struct workload_cfg *w = &sc->workload;
    w->block_size = (uint32_t)sc->block;
    w->pattern = sc->pattern_choice == 0 ? PATTERN_RANDOM : PATTERN_SEQUENTIAL;
    w->depth = (unsigned)sc->depth;
    w->flush_every = sc->flush > UINT32_MAX ? UINT32_MAX : (unsigned)sc->flush;
    w->duration_ns = sc->duration_ns;
    w->seed = sc->seed;
    sc->target.direct = sc->direct || strcmp(sc->target.kind, "blockdev") == 0;
    sc->target.engine = sc->engine_choice == 1   ? ENGINE_URING
                        : sc->engine_choice == 2 ? ENGINE_SYNC
                        : sc->target.direct      ? ENGINE_URING
                                                 : ENGINE_SYNC;
    struct iscsi_cfg *c = &sc->target.iscsi;
    if (strcmp(sc->target.kind, "iscsi") == 0) {
        sc->target.engine = ENGINE_URING; /* libiscsi is asynchronous: one thread, depth commands */
        sc->target.direct = true;
    }
    c->command_timeout_s = (unsigned)((sc->command_timeout_ns + 999999999ull) / 1000000000ull);
    c->tcp_user_timeout_ms = (unsigned)(sc->tcp_user_timeout_ns / 1000000ull);
    c->nop_interval_ms = (unsigned)(sc->nop_interval_ns / 1000000ull);
    c->nop_missed = (unsigned)sc->nop_missed;
    c->io_timeout_ns = sc->io_timeout_ns;
    c->login_timeout_ns = sc->login_timeout_ns;
    c->retry_interval_ns = sc->retry_interval_ns;
}

int scenario_parse(const char *text, const char *file, struct scenario *sc, char *err,
                   size_t errlen)
{
    memset(sc, 0, sizeof *sc);
    snprintf(sc->file, sizeof sc->file, "%s", file);
    if (set_defaults(sc, err, errlen) != 0)
        return -1;
    struct ini ini;
    if (ini_parse(text, file, &ini, err, errlen) != 0)
        return -1;
    int rc = bind(&ini, sc, err, errlen);
    if (rc == 0)
        rc = check_whole(sc, &ini, err, errlen);
    ini_free(&ini);
    if (rc != 0)
        return -1;
    if (!sc->name[0])
        name_from_file(file, sc->name, sizeof sc->name);
    derive(sc);
    return 0;
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

static const char *type_name(enum ktype t)
{
    switch (t) {
    case K_STRING:
        return "text";
    case K_SIZE:
        return "size";
    case K_DURATION:
        return "duration";
    case K_PERCENT:
        return "percent";
    case K_BOOL:
        return "yes/no";
    case K_COUNT:
        return "count";
    case K_CHOICE:
        return "choice";
    }
    return "?";
}

void scenario_reference(FILE *out)
{
    for (size_t s = 0; s < NSECTIONS; s++) {
        fprintf(out, "[%s]\n", sections[s]);
        for (size_t i = 0; i < NKEYS; i++) {
            const struct key *k = &keys[i];
            if (strcmp(k->section, sections[s]) != 0)
                continue;
            fprintf(out, "  %-16s %-9s", k->key,
                    k->type == K_CHOICE ? k->choices : type_name(k->type));
            if (k->def)
                fprintf(out, " default %s", k->def);
            fprintf(out, "\n      %s\n", k->help);
        }
        fprintf(out, "\n");
    }
    fprintf(out, "Sizes: 512, 4k, 4KiB, 64MiB, 1GiB (binary units, as in fio).\n"
                 "Durations: 500ms, 10s, 2m, 1h; a bare number is seconds.\n"
                 "Comments start with # or ; (inline: after a blank).\n");
}
