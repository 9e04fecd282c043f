/*
 * fuzz_suite — a suite's suite.json, as suite_report_write reads it back
 * (harness/report/suite_report.h): the reader and, for every input it
 * takes, the three renderers (junit.xml, report.txt, report.html), which
 * must cope with any strings and numbers a suite.json can hold.  A
 * refusal must say why.
 */
#include <stdint.h>
#include <stdio.h>

#include "../../harness/report/suite_report.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_dir();
    fz_write(dir, "suite.json", data, size);
    char err[2048] = "";
    if (suite_report_write(dir, NULL, err, sizeof err) != 0 && !err[0]) {
        fprintf(stderr, "suite_report_write refused without saying why\n");
        __builtin_trap();
    }
    static const char *const files[] = {"suite.json", "junit.xml", "report.txt", "report.html"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        fz_unlink(dir, files[i]);
    return 0;
}
