/* kvlist — see kvlist.h. */
#include "kvlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kv_add(struct kv_list *l, const char *key, const char *fmt, ...)
{
    char v[KV_VALUE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    const char *b = v;
    while (*b == ' ' || *b == '\t' || *b == '\n')
        b++;
    size_t len = strlen(b);
    while (len && (b[len - 1] == ' ' || b[len - 1] == '\t' || b[len - 1] == '\n'))
        len--;
    if (!len)
        return;
    struct kv *slot = NULL;
    for (unsigned i = 0; i < l->n && !slot; i++)
        if (strcmp(l->kv[i].key, key) == 0)
            slot = &l->kv[i];
    if (!slot) {
        if (l->n == KV_MAX) {
            l->dropped++;
            return;
        }
        slot = &l->kv[l->n++];
        snprintf(slot->key, sizeof slot->key, "%s", key);
    }
    memcpy(slot->value, b, len);
    slot->value[len] = '\0';
}

const char *kv_get(const struct kv_list *l, const char *key)
{
    for (unsigned i = 0; i < l->n; i++)
        if (strcmp(l->kv[i].key, key) == 0)
            return l->kv[i].value;
    return NULL;
}
