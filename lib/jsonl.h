/*
 * jsonl — one flat JSON object per line, for the agent's messages.
 *
 * The controller and `faultline agent` talk in JSON lines whose objects are
 * flat: every value is a string, a whole number, true, false or null.  A
 * nested object, an array, a fraction, a duplicate key, a byte outside
 * ASCII (the writer sends '?' for one) or trailing bytes make the line
 * malformed, so that the agent can refuse anything it was not
 * built to read instead of guessing.
 *
 *   struct jl_obj m;
 *   if (jl_parse(line, &m, why, sizeof why) != 0) refuse(why);
 *   const char *op = jl_str(&m, "op");
 *
 *   struct jl_out o;  jl_begin(&o);  jl_put_str(&o, "re", "time");
 *   jl_put_u64(&o, "mono_ns", now);  jl_end(&o);   // o.buf ends in "}\n"
 */
#ifndef FL_JSONL_H
#define FL_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_MAX_ITEMS 96
#define JL_MAX_LINE 65536

enum jl_type { JL_STR, JL_NUM, JL_BOOL, JL_NULL };

struct jl_item {
    const char *key;
    enum jl_type type;
    const char *str; /* JL_STR: unescaped, NUL-terminated */
    int64_t num;     /* JL_NUM */
    bool yes;        /* JL_BOOL */
};

struct jl_obj {
    char *mem; /* the unescaped strings */
    struct jl_item items[JL_MAX_ITEMS];
    unsigned n;
};

/* Parses one line (without or with its newline).  0, or -1 with why (the
 * object then holds nothing to free). */
int jl_parse(const char *line, struct jl_obj *o, char *why, size_t n);
void jl_free(struct jl_obj *o);

/* The value of key: a string (NULL when absent or not a string), a number
 * (false when absent or not a non-negative number) or a bool (def when
 * absent). */
const char *jl_str(const struct jl_obj *o, const char *key);
bool jl_u64(const struct jl_obj *o, const char *key, uint64_t *out);
bool jl_bool(const struct jl_obj *o, const char *key, bool def);

/* A line being written.  A value too long for buf marks it `overflow`, and
 * jl_end() then returns -1. */
struct jl_out {
    char buf[JL_MAX_LINE];
    size_t len;
    bool overflow;
};
void jl_begin(struct jl_out *o);
void jl_put_str(struct jl_out *o, const char *key, const char *value);
void jl_put_u64(struct jl_out *o, const char *key, uint64_t value);
void jl_put_i64(struct jl_out *o, const char *key, int64_t value);
void jl_put_bool(struct jl_out *o, const char *key, bool value);
int jl_end(struct jl_out *o);

#endif
