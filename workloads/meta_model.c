/* meta_model — a stream's model saved and loaded (DIR/meta-S.model), and
 * rebuilt from its journal after a crash; see meta.h. */
#include "meta.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/batchlog.h"
#include "meta_internal.h"

/* Rebuilding a model from the journal. */
struct rebuild {
    struct meta_slot model[META_DIRS][META_SLOTS + 1]; /* as the journal goes */
    struct meta_slot base[META_DIRS][META_SLOTS + 1];  /* at the last durability point */
    struct meta_slot last[META_DIRS][META_SLOTS + 1];  /* the last state a record gave */
    uint8_t touched[META_DIRS][META_SLOTS + 1];        /* since then */
    uint8_t may_present[META_DIRS][META_SLOTS + 1], may_absent[META_DIRS][META_SLOTS + 1];
    uint32_t max_size[META_DIRS][META_SLOTS + 1];
    uint64_t points;
    bool closed, bad;
};

static void allow(struct rebuild *b, unsigned d, int k, unsigned state, uint32_t size)
{
    b->touched[d][k] = 1;
    if (state != SLOT_ABSENT) {
        b->may_present[d][k] = 1;
        if (size > b->max_size[d][k])
            b->max_size[d][k] = size;
    }
    if (state != SLOT_PRESENT)
        b->may_absent[d][k] = 1;
}

static int rebuild_one(void *ctx, const void *rec)
{
    struct rebuild *b = ctx;
    struct mrec r;
    memcpy(&r, rec, sizeof r);
    if (r.type == MR_POINT) {
        memcpy(b->base, b->model, sizeof b->model);
        memcpy(b->last, b->model, sizeof b->model);
        memset(b->touched, 0, sizeof b->touched);
        memset(b->may_present, 0, sizeof b->may_present);
        memset(b->may_absent, 0, sizeof b->may_absent);
        memset(b->max_size, 0, sizeof b->max_size);
        b->points = r.seq;
        return 0;
    }
    if (r.type == MR_CLOSED) {
        b->closed = true;
        return 0;
    }
    if ((r.type != MR_INTENT && r.type != MR_SET) || r.dir >= META_DIRS || r.slot < -1 ||
        r.slot >= META_SLOTS || r.state > SLOT_DOUBT || r.op >= MOP_COUNT) {
        b->bad = true; /* a batch with a good crc and a record we never write */
        return 1;
    }
    int k = r.slot + 1;
    struct meta_slot now = {.state = r.state, .op = r.op, .size = r.size, .op_ns = r.t_ns};
    if (r.type == MR_SET)
        b->model[r.dir][k] = now;
    b->last[r.dir][k] = now; /* an intent whose outcome the crash cut off: what it aimed at */
    allow(b, r.dir, k, r.state, r.size);
    return 0;
}

int meta_recover(struct meta_stream *s, const char *rundir, uint64_t run_id)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.journal", rundir, s->rel);
    if (access(path, F_OK) != 0)
        return meta_load(s, rundir); /* a run from before the journal */
    struct rebuild *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(s->err, sizeof s->err, "out of memory rebuilding the model");
        return -1;
    }
    struct jlog_info info;
    int rc = jlog_read(path, META_LOG_KIND, sizeof(struct mrec), rebuild_one, b, &info, s->err,
                       sizeof s->err);
    if (rc == 0 && b->bad) {
        snprintf(s->err, sizeof s->err, "%s is damaged: record %" PRIu64 " is of no kind the "
                 "stream writes", path, info.records);
        rc = -1;
    }
    if (rc == 0 && info.run_id != run_id) {
        snprintf(s->err, sizeof s->err, "%s belongs to another run (%016" PRIx64 ", this run is "
                 "%016" PRIx64 ")", path, info.run_id, run_id);
        rc = -1;
    }
    s->journal_records = info.records;
    s->journal_torn = info.torn;
    s->durability_points = b->points;
    if (rc == 0 && b->closed && !info.torn) {
        rc = meta_load(s, rundir);
        free(b);
        return rc;
    }
    if (rc == 0) {
        /* The run did not end cleanly: durable what no record touched since the
         * last point; either way what one did, as the records allow. */
        s->rebuilt = true;
        memcpy(s->latest, b->last, sizeof s->latest);
        for (unsigned d = 0; d < META_DIRS; d++)
            for (int f = -1; f < META_SLOTS; f++) {
                int k = f + 1;
                struct meta_slot *m = slot_of(s, d, f);
                *m = b->model[d][k];
                if (!b->touched[d][k])
                    continue;
                s->unsynced[d][k] = 1;
                allow(b, d, k, b->base[d][k].state, b->base[d][k].size);
                if (b->may_present[d][k]) { /* present, perhaps shorter, or gone */
                    m->state = SLOT_DOUBT;
                    m->size = b->max_size[d][k];
                } else {
                    m->state = SLOT_ABSENT;
                }
            }
    }
    free(b);
    return rc;
}

int meta_save(struct meta_stream *s, const char *rundir)
{
    char path[4400], tmp[4410];
    snprintf(path, sizeof path, "%s/%s.model", rundir, s->rel);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(s->err, sizeof s->err, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, "faultline-meta 1 %u\n", s->index);
    for (unsigned d = 0; d < META_DIRS; d++) {
        const struct meta_slot *m = &s->dirs[d];
        fprintf(f, "d %u - %u %u %u %" PRIu64 "\n", d, m->state, m->op, m->size, m->op_ns);
        for (int k = 0; k < META_SLOTS; k++) {
            m = &s->files[d][k];
            fprintf(f, "f %u %d %u %u %u %" PRIu64 "\n", d, k, m->state, m->op, m->size,
                    m->op_ns);
        }
    }
    fprintf(f, "end\n"); /* a model cut short lacks it */
    int bad = ferror(f);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        bad = 1;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(s->err, sizeof s->err, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int meta_load(struct meta_stream *s, const char *rundir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.model", rundir, s->rel);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(s->err, sizeof s->err, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    unsigned version, index;
    int rc = fscanf(f, "faultline-meta %u %u\n", &version, &index) == 2 && version == 1 &&
                     index == s->index ? 0 : -1;
    char kind;
    unsigned d, st, op, size;
    char k[8];
    uint64_t ns;
    unsigned lines = 0;
    bool ended = false;
    char line[128];
    while (rc == 0 && !ended && fgets(line, sizeof line, f)) {
        if (strcmp(line, "end\n") == 0) {
            ended = true;
            break;
        }
        if (sscanf(line, "%c %u %7s %u %u %u %" SCNu64, &kind, &d, k, &st, &op, &size, &ns) != 7) {
            rc = -1;
            break;
        }
        lines++;
        int slot = kind == 'd' ? -1 : atoi(k);
        if (d >= META_DIRS || slot >= META_SLOTS || st > SLOT_DOUBT || op >= MOP_COUNT ||
            (kind != 'd' && kind != 'f') || (kind == 'f' && slot < 0)) {
            rc = -1;
            break;
        }
        set_slot(slot_of(s, d, slot), (enum slot_state)st, (enum meta_op)op, size, ns);
    }
    if (!ended || lines != META_DIRS * (META_SLOTS + 1))
        rc = -1;
    fclose(f);
    if (rc != 0)
        snprintf(s->err, sizeof s->err, "%s is damaged", path);
    return rc;
}
