/* evidence — see evidence.h. */
#include "evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "../../checks/block.h"
#include "../../checks/classify.h"
#include "../../lib/clock.h"
#include "../../lib/proc.h"

#define LOOK_XATTRS 24

/* What the child saw of one copy: filled inside the server's mount
 * namespace by a child that shares our memory (proc_call_at_shared: it
 * only reads and copies; the words are ours). */
struct look {
    int err;          /* errno of what failed first, 0 */
    char failed[32];  /* what that was */
    struct stat st;
    int got;          /* bytes of the sector read, or -errno */
    unsigned char sector[FL_SECTOR];
    unsigned nx;
    struct {
        char name[96];
        int len;     /* of value, or -errno */
        ssize_t size; /* len -ERANGE: its length */
        unsigned char value[64];
    } x[LOOK_XATTRS];
};

struct look_arg {
    const char *file;
    uint64_t offset;
    struct look *l;
};

static int look_at(void *ctx, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct look_arg *a = ctx;
    struct look *l = a->l;
    int fd = open(a->file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        l->err = errno;
        snprintf(l->failed, sizeof l->failed, "open");
        return 0;
    }
    if (fstat(fd, &l->st) != 0) {
        l->err = errno;
        snprintf(l->failed, sizeof l->failed, "fstat");
    }
    ssize_t n = pread(fd, l->sector, FL_SECTOR, (off_t)a->offset);
    l->got = n < 0 ? -errno : (int)n;
    char names[4096];
    ssize_t len = flistxattr(fd, names, sizeof names);
    for (ssize_t at = 0; len > 0 && at < len && l->nx < LOOK_XATTRS;
         at += (ssize_t)strlen(names + at) + 1) {
        snprintf(l->x[l->nx].name, sizeof l->x[0].name, "%s", names + at);
        ssize_t v = fgetxattr(fd, names + at, l->x[l->nx].value, sizeof l->x[0].value);
        l->x[l->nx].len = v < 0 ? -errno : (int)v;
        if (v < 0 && errno == ERANGE) /* longer than we keep: how long */
            l->x[l->nx].size = fgetxattr(fd, names + at, NULL, 0);
        l->nx++;
    }
    close(fd);
    return 0;
}

/* What a sector holds: at length into out ("block 17 generation 5 written
 * at 4.901 s"), and in a word or two into brief ("gen 5", "zeroes", "not
 * ours", "bad crc", "other run", "short", "error"). */
static void describe_sector(const unsigned char *sector, int got, uint64_t run_id, char *out,
                            size_t n, char *brief, size_t bn)
{
    if (got < 0) {
        snprintf(out, n, "the read failed: %s", strerror(-got));
        snprintf(brief, bn, "error");
        return;
    }
    if (got < (int)FL_SECTOR) {
        snprintf(out, n, "the file ends before that sector (%d bytes of it)", got);
        snprintf(brief, bn, "short");
        return;
    }
    enum sector_state state;
    struct stamp st;
    block_decode(sector, 1, &state, &st, NULL, NULL);
    if (state == SECTOR_ZERO) {
        snprintf(out, n, "zeroes");
        snprintf(brief, bn, "zeroes");
    } else if (state == SECTOR_BAD_MAGIC) {
        snprintf(out, n, "not our data");
        snprintf(brief, bn, "not ours");
    } else if (st.run_id != run_id) {
        snprintf(out, n, "block %llu generation %u of another run (%016llx)",
                 (unsigned long long)st.block, st.gen, (unsigned long long)st.run_id);
        snprintf(brief, bn, "other run");
    } else {
        bool bad = state == SECTOR_BAD_CRC;
        snprintf(out, n, "block %llu generation %u written at %.3f s%s",
                 (unsigned long long)st.block, st.gen, (double)st.written_ns / 1e9,
                 bad ? ", its checksum bad" : "");
        if (bad)
            snprintf(brief, bn, "bad crc");
        else
            snprintf(brief, bn, "gen %u", st.gen);
    }
}

static void hex(const unsigned char *v, int len, char *out, size_t n)
{
    size_t used = (size_t)snprintf(out, n, "0x");
    for (int i = 0; i < len && used + 3 < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%02x", v[i]);
}

/* One replica's lines; brief: what its sector holds, for the summary. */
static void replica_lines(FILE *out, const char *name, const char *file, const struct look *l,
                          uint64_t run_id, char *brief, size_t bn)
{
    if (l->err && !l->st.st_size) {
        fprintf(out, "  %-6s %s: %s failed: %s\n", name, file, l->failed, strerror(l->err));
        snprintf(brief, bn, "%s", l->err == ENOENT ? "no file" : "error");
        return;
    }
    char mtime[40], sector[160];
    struct tm tm;
    time_t sec = l->st.st_mtim.tv_sec;
    localtime_r(&sec, &tm);
    strftime(mtime, sizeof mtime, "%H:%M:%S", &tm);
    describe_sector(l->sector, l->got, run_id, sector, sizeof sector, brief, bn);
    fprintf(out, "  %-6s %s: %lld bytes, modified %s.%06ld; the sector: %s\n", name, file,
            (long long)l->st.st_size, mtime, l->st.st_mtim.tv_nsec / 1000, sector);
    for (unsigned i = 0; i < l->nx; i++) {
        char v[2 * sizeof l->x[0].value + 8];
        if (l->x[i].len == -ERANGE)
            snprintf(v, sizeof v, "(%zd bytes, not shown)", l->x[i].size);
        else if (l->x[i].len < 0)
            snprintf(v, sizeof v, "(unreadable: %s)", strerror(-l->x[i].len));
        else
            hex(l->x[i].value, l->x[i].len, v, sizeof v);
        fprintf(out, "         %s %s\n", l->x[i].name, v);
    }
}

/* The sector read again through the client's mount, by an open of its own. */
static void client_look(const char *path, uint64_t off, uint64_t run_id, char *out, size_t n,
                        char *brief, size_t bn)
{
    unsigned char sector[FL_SECTOR];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(out, n, "cannot open it: %s", strerror(errno));
        snprintf(brief, bn, "error");
        return;
    }
    ssize_t got = pread(fd, sector, sizeof sector, (off_t)off);
    int e = errno;
    close(fd);
    describe_sector(sector, got < 0 ? -e : (int)got, run_id, out, n, brief, bn);
}

void evidence_take(struct evidence *e, const struct finding *f, unsigned long long t_ns)
{
    if (f->block == FL_NO_BLOCK || f->cls == CLS_IO_ERROR || e->taken >= EVIDENCE_MAX ||
        !e->lab || !e->lab->replica)
        return;
    e->taken++;
    char path[PATH_MAX];
    uint64_t off = 0;
    e->backend->where(e->target, f->block, f->offset, f->path, path, sizeof path, &off);
    FILE *out = fopen(e->path, "a");
    if (!out) {
        fprintf(stderr, "faultline: cannot open %s: %s; no evidence of this finding\n", e->path,
                strerror(errno));
        return;
    }
    char found[48] = "nothing of ours";
    if (f->found_known)
        snprintf(found, sizeof found, "generation %u", f->found_gen);
    fprintf(out, "%s of block %llu in %s at byte %llu, read at %.3f s (phase %s): the read "
                 "returned %s, expected generation %u; looked at %.3f s\n",
            class_name(f->cls), (unsigned long long)f->block, path, (unsigned long long)off,
            (double)f->read_ns / 1e9, f->phase, found, f->expected_gen, (double)t_ns / 1e9);
    char summary[400];
    size_t used = (size_t)snprintf(summary, sizeof summary, "%s of block %llu: ",
                                   class_name(f->cls), (unsigned long long)f->block);
    struct look look; /* filled by a child that shares our memory */
    struct look *l = &look;
    for (unsigned i = 0; i < e->nreplicas; i++) {
        struct lab_replica r;
        char err[512], brief[24] = "-";
        size_t mlen = 0;
        if (e->lab->replica(e->lab->ctx, e->replicas[i], &r, err, sizeof err) != 0) {
            fprintf(out, "  %-6s cannot look: %s\n", e->replicas[i], err);
        } else if (!r.copy[0]) {
            fprintf(out, "  %-6s keeps objects in a store, not files: not looked at\n",
                    e->replicas[i]);
        } else if (strncmp(path, r.mount, mlen = strlen(r.mount)) != 0 || path[mlen] != '/') {
            fprintf(out, "  %-6s %s is not under the volume's mount %s\n", e->replicas[i], path,
                    r.mount);
        } else {
            char file[PATH_MAX + 64];
            snprintf(file, sizeof file, "%s%s", r.copy, path + mlen);
            memset(l, 0, sizeof *l);
            struct look_arg a = {.file = file, .offset = off, .l = l};
            if (proc_call_at_shared(&r.at, look_at, &a, err, sizeof err) != 0)
                fprintf(out, "  %-6s cannot look at %s: %s\n", e->replicas[i], file, err);
            else
                replica_lines(out, e->replicas[i], file, l, e->run_id, brief, sizeof brief);
        }
        if (used < sizeof summary)
            used += (size_t)snprintf(summary + used, sizeof summary - used, "%s %s, ",
                                     e->replicas[i], brief);
    }
    char client[160], brief[24];
    client_look(path, off, e->run_id, client, sizeof client, brief, sizeof brief);
    fprintf(out, "  client %s read again (an open of its own): %s\n\n", path, client);
    fclose(out);
    if (used < sizeof summary)
        snprintf(summary + used, sizeof summary - used, "client %s; see evidence.txt", brief);
    events_emit(e->events, 0, "evidence", NULL, summary);
}
