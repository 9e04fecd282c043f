/* events — see events.h. */
#include "events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/clock.h"
#include "../../lib/json.h"

#define EVENTS_KEPT 2000

int events_open(struct event_log *l, const char *dir, int truncate, uint64_t t0, char *err,
                size_t errlen)
{
    memset(l, 0, sizeof *l);
    char path[4200];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    /* Always appending (O_APPEND), so that the reports may add their lines
     * through another handle without overwriting ours. */
    if (truncate) {
        FILE *t = fopen(path, "w");
        if (t)
            fclose(t);
    }
    l->f = fopen(path, "a");
    if (!l->f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    pthread_mutex_init(&l->mu, NULL);
    l->t0 = t0;
    l->t0_known = t0 != 0;
    l->opened = mono_ns();
    l->limit = EVENTS_KEPT;
    return 0;
}

static void write_line(struct event_log *l, struct event *e)
{
    e->t_ns = (int64_t)(e->mono - l->t0);
    struct json j;
    json_init(&j, l->f, false);
    json_obj_begin(&j);
    json_key(&j, "t");
    json_num(&j, (double)e->t_ns / 1e9, 6);
    json_key(&j, "event");
    json_str(&j, e->event);
    json_key(&j, "worker");
    json_u64(&j, e->worker);
    if (e->client >= 0) {
        json_key(&j, "client");
        json_u64(&j, (uint64_t)e->client);
    }
    if (e->portal[0]) {
        json_key(&j, "portal");
        json_str(&j, e->portal);
    }
    json_key(&j, "detail");
    json_str(&j, e->detail);
    json_obj_end(&j);
    fputc('\n', l->f);
    fflush(l->f);
    e->written = true;
}

void events_set_t0(struct event_log *l, uint64_t t0)
{
    pthread_mutex_lock(&l->mu);
    l->t0 = t0;
    l->t0_known = true;
    for (size_t i = 0; i < l->n; i++)
        if (!l->list[i].written)
            write_line(l, &l->list[i]);
    pthread_mutex_unlock(&l->mu);
}

static void keep(struct event_log *l, struct event *e);

void events_emit(struct event_log *l, unsigned worker, const char *event, const char *portal,
                 const char *detail)
{
    if (!l || !l->f)
        return;
    struct event e = {.mono = mono_ns(), .worker = worker, .client = -1};
    snprintf(e.event, sizeof e.event, "%s", event);
    snprintf(e.portal, sizeof e.portal, "%s", portal ? portal : "");
    snprintf(e.detail, sizeof e.detail, "%s", detail ? detail : "");
    keep(l, &e);
}

/* Writes e (once time zero is known) and keeps it for the reports. */
static void keep(struct event_log *l, struct event *e_in)
{
    struct event e = *e_in;
    pthread_mutex_lock(&l->mu);
    if (l->t0_known)
        write_line(l, &e);
    if (l->n == l->cap && l->n < l->limit) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct event *nl = realloc(l->list, cap * sizeof *nl);
        if (nl) {
            l->list = nl;
            l->cap = cap;
        }
    }
    if (l->n < l->cap && l->n < l->limit)
        l->list[l->n++] = e;
    else if (!e.written)
        write_line(l, &e); /* no room to keep it: write it now, time and all */
    else
        l->unlisted++;
    pthread_mutex_unlock(&l->mu);
}

void events_add_from(struct event_log *l, const struct event *from, int client)
{
    if (!l || !l->f || !l->t0_known)
        return;
    struct event e = *from;
    e.client = client;
    e.written = false;
    e.mono = l->t0 + (uint64_t)e.t_ns; /* write_line counts from our time zero */
    keep(l, &e);
}

void events_close(struct event_log *l)
{
    if (!l->f)
        return;
    if (!l->t0_known)
        events_set_t0(l, l->opened); /* the run never started: count from opening */
    fclose(l->f);
    l->f = NULL;
    pthread_mutex_destroy(&l->mu);
    free(l->list);
    l->list = NULL;
    l->n = l->cap = 0;
}

void events_from_backend(void *ctx, const char *event, const char *portal, const char *detail)
{
    struct event_source *s = ctx;
    events_emit(s->log, s->worker, event, portal, detail);
}
