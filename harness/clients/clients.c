/* clients — see clients.h for the exchange. */
#include "clients.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/clock.h"
#include "../../lib/wire.h"
#include "../../workloads/journal.h"

enum {
    TAG_HELLO = 101,
    TAG_READY,
    TAG_CLOCK_BEGIN,
    TAG_CLOCK,
    TAG_GO,
    TAG_PROGRESS,
    TAG_RESULT,
    TAG_CROSS,
    TAG_DONE,
};

#define SEC 1000000000ull
#define CLOCK_ROUNDS 32
#define SEND_WAIT (30 * SEC)   /* a control message leaves within this */
#define CLOCK_WAIT (10 * SEC)  /* one clock measurement */
#define RANK0_WAIT (600 * SEC) /* a rank waits this long for rank 0 between steps */
#define START_SLACK (50000000ull) /* time zero this far ahead of GO, plus per rank */
#define CLOCK_UNKNOWN_ERR 1000000ull /* a client's clock error when none was kept: 1 ms */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

int clients_init(struct clients *cl, struct ranks *mpi, uint64_t grace_ns, char *err,
                 size_t errlen)
{
    memset(cl, 0, sizeof *cl);
    cl->mpi = mpi;
    cl->n = (unsigned)mpi->size;
    cl->rank = (unsigned)mpi->rank;
    cl->grace_ns = grace_ns;
    if (cl->rank != 0)
        return 0;
    if (!(cl->c = calloc(cl->n, sizeof *cl->c))) {
        snprintf(err, errlen, "out of memory for %u clients", cl->n);
        return -1;
    }
    for (unsigned r = 0; r < cl->n; r++)
        cl->c[r].rank = r;
    if (gethostname(cl->c[0].host, sizeof cl->c[0].host - 1) != 0)
        snprintf(cl->c[0].host, sizeof cl->c[0].host, "?");
    return 0;
}

void clients_free(struct clients *cl)
{
    for (unsigned r = 0; cl->c && r < cl->n; r++)
        if (cl->c[r].have_res)
            client_result_free(&cl->c[r].res);
    free(cl->c);
    cl->c = NULL;
    /* A result whose send timed out may still be read by MPI: it goes with
     * the process. */
    if (cl->result_sent)
        free(cl->result);
    cl->result = NULL;
}

static void lose(struct clients *cl, unsigned r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void lose(struct clients *cl, unsigned r, const char *fmt, ...)
{
    struct client *c = &cl->c[r];
    if (c->state == CLIENT_LOST)
        return;
    c->state = CLIENT_LOST;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "faultline: client %u (%s) lost: %s\n", r, c->host[0] ? c->host : "?",
            c->why);
}

unsigned clients_lost(const struct clients *cl)
{
    unsigned k = 0;
    for (unsigned r = 0; cl->c && r < cl->n; r++)
        k += cl->c[r].state == CLIENT_LOST;
    return k;
}

uint64_t clients_error_ns(const struct client *c)
{
    if (c->rank == 0)
        return 0;
    uint64_t e = c->uncertainty_ns[0];
    if (c->end_measured) {
        int64_t drift = c->offset_ns[1] - c->offset_ns[0];
        e = max_u64(e, c->uncertainty_ns[1]) + (uint64_t)(drift < 0 ? -drift : drift);
    }
    return e;
}

/* Sends a small message that wire w holds; frees it. */
static int send_wire(struct clients *cl, int to, int tag, struct wire *w, uint64_t wait,
                     char *err, size_t errlen)
{
    if (wire_done(w) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int eno;
    int rc = ranks_send(cl->mpi, to, tag, w->buf, w->len, mono_ns() + wait, &eno, err, errlen);
    if (rc == 0 || eno != ETIMEDOUT)
        wire_free(w);
    /* else: the send may still read it; it goes with the process */
    return rc;
}

static void sleep_until(uint64_t t)
{
    for (;;) {
        uint64_t now = mono_ns();
        if (now >= t)
            return;
        uint64_t left = t - now;
        if (left > 200000) { /* sleep to 200 µs before, then spin: all ranks start together */
            left -= 200000;
            struct timespec ts = {(time_t)(left / SEC), (long)(left % SEC)};
            nanosleep(&ts, NULL);
        }
    }
}

/* --- rank 0 --- */

void clients_hello(struct clients *cl, const struct clients_hello *h)
{
    for (unsigned r = 1; r < cl->n; r++) {
        struct wire w;
        wire_init(&w);
        wire_str(&w, h->dir);
        wire_u64(&w, h->run_id);
        wire_u64(&w, h->seed);
        wire_u64(&w, h->start_wall_ns);
        wire_str(&w, h->lab_prefix);
        char err[512];
        if (send_wire(cl, (int)r, TAG_HELLO, &w, SEND_WAIT, err, sizeof err) != 0)
            lose(cl, r, "could not be told where the run is: %s", err);
    }
}

/* READY or FAILED from every rank, at most until deadline. */
static void collect_ready(struct clients *cl, uint64_t deadline)
{
    for (;;) {
        unsigned waiting = 0;
        for (unsigned r = 1; r < cl->n; r++)
            waiting += cl->c[r].state == CLIENT_PREPARING;
        if (!waiting)
            return;
        struct rmsg m;
        char err[512];
        int eno;
        if (ranks_recv(cl->mpi, RANKS_ANY, TAG_READY, &m, deadline, &eno, err, sizeof err) != 0) {
            for (unsigned r = 1; r < cl->n; r++)
                if (cl->c[r].state == CLIENT_PREPARING)
                    lose(cl, r, "not ready in time (%s)", err);
            return;
        }
        struct wire w;
        wire_read(&w, m.buf, m.len);
        uint64_t ok = wire_get_u64(&w);
        struct client *c = m.src > 0 && (unsigned)m.src < cl->n ? &cl->c[m.src] : NULL;
        if (c && c->state == CLIENT_PREPARING) {
            wire_get_str(&w, c->host, sizeof c->host);
            char why[256];
            wire_get_str(&w, why, sizeof why);
            if (!wire_ok(&w))
                lose(cl, (unsigned)m.src, "sent a damaged READY");
            else if (!ok)
                lose(cl, (unsigned)m.src, "could not prepare: %s", why);
            else
                c->state = CLIENT_RUNNING;
        }
        free(m.buf);
    }
}

/* Rank 0 measures rank r's clock (which = 0 at the start, 1 at the end). */
static int measure_clock(struct clients *cl, unsigned r, int which)
{
    struct client *c = &cl->c[r];
    struct wire w;
    wire_init(&w);
    wire_u64(&w, CLOCK_ROUNDS);
    char err[512];
    if (send_wire(cl, (int)r, TAG_CLOCK_BEGIN, &w, SEND_WAIT, err, sizeof err) != 0 ||
        ranks_clock_lead(cl->mpi, (int)r, TAG_CLOCK, CLOCK_ROUNDS, mono_ns() + CLOCK_WAIT,
                         &c->offset_ns[which], &c->uncertainty_ns[which], err,
                         sizeof err) != 0) {
        if (which == 0)
            lose(cl, r, "its clock could not be measured: %s", err);
        return -1;
    }
    if (which == 1)
        c->end_measured = true;
    return 0;
}

static uint64_t start_rank0(struct clients *cl)
{
    collect_ready(cl, mono_ns() + max_u64(cl->grace_ns, 60 * SEC));
    unsigned running = 0;
    for (unsigned r = 1; r < cl->n; r++)
        if (cl->c[r].state == CLIENT_RUNNING && measure_clock(cl, r, 0) == 0)
            running++;
    uint64_t t0 = mono_ns() + START_SLACK + running * 5000000ull;
    for (unsigned r = 1; r < cl->n; r++) {
        struct client *c = &cl->c[r];
        if (c->state != CLIENT_RUNNING)
            continue;
        struct wire w;
        wire_init(&w);
        wire_u64(&w, t0 + (uint64_t)c->offset_ns[0]); /* time zero in its clock */
        wire_u64(&w, (uint64_t)c->offset_ns[0]);
        wire_u64(&w, c->uncertainty_ns[0]);
        char err[512];
        if (send_wire(cl, (int)r, TAG_GO, &w, SEND_WAIT, err, sizeof err) != 0)
            lose(cl, r, "could not be started: %s", err);
        c->started = true;
    }
    cl->c[0].state = CLIENT_RUNNING;
    sleep_until(t0);
    return t0;
}

/* Keeps a PROGRESS message's text as what was last heard of its sender. */
static void heard(struct clients *cl, const struct rmsg *m)
{
    if (m->src <= 0 || (unsigned)m->src >= cl->n)
        return;
    struct wire w;
    wire_read(&w, m->buf, m->len);
    char text[256];
    wire_get_str(&w, text, sizeof text);
    if (wire_ok(&w))
        snprintf(cl->c[m->src].heard, sizeof cl->c[m->src].heard, "%s", text);
}

void clients_gather(struct clients *cl, uint64_t deadline)
{
    for (;;) {
        unsigned waiting = 0;
        for (unsigned r = 1; r < cl->n; r++)
            waiting += cl->c[r].state == CLIENT_RUNNING;
        if (!waiting)
            return;
        struct rmsg m;
        char err[512];
        int eno;
        if (ranks_recv(cl->mpi, RANKS_ANY, RANKS_ANY, &m, deadline, &eno, err, sizeof err) != 0)
            break;
        struct client *c = m.src > 0 && (unsigned)m.src < cl->n ? &cl->c[m.src] : NULL;
        if (m.tag == TAG_PROGRESS) {
            heard(cl, &m);
        } else if (m.tag == TAG_RESULT && c && c->state == CLIENT_RUNNING) {
            if (client_result_decode(&c->res, m.buf, m.len, err, sizeof err) != 0) {
                lose(cl, (unsigned)m.src, "sent a result that cannot be read: %s", err);
            } else {
                c->have_res = true;
                c->state = CLIENT_REPORTED;
                snprintf(c->host, sizeof c->host, "%s", c->res.host);
                measure_clock(cl, (unsigned)m.src, 1);
            }
        }
        free(m.buf);
    }
    for (unsigned r = 1; r < cl->n; r++)
        if (cl->c[r].state == CLIENT_RUNNING)
            lose(cl, r, "did not report by the end of the run plus grace (%.0f s); last heard: "
                 "%s", (double)cl->grace_ns / 1e9,
                 cl->c[r].heard[0] ? cl->c[r].heard : "its start, with the others");
}

/* The reads of `owner`'s blocks among those of every reporting client. */
static size_t reads_of(const struct clients *cl, unsigned owner, const struct cross_read *own,
                       size_t nown, struct cross_read **out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    for (unsigned r = 0; r < cl->n; r++) {
        const struct cross_read *x = r == 0 ? own : cl->c[r].res.cross;
        size_t k = r == 0 ? nown : (cl->c[r].have_res ? cl->c[r].res.ncross : 0);
        for (size_t i = 0; i < k; i++) {
            if (x[i].block % cl->n != owner)
                continue;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 1024;
                struct cross_read *p = realloc(*out, nc * sizeof *p);
                if (!p)
                    return n;
                *out = p;
                cap = nc;
            }
            (*out)[n++] = x[i];
        }
    }
    return n;
}

/* Findings as counted (every bad read, repeats too) and as listed. */
static void put_findings(struct wire *w, const struct findings *f)
{
    wire_put(w, f->counts, sizeof f->counts);
    wire_u64(w, f->unlisted);
    wire_u64(w, f->n);
    for (size_t i = 0; i < f->n; i++) {
        struct finding x = f->list[i];
        x.phase = x.op = NULL;
        wire_put(w, &x, sizeof x);
    }
}

/* The findings of a CROSS answer: all are cross reads. */
static void get_findings(struct wire *w, struct findings *out)
{
    uint64_t counts[CLS_COUNT];
    if (!wire_get(w, counts, sizeof counts))
        return;
    uint64_t unlisted = wire_get_u64(w);
    uint64_t n = wire_get_u64(w);
    for (int c = 0; c < CLS_COUNT && wire_ok(w); c++)
        out->counts[c] += counts[c];
    out->unlisted += unlisted;
    for (uint64_t i = 0; i < n && wire_ok(w); i++) {
        struct finding x;
        if (!wire_get(w, &x, sizeof x))
            break;
        x.phase = "workload";
        x.op = "cross read";
        x.detail[sizeof x.detail - 1] = x.path[sizeof x.path - 1] = '\0';
        findings_keep(out, &x);
    }
}

static void ask_owner(struct clients *cl, unsigned o, const struct cross_read *reads, size_t n,
                      const uint64_t *errs, struct findings *out, struct cross_tally *t)
{
    struct wire w;
    wire_init(&w);
    wire_put(&w, errs, cl->n * sizeof *errs);
    wire_u64(&w, n);
    wire_put(&w, reads, n * sizeof *reads);
    char err[512];
    struct rmsg m;
    int eno;
    if (send_wire(cl, (int)o, TAG_CROSS, &w, SEND_WAIT, err, sizeof err) != 0 ||
        ranks_recv(cl->mpi, (int)o, TAG_CROSS, &m, mono_ns() + max_u64(cl->grace_ns, 60 * SEC),
                   &eno, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: the reads of client %u's blocks by other clients are not "
                "judged: %s\n", o, err);
        t->unjudged += n;
        return;
    }
    struct wire a;
    wire_read(&a, m.buf, m.len);
    struct cross_tally got;
    wire_get(&a, &got, sizeof got);
    get_findings(&a, out);
    if (!wire_ok(&a)) {
        t->unjudged += n;
    } else {
        t->judged += got.judged;
        t->ok += got.ok;
        t->bad += got.bad;
        t->unjudged += got.unjudged;
    }
    free(m.buf);
}

void clients_cross(struct clients *cl, struct crew *own, const struct cross_read *own_reads,
                   size_t nown, struct findings *out, struct cross_tally *t)
{
    uint64_t *errs = calloc(cl->n, sizeof *errs);
    if (!errs)
        return;
    for (unsigned r = 0; r < cl->n; r++) {
        errs[r] = clients_error_ns(&cl->c[r]);
        if (r == 0) {
            t->reads += nown;
            for (unsigned i = 0; i < own->n; i++)
                t->unjudged += own->w[i].cross.unrecorded;
        } else if (cl->c[r].have_res) {
            t->reads += cl->c[r].res.ncross + cl->c[r].res.cross_unrecorded;
            t->unjudged += cl->c[r].res.cross_unrecorded;
        }
    }
    for (unsigned o = 0; o < cl->n; o++) {
        struct cross_read *reads;
        size_t n = reads_of(cl, o, own_reads, nown, &reads);
        if (!n) {
            free(reads);
            continue;
        }
        if (o == 0)
            clients_judge(own, reads, n, errs, out, t);
        else if (cl->c[o].state == CLIENT_REPORTED)
            ask_owner(cl, o, reads, n, errs, out, t);
        else
            t->unjudged += n; /* its journal is on its node: `faultline verify` judges them */
        free(reads);
    }
    free(errs);
}

bool clients_done(struct clients *cl, int code)
{
    bool clean = clients_lost(cl) == 0;
    for (unsigned r = 1; r < cl->n; r++) {
        /* A lost rank that was still heard of after the start may be alive,
         * only late, and one lost before the start may be waiting for it:
         * both are told to end.  One never heard of again after its start
         * is dead, most likely, and so is the link to it (Open MPI would
         * try to connect again, and warn). */
        if (cl->c[r].state == CLIENT_LOST && cl->c[r].started && !cl->c[r].heard[0])
            continue;
        struct wire w;
        wire_init(&w);
        wire_u64(&w, (uint64_t)code);
        wire_u64(&w, clean);
        char err[512];
        /* a lost rank may still be there to hear it: briefly */
        uint64_t wait = cl->c[r].state == CLIENT_LOST ? SEC : SEND_WAIT;
        send_wire(cl, (int)r, TAG_DONE, &w, wait, err, sizeof err);
    }
    return clean;
}

/* --- rank r --- */

int clients_wait_hello(struct clients *cl, struct clients_hello *h, uint64_t wait_ns, char *err,
                       size_t errlen)
{
    struct rmsg m;
    int eno;
    uint64_t deadline = mono_ns() + wait_ns;
    for (;;) {
        if (ranks_recv(cl->mpi, 0, RANKS_ANY, &m, deadline, &eno, err, errlen) != 0)
            return -1;
        if (m.tag == TAG_HELLO)
            break;
        free(m.buf);
        if (m.tag == TAG_DONE) {
            snprintf(err, errlen, "rank 0 could not start the run (see its messages)");
            return -1;
        }
    }
    struct wire w;
    wire_read(&w, m.buf, m.len);
    memset(h, 0, sizeof *h);
    wire_get_str(&w, h->dir, sizeof h->dir);
    h->run_id = wire_get_u64(&w);
    h->seed = wire_get_u64(&w);
    h->start_wall_ns = wire_get_u64(&w);
    wire_get_str(&w, h->lab_prefix, sizeof h->lab_prefix);
    bool ok = wire_ok(&w);
    free(m.buf);
    if (!ok) {
        snprintf(err, errlen, "a damaged HELLO from rank 0");
        return -1;
    }
    return 0;
}

static void send_ready(struct clients *cl, bool ok, const char *why)
{
    char host[64] = "?";
    gethostname(host, sizeof host - 1);
    struct wire w;
    wire_init(&w);
    wire_u64(&w, ok);
    wire_str(&w, host);
    wire_str(&w, why);
    char err[512];
    if (send_wire(cl, 0, TAG_READY, &w, SEND_WAIT, err, sizeof err) != 0)
        fprintf(stderr, "faultline: rank %u: %s\n", cl->rank, err);
}

void clients_failed(struct clients *cl, const char *why)
{
    send_ready(cl, false, why);
}

void clients_progress(struct clients *cl, const char *text)
{
    /* Into a buffer that outlives a send that does not leave at once. */
    struct wire w;
    wire_init(&w);
    wire_str(&w, text);
    if (wire_done(&w) != 0)
        return;
    size_t len = w.len < sizeof cl->progress ? w.len : 0;
    if (len)
        memcpy(cl->progress, w.buf, len);
    wire_free(&w);
    char err[512];
    int eno;
    if (len)
        ranks_send(cl->mpi, 0, TAG_PROGRESS, cl->progress, len, mono_ns() + 50000000ull, &eno,
                   err, sizeof err);
}

/* Answers a CROSS request: the reads of this rank's blocks, judged. */
static void answer_cross(struct clients *cl, const struct rmsg *m, struct crew *own)
{
    struct wire q;
    wire_read(&q, m->buf, m->len);
    uint64_t *errs = calloc(cl->n, sizeof *errs);
    struct findings found;
    findings_init(&found, own->sc->findings_limit);
    struct cross_tally t = {0};
    if (errs)
        wire_get(&q, errs, cl->n * sizeof *errs);
    uint64_t n = wire_get_u64(&q);
    const struct cross_read *reads =
        n <= m->len / sizeof *reads ? wire_view(&q, (size_t)n * sizeof *reads) : NULL;
    if (errs && reads && wire_ok(&q))
        clients_judge(own, reads, (size_t)n, errs, &found, &t);
    else
        t.unjudged = n;
    struct wire a;
    wire_init(&a);
    wire_put(&a, &t, sizeof t);
    put_findings(&a, &found);
    char err[512];
    if (send_wire(cl, 0, TAG_CROSS, &a, SEND_WAIT, err, sizeof err) != 0)
        fprintf(stderr, "faultline: rank %u: %s\n", cl->rank, err);
    findings_free(&found);
    free(errs);
}

/* Serves rank 0 until a message with tag `until` arrives (GO or DONE);
 * its bytes in *out (free them).  -1 when rank 0 said nothing by the
 * deadline. */
static int serve(struct clients *cl, int until, struct crew *own, struct rmsg *out,
                 uint64_t wait)
{
    for (;;) {
        struct rmsg m;
        char err[512];
        int eno;
        if (ranks_recv(cl->mpi, 0, RANKS_ANY, &m, mono_ns() + wait, &eno, err, sizeof err) != 0) {
            snprintf(cl->err, sizeof cl->err, "rank 0 said nothing for %.0f s: %.400s",
                     (double)wait / 1e9, err);
            return -1;
        }
        if (m.tag == until || m.tag == TAG_DONE) {
            *out = m;
            return 0;
        }
        if (m.tag == TAG_CLOCK_BEGIN) {
            struct wire w;
            wire_read(&w, m.buf, m.len);
            uint64_t rounds = wire_get_u64(&w);
            if (ranks_clock_follow(cl->mpi, 0, TAG_CLOCK, (int)(rounds < 1000 ? rounds : 1000),
                                   mono_ns() + CLOCK_WAIT, err, sizeof err) != 0)
                fprintf(stderr, "faultline: rank %u: %s\n", cl->rank, err);
        } else if (m.tag == TAG_CROSS && own) {
            answer_cross(cl, &m, own);
        }
        free(m.buf);
    }
}

static uint64_t start_rank(struct clients *cl)
{
    send_ready(cl, true, "");
    struct rmsg m;
    if (serve(cl, TAG_GO, NULL, &m, RANK0_WAIT) != 0)
        return 0;
    struct wire w;
    wire_read(&w, m.buf, m.len);
    if (m.tag == TAG_DONE) { /* rank 0 went on without this rank, or gave up */
        cl->ended = true;
        cl->end_code = (int)wire_get_u64(&w);
        free(m.buf);
        snprintf(cl->err, sizeof cl->err, "rank 0 ended the run before this rank started");
        return 0;
    }
    uint64_t t0 = wire_get_u64(&w);
    cl->my_offset_ns = (int64_t)wire_get_u64(&w);
    cl->my_uncertainty_ns = wire_get_u64(&w);
    bool ok = wire_ok(&w) && t0;
    free(m.buf);
    if (!ok) {
        snprintf(cl->err, sizeof cl->err, "rank 0 did not start this rank");
        return 0;
    }
    sleep_until(t0);
    return t0;
}

uint64_t clients_time_zero(void *ctx)
{
    struct clients *cl = ctx;
    cl->t0 = cl->rank == 0 ? start_rank0(cl) : start_rank(cl);
    return cl->t0;
}

int clients_report(struct clients *cl, const void *result, size_t len, struct crew *own,
                   bool *clean)
{
    *clean = false;
    if (cl->ended) /* nobody waits for this result */
        return cl->end_code ? cl->end_code : 2;
    uint64_t wait = 3 * cl->grace_ns + RANK0_WAIT;
    char err[512];
    int eno;
    /* rank 0 takes it once its own sweep is done */
    if (ranks_send(cl->mpi, 0, TAG_RESULT, result, len, mono_ns() + wait, &eno, err,
                   sizeof err) != 0) {
        snprintf(cl->err, sizeof cl->err, "%s", err);
        return 2;
    }
    cl->result_sent = result == cl->result;
    struct rmsg m;
    if (serve(cl, TAG_DONE, own, &m, wait) != 0)
        return 2;
    struct wire w;
    wire_read(&w, m.buf, m.len);
    int code = (int)wire_get_u64(&w);
    *clean = wire_get_u64(&w) != 0;
    bool ok = wire_ok(&w);
    free(m.buf);
    return ok ? code : 2;
}

/* --- judging --- */

/* One bad cross read as a finding that names both clients. */
static void cross_finding(const struct cross_read *x, enum fl_class cls, gen_t need,
                          const char *why, unsigned ranks, uint32_t bs, struct findings *f)
{
    unsigned reader = x->reader % ranks, owner = (unsigned)(x->block % ranks);
    struct finding v = {
        .cls = cls,
        .phase = "workload",
        .op = "cross read",
        .block = x->block,
        .offset = x->block * bs + (uint64_t)x->sector * FL_SECTOR,
        .expected_gen = need,
        .found_gen = x->lo,
        .found_known = x->lo != GEN_NONE,
        .written_ns = FL_TIME_UNKNOWN,
        .read_ns = x->t_end,
        .found_written_ns = FL_TIME_UNKNOWN,
        .client = (int)reader,
        .owner = (int)owner,
    };
    snprintf(v.detail, sizeof v.detail, "client %u read it at %.3f s: %.150s", reader,
             (double)x->t_start / 1e9, why);
    findings_add(f, &v);
}

/* When the owner's write of each finding's expected generation completed
 * (its journal), so that the report says how long before the read. */
static void when_written(const struct worker *w, unsigned all, struct findings *f)
{
    uint64_t *blocks = calloc(f->n ? f->n : 1, sizeof *blocks);
    uint64_t *t = calloc(f->n ? f->n : 1, sizeof *t);
    gen_t *gens = calloc(f->n ? f->n : 1, sizeof *gens);
    if (blocks && t && gens && f->n) {
        for (size_t i = 0; i < f->n; i++) {
            blocks[i] = f->list[i].block / all; /* journals hold local numbers */
            gens[i] = f->list[i].expected_gen;
        }
        if (journal_lookup_done(w->dir, f->n, blocks, gens, t) == 0)
            for (size_t i = 0; i < f->n; i++)
                f->list[i].written_ns = t[i];
    }
    free(blocks);
    free(t);
    free(gens);
}

/* The reads of one worker's blocks, against its journal. */
static void judge_worker(struct crew *own, const struct worker *w, const struct cross_read *reads,
                         size_t n, const uint64_t *clock_err, struct findings *out,
                         struct cross_tally *t)
{
    unsigned ranks = own->ranks > 1 ? own->ranks : 1;
    unsigned all = own->rank < 0 ? own->n : own->n * ranks;
    bool c2o = own->sc->backend->cross_rule &&
               strcmp(own->sc->backend->cross_rule, "close-to-open") == 0;
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        k += reads[j].block % all == w->global;
    if (!k)
        return;
    struct history_query *q = calloc(k, sizeof *q);
    struct history_answer *a = calloc(k, sizeof *a);
    const struct cross_read **which = calloc(k, sizeof *which);
    struct findings found;
    findings_init(&found, own->sc->findings_limit);
    char err[FL_ERRLEN];
    if (!q || !a || !which) {
        t->unjudged += k;
        goto out;
    }
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        const struct cross_read *x = &reads[j];
        if (x->block % all != w->global)
            continue;
        /* both clocks may be off rank 0's by their error */
        uint64_t u = clock_err[x->reader % ranks] + clock_err[x->block % ranks];
        q[m] = (struct history_query){.block = x->block / all,
                                      .t_lo = x->t_start > u ? x->t_start - u : 0,
                                      .t_hi = x->t_end + u};
        which[m++] = x;
    }
    if (journal_history(w->dir, k, q, a, err, sizeof err) != 0) {
        fprintf(stderr, "faultline: cross reads of %s not judged: %s\n", w->dir, err);
        t->unjudged += k;
        goto out;
    }
    for (size_t j = 0; j < k; j++) {
        struct cross_history h = {.acked = a[j].acked, .durable = a[j].durable,
                                  .planned = a[j].planned, .uncertain = a[j].uncertain,
                                  .known = a[j].known};
        gen_t need;
        char why[160];
        enum fl_class cls = cross_judge(which[j], &h, c2o, &need, why, sizeof why);
        t->judged++;
        if (cls == CLS_OK) {
            t->ok++;
            continue;
        }
        t->bad++;
        cross_finding(which[j], cls, need, why, ranks, own->sc->workload.block_size, &found);
    }
    when_written(w, all, &found);
    findings_merge(out, &found);
out:
    findings_free(&found);
    free(q);
    free(a);
    free(which);
}

void clients_judge(struct crew *own, const struct cross_read *reads, size_t n,
                   const uint64_t *clock_err, struct findings *out, struct cross_tally *t)
{
    for (unsigned i = 0; i < own->n; i++)
        judge_worker(own, &own->w[i], reads, n, clock_err, out, t);
}

/* --- the clocks, for a later verify --- */

#define CLOCKS_FILE "clocks"

int clients_save_clocks(const struct clients *cl, const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, CLOCKS_FILE);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# rank  error_ns  offset_ns  uncertainty_ns  host: each client's clock against "
               "rank 0's\n");
    for (unsigned r = 0; r < cl->n; r++) {
        const struct client *c = &cl->c[r];
        fprintf(f, "%u %" PRIu64 " %" PRId64 " %" PRIu64 " %s\n", r, clients_error_ns(c),
                c->offset_ns[0], c->uncertainty_ns[0], c->host[0] ? c->host : "?");
    }
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void clients_load_clocks(const char *dir, unsigned n, uint64_t *err_ns)
{
    for (unsigned r = 0; r < n; r++)
        err_ns[r] = r ? CLOCK_UNKNOWN_ERR : 0;
    char path[PATH_MAX + 32], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, CLOCKS_FILE);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        unsigned r;
        unsigned long long e;
        if (line[0] != '#' && sscanf(line, "%u %llu", &r, &e) == 2 && r < n)
            err_ns[r] = e;
    }
    if (f)
        fclose(f);
}
