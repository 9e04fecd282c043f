/* lab_gluster_logs — the gluster servers' logs, read where the lab keeps
 * them (each server's /var/log/glusterfs is its HOME/log); see
 * lab_gluster.h. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "lab_gluster.h"

#define NSERVERS 3

/* Every line of one file, to fn with the server's name. */
static void each_line(const char *path, const char *server, storage_line_fn fn, void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[2048];
    while (fgets(line, sizeof line, f))
        fn(ctx, server, line);
    fclose(f);
}

void gluster_logs(const struct lab *lab, const char *which, storage_line_fn fn, void *ctx)
{
    if (strcmp(which, "brick") != 0)
        return;
    for (unsigned i = 1; i <= NSERVERS; i++) {
        const struct lab_host *h = &lab->hosts[i];
        char dir[256];
        snprintf(dir, sizeof dir, "%s/log/bricks", h->home);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        for (struct dirent *e; (e = readdir(d));) {
            size_t n = strlen(e->d_name);
            char path[512];
            if (n < 5 || strcmp(e->d_name + n - 4, ".log") != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            each_line(path, h->name, fn, ctx);
        }
        closedir(d);
    }
}
