/*
 * clock — the agent's monotonic clock in ours: eight time requests once
 * the agent said hello, the sample with the shortest round trip wins
 * (remote.h).
 */
#include "conn.h"

#include <stdio.h>

#include "../../lib/clock.h"

#define TIME_ROUNDS 8

uint64_t remote_to_ours(const struct remote *r, uint64_t agent_ns)
{
    return (uint64_t)((int64_t)agent_ns - r->info.offset_ns);
}

/* Round trip and offset: the sample with the shortest round trip. */
int remote_measure_clock(struct remote *r, char *err, size_t errlen)
{
    uint64_t best = UINT64_MAX;
    for (unsigned i = 1; i <= TIME_ROUNDS; i++) {
        struct jl_out o;
        jl_begin(&o);
        jl_put_str(&o, "op", "time");
        jl_put_u64(&o, "seq", i);
        uint64_t sent = mono_ns();
        if (conn_send(r, &o, err, errlen) != 0)
            return -1;
        struct jl_obj m;
        int rc = conn_await_reply(r, "time", 0, sent + 5000000000ull, &m);
        uint64_t back = mono_ns();
        if (rc != 1) {
            snprintf(err, errlen, "the agent on %s does not answer the time", r->host.name);
            return -1;
        }
        uint64_t them = 0, seq = 0;
        bool ok = jl_u64(&m, "mono_ns", &them) && jl_u64(&m, "seq", &seq) && seq == i;
        jl_free(&m);
        if (ok && back - sent < best) {
            best = back - sent;
            r->info.rtt_ns = best;
            r->info.offset_ns = (int64_t)them - (int64_t)(sent + (back - sent) / 2);
        }
    }
    return 0;
}
