/*
 * fuzz — what the libFuzzer targets of tests/fuzz/ share.
 *
 * Each target (fuzz_T.c) hands its input to the real reader of one file or
 * message that faultline reads back (make fuzz, tests/fuzz/run.sh).  A
 * reader that takes a run directory gets a private one, made once per
 * process and removed at its exit; the target writes its files there on
 * every input and removes them again, so that nothing piles up over
 * millions of runs.
 *
 * Inputs of several files are cut at FZ_SEP: "state.bin FZ_SEP journal.bin
 * FZ_SEP journal.old"; a part that is not there is a file that is not.
 */
#ifndef FL_FUZZ_H
#define FL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#define FZ_SEP "\n--faultline-fuzz-file--\n"

/* The process's own directory (mkdtemp under TMPDIR), made on first use. */
const char *fz_dir(void);

/* Writes dir/name with data (0), or aborts: the target cannot run. */
void fz_write(const char *dir, const char *name, const void *data, size_t len);

/* Removes dir/name (gone already is fine). */
void fz_unlink(const char *dir, const char *name);

/* Cuts data at FZ_SEP into at most max parts; the number of parts. */
size_t fz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, size_t max);

/* A NUL-terminated copy of data (malloc'd; aborts when memory is short). */
char *fz_text(const uint8_t *data, size_t size);

#endif
