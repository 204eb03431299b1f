# SPDX-License-Identifier: BSD-3-Clause
# cudalab_add_lab(): one call wires a lab.
#
#   cudalab_add_lab(
#     NUMBER 04 NAME shared_memory
#     SOURCES   tiled_static.cu tiled_dynamic.cu  # files with TODO(lab04) regions: taken
#                                                 # from solutions/ with CUDALAB_IMPL=solution
#     GIVEN     baseline.cu                       # lab files the student does not edit
#     SM90A     wgmma_persistent.cu               # SOURCES files that need sm_90a (see below)
#     DEMO      main.cu                           # demo program, built as lab04_shared_memory
#     LIBRARIES CUDA::cublas                      # extra link libraries
#     TEST_SOURCES a_test.cu b_test.cu            # the grader's files in tests/labNN_<name>/
#                                                 # (default: grader.cu)
#     TIMEOUT_GPU 120 TIMEOUT_PERF 300)           # optional CTest timeouts (seconds)
#
# It creates
#   labNN_impl          static library: the lab's kernels and launchers
#   labNN_<name>        the demo program
#   labNN_test          the grader (TEST_SOURCES and questions.cpp of tests/labNN_<name>/),
#                       whose GoogleTest cases are
#                       registered as CTest tests labNN.<Suite>.<Case> when it is built.
# Its known-wrong submissions and correct alternatives are tests/labNN_<name>/{wrong,right}/.
# Its objectives, grouped by technique, and their points are declared in
# tests/labNN_<name>/objectives.json (read by tools/grading_manifest.py, not by CMake).
# A suite's name ending gives its tests their labels, timeout and GPU (...Cpu, ...Gpu, ...Perf,
# ...Sanitizer, ...Profiler; "Given..." = not graded): the rules are in CudalabGrading.cmake.
include_guard(GLOBAL)
include(CudalabIsolation)
include(CudalabGrading)

# cudalab_lab_source_dir(<out> <lab folder> <impl>) — where implementation files live.
function(cudalab_lab_source_dir out lab_dir impl)
  if(impl STREQUAL "solution")
    set(${out} "${PROJECT_SOURCE_DIR}/solutions/${lab_dir}" PARENT_SCOPE)
  else()
    set(${out} "${PROJECT_SOURCE_DIR}/labs/${lab_dir}" PARENT_SCOPE)
  endif()
endfunction()

# cudalab_sm90a_architectures(<out> <found>): the project's CUDA architectures with sm_90
# replaced by its arch-specific twin sm_90a ("90" -> "90a", "90-real" -> "90a-real", "native" on
# an H100/H200 -> "90a-real"); <found> is ON when one was replaced.
#
# Why a separate list: wgmma, setmaxnreg and the tensor-map TMA instructions exist only in the
# "a" (arch-specific) targets, compute_90a / sm_90a, whose code runs on compute capability 9.0
# alone. Adding `--generate-code=arch=compute_90a,code=sm_90a` to the file's own flags would give
# the file BOTH an sm_90 and an sm_90a cubin, and which one the driver loads on an H100 is not
# something the course should depend on (the sm_90 one can only trap). Replacing 90 by 90a for
# those files alone keeps one cubin per device (sm_90a on 9.0, the trapping stub elsewhere), and
# leaves every other kernel of the lab compiled for plain sm_90 (its SASS tests read that code).
function(cudalab_sm90a_architectures out found)
  set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(archs STREQUAL "native" AND DEFINED CMAKE_CUDA_ARCHITECTURES_NATIVE)
    set(archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  endif()
  set(result "")
  set(replaced OFF)
  foreach(a IN LISTS archs)
    if(a MATCHES "^90(-real|-virtual)?$")
      list(APPEND result "90a${CMAKE_MATCH_1}")
      set(replaced ON)
    else()
      list(APPEND result "${a}")
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
  set(${found} ${replaced} PARENT_SCOPE)
endfunction()

# cudalab_add_lab_library(<target> <stub_dir> SOURCES <files...> [LIBRARIES <libs...>]
#                         [SM90A <file names...>])
# A lab's kernels and launchers as a static library; the interface header is in <stub_dir>.
# Used for the chosen implementation and for every known-wrong variant (CudalabWrong).
# Every such library is checked when it is built (cudalab_lab_library_checks()); REPORT <file>
# writes a variant's findings there instead of failing the build.
# SM90A names SOURCES files (by file name) that are compiled for sm_90a instead of sm_90, in an
# object library whose objects go into <target> (cudalab_sm90a_architectures() says why); they
# see CUDALAB_SM90A_BUILT=1 when the architectures held 90, else 0 (their launchers then refuse
# with a message naming the architectures to configure).
function(cudalab_add_lab_library target stub_dir)
  cmake_parse_arguments(ARG "" "REPORT;REMOTE" "SOURCES;LIBRARIES;SM90A" ${ARGN})
  set(plain "")
  set(special "")
  foreach(f IN LISTS ARG_SOURCES)
    get_filename_component(fname "${f}" NAME)
    if(fname IN_LIST ARG_SM90A)
      list(APPEND special "${f}")
    else()
      list(APPEND plain "${f}")
    endif()
  endforeach()
  add_library(${target} STATIC ${plain})
  target_include_directories(${target} PUBLIC "${stub_dir}")
  target_link_libraries(${target} PUBLIC cudalab::common ${ARG_LIBRARIES}
                        PRIVATE cudalab::options)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF
                        POSITION_INDEPENDENT_CODE ON)
  if(special)
    cudalab_sm90a_architectures(archs built)
    if(built)
      set(built 1)
    else()
      set(built 0)
    endif()
    add_library(${target}_sm90a OBJECT ${special})
    target_include_directories(${target}_sm90a PRIVATE "${stub_dir}")
    target_link_libraries(${target}_sm90a PRIVATE cudalab::common ${ARG_LIBRARIES}
                          cudalab::options)
    target_compile_definitions(${target}_sm90a PRIVATE CUDALAB_SM90A_BUILT=${built})
    set_target_properties(${target}_sm90a PROPERTIES CUDA_ARCHITECTURES "${archs}"
                          CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${target}_sm90a>)
  endif()
  # What it may define, call and contain; then everything outside its namespace made local
  # (cmake/CudalabIsolation.cmake). REPORT: a variant's findings go to a file, not the build.
  if(ARG_REPORT)
    cudalab_lab_library_checks(${target} REPORT "${ARG_REPORT}")
  else()
    cudalab_lab_library_checks(${target})
  endif()
  if(CUDALAB_BUILD_TESTS AND ARG_REMOTE AND EXISTS "${ARG_REMOTE}")
    set(variant FALSE)
    if(ARG_REPORT)
      set(variant TRUE)
    endif()
    _cudalab_add_candidate(${target} "${ARG_REMOTE}" "${ARG_LIBRARIES}" ${variant})
  endif()
endfunction()

# The file that makes a lab judged from outside its process: tests/<lab_dir>/remote.cpp, or
# remote.cu where the lab's header holds device code (compiled by nvcc); "" when neither exists.
function(cudalab_remote_source out lab_dir)
  set(found "")
  foreach(ext cpp cu)
    if(EXISTS "${PROJECT_SOURCE_DIR}/tests/${lab_dir}/remote.${ext}")
      set(found "${PROJECT_SOURCE_DIR}/tests/${lab_dir}/remote.${ext}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# A lab whose tests/labNN_topic/remote.cpp (or .cu) exists is judged from outside its process
# (cudalab/remote.hpp): <lib>_candidate runs the library's host code and answers its grader's
# calls; <lib>_devcode lists the library's device code (cmake/CudalabDeviceCode.cmake), which
# the grader loads itself. The grader links neither (cudalab_add_grader_executable()).
# A variant's candidate links whatever its library holds (a variant that defines main() or calls
# what it may not is rejected by its isolation report, never by a broken build).
function(_cudalab_add_candidate lib remote libraries variant)
  _cudalab_remote_objects(objects "${remote}" ${lib} "${libraries}")
  add_executable(${lib}_candidate $<TARGET_OBJECTS:${objects}_candidate>)
  target_link_libraries(${lib}_candidate PRIVATE cudalab::candidate ${lib} cudalab::options)
  # Kernel names from nvcc's registration code (common/candidate/candidate.cu).
  target_link_options(${lib}_candidate PRIVATE "LINKER:--wrap=__cudaRegisterFunction")
  if(variant)
    target_link_options(${lib}_candidate PRIVATE "LINKER:--allow-multiple-definition"
                        "LINKER:--unresolved-symbols=ignore-all")
  endif()
  set(list "${CMAKE_CURRENT_BINARY_DIR}/${lib}.devcode")
  add_custom_command(OUTPUT "${list}"
    COMMAND ${CMAKE_COMMAND} -DLIBRARY=$<TARGET_FILE:${lib}> -DOUTPUT=${list}
            -DAR=${CMAKE_AR} -DOBJCOPY=${CMAKE_OBJCOPY}
            -P "${PROJECT_SOURCE_DIR}/cmake/CudalabDeviceCode.cmake"
    DEPENDS ${lib} "${PROJECT_SOURCE_DIR}/cmake/CudalabDeviceCode.cmake"
    COMMENT "Extracting the device code of ${lib}" VERBATIM)
  add_custom_target(${lib}_devcode DEPENDS "${list}")
  set_target_properties(${lib} PROPERTIES CUDALAB_REMOTE "${remote}" CUDALAB_REMOTE_OBJECTS
                        ${objects} CUDALAB_DEVICE_CODE "${list}" CUDALAB_LAB_LIBRARIES
                        "${libraries}")
endfunction()

# The objects a lab's remote file makes, compiled once for the lab and shared by its grader and
# every variant's (they see only the lab's header): <base>_judge (the proxies) and
# <base>_candidate (the candidate's table); <out> is <base>.
function(_cudalab_remote_objects out remote lib libraries)
  get_filename_component(dir "${remote}" DIRECTORY)
  get_filename_component(lab_dir "${dir}" NAME)
  set(base "${lab_dir}_remote")
  if(NOT TARGET ${base}_judge)
    foreach(side judge candidate)
      add_library(${base}_${side} OBJECT "${remote}")
      target_include_directories(${base}_${side} PRIVATE
                                 $<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>)
      target_link_libraries(${base}_${side} PRIVATE cudalab::common cudalab::options
                            ${libraries})
    endforeach()
    target_compile_definitions(${base}_judge PRIVATE CUDALAB_REMOTE_JUDGE=1)
    target_compile_definitions(${base}_candidate PRIVATE CUDALAB_REMOTE_JUDGE=0)
  endif()
  set(${out} ${base} PARENT_SCOPE)
endfunction()

# cudalab_add_grader_executable(<target> <lab library> <test sources...>)
# A lab with a candidate (_cudalab_add_candidate()) is judged: its grader links the proxies of
# remote.cpp instead of the lab's library, and reaches the lab's code only through its
# candidate program and the device code the build extracted.
function(cudalab_add_grader_executable target lab_library)
  add_executable(${target} ${ARGN})
  get_target_property(remote ${lab_library} CUDALAB_REMOTE)
  if(remote)
    get_target_property(list ${lab_library} CUDALAB_DEVICE_CODE)
    get_target_property(libraries ${lab_library} CUDALAB_LAB_LIBRARIES)
    get_target_property(objects ${lab_library} CUDALAB_REMOTE_OBJECTS)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${objects}_judge>)
    # The lab's given files are the course's: they run in the grader (their kernels and
    # launchers too); only the student's files run in the candidate. Compiled once per lab.
    get_target_property(given ${lab_library} CUDALAB_GIVEN_SOURCES)
    if(given)
      if(NOT TARGET ${objects}_given)
        add_library(${objects}_given OBJECT ${given})
        target_include_directories(${objects}_given PRIVATE
                                   $<TARGET_PROPERTY:${lab_library},INTERFACE_INCLUDE_DIRECTORIES>)
        target_link_libraries(${objects}_given PRIVATE cudalab::common cudalab::options
                              ${libraries})
      endif()
      target_sources(${target} PRIVATE $<TARGET_OBJECTS:${objects}_given>)
    endif()
    # Which candidate and device code this grader judges (common/testing/remote_judge.cu reads it).
    file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${target}_remote_lab.cpp"
         CONTENT "// Generated by cmake/CudalabLab.cmake: the lab ${target} judges.
extern \"C\" const char* cudalab_remote_lab_path(int which) {
  return which == 0 ? \"$<TARGET_FILE:${lab_library}_candidate>\" : \"${list}\";
}
")
    target_sources(${target} PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/${target}_remote_lab.cpp")
    target_include_directories(${target} PRIVATE
                               $<TARGET_PROPERTY:${lab_library},INTERFACE_INCLUDE_DIRECTORIES>)
    target_link_libraries(${target} PRIVATE cudalab::testing cudalab::options ${libraries})
    add_dependencies(${target} ${lab_library}_candidate ${lab_library}_devcode)
  else()
    target_link_libraries(${target} PRIVATE ${lab_library} cudalab::testing cudalab::options)
  endif()
  # The grading kit: #include "common/<kit header>" (tests/common/).
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/tests")
endfunction()

function(cudalab_add_lab)
  cmake_parse_arguments(LAB "" "NUMBER;NAME;DEMO;TIMEOUT_CPU;TIMEOUT_GPU;TIMEOUT_PERF;TIMEOUT_TOOLS"
                        "SOURCES;GIVEN;LIBRARIES;TEST_SOURCES;POINTS;SM90A" ${ARGN})
  if(NOT LAB_NUMBER MATCHES "^[0-9][0-9]$" OR NOT LAB_NAME)
    message(FATAL_ERROR "cudalab_add_lab: NUMBER (two digits) and NAME are required")
  endif()
  set(nn ${LAB_NUMBER})
  _cudalab_no_points("cudalab_add_lab(lab${nn})" "lab${nn}" LAB)
  set(lab_dir "lab${nn}_${LAB_NAME}")
  set(stub_dir "${PROJECT_SOURCE_DIR}/labs/${lab_dir}")
  cudalab_lab_source_dir(impl_dir "${lab_dir}" "${CUDALAB_IMPL}")

  set(impl_sources "")
  foreach(f IN LISTS LAB_SOURCES)
    if(NOT EXISTS "${impl_dir}/${f}")
      message(FATAL_ERROR "lab${nn}: ${impl_dir}/${f} is missing (CUDALAB_IMPL=${CUDALAB_IMPL})")
    endif()
    list(APPEND impl_sources "${impl_dir}/${f}")
  endforeach()
  foreach(f IN LISTS LAB_GIVEN)
    list(APPEND impl_sources "${stub_dir}/${f}")
  endforeach()

  # The lab's kernels and launchers.
  foreach(f IN LISTS LAB_SM90A)
    if(NOT f IN_LIST LAB_SOURCES)
      message(FATAL_ERROR "lab${nn}: SM90A lists ${f}, which is not one of its SOURCES")
    endif()
  endforeach()
  cudalab_remote_source(remote "${lab_dir}")
  cudalab_add_lab_library(lab${nn}_impl "${stub_dir}" SOURCES ${impl_sources}
                          LIBRARIES ${LAB_LIBRARIES} SM90A ${LAB_SM90A} REMOTE "${remote}")
  list(TRANSFORM LAB_GIVEN PREPEND "${stub_dir}/" OUTPUT_VARIABLE given_paths)
  set_property(TARGET lab${nn}_impl PROPERTY CUDALAB_GIVEN_SOURCES ${given_paths})

  # The demo program.
  if(LAB_DEMO)
    add_executable(${lab_dir} "${stub_dir}/${LAB_DEMO}")
    target_link_libraries(${lab_dir} PRIVATE lab${nn}_impl cudalab::reference cudalab::options)
    if(CUDALAB_BUILD_TESTS)
      set(timeouts TIMEOUT_CPU ${LAB_TIMEOUT_CPU} TIMEOUT_GPU ${LAB_TIMEOUT_GPU})
      # Bad arguments: one line on stderr, non-zero exit (given: the demo is provided).
      cudalab_add_rule_test(lab${nn}.GivenDemoCpu.RejectsBadArguments LABEL lab${nn} ${timeouts}
        COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${lab_dir}>
                -P "${PROJECT_SOURCE_DIR}/cmake/CudalabCheckBadArgs.cmake")
      # A short run of the demo: checks its own results; exit 77 without a GPU.
      cudalab_add_rule_test(lab${nn}.DemoGpu.RunsAndVerifies LABEL lab${nn} VERDICT ${timeouts}
        COMMAND ${lab_dir} --size 256 --reps 2 --check PROPERTIES SKIP_RETURN_CODE 77)
    endif()
  endif()

  # The grader: TEST_SOURCES are named relative to tests/<lab_dir>/.
  set(grading_dir "${PROJECT_SOURCE_DIR}/tests/${lab_dir}")
  set(test_paths "")
  foreach(f IN LISTS LAB_TEST_SOURCES)
    if(NOT IS_ABSOLUTE "${f}")
      set(f "${grading_dir}/${f}")
    endif()
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "lab${nn}: TEST_SOURCES names ${f}, which is missing")
    endif()
    list(APPEND test_paths "${f}")
  endforeach()
  set(LAB_TEST_SOURCES "${test_paths}")
  if(CUDALAB_BUILD_TESTS)
    if(NOT LAB_TEST_SOURCES)
      set(LAB_TEST_SOURCES "${grading_dir}/grader.cu")
    endif()
    cudalab_add_grader_executable(lab${nn}_test lab${nn}_impl ${LAB_TEST_SOURCES})
    # The handout's questions (labNN.QuestionsCpu.*, graded like the other tests): their checks
    # read the answers file when the grader runs (edit it and re-run ctest, no rebuild).
    #   student build:   labs/labNN_topic/answers.txt       (a TODO(labNN) region; shipped)
    #   solution build:  solutions/labNN_topic/answers.txt  (the reference answers)
    if(EXISTS "${grading_dir}/questions.cpp")
      if(CUDALAB_IMPL STREQUAL "solution")
        set(answers "${PROJECT_SOURCE_DIR}/solutions/${lab_dir}/answers.txt")
      else()
        set(answers "${stub_dir}/answers.txt")
      endif()
      if(NOT EXISTS "${answers}")
        message(FATAL_ERROR "lab${nn}: the questions of its handout need ${answers}")
      endif()
      # The answers' reader compiles once for every lab; the lab names its file in a
      # generated one-line source.
      if(NOT TARGET cudalab_answers)
        add_library(cudalab_answers STATIC "${PROJECT_SOURCE_DIR}/tests/common/answers.cpp")
        target_include_directories(cudalab_answers PRIVATE "${PROJECT_SOURCE_DIR}/tests")
        target_link_libraries(cudalab_answers PRIVATE cudalab::options PUBLIC GTest::gtest)
      endif()
      set(answers_source "${CMAKE_CURRENT_BINARY_DIR}/lab${nn}_answers_file.cpp")
      string(CONCAT answers_code "// Generated by cmake/CudalabLab.cmake: lab${nn}'s answers file.\n"
             "namespace cudalab::questions {\n"
             "const char* answers_file() { return R\"cudalab(${answers})cudalab\"; }\n"
             "}  // namespace cudalab::questions\n")
      _cudalab_write_if_changed("${answers_source}" "${answers_code}")
      target_sources(lab${nn}_test PRIVATE "${grading_dir}/questions.cpp" "${answers_source}")
      target_link_libraries(lab${nn}_test PRIVATE cudalab_answers)
    endif()
    cudalab_discover_grader(lab${nn}_test lab${nn}
      TIMEOUT_CPU ${LAB_TIMEOUT_CPU} TIMEOUT_GPU ${LAB_TIMEOUT_GPU}
      TIMEOUT_PERF ${LAB_TIMEOUT_PERF} TIMEOUT_TOOLS ${LAB_TIMEOUT_TOOLS})
  endif()
  # Recorded for tests/wrong/ (known-wrong submissions) and the tools.
  set_property(GLOBAL APPEND PROPERTY CUDALAB_LABS ${lab_dir})
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_DIR "${lab_dir}")
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_SOURCES "${LAB_SOURCES}")
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_GIVEN "${LAB_GIVEN}")
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_LIBRARIES "${LAB_LIBRARIES}")
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_SM90A "${LAB_SM90A}")
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_TEST_SOURCES "${LAB_TEST_SOURCES}")
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_DEMO "${LAB_DEMO}")
endfunction()
