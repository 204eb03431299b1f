# SPDX-License-Identifier: BSD-3-Clause
# Compile options shared by every project target, as an interface library.
#   cudalab::options  -lineinfo always; -G with CUDALAB_DEVICE_DEBUG; warnings
#                     (errors with CUDALAB_WARNINGS_AS_ERRORS).
include_guard(GLOBAL)

add_library(cudalab_options INTERFACE)
add_library(cudalab::options ALIAS cudalab_options)

target_compile_options(cudalab_options INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wshadow>)

# Student stubs (and known-wrong submissions that skip the kernel) declare kernels their
# launchers do not launch: nvcc's "declared but never referenced" (#177) is expected there
# and must not stop the build.
target_compile_options(cudalab_options INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcudafe=--diag_suppress=177>)

if(CUDALAB_DEVICE_DEBUG)
  target_compile_options(cudalab_options INTERFACE $<$<COMPILE_LANGUAGE:CUDA>:-G>)
endif()

if(CUDALAB_WARNINGS_AS_ERRORS)
  target_compile_options(cudalab_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Werror>)
endif()
