/*
 * jread: a report read back is the report that was written — nested
 * objects, arrays, escapes and numbers as JSON defines them — and a
 * document that is not JSON is refused with the place of the mistake.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../lib/jread.h"
#include "../../lib/json.h"

static struct jv *parse_ok(const char *text)
{
    struct jv *v = NULL;
    char why[128] = "";
    int rc = jv_parse(text, strlen(text), &v, why, sizeof why);
    if (rc != 0)
        fail_msg("%s: %s", text, why);
    return v;
}

static void nested_values_are_found_by_path(void **state)
{
    (void)state;
    struct jv *v = parse_ok(" {\"verdict\": \"pass\", \"faults\": [ {\"name\": \"kill\", "
                            "\"stall_s\": 1.25e-1, \"recovery_s\": null}, {\"stall_s\": -2} ],"
                            " \"ok\": true, \"no\": false, \"empty\": {}, \"none\": []}\n");
    double d = 0;
    bool b = false;
    assert_string_equal(jv_str(jv_get(v, "verdict")), "pass");
    assert_true(jv_num(jv_path(v, "faults.0.stall_s"), &d));
    assert_true(d == 0.125);
    assert_true(jv_num(jv_path(v, "faults.1.stall_s"), &d));
    assert_true(d == -2);
    assert_string_equal(jv_str(jv_path(v, "faults.0.name")), "kill");
    assert_false(jv_num(jv_path(v, "faults.0.recovery_s"), &d)); /* null is not a number */
    assert_int_equal(jv_path(v, "faults.0.recovery_s")->type, JV_NULL);
    assert_null(jv_path(v, "faults.2"));
    assert_null(jv_path(v, "faults.x"));
    assert_null(jv_path(v, "verdict.x"));
    assert_true(jv_bool(jv_get(v, "ok"), &b) && b);
    assert_true(jv_bool(jv_get(v, "no"), &b) && !b);
    assert_int_equal(jv_len(jv_get(v, "faults")), 2);
    assert_int_equal(jv_len(jv_get(v, "empty")), 0);
    assert_int_equal(jv_get(v, "none")->type, JV_ARR);
    jv_free(v);
}

static void strings_are_unescaped(void **state)
{
    (void)state;
    struct jv *v = parse_ok("[\"a\\\"b\\\\c\\/d\\n\\t\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\"]");
    assert_string_equal(jv_str(jv_at(v, 0)), "a\"b\\c/d\n\t");
    assert_string_equal(jv_str(jv_at(v, 1)), "\xc3\xa9\xe2\x82\xac");
    assert_string_equal(jv_str(jv_at(v, 2)), "\xf0\x9f\x98\x80");
    jv_free(v);
}

static void what_is_not_json_is_refused_with_its_place(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"{\"a\": 1,}", "line 1 col 9: expected a key"},
        {"{\"a\": 1}\n x", "line 2 col 2: trailing bytes after the value"},
        {"[1, 2", "expected ',' or ']'"},
        {"[01]", "expected ',' or ']'"},
        {"\"abc", "unterminated string"},
        {"[\"\\ud800\"]", "high surrogate"},
        {"[\"\\q\"]", "unknown escape"},
        {"[\"a\tb\"]", "control character"},
        {"", "expected a value"},
        {"[1.]", "expected a value"},
        {"tru", "expected a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct jv *v = NULL;
        char why[128] = "";
        assert_int_equal(jv_parse(bad[i].text, strlen(bad[i].text), &v, why, sizeof why), -1);
        if (!strstr(why, bad[i].why))
            fail_msg("%s: said \"%s\", not \"%s\"", bad[i].text, why, bad[i].why);
        assert_null(v);
    }
    char deep[1200];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    struct jv *v = NULL;
    char why[128];
    assert_int_equal(jv_parse(deep, strlen(deep), &v, why, sizeof why), -1);
    assert_non_null(strstr(why, "nested too deeply"));
}

static void a_missing_file_is_named(void **state)
{
    (void)state;
    struct jv *v = NULL;
    char err[256];
    assert_int_equal(jv_load("/nonexistent/report.json", &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/report.json"));
    assert_non_null(strstr(err, "No such file"));
}

/* A summary copies each repetition's manifest: a 64-bit seed must come
 * out as it went in (a double holds 53 bits). */
static void whole_numbers_are_written_again_exactly(void **state)
{
    (void)state;
    const char *text = "[16077111517321429293,-9223372036854775807,42,2.5,1e3,-0]";
    struct jv *v = parse_ok(text);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    struct json j;
    json_init(&j, f, false);
    jv_emit(&j, v);
    fclose(f);
    assert_string_equal(buf, "[16077111517321429293,-9223372036854775807,42,2.500000,1000,0]");
    free(buf);
    jv_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_values_are_found_by_path),
        cmocka_unit_test(strings_are_unescaped),
        cmocka_unit_test(what_is_not_json_is_refused_with_its_place),
        cmocka_unit_test(a_missing_file_is_named),
        cmocka_unit_test(whole_numbers_are_written_again_exactly),
    };
    return cmocka_run_group_tests_name("jread", tests, NULL, NULL);
}
