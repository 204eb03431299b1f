# SPDX-License-Identifier: BSD-3-Clause
"""Checks a JSON document against a JSON Schema (draft 2020-12), with the Python standard
library only, for machines without network or pip (a GPU runner, the runner image).

    python3 -m tools.classroom.json_schema_check SCHEMA.json DOCUMENT.json

Implements the keywords Classroom 50's result schema (schemas/result-v1.schema.json of
foundation50/classroom50) uses: type (a name or a list), const, enum, required, properties,
additionalProperties (true, false or a schema), items, minLength, minimum, pattern, and $ref
to the schema's own "#/$defs/..." (or "#/definitions/..."); $schema, $id, title, description,
$comment, examples, default and $defs are annotations. Any other keyword is an error (exit 2),
so a schema this checker does not understand is never passed silently. Integers are ints
that are not booleans, as JSON Schema counts them.

Prints one line per violation (`$.tests[0].score: -1 is less than the minimum 0`). Exit
status: 0 valid, 1 invalid, 2 on a usage error, an unreadable file or an unsupported keyword.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "examples", "default",
               "$defs", "definitions"}
KEYWORDS = {"type", "const", "enum", "required", "properties", "additionalProperties", "items",
            "minLength", "minimum", "pattern", "$ref"}


class Unsupported(Exception):
    """The schema uses a keyword this checker does not implement."""


def type_ok(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return {"string": isinstance(value, str), "boolean": isinstance(value, bool),
            "object": isinstance(value, dict), "array": isinstance(value, list),
            "null": value is None}.get(name, False)


def resolve(root: dict, ref: str) -> dict:
    if not ref.startswith("#/"):
        raise Unsupported(f"$ref {ref!r}: only references into the schema itself (#/...)")
    node = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def check(schema, value, root: dict, where: str = "$") -> list[str]:
    """The violations of @p value against @p schema (a dict or a boolean schema)."""
    if schema is True:
        return []
    if schema is False:
        return [f"{where}: no value is allowed here"]
    unknown = set(schema) - KEYWORDS - ANNOTATIONS
    if unknown:
        raise Unsupported(f"{where}: keyword(s) {sorted(unknown)} not implemented")
    errors: list[str] = []
    if "$ref" in schema:
        errors += check(resolve(root, schema["$ref"]), value, root, where)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(type_ok(value, n) for n in names):
            return errors + [f"{where}: {json.dumps(value)[:60]} is not of type "
                             f"{' or '.join(names)}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: {json.dumps(value)[:60]} is not {json.dumps(schema['const'])}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {json.dumps(value)[:60]} is not one of "
                      f"{json.dumps(schema['enum'])}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{where}: shorter than {schema['minLength']} character(s)")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{where}: {value[:60]!r} does not match {schema['pattern']!r}")
    if type_ok(value, "number") and "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{where}: {value} is less than the minimum {schema['minimum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{where}: required key {key!r} is missing")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                errors += check(props[key], item, root, f"{where}.{key}")
            elif extra is False:
                errors.append(f"{where}: key {key!r} is not allowed")
            elif isinstance(extra, dict):
                errors += check(extra, item, root, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += check(schema["items"], item, root, f"{where}[{i}]")
    return errors


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    try:
        schema = json.loads(Path(args[0]).read_text(encoding="utf-8"))
        doc = json.loads(Path(args[1]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"json_schema_check: {e}", file=sys.stderr)
        return 2
    try:
        errors = check(schema, doc, schema)
    except (Unsupported, KeyError) as e:
        print(f"json_schema_check: {args[0]}: {e}", file=sys.stderr)
        return 2
    for error in errors:
        print(f"json_schema_check: {args[1]}: {error}")
    if not errors:
        print(f"json_schema_check: {args[1]} is valid against {args[0]}"
              f" ({schema.get('title') or schema.get('$id') or 'schema'})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
