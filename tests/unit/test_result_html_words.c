/*
 * report.html's verdict badge and legend keys, as HTML text: the badge
 * shows whatever word the verdict is (report_verdict() may gain words, such
 * as "interrupted") in capitals, with the colour class of that word and a
 * neutral look for a word the style sheet does not know, escaped when it is
 * not a plain word; a legend key's mark carries its series' colour in an
 * inline style, which no class rule of the page can override.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../harness/report/result_html.h"
#include "../../harness/report/result_svg.h"

/* What f received, as a string the caller frees. */
struct capture {
    char *text;
    size_t len;
    FILE *f;
};

static void capture_begin(struct capture *c)
{
    c->text = NULL;
    c->f = open_memstream(&c->text, &c->len);
    assert_non_null(c->f);
}

static char *capture_end(struct capture *c)
{
    assert_int_equal(fclose(c->f), 0);
    return c->text;
}

static char *badge(const char *verdict)
{
    struct capture c;
    capture_begin(&c);
    result_html_verdict(c.f, verdict);
    return capture_end(&c);
}

static void test_known_words(void **state)
{
    (void)state;
    const char *const words[][2] = {{"pass", "<span class=\"verdict v-pass\">PASS</span>"},
                                    {"fail", "<span class=\"verdict v-fail\">FAIL</span>"},
                                    {"error", "<span class=\"verdict v-error\">ERROR</span>"},
                                    {"interrupted",
                                     "<span class=\"verdict v-interrupted\">INTERRUPTED</span>"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char *html = badge(words[i][0]);
        assert_string_equal(html, words[i][1]);
        free(html);
    }
}

/* Each of those words has a colour of its own in the page's style sheet. */
static void test_style_sheet_colours_them(void **state)
{
    (void)state;
    struct capture c;
    capture_begin(&c);
    result_html_head(c.f, "x", "pass");
    char *html = capture_end(&c);
    const char *const rules[] = {".v-pass{background:", ".v-fail{background:",
                                 ".v-error{background:", ".v-interrupted{background:",
                                 ".verdict{"};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        assert_non_null(strstr(html, rules[i]));
    free(html);
}

/* A word nobody told the page about is still shown as it is. */
static void test_other_words(void **state)
{
    (void)state;
    char *html = badge("flaky");
    assert_string_equal(html, "<span class=\"verdict v-flaky\">FLAKY</span>");
    free(html);
    html = badge("no<good> \"word\"");
    assert_string_equal(html, "<span class=\"verdict\">NO&lt;GOOD&gt; &quot;WORD&quot;</span>");
    free(html);
    html = badge(NULL);
    assert_string_equal(html, "<span class=\"verdict v-unknown\">UNKNOWN</span>");
    free(html);
}

static void test_legend_marks(void **state)
{
    (void)state;
    struct capture c;
    capture_begin(&c);
    svg_legend_begin(c.f);
    svg_legend(c.f, "#6a1b9a", KEY_LINE, "slowest I/O");
    svg_legend(c.f, "#2e7d32", KEY_DASHED, "baseline 100 IOPS");
    svg_legend(c.f, "#f9a825", KEY_AREA, "path 0: a<b");
    svg_legend_end(c.f);
    char *html = capture_end(&c);
    assert_string_equal(html,
                        "<div class=\"legend\">"
                        "<span class=\"key\"><i class=\"mk\" style=\"border-color:#6a1b9a\"></i>"
                        "slowest I/O</span>"
                        "<span class=\"key\"><i class=\"mk dash\" style=\"border-color:#2e7d32\">"
                        "</i>baseline 100 IOPS</span>"
                        "<span class=\"key\"><i class=\"mk area\" style=\"background:#f9a825\">"
                        "</i>path 0: a&lt;b</span></div>\n");
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_words),
        cmocka_unit_test(test_style_sheet_colours_them),
        cmocka_unit_test(test_other_words),
        cmocka_unit_test(test_legend_marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
