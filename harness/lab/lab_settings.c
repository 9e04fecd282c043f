/* lab_settings — the [lab] settings of a lab that is up: which differ from
 * what is asked for (lab_up: may a lab found up serve?  the suite: may the
 * next scenario share it?), and the settings told for people.  See lab.h. */
#include <stdio.h>
#include <string.h>

#include "../../lib/units.h"
#include "lab_kind.h"

/* A size as the lab has it: the kind's default when none was asked for. */
static uint64_t size_of(const struct lab_kind *k, const struct lab_opts *o)
{
    return o->size ? o->size : k->build->default_size;
}

static uint64_t clients_of(const struct lab_opts *o)
{
    return o->clients > 1 ? o->clients : 1;
}

void lab_settings_differ(const struct lab *lab, const struct lab_opts *want, bool size,
                         char *out, size_t n)
{
    const struct key_table *t = &lab->kind->keys;
    size_t used = 0;
    out[0] = '\0';
    if (size && size_of(lab->kind, &lab->opts) != size_of(lab->kind, want))
        used += (size_t)snprintf(out, n, "size");
    if (clients_of(&lab->opts) != clients_of(want) && used < n)
        used += (size_t)snprintf(out + used, n - used, "%sclients", used ? ", " : "");
    for (unsigned i = 0; i < t->n && used < n; i++)
        if (!key_same(&lab->opts, want, &t->keys[i]))
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? ", " : "",
                                     t->keys[i].name);
}

/* A size as a scenario writes it: "64MiB" (format_size says "64 MiB"). */
static void size_text(uint64_t bytes, char *out, size_t n)
{
    char s[32];
    format_size(bytes, s, sizeof s);
    char *sp = strchr(s, ' ');
    if (sp)
        memmove(sp, sp + 1, strlen(sp));
    snprintf(out, n, "%s", s);
}

/* One value as a scenario would write it: 64MiB, 5s, on. */
static void value_text(const void *base, const struct key_def *k, char *out, size_t n)
{
    uint64_t u;
    if (k->type == KEY_SIZE || k->type == KEY_DURATION)
        memcpy(&u, (const char *)base + k->off, sizeof u);
    if (k->type == KEY_SIZE) {
        size_text(u, out, n);
    } else if (k->type == KEY_DURATION) {
        snprintf(out, n, "%gs", (double)u / 1e9);
    } else {
        key_format(base, k, out, n);
    }
}

void lab_settings_text(const struct lab *lab, char *out, size_t n)
{
    char v[512];
    size_text(size_of(lab->kind, &lab->opts), v, sizeof v);
    size_t used = (size_t)snprintf(out, n, "size=%s", v);
    if (clients_of(&lab->opts) > 1 && used < n)
        used += (size_t)snprintf(out + used, n - used, ", clients=%llu",
                                 (unsigned long long)clients_of(&lab->opts));
    const struct key_table *t = &lab->kind->keys;
    for (unsigned i = 0; i < t->n && used < n; i++) {
        value_text(&lab->opts, &t->keys[i], v, sizeof v);
        used += (size_t)snprintf(out + used, n - used, ", %s=%s", t->keys[i].name, v);
    }
}
