# Known-wrong submissions (instructor mode, -DCUDALAB_WRONG=ON): each grader must reject
# every deliberately broken implementation kept under tests/wrong/.
#
#   tests/wrong/labNN_topic/<variant>/
#     WRONG.md        line 1: what is broken (one sentence, shown in the test output)
#                     optional lines "filter: <gtest filter>" (the grader tests to run;
#                     default: every graded test) and "timeout: <seconds>"
#     <file>.cu ...   replacement copies of SOURCES files of the lab; the other SOURCES
#                     come from solutions/labNN_topic/, GIVEN files from labs/labNN_topic/
#
# For every variant, cudalab_add_wrong_variants() creates
#   labNN_wrong_<variant>_impl  the lab's library built from the variant
#   labNN_wrong_<variant>       the lab's grader linked against it
#   wrong.labNN.<variant>       a CTest test (labels wrong;labNN;cpu or wrong;labNN;gpu)
#                               that runs the grader through tests/wrong/expect_rejection.cmake:
#                               it passes when the grader fails at least one test, is
#                               Skipped when nothing failed but tests were skipped (no GPU),
#                               and fails when the grader accepts the variant.
# A variant is labelled cpu when every positive pattern of its filter names a ...Cpu suite
# (it can be judged without a GPU); otherwise gpu (RESOURCE_GROUPS gpus:1, and RUN_SERIAL —
# or every slot of one GPU with CUDALAB_PERF_PER_GPU — unless every pattern names a ...Gpu
# suite, since perf and tool tests never share a GPU).
#
# Correct alternatives (tests/right/labNN_topic/<variant>/, RIGHT.md instead of WRONG.md) are
# wired the same way by cudalab_add_wrong_variants(<dir> MODE right) as right.labNN.<variant>:
# they must be ACCEPTED (every selected graded test passes). A RIGHT.md line
# "slow: <reason>" marks an approach the handout says is too slow: its speed tests (...Perf
# suites) are then left out, and only correctness decides.
#
# Both kinds first check the variant's library for calls of the grader-only reference code
# (cmake/CudalabIsolation.cmake): a known-wrong variant that does is rejected by that alone.
include_guard(GLOBAL)
include(CudalabIsolation)
include(CudalabGrading)  # cudalab_suite_rule() and the CUDALAB_RULE_* table

# cudalab_wrong_read_spec(<variant dir> <out prefix>) — parses WRONG.md into
# <prefix>_WHAT, <prefix>_FILTER, <prefix>_TIMEOUT.
function(cudalab_wrong_read_spec dir prefix)
  set(spec_file WRONG.md)
  if(ARGC GREATER 2)
    set(spec_file ${ARGV2})
  endif()
  set(md "${dir}/${spec_file}")
  if(NOT EXISTS "${md}")
    message(FATAL_ERROR "variant ${dir} has no ${spec_file} (line 1: what it is)")
  endif()
  file(STRINGS "${md}" lines)
  list(LENGTH lines n)
  if(n EQUAL 0)
    message(FATAL_ERROR "${md} is empty; its first line must say what is broken")
  endif()
  list(GET lines 0 what)
  string(STRIP "${what}" what)
  string(REGEX REPLACE "^#+[ ]*" "" what "${what}")
  if(what STREQUAL "")
    message(FATAL_ERROR "${md}: the first line must say what is broken")
  endif()
  set(filter "")
  set(timeout "")
  set(slow "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ ]*slow:[ ]*(.+)$")
      set(slow "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[ ]*filter:[ ]*([^ ]+)[ ]*$")
      set(filter "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[ ]*timeout:[ ]*([0-9]+)[ ]*$")
      set(timeout "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[ ]*(filter|timeout):")
      message(FATAL_ERROR "${md}: cannot read '${line}' (filter: <gtest filter without spaces>, timeout: <seconds>)")
    endif()
  endforeach()
  set(${prefix}_WHAT "${what}" PARENT_SCOPE)
  set(${prefix}_FILTER "${filter}" PARENT_SCOPE)
  set(${prefix}_TIMEOUT "${timeout}" PARENT_SCOPE)
  set(${prefix}_SLOW "${slow}" PARENT_SCOPE)
endfunction()

# cudalab_wrong_filter_kind(<filter> <out>) — cpu (every suite needs no GPU), gpu (every
# suite follows the ...Gpu rule) or tools (anything else: perf, sanitizer, profiler, a mix,
# or a pattern whose suite has no known ending), from the positive patterns. The suites are
# classified by cudalab_suite_rule() (cmake/CudalabGrading.cmake), the one place that knows
# the endings.
function(cudalab_wrong_filter_kind filter out)
  string(REGEX REPLACE "-.*$" "" positive "${filter}")
  if(positive STREQUAL "")
    set(${out} tools PARENT_SCOPE)
    return()
  endif()
  string(REPLACE ":" ";" patterns "${positive}")
  set(all_cpu ON)
  set(all_gpu ON)
  foreach(p IN LISTS patterns)
    # The suite part: what comes before the first '.', without trailing wildcards.
    string(REGEX REPLACE "\\..*$" "" suite "${p}")
    string(REGEX REPLACE "[*?]+$" "" suite "${suite}")
    cudalab_suite_rule("${suite}" rule)
    if(rule_ENDING STREQUAL "")
      set(all_cpu OFF)
      set(all_gpu OFF)
      continue()
    endif()
    if(CUDALAB_RULE_${rule_ENDING}_GPU)
      set(all_cpu OFF)
    endif()
    if(NOT CUDALAB_RULE_${rule_ENDING}_TIMEOUT STREQUAL "GPU")
      set(all_gpu OFF)
    endif()
  endforeach()
  if(all_cpu)
    set(${out} cpu PARENT_SCOPE)
  elseif(all_gpu)
    set(${out} gpu PARENT_SCOPE)
  else()
    set(${out} tools PARENT_SCOPE)
  endif()
endfunction()

# cudalab_add_wrong_variants(<tests/wrong dir>) — wires every variant of every lab that
# cudalab_add_lab() recorded (global properties CUDALAB_LABS, CUDALAB_LAB_<NN>_*).
function(cudalab_add_wrong_variants wrong_root)
  cmake_parse_arguments(ARG "" "MODE" "" ${ARGN})
  if(NOT ARG_MODE)
    set(ARG_MODE wrong)
  endif()
  if(ARG_MODE STREQUAL "right")
    set(spec_name RIGHT.md)
  else()
    set(spec_name WRONG.md)
  endif()
  set(mode ${ARG_MODE})
  set(driver "${PROJECT_SOURCE_DIR}/tests/wrong/expect_rejection.cmake")
  if(NOT IS_DIRECTORY "${PROJECT_SOURCE_DIR}/solutions")
    message(FATAL_ERROR "CUDALAB_WRONG=ON needs solutions/ (the variants take their other "
                        "files from it); this tree has none. Configure with -DCUDALAB_WRONG=OFF.")
  endif()
  get_property(labs GLOBAL PROPERTY CUDALAB_LABS)

  # A folder under tests/wrong/ of no built lab is left out (tools/skeleton_check.py
  # reports it as an error).
  file(GLOB wrong_lab_dirs LIST_DIRECTORIES true RELATIVE "${wrong_root}" "${wrong_root}/lab*")
  foreach(d IN LISTS wrong_lab_dirs)
    if(IS_DIRECTORY "${wrong_root}/${d}" AND NOT d IN_LIST labs)
      message(WARNING "tests/${mode}/${d}/ matches no lab (labs: ${labs}); left out")
    endif()
  endforeach()

  set(total 0)
  foreach(lab_dir IN LISTS labs)
    string(SUBSTRING "${lab_dir}" 3 2 nn)
    set(lab_wrong "${wrong_root}/${lab_dir}")
    if(NOT IS_DIRECTORY "${lab_wrong}")
      message(STATUS "cudalabs: lab${nn} has no known-wrong submissions (tests/wrong/${lab_dir}/)")
      continue()
    endif()
    get_property(sources GLOBAL PROPERTY CUDALAB_LAB_${nn}_SOURCES)
    get_property(given GLOBAL PROPERTY CUDALAB_LAB_${nn}_GIVEN)
    get_property(libraries GLOBAL PROPERTY CUDALAB_LAB_${nn}_LIBRARIES)
    get_property(test_sources GLOBAL PROPERTY CUDALAB_LAB_${nn}_TEST_SOURCES)
    set(stub_dir "${PROJECT_SOURCE_DIR}/labs/${lab_dir}")
    set(sol_dir "${PROJECT_SOURCE_DIR}/solutions/${lab_dir}")

    file(GLOB variants LIST_DIRECTORIES true RELATIVE "${lab_wrong}" "${lab_wrong}/*")
    list(SORT variants)
    set(count 0)
    foreach(variant IN LISTS variants)
      set(vdir "${lab_wrong}/${variant}")
      if(NOT IS_DIRECTORY "${vdir}")
        continue()
      endif()
      if(NOT variant MATCHES "^[A-Za-z0-9_]+$")
        message(FATAL_ERROR "tests/${mode}/${lab_dir}/${variant}: variant names use letters, digits and _ only")
      endif()
      cudalab_wrong_read_spec("${vdir}" spec ${spec_name})

      # Replacement files: each must be a SOURCES file of the lab.
      file(GLOB replaced RELATIVE "${vdir}" "${vdir}/*")
      list(REMOVE_ITEM replaced ${spec_name})
      if(NOT replaced)
        message(FATAL_ERROR "tests/${mode}/${lab_dir}/${variant}/ replaces no file (put broken copies of SOURCES files there)")
      endif()
      foreach(f IN LISTS replaced)
        if(NOT f IN_LIST sources)
          message(FATAL_ERROR "tests/${mode}/${lab_dir}/${variant}/${f} is not one of lab${nn}'s SOURCES (${sources})")
        endif()
      endforeach()
      set(impl_sources "")
      foreach(f IN LISTS sources)
        if(f IN_LIST replaced)
          list(APPEND impl_sources "${vdir}/${f}")
        elseif(EXISTS "${sol_dir}/${f}")
          list(APPEND impl_sources "${sol_dir}/${f}")
        else()
          message(FATAL_ERROR "tests/${mode}/${lab_dir}/${variant}: needs solutions/${lab_dir}/${f}, which is missing")
        endif()
      endforeach()
      foreach(f IN LISTS given)
        list(APPEND impl_sources "${stub_dir}/${f}")
      endforeach()

      set(lib lab${nn}_${mode}_${variant}_impl)
      set(exe lab${nn}_${mode}_${variant})
      cudalab_add_lab_library(${lib} "${stub_dir}" SOURCES ${impl_sources} LIBRARIES ${libraries})
      # The grader's own sources compile once per lab (they see only the lab's header) and
      # every variant links those objects with its library.
      set(grader_objs lab${nn}_variant_grader_objs)
      if(NOT TARGET ${grader_objs})
        add_library(${grader_objs} OBJECT ${test_sources})
        # Usage requirements only (the header's folder, common, the lab's LIBRARIES): the
        # objects are linked into each variant's grader, never this library.
        target_link_libraries(${grader_objs} PRIVATE lab${nn}_impl cudalab::testing
                              cudalab::options)
      endif()
      cudalab_add_grader_executable(${exe} ${lib} $<TARGET_OBJECTS:${grader_objs}>)

      # Which tests the grader runs, the labels and the scheduling.
      if(spec_FILTER STREQUAL "")
        set(filter "*")
      else()
        set(filter "${spec_FILTER}")
      endif()
      if(mode STREQUAL "right" AND NOT spec_SLOW STREQUAL "")
        if(filter MATCHES "-")
          string(APPEND filter ":*Perf.*")
        else()
          string(APPEND filter "-*Perf.*")
        endif()
      endif()
      cudalab_wrong_filter_kind("${filter}" kind)
      # Given suites (code the student does not write) never count as a rejection.
      if(filter MATCHES "-")
        string(APPEND filter ":Given*")
      else()
        string(APPEND filter "-Given*")
      endif()
      string(REPLACE ";" "," what "${spec_WHAT}")
      if(kind STREQUAL "cpu")
        set(labels ${mode} lab${nn} cpu)
        set(timeout 120)
        set(props "")
      elseif(kind STREQUAL "gpu")
        set(labels ${mode} lab${nn} gpu)
        set(timeout 300)
        set(props RESOURCE_GROUPS "gpus:1")
      else()
        set(labels ${mode} lab${nn} gpu)
        set(timeout 900)
        _cudalab_resource(props TRUE TRUE "${CUDALAB_ALONE_SLOTS}")
      endif()
      if(spec_TIMEOUT)
        set(timeout ${spec_TIMEOUT})
      endif()
      math(EXPR grader_timeout "${timeout} - 5")
      set(name ${mode}.lab${nn}.${variant})
      add_test(NAME ${name}
        COMMAND ${CMAKE_COMMAND}
                "-DMODE=${mode}"
                "-DLAB_LIB=$<TARGET_FILE:${lib}>"
                "-DREF_LIB=$<TARGET_FILE:cudalab_reference>"
                "-DNM=${CMAKE_NM}"
                "-DISOLATION_SCRIPT=${CUDALAB_ISOLATION_SCRIPT}"
                "-DGRADER=$<TARGET_FILE:${exe}>"
                "-DFILTER=${filter}"
                "-DWHAT=${what}"
                "-DVARIANT=${lab_dir}/${variant}"
                "-DTIMEOUT=${grader_timeout}"
                -P "${driver}")
      set_tests_properties(${name} PROPERTIES
        LABELS "${labels}"
        TIMEOUT ${timeout}
        SKIP_REGULAR_EXPRESSION "CUDALAB-WRONG: SKIPPED"
        ${props})
      math(EXPR count "${count} + 1")
    endforeach()
    if(mode STREQUAL "wrong" AND count LESS 6)
      message(STATUS "cudalabs: lab${nn} has ${count} known-wrong submission(s); the convention is at least 6")
    elseif(mode STREQUAL "right" AND count LESS 2)
      message(STATUS "cudalabs: lab${nn} has ${count} correct alternative(s); the convention is at least 2")
    endif()
    math(EXPR total "${total} + ${count}")
  endforeach()
  message(STATUS "cudalabs: ${total} ${mode} submissions (ctest -L ${mode})")
endfunction()
