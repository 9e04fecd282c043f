/* suite_file — one file of a suite's reports written whole or not at all
 * (see suite.h), as every report file is (report_files.h): rendered into a
 * temporary name, renamed into place once complete, and the temporary
 * file removed when anything failed, so that no half-written report is
 * left beside the old one. */
#include "suite.h"

#include <limits.h>
#include <unistd.h>

#include "report_files.h"

int suite_write_file(const struct suite *s, const char *dir, const char *name,
                     void (*render)(FILE *f, const struct suite *s), char *err, size_t errlen)
{
    char tmp[PATH_MAX + 64];
    FILE *f = report_open_tmp(dir, name, tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    render(f, s);
    if (report_install(f, tmp, dir, name, err, errlen) != 0) {
        unlink(tmp); /* a half-written file is no report: the old one stays */
        return -1;
    }
    return 0;
}
