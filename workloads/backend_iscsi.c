/*
 * backend_iscsi — a LUN through libiscsi, with failover across portals.
 *
 * Every portal of [target] portals is a path to the same LUN: its own
 * libiscsi context (session), driven asynchronously from reap() by poll()
 * and iscsi_service().  At most `depth` READ16/WRITE16/SYNCHRONIZE CACHE16
 * commands are in flight, all on the active path.
 *
 * Failover policy: the first path that logs in becomes active.  When the
 * active path fails — connection loss, a command timing out, or `nop_missed`
 * NOP-Outs without answer — everything in flight on it is cancelled locally
 * and reissued on the next healthy path, in portal order.  There is no
 * failback: the new path stays active until it fails in turn.  A dead path
 * is reconnected in the background every `retry_interval`.  With no healthy
 * path, I/O waits until the outage is `io_timeout` old, then fails (and any
 * I/O after that fails at once, until a path is back).
 *
 * A write that had to be reissued is reported `doubtful`: the first attempt
 * may or may not have reached the media, so the engine allows either
 * generation for its block until a later write settles it.  That holds
 * only if the first attempt cannot arrive after the reissue: a path given
 * up has its connection reset, not closed, so the kernel drops the PDUs it
 * still held for it.  (What the controller had already received is its
 * own business: a frozen controller that wakes up must be fenced.)
 *
 * libiscsi 1.19 hazards handled here: no sync call is ever made (a sync call
 * without timeout blocks through TCP backoff); automatic reconnect is off
 * (after its retries run out iscsi_destroy_context can crash), so a failed
 * path is cancelled, destroyed and replaced by a new context of our own.
 * A per-command timeout, a TCP user timeout and a bounded SYN count make
 * every failure visible within seconds.  UNIT ATTENTIONs are consumed at
 * login (iscsi_set_no_ua_on_reconnect) and, when one arrives on a command,
 * the command is simply sent again.
 *
 * Every serial number must match the first one seen: two portals that lead
 * to different LUNs are refused.  The first path up is also asked the
 * standard INQUIRY once, at open: vendor, product and revision, with the
 * serial the LUN's identity in the report's manifest (identify).
 *
 * The kind's keys, its scenario rules and its line in the table of target
 * kinds are backend_iscsi_keys.c's.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "backend_iscsi.h"
#include "backend_iscsi_io.h"
#include "../lib/clock.h"

enum path_state {
    P_DOWN,       /* no context; retried at retry_at */
    P_CONNECTING, /* TCP connect, login, TEST UNIT READY */
    P_PROBING,    /* INQUIRY for the serial number */
    P_UP,         /* may carry I/O */
    P_REFUSED,    /* serial number of another LUN: never used */
};

static const char *const state_names[] = {"down", "connecting", "probing", "up", "refused"};

struct iscsi_priv;

struct xfer {
    struct iscsi_priv *p;
    struct io *io;
    struct scsi_task *task; /* in flight on `path`, or NULL */
    int path;
    unsigned sends;
    unsigned unit_attentions;
    struct xfer *next; /* waiting list */
    bool busy;
};

struct path {
    struct iscsi_priv *p;
    int index;
    char url[FL_URL_MAX];
    char portal[MAX_STRING_SIZE + 1];
    char target[MAX_STRING_SIZE + 1];
    int lun;
    enum path_state state;
    struct iscsi_context *ctx;
    uint64_t since;    /* entered the current state */
    uint64_t retry_at; /* P_DOWN: next attempt */
    uint64_t next_nop;
    uint64_t last_fail_event;
    bool failed; /* seen inside a callback: torn down after iscsi_service() */
    char why[300];
    unsigned logins;
};

struct iscsi_priv {
    struct backend *be;
    struct iscsi_cfg cfg;
    char initiator[256];
    struct path paths[FL_MAX_PORTALS];
    unsigned npaths;
    int active; /* path carrying I/O, -1 for none */
    uint64_t no_path_since; /* mono ns when the last healthy path went; 0: there is one */
    bool opening; /* in open(): the first path in portal order is chosen at the end */
    char serial[256];
    /* standard INQUIRY at open, for the report's manifest (identify) */
    bool ident_asked, ident_done;
    char vendor[9], product[17], revision[5];
    char mismatch[1200]; /* why a path was refused */
    /* READ CAPACITY(16) at open */
    bool capacity_asked, capacity_done;
    uint32_t lbsize;
    uint64_t lun_bytes;
    char capacity_err[FL_URL_MAX + 300];
    /* I/O */
    struct xfer *xfers;
    unsigned nxfers;
    struct xfer *wait_head, *wait_tail;
    struct io **done;
    unsigned ndone;
};

static void event(struct iscsi_priv *p, const char *ev, const struct path *path, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

static void event(struct iscsi_priv *p, const char *ev, const struct path *path, const char *fmt,
                  ...)
{
    if (!p->be->on_event)
        return;
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    p->be->on_event(p->be->event_ctx, ev, path ? path->url : "", detail);
}

static void set_state(struct path *path, enum path_state s)
{
    path->state = s;
    path->since = mono_ns();
}

/* Marks a path failed; the teardown happens outside libiscsi's callbacks. */
static void path_fail(struct path *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void path_fail(struct path *path, const char *fmt, ...)
{
    if (path->failed)
        return;
    path->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path->why, sizeof path->why, fmt, ap);
    va_end(ap);
}

/* --- I/O --- */

static void complete(struct iscsi_priv *p, struct xfer *x, int64_t result)
{
    x->io->result = result;
    x->io->backend = NULL;
    x->io->path = x->path >= 0 ? (uint8_t)(x->path + 1) : 0; /* the one that answered */
    p->done[p->ndone++] = x->io;
    x->busy = false;
    x->task = NULL;
}

static void wait_push(struct iscsi_priv *p, struct xfer *x)
{
    x->path = -1;
    x->task = NULL;
    x->next = NULL;
    if (p->wait_tail)
        p->wait_tail->next = x;
    else
        p->wait_head = x;
    p->wait_tail = x;
}

static void data_cb(struct iscsi_context *ctx, int status, void *command_data, void *private_data);

/* Sends x on path i. */
static void send_on(struct iscsi_priv *p, struct xfer *x, int i)
{
    struct path *path = &p->paths[i];
    struct io *io = x->io;
    uint64_t lba = io->offset / p->lbsize;
    struct scsi_task *task = NULL;
    switch (io->op) {
    case IO_READ:
        task = iscsi_read16_task(path->ctx, path->lun, lba, io->len, (int)p->lbsize, 0, 0, 0, 0, 0,
                                 data_cb, x);
        if (task && scsi_task_add_data_in_buffer(task, (int)io->len, io->buf) != 0) {
            x->task = task;
            iscsi_scsi_cancel_task(path->ctx, task); /* data_cb sees CANCELLED */
            return;
        }
        break;
    case IO_WRITE:
        task = iscsi_write16_task(path->ctx, path->lun, lba, io->buf, io->len, (int)p->lbsize, 0,
                                  0, p->cfg.fua, 0, 0, data_cb, x);
        break;
    case IO_FLUSH:
        task = iscsi_synchronizecache16_task(path->ctx, path->lun, 0, 0, 0, 0, data_cb, x);
        break;
    }
    if (!task) {
        path_fail(path, "cannot queue a command: %s", iscsi_get_error(path->ctx));
        wait_push(p, x);
        return;
    }
    x->task = task;
    x->path = i;
    /* A write sent a second time: the first may have reached the media. */
    if (++x->sends > 1 && io->op == IO_WRITE)
        io->doubtful = true;
}

static void sense_text(const struct scsi_task *task, char *out, size_t n)
{
    snprintf(out, n, "CHECK CONDITION: %s, %s (0x%04x)", scsi_sense_key_str(task->sense.key),
             scsi_sense_ascq_str(task->sense.ascq), task->sense.ascq);
}

static void data_cb(struct iscsi_context *ctx, int status, void *command_data, void *private_data)
{
    (void)ctx;
    struct xfer *x = private_data;
    struct scsi_task *task = command_data ? command_data : x->task;
    if (!x->busy || !x->task || task != x->task) {
        if (task)
            scsi_free_scsi_task(task); /* a task we already gave up on */
        return;
    }
    struct iscsi_priv *p = x->p;
    struct path *path = &p->paths[x->path];
    x->task = NULL;
    switch (status) {
    case SCSI_STATUS_GOOD:
        complete(p, x, x->io->op == IO_FLUSH ? 0 : (int64_t)x->io->len);
        break;
    case SCSI_STATUS_CHECK_CONDITION:
        if (task->sense.key == SCSI_SENSE_UNIT_ATTENTION && x->unit_attentions < 8) {
            /* A reset or a changed LUN somewhere: tell, then just resend. */
            x->unit_attentions++;
            event(p, "unit-attention", path, "%s (0x%04x); command sent again",
                  scsi_sense_ascq_str(task->sense.ascq), task->sense.ascq);
            x->sends--; /* the target refused it: not a second attempt */
            send_on(p, x, path->index);
            break;
        }
        sense_text(task, x->io->err, sizeof x->io->err);
        complete(p, x, -EIO);
        break;
    case SCSI_STATUS_BUSY:
    case SCSI_STATUS_TASK_SET_FULL:
        x->sends--; /* refused, not executed */
        wait_push(p, x);
        break;
    case SCSI_STATUS_RESERVATION_CONFLICT:
        snprintf(x->io->err, sizeof x->io->err, "reservation conflict");
        complete(p, x, -EIO);
        break;
    case SCSI_STATUS_TIMEOUT:
        path_fail(path, "a command got no answer within %u s", p->cfg.command_timeout_s);
        wait_push(p, x);
        break;
    case SCSI_STATUS_CANCELLED:
        /* libiscsi cancels what was in flight when the connection drops; its
         * error text may be older than that, so say what is known. */
        path_fail(path, "connection lost (closed or reset by the portal)");
        wait_push(p, x);
        break;
    default: /* ERROR, TASK_ABORTED */
        path_fail(path, "command failed: %s", iscsi_get_error(path->ctx));
        wait_push(p, x);
        break;
    }
    scsi_free_scsi_task(task);
}

/* --- paths --- */

static void connect_path(struct iscsi_priv *p, struct path *path);

static void capacity_cb(struct iscsi_context *ctx, int status, void *command_data,
                        void *private_data)
{
    struct path *path = private_data;
    struct iscsi_priv *p = path->p;
    struct scsi_task *task = command_data;
    p->capacity_done = true;
    if (status != SCSI_STATUS_GOOD || !task) {
        snprintf(p->capacity_err, sizeof p->capacity_err, "READ CAPACITY(16) via %s failed: %s",
                 path->url, iscsi_get_error(ctx));
    } else {
        struct scsi_readcapacity16 *rc = scsi_datain_unmarshall(task);
        if (!rc || rc->block_length == 0 || rc->block_length % 512) {
            snprintf(p->capacity_err, sizeof p->capacity_err,
                     "READ CAPACITY(16) via %s returned no usable block length", path->url);
        } else {
            p->lbsize = rc->block_length;
            p->lun_bytes = (rc->returned_lba + 1) * (uint64_t)rc->block_length;
        }
    }
    if (task)
        scsi_free_scsi_task(task);
}

/* The standard INQUIRY's vendor, product and revision, once, for the
 * manifest; its failure costs nothing but those words. */
static void std_inquiry_cb(struct iscsi_context *ctx, int status, void *command_data,
                           void *private_data)
{
    (void)ctx;
    struct path *path = private_data;
    struct iscsi_priv *p = path->p;
    struct scsi_task *task = command_data;
    p->ident_done = true;
    struct scsi_inquiry_standard *inq =
        status == SCSI_STATUS_GOOD && task ? scsi_datain_unmarshall(task) : NULL;
    if (inq) {
        snprintf(p->vendor, sizeof p->vendor, "%s", inq->vendor_identification);
        snprintf(p->product, sizeof p->product, "%s", inq->product_identification);
        snprintf(p->revision, sizeof p->revision, "%s", inq->product_revision_level);
    }
    if (task)
        scsi_free_scsi_task(task);
}

static void inquiry_cb(struct iscsi_context *ctx, int status, void *command_data,
                       void *private_data)
{
    struct path *path = private_data;
    struct iscsi_priv *p = path->p;
    struct scsi_task *task = command_data;
    if (path->state != P_PROBING || path->ctx != ctx) {
        if (task)
            scsi_free_scsi_task(task);
        return;
    }
    struct scsi_inquiry_unit_serial_number *usn =
        status == SCSI_STATUS_GOOD && task ? scsi_datain_unmarshall(task) : NULL;
    /* Targets pad the serial number with blanks (tgt to 36 characters). */
    char serial[256] = "";
    if (usn && usn->usn) {
        const char *b = usn->usn;
        while (*b == ' ')
            b++;
        snprintf(serial, sizeof serial, "%s", b);
        size_t l = strlen(serial);
        while (l && serial[l - 1] == ' ')
            serial[--l] = '\0';
    }
    if (!usn || !usn->usn) {
        path_fail(path, "INQUIRY for the unit serial number failed: %s", iscsi_get_error(ctx));
    } else if (!p->serial[0]) {
        snprintf(p->serial, sizeof p->serial, "%s", serial);
    }
    if (usn && usn->usn && strcmp(p->serial, serial) != 0) {
        snprintf(p->mismatch, sizeof p->mismatch,
                 "%s has serial number '%s' but the LUN seen first has '%s': not a path to the "
                 "same LUN", path->url, serial, p->serial);
        event(p, "serial-mismatch", path, "%s", p->mismatch);
        set_state(path, P_REFUSED);
    } else if (usn && usn->usn) {
        set_state(path, P_UP);
        path->next_nop = mono_ns() + (uint64_t)p->cfg.nop_interval_ms * 1000000;
        event(p, path->logins++ ? "reconnect" : "login", path, "logged in, serial '%s'", p->serial);
        if (!p->capacity_asked) {
            p->capacity_asked = true;
            struct scsi_task *t = iscsi_readcapacity16_task(ctx, path->lun, capacity_cb, path);
            if (!t) {
                p->capacity_done = true;
                snprintf(p->capacity_err, sizeof p->capacity_err, "READ CAPACITY(16): %s",
                         iscsi_get_error(ctx));
            }
        }
        if (!p->ident_asked) {
            p->ident_asked = true;
            if (!iscsi_inquiry_task(ctx, path->lun, 0, 0, 255, std_inquiry_cb, path))
                p->ident_done = true; /* the manifest goes without */
        }
        if (p->active < 0 && !p->opening) {
            p->active = path->index;
            p->no_path_since = 0;
            event(p, "switch", path, "I/O goes to %s", path->portal);
        }
    }
    if (task)
        scsi_free_scsi_task(task);
}

static void connect_cb(struct iscsi_context *ctx, int status, void *command_data,
                       void *private_data)
{
    (void)command_data;
    struct path *path = private_data;
    if (path->state != P_CONNECTING || path->ctx != ctx)
        return;
    if (status != SCSI_STATUS_GOOD) {
        path_fail(path, "login failed: %s", iscsi_get_error(ctx));
        return;
    }
    set_state(path, P_PROBING);
    if (!iscsi_inquiry_task(ctx, path->lun, 1, 0x80, 255, inquiry_cb, path))
        path_fail(path, "cannot send INQUIRY: %s", iscsi_get_error(ctx));
}

static void nop_cb(struct iscsi_context *ctx, int status, void *command_data, void *private_data)
{
    (void)ctx, (void)status, (void)command_data, (void)private_data;
}

static void connect_path(struct iscsi_priv *p, struct path *path)
{
    path->failed = false;
    path->why[0] = '\0';
    path->ctx = iscsi_create_context(p->initiator);
    if (!path->ctx) {
        set_state(path, P_DOWN);
        path->retry_at = mono_ns() + p->cfg.retry_interval_ns;
        return;
    }
    struct iscsi_context *c = path->ctx;
    iscsi_set_targetname(c, path->target);
    iscsi_set_session_type(c, ISCSI_SESSION_NORMAL);
    iscsi_set_header_digest(c, ISCSI_HEADER_DIGEST_NONE_CRC32C);
    iscsi_set_noautoreconnect(c, 1);
    iscsi_set_no_ua_on_reconnect(c, 1);
    iscsi_set_tcp_user_timeout(c, (int)p->cfg.tcp_user_timeout_ms);
    iscsi_set_tcp_syncnt(c, 2); /* an unreachable portal fails in seconds */
    iscsi_set_timeout(c, (int)p->cfg.command_timeout_s);
    set_state(path, P_CONNECTING);
    if (iscsi_full_connect_async(c, path->portal, path->lun, connect_cb, path) != 0)
        path_fail(path, "cannot start connecting: %s", iscsi_get_error(c));
}

/* Makes closing the path's socket reset the connection and drop what the
 * kernel still holds for it.  A plain close() lets the kernel go on
 * retransmitting the queued PDUs: once the link is back, WRITEs reissued
 * on another path long ago would land on this controller after newer data
 * (seen as lost writes after a port flap).  Zero linger discards the send
 * queue and sends RST instead. */
static void abort_on_close(struct iscsi_priv *p, struct path *path)
{
    int fd = iscsi_get_fd(path->ctx);
    if (fd < 0)
        return;
    struct linger abort_now = {.l_onoff = 1, .l_linger = 0};
    if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now) != 0)
        event(p, "note", path, "cannot make the connection reset on close (SO_LINGER): %s; "
              "its queued commands may still reach the controller", strerror(errno));
}

/* Tears down a failed path: cancel what is left on it (it goes to the
 * waiting list through data_cb and is reissued only after this), reset the
 * connection so nothing of it arrives later, destroy the context, pick a
 * new active path. */
static void teardown(struct iscsi_priv *p, struct path *path)
{
    uint64_t now = mono_ns();
    bool was_up = path->state == P_UP;
    if (was_up || now - path->last_fail_event > 10000000000ull) {
        event(p, was_up ? "loss" : "connect-failed", path, "%s", path->why);
        path->last_fail_event = now;
    }
    if (path->ctx) {
        abort_on_close(p, path);
        iscsi_scsi_cancel_all_tasks(path->ctx);
        iscsi_destroy_context(path->ctx);
        path->ctx = NULL;
    }
    for (unsigned i = 0; i < p->nxfers; i++) /* anything whose callback never came */
        if (p->xfers[i].busy && p->xfers[i].path == path->index && p->xfers[i].task)
            wait_push(p, &p->xfers[i]);
    path->failed = false;
    if (path->state != P_REFUSED)
        set_state(path, P_DOWN);
    path->retry_at = now + p->cfg.retry_interval_ns;
    if (p->active != path->index)
        return;
    p->active = -1;
    for (unsigned k = 1; k <= p->npaths; k++) {
        struct path *next = &p->paths[(path->index + k) % p->npaths];
        if (next->state == P_UP && !next->failed) {
            p->active = next->index;
            event(p, "switch", next, "I/O moves to %s after %s failed", next->portal, path->portal);
            return;
        }
    }
    p->no_path_since = now;
    event(p, "no-path", path, "no healthy path: I/O waits up to %.0f s for one",
          (double)p->cfg.io_timeout_ns / 1e9);
}

/* Timers and state changes; run before and after every poll. */
static void housekeeping(struct iscsi_priv *p)
{
    uint64_t now = mono_ns();
    for (unsigned i = 0; i < p->npaths; i++) {
        struct path *path = &p->paths[i];
        if ((path->state == P_CONNECTING || path->state == P_PROBING) && !path->failed &&
            now - path->since > p->cfg.login_timeout_ns)
            path_fail(path, "login did not finish within %.0f s",
                      (double)p->cfg.login_timeout_ns / 1e9);
        if (path->state == P_UP && !path->failed && now >= path->next_nop) {
            if (iscsi_get_nops_in_flight(path->ctx) >= (int)p->cfg.nop_missed)
                path_fail(path, "%u NOP-Outs got no answer", (unsigned)p->cfg.nop_missed);
            else if (iscsi_nop_out_async(path->ctx, nop_cb, NULL, 0, path) != 0)
                path_fail(path, "cannot send a NOP-Out: %s", iscsi_get_error(path->ctx));
            path->next_nop = now + (uint64_t)p->cfg.nop_interval_ms * 1000000;
        }
        if (path->failed)
            teardown(p, path);
        if (path->state == P_DOWN && now >= path->retry_at)
            connect_path(p, path);
    }
    /* Send what waits, or give up on it.  A path that failed just now set
     * no_path_since after `now` was taken: take the time again. */
    now = mono_ns();
    struct xfer *list = p->wait_head, *keep = NULL, *keep_tail = NULL;
    p->wait_head = p->wait_tail = NULL;
    while (list) {
        struct xfer *x = list;
        list = x->next;
        if (p->active >= 0) {
            send_on(p, x, p->active);
        } else if (p->no_path_since && now >= p->no_path_since + p->cfg.io_timeout_ns) {
            /* The outage is older than io_timeout: fail at once, so that a
             * dead LUN cannot make every further I/O wait that long. */
            snprintf(x->io->err, sizeof x->io->err, "no path to the LUN for %.0f s",
                     (double)(now - p->no_path_since) / 1e9);
            complete(p, x, -ETIMEDOUT);
        } else {
            x->next = NULL;
            if (keep_tail)
                keep_tail->next = x;
            else
                keep = x;
            keep_tail = x;
        }
    }
    /* send_on() may have queued new waiters (a path failing right away). */
    if (keep) {
        keep_tail->next = p->wait_head;
        if (!p->wait_head)
            p->wait_tail = keep_tail;
        p->wait_head = keep;
    }
}

/* One round: poll every context for up to wait_ms, service it. */
static int drive(struct iscsi_priv *p, int wait_ms)
{
    struct pollfd fds[FL_MAX_PORTALS];
    int which[FL_MAX_PORTALS];
    nfds_t n = 0;
    for (unsigned i = 0; i < p->npaths; i++) {
        struct path *path = &p->paths[i];
        if (!path->ctx || path->failed)
            continue;
        int ev = iscsi_which_events(path->ctx);
        if (ev == 0)
            continue;
        fds[n] = (struct pollfd){.fd = iscsi_get_fd(path->ctx), .events = (short)ev};
        which[n++] = (int)i;
    }
    int rc = poll(fds, n, wait_ms);
    if (rc < 0 && errno != EINTR)
        return -errno;
    bool serviced[FL_MAX_PORTALS] = {false};
    for (nfds_t k = 0; rc > 0 && k < n; k++) {
        if (!fds[k].revents)
            continue;
        struct path *path = &p->paths[which[k]];
        serviced[which[k]] = true;
        if (iscsi_service(path->ctx, fds[k].revents) < 0)
            path_fail(path, "%s", iscsi_get_error(path->ctx));
    }
    /* Timeouts are scanned inside iscsi_service(); call it on the quiet ones too. */
    for (unsigned i = 0; i < p->npaths; i++) {
        struct path *path = &p->paths[i];
        if (path->ctx && !path->failed && !serviced[i] && iscsi_service(path->ctx, 0) < 0)
            path_fail(path, "%s", iscsi_get_error(path->ctx));
    }
    return 0;
}

int iscsi_backend_submit(struct backend *be, struct io *io)
{
    struct iscsi_priv *p = be->priv;
    struct xfer *x = NULL;
    for (unsigned i = 0; i < p->nxfers && !x; i++)
        if (!p->xfers[i].busy)
            x = &p->xfers[i];
    if (!x)
        return -EBUSY;
    *x = (struct xfer){.p = p, .io = io, .path = -1, .busy = true};
    io->backend = x;
    io->doubtful = false;
    io->err[0] = '\0';
    if (p->active >= 0 && !p->paths[p->active].failed)
        send_on(p, x, p->active);
    else
        wait_push(p, x);
    return 0;
}

int iscsi_backend_reap(struct backend *be, struct io **done, int max, int wait_ms)
{
    struct iscsi_priv *p = be->priv;
    uint64_t end = mono_ns() + (uint64_t)(wait_ms > 0 ? wait_ms : 0) * 1000000;
    for (;;) {
        housekeeping(p);
        uint64_t now = mono_ns();
        if (p->ndone > 0 || now >= end) {
            int rc = drive(p, 0); /* send what was queued, take what is there */
            if (rc < 0)
                return rc;
            housekeeping(p);
            break;
        }
        uint64_t left_ms = (end - now + 999999) / 1000000;
        int rc = drive(p, left_ms < 20 ? (int)left_ms : 20); /* timers need a look */
        if (rc < 0)
            return rc;
    }
    int n = (int)p->ndone < max ? (int)p->ndone : max;
    memcpy(done, p->done, (size_t)n * sizeof *done);
    memmove(p->done, p->done + n, (p->ndone - (unsigned)n) * sizeof *done);
    p->ndone -= (unsigned)n;
    return n;
}

void iscsi_backend_close(struct backend *be)
{
    struct iscsi_priv *p = be->priv;
    if (!p)
        return;
    for (unsigned i = 0; i < p->npaths; i++) {
        struct path *path = &p->paths[i];
        if (path->ctx) {
            iscsi_scsi_cancel_all_tasks(path->ctx);
            iscsi_destroy_context(path->ctx);
            path->ctx = NULL;
        }
    }
    free(p->xfers);
    free(p->done);
    free(p);
    be->priv = NULL;
}

/* iqn.2026-11.io.faultline:HOST.PID.wN — one initiator per worker, so that
 * sessions of different workers never replace each other. */
static void initiator_name(char *out, size_t n, unsigned worker)
{
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    for (char *c = host; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
            *c = (*c >= 'A' && *c <= 'Z') ? (char)(*c - 'A' + 'a') : '-';
    snprintf(out, n, "iqn.2026-11.io.faultline:%s.%d.w%u", host, (int)getpid(), worker);
}

static int parse_portals(struct iscsi_priv *p, char *err, size_t n)
{
    struct iscsi_context *tmp = iscsi_create_context(p->initiator);
    if (!tmp) {
        snprintf(err, n, "cannot create an iSCSI context (out of memory)");
        return -1;
    }
    int rc = 0;
    for (unsigned i = 0; i < p->cfg.nportals && rc == 0; i++) {
        struct path *path = &p->paths[i];
        struct iscsi_url *u = iscsi_parse_full_url(tmp, p->cfg.portals[i]);
        if (!u) {
            snprintf(err, n, "bad portal '%s': %s (expected iscsi://HOST[:PORT]/IQN/LUN)",
                     p->cfg.portals[i], iscsi_get_error(tmp));
            rc = -1;
            break;
        }
        *path = (struct path){.p = p, .index = (int)i, .lun = u->lun, .state = P_DOWN};
        size_t l = strnlen(p->cfg.portals[i], sizeof path->url - 1);
        memcpy(path->url, p->cfg.portals[i], l);
        path->url[l] = '\0';
        snprintf(path->portal, sizeof path->portal, "%s", u->portal);
        snprintf(path->target, sizeof path->target, "%s", u->target);
        iscsi_destroy_url(u);
        p->npaths++;
    }
    iscsi_destroy_context(tmp);
    return rc;
}

static int open_paths(struct backend *be, const struct target_cfg *t, unsigned depth, char *err,
                      size_t n)
{
    struct iscsi_priv *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    p->be = be;
    p->cfg = *BACKEND_OPTS(t, const struct iscsi_cfg);
    p->active = -1;
    p->nxfers = depth + 8;
    p->xfers = calloc(p->nxfers, sizeof *p->xfers);
    p->done = calloc(p->nxfers, sizeof *p->done);
    be->priv = p;
    if (!p->xfers || !p->done) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    initiator_name(p->initiator, sizeof p->initiator, be->worker);
    if (p->cfg.nportals == 0) {
        snprintf(err, n, "[target] kind = iscsi needs portals (or [scenario] lab = iscsi)");
        return -1;
    }
    if (parse_portals(p, err, n) != 0)
        return -1;
    for (unsigned i = 1; i < p->npaths; i++)
        if (strcmp(p->paths[i].target, p->paths[0].target) != 0 ||
            p->paths[i].lun != p->paths[0].lun) {
            event(p, "note", &p->paths[i], "target %s LUN %d differs from %s LUN %d; the serial "
                  "number decides", p->paths[i].target, p->paths[i].lun, p->paths[0].target,
                  p->paths[0].lun);
        }
    p->opening = true;
    for (unsigned i = 0; i < p->npaths; i++)
        connect_path(p, &p->paths[i]);
    /* Connect and log in on every path, learn the serial number and the
     * capacity — bounded by login_timeout, never a blocking call. */
    uint64_t deadline = mono_ns() + p->cfg.login_timeout_ns + 1000000000ull;
    for (;;) {
        housekeeping(p);
        bool settling = false;
        for (unsigned i = 0; i < p->npaths; i++)
            if (p->paths[i].state == P_CONNECTING || p->paths[i].state == P_PROBING)
                settling = true;
        bool have_capacity = p->capacity_done || !p->capacity_asked;
        bool have_ident = p->ident_done || !p->ident_asked;
        if ((!settling && have_capacity && have_ident) || mono_ns() > deadline)
            break;
        int rc = drive(p, 20);
        if (rc < 0) {
            snprintf(err, n, "poll failed: %s", strerror(-rc));
            return -1;
        }
    }
    p->opening = false;
    if (p->mismatch[0]) {
        snprintf(err, n, "refusing the portals: %s", p->mismatch);
        return -1;
    }
    /* Policy: the first healthy portal in the order given carries I/O. */
    for (unsigned i = 0; i < p->npaths && p->active < 0; i++)
        if (p->paths[i].state == P_UP && !p->paths[i].failed) {
            p->active = (int)i;
            event(p, "switch", &p->paths[i], "I/O goes to %s", p->paths[i].portal);
        }
    if (p->active < 0) {
        size_t used = (size_t)snprintf(err, n, "no portal of the LUN answered:");
        for (unsigned i = 0; i < p->npaths && used < n; i++)
            used += (size_t)snprintf(err + used, n - used, " %s (%s: %s)%s", p->paths[i].url,
                                     state_names[p->paths[i].state],
                                     p->paths[i].why[0] ? p->paths[i].why : "no answer",
                                     i + 1 < p->npaths ? ";" : "");
        return -1;
    }
    if (p->capacity_err[0] || !p->lbsize) {
        snprintf(err, n, "%s", p->capacity_err[0] ? p->capacity_err
                                                  : "READ CAPACITY(16) got no answer");
        return -1;
    }
    if (t->size > p->lun_bytes) {
        snprintf(err, n, "[target] size %llu is larger than the LUN (%llu bytes)",
                 (unsigned long long)t->size, (unsigned long long)p->lun_bytes);
        return -1;
    }
    be->capacity = t->size ? t->size : p->lun_bytes;
    be->align = p->lbsize;
    be->durable_writes = p->cfg.fua;
    unsigned up = 0;
    for (unsigned i = 0; i < p->npaths; i++)
        up += p->paths[i].state == P_UP;
    /* the paths by their portals, for who carried the I/O (io->path) */
    for (unsigned i = 0; i < p->npaths && i < BACKEND_PATHS; i++)
        snprintf(be->path_names[i], sizeof be->path_names[i], "%s", p->paths[i].portal);
    be->npaths = p->npaths < BACKEND_PATHS ? p->npaths : BACKEND_PATHS;
    snprintf(be->desc, sizeof be->desc, "iSCSI LUN %s/%d, serial '%s', %u-byte sectors, %u of %u "
             "paths up%s", p->paths[0].target, p->paths[0].lun, p->serial, p->lbsize, up,
             p->npaths, p->cfg.fua ? ", FUA writes" : "");
    return 0;
}

int iscsi_backend_open(struct backend *be, const struct target_cfg *t, unsigned depth, char *err,
                       size_t n)
{
    int rc = open_paths(be, t, depth, err, n);
    if (rc != 0)
        iscsi_backend_close(be); /* a failed open leaves nothing behind */
    return rc;
}

/* The LUN as INQUIRY described it at open: vendor, product, revision
 * (standard INQUIRY), serial (VPD page 0x80); the target and LUN. */
void iscsi_backend_identify(const struct backend *be, const struct target_cfg *t,
                            struct kv_list *out)
{
    (void)t;
    const struct iscsi_priv *p = be ? be->priv : NULL;
    if (!p) {
        kv_add(out, "error", "the LUN was not open");
        return;
    }
    kv_add(out, "vendor", "%s", p->vendor);
    kv_add(out, "product", "%s", p->product);
    kv_add(out, "revision", "%s", p->revision);
    kv_add(out, "serial", "%s", p->serial);
    if (p->npaths) {
        kv_add(out, "iqn", "%s", p->paths[0].target);
        kv_add(out, "lun", "%d", p->paths[0].lun);
    }
    if (!p->vendor[0] && !p->product[0])
        kv_add(out, "error", "the standard INQUIRY got no answer at open");
}
