/*
 * fsutil — the few file-system chores several modules share.
 * Those that can fail return 0, or -1 with err naming the path and the
 * reason.
 */
#ifndef FL_FSUTIL_H
#define FL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* mkdir -p: every missing directory of path, mode 0755. */
int mkdir_p(const char *path, char *err, size_t errlen);

/* Copies a file's bytes (the scenario into its run directory). */
int copy_file(const char *from, const char *to, char *err, size_t errlen);

/* Creates (or replaces the content of) path with text, mode 0644. */
int write_text(const char *path, const char *text, char *err, size_t errlen);

/* Creates (or truncates) path as a sparse file of size bytes. */
int sparse_file(const char *path, uint64_t size, unsigned mode, char *err, size_t errlen);

/* Creates path holding bytes of allocated (not sparse) space: room kept
 * back on a file system that may fill up, given back by removing it. */
int reserve_file(const char *path, uint64_t bytes, char *err, size_t errlen);

/* Whether dir may hold what we run and replay (the agent's home on an ssh
 * host): an absolute path with no symbolic link in it, a directory owned
 * by our effective user and not writable by group or others; and every
 * directory above it owned by root or us and not writable by group or
 * others, unless it is root's and sticky (/tmp), so that nobody else can
 * rename it away and put another in its place.  0, or -1 with err naming
 * the path, its owner and its mode, and what to do about it. */
int private_dir(const char *dir, char *err, size_t errlen);

/* Whether the file open on fd (named path, for messages) may be acted on:
 * a regular file owned by root or our effective user, not writable by
 * group or others (an undo log whose commands are run).  0, or -1 with
 * err naming its owner and mode. */
int trusted_file(int fd, const char *path, char *err, size_t errlen);

/* Whether a and b name the same file or device (device and inode); false
 * when either is NULL or cannot be stat'ed. */
bool same_file(const char *a, const char *b);

#endif
