# GoogleTest: the installed package when there is one, else FetchContent.
# FetchContent honours FETCHCONTENT_SOURCE_DIR_GOOGLETEST, so an offline machine can
# point it at an unpacked googletest source tree:
#   cmake -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/path/to/googletest ...
include_guard(GLOBAL)

find_package(GTest QUIET)
if(GTest_FOUND OR GTEST_FOUND)
  message(STATUS "cudalabs: GoogleTest found (${GTest_DIR}${GTEST_INCLUDE_DIRS})")
else()
  message(STATUS "cudalabs: GoogleTest not installed; fetching it with FetchContent")
  include(FetchContent)
  FetchContent_Declare(googletest
    URL https://github.com/google/googletest/archive/refs/tags/v1.15.2.tar.gz
    URL_HASH SHA256=7b42b4d6ed48810c5362c265a17faebe90dc2373c885e5216439d37927f02926
    DOWNLOAD_EXTRACT_TIMESTAMP ON)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  FetchContent_MakeAvailable(googletest)
endif()
if(NOT TARGET GTest::gtest)
  message(FATAL_ERROR "cudalabs: GoogleTest provides no GTest::gtest target")
endif()
include(GoogleTest)
