/*
 * table — the table of fault families (table.c): one line per family of
 * families/, in the order of the reference.  The scenario parser finds a
 * section's family here, and the agent a spec's; nothing else needs to
 * know which families exist.
 */
#ifndef FL_TABLE_H
#define FL_TABLE_H

#include <stddef.h>

#include "fault.h"

/* The families, in the order of the reference. */
unsigned fault_families(const struct fault_ops *const **out);

/* The family of an action, or NULL. */
const struct fault_ops *fault_ops_find(const char *action);

/* "link-down|port-down|...": every action, for messages. */
const char *fault_actions(void);

/* " duration interface ": the keys an action takes, for messages. */
void fault_keys_text(const struct fault_ops *ops, char *out, size_t n);

#endif
