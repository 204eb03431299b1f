// SPDX-License-Identifier: BSD-3-Clause
// Prints the file LISTING_FILE: a test list in the form of `--gtest_list_tests`; run as a test
// by CTest, also the GPU CTest gave it (CTEST_RESOURCE_GROUP_0_GPUS).
#include <cstdio>
#include <cstdlib>

int main() {
  std::FILE* f = std::fopen(LISTING_FILE, "r");
  if (f == nullptr) return 1;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) std::fwrite(buf, 1, n, stdout);
  std::fclose(f);
  if (const char* gpu = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS"); gpu != nullptr) {
    std::printf("CTEST_RESOURCE_GROUP_0_GPUS=%s\n", gpu);
  }
  return 0;
}
