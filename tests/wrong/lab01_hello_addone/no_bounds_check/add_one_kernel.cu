// Lab 01: the add-one kernel (2-D indexing with a bounds check).
#include "add_one.cuh"

namespace lab01 {

__global__ void add_one_kernel(float* data, int rows, int cols) {
  // TODO(lab01): compute this thread's column (x) and row (y) from blockIdx, blockDim
  // and threadIdx, and add 1.0f to data[row * cols + col] if the thread lies inside
  // the matrix.
  // HINT: the grid is rounded up to whole blocks, so some threads are outside; a
  // thread outside must return without touching memory.
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x walks columns
  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // y walks rows
  (void)rows;  // WRONG: no bounds check; threads past the edge write the next row / past the end
  data[static_cast<size_t>(row) * cols + col] += 1.0f;
  // END TODO(lab01)
}

}  // namespace lab01
