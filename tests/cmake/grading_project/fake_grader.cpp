// Prints the file LISTING_FILE: a test list in the form of `--gtest_list_tests`.
#include <cstdio>

int main() {
  std::FILE* f = std::fopen(LISTING_FILE, "r");
  if (f == nullptr) return 1;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) std::fwrite(buf, 1, n, stdout);
  std::fclose(f);
  return 0;
}
