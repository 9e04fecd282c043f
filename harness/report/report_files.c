/* report_files — what every writer of a report file shares, live run or
 * record alike: files written under a temporary name and renamed into
 * place, text escaped for XML and HTML, the verdict's word for people. */
#include "report_files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

const char *report_verdict_caps(const char *verdict)
{
    return strcmp(verdict, "pass") == 0          ? "PASS"
           : strcmp(verdict, "fail") == 0        ? "FAIL"
           : strcmp(verdict, "interrupted") == 0 ? "INTERRUPTED"
                                                 : "ERROR";
}

void report_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            /* XML 1.0 has no place for most control characters. */
            fputc(c < 0x20 && c != '\n' && c != '\t' ? '?' : c, f);
        }
    }
}

int report_install(FILE *f, const char *tmp, const char *dir, const char *name, char *err,
                   size_t errlen)
{
    char fin[PATH_MAX + 64];
    snprintf(fin, sizeof fin, "%s/%s", dir, name);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    if (rename(tmp, fin) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, fin, strerror(errno));
        return -1;
    }
    return 0;
}

FILE *report_open_tmp(const char *dir, const char *name, char *tmp, size_t n, char *err,
                      size_t errlen)
{
    snprintf(tmp, n, "%s/.%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
    return f;
}
