/* jread — see jread.h. */
#include "jread.h"

#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JV_MAX_DEPTH 256 /* deeper nesting is refused: the parser recurses */

struct jp {
    const char *s, *end;
    const char *start;
    char *why;
    size_t whyn;
    bool failed;
};

static void fail(struct jp *p, const char *what)
{
    if (p->failed)
        return;
    p->failed = true;
    unsigned line = 1, col = 1;
    for (const char *c = p->start; c < p->s && c < p->end; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(p->why, p->whyn, "line %u col %u: %s", line, col, what);
}

static void skip_ws(struct jp *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static bool lit(struct jp *p, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
        return false;
    p->s += n;
    return true;
}

static int hex4(struct jp *p, unsigned *out)
{
    if (p->end - p->s < 4) {
        fail(p, "short \\u escape");
        return -1;
    }
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *p->s++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else {
            fail(p, "bad hex digit in \\u escape");
            return -1;
        }
    }
    *out = v;
    return 0;
}

static size_t utf8(unsigned cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at p->s (on its opening quote); malloc'd, unescaped. */
static char *string(struct jp *p)
{
    p->s++; /* the quote */
    const char *q = p->s;
    while (q < p->end && *q != '"')
        q += *q == '\\' && q + 1 < p->end ? 2 : 1;
    if (q >= p->end) {
        fail(p, "unterminated string");
        return NULL;
    }
    char *out = malloc((size_t)(q - p->s) + 1), *o = out; /* unescaping never grows */
    if (!out) {
        fail(p, "out of memory");
        return NULL;
    }
    while (*p->s != '"') {
        unsigned char c = (unsigned char)*p->s++;
        if (c < 0x20) {
            fail(p, "control character in string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        char e = *p->s++;
        unsigned cp;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u':
            if (hex4(p, &cp) != 0) {
                free(out);
                return NULL;
            }
            if (cp >= 0xD800 && cp < 0xDC00) {
                unsigned lo;
                if (!lit(p, "\\u") || hex4(p, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF) {
                    fail(p, "a high surrogate without its low one");
                    free(out);
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                fail(p, "a low surrogate alone");
                free(out);
                return NULL;
            }
            /* \uXXXX takes 6 bytes (12 for a pair), its UTF-8 at most 4 */
            o += utf8(cp, o);
            break;
        default:
            p->s--;
            fail(p, "unknown escape");
            free(out);
            return NULL;
        }
    }
    p->s++; /* the closing quote */
    *o = '\0';
    return out;
}

static bool number(struct jp *p, double *out)
{
    const char *b = p->s;
    if (p->s < p->end && *p->s == '-')
        p->s++;
    if (p->s >= p->end || *p->s < '0' || *p->s > '9')
        return false;
    if (*p->s == '0')
        p->s++;
    else
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
            p->s++;
    if (p->s < p->end && *p->s == '.') {
        p->s++;
        if (p->s >= p->end || *p->s < '0' || *p->s > '9')
            return false;
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
            p->s++;
    }
    if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
        p->s++;
        if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
            p->s++;
        if (p->s >= p->end || *p->s < '0' || *p->s > '9')
            return false;
        while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
            p->s++;
    }
    char buf[64];
    size_t n = (size_t)(p->s - b);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, b, n);
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    return true;
}

static void release(struct jv *v);

static int value(struct jp *p, struct jv *v, unsigned depth);

/* Items of an array or object, grown as they come. */
static int grow(struct jp *p, struct jv *v, size_t *cap, bool keys)
{
    if (v->n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 8;
    struct jv *it = realloc(v->item, c * sizeof *it);
    if (!it) {
        fail(p, "out of memory");
        return -1;
    }
    v->item = it;
    if (keys) {
        char **k = realloc(v->key, c * sizeof *k);
        if (!k) {
            fail(p, "out of memory");
            return -1;
        }
        v->key = k;
    }
    *cap = c;
    return 0;
}

static int container(struct jp *p, struct jv *v, unsigned depth, bool obj)
{
    v->type = obj ? JV_OBJ : JV_ARR;
    char close = obj ? '}' : ']';
    size_t cap = 0;
    p->s++;
    skip_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        return 0;
    }
    for (;;) {
        if (grow(p, v, &cap, obj) != 0)
            return -1;
        skip_ws(p);
        if (obj) {
            if (p->s >= p->end || *p->s != '"') {
                fail(p, "expected a key");
                return -1;
            }
            char *k = string(p);
            if (!k)
                return -1;
            v->key[v->n] = k;
            skip_ws(p);
            if (p->s >= p->end || *p->s != ':') {
                free(k);
                fail(p, "expected ':'");
                return -1;
            }
            p->s++;
        }
        memset(&v->item[v->n], 0, sizeof v->item[v->n]);
        int rc = value(p, &v->item[v->n], depth + 1);
        if (rc != 0) {
            release(&v->item[v->n]);
            if (obj)
                free(v->key[v->n]);
            return -1;
        }
        v->n++;
        skip_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            return 0;
        }
        fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        return -1;
    }
}

static int value(struct jp *p, struct jv *v, unsigned depth)
{
    if (depth > JV_MAX_DEPTH) {
        fail(p, "nested too deeply");
        return -1;
    }
    skip_ws(p);
    if (p->s >= p->end) {
        fail(p, "expected a value");
        return -1;
    }
    switch (*p->s) {
    case '{':
        return container(p, v, depth, true);
    case '[':
        return container(p, v, depth, false);
    case '"':
        v->type = JV_STR;
        return (v->str = string(p)) ? 0 : -1;
    case 't':
    case 'f':
    case 'n':
        if (lit(p, "true") || lit(p, "false")) {
            v->type = JV_BOOL;
            v->b = p->s[-1] == 'e' && p->s[-2] == 'u';
            return 0;
        }
        if (lit(p, "null")) {
            v->type = JV_NULL;
            return 0;
        }
        break;
    default:
    {
        const char *b = p->s;
        if (number(p, &v->num)) {
            v->type = JV_NUM;
            /* as written too: a 64-bit seed or id is not a double */
            size_t n = (size_t)(p->s - b);
            if (!(v->str = malloc(n + 1))) {
                fail(p, "out of memory");
                return -1;
            }
            memcpy(v->str, b, n);
            v->str[n] = '\0';
            return 0;
        }
    }
    }
    fail(p, "expected a value");
    return -1;
}

static void release(struct jv *v)
{
    if (v->type == JV_STR || v->type == JV_NUM)
        free(v->str);
    if (v->type == JV_ARR || v->type == JV_OBJ) {
        for (size_t i = 0; i < v->n; i++) {
            release(&v->item[i]);
            if (v->type == JV_OBJ)
                free(v->key[i]);
        }
        free(v->item);
        free(v->key);
    }
}

int jv_parse(const char *text, size_t len, struct jv **out, char *why, size_t n)
{
    struct jp p = {.s = text, .end = text + len, .start = text, .why = why, .whyn = n};
    struct jv *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    if (value(&p, v, 0) == 0) {
        skip_ws(&p);
        if (p.s == p.end) {
            *out = v;
            return 0;
        }
        fail(&p, "trailing bytes after the value");
    }
    jv_free(v);
    return -1;
}

int jv_load(const char *path, struct jv **out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        snprintf(err, errlen, "cannot read %s: %s", path, buf ? "read error" : "out of memory");
        free(buf);
        return -1;
    }
    char why[256];
    int rc = jv_parse(buf, len, out, why, sizeof why);
    free(buf);
    if (rc != 0)
        snprintf(err, errlen, "%s: not JSON: %s", path, why);
    return rc;
}

void jv_free(struct jv *v)
{
    if (!v)
        return;
    release(v);
    free(v);
}

/* Copies src into dst (a zeroed node): false when memory ran out, with
 * what was copied still freeable by release. */
static bool copy_into(struct jv *dst, const struct jv *src)
{
    dst->type = src->type;
    dst->b = src->b;
    dst->num = src->num;
    if (src->str && !(dst->str = strdup(src->str)))
        return false;
    if (src->type != JV_ARR && src->type != JV_OBJ)
        return true;
    if (src->n && !(dst->item = calloc(src->n, sizeof *dst->item)))
        return false;
    if (src->type == JV_OBJ && src->n && !(dst->key = calloc(src->n, sizeof *dst->key)))
        return false;
    for (size_t i = 0; i < src->n; i++) {
        dst->n = i + 1;
        if (src->type == JV_OBJ && !(dst->key[i] = strdup(src->key[i])))
            return false;
        if (!copy_into(&dst->item[i], &src->item[i]))
            return false;
    }
    return true;
}

int jv_copy(const struct jv *v, struct jv **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return -1;
    if (!copy_into(*out, v)) {
        jv_free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
    if (!v || v->type != JV_OBJ)
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->key[i], key) == 0)
            return &v->item[i];
    return NULL;
}

const struct jv *jv_at(const struct jv *v, size_t i)
{
    return v && v->type == JV_ARR && i < v->n ? &v->item[i] : NULL;
}

const struct jv *jv_path(const struct jv *v, const char *path)
{
    char part[128];
    while (v && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof part)
            return NULL;
        memcpy(part, path, n);
        part[n] = '\0';
        path += n + (path[n] == '.');
        if (v->type == JV_ARR) {
            char *e;
            unsigned long i = strtoul(part, &e, 10);
            v = *e || !n ? NULL : jv_at(v, i);
        } else {
            v = jv_get(v, part);
        }
    }
    return v;
}

bool jv_num(const struct jv *v, double *out)
{
    if (!v || v->type != JV_NUM)
        return false;
    *out = v->num;
    return true;
}

bool jv_bool(const struct jv *v, bool *out)
{
    if (!v || v->type != JV_BOOL)
        return false;
    *out = v->b;
    return true;
}

const char *jv_str(const struct jv *v)
{
    return v && v->type == JV_STR ? v->str : NULL;
}

size_t jv_len(const struct jv *v)
{
    return v && (v->type == JV_ARR || v->type == JV_OBJ) ? v->n : 0;
}

/* s is a whole number of digits alone that fits in 64 bits. */
static bool whole_u64(const char *s, uint64_t *out)
{
    uint64_t u = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || u > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return false;
        u = u * 10 + (uint64_t)(*s - '0');
    }
    *out = u;
    return true;
}

void jv_emit(struct json *j, const struct jv *v)
{
    uint64_t u;
    switch (v->type) {
    case JV_NULL:
        json_null(j);
        break;
    case JV_BOOL:
        json_bool(j, v->b);
        break;
    case JV_NUM:
        if (v->str && whole_u64(v->str, &u)) {
            json_u64(j, u);
            break;
        }
        if (v->str && v->str[0] == '-' && whole_u64(v->str + 1, &u) && u <= (uint64_t)INT64_MAX) {
            json_i64(j, -(int64_t)u);
            break;
        }
        json_num(j, v->num, isfinite(v->num) && v->num == floor(v->num) && fabs(v->num) < 1e15
                                ? 0
                                : 6);
        break;
    case JV_STR:
        json_str(j, v->str);
        break;
    case JV_ARR:
        json_arr_begin(j);
        for (size_t i = 0; i < v->n; i++)
            jv_emit(j, &v->item[i]);
        json_arr_end(j);
        break;
    case JV_OBJ:
        json_obj_begin(j);
        for (size_t i = 0; i < v->n; i++) {
            json_key(j, v->key[i]);
            jv_emit(j, &v->item[i]);
        }
        json_obj_end(j);
        break;
    }
}
