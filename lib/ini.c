/* ini — see ini.h. */
#include "ini.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 4096

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int word_ok(const char *s, const char *extra)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_' &&
            *s != '-' && !strchr(extra, *s))
            return 0;
    return 1;
}

static int name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
            return 0;
    return 1;
}

/* Cuts an inline comment: '#' or ';' at the start or after a blank. */
static void cut_comment(char *s)
{
    for (char *p = s; *p; p++)
        if ((*p == '#' || *p == ';') && (p == s || isspace((unsigned char)p[-1]))) {
            *p = '\0';
            return;
        }
}

static int fail(char *err, size_t n, const char *file, int line, const char *msg, const char *arg)
{
    char m[512];
    snprintf(m, sizeof m, msg, arg);
    snprintf(err, n, "%s:%d: %s", file, line, m);
    return -1;
}

/* A section header s ("[type]" or "[type name]", trimmed) at line: a new
 * section of out (cap: the room of out->sections).  0, or -1 with err
 * (what was added stays in out, for ini_free). */
static int parse_section(char *s, const char *file, int line, struct ini *out, size_t *cap,
                         char *err, size_t errlen)
{
    char *close = strchr(s, ']');
    if (!close || *trim(close + 1))
        return fail(err, errlen, file, line, "bad section header '%s' (expected [type] "
                    "or [type name])", s);
    *close = '\0';
    char *type = trim(s + 1), *name = NULL;
    char *sp = type;
    while (*sp && !isspace((unsigned char)*sp))
        sp++;
    if (*sp) {
        *sp = '\0';
        name = trim(sp + 1);
    }
    if (!word_ok(type, ""))
        return fail(err, errlen, file, line, "bad section type '%s' (lower case letters, "
                    "digits, '_' and '-')", type);
    if (name && !name_ok(name))
        return fail(err, errlen, file, line, "bad section name '%s' (letters, digits, "
                    "'_', '-' and '.')", name);
    if (out->n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        struct ini_section *ns = realloc(out->sections, *cap * sizeof *ns);
        if (!ns)
            return fail(err, errlen, file, line, "out of memory%s", "");
        out->sections = ns;
    }
    struct ini_section *sec = &out->sections[out->n++];
    memset(sec, 0, sizeof *sec);
    sec->type = strdup(type);
    sec->name = name ? strdup(name) : NULL;
    sec->line = line;
    if (!sec->type || (name && !sec->name))
        return fail(err, errlen, file, line, "out of memory%s", "");
    return 0;
}

/* An entry s ("key op value", trimmed) at line: added to out's last
 * section.  0, or -1 with err (what was added stays in out, for
 * ini_free). */
static int parse_entry(char *s, const char *file, int line, struct ini *out, char *err,
                       size_t errlen)
{
    /* The first of = < > ends the key: "a <= 3", "a == 3", "a = x<y". */
    char *eq = s + strcspn(s, "=<>");
    if (!*eq)
        return fail(err, errlen, file, line, "expected 'key = value' or '[section]', got '%s'",
                    s);
    char op[3] = {eq[0], 0, 0};
    size_t oplen = 1;
    if (eq[1] == '=') {
        op[1] = '=';
        oplen = 2;
    }
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + oplen);
    if (!out->n)
        return fail(err, errlen, file, line, "'%s' is outside any [section]", key);
    if (!word_ok(key, ".") || key[0] == '.')
        return fail(err, errlen, file, line, "bad key '%s' (lower case letters, digits, '_', "
                    "'-' and '.')", key);
    if (!*value)
        return fail(err, errlen, file, line, "'%s' has no value", key);
    struct ini_section *sec = &out->sections[out->n - 1];
    struct ini_entry *ne = realloc(sec->entries, (sec->n + 1) * sizeof *ne);
    if (!ne)
        return fail(err, errlen, file, line, "out of memory%s", "");
    sec->entries = ne;
    struct ini_entry *e = &sec->entries[sec->n++];
    e->key = strdup(key);
    e->value = strdup(value);
    e->line = line;
    memcpy(e->op, op, sizeof op);
    if (!e->key || !e->value)
        return fail(err, errlen, file, line, "out of memory%s", "");
    return 0;
}

int ini_parse(const char *text, const char *file, struct ini *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->file = strdup(file);
    if (!out->file)
        return fail(err, errlen, file, 0, "out of memory%s", "");
    size_t cap = 0;
    const char *p = text;
    int line = 0;
    while (*p) {
        line++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= MAX_LINE) {
            ini_free(out);
            return fail(err, errlen, file, line, "line longer than %s characters", "4095");
        }
        char buf[MAX_LINE];
        memcpy(buf, p, len);
        buf[len] = '\0';
        p = nl ? nl + 1 : p + len;
        cut_comment(buf);
        char *s = trim(buf);
        if (!*s)
            continue;
        int rc = *s == '[' ? parse_section(s, file, line, out, &cap, err, errlen)
                           : parse_entry(s, file, line, out, err, errlen);
        if (rc != 0) {
            ini_free(out);
            return -1;
        }
    }
    return 0;
}

char *ini_read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0, r;
    char *text = malloc(cap);
    while (text && (r = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (len + 1 < cap)
            continue;
        char *t = cap < (1u << 24) ? realloc(text, cap * 2) : NULL;
        if (!t) {
            free(text);
            fclose(f);
            snprintf(err, errlen, "%s: larger than 16 MiB or out of memory; not a scenario", path);
            return NULL;
        }
        text = t;
        cap *= 2;
    }
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    if (!text) {
        snprintf(err, errlen, "cannot read %s: out of memory", path);
        return NULL;
    }
    if (rerr) {
        free(text);
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(rerr));
        return NULL;
    }
    text[len] = '\0';
    if (memchr(text, '\0', len)) {
        free(text);
        snprintf(err, errlen, "%s: contains NUL bytes; not a scenario", path);
        return NULL;
    }
    return text;
}

int ini_load(const char *path, struct ini *out, char *err, size_t errlen)
{
    char *text = ini_read_file(path, err, errlen);
    if (!text)
        return -1;
    int rc = ini_parse(text, path, out, err, errlen);
    free(text);
    return rc;
}

void ini_free(struct ini *ini)
{
    for (size_t i = 0; i < ini->n; i++) {
        struct ini_section *s = &ini->sections[i];
        for (size_t k = 0; k < s->n; k++) {
            free(s->entries[k].key);
            free(s->entries[k].value);
        }
        free(s->entries);
        free(s->type);
        free(s->name);
    }
    free(ini->sections);
    free(ini->file);
    memset(ini, 0, sizeof *ini);
}
