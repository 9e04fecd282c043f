/*
 * buildinfo — which build of faultline this is, for `faultline --version`
 * and the manifest of every report: `git describe --always --dirty` of the
 * checkout it was built from (the Makefile passes it as FL_VERSION; a build
 * outside a git checkout says the release number instead), the compiler
 * and the flags it was built with (FL_CC, FL_CFLAGS).  Only buildinfo.o is
 * rebuilt when these change (the Makefile's build/buildinfo.txt).
 */
#ifndef FL_BUILDINFO_H
#define FL_BUILDINFO_H

/* "5f90a67-dirty", "v0.2-3-g1234567", or the release ("0.1.0"). */
const char *build_version(void);

/* The compiler's first line of --version ("cc (Debian 12.2.0-14) 12.2.0"),
 * or "unknown". */
const char *build_cc(void);

/* CFLAGS and the build's own flags ("-O2 -g -fsanitize=address,..."). */
const char *build_cflags(void);

/* "address,undefined" (what -fsanitize= names), or "off". */
const char *build_sanitizers(void);

#endif
