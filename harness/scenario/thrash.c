/* thrash — a [thrash] section read, its schedule drawn and written as
 * [fault] sections (see thrash.h). */
#include "thrash.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../../faults/table.h"
#include "../../lib/rng.h"
#include "../../lib/units.h"

#define T(field) KEY_FIELD(struct thrash_spec, field)

static const struct key_def keys[] = {
    {"actions", KEY_TEXT, NULL, NULL, T(actions_text), 0, 0,
     "the fault actions to draw from, each with an optional weight: kill:3, power-off, "
     "link-down (required); an action's own keys are written once as ACTION.KEY = VALUE "
     "(kill.process = brick), and ACTION.host pins it to one host (switch-down.host = switch)",
     0},
    {"hosts", KEY_TEXT, NULL, NULL, T(hosts_text), 0, 0,
     "the hosts faults may hit: lab hosts or [host] names, comma-separated", 0},
    {"max_faulted", KEY_COUNT, "1", NULL, T(max_faulted), 1, THRASH_MAX_HOSTS,
     "at most this many hosts under a fault at once (what keeps quorum): an action that "
     "would break it is not drawn", 0},
    {"gap", KEY_TEXT, "10s..60s", NULL, T(gap_text), 0, 0,
     "time from one fault's inject to the next one's, drawn in MIN..MAX (or one duration)", 0},
    {"hold", KEY_TEXT, "5s..30s", NULL, T(hold_text), 0, 0,
     "how long each fault holds, drawn in MIN..MAX: its duration, restart_after or "
     "power_on_after (actions without one keep their own length)", 0},
    {"settle", KEY_CHOICE, "whole", "none|whole", T(settle), 0, 0,
     "whole: before each fault, wait until no fault is in effect and the storage is whole "
     "(each drawn fault gets settle = whole); none: never wait", 0},
    {"settle_command", KEY_TEXT, NULL, NULL, T(settle_command), 0, 0,
     "settle = whole: a command that says the storage is whole by exiting 0 (as the [fault] "
     "key; default: the lab's or [cluster]'s own heal or recovery)", 0},
    {"settle_timeout", KEY_DURATION, "5m", NULL, T(settle_timeout_ns), 1000000000ull,
     86400000000000ull, "settle = whole: given up after this long without progress", 0},
    {"start", KEY_DURATION, "10s", NULL, T(start_ns), 0, 86400000000000ull,
     "the first fault's time, from the start of the workload", 0},
    {"quiet_end", KEY_DURATION, "30s", NULL, T(quiet_end_ns), 0, 86400000000000ull,
     "the end of the workload left without faults: the last fault is cleared before it, so "
     "that its recovery is measured", 0},
};

struct key_table thrash_keys(void)
{
    return (struct key_table)KEY_TABLE(keys);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t l = strlen(s);
    while (l && isspace((unsigned char)s[l - 1]))
        s[--l] = '\0';
    return s;
}

int thrash_keep_entry(struct thrash_spec *t, const char *file, int line, const char *key,
                      const char *value, char *err, size_t n)
{
    const char *dot = strchr(key, '.');
    size_t al = dot ? (size_t)(dot - key) : 0;
    if (!dot || al == 0 || al >= sizeof t->entries[0].action || !dot[1]) {
        snprintf(err, n, "%s:%d: '%s': an action's key is written ACTION.KEY", file, line, key);
        return -1;
    }
    if (t->nentries == sizeof t->entries / sizeof t->entries[0]) {
        snprintf(err, n, "%s:%d: too many ACTION.KEY lines", file, line);
        return -1;
    }
    struct thrash_entry *e = &t->entries[t->nentries];
    if (strlen(dot + 1) >= sizeof e->key || strlen(value) >= sizeof e->value) {
        snprintf(err, n, "%s:%d: %s: too long", file, line, key);
        return -1;
    }
    memcpy(e->action, key, al);
    e->action[al] = '\0';
    snprintf(e->key, sizeof e->key, "%s", dot + 1);
    snprintf(e->value, sizeof e->value, "%s", value);
    e->line = line;
    t->nentries++;
    return 0;
}

/* "10s..60s" or "10s". */
static int read_range(const char *text, uint64_t *lo, uint64_t *hi, char *why, size_t n)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    char *dots = strstr(buf, "..");
    if (dots)
        *dots = '\0';
    if (parse_duration(trim(buf), lo, why, n) != 0)
        return -1;
    *hi = *lo;
    if (dots && parse_duration(trim(dots + 2), hi, why, n) != 0)
        return -1;
    if (*hi < *lo) {
        snprintf(why, n, "'%s': its end is before its start", text);
        return -1;
    }
    if (*lo < 1000000ull) {
        snprintf(why, n, "'%s': at least 1ms", text);
        return -1;
    }
    return 0;
}

/* Binds an action's own keys into its prototype spec. */
static int bind_proto(struct thrash_action *a, struct key_table common, const char *file,
                      char *err, size_t n)
{
    struct fault_spec *p = &a->proto;
    memset(p, 0, sizeof *p);
    p->ops = a->ops;
    char why[300];
    if (key_defaults(p, common.keys, common.n, why, sizeof why) != 0 ||
        key_defaults(p, a->ops->keys, a->ops->nkeys, why, sizeof why) != 0) {
        snprintf(err, n, "%s: %s", file, why);
        return -1;
    }
    for (unsigned k = 0; k < a->nkeys; k++) {
        const char *key = a->keys[k].key;
        int line = a->keys[k].line;
        if (strcmp(key, "host") == 0) {
            size_t l = strlen(a->keys[k].value);
            if (l >= sizeof a->host) {
                snprintf(err, n, "%s:%d: %s.host: longer than %zu characters", file, line,
                         a->ops->action, sizeof a->host - 1);
                return -1;
            }
            memcpy(a->host, a->keys[k].value, l + 1);
            continue;
        }
        if (strcmp(key, "at") == 0 || strcmp(key, "action") == 0 ||
            strncmp(key, "settle", 6) == 0 || strncmp(key, "expect_", 7) == 0 ||
            (a->ops->hold_key && strcmp(key, a->ops->hold_key) == 0)) {
            snprintf(err, n, "%s:%d: %s.%s: [thrash] draws %s itself", file, line,
                     a->ops->action, key,
                     strncmp(key, "settle", 6) == 0 ? "settle (its settle keys)"
                     : strncmp(key, "expect_", 7) == 0 ? "no expect_* (give them in [expect])"
                                                       : key);
            return -1;
        }
        const struct key_def *d = key_find(common.keys, common.n, key);
        if (!d)
            d = key_find(a->ops->keys, a->ops->nkeys, key);
        if (!d) {
            char takes[512];
            fault_keys_text(a->ops, takes, sizeof takes);
            snprintf(err, n, "%s:%d: %s.%s: action %s takes no key '%s' (it takes:%s)", file,
                     line, a->ops->action, key, a->ops->action, key, takes);
            return -1;
        }
        if (key_set(p, d, a->keys[k].value, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s.%s: %s", file, line, a->ops->action, key, why);
            return -1;
        }
    }
    return 0;
}

typedef void (*note_fn)(void *ctx, const char *msg);

/* One ACTION[:WEIGHT] of the list into t->actions, with its kept keys.
 * 0, or -1 (noted). */
static int read_action(struct thrash_spec *t, char *w, const char *file, struct key_table common,
                       note_fn note, void *ctx)
{
    char err[1200];
    w = trim(w);
    unsigned weight = 1;
    char *colon = strchr(w, ':');
    if (colon) {
        *colon = '\0';
        char *end;
        unsigned long v = strtoul(colon + 1, &end, 10);
        if (end == colon + 1 || *end || v < 1 || v > 1000) {
            snprintf(err, sizeof err, "%s:%d: actions: '%s': a weight is 1..1000", file, t->line,
                     colon + 1);
            note(ctx, err);
            return -1;
        }
        weight = (unsigned)v;
        w = trim(w);
    }
    const struct fault_ops *ops = fault_ops_find(w);
    bool twice = false;
    for (unsigned i = 0; ops && i < t->nactions; i++)
        twice |= t->actions[i].ops == ops;
    if (!ops || twice || t->nactions == THRASH_MAX_ACTIONS) {
        if (!ops)
            snprintf(err, sizeof err, "%s:%d: actions: '%s' is not one of %s", file, t->line, w,
                     fault_actions());
        else
            snprintf(err, sizeof err, "%s:%d: actions: %s", file, t->line,
                     twice ? "an action listed twice" : "too many actions");
        note(ctx, err);
        return -1;
    }
    struct thrash_action *a = &t->actions[t->nactions++];
    memset(a, 0, sizeof *a);
    a->ops = ops;
    a->weight = weight;
    for (unsigned k = 0; k < t->nentries; k++) {
        if (strcmp(t->entries[k].action, w) != 0)
            continue;
        if (a->nkeys == THRASH_MAX_KEYS) {
            snprintf(err, sizeof err, "%s:%d: more than %d keys of action %s", file,
                     t->entries[k].line, THRASH_MAX_KEYS, w);
            note(ctx, err);
            return -1;
        }
        a->keys[a->nkeys++] = t->entries[k];
    }
    if (bind_proto(a, common, file, err, sizeof err) != 0) {
        note(ctx, err);
        return -1;
    }
    return 0;
}

/* hosts = A, B, C into t->hosts.  0, or -1 (noted). */
static int read_hosts(struct thrash_spec *t, const char *file, note_fn note, void *ctx)
{
    char list[512], err[600];
    snprintf(list, sizeof list, "%s", t->hosts_text);
    for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        w = trim(w);
        if (!*w)
            continue;
        if (t->nhosts == THRASH_MAX_HOSTS || strlen(w) >= sizeof t->hosts[0]) {
            snprintf(err, sizeof err, "%s:%d: hosts: at most %d, of up to %zu characters", file,
                     t->line, THRASH_MAX_HOSTS, sizeof t->hosts[0] - 1);
            note(ctx, err);
            return -1;
        }
        snprintf(t->hosts[t->nhosts++], sizeof t->hosts[0], "%s", w);
    }
    bool need_hosts = false;
    for (unsigned i = 0; i < t->nactions; i++)
        need_hosts |= !t->actions[i].host[0];
    if (need_hosts && !t->nhosts) {
        snprintf(err, sizeof err, "%s:%d: [thrash] needs hosts = HOST, ... (the hosts faults "
                 "may hit)", file, t->line);
        note(ctx, err);
        return -1;
    }
    return 0;
}

int thrash_read(struct thrash_spec *t, const char *file, struct key_table common,
                void (*note)(void *ctx, const char *msg), void *ctx)
{
    char err[1200], why[300];
    int bad = 0;
    t->nactions = 0;
    if (!t->actions_text[0]) {
        snprintf(err, sizeof err, "%s:%d: [thrash] needs actions = ACTION[:WEIGHT], ... (%s)",
                 file, t->line, fault_actions());
        note(ctx, err);
        bad = 1;
    }
    char list[512];
    snprintf(list, sizeof list, "%s", t->actions_text);
    for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
        if (read_action(t, w, file, common, note, ctx) != 0)
            bad = 1;
    for (unsigned k = 0; k < t->nentries; k++) {
        bool listed = false;
        for (unsigned i = 0; i < t->nactions; i++)
            listed |= strcmp(t->entries[k].action, t->actions[i].ops->action) == 0;
        if (!listed) {
            snprintf(err, sizeof err, "%s:%d: %s.%s: %s is not among actions (%s)", file,
                     t->entries[k].line, t->entries[k].action, t->entries[k].key,
                     t->entries[k].action, t->actions_text);
            note(ctx, err);
            bad = 1;
        }
    }
    if (read_hosts(t, file, note, ctx) != 0)
        bad = 1;
    if (read_range(t->gap_text, &t->gap_min, &t->gap_max, why, sizeof why) != 0) {
        snprintf(err, sizeof err, "%s:%d: gap: %s", file, t->line, why);
        note(ctx, err);
        bad = 1;
    }
    if (read_range(t->hold_text, &t->hold_min, &t->hold_max, why, sizeof why) != 0) {
        snprintf(err, sizeof err, "%s:%d: hold: %s", file, t->line, why);
        note(ctx, err);
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* How long a drawn fault keeps its host faulted. */
static uint64_t span_of(const struct thrash_action *a, uint64_t hold_ns)
{
    struct fault_spec p = a->proto;
    if (a->ops->hold_key) {
        const struct key_def *d = key_find(a->ops->keys, a->ops->nkeys, a->ops->hold_key);
        if (d)
            memcpy((char *)&p + d->off, &hold_ns, sizeof hold_ns);
    }
    struct fault_schedule s = {.shape = FAULT_LASTING, .clear_after_ns = p.duration_ns};
    if (a->ops->schedule)
        a->ops->schedule(&p, &s);
    switch (s.shape) {
    case FAULT_LASTING:
        return s.clear_after_ns;
    case FAULT_STEPPED:
        return s.steps * s.period_ns;
    case FAULT_INSTANT:
        break;
    }
    return 0;
}

static uint64_t draw_ms(struct rng *r, uint64_t lo, uint64_t hi)
{
    uint64_t a = lo / 1000000ull, b = hi / 1000000ull;
    return (a + (b > a ? rng_below(r, b - a + 1) : 0)) * 1000000ull;
}

static bool among(const struct thrash_spec *t, const char *host)
{
    for (unsigned h = 0; h < t->nhosts; h++)
        if (strcmp(t->hosts[h], host) == 0)
            return true;
    return false;
}

/* Hosts under a fault until `end` ("*": every host). */
struct busy {
    char host[32];
    uint64_t end;
};

static bool taken(const struct busy *busy, unsigned nbusy, const char *host)
{
    for (unsigned i = 0; i < nbusy; i++)
        if (strcmp(busy[i].host, host) == 0 || strcmp(busy[i].host, "*") == 0)
            return true;
    return false;
}

/* Whether action a could hit host h now. */
static bool may_hit(const struct thrash_spec *t, const struct thrash_action *a, unsigned h,
                    const struct busy *busy, unsigned nbusy)
{
    return !taken(busy, nbusy, t->hosts[h]) && (!a->host[0] || strcmp(a->host, t->hosts[h]) == 0);
}

/* Each action's weight now: 0 for one that has no host it may hit (a
 * host under a fault, max_faulted reached; a pinned host outside `hosts`
 * needs every host free).  The sum. */
static unsigned weights_now(const struct thrash_spec *t, const struct busy *busy, unsigned nbusy,
                            unsigned *weight)
{
    unsigned total = 0;
    for (unsigned a = 0; a < t->nactions; a++) {
        const struct thrash_action *act = &t->actions[a];
        weight[a] = 0;
        if (nbusy >= t->max_faulted)
            continue;
        if (act->host[0] && !among(t, act->host)) {
            if (nbusy == 0 && t->max_faulted >= (t->nhosts ? t->nhosts : 1))
                weight[a] = act->weight;
        } else {
            for (unsigned h = 0; h < t->nhosts && !weight[a]; h++)
                if (may_hit(t, act, h, busy, nbusy))
                    weight[a] = act->weight;
        }
        total += weight[a];
    }
    return total;
}

int thrash_draw(struct thrash_spec *t, uint64_t seed, uint64_t duration_ns, unsigned room,
                char *err, size_t n)
{
    struct rng r;
    rng_seed(&r, seed ^ 0x7468726173680000ull); /* a stream of its own: "thrash" */
    t->seed = seed;
    t->ndrawn = 0;
    t->full = false;
    uint64_t limit = duration_ns > t->quiet_end_ns ? duration_ns - t->quiet_end_ns : 0;
    struct busy busy[FL_MAX_FAULTS];
    unsigned nbusy = 0;
    uint64_t at = t->start_ns / 1000000ull * 1000000ull;
    for (unsigned guard = 0; guard < 100000 && at < limit; guard++) {
        unsigned k = 0;
        for (unsigned i = 0; i < nbusy; i++)
            if (busy[i].end > at)
                busy[k++] = busy[i];
        nbusy = k;
        unsigned weight[THRASH_MAX_ACTIONS];
        unsigned total = weights_now(t, busy, nbusy, weight);
        if (!total) { /* nothing may be hit now: at the next clear */
            uint64_t next = UINT64_MAX;
            for (unsigned i = 0; i < nbusy; i++)
                if (busy[i].end < next)
                    next = busy[i].end;
            if (next == UINT64_MAX)
                break; /* nothing can ever be drawn */
            at = next;
            continue;
        }
        uint64_t pick = rng_below(&r, total);
        unsigned a = 0;
        while (pick >= weight[a])
            pick -= weight[a++];
        const struct thrash_action *act = &t->actions[a];
        bool whole = act->host[0] && !among(t, act->host);
        char host[32];
        if (whole) {
            snprintf(host, sizeof host, "%s", act->host);
        } else {
            unsigned cand[THRASH_MAX_HOSTS], nc = 0;
            for (unsigned h = 0; h < t->nhosts; h++)
                if (may_hit(t, act, h, busy, nbusy))
                    cand[nc++] = h;
            snprintf(host, sizeof host, "%s", t->hosts[cand[rng_below(&r, nc)]]);
        }
        uint64_t hold = act->ops->hold_key ? draw_ms(&r, t->hold_min, t->hold_max) : 0;
        uint64_t span = span_of(act, hold);
        if (at + span > limit)
            break;
        if (t->ndrawn == room) {
            t->full = true;
            break;
        }
        struct thrash_fault *f = &t->drawn[t->ndrawn++];
        *f = (struct thrash_fault){.action = a, .at_ns = at, .hold_ns = hold, .span_ns = span};
        snprintf(f->host, sizeof f->host, "%s", host);
        if (span) {
            snprintf(busy[nbusy].host, sizeof busy[nbusy].host, "%s", whole ? "*" : host);
            busy[nbusy++].end = at + span;
        }
        at += draw_ms(&r, t->gap_min, t->gap_max);
    }
    if (!t->ndrawn) {
        snprintf(err, n, "no fault fits: the first at start (%.3f s) with its hold would not end "
                 "before the workload's last quiet_end (%.3f s of %.3f s)",
                 (double)t->start_ns / 1e9, (double)t->quiet_end_ns / 1e9,
                 (double)duration_ns / 1e9);
        return -1;
    }
    return 0;
}

/* A growing string. */
struct text {
    char *s;
    size_t len, cap;
    bool bad;
};

static void put(struct text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void put(struct text *b, const char *fmt, ...)
{
    if (b->bad)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int l = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (l < 0) {
            b->bad = true;
            return;
        }
        if ((size_t)l < b->cap - b->len) {
            b->len += (size_t)l;
            return;
        }
        size_t cap = (b->cap + (size_t)l) * 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->bad = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* Whether line (up to its end) is a section header, and of which type. */
static bool header_of(const char *line, size_t len, char *type, size_t n)
{
    while (len && (*line == ' ' || *line == '\t')) {
        line++;
        len--;
    }
    if (!len || *line != '[')
        return false;
    size_t i = 1;
    while (i < len && (isalnum((unsigned char)line[i]) || line[i] == '_'))
        i++;
    snprintf(type, n, "%.*s", (int)(i - 1), line + 1);
    return true;
}

char *thrash_schedule_text(const char *text, const struct thrash_spec *t, bool with_seed,
                           const struct thrash_outcome *outcome)
{
    struct text b = {.cap = strlen(text) + 4096};
    if (!(b.s = malloc(b.cap)))
        return NULL;
    b.s[0] = '\0';
    bool in_thrash = false, has_scenario = false;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char type[32];
        has_scenario |= header_of(p, len, type, sizeof type) && strcmp(type, "scenario") == 0;
        p += len + (nl != NULL);
    }
    if (with_seed && !has_scenario) /* the seed needs a place: the first lines, then */
        put(&b, "[scenario]\nseed = %llu                # drawn: the schedule below is its\n",
            (unsigned long long)t->seed);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char type[32];
        if (header_of(p, len, type, sizeof type))
            in_thrash = strcmp(type, "thrash") == 0;
        /* [thrash] and its lines stay, as comments: the same line numbers */
        put(&b, "%s%.*s\n", in_thrash ? "#| " : "", (int)len, p);
        if (with_seed && header_of(p, len, type, sizeof type) && strcmp(type, "scenario") == 0)
            put(&b, "seed = %llu                # drawn: the schedule below is its\n",
                (unsigned long long)t->seed);
        p += len + (nl != NULL);
    }
    unsigned left = 0;
    for (unsigned i = 0; outcome && i < t->ndrawn; i++)
        left += !outcome[i].reached;
    put(&b, "\n# --- the schedule [thrash] drew from seed %llu: %u fault%s%s ---\n",
        (unsigned long long)t->seed, t->ndrawn - left, t->ndrawn - left == 1 ? "" : "s",
        t->full ? " (the most a scenario holds)" : "");
    if (left)
        put(&b, "# (%u more were drawn but not reached: settle waits moved them past the end "
                "of the workload)\n", left);
    for (unsigned i = 0; i < t->ndrawn; i++) {
        if (outcome && !outcome[i].reached)
            continue;
        const struct thrash_fault *f = &t->drawn[i];
        const struct thrash_action *a = &t->actions[f->action];
        char at[32], v[32];
        format_duration(f->at_ns, at, sizeof at);
        put(&b, "\n[fault thrash-%03u]\naction = %s\nhost = %s\nat = %s\n", i + 1,
            a->ops->action, f->host, at);
        if (a->ops->hold_key) {
            format_duration(f->hold_ns, v, sizeof v);
            put(&b, "%s = %s\n", a->ops->hold_key, v);
        }
        for (unsigned k = 0; k < a->nkeys; k++)
            if (strcmp(a->keys[k].key, "host") != 0)
                put(&b, "%s = %s\n", a->keys[k].key, a->keys[k].value);
        if (t->settle == SETTLE_WHOLE) {
            put(&b, "settle = whole\n");
            if (t->settle_command[0])
                put(&b, "settle_command = %s\n", t->settle_command);
            format_duration(t->settle_timeout_ns, v, sizeof v);
            put(&b, "settle_timeout = %s\n", v);
            if (outcome && outcome[i].settle_s >= 0)
                put(&b, "# its settle wait took %.3f s in the run that drew it\n",
                    outcome[i].settle_s);
        }
    }
    if (b.bad) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
