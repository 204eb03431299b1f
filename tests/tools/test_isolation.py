#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The build's lab library checks (cmake/CudalabIsolation.cmake) on small planted libraries: each
construct the allowlist forbids (a call it does not list, a definition outside the lab's
namespace or of the grader's or the system's symbols, an entry point, a system-call instruction,
reference code), compiled into a library of its own, gets that construct's verdict naming the
symbol (and fails the build step without REPORT_ONLY); a library that only computes from its
arguments is clean. Needs cmake, a C++ compiler, nm and objdump (the build's own tools), no
GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("CUDALAB_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCRIPT = ROOT / "cmake" / "CudalabIsolation.cmake"

UNLISTED = "uses functions a lab library may not use"
REPLACES = "defines what the grader's or the system's libraries define"
OUTSIDE_NS = "defines symbols outside namespace lab99"
WEAK = "has weak definitions outside namespace lab99"
ENTRY = "defines a program entry point"
SYSCALL = "system-call instruction"
REFERENCE = "calls grader-only reference code"

# The grader-only reference library: one function a lab must not call or replace.
REFERENCE_SOURCE = "namespace cudalab::bank { int conflict_degree(int w) { return w + 1; } }\n"

# Declarations of the CUDA runtime's functions (the symbols are all the check looks at).
CUDA_DECLS = """
extern "C" int cudaCreateTextureObject(void*, const void*, const void*, const void*);
extern "C" int cudaCreateSurfaceObject(void*, const void*);
extern "C" int cudaEventElapsedTime(float*, void*, void*);
extern "C" int cudaGetDriverEntryPoint(const char*, void**, unsigned long long, void*);
"""

# (verdict, symbol or text the message must name, code of a lab library in namespace lab99)
PLANTS = [
    (UNLISTED, "getenv",
     '#include <cstdlib>\nnamespace lab99 { bool watched() { return std::getenv("X") != nullptr; } }'),
    (UNLISTED, "environ", "extern char** environ;\nnamespace lab99 { char** all() { return environ; } }"),
    (UNLISTED, "fopen",
     '#include <cstdio>\nnamespace lab99 { void* f() { return std::fopen("/proc/self/cmdline", "r"); } }'),
    (UNLISTED, "basic_filebuf",
     '#include <fstream>\nnamespace lab99 { bool f() { std::ifstream in("/proc/self/environ"); return in.good(); } }'),
    (UNLISTED, "steady_clock",
     "#include <chrono>\n"
     "namespace lab99 { long f() { return std::chrono::steady_clock::now().time_since_epoch().count(); } }"),
    (UNLISTED, "clock_gettime",
     "#include <ctime>\n"
     "namespace lab99 { long f() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_nsec; } }"),
    (UNLISTED, "dlsym", '#include <dlfcn.h>\nnamespace lab99 { void* f() { return dlsym(RTLD_DEFAULT, "getenv"); } }'),
    (UNLISTED, "cudaEventElapsedTime",
     CUDA_DECLS + "namespace lab99 { float f() { float ms; cudaEventElapsedTime(&ms, 0, 0); return ms; } }"),
    (UNLISTED, "cudaGetDriverEntryPoint",
     CUDA_DECLS + 'namespace lab99 { void* f() { void* p; cudaGetDriverEntryPoint("x", &p, 0, 0); return p; } }'),
    (UNLISTED, "cudaCreateTextureObject",
     CUDA_DECLS + "namespace lab99 { int f() { return cudaCreateTextureObject(0, 0, 0, 0); } }"),
    (UNLISTED, "cudaCreateSurfaceObject",
     CUDA_DECLS + "namespace lab99 { int f() { return cudaCreateSurfaceObject(0, 0); } }"),
    # ending or controlling the process, printing
    (UNLISTED, "_Exit", "#include <cstdlib>\nnamespace lab99 { void f() { (std::_Exit)(0); } }"),
    (UNLISTED, "quick_exit", "#include <cstdlib>\nnamespace lab99 { void f() { std::quick_exit(0); } }"),
    (UNLISTED, "printf",
     '#include <cstdio>\nnamespace lab99 { void f(int n) { std::printf("[  PASSED  ] %d tests\\n", n); } }'),
    (UNLISTED, "fflush", "#include <cstdio>\nnamespace lab99 { void f() { std::fflush(nullptr); } }"),
    (UNLISTED, "cudalab::verdict::send",
     "#include <string>\nnamespace cudalab::verdict { bool send(const std::string&); }\n"
     'namespace lab99 { bool f() { return cudalab::verdict::send("{}"); } }'),
    # defining what is not the lab's
    (REPLACES, "std::random_device::_M_getval()",
     "#include <random>\n"
     "namespace std { __attribute__((weak)) unsigned int random_device::_M_getval() { return 4; } }"),
    (REPLACES, "cudalab::bank::conflict_degree(int)",
     "namespace cudalab::bank { __attribute__((weak)) int conflict_degree(int w) { return w; } }"),
    (REPLACES, "getenv", 'extern "C" char* getenv(const char*) { return nullptr; }'),
    (ENTRY, "main", 'extern "C" __attribute__((weak)) int main() { return 0; }'),
    (ENTRY, "main", "int main() { return 0; }"),
    (OUTSIDE_NS, "helper()", "int helper() { return 1; }"),
    (WEAK, "testing_hook()", "__attribute__((weak)) int testing_hook() { return 1; }"),
    # reference code, system calls
    (REFERENCE, "cudalab::bank::conflict_degree(int)",
     "namespace cudalab::bank { int conflict_degree(int); }\n"
     "namespace lab99 { int f(int w) { return cudalab::bank::conflict_degree(w); } }"),
    (SYSCALL, "syscall",
     'namespace lab99 { void f() { asm volatile("movl $231, %%eax\\n\\txorl %%edi, %%edi\\n\\tsyscall" ::: "rax", "rdi"); } }'),
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


def tool(*names: str) -> str:
    """The path of the first of @p names on PATH; "" when none is (the tests are skipped)."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return ""


CXX = tool(os.environ.get("CXX", "c++"), "g++", "clang++")
CMAKE = tool("cmake")
NM = tool("nm")
AR = tool("ar")
OBJDUMP = tool("objdump")


def system_libs() -> str:
    """The C and C++ runtime libraries, as cmake/CudalabIsolation.cmake finds them."""
    found = []
    for name in ("libstdc++.so", "libstdc++.so.6", "libc.so.6", "libm.so.6", "libgcc_s.so.1"):
        out = subprocess.run([CXX, f"-print-file-name={name}"], capture_output=True,
                             text=True).stdout.strip()
        if out and os.path.isabs(out) and os.path.exists(out):
            found.append(os.path.realpath(out))
    return "|".join(dict.fromkeys(found))


@unittest.skipUnless(CXX and CMAKE and NM and AR and OBJDUMP,
                     "needs cmake, a C++ compiler, nm, ar and objdump")
class IsolationCheck(unittest.TestCase):
    tmp: Path
    reference: Path

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
        args = [CMAKE, f"-DLAB_LIB={lib}", f"-DREF_LIB={self.reference}", f"-DNM={NM}",
                f"-DOBJDUMP={OBJDUMP}", "-DNAMESPACE=lab99", f"-DGRADER_LIBS={self.reference}",
                f"-DSYSTEM_LIBS={system_libs()}"]
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
