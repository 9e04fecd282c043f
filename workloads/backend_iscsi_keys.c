/*
 * backend_iscsi_keys — kind = iscsi in the table of target kinds: its
 * [target] keys, its scenario rules (portals, the timeouts as the backend
 * uses them), the lab's portals, where a finding is.  The sessions and the
 * I/O over them are backend_iscsi.c's (backend_iscsi_io.h).
 */
#include <stdio.h>
#include <string.h>

#include "backend_iscsi.h"
#include "backend_iscsi_io.h"

#define OPT(field) BACKEND_OPT(struct iscsi_cfg, field)

static const struct key_def target_keys[] = {
    {"portals", KEY_TEXT, NULL, NULL, OPT(portals_text), 0, 0,
     "iscsi: paths to one LUN, comma-separated iscsi://HOST[:PORT]/IQN/LUN; the first that "
     "logs in carries I/O, the next takes over when it fails", 0},
    {"fua", KEY_BOOL, "no", NULL, OPT(fua), 0, 0,
     "iscsi: every write with FUA, durable when it completes", 0},
    {"command_timeout", KEY_DURATION, "5s", NULL, OPT(command_timeout_ns), 1000000000ull,
     3600000000000ull, "iscsi: a command unanswered this long fails its path (whole seconds)", 0},
    {"tcp_user_timeout", KEY_DURATION, "5s", NULL, OPT(tcp_user_timeout_ns), 100000000ull,
     3600000000000ull, "iscsi: data unacknowledged this long breaks the connection", 0},
    {"nop_interval", KEY_DURATION, "1s", NULL, OPT(nop_interval_ns), 100000000ull,
     3600000000000ull, "iscsi: a NOP-Out on every path this often", 0},
    {"nop_missed", KEY_COUNT, "3", NULL, OPT(nop_missed), 1, 1000,
     "iscsi: NOP-Outs without answer before the path counts as dead", 0},
    {"io_timeout", KEY_DURATION, "30s", NULL, OPT(io_timeout_ns), 1000000000ull, 0,
     "iscsi: an I/O that finds no healthy path this long fails", 0},
    {"login_timeout", KEY_DURATION, "10s", NULL, OPT(login_timeout_ns), 1000000000ull, 0,
     "iscsi: connecting and logging in on a path", 0},
    {"retry_interval", KEY_DURATION, "1s", NULL, OPT(retry_interval_ns), 100000000ull, 0,
     "iscsi: a dead path is tried again this often", 0},
};

/* "iscsi://a/iqn/1, iscsi://b/iqn/1" -> portals[].  0, or -1 with err. */
static int split_portals(struct iscsi_cfg *c, const char *text, char *err, size_t n)
{
    c->nportals = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ", ");
        if (!len)
            break;
        if (c->nportals == FL_MAX_PORTALS) {
            snprintf(err, n, "portals: at most %d", FL_MAX_PORTALS);
            return -1;
        }
        if (len >= FL_URL_MAX || strncmp(p, "iscsi://", 8) != 0) {
            snprintf(err, n, "portals: '%.*s' is not iscsi://HOST[:PORT]/IQN/LUN",
                     (int)(len < 200 ? len : 200), p);
            return -1;
        }
        memcpy(c->portals[c->nportals], p, len);
        c->portals[c->nportals++][len] = '\0';
        p += len;
    }
    return 0;
}

static int iscsi_check(struct backend_setup *s, char *err, size_t errlen)
{
    struct iscsi_cfg *c = iscsi_cfg(s->t);
    if (s->t->path[0]) {
        s->section = "target";
        s->key = "path";
        snprintf(err, errlen, "path: kind = iscsi takes portals, not a path");
        return -1;
    }
    if (!c->portals_text[0] && !s->lab_serves) {
        s->section = "target";
        snprintf(err, errlen, "[target] kind = iscsi needs portals%s", s->lab_hint);
        return -1;
    }
    if (c->portals_text[0] && split_portals(c, c->portals_text, err, errlen) != 0) {
        s->section = "target";
        s->key = "portals";
        return -1;
    }
    s->t->located = c->nportals > 0;
    /* libiscsi is asynchronous: one thread keeps `depth` commands in flight */
    s->t->engine = ENGINE_URING;
    s->t->direct = true;
    c->command_timeout_s = (unsigned)((c->command_timeout_ns + 999999999ull) / 1000000000ull);
    c->tcp_user_timeout_ms = (unsigned)(c->tcp_user_timeout_ns / 1000000ull);
    c->nop_interval_ms = (unsigned)(c->nop_interval_ns / 1000000ull);
    return 0;
}

/* The lab's portals, where the scenario named none. */
static int iscsi_place(struct target_cfg *t, const char *where, char *err, size_t errlen)
{
    struct iscsi_cfg *c = iscsi_cfg(t);
    if (c->nportals)
        return 0;
    if (split_portals(c, where, err, errlen) != 0)
        return -1;
    t->located = true;
    return 0;
}

static void iscsi_where(const struct target_cfg *t, uint64_t block, uint64_t offset,
                        const char *name, char *path, size_t n, uint64_t *off)
{
    (void)t;
    (void)block;
    (void)name;
    snprintf(path, n, "the LUN");
    *off = offset;
}

const struct backend_ops backend_iscsi_ops = {
    .kind = "iscsi",
    .target_keys = KEY_TABLE(target_keys),
    .check = iscsi_check,
    .place = iscsi_place,
    .where = iscsi_where,
    .open = iscsi_backend_open,
    .submit = iscsi_backend_submit,
    .reap = iscsi_backend_reap,
    .close = iscsi_backend_close,
    .identify = iscsi_backend_identify,
};
