# SPDX-License-Identifier: BSD-3-Clause
# GoogleTest: the installed package when there is one, else FetchContent.
# FetchContent honours FETCHCONTENT_SOURCE_DIR_GOOGLETEST, so an offline machine can
# point it at an unpacked googletest source tree:
#   cmake -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/path/to/googletest ...
# Otherwise the release archive is downloaded once, with short timeouts, into the build
# tree (_deps/); when that fails, configuring stops at once and names the two ways out
# instead of letting FetchContent retry for minutes.
include_guard(GLOBAL)

set(CUDALAB_GTEST_VERSION 1.15.2)
set(CUDALAB_GTEST_URL
    https://github.com/google/googletest/archive/refs/tags/v${CUDALAB_GTEST_VERSION}.tar.gz)
set(CUDALAB_GTEST_SHA256 7b42b4d6ed48810c5362c265a17faebe90dc2373c885e5216439d37927f02926)

# Downloads the googletest archive to @p archive (once) or stops with the ways out.
function(cudalab_download_gtest archive)
  if(EXISTS "${archive}")
    return()
  endif()
  message(STATUS "cudalabs: downloading GoogleTest ${CUDALAB_GTEST_VERSION} (${CUDALAB_GTEST_URL})")
  set(part "${archive}.part")
  file(DOWNLOAD "${CUDALAB_GTEST_URL}" "${part}"
       TIMEOUT 120 INACTIVITY_TIMEOUT 15 STATUS status TLS_VERIFY ON)
  list(GET status 0 code)
  list(GET status 1 text)
  set(hash "")
  if(code EQUAL 0)
    file(SHA256 "${part}" hash)
  endif()
  if(NOT code EQUAL 0 OR NOT hash STREQUAL CUDALAB_GTEST_SHA256)
    file(REMOVE "${part}")
    if(code EQUAL 0)
      set(text "the archive's SHA-256 is ${hash}, expected ${CUDALAB_GTEST_SHA256}")
    endif()
    message(FATAL_ERROR
      "cudalabs: GoogleTest is not installed and cannot be downloaded (${text}).\n"
      "Either install it, e.g.\n"
      "    sudo apt-get install libgtest-dev        (Debian/Ubuntu; then configure again)\n"
      "or point CMake at a googletest source tree you copied here, e.g. the unpacked\n"
      "    ${CUDALAB_GTEST_URL}\n"
      "with\n"
      "    cmake --preset <preset> -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/path/to/googletest-${CUDALAB_GTEST_VERSION}")
  endif()
  file(RENAME "${part}" "${archive}")
endfunction()

find_package(GTest QUIET)
if(GTest_FOUND OR GTEST_FOUND)
  message(STATUS "cudalabs: GoogleTest found (${GTest_DIR}${GTEST_INCLUDE_DIRS})")
else()
  include(FetchContent)
  set(archive "${CMAKE_BINARY_DIR}/_deps/googletest-${CUDALAB_GTEST_VERSION}.tar.gz")
  if(FETCHCONTENT_SOURCE_DIR_GOOGLETEST)
    message(STATUS "cudalabs: GoogleTest from ${FETCHCONTENT_SOURCE_DIR_GOOGLETEST}")
  elseif(NOT FETCHCONTENT_FULLY_DISCONNECTED)
    message(STATUS "cudalabs: GoogleTest not installed; building it from its release archive")
    cudalab_download_gtest("${archive}")
  endif()
  FetchContent_Declare(googletest
    URL "${archive}"
    URL_HASH SHA256=${CUDALAB_GTEST_SHA256}
    DOWNLOAD_EXTRACT_TIMESTAMP ON)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  FetchContent_MakeAvailable(googletest)
endif()
if(NOT TARGET GTest::gtest)
  message(FATAL_ERROR "cudalabs: GoogleTest provides no GTest::gtest target")
endif()
include(GoogleTest)
