# SPDX-License-Identifier: BSD-3-Clause
# The setup test of a batch-run suite (cmake/CudalabGrading.cmake, "Batch runs"):
#   cmake -DEXE=<grader> -DFILTER=<Suite>.* -DDIR=<result folder> -DTIMEOUT=<s> -P CudalabBatch.cmake
# Runs every test of the suite in one grader process, which leaves one result file per test in
# DIR (cudalab::testing::make_batch_listener()). The tests of the suite report those results;
# a test left without one runs alone. So this step passes whatever the tests' verdicts, and
# lists them; it is Skipped when every test was skipped (no GPU).
# The grader also prints each test's status and channel records on its own output
# ("[ CUDALAB-BATCH ] ..." and "[ CUDALAB-RECORD ] ..." lines): they are repeated here, in this
# test's output that CTest captures, and the scoreboard takes a batched test's verdict and
# measurements from them, never from the result files (which any process could write). Result
# files of tests the grader did not report are removed before the suite's tests read them.
cmake_minimum_required(VERSION 3.25)
foreach(v EXE FILTER DIR TIMEOUT)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "CudalabBatch.cmake: -D${v}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${DIR}")  # no result of an earlier run may be reported
file(MAKE_DIRECTORY "${DIR}")
execute_process(COMMAND "${EXE}" "--gtest_filter=${FILTER}" --gtest_color=no
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT ${TIMEOUT})

# The grader's own report: one status line per test it ran, and the tests' records.
string(REPLACE ";" "\\;" lines "${out}")
string(REPLACE "\n" ";" lines "${lines}")
set(n 0)
set(counts_passed 0)
set(counts_failed 0)
set(counts_skipped 0)
set(listing "")
set(reported "")
foreach(line IN LISTS lines)
  if(line MATCHES "^\\[ CUDALAB-BATCH \\] .*\"test\": \"([^\"]+)\", \"status\": \"(passed|failed|skipped)\"")
    set(test "${CMAKE_MATCH_1}")
    set(status "${CMAKE_MATCH_2}")
    math(EXPR n "${n} + 1")
    math(EXPR counts_${status} "${counts_${status}} + 1")
    string(APPEND listing "${line}\n")
    string(REGEX REPLACE "^.*\\.([^.]+\\.[^.]+)$" "\\1" gtest "${test}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" file "${gtest}")
    list(APPEND reported "${DIR}/${file}.result")
  elseif(line MATCHES "^\\[ CUDALAB-RECORD \\] ")
    string(APPEND listing "${line}\n")
  endif()
endforeach()
file(GLOB results "${DIR}/*.result")
foreach(f IN LISTS results)
  if(NOT f IN_LIST reported)
    file(REMOVE "${f}")
  endif()
endforeach()
message("[ CUDALAB  ] one process ran ${FILTER} (exit: ${rc}): ${n} result(s), "
        "${counts_passed} passed, ${counts_failed} failed, ${counts_skipped} skipped; each test "
        "of the suite reports its own\n${listing}")
if(NOT rc EQUAL 0 AND NOT rc EQUAL 1)
  # Not a test verdict (gtest exits 1 for failed tests): show how the process ended.
  string(LENGTH "${out}" len)
  if(len GREATER 4000)
    math(EXPR from "${len} - 4000")
    string(SUBSTRING "${out}" ${from} -1 out)
  endif()
  message("[ CUDALAB  ] the process did not finish the suite; the tests without a result run "
          "alone. Its last output:\n${out}")
endif()
if(n GREATER 0 AND counts_skipped EQUAL n)
  message("[  SKIPPED ] every test of ${FILTER} was skipped")
endif()
