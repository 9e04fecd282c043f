/* diskctl — the command language of faultline-disk; see diskctl.h. */
#include "diskctl.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *const mode_names[] = {"ok", "fail", "errors", "slow", "full"};
#define NMODES (sizeof mode_names / sizeof mode_names[0])

const char *disk_mode_name(enum disk_mode m)
{
    return (unsigned)m < NMODES ? mode_names[m] : "?";
}

/* Appends to out (used so far: *used); false when it did not fit. */
static bool put(char *out, size_t n, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool put(char *out, size_t n, size_t *used, const char *fmt, ...)
{
    if (*used >= n)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *used, n - *used, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= n - *used)
        return false;
    *used += (size_t)w;
    return true;
}

static const char *on_word(unsigned on)
{
    return on == DISK_ON_WRITE ? "write" : on == DISK_ON_BOTH ? "both" : "read";
}

int diskctl_format(const struct disk_cmd *c, char *out, size_t n)
{
    size_t used = 0;
    bool ok = true;
    switch (c->mode) {
    case DISK_OK:
        ok = put(out, n, &used, "clear%s", c->replace ? " replace" : "");
        break;
    case DISK_FAIL:
    case DISK_FULL:
        ok = put(out, n, &used, "set %s", disk_mode_name(c->mode));
        break;
    case DISK_SLOW:
        ok = put(out, n, &used, "set slow latency_us=%" PRIu64, c->latency_us);
        if (ok && c->jitter_us)
            ok = put(out, n, &used, " jitter_us=%" PRIu64, c->jitter_us);
        break;
    case DISK_ERRORS:
        ok = put(out, n, &used, "set errors on=%s percent=%u seed=%" PRIu64, on_word(c->on),
                 c->percent ? c->percent : 100, c->seed);
        for (unsigned i = 0; ok && i < c->nranges; i++)
            ok = put(out, n, &used, "%s%" PRIu64 "+%" PRIu64, i ? "," : " ranges=",
                     c->ranges[i][0], c->ranges[i][1]);
        break;
    default:
        ok = false;
    }
    return ok ? 0 : -1;
}

/* A whole decimal number of the text, with nothing after it. */
static int number(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* "O+L,O+L": the ranges into c; 0, or -1 with why. */
static int parse_ranges(char *v, struct disk_cmd *c, char *why, size_t n)
{
    char *save = NULL;
    for (char *r = strtok_r(v, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
        char *plus = strchr(r, '+');
        uint64_t off, len;
        if (!plus) {
            snprintf(why, n, "range '%s' is not OFFSET+LENGTH", r);
            return -1;
        }
        *plus = 0;
        if (number(r, &off) != 0 || number(plus + 1, &len) != 0 || len == 0 ||
            off + len < off) {
            snprintf(why, n, "range '%s+%s' is not two byte counts, the length above 0", r,
                     plus + 1);
            return -1;
        }
        if (c->nranges == DISKCTL_RANGES_MAX) {
            snprintf(why, n, "more than %d ranges", DISKCTL_RANGES_MAX);
            return -1;
        }
        c->ranges[c->nranges][0] = off;
        c->ranges[c->nranges][1] = len;
        c->nranges++;
    }
    return 0;
}

/* One KEY=VALUE word of a `set` line into c; 0, or -1 with why. */
static int parse_word(char *w, struct disk_cmd *c, char *why, size_t n)
{
    char *eq = strchr(w, '=');
    if (!eq) {
        snprintf(why, n, "'%s' is not KEY=VALUE", w);
        return -1;
    }
    *eq = 0;
    const char *k = w;
    char *v = eq + 1;
    uint64_t x;
    if (c->mode == DISK_ERRORS && strcmp(k, "on") == 0) {
        c->on = strcmp(v, "read") == 0    ? DISK_ON_READ
                : strcmp(v, "write") == 0 ? DISK_ON_WRITE
                : strcmp(v, "both") == 0  ? DISK_ON_BOTH
                                          : 0;
        if (c->on)
            return 0;
        snprintf(why, n, "on=%s: read, write or both", v);
        return -1;
    }
    if (c->mode == DISK_ERRORS && strcmp(k, "ranges") == 0)
        return parse_ranges(v, c, why, n);
    bool known = (c->mode == DISK_ERRORS && (!strcmp(k, "percent") || !strcmp(k, "seed"))) ||
                 (c->mode == DISK_SLOW && (!strcmp(k, "latency_us") || !strcmp(k, "jitter_us")));
    if (!known) {
        snprintf(why, n, "set %s takes no key '%s'", disk_mode_name(c->mode), k);
        return -1;
    }
    if (number(v, &x) != 0) {
        snprintf(why, n, "%s=%s is not a whole number", k, v);
        return -1;
    }
    if (!strcmp(k, "percent")) {
        if (x < 1 || x > 100) {
            snprintf(why, n, "percent=%s: from 1 to 100", v);
            return -1;
        }
        c->percent = (unsigned)x;
    } else if (!strcmp(k, "seed")) {
        c->seed = x;
    } else if (!strcmp(k, "latency_us")) {
        c->latency_us = x;
    } else {
        c->jitter_us = x;
    }
    return 0;
}

int diskctl_parse(const char *line, struct disk_cmd *c, char *why, size_t n)
{
    char buf[DISKCTL_LINE_MAX];
    if (strlen(line) >= sizeof buf) {
        snprintf(why, n, "a command of more than %d bytes", DISKCTL_LINE_MAX - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", line);
    buf[strcspn(buf, "\r\n")] = 0;
    *c = (struct disk_cmd){.mode = DISK_OK, .on = DISK_ON_READ, .percent = 100};
    char *save = NULL;
    const char *verb = strtok_r(buf, " ", &save);
    const char *what = verb ? strtok_r(NULL, " ", &save) : NULL;
    if (verb && strcmp(verb, "clear") == 0) {
        if (what && strcmp(what, "replace") == 0)
            c->replace = true;
        else if (what) {
            snprintf(why, n, "clear takes nothing or 'replace', not '%s'", what);
            return -1;
        }
        if (strtok_r(NULL, " ", &save)) {
            snprintf(why, n, "clear: more words than 'replace'");
            return -1;
        }
        return 0;
    }
    if (!verb || strcmp(verb, "set") != 0 || !what) {
        snprintf(why, n, "'%s' is none of: set MODE ..., clear [replace], status", line);
        return -1;
    }
    unsigned m = 1;
    while (m < NMODES && strcmp(what, mode_names[m]) != 0)
        m++;
    if (m == NMODES) {
        snprintf(why, n, "set %s: the mode is fail, errors, slow or full", what);
        return -1;
    }
    c->mode = (enum disk_mode)m;
    bool latency = false;
    for (char *w = strtok_r(NULL, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        latency |= strncmp(w, "latency_us=", 11) == 0;
        if (parse_word(w, c, why, n) != 0)
            return -1;
    }
    if (c->mode == DISK_SLOW && !latency) {
        snprintf(why, n, "set slow needs latency_us=N");
        return -1;
    }
    return 0;
}

/* The counts' keys and fields, in the order of the text. */
static const struct {
    const char *key;
    size_t at;
} count_keys[] = {
    {"reads", offsetof(struct disk_counts, reads)},
    {"writes", offsetof(struct disk_counts, writes)},
    {"syncs", offsetof(struct disk_counts, syncs)},
    {"failed_reads", offsetof(struct disk_counts, failed_reads)},
    {"failed_writes", offsetof(struct disk_counts, failed_writes)},
    {"failed_syncs", offsetof(struct disk_counts, failed_syncs)},
    {"nospace", offsetof(struct disk_counts, nospace)},
    {"slowed", offsetof(struct disk_counts, slowed)},
};
#define NCOUNTS (sizeof count_keys / sizeof count_keys[0])

static uint64_t *count_at(struct disk_counts *c, unsigned i)
{
    return (uint64_t *)(void *)((char *)c + count_keys[i].at);
}

int diskctl_counts_format(const struct disk_counts *c, char *out, size_t n)
{
    struct disk_counts copy = *c;
    size_t used = 0;
    for (unsigned i = 0; i < NCOUNTS; i++)
        if (!put(out, n, &used, "%s%s=%" PRIu64, i ? " " : "", count_keys[i].key,
                 *count_at(&copy, i)))
            return -1;
    return 0;
}

int diskctl_counts_parse(const char *text, struct disk_counts *c)
{
    *c = (struct disk_counts){0};
    char buf[DISKCTL_LINE_MAX];
    snprintf(buf, sizeof buf, "%s", text);
    buf[strcspn(buf, "\r\n")] = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        if (!eq)
            return -1;
        *eq = 0;
        unsigned i = 0;
        while (i < NCOUNTS && strcmp(w, count_keys[i].key) != 0)
            i++;
        if (i == NCOUNTS || number(eq + 1, count_at(c, i)) != 0)
            return -1;
    }
    return 0;
}

struct disk_counts disk_counts_since(const struct disk_counts *a, const struct disk_counts *b)
{
    struct disk_counts d, x = *a, y = *b;
    for (unsigned i = 0; i < NCOUNTS; i++) {
        uint64_t before = *count_at(&x, i), after = *count_at(&y, i);
        *count_at(&d, i) = after >= before ? after - before : 0;
    }
    return d;
}

static int64_t ms_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Waits for fd to be ready for `events` until deadline (ms_now()); 0, or -1. */
static int wait_for(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - ms_now();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, (int)left);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

/* The layer's answer line to `line`, into ans; 0, or -1 with why. */
static int exchange(const char *sock, const char *line, char *ans, size_t anslen,
                    int timeout_ms, char *why, size_t n)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof a.sun_path) {
        snprintf(why, n, "control socket %s: the path is too long", sock);
        return -1;
    }
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    int64_t deadline = ms_now() + timeout_ms;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS)) {
        snprintf(why, n, "control socket %s: %s", sock, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char req[DISKCTL_LINE_MAX + 2];
    int len = snprintf(req, sizeof req, "%s\n", line);
    size_t sent = 0, got = 0;
    while (sent < (size_t)len) {
        ssize_t w = wait_for(fd, POLLOUT, deadline) == 0
                        ? send(fd, req + sent, (size_t)len - sent, MSG_NOSIGNAL)
                        : -1;
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
            snprintf(why, n, "control socket %s: sending '%s': %s", sock, line,
                     strerror(errno));
            close(fd);
            return -1;
        }
        sent += w > 0 ? (size_t)w : 0;
    }
    while (got + 1 < anslen && !memchr(ans, '\n', got)) {
        ssize_t r = wait_for(fd, POLLIN, deadline) == 0 ? recv(fd, ans + got, anslen - 1 - got, 0)
                                                       : -1;
        if (r == 0)
            break;
        if (r < 0 && errno != EAGAIN && errno != EINTR) {
            snprintf(why, n, "control socket %s: no answer to '%s' (%s)", sock, line,
                     strerror(errno));
            close(fd);
            return -1;
        }
        got += r > 0 ? (size_t)r : 0;
    }
    close(fd);
    ans[got] = 0;
    ans[strcspn(ans, "\n")] = 0;
    return 0;
}

int diskctl_ask(const char *sock, const char *line, enum disk_mode *mode,
                struct disk_counts *counts, int timeout_ms, char *why, size_t n)
{
    char ans[DISKCTL_LINE_MAX];
    if (exchange(sock, line, ans, sizeof ans, timeout_ms, why, n) != 0)
        return -1;
    if (strncmp(ans, "error ", 6) == 0) {
        snprintf(why, n, "the disk layer refused '%s': %s", line, ans + 6);
        return -1;
    }
    char word[16] = "";
    int off = 0;
    if (strncmp(ans, "ok ", 3) != 0 || sscanf(ans + 3, "%15s %n", word, &off) < 1) {
        snprintf(why, n, "the disk layer answered '%s' to '%s' (not 'ok MODE COUNTS')",
                 ans[0] ? ans : "nothing", line);
        return -1;
    }
    unsigned m = 0;
    while (m < NMODES && strcmp(word, mode_names[m]) != 0)
        m++;
    struct disk_counts c;
    if (m == NMODES || diskctl_counts_parse(ans + 3 + off, &c) != 0) {
        snprintf(why, n, "the disk layer answered '%s' to '%s' (not 'ok MODE COUNTS')", ans,
                 line);
        return -1;
    }
    if (mode)
        *mode = (enum disk_mode)m;
    if (counts)
        *counts = c;
    return 0;
}
