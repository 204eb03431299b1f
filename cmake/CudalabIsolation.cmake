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
  find_program(CXXFILT c++filt)
  if(foreign)
    set(names "")
    foreach(sym IN LISTS foreign)
      set(name "${sym}")
      if(CXXFILT)
        execute_process(COMMAND "${CXXFILT}" "${sym}" OUTPUT_VARIABLE name
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      endif()
      list(APPEND names "${name}")
    endforeach()
    list(JOIN names ", " names)
    get_filename_component(lib_name "${LAB_LIB}" NAME)
    set(msg "${lib_name} defines what the grader's own libraries define: ${names}. Your code "
            "is linked into the grader, so it may not replace the standard, C, CUDA, GoogleTest "
            "or grading libraries: give your functions names of your own, in your lab's "
            "namespace.")
    string(CONCAT msg ${msg})
    if(REPORT_ONLY)
      message("CUDALAB-ISOLATION: VIOLATION ${msg}")
      return()
    endif()
    message(FATAL_ERROR "${msg}")
  endif()
  if(bad)
    set(names "")
    foreach(sym IN LISTS bad)
      set(name "${sym}")
      if(CXXFILT)
        execute_process(COMMAND "${CXXFILT}" "${sym}" OUTPUT_VARIABLE name
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      endif()
      list(APPEND names "${name}")
    endforeach()
    list(JOIN names ", " names)
    get_filename_component(lib_name "${LAB_LIB}" NAME)
    set(msg "${lib_name} calls grader-only reference code: ${names}. The graders compare "
            "your code with these references, so your code may not use them: write the "
            "computation yourself (the handout says what to write).")
    string(CONCAT msg ${msg})
    if(REPORT_ONLY)
      message("CUDALAB-ISOLATION: VIOLATION ${msg}")
      return()
    endif()
    message(FATAL_ERROR "${msg}")
  endif()
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
    COMMENT "Checking that ${lab_lib} calls no reference code and replaces no grader library"
    VERBATIM)
  add_custom_target(${lab_lib}_isolation ALL DEPENDS "${stamp}")
  if(TARGET ${dependent})
    add_dependencies(${dependent} ${lab_lib}_isolation)
  endif()
endfunction()
