/*
 * pacemaker — an HA cluster under Pacemaker and Corosync, as its nodes'
 * CLI and logs tell of it (storage.h).  The "storage" is the cluster that
 * serves the target: it keeps no replicas, so it has no heal.
 *
 * Describe: the versions (`pacemakerd --version`, `corosync -v`), and the
 * settings a failover hangs on, as the running cluster has them: the
 * totem token and consensus timeouts (`corosync-cmapctl -g
 * runtime.config.totem.token`, ... .consensus), and whether fencing is on
 * (`crm_attribute --type crm_config --name stonith-enabled --query`).
 *
 * Happened: what the cluster did, from its nodes' logs, at the times they
 * logged it, as path events (where: the node it is about):
 *   token-lost       corosync: "A processor failed, forming new
 *                    configuration: token timed out": a node stopped
 *                    answering (where: the node that saw it)
 *   member-lost      corosync: a new membership formed without a node
 *                    ("Members left: ID"; where: the node that formed it)
 *   member-joined    ... with a node ("Members joined: ID")
 *   fence-requested  the controller asks for a node to be fenced
 *   fence-done       "Peer N was terminated (off) by M": fenced
 *   fence-failed     "Peer N was not terminated ..."
 *   rsc-started      "Result of start operation for R on N: ok"
 *   rsc-stopped      "Result of stop operation for R on N: ok"
 *   rsc-failed       a start, stop or monitor of R on N that was not ok
 *                    (a monitor that found it not running: tgtd killed)
 * Pacemaker's lines carry no year: each is read in the year that puts it
 * nearest the run's start.  The logs
 * are on the nodes (logs "pacemaker" and "corosync"): a lab reads its
 * nodes' files; a real cluster's are read over ssh from each [host] whose
 * cluster_logs names them (storage_logs_over_ssh).  Without either,
 * nothing is known of what the cluster did.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "logtime.h"
#include "storage.h"

#define QUESTION_MS 10000
#define SECOND 1000000000ull

/* --- describe --- */

/* The first line of what argv printed, into about as key (or the error). */
static void first_line(const struct storage *st, char *const argv[], struct kv_list *to,
                       const char *key)
{
    char out[2048];
    int rc = st->cli(st, argv, out, sizeof out, QUESTION_MS);
    out[strcspn(out, "\n")] = '\0';
    if (rc == 0)
        kv_add(to, key, "%s", out);
    else
        kv_add(to, "error", "%s failed (%d): %.300s", argv[0], rc, out);
}

/* A value corosync-cmapctl prints as "KEY (u32) = VALUE". */
static void cmap(const struct storage *st, const char *key, struct kv_list *to,
                 const char *name)
{
    char out[512];
    char *argv[] = {"corosync-cmapctl", "-g", (char *)key, NULL};
    const char *eq;
    if (st->cli(st, argv, out, sizeof out, QUESTION_MS) == 0 && (eq = strstr(out, "= ")))
        kv_add(to, name, "%.*s", (int)strcspn(eq + 2, "\n"), eq + 2);
}

static void describe(const struct storage *st, struct kv_list *about, struct kv_list *options)
{
    char *pcmk[] = {"pacemakerd", "--version", NULL};
    char *coro[] = {"corosync", "-v", NULL};
    first_line(st, pcmk, about, "pacemaker");
    first_line(st, coro, about, "corosync");
    cmap(st, "runtime.config.totem.token", options, "totem.token");
    cmap(st, "runtime.config.totem.consensus", options, "totem.consensus");
    char *fencing[] = {"crm_attribute", "--type", "crm_config", "--name", "stonith-enabled",
                       "--query", "--quiet", NULL};
    char out[256];
    if (st->cli(st, fencing, out, sizeof out, QUESTION_MS) == 0)
        kv_add(options, "stonith-enabled", "%.*s", (int)strcspn(out, "\n"), out);
}

/* --- happened --- */

/* What was seen, gathered from every log and told in time order. */
struct seen {
    uint64_t wall_ns;
    char event[24], where[64], detail[200];
};

struct reading {
    uint64_t from_wall_ns;
    int year;       /* the run's */
    long gmtoff;    /* the zone the nodes log in: ours */
    struct seen *seen;
    size_t n, cap;
};

static void saw(struct reading *r, uint64_t t, const char *event, const char *where,
                const char *detail)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        struct seen *more = cap <= 65536 ? realloc(r->seen, cap * sizeof *more) : NULL;
        if (!more)
            return; /* bounded: a run's failovers log far fewer */
        r->seen = more;
        r->cap = cap;
    }
    struct seen *s = &r->seen[r->n++];
    s->wall_ns = t;
    snprintf(s->event, sizeof s->event, "%s", event);
    snprintf(s->where, sizeof s->where, "%s", where);
    snprintf(s->detail, sizeof s->detail, "%s", detail);
}

static int by_time(const void *a, const void *b)
{
    const struct seen *x = a, *y = b;
    return x->wall_ns < y->wall_ns ? -1 : x->wall_ns > y->wall_ns;
}

/* "Dec 07 22:13:38.510 ..." as Unix ns (0: not a time); *rest after it. */
static uint64_t line_time(const struct reading *r, const char *line, const char **rest)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char mon[4];
    int day, h, m, s, ms, used = 0;
    if (sscanf(line, "%3s %d %d:%d:%d.%3d%n", mon, &day, &h, &m, &s, &ms, &used) != 6 || !used)
        return 0;
    const char *at = strstr(months, mon);
    if (!at || (at - months) % 3 != 0)
        return 0;
    *rest = line + used;
    /* the year nearest the run's start: a run begun on December 31st
     * reads January 1st as the next year's, one begun on January 1st
     * reads December 31st as the last year's */
    uint64_t best = 0, best_gap = UINT64_MAX;
    for (int y = r->year - 1; y <= r->year + 1; y++) {
        struct tm tm = {.tm_year = y, .tm_mon = (int)(at - months) / 3 + 1, .tm_mday = day,
                        .tm_hour = h, .tm_min = m, .tm_sec = s};
        long off = r->gmtoff < 0 ? -r->gmtoff : r->gmtoff;
        uint64_t t = storage_log_ns(&tm, (uint64_t)ms * 1000000ull, r->gmtoff < 0 ? '-' : '+',
                                    (int)(off / 3600), (int)(off % 3600 / 60));
        uint64_t gap = t > r->from_wall_ns ? t - r->from_wall_ns : r->from_wall_ns - t;
        if (t && gap < best_gap) {
            best = t;
            best_gap = gap;
        }
    }
    return best;
}

/* The word after `after` in s, into out ("" when none). */
static void word_after(const char *s, const char *after, char *out, size_t n)
{
    const char *p = strstr(s, after);
    out[0] = '\0';
    if (p) {
        p += strlen(after);
        snprintf(out, n, "%.*s", (int)strcspn(p, " :|\n()"), p);
    }
}

/* The message of a line, up to pacemaker's " | details" and the end. */
static void message(const char *s, char *out, size_t n)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strcspn(s, "\n");
    const char *bar = strstr(s, " | ");
    if (bar && (size_t)(bar - s) < len)
        len = (size_t)(bar - s);
    snprintf(out, n, "%.*s", (int)len, s);
}

static void corosync_line(void *ctx, const char *source, const char *line)
{
    struct reading *r = ctx;
    const char *rest;
    uint64_t t = line_time(r, line, &rest);
    if (!t || t < r->from_wall_ns)
        return;
    char detail[200], msg[160];
    const char *p;
    if ((p = strstr(rest, "A processor failed, forming new configuration"))) {
        message(p, msg, sizeof msg);
        snprintf(detail, sizeof detail, "corosync on %s: %s", source, msg);
        saw(r, t, "token-lost", source, detail);
        return;
    }
    if (!(p = strstr(rest, "A new membership (")) || !strstr(p, "was formed."))
        return;
    char ids[64];
    word_after(p, "Members left: ", ids, sizeof ids);
    if (ids[0]) {
        snprintf(detail, sizeof detail, "corosync on %s: a membership without node %s", source,
                 ids);
        saw(r, t, "member-lost", source, detail);
    }
    word_after(p, "Members joined: ", ids, sizeof ids);
    if (ids[0]) {
        snprintf(detail, sizeof detail, "corosync on %s: a membership with node %s", source,
                 ids);
        saw(r, t, "member-joined", source, detail);
    }
}

/* "Result of OP operation for RSC on NODE: RESULT". */
static void result_line(struct reading *r, uint64_t t, const char *p)
{
    char op[16], rsc[64], node[64], result[64], detail[200];
    if (sscanf(p, "Result of %15s operation for %63s on %63[^:]: %63[^|\n]", op, rsc, node,
               result) != 4)
        return;
    size_t len = strlen(result);
    while (len && result[len - 1] == ' ')
        result[--len] = '\0';
    bool ok = strcmp(result, "ok") == 0;
    const char *event = NULL;
    if (strcmp(op, "start") == 0)
        event = ok ? "rsc-started" : "rsc-failed";
    else if (strcmp(op, "stop") == 0)
        event = ok ? "rsc-stopped" : "rsc-failed";
    else if (strcmp(op, "monitor") == 0 && !ok && strcmp(result, "Cancelled") != 0)
        event = "rsc-failed"; /* a probe says "probe", a monitor stopped for a stop
                                 "Cancelled"; a failed monitor is news */
    if (!event)
        return;
    snprintf(detail, sizeof detail, "%s of %s on %s: %s", op, rsc, node, result);
    saw(r, t, event, node, detail);
}

static void pacemaker_line(void *ctx, const char *source, const char *line)
{
    (void)source; /* each line names its node */
    struct reading *r = ctx;
    const char *rest;
    uint64_t t = line_time(r, line, &rest);
    if (!t || t < r->from_wall_ns)
        return;
    char node[64], detail[200], msg[160];
    const char *p;
    if ((p = strstr(rest, "Result of ")) && strstr(rest, "log_executor_event")) {
        result_line(r, t, p);
    } else if ((p = strstr(rest, "Requesting fencing ("))) {
        word_after(p, "of node ", node, sizeof node);
        message(p, msg, sizeof msg);
        saw(r, t, "fence-requested", node, msg);
    } else if ((p = strstr(rest, "Peer ")) && strstr(p, " terminated (") &&
               strstr(rest, "handle_fence_notification")) {
        word_after(p, "Peer ", node, sizeof node);
        message(p, msg, sizeof msg);
        snprintf(detail, sizeof detail, "%s", msg);
        saw(r, t, strstr(p, " was not terminated") ? "fence-failed" : "fence-done",
              node, detail);
    }
}

static void happened(const struct storage *st, uint64_t from_wall_ns, storage_saw_fn fn,
                     void *ctx)
{
    if (!st->logs)
        return; /* no [host] names where its logs are */
    time_t from = (time_t)(from_wall_ns / SECOND);
    struct tm tm;
    if (!localtime_r(&from, &tm))
        return;
    struct reading r = {.from_wall_ns = from_wall_ns, .year = tm.tm_year + 1900,
                        .gmtoff = tm.tm_gmtoff};
    st->logs(st, "corosync", corosync_line, &r);
    st->logs(st, "pacemaker", pacemaker_line, &r);
    if (r.n)
        qsort(r.seen, r.n, sizeof r.seen[0], by_time); /* stable enough: ms apart */
    for (size_t i = 0; i < r.n; i++)
        fn(ctx, r.seen[i].wall_ns, r.seen[i].event, r.seen[i].where, r.seen[i].detail);
    free(r.seen);
}

const struct storage_kind storage_pacemaker = {
    .name = "pacemaker",
    .what = "an HA cluster under Pacemaker and Corosync",
    .cli = "crm_mon",
    .describe = describe,
    .happened = happened,
};
