// Lab 01: the add-one kernel (2-D indexing with a bounds check).
#include "add_one.cuh"

namespace lab01 {

__global__ void add_one_kernel(float* data, int rows, int cols) {
  // TODO(lab01): compute this thread's column (x) and row (y) from blockIdx, blockDim
  // and threadIdx, and add 1.0f to data[row * cols + col] if the thread lies inside
  // the matrix (roughly 5 lines).
  // HINT: the grid is rounded up to whole blocks, so some threads are outside; a
  // thread outside must return without touching memory.
  // HINT: the grader uses a matrix of more than 2^31 elements: in which type must
  // row * cols + col be computed so that it cannot overflow?
  // Every thread takes one element, but consecutive threads walk DOWN a column
  // (column-major order): correct, and each warp touches 32 rows.
  const std::size_t threads_per_block = std::size_t(blockDim.x) * blockDim.y;
  const std::size_t block = std::size_t(blockIdx.y) * gridDim.x + blockIdx.x;
  const std::size_t t = block * threads_per_block + threadIdx.y * blockDim.x + threadIdx.x;
  if (t < std::size_t(rows) * cols) {
    const std::size_t row = t % rows;
    const std::size_t col = t / rows;
    data[row * cols + col] += 1.0f;
  }
  // END TODO(lab01)
}

}  // namespace lab01
