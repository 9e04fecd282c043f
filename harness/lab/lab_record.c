/* lab_record — the state file of a lab: a write-ahead list of what was
 * created, read back by load and down, and the lock that makes ups and
 * downs of one lab take turns.  See lab_record.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/fsutil.h"
#include "lab_kind.h"
#include "lab_names.h"
#include "lab_record.h"

void lab_state_path(const struct lab_kind *k, const char *prefix, char *out, size_t n)
{
    snprintf(out, n, "%s/%s-%s.state", LAB_STATE_DIR, prefix, k->name);
}

/* --- the state file: a write-ahead list of what was created --- */

int lab_rec(int fd, char *err, size_t errlen, const char *fmt, ...)
{
    char line[PATH_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof line - 1) {
        snprintf(err, errlen, "a lab state record is too long");
        return -1;
    }
    line[len++] = '\n';
    /* Synced before the thing it names exists, so a crash never leaves
     * something that `lab down` does not know about. */
    if (write(fd, line, (size_t)len) != len || fdatasync(fd) != 0) {
        snprintf(err, errlen, "cannot write the lab state: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* One line "KEY ARGS" of the state file. */
static void parse_record(char *line, struct record *r)
{
    memset(r, 0, sizeof *r);
    line[strcspn(line, "\n")] = '\0';
    char *sp = strchr(line, ' ');
    if (sp)
        *sp = '\0';
    snprintf(r->key, sizeof r->key, "%.15s", line);
    if (!sp)
        return;
    char *arg = sp + 1;
    snprintf(r->a, sizeof r->a, "%s", arg);
    r->n1 = strtoull(arg, NULL, 10);
    if (strcmp(r->key, "pid") == 0 || strcmp(r->key, "ctlport") == 0 ||
        strcmp(r->key, "opt") == 0 || strcmp(r->key, "sshd") == 0 ||
        strcmp(r->key, "init") == 0 || strcmp(r->key, "disk") == 0) {
        size_t w = strcspn(arg, " ");
        snprintf(r->b, sizeof r->b, "%.*s", (int)(w < 63 ? w : 63), arg);
        const char *rest = arg[w] ? arg + w + 1 : arg + w;
        snprintf(r->a, sizeof r->a, "%s", rest);
        unsigned long long a = 0, b = 0;
        if (sscanf(rest, "%llu %llu", &a, &b) >= 1) {
            r->n1 = a;
            r->n2 = b;
        }
    }
}

/* A state file is read only when it is root's (or ours) alone: `lab down`
 * removes and kills what it names. */
int lab_records_read(const char *path, struct record **out, size_t *n, char *err,
                        size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot read %s: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: refused)" : "");
        return -1;
    }
    if (trusted_file(fd, path, err, errlen) != 0) {
        close(fd);
        return -1;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    size_t cap = 32;
    *n = 0;
    *out = malloc(cap * sizeof **out);
    char line[PATH_MAX + 128];
    while (*out && fgets(line, sizeof line, f)) {
        if (*n == cap) {
            struct record *r = realloc(*out, cap * 2 * sizeof *r);
            if (!r)
                break;
            *out = r;
            cap *= 2;
        }
        parse_record(line, &(*out)[(*n)++]);
    }
    fclose(f);
    if (!*out) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    return 0;
}

/* The labs' state and data directories, each checked at every level
 * (root_only_dir) and made with mode when missing and mode is not 0. */
int lab_labs_home(unsigned mode, char *err, size_t errlen)
{
    char why[1536];
    if (root_only_dir(LAB_STATE_DIR, mode ? 0755 : 0, why, sizeof why) != 0 ||
        root_only_dir(LAB_DATA_DIR, mode, why, sizeof why) != 0) {
        snprintf(err, errlen, "the labs' home is not root's alone: %s", why);
        return -1;
    }
    return 0;
}

/* --- up and down take turns --- */

/* How long an up or down waits for another one of the same lab: the
 * slowest up (ceph's) takes about 90 s at worst. */
#define LAB_LOCK_WAIT_S 600u

/* Each up and down of a lab holds an exclusive lock (flock) on its state
 * file while it works, so that a down, or a second up, meets the lab whole
 * or gone, never half built: a down while an up is under way would leave
 * that up starting daemons into namespaces a next up makes again (two
 * ceph MDS daemons of one name then throw each other out of the map for
 * ever).  Waits (bounded) for the lock.  The locked descriptor (close it
 * to let go), -1 when the state file is gone (the other one took the lab
 * down), or -2 with err. */
int lab_state_lock(const struct lab_kind *k, const char *prefix, const char *path, char *err,
                      size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return -1;
        snprintf(err, errlen, "cannot open %s: %s%s", path, strerror(errno),
                 errno == ELOOP ? " (a symbolic link: refused)" : "");
        return -2;
    }
    if (trusted_file(fd, path, err, errlen) != 0) {
        close(fd);
        return -2;
    }
    for (unsigned waited_ms = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited_ms += 100) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
            close(fd);
            return -2;
        }
        if (waited_ms == 0)
            fprintf(stderr, "faultline: lab %s (prefix %s): waiting for another faultline "
                    "bringing it up or down\n", k->name, prefix);
        if (waited_ms >= LAB_LOCK_WAIT_S * 1000) {
            snprintf(err, errlen, "lab %s (prefix %s): another faultline has been bringing it "
                     "up or down for %u s (%s stays locked)", k->name, prefix, LAB_LOCK_WAIT_S,
                     path);
            close(fd);
            return -2;
        }
        lab_pause_ms(100);
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_nlink == 0) { /* taken down meanwhile */
        close(fd);
        return -1;
    }
    return fd;
}

/* A new state file at path, locked before any other process can see it
 * (made under a name of our own, locked, then linked into place).  Its
 * descriptor, -1 when one exists already, or -2 with err. */
int lab_state_create(const char *path, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.new-%d", path, (int)getpid()) >= sizeof tmp) {
        snprintf(err, errlen, "%s: the path is too long", path);
        return -2;
    }
    unlink(tmp); /* one a crashed faultline of our PID left (only root writes here) */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return -2;
    }
    int rc = flock(fd, LOCK_EX) != 0 ? -2 : link(tmp, path) != 0 ? (errno == EEXIST ? -1 : -2) : 0;
    if (rc == -2)
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
    unlink(tmp);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}

/* The lab's state file, open for appending what a restart or power-on
 * starts.  The descriptor, or -1 with err. */
int lab_state_append(const struct lab *lab, char *err, size_t errlen)
{
    char path[PATH_MAX];
    lab_state_path(lab->kind, lab->prefix, path, sizeof path);
    int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    else if (trusted_file(fd, path, err, errlen) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}
