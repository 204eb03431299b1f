# SPDX-License-Identifier: BSD-3-Clause
# The device code of a lab's library, for the grader to load itself (cudalab/remote.hpp):
# each object's embedded fatbin (section .nv_fatbin), one file per object, listed in OUTPUT.
# Taken from the very objects the candidate links, so every kernel has the same name there.
#   cmake -DLIBRARY=<lib.a> -DOUTPUT=<list> -DAR=<ar> -DOBJCOPY=<objcopy> -P CudalabDeviceCode.cmake
foreach(v LIBRARY OUTPUT AR OBJCOPY)
  if(NOT ${v})
    message(FATAL_ERROR "CudalabDeviceCode.cmake: ${v} is required")
  endif()
endforeach()
set(dir "${OUTPUT}.d")
file(REMOVE_RECURSE "${dir}")
file(MAKE_DIRECTORY "${dir}")
execute_process(COMMAND "${AR}" x "${LIBRARY}" WORKING_DIRECTORY "${dir}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${AR} x ${LIBRARY} failed (${rc})")
endif()
file(GLOB objects "${dir}/*.o")
list(SORT objects)
set(list "")
foreach(o IN LISTS objects)
  execute_process(COMMAND "${OBJCOPY}" -O binary --only-section=.nv_fatbin "${o}" "${o}.fatbin"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${OBJCOPY}: cannot read the device code of ${o}")
  endif()
  file(SIZE "${o}.fatbin" size)
  if(size GREATER 0)
    string(APPEND list "${o}.fatbin\n")
  endif()
  file(REMOVE "${o}")
endforeach()
file(WRITE "${OUTPUT}" "${list}")
