// SPDX-License-Identifier: BSD-3-Clause
// The kit's SASS rules (sass_rules.hpp) on hand-written listings.
#include "sass_rules.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using cudalab::kit::opcode_has_head;
using cudalab::kit::sass_forbids;
using cudalab::kit::sass_requires;
using cudalab::kit::sass_rule_failures;

bool mentions(const std::vector<std::string>& failures, const std::string& text) {
  for (const std::string& f : failures) {
    if (f.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(GivenSassRulesCpu, HeadsCountTheirModifiedFormsOnly) {
  EXPECT_TRUE(opcode_has_head("LDS", "LDS"));
  EXPECT_TRUE(opcode_has_head("LDS.U8", "LDS"));
  EXPECT_TRUE(opcode_has_head("LDS.128", "LDS"));
  EXPECT_FALSE(opcode_has_head("LDSM.16.M88.4", "LDS"));
  EXPECT_TRUE(opcode_has_head("BAR.SYNC.DEFER_BLOCKING", "BAR.SYNC"));
  EXPECT_FALSE(opcode_has_head("BAR.ARV", "BAR.SYNC"));
  EXPECT_TRUE(opcode_has_head("LDGSTS.E.BYPASS.LTC128B.128", "LDGSTS"));
  EXPECT_FALSE(opcode_has_head("LDG.E", "LDGSTS"));
  EXPECT_FALSE(opcode_has_head("LDGSTS.E", "LDG"));
}

TEST(GivenSassRulesCpu, RequiredAndForbiddenOpcodesAreJudged) {
  // A tiled kernel: staged through shared memory, with barriers.
  const std::vector<std::string> tiled = {"LDG.E",   "LDG.E", "STS",  "BAR.SYNC.DEFER_BLOCKING",
                                          "LDS.128", "FFMA",  "FFMA", "BAR.SYNC.DEFER_BLOCKING",
                                          "STG.E",   "EXIT",  "BRA"};
  const std::vector<cudalab::kit::SassRule> shared = {
      sass_requires({"STS"}, "the tiles must be stored to shared memory"),
      sass_requires({"LDS"}, "the products must read shared memory"),
      sass_requires({"BAR.SYNC"}, "the block must wait for its tiles", 2)};
  EXPECT_TRUE(sass_rule_failures(tiled, shared).empty());
  // The same kernel computing straight from global memory breaks all three rules.
  const std::vector<std::string> naive = {"LDG.E", "LDG.E", "FFMA", "STG.E", "EXIT", "BRA"};
  const auto failures = sass_rule_failures(naive, shared);
  EXPECT_EQ(failures.size(), 3u);
  EXPECT_TRUE(
      mentions(failures, "the tiles must be stored to shared memory: needs a STS, found 0"));
  EXPECT_TRUE(mentions(failures, "needs 2 x BAR.SYNC, found 0"));
  // One barrier where two are required.
  EXPECT_EQ(sass_rule_failures({"STS", "BAR.SYNC", "LDS"}, shared).size(), 1u);
  // Alternatives and bans: a bulk copy without cp.async.
  const std::vector<cudalab::kit::SassRule> bulk = {
      sass_requires({"UBLKCP", "UTMALDG"}, "bulk copies"), sass_forbids({"LDGSTS"}, "no cp.async")};
  EXPECT_TRUE(sass_rule_failures({"UBLKCP.S.G", "SYNCS.ARRIVE.TRANS64"}, bulk).empty());
  EXPECT_TRUE(sass_rule_failures({"UTMALDG.2D", "SYNCS.EXCH.64"}, bulk).empty());
  const auto cp_async = sass_rule_failures({"LDGSTS.E.BYPASS.128", "LDGDEPBAR"}, bulk);
  EXPECT_EQ(cp_async.size(), 2u);
  EXPECT_TRUE(mentions(cp_async, "bulk copies: needs a UBLKCP or UTMALDG, found 0"));
  EXPECT_TRUE(mentions(cp_async, "no cp.async: no LDGSTS may appear, found 1"));
}

TEST(GivenSassRulesCpu, ExcludedFormsDoNotCount) {
  using cudalab::kit::opcode_has_modifier;
  EXPECT_TRUE(opcode_has_modifier("LDS.U8", "U8"));
  EXPECT_TRUE(opcode_has_modifier("LDS.U.U8", "U8"));
  EXPECT_FALSE(opcode_has_modifier("LDS.U.128", "U8"));
  EXPECT_FALSE(opcode_has_modifier("LDS.U16", "U"));
  EXPECT_FALSE(opcode_has_modifier("LDS", "U8"));
  // Word tiles in shared memory (32-bit STS/LDS) beside a byte table (STS.U8/LDS.U8): a rule
  // on word accesses counts the former only.
  const std::vector<cudalab::kit::SassRule> words = {
      sass_requires({"LDS"}, "the words must be read from shared memory")
          .excluding({"U8", "S8", "U16", "S16"})};
  EXPECT_TRUE(sass_rule_failures({"STS.U8", "LDS.U8", "LDS"}, words).empty());
  EXPECT_TRUE(sass_rule_failures({"LDS.U.U8", "LDS.U.128"}, words).empty());
  const auto table_only =
      sass_rule_failures({"LDG.E", "STS.U8", "LDS.U8", "LDS.U.U8", "LDS.S16"}, words);
  ASSERT_EQ(table_only.size(), 1u);
  EXPECT_TRUE(mentions(table_only, "needs a LDS (not .U8, .S8, .U16, .S16), found 0"));
}

TEST(GivenSassRulesCpu, KernelsAreFoundByTheirWholeName) {
  using cudalab::kit::names_kernel;
  // lab04::(anonymous namespace)::matmul_tiled_static_kernel(const float*, ...)
  const std::string tiled = "_ZN5lab0412_GLOBAL__N_126matmul_tiled_static_kernelEPKfS2_Pfiii";
  EXPECT_TRUE(names_kernel(tiled, "matmul_tiled_static_kernel"));
  EXPECT_FALSE(names_kernel(tiled, "tiled_static_kernel"));
  EXPECT_FALSE(names_kernel(tiled, "matmul_tiled_static"));
  // lab09::(anonymous namespace)::tiled_xnor_kernel<true>(unsigned int const*)
  const std::string table = "_ZN5lab0912_GLOBAL__N_117tiled_xnor_kernelILb1EEEvPKj";
  EXPECT_TRUE(names_kernel(table, "tiled_xnor_kernel"));
  EXPECT_EQ(cudalab::testing::demangle(table),
            "void lab09::(anonymous namespace)::tiled_xnor_kernel<true>(unsigned int const*)");
  EXPECT_EQ(cudalab::testing::demangle("not mangled"), "not mangled");
  EXPECT_EQ(cudalab::kit::sm_number("sm_90a"), 90);
  EXPECT_EQ(cudalab::kit::sm_number("sm_80"), 80);
  EXPECT_EQ(cudalab::kit::sm_number(""), 0);
}

TEST(GivenSassRulesCpu, HistogramCountsFirstWordsMostFirst) {
  EXPECT_EQ(cudalab::kit::opcode_histogram({"FFMA", "LDS.128", "FFMA", "LDS", "FFMA", "EXIT"}),
            "FFMA x3, LDS x2, EXIT x1");
  EXPECT_EQ(cudalab::kit::opcode_histogram({"A", "B", "C"}, 2), "A x1, B x1, ... (1 more)");
  EXPECT_EQ(cudalab::kit::opcode_histogram({}), "no instructions");
}

}  // namespace
