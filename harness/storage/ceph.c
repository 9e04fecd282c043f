/*
 * ceph — a Ceph cluster with CephFS, as its CLI tells of it (storage.h,
 * ceph.h).
 *
 * Recover: `ceph status -f json` (storage_ceph_view): whole is HEALTH_OK
 * with every placement group active+clean.  Each question starts the ceph
 * CLI, 0.4 s of CPU on the host that asks, so it is asked every 2 s.
 *
 * Describe: the cluster's version; a lab says the rest from what it built
 * (lab_ceph.c), a real cluster from its maps: its filesystems (`ceph fs ls`),
 * its pools with size, min_size and placement groups (`ceph osd pool ls
 * detail`), and the timers its outages hang on, as a monitor of the
 * quorum runs with them (`ceph config show-with-defaults mon.ID`): five
 * questions, each a start of the ceph CLI on the via host.
 *
 * Happened: the monitors' cluster log gives path events: an MDS given rank
 * 0 (mds-assigned) and active (mds-active), an OSD that met a bad copy of
 * its own on a read and repaired it from the others (read-repair), a
 * deep scrub's bad copies (scrub-bad-copy) and count (scrub-errors), and an
 * OSD marked down (osd-down: failed, or stopped by its own word, as an OSD
 * whose disk fails does), out (osd-out) and up again (osd-up).  In a
 * lab every monitor's copy of the file is read; on a real cluster the
 * monitors are asked (`ceph log last N info cluster`, right after the
 * workload), and what they keep is what there is: Pacific answers from a
 * summary of at most the last mon_log_max_summary (50) lines of each
 * channel, which it also cuts short from time to time; later releases
 * keep more.  The monitors' resets of the MDS
 * beacon timeouts (mds-beacons-reset) are in a monitor's own log only, not
 * in the cluster log: a lab reads them from its files, a real cluster
 * cannot say them through its CLI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/jread.h"
#include "ceph.h"
#include "logtime.h"

#define SECOND 1000000000ull
#define QUESTION_MS 30000
#define LOG_LAST "10000"      /* more than any monitor keeps */
#define LOG_BYTES (4u << 20)  /* 10000 lines of the cluster log */

void storage_ceph_timeout(int timeout_ms, char *out, size_t n)
{
    snprintf(out, n, "%d", timeout_ms / 2000 > 0 ? timeout_ms / 2000 : 1);
}

/* --- the cluster's state --- */

/* A number at path in doc, or 0. */
static unsigned num_at(const struct jv *doc, const char *path)
{
    double v = 0;
    return jv_num(jv_path(doc, path), &v) && v > 0 ? (unsigned)v : 0;
}

int storage_ceph_view(const struct storage *st, struct ceph_view *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    char timeout[16];
    storage_ceph_timeout(QUESTION_MS, timeout, sizeof timeout);
    char *status[] = {"ceph", "--connect-timeout", timeout, "status", "-f", "json", NULL};
    char *out = malloc(65536);
    if (!out) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = st->cli(st, status, out, 65536, QUESTION_MS);
    struct jv *doc = NULL;
    char why[256];
    if (rc != 0 || jv_parse(out, strlen(out), &doc, why, sizeof why) != 0) {
        snprintf(err, errlen, "ceph status: %s%.300s", rc != 0 ? "" : "not JSON: ",
                 rc != 0 ? out : why);
        free(out);
        return -1;
    }
    free(out);
    const struct jv *names = jv_get(doc, "quorum_names");
    v->quorum = (unsigned)jv_len(names);
    for (size_t i = 0, used = 0; i < jv_len(names) && used < sizeof v->quorum_names; i++)
        used += (size_t)snprintf(v->quorum_names + used, sizeof v->quorum_names - used, "%s%s",
                                 i ? "," : "", jv_str(jv_at(names, i)) ? jv_str(jv_at(names, i))
                                                                       : "?");
    v->mons = num_at(doc, "monmap.num_mons");
    v->osds = num_at(doc, "osdmap.num_osds");
    v->osds_up = num_at(doc, "osdmap.num_up_osds");
    v->osds_in = num_at(doc, "osdmap.num_in_osds");
    v->pgs = num_at(doc, "pgmap.num_pgs");
    const struct jv *states = jv_path(doc, "pgmap.pgs_by_state");
    for (size_t i = 0; i < jv_len(states); i++) {
        const char *name = jv_str(jv_get(jv_at(states, i), "state_name"));
        unsigned count = num_at(jv_at(states, i), "count");
        if (name && strcmp(name, "active+clean") == 0)
            v->pgs_clean += count;
        if (name && strncmp(name, "active", 6) == 0)
            v->pgs_active += count;
    }
    const struct jv *ranks = jv_path(doc, "fsmap.by_rank");
    for (size_t i = 0; i < jv_len(ranks); i++) {
        const char *state = jv_str(jv_get(jv_at(ranks, i), "status"));
        const char *name = jv_str(jv_get(jv_at(ranks, i), "name"));
        if (state && name && strcmp(state, "up:active") == 0)
            snprintf(v->active, sizeof v->active, "%s", name);
        else if (state && strcmp(state, "up:standby-replay") == 0)
            v->mds_standby++;
    }
    v->mds_standby += num_at(doc, "fsmap.up:standby");
    const char *health = jv_str(jv_path(doc, "health.status"));
    snprintf(v->health, sizeof v->health, "%s", health ? health : "?");
    const struct jv *checks = jv_path(doc, "health.checks");
    for (size_t i = 0, used = 0; checks && checks->type == JV_OBJ && i < checks->n &&
                                 used < sizeof v->checks;
         i++)
        used += (size_t)snprintf(v->checks + used, sizeof v->checks - used, "%s%s",
                                 i ? ", " : "", checks->key[i]);
    jv_free(doc);
    return 0;
}

/* --- what the monitors logged --- */

/* One MDS line of the cluster log. */
struct mds_line {
    uint64_t wall_ns;
    const char *event; /* "mds-assigned" or "mds-active" */
    char mds[32];      /* its name: cs1 */
    char fs[32];       /* the filesystem the line names ("" none) */
};

/* The time at the head of a log line, Unix ns; 0 when the line does not
 * start with one.  The cluster log gives microseconds
 * ("2026-12-04T13:53:23.815235+0000"), a daemon's log milliseconds
 * ("2026-12-04T13:53:23.815+0000"). */
static uint64_t log_time(const char *line)
{
    struct tm tm = {0};
    int at = 0;
    if (sscanf(line, "%4d-%2d-%2dT%2d:%2d:%2d.%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &at) != 6 || !at)
        return 0;
    uint64_t frac_ns = 0, scale = SECOND;
    const char *p = line + at;
    for (; *p >= '0' && *p <= '9' && scale > 1; p++) {
        scale /= 10;
        frac_ns += (uint64_t)(*p - '0') * scale;
    }
    while (*p >= '0' && *p <= '9')
        p++;
    char sign = *p;
    int oh, om;
    if ((sign != '+' && sign != '-') || sscanf(p + 1, "%2d%2d", &oh, &om) != 2)
        return 0;
    return storage_log_ns(&tm, frac_ns, sign, oh, om);
}

/* An MDS given rank 0 in place of a failed one ("... as rank 0 with standby
 * daemon mds.X", worded a little differently by each release), or when
 * there was none ("[Standby ]daemon mds.X assigned to filesystem"), or
 * active in it ("daemon mds.X is now active in filesystem"). */
static bool mds_line_of(const char *line, struct mds_line *m)
{
    static const char replaced[] = "with standby daemon mds.", daemon[] = "daemon mds.";
    const char *d = strstr(line, replaced);
    d = d ? d + strlen(replaced) : strstr(line, daemon);
    if (!d || !(m->wall_ns = log_time(line)))
        return false;
    if (strncmp(d, daemon, strlen(daemon)) == 0)
        d += strlen(daemon);
    size_t n = strcspn(d, " \n");
    if (n == 0 || n >= sizeof m->mds)
        return false;
    memcpy(m->mds, d, n);
    m->mds[n] = '\0';
    if (strstr(line, replaced) || strncmp(d + n, " assigned to filesystem ", 24) == 0)
        m->event = "mds-assigned";
    else if (strncmp(d + n, " is now active in filesystem ", 29) == 0)
        m->event = "mds-active";
    else
        return false;
    const char *f = strstr(d + n, " filesystem ");
    m->fs[0] = '\0';
    if (f)
        snprintf(m->fs, sizeof m->fs, "%.*s", (int)strcspn(f + 12, " \n"), f + 12);
    return true;
}

static int by_time(const void *a, const void *b)
{
    const struct mds_line *x = a, *y = b;
    return x->wall_ns < y->wall_ns ? -1 : x->wall_ns > y->wall_ns;
}

#define MDS_LINES_MAX 64

/* Each line of the cluster log: every monitor's copy of it where the
 * files can be read (a lab: any monitor may have been down for a while),
 * else what the monitors keep of it, asked of the cluster (`ceph log last
 * N cluster`: the same lines, as the monitors' leader has them). */
static void each_cluster_line(const struct storage *st, storage_line_fn fn, void *ctx)
{
    if (st->logs) {
        st->logs(st, "cluster.log", fn, ctx);
        return;
    }
    char timeout[16];
    storage_ceph_timeout(QUESTION_MS, timeout, sizeof timeout);
    char *last[] = {"ceph", "--connect-timeout", timeout, "log", "last", LOG_LAST, "info",
                    "cluster", NULL};
    char *out = malloc(LOG_BYTES);
    if (!out)
        return;
    if (st->cli(st, last, out, LOG_BYTES, QUESTION_MS) == 0) {
        char *save = NULL;
        for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            fn(ctx, "", line);
    }
    free(out);
}

/* "mds.cs1 198.18.X.21": a daemon, and its address where it is known. */
static void daemon_where(const struct storage *st, const char *type, const char *id, char *out,
                         size_t n)
{
    char name[48], addr[64] = "";
    snprintf(name, sizeof name, "%s.%s", type, id);
    if (st->address)
        st->address(st, name, addr, sizeof addr);
    snprintf(out, n, "%s%s%.40s", name, addr[0] ? " " : "", addr);
}

/* The monitors' own word for an MDS they will not replace.  At each tick
 * the leader resets every MDS's beacon timeout when the tick came more than
 * mds_beacon_grace - mds_beacon_interval after the one before
 * (MDSMonitor::tick: "resetting beacon timeouts due to mon delay (slow
 * election?)").  After an election that is right.  With a mon_tick_interval
 * not shorter than that difference it happens at every tick: no beacon is
 * ever late, and a dead MDS stays active for good. */
static const char beacon_reset[] = "resetting beacon timeouts due to mon delay";

/* The three timers, as the storage was set up with them (0: not known). */
struct timers {
    uint64_t grace_ns, interval_ns, tick_ns;
};

static void timers_of(const struct storage *st, struct timers *t)
{
    memset(t, 0, sizeof *t);
    if (!st->setting)
        return;
    st->setting(st, "mds_beacon_grace", &t->grace_ns);
    st->setting(st, "mds_beacon_interval", &t->interval_ns);
    st->setting(st, "mon_tick_interval", &t->tick_ns);
}

static bool tick_hides_dead_mds(const struct timers *t)
{
    return t->grace_ns <= t->interval_ns || t->tick_ns >= t->grace_ns - t->interval_ns;
}

static unsigned seconds(uint64_t ns)
{
    return (unsigned)(ns / SECOND);
}

struct resets {
    uint64_t from_wall_ns, first, last;
    unsigned count;
    char first_mon[32];
};

static void count_reset(void *ctx, const char *mon, const char *line)
{
    struct resets *r = ctx;
    uint64_t t;
    if (!strstr(line, beacon_reset) || (t = log_time(line)) < r->from_wall_ns)
        return;
    r->count++;
    if (!r->first || t < r->first) {
        r->first = t;
        snprintf(r->first_mon, sizeof r->first_mon, "%s", mon);
    }
    if (t > r->last)
        r->last = t;
}

/* Every reset of the beacon timeouts the monitors logged from from_wall_ns
 * on, told once, as one path event at the first: how many, over how long,
 * and why (the settings, when they are the cause). */
static void beacon_resets(const struct storage *st, uint64_t from_wall_ns, storage_saw_fn fn,
                          void *ctx)
{
    struct resets r = {.from_wall_ns = from_wall_ns};
    struct timers t;
    timers_of(st, &t);
    if (!st->logs || !t.grace_ns || !t.interval_ns || !t.tick_ns)
        return;
    st->logs(st, "log", count_reset, &r);
    if (!r.count)
        return;
    char where[96], why[320], detail[640];
    daemon_where(st, "mon", r.first_mon, where, sizeof where);
    if (tick_hides_dead_mds(&t))
        snprintf(why, sizeof why, "the settings do it at every tick: mon_tick_interval (%u s) is "
                 "not shorter than mds_beacon_grace (%u s) minus mds_beacon_interval (%u s), so "
                 "no MDS's beacon is ever late and a dead MDS is never replaced",
                 seconds(t.tick_ns), seconds(t.grace_ns), seconds(t.interval_ns));
    else
        snprintf(why, sizeof why, "a tick came more than mds_beacon_grace (%u s) minus "
                 "mds_beacon_interval (%u s) after the one before (an election, a slow monitor)",
                 seconds(t.grace_ns), seconds(t.interval_ns));
    snprintf(detail, sizeof detail, "the monitors reset every MDS's beacon timeout %u time%s "
             "in %.0f s (\"%s\", the monitors' logs): %s", r.count, r.count == 1 ? "" : "s",
             (double)(r.last - r.first) / 1e9, beacon_reset, why);
    fn(ctx, r.first, "mds-beacons-reset", where, detail);
}

struct mds_lines {
    uint64_t from_wall_ns;
    struct mds_line seen[MDS_LINES_MAX];
    size_t n;
};

/* Every monitor keeps the same cluster log (the leader's lines, sent to
 * all): the lines they share are told once. */
static void note_mds_line(void *ctx, const char *mon, const char *line)
{
    (void)mon;
    struct mds_lines *l = ctx;
    struct mds_line m;
    if (!mds_line_of(line, &m) || m.wall_ns < l->from_wall_ns)
        return;
    for (size_t k = 0; k < l->n; k++)
        if (l->seen[k].wall_ns == m.wall_ns && l->seen[k].event == m.event &&
            strcmp(l->seen[k].mds, m.mds) == 0)
            return;
    if (l->n < MDS_LINES_MAX)
        l->seen[l->n++] = m;
}

/* --- what the OSDs logged (to the cluster log): bad copies met --- */

/* One OSD line of the cluster log, as a path event. */
struct osd_line {
    uint64_t wall_ns;
    const char *event;
    char where[64];
    char detail[320];
};

#define OSD_LINES_MAX 256

struct osd_lines {
    const struct storage *st;
    uint64_t from_wall_ns;
    struct osd_line seen[OSD_LINES_MAX];
    size_t n;
};

/* "osd.N ADDR" */
static void osd_where(const struct storage *st, unsigned osd, char *out, size_t n)
{
    char id[16];
    snprintf(id, sizeof id, "%u", osd);
    daemon_where(st, "osd", id, out, n);
}

/* The object's name in "2:0cf6ad0f:::10000000000.00000000:head". */
static void object_name(const char *soid, char *out, size_t n)
{
    const char *a = strstr(soid, ":::");
    a = a ? a + 3 : soid;
    size_t len = strcspn(a, ":, \n");
    snprintf(out, n, "%.*s", (int)len, a);
}

/* A primary OSD that met a bad copy of its own on a read ("PG missing
 * primary copy of SOID, will try copies on A,B": Ceph repairs it from the
 * others and then answers), one copy a deep scrub found bad ("PG shard S
 * soid SOID : candidate had a read error"), and a scrub's count ("PG
 * deep-scrub N errors"). */
static bool osd_line_of(const struct storage *st, const char *line, struct osd_line *o)
{
    unsigned osd, shard, errors;
    char pg[16], soid[160], obj[96], copies[32];
    const char *m = strstr(line, " : cluster [ERR] ");
    if (!m || sscanf(line, "%*s osd.%u", &osd) != 1 || !(o->wall_ns = log_time(line)))
        return false;
    if (sscanf(line, "%*[^(](osd.%u) %*u : cluster [ERR] %15s missing primary copy of "
               "%159s will try copies on %31s", &osd, pg, soid, copies) == 4) {
        object_name(soid, obj, sizeof obj);
        o->event = "read-repair";
        osd_where(st, osd, o->where, sizeof o->where);
        snprintf(o->detail, sizeof o->detail, "osd.%u could not read its own copy of object %s "
                 "(placement group %s) and reads it from the copies on OSDs %s for the client "
                 "(the monitors' cluster log)", osd, obj, pg, copies);
        return true;
    }
    if (sscanf(line, "%*[^(](osd.%u) %*u : cluster [ERR] %15s shard %u soid %159s",
               &osd, pg, &shard, soid) == 4 && strstr(line, " : candidate ")) {
        const char *why = strstr(line, " : candidate ") + 3;
        object_name(soid, obj, sizeof obj);
        o->event = "scrub-bad-copy";
        osd_where(st, shard, o->where, sizeof o->where);
        snprintf(o->detail, sizeof o->detail, "the deep scrub of placement group %s (by osd.%u) "
                 "found osd.%u's copy of object %s bad: %.*s (the monitors' cluster log)", pg,
                 osd, shard, obj, (int)strcspn(why, "\n"), why);
        return true;
    }
    int end = 0;
    if (sscanf(line, "%*[^(](osd.%u) %*u : cluster [ERR] %15s deep-scrub %u errors%n", &osd,
               pg, &errors, &end) == 3 && end) {
        o->event = "scrub-errors";
        osd_where(st, osd, o->where, sizeof o->where);
        snprintf(o->detail, sizeof o->detail, "the deep scrub of placement group %s (by osd.%u) "
                 "found %u error%s: the placement group is inconsistent until `ceph pg repair "
                 "%s` (the monitors' cluster log)", pg, osd, errors, errors == 1 ? "" : "s", pg);
        return true;
    }
    return false;
}

/* The monitors' word on an OSD's state: failed, reported by its peers or
 * its own connections ("osd.N failed (root=...,host=H) (WHY)"), gone by
 * its own word when it stops ("osd.N marked itself dead as of eE", "...
 * marked itself down ..." in older releases), out of the data's placement
 * once down for mon_osd_down_out_interval ("Marking osd.N out (has been
 * down for S seconds)"), and up again ("osd.N [ADDRS] boot"). */
static bool osd_state_line_of(const struct storage *st, const char *line, struct osd_line *o)
{
    const char *m = strstr(line, " : cluster [INF] ");
    unsigned osd;
    int end = 0;
    if (!m || !(o->wall_ns = log_time(line)))
        return false;
    m += strlen(" : cluster [INF] ");
    if (sscanf(m, "osd.%u failed %n", &osd, &end) == 1 && end) {
        const char *why = strrchr(m, '(');
        o->event = "osd-down";
        snprintf(o->detail, sizeof o->detail, "the monitors mark osd.%u down: %.*s (the "
                 "monitors' cluster log)", osd, why ? (int)strcspn(why + 1, ")\n") : 6,
                 why ? why + 1 : "failed");
    } else if (sscanf(m, "osd.%u marked itself %n", &osd, &end) == 1 && end) {
        o->event = "osd-down";
        const char *said = strstr(m, "marked itself");
        snprintf(o->detail, sizeof o->detail, "osd.%u stops and says so: %.*s (the monitors' "
                 "cluster log)", osd, (int)strcspn(said, "\n"), said);
    } else if (sscanf(m, "Marking osd.%u out %n", &osd, &end) == 1 && end) {
        o->event = "osd-out";
        snprintf(o->detail, sizeof o->detail, "the monitors take osd.%u out of the data's "
                 "placement %.*s: its copies are made again on the others (the monitors' "
                 "cluster log)", osd, (int)strcspn(m + end, "\n"), m + end);
    } else if (sscanf(m, "osd.%u [%*[^]]] boot%n", &osd, &end) == 1 && end) {
        o->event = "osd-up";
        snprintf(o->detail, sizeof o->detail, "osd.%u is up again (boot; the monitors' cluster "
                 "log)", osd);
    } else {
        return false;
    }
    osd_where(st, osd, o->where, sizeof o->where);
    return true;
}

static void note_osd_line(void *ctx, const char *mon, const char *line)
{
    (void)mon;
    struct osd_lines *l = ctx;
    struct osd_line o;
    bool err = strstr(line, "cluster [ERR]"), inf = !err && strstr(line, "cluster [INF]");
    if ((!err && !inf) || !(err ? osd_line_of(l->st, line, &o)
                                : osd_state_line_of(l->st, line, &o)) ||
        o.wall_ns < l->from_wall_ns)
        return;
    for (size_t k = 0; k < l->n; k++)
        if (l->seen[k].wall_ns == o.wall_ns && strcmp(l->seen[k].detail, o.detail) == 0)
            return;
    if (l->n < OSD_LINES_MAX)
        l->seen[l->n++] = o;
}

static int osd_by_time(const void *a, const void *b)
{
    const struct osd_line *x = a, *y = b;
    return x->wall_ns < y->wall_ns ? -1 : x->wall_ns > y->wall_ns;
}

/* Both kinds of lines of the cluster log, from one pass over it. */
struct cluster_lines {
    struct mds_lines mds;
    struct osd_lines osd;
};

static void note_line(void *ctx, const char *mon, const char *line)
{
    struct cluster_lines *c = ctx;
    note_mds_line(&c->mds, mon, line);
    note_osd_line(&c->osd, mon, line);
}

/* The filesystem an MDS line names ("... assigned to filesystem NAME as
 * rank 0", "... active in filesystem NAME as rank 0"), else the storage's
 * (a replacement's line names none). */
static void fs_of(const struct storage *st, const struct mds_line *m, char *out, size_t n)
{
    snprintf(out, n, "%.31s", m->fs[0] ? m->fs : st->volume[0] ? st->volume : "the filesystem");
}

static void happened(const struct storage *st, uint64_t from_wall_ns, storage_saw_fn fn,
                     void *ctx)
{
    struct cluster_lines *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->mds.from_wall_ns = from_wall_ns;
    c->osd.st = st;
    c->osd.from_wall_ns = from_wall_ns;
    each_cluster_line(st, note_line, c);
    qsort(c->mds.seen, c->mds.n, sizeof c->mds.seen[0], by_time);
    for (size_t k = 0; k < c->mds.n; k++) {
        const struct mds_line *m = &c->mds.seen[k];
        char where[96], detail[160], fs[32];
        daemon_where(st, "mds", m->mds, where, sizeof where);
        fs_of(st, m, fs, sizeof fs);
        snprintf(detail, sizeof detail, "mds.%s %s rank 0 of %s (the monitors' cluster log)",
                 m->mds, strcmp(m->event, "mds-active") == 0 ? "is active in" : "is given", fs);
        fn(ctx, m->wall_ns, m->event, where, detail);
    }
    beacon_resets(st, from_wall_ns, fn, ctx);
    qsort(c->osd.seen, c->osd.n, sizeof c->osd.seen[0], osd_by_time);
    for (size_t k = 0; k < c->osd.n; k++)
        fn(ctx, c->osd.seen[k].wall_ns, c->osd.seen[k].event, c->osd.seen[k].where,
           c->osd.seen[k].detail);
    free(c);
}

/* --- recover --- */

/* What keeps the cluster from being whole: each placement group not
 * active+clean (degraded, peering, recovering, ...), and a health other
 * than HEALTH_OK (one more; its checks named). */
static long recover_pending(const struct storage *st, long *missing, char *what, size_t n)
{
    struct ceph_view v;
    if (missing)
        *missing = -1;
    if (storage_ceph_view(st, &v, what, n) != 0)
        return -1;
    long unclean = v.pgs ? (long)v.pgs - (long)v.pgs_clean : 1;
    if (missing) /* a warning not about the data (slow heartbeats for minutes after a cut) */
        *missing = unclean;
    bool ok = strcmp(v.health, "HEALTH_OK") == 0;
    snprintf(what, n, "%ld of %u placement groups not active+clean, %s%s%s%s", unclean, v.pgs,
             v.health, v.checks[0] ? " (" : "", v.checks, v.checks[0] ? ")" : "");
    return unclean + !ok;
}

/* Each question starts the ceph CLI, 0.4 s of CPU: every 2 s leaves the
 * workload most of a core (recover_s is then up to 2 s late). */
static const struct storage_heal recover = {
    .word = "recover",
    .whole = "HEALTH_OK, every placement group active+clean",
    .poll_ms = 2000,
    .pending = recover_pending,
};

/* --- describe --- */

int storage_ceph_version(const struct storage *st, char *out, size_t n)
{
    char timeout[16];
    storage_ceph_timeout(10000, timeout, sizeof timeout);
    char *version[] = {"ceph", "--connect-timeout", timeout, "version", NULL};
    char buf[512];
    int rc = st->cli(st, version, buf, sizeof buf, 10000);
    if (rc != 0) {
        snprintf(out, n, "ceph version %s failed: %.300s", st->where, buf);
        return -1;
    }
    buf[strcspn(buf, "\n")] = '\0';
    snprintf(out, n, "%s", buf);
    return 0;
}

/* A question whose answer is JSON; NULL with about's "error" said. */
static struct jv *ask_json(const struct storage *st, char *const argv[], const char *what,
                           struct kv_list *about)
{
    char *out = malloc(LOG_BYTES);
    if (!out)
        return NULL;
    struct jv *doc = NULL;
    char why[256];
    int rc = st->cli(st, argv, out, LOG_BYTES, QUESTION_MS);
    if (rc != 0 || jv_parse(out, strlen(out), &doc, why, sizeof why) != 0)
        kv_add(about, "error", "%s %s: %.300s", what, rc != 0 ? "failed" : "is not JSON",
               rc != 0 ? out : why);
    free(out);
    return rc == 0 ? doc : NULL;
}

/* The timers the outages of a CephFS cluster hang on (the ceph lab's
 * [lab] keys by the same names). */
static const char *const timers[] = {"mds_beacon_grace", "mds_beacon_interval",
                                     "mon_tick_interval", "mds_beacon_mon_down_grace",
                                     "osd_heartbeat_grace", "client_mount_timeout"};

static void describe(const struct storage *st, struct kv_list *about, struct kv_list *options)
{
    char line[512], timeout[16];
    if (storage_ceph_version(st, line, sizeof line) == 0)
        kv_add(about, "version", "%s", line);
    else
        kv_add(about, "error", "%s", line);
    storage_ceph_timeout(QUESTION_MS, timeout, sizeof timeout);
    char *fs[] = {"ceph", "--connect-timeout", timeout, "fs", "ls", "-f", "json", NULL};
    struct jv *doc = ask_json(st, fs, "ceph fs ls", about);
    for (size_t i = 0; doc && i < jv_len(doc); i++) {
        const struct jv *f = jv_at(doc, i);
        const char *name = jv_str(jv_get(f, "name"));
        if (!name || (st->volume[0] && strcmp(name, st->volume) != 0))
            continue;
        const char *meta = jv_str(jv_get(f, "metadata_pool"));
        kv_add(about, "fs", "%s (metadata pool %s)", name, meta ? meta : "?");
    }
    jv_free(doc);
    char *pools[] = {"ceph", "--connect-timeout", timeout, "osd", "pool", "ls", "detail", "-f",
                     "json", NULL};
    doc = ask_json(st, pools, "ceph osd pool ls detail", about);
    char text[1024] = "";
    for (size_t i = 0, used = 0; doc && i < jv_len(doc) && used < sizeof text; i++) {
        const struct jv *p = jv_at(doc, i);
        double size = 0, min = 0, pgs = 0;
        jv_num(jv_get(p, "size"), &size);
        jv_num(jv_get(p, "min_size"), &min);
        jv_num(jv_get(p, "pg_num"), &pgs);
        const char *name = jv_str(jv_get(p, "pool_name"));
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s: size %.0f, min_size "
                                 "%.0f, %.0f placement groups", used ? "; " : "",
                                 name ? name : "?", size, min, pgs);
    }
    if (doc)
        kv_add(about, "pools", "%s", text);
    jv_free(doc);
    /* the timers as a monitor of the quorum runs with them */
    struct ceph_view v;
    char err[512];
    if (storage_ceph_view(st, &v, err, sizeof err) != 0) {
        kv_add(about, "error", "%s", err);
        return;
    }
    char who[80];
    snprintf(who, sizeof who, "mon.%.*s", (int)strcspn(v.quorum_names, ","), v.quorum_names);
    char *show[] = {"ceph", "--connect-timeout", timeout, "config", "show-with-defaults", who,
                    "-f", "json", NULL};
    char what[128];
    snprintf(what, sizeof what, "ceph config show-with-defaults %s", who);
    doc = ask_json(st, show, what, about);
    for (size_t t = 0; doc && t < sizeof timers / sizeof timers[0]; t++) {
        const char *value = NULL;
        for (size_t i = 0; i < jv_len(doc) && !value; i++) {
            const char *name = jv_str(jv_get(jv_at(doc, i), "name"));
            if (name && strcmp(name, timers[t]) == 0)
                value = jv_str(jv_get(jv_at(doc, i), "value"));
        }
        if (value)
            kv_add(options, timers[t], "%s", value);
    }
    jv_free(doc);
}

const struct storage_kind storage_ceph = {
    .name = "ceph",
    .what = "a Ceph cluster with CephFS",
    .volume = "the CephFS filesystem",
    .needs_volume = false,
    .cli = "ceph",
    .heal = &recover,
    .describe = describe,
    .happened = happened,
};
