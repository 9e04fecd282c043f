# Writes docs/report-json.md, the reference of report.json, from the two
# schemas of docs/ (docs/gen/schema_doc.py), under a short header.
#
#   sh docs/gen/report_doc.sh [OUT]
#
# OUT defaults to docs/report-json.md; tests/schema.sh writes it elsewhere
# and compares, so a schema changed without its reference fails there.
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-docs/report-json.md}
TMP=$OUT.tmp.$$
trap 'rm -f "$TMP"' EXIT
{
    cat << 'HEADER'
# report.json

<!-- Made by `sh docs/gen/report_doc.sh` from docs/report.schema.json and
docs/repeat-summary.schema.json: change those and run it again, do not edit
this file. -->

Every run directory has a `report.json`: the machine-readable report of what
`faultline run` did and found (the same as `report.txt` and `report.html`,
which are told from it). `faultline verify DIR` rewrites it for its own
pass, and `faultline run --repeat N` writes one more over the repetitions.
Each of its shapes is described by a JSON Schema (draft 2020-12) in `docs/`:

| `report.json` of | its `mode` | schema |
| --- | --- | --- |
| a run (also each repetition's `DIR/rep-K/report.json`) | `run` | `docs/report.schema.json` (`report`) |
| a run that could not start (`"started": false`) | `run` | `docs/report.schema.json` (`refusal`) |
| `faultline verify DIR` | `verify` | `docs/report.schema.json` (`report`) |
| the summary of `--repeat N` (`DIR/report.json`) | `repeat` | `docs/repeat-summary.schema.json` |

The rule: `mode` = `repeat` is a summary of repeats, anything else
`report.schema.json`, which tells a run that could not start by its `started`
field. A run over several clients (MPI) writes one `report.json`, rank 0's,
with every client in `clients`; the client directories `DIR/client-R/` hold
no report of their own.

Every object of the schemas lists all its fields (`additionalProperties`
false): a field the writers gain without the schema fails the test. The
exceptions are the manifest's descriptions of a lab's or cluster's storage,
whose keys are GlusterFS's own (`gluster volume info` and its options).

To check a report (Debian: `apt-get install python3-jsonschema`):

    python3 -m jsonschema --base-uri "file://$PWD/docs/" -i DIR/report.json docs/report.schema.json
    python3 -m jsonschema --base-uri "file://$PWD/docs/" -i DIR/report.json docs/repeat-summary.schema.json

(`--base-uri` finds `report.schema.json` for the summary's manifest), or,
with each file's schema picked by its `mode` and every error given with its
JSON path, `python3 tests/schema_check.py docs DIR/report.json...`.
`sh tests/schema.sh [REPORTS_DIR]` checks the schemas, this reference, the
fixtures in `tests/fixtures` and every `report.json` under REPORTS_DIR (where
`tests/run.sh` collects those of the test suite's runs).

HEADER
    python3 docs/gen/schema_doc.py docs/report.schema.json 2
    echo
    python3 docs/gen/schema_doc.py docs/repeat-summary.schema.json 2
} > "$TMP"
mv "$TMP" "$OUT"
