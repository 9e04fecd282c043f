/* fsutil — see fsutil.h. */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
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
    FILE *out = fopen(to, "wb");
    if (!out) {
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
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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

int sparse_file(const char *path, uint64_t size, unsigned mode, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
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
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
