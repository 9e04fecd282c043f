/*
 * fuzz_meta — a metadata stream's model (DIR/meta-0.model), as `faultline
 * verify` reads it: meta_load, then, when it is taken, meta_check_all of
 * the model against an empty tree (every slot the model holds is looked
 * at) and a meta_save + meta_load round trip that must give the same model.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../workloads/meta.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct meta_stream s, again;
    const char *dir = fz_dir();
    char root[4200];
    snprintf(root, sizeof root, "%s/meta-0", dir);
    mkdir(root, 0755); /* the stream's directory, empty */
    fz_write(dir, "meta-0.model", data, size);
    meta_init(&s, dir, 0, 1, 16, true);
    if (meta_load(&s, dir) == 0) {
        meta_check_all(&s, "verify", 1000000000ull);
        if (meta_save(&s, dir) != 0) {
            fprintf(stderr, "meta_save: %s\n", s.err);
            __builtin_trap();
        }
        meta_init(&again, dir, 0, 1, 16, true);
        if (meta_load(&again, dir) != 0 || memcmp(again.dirs, s.dirs, sizeof s.dirs) != 0 ||
            memcmp(again.files, s.files, sizeof s.files) != 0) {
            fprintf(stderr, "a saved model does not load back the same: %s\n", again.err);
            __builtin_trap();
        }
        meta_free(&again);
    } else if (!s.err[0]) {
        fprintf(stderr, "meta_load refused without saying why\n");
        __builtin_trap();
    }
    meta_free(&s);
    fz_unlink(dir, "meta-0.model");
    return 0;
}
