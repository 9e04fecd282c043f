/*
 * fuzz_metajournal — a metadata stream's journal (DIR/meta-0.journal) and
 * model (DIR/meta-0.model), as `faultline verify` reads them after a crash:
 * meta_recover (jlog_read of the journal, the model rebuilt from its
 * records, or meta_load of the model when the journal says the run closed
 * it), then, when it is taken, meta_check_all against an empty tree.  The
 * input is "meta-0.journal FZ_SEP meta-0.model"; a part that is not there
 * is a file that is not.  The run id verify passes is the journal's own
 * (bytes 16..23 of its header, when there are that many), so that the
 * records are read, not refused as another run's.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../workloads/meta.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {"meta-0.journal", "meta-0.model"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct meta_stream s;
    const char *dir = fz_dir();
    char root[4200];
    snprintf(root, sizeof root, "%s/meta-0", dir);
    mkdir(root, 0755); /* the stream's directory, empty */
    const uint8_t *part[2];
    size_t len[2];
    size_t n = fz_split(data, size, part, len, 2);
    for (size_t i = 0; i < 2; i++) {
        if (i < n)
            fz_write(dir, files[i], part[i], len[i]);
        else
            fz_unlink(dir, files[i]);
    }
    uint64_t run_id = 0;
    if (n > 0 && len[0] >= 24)
        memcpy(&run_id, part[0] + 16, sizeof run_id);
    meta_init(&s, dir, 0, 1, 16, true);
    if (meta_recover(&s, dir, run_id) == 0)
        meta_check_all(&s, "verify", 1000000000ull);
    else if (!s.err[0]) {
        fprintf(stderr, "meta_recover refused without saying why\n");
        __builtin_trap();
    }
    meta_free(&s);
    return 0;
}
