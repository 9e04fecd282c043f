/* meta — metadata streams checked against a model; see meta.h. */
#include "meta.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/clock.h"
#include "../lib/batchlog.h"
#include "journal.h"
#include "meta_internal.h"
#include "tree.h"

static const char *const op_names[MOP_COUNT] = {"mkdir", "create", "rename",
                                                "unlink", "stat", "readdir"};

const char *meta_op_name(enum meta_op op)
{
    return op < MOP_COUNT ? op_names[op] : "none";
}

const unsigned meta_mix_default[MOP_COUNT] = {3, 30, 15, 12, 25, 15};

int meta_mix_parse(const char *text, unsigned mix[MOP_COUNT], char *err, size_t errlen)
{
    unsigned w[MOP_COUNT] = {0}, total = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, ":, ");
        int k = 0;
        while (k < MOP_COUNT && !(strlen(op_names[k]) == n && strncmp(p, op_names[k], n) == 0))
            k++;
        if (k == MOP_COUNT || p[n] != ':') {
            snprintf(err, errlen, "'%.*s': an operation and its weight, as create:30 (operations: "
                     "mkdir, create, rename, unlink, stat, readdir)", (int)strcspn(p, ", "), p);
            return -1;
        }
        char *end;
        unsigned long v = strtoul(p + n + 1, &end, 10);
        if (end == p + n + 1 || v > 1000 || (*end && *end != ',' && *end != ' ')) {
            snprintf(err, errlen, "'%.*s': the weight is a whole number from 0 to 1000",
                     (int)strcspn(p, ", "), p);
            return -1;
        }
        w[k] = (unsigned)v;
        total += (unsigned)v;
        p = end;
    }
    if (!total) {
        snprintf(err, errlen, "'%s': no operation has a weight", text);
        return -1;
    }
    memcpy(mix, w, sizeof w);
    return 0;
}

void meta_set_mix(struct meta_stream *s, const unsigned mix[MOP_COUNT])
{
    memcpy(s->mix, mix, sizeof s->mix);
}

/* f < 0: the directory itself.  rel: relative to the tree root. */
static void slot_rel(const struct meta_stream *s, unsigned d, int f, char *out, size_t n)
{
    if (f < 0)
        snprintf(out, n, "%s/d%u", s->rel, d);
    else
        snprintf(out, n, "%s/d%u/f%03d", s->rel, d, f);
}

static void slot_path(const struct meta_stream *s, unsigned d, int f, char *out, size_t n)
{
    char rel[64];
    slot_rel(s, d, f, rel, sizeof rel);
    /* the stream's dir ends in rel's first part; build from the root */
    snprintf(out, n, "%.*s/%s", (int)(strlen(s->dir) - strlen(s->rel) - 1), s->dir, rel);
}

/* --- the journal --- */

#define POINT_EVERY 16 /* slot changes between durability points */

static struct meta_slot *logged_of(struct meta_stream *s, unsigned d, int f)
{
    return f < 0 ? &s->logged_dirs[d] : &s->logged_files[d][f];
}

static void log_failed(struct meta_stream *s, const char *why)
{
    if (!s->log_failed)
        snprintf(s->err, sizeof s->err, "metadata journal: %s", why);
    s->log_failed = true;
}

static void log_rec(struct meta_stream *s, const struct mrec *r)
{
    if (s->log && !s->log_failed && jlog_add(s->log, r) != 0)
        log_failed(s, "out of memory");
}

/* Journals (unsynced) every slot whose model changed since it was last
 * journaled: the operations' outcomes and what stat and readdir resolved. */
static void log_model(struct meta_stream *s)
{
    if (!s->log)
        return;
    for (unsigned d = 0; d < META_DIRS; d++)
        for (int f = -1; f < META_SLOTS; f++) {
            struct meta_slot *m = slot_of(s, d, f), *l = logged_of(s, d, f);
            if (m->state == l->state && m->op == l->op && m->size == l->size &&
                m->op_ns == l->op_ns)
                continue; /* fields, not memcmp: set_slot leaves the padding undefined */
            *l = *m;
            s->unsynced[d][f + 1] = 1;
            s->changes++;
            struct mrec r = {.type = MR_SET, .op = m->op, .state = m->state, .dir = (uint8_t)d,
                             .slot = (int16_t)f, .size = m->size, .t_ns = m->op_ns};
            log_rec(s, &r);
        }
}

/* The intents of one planned operation that changes names (mkdir, create,
 * rename, unlink): the state each name it touches may get.  Journaled, not
 * yet synced: plan_batch syncs a whole batch of them before the first of
 * its operations is issued. */
static void intend(struct meta_stream *s, const struct meta_planned *p, uint64_t t0)
{
    uint64_t now = mono_ns() - t0;
    enum slot_state st = p->op == MOP_CREATE || p->op == MOP_MKDIR ? SLOT_PRESENT : SLOT_ABSENT;
    struct mrec r = {.type = MR_INTENT, .op = p->op, .state = (uint8_t)st, .dir = p->d,
                     .slot = p->f, .size = p->size, .t_ns = now};
    log_rec(s, &r);
    s->unsynced[p->d][p->f + 1] = 1;
    if (p->op == MOP_RENAME) { /* the target appears with the source's size */
        r.dir = p->d2;
        r.slot = p->f2;
        r.state = SLOT_PRESENT;
        log_rec(s, &r);
        s->unsynced[p->d2][p->f2 + 1] = 1;
    }
}

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* A durability point: the files changed since the last one and every
 * directory of the stream synced, then the point journaled: synced here
 * when commit, else by the caller's next synced commit (plan_batch's, with
 * the next batch of intents), before any further operation.  A sync that
 * fails makes no point: the changes stay doubtful.  The operations planned
 * so far are dropped either way: their intents come before the point, so
 * they would no longer be covered by one. */
static void durability_point(struct meta_stream *s, uint64_t t0, bool commit)
{
    s->nplanned = s->next_planned = 0;
    if (!s->log || s->log_failed)
        return;
    log_model(s);
    s->changes = 0; /* a failed attempt is tried again after as many changes */
    char path[4400];
    for (unsigned d = 0; d < META_DIRS; d++)
        for (int f = 0; f < META_SLOTS; f++)
            if (s->unsynced[d][f + 1] && s->files[d][f].state == SLOT_PRESENT) {
                slot_path(s, d, f, path, sizeof path);
                if (fsync_path(path, 0) != 0)
                    return;
            }
    for (unsigned d = 0; d < META_DIRS; d++) {
        if (s->dirs[d].state == SLOT_ABSENT)
            continue;
        slot_path(s, d, -1, path, sizeof path);
        if (fsync_path(path, O_DIRECTORY) != 0 && s->dirs[d].state == SLOT_PRESENT)
            return;
    }
    /* the stream's directory, and the root that holds its name */
    snprintf(path, sizeof path, "%.*s", (int)(strlen(s->dir) - strlen(s->rel) - 1), s->dir);
    if (fsync_path(s->dir, O_DIRECTORY) != 0 || fsync_path(path, O_DIRECTORY) != 0)
        return;
    struct mrec r = {.type = MR_POINT, .t_ns = mono_ns() - t0, .seq = ++s->durability_points};
    log_rec(s, &r);
    char err[4600];
    if (commit && !s->log_failed && jlog_commit(s->log, true, err, sizeof err) != 0)
        log_failed(s, err);
    if (!s->log_failed) /* uncommitted: a failure of the caller's commit stops the stream */
        memset(s->unsynced, 0, sizeof s->unsynced);
}

static void failed(struct meta_stream *s, enum meta_op op, unsigned d, int f, int err,
                   uint64_t now)
{
    char rel[64], detail[192];
    slot_rel(s, d, f, rel, sizeof rel);
    snprintf(detail, sizeof detail, "%s failed: %s; the names it touches may be either way "
             "until seen", op_names[op], strerror(err));
    findings_add_name(&s->findings, CLS_IO_ERROR, rel, op_names[op], "workload", now, now, detail);
    s->errors++;
    /* A dead mount fails at once: do not spin on it. */
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* What a stat or readdir saw of a slot, against the model.  size_known:
 * readdir tells existence only. */
static void observe(struct meta_stream *s, unsigned d, int f, bool exists, uint64_t size,
                    bool size_known, const char *phase, uint64_t now)
{
    struct meta_slot *m = slot_of(s, d, f);
    char rel[64], detail[192];
    slot_rel(s, d, f, rel, sizeof rel);
    const char *made = op_names[m->op];
    switch ((enum slot_state)m->state) {
    case SLOT_ABSENT:
        if (!exists)
            return;
        snprintf(detail, sizeof detail, "there (%" PRIu64 " bytes), but %s at %.3f s left it "
                 "absent", size, made, (double)m->op_ns / 1e9);
        findings_add_name(&s->findings, CLS_UNEXPECTED_FILE, rel, made, phase, m->op_ns, now,
                          detail);
        set_slot(m, SLOT_PRESENT, (enum meta_op)m->op, (uint32_t)size, m->op_ns);
        return;
    case SLOT_PRESENT:
        if (!exists) {
            snprintf(detail, sizeof detail, "gone; %s at %.3f s made it%s", made,
                     (double)m->op_ns / 1e9, f < 0 ? "" : " with its size");
            findings_add_name(&s->findings, CLS_MISSING_FILE, rel, made, phase, m->op_ns, now,
                              detail);
            set_slot(m, SLOT_ABSENT, (enum meta_op)m->op, 0, m->op_ns);
        } else if (f >= 0 && size_known && size != m->size) {
            snprintf(detail, sizeof detail, "%" PRIu64 " bytes, must be %u (%s at %.3f s)", size,
                     m->size, made, (double)m->op_ns / 1e9);
            findings_add_name(&s->findings, CLS_WRONG_SIZE, rel, made, phase, m->op_ns, now,
                              detail);
            m->size = (uint32_t)size;
        }
        return;
    case SLOT_DOUBT:
        /* Either outcome of the failed operation; a create cut short may
         * have written part of its data. */
        if (!exists) {
            m->state = SLOT_ABSENT;
        } else if (f >= 0 && !size_known) {
            return; /* there: stays doubtful until a stat tells the size */
        } else if (f < 0 || size <= m->size) {
            m->state = SLOT_PRESENT;
            m->size = (uint32_t)size;
        } else {
            snprintf(detail, sizeof detail, "%" PRIu64 " bytes, at most %u allowed after the "
                     "failed %s at %.3f s", size, m->size, made, (double)m->op_ns / 1e9);
            findings_add_name(&s->findings, CLS_WRONG_SIZE, rel, made, phase, m->op_ns, now,
                              detail);
            m->state = SLOT_PRESENT;
            m->size = (uint32_t)size;
        }
        return;
    }
}

static void do_stat(struct meta_stream *s, unsigned d, int f, const char *phase, uint64_t t0)
{
    char path[4400];
    slot_path(s, d, f, path, sizeof path);
    struct stat st;
    int rc = stat(path, &st);
    uint64_t now = mono_ns() - t0;
    if (rc != 0 && errno != ENOENT) {
        failed(s, MOP_STAT, d, f, errno, now);
        return;
    }
    observe(s, d, f, rc == 0, rc == 0 ? (uint64_t)st.st_size : 0, true, phase, now);
}

static void do_readdir(struct meta_stream *s, unsigned d, const char *phase, uint64_t t0)
{
    char path[4400];
    slot_path(s, d, -1, path, sizeof path);
    DIR *dir = opendir(path);
    uint64_t now = mono_ns() - t0;
    if (!dir) {
        if (errno == ENOENT)
            observe(s, d, -1, false, 0, false, phase, now);
        else
            failed(s, MOP_READDIR, d, -1, errno, now);
        return;
    }
    bool seen[META_SLOTS] = {false};
    struct dirent *e;
    errno = 0;
    while ((e = readdir(dir))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        unsigned k;
        char tail;
        if (sscanf(e->d_name, "f%3u%c", &k, &tail) == 1 && k < META_SLOTS &&
            strlen(e->d_name) == 4) {
            seen[k] = true;
            continue;
        }
        char rel[320], detail[192];
        snprintf(rel, sizeof rel, "%s/d%u/%.255s", s->rel, d, e->d_name);
        snprintf(detail, sizeof detail, "a name no operation of the stream makes");
        findings_add_name(&s->findings, CLS_UNEXPECTED_FILE, rel, "none", phase, FL_TIME_UNKNOWN,
                          now, detail);
    }
    int err = errno;
    closedir(dir);
    if (err) {
        failed(s, MOP_READDIR, d, -1, err, now);
        return;
    }
    observe(s, d, -1, true, 0, false, phase, now);
    for (int f = 0; f < META_SLOTS; f++)
        observe(s, d, f, seen[f], s->files[d][f].size, false, phase, now);
}

static void do_mkdir(struct meta_stream *s, unsigned d, uint64_t t0)
{
    char path[4400];
    slot_path(s, d, -1, path, sizeof path);
    int rc = mkdir(path, 0755);
    int err = errno;
    uint64_t now = mono_ns() - t0;
    struct meta_slot *m = &s->dirs[d];
    if (rc == 0 || (err == EEXIST && m->state == SLOT_DOUBT)) {
        set_slot(m, SLOT_PRESENT, MOP_MKDIR, 0, now);
    } else if (err == EEXIST) {
        observe(s, d, -1, true, 0, false, "workload", now);
    } else {
        set_slot(m, SLOT_DOUBT, MOP_MKDIR, 0, now);
        failed(s, MOP_MKDIR, d, -1, err, now);
    }
}

static void do_create(struct meta_stream *s, unsigned d, int f, uint32_t size, uint64_t t0)
{
    char path[4400];
    slot_path(s, d, f, path, sizeof path);
    struct meta_slot *m = &s->files[d][f];
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int err = errno;
        uint64_t now = mono_ns() - t0;
        if (err == EEXIST) {
            observe(s, d, f, true, 0, false, "workload", now);
        } else {
            set_slot(m, SLOT_DOUBT, MOP_CREATE, 0, now);
            failed(s, MOP_CREATE, d, f, err, now);
        }
        return;
    }
    char buf[8192];
    memset(buf, 'a' + (int)(size % 26), sizeof buf);
    ssize_t w = size ? write(fd, buf, size) : 0;
    int err = w < 0 ? errno : w < (ssize_t)size ? EIO : 0;
    if (close(fd) != 0 && !err)
        err = errno;
    uint64_t now = mono_ns() - t0;
    if (err) {
        set_slot(m, SLOT_DOUBT, MOP_CREATE, size, now);
        failed(s, MOP_CREATE, d, f, err, now);
        return;
    }
    set_slot(m, SLOT_PRESENT, MOP_CREATE, size, now);
}

static void do_rename(struct meta_stream *s, unsigned d, int f, unsigned d2, int f2, uint64_t t0)
{
    char from[4400], to[4400];
    slot_path(s, d, f, from, sizeof from);
    slot_path(s, d2, f2, to, sizeof to);
    int rc = rename(from, to);
    int err = errno;
    uint64_t now = mono_ns() - t0;
    struct meta_slot *src = &s->files[d][f], *dst = &s->files[d2][f2];
    uint32_t size = src->size;
    if (rc == 0) {
        set_slot(src, SLOT_ABSENT, MOP_RENAME, 0, now);
        set_slot(dst, SLOT_PRESENT, MOP_RENAME, size, now);
    } else if (err == ENOENT) {
        observe(s, d, f, false, 0, false, "workload", now); /* the source is gone */
    } else {
        set_slot(src, SLOT_DOUBT, MOP_RENAME, size, now);
        set_slot(dst, SLOT_DOUBT, MOP_RENAME, size, now);
        failed(s, MOP_RENAME, d, f, err, now);
    }
}

static void do_unlink(struct meta_stream *s, unsigned d, int f, uint64_t t0)
{
    char path[4400];
    slot_path(s, d, f, path, sizeof path);
    int rc = unlink(path);
    int err = errno;
    uint64_t now = mono_ns() - t0;
    struct meta_slot *m = &s->files[d][f];
    if (rc == 0) {
        set_slot(m, SLOT_ABSENT, MOP_UNLINK, 0, now);
    } else if (err == ENOENT) {
        observe(s, d, f, false, 0, false, "workload", now);
    } else {
        set_slot(m, SLOT_DOUBT, MOP_UNLINK, m->size, now);
        failed(s, MOP_UNLINK, d, f, err, now);
    }
}

/* What a plan is drawn on: the model as it will be if every planned
 * operation succeeds. */
struct shadow {
    struct meta_slot dirs[META_DIRS];
    struct meta_slot files[META_DIRS][META_SLOTS];
};

/* A random file slot in state st inside a present directory; -1 if a few
 * tries find none. */
static int pick(struct meta_stream *s, const struct shadow *m, enum slot_state st, unsigned *d)
{
    for (int tries = 0; tries < 16; tries++) {
        unsigned k = (unsigned)rng_below(&s->rng, META_DIRS);
        int f = (int)rng_below(&s->rng, META_SLOTS);
        if (m->dirs[k].state == SLOT_PRESENT && m->files[k][f].state == st) {
            *d = k;
            return f;
        }
    }
    return -1;
}

/* The next operation of the mix, drawn on m; false when it found no name
 * to work on (a create with every slot taken, say). */
static bool draw(struct meta_stream *s, const struct shadow *m, struct meta_planned *p)
{
    unsigned total = 0;
    for (int k = 0; k < MOP_COUNT; k++)
        total += s->mix[k];
    unsigned r = (unsigned)rng_below(&s->rng, total), k = 0;
    while (k + 1 < MOP_COUNT && r >= s->mix[k])
        r -= s->mix[k++];
    *p = (struct meta_planned){.op = (uint8_t)k, .f = -1, .f2 = -1};
    bool any_dir = false;
    for (unsigned d = 0; d < META_DIRS; d++)
        any_dir |= m->dirs[d].state == SLOT_PRESENT;
    if (!any_dir)
        p->op = MOP_MKDIR;
    unsigned d = 0, d2 = 0;
    int f = -1, f2 = -1;
    switch ((enum meta_op)p->op) {
    case MOP_MKDIR:
        d = (unsigned)rng_below(&s->rng, META_DIRS);
        if (m->dirs[d].state == SLOT_PRESENT)
            p->op = MOP_READDIR;
        break;
    case MOP_CREATE:
        if ((f = pick(s, m, SLOT_ABSENT, &d)) < 0)
            return false;
        p->size = (uint32_t)rng_below(&s->rng, 8193);
        break;
    case MOP_RENAME:
        if ((f = pick(s, m, SLOT_PRESENT, &d)) < 0 || (f2 = pick(s, m, SLOT_ABSENT, &d2)) < 0)
            return false;
        p->size = m->files[d][f].size;
        break;
    case MOP_UNLINK:
        if ((f = pick(s, m, SLOT_PRESENT, &d)) < 0)
            return false;
        break;
    case MOP_STAT:
        d = (unsigned)rng_below(&s->rng, META_DIRS);
        if (m->dirs[d].state == SLOT_ABSENT)
            return false;
        f = (int)rng_below(&s->rng, META_SLOTS);
        break;
    case MOP_READDIR:
        if ((f = pick(s, m, SLOT_PRESENT, &d)) < 0 && (f = pick(s, m, SLOT_ABSENT, &d)) < 0)
            return false;
        f = -1; /* the directory itself */
        break;
    case MOP_COUNT:
        return false;
    }
    p->d = (uint8_t)d;
    p->f = (int16_t)f;
    p->d2 = (uint8_t)d2;
    p->f2 = (int16_t)f2;
    return true;
}

static bool changes_names(enum meta_op op)
{
    return op == MOP_MKDIR || op == MOP_CREATE || op == MOP_RENAME || op == MOP_UNLINK;
}

/* The names p works on, as found on m: its directory (or directories) and
 * its slot (or slots).  What it is issued on must still be this. */
static void expect_of(const struct meta_slot dirs[META_DIRS],
                      const struct meta_slot files[META_DIRS][META_SLOTS], struct meta_planned *p)
{
    p->pre[0] = dirs[p->d];
    p->pre[1] = p->f >= 0 ? files[p->d][p->f] : dirs[p->d];
    p->pre[2] = dirs[p->d2];
    p->pre[3] = p->f2 >= 0 ? files[p->d2][p->f2] : dirs[p->d2];
}

static bool same_slot(const struct meta_slot *a, const struct meta_slot *b)
{
    return a->state == b->state && a->size == b->size;
}

/* Whether the model still holds what p was planned on: no earlier
 * operation of its batch failed or found something else. */
static bool plan_holds(struct meta_stream *s, const struct meta_planned *p)
{
    struct meta_planned now = *p;
    expect_of(s->dirs, (const struct meta_slot(*)[META_SLOTS])s->files, &now);
    for (int k = 0; k < 4; k++)
        if (!same_slot(&now.pre[k], &p->pre[k]))
            return false;
    return true;
}

/* m as it is when p succeeds. */
static void apply(struct shadow *m, const struct meta_planned *p)
{
    switch ((enum meta_op)p->op) {
    case MOP_MKDIR:
        m->dirs[p->d] = (struct meta_slot){.state = SLOT_PRESENT, .op = MOP_MKDIR};
        break;
    case MOP_CREATE:
        m->files[p->d][p->f] =
            (struct meta_slot){.state = SLOT_PRESENT, .op = MOP_CREATE, .size = p->size};
        break;
    case MOP_RENAME:
        m->files[p->d][p->f] = (struct meta_slot){.state = SLOT_ABSENT, .op = MOP_RENAME};
        m->files[p->d2][p->f2] =
            (struct meta_slot){.state = SLOT_PRESENT, .op = MOP_RENAME, .size = p->size};
        break;
    case MOP_UNLINK:
        m->files[p->d][p->f] = (struct meta_slot){.state = SLOT_ABSENT, .op = MOP_UNLINK};
        break;
    default:
        break;
    }
}

/* The next operations, drawn ahead up to META_PLAN_CHANGES that change
 * names (or META_PLAN operations), with the intents of those on stable
 * storage in one sync, together with a durability point when one is due.
 * One sync per batch instead of one per operation, and the same guarantee:
 * no operation is issued before its intent is durable.  An intent whose
 * operation is never issued (the batch was dropped, the run ended) only
 * allows its names a state they did not take. */
static void plan_batch(struct meta_stream *s, uint64_t t0)
{
    s->nplanned = s->next_planned = 0;
    bool logged = false;
    if (s->log && !s->log_failed && s->changes >= POINT_EVERY) {
        uint64_t points = s->durability_points;
        durability_point(s, t0, false);
        logged = s->durability_points != points;
    }
    struct shadow m;
    memcpy(m.dirs, s->dirs, sizeof m.dirs);
    memcpy(m.files, s->files, sizeof m.files);
    unsigned changing = 0;
    for (unsigned tries = 0;
         tries < 2 * META_PLAN && s->nplanned < META_PLAN && changing < META_PLAN_CHANGES;
         tries++) {
        struct meta_planned *p = &s->planned[s->nplanned];
        if (!draw(s, &m, p))
            continue;
        expect_of(m.dirs, (const struct meta_slot(*)[META_SLOTS])m.files, p);
        apply(&m, p);
        s->nplanned++;
        if (changes_names((enum meta_op)p->op)) {
            changing++;
            if (s->log) {
                if (!logged)
                    log_model(s); /* what the last batch's operations did comes first */
                intend(s, p, t0);
                logged = true;
            }
        }
    }
    char err[4600];
    if (logged && !s->log_failed && jlog_commit(s->log, true, err, sizeof err) != 0)
        log_failed(s, err);
}

/* An operation completed at now_ns: the gap since the one before is kept
 * when it is long, in place of the shortest kept when there is no room. */
static void note_done(struct meta_stream *s, uint64_t now_ns)
{
    struct meta_gap g = {s->last_done_ns, now_ns};
    s->last_done_ns = now_ns;
    if (g.to_ns - g.from_ns < META_GAP_MIN_NS)
        return;
    unsigned k = s->ngaps;
    if (k == META_GAPS) {
        k = 0;
        for (unsigned i = 1; i < META_GAPS; i++)
            if (s->gaps[i].to_ns - s->gaps[i].from_ns < s->gaps[k].to_ns - s->gaps[k].from_ns)
                k = i;
        if (s->gaps[k].to_ns - s->gaps[k].from_ns >= g.to_ns - g.from_ns)
            return;
    } else {
        s->ngaps++;
    }
    s->gaps[k] = g;
}

uint64_t meta_longest_gap(const struct meta_stream *streams, unsigned n, uint64_t from_ns,
                          uint64_t to_ns, struct meta_gap *gap)
{
    uint64_t longest = 0;
    for (unsigned i = 0; streams && i < n; i++)
        for (unsigned k = 0; k < streams[i].ngaps; k++) {
            const struct meta_gap *g = &streams[i].gaps[k];
            if (g->to_ns < from_ns || g->from_ns > to_ns || g->to_ns - g->from_ns <= longest)
                continue;
            longest = g->to_ns - g->from_ns;
            if (gap)
                *gap = *g;
        }
    return longest;
}

static void one_op(struct meta_stream *s, uint64_t t0)
{
    if (s->next_planned == s->nplanned)
        plan_batch(s, t0);
    if (s->log_failed || s->next_planned == s->nplanned)
        return; /* nothing to work on was found: draw again */
    const struct meta_planned *p = &s->planned[s->next_planned++];
    if (!plan_holds(s, p)) {
        s->nplanned = s->next_planned = 0; /* planned on a model that no longer is */
        return;
    }
    switch ((enum meta_op)p->op) {
    case MOP_MKDIR:
        do_mkdir(s, p->d, t0);
        break;
    case MOP_CREATE:
        do_create(s, p->d, p->f, p->size, t0);
        break;
    case MOP_RENAME:
        do_rename(s, p->d, p->f, p->d2, p->f2, t0);
        break;
    case MOP_UNLINK:
        do_unlink(s, p->d, p->f, t0);
        break;
    case MOP_STAT:
        do_stat(s, p->d, p->f, "workload", t0);
        break;
    case MOP_READDIR:
        do_readdir(s, p->d, "workload", t0);
        break;
    case MOP_COUNT:
        return;
    }
    s->ops[p->op]++;
    note_done(s, mono_ns() - t0);
    log_model(s);
}

int meta_init(struct meta_stream *s, const char *root, unsigned index, uint64_t seed,
              size_t findings_limit, bool existing)
{
    memset(s, 0, sizeof *s);
    s->index = index;
    rng_seed(&s->rng, seed);
    memcpy(s->mix, meta_mix_default, sizeof s->mix);
    snprintf(s->rel, sizeof s->rel, "meta-%u", index);
    snprintf(s->dir, sizeof s->dir, "%s/%s", root, s->rel);
    findings_init(&s->findings, findings_limit);
    if (existing || mkdir(s->dir, 0755) == 0)
        return 0;
    int e = errno;
    char why[600];
    /* There after the tree was emptied: an entry the listing did not show
     * (tree_remove_stale says when); removed, and made anew. */
    if (e == EEXIST && tree_remove_stale(root, s->rel, why, sizeof why) == 0) {
        if (mkdir(s->dir, 0755) == 0)
            return 0;
        e = errno;
    } else if (e == EEXIST) {
        snprintf(s->err, sizeof s->err, "%s", why); /* it names the path */
        return -1;
    }
    snprintf(s->err, sizeof s->err, "cannot create %s: %s", s->dir, strerror(e));
    return -1;
}

void meta_free(struct meta_stream *s)
{
    jlog_close(s->log);
    s->log = NULL;
    findings_free(&s->findings);
}

void meta_run(struct meta_stream *s, uint64_t t0, uint64_t duration_ns,
              volatile sig_atomic_t *stop)
{
    while (!*stop && !s->log_failed && mono_ns() - t0 < duration_ns)
        one_op(s, t0);
    durability_point(s, t0, true); /* what the last operations changed */
}

void meta_check_all(struct meta_stream *s, const char *phase, uint64_t now_ns)
{
    uint64_t t0 = mono_ns() - now_ns; /* the checks' times read from now_ns on */
    for (unsigned d = 0; d < META_DIRS; d++) {
        do_readdir(s, d, phase, t0); /* existence of every slot, and stray names */
        s->names_checked++;
        if (s->dirs[d].state != SLOT_PRESENT)
            continue;
        s->names_checked += META_SLOTS;
        for (int f = 0; f < META_SLOTS; f++)
            if (s->files[d][f].state != SLOT_ABSENT)
                do_stat(s, d, f, phase, t0); /* and the size of what is there */
    }
    log_model(s);
    if (!s->rebuilt)
        return;
    /* What the crash took back: names changed after the last durability
     * point found as they were before, files found shorter. */
    for (unsigned d = 0; d < META_DIRS; d++)
        for (int f = -1; f < META_SLOTS; f++) {
            const struct meta_slot *seen = slot_of(s, d, f), *want = &s->latest[d][f + 1];
            if (!s->unsynced[d][f + 1] || seen->state == SLOT_DOUBT || want->state == SLOT_DOUBT)
                continue;
            if (seen->state != want->state)
                s->names_reverted++;
            else if (seen->state == SLOT_PRESENT && f >= 0 && seen->size < want->size)
                s->sizes_short++;
        }
}

int meta_journal_open(struct meta_stream *s, const char *rundir, uint64_t run_id)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.journal", rundir, s->rel);
    if (!(s->log = jlog_open(path, META_LOG_KIND, sizeof(struct mrec), run_id, s->err,
                             sizeof s->err)))
        return -1;
    memcpy(s->logged_dirs, s->dirs, sizeof s->dirs);
    memcpy(s->logged_files, s->files, sizeof s->files);
    return 0;
}

int meta_journal_close(struct meta_stream *s)
{
    if (!s->log)
        return 0;
    durability_point(s, mono_ns(), true); /* what the sweep resolved; times do not matter here */
    if (!s->log_failed) {
        /* closed only when nothing is left unsynced: else verify must keep
         * the doubts the journal shows */
        bool clean = true;
        for (unsigned d = 0; d < META_DIRS; d++)
            for (int k = 0; k <= META_SLOTS; k++)
                clean &= !s->unsynced[d][k];
        struct mrec r = {.type = MR_CLOSED};
        char err[4600];
        if (clean)
            log_rec(s, &r);
        if (!s->log_failed && jlog_commit(s->log, true, err, sizeof err) != 0)
            log_failed(s, err);
    }
    s->journal_records = jlog_records(s->log);
    jlog_close(s->log);
    s->log = NULL;
    return s->log_failed ? -1 : 0;
}
