"""Validates report.json and suite.json files against docs/*.schema.json
(tests/schema.sh).

    python3 tests/schema_check.py DOCS_DIR REPORT.json...   (or suite.json)
    python3 tests/schema_check.py DOCS_DIR - < LIST   (one path a line)

Checks the schemas against the JSON Schema 2020-12 metaschema, then each
report against the schema its `mode` picks: "repeat" (the summary of
repeats) repeat-summary.schema.json, "suite" (a suite's suite.json, and any
file named suite.json) suite.schema.json, anything else report.schema.json.
Prints a FAIL line per problem (file, JSON path, the validator's message)
and how many reports of each schema were valid.  Exit 0: every report is
valid; 1: one is not, or a schema is broken; 2: cannot run.
"""
import json
import os
import sys
import warnings

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as e:
    print(f"FAIL schema: python3-jsonschema is missing (make deps installs it): {e}",
          file=sys.stderr)
    sys.exit(2)

# jsonschema >= 4.18 prefers `referencing` to RefResolver but keeps it.
warnings.filterwarnings("ignore", category=DeprecationWarning)

SCHEMAS = ("report.schema.json", "repeat-summary.schema.json", "suite.schema.json")


def where(error):
    """The JSON path of the failing value, as $.a.b[3].c."""
    path = "$"
    for p in error.absolute_path:
        path += f"[{p}]" if isinstance(p, int) else f".{p}"
    return path


def schema_of(path, doc):
    """The schema a report follows: by its `mode`; a file named suite.json
    is a suite's whatever it says, so that one with a wrong mode is told
    what a suite.json lacks, not what a run's report.json does."""
    mode = doc.get("mode") if isinstance(doc, dict) else None
    if mode == "suite" or os.path.basename(path) == "suite.json":
        return "suite.schema.json"
    if mode == "repeat":
        return "repeat-summary.schema.json"
    return "report.schema.json"


def main():
    if len(sys.argv) < 2:
        print("usage: python3 tests/schema_check.py DOCS_DIR REPORT.json... | -",
              file=sys.stderr)
        return 2
    docs, reports = sys.argv[1], sys.argv[2:]
    if reports == ["-"]:
        reports = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    bad = 0
    schemas = {}
    for name in SCHEMAS:
        try:
            with open(f"{docs}/{name}") as f:
                schemas[name] = json.load(f)
        except (OSError, ValueError) as e:
            print(f"FAIL schema: {docs}/{name}: {e}", file=sys.stderr)
            return 1
        for e in Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(
                schemas[name]):
            print(f"FAIL schema: {docs}/{name} {where(e)}: not a valid 2020-12 schema: "
                  f"{e.message}", file=sys.stderr)
            bad += 1
    if bad:
        return 1
    # Each schema by its $id, so that repeat-summary's reference to
    # report.schema.json#/$defs/manifest is found here, never fetched.
    store = {s.get("$id", n): s for n, s in schemas.items()}
    validators = {
        n: Draft202012Validator(s, resolver=jsonschema.RefResolver.from_schema(s, store=store))
        for n, s in schemas.items()}
    valid = {n: 0 for n in SCHEMAS}
    for path in reports:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"FAIL schema: {path}: not JSON: {e}", file=sys.stderr)
            bad += 1
            continue
        name = schema_of(path, doc)
        errors = sorted(validators[name].iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            print(f"FAIL schema: {path} {where(e)} ({name}): {e.message}", file=sys.stderr)
        if errors:
            bad += 1
        else:
            valid[name] += 1
    for n in SCHEMAS:
        print(f"{valid[n]} valid against {n}")
    if bad:
        print(f"FAIL schema: {bad} of {len(reports)} reports invalid", file=sys.stderr)
    return 1 if bad else 0


sys.exit(main())
