/*
 * result_render: report.txt and junit.xml are told from report.json alone.
 *
 * Each folder of tests/fixtures/results/ holds a report.json a real run
 * (or verify) wrote, with the report.txt and junit.xml written beside it
 * at the time.  Read back into the record and rendered again, both files
 * must come out byte for byte the same: the renderers need nothing of the
 * live run, and say exactly what report.json says.
 *
 * A change that means to change what they say renders them anew with
 * FL_GOLDEN_UPDATE=1 (the test then writes the fixtures' report.txt and
 * junit.xml and passes); `git diff tests/fixtures` shows what changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../harness/report/result_render.h"
#include "../../lib/jread.h"

#define FIXTURES "tests/fixtures/results"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 4096 > cap) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
        size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

/* The same bytes, or a failure naming the first line that differs. */
static void assert_same_file(const char *want_path, const char *got_path)
{
    size_t nw, ng;
    char *want = slurp(want_path, &nw), *got = slurp(got_path, &ng);
    if (nw != ng || memcmp(want, got, nw) != 0) {
        size_t i = 0, line = 1, start = 0;
        for (; i < nw && i < ng && want[i] == got[i]; i++)
            if (want[i] == '\n') {
                line++;
                start = i + 1;
            }
        fail_msg("%s differs from %s at line %zu:\n  want: %.160s\n  got:  %.160s", got_path,
                 want_path, line, want + start, got + (start < ng ? start : ng));
    }
    free(want);
    free(got);
}

/* Renders fixture NAME into a fresh folder and compares both files. */
static void renders_as_written(const char *name)
{
    char dir[256], out[] = "build/render-XXXXXX", err[512], a[512], b[512];
    snprintf(dir, sizeof dir, FIXTURES "/%s", name);
    assert_non_null(mkdtemp(out));
    struct result res;
    if (result_read(dir, &res, err, sizeof err) != 0)
        fail_msg("%s", err);
    if (result_write_text(&res, out, err, sizeof err) != 0 ||
        result_write_junit(&res, out, err, sizeof err) != 0)
        fail_msg("%s", err);
    if (getenv("FL_GOLDEN_UPDATE") && (result_write_text(&res, dir, err, sizeof err) != 0 ||
                                       result_write_junit(&res, dir, err, sizeof err) != 0))
        fail_msg("%s", err);
    result_free(&res);
    const char *files[] = {"report.txt", "junit.xml"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(a, sizeof a, "%s/%s", dir, files[i]);
        snprintf(b, sizeof b, "%s/%s", out, files[i]);
        assert_same_file(a, b);
        unlink(b);
    }
    rmdir(out);
}

static void corrupt_faults_and_their_findings(void **state)
{
    (void)state;
    renders_as_written("corrupt-run"); /* three faults, findings on overwritten blocks */
}

static void a_fault_whose_clear_failed(void **state)
{
    (void)state;
    renders_as_written("clear-failed"); /* not as written: verdict error */
}

static void an_interrupted_run(void **state)
{
    (void)state;
    renders_as_written("interrupted");
}

static void clients_one_of_them_lost(void **state)
{
    (void)state;
    renders_as_written("clients-lost");
}

static void a_verify_of_clients_with_findings(void **state)
{
    (void)state;
    renders_as_written("clients-verify"); /* owner and reader of each finding */
}

static void a_file_tree_with_metadata_streams(void **state)
{
    (void)state;
    renders_as_written("files-run");
}

static void a_file_tree_verified_after_a_crash(void **state)
{
    (void)state;
    renders_as_written("files-verify-after-crash");
}

/* The record keeps what it read: a number by its key, null as unknown,
 * and a report.json that is not an object is refused. */
static void the_record_holds_what_report_json_says(void **state)
{
    (void)state;
    struct result res;
    char err[512];
    assert_int_equal(result_read(FIXTURES "/corrupt-run", &res, err, sizeof err), 0);
    assert_string_equal(res.verdict, "pass");
    assert_int_equal(res.nfaults, 3);
    const struct result_fault *f = &res.faults[0];
    assert_true(result_fault_named(&res, f->name) == f);
    const struct result_value *v = result_value_of(f->values, f->nvalues, "stall_s");
    assert_non_null(v);
    assert_true(v->known == f->stall.known);
    assert_null(result_value_of(f->values, f->nvalues, "no_such_key"));
    assert_non_null(result_value_of(res.measured, res.nmeasured, "iops"));
    assert_non_null(res.manifest);
    result_free(&res);

    struct jv *doc = NULL;
    char why[128];
    assert_int_equal(jv_parse("[\"run\"]", 7, &doc, why, sizeof why), 0);
    assert_int_equal(result_from_json(doc, &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a report"));
    result_free(&res);
    jv_free(doc);
    assert_int_equal(result_read("tests/fixtures/no-such-run", &res, err, sizeof err), -1);
    assert_non_null(strstr(err, "no-such-run"));
    result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corrupt_faults_and_their_findings),
        cmocka_unit_test(a_fault_whose_clear_failed),
        cmocka_unit_test(an_interrupted_run),
        cmocka_unit_test(clients_one_of_them_lost),
        cmocka_unit_test(a_verify_of_clients_with_findings),
        cmocka_unit_test(a_file_tree_with_metadata_streams),
        cmocka_unit_test(a_file_tree_verified_after_a_crash),
        cmocka_unit_test(the_record_holds_what_report_json_says),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
