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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage.h"

#define QUESTION_MS 10000

/* Entries still to heal, over every brick. */
static long heal_pending(const struct storage *st, char *what, size_t n)
{
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

const struct storage_kind storage_gluster = {
    .name = "gluster",
    .what = "a GlusterFS volume",
    .volume = "the volume",
    .needs_volume = true,
    .cli = "gluster",
    .heal = &heal,
    .describe = describe,
};
