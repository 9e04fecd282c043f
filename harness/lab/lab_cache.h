/* lab_cache — a server's volatile write cache (lab_cache.c): a
 * faultline-wcache process (wcache/wcache.c), a FUSE file LAB/cache-X/lun
 * over the shared storage that keeps written data in its memory until the
 * server's fdatasync (SYNCHRONIZE CACHE), as an array controller's or a
 * node's cache does.  X is the last character of the host's name (ctrl-a:
 * a, n1: 1); its files are LAB/cache-X{,.sock,.pid,.log}.  What the kinds
 * with caches share: the iscsi lab's controllers, the ha lab's nodes. */
#ifndef FL_LAB_CACHE_H
#define FL_LAB_CACHE_H

#include "lab.h"

/* LAB/cache-X plus suffix ("", "/lun", ".sock", ".pid", ".log"). */
void lab_cache_path(const struct lab *lab, const struct lab_host *h, const char *suffix,
                    char *out, size_t n);

/* Starts h's cache over `backing` (empty, as after a power-up), recording
 * its mount and process first; with peer, each unflushed write is copied
 * into peer's cache before it is acknowledged (mirrored); flush_ignore: it
 * acknowledges SYNCHRONIZE CACHE without writing (a cache that lies).
 * Waits (10 s at most) until it serves its file.  0, or -1 with err. */
int lab_cache_start(const struct lab *lab, const struct lab_host *h, const char *backing,
                    const struct lab_host *peer, bool flush_ignore, int fd, char *err,
                    size_t errlen);

/* The cache of h as its pid file says; 0 when none runs. */
pid_t lab_cache_pid(const struct lab *lab, const struct lab_host *h, uint64_t *start);

/* How many pages h's cache holds that are not on the storage (asked on
 * its socket, answered once any flush under way is done).  -1: no answer. */
long lab_cache_dirty(const struct lab *lab, const struct lab_host *h);

/* Kills h's cache (what it held unflushed is gone) and detaches its dead
 * mount.  0, or -1 with err. */
int lab_cache_stop(const struct lab *lab, const struct lab_host *h, char *err, size_t errlen);

#endif
