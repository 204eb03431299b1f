# SPDX-License-Identifier: BSD-3-Clause
# Driver of the known-wrong tests (wrong.labNN.<variant>), the correct alternatives
# (right.labNN.<variant>) and the attacks (attack.labNN.<variant>), run by CTest as
#   cmake -DMODE=<wrong|right|attack> -DGRADER=<exe> -DJUDGE=<cudalab_verdict> -DPREFIX=labNN.
#         -DFILTER=<gtest filter> -DWHAT=<what it is> -DVARIANT=<labNN_topic/variant>
#         -DTIMEOUT=<seconds> [-DISOLATION_REPORT=<file>] -P CudalabExpectVerdict.cmake
# The grader runs under the judge (cudalab_verdict --batch), exactly as CTest runs a suite in one
# process: a test's verdict is the authenticated result its grader sent after the test ran; a
# test that sent none (the process ended early, crashed or hung) has no verdict, which counts
# as not passed. Nothing the grader prints or its exit status counts.
#   wrong   passes when the build's library checks reject the variant, or at least one selected
#           test failed or got no verdict; Skipped when nothing failed but tests were skipped
#           (no GPU); fails when every selected test passed (the grader accepts it).
#   right   passes when every selected test passed; fails naming the tests that did not.
#   attack  a hostile copy of the student stub (tests/labNN_topic/attack/): passes when it earns
#           exactly the untouched stub's points: the build's library checks reject it, or no
#           graded test passes under the judge (every graded test fails on the stub: the stub
#           audit). With -DJUDGED=ON (the patch header's "judged: yes") the judge must hold on
#           its own, whatever the build says.
# With -DFAIL_FAST=ON a known-wrong submission's grader stops at its first failed test (the
# verdict is the same; only the first test that caught it is named).
cmake_minimum_required(VERSION 3.25)
if(NOT MODE)
  set(MODE wrong)
endif()
if(MODE STREQUAL "right")
  set(kind "correct alternative")
elseif(MODE STREQUAL "attack")
  set(kind "attack on the stub")
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
set(build_verdict "")
if(ISOLATION_REPORT AND EXISTS "${ISOLATION_REPORT}")
  file(READ "${ISOLATION_REPORT}" iso)
  if(iso MATCHES "CUDALAB-ISOLATION: VIOLATION ([^\n]*)")
    set(build_verdict "${CMAKE_MATCH_1}")
    if(MODE STREQUAL "right")
      message(FATAL_ERROR "REJECTED by the build: ${build_verdict}")
    elseif(MODE STREQUAL "wrong")
      message("REJECTED by the build: ${build_verdict}")
      return()
    endif()
    message("REJECTED by the build (a real build stops here): ${build_verdict}")
  endif()
endif()
foreach(v JUDGE PREFIX)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "CudalabExpectVerdict.cmake: -D${v}=... is required")
  endif()
endforeach()
# A grader or judge that is not there judges nothing: that is an error of the tree, never a
# rejection (no verdict would otherwise count as "not passed" below).
foreach(exe GRADER JUDGE)
  if(NOT EXISTS "${${exe}}")
    message("CUDALAB-EXPECT: NOT JUDGED: ${${exe}} does not exist")  # one line, for checks
    message(FATAL_ERROR "CudalabExpectVerdict.cmake: ${${exe}} does not exist (build it first: "
                        "cmake --build <tree>, or its target and cudalab_verdict)")
  endif()
endforeach()
set(fail_fast "")
if(FAIL_FAST AND MODE STREQUAL "wrong")
  set(fail_fast --gtest_fail_fast)
endif()

# The tests the filter selects (GoogleTest's own listing).
execute_process(COMMAND "${GRADER}" --gtest_list_tests "--gtest_filter=${FILTER}"
                OUTPUT_VARIABLE listing ERROR_QUIET TIMEOUT 60 RESULT_VARIABLE list_rc)
string(REGEX REPLACE "[ ]+#[^\n]*" "" listing "${listing}")
string(REGEX MATCHALL "\n  [^ \n]+" cases "\n${listing}")
list(LENGTH cases selected)

get_filename_component(grader_name "${GRADER}" NAME)
set(dir "${CMAKE_CURRENT_BINARY_DIR}/cudalab_expect/${grader_name}")
message("running under the judge: ${GRADER} --gtest_filter=${FILTER} ${fail_fast}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "CUDALAB_TEST_PREFIX=${PREFIX}" "CUDALAB_BATCH_DIR=${dir}"
          "CUDALAB_BATCH_TEST_TIMEOUT=${TIMEOUT}"
          "${JUDGE}" --batch "${dir}" --prefix "${PREFIX}" --timeout ${TIMEOUT} --
          "${GRADER}" "--gtest_filter=${FILTER}" --gtest_color=no ${fail_fast}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc MATCHES "^[0-9]+$")
  message("${out}")
  message(FATAL_ERROR "CudalabExpectVerdict.cmake: the judge did not run (${rc}): nothing was judged")
endif()

# The judge's verdicts: one "[ CUDALAB-BATCH ]" line per test that reported.
# Only lines that start with the marker are the judge's: the grader's own output reaches here
# too, defused, and a forged marker inside a line must not count.
string(REGEX MATCHALL "(^|\n)\\[ CUDALAB-BATCH \\] [^\n]*" lines "${out}")
set(ran 0)
set(passed 0)
set(failed 0)
set(skipped 0)
set(caught "")
set(accepted "")
foreach(line IN LISTS lines)
  if(line MATCHES "\"test\": \"([^\"]+)\", \"status\": \"([a-z]+)\"")
    math(EXPR ran "${ran} + 1")
    math(EXPR ${CMAKE_MATCH_2} "${${CMAKE_MATCH_2}} + 1")
    if(CMAKE_MATCH_2 STREQUAL "failed")
      list(APPEND caught "${CMAKE_MATCH_1}")
    elseif(CMAKE_MATCH_2 STREQUAL "passed")
      list(APPEND accepted "${CMAKE_MATCH_1}")
    endif()
  endif()
endforeach()
math(EXPR missing "${selected} - ${ran}")
if(missing LESS 0)
  set(missing 0)
endif()
string(REGEX MATCH "\\[ CUDALAB  \\] one process ran the suite \\(([^)]*)\\)" ended "${out}")
set(ended "${CMAKE_MATCH_1}")
# What the failed tests printed (their first lines), for the log.
function(_show_failures)
  foreach(t IN LISTS caught)
    string(REPLACE "${PREFIX}" "" g "${t}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" f "${g}")
    if(EXISTS "${dir}/${f}.result")
      file(STRINGS "${dir}/${f}.result" shown LIMIT_COUNT 12 REGEX "Failure|Expected|expected|got|needs|which is")
      list(JOIN shown "\n      " shown)
      message("  ${t}:\n      ${shown}")
    else()
      message("  ${t}")
    endif()
  endforeach()
endfunction()

if(MODE STREQUAL "attack")
  if(NOT build_verdict STREQUAL "" AND NOT JUDGED)
    message("judged anyway (the build is the defence against this one): ${selected} selected, "
            "${ran} with a verdict (${passed} passed, ${failed} failed, ${skipped} skipped)")
    message("HELD: the build rejects the attack, so it earns nothing (the stub's points)")
    return()
  endif()
  message("judged: ${selected} selected, ${ran} with a verdict (${passed} passed, ${failed} failed, "
          "${skipped} skipped), ${missing} without one; the grader process: ${ended}")
  if(passed GREATER 0)
    list(JOIN accepted "\n  " accepted_text)
    message(FATAL_ERROR "ATTACK SUCCEEDED: ${passed} graded test(s) pass for a hostile copy of "
                        "the stub, which passes none:\n  ${accepted_text}")
  endif()
  message("HELD: the attack earns the untouched stub's points (no graded test passes)")
  return()
endif()
if(MODE STREQUAL "right")
  if(failed GREATER 0 OR missing GREATER 0)
    message("${out}")
    _show_failures()
    message(FATAL_ERROR "REJECTED: the grader rejects the correct alternative ${VARIANT} "
                        "(${WHAT}): ${failed} failed, ${missing} without a verdict (${ended})")
  endif()
  if(selected EQUAL 0)
    message(FATAL_ERROR "the filter '${FILTER}' selected no test of the grader")
  endif()
  if(skipped GREATER 0)
    message("CUDALAB-WRONG: SKIPPED: not judged here: ${skipped} of ${ran} test(s) skipped, "
            "${passed} passed, none failed")
    return()
  endif()
  # The speed verdicts and thresholded measurements of the accepted run, so its margin over
  # each bar shows.
  file(GLOB shown_files "${dir}/*.result")
  foreach(f IN LISTS shown_files)
    file(STRINGS "${f}" verdicts REGEX "^\\[ (SPEED +\\].*needs|MEASURE +\\].*threshold)")
    foreach(v IN LISTS verdicts)
      message("${v}")
    endforeach()
  endforeach()
  message("ACCEPTED: all ${ran} test(s) passed")
  return()
endif()
if(failed GREATER 0)
  message("REJECTED: ${failed} of ${selected} test(s) failed:")
  _show_failures()
  return()
endif()
if(missing GREATER 0 AND selected GREATER 0)
  message("REJECTED: ${missing} of ${selected} test(s) got no verdict (the grader process: ${ended})")
  return()
endif()
if(selected EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "the filter '${FILTER}' selected no test of the grader: fix the "
                      "'filter:' line in the header of the variant's patch (${VARIANT}.patch)")
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
message(FATAL_ERROR "ACCEPTED: the grader passed all ${ran} test(s) of the known-wrong "
                    "submission ${VARIANT} (${WHAT}); the grader must catch it")
