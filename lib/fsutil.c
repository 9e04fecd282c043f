/* fsutil — see fsutil.h. */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mkdir_p(const char *path, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1;; p++) {
        if (*p && *p != '/')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
            return -1;
        }
        if (!c)
            return 0;
        *p = c;
    }
}

int copy_file(const char *from, const char *to, char *err, size_t errlen)
{
    FILE *in = fopen(from, "rb");
    if (!in) {
        snprintf(err, errlen, "cannot read %s: %s", from, strerror(errno));
        return -1;
    }
    int ofd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *out = ofd >= 0 ? fdopen(ofd, "wb") : NULL;
    if (!out) {
        if (ofd >= 0)
            close(ofd);
        snprintf(err, errlen, "cannot write %s: %s", to, strerror(errno));
        fclose(in);
        return -1;
    }
    char buf[8192];
    size_t r;
    int bad = 0;
    while ((r = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, r, out) != r)
            bad = 1;
    bad |= ferror(in) || ferror(out);
    fclose(in);
    if ((fclose(out) != 0) | bad) {
        snprintf(err, errlen, "cannot copy %s to %s: %s", from, to, strerror(errno));
        return -1;
    }
    return 0;
}

bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int write_text(const char *path, const char *text, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    size_t len = strlen(text);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

FILE *file_create(const char *path, unsigned mode, bool fresh, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (fresh ? O_EXCL : O_TRUNC),
                  (mode_t)mode);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "cannot create %s: %s%s", path, strerror(e),
                 e == ELOOP    ? " (a symbolic link is there: refused)"
                 : e == EEXIST ? " (it must be new)"
                               : "");
        if (fd >= 0)
            close(fd);
    }
    return f;
}

int sparse_file(const char *path, uint64_t size, unsigned mode, bool fresh, char *err,
                size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (fresh ? O_EXCL : O_TRUNC),
                  (mode_t)mode);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

int reserve_file(const char *path, uint64_t bytes, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    /* glibc writes the blocks itself where the file system cannot allocate */
    int rc = posix_fallocate(fd, 0, (off_t)bytes);
    if (rc == 0 && fsync(fd) != 0)
        rc = errno;
    close(fd);
    if (rc != 0) {
        snprintf(err, errlen, "cannot reserve %llu bytes in %s: %s", (unsigned long long)bytes,
                 path, strerror(rc));
        unlink(path);
        return -1;
    }
    return 0;
}

/* A user's name for messages ("uid N" when it has none). */
static void user_name(uid_t uid, char *out, size_t n)
{
    struct passwd pw, *found = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
        snprintf(out, n, "%s", found->pw_name);
    else
        snprintf(out, n, "uid %u", (unsigned)uid);
}

/* "owned by NAME (uid N) with mode M", for messages. */
static void owner_of(const struct stat *st, char *out, size_t n)
{
    char name[64];
    user_name(st->st_uid, name, sizeof name);
    snprintf(out, n, "owned by %s (uid %u) with mode %o", name, (unsigned)st->st_uid,
             (unsigned)(st->st_mode & 07777));
}

/* The directory itself: ours alone. */
static int own_dir(const char *dir, uid_t me, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        snprintf(err, errlen, "cannot look at %s: %s", dir, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        char to[PATH_MAX] = "?";
        ssize_t len = readlink(dir, to, sizeof to - 1);
        to[len > 0 ? len : 1] = '\0';
        snprintf(err, errlen, "%s is a symbolic link (to %s), and nothing is run through a "
                 "link; remove it (rm %s)", dir, to, dir);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a directory", dir);
        return -1;
    }
    if (st.st_uid != me || (st.st_mode & 022)) {
        char who[160], name[64];
        owner_of(&st, who, sizeof who);
        user_name(me, name, sizeof name);
        snprintf(err, errlen, "%s is %s: it must be owned by %s (uid %u) and not writable by "
                 "group or others; give it to that user alone (chown, chmod go-w) if nobody "
                 "else has put anything in it, or name a new directory, which is created with "
                 "mode 700", dir, who, name, (unsigned)me);
        return -1;
    }
    return 0;
}

/* Each directory above the real path `real`: nobody else can replace it. */
static int safe_parents(const char *dir, const char *real, uid_t me, char *err, size_t errlen)
{
    char up[PATH_MAX];
    snprintf(up, sizeof up, "%s", real);
    for (char *slash = strrchr(up, '/'); slash; slash = strrchr(up, '/')) {
        if (slash == up)
            slash[1] = '\0'; /* "/" itself, last */
        else
            *slash = '\0';
        struct stat st;
        if (lstat(up, &st) != 0) {
            snprintf(err, errlen, "cannot look at %s: %s", up, strerror(errno));
            return -1;
        }
        bool owner_ok = st.st_uid == 0 || st.st_uid == me;
        bool sticky_root = st.st_uid == 0 && (st.st_mode & S_ISVTX);
        if (!owner_ok || ((st.st_mode & 022) && !sticky_root)) {
            char who[160], name[64];
            owner_of(&st, who, sizeof who);
            user_name(me, name, sizeof name);
            snprintf(err, errlen, "%s is under %s, %s: another user could rename it away and "
                     "put another in its place; use a directory whose every parent is owned "
                     "by root%s%s and not writable by group or others (or sticky and owned by "
                     "root, like /tmp)", dir, up, who, me ? " or " : "", me ? name : "");
            return -1;
        }
        if (slash == up)
            break;
    }
    return 0;
}

/* Whether path, absolute, is its own real path (trailing slashes and
 * doubled ones aside): no link on the way, which its owner could turn
 * elsewhere once the check is done. */
static bool is_real_path(const char *path, const char *real)
{
    while (*path && *real) {
        if (*path == '/' && path[1] == '/') {
            path++;
            continue;
        }
        if (*path++ != *real++)
            return false;
    }
    while (*path == '/')
        path++;
    return !*path && !*real;
}

int private_dir(const char *dir, char *err, size_t errlen)
{
    uid_t me = geteuid();
    if (own_dir(dir, me, err, errlen) != 0)
        return -1;
    char *real = realpath(dir, NULL);
    if (!real) {
        snprintf(err, errlen, "cannot resolve %s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    if (dir[0] != '/' || !is_real_path(dir, real)) {
        snprintf(err, errlen, "%s is not a real path (it is %s): a symbolic link on the way "
                 "could be turned elsewhere after the check; give the real path", dir, real);
        rc = -1;
    }
    if (rc == 0)
        rc = safe_parents(dir, real, me, err, errlen);
    free(real);
    return rc;
}

int trusted_file(int fd, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot look at %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "refusing %s: it is not a regular file", path);
        return -1;
    }
    uid_t me = geteuid();
    if ((st.st_uid != me && st.st_uid != 0) || (st.st_mode & 022)) {
        char who[160], name[64];
        owner_of(&st, who, sizeof who);
        user_name(me, name, sizeof name);
        snprintf(err, errlen, "refusing %s: it is %s, so what it says may not be ours; only a "
                 "file owned by root%s%s and not writable by group or others is used", path,
                 who, me ? " or " : "", me ? name : "");
        return -1;
    }
    return 0;
}

/* One level of a root-only path, open on fd: a directory owned by root or
 * me, not writable by group or others. */
static int root_only_level(int fd, const char *level, uid_t me, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot look at %s: %s", level, strerror(errno));
        return -1;
    }
    if ((st.st_uid == 0 || st.st_uid == me) && !(st.st_mode & 022))
        return 0;
    char who[160], name[64];
    owner_of(&st, who, sizeof who);
    user_name(me, name, sizeof name);
    snprintf(err, errlen, "%s is %s: faultline keeps files it runs and trusts as root under it, "
             "so it must be owned by root%s%s and not writable by group or others; if nothing "
             "in it is another user's, give it to root alone (chown root:root %s; chmod go-w "
             "%s), else move it aside (mv %s %s.aside)", level, who, me ? " or " : "",
             me ? name : "", level, level, level, level);
    return -1;
}

/* The next level `name` below the directory open on at (path `level`):
 * opened without following a link, made with mode when missing and mode
 * is not 0.  Its descriptor, or -1 with err. */
static int root_only_next(int at, const char *name, const char *level, unsigned mode, char *err,
                          size_t errlen)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && mode) {
        if (mkdirat(at, name, (mode_t)mode) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", level, strerror(errno));
            return -1;
        }
        fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        /* the mode asked for, whatever the umask took from it */
        if (fd >= 0 && fchmod(fd, (mode_t)mode) != 0) {
            snprintf(err, errlen, "cannot set the mode of %s: %s", level, strerror(errno));
            close(fd);
            return -1;
        }
    }
    if (fd >= 0)
        return fd;
    int e = errno;
    struct stat st;
    if ((e == ELOOP || e == ENOTDIR) && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
        char to[PATH_MAX] = "?";
        ssize_t len = readlinkat(at, name, to, sizeof to - 1);
        to[len > 0 ? len : 1] = '\0';
        snprintf(err, errlen, "%s is a symbolic link (to %s): faultline keeps files it runs and "
                 "trusts as root only under real directories; remove the link (rm %s)", level,
                 to, level);
    } else if (e == ENOTDIR) {
        snprintf(err, errlen, "%s is not a directory; move it aside (mv %s %s.aside)", level,
                 level, level);
    } else {
        snprintf(err, errlen, "cannot open %s: %s", level, strerror(e));
    }
    return -1;
}

int root_only_dir(const char *dir, unsigned mode, char *err, size_t errlen)
{
    if (dir[0] != '/' || strlen(dir) >= PATH_MAX) {
        snprintf(err, errlen, "%.200s: not an absolute path", dir);
        return -1;
    }
    uid_t me = geteuid();
    char level[PATH_MAX] = "/";
    int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open /: %s", strerror(errno));
        return -1;
    }
    int rc = root_only_level(fd, level, me, err, errlen);
    for (const char *p = dir; rc == 0;) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (!len)
            break;
        char name[NAME_MAX + 1];
        if (len > NAME_MAX || (len == 1 && p[0] == '.') || (len == 2 && !strncmp(p, "..", 2))) {
            snprintf(err, errlen, "%.200s: not a plain path (a name is \".\", \"..\" or too "
                     "long)", dir);
            rc = -1;
            break;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        size_t used = strlen(level);
        snprintf(level + used, sizeof level - used, "%s%s", used > 1 ? "/" : "", name);
        int next = root_only_next(fd, name, level, mode, err, errlen);
        close(fd);
        fd = next;
        rc = fd < 0 ? -1 : root_only_level(fd, level, me, err, errlen);
        p += len;
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

int write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) { /* 0: nothing more will go (a pipe whose reader is gone) */
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}
