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
// ===========================================================================
// The grader's side: proxies, and the mirrors of the lab's matrices.
// ===========================================================================
namespace lab03::remote {
namespace {

using cudalab::remote::Reader;
using cudalab::remote::round_trip;
using cudalab::remote::Writer;

/// The grader's copy of a lab object's allocation.
struct Mirror {
  std::uint64_t id = 0;   ///< the lab's object
  std::uint64_t lab = 0;  ///< its data() in the lab's process
  std::size_t bytes = 0;  ///< bytes held from data()
  void* base = nullptr;   ///< the grader's allocation (data() is base + lab % 256)
};

/// The live mirrors, by the grader object's data().
std::map<const void*, Mirror>& mirrors() {
  static std::map<const void*, Mirror> m;
  return m;
}

/// Every data() a grader object has held (live or freed) and the lab's data() behind it: what a
/// test asks of a matrix's allocation after the matrix is gone is asked of the lab's.
std::map<const void*, std::uint64_t>& lab_addresses() {
  static std::map<const void*, std::uint64_t> m;
  return m;
}

/// The private members of a grader object, as the member functions below hand them over.
struct Fields {
  float*& data;
  std::size_t& pitch;
  int& rows;
  int& cols;
};

MatrixState ref_of(const float* data, std::size_t pitch, int rows, int cols) {
  MatrixState ref;
  ref.pitch = pitch;
  ref.rows = rows;
  ref.cols = cols;
  if (data != nullptr) {
    const auto it = mirrors().find(data);
    if (it == mirrors().end()) {
      throw std::logic_error("grader bug: a PitchedMatrix whose data() is no mirror of the lab's");
    }
    ref.id = it->second.id;
    ref.data = it->second.lab;
    ref.bytes = it->second.bytes;
  }
  return ref;
}

MatrixState ref_of(const PitchedMatrix& m) {
  return ref_of(m.data(), m.pitch_bytes(), m.rows(), m.cols());
}

MatrixState ref_of(const Fields& f) {
  return ref_of(f.data, f.pitch, f.rows, f.cols);
}

/// The mirror's bytes into the lab's allocation (before a call that may read or keep them).
void push(const float* data) {
  if (data == nullptr) return;
  const Mirror& m = mirrors().at(data);
  std::string chunk;
  for (std::size_t at = 0; at < m.bytes; at += kChunkBytes) {
    const std::size_t n = std::min(kChunkBytes, m.bytes - at);
    chunk.resize(n);
    CUDA_CHECK(cudaMemcpy(chunk.data(), reinterpret_cast<const char*>(data) + at, n,
                          cudaMemcpyDeviceToHost));
    Writer w;
    w.pod(m.id);
    w.pod(static_cast<std::uint64_t>(at));
    w.str(chunk);
    (void)round_trip(kWriteBytes, w.bytes());
  }
}

/// The lab's allocation into the mirror (after a call that may have written it).
void pull(const float* data) {
  if (data == nullptr) return;
  const Mirror& m = mirrors().at(data);
  for (std::size_t at = 0; at < m.bytes; at += kChunkBytes) {
    const std::size_t n = std::min(kChunkBytes, m.bytes - at);
    Writer w;
    w.pod(m.id);
    w.pod(static_cast<std::uint64_t>(at));
    w.pod(static_cast<std::uint64_t>(n));
    const std::string answer = round_trip(kReadBytes, w.bytes());
    Reader r(answer);
    const std::string bytes = r.str();
    if (bytes.size() != n) {
      throw cudalab::remote::CandidateError("the lab's process sent " +
                                            std::to_string(bytes.size()) + " bytes of a matrix, " +
                                            std::to_string(n) + " were asked for");
    }
    CUDA_CHECK(cudaMemcpy(const_cast<char*>(reinterpret_cast<const char*>(data)) + at, bytes.data(),
                          n, cudaMemcpyHostToDevice));
  }
  // A copy from pageable memory may still be on its way when cudaMemcpy returns: the mirror is
  // complete when the method returns, for work on any stream (the methods are synchronous).
  if (m.bytes != 0) CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

/// Destroys the lab's object @p id (its destructor runs there).
void destroy(std::uint64_t id) {
  if (id == 0) return;
  Writer w;
  w.pod(id);
  (void)round_trip(kDestroy, w.bytes());
}

/// Frees the mirror at @p data; with @p destroy_lab_object, destroys the lab's object first.
void release(const float* data, bool destroy_lab_object) {
  const auto it = mirrors().find(data);
  if (it == mirrors().end()) return;
  const Mirror m = it->second;
  mirrors().erase(it);
  (void)cudaFree(m.base);
  (void)cudaGetLastError();
  if (destroy_lab_object) destroy(m.id);
}

/// Makes the grader's object what the lab's is after a call: pitch and shape, a mirror of its
/// allocation (a new one when the allocation moved or changed size), and its bytes.
void adopt(Fields f, const MatrixState& s) {
  f.pitch = static_cast<std::size_t>(s.pitch);
  f.rows = s.rows;
  f.cols = s.cols;
  if (s.data == 0) {
    if (f.data != nullptr) release(f.data, false);
    f.data = nullptr;
    return;
  }
  const std::size_t offset = static_cast<std::size_t>(s.data % 256);
  const std::size_t bytes = static_cast<std::size_t>(s.bytes);
  if (f.data != nullptr) {
    Mirror& m = mirrors().at(f.data);
    if (m.bytes == bytes && reinterpret_cast<std::uintptr_t>(f.data) % 256 == offset) {
      m.id = s.id;
      m.lab = s.data;
      lab_addresses()[f.data] = s.data;
      pull(f.data);
      return;
    }
    release(f.data, false);
    f.data = nullptr;
  }
  void* base = nullptr;
  CUDA_CHECK(cudaMalloc(&base, offset + std::max<std::size_t>(bytes, 1)));
  f.data = reinterpret_cast<float*>(static_cast<char*>(base) + offset);
  mirrors()[f.data] = Mirror{s.id, s.data, bytes, base};
  lab_addresses()[f.data] = s.data;
  pull(f.data);
}

/// Asks the lab's object for its state again and adopts it (after a call that threw: what the
/// lab's code did before it threw stays done).
void refresh(Fields f, const MatrixState& ref) {
  if (ref.id == 0) return;
  try {
    Writer w;
    w.pod(ref.id);
    const std::string answer = round_trip(kState, w.bytes());
    Reader r(answer);
    adopt(f, r.pod<MatrixState>());
  } catch (...) {
    // The call's own exception is the one to report; a process that ended says so next call.
  }
}

/// One method of the lab's object behind @p f: the mirror goes there, @p put writes the
/// arguments after the object, @p get reads the results before its new state, which is adopted.
template <typename Put, typename Get>
void call_method(Fields f, const char* function, Put put, Get get) {
  const MatrixState ref = ref_of(f);
  push(f.data);
  Writer w;
  w.pod(ref);
  put(w);
  std::string answer;
  try {
    answer = round_trip(function, w.bytes());
  } catch (const cudalab::remote::CandidateError&) {
    throw;
  } catch (...) {
    refresh(f, ref);
    throw;
  }
  Reader r(answer);
  get(r);
  adopt(f, r.pod<MatrixState>());
}

/// Whether @p stream is a stream whose capture was invalidated (the lab's launcher is then
/// given such a stream in its own process).
bool capture_invalidated(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy) return false;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) (void)cudaGetLastError();
  return status == cudaStreamCaptureStatusInvalidated;
}

}  // namespace

/// Whether the lab's allocation behind @p data (a PitchedMatrix's data(), live or gone) is
/// device memory in the lab's process, where it was allocated; for any other pointer, whether
/// it is device memory here. (PitchedContractGpu asks it for cudaPointerGetAttributes.)
bool lab_allocation_is_device_memory(const void* data) {
  const auto it = lab_addresses().find(data);
  if (it == lab_addresses().end()) {
    cudaPointerAttributes attr{};
    const cudaError_t err = cudaPointerGetAttributes(&attr, data);
    (void)cudaGetLastError();
    return err == cudaSuccess && attr.type == cudaMemoryTypeDevice;
  }
  Writer w;
  w.pod(it->second);
  const std::string answer = round_trip(kIsDevice, w.bytes());
  Reader r(answer);
  return r.pod<bool>();
}

}  // namespace lab03::remote

namespace lab03 {

using remote::Fields;

PitchedMatrix::PitchedMatrix(int rows, int cols) {
  cudalab::remote::Writer w;
  w.pod(static_cast<std::int32_t>(rows));
  w.pod(static_cast<std::int32_t>(cols));
  const std::string answer = cudalab::remote::round_trip(remote::kConstruct, w.bytes());
  cudalab::remote::Reader r(answer);
  const auto state = r.pod<remote::MatrixState>();
  try {
    remote::adopt(Fields{data_, pitch_, rows_, cols_}, state);
  } catch (...) {
    try {  // no half-made matrix stays in either process
      if (data_ != nullptr) {
        remote::release(data_, true);
      } else {
        remote::destroy(state.id);
      }
    } catch (...) {
    }
    throw;
  }
}

PitchedMatrix::~PitchedMatrix() {
  if (data_ == nullptr) return;
  try {
    remote::release(data_, true);
  } catch (...) {
    // Never throw from a destructor; a lab process that ended says so at the next call.
  }
}

void PitchedMatrix::upload(const std::vector<float>& h_src) {
  remote::call_method(
      Fields{data_, pitch_, rows_, cols_}, remote::kUpload,
      [&](cudalab::remote::Writer& w) {
        cudalab::remote::Codec<std::vector<float>>::put(w, h_src);
      },
      [](cudalab::remote::Reader&) {});
}

void PitchedMatrix::download(std::vector<float>& h_dst) const {
  auto& self = const_cast<PitchedMatrix&>(*this);  // the lab's object may change; so does this
  remote::call_method(
      Fields{self.data_, self.pitch_, self.rows_, self.cols_}, remote::kDownload,
      [&](cudalab::remote::Writer& w) {
        cudalab::remote::Codec<std::vector<float>>::put(w, h_dst);
      },
      [&](cudalab::remote::Reader& r) {
        h_dst = cudalab::remote::Codec<std::vector<float>>::get(r);
      });
}

std::vector<float> PitchedMatrix::to_host() const {
  auto& self = const_cast<PitchedMatrix&>(*this);
  std::vector<float> h;
  remote::call_method(
      Fields{self.data_, self.pitch_, self.rows_, self.cols_}, remote::kToHost,
      [](cudalab::remote::Writer&) {},
      [&](cudalab::remote::Reader& r) { h = cudalab::remote::Codec<std::vector<float>>::get(r); });
  return h;
}

void PitchedMatrix::fill_bytes(int byte) {
  remote::call_method(
      Fields{data_, pitch_, rows_, cols_}, remote::kFillBytes,
      [&](cudalab::remote::Writer& w) { w.pod(static_cast<std::int32_t>(byte)); },
      [](cudalab::remote::Reader&) {});
}

// pitched_row is declared __host__ __device__: the grader calls it on the host only (its device
// copy is never called here; the lab's device code is not linked into the grader).
__host__ __device__ const float* pitched_row(const float* base, std::size_t pitch_bytes, int row) {
#ifdef __CUDA_ARCH__
  return nullptr;
#else
  return ::cudalab::remote::call<remote::kPitchedRow>("lab03::pitched_row")(base, pitch_bytes, row);
#endif
}

void pitched_matmul(const float* d_a, std::size_t pitch_a, const float* d_b, std::size_t pitch_b,
                    float* d_c, std::size_t pitch_c, int m, int n, int k, dim3 block,
                    cudaStream_t stream) {
  const char* function =
      remote::capture_invalidated(stream) ? remote::kMatmulInvalidated : remote::kMatmul;
  ::cudalab::remote::call<remote::kPointerLauncher>(function)(d_a, pitch_a, d_b, pitch_b, d_c,
                                                              pitch_c, m, n, k, block, stream);
}

// The lab's objects run the launcher in its process; the grader sends each matrix's number and
// mirror (no bytes: the launcher only enqueues, and the grader's replay reads and writes the
// mirrors themselves).
void pitched_matmul(const PitchedMatrix& a, const PitchedMatrix& b, PitchedMatrix& c, dim3 block,
                    cudaStream_t stream) {
  cudalab::remote::Writer w;
  const PitchedMatrix* const operands[] = {&a, &b, &c};
  for (const PitchedMatrix* x : operands) {
    w.pod(remote::ref_of(*x));
    w.pod(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(x->data())));
  }
  w.pod(block);
  const bool invalidated = remote::capture_invalidated(stream);
  const std::string answer = cudalab::remote::round_trip(
      invalidated ? remote::kMatmulOnMatricesInvalidated : remote::kMatmulOnMatrices, w.bytes());
  cudalab::remote::Reader r(answer);
  cudalab::remote::replay(r, stream, remote::kMatmul);
}

}  // namespace lab03

#else
// ===========================================================================
// The lab's side: the table, and the lab's matrices by number.
// ===========================================================================
namespace lab03::remote {
namespace {

using cudalab::remote::AddressRange;
using cudalab::remote::Codec;
using cudalab::remote::Reader;
using cudalab::remote::Writer;

/// The lab's matrices the grader holds, by number.
std::map<std::uint64_t, std::unique_ptr<PitchedMatrix>>& objects() {
  static std::map<std::uint64_t, std::unique_ptr<PitchedMatrix>> table;
  return table;
}

std::uint64_t next_id() {
  static std::uint64_t last = 0;
  return ++last;
}

PitchedMatrix& object(std::uint64_t id) {
  const auto it = objects().find(id);
  if (it == objects().end()) {
    throw std::logic_error("the lab's process holds no matrix " + std::to_string(id) +
                           ": the grader's matrix outlived the process that made it (it ended and "
                           "was started again)");
  }
  return *it->second;
}

/// Bytes from @p p to the end of the device allocation that holds it; 0 when it is none.
std::size_t allocation_bytes_from(const void* p) {
  using GetRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
  static const GetRange get_range = []() -> GetRange {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &entry, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    return reinterpret_cast<GetRange>(entry);
  }();
  if (p == nullptr || get_range == nullptr) return 0;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  const auto at = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
  if (get_range(&base, &size, at) != CUDA_SUCCESS || at < base || at - base > size) return 0;
  return static_cast<std::size_t>(base + size - at);
}

MatrixState state_of(std::uint64_t id, const PitchedMatrix& m) {
  MatrixState s;
  s.id = id;
  s.data = reinterpret_cast<std::uintptr_t>(m.data());
  s.pitch = m.pitch_bytes();
  s.rows = m.rows();
  s.cols = m.cols();
  if (m.data() != nullptr) {
    const std::size_t rows = m.rows() > 0 ? static_cast<std::size_t>(m.rows()) : 0;
    const std::size_t pitch = m.pitch_bytes();
    const std::size_t whole = pitch != 0 && rows > std::numeric_limits<std::size_t>::max() / pitch
                                  ? std::numeric_limits<std::size_t>::max()
                                  : rows * pitch;
    s.bytes = std::min(whole, allocation_bytes_from(m.data()));
  }
  return s;
}

/// The members of a PitchedMatrix, in their order (the class is standard-layout: they are laid
/// out as here).
struct Members {
  float* data;
  std::size_t pitch;
  int rows;
  int cols;
};
static_assert(std::is_standard_layout_v<PitchedMatrix> && sizeof(Members) == sizeof(PitchedMatrix),
              "PitchedMatrix's members changed: update Members");

/// The lab's object a call names: one of the table, or, for a grader object without an
/// allocation (number 0), an empty matrix with that object's pitch and shape.
struct Operand {
  std::uint64_t id = 0;
  PitchedMatrix* object = nullptr;
  std::optional<PitchedMatrix> empty;

  explicit Operand(const MatrixState& ref) : id(ref.id) {
    if (id != 0) {
      object = &remote::object(id);
      return;
    }
    empty.emplace();
    if (ref.pitch != 0 || ref.rows != 0 || ref.cols != 0) {
      // Only the lab's constructor sets these; a matrix it left without an allocation is
      // rebuilt from the values it reported.
      const Members m{nullptr, static_cast<std::size_t>(ref.pitch), ref.rows, ref.cols};
      std::memcpy(static_cast<void*>(&*empty), &m, sizeof m);
      if (empty->data() != nullptr || empty->pitch_bytes() != ref.pitch ||
          empty->rows() != ref.rows || empty->cols() != ref.cols) {
        throw std::logic_error("grader bug: an empty PitchedMatrix could not be rebuilt");
      }
    }
    object = &*empty;
  }

  /// The object's state after the call; an empty matrix that now holds an allocation is kept.
  MatrixState finish() {
    if (empty && empty->data() != nullptr) {
      id = next_id();
      objects()[id] = std::make_unique<PitchedMatrix>(std::move(*empty));
      object = objects()[id].get();
    }
    return state_of(id, *object);
  }
};

void serve_construct(Reader& r, Writer& w) {
  const auto rows = r.pod<std::int32_t>();
  const auto cols = r.pod<std::int32_t>();
  auto m = std::make_unique<PitchedMatrix>(rows, cols);
  std::uint64_t id = 0;
  if (m->data() != nullptr) id = next_id();
  w.pod(state_of(id, *m));
  if (id != 0) objects()[id] = std::move(m);
}

void serve_destroy(Reader& r, Writer&) {
  objects().erase(r.pod<std::uint64_t>());
}

void serve_state(Reader& r, Writer& w) {
  const auto id = r.pod<std::uint64_t>();
  w.pod(state_of(id, object(id)));
}

/// Where a transfer of @p n bytes at @p at of matrix @p id goes: inside what the mirror holds.
char* transfer_address(std::uint64_t id, std::uint64_t at, std::uint64_t n) {
  const PitchedMatrix& m = object(id);
  const MatrixState s = state_of(id, m);
  if (at > s.bytes || n > s.bytes - at) {
    throw std::logic_error("grader bug: bytes " + std::to_string(at) + " + " + std::to_string(n) +
                           " of a matrix of " + std::to_string(s.bytes));
  }
  return reinterpret_cast<char*>(const_cast<float*>(m.data())) + at;
}

// The grader's copies are made here, between calls, never under a capture.
void serve_write_bytes(Reader& r, Writer&) {
  const auto id = r.pod<std::uint64_t>();
  const auto at = r.pod<std::uint64_t>();
  const std::string bytes = r.str();
  CUDA_CHECK(cudaMemcpy(transfer_address(id, at, bytes.size()), bytes.data(), bytes.size(),
                        cudaMemcpyHostToDevice));
  // Complete before the lab's code reads it, on whatever stream it uses.
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

void serve_read_bytes(Reader& r, Writer& w) {
  const auto id = r.pod<std::uint64_t>();
  const auto at = r.pod<std::uint64_t>();
  const auto n = r.pod<std::uint64_t>();
  std::string bytes(static_cast<std::size_t>(n), '\0');
  CUDA_CHECK(
      cudaMemcpy(bytes.data(), transfer_address(id, at, n), bytes.size(), cudaMemcpyDeviceToHost));
  w.str(bytes);
}

void serve_upload(Reader& r, Writer& w) {
  Operand o(r.pod<MatrixState>());
  const std::vector<float> h = Codec<std::vector<float>>::get(r);
  o.object->upload(h);
  w.pod(o.finish());
}

void serve_download(Reader& r, Writer& w) {
  Operand o(r.pod<MatrixState>());
  std::vector<float> h = Codec<std::vector<float>>::get(r);
  std::as_const(*o.object).download(h);
  Codec<std::vector<float>>::put(w, h);
  w.pod(o.finish());
}

void serve_to_host(Reader& r, Writer& w) {
  Operand o(r.pod<MatrixState>());
  Codec<std::vector<float>>::put(w, std::as_const(*o.object).to_host());
  w.pod(o.finish());
}

void serve_fill_bytes(Reader& r, Writer& w) {
  Operand o(r.pod<MatrixState>());
  o.object->fill_bytes(r.pod<std::int32_t>());
  w.pod(o.finish());
}

/// cudaPointerGetAttributes here of the lab's data() the grader names (PitchedContractGpu: the
/// allocation of a matrix moved into or gone out of scope is freed).
void serve_is_device(Reader& r, Writer& w) {
  const auto address = r.pod<std::uint64_t>();
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(
      &attr, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address)));
  (void)cudaGetLastError();
  w.pod(err == cudaSuccess && attr.type == cudaMemoryTypeDevice);
}

/// Runs @p call on a stream whose capture is invalidated (as the grader's stream was): a
/// launcher that checks its launch throws the launch's error; one that returns has enqueued
/// nothing the grader could replay.
void on_invalidated_capture(Writer& w, void (*call)(void*, cudaStream_t), void* context) {
  static cudaStream_t stream = nullptr;
  if (stream == nullptr) CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  (void)cudaStreamQuery(stream);  // not allowed during capture: invalidates it
  (void)cudaGetLastError();
  const auto end = [] {
    cudaGraph_t graph = nullptr;
    (void)cudaStreamEndCapture(stream, &graph);
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
  };
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  (void)cudaStreamIsCapturing(stream, &status);
  (void)cudaGetLastError();
  if (status != cudaStreamCaptureStatusInvalidated) {
    end();
    throw std::logic_error(
        "grader premise: the lab's process could not invalidate a capture as the grader did "
        "(status " +
        std::to_string(static_cast<int>(status)) + ")");
  }
  try {
    call(context, stream);
  } catch (...) {
    end();
    throw;
  }
  end();
  w.pod(std::uint32_t{0});  // no captured work
}

void serve_matmul_invalidated(Reader& r, Writer& w) {
  using cudalab::remote::Signature;
  using Params = Signature<PointerLauncher>::Params;
  using Seq = std::make_index_sequence<std::tuple_size_v<Params>>;
  auto held = cudalab::remote::get_args<Params>(r, Seq{});
  on_invalidated_capture(
      w,
      [](void* c, cudaStream_t s) {
        auto& h = *static_cast<decltype(held)*>(c);
        cudalab::remote::set_stream<Params>(h, s, Seq{});
        cudalab::remote::invoke_held<kPointerLauncher>(h, Seq{});
      },
      &held);
}

/// pitched_matmul() on the lab's matrices: the three operands, the grader's mirror of each, the
/// block; while it is captured, pointers into the operands' allocations become the mirrors'.
struct MatricesCall {
  std::optional<Operand> a, b, c;
  dim3 block;
  std::vector<AddressRange> ranges;

  explicit MatricesCall(Reader& r) {
    for (std::optional<Operand>* o : {&a, &b, &c}) {
      const auto ref = r.pod<MatrixState>();
      const auto mirror = r.pod<std::uint64_t>();
      o->emplace(ref);
      if (ref.id != 0 && mirror != 0) {
        const MatrixState s = state_of(ref.id, *(*o)->object);
        if (s.data != 0 && s.bytes != 0) {
          ranges.push_back(AddressRange{static_cast<std::uintptr_t>(s.data),
                                        static_cast<std::size_t>(s.bytes),
                                        static_cast<std::uintptr_t>(mirror)});
        }
      }
    }
    block = r.pod<dim3>();
  }

  static void run(void* context, cudaStream_t stream) {
    auto& x = *static_cast<MatricesCall*>(context);
    lab03::pitched_matmul(*x.a->object, *x.b->object, *x.c->object, x.block, stream);
  }
};

/// The address map for the length of one capture.
struct AddressMapScope {
  explicit AddressMapScope(std::vector<AddressRange> ranges) {
    cudalab::remote::set_address_map(std::move(ranges));
  }
  ~AddressMapScope() { cudalab::remote::set_address_map({}); }
  AddressMapScope(const AddressMapScope&) = delete;
  AddressMapScope& operator=(const AddressMapScope&) = delete;
};

void serve_matmul_on_matrices(Reader& r, Writer& w) {
  MatricesCall call(r);
  const AddressMapScope scope(call.ranges);
  cudalab::remote::capture_into(w, &MatricesCall::run, &call);
}

void serve_matmul_on_matrices_invalidated(Reader& r, Writer& w) {
  MatricesCall call(r);
  on_invalidated_capture(w, &MatricesCall::run, &call);
}

/// @p handler, leaving no CUDA error behind for the next call: an error the lab's code reported
/// went to the grader, which clears what it expected (a failed allocation), and in the grader's
/// process the error would be its own to clear (as capture_into() does after a launcher threw).
template <cudalab::remote::Handler handler>
void clearing(Reader& r, Writer& w) {
  try {
    handler(r, w);
  } catch (...) {
    (void)cudaGetLastError();
    throw;
  }
  (void)cudaGetLastError();
}

using cudalab::remote::Registrar;
const Registrar kRegistered[] = {
    // The header's overloaded names, by the overload the grader calls (CUDALAB_REMOTE's cast
    // cannot pick one of an overload set in a template argument).
    {"lab03::pitched_row", &cudalab::remote::serve<kPitchedRow>},
    {kMatmul, &cudalab::remote::serve<kPointerLauncher>},
    {kConstruct, &clearing<&serve_construct>},
    {kDestroy, &clearing<&serve_destroy>},
    {kState, &clearing<&serve_state>},
    {kWriteBytes, &clearing<&serve_write_bytes>},
    {kReadBytes, &clearing<&serve_read_bytes>},
    {kUpload, &clearing<&serve_upload>},
    {kDownload, &clearing<&serve_download>},
    {kToHost, &clearing<&serve_to_host>},
    {kFillBytes, &clearing<&serve_fill_bytes>},
    {kIsDevice, &clearing<&serve_is_device>},
    {kMatmulInvalidated, &clearing<&serve_matmul_invalidated>},
    {kMatmulOnMatrices, &clearing<&serve_matmul_on_matrices>},
    {kMatmulOnMatricesInvalidated, &clearing<&serve_matmul_on_matrices_invalidated>},
};

}  // namespace
}  // namespace lab03::remote
#endif
