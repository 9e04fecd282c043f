/*
 * scenario_parts — what the files of the scenario parser share (not for
 * the rest of faultline: scenario.h is the parser's interface).
 *
 *   scenario_keys.c       the general keys' tables, sections, key lookups
 *   scenario_parse.c      sections bound to fields, every mistake noted
 *   scenario_expect.c     [expect] and expect_* lines into rules
 *   scenario_check.c      the rules between sections
 *   scenario_outcome.c    expect_verdict and expect_failing: the outcome a suite expects
 *   thrash.c              [thrash]: a schedule of faults drawn from the seed (thrash.h)
 *   scenario_reference.c  help scenario, help metrics
 *   scenario_doc*.c       help scenario --format markdown|man (scenario_doc.h)
 */
#ifndef FL_SCENARIO_PARTS_H
#define FL_SCENARIO_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../../lib/ini.h"
#include "../../lib/keys.h"
#include "scenario.h"

enum section_type {
    S_SCENARIO, S_TARGET, S_WORKLOAD, S_LAB, S_EXPECT, S_FAULT, S_HOST, S_CLUSTER, S_THRASH,
    S_COUNT
};

/* "scenario", "target", ...: a section's name in the file. */
extern const char *const section_names[S_COUNT];

/* --- scenario_keys.c --- */

/* The section of that name, or -1. */
int scenario_section_of(const char *type);

/* The general keys of a section (the kinds' own come from kind_keys). */
struct key_table scenario_general_keys(int section);

/* The i-th table of a kind's own keys for section, and its owner (the
 * kind's name); false past the last. */
bool scenario_kind_keys(int section, unsigned i, struct key_table *t, const char **owner);

/* "; did you mean 'depth'? (known keys: ...)" for an unknown key. */
void scenario_unknown_key_hint(int section, const char *key, char *out, size_t n);

/* The kinds that declare key in a section: "iscsi" or "iscsi, files";
 * the first one's definition in *def.  "" when none does. */
void scenario_owners_of(int section, const char *key, char *out, size_t n,
                        const struct key_def **def);

/* --- scenario_check.c: every mistake, not only the first --- */

/* The mistakes found so far, one "file:line: why" per line (the first
 * SCENARIO_MAX_ERRORS of them, then how many more). */
struct errlist {
    char *out;
    size_t cap, len;
    unsigned n;
};

void scenario_note(struct errlist *e, const char *msg);

/* The list into err; -1 when it holds anything. */
int scenario_noted(struct errlist *e);

/* --- scenario_expect.c --- */

/* One line of [expect] (fault < 0) or an expect_* key of a fault. */
int scenario_add_expectation(const struct ini *ini, struct scenario *sc, int fault,
                             const struct ini_entry *e, char *err, size_t n);

/* --- scenario_check.c: after binding --- */

/* Line of key in the first section of that type (the section's line when
 * the key is absent), for messages about combinations. */
int scenario_line_of(const struct ini *ini, const char *section, const char *key);

/* Whether the scenario's lab gives places to its target's kind (more than
 * one kind of lab serves "files"). */
bool scenario_lab_serves(const struct scenario *sc);

int scenario_check_kind(struct scenario *sc, const struct ini *ini, char *err, size_t n);
void scenario_check_workload(const struct scenario *sc, const struct ini *ini,
                             struct errlist *errs);
void scenario_check_faults(const struct scenario *sc, const char *file, struct errlist *errs);
int scenario_check_cluster(struct scenario *sc, const struct ini *ini, char *err, size_t n);

/* --- scenario_outcome.c --- */

/* expect_failing read into sc->expect_failing, each rule checked (a
 * metric, a fault of the scenario, a rule that can fail), and only with
 * expect_verdict = fail, which needs it. */
void scenario_check_outcome(struct scenario *sc, const struct ini *ini, struct errlist *errs);

#endif
