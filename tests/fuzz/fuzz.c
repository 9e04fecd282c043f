/* fuzz — see fuzz.h. */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[PATH_MAX];

/* Everything a target left in its directory, then the directory itself. */
static void remove_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0 && errno == EISDIR)
            rmdir(p); /* the targets make directories one level deep at most */
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

const char *fz_dir(void)
{
    if (dir[0])
        return dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/fl-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "fuzz: cannot make a directory %s: %s\n", dir, strerror(errno));
        abort();
    }
    atexit(remove_dir);
    return dir;
}

void fz_write(const char *d, const char *name, const void *data, size_t len)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", d, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len) || close(fd) != 0) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", p, strerror(errno));
        abort();
    }
}

void fz_unlink(const char *d, const char *name)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", d, name);
    unlink(p);
}

size_t fz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, size_t max)
{
    const size_t seplen = sizeof FZ_SEP - 1;
    size_t n = 0;
    while (n < max) {
        const uint8_t *at = size >= seplen ? memmem(data, size, FZ_SEP, seplen) : NULL;
        part[n] = data;
        if (!at || n + 1 == max) {
            len[n++] = size;
            break;
        }
        len[n++] = (size_t)(at - data);
        size -= (size_t)(at - data) + seplen;
        data = at + seplen;
    }
    return n;
}

char *fz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}
