/*
 * lab_disk: a lab's disks as the disk faults reach them
 * (harness/lab/lab_disk.h), without a lab up: a lab laid out from its
 * prefix, its layers noted as the state records them.
 *
 * fault_lab.disk (lab_disk_of) gives a server's control socket, what the
 * disk is and its size; the iSCSI controllers share one disk (on the
 * layer only with disk_faults = yes, not that kind's default); a host
 * without a disk, a server whose layer is not recorded or not running, and
 * a lab with disk_faults = no are refused with the reason.  Health names
 * the first layer missing; a loop device's backing file names the server
 * whose disk it is.  The state's "disk NAME PID START" records read
 * back into lab->disks, the newest of a name winning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../harness/lab/lab_disk.h"
#include "../../harness/lab/lab_kind.h"
#include "../../harness/lab/lab_load.h"
#include "../../lib/proc.h"

static struct lab L; /* large */

/* A lab of kind `kind`, prefix fl, as lab up lays it out. */
static struct lab *laid_out(const char *kind)
{
    char err[256];
    memset(&L, 0, sizeof L);
    L.kind = lab_kind_find(kind);
    assert_non_null(L.kind);
    assert_int_equal(lab_opts_init(L.kind, &L.opts, err, sizeof err), 0);
    snprintf(L.prefix, sizeof L.prefix, "fl");
    L.opts.size = L.kind->build->default_size;
    lab_lay_out(&L);
    return &L;
}

/* The layer called name runs: this process stands for it. */
static void runs(struct lab *lab, const char *name)
{
    lab_disk_note(lab, name, getpid(), proc_starttime(getpid()));
}

static void set_key(struct lab *lab, const char *key, const char *value)
{
    const struct key_table *t = &lab->kind->keys;
    const struct key_def *k = key_find(t->keys, t->n, key);
    char why[256];
    assert_non_null(k);
    assert_int_equal(key_set(&lab->opts, k, value, why, sizeof why), 0);
}

static void refused(const struct lab *lab, const char *host, const char *why)
{
    struct lab_disk d;
    char err[512] = "";
    assert_int_equal(lab_disk_of(lab, host, &d, err, sizeof err), -1);
    if (!strstr(err, why))
        fail_msg("%s: '%s' does not say '%s'", host, err, why);
}

static void a_server_disk_is_its_layer(void **state)
{
    (void)state;
    struct lab *lab = laid_out("gluster");
    assert_true(lab_disk_faults(lab)); /* the default */
    refused(lab, "gs1", "no disk layer");
    for (const char *const *n = (const char *const[]){"gs1", "gs2", "gs3", NULL}; *n; n++)
        runs(lab, *n);
    struct lab_disk d;
    char err[512] = "";
    if (lab_disk_of(lab, "gs2", &d, err, sizeof err) != 0)
        fail_msg("gs2: %s", err);
    assert_string_equal(d.control, LAB_DATA_DIR "/fl-gluster/disk-gs2.sock");
    assert_string_equal(d.what, "gs2's brick disk (" LAB_DATA_DIR "/fl-gluster/gs2/brick.img, "
                                "512 MiB)");
    assert_int_equal(d.size, 512ull << 20);
    refused(lab, "client", "no disk of its own");
    refused(lab, "gs9", "not a host of the gluster lab");
    /* a loop device's backing file, to the server whose disk it is */
    assert_string_equal(lab_disk_host(lab, LAB_DATA_DIR "/fl-gluster/disk-gs3/disk"), "gs3");
    assert_string_equal(lab_disk_host(lab, LAB_DATA_DIR "/fl-gluster/gs3/brick.img"), "gs3");
    assert_null(lab_disk_host(lab, LAB_DATA_DIR "/fl-gluster/gs3/other.img"));
    char file[256];
    struct lab_disk_spec s;
    assert_true(lab->kind->faults->disk(lab, &lab->hosts[1], &s));
    lab_disk_file(lab, &s, file, sizeof file);
    assert_string_equal(file, LAB_DATA_DIR "/fl-gluster/disk-gs1/disk");
    /* disk_faults = no: the image itself, and no disk to fail */
    set_key(lab, "disk_faults", "no");
    lab_disk_file(lab, &s, file, sizeof file);
    assert_string_equal(file, LAB_DATA_DIR "/fl-gluster/gs1/brick.img");
    refused(lab, "gs1", "disk_faults = no");
}

static void the_controllers_share_one_disk(void **state)
{
    (void)state;
    struct lab *lab = laid_out("iscsi");
    runs(lab, "lun");
    /* not on the layer unless asked, on this kind (what it costs tgtd) */
    refused(lab, "ctrl-a", "disk_faults = no");
    set_key(lab, "disk_faults", "yes");
    struct lab_disk a, b;
    char err[512] = "";
    assert_int_equal(lab_disk_of(lab, "ctrl-a", &a, err, sizeof err), 0);
    assert_int_equal(lab_disk_of(lab, "ctrl-b", &b, err, sizeof err), 0);
    assert_string_equal(a.control, b.control);
    assert_string_equal(a.control, LAB_DATA_DIR "/fl-iscsi/disk-lun.sock");
    assert_string_equal(a.what, "the LUN's disk, shared by ctrl-a and ctrl-b (" LAB_DATA_DIR
                                "/fl-iscsi/lun.img, 256 MiB)");
    refused(lab, "client", "no disk of its own");
    char why[512] = "";
    assert_true(lab_disks_healthy(lab, why, sizeof why));
}

static void health_names_a_missing_layer(void **state)
{
    (void)state;
    struct lab *lab = laid_out("ceph");
    runs(lab, "cs1");
    runs(lab, "cs3");
    char why[512] = "";
    assert_false(lab_disks_healthy(lab, why, sizeof why));
    if (!strstr(why, "cs2's disk"))
        fail_msg("health says '%s', not cs2's disk", why);
    /* a layer that is gone (a PID with another start time) */
    lab_disk_note(lab, "cs2", getpid(), proc_starttime(getpid()) + 1);
    assert_false(lab_disks_healthy(lab, why, sizeof why));
    if (!strstr(why, "cs2's disk") || !strstr(why, "faultline-disk"))
        fail_msg("health says '%s'", why);
    runs(lab, "cs2");
    assert_true(lab_disks_healthy(lab, why, sizeof why));
    struct lab_disk d;
    char err[512];
    assert_int_equal(lab_disk_of(lab, "cs2", &d, err, sizeof err), 0);
    assert_int_equal(d.size, 5ull << 30); /* [lab] size + 2 GiB for every daemon's store */
    set_key(lab, "disk_faults", "no");
    assert_true(lab_disks_healthy(lab, why, sizeof why)); /* no layers to have */
}

static void the_state_records_read_back(void **state)
{
    (void)state;
    char path[] = "/tmp/fl-test-lab-disk-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "kind gluster\nprefix fl\nsubnet 7\nopt disk_faults yes\n"
               "diskmount %s/fl-gluster/disk-gs1\ndisk gs1 100 5\n"
               "diskmount %s/fl-gluster/disk-gs2\ndisk gs2 200 6\n"
               "disk gs1 300 7\nready\n", LAB_DATA_DIR, LAB_DATA_DIR);
    fclose(f);
    char err[512] = "";
    int rc = lab_load_file(lab_kind_find("gluster"), "fl", path, &L, err, sizeof err);
    unlink(path);
    if (rc != 0)
        fail_msg("lab_load_file: %s", err);
    assert_int_equal(L.ndisks, 2);
    assert_string_equal(L.disks[0].name, "gs1");
    assert_int_equal(L.disks[0].pid, 300); /* the newest */
    assert_int_equal(L.disks[0].start, 7);
    assert_string_equal(L.disks[1].name, "gs2");
    assert_int_equal(L.disks[1].pid, 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_server_disk_is_its_layer),
        cmocka_unit_test(the_controllers_share_one_disk),
        cmocka_unit_test(health_names_a_missing_layer),
        cmocka_unit_test(the_state_records_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
