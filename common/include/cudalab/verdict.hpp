// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file verdict.hpp
 * @brief The verdict channel: how a grader (or a demo) hands its verdicts to the judge process
 * `cudalab_verdict`, which alone decides what CTest and the scoreboard see.
 *
 * The judge starts the grader with two inherited pipes named by the environment:
 * CUDALAB_VERDICT_KEY_FD (the judge writes a fresh 32-byte key, then closes it) and
 * CUDALAB_VERDICT_FD (the grader writes records). open_channel() reads the key, forgets both
 * variables and keeps the record pipe out of child processes. Each record is one line
 * `<seq> <HMAC-SHA-256(key, "<seq> <json>") in hex> <json>`; the judge drops the whole run at
 * the first line that fails authentication or comes out of sequence.
 *
 * A test's verdict is the "result" record the grader's listener sends after the test body has
 * returned: a process that ends early, a replaced main(), or lines printed on the standard
 * output (which the judge passes on only after defusing any that look like its own) carry no
 * verdict. The lab libraries may not reference this namespace (cmake/CudalabIsolation.cmake).
 */
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace cudalab::verdict {

/// Bytes of the per-run key.
inline constexpr std::size_t kKeyBytes = 32;
/// A per-run key.
using Key = std::array<std::uint8_t, kKeyBytes>;

/// A file name for a test's name plus @p suffix: letters, digits, '.', '-' and '_' kept, the
/// rest '_' (a batch run's files; cmake/CudalabGrading.cmake names them by the same rule).
std::string file_name(const std::string& test, const std::string& suffix);

/// SHA-256 of @p data, as 32 bytes.
std::array<std::uint8_t, 32> sha256(const std::string& data);

/// HMAC-SHA-256 of @p message under @p key, as 64 lowercase hex digits.
std::string hmac_hex(const Key& key, const std::string& message);

/// Constant-time comparison of two strings of equal length (false when lengths differ).
bool equal_digests(const std::string& a, const std::string& b);

/**
 * @brief Connects this process to the judge when the environment names the channel: reads
 * the key, unsets CUDALAB_VERDICT_FD and CUDALAB_VERDICT_KEY_FD, and marks the record pipe
 * close-on-exec. Call once, first thing in main().
 * @return true when connected; false when no judge started this process (run by hand, or a
 *         child such as a sanitizer run), in which case records go nowhere.
 * @throws std::runtime_error when the variables are set but the key cannot be read
 */
bool open_channel();

/// Whether open_channel() connected this process to a judge.
bool connected();

/**
 * @brief Sends one JSON object (a single line, no newline) as the next record; returns false
 * when not connected or the pipe is gone. Thread-safe.
 */
bool send(const std::string& json);

/**
 * @brief The line the channel carries for the @p seq-th record @p json under @p key (without
 * the newline); the judge rebuilds it to authenticate what it read.
 */
std::string frame(const Key& key, std::uint64_t seq, const std::string& json);

}  // namespace cudalab::verdict
