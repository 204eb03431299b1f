# SPDX-License-Identifier: BSD-3-Clause
# cmake -DPROGRAM=<demo> -P CudalabCheckBadArgs.cmake
# Each bad command line must end with a non-zero exit and a one-line "error:" message,
# never a crash (signal) or a hang.
if(NOT PROGRAM)
  message(FATAL_ERROR "PROGRAM not set")
endif()
set(cases
  "--size;0" "--size;-5" "--size;abc" "--size;100000000" "--block;0"
  "--block;2048" "--reps;0" "--reps;x" "--no-such-flag" "--size")
set(failures 0)
foreach(c IN LISTS cases)
  string(REPLACE ";" " " shown "${c}")
  execute_process(COMMAND "${PROGRAM}" ${c} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 20)
  string(STRIP "${err}" err)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines nl)
  if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
    message(SEND_ERROR "'${shown}': expected a non-zero exit, got '${rc}'")
    math(EXPR failures "${failures}+1")
  elseif(NOT err MATCHES "error:" OR nl GREATER 1)
    message(SEND_ERROR "'${shown}': expected one 'error:' line on stderr, got:\n${err}")
    math(EXPR failures "${failures}+1")
  else()
    message(STATUS "'${shown}' -> exit ${rc}: ${err}")
  endif()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} bad command line(s) were not rejected cleanly")
endif()
