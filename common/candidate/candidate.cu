// SPDX-License-Identifier: BSD-3-Clause
// main() of a lab's candidate process (cudalab/remote.hpp): the only program that runs the
// lab's host code during grading. It answers the grader's calls on descriptor
// CUDALAB_CANDIDATE_FD, one at a time, until the grader closes its end. A launcher runs under
// stream capture: what it enqueued goes back as data (kernel names, launch shapes, parameter
// values, memsets) and the grader replays it. Nothing this process prints, returns or exits
// with is a verdict: the grader checks what it gets.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/check.cuh"
#include "cudalab/device.cuh"
#include "cudalab/remote.hpp"
#include "cudalab/remote_wire.hpp"

namespace cudalab::remote {
namespace {

/// The mangled name of every kernel of this program, by its host function, as nvcc's
/// registration code announced it (before main(), without a GPU).
std::map<const void*, std::string>& kernel_names() {
  static std::map<const void*, std::string> names;
  return names;
}

std::map<std::string, Handler>& table() {
  static std::map<std::string, Handler> t;
  return t;
}

bool read_exact(int fd, char* p, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = recv(fd, p + done, n - done, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<std::size_t>(r);
  }
  return true;
}

/// Every kernel back to the driver's defaults (cudalab::kit::FreshKernelState in the grader).
void reset_kernels() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    return;  // no GPU: nothing was set
  }
  CUDA_CHECK(cudaSetDevice(preferred_device()));
  for (const auto& [function, name] : kernel_names()) {
    cudaFuncAttributes attr{};
    CUDA_CHECK(cudaFuncGetAttributes(&attr, function));
    const int default_dynamic = std::max(0, 48 * 1024 - static_cast<int>(attr.sharedSizeBytes));
    CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    default_dynamic));
    CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutDefault));
    CUDA_CHECK(cudaFuncSetCacheConfig(function, cudaFuncCachePreferNone));
  }
}

/// @p mangled with the two hashes of each anonymous namespace in it masked: such a namespace is
/// mangled as <length>_GLOBAL__N__<8 hex>_<file's name>_<8 hex>, its hashes differing between
/// two compilations of the same file.
std::string without_namespace_hashes(std::string mangled) {
  static const std::string marker = "_GLOBAL__N__";
  const auto hex8 = [&](std::size_t from) {
    for (std::size_t i = from; i < from + 8; ++i) {
      if (std::isxdigit(static_cast<unsigned char>(mangled[i])) == 0) return false;
    }
    return true;
  };
  for (std::size_t at = mangled.find(marker); at != std::string::npos;
       at = mangled.find(marker, at + marker.size())) {
    // The length before the marker follows other digits (a name like lab12): try each suffix
    // of the digits, shortest first, for one that spans <marker><hex8>_..._<hex8>.
    std::size_t length = 0;
    for (std::size_t from = at;
         from > 0 && std::isdigit(static_cast<unsigned char>(mangled[from - 1])) != 0; --from) {
      const std::size_t l = std::stoul(mangled.substr(from - 1, at - from + 1));
      if (l >= marker.size() + 18 && at + l <= mangled.size() && hex8(at + marker.size()) &&
          hex8(at + l - 8) && mangled[at + l - 9] == '_') {
        length = l;
        break;
      }
    }
    if (length == 0) continue;
    mangled.replace(at + marker.size(), 8, 8, '#');
    mangled.replace(at + length - 8, 8, 8, '#');
  }
  return mangled;
}

/// The function attributes of one kernel that a launcher or a lab function may set
/// (cudalab::remote::mirror_kernel_attributes() in the grader gives them to its own handle).
void kernel_attributes(Reader& r, Writer& w) {
  const void* function = candidate_kernel(r.str());
  cudaFuncAttributes attr{};
  if (function != nullptr) CUDA_CHECK(cudaFuncGetAttributes(&attr, function));
  w.pod(static_cast<std::int32_t>(function != nullptr ? attr.maxDynamicSharedSizeBytes : -1));
  w.pod(static_cast<std::int32_t>(function != nullptr ? attr.preferredShmemCarveout : -1));
}

/// The grader's GPU (the CTest resource it was given, or CUDALAB_DEVICE): the same environment
/// reaches this process. Selected before the first call, so that a lab function that asks for
/// the current device gets the grader's; nothing without a GPU (device 0 is the default).
void select_device() {
  static const bool selected = [] {
    const int device = preferred_device();
    if (device != 0 && cudaSetDevice(device) != cudaSuccess) (void)cudaGetLastError();
    return true;
  }();
  (void)selected;
}

std::string error_reply(ErrorKind kind, std::int32_t code, const std::string& what) {
  Writer w;
  w.pod(kReplyError);
  w.pod(static_cast<std::uint8_t>(kind));
  w.pod(code);
  w.str(what);
  return w.bytes();
}

cudaStream_t capture_stream(cudaError_t* error);

std::string answer(const std::string& frame) {
  try {
    Reader r(frame);
    const std::string function = r.str();
    select_device();
    if (function == kWarm) {  // the CUDA context ahead of the first call (prewarm_candidate)
      cudaError_t status = cudaSuccess;
      (void)capture_stream(&status);
      return std::string(1, static_cast<char>(kReplyOk));
    }
    if (function == kResetKernels) {
      reset_kernels();
      return std::string(1, static_cast<char>(kReplyOk));
    }
    if (function == kKernelAttributes) {
      Writer w;
      w.pod(kReplyOk);
      kernel_attributes(r, w);
      return w.bytes();
    }
    const auto it = table().find(function);
    if (it == table().end()) {
      return error_reply(ErrorKind::unknown_function, 0, "no such function in its table");
    }
    Writer w;
    w.pod(kReplyOk);
    it->second(r, w);
    return w.bytes();
  } catch (const CudaError& e) {
    return error_reply(ErrorKind::cuda_error, static_cast<std::int32_t>(e.code()), e.what());
  } catch (const std::invalid_argument& e) {
    return error_reply(ErrorKind::invalid_argument, 0, e.what());
  } catch (const std::out_of_range& e) {
    return error_reply(ErrorKind::out_of_range, 0, e.what());
  } catch (const std::length_error& e) {
    return error_reply(ErrorKind::length_error, 0, e.what());
  } catch (const std::domain_error& e) {
    return error_reply(ErrorKind::domain_error, 0, e.what());
  } catch (const std::logic_error& e) {
    return error_reply(ErrorKind::logic_error, 0, e.what());
  } catch (const std::overflow_error& e) {
    return error_reply(ErrorKind::overflow_error, 0, e.what());
  } catch (const std::runtime_error& e) {
    return error_reply(ErrorKind::runtime_error, 0, e.what());
  } catch (const std::exception& e) {
    return error_reply(ErrorKind::other, 0, e.what());
  } catch (...) {
    return error_reply(ErrorKind::other, 0,
                       "the lab's code threw something that is not a std::exception");
  }
}

/// The stream every launcher is captured on (created on the first launcher call), or
/// nullptr where CUDA cannot start (no GPU or driver): with the error in @p error.
cudaStream_t capture_stream(cudaError_t* error) {
  static cudaError_t status = cudaSuccess;
  static cudaStream_t s = [] {
    cudaStream_t created = nullptr;
    // The grader's GPU (the CTest resource it was given, or CUDALAB_DEVICE): the same
    // environment reaches this process.
    status = cudaSetDevice(preferred_device());
    if (status == cudaSuccess) {
      status = cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking);
    }
    if (status != cudaSuccess) (void)cudaGetLastError();
    return status == cudaSuccess ? created : nullptr;
  }();
  *error = status;
  return s;
}

/// The ranges of set_address_map().
std::vector<AddressRange>& address_map() {
  static std::vector<AddressRange> ranges;
  return ranges;
}

/// @p value as the grader knows it: translated when it falls inside a range of the map.
std::uintptr_t to_judge(std::uintptr_t value) {
  for (const AddressRange& r : address_map()) {
    if (value - r.candidate < r.bytes) return r.judge + (value - r.candidate);
  }
  return value;
}

using ParamInfo = CUresult (*)(CUfunction, std::size_t, std::size_t*, std::size_t*);

ParamInfo param_info() {
  static ParamInfo fn = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuFuncGetParamInfo", &entry, 12040, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      throw std::runtime_error(
          "the driver has no cuFuncGetParamInfo (CUDA 12.4 or newer is needed to grade launches)");
    }
    return reinterpret_cast<ParamInfo>(entry);
  }();
  return fn;
}

/// Whether @p n was launched as a programmatic dependent launch (an incoming edge of type
/// cudaGraphDependencyTypeProgrammatic: cudaLaunchAttributeProgrammaticStreamSerialization).
bool programmatic_dependent(cudaGraphNode_t n) {
  std::size_t count = 0;
#if CUDART_VERSION >= 13000
  CUDA_CHECK(cudaGraphNodeGetDependencies(n, nullptr, nullptr, &count));
#else
  CUDA_CHECK(cudaGraphNodeGetDependencies_v2(n, nullptr, nullptr, &count));
#endif
  if (count == 0) return false;
  std::vector<cudaGraphNode_t> from(count);
  std::vector<cudaGraphEdgeData> edges(count);
#if CUDART_VERSION >= 13000
  CUDA_CHECK(cudaGraphNodeGetDependencies(n, from.data(), edges.data(), &count));
#else
  CUDA_CHECK(cudaGraphNodeGetDependencies_v2(n, from.data(), edges.data(), &count));
#endif
  return std::any_of(
      edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(count),
      [](const cudaGraphEdgeData& e) { return e.type == cudaGraphDependencyTypeProgrammatic; });
}

void put_kernel(Writer& w, cudaGraphNode_t n) {
  cudaKernelNodeParams p{};
  CUDA_CHECK(cudaGraphKernelNodeGetParams(n, &p));
  w.pod(static_cast<std::uint8_t>(NodeKind::kernel));
  w.str(kernel_symbol(p.func));
  w.pod(p.gridDim);
  w.pod(p.blockDim);
  w.pod(static_cast<std::uint32_t>(p.sharedMemBytes));
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, p.func));
  w.pod(static_cast<std::int32_t>(attr.maxDynamicSharedSizeBytes));
  w.pod(static_cast<std::int32_t>(attr.preferredShmemCarveout));
  w.pod(static_cast<std::uint8_t>(programmatic_dependent(n) ? kLaunchProgrammatic : 0));
  cudaFunction_t f = nullptr;
  CUDA_CHECK(cudaGetFuncBySymbol(&f, p.func));
  std::vector<std::string> values;
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0;
    std::size_t size = 0;
    if (param_info()(reinterpret_cast<CUfunction>(f), i, &offset, &size) != CUDA_SUCCESS) break;
    values.emplace_back(static_cast<const char*>(p.kernelParams[i]), size);
    if (size == sizeof(std::uintptr_t) && !address_map().empty()) {
      std::uintptr_t value = 0;
      std::memcpy(&value, values.back().data(), sizeof value);
      value = to_judge(value);
      std::memcpy(values.back().data(), &value, sizeof value);
    }
  }
  w.pod(static_cast<std::uint32_t>(values.size()));
  for (const std::string& v : values) w.str(v);
}

void put_node(Writer& w, cudaGraphNode_t n, int* count) {
  cudaGraphNodeType type{};
  CUDA_CHECK(cudaGraphNodeGetType(n, &type));
  switch (type) {
    case cudaGraphNodeTypeKernel:
      put_kernel(w, n);
      break;
    case cudaGraphNodeTypeMemset: {
      cudaMemsetParams p{};
      CUDA_CHECK(cudaGraphMemsetNodeGetParams(n, &p));
      w.pod(static_cast<std::uint8_t>(NodeKind::memset));
      w.pod(to_judge(reinterpret_cast<std::uintptr_t>(p.dst)));
      w.pod(static_cast<std::uint32_t>(p.value));
      w.pod(static_cast<std::uint32_t>(p.elementSize));
      w.pod(static_cast<std::uint64_t>(p.width * p.elementSize));
      w.pod(static_cast<std::uint64_t>(p.height));
      w.pod(static_cast<std::uint64_t>(p.pitch));
      break;
    }
    case cudaGraphNodeTypeMemcpy: {
      cudaMemcpy3DParms p{};
      CUDA_CHECK(cudaGraphMemcpyNodeGetParams(n, &p));
      // The grader's buffers are not allocated in this process: the copy's declared kind says
      // what it is (cudaMemcpyDefault is taken as device to device; the grader's replay fails
      // on an address that is not device memory there).
      const bool device_to_device =
          p.srcArray == nullptr && p.dstArray == nullptr && p.extent.height <= 1 &&
          p.extent.depth <= 1 &&
          (p.kind == cudaMemcpyDeviceToDevice || p.kind == cudaMemcpyDefault);
      if (device_to_device) {
        w.pod(static_cast<std::uint8_t>(NodeKind::device_copy));
        w.pod(to_judge(reinterpret_cast<std::uintptr_t>(p.dstPtr.ptr)));
        w.pod(to_judge(reinterpret_cast<std::uintptr_t>(p.srcPtr.ptr)));
        w.pod(static_cast<std::uint64_t>(p.extent.width));
      } else {
        w.pod(static_cast<std::uint8_t>(NodeKind::refused));
        w.str("a copy that involves host memory, an array or more than one row");
      }
      break;
    }
    case cudaGraphNodeTypeEmpty:
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent:
      return;  // ordering only: the grader replays the nodes in order on one stream
    case cudaGraphNodeTypeHost:
      w.pod(static_cast<std::uint8_t>(NodeKind::refused));
      w.str("a host function (host code does not run in the grader)");
      break;
    default:
      w.pod(static_cast<std::uint8_t>(NodeKind::refused));
      w.str("a graph node of type " + std::to_string(static_cast<int>(type)));
      break;
  }
  ++*count;
}

}  // namespace

std::string kernel_symbol(const void* function) {
  if (function == nullptr) return "";
  if (const auto it = kernel_names().find(function); it != kernel_names().end()) return it->second;
  const char* name = nullptr;
  const cudaError_t e = cudaFuncGetName(&name, function);
  if (e != cudaSuccess || name == nullptr) {
    (void)cudaGetLastError();
    throw CudaError(e, "cudaFuncGetName: the KernelInfo's function is not a kernel of the lab");
  }
  return name;
}

const void* candidate_kernel(const std::string& symbol) {
  if (symbol.empty()) return nullptr;
  for (const auto& [function, name] : kernel_names()) {
    if (name == symbol) return function;
  }
  // A kernel of a given file that the grader compiled itself: the same name but for the hashes
  // of an anonymous namespace, which differ between compilations.
  const std::string wanted = without_namespace_hashes(symbol);
  for (const auto& [function, name] : kernel_names()) {
    if (without_namespace_hashes(name) == wanted) return function;
  }
  throw std::invalid_argument("the grader named the kernel " + symbol +
                              ", which this lab's program does not hold");
}

void set_address_map(std::vector<AddressRange> ranges) {
  address_map() = std::move(ranges);
}

Registrar::Registrar(const char* function, Handler handler) {
  if (!table().emplace(function, handler).second) {
    // A course bug (two overloads under one name: CUDALAB_REMOTE_AS): loud, before any call.
    std::fprintf(stderr, "cudalab candidate: %s is registered twice\n", function);
    std::abort();
  }
}

void capture_into(Writer& w, void (*call)(void*, cudaStream_t), void* context) {
  cudaError_t no_cuda = cudaSuccess;
  const cudaStream_t s = capture_stream(&no_cuda);
  if (s == nullptr) {
    // Without a GPU a launcher can still check its arguments: it runs uncaptured, and what it
    // throws goes back; if it gets as far as launching, CUDA's own error does.
    call(context, nullptr);
    throw CudaError(
        no_cuda, format_cuda_error(no_cuda, "the launcher ran without a GPU", __FILE__, __LINE__));
  }
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  try {
    call(context, s);
  } catch (...) {
    cudaGraph_t broken = nullptr;
    (void)cudaStreamEndCapture(s, &broken);
    if (broken != nullptr) (void)cudaGraphDestroy(broken);
    (void)cudaGetLastError();
    throw;
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(s, &graph);
  if (end != cudaSuccess) {
    (void)cudaGetLastError();
    throw CudaError(end, capture_failure(end, __FILE__, __LINE__));
  }
  std::size_t n = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n > 0) CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  Writer body;
  int count = 0;
  try {
    for (cudaGraphNode_t node : nodes) put_node(body, node, &count);
  } catch (...) {
    (void)cudaGraphDestroy(graph);
    throw;
  }
  (void)cudaGraphDestroy(graph);
  w.pod(static_cast<std::uint32_t>(count));
  w.raw(body.bytes().data(), body.bytes().size());
}

}  // namespace cudalab::remote

// The candidate is linked with --wrap=__cudaRegisterFunction: every kernel's registration
// passes here first.
extern "C" void CUDARTAPI __real___cudaRegisterFunction(void** handle, const char* host_function,
                                                        char* device_function,
                                                        const char* device_name, int thread_limit,
                                                        uint3* tid, uint3* bid, dim3* block,
                                                        dim3* grid, int* warp_size);
extern "C" void CUDARTAPI __wrap___cudaRegisterFunction(void** handle, const char* host_function,
                                                        char* device_function,
                                                        const char* device_name, int thread_limit,
                                                        uint3* tid, uint3* bid, dim3* block,
                                                        dim3* grid, int* warp_size) {
  if (host_function != nullptr && device_name != nullptr) {
    cudalab::remote::kernel_names()[host_function] = device_name;
  }
  __real___cudaRegisterFunction(handle, host_function, device_function, device_name, thread_limit,
                                tid, bid, block, grid, warp_size);
}

int main() {
  const char* fd_text = std::getenv("CUDALAB_CANDIDATE_FD");
  if (fd_text == nullptr) {
    std::fprintf(stderr,
                 "error: this program serves a grader's calls; it is started by the grader\n");
    return 2;
  }
  const int fd = std::atoi(fd_text);
  unsetenv("CUDALAB_CANDIDATE_FD");
  for (;;) {
    std::uint32_t n = 0;
    if (!cudalab::remote::read_exact(fd, reinterpret_cast<char*>(&n), sizeof n)) return 0;
    if (n > cudalab::remote::kMaxFrameBytes) return 3;
    std::string frame(n, '\0');
    if (!cudalab::remote::read_exact(fd, frame.data(), n)) return 0;
    if (!cudalab::remote::write_frame(fd, cudalab::remote::answer(frame))) return 0;
  }
}
