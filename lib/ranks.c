/* ranks — see ranks.h.  Open MPI is loaded with dlopen: its handles are
 * pointers to objects of libmpi (ompi_mpi_comm_world, ...), looked up by
 * name like the functions; <mpi.h> gives only the types. */
#include "ranks.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

#define LIBMPI "libmpi.so.40" /* Open MPI 4 (Debian 12's libopenmpi3) */

struct mpi_api {
    int (*init_thread)(int *, char ***, int, int *);
    int (*comm_rank)(MPI_Comm, int *);
    int (*comm_size)(MPI_Comm, int *);
    int (*comm_set_errhandler)(MPI_Comm, MPI_Errhandler);
    int (*isend)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*irecv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*iprobe)(int, int, MPI_Comm, int *, MPI_Status *);
    int (*test)(MPI_Request *, int *, MPI_Status *);
    int (*cancel)(MPI_Request *);
    int (*get_count)(const MPI_Status *, MPI_Datatype, int *);
    int (*finalize)(void);
    int (*error_string)(int, char *, int *);
    MPI_Comm world;
    MPI_Datatype byte;
    MPI_Errhandler errors_return;
};

/* One job per process. */
static struct mpi_api api;

static int env_count(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : -1;
}

bool ranks_launched(const char **how)
{
    const char *off = getenv("FAULTLINE_MPI");
    const char *h = NULL;
    if (off && strcmp(off, "0") == 0)
        h = NULL;
    else if (getenv("OMPI_COMM_WORLD_SIZE"))
        h = "mpirun";
    else if (getenv("PMIX_RANK"))
        h = "pmix";
    else if (getenv("PMI_RANK") && getenv("PMI_SIZE"))
        h = "pmi";
    else if (getenv("SLURM_PROCID") && env_count("SLURM_STEP_NUM_TASKS") > 1)
        h = "slurm";
    if (how)
        *how = h;
    return h != NULL;
}

/* The message of an MPI error code. */
static void mpi_error(int rc, const char *what, char *err, size_t errlen)
{
    char text[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    if (api.error_string && api.error_string(rc, text, &len) == MPI_SUCCESS && len >= 0)
        text[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING] = '\0';
    snprintf(err, errlen, "%s: %s (MPI error %d)", what, text[0] ? text : "unknown", rc);
}

#define SYM(field, name)                                                                       \
    do {                                                                                       \
        *(void **)&api.field = dlsym(h, name);                                                 \
        if (!api.field) {                                                                      \
            snprintf(err, errlen, "%s has no %s: not Open MPI 4?", lib, name);                 \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

static int load(char *err, size_t errlen)
{
    const char *lib = getenv("FAULTLINE_LIBMPI");
    if (!lib || !*lib)
        lib = LIBMPI;
    /* RTLD_GLOBAL: Open MPI's own plugins resolve libmpi's symbols. */
    void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        snprintf(err, errlen, "launched as an MPI rank, but cannot load %s (Open MPI; Debian: "
                 "libopenmpi3, or `make deps`): %s", lib, dlerror());
        return -1;
    }
    SYM(init_thread, "MPI_Init_thread");
    SYM(comm_rank, "MPI_Comm_rank");
    SYM(comm_size, "MPI_Comm_size");
    SYM(comm_set_errhandler, "MPI_Comm_set_errhandler");
    SYM(isend, "MPI_Isend");
    SYM(irecv, "MPI_Irecv");
    SYM(iprobe, "MPI_Iprobe");
    SYM(test, "MPI_Test");
    SYM(cancel, "MPI_Cancel");
    SYM(get_count, "MPI_Get_count");
    SYM(finalize, "MPI_Finalize");
    SYM(error_string, "MPI_Error_string");
    /* The predefined handles are the addresses of these objects. */
    SYM(world, "ompi_mpi_comm_world");
    SYM(byte, "ompi_mpi_byte");
    SYM(errors_return, "ompi_mpi_errors_return");
    return 0;
}

int ranks_init(struct ranks *r, int *argc, char ***argv, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->size = 1;
    const char *how;
    if (!ranks_launched(&how))
        return 0;
    snprintf(r->launcher, sizeof r->launcher, "%s", how);
    if (load(err, errlen) != 0)
        return -1;
    /* We fork helpers (mount, ssh, tc) and use TCP only: the warning about
     * fork() and registered memory does not apply. */
    setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
    int provided = 0;
    int rc = api.init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
        mpi_error(rc, "MPI_Init_thread", err, errlen);
        return -1;
    }
    r->mpi = true;
    if ((rc = api.comm_set_errhandler(api.world, api.errors_return)) != MPI_SUCCESS ||
        (rc = api.comm_rank(api.world, &r->rank)) != MPI_SUCCESS ||
        (rc = api.comm_size(api.world, &r->size)) != MPI_SUCCESS) {
        mpi_error(rc, "MPI_COMM_WORLD", err, errlen);
        return -1;
    }
    return 0;
}

static void pause_us(unsigned us)
{
    struct timespec ts = {0, (long)us * 1000L};
    nanosleep(&ts, NULL);
}

/* Polls req until it completes or the deadline passes.  spin: no sleep
 * between polls (the clock's ping-pong). */
static int wait_req(MPI_Request *req, MPI_Status *st, uint64_t deadline, bool spin, int *eno,
                    const char *what, char *err, size_t errlen)
{
    for (;;) {
        int done = 0;
        int rc = api.test(req, &done, st);
        if (rc != MPI_SUCCESS) {
            mpi_error(rc, what, err, errlen);
            *eno = EIO;
            return -1;
        }
        if (done)
            return 0;
        if (mono_ns() > deadline) {
            snprintf(err, errlen, "%s: no answer in time", what);
            *eno = ETIMEDOUT;
            return -1;
        }
        if (spin)
            sched_yield();
        else
            pause_us(1000);
    }
}

int ranks_send(struct ranks *r, int to, int tag, const void *buf, size_t len, uint64_t deadline,
               int *eno, char *err, size_t errlen)
{
    int dummy;
    if (!eno)
        eno = &dummy;
    *eno = 0;
    char what[64];
    snprintf(what, sizeof what, "sending %zu bytes to rank %d", len, to);
    if (!r->mpi || len > INT_MAX) {
        snprintf(err, errlen, "%s: %s", what, r->mpi ? "too large" : "not an MPI job");
        *eno = EINVAL;
        return -1;
    }
    MPI_Request req;
    int rc = api.isend(buf, (int)len, api.byte, to, tag, api.world, &req);
    if (rc != MPI_SUCCESS) {
        mpi_error(rc, what, err, errlen);
        *eno = EIO;
        return -1;
    }
    /* Left pending on timeout (an MPI send cannot be taken back): the
     * caller keeps buf, and the process ends soon. */
    return wait_req(&req, MPI_STATUS_IGNORE, deadline, false, eno, what, err, errlen);
}

bool ranks_waiting(struct ranks *r, int from, int tag)
{
    int flag = 0;
    return r->mpi && api.iprobe(from == RANKS_ANY ? MPI_ANY_SOURCE : from, tag, api.world, &flag,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS && flag;
}

int ranks_recv(struct ranks *r, int from, int tag, struct rmsg *m, uint64_t deadline, int *eno,
               char *err, size_t errlen)
{
    int dummy;
    if (!eno)
        eno = &dummy;
    *eno = 0;
    memset(m, 0, sizeof *m);
    char what[64];
    if (from == RANKS_ANY)
        snprintf(what, sizeof what, "waiting for a message (tag %d)", tag);
    else
        snprintf(what, sizeof what, "waiting for rank %d (tag %d)", from, tag);
    if (!r->mpi) {
        snprintf(err, errlen, "%s: not an MPI job", what);
        *eno = EINVAL;
        return -1;
    }
    int src_want = from == RANKS_ANY ? MPI_ANY_SOURCE : from;
    int tag_want = tag == RANKS_ANY ? MPI_ANY_TAG : tag;
    /* Probe first: the length is not known in advance. */
    MPI_Status st;
    for (;;) {
        int flag = 0;
        int rc = api.iprobe(src_want, tag_want, api.world, &flag, &st);
        if (rc != MPI_SUCCESS) {
            mpi_error(rc, what, err, errlen);
            *eno = EIO;
            return -1;
        }
        if (flag)
            break;
        if (mono_ns() > deadline) {
            snprintf(err, errlen, "%s: nothing came in time", what);
            *eno = ETIMEDOUT;
            return -1;
        }
        pause_us(1000);
    }
    int count = 0;
    api.get_count(&st, api.byte, &count);
    int source = st.MPI_SOURCE, got_tag = st.MPI_TAG;
    void *b = malloc(count > 0 ? (size_t)count : 1);
    if (!b) {
        snprintf(err, errlen, "%s: out of memory for %d bytes", what, count);
        *eno = ENOMEM;
        return -1;
    }
    MPI_Request req;
    int rc = api.irecv(b, count, api.byte, source, got_tag, api.world, &req);
    if (rc != MPI_SUCCESS) {
        mpi_error(rc, what, err, errlen);
        free(b);
        *eno = EIO;
        return -1;
    }
    if (wait_req(&req, &st, deadline, false, eno, what, err, errlen) != 0) {
        /* A large message whose sender died half-way: take the receive back
         * before its buffer goes. */
        api.cancel(&req);
        MPI_Status ignored;
        int done = 0;
        for (int i = 0; i < 1000 && !done; i++)
            if (api.test(&req, &done, &ignored) != MPI_SUCCESS)
                break;
        if (done)
            free(b); /* else it stays: the receive may still write into it */
        return -1;
    }
    *m = (struct rmsg){.buf = b, .len = (size_t)count, .src = source, .tag = got_tag};
    return 0;
}

int ranks_clock_lead(struct ranks *r, int peer, int tag, int rounds, uint64_t deadline,
                     int64_t *offset_ns, uint64_t *uncertainty_ns, char *err, size_t errlen)
{
    if (!r->mpi) {
        snprintf(err, errlen, "clock of rank %d: not an MPI job", peer);
        return -1;
    }
    uint64_t best_rtt = UINT64_MAX;
    int64_t best_off = 0;
    for (int i = 0; i < rounds; i++) {
        uint64_t theirs = 0, ping = (uint64_t)i;
        MPI_Request rx, tx;
        int eno;
        /* The answer's receive is posted before the ping leaves. */
        int rc = api.irecv(&theirs, sizeof theirs, api.byte, peer, tag, api.world, &rx);
        uint64_t t1 = mono_ns();
        if (rc == MPI_SUCCESS)
            rc = api.isend(&ping, sizeof ping, api.byte, peer, tag, api.world, &tx);
        if (rc != MPI_SUCCESS) {
            mpi_error(rc, "clock ping", err, errlen);
            return -1;
        }
        if (wait_req(&rx, MPI_STATUS_IGNORE, deadline, true, &eno, "clock pong", err, errlen) != 0)
            return -1;
        uint64_t t3 = mono_ns();
        if (wait_req(&tx, MPI_STATUS_IGNORE, deadline, true, &eno, "clock ping", err, errlen) != 0)
            return -1;
        uint64_t rtt = t3 - t1;
        if (rtt < best_rtt) {
            best_rtt = rtt;
            /* Their reading was taken half-way through the round trip. */
            best_off = (int64_t)(theirs - (t1 + rtt / 2));
        }
    }
    *offset_ns = best_off;
    *uncertainty_ns = best_rtt == UINT64_MAX ? 0 : (best_rtt + 1) / 2;
    return 0;
}

int ranks_clock_follow(struct ranks *r, int leader, int tag, int rounds, uint64_t deadline,
                       char *err, size_t errlen)
{
    if (!r->mpi) {
        snprintf(err, errlen, "clock for rank %d: not an MPI job", leader);
        return -1;
    }
    for (int i = 0; i < rounds; i++) {
        uint64_t ping = 0, now;
        MPI_Request rx, tx;
        int eno;
        int rc = api.irecv(&ping, sizeof ping, api.byte, leader, tag, api.world, &rx);
        if (rc != MPI_SUCCESS) {
            mpi_error(rc, "clock ping", err, errlen);
            return -1;
        }
        if (wait_req(&rx, MPI_STATUS_IGNORE, deadline, true, &eno, "clock ping", err, errlen) != 0)
            return -1;
        now = mono_ns();
        rc = api.isend(&now, sizeof now, api.byte, leader, tag, api.world, &tx);
        if (rc != MPI_SUCCESS) {
            mpi_error(rc, "clock pong", err, errlen);
            return -1;
        }
        if (wait_req(&tx, MPI_STATUS_IGNORE, deadline, true, &eno, "clock pong", err, errlen) != 0)
            return -1;
    }
    return 0;
}

void ranks_finish(struct ranks *r, bool clean)
{
    if (r->mpi && clean)
        api.finalize();
    r->mpi = false;
}
