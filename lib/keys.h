/*
 * keys — tables of typed settings.
 *
 * A module that takes settings (a scenario section, a fault family, a lab
 * kind, a target kind) declares them once, as an array of struct key_def:
 * name, type, default, limits, a line of help, and where the value goes in
 * the block of memory the table fills.  Parsing a value, applying the
 * defaults, naming the closest key for a typo and printing the reference
 * all read the same table, so documentation and code cannot drift apart.
 *
 * Where a value goes, by type:
 *   KEY_TEXT      char[len], NUL-terminated
 *   KEY_SIZE      uint64_t bytes        (units.h: 4k, 64MiB)
 *   KEY_DURATION  uint64_t nanoseconds  (500ms, 10s)
 *   KEY_COUNT     uint64_t
 *   KEY_RATE      uint64_t bits/s       (10mbit)
 *   KEY_PERCENT   unsigned 0..100
 *   KEY_BOOL      bool
 *   KEY_CHOICE    int, the index of the value in `choices` ("a|b|c")
 */
#ifndef FL_KEYS_H
#define FL_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum key_type {
    KEY_TEXT,
    KEY_SIZE,
    KEY_DURATION,
    KEY_PERCENT,
    KEY_BOOL,
    KEY_COUNT,
    KEY_CHOICE,
    KEY_RATE
};

struct key_def {
    const char *name;
    enum key_type type;
    const char *def;     /* the default as it would be written; NULL: none */
    const char *choices; /* KEY_CHOICE: "a|b|c" */
    size_t off, len;     /* the field in the table's block; len: its size */
    uint64_t min, max;   /* KEY_SIZE, KEY_DURATION, KEY_COUNT: allowed range (max 0: none) */
    const char *help;
    size_t given;        /* offset + 1 of a bool set when the key is given; 0: none */
};

/* A table and its length, for modules that hand one over. */
struct key_table {
    const struct key_def *keys;
    unsigned n;
};
#define KEY_TABLE(array) {array, sizeof array / sizeof array[0]}

/* offset and size of field in struct type, for a key_def */
#define KEY_FIELD(type, field) offsetof(type, field), sizeof(((type *)0)->field)
/* the `given` member: the bool field that records the key was given */
#define KEY_GIVEN(type, field) (offsetof(type, field) + 1)

/* Parses value into base as k says (range checked).  0, or -1 with a
 * short reason in why (no file:line: the caller adds that). */
int key_set(void *base, const struct key_def *k, const char *value, char *why, size_t n);

/* Sets every key of the table that has a default.  0, or -1 with err (a
 * default that does not parse is a bug of the table). */
int key_defaults(void *base, const struct key_def *keys, size_t n, char *err, size_t errlen);

/* The value of k in base as text that key_set() reads back (10000000ns,
 * yes, the choice's name). */
void key_format(const void *base, const struct key_def *k, char *out, size_t n);

/* Whether the value of k is the same in a and b. */
bool key_same(const void *a, const void *b, const struct key_def *k);

/* The key called name in the table, or NULL. */
const struct key_def *key_find(const struct key_def *keys, size_t n, const char *name);

/* Edit distance of two short names (99 when either is longer than 31),
 * for "did you mean": a typo is at distance 1 or 2. */
size_t key_distance(const char *a, const char *b);

/* "text", "size", "duration", ... for the reference. */
const char *key_type_name(enum key_type t);

/* One key in the reference: "  name  type  default X\n      help\n". */
void key_print(FILE *out, const struct key_def *k);

#endif
