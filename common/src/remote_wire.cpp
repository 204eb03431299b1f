// SPDX-License-Identifier: BSD-3-Clause
// Frames between a grader and its candidate process (cudalab/remote_wire.hpp), one writer for
// both sides.
#include "cudalab/remote_wire.hpp"

#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>

namespace cudalab::remote {

bool write_frame(int fd, const std::string& bytes) {
  const auto n = static_cast<std::uint32_t>(bytes.size());
  std::string out(reinterpret_cast<const char*>(&n), sizeof n);
  out += bytes;
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t w = send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace cudalab::remote
