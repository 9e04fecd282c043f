/*
 * File trees (kind = files): the shapes of the classes, the block numbering
 * across files (in order, and worker by worker), the marker that records
 * the layout, and the namespace check against a real directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../workloads/tree.h"

#define MiB (1024ull * 1024ull)

static struct tree lay(enum tree_class cls, uint64_t budget, uint32_t bs)
{
    struct tree t;
    char err[256];
    assert_int_equal(tree_layout(&t, cls, budget, bs, "/nonexistent/t", err, sizeof err), 0);
    return t;
}

static unsigned depth_of(const char *dir)
{
    unsigned n = strcmp(dir, ".") != 0;
    for (; *dir; dir++)
        n += *dir == '/';
    return n;
}

/* Laid out for several workers, every block still has a place of its own
 * (a permutation), and a worker's blocks (b % workers) fill files of their
 * own: a file is shared by two workers only where their runs meet. */
static void blocks_of_a_worker_fill_files_of_their_own(void **state)
{
    (void)state;
    for (int c = TREE_LARGE; c <= TREE_MIXED; c++)
        for (unsigned workers = 1; workers <= 7; workers += 3) {
            struct tree t = lay((enum tree_class)c, 5 * MiB + 4096 * 3, 1024);
            tree_set_workers(&t, workers);
            uint8_t *seen = calloc(t.blocks, 1);
            unsigned *owner = calloc(t.nfiles, sizeof *owner), shared = 0;
            assert_non_null(seen);
            assert_non_null(owner);
            for (uint64_t b = 0; b < t.blocks; b++) {
                uint64_t index;
                const struct tree_file *f = tree_file_of(&t, b, &index);
                assert_non_null(f);
                assert_true(index < f->blocks);
                uint64_t place = f->first_block + index;
                assert_int_equal(seen[place], 0);
                seen[place] = 1;
                size_t i = (size_t)(f - t.files);
                unsigned w = (unsigned)(b % workers) + 1;
                if (owner[i] && owner[i] != w && owner[i] != UINT32_MAX) {
                    owner[i] = UINT32_MAX;
                    shared++;
                } else if (!owner[i]) {
                    owner[i] = w;
                }
            }
            assert_true(shared <= workers - 1);
            assert_null(tree_file_of(&t, t.blocks, NULL));
            free(seen);
            free(owner);
            tree_free(&t);
        }
}

/* The marker file says how a tree was laid out; an empty one (a tree of an
 * earlier build) is in order. */
static void the_marker_tells_the_layout(void **state)
{
    (void)state;
    char root[] = "/tmp/fl-tree-mark-XXXXXX", err[256];
    assert_non_null(mkdtemp(root));
    struct tree t;
    assert_int_equal(tree_layout(&t, TREE_SMALL, 64 * 1024, 1024, root, err, sizeof err), 0);
    tree_set_workers(&t, 4);
    assert_int_equal(tree_create(&t, NULL, NULL, err, sizeof err), 0);
    unsigned w = 0;
    assert_int_equal(tree_marker_workers(root, &w, err, sizeof err), 0);
    assert_int_equal(w, 4);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, TREE_MARKER);
    assert_int_equal(truncate(path, 0), 0);
    assert_int_equal(tree_marker_workers(root, &w, err, sizeof err), 0);
    assert_int_equal(w, 1);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("layout spiral\n", f);
    fclose(f);
    assert_int_equal(tree_marker_workers(root, &w, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a layout"));
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tree_marker_workers(root, &w, err, sizeof err), -1);
    assert_non_null(strstr(err, "mounted"));
    tree_free(&t);
}

/* Every class: whole blocks, numbered without gaps in file order, within
 * the budget, parents listed before their children. */
static void every_class_numbers_blocks_without_gaps(void **state)
{
    (void)state;
    for (int c = TREE_LARGE; c <= TREE_MIXED; c++) {
        struct tree t = lay((enum tree_class)c, 48 * MiB, 4096);
        uint64_t next = 0;
        for (size_t i = 0; i < t.nfiles; i++) {
            assert_int_equal(t.files[i].first_block, next);
            assert_true(t.files[i].blocks >= 1);
            assert_true(t.files[i].dir < t.ndirs);
            next += t.files[i].blocks;
            uint64_t index;
            assert_ptr_equal(tree_file_of(&t, t.files[i].first_block, &index), &t.files[i]);
            assert_int_equal(index, 0);
            assert_ptr_equal(tree_file_of(&t, next - 1, &index), &t.files[i]);
            assert_int_equal(index, t.files[i].blocks - 1);
        }
        assert_int_equal(t.blocks, next);
        assert_null(tree_file_of(&t, next, NULL));
        assert_true(t.blocks * 4096 <= 48 * MiB);
        assert_true(t.blocks * 4096 >= 40 * MiB); /* the budget is used */
        for (size_t d = 1; d < t.ndirs; d++) {
            const char *slash = strrchr(t.dirs[d], '/');
            if (!slash)
                continue;
            bool parent_before = false;
            for (size_t p = 0; p < d; p++)
                parent_before |= strlen(t.dirs[p]) == (size_t)(slash - t.dirs[d]) &&
                                 strncmp(t.dirs[p], t.dirs[d], (size_t)(slash - t.dirs[d])) == 0;
            assert_true(parent_before);
        }
        tree_free(&t);
    }
}

static void classes_have_their_shapes(void **state)
{
    (void)state;
    struct tree t = lay(TREE_LARGE, 64 * MiB, 4096);
    assert_int_equal(t.nfiles, 4);
    assert_int_equal(t.files[0].blocks * 4096, 16 * MiB);
    tree_free(&t);

    t = lay(TREE_MEDIUM, 200 * MiB, 4096);
    assert_int_equal(t.nfiles, 20);
    assert_int_equal(t.ndirs, 11); /* the root and m00..m09 */
    for (size_t i = 0; i < t.nfiles; i++)
        assert_int_equal(t.files[i].blocks * 4096, 10 * MiB);
    tree_free(&t);

    /* 3 KiB files at 1 KiB blocks, 100 per directory */
    t = lay(TREE_SMALL, 3 * MiB, 1024);
    assert_int_equal(t.nfiles, 1024);
    for (size_t i = 0; i < t.nfiles; i++)
        assert_int_equal(t.files[i].blocks, 3);
    unsigned per_dir[64] = {0};
    for (size_t i = 0; i < t.nfiles; i++)
        per_dir[t.files[i].dir]++;
    for (size_t d = 0; d < t.ndirs; d++)
        assert_true(per_dir[d] <= 100);
    tree_free(&t);

    /* a source tree: at most 4 levels below a top, at most 24 files each,
     * most of them small */
    t = lay(TREE_TREE, 32 * MiB, 4096);
    unsigned small = 0, count[4096] = {0};
    assert_true(t.ndirs < 4096);
    for (size_t i = 0; i < t.nfiles; i++) {
        small += t.files[i].blocks * 4096 <= 12288;
        assert_true(t.files[i].blocks * 4096 <= MiB + 4096);
        count[t.files[i].dir]++;
    }
    for (size_t d = 0; d < t.ndirs; d++) {
        assert_true(count[d] <= 24);
        assert_true(depth_of(t.dirs[d]) <= 5);
    }
    assert_true(small * 2 > t.nfiles);
    tree_free(&t);
}

/* The same inputs give the same tree: `faultline verify` relies on it. */
static void layout_is_deterministic(void **state)
{
    (void)state;
    struct tree a = lay(TREE_TREE, 20 * MiB, 4096), b = lay(TREE_TREE, 20 * MiB, 4096);
    assert_int_equal(a.nfiles, b.nfiles);
    assert_int_equal(a.ndirs, b.ndirs);
    assert_memory_equal(a.files, b.files, a.nfiles * sizeof *a.files);
    for (size_t d = 0; d < a.ndirs; d++)
        assert_string_equal(a.dirs[d], b.dirs[d]);
    tree_free(&a);
    tree_free(&b);
}

struct seen {
    int n[3];
    char last[3][600];
    uint64_t want, found;
};

static void record(void *ctx, enum tree_damage what, const char *rel, uint64_t want,
                   uint64_t found)
{
    struct seen *s = ctx;
    s->n[what]++;
    snprintf(s->last[what], sizeof s->last[what], "%s", rel);
    if (what == TREE_WRONG_SIZE) {
        s->want = want;
        s->found = found;
    }
}

/* On a real directory: created whole, then each kind of damage is told
 * with its path, and nothing else. */
static void check_names_damage_on_disk(void **state)
{
    (void)state;
    char root[] = "/tmp/fl-tree-XXXXXX";
    assert_non_null(mkdtemp(root));
    struct tree t;
    char err[512], path[5000];
    assert_int_equal(tree_layout(&t, TREE_MIXED, 24 * MiB, 4096, root, err, sizeof err), 0);
    assert_int_equal(tree_create(&t, NULL, NULL, err, sizeof err), 0);
    struct seen s;
    memset(&s, 0, sizeof s);
    assert_int_equal(tree_check(&t, NULL, record, &s, err, sizeof err), 0);

    tree_path(&t, &t.files[3], path, sizeof path);
    assert_int_equal(unlink(path), 0);
    tree_path(&t, &t.files[7], path, sizeof path);
    assert_int_equal(truncate(path, 100), 0);
    snprintf(path, sizeof path, "%s/%s/stray", root, t.dirs[t.ndirs - 1]);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/meta-0", root); /* a stream's directory: skipped */
    assert_int_equal(mkdir(path, 0755), 0);
    const char *skip[] = {"meta-0", NULL};
    assert_int_equal(tree_check(&t, skip, record, &s, err, sizeof err), 3);
    assert_int_equal(s.n[TREE_MISSING], 1);
    assert_int_equal(s.n[TREE_WRONG_SIZE], 1);
    assert_int_equal(s.n[TREE_UNEXPECTED], 1);
    char rel[600];
    tree_relpath(&t, &t.files[3], rel, sizeof rel);
    assert_string_equal(s.last[TREE_MISSING], rel);
    tree_relpath(&t, &t.files[7], rel, sizeof rel);
    assert_string_equal(s.last[TREE_WRONG_SIZE], rel);
    assert_int_equal(s.found, 100);
    assert_int_equal(s.want, t.files[7].blocks * 4096);

    /* Made again over the damaged tree (it carries the marker): whole. */
    assert_int_equal(tree_create(&t, NULL, NULL, err, sizeof err), 0);
    memset(&s, 0, sizeof s);
    assert_int_equal(tree_check(&t, NULL, record, &s, err, sizeof err), 0);
    tree_free(&t);
    snprintf(path, sizeof path, "rm -rf %s", root);
    assert_int_equal(system(path), 0);
}

/* A non-empty directory without the marker is not ours: refused, intact. */
static void refuses_a_directory_it_did_not_make(void **state)
{
    (void)state;
    char root[] = "/tmp/fl-tree-XXXXXX";
    assert_non_null(mkdtemp(root));
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/precious", root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    struct tree t;
    assert_int_equal(tree_layout(&t, TREE_LARGE, MiB, 4096, root, err, sizeof err), 0);
    assert_int_equal(tree_create(&t, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a tree of faultline"));
    assert_int_equal(access(path, F_OK), 0);
    tree_free(&t);
    unlink(path);
    rmdir(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_class_numbers_blocks_without_gaps),
        cmocka_unit_test(blocks_of_a_worker_fill_files_of_their_own),
        cmocka_unit_test(the_marker_tells_the_layout),
        cmocka_unit_test(classes_have_their_shapes),
        cmocka_unit_test(layout_is_deterministic),
        cmocka_unit_test(check_names_damage_on_disk),
        cmocka_unit_test(refuses_a_directory_it_did_not_make),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
