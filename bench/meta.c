/*
 * bench/meta.c — faultline's metadata streams alone, for bench/meta.sh to
 * set against fio's file engines.
 *
 *   meta ROOT RUNDIR SECONDS STREAMS MIX
 *
 * STREAMS threads, each a metadata stream (workloads/meta.h) in ROOT/meta-S
 * with the operation mix MIX ("create:50, unlink:50"), its intent journal
 * in RUNDIR (so the journal's syncs cost what they cost on that
 * filesystem), for SECONDS.  Then, as at the end of a run, every name is
 * checked against the model, the model saved and the journal closed.
 * Prints one line:
 *
 *   ops N create N unlink N mkdir N rename N stat N readdir N findings N errors N seconds S
 *
 * where seconds is the wall clock from the streams' start to the journal
 * closed (the check included).  Exit 1 when a name was wrong or an
 * operation failed, 2 when it could not run.  It is the streams of a
 * `faultline run` without the data workers around them; built against
 * build/libfaultline.a by bench/meta.sh.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/clock.h"
#include "../workloads/meta.h"

struct stream_arg {
    struct meta_stream *m;
    uint64_t t0, ns;
};

static volatile sig_atomic_t never;

static void *stream_main(void *p)
{
    struct stream_arg *a = p;
    meta_run(a->m, a->t0, a->ns, &never);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: meta ROOT RUNDIR SECONDS STREAMS MIX\n");
        return 2;
    }
    double secs = atof(argv[3]);
    unsigned n = (unsigned)atoi(argv[4]);
    unsigned mix[MOP_COUNT];
    char err[256];
    if (secs <= 0 || n < 1 || n > 64) {
        fprintf(stderr, "meta: SECONDS > 0 and STREAMS 1..64\n");
        return 2;
    }
    if (meta_mix_parse(argv[5], mix, err, sizeof err) != 0) {
        fprintf(stderr, "meta: MIX %s\n", err);
        return 2;
    }
    struct meta_stream *s = calloc(n, sizeof *s);
    struct stream_arg *a = calloc(n, sizeof *a);
    pthread_t *th = calloc(n, sizeof *th);
    if (!s || !a || !th) {
        fprintf(stderr, "meta: out of memory\n");
        return 2;
    }
    for (unsigned i = 0; i < n; i++) {
        if (meta_init(&s[i], argv[1], i, 0x5eed + i, 100, false) != 0 ||
            meta_journal_open(&s[i], argv[2], 1) != 0) {
            fprintf(stderr, "meta: stream %u: %s\n", i, s[i].err);
            return 2;
        }
        meta_set_mix(&s[i], mix);
    }
    uint64_t t0 = mono_ns();
    for (unsigned i = 0; i < n; i++) {
        a[i] = (struct stream_arg){.m = &s[i], .t0 = t0, .ns = (uint64_t)(secs * 1e9)};
        if (pthread_create(&th[i], NULL, stream_main, &a[i]) != 0) {
            fprintf(stderr, "meta: cannot start stream %u\n", i);
            return 2;
        }
    }
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    uint64_t ops[MOP_COUNT] = {0}, all = 0, findings = 0, errors = 0;
    int rc = 0;
    for (unsigned i = 0; i < n; i++) {
        meta_check_all(&s[i], "sweep", mono_ns() - t0);
        if (meta_save(&s[i], argv[2]) != 0 || meta_journal_close(&s[i]) != 0) {
            fprintf(stderr, "meta: stream %u: %s\n", i, s[i].err);
            rc = 2;
        }
        for (int k = 0; k < MOP_COUNT; k++) {
            ops[k] += s[i].ops[k];
            all += s[i].ops[k];
        }
        findings += s[i].findings.n;
        errors += s[i].errors;
        for (size_t f = 0; f < s[i].findings.n && f < 3; f++)
            fprintf(stderr, "meta: %s: %s\n", s[i].findings.list[f].path,
                    s[i].findings.list[f].detail);
    }
    double wall = (double)(mono_ns() - t0) / 1e9;
    printf("ops %" PRIu64, all);
    for (int k = 0; k < MOP_COUNT; k++)
        printf(" %s %" PRIu64, meta_op_name((enum meta_op)k), ops[k]);
    printf(" findings %" PRIu64 " errors %" PRIu64 " seconds %.3f\n", findings, errors, wall);
    for (unsigned i = 0; i < n; i++)
        meta_free(&s[i]);
    free(s);
    free(a);
    free(th);
    if (rc)
        return rc;
    return findings || errors ? 1 : 0;
}
