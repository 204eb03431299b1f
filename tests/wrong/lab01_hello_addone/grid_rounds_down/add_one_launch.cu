// Lab 01: host side — grid size and the checked launch.
#include <stdexcept>

#include "add_one.cuh"
#include "cudalab/check.cuh"

namespace lab01 {

dim3 grid_for(int rows, int cols, dim3 block) {
  // TODO(lab01): return the number of blocks needed in x (columns) and y (rows) so that
  // grid * block covers the whole matrix.
  // HINT: integer ceiling division: (n + b - 1) / b.
  return dim3(cols / block.x, rows / block.y, 1);  // WRONG: rounds down, drops the edge
  // END TODO(lab01)
}

void add_one(float* d_data, int rows, int cols, dim3 block, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) {
    throw std::invalid_argument("add_one: rows and cols must be positive");
  }
  // TODO(lab01): launch add_one_kernel on `stream` with grid_for(rows, cols, block) blocks
  // of `block` threads, then check the launch.
  // HINT: kernel<<<grid, block, 0, stream>>>(...); then CUDA_CHECK_LAST_LAUNCH();
  add_one_kernel<<<grid_for(rows, cols, block), block, 0, stream>>>(d_data, rows, cols);
  CUDA_CHECK_LAST_LAUNCH();
  // END TODO(lab01)
}

}  // namespace lab01
