/* keys — see keys.h. */
#include "keys.h"

#include <string.h>

#include "units.h"

static int set_number(void *field, const struct key_def *k, const char *value, char *why,
                      size_t n)
{
    uint64_t u;
    int rc = k->type == KEY_SIZE       ? parse_size(value, &u, why, n)
             : k->type == KEY_DURATION ? parse_duration(value, &u, why, n)
             : k->type == KEY_RATE     ? parse_rate(value, &u, why, n)
                                       : parse_count(value, &u, why, n);
    if (rc != 0)
        return -1;
    if (k->type != KEY_RATE && (u < k->min || (k->max && u > k->max))) {
        if (k->type == KEY_DURATION)
            snprintf(why, n, "'%s' is too short (at least %llu ms)", value,
                     (unsigned long long)(k->min / 1000000));
        else if (k->max)
            snprintf(why, n, "'%s' is out of range (%llu to %llu)", value,
                     (unsigned long long)k->min, (unsigned long long)k->max);
        else
            snprintf(why, n, "'%s' is too small (at least %llu)", value,
                     (unsigned long long)k->min);
        return -1;
    }
    memcpy(field, &u, sizeof u);
    return 0;
}

static int set_choice(void *field, const struct key_def *k, const char *value, char *why,
                      size_t n)
{
    const char *c = k->choices;
    size_t vl = strlen(value);
    for (int idx = 0; *c; idx++) {
        size_t l = strcspn(c, "|");
        if (l == vl && strncmp(c, value, l) == 0) {
            memcpy(field, &idx, sizeof idx);
            return 0;
        }
        c += l + (c[l] == '|');
    }
    snprintf(why, n, "'%s' is not one of %s", value, k->choices);
    return -1;
}

int key_set(void *base, const struct key_def *k, const char *value, char *why, size_t n)
{
    char *field = (char *)base + k->off;
    int rc = -1;
    switch (k->type) {
    case KEY_TEXT:
        if (strlen(value) >= k->len) {
            snprintf(why, n, "value longer than %zu characters", k->len - 1);
            return -1;
        }
        memcpy(field, value, strlen(value) + 1);
        rc = 0;
        break;
    case KEY_SIZE:
    case KEY_DURATION:
    case KEY_COUNT:
    case KEY_RATE:
        rc = set_number(field, k, value, why, n);
        break;
    case KEY_PERCENT: {
        unsigned p;
        if ((rc = parse_percent(value, &p, why, n)) == 0)
            memcpy(field, &p, sizeof p);
        break;
    }
    case KEY_BOOL: {
        bool b;
        if ((rc = parse_bool(value, &b, why, n)) == 0)
            memcpy(field, &b, sizeof b);
        break;
    }
    case KEY_CHOICE:
        rc = set_choice(field, k, value, why, n);
        break;
    }
    if (rc == 0 && k->given)
        ((char *)base)[k->given - 1] = 1; /* a bool */
    return rc;
}

int key_defaults(void *base, const struct key_def *keys, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (!keys[i].def)
            continue;
        char why[256];
        if (key_set(base, &keys[i], keys[i].def, why, sizeof why) != 0) {
            snprintf(err, errlen, "internal: default of %s: %s", keys[i].name, why);
            return -1;
        }
        if (keys[i].given) /* a default is not given */
            ((char *)base)[keys[i].given - 1] = 0;
    }
    return 0;
}

void key_format(const void *base, const struct key_def *k, char *out, size_t n)
{
    const char *field = (const char *)base + k->off;
    uint64_t u;
    switch (k->type) {
    case KEY_TEXT:
        snprintf(out, n, "%.*s", (int)k->len, field);
        return;
    case KEY_SIZE:
    case KEY_COUNT:
    case KEY_DURATION:
    case KEY_RATE:
        memcpy(&u, field, sizeof u);
        snprintf(out, n, "%llu%s", (unsigned long long)u,
                 k->type == KEY_DURATION ? "ns" : k->type == KEY_RATE ? "bit" : "");
        return;
    case KEY_PERCENT: {
        unsigned p;
        memcpy(&p, field, sizeof p);
        snprintf(out, n, "%u%%", p);
        return;
    }
    case KEY_BOOL: {
        bool b;
        memcpy(&b, field, sizeof b);
        snprintf(out, n, "%s", b ? "yes" : "no");
        return;
    }
    case KEY_CHOICE: {
        int idx;
        memcpy(&idx, field, sizeof idx);
        const char *c = k->choices;
        for (int i = 0; i < idx && *c; i++)
            c += strcspn(c, "|") + (c[strcspn(c, "|")] == '|');
        snprintf(out, n, "%.*s", (int)strcspn(c, "|"), c);
        return;
    }
    }
    snprintf(out, n, "?");
}

bool key_same(const void *a, const void *b, const struct key_def *k)
{
    if (k->type == KEY_TEXT)
        return strncmp((const char *)a + k->off, (const char *)b + k->off, k->len) == 0;
    return memcmp((const char *)a + k->off, (const char *)b + k->off, k->len) == 0;
}

const struct key_def *key_find(const struct key_def *keys, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

size_t key_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31)
        return 99;
    size_t d[32][32];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c)
                c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c)
                c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    return d[la][lb];
}

const char *key_type_name(enum key_type t)
{
    static const char *const names[] = {"text",  "size",  "duration", "percent",
                                        "yes/no", "count", "choice",   "rate"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

void key_print(FILE *out, const struct key_def *k)
{
    fprintf(out, "  %-16s %-9s", k->name,
            k->type == KEY_CHOICE && k->choices ? k->choices : key_type_name(k->type));
    if (k->def)
        fprintf(out, " default %s", k->def);
    fprintf(out, "\n      %s\n", k->help);
}
