/* memlimit — see memlimit.h. */
#include "memlimit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

uint64_t memlimit_map_bytes(uint64_t nblocks)
{
    if (nblocks > UINT64_MAX / sizeof(gen_t))
        return UINT64_MAX;
    return nblocks * sizeof(gen_t); /* the durable array: statemap_bytes_at_rest */
}

uint64_t memlimit_default(uint64_t mem_available)
{
    return mem_available / 100 * MEMLIMIT_DEFAULT_PCT +
           mem_available % 100 * MEMLIMIT_DEFAULT_PCT / 100;
}

int memlimit_parse_meminfo(const char *text, uint64_t *bytes)
{
    const char *p = strstr(text, "MemAvailable:");
    if (!p || (p != text && p[-1] != '\n'))
        return -1;
    p += strlen("MemAvailable:");
    char *end;
    unsigned long long kb = strtoull(p, &end, 10);
    if (end == p)
        return -1;
    while (*end == ' ' || *end == '\t')
        end++;
    if (strncmp(end, "kB", 2) != 0 || kb > UINT64_MAX / 1024)
        return -1;
    *bytes = (uint64_t)kb * 1024;
    return 0;
}

void memlimit_format(uint64_t bytes, char *out, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    double v = (double)bytes;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, n, "%" PRIu64 " B", bytes);
    else
        snprintf(out, n, "%.1f %s", v, unit[u]);
}

int memlimit_check(uint64_t nblocks, uint64_t limit, uint64_t mem_available, char *msg, size_t n)
{
    uint64_t may = limit ? limit : memlimit_default(mem_available);
    uint64_t need = memlimit_map_bytes(nblocks);
    if ((!limit && !mem_available) || need <= may)
        return 0;
    char needs[32], mays[32], avail[32];
    memlimit_format(need, needs, sizeof needs);
    memlimit_format(may, mays, sizeof mays);
    memlimit_format(mem_available, avail, sizeof avail);
    if (limit)
        snprintf(msg, n, "the state map of %" PRIu64 " blocks needs %s at %zu bytes per block; "
                 "this run may use %s (memory_limit in [scenario]; MemAvailable is %s)",
                 nblocks, needs, sizeof(gen_t), mays, mem_available ? avail : "unknown");
    else
        snprintf(msg, n, "the state map of %" PRIu64 " blocks needs %s at %zu bytes per block; "
                 "this run may use %s (memory_limit, default: %d%% of MemAvailable %s; set it "
                 "in [scenario])", nblocks, needs, sizeof(gen_t), mays, MEMLIMIT_DEFAULT_PCT,
                 avail);
    return -1;
}
