/* lab_up — bringing a lab up (or finding it up and healthy), checking its
 * health, taking it down.  See lab.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/net.h"
#include "../../lib/proc.h"
#include "lab_clients.h"
#include "lab_disk.h"
#include "lab_kind.h"
#include "lab_load.h"
#include "lab_record.h"
#include "lab_server.h"
#include "lab_ssh.h"
#include "lab_switch.h"
#include "lab_undo.h"

int lab_down(const struct lab_kind *k, const char *prefix, char *err, size_t errlen)
{
    char path[PATH_MAX];
    lab_state_path(k, prefix, path, sizeof path);
    int lock = lab_state_lock(k, prefix, path, err, errlen);
    if (lock < 0)
        return lock == -1 ? 0 : -1;
    int rc = lab_down_locked(path, err, errlen);
    close(lock);
    return rc;
}

/* The lab's own directory, made fresh: anything found where it goes was
 * not made for this lab (its state would name it), so it is refused, and
 * left as it is (it is recorded only once it is ours). */
static int make_lab_dir(const struct lab *lab, int fd, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(lab->dir, &st) == 0) {
        snprintf(err, errlen, "%s is there already (a %s), and no lab state names it: a lab's "
                 "directory is made fresh by `lab up`, never reused; look at what it holds and "
                 "move it away, or use another prefix (--prefix)", lab->dir,
                 S_ISLNK(st.st_mode) ? "symbolic link" : S_ISDIR(st.st_mode) ? "directory"
                                                                             : "file");
        return -1;
    }
    if (lab_rec(fd, err, errlen, "tree %s", lab->dir) != 0)
        return -1;
    if (mkdir(lab->dir, 0700) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", lab->dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The lab directory, the switch and every host; then the kind's servers. */
static int build_lab(struct lab *lab, int fd, char *err, size_t errlen)
{
    if (make_lab_dir(lab, fd, err, errlen) != 0)
        return -1;
    struct nl_sock *sk = net_open(NULL, err, errlen);
    if (!sk)
        return -1;
    int rc = lab_switch_build(lab, sk, fd, err, errlen);
    for (unsigned i = 1; rc == 0 && i < lab->nhosts; i++)
        rc = lab_switch_server(lab, &lab->hosts[i], sk, fd, err, errlen);
    if (rc == 0)
        rc = lab_clients_build(lab, sk, fd, err, errlen);
    net_close(sk);
    if (rc != 0 || lab->kind->build->start(lab, fd, err, errlen) != 0 ||
        lab_ssh_start(lab, fd, err, errlen) != 0 || lab_rec(fd, err, errlen, "ready") != 0)
        return -1;
    /* a failure here still takes the lab down (lab_up) */
    return lab->kind->build->ready ? lab->kind->build->ready(lab, fd, err, errlen) : 0;
}

bool lab_healthy(const struct lab *lab, char *why, size_t n)
{
    char err[512];
    struct nl_sock *sk = net_open(NULL, err, sizeof err);
    if (!sk) {
        snprintf(why, n, "%s", err);
        return false;
    }
    bool ok = true;
    struct link_state st;
    if (net_link_state(sk, lab->bridge, &st, err, sizeof err) != 0 || !st.exists) {
        snprintf(why, n, "switch %s is missing", lab->bridge);
        ok = false;
    }
    for (unsigned i = 0; ok && i < lab->nhosts; i++) {
        const struct lab_host *h = &lab->hosts[i];
        if (h->netns[0] && !netns_exists(h->netns)) {
            snprintf(why, n, "namespace %s is missing", h->netns);
            ok = false;
        } else if (net_link_state(sk, h->port, &st, err, sizeof err) != 0 || !st.exists) {
            snprintf(why, n, "switch port %s is missing", h->port);
            ok = false;
        } else if (h->pid && proc_state(h->pid, h->start) != PROC_RUNNING) {
            snprintf(why, n, "%s of %s (pid %d) is %s", h->service, h->name, (int)h->pid,
                     proc_state_name(proc_state(h->pid, h->start)));
            ok = false;
        } else if (h->init && !lab_server_up(h)) {
            snprintf(why, n, "%s is down: its init (pid %d) is %s", h->name, (int)h->init,
                     proc_state_name(proc_state(h->init, h->init_start)));
            ok = false;
        } else if (h->netns[0] && (!h->sshd || proc_state(h->sshd, h->sshd_start) == PROC_GONE)) {
            snprintf(why, n, "the sshd of %s is not running", h->name);
            ok = false;
        }
    }
    if (ok && (!lab->switch_sshd ||
               proc_state(lab->switch_sshd, lab->switch_sshd_start) == PROC_GONE)) {
        snprintf(why, n, "the sshd of the switch is not running");
        ok = false;
    }
    if (ok)
        ok = lab_clients_healthy(lab, sk, why, n);
    net_close(sk);
    if (ok)
        ok = lab_disks_healthy(lab, why, n);
    if (ok && lab->kind->report->healthy)
        ok = lab->kind->report->healthy(lab, why, n);
    return ok;
}

/* The settings go to the state file first, as "opt KEY VALUE" records. */
static int record_opts(const struct lab *lab, int fd, char *err, size_t errlen)
{
    if (lab_rec(fd, err, errlen, "opt size %llu", (unsigned long long)lab->opts.size) != 0 ||
        lab_rec(fd, err, errlen, "opt clients %llu", (unsigned long long)lab->opts.clients) != 0)
        return -1;
    const struct key_table *t = &lab->kind->keys;
    for (unsigned i = 0; i < t->n; i++) {
        char v[512];
        key_format(&lab->opts, &t->keys[i], v, sizeof v);
        if (lab_rec(fd, err, errlen, "opt %s %s", t->keys[i].name, v) != 0)
            return -1;
    }
    return 0;
}

/* A lab found up: fine if it is healthy and has the same settings. */
static int check_found(const struct lab_kind *k, const struct lab_opts *o, struct lab *lab,
                       const char *prefix, char *err, size_t errlen)
{
    char why[2048] = "";
    int loaded = lab_load(k, prefix, lab, why, sizeof why);
    if (loaded == LAB_LOAD_ELSEWHERE) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (loaded == 0 && lab_healthy(lab, why, sizeof why)) {
        /* Its size does not count: a lab brought up by hand (`lab up`, its
         * default size) serves any scenario of its kind, as it always has. */
        char differ[256];
        lab_settings_differ(lab, o, false, differ, sizeof differ);
        if (!differ[0])
            return 0; /* up already: harmless, if it is the lab that was asked for */
        snprintf(err, errlen, "lab %s (prefix %s) is up with other settings (%s); take it down "
                 "first: faultline lab down %s", k->name, prefix, differ, k->name);
        return -1;
    }
    fprintf(stderr, "faultline: lab %s (prefix %s) is broken (%s); rebuilding it\n", k->name,
            prefix, why);
    char path[PATH_MAX];
    lab_state_path(k, prefix, path, sizeof path);
    return lab_down_locked(path, err, errlen) != 0 ? -1 : 1;
}

int lab_up(const struct lab_kind *k, const struct lab_opts *o, struct lab *lab, bool *created,
           char *err, size_t errlen)
{
    *created = false;
    char prefix[9];
    if (lab_prefix(o->prefix, prefix, sizeof prefix, err, errlen) != 0)
        return -1;
    char path[PATH_MAX];
    lab_state_path(k, prefix, path, sizeof path);
    if (lab_labs_home(0700, err, errlen) != 0)
        return -1;
    int fd;
    /* A lab found up is checked once another faultline making or removing
     * it is done; one that was broken, and taken down, is made anew. */
    for (unsigned tries = 0; (fd = lab_state_create(path, err, errlen)) < 0; tries++) {
        if (fd == -2)
            return -1;
        if (tries == 100) {
            snprintf(err, errlen, "lab %s (prefix %s) keeps coming and going under another "
                     "faultline", k->name, prefix);
            return -1;
        }
        int lock = lab_state_lock(k, prefix, path, err, errlen);
        if (lock == -2)
            return -1;
        if (lock == -1)
            continue; /* gone meanwhile */
        int rc = check_found(k, o, lab, prefix, err, errlen);
        close(lock);
        if (rc <= 0)
            return rc;
    }
    memset(lab, 0, sizeof *lab);
    lab->kind = k;
    snprintf(lab->prefix, sizeof lab->prefix, "%s", prefix);
    lab->subnet = lab_pick_subnet(prefix, path);
    lab->opts = *o;
    snprintf(lab->opts.prefix, sizeof lab->opts.prefix, "%s", prefix);
    if (!lab->opts.size)
        lab->opts.size = k->build->default_size;
    lab_lay_out(lab);
    int rc = lab_rec(fd, err, errlen, "kind %s", k->name) != 0 ||
                     lab_rec(fd, err, errlen, "prefix %s", prefix) != 0 ||
                     lab_rec(fd, err, errlen, "subnet %u", lab->subnet) != 0 ||
                     record_opts(lab, fd, err, errlen) != 0
                 ? -1
                 : build_lab(lab, fd, err, errlen);
    if (rc != 0) {
        char derr[512];
        if (lab_down_locked(path, derr, sizeof derr) != 0)
            fprintf(stderr, "faultline: could not remove the half-built lab either: %s\n", derr);
    }
    close(fd); /* the lock: a down or up waiting for it finds the lab whole, or gone */
    if (rc != 0)
        return -1;
    *created = true;
    return 0;
}
