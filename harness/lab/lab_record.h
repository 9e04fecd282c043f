/* lab_record — a lab's state file, LAB_STATE_DIR/P-KIND.state: one line
 * "KEY ARGS" for everything the lab creates, written and synced *before*
 * it is created, so that `lab down` removes all of it, also after a
 * crash; and the lock that makes one lab's ups and downs take turns
 * (lab_record.c).  Kinds write records with lab_rec; the rest is the
 * core's. */
#ifndef FL_LAB_RECORD_H
#define FL_LAB_RECORD_H

#include "lab.h"

/* Appends a record to the state file and syncs it, before the thing it
 * names is made.  0, or -1 with err saying why it cannot be written. */
int lab_rec(int fd, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One record as read back. */
struct record {
    char key[16];
    char a[PATH_MAX]; /* the rest of the line */
    char b[64];       /* pid, ctlport, opt: the first word */
    uint64_t n1, n2;
};

/* The state file of lab k with prefix. */
void lab_state_path(const struct lab_kind *k, const char *prefix, char *out, size_t n);

/* Every record of the state file at path, into a malloc'd *out (free it).
 * Read only when the file is root's (or ours) alone: `lab down` removes
 * and kills what it names.  0, or -1 with err. */
int lab_records_read(const char *path, struct record **out, size_t *n, char *err,
                     size_t errlen);

/* The labs' state and data directories, each checked at every level
 * (root_only_dir) and made with mode when missing and mode is not 0.
 * 0, or -1 with err. */
int lab_labs_home(unsigned mode, char *err, size_t errlen);

/* Waits (bounded) for the exclusive lock of the state file at path, which
 * each up and down of a lab holds while it works.  The locked descriptor
 * (close it to let go), -1 when the state file is gone (the other one took
 * the lab down), or -2 with err. */
int lab_state_lock(const struct lab_kind *k, const char *prefix, const char *path, char *err,
                   size_t errlen);

/* A new state file at path, locked before any other process can see it.
 * Its descriptor, -1 when one exists already, or -2 with err. */
int lab_state_create(const char *path, char *err, size_t errlen);

/* The lab's state file, open for appending what a restart or power-on
 * starts.  The descriptor, or -1 with err. */
int lab_state_append(const struct lab *lab, char *err, size_t errlen);

#endif
