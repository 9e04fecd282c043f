/*
 * fsutil — the few file-system chores several verbs share.
 * Both return 0, or -1 with err naming the path and the reason.
 */
#ifndef FL_FSUTIL_H
#define FL_FSUTIL_H

#include <stddef.h>

/* mkdir -p: every missing directory of path, mode 0755. */
int mkdir_p(const char *path, char *err, size_t errlen);

/* Copies a file's bytes (the scenario into its run directory). */
int copy_file(const char *from, const char *to, char *err, size_t errlen);

#endif
