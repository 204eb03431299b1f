// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file remote_candidate.cuh
 * @brief Lab 03 judged from outside its process, the lab's side: the table of the lab's matrices
 * by number, and the calls of the candidate's table that are not functions of pitch.cuh by their
 * own name (constructor, destructor, methods, the mirrors' bytes).
 *
 * A part of remote.cu, which includes it once where CUDALAB_REMOTE_JUDGE is 0 (the candidate's
 * objects), after what both sides share: MatrixState and the names of the calls.
 */
#pragma once

namespace lab03::remote {
namespace {

using cudalab::remote::AddressRange;
using cudalab::remote::Codec;

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
