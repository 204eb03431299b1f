// SPDX-License-Identifier: BSD-3-Clause
// Lab 03, pitched_matmul.cu: pitched indexing (pitched_row, on the CPU: row r starts r * pitch
// BYTES after the base, past 4 GiB too) and the thread-per-element matmul over pitched A, B and
// C on the GPU: every shape and fill with three pitch styles and several blocks, exact-size
// allocations under compute-sanitizer memcheck, and byte offsets past 2^32 in each operand.
// What the launchers reject and report is launch_checks_test.cu's; the matmul on PitchedMatrix
// operands after upload(), pitched_matrix_test.cu's. Shared helpers: pitch_grading.cuh.
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/kit.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device_buffer.cuh"
#include "cudalab/grading.hpp"
#include "cudalab/graph_capture.cuh"
#include "cudalab/testing.hpp"
#include "pitch.cuh"
#include "pitch_grading.cuh"

namespace {

using namespace lab03_grading;

// ===========================================================================
// pitched_row (CPU): row r starts r * pitch BYTES after the base.
// ===========================================================================

/// A host stand-in for a pitched allocation: rows of `pitch` bytes, all bytes kPoisonByte.
struct HostPitched {
  HostPitched(int n_rows, int n_cols, std::size_t row_pitch)
      : rows(n_rows),
        cols(n_cols),
        pitch(row_pitch),
        storage((std::size_t(n_rows) * row_pitch + sizeof(float) - 1) / sizeof(float)) {
    std::memset(storage.data(), kPoisonByte, storage.size() * sizeof(float));
  }
  const char* bytes() const { return reinterpret_cast<const char*>(storage.data()); }
  int rows;
  int cols;
  std::size_t pitch;
  std::vector<float> storage;  // float-aligned bytes
};

/// Bytes from @p base to @p p (negative when p is below base), without pointer UB.
long long byte_distance(const void* base, const void* p) {
  return static_cast<long long>(reinterpret_cast<std::uintptr_t>(p) -
                                reinterpret_cast<std::uintptr_t>(base));
}

/// Explains a wrong row offset by the usual mistakes.
std::string diagnose(long long got, std::size_t pitch, int cols, int row) {
  if (row > 0 && got == static_cast<long long>(row * pitch * sizeof(float))) {
    return " (the pitch was used as a count of floats: it is already in bytes)";
  }
  if (row > 0 && got == static_cast<long long>(row * std::size_t(cols) * sizeof(float))) {
    return " (that is the packed row size: the pitch was ignored)";
  }
  if (row > 0 && got == 0) return " (every row starts at the base?)";
  return "";
}

struct RowCase {
  int cols;           // floats of data per row
  std::size_t pitch;  // bytes from one row start to the next
};

// Fake pitches: as cudaMallocPitch would choose, packed, and odd ones that are not a
// multiple of the row's data nor of 128 bytes.
const RowCase kRowCases[] = {{1001, 4096}, {1001, 4004}, {1001, 4100}, {1000, 4096},
                             {1000, 4608}, {33, 512},    {33, 132},    {33, 164},
                             {1, 4},       {1, 512},     {4096, 16384}};

TEST(PitchedRowCpu, RowStartsRowTimesPitchBytesAfterTheBase) {
  for (const RowCase rc : kRowCases) {
    const HostPitched m(9, rc.cols, rc.pitch);
    const float* base = m.storage.data();
    for (int row = 0; row < m.rows; ++row) {
      const long long expected = static_cast<long long>(row * rc.pitch);
      const long long got = byte_distance(base, lab03::pitched_row(base, rc.pitch, row));
      if (got != expected) {  // report the first wrong row of each case
        ADD_FAILURE() << "pitched_row(base, pitch " << rc.pitch << " bytes, row " << row
                      << ") for rows of " << rc.cols << " floats (" << rc.cols * 4
                      << " bytes): expected base + " << expected << " bytes, got base + " << got
                      << " bytes" << diagnose(got, rc.pitch, rc.cols, row);
        break;
      }
    }
  }
}

TEST(PitchedRowCpu, ElementsWrittenThroughRowsLandAtPitchedOffsetsAndPaddingStaysUntouched) {
  // Width 1001 floats = 4004 bytes in a pitch of 4096 (and two odd pitches).
  for (const RowCase rc : {RowCase{1001, 4096}, RowCase{33, 164}, RowCase{1000, 4100}}) {
    SCOPED_TRACE("rows of " + std::to_string(rc.cols) + " floats, pitch " +
                 std::to_string(rc.pitch) + " bytes");
    HostPitched m(7, rc.cols, rc.pitch);
    float* base = m.storage.data();
    const long long last_start = static_cast<long long>((m.rows - 1) * rc.pitch);
    // Refuse to write through a row pointer outside the buffer (it would corrupt the heap).
    for (int row = 0; row < m.rows; ++row) {
      const long long got = byte_distance(base, lab03::pitched_row(base, rc.pitch, row));
      ASSERT_TRUE(got >= 0 && got <= last_start)
          << "row " << row << " starts at base + " << got << " bytes, outside the " << m.rows
          << " rows of " << rc.pitch << " bytes; expected base + " << row * rc.pitch
          << diagnose(got, rc.pitch, rc.cols, row);
    }
    for (int row = 0; row < m.rows; ++row) {
      float* r = lab03::pitched_row(base, rc.pitch, row);
      for (int col = 0; col < m.cols; ++col) r[col] = float(row * 10000 + col);
    }
    const std::size_t row_bytes = std::size_t(m.cols) * sizeof(float);
    for (int row = 0; row < m.rows; ++row) {
      const std::size_t row_start = row * rc.pitch;
      for (int col = 0; col < m.cols; ++col) {
        float got = 0.0f;
        std::memcpy(&got, m.bytes() + row_start + col * sizeof(float), sizeof got);
        ASSERT_EQ(got, float(row * 10000 + col))
            << "element (" << row << ", " << col << ") at byte " << row_start + col * sizeof(float)
            << " = row * pitch + col * 4 does not hold the value written to it";
      }
      for (std::size_t byte = row_bytes; byte < rc.pitch; ++byte) {
        ASSERT_EQ(static_cast<unsigned char>(m.bytes()[row_start + byte]), kPoisonByte)
            << "padding byte " << byte << " of row " << row << " (byte " << row_start + byte
            << " of the buffer) was written: expected untouched";
      }
    }
  }
}

TEST(PitchedRowCpu, OffsetsBeyond4GiBDoNotOverflow) {
  // The base only serves as a reference point; nothing is dereferenced.
  const float anchor = 0.0f;
  const struct {
    std::size_t pitch;
    int row;
  } cases[] = {{65536, 70000}, {8192, 1048575}, {4096, 2000000000}, {512, 3}};
  for (const auto c : cases) {
    const long long expected = static_cast<long long>(std::size_t(c.row) * c.pitch);
    const long long got = byte_distance(&anchor, lab03::pitched_row(&anchor, c.pitch, c.row));
    if (got != expected) {
      ADD_FAILURE() << "pitched_row(base, pitch " << c.pitch << ", row " << c.row
                    << "): expected base + " << expected << " bytes, got base + " << got
                    << " bytes (compute row * pitch in std::size_t, not int)";
    }
  }
}

// ===========================================================================
// Pitches for the GPU tests
// ===========================================================================

/// Pitches for the three matrices: what cudaMallocPitch would do, packed, and odd ones
/// that differ between A, B and C (so mixing up the pitches is caught).
enum class PitchStyle { Aligned512, Packed, Odd };

std::size_t pitch_for(PitchStyle style, int cols, int which) {
  const std::size_t row = std::size_t(cols) * sizeof(float);
  switch (style) {
    case PitchStyle::Aligned512:
      return round_up(row, 512);
    case PitchStyle::Packed:
      return row;
    case PitchStyle::Odd:
      return row + sizeof(float) * (1 + 8 * which);  // +4, +36, +68 bytes
  }
  return row;
}

const char* style_name(PitchStyle s) {
  switch (s) {
    case PitchStyle::Aligned512:
      return "pitches rounded up to 512 bytes";
    case PitchStyle::Packed:
      return "packed pitches (pitch = row bytes)";
    case PitchStyle::Odd:
      return "odd pitches (row bytes + 4 / 36 / 68)";
  }
  return "";
}

const cudalab::Fill kFills[] = {cudalab::Fill::PlusMinusOne, cudalab::Fill::SmallInt,
                                cudalab::Fill::Uniform};

// ===========================================================================
// pitched_matmul (GPU): every shape and fill, three pitch styles, several blocks.
// ===========================================================================
using MatmulParam = std::tuple<Shape, cudalab::Fill>;

std::string matmul_param_name(const ::testing::TestParamInfo<MatmulParam>& p) {
  const Shape s = std::get<0>(p.param);
  return "m" + std::to_string(s.m) + "_n" + std::to_string(s.n) + "_k" + std::to_string(s.k) + "_" +
         cudalab::fill_name(std::get<1>(p.param));
}

/**
 * pitched_matmul on an m x n x k product of @p fill data, for each pitch style and each of
 * @p blocks: captured (only its own kernel, on the grid of the block), then replayed on two
 * data sets with C, the padding and what follows the rows (@p tail) poisoned; C must match
 * the host and the padding and guard must stay poisoned. Then the launcher is called directly
 * twice more on the same buffers, with the data sets swapped in before each call
 * (cudalab::kit::expect_fresh_results_on_same_buffers).
 */
void expect_pitched_matmul(Shape s, cudalab::Fill fill, Tail tail,
                           const std::vector<dim3>& blocks) {
  SCOPED_TRACE(shape_text(s) + ", " + cudalab::fill_name(fill) + " data");
  const std::vector<float> h_a = cudalab::random_matrix(s.m, s.k, fill, 1);
  const std::vector<float> h_b = cudalab::random_matrix(s.k, s.n, fill, 2);
  const std::vector<float> expected = cudalab::reference_matmul(h_a, h_b, s.m, s.n, s.k);
  const double tol = fill == cudalab::Fill::Uniform ? cudalab::matmul_tolerance(s.k) : 0.0;

  // A second data set behind the same pointers, replayed through the same captured graph.
  const std::vector<float> h_a2 = cudalab::random_matrix(s.m, s.k, fill, 3);
  const std::vector<float> h_b2 = cudalab::random_matrix(s.k, s.n, fill, 4);
  const std::vector<float> expected2 = cudalab::reference_matmul(h_a2, h_b2, s.m, s.n, s.k);

  for (const PitchStyle style : {PitchStyle::Aligned512, PitchStyle::Packed, PitchStyle::Odd}) {
    GraderPitched a(s.m, s.k, pitch_for(style, s.k, 0), tail);
    GraderPitched b(s.k, s.n, pitch_for(style, s.n, 1), tail);
    GraderPitched c(s.m, s.n, pitch_for(style, s.n, 2), tail);
    for (const dim3 block : blocks) {
      SCOPED_TRACE(std::string(style_name(style)) + ": A " + std::to_string(a.pitch()) + ", B " +
                   std::to_string(b.pitch()) + ", C " + std::to_string(c.pitch()) +
                   " bytes; block " + dims(block));
      if ((s.m + block.y - 1) / block.y > cudalab::kMaxGridYZ) continue;  // refused by the launcher
      CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
        lab03::pitched_matmul(a.data(), a.pitch(), b.data(), b.pitch(), c.data(), c.pitch(), s.m,
                              s.n, s.k, block, st);
      });
      ASSERT_TRUE(cap.holds_only(pitched_rules(s.m, s.n, block)));
      for (int set = 0; set < 2; ++set) {
        SCOPED_TRACE("data set " + std::to_string(set + 1) + " of the captured graph");
        a.upload(set == 0 ? h_a : h_a2);
        b.upload(set == 0 ? h_b : h_b2);
        c.poison();
        cudalab::testing::poison_shared_memory();
        cap.run();
        std::vector<float> got;
        ASSERT_TRUE(c.read(got));
        ASSERT_TRUE(
            cudalab::testing::matrices_match(set == 0 ? expected : expected2, got, s.m, s.n, tol));
      }
      // Same buffers, new data: the launcher itself, called twice more with these pointers,
      // pitches, sizes and block, each data set in turn behind them and C poisoned.
      cudalab::kit::expect_fresh_results_on_same_buffers(
          "pitched_matmul",
          [&](int round) {
            a.upload(round == 0 ? h_a : h_a2);
            b.upload(round == 0 ? h_b : h_b2);
            c.poison();
          },
          [&](cudaStream_t st) {
            lab03::pitched_matmul(a.data(), a.pitch(), b.data(), b.pitch(), c.data(), c.pitch(),
                                  s.m, s.n, s.k, block, st);
          },
          [&](int round) {
            std::vector<float> got;
            ASSERT_TRUE(c.read(got));
            EXPECT_TRUE(cudalab::testing::matrices_match(round == 0 ? expected : expected2, got,
                                                         s.m, s.n, tol));
          },
          2);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

class PitchedMatmulGpu : public ::testing::TestWithParam<MatmulParam> {};

TEST_P(PitchedMatmulGpu, MatchesHostReferenceAndLeavesPaddingAlone) {
  CUDALAB_REQUIRE_GPU();
  expect_pitched_matmul(
      std::get<0>(GetParam()), std::get<1>(GetParam()), Tail::kGuard,
      {dim3(16, 16), dim3(32, 8), dim3(7, 5), dim3(1, 1), dim3(1024, 1), dim3(1, 1024)});
}

INSTANTIATE_TEST_SUITE_P(Shapes, PitchedMatmulGpu,
                         ::testing::Combine(::testing::ValuesIn(kShapes),
                                            ::testing::ValuesIn(kFills)),
                         matmul_param_name);

// Small products for memcheck (PitchSanitizer): A, B and C each one allocation that ends at
// its last row's last element (no padding after the last row, no guard), every pitch style,
// ragged shapes and blocks. A read past the last row is outside the allocation; a read of a
// row's padding reads NaN (the padding is poisoned) and shows in C.
TEST(SmallPitchedGpu, ExactAllocationsOnRaggedShapes) {
  CUDALAB_REQUIRE_GPU();
  for (const Shape s : {Shape{1, 1, 1}, Shape{17, 33, 5}, Shape{129, 65, 257}}) {
    expect_pitched_matmul(s, cudalab::Fill::SmallInt, Tail::kExact,
                          {dim3(16, 16), dim3(7, 5), dim3(1024, 1)});
  }
}

CUDALAB_SANITIZER_SUITE(PitchSanitizer, "SmallPitchedGpu.*", memcheck)

/// Uploads A (m x k) and B (k x n) into their pitched buffers, poisons C, then captures
/// pitched_matmul with 32 x 8 blocks, checks the graph's launch and replays it once.
void run_pitched_product(cudalab::DeviceBuffer<unsigned char>& d_a, std::size_t pitch_a,
                         const std::vector<float>& h_a, cudalab::DeviceBuffer<unsigned char>& d_b,
                         std::size_t pitch_b, const std::vector<float>& h_b,
                         cudalab::DeviceBuffer<unsigned char>& d_c, std::size_t pitch_c, int m,
                         int n, int k) {
  CUDA_CHECK(cudaMemcpy2D(d_a.data(), pitch_a, h_a.data(), k * sizeof(float), k * sizeof(float), m,
                          cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy2D(d_b.data(), pitch_b, h_b.data(), n * sizeof(float), n * sizeof(float), k,
                          cudaMemcpyHostToDevice));
  d_c.fill_bytes(kPoisonByte);
  const float* a = reinterpret_cast<const float*>(d_a.data());
  const float* b = reinterpret_cast<const float*>(d_b.data());
  float* c = reinterpret_cast<float*>(d_c.data());
  CapturedWork cap = CapturedWork::capture([&](cudaStream_t st) {
    lab03::pitched_matmul(a, pitch_a, b, pitch_b, c, pitch_c, m, n, k, dim3(32, 8), st);
  });
  ASSERT_TRUE(cap.holds_only(pitched_rules(m, n, dim3(32, 8))));
  cudalab::testing::poison_shared_memory();
  cap.run();
}

// ===========================================================================
// Range edge (GPU): byte offsets past 2^32 (so past 2^31 too) in A and C; the packed host
// matrices are small, the pitched rows huge. Checked on sampled rows of C.
// ===========================================================================
TEST(PitchedRangeGpu, ByteOffsetsPast4GiB) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kM = 131101;  // rows of A and C: row 131072 starts 2^32 bytes in at 32 KiB
  constexpr int kN = 40;
  constexpr int kK = 7;
  const std::size_t pitch_a = 36864;  // 9 x 4 KiB
  const std::size_t pitch_b = 512;
  const std::size_t pitch_c = 33280;  // 65 x 512
  CUDALAB_REQUIRE_FREE_MEMORY(kM * (pitch_a + pitch_c));
  cudalab::DeviceBuffer<unsigned char> d_a(kM * pitch_a), d_b(kK * pitch_b), d_c(kM * pitch_c);
  const int block_rows[] = {0, 1, 58254, 64528, 65536, 116509, 129056, 131072, kM - 1};
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("A " + std::to_string(kM) + "x" + std::to_string(kK) + " (pitch " +
                 std::to_string(pitch_a) + "), C " + std::to_string(kM) + "x" + std::to_string(kN) +
                 " (pitch " + std::to_string(pitch_c) + "), data set " + std::to_string(set + 1));
    const std::vector<float> h_a = cudalab::random_matrix(kM, kK, cudalab::Fill::SmallInt, 5 + set);
    const std::vector<float> h_b = cudalab::random_matrix(kK, kN, cudalab::Fill::SmallInt, 7 + set);
    run_pitched_product(d_a, pitch_a, h_a, d_b, pitch_b, h_b, d_c, pitch_c, kM, kN, kK);
    if (HasFatalFailure()) return;
    std::vector<unsigned char> row(pitch_c);
    for (const int r : block_rows) {
      CUDA_CHECK(cudaMemcpy(row.data(), d_c.data() + std::size_t(r) * pitch_c, pitch_c,
                            cudaMemcpyDeviceToHost));
      for (int j = 0; j < kN; ++j) {
        float want = 0.0f;
        for (int p = 0; p < kK; ++p) {
          want += h_a[std::size_t(r) * kK + p] * h_b[std::size_t(p) * kN + j];
        }
        float got = 0.0f;
        std::memcpy(&got, &row[j * sizeof(float)], sizeof got);
        ASSERT_EQ(got, want) << "C(" << r << ", " << j << ") at byte offset "
                             << std::size_t(r) * pitch_c + j * sizeof(float) << " (A's row " << r
                             << " starts " << std::size_t(r) * pitch_a
                             << " bytes in): are byte offsets computed in 32 bits?";
      }
      for (std::size_t at = kN * sizeof(float); at < pitch_c; ++at) {
        ASSERT_EQ(row[at], kPoisonByte)
            << "padding byte " << at << " of row " << r << " of C was written: expected untouched";
      }
    }
  }
}

// Byte offsets past 2^32 in B: 4100 rows at a pitch of 1 MiB + 512 B (row 4094 on starts past
// 2^32 bytes, row 2047 on past 2^31), A and C small. Every element of C sums over those rows
// (4100 small-integer products: exact in any order); all of C is checked.
TEST(PitchedRangeGpu, ByteOffsetsPast4GiBInB) {
  CUDALAB_REQUIRE_GPU();
  constexpr int kM = 5;
  constexpr int kN = 40;
  constexpr int kK = 4100;                      // rows of B
  const std::size_t pitch_a = 16640;            // 65 x 256 >= 4100 floats
  const std::size_t pitch_b = (1 << 20) + 512;  // 1 MiB + 512 B
  const std::size_t pitch_c = 512;
  CUDALAB_REQUIRE_FREE_MEMORY(kK * pitch_b);
  cudalab::DeviceBuffer<unsigned char> d_a(kM * pitch_a), d_b(kK * pitch_b), d_c(kM * pitch_c);
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE("A " + std::to_string(kM) + "x" + std::to_string(kK) + ", B " +
                 std::to_string(kK) + "x" + std::to_string(kN) + " (pitch " +
                 std::to_string(pitch_b) + "), data set " + std::to_string(set + 1));
    const std::vector<float> h_a = cudalab::random_matrix(kM, kK, cudalab::Fill::SmallInt, 9 + set);
    const std::vector<float> h_b =
        cudalab::random_matrix(kK, kN, cudalab::Fill::SmallInt, 11 + set);
    run_pitched_product(d_a, pitch_a, h_a, d_b, pitch_b, h_b, d_c, pitch_c, kM, kN, kK);
    if (HasFatalFailure()) return;
    std::vector<float> got(std::size_t(kM) * kN);
    CUDA_CHECK(cudaMemcpy2D(got.data(), kN * sizeof(float), d_c.data(), pitch_c, kN * sizeof(float),
                            kM, cudaMemcpyDeviceToHost));
    for (int r = 0; r < kM; ++r) {
      for (int j = 0; j < kN; ++j) {
        double want = 0.0;
        for (int p = 0; p < kK; ++p) {
          want += double(h_a[std::size_t(r) * kK + p]) * h_b[std::size_t(p) * kN + j];
        }
        ASSERT_EQ(got[std::size_t(r) * kN + j], want)
            << "C(" << r << ", " << j << "): B's rows from " << (std::size_t(1) << 32) / pitch_b + 1
            << " on start past 2^32 bytes (pitch " << pitch_b
            << " B): are byte offsets p * pitch_b computed in 32 bits?";
      }
    }
  }
}

}  // namespace
