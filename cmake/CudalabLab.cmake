# cudalab_add_lab(): one call wires a lab.
#
#   cudalab_add_lab(
#     NUMBER 04 NAME shared_memory
#     SOURCES   tiled_static.cu tiled_dynamic.cu  # files with TODO(lab04) regions: taken
#                                                 # from solutions/ with CUDALAB_IMPL=solution
#     GIVEN     baseline.cu                       # lab files the student does not edit
#     DEMO      main.cu                           # demo program, built as lab04_shared_memory
#     LIBRARIES CUDA::cublas                      # extra link libraries
#     TIMEOUT_GPU 120 TIMEOUT_PERF 300)           # optional CTest timeouts (seconds)
#
# It creates
#   labNN_impl          static library: the lab's kernels and launchers
#   labNN_<name>        the demo program
#   labNN_test          the grader (tests/labNN_<name>_test.cu), whose GoogleTest suites
#                       are discovered at test time as labNN.<Suite>.<Case>.
# Suites are labelled by the ending of their name:
#   ...Cpu → cpu   ...Gpu → gpu   ...Perf → gpu;perf (RUN_SERIAL)
#   ...Sanitizer → gpu;sanitizer (RUN_SERIAL)   ...Profiler → gpu;profiler (RUN_SERIAL)
# and suites whose name starts with "Given" (code the student does not write) also get
# the label "given" (for a parameterized suite, "<Instantiation>/Given..." counts too);
# every other test is graded.
include_guard(GLOBAL)

set(CUDALAB_TEST_CATEGORIES Cpu Gpu Perf Sanitizer Profiler)
set(CUDALAB_LABELS_Cpu cpu)
set(CUDALAB_LABELS_Gpu gpu)
set(CUDALAB_LABELS_Perf gpu perf)
set(CUDALAB_LABELS_Sanitizer gpu sanitizer)
set(CUDALAB_LABELS_Profiler gpu profiler)

# cudalab_lab_source_dir(<out> <lab folder> <impl>) — where implementation files live.
function(cudalab_lab_source_dir out lab_dir impl)
  if(impl STREQUAL "solution")
    set(${out} "${PROJECT_SOURCE_DIR}/solutions/${lab_dir}" PARENT_SCOPE)
  else()
    set(${out} "${PROJECT_SOURCE_DIR}/labs/${lab_dir}" PARENT_SCOPE)
  endif()
endfunction()

# cudalab_discover_grader(<target> <label> [PREFIX p] [TIMEOUT_{CPU,GPU,PERF,TOOLS} n]
#                         [ENVIRONMENT ...] [EXTRA_LABELS ...])
# Registers the gtest cases of <target> with CTest, named <prefix><Suite>.<Case>
# (prefix defaults to "<label>."), one discovery per category of suite.
function(cudalab_discover_grader target label)
  cmake_parse_arguments(ARG "" "TIMEOUT_CPU;TIMEOUT_GPU;TIMEOUT_PERF;TIMEOUT_TOOLS;PREFIX"
                        "ENVIRONMENT;EXTRA_LABELS" ${ARGN})
  foreach(v CPU:60 GPU:120 PERF:300 TOOLS:900)
    string(REPLACE ":" ";" v "${v}")
    list(GET v 0 k)
    list(GET v 1 d)
    if(NOT ARG_TIMEOUT_${k})
      set(ARG_TIMEOUT_${k} ${d})
    endif()
  endforeach()
  if(NOT ARG_PREFIX)
    set(ARG_PREFIX "${label}.")
  endif()
  foreach(cat IN LISTS CUDALAB_TEST_CATEGORIES)
    set(props "")
    set(labels ${label} ${CUDALAB_LABELS_${cat}} ${ARG_EXTRA_LABELS})
    if(cat STREQUAL "Cpu")
      set(timeout ${ARG_TIMEOUT_CPU})
    elseif(cat STREQUAL "Gpu")
      set(timeout ${ARG_TIMEOUT_GPU})
      list(APPEND props RESOURCE_GROUPS "gpus:1")
    elseif(cat STREQUAL "Perf")
      set(timeout ${ARG_TIMEOUT_PERF})
      list(APPEND props RUN_SERIAL TRUE RESOURCE_GROUPS "gpus:1")
    else()
      set(timeout ${ARG_TIMEOUT_TOOLS})
      list(APPEND props RUN_SERIAL TRUE RESOURCE_GROUPS "gpus:1")
    endif()
    if(ARG_ENVIRONMENT)
      list(APPEND props ENVIRONMENT "${ARG_ENVIRONMENT}")
    endif()
    # Graded suites, then the given ones. gtest_discover_tests() cannot pass a list
    # (several labels) through PROPERTIES, so each discovery names its test list and a
    # small CTest include file, read right after it, sets the properties on that list.
    foreach(kind graded given)
      if(kind STREQUAL "graded")
        set(filter "*${cat}.*-Given*:*/Given*")
        set(kind_labels ${labels})
      else()
        set(filter "Given*${cat}.*:*/Given*${cat}.*")
        set(kind_labels ${labels} given)
      endif()
      set(list_var "cudalab_${target}_${cat}_${kind}")
      gtest_discover_tests(${target}
        TEST_PREFIX "${ARG_PREFIX}"
        TEST_FILTER "${filter}"
        TEST_LIST ${list_var}
        DISCOVERY_MODE PRE_TEST
        DISCOVERY_TIMEOUT 60
        NO_PRETTY_VALUES NO_PRETTY_TYPES)
      set(prop_args "LABELS [==[${kind_labels}]==] TIMEOUT ${timeout}")
      foreach(p IN LISTS props)
        string(APPEND prop_args " [==[${p}]==]")
      endforeach()
      set(inc "${CMAKE_CURRENT_BINARY_DIR}/${list_var}_properties.cmake")
      file(WRITE "${inc}"
        "if(${list_var})\n  set_tests_properties(\${${list_var}} PROPERTIES ${prop_args})\nendif()\n")
      set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${inc}")
    endforeach()
  endforeach()
endfunction()

# cudalab_add_lab_library(<target> <stub_dir> SOURCES <files...> [LIBRARIES <libs...>])
# A lab's kernels and launchers as a static library; the interface header is in <stub_dir>.
# Used for the chosen implementation and for every known-wrong variant (CudalabWrong).
function(cudalab_add_lab_library target stub_dir)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PUBLIC "${stub_dir}")
  target_link_libraries(${target} PUBLIC cudalab::common ${ARG_LIBRARIES}
                        PRIVATE cudalab::options)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF
                        POSITION_INDEPENDENT_CODE ON)
endfunction()

# cudalab_add_grader_executable(<target> <lab library> <test sources...>)
function(cudalab_add_grader_executable target lab_library)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE ${lab_library} cudalab::testing cudalab::options)
endfunction()

function(cudalab_add_lab)
  cmake_parse_arguments(LAB "" "NUMBER;NAME;DEMO;TIMEOUT_CPU;TIMEOUT_GPU;TIMEOUT_PERF;TIMEOUT_TOOLS"
                        "SOURCES;GIVEN;LIBRARIES;TEST_SOURCES" ${ARGN})
  if(NOT LAB_NUMBER MATCHES "^[0-9][0-9]$" OR NOT LAB_NAME)
    message(FATAL_ERROR "cudalab_add_lab: NUMBER (two digits) and NAME are required")
  endif()
  set(nn ${LAB_NUMBER})
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
  cudalab_add_lab_library(lab${nn}_impl "${stub_dir}" SOURCES ${impl_sources}
                          LIBRARIES ${LAB_LIBRARIES})

  # The demo program.
  if(LAB_DEMO)
    add_executable(${lab_dir} "${stub_dir}/${LAB_DEMO}")
    target_link_libraries(${lab_dir} PRIVATE lab${nn}_impl cudalab::options)
    if(CUDALAB_BUILD_TESTS)
      # Bad arguments: one line on stderr, non-zero exit (given: the demo is provided).
      add_test(NAME lab${nn}.GivenDemoCpu.RejectsBadArguments
        COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${lab_dir}>
                -P "${PROJECT_SOURCE_DIR}/cmake/CudalabCheckBadArgs.cmake")
      set_tests_properties(lab${nn}.GivenDemoCpu.RejectsBadArguments PROPERTIES
        LABELS "lab${nn};cpu;given" TIMEOUT 60)
      # A short run of the demo: checks its own results; exit 77 without a GPU.
      add_test(NAME lab${nn}.DemoGpu.RunsAndVerifies
        COMMAND ${lab_dir} --size 256 --reps 2 --check)
      set_tests_properties(lab${nn}.DemoGpu.RunsAndVerifies PROPERTIES
        LABELS "lab${nn};gpu" TIMEOUT 120 SKIP_RETURN_CODE 77 RESOURCE_GROUPS "gpus:1")
    endif()
  endif()

  # The grader.
  if(CUDALAB_BUILD_TESTS)
    if(NOT LAB_TEST_SOURCES)
      set(LAB_TEST_SOURCES "${PROJECT_SOURCE_DIR}/tests/${lab_dir}_test.cu")
    endif()
    cudalab_add_grader_executable(lab${nn}_test lab${nn}_impl ${LAB_TEST_SOURCES})
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
  set_property(GLOBAL PROPERTY CUDALAB_LAB_${nn}_TEST_SOURCES "${LAB_TEST_SOURCES}")
endfunction()
