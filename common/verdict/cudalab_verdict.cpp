// SPDX-License-Identifier: BSD-3-Clause
// cudalab_verdict: the process that decides what CTest and the scoreboard see of a grader run.
// It neither links nor loads a lab's code; it runs the grader (or a demo) as a child, gives it
// a fresh key over a pipe (cudalab/verdict.hpp), and takes a test's verdict only from the
// authenticated "result" record the grader's listener sends after the test body returned.
// The child's exit status, and anything it prints, decide nothing.
//
//   cudalab_verdict --test <ctest name> [--result <file> --exe <grader>] [--timeout <s>] --
//   <cmd...>
//       One test. Exit 0 passed, 77 skipped, 1 failed or no verdict. With --result, a verdict
//       an earlier batch run left for this test (<file>.verdict, newer than <grader>) is
//       reported instead of running the test again.
//   cudalab_verdict --batch <dir> --prefix <p> [--timeout <s>] -- <cmd...>
//       A whole suite in one process: every test's verdict goes to <dir>/<name>.result.verdict
//       and is printed as a "[ CUDALAB-BATCH ]" line followed by its records. Exit 0, or 77
//       when every test was skipped.
//
// What it prints: the child's output, line by line, with any line that could pass for one of
// the judge's own ("[ CUDALAB-...") defused, and the authenticated records as
// "[ CUDALAB-RECORD ] <json>" lines: the only records tools/scoreboard.py reads.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/verdict.hpp"

namespace fs = std::filesystem;
namespace verdict = cudalab::verdict;

namespace {

constexpr const char* kRecord = "[ CUDALAB-RECORD ] ";
constexpr const char* kBatch = "[ CUDALAB-BATCH ] ";
constexpr const char* kJudge = "[ CUDALAB  ] ";

volatile sig_atomic_t g_child = 0;

void forward_signal(int sig) {
  if (g_child > 0) ::kill(static_cast<pid_t>(g_child), sig);
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "cudalab_verdict: %s\nusage: cudalab_verdict --test <name> [--result <file> --exe "
               "<grader>] [--timeout <s>] -- <cmd...>\n       cudalab_verdict --batch <dir> "
               "--prefix <p> [--timeout <s>] -- <cmd...>\n",
               why);
  std::exit(2);
}

// ---------------------------------------------------------------------------
// The few JSON facts the judge needs from a record: top-level string members.
// ---------------------------------------------------------------------------

/// Skips a JSON string starting at s[i] == '"'; returns the index after it, npos if broken.
std::size_t skip_string(const std::string& s, std::size_t i, std::string* out) {
  ++i;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"') return i + 1;
    if (c == '\\') {
      if (i + 1 >= s.size()) return std::string::npos;
      const char e = s[i + 1];
      if (out != nullptr) {
        switch (e) {
          case 'n':
            *out += '\n';
            break;
          case 't':
            *out += '\t';
            break;
          case 'r':
            *out += '\r';
            break;
          case 'u':
            *out += '?';
            break;
          default:
            *out += e;
        }
      }
      i += e == 'u' ? 6 : 2;
      continue;
    }
    if (out != nullptr) *out += c;
    ++i;
  }
  return std::string::npos;
}

/// Skips any JSON value starting at s[i]; returns the index after it, npos if broken.
std::size_t skip_value(const std::string& s, std::size_t i) {
  if (i >= s.size()) return std::string::npos;
  if (s[i] == '"') return skip_string(s, i, nullptr);
  if (s[i] == '{' || s[i] == '[') {
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = skip_string(s, i, nullptr);
        if (i == std::string::npos) return i;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return std::string::npos;
  }
  while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
  return i;
}

/// The top-level string members of a flat JSON object; nullopt when it is not one.
std::optional<std::map<std::string, std::string>> string_members(const std::string& s) {
  std::map<std::string, std::string> m;
  std::size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  };
  ws();
  if (i >= s.size() || s[i] != '{') return std::nullopt;
  ++i;
  for (;;) {
    ws();
    if (i < s.size() && s[i] == '}') return i + 1 == s.size() ? std::optional(m) : std::nullopt;
    if (i >= s.size() || s[i] != '"') return std::nullopt;
    std::string key;
    i = skip_string(s, i, &key);
    if (i == std::string::npos) return std::nullopt;
    ws();
    if (i >= s.size() || s[i] != ':') return std::nullopt;
    ++i;
    ws();
    if (i < s.size() && s[i] == '"') {
      std::string value;
      i = skip_string(s, i, &value);
      if (i == std::string::npos) return std::nullopt;
      m[key] = value;
    } else {
      i = skip_value(s, i);
      if (i == std::string::npos) return std::nullopt;
    }
    ws();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == '}') return i + 1 == s.size() ? std::optional(m) : std::nullopt;
    return std::nullopt;
  }
}

// ---------------------------------------------------------------------------
// The child's output: passed on line by line, defused.
// ---------------------------------------------------------------------------

/// A line of the child's output as the judge prints it: line separators other than '\n' that a
/// reader might split on become spaces, and a line that starts like one of the judge's own
/// ("[ CUDALAB-") is marked as the grader's.
std::string defuse(std::string line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == '\r' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e) || c == 0) {
      out += ' ';
    } else if (c == 0xc2 && i + 1 < line.size() &&
               static_cast<unsigned char>(line[i + 1]) == 0x85) {
      out += ' ';
      ++i;
    } else if (c == 0xe2 && i + 2 < line.size() &&
               static_cast<unsigned char>(line[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(line[i + 2]) == 0xa8 ||
                static_cast<unsigned char>(line[i + 2]) == 0xa9)) {
      out += ' ';
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  std::size_t first = out.find_first_not_of(" \t");
  if (first != std::string::npos && out.compare(first, 10, "[ CUDALAB-") == 0) {
    out.insert(0, "(printed by the grader, not a record) ");
  }
  return out;
}

void print_line(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

/// Splits @p buffer into complete lines, printing each defused; keeps the rest.
void flush_lines(std::string& buffer, bool all) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t eol = buffer.find('\n', start);
    if (eol == std::string::npos) break;
    print_line(defuse(buffer.substr(start, eol - start)));
    start = eol + 1;
  }
  buffer.erase(0, start);
  if (all && !buffer.empty()) {
    print_line(defuse(buffer));
    buffer.clear();
  }
}

// ---------------------------------------------------------------------------
// The records.
// ---------------------------------------------------------------------------

struct Record {
  std::string json;
  std::string type;
  std::string test;
  std::string status;
};

struct Run {
  std::vector<Record> records;
  std::string broken;   ///< why the channel is void (a forged or out-of-order line)
  int wait_status = 0;  ///< the child's waitpid() status
  bool timed_out = false;
};

/// Reads one framed line; appends the record or sets run.broken.
void take_record(const verdict::Key& key, std::uint64_t& seq, const std::string& line, Run& run,
                 bool print_now, const std::string& only_test) {
  if (!run.broken.empty()) return;
  const std::size_t a = line.find(' ');
  const std::size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
  if (b == std::string::npos) {
    run.broken = "a line of the channel is not a record";
    return;
  }
  const std::string json = line.substr(b + 1);
  const std::string expected = verdict::frame(key, seq, json);
  if (!verdict::equal_digests(line, expected)) {
    run.broken = "record " + std::to_string(seq) + " fails authentication or is out of order";
    return;
  }
  ++seq;
  const auto members = string_members(json);
  if (!members) {
    run.broken = "record " + std::to_string(seq - 1) + " is not a JSON object";
    return;
  }
  Record r;
  r.json = json;
  auto get = [&](const char* k) {
    const auto it = members->find(k);
    return it == members->end() ? std::string() : it->second;
  };
  r.type = get("type");
  r.test = get("test");
  r.status = get("status");
  if (print_now && (only_test.empty() || r.test == only_test)) print_line(kRecord + json);
  run.records.push_back(std::move(r));
}

verdict::Key fresh_key() {
  verdict::Key key{};
  std::ifstream in("/dev/urandom", std::ios::binary);
  in.read(reinterpret_cast<char*>(key.data()), static_cast<std::streamsize>(key.size()));
  if (!in) {
    std::fprintf(stderr, "cudalab_verdict: cannot read /dev/urandom\n");
    std::exit(2);
  }
  return key;
}

/// Runs @p cmd with the channel; passes its output on; collects its records.
Run run_child(const std::vector<std::string>& cmd, double timeout_s,
              const std::vector<std::string>& extra_env, bool print_records,
              const std::string& only_test) {
  const verdict::Key key = fresh_key();
  int out[2], rec[2], keyp[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe(rec) != 0 || ::pipe(keyp) != 0) {
    std::perror("cudalab_verdict: pipe");
    std::exit(2);
  }
  ::fcntl(rec[0], F_SETFD, FD_CLOEXEC);
  ::fcntl(keyp[1], F_SETFD, FD_CLOEXEC);
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("cudalab_verdict: fork");
    std::exit(2);
  }
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::setenv("CUDALAB_VERDICT_FD", std::to_string(rec[1]).c_str(), 1);
    ::setenv("CUDALAB_VERDICT_KEY_FD", std::to_string(keyp[0]).c_str(), 1);
    for (const std::string& kv : extra_env) {
      const std::size_t eq = kv.find('=');
      ::setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
    }
    std::vector<char*> argv;
    for (const std::string& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "cudalab_verdict: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  g_child = pid;
  ::close(out[1]);
  ::close(rec[1]);
  ::close(keyp[0]);
  {
    std::size_t done = 0;
    while (done < key.size()) {
      const ssize_t w = ::write(keyp[1], key.data() + done, key.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;  // the child did not take it: it will send no valid record
      done += static_cast<std::size_t>(w);
    }
    ::close(keyp[1]);
  }

  Run run;
  std::string out_buf, rec_buf;
  std::uint64_t seq = 0;
  bool out_open = true, rec_open = true, exited = false;
  const auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point exited_at{};
  char buf[65536];
  while (out_open || rec_open) {
    pollfd fds[2];
    int n = 0;
    if (out_open) fds[n++] = {out[0], POLLIN, 0};
    if (rec_open) fds[n++] = {rec[0], POLLIN, 0};
    const int pr = ::poll(fds, static_cast<nfds_t>(n), 200);
    if (pr < 0 && errno != EINTR) break;
    for (int i = 0; i < n && pr > 0; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      const bool is_out = fds[i].fd == out[0];
      if (r <= 0) {
        (is_out ? out_open : rec_open) = false;
        continue;
      }
      if (is_out) {
        out_buf.append(buf, static_cast<std::size_t>(r));
        flush_lines(out_buf, false);
      } else {
        rec_buf.append(buf, static_cast<std::size_t>(r));
        std::size_t startl = 0;
        for (std::size_t eol; (eol = rec_buf.find('\n', startl)) != std::string::npos;
             startl = eol + 1) {
          take_record(key, seq, rec_buf.substr(startl, eol - startl), run, print_records,
                      only_test);
        }
        rec_buf.erase(0, startl);
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (!exited) {
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) {
        exited = true;
        run.wait_status = st;
        exited_at = now;
      } else if (timeout_s > 0 && std::chrono::duration<double>(now - start).count() > timeout_s) {
        ::kill(pid, SIGKILL);
        run.timed_out = true;
      }
    } else if (std::chrono::duration<double>(now - exited_at).count() > 2.0) {
      break;  // a descendant keeps the output open: what the child sent is all there is
    }
  }
  if (!exited) {
    ::waitpid(pid, &run.wait_status, 0);
  }
  g_child = 0;
  flush_lines(out_buf, true);
  if (!rec_buf.empty() && run.broken.empty()) run.broken = "the channel ends inside a record";
  ::close(out[0]);
  ::close(rec[0]);
  return run;
}

std::string how_it_ended(const Run& run) {
  if (run.timed_out) return "it was stopped after its time ran out";
  if (WIFEXITED(run.wait_status)) {
    return "it exited with status " + std::to_string(WEXITSTATUS(run.wait_status));
  }
  if (WIFSIGNALED(run.wait_status)) {
    return std::string("it was ended by signal ") + strsignal(WTERMSIG(run.wait_status));
  }
  return "it ended";
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Exit code of a status word.
int exit_code(const std::string& status) {
  if (status == "passed") return 0;
  if (status == "skipped") return 77;
  return 1;
}

/// The one test's verdict from @p run; prints why when there is none.
int single_verdict(const Run& run, const std::string& test) {
  if (!run.broken.empty()) {
    print_line(std::string(kJudge) + "no verdict for " + test + ": the verdict channel is void (" +
               run.broken + ")");
    return 1;
  }
  const Record* result = nullptr;
  int count = 0;
  for (const Record& r : run.records) {
    if (r.type == "result" && r.test == test) {
      result = &r;
      ++count;
    }
  }
  if (count > 1) {
    print_line(std::string(kJudge) + "no verdict for " + test + ": it reported " +
               std::to_string(count) + " results");
    return 1;
  }
  if (result == nullptr) {
    print_line(std::string(kJudge) + "no verdict for " + test +
               ": the grader process ended before the test reported its result (" +
               how_it_ended(run) +
               "); a test passes only with the result its grader sends "
               "after the test has run");
    return 1;
  }
  if (result->status != "passed" && result->status != "failed" && result->status != "skipped") {
    print_line(std::string(kJudge) + "no verdict for " + test + ": unknown status '" +
               result->status + "'");
    return 1;
  }
  return exit_code(result->status);
}

/// Writes @p text to @p p through a temporary file.
void write_file(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o << text;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
}

/// --result: a batch run's verdict for this test, when one newer than the grader exists.
std::optional<int> replay(const fs::path& result, const fs::path& exe, const std::string& test) {
  const fs::path vfile = result.string() + ".verdict";
  std::error_code ec;
  if (!fs::exists(vfile, ec)) return std::nullopt;
  if (!exe.empty() && fs::exists(exe, ec) &&
      fs::last_write_time(vfile, ec) < fs::last_write_time(exe, ec)) {
    fs::remove(vfile, ec);
    return std::nullopt;
  }
  const std::string v = read_all(vfile);
  fs::remove(vfile, ec);
  const std::size_t eol = v.find('\n');
  if (eol == std::string::npos) return std::nullopt;
  const std::string status = v.substr(0, eol);
  // What the test printed in the batch run (the grader's file: shown, never believed).
  if (fs::exists(result, ec)) {
    std::string shown = read_all(result);
    fs::remove(result, ec);
    const std::size_t first = shown.find('\n');
    shown = first == std::string::npos ? std::string() : shown.substr(first + 1);
    flush_lines(shown, true);
  }
  std::string records = v.substr(eol + 1);
  std::size_t start = 0;
  for (std::size_t e; (e = records.find('\n', start)) != std::string::npos; start = e + 1) {
    print_line(kRecord + records.substr(start, e - start));
  }
  print_line(std::string(kJudge) + test + ": " + status + " in its suite's one-process run");
  return exit_code(status);
}

}  // namespace

int main(int argc, char** argv) {
  std::string test, result, exe, batch_dir, prefix;
  double timeout_s = 0.0;
  std::vector<std::string> cmd;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value of " + a).c_str());
      return argv[++i];
    };
    if (a == "--") {
      for (++i; i < argc; ++i) cmd.emplace_back(argv[i]);
      break;
    }
    if (a == "--test") {
      test = value();
    } else if (a == "--result") {
      result = value();
    } else if (a == "--exe") {
      exe = value();
    } else if (a == "--batch") {
      batch_dir = value();
    } else if (a == "--prefix") {
      prefix = value();
    } else if (a == "--timeout") {
      char* end = nullptr;
      const std::string v = value();
      timeout_s = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(timeout_s >= 0)) usage("bad --timeout");
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }
  if (cmd.empty()) usage("no command after --");
  if (test.empty() == batch_dir.empty()) usage("give exactly one of --test and --batch");

  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);

  if (!test.empty()) {
    if (!result.empty()) {
      if (const auto rc = replay(result, exe, test)) return *rc;
    }
    const Run run = run_child(cmd, timeout_s, {"CUDALAB_TEST_NAME=" + test}, true, test);
    return single_verdict(run, test);
  }

  // A batch run: every verdict of the suite, kept for its tests.
  std::error_code ec;
  fs::remove_all(batch_dir, ec);  // no verdict of an earlier run may be reported
  fs::create_directories(batch_dir, ec);
  const Run run = run_child(cmd, timeout_s, {}, false, "");
  if (!run.broken.empty()) {
    print_line(std::string(kJudge) + "the batch run's verdict channel is void (" + run.broken +
               "): its tests run alone");
    return 0;
  }
  std::map<std::string, std::string> records_of;
  std::map<std::string, std::string> status_of;
  std::vector<std::string> order;
  for (const Record& r : run.records) {
    if (r.test.size() <= prefix.size() || r.test.compare(0, prefix.size(), prefix) != 0) continue;
    if (records_of.count(r.test) == 0) order.push_back(r.test);
    records_of[r.test] += r.json + "\n";
    if (r.type == "result") status_of[r.test] = status_of.count(r.test) ? "failed" : r.status;
  }
  int passed = 0, failed = 0, skipped = 0;
  std::string listing;
  for (const std::string& t : order) {
    const auto st = status_of.find(t);
    if (st == status_of.end()) continue;  // no result: the test runs alone
    const std::string& status = st->second;
    (status == "passed" ? passed : status == "skipped" ? skipped : failed) += 1;
    write_file(fs::path(batch_dir) / verdict::file_name(t.substr(prefix.size()), ".result.verdict"),
               status + "\n" + records_of[t]);
    listing += std::string(kBatch) + "{\"test\": \"" + t + "\", \"status\": \"" + status + "\"}\n";
    std::size_t start = 0;
    const std::string& recs = records_of[t];
    for (std::size_t e; (e = recs.find('\n', start)) != std::string::npos; start = e + 1) {
      listing += kRecord + recs.substr(start, e - start) + "\n";
    }
  }
  const int n = passed + failed + skipped;
  std::printf(
      "%sone process ran the suite (%s): %d result(s), %d passed, %d failed, %d skipped; "
      "each test of the suite reports its own\n%s",
      kJudge, how_it_ended(run).c_str(), n, passed, failed, skipped, listing.c_str());
  std::fflush(stdout);
  if (n > 0 && skipped == n) {
    print_line("[  SKIPPED ] every test of the suite was skipped");
    return 77;
  }
  return 0;
}
