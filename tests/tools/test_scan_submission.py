#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The intake scan (tools/release/scan_submission.py): every construct it names, planted in a
copy of a real lab file, is flagged with that construct; no stub, no solution and no correct
alternative (tests/labNN_topic/right) is flagged; take_submission.py runs the scan on what it takes and
writes the flags for the scoreboard, which records them per lab."""

from __future__ import annotations

import json
import os
import shutil
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
import toolfixtures as fx  # noqa: E402
from tools.release import scan_submission as scan  # noqa: E402
from tools.release import take_submission
from tools.release.course_files import lab_sources
from tools import variant_patches

LAB = "lab05_bank_conflict"
HOST_FILE = f"labs/{LAB}/conflict_degree.cpp"   # a host-side lab file
KERNEL_FILE = f"labs/{LAB}/microbench.cu"       # a file with kernels

# (construct the flag must name, code appended to a lab file)
PLANTS = [
    ("file or stream I/O: fopen", 'void leak() { auto* f = std::fopen("/tmp/x", "w"); (void)f; }'),
    ("file or stream I/O: ofstream", "void leak() { std::ofstream out; }"),
    ("file or stream I/O: filesystem", "void leak() { std::filesystem::remove_all(\"/x\"); }"),
    ("file or stream I/O: write", "void leak() { write(1, \"x\", 1); }"),
    ("file or stream I/O: open", "void leak() { int fd = ::open(\"/x\", 0); (void)fd; }"),
    ("process control: exit", "void quit() { std::exit(0); }"),
    ("process control: _exit", "void quit() { _exit(0); }"),
    ("process control: _Exit", "void quit() { std::_Exit(0); }"),
    ("process control: abort", "void quit() { std::abort(); }"),
    ("process control: quick_exit", "void quit() { std::quick_exit(0); }"),
    ("process control: fork", "void spawn() { if (fork() == 0) {} }"),
    ("process control: execvp", "void spawn(char** a) { execvp(a[0], a); }"),
    ("process control: system", "void spawn() { std::system(\"true\"); }"),
    ("process control: popen", "void spawn() { popen(\"true\", \"r\"); }"),
    ("process control: kill", "void stop(int p) { kill(p, 9); }"),
    ("process control: atexit", "void hook() { std::atexit(+[] {}); }"),
    ("process control: setsid", "void detach() { setsid(); }"),
    ("environment access: getenv", "const char* where() { return std::getenv(\"HOME\"); }"),
    ("environment access: setenv", "void set() { setenv(\"A\", \"B\", 1); }"),
    ("environment access: environ", "extern char** environ; char** all() { return environ; }"),
    ("dynamic loading: dlopen", "void* lib() { return dlopen(\"libc.so.6\", 2); }"),
    ("dynamic loading: dlsym", "void* sym(void* h) { return dlsym(h, \"puts\"); }"),
    ("code before main: __attribute__((constructor",
     "__attribute__((constructor)) static void early() {}"),
    ("code before main: [[gnu::constructor", "[[gnu::constructor]] static void early() {}"),
    ("code before main: a namespace-scope variable initialised by a call",
     "static int early = compute_early(3);"),
    ("code before main: a namespace-scope variable initialised by a call",
     "namespace { const int early = [] { return 1; }(); }"),
    ("code before main: a namespace-scope object of class Hook",
     "namespace { struct Hook { Hook() {} }; Hook hook; }"),
    ("code before main: an object of class Hook2 declared with its definition",
     "struct Hook2 { Hook2() {} } hook2;"),
    ("host inline assembly", "void host_asm() { asm volatile(\"nop\"); }"),
    ("an interposed library function: cudaEventElapsedTime",
     "extern \"C\" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) "
     "{ *ms = 1; return cudaSuccess; }"),
    ("a main function", "int main(int, char**) { return 0; }"),
    ("a macro, which can hide any construct: #define",
     "#define QUIT(c) ex##it(c)\nvoid quit() { QUIT(0); }"),
    ("a macro, which can hide any construct: ##", "void quit() { std::ex##it(0); }"),
    ("a macro, which can hide any construct: _Pragma", "_Pragma(\"once\")"),
    ("a string that mimics a verdict or a grading file: \"[       OK ]\"",
     "const char* kFake = \"[       OK ] lab07.SwizzleCpu.Maps\";"),
    ("a string that mimics a verdict or a grading file: \"[  PASSED  ]\"",
     "const char* kFake = \"[  PASSED  ] 12 tests.\";"),
    ("a string that mimics a verdict or a grading file: \"tests passed\"",
     "const char* kFake = \"100% tests passed\";"),
    ("a string that mimics a verdict or a grading file: \"CUDALAB-RECORD\"",
     "const char* kFake = \"[ CUDALAB-RECORD ] {}\";"),
    ("a string that mimics a verdict or a grading file: \"GITHUB_\"",
     "const char* kFake = \"GITHUB_ENV\";"),
    ("an include outside the lab's expected set: <fstream>", "#include <fstream>"),
    ("an include outside the lab's expected set: <dlfcn.h>", "#include <dlfcn.h>"),
    ("an include outside the lab's expected set: <unistd.h>", "#include <unistd.h>"),
]


def right_variant_files(tmp: Path) -> list[tuple[str, str]]:
    """(name, text) of every file of every correct alternative, its patch applied to the
    solution (tools/variant_patches.py; a patch that does not apply fails the test)."""
    out = []
    for path in variant_patches.variants(ROOT, ("right",)):
        v = variant_patches.read_variant(path, ROOT)
        work = tmp / v.kind / v.lab / v.name
        variant_patches.apply_variant(v, work, ROOT)
        # the lab's folder name stays in the name, for the include rule
        out += [(f"{path.relative_to(ROOT)}:solutions/{v.lab}/{f}", (work / f).read_text())
                for f in v.files]
    return out


class Scan(unittest.TestCase):
    def setUp(self):
        self.tmp = fx.temp_dir(self, "cudalab-scan-")

    def allowed(self):
        return scan.expected_includes(ROOT, LAB)

    def test_each_planted_construct_is_flagged(self):
        base = (ROOT / HOST_FILE).read_text()
        self.assertEqual(scan.scan_text(base, HOST_FILE, self.allowed()), [])
        for construct, code in PLANTS:
            with self.subTest(construct=construct):
                flags = scan.scan_text(base + "\n" + code + "\n", HOST_FILE, self.allowed())
                names = [f.construct for f in flags]
                self.assertTrue(any(n.startswith(construct) for n in names),
                                f"not flagged as '{construct}': {names}")
                planted_line = base.count("\n") + 2
                self.assertTrue(all(f.line >= planted_line for f in flags),
                                f"flags outside the planted code: {flags}")

    def test_device_asm_and_device_printf_are_not_flagged(self):
        base = (ROOT / KERNEL_FILE).read_text()
        code = ('__global__ void k(int* p) { asm volatile("membar.gl;"); '
                'printf("%d\\n", p[0]); }\n'
                '__device__ int lane() { int r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); '
                'return r; }\n')
        self.assertEqual(scan.scan_text(base + code, KERNEL_FILE, self.allowed()), [])

    def test_no_stub_solution_or_correct_alternative_is_flagged(self):
        flagged = []
        for lab in sorted((ROOT / "labs").glob("lab[0-9][0-9]_*")):
            allowed = scan.expected_includes(ROOT, lab.name)
            for rel in lab_sources(lab / "CMakeLists.txt"):
                for tree in ("labs", "solutions"):
                    p = ROOT / tree / lab.name / rel
                    if p.is_file() and p.suffix in (".cu", ".cpp"):
                        flagged += scan.scan_text(p.read_text(), str(p.relative_to(ROOT)),
                                                  allowed)
        rights = right_variant_files(self.tmp)
        self.assertGreaterEqual(len(rights), 28)  # at least 2 per lab, each one file or more
        for name, text in rights:
            owner = scan.lab_of(name)
            flagged += scan.scan_text(text, name, scan.expected_includes(ROOT, owner[1])
                                      if owner else None)
        self.assertEqual([f"{f.file}:{f.line}: {f.construct}" for f in flagged], [])

    def test_take_submission_scans_what_it_takes(self):
        course = self.tmp / "course"
        sub = self.tmp / "submission"
        for tree in (course, sub):
            (tree / "labs").mkdir(parents=True)
            shutil.copytree(ROOT / "labs" / LAB, tree / "labs" / LAB)
            shutil.copytree(ROOT / "solutions" / LAB, tree / "solutions" / LAB)
        target = sub / HOST_FILE
        target.write_text("#include <cstdio>\n" + target.read_text() +
                          '\nstatic int x = std::atoi(std::getenv("A"));\n')
        out = self.tmp / "intake.json"
        summary = self.tmp / "summary.md"
        rc = take_submission.main(["--submission", str(sub), "--course", str(course),
                                   "--intake-json", str(out), "--summary", str(summary)])
        self.assertEqual(rc, 0)
        intake = json.loads(out.read_text())
        constructs = [f["construct"] for f in intake["labs"]["lab05"]]
        self.assertIn("environment access: getenv", constructs)
        # the include rule reads the course's files, not the ones just taken
        self.assertIn("an include outside the lab's expected set: <cstdio>", constructs)
        self.assertTrue(any(c.startswith("code before main") for c in constructs), constructs)
        self.assertIn("needs review:", summary.read_text())


if __name__ == "__main__":
    unittest.main()
