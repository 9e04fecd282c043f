# report.json and suite.json against their JSON Schemas
# (docs/report.schema.json, docs/repeat-summary.schema.json,
# docs/suite.schema.json), with a real validator (Debian's python3-jsonschema,
# through tests/schema_check.py):
#
#   sh tests/schema.sh [REPORTS_DIR]
#
# The schemas must be valid draft 2020-12 schemas; docs/report-json.md must
# be what `sh docs/gen/report_doc.sh` makes of them; every report.json and
# suite.json in tests/fixtures (at least one of each), and with REPORTS_DIR
# every one under it (tests/run.sh passes the ones it collected from the test
# suite's runs: tests/lib.sh, collect_reports), must be valid against the
# schema its `mode` picks (a suite.json: suite.schema.json).  Each invalid
# report is named with the JSON path and the validator's message.  A
# REPORTS_DIR without any report.json or suite.json fails: a check of
# nothing would pass.  Prints how many reports each schema found valid.
. "$(dirname "$0")/lib.sh"

[ $# -le 1 ] || fail "usage: sh tests/schema.sh [REPORTS_DIR]"
REPORTS=""
if [ $# = 1 ]; then
    [ -d "$1" ] || fail "$1 is not a directory"
    REPORTS=$(cd "$1" && pwd)
fi
cd "$(dirname "$0")/.."

# Debian's python3-jsonschema lives with /usr/bin/python3; another python3
# first in PATH may have none.
PY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c 'from jsonschema import Draft202012Validator, RefResolver' 2> /dev/null; then
        PY=$p
        break
    fi
done
[ -n "$PY" ] || fail "no python3 with jsonschema 4 (make deps installs python3-jsonschema)"

# The reference made again from the schemas, compared.
sh docs/gen/report_doc.sh "$WORK/report-json.md" ||
    fail "docs/gen/report_doc.sh failed"
diff -u docs/report-json.md "$WORK/report-json.md" > "$WORK/doc.diff" || {
    head -40 "$WORK/doc.diff" >&2
    fail "docs/report-json.md is not what the schemas say: run sh docs/gen/report_doc.sh"
}

find tests/fixtures \( -name report.json -o -name suite.json \) -type f | sort > "$WORK/reports"
fixtures=$(wc -l < "$WORK/reports")
grep -q '/report\.json$' "$WORK/reports" || fail "no report.json in tests/fixtures"
grep -q '/suite\.json$' "$WORK/reports" || fail "no suite.json in tests/fixtures"
if [ -n "$REPORTS" ]; then
    find "$REPORTS" \( -name report.json -o -name suite.json \) -type f | sort > "$WORK/collected"
    collected=$(wc -l < "$WORK/collected")
    [ "$collected" -gt 0 ] || fail "no report.json or suite.json under $REPORTS: nothing to check"
    cat "$WORK/collected" >> "$WORK/reports"
    echo "schema: $fixtures fixtures and $collected reports from $REPORTS"
fi

"$PY" tests/schema_check.py docs - < "$WORK/reports" ||
    fail "report.json or suite.json files do not follow docs/*.schema.json (above)"
pass
