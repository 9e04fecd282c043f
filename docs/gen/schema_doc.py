#!/usr/bin/env python3
"""Prints a markdown reference of a JSON Schema of faultline's reports.

    python3 docs/gen/schema_doc.py SCHEMA.json [HEADING_LEVEL]

One table per object (field, type, required, meaning): the top level first,
then each object inside it, then each shared shape of `$defs` once, with
where it is used.  A field's meaning is its `description`, plus its closed
set of words (`enum`), its fixed value (`const`) or pattern where the schema
has one.  The rules the schema checks across fields (`allOf` at the top)
are listed under the first table by their `$comment`.  Output depends only
on the schema (the order of its keys): the same schema, the same text.
Python 3 standard library only.
"""
import json
import os
import re
import sys


def anchor(stem, *parts):
    text = "-".join([stem] + [p.replace("[]", "") for p in parts if p]).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def code(v):
    if v is None:
        return "`null`"
    if isinstance(v, bool):
        return "`true`" if v else "`false`"
    if isinstance(v, str):
        return f"`{v}`" if v else '`""`'
    return f"`{json.dumps(v)}`"


class Doc:
    def __init__(self, path, level):
        with open(path) as f:
            self.schema = json.load(f)
        self.name = os.path.basename(path)
        self.stem = self.name.split(".")[0]
        self.defs = self.schema.get("$defs", {})
        self.level = level
        self.used = {k: [] for k in self.defs}  # def -> where it is used
        self.shapes = set()  # the $defs the top level chooses between
        self.out = []

    # --- what a schema is --------------------------------------------------------------

    def ref_target(self, ref):
        """(schema file or "", def name) of a $ref."""
        where, _, frag = ref.partition("#")
        name = frag.rsplit("/", 1)[-1] if frag.startswith("/$defs/") else frag
        return where, name

    def ref_link(self, ref):
        where, name = self.ref_target(ref)
        if where and where != self.name and where != self.schema.get("$id"):
            return f"[`{name}`](#{anchor(where.split('.')[0], 'def', name)}) (in {where})"
        return f"[`{name}`](#{anchor(self.stem, 'def', name)})"

    def type_of(self, s, path):
        if s is True:
            return "any"
        if "$ref" in s:
            return self.ref_link(s["$ref"])
        if "anyOf" in s or "oneOf" in s:
            return " or ".join(self.type_of(x, path) for x in s.get("anyOf", s.get("oneOf")))
        t = s.get("type")
        types = t if isinstance(t, list) else [t] if t else []
        words = []
        for x in types:
            if x == "array":
                words.append(self.array_type(s, path))
            elif x == "object" and s.get("properties") is not None:
                words.append(f"object ([below](#{anchor(self.stem, path)}))")
            elif x == "object":
                words.append("object")
            else:
                words.append(x)
        if not words and "const" in s:
            words.append(type(s["const"]).__name__)
        return " or ".join(words) or "any"

    def array_type(self, s, path):
        items = s.get("items")
        if "prefixItems" in s:
            return "[" + ", ".join(self.type_of(x, path) for x in s["prefixItems"]) + "]"
        if not isinstance(items, dict):
            return "array"
        if "$ref" in items:
            return "array of " + self.ref_link(items["$ref"])
        if items.get("type") == "object":
            return f"array of objects ([below](#{anchor(self.stem, path + '[]')}))"
        if items.get("type") == "array":
            return "array of " + self.array_type(items, path + "[]")
        return "array of " + self.type_of(items, path + "[]")

    def meaning(self, s):
        if s is True:
            return ""
        text = s.get("description", "")
        extra = []
        if "const" in s:
            extra.append(f"Always {code(s['const'])}.")
        if "enum" in s:
            extra.append("One of: " + ", ".join(code(v) for v in s["enum"]) + ".")
        if "pattern" in s and len(s["pattern"]) <= 60:
            extra.append(f"Pattern `{s['pattern']}`.")
        return " ".join([text] + extra).strip()

    @staticmethod
    def condition(rule):
        """An `if` as words: "`mode` = `run`", "`scenario_sha256` is null"."""
        words = []
        for k, v in rule.get("properties", {}).items():
            if isinstance(v, dict) and "const" in v:
                words.append(f"`{k}` = {code(v['const'])}")
            elif isinstance(v, dict) and v.get("type") == "null":
                words.append(f"`{k}` is null")
        words += [f"`{k}` is there" for k in rule.get("required", [])]
        return " and ".join(words) or "a rule below holds"

    def required_when(self, s):
        """Field -> the conditions under which an allOf rule requires it."""
        when = {}
        for rule in s.get("allOf", []):
            if "if" not in rule:
                continue
            for branch, negate in (("then", False), ("else", True)):
                cond = self.condition(rule["if"])
                for k in rule.get(branch, {}).get("required", []):
                    when.setdefault(k, []).append(f"unless {cond}" if negate else f"when {cond}")
        return when

    # --- the tables --------------------------------------------------------------------

    def heading(self, level, text, anchor_id):
        self.out.append(f'<a id="{anchor_id}"></a>\n')
        self.out.append("#" * level + " " + text + "\n")

    def note_refs(self, s, path):
        """Records where each $def is used, walking the whole schema."""
        if isinstance(s, dict):
            if "$ref" in s:
                where, name = self.ref_target(s["$ref"])
                if not where and name in self.used and path not in self.used[name]:
                    self.used[name].append(path)
            for k, v in s.get("properties", {}).items():
                self.note_refs(v, f"{path}.{k}" if path else k)
            for key in ("anyOf", "oneOf"):
                for x in s.get(key, []):
                    self.note_refs(x, path)
            if isinstance(s.get("items"), dict):
                self.note_refs(s["items"], path + "[]")

    def table(self, s, path, prefix, level, title, anchor_id, intro=None):
        """A table of object s; then tables of the objects inside it."""
        self.heading(level, title, anchor_id)
        if intro:
            self.out.append(intro + "\n")
        self.out.append("| Field | Type | Required | Meaning |")
        self.out.append("| --- | --- | --- | --- |")
        required = set(s.get("required", []))
        when = self.required_when(s)
        props = s.get("properties", {})
        inner = []
        for k, v in props.items():
            field = f"{prefix}.{k}" if prefix else k
            full = f"{path}.{k}" if path else k
            need = "yes" if k in required else ", ".join(when[k]) if k in when else "no"
            self.out.append(f"| `{cell(field)}` | {cell(self.type_of(v, full))} | "
                            f"{cell(need)} | {cell(self.meaning(v))} |")
            inner.append((field, full, v))
        extra = s.get("additionalProperties", False)
        if extra is not False:
            field = f"{prefix}.*" if prefix else "*"
            names = s.get("propertyNames", {})
            rule = f" Keys match `{names['pattern']}`." if "pattern" in names else ""
            desc = self.meaning(extra) if isinstance(extra, dict) else ""
            self.out.append(f"| `{cell(field)}` | {cell(self.type_of(extra, path))} | no | "
                            f"{cell((desc or 'Any other key.') + rule)} |")
        self.out.append("")
        rules = [r["$comment"] for r in s.get("allOf", []) if "$comment" in r]
        if rules:
            self.out.append("Rules checked across fields:\n")
            self.out.extend(f"- {cell(r)}" for r in rules)
            self.out.append("")
        for field, full, v in inner:
            self.nested(v, full, field, level)

    def nested(self, v, full, field, level):
        if not isinstance(v, dict) or "$ref" in v:
            return
        if v.get("type") == "object" and v.get("properties") is not None:
            self.table(v, full, field, level, f"`{full}`", anchor(self.stem, full),
                       self.meaning(v))
        elif v.get("type") == "array" and isinstance(v.get("items"), dict):
            items = v["items"]
            if items.get("type") == "object" and items.get("properties") is not None:
                self.table(items, full + "[]", field + "[]", level, f"`{full}[]`",
                           anchor(self.stem, full + "[]"),
                           self.meaning(v) + " Each: " + self.meaning(items))

    def where_used(self, name, seen=()):
        """Every path of the document where $def name is, through other $defs."""
        if name in self.shapes:
            return [""]  # a shape of the top level: its fields are top-level ones
        paths = []
        for p in self.used[name]:
            m = re.match(r"<([^>]+)>(.*)", p)
            if not m:
                paths.append(p)
            elif m.group(1) not in seen:
                paths += [(q + m.group(2)).lstrip(".")
                          for q in self.where_used(m.group(1), seen + (name,))]
        return paths

    def render(self):
        level = self.level
        s = self.schema
        self.note_refs(s, "")
        for name, d in self.defs.items():
            self.note_refs(d, f"<{name}>")
        self.out.append("#" * level + " " + s.get("title", self.name) + "\n")
        self.out.append(f"Schema: `docs/{self.name}` (JSON Schema draft 2020-12).\n")
        if s.get("description"):
            self.out.append(s["description"] + "\n")
        # The top level: an object, or a choice between shapes ($defs) by if/then/else.
        shapes = []
        if "properties" in s:
            self.table(s, "", "", level + 1, "Top level", anchor(self.stem, "top"))
        else:
            for key, how in (("then", f"when {self.condition(s.get('if', {}))}"),
                             ("else", f"otherwise")):
                if isinstance(s.get(key), dict) and "$ref" in s[key]:
                    shapes.append((self.ref_target(s[key]["$ref"])[1], how))
            self.shapes = {n for n, _ in shapes}
            self.out.append("Which shape a report has: " + "; ".join(
                f"{self.ref_link('#/$defs/' + n)} {how}" for n, how in shapes) + ".\n")
            for name, how in shapes:
                self.table(self.defs[name], "", "", level + 1,
                           f"`{name}`: the top level {how}", anchor(self.stem, "def", name),
                           self.meaning(self.defs[name]))
        for name, d in self.defs.items():
            if name in dict(shapes):
                continue
            users = ", ".join(f"`{u}`" for u in self.where_used(name)) or "nowhere"
            intro = self.meaning(d) + f" Used at {users}."
            self.table(d, name, "", level + 1, f"`{name}` (shared)",
                       anchor(self.stem, "def", name), intro)
        return "\n".join(self.out).rstrip("\n") + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: python3 docs/gen/schema_doc.py SCHEMA.json [HEADING_LEVEL]",
              file=sys.stderr)
        return 2
    level = int(sys.argv[2]) if len(sys.argv) == 3 else 1
    sys.stdout.write(Doc(sys.argv[1], level).render())
    return 0


sys.exit(main())
