// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the per-GPU speed bars and tiers (cudalab/calibration.hpp) that need no GPU.
#include "cudalab/calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

cudalab::Calibration parse(const std::string& text, const std::string& file = "x.tsv") {
  std::istringstream in(text);
  return cudalab::parse_calibration(in, file);
}

/// The message parse() throws for @p text (read as bad.tsv); "no error" when it parses.
std::string message(const std::string& text) {
  try {
    parse(text, "bad.tsv");
  } catch (const std::runtime_error& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

const char* const kH100 =
    "# cudalabs calibration v1\n"
    "gpu\tNVIDIA H100 80GB HBM3\n"
    "reference\tno\n"
    "runs\t3\n"
    "bar\tlab04.TiledPerf.StaticTilesBeatNaive\tspeedup\tmin\t1.1\tmeasured\t1.61\t1.62\t1.6\n"
    "bar\tlab10.AllFieldsPerf.Band\tspeedup_upper_bound\tmax\t1.6\tmeasured\t1.1\t1.2\t1.1\n"
    "bar\tlab11.CopyPerf.Float4CopyReachesTheDeviceCopyBandwidth\tshare\tmin\t0.85\tfixed\n"
    "# a comment between a bar and its note\n"
    "note\tlab11.CopyPerf.Float4CopyReachesTheDeviceCopyBandwidth\tshare\tthe lab's goal\n";

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
  const cudalab::CalibratedBar& band =
      c.bars.at({"lab10.AllFieldsPerf.Band", "speedup_upper_bound"});
  EXPECT_TRUE(band.upper);
  EXPECT_FALSE(band.fixed);
  EXPECT_EQ(band.runs, (std::vector<double>{1.1, 1.2, 1.1}));
  EXPECT_TRUE(band.note.empty());
  const cudalab::CalibratedBar& fixed =
      c.bars.at({"lab11.CopyPerf.Float4CopyReachesTheDeviceCopyBandwidth", "share"});
  EXPECT_TRUE(fixed.fixed);
  EXPECT_TRUE(fixed.runs.empty());
  EXPECT_EQ(fixed.note, "the lab's goal");
}

TEST(GivenCalibrationCpu, FindsABarByGoogleTestNameWhenUnique) {
  const cudalab::Calibration c = parse(kH100);
  EXPECT_DOUBLE_EQ(c.bar_by_gtest_name("TiledPerf.StaticTilesBeatNaive", "speedup"), 1.1);
  EXPECT_TRUE(std::isnan(c.bar_by_gtest_name("Perf.StaticTilesBeatNaive", "speedup")));
  const cudalab::Calibration two =
      parse(std::string(kH100) +
            "bar\tlab99.TiledPerf.StaticTilesBeatNaive\tspeedup\tmin\t2\tmeasured\n");
  EXPECT_TRUE(std::isnan(two.bar_by_gtest_name("TiledPerf.StaticTilesBeatNaive", "speedup")))
      << "two labs' tests of that name: ambiguous, so no bar";
}

TEST(GivenCalibrationCpu, RejectsMalformedFilesWithTheLine) {
  EXPECT_NE(message("reference\tyes\n").find("no 'gpu' line"), std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\tfast\tmeasured\n").find("bad.tsv:2"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tabove\t1\tmeasured\n").find("min or max"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t-1\tmeasured\n").find("positive"), std::string::npos);
  EXPECT_NE(
      message("gpu\tX\nbar\tt\tm\tmin\t1\tfixed\nbar\tt\tm\tmin\t2\tfixed\n").find("second bar"),
      std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t1\tguessed\n").find("measured or fixed"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t1\tmeasured\t1.4\tfast\n").find("a run 'fast'"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nnote\tt\tm\twhy\n").find("must follow the bar or tier line"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t1\tfixed\nbar\tu\tm\tmin\t1\tfixed\n"
                    "note\tt\tm\twhy\n")
                .find("bad.tsv:4"),
            std::string::npos)
      << "a note after another bar's line";
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t1\tfixed\nnote\tt\tm\ta\nnote\tt\tm\tb\n")
                .find("second note"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nbar\tt\tm\tmin\t1\tfixed\nnote\tt\tm\n").find("its text"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\nreference\tmaybe\n").find("yes or no"), std::string::npos);
  EXPECT_NE(message("gpu\tX\njust one field\n").find("bad.tsv:2"), std::string::npos);
}

const char* const kTiers =
    "gpu\tNVIDIA H100 80GB HBM3\n"
    "bar\tlab13.StreamKPerf.ShareOfCublas\tspeedup\tmin\t0.67\tmeasured\t0.963\n"
    "note\tlab13.StreamKPerf.ShareOfCublas\tspeedup\tthe bar\n"
    "tier\tlab13.StreamKPerf.ShareOfCublas\tspeedup\tgood\t0.94\tfixed\n"
    "note\tlab13.StreamKPerf.ShareOfCublas\tspeedup\tpast stage 5\n"
    "tier\tlab13.StreamKPerf.ShareOfCublas\tspeedup\texcellent\t0.96\tmeasured\n"
    "tier\tlab14.PersistentPerf.MultipleOfThePopcCeiling\tx\tgood\t11\tfixed\n";

TEST(GivenCalibrationCpu, ParsesTiersAndTheirNotes) {
  const cudalab::Calibration c = parse(kTiers);
  EXPECT_DOUBLE_EQ(c.tier("lab13.StreamKPerf.ShareOfCublas", "speedup", "good"), 0.94);
  EXPECT_DOUBLE_EQ(c.tier("lab13.StreamKPerf.ShareOfCublas", "speedup", "excellent"), 0.96);
  EXPECT_DOUBLE_EQ(c.tier("lab14.PersistentPerf.MultipleOfThePopcCeiling", "x", "good"), 11);
  EXPECT_TRUE(std::isnan(c.tier("lab13.StreamKPerf.ShareOfCublas", "speedup", "superb")));
  EXPECT_TRUE(std::isnan(c.tier("lab13.StreamKPerf.ShareOfCublas", "share", "good")));
  EXPECT_TRUE(std::isnan(c.tier("lab13.StreamKPerf.Other", "speedup", "good")));
  EXPECT_DOUBLE_EQ(c.bar("lab13.StreamKPerf.ShareOfCublas", "speedup"), 0.67) << "a tier is no bar";
  EXPECT_EQ(c.bars.at({"lab13.StreamKPerf.ShareOfCublas", "speedup"}).note, "the bar")
      << "a note belongs to the line it follows";
  const std::vector<cudalab::CalibratedTier>& tiers =
      c.tiers.at({"lab13.StreamKPerf.ShareOfCublas", "speedup"});
  ASSERT_EQ(tiers.size(), 2u);
  EXPECT_EQ(tiers[0].name, "good");
  EXPECT_TRUE(tiers[0].fixed);
  EXPECT_EQ(tiers[0].note, "past stage 5");
  EXPECT_FALSE(tiers[1].fixed);
  EXPECT_TRUE(tiers[1].note.empty());
  EXPECT_DOUBLE_EQ(c.tier_by_gtest_name("StreamKPerf.ShareOfCublas", "speedup", "excellent"), 0.96);
  EXPECT_TRUE(std::isnan(c.tier_by_gtest_name("StreamKPerf.ShareOfCublas", "speedup", "best")));
  const cudalab::Calibration two = parse(
      std::string(kTiers) + "tier\tlab99.StreamKPerf.ShareOfCublas\tspeedup\tgood\t0.5\tfixed\n");
  EXPECT_TRUE(std::isnan(two.tier_by_gtest_name("StreamKPerf.ShareOfCublas", "speedup", "good")))
      << "two labs' tests of that name: ambiguous, so no tier";
}

TEST(GivenCalibrationCpu, RejectsMalformedTierLinesWithTheLine) {
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\t0.9\n").find("bad.tsv:2: a tier needs"),
            std::string::npos)
      << "no rule";
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\t0.9\tfixed\t0.93\n").find("a tier needs"),
            std::string::npos)
      << "a tier has no runs";
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\t\t0.9\tfixed\n").find("a tier needs"), std::string::npos)
      << "no name";
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\thigh\tfixed\n").find("the tier 'high'"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\t0\tfixed\n").find("positive"), std::string::npos);
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\t0.9\tguessed\n").find("measured or fixed"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\t0.9\tfixed\ntier\tt\tm\tgood\t1\tfixed\n")
                .find("bad.tsv:3: a second tier good"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\t0.9\tfixed\nnote\tt\tm\ta\nnote\tt\tm\tb\n")
                .find("second note"),
            std::string::npos);
  EXPECT_NE(message("gpu\tX\ntier\tt\tm\tgood\t0.9\tfixed\nnote\tu\tm\twhy\n")
                .find("bad.tsv:3: a note must follow"),
            std::string::npos)
      << "a note after another test's tier";
}

TEST(GivenCalibrationCpu, ChoosesEachTierFromTheGpusOwnFileElseTheReferenceElseMissing) {
  const std::vector<cudalab::Calibration> all = {
      parse(kTiers, "h100.tsv"),
      parse("gpu\tNVIDIA H200\nreference\tyes\n"
            "tier\tlab13.StreamKPerf.ShareOfCublas\tspeedup\tgood\t0.9\tfixed\n"
            "tier\tlab13.StreamKPerf.ShareOfCublas\tspeedup\tbest\t0.99\tfixed\n",
            "h200.tsv")};
  auto tier_of = [](const cudalab::Calibration& c, const std::string& name) {
    return c.tier("lab13.StreamKPerf.ShareOfCublas", "speedup", name);
  };
  using Tiers = std::vector<std::pair<std::string, double>>;
  const cudalab::TierChoice own =
      cudalab::choose_tiers(all, "NVIDIA H100 80GB HBM3", {"excellent", "good", "best"}, tier_of);
  EXPECT_EQ(own.tiers, (Tiers{{"good", 0.94}, {"excellent", 0.96}, {"best", 0.99}}))
      << "the GPU's own tiers, one its file lacks from the reference; lowest first";
  EXPECT_TRUE(own.missing.empty());
  const cudalab::TierChoice other =
      cudalab::choose_tiers(all, "NVIDIA A100", {"good", "excellent", "superb"}, tier_of);
  EXPECT_EQ(other.tiers, (Tiers{{"good", 0.9}})) << "another GPU: the reference file's";
  EXPECT_EQ(other.missing, (std::vector<std::string>{"excellent", "superb"}))
      << "a tier in neither file is missing, never a default";
}

TEST(GivenCalibrationCpu, ChoosesTheGpusOwnBarElseTheReferenceBarElseNone) {
  std::vector<cudalab::Calibration> all = {
      parse(kH100, "h100.tsv"),
      parse("gpu\tNVIDIA H200\nreference\tyes\n"
            "bar\tlab04.TiledPerf.StaticTilesBeatNaive\tspeedup\tmin\t1.2\tmeasured\n"
            "bar\tt\tspeedup\tmin\t3\tmeasured\n",
            "h200.tsv")};
  auto bar_of = [](const std::string& test) {
    return [test](const cudalab::Calibration& c) { return c.bar(test, "speedup"); };
  };
  const cudalab::BarChoice own = cudalab::choose_bar(
      all, "NVIDIA H100 80GB HBM3", bar_of("lab04.TiledPerf.StaticTilesBeatNaive"));
  ASSERT_NE(own.from, nullptr);
  EXPECT_EQ(own.from->file, "h100.tsv");
  EXPECT_DOUBLE_EQ(own.bar, 1.1);
  EXPECT_TRUE(own.note.empty());
  const cudalab::BarChoice missing_here =
      cudalab::choose_bar(all, "NVIDIA H100 80GB HBM3", bar_of("t"));
  ASSERT_NE(missing_here.from, nullptr) << "a bar the GPU's own file lacks: the reference's";
  EXPECT_EQ(missing_here.from->file, "h200.tsv");
  EXPECT_DOUBLE_EQ(missing_here.bar, 3);
  EXPECT_NE(missing_here.note.find("no bar for this test in h100.tsv"), std::string::npos)
      << missing_here.note;
  const cudalab::BarChoice fallback = cudalab::choose_bar(all, "NVIDIA A100", bar_of("t"));
  ASSERT_NE(fallback.from, nullptr);
  EXPECT_EQ(fallback.from->file, "h200.tsv");
  EXPECT_NE(fallback.note.find("no calibration for NVIDIA A100"), std::string::npos)
      << fallback.note;
  EXPECT_NE(fallback.note.find("NVIDIA H200"), std::string::npos) << fallback.note;
  const cudalab::BarChoice none = cudalab::choose_bar(all, "NVIDIA H200", bar_of("u"));
  EXPECT_EQ(none.from, nullptr) << "no file has the bar: none, never a default";
  EXPECT_TRUE(std::isnan(none.bar));
  all.pop_back();
  EXPECT_EQ(cudalab::reference_calibration(all), nullptr);
  EXPECT_EQ(cudalab::choose_bar(all, "NVIDIA A100", bar_of("t")).from, nullptr);
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
    for (const auto& [key, tiers] : c.tiers) {
      for (const cudalab::CalibratedTier& tier : tiers) {
        EXPECT_FALSE(tier.note.empty()) << c.file << ": no note for the tier " << tier.name
                                        << " of " << key.first << " " << key.second;
      }
    }
    for (const auto& [key, bar] : c.bars) {
      // The reference file explains every bar; every file explains its fixed bars.
      if (c.reference || bar.fixed) {
        EXPECT_FALSE(bar.note.empty())
            << c.file << ": no note for " << key.first << " " << key.second;
      }
    }
  }
  EXPECT_EQ(references, 1) << "exactly one file must be the reference GPU's";
}

}  // namespace
