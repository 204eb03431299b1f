# SPDX-License-Identifier: BSD-3-Clause
# cudalab_select_cuda_architectures()
#
# When the user did not set CMAKE_CUDA_ARCHITECTURES (nor the CUDAARCHS environment
# variable), pick one:
#   * "native" when a GPU is visible at configure time (asked through the toolkit's
#     __nvcc_device_query, the same probe CMake uses for "native");
#   * otherwise ONE architecture, 90 (sm_90): with no GPU nothing runs on a device, and the
#     CPU tests that read the compiled kernels' SASS (labs 11, 13 and 14) read sm_90 code.
#     Each further architecture compiles every kernel once more (a first build of all labs
#     takes several times as long with a list of seven). When the found nvcc cannot build
#     sm_90, the newest architecture it lists is taken instead.
# The choice is cached (so a re-configure keeps it) and printed, with how to choose others.
include_guard(GLOBAL)

function(cudalab_select_cuda_architectures)
  if(CUDALAB_ARCH_FROM_USER)
    message(STATUS "cudalabs: CUDA architectures (set by you): ${CMAKE_CUDA_ARCHITECTURES}")
    return()
  endif()

  set(_query "${CUDAToolkit_BIN_DIR}/__nvcc_device_query")
  set(_gpu_arch "")
  if(EXISTS "${_query}")
    execute_process(COMMAND "${_query}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 30)
    if(_rc EQUAL 0 AND _out MATCHES "^[0-9]")
      set(_gpu_arch "${_out}")
    endif()
  endif()

  if(_gpu_arch)
    set(_choice native)
    set(_why "a GPU is visible (sm_${_gpu_arch})")
  else()
    set(_default 90)
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _supported ERROR_QUIET)
    if(_rc EQUAL 0 AND NOT _supported MATCHES "compute_${_default}[^0-9]")
      # An nvcc without sm_90 (older than CUDA 11.8): the newest architecture it lists.
      string(REGEX MATCHALL "compute_[0-9]+" _all "${_supported}")
      set(_choice "")
      foreach(_a IN LISTS _all)
        string(REPLACE "compute_" "" _a "${_a}")
        if(NOT _choice OR _a GREATER _choice)
          set(_choice ${_a})
        endif()
      endforeach()
      if(NOT _choice)
        set(_choice 75)
      endif()
    else()
      set(_choice ${_default})
    endif()
    set(_why "no GPU visible at configure time: one architecture, the one the SASS checks read")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_choice}" CACHE STRING "CUDA architectures to build for" FORCE)
  message(STATUS "cudalabs: CUDA architectures: ${_choice} (${_why})")
  if(NOT _gpu_arch)
    message(STATUS "cudalabs: to build for other GPUs, configure with "
                   "-DCMAKE_CUDA_ARCHITECTURES=<list> (e.g. \"80;90\", or native on the GPU "
                   "machine), or set CUDAARCHS=<list> in the environment before the first "
                   "configure of a build tree; each architecture compiles every kernel once more")
  endif()
endfunction()
