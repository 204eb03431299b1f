// SPDX-License-Identifier: BSD-3-Clause
// Lab 03 runs in its own process (cudalab/remote.hpp): each function of pitch.cuh that the grader
// calls crosses as data (pitched_row too, on the host), and the launchers' kernels are replayed
// by the grader from its own load of the lab's device code. A .cu file: pitched_row is
// __host__ __device__.
//
// PitchedMatrix is a class whose methods allocate, so its objects live in the lab's process: the
// candidate keeps each one the lab's constructor made in a table, by a number. The grader's
// object holds a *copy* (a mirror) of that object's device memory: one allocation of the
// grader's of the bytes from the lab's data() to the end of its allocation (at most rows x
// pitch), starting at the same address modulo 256; data() is the mirror, pitch_bytes(),
// rows() and cols() are the lab object's. The grader finds the lab's object by its mirror
// (the header's inline move and swap move data() with the rest, so the lookup follows them).
// Around every call of a method the mirror goes to the lab's allocation first (the grader may
// write it through data()) and comes back after it, so what the grader checks is always in
// its own memory; the destructor destroys the lab's object (the lab's destructor runs there).
// pitched_matmul() on matrices runs in the lab's process under capture on its own objects; the
// captured kernel's pointers to those objects come back as the grader's mirrors
// (cudalab::remote::set_address_map), and the grader replays it on them.
//
// This file holds what both sides share (MatrixState, the names of the calls); each side is a file
// it includes: remote_judge.cuh in the grader, remote_candidate.cuh in the candidate.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/remote.hpp"
#include "pitch.cuh"

namespace lab03::remote {

using cudalab::remote::Reader;  // both sides read and write the channel's messages
using cudalab::remote::Writer;

/// A PitchedMatrix as it crosses: the lab's object (its number in the candidate's table, 0 for
/// one without an allocation, which is not kept), its data() as a value, pitch and shape, and
/// the bytes the grader's mirror holds (the lab's allocation from data(), at most rows x pitch).
struct MatrixState {
  std::uint64_t id = 0;
  std::uint64_t data = 0;
  std::uint64_t pitch = 0;
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  std::uint64_t bytes = 0;
};

// The calls of the candidate's table that are not functions of pitch.cuh by their own name.
constexpr const char* kConstruct = "lab03::PitchedMatrix::PitchedMatrix";
constexpr const char* kDestroy = "lab03::PitchedMatrix::~PitchedMatrix";
constexpr const char* kState = "lab03::PitchedMatrix (state)";
constexpr const char* kWriteBytes = "lab03::PitchedMatrix (the grader's bytes into the allocation)";
constexpr const char* kReadBytes = "lab03::PitchedMatrix (the allocation's bytes to the grader)";
constexpr const char* kUpload = "lab03::PitchedMatrix::upload";
constexpr const char* kDownload = "lab03::PitchedMatrix::download";
constexpr const char* kToHost = "lab03::PitchedMatrix::to_host";
constexpr const char* kFillBytes = "lab03::PitchedMatrix::fill_bytes";
constexpr const char* kIsDevice = "lab03 (is the lab's allocation device memory)";
constexpr const char* kMatmul = "lab03::pitched_matmul";
constexpr const char* kMatmulOnMatrices = "lab03::pitched_matmul(PitchedMatrix)";
// The launchers on a stream whose capture is invalidated (PitchedContractGpu.
// LauncherReportsAFailedLaunch): the lab's launcher is given such a stream in its own process.
constexpr const char* kMatmulInvalidated = "lab03::pitched_matmul (invalidated capture)";
constexpr const char* kMatmulOnMatricesInvalidated =
    "lab03::pitched_matmul(PitchedMatrix) (invalidated capture)";

/// Bytes of a mirror per message (a frame holds at most cudalab::remote::kMaxFrameBytes).
constexpr std::size_t kChunkBytes = std::size_t(16) << 20;

/// The pointer launcher (the header's pitched_matmul has two overloads).
using PointerLauncher = void (*)(const float*, std::size_t, const float*, std::size_t, float*,
                                 std::size_t, int, int, int, dim3, cudaStream_t);
constexpr PointerLauncher kPointerLauncher = &lab03::pitched_matmul;
/// The const pitched_row (the header's non-const one calls it).
using PitchedRow = const float* (*)(const float*, std::size_t, int);
constexpr PitchedRow kPitchedRow = &lab03::pitched_row;

}  // namespace lab03::remote

CUDALAB_REMOTE(lab03::pitched_matmul_kernel, (), (), cudalab::KernelInfo)

#if CUDALAB_REMOTE_JUDGE
#include "remote_judge.cuh"  // the grader's side: proxies, and the mirrors of the lab's matrices
#else
#include "remote_candidate.cuh"  // the lab's side: the table, and the lab's matrices by number
#endif
