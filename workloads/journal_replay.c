/*
 * journal_replay — the state of a run rebuilt after the fact: state.bin's
 * checkpoint, journal.bin's records replayed on top of it through the very
 * state-map transitions the engine drove, journal.old checked, and after a
 * crash the completions only acks.bin kept (journal_acks.c).
 */
#include "journal_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int journal_replay_one(void *ctx, const struct jrec *r)
{
    struct statemap *m = ctx;
    if (r->type != J_FLUSH && r->type != J_POWER && r->block >= m->nblocks)
        return -1;
    switch (r->type) {
    case J_INTENT:
        return statemap_plan_gen(m, r->block, (gen_t)r->gen);
    case J_DONE:
    case J_DONE_DURABLE:
        return statemap_write_done(m, r->block, (gen_t)r->gen, true, r->type == J_DONE_DURABLE);
    case J_FAIL:
        return statemap_write_done(m, r->block, (gen_t)r->gen, false, false);
    case J_FLUSH:
        statemap_flushed(m, r->block);
        return 0;
    case J_POWER:
        if (r->block == 0 || r->block > POWER_LOSSES_MAX || r->gen > 1)
            return -1;
        statemap_power_loss(m, (uint8_t)r->block, r->gen == 1);
        return 0;
    default:
        return -1;
    }
}

static int skip_one(void *ctx, const struct jrec *r)
{
    (void)ctx;
    (void)r;
    return 0;
}

/* Replays journal.bin of segment h->segment on top of the checkpoint in m,
 * one batch at a time.  0 (also when there is nothing to replay), or -1
 * with err. */
static int replay_journal(const char *dir, const struct shead *h, const struct run_meta *meta,
                          struct statemap *m, struct load_info *info, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    journal_path_in(path, sizeof path, dir, "journal.bin");
    int eno = 0;
    bool final = h->flags & STATE_FINAL;
    struct seg sg;
    if (journal_seg_open(&sg, path, &eno) != 0) {
        /* journal.bin exists from the run's first moment on (segment_open),
         * except before the first segment was installed. */
        if (eno == ENOENT && (!(h->flags & STATE_JOURNALED) || (h->segment <= 1 && !final)))
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    info->had_journal = true;
    int rc = 0;
    struct jhead jh;
    struct seg_result sc;
    if (journal_jhead_check(sg.raw, sg.rawlen, path, meta->run_id, &jh, err, errlen) != 0) {
        rc = -1;
    } else if (jh.segment > h->segment) {
        snprintf(err, errlen, "%s (segment %llu) is newer than state.bin (segment %llu)", path,
                 (unsigned long long)jh.segment, (unsigned long long)h->segment);
        rc = -1;
    } else if (jh.segment == h->segment) {
        int sr = journal_seg_scan(&sg, m, journal_replay_one, &sc);
        if (sr == -2) {
            snprintf(err, errlen, "%s, byte offset %llu: %s", path, (unsigned long long)sc.off,
                     sc.why);
            rc = -1;
        } else if (sr != 0) {
            snprintf(err, errlen, "%s, byte offset %llu: %s: it names a block outside the "
                     "target, or memory is short", path, (unsigned long long)sc.off, sc.why);
            rc = -1;
        } else {
            rc = journal_seg_scan_error(&sc, path, final,
                                        "the run ended cleanly and added nothing after "
                                        "its last checkpoint",
                                        err, errlen);
            info->replayed = sc.records;
            info->torn_tail = sc.end == SEG_TORN;
        }
    } else {
        /* An older segment: a crash between checkpoint and rotation, and the
         * checkpoint has it all; it was synced whole before. */
        int sr = journal_seg_scan(&sg, NULL, skip_one, &sc);
        if (sr != 0) {
            snprintf(err, errlen, "%s, byte offset %llu: %s", path, (unsigned long long)sc.off,
                     sc.why);
            rc = -1;
        } else {
            rc = journal_seg_scan_error(&sc, path, true,
                                        "this segment was synced whole before the "
                                        "checkpoint that followed it",
                                        err, errlen);
        }
    }
    journal_seg_close(&sg);
    return rc;
}

/* journal.old, when there is one, holds the segment before journal.bin's,
 * synced whole before the rotation: of this run, with no bad batch. */
static int check_old_segment(const char *dir, const struct shead *h, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    journal_path_in(path, sizeof path, dir, "journal.old");
    int eno = 0;
    struct seg sg;
    if (journal_seg_open(&sg, path, &eno) != 0) {
        if (eno == ENOENT) /* the first segment, or a crash in mid-rotation */
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(eno));
        return -1;
    }
    struct jhead jh;
    struct seg_result sc;
    int rc = 0;
    if (journal_jhead_check(sg.raw, sg.rawlen, path, h->meta.run_id, &jh, err, errlen) != 0) {
        rc = -1;
    } else if (jh.segment > h->segment) {
        snprintf(err, errlen, "%s (segment %llu) is newer than state.bin (segment %llu)", path,
                 (unsigned long long)jh.segment, (unsigned long long)h->segment);
        rc = -1;
    } else if (journal_seg_scan(&sg, NULL, skip_one, &sc) != 0) {
        snprintf(err, errlen, "%s, byte offset %llu: %s", path, (unsigned long long)sc.off,
                 sc.why);
        rc = -1;
    } else if (journal_seg_scan_error(&sc, path, true,
                                      "a segment is synced whole before it becomes "
                                      "journal.old",
                                      err, errlen) != 0) {
        rc = -1;
    }
    journal_seg_close(&sg);
    return rc;
}

int state_load(const char *dir, struct run_meta *meta, struct statemap *m, struct load_info *info,
               char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    struct shead h;
    if (journal_load_checkpoint(dir, &h, meta, m, err, errlen) != 0)
        return -1;
    info->final = h.flags & STATE_FINAL;
    info->journaled = h.flags & STATE_JOURNALED;
    /* A run that ended cleanly has every completion in its last checkpoint;
     * after a crash, those the kill kept from the journal come last: they
     * happened after everything journal.bin holds. */
    if (replay_journal(dir, &h, meta, m, info, err, errlen) != 0 ||
        check_old_segment(dir, &h, err, errlen) != 0 ||
        (!info->final && info->journaled &&
         journal_acks_recover(dir, meta, m, &info->acks_recovered, err, errlen) != 0)) {
        statemap_free(m);
        return -1;
    }
    return 0;
}
