/*
 * json — a small streaming JSON writer for report.json and events.jsonl.
 *
 * Calls nest like the document: json_obj_begin / json_key / value / ...
 * json_obj_end.  Commas and (when pretty) indentation are handled here;
 * strings are escaped per RFC 8259.
 */
#ifndef FL_JSON_H
#define FL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
    FILE *f;
    bool pretty;
    int depth;
    bool need_comma[JSON_MAX_DEPTH];
    bool after_key;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_num(struct json *j, double v, int decimals);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* Seconds (ns -> s with 6 decimals), or null for FL_TIME_UNKNOWN. */
void json_seconds(struct json *j, uint64_t ns);

#endif
