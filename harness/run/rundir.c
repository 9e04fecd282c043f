/* rundir — see rundir.h. */
#include "rundir.h"

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/fsutil.h"

int run_dir_make(const char *out, const char *name, char *dir, size_t n, char *err,
                 size_t errlen)
{
    if (out) {
        snprintf(dir, n, "%s", out);
    } else {
        char stamp[32];
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(dir, n, "runs/%s-%s", stamp, name);
        struct stat st;
        for (int i = 2; stat(dir, &st) == 0 && i < 1000; i++)
            snprintf(dir, n, "runs/%s-%s-%d", stamp, name, i);
    }
    if (mkdir_p(dir, err, errlen) != 0)
        return -1;
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/scenario.scn", dir);
    if (access(probe, F_OK) == 0) {
        snprintf(err, errlen, "%s already holds a run; choose another --out", dir);
        return -1;
    }
    return 0;
}
