# SPDX-License-Identifier: BSD-3-Clause
# Driver of the known-wrong tests (wrong.labNN.<variant>), run by CTest as
#   cmake -DGRADER=<exe> -DFILTER=<gtest filter> -DWHAT=<what is broken>
#         -DVARIANT=<labNN_topic/variant> -DTIMEOUT=<seconds> -P CudalabExpectVerdict.cmake
# The grader is built against a deliberately broken submission, so the test passes only
# when the grader REJECTS it:
#   at least one grader test failed (or the grader crashed / timed out)  -> passed
#   nothing failed, but tests were skipped (no GPU here)                -> Skipped (the
#                                                                          test prints the
#                                                                          skip marker that
#                                                                          SKIP_REGULAR_EXPRESSION matches)
#   every test ran and passed                                           -> FAILED: the
#                                                                          grader accepts a
#                                                                          wrong submission
#   the filter selected no test                                         -> FAILED
# With -DMODE=right (correct alternatives, tests/labNN_topic/right/) the verdicts turn around: the test
# passes only when every selected test passed, and fails naming the tests that rejected it.
# With -DFAIL_FAST=ON a known-wrong submission's grader stops at its first failed test (the
# verdict is the same; only the first test that caught it is named).
# With -DLAB_LIB/-DREF_LIB/-DNM/-DISOLATION_SCRIPT the variant's library is first checked for
# calls of the grader-only reference code (a rejection by itself).
cmake_minimum_required(VERSION 3.25)
if(NOT MODE)
  set(MODE wrong)
endif()
if(MODE STREQUAL "right")
  set(kind "correct alternative")
else()
  set(kind "known-wrong submission")
endif()

foreach(v GRADER FILTER VARIANT)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "CudalabExpectVerdict.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT TIMEOUT)
  set(TIMEOUT 300)
endif()

message("${kind} ${VARIANT}: ${WHAT}")
if(ISOLATION_SCRIPT AND LAB_LIB)
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DLAB_LIB=${LAB_LIB}" "-DREF_LIB=${REF_LIB}"
                          "-DNM=${NM}" -DREPORT_ONLY=ON -P "${ISOLATION_SCRIPT}"
                  OUTPUT_VARIABLE iso ERROR_VARIABLE iso)
  if(iso MATCHES "CUDALAB-ISOLATION: VIOLATION ([^\n]*)")
    if(MODE STREQUAL "right")
      message(FATAL_ERROR "REJECTED by the build: ${CMAKE_MATCH_1}")
    endif()
    message("REJECTED by the build: ${CMAKE_MATCH_1}")
    return()
  endif()
endif()
# After the isolation check: a variant it rejects is judged even where its grader did not link.
if(NOT EXISTS "${GRADER}")
  message(FATAL_ERROR "CudalabExpectVerdict.cmake: grader ${GRADER} does not exist (build it first)")
endif()
set(fail_fast "")
if(FAIL_FAST AND NOT MODE STREQUAL "right")
  set(fail_fast --gtest_fail_fast)
endif()
message("running: ${GRADER} --gtest_filter=${FILTER} ${fail_fast}")
execute_process(
  COMMAND "${GRADER}" "--gtest_filter=${FILTER}" --gtest_color=no ${fail_fast}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out
  TIMEOUT ${TIMEOUT})

# Counts from GoogleTest's summary.
set(ran -1)
set(failed 0)
set(skipped 0)
set(passed 0)
if(out MATCHES "\\[==========\\] ([0-9]+) tests? from [0-9]+ test suites? ran")
  set(ran ${CMAKE_MATCH_1})
endif()
if(out MATCHES "\\[  PASSED  \\] ([0-9]+) tests?\\.")
  set(passed ${CMAKE_MATCH_1})
endif()
if(out MATCHES "\\[  SKIPPED \\] ([0-9]+) tests?, listed below")
  set(skipped ${CMAKE_MATCH_1})
endif()
if(out MATCHES "\\[  FAILED  \\] ([0-9]+) tests?, listed below")
  set(failed ${CMAKE_MATCH_1})
endif()

# The names of the failed tests (the lines after "listed below").
string(REGEX MATCHALL "\\[  FAILED  \\] [^ \n]+[^\n]*" failed_lines "${out}")
set(caught "")
foreach(line IN LISTS failed_lines)
  if(line MATCHES "listed below" OR line MATCHES "\\([0-9]+ ms\\)$")
    continue()
  endif()
  string(REGEX REPLACE "^\\[  FAILED  \\] " "" name "${line}")
  list(APPEND caught "${name}")
endforeach()
list(REMOVE_DUPLICATES caught)

if(MODE STREQUAL "right")
  if(rc MATCHES "timeout")
    message(FATAL_ERROR "REJECTED: the grader did not finish within ${TIMEOUT} s")
  endif()
  if(failed GREATER 0 OR NOT rc EQUAL 0)
    string(LENGTH "${out}" len)
    if(len GREATER 6000)
      math(EXPR start "${len} - 6000")
      string(SUBSTRING "${out}" ${start} 6000 out)
    endif()
    message("${out}")
    list(JOIN caught "\n  " caught_text)
    message(FATAL_ERROR "REJECTED: the grader rejects the correct alternative ${VARIANT} "
                        "(${WHAT}); failed:\n  ${caught_text}")
  endif()
  if(ran LESS_EQUAL 0)
    message(FATAL_ERROR "the filter '${FILTER}' selected no test of the grader")
  endif()
  if(skipped GREATER 0)
    message("CUDALAB-WRONG: SKIPPED: not judged here: ${skipped} of ${ran} test(s) skipped, "
            "${passed} passed, none failed")
    return()
  endif()
  # The speed verdicts and thresholded measurements of the accepted run, so its margin over
  # each bar shows.
  string(REPLACE ";" "," flat "${out}")
  string(REGEX MATCHALL "\\[ (SPEED +\\][^\n]*needs|MEASURE +\\][^\n]*threshold)[^\n]*" verdicts
               "${flat}")
  foreach(v IN LISTS verdicts)
    message("${v}")
  endforeach()
  message("ACCEPTED: all ${ran} test(s) passed")
  return()
endif()
if(rc MATCHES "timeout")
  message("REJECTED: the grader did not finish within ${TIMEOUT} s (a student sees a Timeout)")
  return()
endif()
if(failed GREATER 0)
  list(JOIN caught "\n  " caught_text)
  message("REJECTED: ${failed} of ${ran} test(s) failed:\n  ${caught_text}")
  return()
endif()
if(NOT rc EQUAL 0)
  string(LENGTH "${out}" len)
  if(len GREATER 3000)
    math(EXPR start "${len} - 3000")
    string(SUBSTRING "${out}" ${start} 3000 out)
  endif()
  message("${out}")
  message("REJECTED: the grader exited with '${rc}' without a test summary (crash?)")
  return()
endif()
if(ran EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "the filter '${FILTER}' selected no test of the grader: fix the "
                      "'filter:' line in the header of the variant's patch (${VARIANT}.patch)")
endif()
if(ran LESS 0)
  message("${out}")
  message(FATAL_ERROR "the grader exited 0 but printed no GoogleTest summary")
endif()
if(skipped GREATER 0)
  set(reason "")
  if(out MATCHES "GPU tests will be skipped: ([^\n]*)")
    set(reason " (${CMAKE_MATCH_1})")
  endif()
  message("CUDALAB-WRONG: SKIPPED: not judged here: ${skipped} of ${ran} test(s) skipped${reason}, "
          "${passed} passed, none failed")
  return()
endif()
message("${out}")
message(FATAL_ERROR "ACCEPTED: the grader passed all ${ran} test(s) of the known-wrong "
                    "submission ${VARIANT} (${WHAT}); the grader must catch it")
