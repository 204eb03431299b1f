// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file calibration.hpp
 * @brief Speed bars and tiers per GPU model (tests/calibration/): the only place a bar's or a
 * tier's number lives.
 *
 * A grader names a bar, never its number: cudalab::testing::speed_bar() looks up the running
 * test's CTest name and the measurement's name ("speedup", "share", "share#2" for the second
 * share of one test, ...) at run time, in the file of the GPU the test runs on, else in the
 * reference GPU's file (`reference yes`, an NVIDIA H200; with a printed note). A bar in
 * neither file fails the test. The course's calibration run (an instructor tool) runs the
 * reference solutions three times on a GPU and writes one file per GPU model,
 * `tests/calibration/<model>.tsv`: every bar is 0.7 x the lowest run (a lower bound; 1.3 x
 * the highest for an upper bound), rounded away from the runs to two significant digits, or
 * the lab's fixed bar, copied with its note from the reference file.
 *
 * The file is tab-separated text, one record per line (`#` starts a comment):
 * @code
 * gpu        <the name cudaGetDeviceProperties() reports, e.g. NVIDIA H100 80GB HBM3>
 * reference  yes|no          (yes: the course's reference GPU, used where no file has a bar)
 * created    <UTC time>      course <commit>   runs <n>   (free-form facts, any key)
 * bar        <CTest test name>  <measurement>  min|max  <bar>  measured|fixed  <run values...>
 * note       <CTest test name>  <measurement>  <provenance: what is compared, the rule, why>
 * tier       <CTest test name>  <measurement>  <tier name>  <value>  fixed|measured
 * note       <CTest test name>  <measurement>  <provenance of the tier>
 * @endcode
 * A `note` line follows the `bar` or `tier` line it explains (one note per line): what is
 * compared, the runs and measurements behind the bar, and for a `fixed` bar why it sits where
 * it does. The reference file notes every bar and tier; another GPU's file notes its fixed bars
 * and its tiers.
 *
 * A tier is a named level above a measurement's bar ("good", "excellent") that a perf test
 * shows and records with the measurement and does not grade: the measurement reaches it at or
 * above its value (in the unit of the measurement the tier names: a share 0.94, not 94 %; not
 * scaled by CUDALAB_SPEEDUP_SCALE). Like a bar, a grader names its tiers and never holds their
 * numbers (cudalab::testing::speed_tiers()): they are looked up by test, measurement and tier
 * name in the GPU's file, else in the reference file, and a tier in neither fails the test. The
 * calibration run sets no tier: it carries them over (`fixed`: set by the course's design;
 * `measured`: placed from measured runs that its note names).
 */
#pragma once

#include <cmath>
#include <functional>
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cudalab {

/// One speed bar of a calibration file: a `bar` line and its `note`.
struct CalibratedBar {
  double value = 0.0;        ///< the bar, before CUDALAB_SPEEDUP_SCALE
  bool upper = false;        ///< `max`: the measurement must stay at or below the bar
  bool fixed = false;        ///< `fixed`: set by the course's design, not by the runs
  std::vector<double> runs;  ///< the reference solution's measured values on this GPU
  std::string note;          ///< the provenance (empty when the file has no note)
};

/// One tier of a calibration file: a `tier` line and its `note`.
struct CalibratedTier {
  std::string name;    ///< e.g. "good", "excellent"
  double value = 0.0;  ///< the value of the measurement from which the tier is reached
  bool fixed = false;  ///< `fixed`: set by the course's design, not by measured runs
  std::string note;    ///< the provenance (empty when the file has no note)
};

/// One GPU model's speed bars and tiers (one file of tests/calibration/).
struct Calibration {
  std::string file;                          ///< where it was read from
  std::string gpu;                           ///< the GPU model it was measured on
  bool reference = false;                    ///< the course's reference GPU
  std::map<std::string, std::string> facts;  ///< created, course, runs, ...
  std::map<std::pair<std::string, std::string>, CalibratedBar> bars;  ///< (test, measurement)
  /// (test, measurement) -> its tiers, in the file's order
  std::map<std::pair<std::string, std::string>, std::vector<CalibratedTier>> tiers;

  /// The bar of (@p test, @p measurement); NaN when the file has none.
  double bar(const std::string& test, const std::string& measurement) const;

  /**
   * @brief The bar of @p measurement in the test whose CTest name ends with
   * "." + @p gtest_name (a grader run by hand, without its CTest name); NaN unless exactly
   * one test matches.
   */
  double bar_by_gtest_name(const std::string& gtest_name, const std::string& measurement) const;

  /// The value of the tier @p name of (@p test, @p measurement); NaN when the file has none.
  double tier(const std::string& test, const std::string& measurement,
              const std::string& name) const;

  /// tier() of the test whose CTest name ends with "." + @p gtest_name; NaN unless exactly one
  /// test of the file has that tier (as bar_by_gtest_name()).
  double tier_by_gtest_name(const std::string& gtest_name, const std::string& measurement,
                            const std::string& name) const;
};

/// Parses one calibration file; throws std::runtime_error naming @p file and the line.
Calibration parse_calibration(std::istream& in, const std::string& file);

/// Every `*.tsv` file of @p dir, by file name (none when @p dir does not exist).
std::vector<Calibration> load_calibrations(const std::string& dir);

/// Where a bar came from: choose_bar().
struct BarChoice {
  double bar = std::nan("");          ///< the bar; NaN when no file has one
  const Calibration* from = nullptr;  ///< the file it came from; nullptr when none
  std::string note;                   ///< why not the GPU's own file (empty: it is, or none)
};

/**
 * @brief The bar for the GPU model @p gpu, where @p bar_of reads one file's bar (NaN: none):
 * the file measured on @p gpu, else the reference GPU's file (and the note says why), else
 * none (BarChoice::from is nullptr).
 */
BarChoice choose_bar(const std::vector<Calibration>& all, const std::string& gpu,
                     const std::function<double(const Calibration&)>& bar_of);

/// The tiers choose_tiers() found and the ones it did not.
struct TierChoice {
  std::vector<std::pair<std::string, double>> tiers;  ///< (name, value), lowest value first
  std::vector<std::string> missing;                   ///< the names that no file has
};

/**
 * @brief The tiers @p names for the GPU model @p gpu, where @p tier_of reads one file's tier of
 * a name (NaN: none): each from the file choose_bar() picks for it (the GPU's own, else the
 * reference GPU's); a name in neither file is listed in TierChoice::missing.
 */
TierChoice choose_tiers(
    const std::vector<Calibration>& all, const std::string& gpu,
    const std::vector<std::string>& names,
    const std::function<double(const Calibration&, const std::string&)>& tier_of);

/// The reference GPU's file among @p all (`reference yes`); nullptr when there is none.
const Calibration* reference_calibration(const std::vector<Calibration>& all);

/// The folder of the course's calibration files (tests/calibration of the source tree).
std::string calibration_dir();

}  // namespace cudalab
