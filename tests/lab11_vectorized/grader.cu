// SPDX-License-Identifier: BSD-3-Clause
// Grader of lab 11: 128-bit accesses. The alignment predicate and the head on the CPU
// (exhaustive, against a row-by-row simulation); the SASS of the compiled kernels (cuobjdump:
// 16-byte global and shared instructions); the float4 copy exact for widths {1, 3, 4, 5, 1001}
// and base offsets of 0-3 floats, bit for bit, nothing written outside the rows, with two grids
// (captured on the launcher's stream, poisoned memory, two data sets), past 2^31 bytes; the
// float4 tile stage exact on ragged pitched shapes and with another valid layout, broken by a
// broken layout; memcheck (a misaligned float4 is an error), racecheck and synccheck; Nsight
// Compute wavefronts of the 16-byte shared loads against the bank model; speed against a
// device-to-device copy and the scalar copy (few warps per SM and full occupancy), and the
// tile stage against the padded transpose and the copy.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/bank_model.hpp"
#include "cudalab/bench.cuh"
#include "cudalab/ceilings.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/matrix.hpp"
#include "cudalab/testing.hpp"
#include "cudalab/tools.hpp"
#include "vectorized.cuh"

namespace {

namespace t = cudalab::testing;
namespace kit = cudalab::kit;

// ---------------------------------------------------------------------------
// Thresholds of the counters (the speed bars, with their provenance, are the calibration's:
// tests/calibration/nvidia-h200.tsv).
// ---------------------------------------------------------------------------
/// Nsight Compute: measured wavefronts per 16-byte shared load within this share of the
/// bank model's prediction, and bank conflicts per shared load of the interleave at most
/// kMaxInterleavedConflicts.
constexpr double kWavefrontTolerance = 0.10;
constexpr double kMaxInterleavedConflicts = 0.05;

/// Side of the square matrices of the speed tests: 8192^2 floats = 256 MiB, >> the L2.
constexpr int kPerfSide = 8192;

constexpr std::uint32_t kPoisonBits = 0xFFFFFFFFu;

std::uint32_t bits_of(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

std::size_t round_up(std::size_t x, std::size_t to) {
  return (x + to - 1) / to * to;
}

// ---------------------------------------------------------------------------
// The alignment predicate and the head (CPU, exhaustive).
// ---------------------------------------------------------------------------
/// Row bases far apart, so that an int truncation of an address shows.
const std::uintptr_t kBases[] = {0, std::uintptr_t(1) << 32, (std::uintptr_t(1) << 40) + 4096};

TEST(AlignmentCpu, HeadIsTheFloatsBeforeTheNextSixteenByteBoundary) {
  for (const std::uintptr_t base : kBases) {
    for (std::uintptr_t a = base; a < base + 64; a += 4) {
      for (const int width : {0, 1, 2, 3, 4, 5, 7, 1001}) {
        int head = 0;  // walk the floats until an address is a multiple of 16
        while (head < width && (a + 4 * std::uintptr_t(head)) % 16 != 0) ++head;
        ASSERT_EQ(lab11::head_floats(a, width), head)
            << "head_floats(address " << a << " (= " << a % 16 << " mod 16), width " << width
            << "): the float4 body must start at the first float whose address is a multiple of "
            << "16, and the head never holds more floats than the row";
      }
    }
  }
}

/// One float4 plan serves every row: simulated over 16 rows (r * pitch mod 16 repeats).
bool every_row_shares_the_plan(std::uintptr_t src, std::size_t sp, std::uintptr_t dst,
                               std::size_t dp) {
  for (std::uintptr_t r = 0; r < 16; ++r) {
    const std::uintptr_t s = src + r * sp;
    const std::uintptr_t d = dst + r * dp;
    if (s % 4 != 0 || d % 4 != 0) return false;  // a float out of alignment
    if (s % 16 != d % 16) return false;          // two heads in one row pair
    if (s % 16 != src % 16) return false;        // a row with another head than row 0
  }
  return true;
}

TEST(AlignmentCpu, CanVectorizeExactlyWhenEveryRowSharesOnePlan) {
  std::vector<std::size_t> pitches;
  for (std::size_t p = 0; p <= 80; p += 2) pitches.push_back(p);
  for (const std::size_t p : {512, 4004, 4008, 4016, 4096, 1 << 20}) pitches.push_back(p);
  int checked = 0;
  for (const std::uintptr_t base : kBases) {
    for (std::uintptr_t s = 0; s < 32; s += 2) {
      for (std::uintptr_t d = 0; d < 32; d += 2) {
        for (const std::size_t sp : pitches) {
          for (const std::size_t dp :
               {std::size_t(16), std::size_t(20), std::size_t(4096), std::size_t(4004), sp}) {
            const bool want = every_row_shares_the_plan(base + s, sp, base + 4096 + d, dp);
            ASSERT_EQ(lab11::can_vectorize(base + s, sp, base + 4096 + d, dp), want)
                << "can_vectorize(src " << base + s << " (" << s % 16 << " mod 16), pitch " << sp
                << ", dst " << base + 4096 + d << " (" << d % 16 << " mod 16), pitch " << dp
                << ") should be " << (want ? "true" : "false")
                << ": true exactly when every row of both is float-aligned and row r of the "
                << "source and of the destination have row 0's address modulo 16";
            ++checked;
          }
        }
      }
    }
  }
  t::record_measurement("predicate cases checked", checked, "");
}

// ---------------------------------------------------------------------------
// The compiled kernels hold 128-bit instructions (cuobjdump -sass of this grader).
// ---------------------------------------------------------------------------
/// Every SASS function (each architecture) whose name contains all of @p parts uses each
/// opcode of @p ops at 128 bits.
void expect_wide_ops(const std::vector<std::string>& parts, const std::vector<std::string>& ops,
                     const std::string& what) {
  static const std::regex wide(R"(^(LDG|STG|LDS|STS)(\.[A-Z0-9_]+)*\.128\b)");
  const t::SassListing& sass = t::sass_of_this_grader();
  int functions = 0;
  for (const t::SassFunction& f : sass.functions) {
    bool match = true;
    for (const auto& p : parts) match = match && f.name.find(p) != std::string::npos;
    if (!match) continue;
    ++functions;
    std::set<std::string> found;  // LDG, STG, LDS, STS at 128 bits
    for (const std::string& op : f.opcodes) {
      std::smatch m;
      if (std::regex_search(op, m, wide)) found.insert(m[1]);
    }
    for (const auto& op : ops) {
      EXPECT_TRUE(found.count(op))
          << what << " (" << f.name << ", " << f.arch << ") has no 128-bit " << op << " (e.g. "
          << op << ".E.128 / " << op << ".128) in its SASS: does it access memory through float4?";
    }
  }
  ASSERT_GT(functions, 0) << "no function named like " << parts.front()
                          << " in cuobjdump -sass of this grader:\n"
                          << sass.excerpt;
}

TEST(Vec4SassCpu, CopyKernelMovesItsBodyWith128BitGlobalAccesses) {
  if (!t::sass_of_this_grader().skip_reason.empty()) {
    GTEST_SKIP() << t::sass_of_this_grader().skip_reason;
  }
  const char* kernel = lab11::vec4_copy_kernel().name;
  expect_wide_ops({kernel}, {"LDG", "STG"}, kernel);
}

TEST(Vec4SassCpu, TileStageUses128BitGlobalLoadsAndSharedLoadsAndStores) {
  if (!t::sass_of_this_grader().skip_reason.empty()) {
    GTEST_SKIP() << t::sass_of_this_grader().skip_reason;
  }
  const std::string kernel = lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>().name;
  expect_wide_ops({kernel, "InterleavedVec4"}, {"LDG", "STS", "LDS"}, kernel + "<InterleavedVec4>");
}

// Why the interleave (given: the layouts are given, the model decides).
using Lanes = std::array<std::int64_t, cudalab::bank::kWarpSize>;

/// Lane l reads float4 @p vec of tile row l (the tile stage's column read) through @p Layout.
template <typename Layout>
Lanes column_read(int vec) {
  Lanes v{};
  for (int l = 0; l < cudalab::bank::kWarpSize; ++l) v[l] = Layout::index(l, vec);
  return v;
}

template <typename Layout>
int column_read_wavefronts(int vec) {
  return cudalab::bank::wavefronts(
      cudalab::bank::from_element_indices(column_read<Layout>(vec), 16));
}

// The given baselines' argument checks (the contracts of scalar_copy(): "as vec4_copy()", and of
// padded_transpose()). Given code, not graded; nothing is launched: the pointers point into a
// host array, only checked (for alignment), never dereferenced.
TEST(GivenArgumentChecksCpu, ScalarCopyAndPaddedTransposeRejectBadArguments) {
  alignas(16) float h_dummy[8] = {};
  const float* p = h_dummy;
  float* q = h_dummy;
  const std::size_t row = 4 * sizeof(float);  // a 4-float row
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row, 0, 2), std::invalid_argument) << "width 0";
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row, 4, -1), std::invalid_argument) << "rows -1";
  EXPECT_THROW(lab11::scalar_copy(p, row - 4, q, row, 4, 2), std::invalid_argument)
      << "a source pitch below the row";
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row - 4, 4, 2), std::invalid_argument)
      << "a destination pitch below the row";
  EXPECT_THROW(lab11::scalar_copy(p, row + 2, q, row, 4, 2), std::invalid_argument)
      << "a source pitch not a multiple of 4";
  EXPECT_THROW(lab11::scalar_copy(p, row, q, row + 1, 4, 2), std::invalid_argument)
      << "a destination pitch not a multiple of 4";
  const float* p_odd = reinterpret_cast<const float*>(reinterpret_cast<const char*>(p) + 2);
  float* q_odd = reinterpret_cast<float*>(reinterpret_cast<char*>(q) + 2);
  EXPECT_THROW(lab11::scalar_copy(p_odd, row, q, row, 4, 2), std::invalid_argument)
      << "a source base 2 bytes past a float";
  EXPECT_THROW(lab11::scalar_copy(p, row, q_odd, row, 4, 2), std::invalid_argument)
      << "a destination base 2 bytes past a float";
  for (const int block : {0, 16, 48, 1056, -32}) {
    lab11::CopyLaunch launch;
    launch.block = block;
    EXPECT_THROW(lab11::scalar_copy(p, row, q, row, 4, 2, launch), std::invalid_argument)
        << "block " << block;
  }
  EXPECT_THROW(lab11::padded_transpose(p, q, 0, 4), std::invalid_argument) << "rows 0";
  EXPECT_THROW(lab11::padded_transpose(p, q, 4, -4), std::invalid_argument) << "cols -4";
  EXPECT_THROW(lab11::padded_transpose(p, q, 65536 * lab11::kTile, 4), std::invalid_argument)
      << "65536 tile rows (gridDim.y allows 65535)";
}

// vec4_copy's contract, clause by clause, each case one bad argument of an otherwise valid call
// (8 x 4 floats, 64-byte pitches, 256 threads). Its checks are given code (copy_grid(), called
// by the given launcher in vec4_copy.cu), so not graded. Nothing is launched: the pointers are
// unallocated. Blocks of 32 are accepted: Vec4CopyGpu.IsExactWithATinyGrid.
TEST(GivenArgumentChecksCpu, Vec4CopyRejectsBadSizesPitchesBasesAndBlocks) {
  struct Case {
    std::size_t src_offset, src_pitch, dst_offset, dst_pitch;  ///< offsets: bytes past 256
    int width, rows, block;
    std::string why;
  };
  cudalab::kit::OneChange<Case> cases(Case{0, 64, 0, 64, 8, 4, 256, ""});
  for (const int bad : {0, -1}) {
    cases.add("width " + std::to_string(bad) + " is not positive", [=](Case& c) { c.width = bad; });
    cases.add("rows " + std::to_string(bad) + " is not positive", [=](Case& c) { c.rows = bad; });
  }
  for (const std::size_t bad : {0, 28}) {  // the row is 8 floats, 32 bytes
    cases.add("src_pitch " + std::to_string(bad) + " is below the 32-byte row",
              [=](Case& c) { c.src_pitch = bad; });
    cases.add("dst_pitch " + std::to_string(bad) + " is below the 32-byte row",
              [=](Case& c) { c.dst_pitch = bad; });
  }
  for (const std::size_t bad : {33, 34, 35, 66}) {
    cases.add("src_pitch " + std::to_string(bad) + " is not a multiple of 4",
              [=](Case& c) { c.src_pitch = bad; });
    cases.add("dst_pitch " + std::to_string(bad) + " is not a multiple of 4",
              [=](Case& c) { c.dst_pitch = bad; });
  }
  for (const std::size_t bad : {1, 2, 3}) {
    cases.add(
        "d_src " + std::to_string(bad) + " bytes past a float (base offsets are whole floats)",
        [=](Case& c) { c.src_offset = bad; });
    cases.add(
        "d_dst " + std::to_string(bad) + " bytes past a float (base offsets are whole floats)",
        [=](Case& c) { c.dst_offset = bad; });
  }
  for (const int bad : {0, -32, 16, 31, 48, 1000, 1025, 1056, 2048}) {
    cases.add("block " + std::to_string(bad) + " is not a multiple of 32 in 32..1024",
              [=](Case& c) { c.block = bad; });
  }
  for (const Case& c : cases.list) {
    const std::string what =
        "vec4_copy(d_src=<aligned + " + std::to_string(c.src_offset) +
        ">, src_pitch=" + std::to_string(c.src_pitch) + ", d_dst=<aligned + " +
        std::to_string(c.dst_offset) + ">, dst_pitch=" + std::to_string(c.dst_pitch) +
        ", width=" + std::to_string(c.width) + ", rows=" + std::to_string(c.rows) +
        ", block=" + std::to_string(c.block) + ")";
    lab11::CopyLaunch launch;
    launch.block = c.block;
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      lab11::vec4_copy(cudalab::kit::unallocated<const float>(c.src_offset), c.src_pitch,
                       cudalab::kit::unallocated<float>(c.dst_offset), c.dst_pitch, c.width, c.rows,
                       launch);
    })) << c.why;
  }
}

/// vec4_tile_transpose<Vec4Layout>'s contract, each case one bad argument of an otherwise valid
/// call (8 x 8 floats, 32-byte pitches, a 256-byte aligned input): std::invalid_argument for
/// non-positive sizes, a misaligned input or input pitch, a pitch below its row, or more tile
/// rows than gridDim.y allows.
template <typename Vec4Layout>
void expect_tile_transpose_rejects_bad_arguments(const std::string& layout) {
  struct Case {
    std::size_t in_offset, in_pitch, out_pitch;
    int rows, cols;
    std::string why;
  };
  cudalab::kit::OneChange<Case> cases(Case{0, 32, 32, 8, 8, ""});
  for (const int bad : {0, -1}) {
    cases.add("rows " + std::to_string(bad) + " is not positive", [=](Case& c) { c.rows = bad; });
    cases.add("cols " + std::to_string(bad) + " is not positive", [=](Case& c) { c.cols = bad; });
  }
  for (const std::size_t bad : {4, 8, 12}) {
    cases.add("d_in " + std::to_string(bad) + " bytes past a 16-byte boundary (float4 loads)",
              [=](Case& c) { c.in_offset = bad; });
  }
  for (const std::size_t bad : {34, 36, 40, 44}) {
    cases.add(
        "in_pitch " + std::to_string(bad) + " is not a multiple of 16 (float4 loads of every row)",
        [=](Case& c) { c.in_pitch = bad; });
  }
  for (const std::size_t bad : {0, 16}) {  // multiples of 16
    cases.add("in_pitch " + std::to_string(bad) + " is below the 32-byte input row",
              [=](Case& c) { c.in_pitch = bad; });
  }
  for (const std::size_t bad : {0, 28}) {
    cases.add("out_pitch " + std::to_string(bad) + " is below the 32-byte output row",
              [=](Case& c) { c.out_pitch = bad; });
  }
  const int past = int(cudalab::kMaxGridYZ) * lab11::kTile + 1;
  for (const int rows : {past, std::numeric_limits<int>::max()}) {
    cases.add(std::to_string(rows) + " input rows need more than 65535 tile rows of 32 (gridDim.y)",
              [=](Case& c) {
                c.rows = rows;
                c.out_pitch = std::size_t(rows) * sizeof(float);  // an output row that holds them
              });
  }
  const std::string name = "vec4_tile_transpose<" + layout + ">";
  for (const Case& c : cases.list) {
    const std::string what =
        name + "(d_in=<aligned + " + std::to_string(c.in_offset) +
        ">, in_pitch=" + std::to_string(c.in_pitch) + ", out_pitch=" + std::to_string(c.out_pitch) +
        ", rows=" + std::to_string(c.rows) + ", cols=" + std::to_string(c.cols) + ")";
    EXPECT_TRUE(cudalab::kit::throws_invalid_argument(what, [&] {
      lab11::vec4_tile_transpose<Vec4Layout>(cudalab::kit::unallocated<const float>(c.in_offset),
                                             c.in_pitch, cudalab::kit::unallocated<float>(),
                                             c.out_pitch, c.rows, c.cols);
    })) << c.why;
  }
}

// The tile stage's launcher is given (vec4_tile_transpose.cu, outside the TODO region): not
// graded. Every layout's instance runs the same checks.
TEST(GivenArgumentChecksCpu, Vec4TileTransposeRejectsBadSizesAlignmentsPitchesAndTallGrids) {
  expect_tile_transpose_rejects_bad_arguments<lab11::InterleavedVec4>("InterleavedVec4");
  expect_tile_transpose_rejects_bad_arguments<lab11::PlainVec4>("PlainVec4");
  expect_tile_transpose_rejects_bad_arguments<lab11::MirroredVec4>("MirroredVec4");
  expect_tile_transpose_rejects_bad_arguments<lab11::ProbeVec4>("ProbeVec4");
}

TEST(GivenVec4ModelCpu, InterleavedColumnReadIsFourWavefrontsPlainIsThirtyTwo) {
  for (int v = 0; v < lab11::kVec4PerRow; ++v) {
    EXPECT_EQ(column_read_wavefronts<lab11::InterleavedVec4>(v), 4) << "float4 " << v;
    EXPECT_EQ(column_read_wavefronts<lab11::PlainVec4>(v), 32) << "float4 " << v;
  }
}

// ---------------------------------------------------------------------------
// The float4 copy (GPU): exact, bit for bit, for any width and base offset.
// ---------------------------------------------------------------------------
/// A pitched copy problem: rows x width floats, the source and destination rows starting
/// src_off / dst_off floats past a 256-byte aligned allocation, pitches in bytes.
struct CopyCase {
  int width;
  int rows;
  int src_off;
  int dst_off;
  std::size_t src_pitch;  ///< 0: the row rounded up to 512 bytes (as cudaMallocPitch might)
  std::size_t dst_pitch;  ///< 0: the same rule
};

std::size_t pitch_of(const CopyCase& c, std::size_t given) {
  return given != 0 ? given : round_up(std::size_t(c.width) * 4 + 16, 512);
}

std::string copy_case_name(const ::testing::TestParamInfo<CopyCase>& p) {
  const CopyCase& c = p.param;
  return std::to_string(c.width) + "x" + std::to_string(c.rows) + "_offsets" +
         std::to_string(c.src_off) + std::to_string(c.dst_off) + "_pitches" +
         std::to_string(pitch_of(c, c.src_pitch)) + "_" + std::to_string(pitch_of(c, c.dst_pitch));
}

/// Widths {1, 3, 4, 5, 1001} at base offsets 0-3 (float4 path with every head), pitches
/// that break the 16-byte phase and offsets that differ (the scalar path), and a tail-only row.
const CopyCase kCopyCases[] = {
    {1, 7, 1, 1, 0, 0},      {3, 5, 2, 2, 0, 0},          {4, 9, 0, 0, 0, 0},
    {5, 33, 3, 3, 0, 0},     {1001, 65, 1, 1, 0, 0},      {1001, 3, 2, 2, 0, 0},
    {1001, 17, 3, 3, 0, 0},  {1001, 9, 0, 0, 4008, 4008}, {5, 40, 1, 3, 0, 0},
    {4099, 129, 0, 2, 0, 0},
};

/**
 * A pitched copy's device buffers and its host mirrors. The source ends at its last row's
 * last element (memcheck sees a read past it, e.g. a ragged tail read as one float4); the
 * destination keeps its last row's padding and 8 floats after it, all poisoned, so a write
 * past a row shows by value.
 */
struct CopyBuffers {
  CopyCase c;
  std::size_t sp, dp;  ///< pitches in bytes
  cudalab::DeviceBuffer<float> d_src, d_dst;
  std::vector<float> h_src;

  explicit CopyBuffers(const CopyCase& cc)
      : c(cc),
        sp(pitch_of(cc, cc.src_pitch)),
        dp(pitch_of(cc, cc.dst_pitch)),
        d_src(std::size_t(cc.src_off) + sp / 4 * std::size_t(cc.rows - 1) + std::size_t(cc.width)),
        d_dst(std::size_t(cc.dst_off) + dp / 4 * std::size_t(cc.rows) + 8) {}
  const float* src() const { return d_src.data() + c.src_off; }
  float* dst() { return d_dst.data() + c.dst_off; }
  /// Data set @p set behind the source (set 0: uniform floats; others: small integers).
  void fill(int set) {
    h_src = cudalab::random_matrix(1, int(d_src.size()),
                                   set == 0 ? cudalab::Fill::Uniform : cudalab::Fill::SmallInt,
                                   41 + set);
    d_src.upload(h_src);
  }
  /// The destination holds the source's rows bit for bit and the poison everywhere else.
  ::testing::AssertionResult check() const {
    const std::vector<float> got = d_dst.to_host();
    std::size_t wrong = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::ptrdiff_t rel = std::ptrdiff_t(i) - c.dst_off;  // floats from the dst base
      const std::ptrdiff_t row = rel >= 0 ? rel / std::ptrdiff_t(dp / 4) : -1;
      const std::ptrdiff_t col = rel >= 0 ? rel % std::ptrdiff_t(dp / 4) : -1;
      const bool inside = rel >= 0 && row < c.rows && col < c.width;
      const std::uint32_t want =
          inside ? bits_of(h_src[std::size_t(c.src_off) + std::size_t(row) * (sp / 4) + col])
                 : kPoisonBits;
      if (bits_of(got[i]) != want) {
        if (wrong++ == 0) {
          first << (inside ? "element (row " + std::to_string(row) + ", col " +
                                 std::to_string(col) + ")"
                           : "a float outside the matrix (destination word " + std::to_string(i) +
                                 ", which a copy must not write)")
                << ": expected bits 0x" << std::hex << want << ", got 0x" << bits_of(got[i])
                << std::dec;
        }
      }
    }
    if (wrong == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << wrong << " wrong floats; first: " << first.str() << " (width " << c.width << ", rows "
           << c.rows << ", base offsets " << c.src_off << "/" << c.dst_off << " floats, pitches "
           << sp << "/" << dp << " bytes). " << cudalab::seed_note();
  }
};

/// Captures vec4_copy with @p launch, checks the graph, replays it on two data sets.
void expect_copy_ok(const CopyCase& c, const lab11::CopyLaunch& launch) {
  CopyBuffers b(c);
  b.fill(0);
  t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
    lab11::vec4_copy(b.src(), b.sp, b.dst(), b.dp, c.width, c.rows, launch, s);
  });
  ASSERT_TRUE(cap.holds_only(kit::only_kernel(lab11::vec4_copy_kernel())));
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("data set " + std::to_string(set));
    b.fill(set);
    t::poison(b.d_dst.data(), b.d_dst.bytes());
    CUDA_CHECK(cudaDeviceSynchronize());
    cap.run();
    ASSERT_TRUE(b.check());
  }
  // Same buffers, new data: vec4_copy called directly twice more with the same pointers,
  // pitches, sizes and grid, new data sets (2 and 3) behind them.
  kit::expect_fresh_results_on_same_buffers(
      "vec4_copy",
      [&](int round) {
        b.fill(2 + round);
        t::poison(b.d_dst.data(), b.d_dst.bytes());
      },
      [&](cudaStream_t s) {
        lab11::vec4_copy(b.src(), b.sp, b.dst(), b.dp, c.width, c.rows, launch, s);
      },
      [&](int) { ASSERT_TRUE(b.check()); }, 2);
}

class Vec4CopyGpu : public ::testing::TestWithParam<CopyCase> {};

TEST_P(Vec4CopyGpu, IsExactWithTheDefaultGrid) {
  CUDALAB_REQUIRE_GPU();
  expect_copy_ok(GetParam(), {});
}

// Two blocks of one warp: every thread strides over several float4 and rows.
TEST_P(Vec4CopyGpu, IsExactWithATinyGrid) {
  CUDALAB_REQUIRE_GPU();
  expect_copy_ok(GetParam(), {32, 1, 2});
}

INSTANTIATE_TEST_SUITE_P(Cases, Vec4CopyGpu, ::testing::ValuesIn(kCopyCases), copy_case_name);

// Range: row offsets past 2^31 bytes (an int row * pitch wraps).
__global__ void fill_pattern_kernel(float* base, std::size_t pitch, int width, int rows,
                                    std::uint32_t salt) {
  for (int row = blockIdx.y; row < rows; row += gridDim.y) {
    float* r = reinterpret_cast<float*>(reinterpret_cast<char*>(base) + std::size_t(row) * pitch);
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < width;
         col += gridDim.x * blockDim.x) {
      r[col] =
          float((std::uint32_t(row) * 2654435761u + std::uint32_t(col) * 40503u + salt) & 0xFFFFFu);
    }
  }
}

float pattern(int row, int col, std::uint32_t salt) {
  return float((std::uint32_t(row) * 2654435761u + std::uint32_t(col) * 40503u + salt) & 0xFFFFFu);
}

TEST(Vec4CopyRangeGpu, RowsPastTwoGibibytesAreCopied) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kWidth = 4093;  // a tail of 1 float after a head of 0
  constexpr std::size_t kPitch = 16384;
  constexpr int kRows = 140000;  // 140000 x 16 KiB = 2.29 GB per matrix
  const std::size_t words = kPitch / 4 * kRows;
  CUDALAB_REQUIRE_FREE_MEMORY(2 * words * sizeof(float));
  cudalab::DeviceBuffer<float> d_src(words), d_dst(words);
  t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
    lab11::vec4_copy(d_src.data(), kPitch, d_dst.data(), kPitch, kWidth, kRows, {}, s);
  });
  ASSERT_TRUE(cap.holds_only(kit::only_kernel(lab11::vec4_copy_kernel())));
  const auto salt = std::uint32_t(cudalab::make_rng(51)());
  fill_pattern_kernel<<<dim3(4, 4096), 256>>>(d_src.data(), kPitch, kWidth, kRows, salt);
  CUDA_CHECK_LAST_LAUNCH();
  t::poison(d_dst.data(), d_dst.bytes());
  CUDA_CHECK(cudaDeviceSynchronize());
  cap.run();
  std::vector<float> row(kWidth);
  for (const int r : {0, 1, 131071, 131072, kRows - 2, kRows - 1}) {
    CUDA_CHECK(cudaMemcpy(row.data(), d_dst.data() + std::size_t(r) * (kPitch / 4),
                          kWidth * sizeof(float), cudaMemcpyDeviceToHost));
    for (int col = 0; col < kWidth; ++col) {
      ASSERT_EQ(bits_of(row[col]), bits_of(pattern(r, col, salt)))
          << "row " << r << " (byte offset " << std::size_t(r) * kPitch << "), col " << col
          << ": a row offset past 2^31 bytes needs size_t arithmetic";
    }
  }
}

// ---------------------------------------------------------------------------
// The float4 tile stage (GPU): transposes of pitched matrices of any shape.
// ---------------------------------------------------------------------------
using TransposeShape = kit::Extent;

/// Ragged (cols % 4 = 1, 2, 3), single rows and columns, tiles cut at both edges.
const TransposeShape kTransposeShapes[] = {{1, 1},      {1, 5},    {3, 1},    {31, 33},
                                           {33, 66},    {64, 64},  {257, 31}, {100, 1001},
                                           {1000, 999}, {2049, 67}};

/// The pitched transpose problem: in pitch rounded to 512 bytes, out pitch deliberately
/// not a multiple of 16 (4 floats of slack).
/**
 * A pitched transpose's buffers: the input ends at its last row's last element (memcheck sees
 * a read past it) and its rows' padding holds NaN (a padding float that reaches the output
 * shows); the output keeps every row's padding, poisoned, so a write past a row shows.
 */
struct TransposeBuffers {
  int rows, cols;
  std::size_t ip, op;
  cudalab::DeviceBuffer<float> d_in, d_out;
  std::vector<float> h_in;
  TransposeBuffers(int r, int c)
      : rows(r),
        cols(c),
        ip(round_up(std::size_t(c) * 4, 512)),
        op(std::size_t(r) * 4 + 12),
        d_in(ip / 4 * std::size_t(r - 1) + std::size_t(c)),
        d_out(op / 4 * std::size_t(c)) {}
  /// Data set @p set in the rows (host mirror: whole rows of ip bytes), NaN in the padding.
  void fill(int set) {
    h_in = cudalab::random_matrix(
        rows, int(ip / 4), set == 0 ? cudalab::Fill::Uniform : cudalab::Fill::SmallInt, 61 + set);
    for (std::size_t i = 0; i < h_in.size(); ++i) {
      if (i % (ip / 4) >= std::size_t(cols)) h_in[i] = std::numeric_limits<float>::quiet_NaN();
    }
    d_in.upload(h_in.data());  // the first d_in.size() floats: up to the last row's end
  }
  ::testing::AssertionResult check() const {
    const std::vector<float> got = d_out.to_host();
    std::size_t wrong = 0;
    std::ostringstream first;
    for (int orow = 0; orow < cols; ++orow) {
      for (std::size_t ocol = 0; ocol < op / 4; ++ocol) {
        const bool inside = ocol < std::size_t(rows);
        const std::uint32_t want =
            inside ? bits_of(h_in[ocol * (ip / 4) + std::size_t(orow)]) : kPoisonBits;
        const std::uint32_t have = bits_of(got[std::size_t(orow) * (op / 4) + ocol]);
        if (have != want && wrong++ == 0) {
          first << "out(" << orow << ", " << ocol << ")"
                << (inside ? "" : " (row padding, which must not be written)")
                << ": expected bits 0x" << std::hex << want << ", got 0x" << have << std::dec;
        }
      }
    }
    if (wrong == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << wrong << " wrong floats; first: " << first.str() << " (input " << rows << " x "
           << cols << ", pitches " << ip << "/" << op << " bytes). " << cudalab::seed_note();
  }
};

/// Captures vec4_tile_transpose<Layout> (the graph: that layout's kernel alone), replays it on
/// two data sets.
template <typename Layout>
void expect_transpose_ok(int rows, int cols) {
  TransposeBuffers b(rows, cols);
  b.fill(0);
  t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
    lab11::vec4_tile_transpose<Layout>(b.d_in.data(), b.ip, b.d_out.data(), b.op, rows, cols, s);
  });
  ASSERT_TRUE(cap.holds_only(kit::only_kernel(lab11::vec4_tile_transpose_kernel<Layout>())));
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("data set " + std::to_string(set));
    b.fill(set);
    t::poison(b.d_out.data(), b.d_out.bytes());
    t::poison_shared_memory();
    CUDA_CHECK(cudaDeviceSynchronize());
    cap.run();
    ASSERT_TRUE(b.check());
  }
  // Same buffers, new data: the launcher called directly twice more with the same pointers,
  // pitches and sizes, new data sets (2 and 3) behind them.
  kit::expect_fresh_results_on_same_buffers(
      "vec4_tile_transpose",
      [&](int round) {
        b.fill(2 + round);
        t::poison(b.d_out.data(), b.d_out.bytes());
      },
      [&](cudaStream_t s) {
        lab11::vec4_tile_transpose<Layout>(b.d_in.data(), b.ip, b.d_out.data(), b.op, rows, cols,
                                           s);
      },
      [&](int) { ASSERT_TRUE(b.check()); }, 2);
}

class TileStageGpu : public ::testing::TestWithParam<TransposeShape> {};

TEST_P(TileStageGpu, InterleavedTransposeIsExact) {
  CUDALAB_REQUIRE_GPU();
  expect_transpose_ok<lab11::InterleavedVec4>(GetParam().rows, GetParam().cols);
}

// Any valid float4 layout gives the same transpose: the kernel stores and loads through the
// layout it is given.
TEST_P(TileStageGpu, IsExactWithAnotherValidLayout) {
  CUDALAB_REQUIRE_GPU();
  expect_transpose_ok<lab11::MirroredVec4>(GetParam().rows, GetParam().cols);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TileStageGpu, ::testing::ValuesIn(kTransposeShapes),
                         kit::shape_name);

// A broken layout (two float4 per slot) must break the transpose.
TEST(TileStageLayoutUseGpu, ABrokenLayoutBreaksTheTranspose) {
  CUDALAB_REQUIRE_GPU();
  TransposeBuffers b(64, 64);
  b.fill(0);
  t::poison(b.d_out.data(), b.d_out.bytes());
  lab11::vec4_tile_transpose<lab11::ProbeVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op, 64, 64);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = b.d_out.to_host();
  std::size_t differ = 0;
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 64; ++c) {
      differ += bits_of(got[std::size_t(r) * (b.op / 4) + c]) !=
                bits_of(b.h_in[std::size_t(c) * (b.ip / 4) + r]);
    }
  }
  t::record_measurement("elements changed by the broken layout", double(differ), "");
  // The slots the broken layout still keeps apart come through: a kernel that writes
  // nothing does not pass by leaving the poison.
  EXPECT_LT(differ, 64u * 64u * 7u / 8u)
      << "with the broken layout half of the float4 should still arrive, but " << differ
      << " of 4096 elements are wrong: does the kernel transpose at all?";
  EXPECT_GT(differ, 64u * 64u / 8u)
      << "with a float4 layout that stores two vectors in one slot the transpose should lose "
      << "half of them, but only " << differ << " of 4096 elements differ: does "
      << lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>().name
      << " address its tile through Vec4Layout::index()?";
}

// The tile is float4 and unpadded: the interleave costs no memory.
TEST(TileStageSharedMemoryGpu, TileIsOneUnpaddedFloat4Tile) {
  CUDALAB_REQUIRE_GPU();
  cudaFuncAttributes attr{};
  const cudalab::KernelInfo kernel = lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>();
  CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel.function));
  const std::size_t want = std::size_t(lab11::kTileVec4s) * sizeof(float4);
  t::record_measurement("tile stage static shared memory", double(attr.sharedSizeBytes), "bytes",
                        double(want));
  EXPECT_EQ(attr.sharedSizeBytes, want)
      << kernel.name << " declares " << attr.sharedSizeBytes << " bytes of static "
      << "shared memory; one kTile x kTile tile of float4 is " << want << " bytes";
}

// ---------------------------------------------------------------------------
// Small runs the sanitizer and profiler tests re-run under their tools.
// ---------------------------------------------------------------------------
TEST(SmallShapesGpu, Vec4CopyOnOffsetRows) {
  CUDALAB_REQUIRE_GPU();
  for (const CopyCase& c :
       {CopyCase{1001, 5, 1, 1, 0, 0}, CopyCase{1001, 5, 2, 2, 0, 0}, CopyCase{1001, 5, 3, 3, 0, 0},
        CopyCase{37, 6, 1, 2, 0, 0}, CopyCase{1001, 4, 0, 0, 4008, 4008}}) {
    SCOPED_TRACE(std::to_string(c.width) + " floats, offsets " + std::to_string(c.src_off) + "/" +
                 std::to_string(c.dst_off));
    CopyBuffers b(c);
    b.fill(0);
    b.d_dst.fill_bytes(0xFF);
    lab11::vec4_copy(b.src(), b.sp, b.dst(), b.dp, c.width, c.rows);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(b.check());
  }
}

TEST(SmallShapesGpu, TileStageOnRaggedShapes) {
  CUDALAB_REQUIRE_GPU();
  for (const TransposeShape s : {TransposeShape{100, 70}, TransposeShape{37, 99}}) {
    TransposeBuffers b(s.rows, s.cols);
    b.fill(0);
    b.d_out.fill_bytes(0xFF);
    lab11::vec4_tile_transpose<lab11::InterleavedVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op,
                                                       s.rows, s.cols);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(b.check()) << s.rows << " x " << s.cols;
  }
}

// Whole tiles, both layouts: the Nsight Compute test compares their shared loads.
TEST(ProfiledShapesGpu, TileStageWithInterleavedAndPlainLayouts) {
  CUDALAB_REQUIRE_GPU();
  TransposeBuffers b(256, 256);
  b.fill(0);
  b.d_out.fill_bytes(0xFF);
  lab11::vec4_tile_transpose<lab11::InterleavedVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op, 256,
                                                     256);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(b.check()) << "interleaved";
  b.d_out.fill_bytes(0xFF);
  lab11::vec4_tile_transpose<lab11::PlainVec4>(b.d_in.data(), b.ip, b.d_out.data(), b.op, 256, 256);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(b.check()) << "plain";
}

// ---------------------------------------------------------------------------
// Speed (GPU, 8192^2 = 256 MiB per matrix): outputs checked, inputs alternating.
// ---------------------------------------------------------------------------
cudalab::BenchOptions perf_options(int reps) {
  cudalab::BenchOptions o;
  o.warmup = 2;
  o.reps = reps;
  return o;
}

constexpr std::size_t kPerfCount = std::size_t(kPerfSide) * kPerfSide;

/// Two 8192^2 inputs filled on the device from per-run salts (no host generation), alternating
/// behind one live buffer (AlternatingInput): copy_next() (an untimed before_* step) copies the
/// next set there and replaces about sqrt(n) elements at positions drawn for that run.
t::AlternatingInput<float> pattern_sets(std::uint64_t stream) {
  auto rng = cudalab::make_rng(stream);
  cudalab::DeviceBuffer<float> sets[2] = {cudalab::DeviceBuffer<float>(kPerfCount),
                                          cudalab::DeviceBuffer<float>(kPerfCount)};
  for (auto& set : sets) {
    fill_pattern_kernel<<<dim3(8, 2048), 256>>>(set.data(), kPerfSide * sizeof(float), kPerfSide,
                                                kPerfSide, std::uint32_t(rng()));
    CUDA_CHECK_LAST_LAUNCH();
  }
  return t::AlternatingInput<float>(std::move(sets[0]), std::move(sets[1]));
}

/// The next input and a poisoned @p out before a timed run (the same for both sides).
cudalab::GpuWork next_run(t::AlternatingInput<float>& in, cudalab::DeviceBuffer<float>& out) {
  return [&in, &out](cudaStream_t s) {
    in.copy_next(s);
    t::poison(out.data(), out.bytes(), s);
  };
}

/// Three rows of an 8192^2 output, drawn at random after every run.
kit::RunRows<float> perf_run_rows(const float* out) {
  return kit::RunRows<float>(out, kPerfSide, kPerfSide);
}

/// The float4 copy of 8192^2 floats, captured (only the student's kernel), and its checks.
struct PerfCopy {
  static constexpr std::size_t kPitch = std::size_t(kPerfSide) * 4;
  t::AlternatingInput<float> in = pattern_sets(71);
  cudalab::DeviceBuffer<float> d_out{kPerfCount};
  cudalab::DeviceBuffer<float> d_base{kPerfCount};
  /// The checked rows of the float4 copy's output after every run.
  kit::RunRows<float> run_rows = perf_run_rows(d_out.data());
  double bytes() const { return 2.0 * double(kPerfCount) * sizeof(float); }

  t::CapturedWork capture(const lab11::CopyLaunch& launch) {
    t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
      lab11::vec4_copy(in.live.data(), kPitch, d_out.data(), kPitch, kPerfSide, kPerfSide, launch,
                       s);
    });
    EXPECT_TRUE(cap.holds_only(kit::only_kernel(lab11::vec4_copy_kernel())));
    return cap;
  }
  /// The before_candidate step of the float4 copy: keeps its checked rows as the previous run
  /// left them, then copies the next input and poisons the output.
  cudalab::GpuWork before_copy() { return run_rows.before_each_run(in, next_run(in, d_out)); }
  /// The checked rows of every earlier run (and of the last warm-up) are exactly the rows of
  /// the input that run read (input_view()).
  void expect_every_run_copied() const {
    run_rows.expect_every_run(
        [&](long run) -> const std::vector<float>& { return in.input_view(run); },
        [](const std::vector<float>& input, int r) {
          return std::vector<float>(input.begin() + std::ptrdiff_t(r) * kPerfSide,
                                    input.begin() + std::ptrdiff_t(r + 1) * kPerfSide);
        },
        "the timed float4 copy");
  }
  /// The last timed output is exactly the input its run read (last_input()).
  ::testing::AssertionResult output_ok() const {
    return cudalab::testing::matrices_match(in.last_input(), d_out.to_host(), kPerfSide, kPerfSide,
                                            0.0)
           << " (the timed float4 copy, input set " << in.last()
           << " with that run's changed elements; no speed verdict)";
  }
};

TEST(CopyPerf, Float4CopyReachesTheDeviceCopyBandwidth) {
  CUDALAB_REQUIRE_GPU();
  PerfCopy p;
  t::CapturedWork cap = p.capture({});
  if (HasFailure()) return;
  auto opts = perf_options(15);
  opts.before_candidate = p.before_copy();
  const auto stats = cudalab::benchmark(cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  p.expect_every_run_copied();
  if (HasFailure()) return;  // no speed verdict for a wrong result
  ASSERT_TRUE(p.output_ok());
  const double gbps = p.bytes() / (stats.median_ms * 1e6);
  t::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", "float4 copy");
  t::expect_share(gbps, t::d2d_copy_gbps(kPerfCount * sizeof(float)), "GB/s",
                  "float4 copy vs cudaMemcpyAsync device-to-device");
}

/// float4 vs scalar copy, both with @p launch, interleaved; the float4 output checked.
void expect_copy_speedup(const lab11::CopyLaunch& launch, const std::string& what) {
  PerfCopy p;
  t::CapturedWork cap = p.capture(launch);
  if (::testing::Test::HasFailure()) return;
  auto opts = perf_options(9);
  opts.before_baseline = next_run(p.in, p.d_base);
  opts.before_candidate = p.before_copy();  // each run tagged with its input, not the baseline's
  const auto cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab11::scalar_copy(p.in.live.data(), PerfCopy::kPitch, p.d_base.data(), PerfCopy::kPitch,
                           kPerfSide, kPerfSide, launch, s);
      },
      cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  p.expect_every_run_copied();
  if (::testing::Test::HasFailure()) return;  // no speed verdict for a wrong result
  ASSERT_TRUE(p.output_ok());
  const double gbps = p.bytes() / (cmp.candidate.median_ms * 1e6);
  t::record_measurement("float4 copy", gbps, "GB/s");
  t::record_measurement("scalar copy", p.bytes() / (cmp.baseline.median_ms * 1e6), "GB/s");
  t::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", "float4 copy");
  t::expect_speedup(cmp, what);
}

TEST(CopyPerf, Float4BeatsScalarWithFourWarpsPerSm) {
  CUDALAB_REQUIRE_GPU();
  const int sms = cudalab::query_device().sm_count;
  expect_copy_speedup({128, 1, sms}, "float4 vs scalar copy, one block of 128 threads per SM");
}

TEST(CopyPerf, Float4KeepsUpWithScalarAtFullOccupancy) {
  CUDALAB_REQUIRE_GPU();
  expect_copy_speedup({}, "float4 vs scalar copy, a thread per float4 / float (256-thread blocks)");
}

/// The tile stage (interleaved) on 8192^2 against the padded transpose, and as a share of the
/// device copy.
TEST(TileStagePerf, InterleavedTransposeBeatsPaddedAndNearsTheCopy) {
  CUDALAB_REQUIRE_GPU();
  constexpr std::size_t kPitch = std::size_t(kPerfSide) * 4;
  t::AlternatingInput<float> in = pattern_sets(81);
  cudalab::DeviceBuffer<float> d_out(kPerfCount), d_base(kPerfCount);
  t::CapturedWork cap = t::CapturedWork::capture([&](cudaStream_t s) {
    lab11::vec4_tile_transpose<lab11::InterleavedVec4>(in.live.data(), kPitch, d_out.data(), kPitch,
                                                       kPerfSide, kPerfSide, s);
  });
  ASSERT_TRUE(cap.holds_only(
      kit::only_kernel(lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>())));
  auto opts = perf_options(15);
  opts.before_baseline = next_run(in, d_base);
  // Three random rows of every earlier run (kept before the next run's input is copied; each
  // tagged with its input, not the baseline's) must be the transpose of what it read.
  kit::RunRows<float> run_rows = perf_run_rows(d_out.data());
  opts.before_candidate = run_rows.before_each_run(in, next_run(in, d_out));
  const auto cmp = cudalab::compare(
      [&](cudaStream_t s) {
        lab11::padded_transpose(in.live.data(), d_base.data(), kPerfSide, kPerfSide, s);
      },
      cap.as_work(), opts);
  CUDA_CHECK(cudaDeviceSynchronize());
  kit::expect_every_run_transpose(run_rows, in, kPerfSide, kPerfSide, "the timed float4 transpose");
  if (HasFailure()) return;  // no speed verdict for a wrong result
  const std::vector<float> got = d_out.to_host();
  const std::vector<float> want = in.last_input();
  for (int r = 0; r < kPerfSide; ++r) {
    for (int c = 0; c < kPerfSide; ++c) {
      if (got[std::size_t(r) * kPerfSide + c] != want[std::size_t(c) * kPerfSide + r]) {
        FAIL() << "the timed float4 transpose is wrong at out(" << r << ", " << c << ") (input set "
               << in.last() << " with that run's changed elements); no "
               << "speed verdict. " << cudalab::seed_note();
      }
    }
  }
  const double bytes = 2.0 * double(kPerfCount) * sizeof(float);
  const double gbps = bytes / (cmp.candidate.median_ms * 1e6);
  const double copy = t::d2d_copy_gbps(kPerfCount * sizeof(float));
  t::record_measurement("padded transpose share of the device copy",
                        bytes / (cmp.baseline.median_ms * 1e6) / copy, "");
  t::expect_possible(gbps, cudalab::device_ceilings().dram_gbps, "GB/s", "float4 transpose");
  t::expect_speedup(cmp, "float4 interleaved vs padded [32][33] transpose");
  t::expect_share(gbps, copy, "GB/s",
                  "float4 interleaved transpose vs cudaMemcpyAsync device-to-device");
}

// ---------------------------------------------------------------------------
// compute-sanitizer: the copy under memcheck (a misaligned float4 is an error, and so is a
// read past the source, which ends at its last row's last element: CopyBuffers); the tile
// stage under racecheck, memcheck and synccheck (its input ends the same way, NaN padded:
// TransposeBuffers).
// ---------------------------------------------------------------------------
constexpr const char* kTileSanitized = "SmallShapesGpu.TileStageOnRaggedShapes";
CUDALAB_SANITIZER_TEST(CopySanitizer, MemcheckIsClean, "memcheck",
                       "SmallShapesGpu.Vec4CopyOnOffsetRows")
CUDALAB_SANITIZER_TEST(TileStageSanitizer, RacecheckIsClean, "racecheck", kTileSanitized)
CUDALAB_SANITIZER_TEST(TileStageSanitizer, MemcheckIsClean, "memcheck", kTileSanitized)
CUDALAB_SANITIZER_TEST(TileStageSanitizer, SynccheckIsClean, "synccheck", kTileSanitized)

// ---------------------------------------------------------------------------
// Nsight Compute: wavefronts per 16-byte shared load against the bank model.
// ---------------------------------------------------------------------------
const std::vector<std::string> kSharedMetrics = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"};

TEST(TileStageProfiler, InterleavedLoadsAreConflictFreeAndPlainMatchesTheModel) {
  CUDALAB_REQUIRE_GPU();
  if (t::running_under_tool()) GTEST_SKIP() << "already under a tool";
  const std::string kernel =
      lab11::vec4_tile_transpose_kernel<lab11::InterleavedVec4>().name;  // every layout
  const t::NcuRun run = t::run_ncu(kSharedMetrics, kernel, "ProfiledShapesGpu.*");
  if (!run.available) GTEST_SKIP() << run.skip_reason;
  ASSERT_FALSE(run.kernels.empty()) << "ncu profiled no kernel:\n" << t::excerpt(run.output);
  struct Expect {
    std::string layout;
    int model;  // wavefronts of one warp's column read (the bank model)
  };
  for (const Expect& e :
       {Expect{"InterleavedVec4", column_read_wavefronts<lab11::InterleavedVec4>(0)},
        Expect{"PlainVec4", column_read_wavefronts<lab11::PlainVec4>(0)}}) {
    double wavefronts = 0, loads = 0, conflicts = 0;
    int launches = 0;
    for (const auto& k : run.kernels) {
      if (k.name.find(e.layout) == std::string::npos) continue;
      auto value = [&](const std::string& m) {
        const auto it = k.values.find(m);
        return it == k.values.end() ? 0.0 : it->second;
      };
      wavefronts += value(kSharedMetrics[0]);
      loads += value(kSharedMetrics[1]);
      conflicts += value(kSharedMetrics[2]);
      ++launches;
    }
    ASSERT_GT(launches, 0) << kernel << "<" << e.layout << "> was not profiled";
    ASSERT_GT(loads, 0.0) << e.layout << ": no shared-memory load: is the tile read back?";
    const double per_load = wavefronts / loads;
    t::record_measurement(e.layout + " wavefronts per shared load", per_load, "", e.model);
    t::record_measurement(e.layout + " bank conflicts per shared load", conflicts / loads, "");
    EXPECT_NEAR(per_load, e.model, kWavefrontTolerance * e.model)
        << e.layout << ": " << wavefronts << " wavefronts over " << loads
        << " shared loads; the bank model gives " << e.model << " for lane l reading float4 v "
        << "of tile row l (one 16-byte load per warp and tile column)";
    if (e.layout == "InterleavedVec4") {
      EXPECT_LE(conflicts / loads, kMaxInterleavedConflicts)
          << "the interleaved tile stage has " << conflicts << " bank conflicts over " << loads
          << " shared loads";
    }
  }
}

}  // namespace
