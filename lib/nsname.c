/* nsname — see nsname.h. */
#include "nsname.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

void netns_path(const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", NETNS_DIR, name);
}

bool netns_exists(const char *name)
{
    char path[256];
    struct statfs fs;
    netns_path(name, path, sizeof path);
    return statfs(path, &fs) == 0 && (unsigned long)fs.f_type == NSFS_MAGIC;
}

int netns_fd(const char *name, char *err, size_t errlen)
{
    char path[256];
    netns_path(name, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        snprintf(err, errlen, "cannot open network namespace %s: %s", name, strerror(errno));
    return fd;
}
