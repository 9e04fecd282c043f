/*
 * gluster — a GlusterFS volume, as its CLI tells of it (storage.h).
 *
 * Heal: `gluster volume heal VOL info summary` lists every brick with its
 * status and the entries it still has to heal; a brick that is not
 * connected cannot say, and counts as pending.  A question costs little
 * (the CLI asks glusterd), so it is asked twice a second.
 *
 * Describe: `gluster volume info VOL`: "Key: value" lines, the volume's
 * own first (keys in snake_case: volume_name, type, number_of_bricks,
 * brick1, ...), then those under "Options Reconfigured:" as the volume
 * names them (network.ping-timeout).  Options left at their defaults are
 * not listed there.
 *
 * Every question goes through the CLI in script mode (no prompt ever
 * waits).
 *
 * Happened: a brick whose disk fails takes itself down when its health
 * check (storage.health-check-interval, 30 s by default) cannot write and
 * read back a file of the brick: "health-check failed, going down" in the
 * brick's log, where the reason is the line before ("... on
 * BRICK/.glusterfs/health_check returned [Input/output error]").  That
 * becomes a path event (brick-down) at its time.  The bricks' logs are on
 * the servers and no CLI gives them: a lab reads them (logs "brick"), a
 * real cluster's are not known here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "logtime.h"
#include "storage.h"

#define QUESTION_MS 10000

/* Entries still to heal, over every brick. */
static long heal_pending(const struct storage *st, long *missing, char *what, size_t n)
{
    if (missing)
        *missing = -1;
    char *info[] = {"gluster", "--mode=script", "volume", "heal", (char *)st->volume, "info",
                    "summary", NULL};
    char out[8192];
    int rc = st->cli(st, info, out, sizeof out, QUESTION_MS);
    if (rc != 0) {
        snprintf(what, n, "gluster volume heal %s info summary failed (%d): %.300s", st->volume,
                 rc, out);
        return -1;
    }
    /* Per brick: "Status: Connected" and "Total Number of entries: N";
     * a brick that is not connected cannot say: it counts as pending. */
    long pending = 0;
    int bricks = 0;
    for (const char *p = out; (p = strstr(p, "Brick ")); p++) {
        bricks++;
        const char *next = strstr(p + 1, "Brick ");
        const char *stat = strstr(p, "Status: ");
        const char *tot = strstr(p, "Total Number of entries: ");
        bool in = stat && (!next || stat < next);
        if (!in || strncmp(stat + 8, "Connected", 9) != 0) {
            pending++;
            continue;
        }
        if (tot && (!next || tot < next))
            pending += strtol(tot + 25, NULL, 10);
        else
            pending++;
    }
    if (bricks == 0) {
        snprintf(what, n, "gluster volume heal %s info summary named no brick: %.300s",
                 st->volume, out);
        return -1;
    }
    snprintf(what, n, "%ld entries still to heal", pending);
    if (missing)
        *missing = pending;
    return pending;
}

/* A heal is GlusterFS's own pace (10-26 s measured); the CLI is cheap. */
static const struct storage_heal heal = {
    .word = "heal",
    .whole = "nothing left in gluster volume heal info",
    .poll_ms = 500,
    .pending = heal_pending,
};

static void describe(const struct storage *st, struct kv_list *about, struct kv_list *options)
{
    char *info[] = {"gluster", "--mode=script", "volume", "info", (char *)st->volume, NULL};
    char out[16384];
    int rc = st->cli(st, info, out, sizeof out, QUESTION_MS);
    if (rc != 0) {
        kv_add(about, "error", "gluster volume info %s failed (%d): %.300s", st->volume, rc, out);
        return;
    }
    struct kv_list *to = about;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "Options Reconfigured:", 21) == 0) {
            to = options;
            continue;
        }
        char *colon = strstr(line, ": ");
        if (!colon)
            continue;
        *colon = '\0';
        char key[KV_KEY];
        snprintf(key, sizeof key, "%s", line);
        for (char *c = key; to == about && *c; c++)
            *c = *c == ' ' || *c == '-' ? '_' : (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a')
                                                                          : *c;
        kv_add(to, key, "%s", colon + 2);
    }
}

/* --- what the bricks logged --- */

/* The time at the head of a GlusterFS log line, Unix ns: "[2026-12-07
 * 03:10:11.123456 +0000] ..." (10.x) or without the zone (UTC); 0 when the
 * line does not start with one. */
static uint64_t gluster_log_time(const char *line)
{
    struct tm tm = {0};
    unsigned usec = 0;
    int oh = 0, om = 0;
    char sign = '+';
    if (sscanf(line, "[%4d-%2d-%2d %2d:%2d:%2d.%6u %c%2d%2d]", &tm.tm_year, &tm.tm_mon,
               &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &usec, &sign, &oh, &om) < 7)
        return 0;
    return storage_log_ns(&tm, usec * 1000ull, sign, oh, om);
}

struct brick_lines {
    uint64_t from_wall_ns;
    storage_saw_fn fn;
    void *ctx;
    char source[32];   /* the server of the lines so far */
    char reason[256];  /* the last failed check's words, of that server */
};

/* "health_check on X returned [Y]" or "F() on X returned [Y]": what failed. */
static void note_reason(struct brick_lines *b, const char *line)
{
    const char *r = strstr(line, " returned ");
    const char *on = strstr(line, "health_check");
    if (!r || !on)
        return;
    const char *words = strrchr(line, ']') ? strstr(line, "] 0-") : NULL;
    words = words ? strchr(words + 4, ' ') : NULL;
    if (words)
        snprintf(b->reason, sizeof b->reason, "%.*s", (int)strcspn(words + 1, "\n"), words + 1);
}

static void note_brick_line(void *ctx, const char *source, const char *line)
{
    struct brick_lines *b = ctx;
    if (strcmp(source, b->source) != 0) {
        snprintf(b->source, sizeof b->source, "%s", source);
        b->reason[0] = '\0';
    }
    if (!strstr(line, "health-check failed, going down")) {
        note_reason(b, line);
        return;
    }
    uint64_t t = gluster_log_time(line);
    if (!t || t < b->from_wall_ns)
        return;
    char detail[512];
    snprintf(detail, sizeof detail, "%s's brick takes itself down: its health check failed%s%s%s "
             "(the brick's log)", source, b->reason[0] ? " (" : "", b->reason,
             b->reason[0] ? ")" : "");
    b->fn(b->ctx, t, "brick-down", source, detail);
    b->reason[0] = '\0';
}

static void happened(const struct storage *st, uint64_t from_wall_ns, storage_saw_fn fn,
                     void *ctx)
{
    if (!st->logs)
        return;
    struct brick_lines b = {.from_wall_ns = from_wall_ns, .fn = fn, .ctx = ctx};
    st->logs(st, "brick", note_brick_line, &b);
}

const struct storage_kind storage_gluster = {
    .name = "gluster",
    .what = "a GlusterFS volume",
    .volume = "the volume",
    .needs_volume = true,
    .cli = "gluster",
    .heal = &heal,
    .describe = describe,
    .happened = happened,
};
