# SPDX-License-Identifier: BSD-3-Clause
# Reference isolation: a lab's library may not call the grader-only reference library
# (cudalab_reference: bank-model answers, bit packers, host matmuls), because a grade must be
# for the student's own code. Checked on the built objects, so it holds whatever a source file
# declares or includes: any symbol the lab library needs that the reference library defines is
# an error naming the symbols.
# Nor may it replace what the grader it is linked into relies on: a strong definition of a
# symbol of the C++ standard library (std::, operator new/delete), of the C library's
# environment, clock, random, memory and process functions, of the CUDA runtime or driver, of
# GoogleTest or of the grading library (cudalab::, the graders' namespaces) is an error too. A
# lab file defining, say, std::random_device::_M_getval() would otherwise take the place of
# libstdc++'s in the whole grader and make its random input changes and checked rows known.
# Nor may it look outside its arguments: a reference to the environment (getenv, environ), the
# command line (program_invocation_name), files (fopen, open, file streams, std::filesystem),
# clocks (clock_gettime, std::chrono, CUDA event timing), the dynamic loader (dlopen, dlsym) or
# raw system calls is an error as well. The graders time a kernel in one process and profile or
# sanitize it in another; code that could tell which (CUDALAB_UNDER_TOOL, the profiler's
# injection variables, the test filter in /proc/self/cmdline, the slow launches of a replaying
# profiler) could show each check a different kernel. Nor may it create texture or surface
# objects: their reads go around the global-load counters some profiler tests judge by.
#
# Since the judge (cudalab/verdict.hpp) these checks are defence in depth: no verdict is taken
# from a process's exit status or printed lines. They are an allowlist, checked on the built
# objects of every lab library (the lab's own, and each variant's):
#   defines   only symbols of its own namespace (labNN::, and the given shared namespaces),
#             internal ones, and the compiler's instantiations of inline standard-library code;
#             no main, no common symbol, no weak or strong definition of anything else (the C
#             library, CUDA, GoogleTest, the grading library or its references, the standard
#             library's own functions such as std::random_device::_M_getval: whatever the
#             grader's libraries or the system's C and C++ libraries define, in any binding);
#   references  only the CUDA runtime's memory, stream, event, launch, attribute, occupancy,
#             device-query and error calls, the registration stubs nvcc emits, the math
#             library, operator new/delete, memcpy/memmove/memset/strlen, string formatting
#             into a buffer, the C++ exception and static-initialisation runtime, the parts of
#             the standard library a launcher uses (strings, containers, exceptions) and the
#             cudalab:: helpers the lab headers offer (not cudalab::verdict or
#             cudalab::testing, not the demo runner);
#   contains  no system-call instruction (syscall, sysenter, int $0x80) in any host code.
# A rejection names the symbol or instruction and the rule.
#
# As a function (configure time):
#   cudalab_lab_library_checks(<lab library target> [REPORT <file>])
#     adds the checks as a POST_BUILD step of the library: its build fails
#     with the message, or with REPORT (a known-wrong variant, whose driver reads the file)
#     writes "CUDALAB-ISOLATION: ..." there and goes on.
# As a script:
#   cmake -DLAB_LIB=<lib file> -DREF_LIB=<lib file> -DNM=<nm> -DOBJDUMP=<objdump>
#         -DNAMESPACE=labNN [-DGRADER_LIBS=<a|b>] [-DSYSTEM_LIBS=<a|b>] [-DREPORT=<file>]
#         [-DREPORT_ONLY=ON] -P CudalabIsolation.cmake
#   REPORT_ONLY prints "CUDALAB-ISOLATION: VIOLATION ..." and exits 0.
if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.25)
  foreach(v LAB_LIB REF_LIB NM NAMESPACE)
    if(NOT DEFINED ${v})
      message(FATAL_ERROR "CudalabIsolation.cmake: -D${v}= is required")
    endif()
  endforeach()
  get_filename_component(lib_name "${LAB_LIB}" NAME)
  set(violations "")
  # Records one violation: "<library> <what>: <demangled symbols>. <why>".
  function(_cudalab_violation symbols what why)
    if(NOT symbols)
      return()
    endif()
    find_program(CXXFILT c++filt)
    set(names "")
    foreach(sym IN LISTS symbols)
      set(name "${sym}")
      if(CXXFILT)
        execute_process(COMMAND "${CXXFILT}" "${sym}" OUTPUT_VARIABLE name
                        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      endif()
      list(APPEND names "${name}")
    endforeach()
    list(JOIN names ", " names)
    set(v "${violations}")
    list(APPEND v "${lib_name} ${what}: ${names}. ${why}")
    set(violations "${v}" PARENT_SCOPE)
  endfunction()
  # _cudalab_select(<out> <symbols> MATCHING|NOT_MATCHING <patterns...>): the entries of
  # <symbols> that match one of the patterns, or none of them.
  function(_cudalab_select out symbols mode)
    set(found "")
    foreach(sym IN LISTS symbols)
      set(hit FALSE)
      foreach(pattern IN LISTS ARGN)
        if(sym MATCHES "${pattern}")
          set(hit TRUE)
          break()
        endif()
      endforeach()
      if((hit AND mode STREQUAL "MATCHING") OR (NOT hit AND mode STREQUAL "NOT_MATCHING"))
        list(APPEND found "${sym}")
      endif()
    endforeach()
    list(REMOVE_DUPLICATES found)
    set(${out} "${found}" PARENT_SCOPE)
  endfunction()

  execute_process(COMMAND "${NM}" -g --defined-only --format=posix "${REF_LIB}"
                  OUTPUT_VARIABLE ref_out RESULT_VARIABLE rc1 ERROR_QUIET)
  execute_process(COMMAND "${NM}" -g --format=posix "${LAB_LIB}"
                  OUTPUT_VARIABLE lab_out RESULT_VARIABLE rc2 ERROR_QUIET)
  if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
    message(FATAL_ERROR "lab library checks: '${NM}' could not read ${REF_LIB} or ${LAB_LIB}")
  endif()
  # posix format: "<symbol> <type> [value size]"; archive member headers end with ':'.
  string(REGEX MATCHALL "(^|\n)[^ \n:]+ [A-Za-z]" ref_lines "${ref_out}")
  set(reference_defined "")
  foreach(l IN LISTS ref_lines)
    string(STRIP "${l}" l)
    string(REGEX REPLACE " [A-Za-z]$" "" sym "${l}")
    list(APPEND reference_defined "${sym}")
  endforeach()
  # What the grader's own libraries define (GRADER_LIBS, strong definitions: their inline copies
  # of header code are every object's) and what the system's export (SYSTEM_LIBS: the C and C++
  # runtime libraries, dynamic symbols): a lab library may define none of it.
  # (Kept as newline-framed text: string(FIND) over it is fast where IN_LIST over thousands of
  # list entries is not.)
  set(grader_defined "\n")
  string(REPLACE "|" ";" grader_libs "${GRADER_LIBS}")
  foreach(g IN LISTS grader_libs)
    execute_process(COMMAND "${NM}" -g --defined-only --format=posix "${g}"
                    OUTPUT_VARIABLE g_out ERROR_QUIET)
    string(REGEX MATCHALL "(^|\n)[^ \n:]+ [TDBRi]" g_lines "${g_out}")
    foreach(l IN LISTS g_lines)
      string(STRIP "${l}" l)
      string(REGEX REPLACE " [A-Za-z]$" "" sym "${l}")
      string(APPEND grader_defined "${sym}\n")
    endforeach()
  endforeach()
  set(system_defined "\n")
  string(REPLACE "|" ";" system_libs "${SYSTEM_LIBS}")
  foreach(g IN LISTS system_libs)
    execute_process(COMMAND "${NM}" -D --defined-only --format=posix "${g}"
                    OUTPUT_VARIABLE g_out ERROR_QUIET)
    string(REGEX REPLACE "(@[^ \n]*)? [A-Za-z]( [^\n]*)?\n" "\n" g_names "${g_out}")
    string(APPEND system_defined "${g_names}\n")
  endforeach()
  string(REGEX MATCHALL "(^|\n)[^ \n:]+ [A-Za-z]" lab_lines "${lab_out}")
  set(undefined "")
  set(defined_strong "")
  set(defined_weak "")
  foreach(l IN LISTS lab_lines)
    string(STRIP "${l}" l)
    string(REGEX MATCH "[A-Za-z]$" type "${l}")
    string(REGEX REPLACE " [A-Za-z]$" "" sym "${l}")
    if(type STREQUAL "U" OR type STREQUAL "w" OR type STREQUAL "v")
      list(APPEND undefined "${sym}")
    elseif(type MATCHES "^[WVu]$")
      list(APPEND defined_weak "${sym}")
    else()  # T D B R C G S i: strong, common or indirect
      list(APPEND defined_strong "${sym}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES undefined)
  list(REMOVE_DUPLICATES defined_strong)
  list(REMOVE_DUPLICATES defined_weak)

  # --- What it may define ---------------------------------------------------------------
  # Its own namespace: functions, variables, local statics and their guards, vtables,
  # typeinfo, thunks.
  string(LENGTH "${NAMESPACE}" ns_len)
  set(own "^_Z(TV|TI|TS|GV|Th[n]?[0-9]+_|Tv[n]?[0-9]+_[n]?[0-9]+_)?Z?NK?${ns_len}${NAMESPACE}"
          # nvcc's host stubs of the namespace's kernels
          "^_Z[0-9]+__device_stub__Z?NK?${ns_len}${NAMESPACE}")
  # The compiler's copies of inline standard-library and cudalab:: header code (weak, one per
  # object; the linker keeps one): allowed unless the grader's or the system's libraries define
  # the symbol themselves (checked first).
  set(std_inline "^_Z(GV)?Z?N?K?(St|9__gnu_cxx|7cudalab)" "^_ZSt" "^DW\\.ref\\.__gxx_personality_v0$")
  set(mains "")
  foreach(sym IN LISTS defined_strong defined_weak)
    if(sym MATCHES "^(main|_main|__libc_start_main|_start)$")
      list(APPEND mains "${sym}")
    endif()
  endforeach()
  _cudalab_violation("${mains}" "defines a program entry point"
    "The graders' main() is the course's: a lab file may not define main or an entry point.")
  set(replaced "")
  foreach(sym IN LISTS defined_strong defined_weak)
    string(FIND "${grader_defined}" "\n${sym}\n" in_grader)
    string(FIND "${system_defined}" "\n${sym}\n" in_system)
    if(in_grader GREATER -1 OR in_system GREATER -1 OR sym MATCHES "^_ZNK?7testing")
      list(APPEND replaced "${sym}")
    endif()
  endforeach()
  _cudalab_violation("${replaced}" "defines what the grader's or the system's libraries define"
    "Your code is linked into the grader, so it may not replace the standard, C, CUDA, GoogleTest or grading libraries (a weak or inline definition too): give your functions names of your own, in your lab's namespace.")
  _cudalab_select(strong_foreign "${defined_strong}" NOT_MATCHING ${own})
  list(REMOVE_ITEM strong_foreign ${mains} ${replaced})
  _cudalab_violation("${strong_foreign}" "defines symbols outside namespace ${NAMESPACE}"
    "A lab library may define only its own namespace's symbols (and internal ones): give your functions and variables names in namespace ${NAMESPACE}, or make helpers static or put them in an anonymous namespace.")
  _cudalab_select(weak_foreign "${defined_weak}" NOT_MATCHING ${own} ${std_inline})
  list(REMOVE_ITEM weak_foreign ${mains} ${replaced})
  _cudalab_violation("${weak_foreign}" "has weak definitions outside namespace ${NAMESPACE}"
    "A weak definition could take the place of the grader's own (its references, GoogleTest, the C or CUDA libraries): a lab library may not define one outside its namespace.")

  # --- What it may reference ------------------------------------------------------------
  set(allowed_refs
      # its own namespace across its files, and the given shared tile helpers
      ${own} "^_ZNK?10smem_tiles"
      # the cudalab:: helpers of the lab headers; not the judge's channel, the test kit or the
      # demo runner (checked below)
      "^_ZNK?7cudalab"
      # CUDA runtime: memory, streams, events (no timing), launches, attributes, occupancy,
      # device queries, errors; and what nvcc's generated code calls
      "^cuda(Malloc|MallocAsync|MallocPitch|Malloc3D|Free|FreeAsync|Memcpy|MemcpyAsync)$"
      "^cuda(MallocHost|HostAlloc|FreeHost|HostGetDevicePointer)$"
      "^cuda(Memcpy2D|Memcpy2DAsync|Memset|MemsetAsync|Memset2D|Memset2DAsync|MemGetInfo)$"
      "^cuda(StreamCreate|StreamCreateWithFlags|StreamDestroy|StreamSynchronize|StreamQuery)$"
      "^cuda(StreamWaitEvent|StreamGetCaptureInfo|StreamIsCapturing|EventCreate)$"
      "^cuda(EventCreateWithFlags|EventDestroy|EventRecord|EventRecordWithFlags)$"
      "^cuda(LaunchKernel|LaunchKernelExC|LaunchCooperativeKernel|FuncGetAttributes)$"
      "^cuda(FuncSetAttribute|FuncSetCacheConfig|FuncSetSharedMemConfig|FuncGetName)$"
      "^cudaOccupancy[A-Za-z]+$"
      "^cuda(GetDevice|GetDeviceCount|GetDeviceProperties|GetDeviceProperties_v2)$"
      "^cuda(DeviceGetAttribute|DeviceSynchronize|DeviceGetLimit|DeviceGetCacheConfig)$"
      "^cuda(GetLastError|PeekAtLastError|GetErrorString|GetErrorName|GetSymbolAddress)$"
      "^cuda(MemcpyToSymbol|MemcpyFromSymbol|MemcpyToSymbolAsync|MemcpyFromSymbolAsync)$"
      "^cuda(GetFuncBySymbol|GetKernel|CreateChannelDesc|DriverGetVersion|RuntimeGetVersion)$"
      "^__cuda(RegisterFatBinary|RegisterFatBinaryEnd|RegisterFunction|RegisterVar)$"
      "^__cuda(RegisterManagedVar|UnregisterFatBinary|PushCallConfiguration)$"
      "^__cuda(PopCallConfiguration|LaunchKernel|LaunchKernel_ptsz|GetKernel|InitModule)$"
      "^__cudaRegisterLinkedBinary"
      # C++ runtime: exceptions, static initialisation, thread-local storage
      "^(_Unwind_Resume|__gxx_personality_v0|__dso_handle|__tls_get_addr|_GLOBAL_OFFSET_TABLE_)$"
      "^__cxa_(allocate_exception|free_exception|throw|rethrow|begin_catch|end_catch)$"
      "^__cxa_(guard_acquire|guard_release|guard_abort|atexit|thread_atexit|pure_virtual)$"
      "^__cxa_(deleted_virtual|throw_bad_array_new_length|get_exception_ptr|call_unexpected)$"
      "^(__stack_chk_fail|__stack_chk_guard|atexit)$"
      # nvcc's host stand-ins for __device__ functions call exit(1); no exit status decides
      # anything (the judge takes verdicts from the verdict channel only)
      "^exit$"
      # compiler helpers, memory and string functions, formatting into a buffer
      "^__(popcount|clz|ctz|parity|ffs)[sdt]i2$"
      "^(memcpy|memmove|memset|memcmp|strlen|strcmp|strncmp|strchr|strrchr|strstr)$"
      "^(__memcpy_chk|__memmove_chk|__memset_chk|snprintf|vsnprintf|__snprintf_chk)$"
      "^(__vsnprintf_chk|strtol|strtoll|strtoul|strtoull|strtod|strtof|abs|labs|llabs)$"
      # the math library
      "^(sqrt|cbrt|exp|exp2|expm1|log|log2|log10|log1p|pow|fabs|floor|ceil|round|trunc)[fl]?$"
      "^(lround|llround|fmod|remainder|fmin|fmax|fma|sin|cos|tan|asin|acos|atan|atan2)[fl]?$"
      "^(sinh|cosh|tanh|hypot|ldexp|frexp|modf|nextafter|copysign|rint|lrint|llrint)[fl]?$"
      "^(nearbyint|erf|erfc|tgamma|lgamma|ilogb|logb|scalbn|__isnan|__isinf|__finite)[fl]?$"
      # operator new and delete
      "^_Z(nw|na|dl|da)"
      # the standard library: strings, containers, exceptions, string streams (checked below)
      "^_Z(N|NK|ZN|ZNK|TI|TV|TS)?(St|9__gnu_cxx|10__cxxabiv1)" "^_ZSt" "^_ZN?K?S[aisod]")
  _cudalab_select(unlisted "${undefined}" NOT_MATCHING ${allowed_refs})
  _cudalab_violation("${unlisted}" "uses functions a lab library may not use"
    "A lab library may call only the CUDA runtime's memory, stream, event, launch, attribute, occupancy, query and error functions, the math library, operator new/delete, memory and string functions, the C++ runtime and standard library's strings, containers and exceptions, and the cudalab helpers its header offers: nothing that ends or controls the process, prints, or reads the environment, files or clocks.")
  # Within what the list lets through: what a lab library still may not use.
  set(denied_refs
      # the judge's channel, the test kit, the demo runner
      "^_ZNK?7cudalab7verdict" "^_ZNK?7cudalab7testing" "^_ZNK?7cudalab8run_demo"
      # files, clocks, threads, random devices, terminal streams, termination, loader
      "^_ZNSt(7__cxx11)?1[34]basic_i?o?fstream" "^_ZNSt13basic_filebuf" "^_ZNSt12__basic_file"
      "^_ZNSt(7__cxx11)?10filesystem" "^_ZNSt(3_V2)?6chrono" "^_ZNSt6thread" "^_ZNSt11this_thread"
      "^_ZNSt13random_device" "^_ZSt(4cout|4cerr|4clog|3cin|5wcout|5wcerr|5wclog|4wcin)"
      "^_ZSt(9terminate|13set_terminate|10unexpected|17rethrow_exception)"
      "^cuda(EventElapsedTime|EventQuery|EventSynchronize|GetDriverEntryPoint)"
      "^cuda(Create|Destroy)(Texture|Surface)Object$" "^cudaBind(Texture|Surface)")
  _cudalab_select(denied "${undefined}" MATCHING ${denied_refs})
  _cudalab_violation("${denied}" "uses functions a lab library may not use"
    "These are the grader's, or look outside the launcher's arguments (files, clocks, threads, the environment), or end the process; the graders time your code in one process and profile or sanitize it in another, and each must see the same code.")
  set(calls_reference "")
  foreach(sym IN LISTS undefined)
    if(sym IN_LIST reference_defined)
      list(APPEND calls_reference "${sym}")
    endif()
  endforeach()
  _cudalab_violation("${calls_reference}" "calls grader-only reference code"
    "The graders compare your code with these references, so your code may not use them: write the computation yourself (the handout says what to write).")

  # --- What it contains -------------------------------------------------------------------
  if(OBJDUMP)
    execute_process(COMMAND "${OBJDUMP}" -d --no-show-raw-insn "${LAB_LIB}"
                    OUTPUT_VARIABLE dis RESULT_VARIABLE rc3 ERROR_QUIET)
    if(NOT rc3 EQUAL 0)
      message(FATAL_ERROR "lab library checks: '${OBJDUMP}' could not disassemble ${LAB_LIB}")
    endif()
    string(REGEX MATCHALL "\n[^\n]*\t(syscall|sysenter|int +\\$0x80)[^\n]*" insns "${dis}")
    if(insns)
      set(where "")
      foreach(i IN LISTS insns)
        string(STRIP "${i}" i)
        list(APPEND where "${i}")
      endforeach()
      list(LENGTH where n)
      list(SUBLIST where 0 3 where)
      list(JOIN where " | " where)
      list(APPEND violations "${lib_name} contains ${n} system-call instruction(s) (${where}). A lab library talks to the system only through the functions it may call; no inline system calls.")
    endif()
  endif()

  # --- Verdict ----------------------------------------------------------------------------
  if(violations)
    list(JOIN violations "\n" text)
    if(REPORT_ONLY)
      foreach(v IN LISTS violations)
        message("CUDALAB-ISOLATION: VIOLATION ${v}")
      endforeach()
      return()
    endif()
    if(REPORT)
      set(out "")
      foreach(v IN LISTS violations)
        string(APPEND out "CUDALAB-ISOLATION: VIOLATION ${v}\n")
      endforeach()
      file(WRITE "${REPORT}" "${out}")
    else()
      file(REMOVE "${LAB_LIB}")  # the next build checks it again
      message(FATAL_ERROR "${text}")
    endif()
  elseif(REPORT)
    file(WRITE "${REPORT}" "CUDALAB-ISOLATION: clean\n")
  endif()
  if(REPORT_ONLY)
    message("CUDALAB-ISOLATION: clean")
    return()
  endif()
  return()
endif()

include_guard(GLOBAL)
set(CUDALAB_ISOLATION_SCRIPT "${CMAKE_CURRENT_LIST_FILE}")
find_program(CUDALAB_OBJDUMP NAMES objdump "${CMAKE_OBJDUMP}")
# The system libraries a lab library may not redefine (their dynamic symbols).
set(CUDALAB_SYSTEM_LIBS "")
foreach(name libstdc++.so libstdc++.so.6 libc.so.6 libm.so.6 libgcc_s.so.1)
  execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -print-file-name=${name}
                  OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(path AND IS_ABSOLUTE "${path}" AND EXISTS "${path}")
    file(REAL_PATH "${path}" path)
    list(APPEND CUDALAB_SYSTEM_LIBS "${path}")
  endif()
endforeach()
list(REMOVE_DUPLICATES CUDALAB_SYSTEM_LIBS)
list(JOIN CUDALAB_SYSTEM_LIBS "|" CUDALAB_SYSTEM_LIBS_ARG)

# cudalab_lab_library_checks(<lab library target> [REPORT <file>]) — see the top of this file.
function(cudalab_lab_library_checks lab_lib)
  cmake_parse_arguments(ARG "" "REPORT" "" ${ARGN})
  if(NOT lab_lib MATCHES "^(lab[0-9][0-9])_")
    message(FATAL_ERROR "cudalab_lab_library_checks: ${lab_lib} is not a labNN_... target")
  endif()
  set(ns "${CMAKE_MATCH_1}")
  set(report "")
  if(ARG_REPORT)
    set(report "-DREPORT=${ARG_REPORT}")
  endif()
  # The grader's libraries: whatever they define, a lab library may not.
  set(grader_libs "$<TARGET_FILE:cudalab_reference>|$<TARGET_FILE:cudalab_common>")
  add_dependencies(${lab_lib} cudalab_reference cudalab_common)
  if(TARGET cudalab_testing)
    string(APPEND grader_libs "|$<TARGET_FILE:cudalab_testing>")
    add_dependencies(${lab_lib} cudalab_testing)
  endif()
  add_custom_command(TARGET ${lab_lib} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" "-DLAB_LIB=$<TARGET_FILE:${lab_lib}>"
            "-DREF_LIB=$<TARGET_FILE:cudalab_reference>" "-DNM=${CMAKE_NM}"
            "-DOBJDUMP=${CUDALAB_OBJDUMP}" "-DNAMESPACE=${ns}" "-DGRADER_LIBS=${grader_libs}"
            "-DSYSTEM_LIBS=${CUDALAB_SYSTEM_LIBS_ARG}" ${report} -P "${CUDALAB_ISOLATION_SCRIPT}"
    COMMENT "Checking ${lab_lib}: what it defines and calls, and no system calls"
    VERBATIM)
endfunction()
