/*
 * kvlist — a short ordered list of named text values: what a backend says
 * of its target's identity (model, serial, filesystem) or a lab of its
 * volume's options, for the manifest of a report.  Fixed size, no
 * allocation: a value that does not fit is cut, a key past KV_MAX dropped
 * (and counted, so the report can say so).
 */
#ifndef FL_KVLIST_H
#define FL_KVLIST_H

#include <stdbool.h>

#define KV_MAX 64
#define KV_KEY 64
#define KV_VALUE 512

struct kv_list {
    struct kv {
        char key[KV_KEY];
        char value[KV_VALUE];
    } kv[KV_MAX];
    unsigned n;
    unsigned dropped; /* keys that found no room */
};

/* Appends key = printf(fmt, ...), blanks at both ends taken off (SCSI and
 * sysfs pad their strings); an empty value is not added.  A key already
 * there gets the new value. */
void kv_add(struct kv_list *l, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The value of key, or NULL. */
const char *kv_get(const struct kv_list *l, const char *key);

#endif
