/*
 * ini — the fio-style INI syntax of scenario files, without meaning.
 *
 *   # comment            ; comment
 *   [section]            [section name]
 *   key = value          # an inline comment needs a blank before it
 *   key <= value         comparisons (=, ==, <, <=, >, >=) are kept as the
 *                        entry's op; the scenario layer says where they fit
 *
 * Section types and keys are lower case letters, digits, '_' and '-'; a
 * key may also hold '.' ([thrash] kill.process), and a section name too.  Every entry remembers its line, so that
 * the scenario layer can say file:line for every mistake.
 */
#ifndef FL_INI_H
#define FL_INI_H

#include <stddef.h>

struct ini_entry {
    char *key;
    char *value;
    char op[3]; /* "=", "==", "<", "<=", ">" or ">=" */
    int line;
};

struct ini_section {
    char *type;
    char *name; /* NULL for [type] */
    int line;
    struct ini_entry *entries;
    size_t n;
};

struct ini {
    char *file; /* as given, for messages */
    struct ini_section *sections;
    size_t n;
};

/* Parses text (named `file` in messages).  0, or -1 with "file:line: why". */
int ini_parse(const char *text, const char *file, struct ini *out, char *err, size_t errlen);

/* Reads a whole text file (NUL-terminated, malloc'd).  NULL with a message. */
char *ini_read_file(const char *path, char *err, size_t errlen);

/* Reads and parses a file.  0, or -1 with a message. */
int ini_load(const char *path, struct ini *out, char *err, size_t errlen);

void ini_free(struct ini *ini);

#endif
