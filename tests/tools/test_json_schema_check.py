#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/classroom/json_schema_check.py: the JSON Schema subset the GPU rehearsal checks Classroom
50's result.json with (tools/classroom/c50_gpu_rehearsal.sh). The schema here is written for the
test, in the shape of a result document; it uses every keyword the checker implements."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
from tools.classroom import json_schema_check as jsc  # noqa: E402

TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"
SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema", "title": "a result",
    "type": "object", "additionalProperties": False,
    "required": ["schema", "kind", "when", "score", "tests"],
    "properties": {
        "schema": {"const": "demo/result/v1"},
        "kind": {"enum": ["individual", "group", "team"]},
        "when": {"type": "string", "pattern": TIME},
        "score": {"type": "integer", "minimum": 0},
        "tests": {"type": "array", "items": {"$ref": "#/$defs/test"}},
        "by": {"$ref": "#/$defs/by"},
    },
    "$defs": {
        "test": {"type": "object", "additionalProperties": True, "required": ["name", "passed"],
                 "properties": {"name": {"type": "string", "minLength": 1},
                                "passed": {"type": "boolean"}}},
        "by": {"type": "object", "additionalProperties": False,
               "properties": {"id": {"type": ["integer", "null"]}}},
    },
}
GOOD = {"schema": "demo/result/v1", "kind": "team", "when": "2026-12-01T10:00:00Z", "score": 3,
        "tests": [{"name": "lab01", "passed": True, "extra": 1}], "by": {"id": None}}


class Check(unittest.TestCase):
    def errors(self, **change):
        doc = {**GOOD, **change}
        return jsc.check(SCHEMA, doc, SCHEMA)

    def test_a_valid_document(self):
        self.assertEqual(self.errors(), [])

    def test_each_keyword_rejects(self):
        cases = {
            "schema": "demo/result/v2", "kind": "pair", "when": "2026-12-01 10:00",
            "score": -1, "tests": [{"name": "", "passed": "yes"}], "by": {"id": "7"},
        }
        for key, bad in cases.items():
            with self.subTest(key=key):
                self.assertNotEqual(self.errors(**{key: bad}), [], key)
        self.assertIn("$.score: true is not of type integer", self.errors(score=True))
        self.assertIn("$: key 'late' is not allowed", self.errors(late=True))
        doc = dict(GOOD)
        del doc["tests"]
        self.assertIn("$: required key 'tests' is missing", jsc.check(SCHEMA, doc, SCHEMA))
        self.assertIn("$.tests[0].name: shorter than 1 character(s)",
                      self.errors(tests=[{"name": "", "passed": True}]))

    def test_an_unknown_keyword_is_never_passed_silently(self):
        schema = {**SCHEMA, "properties": {**SCHEMA["properties"],
                                           "score": {"type": "integer", "maximum": 10}}}
        with self.assertRaises(jsc.Unsupported):
            jsc.check(schema, GOOD, schema)

    def test_command_line(self):
        tmp = Path(tempfile.mkdtemp(prefix="cudalab-jsc-"))
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        (tmp / "s.json").write_text(json.dumps(SCHEMA))
        (tmp / "good.json").write_text(json.dumps(GOOD))
        (tmp / "bad.json").write_text(json.dumps({**GOOD, "score": "3"}))
        (tmp / "odd.json").write_text(json.dumps({**SCHEMA, "oneOf": []}))
        for args, code in (([tmp / "s.json", tmp / "good.json"], 0),
                           ([tmp / "s.json", tmp / "bad.json"], 1),
                           ([tmp / "odd.json", tmp / "good.json"], 2),
                           ([tmp / "s.json", tmp / "absent.json"], 2)):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                self.assertEqual(jsc.main([str(a) for a in args]), code, out.getvalue())


if __name__ == "__main__":
    unittest.main()
