// SPDX-License-Identifier: BSD-3-Clause
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cudalab/check.cuh"
#include "cudalab/graph_capture.cuh"
#include "cudalab/remote.hpp"
#include "cudalab/tools.hpp"

namespace cudalab::testing {

namespace {

std::string dim_text(dim3 d) {
  std::ostringstream os;
  os << '(' << d.x << ',' << d.y << ',' << d.z << ')';
  return os.str();
}

const char* type_name(cudaGraphNodeType t) {
  switch (t) {
    case cudaGraphNodeTypeKernel:
      return "kernel";
    case cudaGraphNodeTypeMemcpy:
      return "memcpy";
    case cudaGraphNodeTypeMemset:
      return "memset";
    case cudaGraphNodeTypeHost:
      return "host function";
    case cudaGraphNodeTypeGraph:
      return "child graph";
    case cudaGraphNodeTypeEmpty:
      return "empty";
    case cudaGraphNodeTypeWaitEvent:
      return "event wait";
    case cudaGraphNodeTypeEventRecord:
      return "event record";
    case cudaGraphNodeTypeMemAlloc:
      return "memory allocation";
    case cudaGraphNodeTypeMemFree:
      return "memory free";
    default:
      return "other node";
  }
}

const char* kind_name(cudaMemcpyKind k) {
  switch (k) {
    case cudaMemcpyHostToDevice:
      return "host-to-device";
    case cudaMemcpyDeviceToHost:
      return "device-to-host";
    case cudaMemcpyDeviceToDevice:
      return "device-to-device";
    case cudaMemcpyHostToHost:
      return "host-to-host";
    default:
      return "unknown direction";
  }
}

bool is_device(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

cudaMemcpyKind resolve_kind(const cudaMemcpy3DParms& p) {
  if (p.kind != cudaMemcpyDefault) return p.kind;
  const void* src = p.srcArray != nullptr ? nullptr : p.srcPtr.ptr;
  const void* dst = p.dstArray != nullptr ? nullptr : p.dstPtr.ptr;
  const bool src_dev = p.srcArray != nullptr || is_device(src);
  const bool dst_dev = p.dstArray != nullptr || is_device(dst);
  if (src_dev && dst_dev) return cudaMemcpyDeviceToDevice;
  if (src_dev) return cudaMemcpyDeviceToHost;
  if (dst_dev) return cudaMemcpyHostToDevice;
  return cudaMemcpyHostToHost;
}

/// The identifier @p id as it appears in an Itanium-mangled name: its length, then itself.
bool names_kernel(const std::string& mangled, const std::string& id) {
  if (mangled == id) return true;  // extern "C" kernels are not mangled
  return mangled.find(std::to_string(id.size()) + id) != std::string::npos;
}

/// Whether a kernel node's function @p node_func is the `__global__` function @p entry: the
/// node holds either the entry itself or its cudaKernel_t handle (as cudaGetKernel gives it).
bool same_function(const void* node_func, const void* entry) {
  if (node_func == nullptr || entry == nullptr) return false;
  if (node_func == entry) return true;
  // A lab kernel the judging grader loaded is its own handle: the runtime has no entry for it
  // (asking would be an API error a sanitizer reports).
  if (remote::judge_kernel_of_handle(entry) == entry) return false;
  cudaKernel_t handle = nullptr;
  if (cudaGetKernel(&handle, entry) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return static_cast<const void*>(handle) == node_func;
}

/// Fills @p p for a kernel node that launches one of the lab's kernels as a judging grader
/// loaded them (cudalab/remote.hpp), described through the driver (the runtime has no host
/// function for them, and asking it would be an API error a sanitizer reports); false for any
/// other kernel node, or where the grader judges no lab.
bool library_kernel_node(cudaGraphNode_t n, cudaKernelNodeParams* p) {
  if (!remote::judging()) return false;
  using GetParams = CUresult (*)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS_v2*);
  static GetParams get = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuGraphKernelNodeGetParams", &entry, 12000,
                                                cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess) {
      throw std::runtime_error("the driver has no cuGraphKernelNodeGetParams");
    }
    return reinterpret_cast<GetParams>(entry);
  }();
  CUDA_KERNEL_NODE_PARAMS_v2 d{};
  if (get(reinterpret_cast<CUgraphNode>(n), &d) != CUDA_SUCCESS) {
    throw std::runtime_error("a kernel node of the captured graph cannot be read");
  }
  const void* kernel = remote::judge_kernel_of_handle(
      d.kern != nullptr ? static_cast<const void*>(d.kern) : static_cast<const void*>(d.func));
  if (kernel == nullptr) return false;
  p->func = const_cast<void*>(kernel);
  p->gridDim = dim3(d.gridDimX, d.gridDimY, d.gridDimZ);
  p->blockDim = dim3(d.blockDimX, d.blockDimY, d.blockDimZ);
  p->sharedMemBytes = d.sharedMemBytes;
  p->kernelParams = d.kernelParams;
  p->extra = d.extra;
  return true;
}

bool same_dim(dim3 a, dim3 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

/// The memset's value as one byte repeated over its element, when it is one.
bool byte_value(const GraphNode& n, unsigned char* out) {
  const unsigned byte = n.memset_value & 0xFFu;
  unsigned word = 0;
  for (unsigned i = 0; i < n.memset_element; ++i) word = (word << 8) | byte;
  if (n.memset_element == 0 || word != n.memset_value) return false;
  *out = static_cast<unsigned char>(byte);
  return true;
}

/// First and one-past-last byte a memset node writes.
std::pair<std::uintptr_t, std::uintptr_t> memset_extent(const GraphNode& n) {
  const auto first = reinterpret_cast<std::uintptr_t>(n.memset_dst);
  const std::size_t rows = std::max<std::size_t>(n.memset_rows, 1);
  return {first, first + n.memset_pitch * (rows - 1) + n.memset_row_bytes};
}

/// The memset node writes the byte @p e.value over all of e.dst .. e.dst + e.bytes.
bool covers(const GraphNode& n, const ExpectedMemset& e) {
  unsigned char value = 0;
  if (n.type != cudaGraphNodeTypeMemset || !byte_value(n, &value) || value != e.value) {
    return false;
  }
  const auto [first, last] = memset_extent(n);
  const bool contiguous = n.memset_rows <= 1 || n.memset_pitch == n.memset_row_bytes;
  const auto want = reinterpret_cast<std::uintptr_t>(e.dst);
  if (contiguous) return first <= want && want + e.bytes <= last;
  // Pitched: the expected range must lie inside one row.
  if (want < first || n.memset_pitch == 0) return false;
  const std::uintptr_t row_start = first + (want - first) / n.memset_pitch * n.memset_pitch;
  return want + e.bytes <= row_start + n.memset_row_bytes && want + e.bytes <= last;
}

/// The memset node writes only inside the range of @p e.
bool within(const GraphNode& n, const ExpectedMemset& e) {
  const auto [first, last] = memset_extent(n);
  const auto want = reinterpret_cast<std::uintptr_t>(e.dst);
  return want <= first && last <= want + e.bytes;
}

}  // namespace

GraphRules& GraphRules::expect_launch(const std::string& kernel, std::optional<dim3> grid,
                                      std::optional<dim3> block, std::optional<unsigned> smem,
                                      const std::string& source) {
  launches.push_back(ExpectedLaunch{kernel, grid, block, smem, source});
  return *this;
}

GraphRules& GraphRules::expect_memset(const void* dst, std::size_t bytes, unsigned char value,
                                      const std::string& what) {
  memsets.push_back(ExpectedMemset{dst, bytes, value, what});
  return *this;
}

std::string GraphNode::describe() const {
  std::ostringstream os;
  os << type_name(type);
  if (type == cudaGraphNodeTypeKernel) {
    os << ' ' << pretty << " <<<" << dim_text(grid) << ", " << dim_text(block) << ", " << smem
       << ">>>";
  } else if (type == cudaGraphNodeTypeMemcpy) {
    os << " (" << kind_name(copy_kind) << ')';
  } else if (type == cudaGraphNodeTypeMemset) {
    os << " (" << memset_row_bytes * std::max<std::size_t>(memset_rows, 1) << " bytes at "
       << memset_dst << ", " << memset_element << "-byte value 0x" << std::hex << memset_value
       << std::dec << ')';
  }
  return os.str();
}

void kernel_node_params(cudaGraphNode_t node, cudaKernelNodeParams* params) {
  if (!library_kernel_node(node, params)) CUDA_CHECK(cudaGraphKernelNodeGetParams(node, params));
}

CapturedWork CapturedWork::capture(const std::function<void(cudaStream_t)>& work,
                                   cudaStreamCaptureMode mode) {
  CapturedWork cap;
  CUDA_CHECK(cudaStreamCreateWithFlags(&cap.stream_, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamBeginCapture(cap.stream_, mode));
  try {
    work(cap.stream_);
  } catch (...) {
    cudaGraph_t broken = nullptr;
    (void)cudaStreamEndCapture(cap.stream_, &broken);
    if (broken != nullptr) (void)cudaGraphDestroy(broken);
    (void)cudaGetLastError();
    throw;
  }
  const cudaError_t end = cudaStreamEndCapture(cap.stream_, &cap.graph_);
  if (end != cudaSuccess) {
    (void)cudaGetLastError();
    throw CudaError(end, capture_failure(end, __FILE__, __LINE__));
  }
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(cap.graph_, nullptr, &count));
  std::vector<cudaGraphNode_t> raw(count);
  if (count > 0) CUDA_CHECK(cudaGraphGetNodes(cap.graph_, raw.data(), &count));
  for (cudaGraphNode_t n : raw) {
    GraphNode node;
    CUDA_CHECK(cudaGraphNodeGetType(n, &node.type));
    if (node.type == cudaGraphNodeTypeKernel) {
      cudaKernelNodeParams p{};
      kernel_node_params(n, &p);
      const char* name = nullptr;
      if (cudaFuncGetName(&name, p.func) == cudaSuccess && name != nullptr) {
        node.kernel = name;
      } else {
        (void)cudaGetLastError();
        node.kernel = "<unnamed kernel>";
      }
      node.pretty = demangle(node.kernel);
      node.function = p.func;
      node.grid = p.gridDim;
      node.block = p.blockDim;
      node.smem = p.sharedMemBytes;
    } else if (node.type == cudaGraphNodeTypeMemcpy) {
      cudaMemcpy3DParms p{};
      CUDA_CHECK(cudaGraphMemcpyNodeGetParams(n, &p));
      node.copy_kind = resolve_kind(p);
    } else if (node.type == cudaGraphNodeTypeMemset) {
      cudaMemsetParams p{};
      CUDA_CHECK(cudaGraphMemsetNodeGetParams(n, &p));
      node.memset_dst = p.dst;
      node.memset_element = p.elementSize;
      node.memset_row_bytes = p.width * p.elementSize;
      node.memset_rows = p.height;
      node.memset_pitch = p.height > 1 ? p.pitch : node.memset_row_bytes;
      node.memset_value = p.value;
    }
    cap.nodes_.push_back(std::move(node));
  }
  CUDA_CHECK(cudaGraphInstantiate(&cap.exec_, cap.graph_, 0));
  return cap;
}

CapturedWork::CapturedWork(CapturedWork&& o) noexcept
    : graph_(std::exchange(o.graph_, nullptr)),
      exec_(std::exchange(o.exec_, nullptr)),
      stream_(std::exchange(o.stream_, nullptr)),
      nodes_(std::move(o.nodes_)) {}

CapturedWork& CapturedWork::operator=(CapturedWork&& o) noexcept {
  if (this != &o) {
    CapturedWork tmp(std::move(o));
    std::swap(graph_, tmp.graph_);
    std::swap(exec_, tmp.exec_);
    std::swap(stream_, tmp.stream_);
    std::swap(nodes_, tmp.nodes_);
  }
  return *this;
}

CapturedWork::~CapturedWork() {
  if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) (void)cudaGraphDestroy(graph_);
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

int CapturedWork::kernel_count() const noexcept {
  return static_cast<int>(std::count_if(nodes_.begin(), nodes_.end(), [](const GraphNode& n) {
    return n.type == cudaGraphNodeTypeKernel;
  }));
}

std::string CapturedWork::summary() const {
  std::ostringstream os;
  os << nodes_.size() << (nodes_.size() == 1 ? " node" : " nodes");
  for (const GraphNode& n : nodes_) os << "\n    " << n.describe();
  return os.str();
}

::testing::AssertionResult CapturedWork::holds_only(const GraphRules& rules) const {
  std::vector<std::string> problems;
  for (const GraphNode& n : nodes_) {
    switch (n.type) {
      case cudaGraphNodeTypeKernel: {
        const bool ok =
            std::any_of(rules.kernels.begin(), rules.kernels.end(),
                        [&](const std::string& id) { return names_kernel(n.kernel, id); }) ||
            std::any_of(
                rules.functions.begin(), rules.functions.end(),
                [&](const KernelFunction& f) { return same_function(n.function, f.function); });
        if (!ok) {
          problems.push_back("a kernel that is not one of this lab's own (" + n.pretty +
                             "): a provided baseline or a library may not do the graded work");
        }
        for (const ExpectedLaunch& e : rules.launches) {
          if (!names_kernel(n.kernel, e.kernel)) continue;
          std::ostringstream why;
          if (e.grid && !same_dim(*e.grid, n.grid)) {
            why << "; grid expected " << dim_text(*e.grid) << ", got " << dim_text(n.grid);
          }
          if (e.block && !same_dim(*e.block, n.block)) {
            why << "; block expected " << dim_text(*e.block) << ", got " << dim_text(n.block);
          }
          if (e.smem && *e.smem != n.smem) {
            why << "; dynamic shared memory expected " << *e.smem << " bytes, got " << n.smem;
          }
          if (!why.str().empty()) {
            problems.push_back("a launch of " + e.kernel + " that is not the one asked for (" +
                               e.source + ")" + why.str() +
                               ": the launcher must use the launch configuration it is given");
          }
        }
        break;
      }
      case cudaGraphNodeTypeMemcpy:
        if (n.copy_kind == cudaMemcpyDeviceToDevice) {
          if (!rules.allow_device_copies) {
            problems.push_back("a device-to-device copy (this launcher has no copy to make)");
          }
        } else if (!rules.allow_host_copies) {
          problems.push_back(std::string("a ") + kind_name(n.copy_kind) +
                             " copy: the work must stay on the GPU, not go through the host");
        }
        break;
      case cudaGraphNodeTypeMemset: {
        const bool expected = std::any_of(rules.memsets.begin(), rules.memsets.end(),
                                          [&](const ExpectedMemset& e) { return within(n, e); });
        if (!rules.allow_memset && !expected) {
          problems.push_back(rules.memsets.empty()
                                 ? "a memset (this launcher has none to make)"
                                 : "a memset outside what this launcher must set (" + n.describe() +
                                       ")");
        }
        break;
      }
      case cudaGraphNodeTypeEmpty:
      case cudaGraphNodeTypeWaitEvent:
      case cudaGraphNodeTypeEventRecord:
        break;  // stream fork/join bookkeeping
      case cudaGraphNodeTypeHost:
        problems.push_back("a host function: the work must be done by a kernel");
        break;
      default:
        problems.push_back(std::string("a ") + type_name(n.type) + " node");
        break;
    }
  }
  const std::vector<std::string>& required =
      rules.required.empty() ? rules.kernels : rules.required;
  for (const std::string& id : required) {
    const bool found = std::any_of(nodes_.begin(), nodes_.end(), [&](const GraphNode& n) {
      return n.type == cudaGraphNodeTypeKernel && names_kernel(n.kernel, id);
    });
    if (!found) {
      problems.push_back("no launch of " + id +
                         " on the stream it was given (did the launcher ignore its stream "
                         "argument, launch on another stream, or do the work elsewhere?)");
    }
  }
  for (const KernelFunction& f : rules.functions) {
    const bool found = std::any_of(nodes_.begin(), nodes_.end(), [&](const GraphNode& n) {
      return n.type == cudaGraphNodeTypeKernel && same_function(n.function, f.function);
    });
    if (!found) {
      problems.push_back("no launch of " + f.name +
                         " (the kernel its technique file exports) on the stream it was given "
                         "(did the launcher launch another kernel of that name, ignore its "
                         "stream argument, or do the work elsewhere?)");
    }
  }
  for (const ExpectedMemset& e : rules.memsets) {
    const bool found =
        std::any_of(nodes_.begin(), nodes_.end(), [&](const GraphNode& n) { return covers(n, e); });
    if (!found) {
      std::ostringstream os;
      os << "no memset node for " << e.what << " (" << e.bytes << " bytes of 0x" << std::hex
         << unsigned(e.value) << std::dec << " at " << e.dst
         << "): the launcher must set them with a memset on its stream, not in its kernel";
      problems.push_back(os.str());
    }
  }
  if (problems.empty()) return ::testing::AssertionSuccess();
  std::ostringstream os;
  os << "the work captured from the launcher's stream is not what this lab allows:";
  for (const std::string& p : problems) os << "\n  - " << p;
  os << "\n  the captured graph held " << summary();
  return ::testing::AssertionFailure() << os.str();
}

void CapturedWork::launch(cudaStream_t stream) const {
  CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

void CapturedWork::run() const {
  // The graph's stream is non-blocking: wait for the setup work (new inputs, poisoning) that
  // the grader enqueued on the legacy stream before replaying.
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  CUDA_CHECK(cudaGetLastError());
}

GpuWork CapturedWork::as_work() const {
  const cudaGraphExec_t exec = exec_;
  return [exec](cudaStream_t s) { CUDA_CHECK(cudaGraphLaunch(exec, s)); };
}

namespace {

__global__ void poison_shared_kernel(int words) {
  extern __shared__ unsigned int smem_words[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) smem_words[i] = 0xFFFFFFFFu;
}

}  // namespace

void poison_shared_memory(cudaStream_t stream) {
  // Under compute-sanitizer or ncu (the Sanitizer and Profiler tests re-run the grader with
  // CUDALAB_UNDER_TOOL set), the fill would be the run's most expensive kernel: racecheck
  // tracks each of its ~30 million shared stores. Those runs judge hazards and counters; the
  // plain run of the same test judges the values with the poison in place.
  if (const char* tool = std::getenv("CUDALAB_UNDER_TOOL"); tool != nullptr && *tool != '\0') {
    return;
  }
  int device = 0;
  int sms = 0;
  int optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CUDA_CHECK(cudaFuncSetAttribute(poison_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  optin));
  CUDA_CHECK(cudaFuncSetAttribute(poison_shared_kernel,
                                  cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared));
  // One block fits per SM at this size; four waves make sure every SM ran one.
  poison_shared_kernel<<<4 * sms, 1024, optin, stream>>>(optin / 4);
  CUDA_CHECK_LAST_LAUNCH();
}

void poison(void* ptr, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0) CUDA_CHECK(cudaMemsetAsync(ptr, 0xFF, bytes, stream));
}

}  // namespace cudalab::testing
