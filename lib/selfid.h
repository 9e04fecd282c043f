/*
 * selfid — which build of faultline this is.
 *
 * The build id is a checksum of the running executable's bytes and its
 * size, so two copies have the same id exactly when they are the same
 * build.  The controller compares it with the copy on an ssh host before it
 * starts the agent there, and copies itself over when they differ (or the
 * copy does not run).
 */
#ifndef FL_SELFID_H
#define FL_SELFID_H

#include <stddef.h>
#include <stdint.h>

/* "crc32c-size" of /proc/self/exe, computed once; "unknown" when it
 * cannot be read. */
const char *self_build_id(void);

/* The executable's own bytes (malloc'd) and size.  NULL with err. */
unsigned char *self_image(size_t *size, char *err, size_t errlen);

/* The machine this build runs on, as `uname -m` says it. */
const char *self_machine(void);

#endif
