/*
 * fuzz_scenario — a scenario file, as `faultline run` and `check` read it:
 * scenario_load (ini_read_file, ini_parse, the key tables of the general
 * sections, every target, lab and fault kind, [expect]).  Refusing is fine;
 * a crash, a leak or undefined behaviour is not.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../harness/scenario/scenario.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct scenario sc; /* large: not on the stack */
    const char *dir = fz_dir();
    fz_write(dir, "fuzz.scn", data, size);
    char path[4200], err[2048] = "";
    snprintf(path, sizeof path, "%s/fuzz.scn", dir);
    if (scenario_load(path, &sc, err, sizeof err) != 0 && !err[0]) {
        fprintf(stderr, "scenario_load refused without saying why\n");
        __builtin_trap();
    }
    fz_unlink(dir, "fuzz.scn");
    return 0;
}
