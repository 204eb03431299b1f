# The setup test of a batch-run suite (cmake/CudalabGrading.cmake, "Batch runs"):
#   cmake -DEXE=<grader> -DFILTER=<Suite>.* -DDIR=<result folder> -DTIMEOUT=<s> -P CudalabBatch.cmake
# Runs every test of the suite in one grader process, which leaves one result file per test in
# DIR (cudalab::testing::make_batch_listener()). The tests of the suite report those results;
# a test left without one runs alone. So this step passes whatever the tests' verdicts, and
# lists them; it is Skipped when every test was skipped (no GPU).
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

file(GLOB results "${DIR}/*.result")
list(LENGTH results n)
set(counts_passed 0)
set(counts_failed 0)
set(counts_skipped 0)
set(listing "")
foreach(f IN LISTS results)
  file(STRINGS "${f}" status LIMIT_COUNT 1)
  if(status MATCHES "^(passed|failed|skipped)$")
    math(EXPR counts_${status} "${counts_${status}} + 1")
  endif()
  get_filename_component(test "${f}" NAME_WLE)
  string(APPEND listing "  ${status}  ${test}\n")
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
