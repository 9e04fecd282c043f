/*
 * fuzz_agent — the agent's line protocol (faults/agent.h): the input is
 * what the controller would write on the agent's stdin, cut into lines as
 * agent_serve cuts them; every line goes through jl_parse (lib/jsonl.c),
 * and a "prepare" through fault_spec_get, which decodes the fault from the
 * message with every fault family's key table and check.  Nothing is
 * prepared or applied: a fuzzed message must not fault this machine.
 * What parses is written again with jl_put_* and must parse back the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../faults/runtime.h"
#include "../../faults/ssh/spec.h"
#include "../../lib/jsonl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct jl_out out; /* 64 KiB: not on the stack */

static void round_trip(const struct jl_obj *m)
{
    jl_begin(&out);
    for (unsigned i = 0; i < m->n; i++) {
        const struct jl_item *it = &m->items[i];
        switch (it->type) {
        case JL_STR: jl_put_str(&out, it->key, it->str); break;
        case JL_NUM: jl_put_i64(&out, it->key, it->num); break;
        case JL_BOOL: jl_put_bool(&out, it->key, it->yes); break;
        case JL_NULL: break;
        }
    }
    if (jl_end(&out) != 0)
        return; /* longer than a line may be */
    struct jl_obj back;
    char why[256];
    if (jl_parse(out.buf, &back, why, sizeof why) != 0) {
        fprintf(stderr, "jl_parse refuses what jl_put wrote (%s): %s", why, out.buf);
        __builtin_trap();
    }
    unsigned k = 0;
    for (unsigned i = 0; i < m->n; i++) {
        const struct jl_item *a = &m->items[i];
        if (a->type == JL_NULL)
            continue;
        const struct jl_item *b = k < back.n ? &back.items[k++] : NULL;
        if (!b || strcmp(a->key, b->key) != 0 || a->type != b->type ||
            (a->type == JL_STR && strcmp(a->str, b->str) != 0) ||
            (a->type == JL_NUM && a->num != b->num) || (a->type == JL_BOOL && a->yes != b->yes)) {
            fprintf(stderr, "item %u ('%s') does not come back the same: %s", i, a->key,
                    out.buf);
            __builtin_trap();
        }
    }
    jl_free(&back);
}

static void one_line(const char *line)
{
    struct jl_obj m;
    char why[256] = "";
    if (jl_parse(line, &m, why, sizeof why) != 0) {
        if (!why[0]) {
            fprintf(stderr, "jl_parse refused without saying why\n");
            __builtin_trap();
        }
        return;
    }
    const char *op = jl_str(&m, "op");
    uint64_t v;
    jl_u64(&m, "id", &v);
    jl_u64(&m, "at_ns", &v);
    if (op && strcmp(op, "prepare") == 0) {
        static struct fault_spec spec;
        struct fault_rules rules = {.allow_destructive = jl_bool(&m, "allow_destructive", false)};
        char err[1100] = "";
        if (fault_spec_get(&m, &rules, &spec, err, sizeof err) != 0 && !err[0]) {
            fprintf(stderr, "fault_spec_get refused without saying why\n");
            __builtin_trap();
        }
    }
    round_trip(&m);
    jl_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* as agent_serve: lines end at '\n', an empty one is skipped, a line
     * longer than JL_MAX_LINE is refused whole */
    char *text = fz_text(data, size);
    char *start = text, *nl;
    while ((nl = memchr(start, '\n', size - (size_t)(start - text)))) {
        *nl = '\0';
        if (nl > start && (size_t)(nl - start) <= JL_MAX_LINE)
            one_line(start);
        start = nl + 1;
    }
    if (*start && strlen(start) <= JL_MAX_LINE)
        one_line(start); /* the agent waits for its newline; the parser takes it without */
    free(text);
    return 0;
}
