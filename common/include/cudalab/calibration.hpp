// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file calibration.hpp
 * @brief Speed bars calibrated per GPU model (tests/calibration/).
 *
 * A grader states each speed bar once, as the course's reference value (set on an NVIDIA
 * H200). The course's calibration run (an instructor tool) runs the reference solutions
 * three times on a GPU and writes one file per GPU model, `tests/calibration/<model>.tsv`:
 * for every bar, 0.7 x the lowest run (a lower bound; 1.3 x the highest for an upper bound)
 * or the lab's fixed bar. At run time cudalab::testing::speed_bar() takes the bar from the
 * file of the GPU the test runs on, else from the reference GPU's file (with a printed note),
 * else the grader's own value.
 *
 * The file is tab-separated text, one record per line (`#` starts a comment):
 * @code
 * gpu        <the name cudaGetDeviceProperties() reports, e.g. NVIDIA H100 80GB HBM3>
 * reference  yes|no          (yes: the course's reference GPU, used where no file matches)
 * created    <UTC time>      course <commit>   runs <n>   (free-form facts, any key)
 * bar        <CTest test name>  <measurement>  min|max  <bar>  measured|fixed  <run values...>
 * @endcode
 */
#pragma once

#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cudalab {

/// One GPU model's speed bars (one file of tests/calibration/).
struct Calibration {
  std::string file;                                            ///< where it was read from
  std::string gpu;                                             ///< the GPU model it was measured on
  bool reference = false;                                      ///< the course's reference GPU
  std::map<std::string, std::string> facts;                    ///< created, course, runs, rule, ...
  std::map<std::pair<std::string, std::string>, double> bars;  ///< (test, measurement) -> bar

  /// The bar of (@p test, @p measurement); NaN when the file has none.
  double bar(const std::string& test, const std::string& measurement) const;

  /**
   * @brief The bar of @p measurement in the test whose CTest name ends with
   * "." + @p gtest_name (a grader run by hand, without its CTest name); NaN unless exactly
   * one test matches.
   */
  double bar_by_gtest_name(const std::string& gtest_name, const std::string& measurement) const;
};

/// Parses one calibration file; throws std::runtime_error naming @p file and the line.
Calibration parse_calibration(std::istream& in, const std::string& file);

/// Every `*.tsv` file of @p dir, by file name (none when @p dir does not exist).
std::vector<Calibration> load_calibrations(const std::string& dir);

/**
 * @brief The calibration for the GPU model @p gpu among @p all: the one measured on it, else
 * the reference GPU's (and @p note says so), else nullptr (and @p note says that the graders'
 * own bars apply).
 */
const Calibration* choose_calibration(const std::vector<Calibration>& all, const std::string& gpu,
                                      std::string* note);

/// The folder of the course's calibration files (tests/calibration of the source tree).
std::string calibration_dir();

}  // namespace cudalab
