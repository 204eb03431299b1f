// Lab 05: conflict-free and 32-way microbenchmarks — dependent shared loads timed with clock64().
#include "bank_conflict.cuh"

namespace lab05 {

__device__ void fill_same_bank_successors(int* s_next) {
  // TODO(lab05): with the whole block, set s_next[w] = (w + 32) % kWords for every word w
  // (the word one row below in the same bank, wrapping from the last row to the first).
  // HINT: a block-stride loop: for (int w = threadIdx.x; w < kWords; w += blockDim.x).
  for (int w = threadIdx.x; w < kWords; w += blockDim.x) {
    s_next[w] = (w + cudalab::bank::kNumBanks) % kWords;  // next row, same bank
  }
  // END TODO(lab05)
}

__device__ void timed_chase(const int* s_next, int start_word, int steps, long long* d_cycles,
                            int* d_final_word) {
  // TODO(lab05): read clock64(), follow word = s_next[word] `steps` times from start_word,
  // read clock64() again, and store the difference and the final word at index threadIdx.x.
  // HINT: read through a `const volatile int*` so every load really happens, in order; each
  // load's address is the previous load's value, so the loads cannot overlap.
  const volatile int* chase = s_next;
  int word = start_word;
  const long long t0 = clock64();
  for (int i = 0; i < steps; ++i) {
    word = chase[word];  // dependent: the next address is this load's value
  }
  const long long t1 = clock64();
  d_cycles[threadIdx.x] = t1 - t0;
  d_final_word[threadIdx.x] = word;
  // END TODO(lab05)
}

__global__ void conflict_free_kernel(int steps, long long* d_cycles, int* d_final_word) {
  // TODO(lab05): declare a shared array of kWords ints, fill it, wait for the whole
  // block, then time the chase from the word that puts lane i in bank i.
  // HINT: lane i starts at word i; its chain stays in bank i, so no two lanes ever meet.
  __shared__ int s_next[kWords];      // 32 rows x 32 banks
  fill_same_bank_successors(s_next);  // WRONG: no __syncthreads() before the chase
  timed_chase(s_next, static_cast<int>(threadIdx.x), steps, d_cycles, d_final_word);
  // END TODO(lab05)
}

__global__ void all_conflict_kernel(int steps, long long* d_cycles, int* d_final_word) {
  // TODO(lab05): declare and fill the shared array as above, wait, then time the chase
  // from a start word that puts all 32 lanes in bank 0, each on a different word (row).
  // HINT: lane i starts at word 32 * i (row i of bank 0).
  __shared__ int s_next[kWords];      // 32 rows x 32 banks
  fill_same_bank_successors(s_next);  // WRONG: no __syncthreads() before the chase
  timed_chase(s_next, static_cast<int>(threadIdx.x) * cudalab::bank::kNumBanks, steps, d_cycles,
              d_final_word);
  // END TODO(lab05)
}

}  // namespace lab05
