/* json — see json.h. */
#include "json.h"

#include <inttypes.h>
#include <math.h>

#include "clock.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
    *j = (struct json){.f = f, .pretty = pretty};
}

static void newline(struct json *j)
{
    if (!j->pretty)
        return;
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* Separator before a value or key at the current depth. */
static void before_value(struct json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0) {
        if (j->need_comma[j->depth])
            fputc(',', j->f);
        newline(j);
    }
    j->need_comma[j->depth] = true;
}

static void nest_open(struct json *j, char c)
{
    before_value(j);
    fputc(c, j->f);
    if (j->depth + 1 < JSON_MAX_DEPTH)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void nest_close(struct json *j, char c)
{
    bool had = j->need_comma[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (had)
        newline(j);
    fputc(c, j->f);
}

void json_obj_begin(struct json *j)
{
    nest_open(j, '{');
}
void json_obj_end(struct json *j)
{
    nest_close(j, '}');
}
void json_arr_begin(struct json *j)
{
    nest_open(j, '[');
}
void json_arr_end(struct json *j)
{
    nest_close(j, ']');
}

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
    before_value(j);
    put_string(j->f, key);
    fputs(j->pretty ? ": " : ":", j->f);
    j->after_key = true;
}

void json_str(struct json *j, const char *s)
{
    before_value(j);
    put_string(j->f, s ? s : "");
}

void json_u64(struct json *j, uint64_t v)
{
    before_value(j);
    fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
    before_value(j);
    fprintf(j->f, "%" PRId64, v);
}

void json_num(struct json *j, double v, int decimals)
{
    before_value(j);
    if (!isfinite(v))
        fputs("null", j->f);
    else
        fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, bool v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
    before_value(j);
    fputs("null", j->f);
}

void json_seconds(struct json *j, uint64_t ns)
{
    if (ns == FL_TIME_UNKNOWN)
        json_null(j);
    else
        json_num(j, (double)ns / 1e9, 6);
}
