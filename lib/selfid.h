/*
 * selfid — which build of faultline this is.
 *
 * The build id is the SHA-256 of the running executable's bytes, in hex,
 * so two copies have the same id exactly when they are the same build, and
 * nobody can make another file that has ours (a crc32c and a size, as it
 * was, anyone can match).  The controller compares it with the copy on an
 * ssh host (the host's own sha256sum, before anything there runs; a host
 * without one asks the copy, once spawn.c's checks say only its user can
 * have put it there) and copies itself over when they differ; the agent's
 * hello says it again.
 */
#ifndef FL_SELFID_H
#define FL_SELFID_H

#include <stddef.h>
#include <stdint.h>

#define SELF_BUILD_ID_LEN 64 /* hex digits of the SHA-256 */

/* The SHA-256 of /proc/self/exe in lower-case hex (what `sha256sum`
 * prints), computed once; "unknown" when it cannot be read. */
const char *self_build_id(void);

/* The executable's own bytes (malloc'd) and size.  NULL with err. */
unsigned char *self_image(size_t *size, char *err, size_t errlen);

/* The machine this build runs on, as `uname -m` says it. */
const char *self_machine(void);

#endif
