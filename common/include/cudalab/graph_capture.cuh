// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file graph_capture.cuh
 * @brief Provenance for graders: what did a launcher really enqueue?
 *
 * A graded launcher is run once under CUDA stream capture (global mode) on a fresh
 * non-blocking stream. Capture records instead of executing, so the resulting graph is the
 * launcher's work: kernel nodes (with the kernel each launches), memcpy nodes (with their
 * direction), memset, host and event nodes. Work the launcher did elsewhere (a kernel on the
 * legacy default stream or a private stream, a synchronous copy, host computation) leaves
 * no node. The grader then checks what the graph may hold (GraphRules), puts new inputs
 * behind the same pointers, poisons the outputs and replays the graph: the result it checks
 * is the one the captured kernels computed.
 */
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/bench.cuh"

namespace cudalab::testing {

/// One node of a captured graph, as the grader reports it.
struct GraphNode {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  std::string kernel;                            ///< kernel nodes: the kernel's (mangled) name
  std::string pretty;                            ///< kernel nodes: the demangled name, for messages
  const void* function = nullptr;                ///< kernel nodes: the function the node launches
  dim3 grid{};                                   ///< kernel nodes: launch configuration
  dim3 block{};                                  ///< kernel nodes: launch configuration
  unsigned smem = 0;                             ///< kernel nodes: dynamic shared memory bytes
  cudaMemcpyKind copy_kind = cudaMemcpyDefault;  ///< memcpy nodes: direction (resolved)
  const void* memset_dst = nullptr;              ///< memset nodes: first byte written
  std::size_t memset_row_bytes = 0;              ///< memset nodes: bytes per row (width x element)
  std::size_t memset_rows = 0;                   ///< memset nodes: rows (1 for cudaMemsetAsync)
  std::size_t memset_pitch = 0;                  ///< memset nodes: bytes from one row to the next
  unsigned memset_value = 0;                     ///< memset nodes: the value of each element
  unsigned memset_element = 0;                   ///< memset nodes: element size (1, 2 or 4 bytes)
  /// e.g. "kernel lab01::add_one_kernel(float*, int, int) <<<(4,4,1), (16,16,1), 0>>>".
  std::string describe() const;
};

/**
 * @brief The launch configuration every node of one kernel must have, where the interface
 * fixes it (the block a launcher is asked for, the grid its handout defines, the dynamic
 * shared memory it is given). A field left empty is the launcher's own choice.
 */
struct ExpectedLaunch {
  std::string kernel;            ///< identifier, as in GraphRules::kernels
  std::optional<dim3> grid;      ///< gridDim
  std::optional<dim3> block;     ///< blockDim
  std::optional<unsigned> smem;  ///< dynamic shared memory bytes
  std::string source;            ///< where the expectation comes from, for the message
};

/// A memset the captured graph must hold: @p bytes bytes from @p dst set to the byte @p value
/// (e.g. a counter the launcher zeroes before its kernel adds to it).
struct ExpectedMemset {
  const void* dst = nullptr;
  std::size_t bytes = 0;
  unsigned char value = 0;
  std::string what;  ///< e.g. "*d_count zeroed", for the message
};

/// A kernel identified by its `__global__` function (cudalab::KernelInfo::function): stricter
/// than a name, it tells apart the instances of a template and same-named kernels of other
/// files. @p name is for messages.
struct KernelFunction {
  const void* function = nullptr;
  std::string name;
};

/// What a captured graph may hold. Kernel names are C++ identifiers (no namespace), e.g.
/// "add_one_kernel"; a kernel node matches when its mangled name contains the identifier.
/// A kernel of @p functions matches by its function instead.
struct GraphRules {
  std::vector<std::string> kernels;  ///< the lab's own kernels the launcher may launch
  /// The lab's own kernels by function identity: each may be launched and must appear.
  std::vector<KernelFunction> functions;
  std::vector<std::string> required;  ///< kernels that must appear (default: all of kernels)
  bool allow_memset = false;          ///< cudaMemsetAsync nodes
  bool allow_device_copies = false;   ///< device-to-device copies
  bool allow_host_copies = false;     ///< host<->device copies (only where the lab teaches them)
  /// Launch configurations the kernels' nodes must have (checked on every node of the kernel).
  std::vector<ExpectedLaunch> launches;
  /// Memsets that must appear (allowed whatever allow_memset says; other memsets are not).
  std::vector<ExpectedMemset> memsets;

  /// Adds an ExpectedLaunch for @p kernel; returns *this for chaining.
  GraphRules& expect_launch(const std::string& kernel, std::optional<dim3> grid,
                            std::optional<dim3> block, std::optional<unsigned> smem,
                            const std::string& source = "the launch the interface defines");
  /// Adds an ExpectedMemset; returns *this for chaining.
  GraphRules& expect_memset(const void* dst, std::size_t bytes, unsigned char value,
                            const std::string& what);
};

/**
 * @brief A launcher's work, captured into an executable graph (RAII).
 *
 * Typical use in a grader:
 * @code
 * CapturedWork cap = CapturedWork::capture([&](cudaStream_t s) { lab::launch(..., s); });
 * ASSERT_TRUE(cap.holds_only({{"my_kernel"}}));
 * upload other inputs; poison outputs; poison_shared_memory();
 * cap.run();   // replays the graph and waits
 * check the outputs
 * @endcode
 */
class CapturedWork {
 public:
  /**
   * @brief Runs @p work(stream) under capture on a new non-blocking stream.
   * @param work  the launcher call; it must enqueue its work on the stream it is given
   * @param mode  cudaStreamCaptureModeGlobal (default); relaxed only where a graded
   *              function must allocate, with the reason in the test
   * @throws cudalab::CudaError when the capture fails; the message names the likely cause
   *         (a synchronizing call, an allocation or a copy that cannot be captured)
   */
  static CapturedWork capture(const std::function<void(cudaStream_t)>& work,
                              cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal);

  CapturedWork(CapturedWork&& other) noexcept;
  CapturedWork& operator=(CapturedWork&& other) noexcept;
  CapturedWork(const CapturedWork&) = delete;
  CapturedWork& operator=(const CapturedWork&) = delete;
  ~CapturedWork();

  /// The nodes of the graph, in the order cudaGraphGetNodes returns them.
  const std::vector<GraphNode>& nodes() const noexcept { return nodes_; }
  /// Number of kernel nodes.
  int kernel_count() const noexcept;
  /// One line per node, for failure messages ("the graph held: ...").
  std::string summary() const;
  /// Passes when every node is allowed by @p rules, every required kernel appears, every
  /// node of a kernel named in rules.launches has that launch configuration (a mismatch is
  /// reported as expected vs got) and every memset of rules.memsets appears; otherwise names
  /// what was found (and what was missing) and the likely cause.
  ::testing::AssertionResult holds_only(const GraphRules& rules) const;

  /// Enqueues the captured graph on @p stream.
  void launch(cudaStream_t stream) const;
  /// Launches the graph on its own stream and waits for it; checks for errors.
  void run() const;
  /// The graph as a piece of work to time (cudalab::compare).
  GpuWork as_work() const;

 private:
  CapturedWork() = default;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::vector<GraphNode> nodes_;
};

/// The parameters of the kernel node @p node (function, grid, block, dynamic shared memory,
/// argument pointers), also where it launches a lab kernel that a judging grader loaded
/// (cudalab/remote.hpp): then func is the grader's handle of that kernel.
void kernel_node_params(cudaGraphNode_t node, cudaKernelNodeParams* params);

/**
 * @brief Fills the shared memory of every SM with NaN (0xFF bytes): a given kernel using
 * the maximum opt-in dynamic shared memory, launched on enough blocks to cover every SM.
 * Shared memory keeps its contents between kernels, so without this a kernel that reads
 * shared memory it never wrote may see harmless stale values; after it, it sees NaN.
 * Does nothing under compute-sanitizer or ncu (CUDALAB_UNDER_TOOL), where it would be the
 * run's most expensive kernel and those runs judge hazards and counters, not values.
 */
void poison_shared_memory(cudaStream_t stream = nullptr);

/// Fills @p bytes at device pointer @p ptr with 0xFF (NaN for float, all ones for integers).
void poison(void* ptr, std::size_t bytes, cudaStream_t stream = nullptr);

}  // namespace cudalab::testing
