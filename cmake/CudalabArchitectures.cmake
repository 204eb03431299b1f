# cudalab_select_cuda_architectures()
#
# When the user did not set CMAKE_CUDA_ARCHITECTURES (nor the CUDAARCHS environment
# variable), pick one:
#   * "native" when a GPU is visible at configure time (asked through the toolkit's
#     __nvcc_device_query, the same probe CMake uses for "native");
#   * otherwise a list of common real architectures, kept to those the found nvcc
#     supports (nvcc --list-gpu-arch).
# The choice is cached (so a re-configure keeps it) and printed.
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
    set(_wanted 75 80 86 89 90 100 120)
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _supported ERROR_QUIET)
    set(_choice "")
    foreach(_a IN LISTS _wanted)
      if(_rc EQUAL 0 AND _supported MATCHES "compute_${_a}[^0-9]")
        list(APPEND _choice ${_a})
      endif()
    endforeach()
    if(NOT _choice)
      set(_choice 75)
    endif()
    set(_why "no GPU visible at configure time; list supported by nvcc ${CMAKE_CUDA_COMPILER_VERSION}")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_choice}" CACHE STRING "CUDA architectures to build for" FORCE)
  message(STATUS "cudalabs: CUDA architectures: ${_choice} (${_why})")
endfunction()
