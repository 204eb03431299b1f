# SPDX-License-Identifier: BSD-3-Clause
# The grading conventions, defined once: which labels, timeout and GPU a test gets follows from
# its name. CMake registers the tests with these properties; the tools (scoreboard, stub audit)
# read them back from CTest (tools/grading_manifest.py), so that nothing else re-derives them.
#
# Suite endings. A test's suite is classified by its base name: the part of "Inst/Suite/3"
# that is neither an instantiation prefix nor a type index.
#   ending       labels           timeout        scheduling   GPU
#   ...Cpu       cpu              TIMEOUT_CPU    parallel     no
#   ...Gpu       gpu              TIMEOUT_GPU    parallel     RESOURCE_GROUPS gpus:1
#   ...Perf      gpu perf         TIMEOUT_PERF   alone        RUN_SERIAL, RESOURCE_GROUPS gpus:1
#   ...Sanitizer gpu sanitizer    TIMEOUT_TOOLS  parallel     RESOURCE_GROUPS gpus:1, COST 100 (started first)
#   ...Profiler  gpu profiler     TIMEOUT_TOOLS  alone        RUN_SERIAL, RESOURCE_GROUPS gpus:1
# Perf tests time kernels and Profiler tests hold the GPU's counters: they need the GPU alone.
# With CUDALAB_GPU_LOCKS (off by default, see below) they take one slot like any GPU test, and a lock per GPU
# gives them the GPU alone only while they time or profile (cudalab/gpu_lock.hpp: every GPU
# test shares the lock while its body runs; cudalab::benchmark(), cudalab::compare() and
# run_ncu() take it alone): the seconds a perf test spends on the host (inputs, the
# candidate's capture, the checks of its results) no longer keep the rest of the suite
# waiting. Without it ("alone" in the table) they run one at a time. Every GPU
# of the build's CTest resource spec (cudalab_resources.json, written at configure time;
# CUDALAB_GPU_COUNT, CUDALAB_GPU_SLOTS) has CUDALAB_GPU_SLOTS slots, and a correctness test
# takes one (a test of CUDALAB_LARGE_MEMORY_SUITES, 8 to 10 GB, half of them). With CUDALAB_PERF_PER_GPU=ON a test that runs alone takes every slot of one GPU
# instead of RUN_SERIAL: nothing shares its GPU, while CPU tests and the other GPUs go on (for
# runners with several GPUs). Sanitizer tests judge hazards, not time, and run beside the
# others.
# A base name that starts with "Given" (code the student does not write) also gets the label
# "given"; every other test of a lab (a grader whose label is labNN) is graded. A suite with none
# of these endings fails the build of its grader with a message naming the suite.
#
# Points are not CMake's: each lab declares its objectives grouped by technique with their
# points (and its helper suites, which earn none) in tests/labNN_topic/objectives.json, and
# tools/grading_manifest.py computes the manifest (every test with its lab, labels, objective
# and points) from `ctest --show-only=json-v1` of the build tree, the declarations and the
# record below.
# docs/scores-schema.md explains the scoring.
#
# What lands in the build tree:
#   cudalab_labs.json                 configure: the rules, the labs (folders, SOURCES, GIVEN,
#                                     DEMO) and the graders (target, label, prefix, graded):
#                                     what tools/grading_manifest.py cannot read from CTest
#   <grader dir>/<grader>_tests.cmake build: one CTest test per GoogleTest test
#   CTestCustom.cmake                 configure: CTest keeps up to 1 MiB of each test's output,
#                                     which holds the test's channel records (cudalab/testing.hpp)
#   cudalab_batch/<suite>/*.result    test time: a batch run's result of each test of a suite
#
# The judge. Every test runs as `cudalab_verdict --test <name> -- <grader> --gtest_filter=...`:
# that process, which links no lab code, starts the grader, gives it a key on a pipe and takes
# the test's verdict only from the authenticated result the grader sends after the test body
# returned (cudalab/verdict.hpp); the grader's exit status and printed lines decide nothing.
# Exit 77 is Skipped.
#
# Batch runs (CUDALAB_BATCH_SUITES and CUDALAB_BATCH_PERF, both on by default: Gpu and Perf suites).
# A suite whose ending is in CUDALAB_BATCH_ENDINGS and that has two tests or more gets a setup
# test "<prefix><Suite>.@batch" (FIXTURES_SETUP; `cudalab_verdict --batch`) that runs the whole
# suite in one grader process and keeps each test's verdict.
# Each test of the suite stays one CTest test with its own name, labels and timeout: it prints
# and returns its result from that run, or runs alone when the run left none (a crash, a
# timeout, a broken CUDA context, or -FS). Every test's output names its seed and GPU.
#
# Script mode (the grader's POST_BUILD step; lists the tests and writes the CTest file):
#   cmake -DCUDALAB_GRADER_CONFIG=<config.cmake> -DCUDALAB_GRADER_EXE=<exe> -P CudalabGrading.cmake
if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.25)  # before the functions: they keep the policies they see
endif()
include_guard(GLOBAL)

# ---------------------------------------------------------------------------
# The rules
# ---------------------------------------------------------------------------
set(CUDALAB_SUITE_ENDINGS Cpu Gpu Perf Sanitizer Profiler)
set(CUDALAB_GIVEN_PREFIX Given)
set(CUDALAB_RULE_Cpu_LABELS cpu)
set(CUDALAB_RULE_Cpu_TIMEOUT CPU)
set(CUDALAB_RULE_Cpu_SERIAL FALSE)
set(CUDALAB_RULE_Cpu_GPU FALSE)
set(CUDALAB_RULE_Gpu_LABELS gpu)
set(CUDALAB_RULE_Gpu_TIMEOUT GPU)
set(CUDALAB_RULE_Gpu_SERIAL FALSE)
set(CUDALAB_RULE_Gpu_GPU TRUE)
set(CUDALAB_RULE_Perf_LABELS gpu perf)
set(CUDALAB_RULE_Perf_TIMEOUT PERF)
set(CUDALAB_RULE_Perf_SERIAL TRUE)
set(CUDALAB_RULE_Perf_GPU TRUE)
set(CUDALAB_RULE_Sanitizer_LABELS gpu sanitizer)
set(CUDALAB_RULE_Sanitizer_TIMEOUT TOOLS)
set(CUDALAB_RULE_Sanitizer_SERIAL FALSE)
set(CUDALAB_RULE_Sanitizer_GPU TRUE)
# CTest starts tests in descending COST (where no earlier run's times are in the build tree):
# sanitizer runs are the longest parallel tests (lab 13's pipeline racecheck 35-44 s on one
# H200), and started in listing order the last of them ended the parallel part of the suite.
set(CUDALAB_RULE_Sanitizer_COST 100)
set(CUDALAB_RULE_Profiler_LABELS gpu profiler)
set(CUDALAB_RULE_Profiler_TIMEOUT TOOLS)
set(CUDALAB_RULE_Profiler_SERIAL TRUE)
set(CUDALAB_RULE_Profiler_GPU TRUE)
set(CUDALAB_DEFAULT_TIMEOUT_CPU 60)
set(CUDALAB_DEFAULT_TIMEOUT_GPU 120)
set(CUDALAB_DEFAULT_TIMEOUT_PERF 300)
set(CUDALAB_DEFAULT_TIMEOUT_TOOLS 900)
set(CUDALAB_GPU_RESOURCE "gpus:1")
set(CUDALAB_GPU_SLOTS 8 CACHE STRING
    "CTest resource slots of each GPU: how many correctness tests share it")
# On by default where the build sees several GPUs (CUDALAB_GPU_COUNT, else nvidia-smi -L): perf
# and profiler tests then run one per GPU at a time instead of one in all (on four H100s the
# solution suite's tests took 136 s so, where they had not finished in 330 s one at a time).
# _cudalab_visible_gpus(<out>) — how many GPUs `nvidia-smi -L` lists (0 without one).
function(_cudalab_visible_gpus out)
  set(n 0)
  find_program(CUDALAB_NVIDIA_SMI nvidia-smi)
  if(CUDALAB_NVIDIA_SMI)
    execute_process(COMMAND "${CUDALAB_NVIDIA_SMI}" -L OUTPUT_VARIABLE smi
                    ERROR_QUIET RESULT_VARIABLE rc TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "(^|\n)GPU [0-9]+:" gpus "${smi}")
      list(LENGTH gpus n)
    endif()
  endif()
  set(${out} ${n} PARENT_SCOPE)
endfunction()
set(_cudalab_perf_default OFF)
if(NOT CMAKE_SCRIPT_MODE_FILE AND NOT DEFINED CACHE{CUDALAB_PERF_PER_GPU})
  set(_cudalab_gpu_guess "${CUDALAB_GPU_COUNT}")
  if(_cudalab_gpu_guess STREQUAL "")
    _cudalab_visible_gpus(_cudalab_gpu_guess)
  endif()
  if(_cudalab_gpu_guess MATCHES "^[0-9]+$" AND _cudalab_gpu_guess GREATER 1)
    set(_cudalab_perf_default ON)
  endif()
endif()
option(CUDALAB_PERF_PER_GPU
       "Perf and profiler tests take every slot of one GPU instead of RUN_SERIAL (default: ON with several GPUs)"
       ${_cudalab_perf_default})
# Off by default: on one H200 (16 cores, 2026-11-28) the solution suite with the locks had run
# 916 of its 1104 tests after 365 s, where it runs all of them in 356 s without: a perf test
# that waits for the GPU holds the gate, and every test behind it waits for the longest test
# still sharing the GPU (a 40 s sanitizer run), so the suite moves in convoys.
option(CUDALAB_GPU_LOCKS
       "Perf and profiler tests share their GPU's slots and take it alone only to time or profile (cudalab/gpu_lock.hpp); OFF: they run alone"
       OFF)
# The lock files, two per GPU id of the resource spec (and CUDALAB_DEVICE), made at configure
# time: a grading run's test user may read the build tree but not write it.
set(CUDALAB_GPU_LOCK_DIR "")
set(CUDALAB_GPU_LOCK_ENVIRONMENT "")
if(NOT CMAKE_SCRIPT_MODE_FILE AND CUDALAB_GPU_LOCKS)
  set(CUDALAB_GPU_LOCK_DIR "${CMAKE_BINARY_DIR}/cudalab_gpu_locks")
  file(MAKE_DIRECTORY "${CUDALAB_GPU_LOCK_DIR}")
  foreach(_cudalab_i RANGE 15)
    file(TOUCH "${CUDALAB_GPU_LOCK_DIR}/gpu${_cudalab_i}.lock"
               "${CUDALAB_GPU_LOCK_DIR}/gpu${_cudalab_i}.gate")
  endforeach()
  set(CUDALAB_GPU_LOCK_ENVIRONMENT "CUDALAB_GPU_LOCK_DIR=${CUDALAB_GPU_LOCK_DIR}")
endif()
# The graders build, copy and check inputs of 64 MiB to 10 GB on the host. On the reference H200
# (2026-11-29, transparent huge pages "madvise") twelve perf tests took 35.7 s with glibc's
# malloc asking for huge pages where they took 49.8 s without: page faults were a quarter of
# their time. Set for every grader run (tests and batch runs); a glibc or kernel without the
# feature ignores it, and no result depends on it.
option(CUDALAB_HOST_HUGE_PAGES
       "Graders' large host allocations on transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)"
       ON)
set(CUDALAB_HOST_ENVIRONMENT "")
if(CUDALAB_HOST_HUGE_PAGES)
  set(CUDALAB_HOST_ENVIRONMENT "GLIBC_TUNABLES=glibc.malloc.hugetlb=1")
endif()
# Suites whose tests give one operand more than 2^31 elements (8 to 10 GB each): a test of
# one takes half of a GPU's slots, so that at most two of them share a GPU at once and
# none finds too little free memory because others of its kind hold it.
set(CUDALAB_LARGE_MEMORY_SUITES IndexRangeGpu TmaIndexRangeGpu PitchedRangeGpu)
# The GPU slots a test that runs alone takes; empty: it is RUN_SERIAL instead.
set(CUDALAB_ALONE_SLOTS "")
if(CUDALAB_PERF_PER_GPU)
  set(CUDALAB_ALONE_SLOTS "${CUDALAB_GPU_SLOTS}")
endif()
# Suites run in one process (cudalab_verdict --batch) when they have two tests or more: a
# CUDA context is paid once per suite, not once per test. Perf suites join with
# CUDALAB_BATCH_PERF (on by default; the whole batch run then holds its GPU alone, as each perf
# test does); sanitizer and profiler tests start a tool per test anyway.
set(CUDALAB_BATCH_ENDINGS Gpu)

# cudalab_suite_rule(<suite> <out>) — classifies a suite name ("Suite", "Inst/Suite",
# "Suite/0"): sets <out>_BASE (the base name), <out>_ENDING (Cpu, Gpu, ... or "" when none
# applies) and <out>_GIVEN (TRUE/FALSE).
function(cudalab_suite_rule suite out)
  string(REPLACE "/" ";" parts "${suite}")
  set(base "${suite}")
  foreach(p IN LISTS parts)
    if(NOT p MATCHES "^[0-9]+$")
      set(base "${p}")
    endif()
  endforeach()
  set(ending "")
  foreach(e IN LISTS CUDALAB_SUITE_ENDINGS)
    if(base MATCHES "${e}$")
      set(ending ${e})
    endif()
  endforeach()
  if(base MATCHES "^${CUDALAB_GIVEN_PREFIX}")
    set(given TRUE)
  else()
    set(given FALSE)
  endif()
  set(${out}_BASE "${base}" PARENT_SCOPE)
  set(${out}_ENDING "${ending}" PARENT_SCOPE)
  set(${out}_GIVEN ${given} PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------
# JSON (the build's records): built with string(JSON ... SET), whose writer escapes every
# string and lays out the structure; nothing is pieced together from text. Objects are written
# with their members in the order of their names (CMake's writer sorts them; every reader looks
# members up by name).
# ---------------------------------------------------------------------------
# _cudalab_json_str(<out> <value>) — <value> as the JSON text of a string, for string(JSON SET),
# which parses it and writes the string again with its own escapes (any other control character
# as \u00XX): here only the quote and the backslash, and the line breaks and tabs that a strict
# reader refuses unescaped.
function(_cudalab_json_str out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "\n" "\\n" value "${value}")
  string(REPLACE "\r" "\\r" value "${value}")
  string(REPLACE "\t" "\\t" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

# _cudalab_json_append(<array var> <json>) — appends the value <json> (JSON text) to the array in
# <array var> (string(JSON SET) at the index past the end appends).
function(_cudalab_json_append array_var json)
  set(array "${${array_var}}")
  string(JSON n LENGTH "${array}")
  string(JSON array SET "${array}" ${n} "${json}")
  set(${array_var} "${array}" PARENT_SCOPE)
endfunction()

# _cudalab_json_set(<object var> <key> STRING <value> | STRINGS [<value>...] | BOOL <value>
#                   | JSON <json>) — sets the member <key> of the object in <object var> to a
# string, an array of strings (a CMake list), true or false (CMake's truth of <value>), or a
# value given as JSON text (a number, null, an array or object built before).
function(_cudalab_json_set object_var key kind)
  set(object "${${object_var}}")
  if(kind STREQUAL "STRING")
    _cudalab_json_str(value "${ARGV3}")
  elseif(kind STREQUAL "STRINGS")
    set(value "[]")
    foreach(v IN LISTS ARGN)
      _cudalab_json_str(q "${v}")
      _cudalab_json_append(value "${q}")
    endforeach()
  elseif(kind STREQUAL "BOOL")
    if(ARGV3)
      set(value true)
    else()
      set(value false)
    endif()
  elseif(kind STREQUAL "JSON")
    set(value "${ARGV3}")
  else()
    message(FATAL_ERROR "_cudalab_json_set: unknown kind '${kind}'")
  endif()
  string(JSON object SET "${object}" "${key}" "${value}")
  set(${object_var} "${object}" PARENT_SCOPE)
endfunction()

# _cudalab_write_if_changed(<file> <content>) — leaves an unchanged file (and its time) alone.
function(_cudalab_write_if_changed file content)
  if(EXISTS "${file}")
    file(READ "${file}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${file}" "${content}")
endfunction()

# _cudalab_test_properties(<out prefix> <suite> <label> <extra labels> <timeouts: CPU GPU PERF TOOLS>)
# The CTest properties of a test of <suite>: <out>_LABELS, <out>_TIMEOUT, <out>_SERIAL,
# <out>_GPU, <out>_GIVEN, <out>_BASE, <out>_ENDING ("" when the suite has no known ending).
function(_cudalab_test_properties out suite label extra_labels t_cpu t_gpu t_perf t_tools)
  cudalab_suite_rule("${suite}" r)
  set(given ${r_GIVEN})
  if("given" IN_LIST extra_labels)
    set(given TRUE)
  endif()
  set(labels ${label})
  set(timeout 0)
  set(serial FALSE)
  set(gpu FALSE)
  set(cost "")
  if(r_ENDING)
    list(APPEND labels ${CUDALAB_RULE_${r_ENDING}_LABELS})
    set(kind ${CUDALAB_RULE_${r_ENDING}_TIMEOUT})
    if(kind STREQUAL "CPU")
      set(timeout ${t_cpu})
    elseif(kind STREQUAL "GPU")
      set(timeout ${t_gpu})
    elseif(kind STREQUAL "PERF")
      set(timeout ${t_perf})
    else()
      set(timeout ${t_tools})
    endif()
    set(serial ${CUDALAB_RULE_${r_ENDING}_SERIAL})
    set(gpu ${CUDALAB_RULE_${r_ENDING}_GPU})
    if(DEFINED CUDALAB_RULE_${r_ENDING}_COST)
      set(cost ${CUDALAB_RULE_${r_ENDING}_COST})
    endif()
  endif()
  list(APPEND labels ${extra_labels})
  if(given)
    list(APPEND labels given)
  endif()
  list(REMOVE_DUPLICATES labels)
  set(${out}_LABELS "${labels}" PARENT_SCOPE)
  set(${out}_TIMEOUT ${timeout} PARENT_SCOPE)
  set(${out}_SERIAL ${serial} PARENT_SCOPE)
  set(${out}_GPU ${gpu} PARENT_SCOPE)
  set(${out}_COST "${cost}" PARENT_SCOPE)
  set(${out}_GIVEN ${given} PARENT_SCOPE)
  set(${out}_BASE "${r_BASE}" PARENT_SCOPE)
  set(${out}_ENDING "${r_ENDING}" PARENT_SCOPE)
endfunction()

# _cudalab_resource(<out> <gpu> <alone> <slots> [<base> <slots per GPU>]) — the CTest scheduling
# properties of a test, as a list of property names and values: one GPU slot (half of
# <slots per GPU> for a suite <base> of CUDALAB_LARGE_MEMORY_SUITES); for a test that runs
# alone, all <slots> of one GPU (CUDALAB_PERF_PER_GPU) or, when <slots> is empty, RUN_SERIAL;
# with the GPU locks (CUDALAB_GPU_LOCKS, G_GPU_LOCKS in script mode) one slot like any other.
function(_cudalab_resource out gpu alone slots)
  set(locks "${CUDALAB_GPU_LOCKS}")
  if(CMAKE_SCRIPT_MODE_FILE)
    set(locks "${G_GPU_LOCKS}")  # the configured choice, from the grader's configuration
  endif()
  if(locks)
    set(alone FALSE)
  endif()
  set(props "")
  set(resource "${CUDALAB_GPU_RESOURCE}")
  if(ARGC GREATER 5 AND "${ARGV4}" IN_LIST CUDALAB_LARGE_MEMORY_SUITES)
    math(EXPR half "${ARGV5} / 2")
    if(half GREATER 1)
      set(resource "gpus:${half}")
    endif()
  endif()
  if(gpu AND alone AND slots)
    set(props RESOURCE_GROUPS "gpus:${slots}")
  elseif(gpu)
    set(props RESOURCE_GROUPS "${resource}")
  endif()
  if(alone AND NOT (gpu AND slots))
    list(APPEND props RUN_SERIAL TRUE)
  endif()
  set(${out} "${props}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------
# Script mode: list a grader's tests, check their suites, write the CTest file (run as the
# grader's POST_BUILD step).
# ---------------------------------------------------------------------------
if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  foreach(v CUDALAB_GRADER_CONFIG CUDALAB_GRADER_EXE)
    if(NOT DEFINED ${v})
      message(FATAL_ERROR "CudalabGrading.cmake: -D${v}= is required")
    endif()
  endforeach()
  include("${CUDALAB_GRADER_CONFIG}")
  # Outputs of an earlier build go first: a failed listing leaves no stale test list behind.
  file(REMOVE "${G_TESTS_FILE}")
  # A failure also removes the grader, so that the next build runs this step again instead of
  # taking the executable for up to date.
  function(_cudalab_fail)
    file(REMOVE "${CUDALAB_GRADER_EXE}")
    set(msg "")
    math(EXPR last "${ARGC} - 1")
    foreach(i RANGE ${last})
      string(APPEND msg "${ARGV${i}}")
    endforeach()
    message(FATAL_ERROR "${msg}")
  endfunction()

  execute_process(COMMAND ${G_LAUNCHER} "${CUDALAB_GRADER_EXE}" --gtest_list_tests
                  WORKING_DIRECTORY "${G_WORKING_DIRECTORY}" TIMEOUT 60
                  OUTPUT_VARIABLE listing ERROR_VARIABLE listing_err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    _cudalab_fail("${G_TARGET}: could not list its tests (${CUDALAB_GRADER_EXE} "
                        "--gtest_list_tests exited with '${rc}'):\n${listing}${listing_err}")
  endif()
  # "Suite.   # TypeParam = ..." then "  Case   # GetParam() = ...": comments go first, so
  # that the values they print cannot disturb the list handling below.
  string(REGEX REPLACE "[ ]+#[^\n]*" "" listing "${listing}")
  string(REPLACE "\r" "" listing "${listing}")
  string(REPLACE ";" "" listing "${listing}")
  string(REPLACE "[" "" listing "${listing}")
  string(REPLACE "]" "" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")

  # First pass: the tests of each suite, for the suites run in one process.
  set(suite "")
  set(batch_suites "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ ].*)\\.$")
      set(suite "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^  ([^ ]+)$" AND NOT suite STREQUAL "" AND G_BATCH
           AND NOT suite MATCHES "(^|/)DISABLED_" AND NOT CMAKE_MATCH_1 MATCHES "^DISABLED_")
      cudalab_suite_rule("${suite}" b)
      if(b_ENDING IN_LIST CUDALAB_BATCH_ENDINGS OR (G_BATCH_PERF AND b_ENDING STREQUAL "Perf"))
        string(MAKE_C_IDENTIFIER "${suite}" sid)
        if(NOT DEFINED batch_count_${sid})
          set(batch_count_${sid} 0)
          list(APPEND batch_suites "${suite}")
        endif()
        math(EXPR batch_count_${sid} "${batch_count_${sid}} + 1")
      endif()
    endif()
  endforeach()
  # Suites of two tests or more run in one process; each gets its result folder.
  set(batch_root "${G_BATCH_ROOT}")
  set(batched_suites "")
  foreach(suite IN LISTS batch_suites)
    string(MAKE_C_IDENTIFIER "${suite}" sid)
    if(batch_count_${sid} GREATER 1)
      string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" dir "${G_PREFIX}${suite}")
      set(batch_dir_${sid} "${batch_root}/${dir}")
      list(APPEND batched_suites "${suite}")
    endif()
  endforeach()

  # CUDALAB_TEST_LAUNCHER: the command every test runs under (a grading run's other user).
  set(launcher "")
  foreach(word IN LISTS G_LAUNCHER)
    string(APPEND launcher "[==[${word}]==] ")
  endforeach()
  # The judge (cudalab_verdict) starts every grader process and alone decides its verdicts.
  if(NOT CUDALAB_VERDICT_EXE)
    _cudalab_fail("${G_TARGET}: CudalabGrading.cmake needs -DCUDALAB_VERDICT_EXE=<cudalab_verdict>")
  endif()
  set(judge "[==[${CUDALAB_VERDICT_EXE}]==]")
  set(suite "")
  set(unknown "")
  set(test_count 0)
  set(ctest "# Generated by cmake/CudalabGrading.cmake from `${G_TARGET} --gtest_list_tests`.\n")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ ].*)\\.$")
      set(suite "${CMAKE_MATCH_1}")
      continue()
    elseif(NOT line MATCHES "^  ([^ ]+)$" OR suite STREQUAL "")
      continue()
    endif()
    set(case "${CMAKE_MATCH_1}")
    if(suite MATCHES "(^|/)DISABLED_" OR case MATCHES "^DISABLED_")
      continue()
    endif()
    _cudalab_test_properties(t "${suite}" "${G_LABEL}" "${G_EXTRA_LABELS}" ${G_TIMEOUT_CPU}
                             ${G_TIMEOUT_GPU} ${G_TIMEOUT_PERF} ${G_TIMEOUT_TOOLS})
    if(t_ENDING STREQUAL "")
      if(NOT suite IN_LIST unknown)
        list(APPEND unknown "${suite}")
      endif()
      continue()
    endif()
    set(name "${G_PREFIX}${suite}.${case}")
    set(env "CUDALAB_TEST_NAME=${name}" ${G_LOCK_ENVIRONMENT} ${G_HOST_ENVIRONMENT}
            ${G_ENVIRONMENT})
    string(MAKE_C_IDENTIFIER "${suite}" sid)
    set(replay "")
    if(DEFINED batch_dir_${sid})
      # The name cudalab::testing::test_file_name() gives the test's output in the batch run;
      # the judge keeps the verdict beside it (<file>.verdict).
      string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" file "${suite}.${case}")
      set(replay "--result [==[${batch_dir_${sid}}/${file}.result]==] "
                 "--exe [==[${CUDALAB_GRADER_EXE}]==] ")
      string(CONCAT replay ${replay})
    endif()
    string(APPEND ctest "add_test([==[${name}]==] ${judge} --test [==[${name}]==] ${replay}-- "
                        "${launcher}[==[${CUDALAB_GRADER_EXE}]==] "
                        "[==[--gtest_filter=${suite}.${case}]==])\n"
                        "set_tests_properties([==[${name}]==] PROPERTIES LABELS [==[${t_LABELS}]==] "
                        "TIMEOUT ${t_TIMEOUT} WORKING_DIRECTORY [==[${G_WORKING_DIRECTORY}]==] "
                        "SKIP_RETURN_CODE 77 "
                        "ENVIRONMENT [==[${env}]==]")
    if(DEFINED batch_dir_${sid})
      string(APPEND ctest " FIXTURES_REQUIRED [==[${G_PREFIX}${suite}.@batch]==]")
    endif()
    if(NOT t_COST STREQUAL "")
      string(APPEND ctest " COST ${t_COST}")
    endif()
    _cudalab_resource(props "${t_GPU}" "${t_SERIAL}" "${G_GPU_SLOTS}" "${t_BASE}"
                      "${G_SLOTS_PER_GPU}")
    foreach(p IN LISTS props)
      string(APPEND ctest " [==[${p}]==]")
    endforeach()
    string(APPEND ctest ")\n")
    math(EXPR test_count "${test_count} + 1")
  endforeach()

  # One setup test per suite run in one process: CTest runs it before the suite's tests (also
  # under -R, which adds a required fixture's setup), and each test then reports its own result.
  foreach(suite IN LISTS batched_suites)
    string(MAKE_C_IDENTIFIER "${suite}" sid)
    _cudalab_test_properties(t "${suite}" "${G_LABEL}" "${G_EXTRA_LABELS}" ${G_TIMEOUT_CPU}
                             ${G_TIMEOUT_GPU} ${G_TIMEOUT_PERF} ${G_TIMEOUT_TOOLS})
    set(name "${G_PREFIX}${suite}.@batch")
    # Each test keeps its own timeout inside the process (a watchdog); the whole run gets theirs
    # summed, and CTest a minute more.
    math(EXPR whole "${batch_count_${sid}} * ${t_TIMEOUT} + 30")
    math(EXPR ctest_timeout "${whole} + 60")
    set(labels ${t_LABELS} batch)
    list(REMOVE_ITEM labels given)
    # A GPU for the run, and for a perf suite the same isolation each of its tests has.
    _cudalab_resource(props "${t_GPU}" "${t_SERIAL}" "${G_GPU_SLOTS}" "${t_BASE}"
                      "${G_SLOTS_PER_GPU}")
    set(resource "")
    foreach(p IN LISTS props)
      string(APPEND resource " [==[${p}]==]")
    endforeach()
    set(env "CUDALAB_TEST_PREFIX=${G_PREFIX}"
            "CUDALAB_BATCH_DIR=${batch_dir_${sid}}" "CUDALAB_BATCH_TEST_TIMEOUT=${t_TIMEOUT}"
            ${G_LOCK_ENVIRONMENT} ${G_HOST_ENVIRONMENT} ${G_ENVIRONMENT})
    string(APPEND ctest "add_test([==[${name}]==] ${judge} --batch [==[${batch_dir_${sid}}]==] "
                        "--prefix [==[${G_PREFIX}]==] --timeout ${whole} -- "
                        "${launcher}[==[${CUDALAB_GRADER_EXE}]==] [==[--gtest_filter=${suite}.*]==] "
                        "--gtest_color=no)\n"
                        "set_tests_properties([==[${name}]==] PROPERTIES LABELS [==[${labels}]==] "
                        "TIMEOUT ${ctest_timeout} WORKING_DIRECTORY [==[${G_WORKING_DIRECTORY}]==] "
                        "SKIP_RETURN_CODE 77 "
                        "FIXTURES_SETUP [==[${name}]==]${resource} "
                        "ENVIRONMENT [==[${env}]==])\n")
  endforeach()

  if(unknown)
    list(JOIN unknown ", " unknown_names)
    list(JOIN CUDALAB_SUITE_ENDINGS ", " endings)
    _cudalab_fail("${G_TARGET}: test suite(s) ${unknown_names} end in none of ${endings}. "
                        "A suite's name ending gives its tests their labels, timeout and GPU "
                        "(cmake/CudalabGrading.cmake); rename the suite(s).")
  endif()
  if(test_count EQUAL 0)
    _cudalab_fail("${G_TARGET}: --gtest_list_tests listed no test")
  endif()

  file(WRITE "${G_TESTS_FILE}.tmp" "${ctest}")
  file(RENAME "${G_TESTS_FILE}.tmp" "${G_TESTS_FILE}")
  return()
endif()

# ---------------------------------------------------------------------------
# Configure time
# ---------------------------------------------------------------------------
option(CUDALAB_BATCH_SUITES
       "Run the tests of each Gpu suite in one grader process (one CUDA context per suite)" ON)
option(CUDALAB_BATCH_PERF
       "Also run each Perf suite in one process, alone on its GPU (one H200: the perf and profiler tests 103.7 -> 86.6 s)"
       ON)
set(CUDALAB_GPU_COUNT "" CACHE STRING
    "GPUs in the build's CTest resource spec (empty: counted with nvidia-smi -L, at least 1)")
# A grading run (tools/release/grade_submission.py) runs student code as another user: every
# command that runs a grader (tests, batch runs, the listing at build time) starts with this
# list, e.g. "setpriv;--reuid=cudalab-test;--regid=cudalab-test;--clear-groups;--no-new-privs".
set(CUDALAB_TEST_LAUNCHER "" CACHE STRING
    "Command (a CMake list) every grader process runs under; empty: none")

# CTest keeps this much of each test's output (the channel's records are in it) also when it
# runs without a preset.
if(NOT CMAKE_SCRIPT_MODE_FILE)
  file(WRITE "${CMAKE_BINARY_DIR}/CTestCustom.cmake"
       "# Generated by cmake/CudalabGrading.cmake: CTest keeps the channel's records.\n"
       "set(CTEST_CUSTOM_MAXIMUM_PASSED_TEST_OUTPUT_SIZE 1048576)\n"
       "set(CTEST_CUSTOM_MAXIMUM_FAILED_TEST_OUTPUT_SIZE 1048576)\n")
endif()

# cudalab_write_resource_spec() — writes <build>/cudalab_resources.json (CUDALAB_GPU_COUNT GPUs,
# CUDALAB_GPU_SLOTS slots each) and makes it the default of every ctest run in this build
# (CTEST_RESOURCE_SPEC_FILE; --resource-spec-file on the command line still wins). Without a
# spec CTest would ignore the resource groups, and a perf test would share its GPU.
macro(cudalab_write_resource_spec)
  set(_cudalab_gpus "${CUDALAB_GPU_COUNT}")
  if(_cudalab_gpus STREQUAL "")
    _cudalab_visible_gpus(_cudalab_gpus)
    if(_cudalab_gpus EQUAL 0)
      set(_cudalab_gpus 1)
    endif()
  endif()
  if(NOT _cudalab_gpus MATCHES "^[1-9][0-9]*$" OR NOT CUDALAB_GPU_SLOTS MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "CUDALAB_GPU_COUNT ('${CUDALAB_GPU_COUNT}') and CUDALAB_GPU_SLOTS "
                        "('${CUDALAB_GPU_SLOTS}') must be positive integers")
  endif()
  # {"version": {"major": 1, "minor": 0}, "local": [{"gpus": [{"id": "0", "slots": 8}, ...]}]}
  set(_cudalab_spec_gpus "[]")
  math(EXPR _cudalab_last "${_cudalab_gpus} - 1")
  foreach(_cudalab_i RANGE ${_cudalab_last})
    set(_cudalab_spec_gpu "{}")
    _cudalab_json_set(_cudalab_spec_gpu id STRING "${_cudalab_i}")
    _cudalab_json_set(_cudalab_spec_gpu slots JSON "${CUDALAB_GPU_SLOTS}")
    _cudalab_json_append(_cudalab_spec_gpus "${_cudalab_spec_gpu}")
  endforeach()
  set(_cudalab_spec_local "{}")
  _cudalab_json_set(_cudalab_spec_local gpus JSON "${_cudalab_spec_gpus}")
  set(_cudalab_spec_locals "[]")
  _cudalab_json_append(_cudalab_spec_locals "${_cudalab_spec_local}")
  set(_cudalab_spec "{}")
  _cudalab_json_set(_cudalab_spec version JSON [[{"major": 1, "minor": 0}]])
  _cudalab_json_set(_cudalab_spec local JSON "${_cudalab_spec_locals}")
  _cudalab_write_if_changed("${CMAKE_BINARY_DIR}/cudalab_resources.json" "${_cudalab_spec}\n")
  set(CTEST_RESOURCE_SPEC_FILE "${CMAKE_BINARY_DIR}/cudalab_resources.json")
  message(STATUS "CTest resource spec: ${_cudalab_gpus} GPU(s), ${CUDALAB_GPU_SLOTS} slots each "
                 "(cudalab_resources.json)")
endmacro()

# _cudalab_timeouts(<prefix> <args prefix>) — fills <prefix>_TIMEOUT_{CPU,GPU,PERF,TOOLS} from
# <args prefix>_TIMEOUT_* or the defaults.
macro(_cudalab_timeouts args)
  foreach(_k CPU GPU PERF TOOLS)
    if(NOT ${args}_TIMEOUT_${_k})
      set(${args}_TIMEOUT_${_k} ${CUDALAB_DEFAULT_TIMEOUT_${_k}})
    endif()
  endforeach()
endmacro()

# _cudalab_no_points(<who> <label> <args prefix>) — POINTS is no argument any more: a lab's
# points are declared beside its grader (tests/labNN_topic/objectives.json).
function(_cudalab_no_points who label args)
  if(DEFINED ${args}_POINTS OR "POINTS" IN_LIST ${args}_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${who}: POINTS is not an argument any more. A lab declares its "
                        "objectives by technique and their points (100 in all) and its "
                        "helper suites in "
                        "tests/${label}_<topic>/objectives.json beside its grader "
                        "(docs/adding-a-lab.md); tools/grading_manifest.py reads them.")
  endif()
endfunction()

# cudalab_add_rule_test(<name> LABEL <label> [VERDICT] [TIMEOUT_{CPU,GPU,PERF,TOOLS} n]
#                       COMMAND <command...> [PROPERTIES <prop value>...])
# A CTest test that is not a GoogleTest case (e.g. a demo run), named <label>.<Suite>.<Case>.
# VERDICT: the command reports its verdict on the verdict channel (cudalab/verdict.hpp) and runs
# under the judge, cudalab_verdict, which decides it; its exit status means nothing.
# its labels, timeout, GPU resource and scheduling follow the suite's ending like every
# GoogleTest case (tools/grading_manifest.py finds it in CTest's list like every other test).
function(cudalab_add_rule_test name)
  cmake_parse_arguments(ARG "VERDICT" "LABEL;TIMEOUT_CPU;TIMEOUT_GPU;TIMEOUT_PERF;TIMEOUT_TOOLS"
                        "COMMAND;PROPERTIES" ${ARGN})
  _cudalab_timeouts(ARG)
  if(NOT name MATCHES "^${ARG_LABEL}\\.([^.]+)\\.([^.]+)$")
    message(FATAL_ERROR "cudalab_add_rule_test: '${name}' is not ${ARG_LABEL}.<Suite>.<Case>")
  endif()
  set(suite "${CMAKE_MATCH_1}")
  set(case "${CMAKE_MATCH_2}")
  _cudalab_test_properties(t "${suite}" "${ARG_LABEL}" "" ${ARG_TIMEOUT_CPU} ${ARG_TIMEOUT_GPU}
                           ${ARG_TIMEOUT_PERF} ${ARG_TIMEOUT_TOOLS})
  if(t_ENDING STREQUAL "")
    list(JOIN CUDALAB_SUITE_ENDINGS ", " endings)
    message(FATAL_ERROR "test ${name}: suite ${suite} ends in none of ${endings}")
  endif()
  # A target named first stays a target behind the launcher and the judge.
  list(GET ARG_COMMAND 0 first)
  if((CUDALAB_TEST_LAUNCHER OR ARG_VERDICT) AND TARGET "${first}")
    list(REMOVE_AT ARG_COMMAND 0)
    list(PREPEND ARG_COMMAND "$<TARGET_FILE:${first}>")
  endif()
  if(ARG_VERDICT)
    # A program that reports on the verdict channel (cudalab::run_demo()): the judge decides.
    add_test(NAME ${name} COMMAND $<TARGET_FILE:cudalab_verdict> --test ${name} --
             ${CUDALAB_TEST_LAUNCHER} ${ARG_COMMAND})
  else()
    add_test(NAME ${name} COMMAND ${CUDALAB_TEST_LAUNCHER} ${ARG_COMMAND})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${t_LABELS}" TIMEOUT ${t_TIMEOUT})
  if(CUDALAB_GPU_LOCK_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT_MODIFICATION
                         "CUDALAB_GPU_LOCK_DIR=set:${CUDALAB_GPU_LOCK_DIR}")
  endif()
  _cudalab_resource(props "${t_GPU}" "${t_SERIAL}" "${CUDALAB_ALONE_SLOTS}")
  if(props)
    set_tests_properties(${name} PROPERTIES ${props})
  endif()
  if(ARG_PROPERTIES)
    set_tests_properties(${name} PROPERTIES ${ARG_PROPERTIES})
  endif()
endfunction()

# cudalab_discover_grader(<target> <label> [PREFIX p] [TIMEOUT_{CPU,GPU,PERF,TOOLS} n]
#                         [ENVIRONMENT ...] [EXTRA_LABELS ...])
# Registers every GoogleTest case of <target> as one CTest test <prefix><Suite>.<Case>
# (prefix defaults to "<label>."), with labels, timeout and GPU resource from its suite's
# ending. The tests are listed when <target> is built (POST_BUILD), which also checks every
# suite's ending. A grader whose label is "labNN" is graded (unless EXTRA_LABELS has "given"):
# its objectives and their points are declared in tests/labNN_topic/objectives.json.
function(cudalab_discover_grader target label)
  cmake_parse_arguments(ARG "" "TIMEOUT_CPU;TIMEOUT_GPU;TIMEOUT_PERF;TIMEOUT_TOOLS;PREFIX"
                        "ENVIRONMENT;EXTRA_LABELS;POINTS" ${ARGN})
  _cudalab_no_points("cudalab_discover_grader(${target})" "${label}" ARG)
  _cudalab_timeouts(ARG)
  if(NOT ARG_PREFIX)
    set(ARG_PREFIX "${label}.")
  endif()
  set(graded FALSE)
  if(label MATCHES "^lab[0-9][0-9]$" AND NOT "given" IN_LIST ARG_EXTRA_LABELS)
    set(graded TRUE)
  endif()
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_tests.cmake")
  set(config "${CMAKE_CURRENT_BINARY_DIR}/${target}_grading_config.cmake")
  set(cfg "# Generated by cudalab_discover_grader(${target}); read by CudalabGrading.cmake -P.\n")
  foreach(v TARGET:target LABEL:label PREFIX:ARG_PREFIX EXTRA_LABELS:ARG_EXTRA_LABELS
            ENVIRONMENT:ARG_ENVIRONMENT GRADED:graded
            TIMEOUT_CPU:ARG_TIMEOUT_CPU TIMEOUT_GPU:ARG_TIMEOUT_GPU TIMEOUT_PERF:ARG_TIMEOUT_PERF
            TIMEOUT_TOOLS:ARG_TIMEOUT_TOOLS TESTS_FILE:tests_file)
    string(REPLACE ":" ";" v "${v}")
    list(GET v 0 key)
    list(GET v 1 var)
    string(APPEND cfg "set(G_${key} [==[${${var}}]==])\n")
  endforeach()
  string(APPEND cfg "set(G_BATCH [==[${CUDALAB_BATCH_SUITES}]==])\n"
                    "set(G_BATCH_PERF [==[${CUDALAB_BATCH_PERF}]==])\n"
                    "set(G_GPU_SLOTS [==[${CUDALAB_ALONE_SLOTS}]==])\n"
                    "set(G_GPU_LOCKS [==[${CUDALAB_GPU_LOCKS}]==])\n"
                    "set(G_LOCK_ENVIRONMENT [==[${CUDALAB_GPU_LOCK_ENVIRONMENT}]==])\n"
                    "set(G_HOST_ENVIRONMENT [==[${CUDALAB_HOST_ENVIRONMENT}]==])\n"
                    "set(G_SLOTS_PER_GPU [==[${CUDALAB_GPU_SLOTS}]==])\n")
  string(APPEND cfg "set(G_WORKING_DIRECTORY [==[${CMAKE_CURRENT_BINARY_DIR}]==])\n"
                    "set(G_BATCH_ROOT [==[${CMAKE_BINARY_DIR}/cudalab_batch]==])\n"
                    "set(G_LAUNCHER [==[${CUDALAB_TEST_LAUNCHER}]==])\n")
  _cudalab_write_if_changed("${config}" "${cfg}")
  # A changed configuration (timeouts, rules) relinks the grader, which lists again.
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${config}" "${CUDALAB_GRADING_MODULE}")
  add_dependencies(${target} cudalab_verdict)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-DCUDALAB_GRADER_CONFIG=${config}"
            "-DCUDALAB_GRADER_EXE=$<TARGET_FILE:${target}>"
            "-DCUDALAB_VERDICT_EXE=$<TARGET_FILE:cudalab_verdict>"
            -P "${CUDALAB_GRADING_MODULE}"
    COMMENT "Listing the tests of ${target} (suite endings)"
    VERBATIM)
  set_property(TARGET ${target} APPEND PROPERTY ADDITIONAL_CLEAN_FILES
               "${tests_file}")

  # At test time: the generated file, or one failing test that says the grader is not built.
  set(inc "${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake")
  file(WRITE "${inc}"
    "if(EXISTS [==[${tests_file}]==])\n"
    "  include([==[${tests_file}]==])\n"
    "else()\n"
    "  add_test([==[${ARG_PREFIX}NOT_BUILT.${target}]==] [==[${target}_NOT_BUILT]==])\n"
    "  set_tests_properties([==[${ARG_PREFIX}NOT_BUILT.${target}]==] PROPERTIES LABELS "
    "[==[${label}]==])\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${inc}")

  # The grader in cudalab_labs.json: CUDALAB_RECORD_GRADERS holds the array of them. Its
  # executable is a generator expression, which file(GENERATE) evaluates when it writes the file.
  set(grader "{}")
  _cudalab_json_set(grader target STRING "${target}")
  _cudalab_json_set(grader lab STRING "${label}")
  _cudalab_json_set(grader prefix STRING "${ARG_PREFIX}")
  _cudalab_json_set(grader graded BOOL "${graded}")
  _cudalab_json_set(grader executable STRING "$<TARGET_FILE:${target}>")
  get_property(graders GLOBAL PROPERTY CUDALAB_RECORD_GRADERS)
  if(NOT graders)
    set(graders "[]")
  endif()
  _cudalab_json_append(graders "${grader}")
  set_property(GLOBAL PROPERTY CUDALAB_RECORD_GRADERS "${graders}")
endfunction()

set(CUDALAB_GRADING_MODULE "${CMAKE_CURRENT_LIST_FILE}")

# Written once the top-level directory is configured: cudalab_labs.json, the facts
# tools/grading_manifest.py cannot read from `ctest --show-only=json-v1`: the source tree, the
# suite-ending rules, the labs (folders, SOURCES, GIVEN, DEMO: also of labs whose grader is not
# built) and the graders (label, prefix, whether graded). No tests, no points.
function(_cudalab_write_labs_record)
  set(endings "[]")
  foreach(e IN LISTS CUDALAB_SUITE_ENDINGS)
    set(rule "{}")
    _cudalab_json_set(rule ending STRING "${e}")
    _cudalab_json_set(rule labels STRINGS ${CUDALAB_RULE_${e}_LABELS})
    string(TOLOWER "${CUDALAB_RULE_${e}_TIMEOUT}" timeout)
    _cudalab_json_set(rule timeout STRING "${timeout}")
    _cudalab_json_set(rule run_serial BOOL "${CUDALAB_RULE_${e}_SERIAL}")
    _cudalab_json_set(rule gpu BOOL "${CUDALAB_RULE_${e}_GPU}")
    _cudalab_json_append(endings "${rule}")
  endforeach()
  set(rules "{}")
  _cudalab_json_set(rules given_prefix STRING "${CUDALAB_GIVEN_PREFIX}")
  _cudalab_json_set(rules endings JSON "${endings}")

  get_property(lab_dirs GLOBAL PROPERTY CUDALAB_LABS)
  set(labs "[]")
  foreach(lab_dir IN LISTS lab_dirs)
    string(SUBSTRING "${lab_dir}" 3 2 nn)
    string(REGEX REPLACE "^lab[0-9][0-9]_" "" topic "${lab_dir}")
    math(EXPR number "1${nn} - 100")
    set(lab "{}")
    _cudalab_json_set(lab lab STRING "lab${nn}")
    _cudalab_json_set(lab number JSON "${number}")
    _cudalab_json_set(lab topic STRING "${topic}")
    _cudalab_json_set(lab folder STRING "labs/${lab_dir}")
    _cudalab_json_set(lab solution_folder STRING "solutions/${lab_dir}")
    _cudalab_json_set(lab grading_folder STRING "tests/${lab_dir}")
    _cudalab_json_set(lab grader STRING "lab${nn}_test")
    foreach(p SOURCES GIVEN LIBRARIES TEST_SOURCES)
      get_property(val GLOBAL PROPERTY CUDALAB_LAB_${nn}_${p})
      set(rel "")
      foreach(x IN LISTS val)
        if(IS_ABSOLUTE "${x}")
          file(RELATIVE_PATH x "${PROJECT_SOURCE_DIR}" "${x}")
        endif()
        list(APPEND rel "${x}")
      endforeach()
      string(TOLOWER "${p}" member)
      _cudalab_json_set(lab ${member} STRINGS ${rel})
    endforeach()
    get_property(demo GLOBAL PROPERTY CUDALAB_LAB_${nn}_DEMO)
    if(demo)
      _cudalab_json_set(lab demo STRING "${demo}")
    else()
      _cudalab_json_set(lab demo JSON null)
    endif()
    _cudalab_json_append(labs "${lab}")
  endforeach()

  get_property(graders GLOBAL PROPERTY CUDALAB_RECORD_GRADERS)
  if(NOT graders)
    set(graders "[]")
  endif()
  set(record "{}")
  _cudalab_json_set(record schema STRING "cudalabs-labs")
  _cudalab_json_set(record version JSON 1)
  _cudalab_json_set(record source_dir STRING "${PROJECT_SOURCE_DIR}")
  _cudalab_json_set(record build_dir STRING "${CMAKE_BINARY_DIR}")
  _cudalab_json_set(record implementation STRING "${CUDALAB_IMPL}")
  _cudalab_json_set(record test_launcher STRINGS ${CUDALAB_TEST_LAUNCHER})
  _cudalab_json_set(record rules JSON "${rules}")
  _cudalab_json_set(record labs JSON "${labs}")
  _cudalab_json_set(record graders JSON "${graders}")
  # The files earlier versions wrote (points computed by CMake) go: no tool reads them.
  file(REMOVE_RECURSE "${CMAKE_BINARY_DIR}/cudalab_manifest.json"
                      "${CMAKE_BINARY_DIR}/cudalab_manifest.d")
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/cudalab_labs.json" CONTENT "${record}\n")
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _cudalab_write_labs_record)
