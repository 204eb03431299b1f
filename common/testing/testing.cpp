// SPDX-License-Identifier: BSD-3-Clause
#include "cudalab/testing.hpp"

#include "cudalab/calibration.hpp"
#include "cudalab/gpu_lock.hpp"
#include "cudalab/verdict.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <string>

namespace cudalab::testing {

::testing::AssertionResult matrices_match(const std::vector<float>& expected,
                                          const std::vector<float>& got, int rows, int cols,
                                          double rel_tol) {
  const MatrixCompare r = compare_matrices(expected, got, rows, cols, rel_tol);
  if (r.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.message;
}

// ---------------------------------------------------------------------------
// The measurement channel (see testing.hpp): JSON records on the test's standard output.
// ---------------------------------------------------------------------------
namespace {

/// @p s as a JSON string literal.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

/// @p v as a JSON number; null when it is not finite (JSON has no NaN).
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string json_string_or_null(const char* s) {
  return s == nullptr ? "null" : json_string(s);
}

/// "time" (UTC, ISO 8601) and "unix_time" members, with a leading comma.
std::string json_time() {
  const auto now = std::chrono::system_clock::now();
  const double unix_s = std::chrono::duration<double>(now.time_since_epoch()).count();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
#if defined(_WIN32)
  gmtime_s(&utc, &t);
#else
  gmtime_r(&t, &utc);
#endif
  char iso[32];
  std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &utc);
  char unix_text[40];
  std::snprintf(unix_text, sizeof unix_text, "%.3f", unix_s);
  return std::string(", \"time\": \"") + iso + "\", \"unix_time\": " + unix_text;
}

/// CUDALAB_SPEEDUP_SCALE as used by the verdicts, and as set in the environment.
std::string json_scale() {
  std::string value = "null";
  try {
    value = json_number(speedup_scale());
  } catch (const std::exception&) {
    // An invalid value: recorded as null; the verdicts themselves report the error.
  }
  return ", \"speedup_scale\": " + value +
         ", \"speedup_scale_env\": " + json_string_or_null(std::getenv("CUDALAB_SPEEDUP_SCALE"));
}

struct Channel {
  std::mutex mutex;
  bool active = false;  ///< a test that records is running
  std::string test;     ///< its CTest name
  std::string device;   ///< the "device" record (without "type" and "test")
  std::string gtest;    ///< the running test's GoogleTest name (Suite.Case), recorded or not
  std::map<std::string, double> bars;  ///< speed_bar() of the running test, by key
};

Channel& channel() {
  static Channel c;
  return c;
}

/// Sends one record of the running test (caller holds the mutex) on the verdict channel
/// (cudalab/verdict.hpp): the judge that started this process prints it for CTest and the
/// scoreboard, which read no other. A process no judge started (run by hand) prints it on its
/// standard output instead, for people.
void append_record(Channel& ch, const std::string& type, const std::string& members) {
  if (!ch.active) return;
  const std::string json =
      "{\"type\": " + json_string(type) + ", \"test\": " + json_string(ch.test) + members + "}";
  if (verdict::send(json)) return;
  std::fflush(stdout);
  std::printf("\n%s %s\n", kRecordMarker, json.c_str());
  std::fflush(stdout);
}

/// Whether CTest's name for the test (e.g. "lab07.SwizzleCpu.Maps") is @p gtest_name with a
/// prefix: a process run by hand, or a grader run by another test (a sanitizer run), records
/// nothing.
bool names_this_test(const std::string& ctest_name, const std::string& gtest_name) {
  if (ctest_name == gtest_name) return true;
  if (ctest_name.size() <= gtest_name.size()) return false;
  const std::size_t at = ctest_name.size() - gtest_name.size();
  return ctest_name.compare(at, std::string::npos, gtest_name) == 0 && ctest_name[at - 1] == '.';
}

class ChannelListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& info) override {
    const std::string gtest_name = std::string(info.test_suite_name()) + "." + info.name();
    const std::string name = ctest_name_of(gtest_name);
    Channel& ch = channel();
    const std::lock_guard<std::mutex> lock(ch.mutex);
    ch.gtest = gtest_name;
    ch.bars.clear();
    if (name.empty() || !names_this_test(name, gtest_name)) return;
    ch.test = name;
    ch.active = true;
    std::string seed = "null";
    try {
      seed = std::to_string(run_seed());
    } catch (const std::exception&) {
      // A malformed CUDALAB_SEED: the tests that draw data report it.
    }
    append_record(ch, "test",
                  ", \"gtest\": " + json_string(gtest_name) + json_time() + json_scale() +
                      ", \"seed\": " + seed);
    if (!ch.device.empty()) append_record(ch, "device", ch.device);
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    Channel& ch = channel();
    const std::lock_guard<std::mutex> lock(ch.mutex);
    if (!ch.active) return;
    const ::testing::TestResult* r = info.result();
    std::string status = "passed";
    std::string message;
    std::string file;
    int line = -1;
    if (r != nullptr) {
      if (r->Skipped()) {
        status = "skipped";
      } else if (r->Failed()) {
        status = "failed";
      }
      // The first failure (or the skip) says why.
      for (int i = 0; i < r->total_part_count(); ++i) {
        const ::testing::TestPartResult& part = r->GetTestPartResult(i);
        if (part.failed() || (status == "skipped" && part.skipped())) {
          message = part.message();
          file = part.file_name() == nullptr ? "" : part.file_name();
          line = part.line_number();
          break;
        }
      }
    }
    const long long elapsed_ms = r == nullptr ? 0 : static_cast<long long>(r->elapsed_time());
    append_record(ch, "result",
                  ", \"status\": " + json_string(status) +
                      ", \"message\": " + json_string(message) +
                      ", \"file\": " + (file.empty() ? std::string("null") : json_string(file)) +
                      ", \"line\": " + (line < 0 ? std::string("null") : std::to_string(line)) +
                      ", \"elapsed_ms\": " + std::to_string(elapsed_ms) + json_time());
    ch.active = false;
  }
};

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::kAtLeast:
      return "\"min\"";
    case Bound::kAtMost:
      return "\"max\"";
    case Bound::kNone:
      break;
  }
  return "null";
}

}  // namespace

void report_running_test_failed(const std::string& message) {
  Channel& ch = channel();
  // The test body may hold the mutex while it hangs: the process ends right after this.
  const std::unique_lock<std::mutex> lock(ch.mutex, std::try_to_lock);
  append_record(ch, "result",
                ", \"status\": \"failed\", \"message\": " + json_string(message) + json_time());
  ch.active = false;
}

std::string ctest_name_of(const std::string& gtest_name) {
  if (const char* env_name = std::getenv("CUDALAB_TEST_NAME"); env_name != nullptr && *env_name) {
    return env_name;
  }
  const char* batch_prefix = std::getenv("CUDALAB_TEST_PREFIX");  // a batch run: every test
  if (batch_prefix != nullptr && std::getenv("CUDALAB_BATCH_DIR") != nullptr) {
    return batch_prefix + gtest_name;
  }
  return "";
}

std::string test_file_name(const std::string& test, const std::string& suffix) {
  return verdict::file_name(test, suffix);
}

void record_measurement(const Measurement& m) {
  // A perf test's verdict stands on runs that had the GPU alone (cudalab/gpu_lock.hpp): a
  // measurement path that took no AloneOnGpu while other tests shared the GPU is the harness's
  // mistake, and it must not pass unnoticed.
  if (!std::isnan(m.threshold) && gpu_lock_active()) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (info != nullptr && suite_ending(info->test_suite_name()) == "Perf" &&
        !timed_alone_in_this_test()) {
      ADD_FAILURE() << "harness: " << m.name
                    << " was measured while other tests could share the GPU (no timed run of "
                       "this test had the GPU alone; cudalab/gpu_lock.hpp)";
    }
  }
  char line[512];
  if (std::isnan(m.threshold)) {
    std::snprintf(line, sizeof line, "[ MEASURE  ] %s = %.4g %s", m.name.c_str(), m.value,
                  m.unit.c_str());
  } else {
    std::snprintf(line, sizeof line, "[ MEASURE  ] %s = %.4g %s (threshold %.4g)", m.name.c_str(),
                  m.value, m.unit.c_str(), m.threshold);
  }
  // The highest tier reached (if any), every tier as JSON and as text.
  const Tier* reached = nullptr;
  std::string tiers_json;
  std::string tiers_text;
  for (const Tier& level : m.tiers) {
    if (!std::isnan(m.value) && m.value >= level.at_least) reached = &level;
    char part[160];
    std::snprintf(part, sizeof part, "%s%s >= %.4g", tiers_text.empty() ? "" : ", ",
                  level.name.c_str(), level.at_least);
    tiers_text += part;
    tiers_json += (tiers_json.empty() ? "" : ", ") + std::string("{\"name\": ") +
                  json_string(level.name) + ", \"at_least\": " + json_number(level.at_least) + "}";
  }
  const std::string tier = reached != nullptr ? json_string(reached->name) : "null";
  std::printf("%s", line);
  if (!m.tiers.empty()) {
    std::printf(" tier: %s (%s)", reached != nullptr ? reached->name.c_str() : "none",
                tiers_text.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
  ::testing::Test::RecordProperty(m.name, std::to_string(m.value));

  std::string verdict = "null";
  if (m.bound != Bound::kNone && std::isfinite(m.threshold) && !std::isnan(m.value)) {
    const bool pass = m.bound == Bound::kAtLeast ? m.value >= m.threshold : m.value <= m.threshold;
    verdict = pass ? "\"pass\"" : "\"fail\"";
  }
  Channel& ch = channel();
  const std::lock_guard<std::mutex> lock(ch.mutex);
  append_record(
      ch, "measurement",
      ", \"name\": " + json_string(m.name) + ", \"value\": " + json_number(m.value) +
          ", \"unit\": " + json_string(m.unit) + ", \"threshold\": " + json_number(m.threshold) +
          ", \"bound\": " + bound_name(m.bound) + ", \"verdict\": " + verdict +
          ", \"unscaled_threshold\": " + json_number(m.unscaled_threshold) + json_scale() +
          ", \"text\": " + (m.text.empty() ? std::string("null") : json_string(m.text)) +
          ", \"tiers\": [" + tiers_json + "], \"tier\": " + tier + json_time());
}

void record_measurement(const std::string& name, double value, const std::string& unit,
                        double threshold, Bound bound) {
  Measurement m;
  m.name = name;
  m.value = value;
  m.unit = unit;
  m.threshold = threshold;
  m.bound = bound;
  record_measurement(m);
}

namespace {

/// The course's calibration files (loaded once) and the GPU model this process runs on.
struct ActiveCalibration {
  std::string gpu;               ///< the GPU model the process runs on
  std::vector<Calibration> all;  ///< tests/calibration/*.tsv
  std::string error;             ///< a file that could not be read or parsed
};

const ActiveCalibration& active_calibration() {
  static const ActiveCalibration a = [] {
    ActiveCalibration c;
    c.gpu = query_device().name;
    try {
      c.all = load_calibrations(calibration_dir());
      for (Calibration& f : c.all) {  // named as in the repository, wherever the course is
        f.file = "tests/calibration/" + std::filesystem::path(f.file).filename().string();
      }
    } catch (const std::exception& e) {
      c.error = e.what();
    }
    return c;
  }();
  return a;
}

/// The files a missing bar was looked for in, for the failure message.
std::string searched_files(const ActiveCalibration& cal) {
  std::string out;
  for (const Calibration& f : cal.all) {
    if (f.gpu == cal.gpu || f.reference) out += (out.empty() ? "" : " or ") + f.file;
  }
  return out.empty() ? "tests/calibration (no file for this GPU, no reference file)" : out;
}

}  // namespace

double speed_bar(const std::string& name, Bound bound, double measured) {
  const ActiveCalibration& cal = active_calibration();
  if (!cal.error.empty()) ADD_FAILURE() << cal.error;
  Channel& ch = channel();
  std::unique_lock<std::mutex> lock(ch.mutex);
  // A test that judges two bars of one name (two kernels against one copy) gets "name#2", ...
  std::string key = name;
  for (int n = 2; ch.bars.count(key) != 0; ++n) key = name + "#" + std::to_string(n);
  auto bar_of = [&](const std::string& k) {
    return [&ch, k](const Calibration& c) {
      return ch.active ? c.bar(ch.test, k) : c.bar_by_gtest_name(ch.gtest, k);
    };
  };
  BarChoice choice = choose_bar(cal.all, cal.gpu, bar_of(key));
  if (choice.from == nullptr && key != name) {
    // A later bar of a name the calibration knows only once: code that judged a bar of this
    // name first (a lab file runs inside this process) would otherwise move the real bar to
    // an uncalibrated key. It gets the name's calibrated bar, never a looser one.
    choice = choose_bar(cal.all, cal.gpu, bar_of(name));
  }
  const Calibration* reference = reference_calibration(cal.all);
  const double reference_bar = reference != nullptr ? bar_of(key)(*reference) : std::nan("");
  const std::string test = ch.active ? ch.test : ch.gtest;
  ch.bars[key] = choice.bar;
  std::string source = "none";
  if (choice.from != nullptr) {
    source = choice.from->gpu == cal.gpu ? "calibration" : "reference";
    std::printf(
        "[ BAR      ] %s: %.4g (%s, %s)\n", key.c_str(), choice.bar,
        source == "reference" ? "the reference GPU's calibration" : "calibrated for this GPU",
        choice.from->file.c_str());
    if (!choice.note.empty()) std::printf("[ BAR      ] note: %s\n", choice.note.c_str());
  }
  std::fflush(stdout);
  const bool found = choice.from != nullptr;
  append_record(
      ch, "bar",
      ", \"name\": " + json_string(key) + ", \"bound\": " + bound_name(bound) +
          ", \"value\": " + json_number(measured) + ", \"bar\": " + json_number(choice.bar) +
          ", \"reference\": " + json_number(reference_bar) +
          ", \"source\": " + json_string(source) +
          ", \"calibration\": " + (found ? json_string(choice.from->file) : std::string("null")) +
          ", \"calibration_gpu\": " +
          (found ? json_string(choice.from->gpu) : std::string("null")) +
          ", \"gpu\": " + json_string(cal.gpu) +
          ", \"note\": " + (choice.note.empty() ? std::string("null") : json_string(choice.note)));
  lock.unlock();
  if (choice.from == nullptr) {
    ADD_FAILURE() << "no bar for " << test << " " << key << " in " << searched_files(cal)
                  << ": the course's calibration run of the reference solutions writes it";
  }
  return choice.bar;
}

double current_bar(const std::string& key) {
  Channel& ch = channel();
  const std::lock_guard<std::mutex> lock(ch.mutex);
  const auto it = ch.bars.find(key);
  return it == ch.bars.end() ? std::nan("") : it->second;
}

std::vector<Tier> speed_tiers(const std::string& measurement,
                              const std::vector<std::string>& names) {
  const ActiveCalibration& cal = active_calibration();
  if (!cal.error.empty()) ADD_FAILURE() << cal.error;
  Channel& ch = channel();
  std::unique_lock<std::mutex> lock(ch.mutex);
  const std::string test = ch.active ? ch.test : ch.gtest;
  const TierChoice choice = choose_tiers(
      cal.all, cal.gpu, names, [&ch, &measurement](const Calibration& c, const std::string& name) {
        return ch.active ? c.tier(ch.test, measurement, name)
                         : c.tier_by_gtest_name(ch.gtest, measurement, name);
      });
  lock.unlock();
  for (const std::string& name : choice.missing) {
    ADD_FAILURE() << "no tier " << name << " of " << test << " " << measurement << " in "
                  << searched_files(cal) << ": a tier is a line of the calibration file";
  }
  std::vector<Tier> out;
  for (const auto& [name, value] : choice.tiers) out.push_back({name, value});
  return out;
}

void expect_speedup(const Comparison& cmp, const std::string& what) {
  const double bar = speed_bar("speedup", Bound::kAtLeast, cmp.speedup);
  const SpeedVerdict v = judge_speedup(cmp, bar, what);
  Measurement m;
  m.name = "speedup";
  m.value = v.measured;
  m.unit = "x";
  m.threshold = v.threshold;
  m.bound = Bound::kAtLeast;
  m.unscaled_threshold = bar;
  m.text = v.text;
  record_measurement(m);
  std::printf("[ SPEED    ] %s\n", v.text.c_str());
  EXPECT_TRUE(v.pass) << v.text;
}

void set_channel_device(const DeviceInfo& d) {
  auto version = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  };
  std::ostringstream os;
  os << ", \"available\": true, \"id\": " << d.id << ", \"name\": " << json_string(d.name)
     << ", \"compute_capability\": "
     << json_string(std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor))
     << ", \"sm_count\": " << d.sm_count << ", \"sm_clock_mhz\": " << d.sm_clock_khz / 1000
     << ", \"memory_clock_mhz\": " << d.mem_clock_khz / 1000
     << ", \"memory_bus_bits\": " << d.mem_bus_bits << ", \"l2_bytes\": " << d.l2_bytes
     << ", \"global_memory_bytes\": " << d.global_mem_bytes
     << ", \"smem_per_block_optin_kb\": " << d.smem_per_block_optin / 1024
     << ", \"smem_per_sm_kb\": " << d.smem_per_sm / 1024
     << ", \"driver\": " << json_string(version(d.driver_version))
     << ", \"runtime\": " << json_string(version(d.runtime_version))
     << ", \"description\": " << json_string(describe(d));
  Channel& ch = channel();
  const std::lock_guard<std::mutex> lock(ch.mutex);
  ch.device = os.str();
  append_record(ch, "device", ch.device);  // the running test learns it now
}

void set_channel_no_gpu(const std::string& reason) {
  Channel& ch = channel();
  const std::lock_guard<std::mutex> lock(ch.mutex);
  ch.device = ", \"available\": false, \"reason\": " + json_string(reason);
  append_record(ch, "device", ch.device);
}

namespace {
std::string& gpu_note() {
  static std::string line;
  return line;
}
bool& gpu_available() {
  static bool available = false;
  return available;
}
}  // namespace

void note_gpu() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string unavailable_reason = gpu_unavailable_reason();
    if (!unavailable_reason.empty()) {
      gpu_note() = "[ CUDALAB  ] GPU tests will be skipped: " + unavailable_reason;
      std::printf("%s\n", gpu_note().c_str());
      set_channel_no_gpu(unavailable_reason);
      return;
    }
    const DeviceInfo info = query_device();
    const char* resource = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    gpu_note() = "[ CUDALAB  ] GPU " + std::to_string(info.id) +
                 (resource != nullptr && *resource != '\0' ? ", CTest resource " : "") +
                 (resource != nullptr ? resource : "") + ": " + describe(info);
    std::printf("%s\n", gpu_note().c_str());
    gpu_available() = true;
    set_channel_device(info);
  });
}

std::string gpu_note_line() {
  return gpu_note();
}

bool gpu_in_use() {
  return gpu_available();
}

::testing::TestEventListener* make_channel_listener() {
  return new ChannelListener;
}

}  // namespace cudalab::testing
