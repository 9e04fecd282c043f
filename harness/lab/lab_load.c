/* lab_load — a lab as its state file says it is: the layout that follows
 * from prefix and kind, the options it was brought up with, the PIDs it
 * recorded.  See lab.h and lab_load.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab_clients.h"
#include "lab_disk.h"
#include "lab_kind.h"
#include "lab_load.h"
#include "lab_names.h"
#include "lab_record.h"

unsigned lab_kind_hosts(const struct lab_kind *k, unsigned clients, char names[][16],
                        unsigned max)
{
    static struct lab scratch; /* large; scenario checks run on one thread */
    memset(&scratch, 0, sizeof scratch);
    scratch.kind = k;
    scratch.opts.clients = clients;
    snprintf(scratch.prefix, sizeof scratch.prefix, "fl");
    k->build->lay_out(&scratch);
    lab_lay_out_clients(&scratch);
    unsigned n = 0;
    for (; n < scratch.nhosts && n < max; n++)
        snprintf(names[n], 16, "%s", scratch.hosts[n].name);
    for (unsigned i = 0; i < scratch.nclients && n < max; i++, n++)
        snprintf(names[n], 16, "%s", scratch.clients[i].name);
    return n;
}

int lab_opts_init(const struct lab_kind *k, struct lab_opts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    return key_defaults(o, k->keys.keys, k->keys.n, err, errlen);
}

/* Everything but the subnet, options and PIDs follows from the prefix. */
void lab_lay_out(struct lab *lab)
{
    snprintf(lab->dir, sizeof lab->dir, "%s/%s-%s", LAB_DATA_DIR, lab->prefix, lab->kind->name);
    lab->kind->build->lay_out(lab);
    lab_lay_out_clients(lab);
}

/* The options the lab was brought up with, from its "opt" records. */
static void load_opt(struct lab *lab, const struct record *r)
{
    if (strcmp(r->b, "size") == 0) {
        lab->opts.size = r->n1;
        return;
    }
    if (strcmp(r->b, "clients") == 0) {
        lab->opts.clients = r->n1;
        return;
    }
    const struct key_def *k = key_find(lab->kind->keys.keys, lab->kind->keys.n, r->b);
    char why[256];
    if (k)
        key_set(&lab->opts, k, r->a, why, sizeof why);
}

int lab_load(const struct lab_kind *k, const char *prefix, struct lab *lab, char *err,
             size_t errlen)
{
    char path[PATH_MAX];
    lab_state_path(k, prefix, path, sizeof path);
    struct stat st;
    if (lstat(path, &st) != 0) {
        snprintf(err, errlen, "lab %s (prefix %s) is not up", k->name, prefix);
        return -1;
    }
    int rc = lab_load_file(k, prefix, path, lab, err, errlen);
    if (rc == 0 && lab_labs_home(0, err, errlen) != 0)
        return -1;
    return rc;
}

int lab_load_file(const struct lab_kind *k, const char *prefix, const char *path, struct lab *lab,
                  char *err, size_t errlen)
{
    struct record *r;
    size_t n;
    if (lab_records_read(path, &r, &n, err, errlen) != 0)
        return -1;
    memset(lab, 0, sizeof *lab);
    lab->kind = k;
    snprintf(lab->prefix, sizeof lab->prefix, "%s", prefix);
    lab_opts_init(k, &lab->opts, err, errlen);
    bool ready = false;
    const char *tree = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].key, "subnet") == 0)
            lab->subnet = (unsigned)r[i].n1;
        else if (strcmp(r[i].key, "opt") == 0)
            load_opt(lab, &r[i]);
        else if (strcmp(r[i].key, "ready") == 0)
            ready = true;
        else if (strcmp(r[i].key, "tree") == 0 && !tree)
            tree = r[i].a;
    }
    snprintf(lab->opts.prefix, sizeof lab->opts.prefix, "%s", prefix);
    lab_lay_out(lab);
    if (tree && strcmp(tree, lab->dir) != 0) {
        bool old = strncmp(tree, LAB_OLD_DATA_DIR "/", strlen(LAB_OLD_DATA_DIR) + 1) == 0;
        snprintf(err, errlen, "lab %s (prefix %s) keeps its files in %.600s%s; take it down "
                 "(faultline lab down %s --prefix %s) and bring it up again, which puts them in "
                 "%s", k->name, prefix, tree,
                 old ? ", where an older faultline put them and where other users can change "
                       "them" : ", not where this faultline keeps a lab's files",
                 k->name, prefix, lab->dir);
        free(r);
        return LAB_LOAD_ELSEWHERE;
    }
    for (size_t i = 0; i < n; i++) {
        struct lab_host *h = r[i].b[0] ? lab_host_mut(lab, r[i].b) : NULL;
        if (h && strcmp(r[i].key, "pid") == 0) { /* the newest record of a host wins */
            h->pid = (pid_t)r[i].n1;
            h->start = r[i].n2;
        } else if (h && strcmp(r[i].key, "ctlport") == 0) {
            h->ctlport = (unsigned)r[i].n1;
        } else if (h && strcmp(r[i].key, "init") == 0) {
            h->init = (pid_t)r[i].n1;
            h->init_start = r[i].n2;
        } else if (h && strcmp(r[i].key, "sshd") == 0) {
            h->sshd = (pid_t)r[i].n1;
            h->sshd_start = r[i].n2;
        } else if (strcmp(r[i].key, "sshd") == 0 && strcmp(r[i].b, LAB_SWITCH_HOST) == 0) {
            lab->switch_sshd = (pid_t)r[i].n1;
            lab->switch_sshd_start = r[i].n2;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].key, "disk") == 0) /* a disk layer (lab_disk.h) */
            lab_disk_note(lab, r[i].b, (pid_t)r[i].n1, r[i].n2);
    free(r);
    if (!ready) {
        snprintf(err, errlen, "lab %s (prefix %s) was not brought up completely; run "
                 "`faultline lab down %s` first", k->name, prefix, k->name);
        return -1;
    }
    return 0;
}
