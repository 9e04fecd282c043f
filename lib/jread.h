/*
 * jread — a whole JSON document read into a tree, for the commands that
 * read reports back (`faultline compare`, the summary of repeats).
 *
 * Strict RFC 8259: one value, no trailing bytes, no comments; strings are
 * unescaped into UTF-8 (\uXXXX with surrogate pairs).  A mistake is named
 * by line and column.  Numbers are doubles.  Lookups never fail on a wrong
 * shape: asking an array for a key, or a missing key, gives NULL, and the
 * typed getters say false, so a reader of an older report just finds
 * fewer fields.
 *
 *   struct jv *doc;
 *   if (jv_load("DIR/report.json", &doc, err, sizeof err) != 0) fail(err);
 *   double stall;
 *   if (jv_num(jv_path(doc, "faults.0.stall_s"), &stall)) ...
 *   jv_free(doc);
 */
#ifndef FL_JREAD_H
#define FL_JREAD_H

#include <stdbool.h>
#include <stddef.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
    enum jv_type type;
    bool b;          /* JV_BOOL */
    double num;      /* JV_NUM */
    char *str;       /* JV_STR: NUL-terminated (an embedded \u0000 ends it);
                        JV_NUM: the number as written (whole 64-bit numbers,
                        a seed, are exact there and not in num) */
    size_t n;        /* JV_ARR, JV_OBJ: how many items */
    struct jv *item; /* JV_ARR, JV_OBJ: the items */
    char **key;      /* JV_OBJ: their keys */
};

/* Parses text[0..len).  0 with *out (jv_free it), or -1 with why
 * ("line L col C: what"). */
int jv_parse(const char *text, size_t len, struct jv **out, char *why, size_t n);

/* Reads and parses a file.  0, or -1 with err naming the file. */
int jv_load(const char *path, struct jv **out, char *err, size_t errlen);

void jv_free(struct jv *v);

/* A deep copy of v into *out (jv_free it).  0, or -1 when memory ran out. */
int jv_copy(const struct jv *v, struct jv **out);

/* The value of key in an object (the first, if repeated); NULL when v is
 * NULL, not an object, or has no such key. */
const struct jv *jv_get(const struct jv *v, const char *key);

/* Item i of an array; NULL when out of range or not an array. */
const struct jv *jv_at(const struct jv *v, size_t i);

/* Dotted path of keys and array indexes: "faults.0.stall_s". */
const struct jv *jv_path(const struct jv *v, const char *path);

/* Typed reads: false (out untouched) when v is NULL or of another type. */
bool jv_num(const struct jv *v, double *out);
bool jv_bool(const struct jv *v, bool *out);
const char *jv_str(const struct jv *v); /* NULL unless a string */

/* An array's or object's item count; 0 for anything else. */
size_t jv_len(const struct jv *v);

struct json; /* json.h */

/* Writes v again, whatever its shape, as the next value of j: whole
 * numbers as written (exact to 64 bits), others to 6 decimals. */
void jv_emit(struct json *j, const struct jv *v);

#endif
