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
#include <stdio.h>

/* mkdir -p: every missing directory of path, mode 0755. */
int mkdir_p(const char *path, char *err, size_t errlen);

/* Copies a file's bytes (the scenario into its run directory). */
int copy_file(const char *from, const char *to, char *err, size_t errlen);

/* Files are opened for writing without following a symbolic link at the
 * end of their path (O_NOFOLLOW): a link planted where we write is an
 * error, never a way to make us write somewhere else. */

/* Opens path for writing, with mode when it is created: when fresh, it
 * must not exist yet (O_EXCL: anything there, a link too, is refused),
 * else it is created or emptied.  A stream, or NULL with err. */
FILE *file_create(const char *path, unsigned mode, bool fresh, char *err, size_t errlen);

/* Creates (or replaces the content of) path with text, mode 0644. */
int write_text(const char *path, const char *text, char *err, size_t errlen);

/* Creates (or truncates) path as a sparse file of size bytes; when
 * fresh, path must not exist yet (a disk image made for a lab). */
int sparse_file(const char *path, uint64_t size, unsigned mode, bool fresh, char *err,
                size_t errlen);

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

/* Makes dir, an absolute path, with every missing level (mode `mode`;
 * with mode 0 nothing is made and a missing level is an error), and checks
 * every level from "/" down as it goes, without following any link: each
 * must be a directory owned by root (or by our effective user) and not
 * writable by group or others.  Where faultline keeps, as root, what it
 * later runs or trusts (the labs' files, the run registry): nobody else may
 * put, replace or rename anything there.  0, or -1 with err naming the
 * level, its owner and mode, and the fix. */
int root_only_dir(const char *dir, unsigned mode, char *err, size_t errlen);

/* Whether the file open on fd (named path, for messages) may be acted on:
 * a regular file owned by root or our effective user, not writable by
 * group or others (an undo log whose commands are run).  0, or -1 with
 * err naming its owner and mode. */
int trusted_file(int fd, const char *path, char *err, size_t errlen);

/* Writes all len bytes of buf to fd (a file, pipe or socket), going on
 * after a short write or an interrupted one.  0, or -1 (errno; EIO when a
 * write took nothing). */
int write_full(int fd, const void *buf, size_t len);

/* fsyncs the directory dir (what a rename or a creation in it changed).
 * 0, or -1 (errno). */
int sync_dir(const char *dir);

/* Whether a and b name the same file or device (device and inode); false
 * when either is NULL or cannot be stat'ed. */
bool same_file(const char *a, const char *b);

#endif
