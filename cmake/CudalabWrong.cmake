# SPDX-License-Identifier: BSD-3-Clause
# Known-wrong submissions (instructor mode, -DCUDALAB_WRONG=ON): each grader must reject
# every deliberately broken implementation kept beside its grader.
#
#   tests/labNN_topic/wrong/<variant>.patch
#     a unified diff against solutions/labNN_topic/ (a/solutions/labNN_topic/<file> ->
#     b/solutions/labNN_topic/<file>, as `git diff --no-index` writes it) of SOURCES files
#     of the lab, after a header (the text before the first line starting with "diff " or
#     "--- ", which git apply skips):
#       line 1          what is broken (one sentence, shown in the test output)
#       filter: <gtest filter>   optional: the grader tests to run (default: every graded test)
#       timeout: <seconds>       optional
#       judged: yes              attacks only: the judge must hold even where the build's
#                                library checks already reject the attack
#       anything else   free text (how the grader catches it; tools/skeleton_check.py reads
#                       "cheat: <reason>")
#
# At configure time each patch is applied (git apply) to copies of the solution files it
# names, in ${CMAKE_BINARY_DIR}/variants/<wrong|right>/labNN_topic/<variant>/; a file is
# rewritten only when its patched text changed, and a change of the patch or of those
# solution files re-runs the configure. The variant's library takes the patched files from
# there, the other SOURCES from solutions/labNN_topic/, GIVEN files from labs/labNN_topic/.
# A patch that does not apply fails the configure, naming it
# (python3 -m tools.variant_patches refresh re-derives one whose hunks only moved).
#
# For every variant, cudalab_add_wrong_variants() creates
#   labNN_wrong_<variant>_impl  the lab's library built from the variant
#   labNN_wrong_<variant>       the lab's grader linked against it
#   wrong.labNN.<variant>       a CTest test (labels wrong;labNN;cpu or wrong;labNN;gpu)
#                               that runs the grader through cmake/CudalabExpectVerdict.cmake:
#                               it passes when the grader fails at least one test, is
#                               Skipped when nothing failed but tests were skipped (no GPU),
#                               and fails when the grader accepts the variant.
# A variant is labelled cpu when every positive pattern of its filter names a ...Cpu suite
# (it can be judged without a GPU); otherwise gpu (RESOURCE_GROUPS gpus:1; without
# CUDALAB_GPU_LOCKS also RUN_SERIAL — or every slot of one GPU with CUDALAB_PERF_PER_GPU —
# unless every pattern names a ...Gpu suite, since perf and tool tests never share a GPU).
#
# Correct alternatives (tests/labNN_topic/right/<variant>.patch, the header's line 1 says
# what the alternative is) are wired the same way by cudalab_add_wrong_variants(MODE
# right) as right.labNN.<variant>: they must be ACCEPTED (every selected graded test passes).
# A header line "slow: <reason>" marks an approach the handout says is too slow: its speed
# tests (...Perf suites) are then left out, and only correctness decides.
#
# Both kinds first check the variant's library for calls of the grader-only reference code
# (cmake/CudalabIsolation.cmake): a known-wrong variant that does is rejected by that alone.
include_guard(GLOBAL)
include(CudalabIsolation)
include(CudalabGrading)  # cudalab_suite_rule() and the CUDALAB_RULE_* table

# cudalab_wrong_read_spec(<patch> <lab_dir> <out prefix> [<base>]) — reads a variant patch into
# <prefix>_WHAT (line 1 of the header), <prefix>_FILTER, <prefix>_TIMEOUT, <prefix>_SLOW and
# <prefix>_FILES (the names of the files it patches, under solutions/<lab_dir>/).
function(cudalab_wrong_read_spec patch lab_dir prefix)
  file(READ "${patch}" text)
  # The header ends where the diff starts: the first line starting with "diff " or "--- ".
  string(PREPEND text "\n")
  set(end -1)
  foreach(opening IN ITEMS "\ndiff " "\n--- ")
    string(FIND "${text}" "${opening}" at)
    if(at GREATER -1 AND (end EQUAL -1 OR at LESS end))
      set(end ${at})
    endif()
  endforeach()
  if(end EQUAL -1)
    message(FATAL_ERROR "${patch}: no diff (no line starting with 'diff ' or '--- '); a "
                        "variant is a header and a unified diff against solutions/${lab_dir}/")
  endif()
  string(SUBSTRING "${text}" 1 ${end} header)
  string(SUBSTRING "${text}" ${end} -1 diff)

  # Header lines, one at a time (no CMake list: a line may hold ';' or '[').
  set(what "")
  set(filter "")
  set(timeout "")
  set(slow "")
  set(judged OFF)
  set(first TRUE)
  while(NOT header STREQUAL "")
    string(FIND "${header}" "\n" nl)
    if(nl EQUAL -1)
      set(line "${header}")
      set(header "")
    else()
      string(SUBSTRING "${header}" 0 ${nl} line)
      math(EXPR nl "${nl} + 1")
      string(SUBSTRING "${header}" ${nl} -1 header)
    endif()
    if(first)
      set(first FALSE)
      string(STRIP "${line}" what)
      string(REGEX REPLACE "^#+[ ]*" "" what "${what}")
    elseif(line MATCHES "^[ ]*slow:[ ]*(.+)$")
      set(slow "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[ ]*filter:[ ]*([^ ]+)[ ]*$")
      set(filter "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[ ]*timeout:[ ]*([0-9]+)[ ]*$")
      set(timeout "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[ ]*judged:[ ]*yes[ ]*$")
      set(judged ON)
    elseif(line MATCHES "^[ ]*(filter|timeout):")
      message(FATAL_ERROR "${patch}: cannot read '${line}' (filter: <gtest filter without spaces>, timeout: <seconds>)")
    endif()
  endwhile()
  if(what STREQUAL "")
    message(FATAL_ERROR "${patch}: the first line of the header must say what the variant is")
  endif()

  # The patched files: b/<base>/<lab_dir>/<file> of every "+++ " line (base: solutions, or labs
  # for an attack on the stub).
  set(base solutions)
  if(ARGC GREATER 3)
    set(base "${ARGV3}")
  endif()
  string(REGEX MATCHALL "\n[+][+][+] [^\n]*" targets "${diff}")
  set(files "")
  foreach(t IN LISTS targets)
    if(NOT t MATCHES "^\n[+][+][+] b/${base}/${lab_dir}/([^/\t ]+)[\t ]*$")
      string(STRIP "${t}" t)
      message(FATAL_ERROR "${patch}: '${t}' — a variant patches files of ${base}/${lab_dir}/ "
                          "(a/${base}/${lab_dir}/<file> -> b/${base}/${lab_dir}/<file>)")
    endif()
    list(APPEND files "${CMAKE_MATCH_1}")
  endforeach()
  list(REMOVE_DUPLICATES files)
  if(NOT files)
    message(FATAL_ERROR "${patch}: the diff patches no file")
  endif()
  set(${prefix}_WHAT "${what}" PARENT_SCOPE)
  set(${prefix}_FILTER "${filter}" PARENT_SCOPE)
  set(${prefix}_TIMEOUT "${timeout}" PARENT_SCOPE)
  set(${prefix}_SLOW "${slow}" PARENT_SCOPE)
  set(${prefix}_JUDGED "${judged}" PARENT_SCOPE)
  set(${prefix}_FILES "${files}" PARENT_SCOPE)
endfunction()

# cudalab_wrong_apply(<patch> <files> <solution dir> <out dir>) — the solution's <files>
# patched into <out dir>: applied in a scratch folder beside it, then copied over only where
# the text changed (the variant's objects rebuild only when its code does). Fails the
# configure, naming the patch and quoting git, when it does not apply.
function(cudalab_wrong_apply patch files sol_dir out_dir)
  set(scratch "${out_dir}.apply")
  file(REMOVE_RECURSE "${scratch}")
  file(MAKE_DIRECTORY "${scratch}")
  foreach(f IN LISTS files)
    file(COPY_FILE "${sol_dir}/${f}" "${scratch}/${f}")
  endforeach()
  # git applies the paths relative to the working directory only outside a repository: the
  # ceiling keeps it from finding the checkout that may hold the build tree.
  cmake_path(GET scratch PARENT_PATH ceiling)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "GIT_CEILING_DIRECTORIES=${ceiling}"
            "${GIT_EXECUTABLE}" apply -p3 "${patch}"
    WORKING_DIRECTORY "${scratch}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${patch}")
    file(RELATIVE_PATH sol_rel "${PROJECT_SOURCE_DIR}" "${sol_dir}")
    string(STRIP "${out}" out)
    message(FATAL_ERROR "${rel} does not apply to ${sol_rel}/ (git apply says:\n${out}\n)\n"
      "The solution changed under the patch's context: re-derive the variant from the "
      "current solution (docs/adding-a-lab.md, \"Known-wrong submissions\").")
  endif()
  file(MAKE_DIRECTORY "${out_dir}")
  file(GLOB stale RELATIVE "${out_dir}" "${out_dir}/*")
  foreach(f IN LISTS files)
    file(COPY_FILE "${scratch}/${f}" "${out_dir}/${f}" ONLY_IF_DIFFERENT)
    list(REMOVE_ITEM stale "${f}")
  endforeach()
  foreach(f IN LISTS stale)
    file(REMOVE "${out_dir}/${f}")
  endforeach()
  file(REMOVE_RECURSE "${scratch}")
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

# Attacks (tests/labNN_topic/attack/<variant>.patch: diffs against labs/labNN_topic/, the stub)
# are wired by cudalab_add_wrong_variants(MODE attack) as attack.labNN.<variant>: hostile host
# code added to the untouched stub, which must earn the stub's points (no graded test passes).
#
# cudalab_add_wrong_variants([MODE wrong|right|attack]) — wires every variant (tests/labNN_topic/<mode>/)
# of every lab that cudalab_add_lab() recorded (global properties CUDALAB_LABS,
# CUDALAB_LAB_<NN>_*).
function(cudalab_add_wrong_variants)
  cmake_parse_arguments(ARG "" "MODE" "" ${ARGN})
  if(NOT ARG_MODE)
    set(ARG_MODE wrong)
  endif()
  set(mode ${ARG_MODE})
  set(driver "${PROJECT_SOURCE_DIR}/cmake/CudalabExpectVerdict.cmake")
  if(NOT IS_DIRECTORY "${PROJECT_SOURCE_DIR}/solutions")
    message(FATAL_ERROR "CUDALAB_WRONG=ON needs solutions/ (the variants are patches of "
                        "it); this tree has none. Configure with -DCUDALAB_WRONG=OFF.")
  endif()
  find_package(Git QUIET)
  if(NOT GIT_FOUND)
    message(FATAL_ERROR "CUDALAB_WRONG=ON needs git: it applies the variant patches of "
                        "tests/<labNN_topic>/${mode}/ (git apply). Install git or configure with -DCUDALAB_WRONG=OFF.")
  endif()
  get_property(labs GLOBAL PROPERTY CUDALAB_LABS)

  set(total 0)
  foreach(lab_dir IN LISTS labs)
    string(SUBSTRING "${lab_dir}" 3 2 nn)
    set(lab_wrong "${PROJECT_SOURCE_DIR}/tests/${lab_dir}/${mode}")
    if(NOT IS_DIRECTORY "${lab_wrong}")
      message(STATUS "cudalabs: lab${nn} has no ${mode} submissions (tests/${lab_dir}/${mode}/)")
      continue()
    endif()
    get_property(sources GLOBAL PROPERTY CUDALAB_LAB_${nn}_SOURCES)
    get_property(given GLOBAL PROPERTY CUDALAB_LAB_${nn}_GIVEN)
    get_property(libraries GLOBAL PROPERTY CUDALAB_LAB_${nn}_LIBRARIES)
    get_property(sm90a GLOBAL PROPERTY CUDALAB_LAB_${nn}_SM90A)
    get_property(test_sources GLOBAL PROPERTY CUDALAB_LAB_${nn}_TEST_SOURCES)
    set(stub_dir "${PROJECT_SOURCE_DIR}/labs/${lab_dir}")
    set(sol_dir "${PROJECT_SOURCE_DIR}/solutions/${lab_dir}")
    set(base solutions)
    if(mode STREQUAL "attack")  # hostile copies of the stub: patches of labs/
      set(sol_dir "${stub_dir}")
      set(base labs)
    endif()

    file(GLOB entries LIST_DIRECTORIES true RELATIVE "${lab_wrong}" "${lab_wrong}/*")
    set(variants "")
    foreach(e IN LISTS entries)
      if(e MATCHES "^(.+)[.]patch$" AND NOT IS_DIRECTORY "${lab_wrong}/${e}")
        list(APPEND variants "${CMAKE_MATCH_1}")
      else()
        message(WARNING "tests/${lab_dir}/${mode}/${e} is not a variant (a variant is "
                        "<name>.patch, a diff against solutions/${lab_dir}/); left out")
      endif()
    endforeach()
    list(SORT variants)
    set(count 0)
    foreach(variant IN LISTS variants)
      set(patch "${lab_wrong}/${variant}.patch")
      if(NOT variant MATCHES "^[A-Za-z0-9_]+$")
        message(FATAL_ERROR "tests/${lab_dir}/${mode}/${variant}.patch: variant names use letters, digits and _ only")
      endif()
      cudalab_wrong_read_spec("${patch}" ${lab_dir} spec ${base})

      # Patched files: each must be a SOURCES file of the lab.
      foreach(f IN LISTS spec_FILES)
        if(NOT f IN_LIST sources)
          message(FATAL_ERROR "tests/${lab_dir}/${mode}/${variant}.patch patches ${f}, which is "
                              "not one of lab${nn}'s SOURCES (${sources})")
        endif()
        if(NOT EXISTS "${sol_dir}/${f}")
          message(FATAL_ERROR "tests/${lab_dir}/${mode}/${variant}.patch: needs solutions/${lab_dir}/${f}, which is missing")
        endif()
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${sol_dir}/${f}")
      endforeach()
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${patch}")
      set(vdir "${CMAKE_BINARY_DIR}/variants/${mode}/${lab_dir}/${variant}")
      cudalab_wrong_apply("${patch}" "${spec_FILES}" "${sol_dir}" "${vdir}")
      set(impl_sources "")
      foreach(f IN LISTS sources)
        if(f IN_LIST spec_FILES)
          list(APPEND impl_sources "${vdir}/${f}")
        elseif(EXISTS "${sol_dir}/${f}")
          list(APPEND impl_sources "${sol_dir}/${f}")
        else()
          message(FATAL_ERROR "tests/${lab_dir}/${mode}/${variant}: needs solutions/${lab_dir}/${f}, which is missing")
        endif()
      endforeach()
      foreach(f IN LISTS given)
        list(APPEND impl_sources "${stub_dir}/${f}")
      endforeach()

      set(lib lab${nn}_${mode}_${variant}_impl)
      set(exe lab${nn}_${mode}_${variant})
      set(isolation_report "${CMAKE_CURRENT_BINARY_DIR}/${lib}.isolation.txt")
      cudalab_remote_source(remote "${lab_dir}")
      cudalab_add_lab_library(${lib} "${stub_dir}" SOURCES ${impl_sources} LIBRARIES ${libraries}
                              SM90A ${sm90a} REPORT "${isolation_report}" REMOTE "${remote}")
      list(TRANSFORM given PREPEND "${stub_dir}/" OUTPUT_VARIABLE given_paths)
      set_property(TARGET ${lib} PROPERTY CUDALAB_GIVEN_SOURCES ${given_paths})
      # The grader's own sources compile once per lab (they see only the lab's header) and
      # every variant links those objects with its library.
      set(grader_objs lab${nn}_variant_grader_objs)
      if(NOT TARGET ${grader_objs})
        add_library(${grader_objs} OBJECT ${test_sources})
        # Usage requirements only (the header's folder, common, the lab's LIBRARIES): the
        # objects are linked into each variant's grader, never this library.
        target_link_libraries(${grader_objs} PRIVATE lab${nn}_impl cudalab::testing
                              cudalab::options)
        target_include_directories(${grader_objs} PRIVATE "${PROJECT_SOURCE_DIR}/tests")  # the kit
      endif()
      cudalab_add_grader_executable(${exe} ${lib} $<TARGET_OBJECTS:${grader_objs}>)
      add_dependencies(${exe} cudalab_verdict)  # the test runs it under the judge
      # A variant may define a symbol that the grader's own libraries define too; the driver's
      # isolation check rejects it for that before the grader would run. Where a toolchain links
      # those libraries statically (libstdc++.a), the duplicate would fail the link and with it
      # the whole build: the variant's definition is linked instead, and the grader never runs.
      target_link_options(${exe} PRIVATE "LINKER:--allow-multiple-definition")

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
                "-DISOLATION_REPORT=${isolation_report}"
                "-DJUDGE=$<TARGET_FILE:cudalab_verdict>"
                "-DPREFIX=lab${nn}."
                "-DGRADER=$<TARGET_FILE:${exe}>"
                "-DFILTER=${filter}"
                "-DWHAT=${what}"
                "-DVARIANT=${lab_dir}/${variant}"
                "-DTIMEOUT=${grader_timeout}"
                "-DFAIL_FAST=${CUDALAB_WRONG_FAIL_FAST}"
                "-DJUDGED=${spec_JUDGED}"
                -P "${driver}")
      set_tests_properties(${name} PROPERTIES
        LABELS "${labels}"
        TIMEOUT ${timeout}
        SKIP_REGULAR_EXPRESSION "CUDALAB-WRONG: SKIPPED"
        ${props})
      if(CUDALAB_GPU_LOCK_ENVIRONMENT)
        set_tests_properties(${name} PROPERTIES ENVIRONMENT "${CUDALAB_GPU_LOCK_ENVIRONMENT}")
      endif()
      math(EXPR count "${count} + 1")
    endforeach()
    if(mode STREQUAL "attack")
    elseif(mode STREQUAL "wrong" AND count LESS 6)
      message(STATUS "cudalabs: lab${nn} has ${count} known-wrong submission(s); the convention is at least 6")
    elseif(mode STREQUAL "right" AND count LESS 2)
      message(STATUS "cudalabs: lab${nn} has ${count} correct alternative(s); the convention is at least 2")
    endif()
    math(EXPR total "${total} + ${count}")
  endforeach()
  message(STATUS "cudalabs: ${total} ${mode} submissions (ctest -L ${mode})")
endfunction()
