/* jsonl — flat JSON objects, one per line; see jsonl.h. */
#include "jsonl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A string at p (after its opening quote) into *w; returns the byte after
 * the closing quote, or NULL.  Only \u escapes below 0x80 are taken: the
 * agent's words are ASCII, and anything else is refused. */
static const char *read_string(const char *p, char **w, char *why, size_t n)
{
    for (;;) {
        unsigned char c = (unsigned char)*p++;
        if (c == '"')
            break;
        if (c < 0x20) {
            snprintf(why, n, c ? "a control character inside a string" : "an unclosed string");
            return NULL;
        }
        if (c >= 0x7f) { /* jl_put_* never writes one (it writes '?') */
            snprintf(why, n, "byte 0x%02x inside a string: the agent reads ASCII only", c);
            return NULL;
        }
        if (c != '\\') {
            *(*w)++ = (char)c;
            continue;
        }
        char e = *p++;
        switch (e) {
        case '"': case '\\': case '/': *(*w)++ = e; break;
        case 'n': *(*w)++ = '\n'; break;
        case 't': *(*w)++ = '\t'; break;
        case 'r': *(*w)++ = '\r'; break;
        case 'b': *(*w)++ = '\b'; break;
        case 'f': *(*w)++ = '\f'; break;
        case 'u': {
            int v = 0;
            for (int i = 0; i < 4; i++) {
                int h = hexval(p[i]);
                if (h < 0) {
                    snprintf(why, n, "a bad \\u escape");
                    return NULL;
                }
                v = v * 16 + h;
            }
            if (v == 0 || v >= 0x80) {
                snprintf(why, n, "\\u%04x is not a character the agent reads", v);
                return NULL;
            }
            *(*w)++ = (char)v;
            p += 4;
            break;
        }
        default:
            snprintf(why, n, "a bad escape \\%c", e ? e : '0');
            return NULL;
        }
    }
    *(*w)++ = '\0';
    return p;
}

int jl_parse(const char *line, struct jl_obj *o, char *why, size_t n)
{
    memset(o, 0, sizeof *o);
    size_t len = strlen(line);
    if (len > JL_MAX_LINE) {
        snprintf(why, n, "a line of %zu bytes (at most %d)", len, JL_MAX_LINE);
        return -1;
    }
    char *w = o->mem = malloc(len + 1);
    if (!w) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    const char *p = skip_ws(line);
    if (*p++ != '{') {
        snprintf(why, n, "not a JSON object");
        goto bad;
    }
    p = skip_ws(p);
    if (*p == '}') {
        p++;
        goto tail;
    }
    for (;;) {
        if (*p++ != '"') {
            snprintf(why, n, "a key must be a string");
            goto bad;
        }
        if (o->n == JL_MAX_ITEMS) {
            snprintf(why, n, "more than %d keys", JL_MAX_ITEMS);
            goto bad;
        }
        struct jl_item *it = &o->items[o->n];
        it->key = w;
        if (!(p = read_string(p, &w, why, n)))
            goto bad;
        for (unsigned i = 0; i < o->n; i++)
            if (strcmp(o->items[i].key, it->key) == 0) {
                snprintf(why, n, "key \"%s\" twice", it->key);
                goto bad;
            }
        p = skip_ws(p);
        if (*p++ != ':') {
            snprintf(why, n, "no ':' after key \"%s\"", it->key);
            goto bad;
        }
        p = skip_ws(p);
        if (*p == '"') {
            it->type = JL_STR;
            it->str = w;
            if (!(p = read_string(p + 1, &w, why, n)))
                goto bad;
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char *end;
            it->type = JL_NUM;
            it->num = strtoll(p, &end, 10);
            if (end == p || *end == '.' || *end == 'e' || *end == 'E') {
                snprintf(why, n, "\"%s\" is not a whole number", it->key);
                goto bad;
            }
            p = end;
        } else if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
            it->type = JL_BOOL;
            it->yes = *p == 't';
            p += it->yes ? 4 : 5;
        } else if (strncmp(p, "null", 4) == 0) {
            it->type = JL_NULL;
            p += 4;
        } else {
            snprintf(why, n, "\"%s\" has a value the agent does not read (only strings, whole "
                     "numbers, true, false, null)", it->key);
            goto bad;
        }
        o->n++;
        p = skip_ws(p);
        if (*p == ',') {
            p = skip_ws(p + 1);
            continue;
        }
        if (*p++ == '}')
            break;
        snprintf(why, n, "no ',' or '}' after \"%s\"", it->key);
        goto bad;
    }
tail:
    if (*skip_ws(p)) {
        snprintf(why, n, "bytes after the object");
        goto bad;
    }
    return 0;
bad:
    jl_free(o);
    return -1;
}

void jl_free(struct jl_obj *o)
{
    free(o->mem);
    o->mem = NULL;
    o->n = 0;
}

static const struct jl_item *find(const struct jl_obj *o, const char *key)
{
    for (unsigned i = 0; i < o->n; i++)
        if (strcmp(o->items[i].key, key) == 0)
            return &o->items[i];
    return NULL;
}

const char *jl_str(const struct jl_obj *o, const char *key)
{
    const struct jl_item *it = find(o, key);
    return it && it->type == JL_STR ? it->str : NULL;
}

bool jl_u64(const struct jl_obj *o, const char *key, uint64_t *out)
{
    const struct jl_item *it = find(o, key);
    if (!it || it->type != JL_NUM || it->num < 0)
        return false;
    *out = (uint64_t)it->num;
    return true;
}

bool jl_bool(const struct jl_obj *o, const char *key, bool def)
{
    const struct jl_item *it = find(o, key);
    return it && it->type == JL_BOOL ? it->yes : def;
}

static void put_raw(struct jl_out *o, const char *s, size_t len)
{
    if (o->overflow || o->len + len + 3 > sizeof o->buf) {
        o->overflow = true;
        return;
    }
    memcpy(o->buf + o->len, s, len);
    o->len += len;
    o->buf[o->len] = '\0';
}

static void put_quoted(struct jl_out *o, const char *s)
{
    put_raw(o, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char esc[8];
        if (*c == '"' || *c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*c;
            put_raw(o, esc, 2);
        } else if (*c < 0x20 || *c >= 0x7f) {
            /* Bytes outside ASCII are written as '?': the reader takes ASCII only. */
            snprintf(esc, sizeof esc, *c < 0x20 ? "\\u%04x" : "?", *c);
            put_raw(o, esc, strlen(esc));
        } else {
            put_raw(o, (const char *)c, 1);
        }
    }
    put_raw(o, "\"", 1);
}

static void put_key(struct jl_out *o, const char *key)
{
    if (o->len > 1)
        put_raw(o, ",", 1);
    put_quoted(o, key);
    put_raw(o, ":", 1);
}

void jl_begin(struct jl_out *o)
{
    o->len = 0;
    o->overflow = false;
    put_raw(o, "{", 1);
}

void jl_put_str(struct jl_out *o, const char *key, const char *value)
{
    put_key(o, key);
    put_quoted(o, value ? value : "");
}

void jl_put_u64(struct jl_out *o, const char *key, uint64_t value)
{
    jl_put_i64(o, key, value > INT64_MAX ? INT64_MAX : (int64_t)value);
}

void jl_put_i64(struct jl_out *o, const char *key, int64_t value)
{
    char num[32];
    put_key(o, key);
    snprintf(num, sizeof num, "%" PRId64, value);
    put_raw(o, num, strlen(num));
}

void jl_put_bool(struct jl_out *o, const char *key, bool value)
{
    put_key(o, key);
    put_raw(o, value ? "true" : "false", value ? 4 : 5);
}

int jl_end(struct jl_out *o)
{
    if (o->overflow)
        return -1;
    o->buf[o->len++] = '}';
    o->buf[o->len++] = '\n';
    o->buf[o->len] = '\0';
    return 0;
}
