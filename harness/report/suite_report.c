/* suite_report — see suite_report.h: suite.json read, the three files
 * written. */
#include "suite_report.h"

#include "suite.h"

int suite_report_write(const char *dir, FILE *console, char *err, size_t errlen)
{
    struct suite s;
    if (suite_read(dir, &s, err, errlen) != 0) {
        suite_free(&s);
        return -1;
    }
    /* each file on its own: one that cannot be written does not keep the
     * others from being written; err says the first that failed */
    int (*const writers[])(const struct suite *, const char *, char *, size_t) = {
        suite_write_junit, suite_write_text, suite_write_html};
    int rc = 0;
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
        char why[1024];
        if (writers[i](&s, dir, why, sizeof why) != 0 && rc == 0) {
            snprintf(err, errlen, "%s", why);
            rc = -1;
        }
    }
    if (console) {
        suite_text(console, &s);
        fflush(console);
    }
    suite_free(&s);
    return rc;
}
