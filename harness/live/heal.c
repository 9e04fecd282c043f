/* heal — see heal.h. */
#include "heal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/clock.h"

static void add_sample(struct heal_watch *w, long pending, long missing)
{
    pthread_mutex_lock(&w->mu);
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        struct heal_sample *s = realloc(w->s, cap * sizeof *s);
        if (!s) {
            pthread_mutex_unlock(&w->mu);
            return;
        }
        w->s = s;
        w->cap = cap;
    }
    w->s[w->n++] = (struct heal_sample){.t_ns = mono_ns(), .pending = pending, .missing = missing};
    pthread_mutex_unlock(&w->mu);
}

static void *watch(void *arg)
{
    struct heal_watch *w = arg;
    while (!atomic_load(&w->stop)) {
        char err[512];
        long missing;
        long pending = w->st.kind->heal->pending(&w->st, &missing, err, sizeof err);
        pthread_mutex_lock(&w->mu);
        if (pending < 0)
            snprintf(w->err, sizeof w->err, "%s", err);
        else
            snprintf(w->what, sizeof w->what, "%s", err);
        pthread_mutex_unlock(&w->mu);
        add_sample(w, pending, missing);
        if (atomic_load(&w->finishing) &&
            (pending == 0 || mono_ns() >= atomic_load(&w->deadline)))
            break;
        unsigned ms = w->st.kind->heal->poll_ms;
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int heal_watch_start(struct heal_watch *w, const struct storage *st, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->st = *st;
    pthread_mutex_init(&w->mu, NULL);
    int rc = pthread_create(&w->thread, NULL, watch, w);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the heal watch: %s", strerror(rc));
        return -1;
    }
    w->started = true;
    return 0;
}

void heal_watch_finish(struct heal_watch *w, uint64_t wait_ns)
{
    if (!w->started)
        return;
    atomic_store(&w->deadline, mono_ns() + wait_ns);
    atomic_store(&w->finishing, true);
    pthread_join(w->thread, NULL);
    w->started = false;
}

bool heal_time_of(const struct heal_sample *s, size_t n, uint64_t clear_ns, uint64_t until_ns,
                  double *heal_s)
{
    /* An answer with something pending starts the search again: a whole
     * answer just after the clear can be a stale view (ceph said HEALTH_OK
     * 3.5 s after cs1's cable was back, where its manager runs, and was
     * whole only 142 s later), and what comes after it says so. */
    size_t first = n;
    for (size_t i = 0; i < n && s[i].t_ns < until_ns; i++) {
        if (s[i].t_ns < clear_ns || s[i].pending < 0)
            continue;
        if (s[i].pending > 0)
            first = n;
        else if (first == n)
            first = i;
    }
    if (first == n)
        return false;
    *heal_s = (double)(s[first].t_ns - clear_ns) / 1e9;
    return true;
}

bool heal_watch_time(struct heal_watch *w, uint64_t clear_ns, uint64_t until_ns, double *heal_s)
{
    pthread_mutex_lock(&w->mu);
    bool found = heal_time_of(w->s, w->n, clear_ns, until_ns, heal_s);
    pthread_mutex_unlock(&w->mu);
    return found;
}

bool heal_watch_healed(struct heal_watch *w)
{
    pthread_mutex_lock(&w->mu);
    bool healed = w->n && w->s[w->n - 1].pending == 0;
    pthread_mutex_unlock(&w->mu);
    return healed;
}

unsigned heal_watch_whole_since(struct heal_watch *w, uint64_t since_ns, long *missing)
{
    pthread_mutex_lock(&w->mu);
    unsigned whole = 0;
    *missing = -2;
    for (size_t i = w->n; i > 0 && w->s[i - 1].t_ns >= since_ns; i--) {
        if (*missing == -2)
            *missing = w->s[i - 1].missing;
        if (w->s[i - 1].missing != 0)
            break;
        whole++;
    }
    pthread_mutex_unlock(&w->mu);
    return whole;
}

void heal_watch_last(struct heal_watch *w, char *out, size_t n)
{
    pthread_mutex_lock(&w->mu);
    /* The newest answer says what was left; a question that failed after
     * it (gluster's CLI times out on a loaded machine) does not hide it. */
    size_t i = w->n;
    while (i > 0 && w->s[i - 1].pending < 0)
        i--;
    if (!w->n)
        snprintf(out, n, "no answer yet");
    else if (i == 0)
        snprintf(out, n, "no answer: the last question failed: %s", w->err);
    else if (i == w->n)
        snprintf(out, n, "%s", w->what);
    else
        snprintf(out, n, "%s at the last answer, %.1f s before the end; "
                 "the %zu questions after it failed, the last: %s",
                 w->what, (double)(w->s[w->n - 1].t_ns - w->s[i - 1].t_ns) / 1e9,
                 w->n - i, w->err);
    pthread_mutex_unlock(&w->mu);
}

void heal_watch_free(struct heal_watch *w)
{
    if (w->started) {
        atomic_store(&w->stop, true);
        pthread_join(w->thread, NULL);
        w->started = false;
    }
    free(w->s);
    w->s = NULL;
    pthread_mutex_destroy(&w->mu);
}
