/*
 * The disk faults (faults/families/disk.c, disk_host.c): a section's
 * mistakes refused with the reason; the bad ranges drawn from the seed,
 * distinct, in order and within the disk; the device-mapper tables for a
 * [host]'s disk; the report's words from the layer's counts, "0" said
 * plainly; a lab server's disk through a layer that answers on a socket
 * (a thread here); a SCSI disk offline and running again in a fake sysfs
 * (FL_SYSFS_ROOT); the undo records checked and replayed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../faults/families/disk.h"
#include "../../faults/runtime.h"
#include "../../faults/table.h"
#include "../../faults/undo.h"

/* A spec of `action` with "key=value" settings (NULL-terminated). */
static void spec_of(struct fault_spec *s, const char *action, ...)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "d");
    snprintf(s->host, sizeof s->host, "far");
    s->ops = fault_ops_find(action);
    assert_non_null(s->ops);
    char why[256];
    assert_int_equal(key_defaults(s, s->ops->keys, s->ops->nkeys, why, sizeof why), 0);
    va_list ap;
    va_start(ap, action);
    for (const char *kv; (kv = va_arg(ap, const char *));) {
        char key[32];
        const char *eq = strchr(kv, '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
        const struct key_def *k = key_find(s->ops->keys, s->ops->nkeys, key);
        if (!k)
            fail_msg("%s takes no key %s", action, key);
        if (key_set(s, k, eq + 1, why, sizeof why) != 0)
            fail_msg("%s: %s", kv, why);
    }
    va_end(ap);
}

static const struct fault_rules on_host = {.host_known = true, .host_in_lab = false};
static const struct fault_rules on_lab = {.host_known = true, .host_in_lab = true};

/* check refuses s, saying `want`. */
static void refused(const struct fault_spec *s, const struct fault_rules *r, const char *want)
{
    char err[1024] = "";
    if (s->ops->check(s, r, err, sizeof err) == 0)
        fail_msg("accepted; wanted a refusal saying '%s'", want);
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
}

static void accepted(const struct fault_spec *s, const struct fault_rules *r)
{
    char err[1024] = "";
    if (s->ops->check(s, r, err, sizeof err) != 0)
        fail_msg("refused: %s", err);
}

static void every_mistake_of_a_section_is_refused_with_its_reason(void **state)
{
    (void)state;
    struct fault_spec s;
    spec_of(&s, "disk-errors", "length=4k", NULL);
    refused(&s, &on_lab, "length needs offset");
    spec_of(&s, "disk-errors", "offset=4k", NULL);
    refused(&s, &on_lab, "offset needs length");
    spec_of(&s, "disk-errors", "offset=0", "blocks=3", NULL);
    refused(&s, &on_lab, "takes blocks, or offset and length, not both");
    spec_of(&s, "disk-errors", "percent=0", NULL);
    refused(&s, &on_lab, "percent = 0 fails nothing");
    spec_of(&s, "disk-errors", "dm=vg", "percent=5", NULL);
    refused(&s, &on_host, "device-mapper fails every I/O of a range or none");
    spec_of(&s, "disk-slow", NULL);
    refused(&s, &on_lab, "disk-slow needs latency");
    spec_of(&s, "disk-slow", "latency=5ms", "jitter=1ms", "dm=vg", NULL);
    refused(&s, &on_host, "jitter");
    spec_of(&s, "disk-slow", "latency=1500us", "dm=vg", NULL);
    refused(&s, &on_host, "whole milliseconds");
    spec_of(&s, "disk-fail", "device=sdb", "replace=yes", NULL);
    refused(&s, &on_host, "replace = yes cannot be done to a real disk");
    /* what the host is */
    spec_of(&s, "disk-fail", NULL);
    refused(&s, &on_host, "device = sdX");
    spec_of(&s, "disk-errors", NULL);
    refused(&s, &on_host, "dm = NAME");
    spec_of(&s, "disk-full", NULL);
    refused(&s, &on_host, "action = command, command = fallocate");
    spec_of(&s, "disk-fail", "device=sdb", NULL);
    refused(&s, &on_lab, "whose disk is the lab's: leave out device");
    /* and what is right */
    spec_of(&s, "disk-errors", "offset=0", "length=1MiB", "on=both", "percent=5", NULL);
    accepted(&s, &on_lab);
    spec_of(&s, "disk-errors", "blocks=8", "dm=vg", NULL);
    accepted(&s, &on_host);
    spec_of(&s, "disk-slow", "latency=20ms", "dm=vg", NULL);
    accepted(&s, &on_host);
    spec_of(&s, "disk-slow", "latency=500us", "jitter=100us", NULL);
    accepted(&s, &on_lab);
    spec_of(&s, "disk-fail", "replace=yes", "duration=2s", NULL);
    accepted(&s, &on_lab);
    spec_of(&s, "disk-full", NULL);
    accepted(&s, &on_lab);
    /* an agent's check (offset's being given is not sent to it) */
    spec_of(&s, "disk-errors", "length=4k", "dm=vg", NULL);
    accepted(&s, &(struct fault_rules){.host_known = false});
    /* lasting: for its duration */
    struct fault_schedule sch;
    fault_schedule_of(&s, &sch);
    assert_int_equal(sch.shape, FAULT_LASTING);
}

static void bad_blocks_are_drawn_from_the_seed_distinct_and_in_order(void **state)
{
    (void)state;
    struct disk_params p = {.blocks = 16};
    struct disk_ranges a, b, c;
    char why[256];
    uint64_t size = 1 << 20; /* 256 blocks */
    assert_int_equal(disk_pick_ranges(&p, size, 7, &a, why, sizeof why), 0);
    assert_int_equal(disk_pick_ranges(&p, size, 7, &b, why, sizeof why), 0);
    assert_int_equal(disk_pick_ranges(&p, size, 8, &c, why, sizeof why), 0);
    assert_int_equal(a.n, 16);
    assert_int_equal(b.n, 16);
    assert_memory_equal(a.r, b.r, sizeof a.r[0] * a.n);
    assert_true(memcmp(a.r, c.r, sizeof a.r[0] * a.n) != 0);
    for (unsigned i = 0; i < a.n; i++) {
        assert_true(a.r[i][1] == DISK_BLOCK);
        assert_true(a.r[i][0] % DISK_BLOCK == 0 && a.r[i][0] + DISK_BLOCK <= size);
        if (i)
            assert_true(a.r[i][0] > a.r[i - 1][0]);
    }
    /* every block of a small disk: all distinct */
    p.blocks = 4;
    assert_int_equal(disk_pick_ranges(&p, 4 * DISK_BLOCK, 1, &a, why, sizeof why), 0);
    for (unsigned i = 0; i < 4; i++)
        assert_true(a.r[i][0] == i * DISK_BLOCK);
    p.blocks = 5;
    assert_int_equal(disk_pick_ranges(&p, 4 * DISK_BLOCK, 1, &a, why, sizeof why), -1);
    assert_non_null(strstr(why, "the disk has 4 blocks of 4 KiB"));
    /* offset + length, within the disk */
    p = (struct disk_params){.offset = 8192, .offset_given = true, .length = 100};
    assert_int_equal(disk_pick_ranges(&p, size, 1, &a, why, sizeof why), 0);
    assert_int_equal(a.n, 1);
    assert_true(a.r[0][0] == 8192 && a.r[0][1] == 100);
    p.offset = size - 50;
    assert_int_equal(disk_pick_ranges(&p, size, 1, &a, why, sizeof why), -1);
    assert_non_null(strstr(why, "beyond the end of the disk"));
    /* neither: every I/O */
    p = (struct disk_params){0};
    assert_int_equal(disk_pick_ranges(&p, size, 1, &a, why, sizeof why), 0);
    assert_int_equal(a.n, 0);
}

static void device_mapper_tables_fail_exactly_the_ranges(void **state)
{
    (void)state;
    struct dm_linear l;
    char why[256], out[DISK_TABLE_MAX];
    assert_int_equal(dm_parse_linear("0 2048 linear 8:16 100\n", &l, why, sizeof why), 0);
    assert_true(l.sectors == 2048 && l.offset == 100);
    assert_string_equal(l.dev, "8:16");
    dm_linear_line(&l, out, sizeof out);
    assert_string_equal(out, "0 2048 linear 8:16 100");
    assert_int_equal(dm_parse_linear("0 2048 striped 2 128 8:16 0 8:32 0\n", &l, why,
                                     sizeof why), -1);
    assert_non_null(strstr(why, "its table is a striped, not one linear target"));
    assert_int_equal(dm_parse_linear("0 1024 linear 8:16 0\n1024 1024 linear 8:32 0\n", &l,
                                     why, sizeof why), -1);
    assert_non_null(strstr(why, "several targets"));
    assert_int_equal(dm_parse_linear("", &l, why, sizeof why), -1);

    assert_int_equal(dm_parse_linear("0 2048 linear 8:16 100", &l, why, sizeof why), 0);
    assert_int_equal(dm_delay_table(&l, 50000000, 0, out, sizeof out, why, sizeof why), 0);
    assert_string_equal(out, "0 2048 delay 8:16 100 50");
    assert_int_equal(dm_delay_table(&l, 50000000, 1000000, out, sizeof out, why, sizeof why), -1);
    assert_int_equal(dm_delay_table(&l, 500000, 0, out, sizeof out, why, sizeof why), -1);
    assert_non_null(strstr(why, "whole milliseconds"));

    /* bytes 4096..8191 and 8000..12287 (overlapping), and the last sector */
    struct disk_ranges r = {.r = {{4096, 4096}, {8000, 4288}, {2047 * 512, 1}}, .n = 3};
    assert_int_equal(dm_errors_table(&l, DISK_ON_BOTH, &r, out, sizeof out, why, sizeof why), 0);
    assert_string_equal(out, "0 8 linear 8:16 100\n"
                             "8 8 error\n"
                             "16 8 error\n"
                             "24 2023 linear 8:16 124\n"
                             "2047 1 error\n");
    assert_int_equal(dm_errors_table(&l, DISK_ON_READ, &r, out, sizeof out, why, sizeof why), 0);
    assert_non_null(strstr(out, "8 8 flakey 8:16 108 0 1 1 error_reads\n"));
    assert_int_equal(dm_errors_table(&l, DISK_ON_WRITE, &(struct disk_ranges){.n = 0}, out,
                                     sizeof out, why, sizeof why), 0);
    assert_string_equal(out, "0 2048 flakey 8:16 100 0 1 1 error_writes\n");
    r = (struct disk_ranges){.r = {{2048 * 512, 512}}, .n = 1};
    assert_int_equal(dm_errors_table(&l, DISK_ON_BOTH, &r, out, sizeof out, why, sizeof why), -1);
    assert_non_null(strstr(why, "not within the device"));
}

static void the_report_says_what_the_layer_counted(void **state)
{
    (void)state;
    struct disk_fault s = {0};
    snprintf(s.lab.what, sizeof s.lab.what, "gs1's brick disk (gs1/brick.img, 512 MiB)");
    char out[1024];
    struct disk_params p = {.on = 0, .percent = 100};
    struct disk_counts d = {.reads = 9000, .failed_reads = 412, .writes = 30};
    s.ranges.n = 0;
    s.cache_dropped = true;
    disk_detail(DISK_ACT_ERRORS, &p, &s, &d, out, sizeof out);
    assert_string_equal(out, "gs1's brick disk (gs1/brick.img, 512 MiB): 412 of 9000 reads "
                             "failed with EIO (bad reads anywhere on the disk); the page cache "
                             "was dropped at inject, so that reads reached the disk");
    p = (struct disk_params){.on = 2, .percent = 5, .blocks = 2};
    s = (struct disk_fault){.ranges.n = 2};
    snprintf(s.lab.what, sizeof s.lab.what, "d");
    d = (struct disk_counts){0};
    disk_detail(DISK_ACT_ERRORS, &p, &s, &d, out, sizeof out);
    assert_string_equal(out, "d: 0 of 0 reads and 0 of 0 writes failed with EIO (bad reads "
                             "and writes in 2 random 4 KiB blocks, each with 5% odds)");
    p = (struct disk_params){.latency_ns = 50000000, .jitter_ns = 10000000};
    d = (struct disk_counts){.slowed = 1290, .reads = 1000, .writes = 290};
    disk_detail(DISK_ACT_SLOW, &p, &s, &d, out, sizeof out);
    assert_string_equal(out, "d: 1290 I/Os held back 50 ms (+0..10 ms) (of 1000 reads, 290 "
                             "writes and 0 syncs)");
    d = (struct disk_counts){.nospace = 37, .writes = 80};
    disk_detail(DISK_ACT_FULL, &p, &s, &d, out, sizeof out);
    assert_string_equal(out, "d: 37 of 80 writes failed with ENOSPC");
    p = (struct disk_params){.replace = true};
    d = (struct disk_counts){.reads = 3, .failed_reads = 3};
    disk_detail(DISK_ACT_FAIL, &p, &s, &d, out, sizeof out);
    assert_string_equal(out, "d: 3 of 3 reads, 0 of 0 writes and 0 of 0 syncs failed with EIO; "
                         "it came back empty (replaced)");
}

/* --- a lab server's disk, through a layer on a socket --- */

struct layer {
    int fd;
    char sock[108];
    char heard[8][256];
    unsigned n;
};

/* Answers every line as the disk layer would, with counts that grow. */
static void *serve(void *arg)
{
    struct layer *L = arg;
    for (unsigned k = 0; k < 8; k++) {
        int c = accept(L->fd, NULL, NULL);
        if (c < 0)
            break;
        char line[256] = "";
        ssize_t got = read(c, line, sizeof line - 1);
        line[got > 0 ? got : 0] = '\0';
        line[strcspn(line, "\n")] = '\0';
        snprintf(L->heard[L->n++ % 8], sizeof L->heard[0], "%s", line);
        const char *ans = strncmp(line, "clear", 5) == 0
                              ? "ok ok reads=110 writes=95 syncs=3 slowed=60 nospace=37\n"
                              : "ok ok reads=100 writes=50 syncs=2 slowed=0 nospace=0\n";
        if (write(c, ans, strlen(ans)) < 0)
            break;
        close(c);
        if (strncmp(line, "clear", 5) == 0)
            break;
    }
    return NULL;
}

static int fake_disk(void *ctx, const char *host, struct lab_disk *d, char *err, size_t n)
{
    struct layer *L = ctx;
    if (strcmp(host, "gs1") != 0) {
        snprintf(err, n, "%s has no disk of its own", host);
        return -1;
    }
    snprintf(d->control, sizeof d->control, "%s", L->sock);
    snprintf(d->what, sizeof d->what, "gs1's brick disk");
    d->size = 64 << 20;
    return 0;
}

static void a_lab_servers_disk_is_set_and_cleared_and_its_counts_reported(void **state)
{
    (void)state;
    char dir[] = "/tmp/fl-test-disk-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct layer L = {0};
    snprintf(L.sock, sizeof L.sock, "%s/ctl", dir);
    L.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", L.sock);
    assert_int_equal(bind(L.fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(L.fd, 4), 0);
    pthread_t t;
    pthread_create(&t, NULL, serve, &L);

    static struct fault f;
    static struct fault_env env;
    struct undo_log u;
    char err[1024] = "";
    memset(&f, 0, sizeof f);
    memset(&env, 0, sizeof env);
    assert_int_equal(undo_open_unlisted(&u, dir, err, sizeof err), 0);
    struct fault_lab lab = {.ctx = &L, .disk = fake_disk};
    env = (struct fault_env){.dir = dir, .undo = &u, .lab = &lab, .seed = 42};
    spec_of(&f.spec, "disk-slow", "latency=50ms", NULL);
    f.ops = f.spec.ops;
    f.env = &env;
    f.via = &fault_via_local;
    snprintf(f.host.name, sizeof f.host.name, "gs1");
    f.host.lab = true;
    if (f.ops->prepare(&f, err, sizeof err) != 0)
        fail_msg("prepare: %s", err);
    assert_int_equal(f.nplanned, 1);
    assert_string_equal(f.undo_kind[0], "disk-clear");
    assert_int_equal(undo_check(f.undo_kind[0], f.undo_args[0], err, sizeof err), 0);
    assert_int_equal(fault_write_undo(&f, err, sizeof err), 0);
    if (f.ops->inject(&f, err, sizeof err) != 0)
        fail_msg("inject: %s", err);
    char what[1024];
    f.ops->describe(&f, what, sizeof what);
    assert_string_equal(what, "gs1's brick disk: every I/O held back 50 ms");
    if (f.ops->clear(&f, err, sizeof err) != 0)
        fail_msg("clear: %s", err);
    pthread_join(t, NULL);
    assert_string_equal(L.heard[0], "status");
    assert_string_equal(L.heard[1], "set slow latency_us=50000");
    assert_string_equal(L.heard[2], "clear");
    assert_string_equal(f.detail, "gs1's brick disk: 60 I/Os held back 50 ms (of 10 reads, 45 "
                                  "writes and 1 syncs)");
    assert_int_equal(f.nundo, 0);
    /* the record is done: nothing is left to replay */
    unsigned undone = 9;
    undo_close(&u, 1);
    assert_int_equal(undo_replay(dir, &undone, err, sizeof err), 0);
    assert_int_equal(undone, 0);
    fault_release(&f);

    /* a host the lab has no disk for: the lab's own words */
    memset(&f, 0, sizeof f);
    spec_of(&f.spec, "disk-full", NULL);
    f.ops = f.spec.ops;
    f.env = &env;
    snprintf(f.host.name, sizeof f.host.name, "ctrl-a");
    f.host.lab = true;
    assert_int_equal(f.ops->prepare(&f, err, sizeof err), -1);
    assert_string_equal(err, "ctrl-a has no disk of its own");
    fault_release(&f);
    /* a host that is no lab server */
    f.host.lab = false;
    assert_int_equal(f.ops->prepare(&f, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not a lab server; on a machine of your own, fill its "
                                "filesystem"));
    close(L.fd);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* --- a SCSI disk in a fake sysfs --- */

static void put(const char *path, const char *text)
{
    FILE *w = fopen(path, "w");
    assert_non_null(w);
    fputs(text, w);
    fclose(w);
}

static void get(const char *path, char *out, size_t n)
{
    FILE *r = fopen(path, "r");
    assert_non_null(r);
    if (!fgets(out, (int)n, r))
        out[0] = '\0';
    fclose(r);
    out[strcspn(out, "\n")] = '\0';
}

static void a_scsi_disk_goes_offline_and_running_again(void **state)
{
    (void)state;
    char dir[] = "/tmp/fl-test-disk-XXXXXX", p[256], st[256], cnt[256], text[64];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof p, "mkdir -p %s/sys/block/sdz/device", dir);
    assert_int_equal(system(p), 0);
    snprintf(st, sizeof st, "%s/sys/block/sdz/device/state", dir);
    snprintf(cnt, sizeof cnt, "%s/sys/block/sdz/device/ioerr_cnt", dir);
    put(st, "running\n");
    put(cnt, "0x3\n");
    snprintf(p, sizeof p, "%s/sys", dir);
    setenv("FL_SYSFS_ROOT", p, 1);

    static struct fault f;
    static struct fault_env env;
    struct undo_log u;
    char err[1024] = "";
    memset(&f, 0, sizeof f);
    assert_int_equal(undo_open_unlisted(&u, dir, err, sizeof err), 0);
    env = (struct fault_env){.dir = dir, .undo = &u};
    spec_of(&f.spec, "disk-fail", "device=/dev/sdz", NULL);
    f.ops = f.spec.ops;
    f.env = &env;
    snprintf(f.host.name, sizeof f.host.name, "far");
    if (f.ops->prepare(&f, err, sizeof err) != 0)
        fail_msg("prepare: %s", err);
    assert_string_equal(f.undo_kind[0], "scsi-running");
    assert_string_equal(f.undo_args[0], "sdz");
    assert_int_equal(fault_write_undo(&f, err, sizeof err), 0);
    assert_int_equal(f.ops->inject(&f, err, sizeof err), 0);
    get(st, text, sizeof text);
    assert_string_equal(text, "offline");
    put(cnt, "0x10\n");
    assert_int_equal(f.ops->clear(&f, err, sizeof err), 0);
    get(st, text, sizeof text);
    assert_string_equal(text, "running");
    assert_string_equal(f.detail, "SCSI disk /dev/sdz of far set offline, every I/O fails, then "
                                  "running again: 13 I/Os failed (its ioerr_cnt)");
    fault_release(&f);

    /* a killed run's record, replayed */
    put(st, "offline\n");
    assert_int_equal(undo_apply("scsi-running", "sdz", err, sizeof err), 0);
    get(st, text, sizeof text);
    assert_string_equal(text, "running");
    assert_int_equal(undo_apply("scsi-running", "sdgone", err, sizeof err), 0);

    /* not a SCSI disk; no device-mapper here */
    memset(&f, 0, sizeof f);
    spec_of(&f.spec, "disk-fail", "device=sdq", NULL);
    f.ops = f.spec.ops;
    f.env = &env;
    snprintf(f.host.name, sizeof f.host.name, "far");
    assert_int_equal(f.ops->prepare(&f, err, sizeof err), -1);
    assert_non_null(strstr(err, "sdq is not a SCSI disk of far: no "));
    fault_release(&f);
    spec_of(&f.spec, "disk-slow", "latency=5ms", "dm=vg0", NULL);
    f.ops = f.spec.ops;
    assert_int_equal(f.ops->prepare(&f, err, sizeof err), -1);
    assert_non_null(strstr(err, "far has no device-mapper (no /sys/module/dm_mod)"));
    fault_release(&f);
    unsetenv("FL_SYSFS_ROOT");
    undo_close(&u, 1);
    snprintf(p, sizeof p, "rm -rf %s", dir);
    assert_int_equal(system(p), 0);
}

static void the_undo_records_are_checked(void **state)
{
    (void)state;
    char err[512];
    assert_int_equal(undo_check("disk-clear", "keep /run/x/ctl", err, sizeof err), 0);
    assert_int_equal(undo_check("disk-clear", "replace /run/x/ctl", err, sizeof err), 0);
    assert_int_equal(undo_check("disk-clear", "maybe /run/x/ctl", err, sizeof err), -1);
    assert_int_equal(undo_check("dm-table", "vg0 0 2048 linear 8:16 0", err, sizeof err), 0);
    assert_int_equal(undo_check("dm-table", "vg0 0 2048 error", err, sizeof err), -1);
    assert_int_equal(undo_check("scsi-running", "sdb", err, sizeof err), 0);
    assert_int_equal(undo_check("scsi-running", "../sdb", err, sizeof err), -1);
    /* a layer that is gone took its fault along */
    assert_int_equal(undo_apply("disk-clear", "keep /nonexistent/ctl", err, sizeof err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_mistake_of_a_section_is_refused_with_its_reason),
        cmocka_unit_test(bad_blocks_are_drawn_from_the_seed_distinct_and_in_order),
        cmocka_unit_test(device_mapper_tables_fail_exactly_the_ranges),
        cmocka_unit_test(the_report_says_what_the_layer_counted),
        cmocka_unit_test(a_lab_servers_disk_is_set_and_cleared_and_its_counts_reported),
        cmocka_unit_test(a_scsi_disk_goes_offline_and_running_again),
        cmocka_unit_test(the_undo_records_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
