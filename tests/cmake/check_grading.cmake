# SPDX-License-Identifier: BSD-3-Clause
# One check of cmake/CudalabGrading.cmake and tools/grading_manifest.py on grading_project/
# (see CMakeLists.txt here):
#   cmake -DCASE=<case> -DPROJECT_DIR=... -DMODULE_DIR=... -DWORK_DIR=... -DGENERATOR=...
#         -DCXX=... [-DPYTHON=<python3> -DSOURCE_DIR=<repository root>] -P check_grading.cmake
# The project is copied to <WORK_DIR>/src, where each check writes its lab's declaration
# (tests/lab98_fake/objectives.json).
cmake_minimum_required(VERSION 3.25)
foreach(v CASE PROJECT_DIR MODULE_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_grading.cmake: -D${v}= is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(build "${WORK_DIR}/build")
set(src "${WORK_DIR}/src")
file(COPY "${PROJECT_DIR}/" DESTINATION "${src}")
set(declaration_file "${src}/tests/lab98_fake/objectives.json")
# The objectives of good_listing below and DemoGpu (registered directly), 100 points, in two
# techniques.
set(good_declaration [==[{
 "techniques": {
  "speed": {"points": 40, "why": "The measured speed.", "objectives": {"SpeedPerf": 40}},
  "lab": {"points": 60, "why": "The map, the tile, the tools and the demo.",
          "objectives": {"MapCpu": 12, "TileGpu": 12, "RaceSanitizer": 12,
                         "WavefrontProfiler": 12, "DemoGpu": 12}}
 }
}
]==])

# A listing in the form of --gtest_list_tests: plain, parameterized (values with '[' and ';'),
# typed, disabled and given suites, one of each ending.
set(good_listing [==[MapCpu.
  Bijective
  ConflictFree
  DISABLED_Later
Shapes/TileGpu.
  Matches/0  # GetParam() = (1, 2)
  Matches/1  # GetParam() = [3; 4
TileGpu/0.  # TypeParam = int
  Typed
SpeedPerf.
  Faster
RaceSanitizer.
  Clean
WavefrontProfiler.
  Counted
GivenBaselineGpu.
  Works
Inst/GivenHelperCpu.
  Works
DISABLED_OldCpu.
  Old
]==])

# build_project(<listing> <points>) — configures (once per call: a fresh tree) and builds;
# without the GPU locks unless the arguments ask for them (-DCUDALAB_GPU_LOCKS=ON comes later
# on the command line and wins), so that the other cases see the scheduling they name;
# sets build_rc and build_out (those of the configure step when it fails). <points>: a POINTS
# argument to pass (refused); the lab's declaration is good_declaration.
function(build_project listing points)
  file(REMOVE_RECURSE "${build}")
  file(WRITE "${WORK_DIR}/listing.txt" "${listing}")
  file(WRITE "${declaration_file}" "${good_declaration}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${GENERATOR}"
                          "-DCMAKE_CXX_COMPILER=${CXX}" "-DMODULE_DIR=${MODULE_DIR}"
                          "-DLISTING=${WORK_DIR}/listing.txt" "-DPOINTS=${points}"
                          -DCUDALAB_GPU_LOCKS=OFF ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    if(points)
      set(build_rc "${rc}" PARENT_SCOPE)
      set(build_out "${out}" PARENT_SCOPE)
      return()
    endif()
    message(FATAL_ERROR "configuring the grading project failed:\n${out}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(build_rc "${rc}" PARENT_SCOPE)
  set(build_out "${out}" PARENT_SCOPE)
endfunction()

function(expect_build_failure what)
  if(build_rc EQUAL 0)
    message(FATAL_ERROR "${what}: the build succeeded, it must fail:\n${build_out}")
  endif()
  # CMake wraps long messages: compare with every run of white space as one blank.
  string(REGEX REPLACE "[ \t\r\n]+" " " out "${build_out}")
  foreach(text IN LISTS ARGN)
    string(FIND "${out}" "${text}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${what}: the build failed but its output does not say '${text}':\n${build_out}")
    endif()
  endforeach()
  message(STATUS "ok: ${what}")
endfunction()

# test_property(<out> <json-v1> <test name> <property>) — a property of a test from
# ctest --show-only=json-v1 (as JSON text; "" when absent).
# test_command(<out> <json> <test name>) — the test's command line, words joined by spaces.
function(test_command out json name)
  string(JSON n LENGTH "${json}" tests)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON tname GET "${json}" tests ${i} name)
    if(tname STREQUAL name)
      string(JSON nw LENGTH "${json}" tests ${i} command)
      math(EXPR wlast "${nw} - 1")
      set(words "")
      foreach(j RANGE ${wlast})
        string(JSON w GET "${json}" tests ${i} command ${j})
        list(APPEND words "${w}")
      endforeach()
      list(JOIN words " " words)
      set(${out} "${words}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "ctest does not list the test ${name}")
endfunction()

function(test_property out json name prop)
  string(JSON n LENGTH "${json}" tests)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON tname GET "${json}" tests ${i} name)
    if(tname STREQUAL name)
      string(JSON np ERROR_VARIABLE err LENGTH "${json}" tests ${i} properties)
      if(err)
        set(${out} "" PARENT_SCOPE)
        return()
      endif()
      math(EXPR plast "${np} - 1")
      foreach(j RANGE ${plast})
        string(JSON pname GET "${json}" tests ${i} properties ${j} name)
        if(pname STREQUAL prop)
          string(JSON v GET "${json}" tests ${i} properties ${j} value)
          set(${out} "${v}" PARENT_SCOPE)
          return()
        endif()
      endforeach()
      set(${out} "" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "ctest does not list the test ${name}")
endfunction()

# manifest(<declaration>) — writes the lab's declaration and runs tools/grading_manifest.py
# --check on the build; sets manifest_rc, manifest_out (its messages, blanks collapsed) and
# manifest_json (the manifest).
function(manifest declaration)
  file(WRITE "${declaration_file}" "${declaration}")
  set(ctest_arg "")
  if(CMAKE_CTEST_COMMAND)
    set(ctest_arg --ctest "${CMAKE_CTEST_COMMAND}")
  endif()
  file(REMOVE "${WORK_DIR}/manifest.json")
  execute_process(COMMAND "${PYTHON}" -B -m tools.grading_manifest --build-dir "${build}"
                          --check --json "${WORK_DIR}/manifest.json" ${ctest_arg}
                  WORKING_DIRECTORY "${SOURCE_DIR}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
  set(json "")
  if(EXISTS "${WORK_DIR}/manifest.json")
    file(READ "${WORK_DIR}/manifest.json" json)
  endif()
  set(manifest_rc "${rc}" PARENT_SCOPE)
  set(manifest_out "${flat}" PARENT_SCOPE)
  set(manifest_json "${json}" PARENT_SCOPE)
endfunction()

# expect_manifest_problem(<what> <declaration> <text>...) — --check fails and says each text.
function(expect_manifest_problem what declaration)
  manifest("${declaration}")
  if(manifest_rc EQUAL 0)
    message(FATAL_ERROR "${what}: grading_manifest.py --check passed, it must fail:\n${manifest_out}")
  endif()
  foreach(text IN LISTS ARGN)
    string(FIND "${manifest_out}" "${text}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${what}: grading_manifest.py --check does not say '${text}':\n${manifest_out}")
    endif()
  endforeach()
  message(STATUS "ok: ${what}")
endfunction()

# objective_points(<json> <prefix>) — <prefix>_<objective> = "points/tests" of lab98.
function(objective_points json prefix)
  string(JSON n LENGTH "${json}" objectives lab98)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON oname MEMBER "${json}" objectives lab98 ${i})
    string(JSON opts GET "${json}" objectives lab98 ${oname} points)
    string(JSON otests GET "${json}" objectives lab98 ${oname} tests)
    set(${prefix}_${oname} "${opts}/${otests}" PARENT_SCOPE)
  endforeach()
  set(${prefix}_COUNT ${n} PARENT_SCOPE)
endfunction()

# manifest_test(<out> <json> <test name> <field>) — a field of a test of the manifest.
function(manifest_test out json name field)
  string(JSON n LENGTH "${json}" tests)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON tname GET "${json}" tests ${i} name)
    if(tname STREQUAL name)
      string(JSON v GET "${json}" tests ${i} ${field})
      set(${out} "${v}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "the manifest has no test ${name}")
endfunction()

function(expect_equal what got want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what}: got '${got}', want '${want}'")
  endif()
endfunction()

# expect_gpu_slots(<json> <name> <slots>) — test <name> of ctest's JSON list is scheduled on
# <slots> slots of one GPU and is not RUN_SERIAL.
function(expect_gpu_slots json name want)
  test_property(got "${json}" "${name}" RUN_SERIAL)
  expect_equal("${name} RUN_SERIAL" "${got}" "")
  test_property(got "${json}" "${name}" RESOURCE_GROUPS)
  string(JSON slots GET "${got}" 0 requirements 0 slots)
  expect_equal("${name} GPU slots" "${slots}" "${want}")
endfunction()

if(CASE STREQUAL "UnknownSuiteEndingFailsTheBuild")
  set(listing "${good_listing}FooBar.\n  Works\nInst/Shapes.\n  Also/0\n")
  build_project("${listing}" "")
  expect_build_failure("a suite without a known ending" "FooBar" "Inst/Shapes"
                       "end in none of Cpu, Gpu, Perf, Sanitizer, Profiler")
  # Still an error on the next build (the step runs again), and CTest runs no stale list:
  # it reports the grader as not built.
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(build_rc "${rc}")
  set(build_out "${out}")
  expect_build_failure("the same suite on the next build" "FooBar")
  execute_process(COMMAND ctest --test-dir "${build}" -N OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(FIND "${out}" "lab98.NOT_BUILT.fake_grader" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "ctest -N does not list lab98.NOT_BUILT.fake_grader:\n${out}")
  endif()

elseif(CASE STREQUAL "RulesGiveLabelsTimeoutsAndPoints")
  # One GPU's rules (RUN_SERIAL), whatever this machine has: with several GPUs the default of
  # CUDALAB_PERF_PER_GPU is ON (PerfPerGpuTakesAWholeGpu checks that form).
  build_project("${good_listing}" "" -DCUDALAB_PERF_PER_GPU=OFF)
  if(NOT build_rc EQUAL 0)
    message(FATAL_ERROR "the grading project does not build:\n${build_out}")
  endif()
  execute_process(COMMAND ctest --test-dir "${build}" --show-only=json-v1
                  OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  string(JSON n LENGTH "${json}" tests)
  expect_equal("number of CTest tests (10 cases, 2 disabled left out, 1 direct, 1 batch run)"
               "${n}" "12")
  # The two-test Gpu suite runs in one process (a fixture setup test); the one-test suite and
  # the other endings do not.
  test_property(got "${json}" "lab98.Shapes/TileGpu.@batch" FIXTURES_SETUP)
  string(JSON got GET "${got}" 0)
  expect_equal("batch run's fixture" "${got}" "lab98.Shapes/TileGpu.@batch")
  foreach(name "lab98.Shapes/TileGpu.Matches/0" "lab98.Shapes/TileGpu.Matches/1")
    test_property(got "${json}" "${name}" FIXTURES_REQUIRED)
    string(JSON got GET "${got}" 0)
    expect_equal("${name} requires the batch run" "${got}" "lab98.Shapes/TileGpu.@batch")
    # The judge runs it, and reports the verdict its suite's batch run kept for it.
    test_command(cmd "${json}" "${name}")
    if(NOT cmd MATCHES "cudalab_verdict --test ${name} --result [^ ]*/lab98.Shapes_TileGpu/Shapes_TileGpu\\.Matches_[01]\\.result --exe [^ ]*fake_grader -- [^ ]*fake_grader --gtest_filter=Shapes/TileGpu\\.Matches/[01]$")
      message(FATAL_ERROR "${name}: not run by the judge with its batch result: ${cmd}")
    endif()
  endforeach()
  test_command(cmd "${json}" "lab98.Shapes/TileGpu.@batch")
  if(NOT cmd MATCHES "cudalab_verdict --batch [^ ]*/lab98.Shapes_TileGpu --prefix lab98. --timeout [0-9]+ -- [^ ]*fake_grader --gtest_filter=Shapes/TileGpu\\.\\* --gtest_color=no$")
    message(FATAL_ERROR "the batch run is not the judge's: ${cmd}")
  endif()
  # Every test's verdict is the judge's: its command starts with cudalab_verdict, and Skipped
  # is the judge's exit code 77 (no printed line can skip a test).
  foreach(name "lab98.MapCpu.Bijective" "lab98.SpeedPerf.Faster" "lab98.DemoGpu.Runs")
    test_command(cmd "${json}" "${name}")
    if(NOT cmd MATCHES "^[^ ]*cudalab_verdict --test ${name} ")
      message(FATAL_ERROR "${name}: not run by the judge: ${cmd}")
    endif()
  endforeach()
  test_property(got "${json}" "lab98.MapCpu.Bijective" SKIP_RETURN_CODE)
  expect_equal("lab98.MapCpu.Bijective's skip code" "${got}" "77")
  test_property(got "${json}" "lab98.MapCpu.Bijective" SKIP_REGULAR_EXPRESSION)
  expect_equal("lab98.MapCpu.Bijective's skip expression" "${got}" "")
  foreach(name "lab98.TileGpu/0.Typed" "lab98.SpeedPerf.Faster" "lab98.MapCpu.Bijective")
    test_property(got "${json}" "${name}" FIXTURES_REQUIRED)
    expect_equal("${name} runs alone" "${got}" "")
  endforeach()
  foreach(spec
      "lab98.MapCpu.Bijective|lab98,cpu|60|"
      "lab98.Shapes/TileGpu.Matches/1|lab98,gpu|120|"
      "lab98.TileGpu/0.Typed|lab98,gpu|120|"
      "lab98.SpeedPerf.Faster|lab98,gpu,perf|250|ON"
      "lab98.RaceSanitizer.Clean|lab98,gpu,sanitizer|900|"
      "lab98.WavefrontProfiler.Counted|lab98,gpu,profiler|900|ON"
      "lab98.GivenBaselineGpu.Works|lab98,gpu,given|120|"
      "lab98.Inst/GivenHelperCpu.Works|lab98,cpu,given|60|"
      "lab98.DemoGpu.Runs|lab98,gpu|120|")
    string(REPLACE "|" ";" spec "${spec}")
    list(GET spec 0 name)
    list(GET spec 1 labels)
    string(REPLACE "," ";" labels "${labels}")
    list(GET spec 2 timeout)
    list(GET spec 3 serial)
    test_property(got "${json}" "${name}" LABELS)
    string(JSON nl LENGTH "${got}")
    set(got_labels "")
    math(EXPR nl "${nl} - 1")
    foreach(k RANGE ${nl})
      string(JSON l GET "${got}" ${k})
      list(APPEND got_labels "${l}")
    endforeach()
    list(SORT got_labels)
    list(SORT labels)
    expect_equal("${name} labels" "${got_labels}" "${labels}")
    test_property(got "${json}" "${name}" TIMEOUT)
    string(REGEX REPLACE "\\.0+$" "" got "${got}")
    expect_equal("${name} timeout" "${got}" "${timeout}")
    test_property(got "${json}" "${name}" RUN_SERIAL)
    expect_equal("${name} RUN_SERIAL" "${got}" "${serial}")
    test_property(got "${json}" "${name}" RESOURCE_GROUPS)
    if(labels MATCHES "gpu" AND got STREQUAL "")
      message(FATAL_ERROR "${name}: a GPU test without RESOURCE_GROUPS")
    elseif(NOT labels MATCHES "gpu" AND NOT got STREQUAL "")
      message(FATAL_ERROR "${name}: a CPU test with RESOURCE_GROUPS ${got}")
    endif()
    if(labels MATCHES "gpu")
      string(JSON slots GET "${got}" 0 requirements 0 slots)
      expect_equal("${name} GPU slots" "${slots}" "1")
    endif()
  endforeach()
  test_property(env "${json}" "lab98.Shapes/TileGpu.Matches/1" ENVIRONMENT)
  string(FIND "${env}" "CUDALAB_TEST_NAME=lab98.Shapes/TileGpu.Matches/1" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the measurement channel's environment is missing: ${env}")
  endif()
  string(FIND "${env}" "GLIBC_TUNABLES=glibc.malloc.hugetlb=1" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "a grader test without huge pages for its host inputs "
                        "(CUDALAB_HOST_HUGE_PAGES, on by default): ${env}")
  endif()
  # Sanitizer runs, the longest parallel tests, start first (COST); other tests keep none.
  test_property(cost "${json}" "lab98.RaceSanitizer.Clean" COST)
  expect_equal("lab98.RaceSanitizer.Clean COST" "${cost}" "100.0")
  test_property(cost "${json}" "lab98.Shapes/TileGpu.Matches/1" COST)
  expect_equal("lab98.Shapes/TileGpu.Matches/1 COST" "${cost}" "")
  # Points (tools/grading_manifest.py): SpeedPerf declared 40; MapCpu, TileGpu (3 cases in two
  # suites), RaceSanitizer, WavefrontProfiler and DemoGpu (registered directly) 12 each.
  if(PYTHON)
    manifest("${good_declaration}")
    expect_equal("grading_manifest.py --check exit status (${manifest_out})" "${manifest_rc}" "0")
    objective_points("${manifest_json}" got)
    expect_equal("objectives" "${got_COUNT}" "6")
    expect_equal("SpeedPerf points/tests" "${got_SpeedPerf}" "40/1")
    expect_equal("TileGpu points/tests" "${got_TileGpu}" "12/3")
    expect_equal("MapCpu points/tests" "${got_MapCpu}" "12/2")
    expect_equal("DemoGpu points/tests" "${got_DemoGpu}" "12/1")
    string(JSON g GET "${manifest_json}" graders 0 target)
    expect_equal("manifest grader" "${g}" "fake_grader")
    manifest_test(got "${manifest_json}" "lab98.DemoGpu.Runs" registered)
    expect_equal("manifest direct test" "${got}" "cmake")
    manifest_test(got "${manifest_json}" "lab98.DemoGpu.Runs" objective)
    expect_equal("manifest direct test's objective" "${got}" "DemoGpu")
    manifest_test(got "${manifest_json}" "lab98.GivenBaselineGpu.Works" graded)
    expect_equal("a given test is graded" "${got}" "OFF")
  else()
    message(STATUS "Python 3 not given (-DPYTHON): the points are not checked")
  endif()
  # CMake writes no points: only its record of the rules, labs and graders.
  if(EXISTS "${build}/cudalab_manifest.d" OR EXISTS "${build}/cudalab_manifest.json")
    message(FATAL_ERROR "CMake still writes cudalab_manifest.json or cudalab_manifest.d/")
  endif()
  file(READ "${build}/cudalab_labs.json" record)
  string(JSON g GET "${record}" graders 0 target)
  expect_equal("record's grader" "${g}" "fake_grader")
  message(STATUS "ok: labels, timeouts, GPU resources, channel environment and points")

elseif(CASE STREQUAL "LargeMemorySuitesTakeHalfAGpu")
  # A test of a suite in CUDALAB_LARGE_MEMORY_SUITES (an operand past 2^31 elements, 8 to 10
  # GB) takes half of its GPU's slots, so that two at most run on one GPU at once; the
  # other correctness tests keep one slot.
  build_project("${good_listing}IndexRangeGpu.\n  PastTwoTo31\n" "" -DCUDALAB_GPU_SLOTS=8)
  if(NOT build_rc EQUAL 0)
    message(FATAL_ERROR "the grading project does not build:\n${build_out}")
  endif()
  execute_process(COMMAND ctest --test-dir "${build}" --show-only=json-v1
                  OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  foreach(spec "lab98.IndexRangeGpu.PastTwoTo31|4" "lab98.Shapes/TileGpu.Matches/1|1"
               "lab98.RaceSanitizer.Clean|1")
    string(REPLACE "|" ";" spec "${spec}")
    list(GET spec 0 name)
    list(GET spec 1 want)
    test_property(got "${json}" "${name}" RESOURCE_GROUPS)
    string(JSON slots GET "${got}" 0 requirements 0 slots)
    expect_equal("${name} GPU slots" "${slots}" "${want}")
  endforeach()
  message(STATUS "ok: a large-memory suite's test takes half of a GPU's slots")

elseif(CASE STREQUAL "PerfPerGpuTakesAWholeGpu")
  # The build's resource spec (2 GPUs, 3 slots each) is every ctest run's default; with
  # CUDALAB_PERF_PER_GPU a perf or profiler test takes all slots of one GPU instead of
  # RUN_SERIAL, and a correctness test one slot.
  build_project("${good_listing}" "" -DCUDALAB_GPU_COUNT=2 -DCUDALAB_GPU_SLOTS=3
                -DCUDALAB_PERF_PER_GPU=ON)
  if(NOT build_rc EQUAL 0)
    message(FATAL_ERROR "the grading project does not build:\n${build_out}")
  endif()
  file(READ "${build}/cudalab_resources.json" spec)
  string(JSON n LENGTH "${spec}" local 0 gpus)
  expect_equal("GPUs in the resource spec" "${n}" "2")
  string(JSON slots GET "${spec}" local 0 gpus 1 slots)
  expect_equal("slots of GPU 1" "${slots}" "3")
  execute_process(COMMAND ctest --test-dir "${build}" --show-only=json-v1
                  OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  foreach(spec "lab98.SpeedPerf.Faster|3" "lab98.WavefrontProfiler.Counted|3"
               "lab98.RaceSanitizer.Clean|1" "lab98.Shapes/TileGpu.Matches/1|1"
               "lab98.DemoGpu.Runs|1")
    string(REPLACE "|" ";" spec "${spec}")
    list(GET spec 0 name)
    list(GET spec 1 want)
    expect_gpu_slots("${json}" "${name}" "${want}")
  endforeach()
  # ctest hands each GPU test its device from the build's spec without being told.
  execute_process(COMMAND ctest --test-dir "${build}" -R "^lab98\\.SpeedPerf\\." -V
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT out MATCHES "CTEST_RESOURCE_GROUP_0_GPUS=id:[01],slots:3")
    message(FATAL_ERROR "ctest did not use the build's resource spec:\n${out}")
  endif()

elseif(CASE STREQUAL "GpuLocksShareSlotsAndTimeAlone")
  # With CUDALAB_GPU_LOCKS (an option, off by default) perf and profiler tests take one slot
  # like every GPU test, never RUN_SERIAL; every grader test and demo run gets the lock
  # folder, whose files (two per GPU id) configure made.
  build_project("${good_listing}" "" -DCUDALAB_GPU_COUNT=1 -DCUDALAB_GPU_SLOTS=4
                -DCUDALAB_GPU_LOCKS=ON)
  if(NOT build_rc EQUAL 0)
    message(FATAL_ERROR "the grading project does not build:\n${build_out}")
  endif()
  foreach(f gpu0.lock gpu0.gate gpu15.lock gpu15.gate)
    if(NOT EXISTS "${build}/cudalab_gpu_locks/${f}")
      message(FATAL_ERROR "configure made no cudalab_gpu_locks/${f}")
    endif()
  endforeach()
  execute_process(COMMAND ctest --test-dir "${build}" --show-only=json-v1
                  OUTPUT_VARIABLE json RESULT_VARIABLE rc)
  foreach(name lab98.SpeedPerf.Faster lab98.WavefrontProfiler.Counted lab98.RaceSanitizer.Clean
               lab98.Shapes/TileGpu.Matches/1)
    expect_gpu_slots("${json}" "${name}" 1)
    test_property(env "${json}" "${name}" ENVIRONMENT)
    if(NOT env MATCHES "CUDALAB_GPU_LOCK_DIR=${build}/cudalab_gpu_locks")
      message(FATAL_ERROR "${name}: no CUDALAB_GPU_LOCK_DIR in its environment: ${env}")
    endif()
  endforeach()
  test_property(env "${json}" "lab98.DemoGpu.Runs" ENVIRONMENT_MODIFICATION)
  if(NOT env MATCHES "CUDALAB_GPU_LOCK_DIR=set:${build}/cudalab_gpu_locks")
    message(FATAL_ERROR "lab98.DemoGpu.Runs: the demo gets no lock folder: ${env}")
  endif()
  message(STATUS "ok: with the GPU locks, perf and profiler tests share slots and get the locks")

elseif(CASE STREQUAL "PerfSuitesJoinBatchRunsOnRequest")
  # Without CUDALAB_BATCH_PERF a perf suite of two tests keeps a process per test; with it, one
  # batch run holds the GPU alone (RUN_SERIAL, or every slot with CUDALAB_PERF_PER_GPU) and
  # its tests report from that run (and still run alone, serially, if it left no result).
  set(listing "${good_listing}LatencyPerf.\n  Hidden\n  Exposed\n")
  foreach(per_gpu OFF ON)
    foreach(batch_perf OFF ON)
      build_project("${listing}" "" -DCUDALAB_BATCH_PERF=${batch_perf}
                    -DCUDALAB_PERF_PER_GPU=${per_gpu} -DCUDALAB_GPU_COUNT=2 -DCUDALAB_GPU_SLOTS=3)
      if(NOT build_rc EQUAL 0)
        message(FATAL_ERROR "the grading project does not build:\n${build_out}")
      endif()
      execute_process(COMMAND ctest --test-dir "${build}" --show-only=json-v1
                      OUTPUT_VARIABLE json RESULT_VARIABLE rc)
      set(what "CUDALAB_BATCH_PERF=${batch_perf}, CUDALAB_PERF_PER_GPU=${per_gpu}")
      string(FIND "${json}" "\"lab98.LatencyPerf.@batch\"" at)
      if(batch_perf AND at EQUAL -1)
        message(FATAL_ERROR "${what}: no batch run of LatencyPerf")
      elseif(NOT batch_perf AND NOT at EQUAL -1)
        message(FATAL_ERROR "${what}: LatencyPerf runs in one process although not asked to")
      endif()
      set(checked "lab98.LatencyPerf.Hidden" "lab98.LatencyPerf.Exposed")
      if(batch_perf)
        list(APPEND checked "lab98.LatencyPerf.@batch")
      endif()
      foreach(name IN LISTS checked)
        test_property(serial "${json}" "${name}" RUN_SERIAL)
        test_property(groups "${json}" "${name}" RESOURCE_GROUPS)
        string(JSON slots GET "${groups}" 0 requirements 0 slots)
        if(per_gpu)
          expect_equal("${what}: ${name} RUN_SERIAL" "${serial}" "")
          expect_equal("${what}: ${name} GPU slots" "${slots}" "3")
        else()
          expect_equal("${what}: ${name} RUN_SERIAL" "${serial}" "ON")
          expect_equal("${what}: ${name} GPU slots" "${slots}" "1")
        endif()
        test_property(required "${json}" "${name}" FIXTURES_REQUIRED)
        if(batch_perf AND NOT name MATCHES "@batch$")
          string(JSON required GET "${required}" 0)
          expect_equal("${what}: ${name} requires the batch run" "${required}"
                       "lab98.LatencyPerf.@batch")
        elseif(NOT batch_perf)
          expect_equal("${what}: ${name} runs alone" "${required}" "")
        endif()
      endforeach()
      message(STATUS "ok: ${what}")
    endforeach()
  endforeach()

elseif(CASE STREQUAL "PointsMustNameGradedSuitesAndAddUp")
  # CMake takes no POINTS: the lab's declaration (tests/lab98_fake/objectives.json) holds them.
  build_project("${good_listing}" "MapCpu=50")
  expect_build_failure("POINTS given to CMake" "POINTS is not an argument" "objectives.json")
  if(NOT PYTHON)
    message(STATUS "Python 3 not given (-DPYTHON): the declarations are not checked")
    return()
  endif()
  # A helper suite (it only feeds another test) is declared as one and earns nothing; a suite
  # the declaration does not name is an error, so is a declared suite the grader lacks, and
  # points that do not add up to 100.
  build_project("${good_listing}SmallTileGpu.\n  Runs\n" "")
  if(NOT build_rc EQUAL 0)
    message(FATAL_ERROR "the grading project does not build:\n${build_out}")
  endif()
  expect_manifest_problem("a graded suite the declaration lacks" "${good_declaration}"
                          "lab98" "SmallTileGpu" "lab98_fake/objectives.json"
                          "does not declare it")
  string(REPLACE "\n}" ",\n \"helpers\": {\"SmallTileGpu\": \"what RaceSanitizer runs\"}\n}"
         with_helper "${good_declaration}")
  manifest("${with_helper}")
  expect_equal("grading_manifest.py --check with the helper declared (${manifest_out})"
               "${manifest_rc}" "0")
  objective_points("${manifest_json}" got)
  expect_equal("objectives (no helper among them)" "${got_COUNT}" "6")
  expect_equal("SpeedPerf points/tests" "${got_SpeedPerf}" "40/1")
  manifest_test(graded "${manifest_json}" "lab98.SmallTileGpu.Runs" graded)
  expect_equal("the helper's test is graded" "${graded}" "OFF")
  manifest_test(helper "${manifest_json}" "lab98.SmallTileGpu.Runs" helper)
  expect_equal("the helper's test is a helper" "${helper}" "ON")
  message(STATUS "ok: a helper suite earns nothing")
  string(REPLACE "\"DemoGpu\": 12}" "\"DemoGpu\": 12, \"NoSuchGpu\": 0}" unknown
         "${with_helper}")
  expect_manifest_problem("a declared suite the grader lacks" "${unknown}" "lab98" "NoSuchGpu"
                          "lab98_fake/objectives.json" "does not list")
  string(REPLACE "\"DemoGpu\": 12}" "\"DemoGpu\": 12, \"GivenBaselineGpu\": 0}" given
         "${with_helper}")
  expect_manifest_problem("a given suite declared as an objective" "${given}" "GivenBaselineGpu"
                          "does not list")
  string(REPLACE "\"SpeedPerf\": 40" "\"SpeedPerf\": 50" over "${with_helper}")
  expect_manifest_problem("a technique's objectives over its points" "${over}" "lab98"
                          "technique speed: its objectives' points add up to 50, not its points 40")
  string(REPLACE "\"points\": 40" "\"points\": 50" over "${over}")
  expect_manifest_problem("points over 100" "${over}" "lab98" "add up to 110, not 100")
  string(REPLACE "40" "30" under "${with_helper}")
  expect_manifest_problem("points under 100" "${under}" "add up to 90, not 100")
  string(REPLACE "\"DemoGpu\": 12}" "\"DemoGpu\": 12, \"SpeedPerf\": 0}" twice "${with_helper}")
  expect_manifest_problem("an objective in two techniques" "${twice}" "lab98"
                          "objective SpeedPerf is in the techniques speed and lab")
  expect_manifest_problem("a declaration that is not JSON" "{\"techniques\": " "lab98"
                          "is not valid JSON")
else()
  message(FATAL_ERROR "check_grading.cmake: unknown CASE '${CASE}'")
endif()
