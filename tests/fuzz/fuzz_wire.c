/*
 * fuzz_wire — a client's result (client-R/result.bin, and the message rank
 * 0 receives over MPI), as client_result_decode reads it with lib/wire.c:
 * a short or damaged message must be refused, never read past its end.
 */
#include <stdint.h>
#include <stdio.h>

#include "../../harness/clients/client_result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct client_result r;
    char err[1024] = "";
    if (client_result_decode(&r, data, size, err, sizeof err) != 0 && !err[0]) {
        fprintf(stderr, "client_result_decode refused without saying why\n");
        __builtin_trap();
    }
    client_result_free(&r);
    return 0;
}
