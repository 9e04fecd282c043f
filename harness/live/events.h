/*
 * events — the run's timeline of things that happened, as they happen.
 *
 * Every event is appended at once to DIR/events.jsonl (one JSON object per
 * line, flushed, so a crash keeps what happened before it) and kept in memory
 * for the reports.  Any thread may emit: a mutex keeps lines whole.
 *
 *   {"t": 3.214, "event": "loss", "worker": 0, "portal": "iscsi://...",
 *    "detail": "connection lost"}
 *
 * t is seconds since the run started (negative: before the workload, e.g.
 * while logging in).
 */
#ifndef FL_EVENTS_H
#define FL_EVENTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct event {
    int64_t t_ns;
    uint64_t mono; /* when it happened */
    bool written;  /* to events.jsonl */
    unsigned worker;
    int client;    /* a run over several clients: whose it is (-1: this process's) */
    char event[32];
    char portal[512];
    char detail[512];
};

struct event_log {
    pthread_mutex_t mu;
    FILE *f;
    uint64_t t0; /* mono_ns() of time zero (the workload start) */
    bool t0_known; /* until then events wait in memory, then get negative times */
    uint64_t opened;
    struct event *list;
    size_t n, cap, limit;
    uint64_t unlisted;
};

/* Opens DIR/events.jsonl (truncate: a new run; append: a verify).  t0 0:
 * time zero is not known yet (events_set_t0).  0, or -1 with err filled. */
int events_open(struct event_log *l, const char *dir, int truncate, uint64_t t0, char *err,
                size_t errlen);

/* Time zero is now known: events kept so far are written, with their
 * (negative) times. */
void events_set_t0(struct event_log *l, uint64_t t0);

/* Records one event now. */
void events_emit(struct event_log *l, unsigned worker, const char *event, const char *portal,
                 const char *detail);

void events_close(struct event_log *l);

/* Adds an event another client (MPI rank) recorded, at its time t_ns since
 * time zero (the clients share time zero), marked as that client's. */
void events_add_from(struct event_log *l, const struct event *e, int client);

/* The backend's callback signature: ctx is a struct event_source. */
struct event_source {
    struct event_log *log;
    unsigned worker;
};
void events_from_backend(void *ctx, const char *event, const char *portal, const char *detail);

#endif
