/*
 * spec — a fault's spec as the words of a message to the agent, and back
 * (spec.c): the controller sends it with the fault's prepare (remote.h),
 * the agent reads it (agent.h) and checks it as the parser would.
 */
#ifndef FL_SPEC_H
#define FL_SPEC_H

#include <stddef.h>

#include "../fault.h"

struct jl_out;
struct jl_obj;

/* A spec as text, for the agent: "k.KEY" = value for every key of its
 * family (key_format), into a message being written. */
void fault_spec_put(const struct fault_spec *s, struct jl_out *o);

/* The spec back from such a message: name, action and the "k.KEY" values,
 * each checked against the family's key table (unknown keys are refused),
 * then the family's own check.  0, or -1 with err. */
int fault_spec_get(const struct jl_obj *m, const struct fault_rules *rules,
                   struct fault_spec *s, char *err, size_t errlen);

#endif
