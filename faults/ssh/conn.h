/*
 * conn — one ssh session to an agent, as the controller's files share it
 * (remote.c, spawn.c, clock.c, via.c, cleanup.c); not for use outside
 * faults/ssh.  A struct remote is the session: ssh's pipes, the lines the
 * agent writes (a reader thread takes them: events into their faults'
 * remote_fault, an answer into `reply`) and what the session measured.
 * conn.c reads and writes it and closes it; it calls nothing of the other
 * files, which build on it.
 */
#ifndef FL_CONN_H
#define FL_CONN_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../lib/jsonl.h"
#include "remote.h"

#define MAX_REMOTE_FAULTS 256
#define REMOTE_MAX_RANGES 64

/* What one fault's agent said (f->state of a fault that goes through r). */
struct remote_fault {
    unsigned id;
    struct fault *f;
    char desc[1024];
    bool applied_seen, cleared_seen, apply_ok, clear_ok;
    uint64_t applied_at, cleared_at; /* agent mono_ns */
    uint64_t clear_due;              /* our mono_ns of the planned clear, 0: instant */
    uint64_t began_at, armed_at;     /* agent mono_ns: its inject began; its apply came */
    uint64_t ranges[REMOTE_MAX_RANGES][2]; /* what it overwrote on the host (corrupt) */
    unsigned nranges;
    bool on_target;
    char by[16];
    char error[1024];
};

struct remote {
    struct fault_host host;
    char tag[16];
    pid_t ssh;
    int to, from; /* the agent's stdin, stdout */
    char buf[JL_MAX_LINE + 2];
    size_t have;
    char line[JL_MAX_LINE + 2];
    bool eof;
    char log[PATH_MAX];
    struct remote_info info;
    uint64_t t0;
    /* The reader thread takes every line the agent writes: events go into
     * their faults' remote_fault, an answer ("re") into `reply`; callers
     * wait on cv.  mu guards all of that; wmu the writes to the agent. */
    pthread_t reader;
    bool reader_on;
    pthread_mutex_t mu, wmu;
    pthread_cond_t cv;
    bool have_reply;
    struct jl_obj reply;
    struct remote_fault *faults[MAX_REMOTE_FAULTS];
    unsigned n;
    uint64_t last_lease;
    char first[4096]; /* the agent's first line: its hello, or its cleanup answer */
};

/* One line from the agent, waiting at most until `deadline` (mono_ns;
 * UINT64_MAX: as long as it takes).  1: *line points at it (valid until
 * the next call); 0: time is up; -1: the connection closed.  Before the
 * reader runs, or by the reader itself. */
int conn_read_line(struct remote *r, uint64_t deadline, char **line);

/* What an agent said of a fault, with where ("on HOST: TEXT"). */
void conn_on_host(char *out, size_t n, const char *host, const char *text);

/* The reader thread (pthread_create with r): every line of the agent
 * until the session ends. */
void *conn_reader(void *arg);

/* The answer `re` (with id, if any; a refusal "error" too).  1: *out holds
 * it (jl_free it); 0: time is up; -1: the connection closed. */
int conn_await_reply(struct remote *r, const char *re, uint64_t id, uint64_t deadline,
                     struct jl_obj *out);

/* Waits until the agent said fault rf was applied (or cleared). */
bool conn_await_event(struct remote *r, const struct remote_fault *rf, bool cleared,
                      uint64_t deadline);

/* Ends message o and sends it.  0, or -1 with err. */
int conn_send(struct remote *r, struct jl_out *o, char *err, size_t errlen);

/* Closes our end, lets ssh go (or kills it after wait_ms) and joins the
 * reader. */
void conn_hang_up(struct remote *r, int wait_ms);

/* --- spawn.c --- */

/* Starts ssh to d with the agent's bootstrap in `mode` ("run" or
 * "cleanup") for run `tag`, ssh's messages into the file `log`: the copy
 * of our executable if the host needs it, then the agent's first line in
 * r->first.  The session, or NULL with err. */
struct remote *remote_connect(const struct ssh_dest *d, const char *name, const char *mode,
                              const char *tag, const char *log, char *err, size_t errlen);

/* --- clock.c --- */

/* The round trip and the offset of the agent's clock into r->info. */
int remote_measure_clock(struct remote *r, char *err, size_t errlen);

/* An agent's mono_ns in ours. */
uint64_t remote_to_ours(const struct remote *r, uint64_t agent_ns);

#endif
