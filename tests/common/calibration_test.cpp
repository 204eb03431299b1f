// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the per-GPU speed bars (cudalab/calibration.hpp) that need no GPU.
#include "cudalab/calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

namespace {

cudalab::Calibration parse(const std::string& text, const std::string& file = "x.tsv") {
  std::istringstream in(text);
  return cudalab::parse_calibration(in, file);
}

const char* const kH100 =
    "# cudalabs calibration v1\n"
    "gpu\tNVIDIA H100 80GB HBM3\n"
    "reference\tno\n"
    "runs\t3\n"
    "bar\tlab04.TiledPerf.StaticTilesBeatNaive\tspeedup\tmin\t1.1\tmeasured\t1.61\t1.62\t1.6\n"
    "bar\tlab10.AllFieldsPerf.Band\tspeedup_upper_bound\tmax\t1.6\tmeasured\t1.1\t1.2\t1.1\n"
    "bar\tlab11.CopyPerf.Float4CopyReachesTheDeviceCopyBandwidth\tshare\tmin\t0.85\tfixed\n";

TEST(GivenCalibrationCpu, ParsesBarsAndFacts) {
  const cudalab::Calibration c = parse(kH100);
  EXPECT_EQ(c.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(c.reference);
  EXPECT_EQ(c.facts.at("runs"), "3");
  EXPECT_DOUBLE_EQ(c.bar("lab04.TiledPerf.StaticTilesBeatNaive", "speedup"), 1.1);
  EXPECT_DOUBLE_EQ(c.bar("lab10.AllFieldsPerf.Band", "speedup_upper_bound"), 1.6);
  EXPECT_DOUBLE_EQ(c.bar("lab11.CopyPerf.Float4CopyReachesTheDeviceCopyBandwidth", "share"), 0.85);
  EXPECT_TRUE(std::isnan(c.bar("lab04.TiledPerf.StaticTilesBeatNaive", "share")));
  EXPECT_TRUE(std::isnan(c.bar("lab04.TiledPerf.Other", "speedup")));
}

TEST(GivenCalibrationCpu, FindsABarByGoogleTestNameWhenUnique) {
  const cudalab::Calibration c = parse(kH100);
  EXPECT_DOUBLE_EQ(c.bar_by_gtest_name("TiledPerf.StaticTilesBeatNaive", "speedup"), 1.1);
  EXPECT_TRUE(std::isnan(c.bar_by_gtest_name("Perf.StaticTilesBeatNaive", "speedup")));
  const cudalab::Calibration two =
      parse(std::string(kH100) + "bar\tlab99.TiledPerf.StaticTilesBeatNaive\tspeedup\tmin\t2\tx\n");
  EXPECT_TRUE(std::isnan(two.bar_by_gtest_name("TiledPerf.StaticTilesBeatNaive", "speedup")))
      << "two labs' tests of that name: ambiguous, so no bar";
}

TEST(GivenCalibrationCpu, RejectsMalformedFilesWithTheLine) {
  auto message = [](const std::string& text) {
    try {
      parse(text, "bad.tsv");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("reference\tyes\n").find("no 'gpu' line"), std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\tfast\tmeasured\n").find("bad.tsv:2"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tabove\t1\tmeasured\n").find("min or max"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t-1\tmeasured\n").find("positive"), std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t1\tx\nbar\tt\tm\tmin\t2\tx\n").find("second bar"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nreference\tmaybe\n").find("yes or no"), std::string::npos);
  EXPECT_NE(message("gpu\tX\njust one field\n").find("bad.tsv:2"), std::string::npos);
}

TEST(GivenCalibrationCpu, ChoosesTheGpusOwnElseTheReferenceElseNone) {
  std::vector<cudalab::Calibration> all = {
      parse(kH100, "h100.tsv"),
      parse("gpu\tNVIDIA H200\nreference\tyes\nbar\tt\tspeedup\tmin\t1\tmeasured\n", "h200.tsv")};
  std::string note = "stale";
  const cudalab::Calibration* own =
      cudalab::choose_calibration(all, "NVIDIA H100 80GB HBM3", &note);
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->file, "h100.tsv");
  EXPECT_TRUE(note.empty());
  const cudalab::Calibration* fallback = cudalab::choose_calibration(all, "NVIDIA A100", &note);
  ASSERT_NE(fallback, nullptr);
  EXPECT_EQ(fallback->file, "h200.tsv");
  EXPECT_NE(note.find("no calibration for NVIDIA A100"), std::string::npos) << note;
  EXPECT_NE(note.find("NVIDIA H200"), std::string::npos) << note;
  all.pop_back();
  EXPECT_EQ(cudalab::choose_calibration(all, "NVIDIA A100", &note), nullptr);
  EXPECT_NE(note.find("graders' own bars"), std::string::npos) << note;
}

// The files the course ships: each parses, one GPU model per file, exactly one reference.
TEST(GivenCalibrationCpu, TheCourseFilesParse) {
  const std::vector<cudalab::Calibration> all =
      cudalab::load_calibrations(cudalab::calibration_dir());
  ASSERT_FALSE(all.empty()) << "no calibration file in " << cudalab::calibration_dir();
  std::set<std::string> models;
  int references = 0;
  for (const cudalab::Calibration& c : all) {
    EXPECT_TRUE(models.insert(c.gpu).second) << "two files for " << c.gpu;
    EXPECT_FALSE(c.bars.empty()) << c.file << " has no bar";
    references += c.reference ? 1 : 0;
  }
  EXPECT_EQ(references, 1) << "exactly one file must be the reference GPU's";
}

}  // namespace
