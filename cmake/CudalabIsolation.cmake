# SPDX-License-Identifier: BSD-3-Clause
# Reference isolation: a lab's library may not call the grader-only reference library
# (cudalab_reference: bank-model answers, bit packers, host matmuls), because a grade must be
# for the student's own code. Checked on the built objects, so it holds whatever a source file
# declares or includes: any symbol the lab library needs that the reference library defines is
# an error naming the symbols.
# Nor may it replace what the grader it is linked into relies on: a strong definition of a
# symbol of the C++ standard library (std::, operator new/delete), of the C library's
# environment, clock, random, memory and process functions, of the CUDA runtime or driver, of
# GoogleTest or of the grading library (cudalab::, the graders' namespaces) is an error too. A
# lab file defining, say, std::random_device::_M_getval() would otherwise take the place of
# libstdc++'s in the whole grader and make its random input changes and checked rows known.
# Nor may it look outside its arguments: a reference to the environment (getenv, environ), the
# command line (program_invocation_name), files (fopen, open, file streams, std::filesystem),
# clocks (clock_gettime, std::chrono, CUDA event timing), the dynamic loader (dlopen, dlsym) or
# raw system calls is an error as well. The graders time a kernel in one process and profile or
# sanitize it in another; code that could tell which (CUDALAB_UNDER_TOOL, the profiler's
# injection variables, the test filter in /proc/self/cmdline, the slow launches of a replaying
# profiler) could show each check a different kernel. Nor may it create texture or surface
# objects: their reads go around the global-load counters some profiler tests judge by.
#
# As a function (configure time):
#   cudalab_check_reference_isolation(<lab library target> <dependent target>)
#     adds a build step that runs this file in script mode after <lab library> is built; the
#     <dependent target> (the grader) waits for it, so the build fails with the message.
# As a script:
#   cmake -DLAB_LIB=<lib file> -DREF_LIB=<lib file> -DNM=<nm> [-DSTAMP=<file>] [-DREPORT_ONLY=ON]
#         -P CudalabIsolation.cmake
#   REPORT_ONLY prints "CUDALAB-ISOLATION: VIOLATION ..." and exits 0 (the known-wrong driver).
if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.25)
  # Sets <out> to the symbols the lab library needs (lab_lines) that match one of the patterns.
  function(_cudalab_references out)
    set(found "")
    foreach(l IN LISTS lab_lines)
      string(STRIP "${l}" l)
      string(REGEX REPLACE " U$" "" sym "${l}")
      foreach(pattern IN LISTS ARGN)
        if(sym MATCHES "${pattern}" AND NOT sym IN_LIST found)
          list(APPEND found "${sym}")
        endif()
      endforeach()
    endforeach()
    set(${out} "${found}" PARENT_SCOPE)
  endfunction()
  # Stops with "<library> <what>: <demangled symbols>. <why>" when <symbols> is not empty
  # (REPORT_ONLY: prints it as a violation and ends the script successfully; a macro, so that
  # its return() ends the script).
  macro(_cudalab_isolation_verdict symbols what why)
    set(_iso_symbols "${symbols}")
    if(_iso_symbols)
      find_program(CXXFILT c++filt)
      set(_iso_names "")
      foreach(_iso_sym IN LISTS _iso_symbols)
        set(_iso_name "${_iso_sym}")
        if(CXXFILT)
          execute_process(COMMAND "${CXXFILT}" "${_iso_sym}" OUTPUT_VARIABLE _iso_name
                          OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        endif()
        list(APPEND _iso_names "${_iso_name}")
      endforeach()
      list(JOIN _iso_names ", " _iso_names)
      get_filename_component(_iso_lib "${LAB_LIB}" NAME)
      if(REPORT_ONLY)
        message("CUDALAB-ISOLATION: VIOLATION ${_iso_lib} ${what}: ${_iso_names}. ${why}")
        return()
      endif()
      message(FATAL_ERROR "${_iso_lib} ${what}: ${_iso_names}. ${why}")
    endif()
  endmacro()
  foreach(v LAB_LIB REF_LIB NM)
    if(NOT DEFINED ${v})
      message(FATAL_ERROR "CudalabIsolation.cmake: -D${v}= is required")
    endif()
  endforeach()
  execute_process(COMMAND "${NM}" -g --defined-only --format=posix "${REF_LIB}"
                  OUTPUT_VARIABLE ref_out RESULT_VARIABLE rc1 ERROR_QUIET)
  execute_process(COMMAND "${NM}" -g --undefined-only --format=posix "${LAB_LIB}"
                  OUTPUT_VARIABLE lab_out RESULT_VARIABLE rc2 ERROR_QUIET)
  if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
    message(FATAL_ERROR "reference isolation: '${NM}' could not read ${REF_LIB} or ${LAB_LIB}")
  endif()
  # posix format: "<symbol> <type> [value size]"; archive member headers end with ':'.
  string(REGEX MATCHALL "(^|\n)[^ \n:]+ [A-Za-z]" ref_lines "${ref_out}")
  set(defined "")
  foreach(l IN LISTS ref_lines)
    string(STRIP "${l}" l)
    string(REGEX REPLACE " [A-Za-z]$" "" sym "${l}")
    list(APPEND defined "${sym}")
  endforeach()
  string(REGEX MATCHALL "(^|\n)[^ \n:]+ U" lab_lines "${lab_out}")
  set(bad "")
  foreach(l IN LISTS lab_lines)
    string(STRIP "${l}" l)
    string(REGEX REPLACE " U$" "" sym "${l}")
    if(sym IN_LIST defined AND NOT sym IN_LIST bad)
      list(APPEND bad "${sym}")
    endif()
  endforeach()
  # Strong definitions (T, D, B, R) of symbols that belong to the grader's libraries.
  execute_process(COMMAND "${NM}" -g --defined-only --format=posix "${LAB_LIB}"
                  OUTPUT_VARIABLE lab_defined ERROR_QUIET)
  string(REGEX MATCHALL "(^|\n)[^ \n:]+ [TDBR]" strong_lines "${lab_defined}")
  set(foreign_re
      "^(_ZN?K?St|_Z(nw|na|dl|da)[^a-z]|_ZN7testing|_ZN7cudalab|_ZN[0-9]+(matmul|tile)_grading"
      "|cuda[A-Z_]|cu[A-Z]|__cxa_|(secure_)?getenv$|(set|put|unset|clear)env$"
      "|(clock_gettime|gettimeofday|time|clock|rand|rand_r|random|srand|srandom|drand48)$"
      "|(getrandom|getentropy|dlsym|dlvsym|dlopen|malloc|calloc|realloc|free|memcpy|memmove)$"
      "|(memset|posix_memalign|aligned_alloc|exit|_exit|abort|atexit|system|fork)$)")
  string(CONCAT foreign_re ${foreign_re})
  set(foreign "")
  foreach(l IN LISTS strong_lines)
    string(STRIP "${l}" l)
    string(REGEX REPLACE " [TDBR]$" "" sym "${l}")
    if(sym MATCHES "${foreign_re}" AND NOT sym IN_LIST foreign)
      list(APPEND foreign "${sym}")
    endif()
  endforeach()
  # References (U) that would let the library see more than its arguments (one pattern each:
  # CMake's regular expressions take few groups).
  set(outside_patterns
      "^(secure_|__libc_secure_)?getenv$" "^_?_?environ$" "^program_invocation(_short)?_name$"
      "^__progname(_full)?$" "^getauxval$" "^dl(open|mopen|sym|vsym|info|iterate_phdr)$"
      "^(f|fd|fre)?open(at)?(64)?$" "^__open(at)?(64)?_2$" "^creat(64)?$" "^popen$" "^syscall$"
      "^readlink(at)?$" "^(opendir|scandir|scandir64|getpid|getppid)$"
      "^_ZNSt(7__cxx11)?1[34]basic_i?fstream" "^_ZNSt13basic_filebuf" "^_ZNSt12__basic_file"
      "^_ZNSt(7__cxx11)?10filesystem" "^(clock_gettime|gettimeofday|time|clock|times|timespec_get)$"
      "^_ZNSt6chrono" "^cudaEvent(ElapsedTime|Query|Synchronize)$"
      "^(cudaGetDriverEntryPoint|cuGetProcAddress)")
  # Reads of memory that the graders' load counters (ncu's global-load requests) do not see.
  set(texture_patterns "^cuda(Create|Destroy)(Texture|Surface)Object$" "^cudaBind(Texture|Surface)"
      "^cu(TexObject|SurfObject|TexRef|SurfRef)")
  _cudalab_references(outside ${outside_patterns})
  _cudalab_references(texture ${texture_patterns})
  _cudalab_isolation_verdict("${outside}" "looks outside its arguments"
    "The graders time your code in one process and profile or sanitize it in another, and each must see the same code, so it may not read the environment, the command line, files or clocks, nor load code: take everything from the launcher's arguments.")
  _cudalab_isolation_verdict("${texture}" "reads memory through texture or surface objects"
    "The graders count the global-memory loads your kernels issue, and texture reads go around those counters; no lab asks for them: read the operands with ordinary loads.")
  _cudalab_isolation_verdict("${foreign}" "defines what the grader's own libraries define"
    "Your code is linked into the grader, so it may not replace the standard, C, CUDA, GoogleTest or grading libraries: give your functions names of your own, in your lab's namespace.")
  _cudalab_isolation_verdict("${bad}" "calls grader-only reference code"
    "The graders compare your code with these references, so your code may not use them: write the computation yourself (the handout says what to write).")
  if(REPORT_ONLY)
    message("CUDALAB-ISOLATION: clean")
  endif()
  if(STAMP)
    file(WRITE "${STAMP}" "ok\n")
  endif()
  return()
endif()

include_guard(GLOBAL)
set(CUDALAB_ISOLATION_SCRIPT "${CMAKE_CURRENT_LIST_FILE}")

function(cudalab_check_reference_isolation lab_lib dependent)
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${lab_lib}_isolation.stamp")
  add_custom_command(OUTPUT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" "-DLAB_LIB=$<TARGET_FILE:${lab_lib}>"
            "-DREF_LIB=$<TARGET_FILE:cudalab_reference>" "-DNM=${CMAKE_NM}" "-DSTAMP=${stamp}"
            -P "${CUDALAB_ISOLATION_SCRIPT}"
    DEPENDS ${lab_lib} cudalab_reference "${CUDALAB_ISOLATION_SCRIPT}"
    COMMENT "Checking that ${lab_lib} calls no reference code, replaces no grader library and looks nowhere outside its arguments"
    VERBATIM)
  add_custom_target(${lab_lib}_isolation ALL DEPENDS "${stamp}")
  if(TARGET ${dependent})
    add_dependencies(${dependent} ${lab_lib}_isolation)
  endif()
endfunction()
