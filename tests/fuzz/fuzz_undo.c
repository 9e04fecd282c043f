/*
 * fuzz_undo — a run's undo.log, as `faultline cleanup` and the agent read it
 * after a killed run: undo_replay_with with undo_check in place of the
 * primitives (a fuzzed log must not set links up or run commands here).
 * The replay also appends its "D" records to the file, as the real one does.
 */
#include <stdint.h>
#include <stdio.h>

#include "../../faults/undo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_dir();
    fz_write(dir, "undo.log", data, size);
    unsigned undone = 0;
    char err[4096] = "";
    if (undo_replay_with(dir, undo_check, &undone, err, sizeof err) != 0 && !err[0]) {
        fprintf(stderr, "undo_replay refused without saying why\n");
        __builtin_trap();
    }
    fz_unlink(dir, "undo.log");
    return 0;
}
