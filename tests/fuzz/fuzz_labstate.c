/*
 * fuzz_labstate — a lab's state file (LAB_STATE_DIR/P-KIND.state), as
 * `faultline lab status|down` and a run with a lab read it: lab_load_file,
 * for the lab kind the input's first byte picks; the rest is the file.
 * Only the reader runs: nothing of the lab is touched.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../harness/lab/lab.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct lab_kind *const *kinds;
    unsigned nkinds = lab_kinds_all(&kinds);
    const struct lab_kind *k = kinds[data[0] % nkinds];
    const char *dir = fz_dir();
    fz_write(dir, "lab.state", data + 1, size - 1);
    char path[4200], err[2048] = "";
    snprintf(path, sizeof path, "%s/lab.state", dir);
    static struct lab lab;
    if (lab_load_file(k, "flfz", path, &lab, err, sizeof err) != 0 && !err[0]) {
        fprintf(stderr, "lab_load_file refused without saying why\n");
        __builtin_trap();
    }
    fz_unlink(dir, "lab.state");
    return 0;
}
