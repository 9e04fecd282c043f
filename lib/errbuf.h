/*
 * errbuf — how big an error message may be.
 *
 * Every function that can fail fills a caller's `char *err, size_t errlen`
 * with what failed and why.  A message may name two paths and a reason, so
 * callers that keep one size it with FL_ERRLEN.
 */
#ifndef FL_ERRBUF_H
#define FL_ERRBUF_H

#include <limits.h>

#define FL_ERRLEN (2 * PATH_MAX + 512)

#endif
