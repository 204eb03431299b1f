// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file remote_wire.hpp
 * @brief The bytes between a grader and its candidate process (cudalab/remote.hpp).
 *
 * Every message is a frame: a 32-bit length, then that many bytes. A call is the function's
 * name (a string) and its encoded arguments. A reply starts with one status byte:
 * kReplyOk, then (for a launcher) the captured work and the encoded result; or kReplyError,
 * then an ErrorKind byte, a 32-bit code (the cudaError_t of a CudaError) and the message.
 * Captured work is a 32-bit node count, then per node a NodeKind byte and its fields.
 */
#pragma once

#include <cstdint>
#include <string>

namespace cudalab::remote {

/// The largest frame either side accepts (64 MiB).
inline constexpr std::uint32_t kMaxFrameBytes = 64u << 20;

inline constexpr std::uint8_t kReplyOk = 0;
inline constexpr std::uint8_t kReplyError = 1;

/// The type of exception the lab's code threw, rethrown as the same type in the grader.
enum class ErrorKind : std::uint8_t {
  invalid_argument = 1,
  out_of_range,
  length_error,
  domain_error,
  logic_error,
  cuda_error,
  overflow_error,
  runtime_error,
  unknown_function,
  other,
};

/// A node of captured work: a kernel launch (symbol, grid, block, dynamic shared memory, the
/// kernel's max-dynamic-shared-memory and carve-out attributes, launch flags, parameter values), a
/// byte memset (dst, value, element size, width, height, pitch), a device-to-device copy (dst, src,
/// bytes), or something the grader refuses (its description).
enum class NodeKind : std::uint8_t { kernel = 1, memset, device_copy, refused };

/// Launch flag of a kernel node: a programmatic dependent launch of the kernel before it
/// (cudaLaunchAttributeProgrammaticStreamSerialization), replayed as one.
inline constexpr std::uint8_t kLaunchProgrammatic = 1;

/// Sends @p bytes as one frame on the socket @p fd (never raising SIGPIPE); false when the
/// other side has gone.
bool write_frame(int fd, const std::string& bytes);

}  // namespace cudalab::remote
