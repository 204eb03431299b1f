#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The build's isolation check (cmake/CudalabIsolation.cmake) on small planted libraries: each
construct it forbids, compiled into a library of its own, gets that construct's verdict naming
the symbol (and fails the build step without REPORT_ONLY); a library that only computes from its
arguments is clean. Needs cmake, a C++ compiler and nm (the build's own tools), no GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCRIPT = ROOT / "cmake" / "CudalabIsolation.cmake"

OUTSIDE = "looks outside its arguments"
TEXTURE = "reads memory through texture or surface objects"
FOREIGN = "defines what the grader's own libraries define"
REFERENCE = "calls grader-only reference code"

# The grader-only reference library: one function a lab must not call.
REFERENCE_SOURCE = "namespace cudalab::bank { int conflict_degree(int w) { return w + 1; } }\n"

# Declarations of the CUDA runtime's functions (the symbols are all the check looks at).
CUDA_DECLS = """
extern "C" int cudaCreateTextureObject(void*, const void*, const void*, const void*);
extern "C" int cudaCreateSurfaceObject(void*, const void*);
extern "C" int cudaEventElapsedTime(float*, void*, void*);
extern "C" int cudaGetDriverEntryPoint(const char*, void**, unsigned long long, void*);
"""

# (verdict, symbol the message must name, code of a lab library)
PLANTS = [
    (OUTSIDE, "getenv",
     '#include <cstdlib>\nbool watched() { return std::getenv("X") != nullptr; }'),
    (OUTSIDE, "environ", "extern char** environ;\nchar** all() { return environ; }"),
    (OUTSIDE, "fopen",
     '#include <cstdio>\nvoid* f() { return std::fopen("/proc/self/cmdline", "r"); }'),
    (OUTSIDE, "basic_filebuf",
     '#include <fstream>\nbool f() { std::ifstream in("/proc/self/environ"); return in.good(); }'),
    (OUTSIDE, "steady_clock",
     "#include <chrono>\n"
     "long f() { return std::chrono::steady_clock::now().time_since_epoch().count(); }"),
    (OUTSIDE, "clock_gettime",
     "#include <ctime>\n"
     "long f() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_nsec; }"),
    (OUTSIDE, "dlsym", '#include <dlfcn.h>\nvoid* f() { return dlsym(RTLD_DEFAULT, "getenv"); }'),
    (OUTSIDE, "cudaEventElapsedTime",
     CUDA_DECLS + "float f() { float ms; cudaEventElapsedTime(&ms, 0, 0); return ms; }"),
    (OUTSIDE, "cudaGetDriverEntryPoint",
     CUDA_DECLS + 'void* f() { void* p; cudaGetDriverEntryPoint("x", &p, 0, 0); return p; }'),
    (TEXTURE, "cudaCreateTextureObject",
     CUDA_DECLS + "int f() { return cudaCreateTextureObject(0, 0, 0, 0); }"),
    (TEXTURE, "cudaCreateSurfaceObject",
     CUDA_DECLS + "int f() { return cudaCreateSurfaceObject(0, 0); }"),
    (FOREIGN, "std::random_device::_M_getval()",
     "#include <random>\n"
     "namespace std { unsigned int random_device::_M_getval() { return 4; } }"),
    (REFERENCE, "cudalab::bank::conflict_degree(int)",
     "namespace cudalab::bank { int conflict_degree(int); }\n"
     "int f(int w) { return cudalab::bank::conflict_degree(w); }"),
]

CLEAN = """#include <cstring>
#include <stdexcept>
#include <string>
namespace lab99 {
void copy(float* dst, const float* src, int n) {
  if (n <= 0) throw std::invalid_argument("copy: n must be positive, got " + std::to_string(n));
  std::memcpy(dst, src, sizeof(float) * static_cast<unsigned>(n));
}
}  // namespace lab99
"""


def tool(*names: str) -> str | None:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


CXX = tool(os.environ.get("CXX", "c++"), "g++", "clang++")
CMAKE = tool("cmake")
NM = tool("nm")
AR = tool("ar")


@unittest.skipUnless(CXX and CMAKE and NM and AR, "needs cmake, a C++ compiler, nm and ar")
class IsolationCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = Path(tempfile.mkdtemp(prefix="cudalab-isolation-"))
        cls.reference = cls.library("reference", REFERENCE_SOURCE)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def library(cls, name: str, code: str) -> Path:
        src = cls.tmp / f"{name}.cpp"
        obj = cls.tmp / f"{name}.o"
        lib = cls.tmp / f"lib{name}.a"
        src.write_text(code + "\n")
        subprocess.run([CXX, "-std=c++17", "-O1", "-c", str(src), "-o", str(obj)], check=True)
        subprocess.run([AR, "rcs", str(lib), str(obj)], check=True)
        return lib

    def check(self, lib: Path, report_only: bool) -> subprocess.CompletedProcess:
        args = [CMAKE, f"-DLAB_LIB={lib}", f"-DREF_LIB={self.reference}", f"-DNM={NM}"]
        if report_only:
            args.append("-DREPORT_ONLY=ON")
        return subprocess.run(args + ["-P", str(SCRIPT)], capture_output=True, text=True)

    def test_a_library_that_computes_from_its_arguments_is_clean(self) -> None:
        lib = self.library("clean", CLEAN)
        run = self.check(lib, report_only=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("CUDALAB-ISOLATION: clean", run.stdout + run.stderr)
        self.assertEqual(self.check(lib, report_only=False).returncode, 0)

    def test_every_planted_construct_gets_its_verdict(self) -> None:
        for i, (verdict, symbol, code) in enumerate(PLANTS):
            with self.subTest(symbol=symbol):
                lib = self.library(f"plant{i}", code)
                run = self.check(lib, report_only=True)
                out = run.stdout + run.stderr
                self.assertEqual(run.returncode, 0, out)
                self.assertIn("CUDALAB-ISOLATION: VIOLATION", out)
                self.assertIn(verdict, out)
                self.assertIn(symbol, out)
                build_step = self.check(lib, report_only=False)
                self.assertNotEqual(build_step.returncode, 0,
                                    f"the build step accepted a library that {verdict}: {symbol}")
                self.assertIn(verdict, " ".join((build_step.stdout + build_step.stderr).split()))


if __name__ == "__main__":
    unittest.main()
