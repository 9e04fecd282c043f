/* lab_disk — a lab server's disk on the disk layer (lab_disk.c): each image
 * a server mounts (a gluster brick, a ceph server's disk, the iSCSI LUN) is
 * reached through faultline-disk (harness/lab/disk/disk.c), a FUSE file
 * over the image that the disk faults command on its control socket
 * (lib/diskctl.h).  The layer is the disk, not the server: it runs in our
 * own namespaces, started before the server boots (so that its mount is
 * in the server's mount namespace, a copy of ours), and a power cut of the
 * server leaves it running.  With [lab] disk_faults = no the images are
 * mounted straight, and there is no layer.
 *
 * A layer called NAME (a kind's name for the disk: "gs1", "lun") keeps its
 * files in the lab's root-only directory, LAB/disk-NAME: its mount (the
 * file LAB/disk-NAME/disk), LAB/disk-NAME.sock (its control socket),
 * .pid and .log.  The state records its mount ("diskmount DIR") before it
 * starts and its process ("disk NAME PID START") once it runs; `lab down`
 * undoes both after the servers are gone (lab_undo.c). */
#ifndef FL_LAB_DISK_H
#define FL_LAB_DISK_H

#include "lab.h"

/* [lab] disk_faults, in the key table of each kind whose servers have
 * disks (its bool field in the kind's options). */
#define LAB_DISK_FAULTS_KEY(type, field, dflt)                                                \
    {"disk_faults", KEY_BOOL, dflt, NULL, LAB_OPT(type, field), 0, 0,                           \
     "each server's disk (a gluster brick, a ceph server's disk, the iSCSI LUN) sits on "      \
     "faultline-disk, a FUSE layer over its image that the disk faults (disk-fail, "            \
     "disk-errors, disk-slow, disk-full) command; no: the images are used straight (no "        \
     "layer, no cost), and those faults are refused.  Default yes on gluster and ceph (the "   \
     "layer costs them 6-10% of a run's I/O), no on iscsi (72%: this kernel's FUSE takes "      \
     "tgtd's writes and flushes of one file one at a time)", 0}

/* A disk of the lab as its kind names it (lab_faults.disk). */
struct lab_disk_spec {
    char name[16];   /* the layer's name: "gs1", "lun" */
    char image[200]; /* the image file under it */
    uint64_t size;   /* its bytes */
    char what[128];  /* for people: "gs1's brick disk" */
};

/* Whether the lab's disks are on the layer ([lab] disk_faults; false for a
 * kind without that key). */
bool lab_disk_faults(const struct lab *lab);

/* The file a server mounts for disk s: the layer's file, or (disk_faults =
 * no) the image itself. */
void lab_disk_file(const struct lab *lab, const struct lab_disk_spec *s, char *out, size_t n);

/* Starts the layer of disk s (nothing with disk_faults = no), its mount
 * and process recorded first, and waits (bounded) until its file is
 * there.  0, or -1 with err. */
int lab_disk_start(struct lab *lab, const struct lab_disk_spec *s, int fd, char *err,
                   size_t errlen);

/* The layer called name runs as pid (lab->disks: a "disk" record, read
 * back or just written; the newest of a name wins). */
void lab_disk_note(struct lab *lab, const char *name, pid_t pid, uint64_t start);

/* Whether every layer the lab should have runs.  false with why. */
bool lab_disks_healthy(const struct lab *lab, char *why, size_t n);

/* The layers in `lab status`: into j (--json, a "disks" member) or as
 * lines to out. */
void lab_disks_status(const struct lab *lab, struct json *j, FILE *out);

/* fault_lab.disk: the disk of lab host `host` as the faults reach it.  0,
 * or -1 with err (a host without a disk, disk_faults = no, a layer that
 * does not run). */
int lab_disk_of(const struct lab *lab, const char *host, struct lab_disk *d, char *err,
                size_t errlen);

/* The server whose disk `file` is (its image, or its layer's file: what a
 * loop device is bound to), as lab host name; NULL for none.  The iSCSI
 * controllers' shared disk is ctrl-a's. */
const char *lab_disk_host(const struct lab *lab, const char *file);

/* A program of ours (faultline-disk, faultline-wcache): next to this one
 * (./faultline, build/asan/faultline and build/NAME), else on PATH. */
void lab_program(const char *name, char *out, size_t n);

#endif
