// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file remote_judge.cuh
 * @brief Lab 03 judged from outside its process, the grader's side: the proxies of pitch.cuh's
 * functions and of PitchedMatrix's methods, and the grader's mirrors of the lab's matrices.
 *
 * A part of remote.cu, which includes it once where CUDALAB_REMOTE_JUDGE is 1 (the grader's
 * objects), after what both sides share: MatrixState and the names of the calls.
 */
#pragma once

namespace lab03::remote {
namespace {

using cudalab::remote::round_trip;

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
