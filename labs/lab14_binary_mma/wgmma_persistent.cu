// SPDX-License-Identifier: BSD-3-Clause
// Lab 14, advanced part (sm_90a only): a persistent, warp-specialized binary GEMM. One block per
// SM takes 128 x 256 tiles of C in turn. Warpgroup 0 is the producer: one thread loads 1024-bit
// stages of A and B with TMA (cp.async.bulk.tensor) into a ring of kWsStages stages guarded by
// mbarriers (full: the bytes have landed; empty: both consumer warpgroups are done with it).
// Warpgroups 1 and 2 are the consumers: each multiplies 64 rows of the tile by the 256 columns
// with wgmma m64n256k256 .b1 .and.popc (both operands from shared memory, accumulators in
// registers; setmaxnreg moves registers from the producer to them), then writes its rows of C
// through swizzled staging buffers and TMA stores that drain while the next tile computes.
// Compiled for sm_90a alone (CMakeLists.txt: SM90A); elsewhere the kernel is a trapping stub and
// the launcher refuses to run it.
#include <stdexcept>
#include <string>

#include "binary_mma.cuh"
#include "cudalab/check.cuh"

// The device code of this file exists for sm_90a only (wgmma, setmaxnreg, tensor TMA): its
// bodies are compiled where __CUDA_ARCH_FEAT_SM90_ALL is defined (sm_90a device code). No macro
// of its own: the intake scan flags every #define in a lab file.

namespace lab14 {

namespace {

#if defined(CUDALAB_SM90A_BUILT) && CUDALAB_SM90A_BUILT
constexpr bool kSm90aBuilt = true;
#else
constexpr bool kSm90aBuilt = false;  // built outside cudalab_add_lab(SM90A): no sm_90a code
#endif

constexpr int kBM = kWsBlockM;
constexpr int kBN = kWsBlockN;
constexpr int kS = kWsStages;
constexpr int kNB = kWsStagingBuffers;
/// Tile rows per group of the tile order (consecutive tiles share B columns, L2 reuse).
constexpr int kGroup = 8;
constexpr int kABytes = kBM * 128;  // one stage of A: 128 rows x 1024 bits
constexpr int kBBytes = kBN * 128;  // one stage of B: 256 columns x 1024 bits
constexpr int kStageBytes = kABytes + kBBytes;
constexpr int kAcc = kBN / 2;             // s32 accumulators per consumer thread (m64n256)
constexpr int kChunkBytes = 16 * 32 * 4;  // one staging buffer: 16 rows x 32 floats
constexpr int kChunks = kBN / 32;         // 16 x 32 chunks of C per consumer warp per tile
constexpr int kColumnSlots = kBN / 64;    // column popcounts per lane: 2 per slot
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;
constexpr int kMagic = 0x4B400000;  // the float 1.5 x 2^23: bits(kMagic + v) = 1.5 x 2^23 + v
constexpr float kMagicFloat = 12582912.0f;

static_assert(kWsThreads == 3 * 128, "one producer and two consumer warpgroups");
static_assert(kStageBytes % 1024 == 0 && kABytes % 1024 == 0,
              "128-byte swizzled operand tiles start on 1024-byte boundaries");
static_assert(kWsSmemBytes == kS * kStageBytes + 8 * kNB * kChunkBytes + 1024,
              "ring + staging buffers + alignment slack");
static_assert(kWsSmemBytes + 1024 <= 227 * 1024,
              "fits the 227 KB per-block opt-in with the static barriers");
static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536,
              "setmaxnreg: the register file holds the producer's and the consumers' registers");
static_assert(kS >= 2, "the producer must be able to run ahead");
static_assert(kNB >= 1 && kNB <= 8, "cp.async.bulk.wait_group.read takes an immediate");

/// Tile @p t of the persistent order: groups of kGroup tile rows, column by column inside a
/// group, so that the blocks running at once share their B columns in L2.
__host__ __device__ __forceinline__ void tile_origin(int t, int tiles_m, int tiles_n, int& m0,
                                                     int& n0) {
  const int per_group = kGroup * tiles_n;
  const int group = t / per_group;
  const int first_m = group * kGroup;
  const int rows = tiles_m - first_m < kGroup ? tiles_m - first_m : kGroup;
  const int r = t - group * per_group;
  m0 = (first_m + r % rows) * kBM;
  n0 = (r / rows) * kBN;
}

// ---------------------------------------------------------------------------
// PTX wrappers (sm_90a). Each body exists only in the sm_90a compilation.
// ---------------------------------------------------------------------------

/// wgmma shared-memory descriptor of a K-major operand tile with the 128-byte swizzle: start
/// address >> 4 (bits 0-13), LBO 16 bytes (unused when swizzled), SBO 1024 bytes (8 rows of 128
/// bytes), layout 1 = 128B swizzle (bits 62-63). The TMA unit's 128B swizzle puts 16-byte chunk c
/// of row r at 128 r + 16 (c ^ r % 8): exactly this layout.
__device__ __forceinline__ std::uint64_t smem_desc(std::uint32_t smem_addr) {
  return static_cast<std::uint64_t>((smem_addr & 0x3FFFF) >> 4) |
         (static_cast<std::uint64_t>(16 >> 4) << 16) |
         (static_cast<std::uint64_t>(1024 >> 4) << 32) | (static_cast<std::uint64_t>(1) << 62);
}

__device__ __forceinline__ void mbar_init(std::uint32_t bar, std::uint32_t count) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
  cudalab::unused(bar, count);
#endif
}

/// Makes the barrier initializations visible to the async proxy (TMA) and the other threads.
__device__ __forceinline__ void fence_mbar_init() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
#else
  cudalab::unused(bar, bytes);
#endif
}

__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#else
  cudalab::unused(bar);
#endif
}

/// Waits until the phase of parity @p parity of barrier @p bar has completed. A protocol error
/// becomes a trap (a launch error) after about 2^26 failed tries instead of a hung test.
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  for (std::uint32_t tries = 0;; ++tries) {
    std::uint32_t done = 0;
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    if (done) return;
    if (tries > (1u << 26)) __trap();
  }
#else
  cudalab::unused(bar, parity);
#endif
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
#endif
}

/// TMA load of the box at (x = first 32-bit word of K, y = first row) into shared @p dst; its
/// bytes complete a transaction on barrier @p bar.
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int x, int y) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(x), "r"(y)
      : "memory");
#else
  cudalab::unused(dst, map, bar, x, y);
#endif
}

/// TMA store of the box at (x = first column, y = first row) of C from shared @p src, in the
/// thread's current bulk group; the TMA unit leaves out the parts past C's edges.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, std::uint32_t src, int x,
                                             int y) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(src), "r"(x), "r"(y)
      : "memory");
#else
  cudalab::unused(map, src, x, y);
#endif
}

/// Ends the thread's current bulk group (the TMA stores issued since the last commit).
__device__ __forceinline__ void bulk_commit() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most @p kPending of the thread's bulk groups may still READ shared memory.
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
#endif
}

/// Waits until every bulk group of the thread has completed (its writes to C included).
__device__ __forceinline__ void bulk_wait_all() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
#endif
}

/// Makes this thread's generic-proxy shared-memory writes (the staging stores) visible to the
/// async proxy (the TMA store that reads them).
__device__ __forceinline__ void fence_proxy_async_shared() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_fence() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_commit() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}

/// Pins the accumulators here (CUTLASS's warpgroup_fence_operand): the compiler may not move or
/// copy them while a wgmma that writes them may still run.
__device__ __forceinline__ void fence_accumulators(int (&d)[kAcc]) {
#pragma unroll
  for (int i = 0; i < kAcc; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

/// D(64 x 256, s32) += popc(A(64 x 256 bits) AND B(256 x 256 bits)), both from shared-memory
/// descriptors (scale-d = 1: accumulate). Warp w of the warpgroup holds rows 16 w .. 16 w + 15;
/// for each 8-column block j a thread holds d[4 j], d[4 j + 1] at row g = lane / 4, columns
/// 8 j + 2 t, + 1 (t = lane % 4), and d[4 j + 2], d[4 j + 3] at row g + 8.
__device__ __forceinline__ void wgmma_m64n256k256(int (&d)[kAcc], std::uint64_t desc_a,
                                                  std::uint64_t desc_b) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc {"
      "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
      "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
      "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
      "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
      "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
      "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, "
      "%128, %129, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
        "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]),
        "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]),
        "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]),
        "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]),
        "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]),
        "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), "+r"(d[48]),
        "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
        "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]),
        "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]),
        "+r"(d[70]), "+r"(d[71]), "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]),
        "+r"(d[77]), "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]),
        "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), "+r"(d[90]),
        "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), "+r"(d[96]), "+r"(d[97]),
        "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
        "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]),
        "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]),
        "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), "+r"(d[120]), "+r"(d[121]),
        "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
      : "l"(desc_a), "l"(desc_b));
#else
  cudalab::unused(d, desc_a, desc_b);
#endif
}

__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
#else
  cudalab::unused(map);
#endif
}

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/**
 * The persistent kernel; one block per SM, block b takes the tiles b, b + gridDim.x, ... of
 * tile_origin()'s order. @p kWide (K >= kWsWideK): the column popcounts stay 32-bit and C is
 * converted with I2F; otherwise two of them share a register (16 bits each) and the int -> float
 * conversion is the magic-number add (exact for |value| < 2^22).
 * Synchronization: full[s] (count 1: the producer's arrive.expect_tx, completed when all
 * kStageBytes of stage s have landed) and empty[s] (count 8: lane 0 of each consumer warp). Step i
 * (over the block's tiles and K-blocks) uses stage i % kS in round i / kS; the producer waits for
 * the empty phase of round i / kS - 1, a consumer for the full phase of round i / kS, and releases
 * stage i - 1 once wgmma.wait_group 1 says step i - 1's wgmmas are done.
 */
template <bool kWide>
__global__ void __launch_bounds__(kWsThreads, 1)
    binary_mma_persistent_kernel(const __grid_constant__ CUtensorMap tm_a,
                                 const __grid_constant__ CUtensorMap tm_b,
                                 const __grid_constant__ CUtensorMap tm_c,
                                 const int* __restrict__ a_pop, const int* __restrict__ b_pop,
                                 float* __restrict__ c, int m, int n, int k, int words,
                                 int tma_store) {
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
  extern __shared__ __align__(1024) unsigned char smem_raw[];  // ring, then staging buffers
  __shared__ __align__(8) std::uint64_t bars[2 * kS];          // full[kS], then empty[kS]
  const std::uint32_t raw_addr = shared_address(smem_raw);
  const std::uint32_t pad = (1024u - (raw_addr & 1023u)) & 1023u;  // align the ring to 1024
  unsigned char* smem = smem_raw + pad;
  const std::uint32_t smem_addr = raw_addr + pad;
  const std::uint32_t bar0 = shared_address(bars);
  const auto full_bar = [&](int s) { return bar0 + 8u * static_cast<std::uint32_t>(s); };
  const auto empty_bar = [&](int s) { return bar0 + 8u * static_cast<std::uint32_t>(kS + s); };

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int wg = tid >> 7;  // warpgroup
  const int tiles_m = (m + kBM - 1) / kBM;
  const int tiles_n = (n + kBN - 1) / kBN;
  const int ntiles = tiles_m * tiles_n;
  const int kblocks = (words + 31) / 32;  // 1024-bit stages of K
  const int first = static_cast<int>(blockIdx.x);
  const int stride = static_cast<int>(gridDim.x);
  const int my_tiles = first < ntiles ? (ntiles - 1 - first) / stride + 1 : 0;
  if (!kWide && k >= kWsWideK) __trap();  // the launcher picks the wide instance there

  if (tid == 0) {
    for (int s = 0; s < kS; ++s) {
      mbar_init(full_bar(s), 1);
      mbar_init(empty_bar(s), 8);
    }
    fence_mbar_init();
  }
  __syncthreads();  // the only block-wide barrier: the producer leaves early

  if (wg == 0) {  // ---------------- producer ----------------
    setmaxnreg_dec<kProducerRegs>();
    if (tid == 0) {
      prefetch_tensor_map(&tm_a);
      prefetch_tensor_map(&tm_b);
      int stage = 0;
      std::uint32_t phase = 0;
      for (int local = 0; local < my_tiles; ++local) {
        int m0, n0;
        tile_origin(first + local * stride, tiles_m, tiles_n, m0, n0);
        for (int q = 0; q < kblocks; ++q) {
          mbar_wait(empty_bar(stage), phase ^ 1u);  // round 0: the phase before init counts
          mbar_arrive_expect_tx(full_bar(stage), kStageBytes);  // zero-filled bytes count too
          const std::uint32_t dst = smem_addr + static_cast<std::uint32_t>(stage * kStageBytes);
          tma_load_2d(dst, &tm_a, full_bar(stage), q * 32, m0);
          tma_load_2d(dst + kABytes, &tm_b, full_bar(stage), q * 32, n0);
          if (++stage == kS) {
            stage = 0;
            phase ^= 1u;
          }
        }
      }
    }
    return;  // pending loads still complete on full[]; the consumers wait for them
  }

  // ---------------- consumers: warpgroup cw computes rows 64 cw .. + 63 of each tile ----------
  setmaxnreg_inc<kConsumerRegs>();
  const int cw = wg - 1;
  // TODO(lab14): the epilogue's per-warp state, before the tile loop.
  // HINT: each consumer warp owns kNB staging buffers of kChunkBytes (16 rows x 32 floats) after
  // HINT: the ring (kS x kStageBytes from smem / smem_addr), used round-robin.
  cudalab::unused(smem, smem_addr, warp, lane);
  // END TODO(lab14)

  int stage = 0;
  std::uint32_t phase = 0;
  int acc[kAcc];
  for (int local = 0; local < my_tiles; ++local) {
    int m0, n0;
    tile_origin(first + local * stride, tiles_m, tiles_n, m0, n0);
    // TODO(lab14): load what the epilogue needs into registers now (the mainloop hides the
    // latency): the row terms K - 2 popc(a) of the thread's two rows, and this tile's column
    // popcounts, spread over the warp so that no global load is left for the epilogue.
    // HINT: place the counts so that each pair of columns a thread needs in the epilogue sits
    // HINT: in one lane: which columns a thread owns is the wgmma D fragment's layout (PTX ISA,
    // HINT: wgmma register fragments). Columns past N read nothing (0).
    cudalab::unused(a_pop, b_pop, m0, n0, k);
    // END TODO(lab14)

#pragma unroll
    for (int r = 0; r < kAcc; ++r) acc[r] = 0;
    int prev = -1;  // the stage of the previous step, released one step late
    for (int q = 0; q < kblocks; ++q) {
      mbar_wait(full_bar(stage), phase);
      const std::uint32_t a_addr =
          smem_addr + static_cast<std::uint32_t>(stage * kStageBytes + cw * 64 * 128);
      const std::uint32_t b_addr =
          smem_addr + static_cast<std::uint32_t>(stage * kStageBytes + kABytes);
      fence_accumulators(acc);
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {  // 256 bits = 32 bytes of each 128-byte row per wgmma
        wgmma_m64n256k256(acc, smem_desc(a_addr + 32 * ks), smem_desc(b_addr + 32 * ks));
      }
      wgmma_commit();
      fence_accumulators(acc);
      wgmma_wait<1>();  // step q - 1's wgmmas are done: its stage may be refilled
      fence_accumulators(acc);
      if (prev >= 0 && lane == 0) mbar_arrive(empty_bar(prev));
      prev = stage;
      if (++stage == kS) {
        stage = 0;
        phase ^= 1u;
      }
    }
    wgmma_wait<0>();
    fence_accumulators(acc);
    if (lane == 0) mbar_arrive(empty_bar(prev));  // kblocks >= 1

    // TODO(lab14): the epilogue: C = K - 2 popc(a) - 2 popc(b) + 4 acc for the warp's 16 rows
    // x 256 columns. With tma_store: per 32-column chunk inside C, wait until the buffer's last
    // TMA store has read it, write the chunk into it in the TMA unit's 128-byte swizzle, fence the
    // async proxy, __syncwarp(), then lane 0 issues the TMA store and commits it. Else store
    // C directly. The TMA path loads nothing: its column terms come from the registers above.
    // HINT: the 128-byte swizzle XORs the 16-byte chunk index of a row with the row index mod 8
    // HINT: (lab 07's interleave); lane 0 waits for the buffer, and every lane must know before
    // HINT: it writes. int -> float in one add: see how kMagic and kMagicFloat are defined.
    cudalab::unused(c, tm_c, tma_store);
    // END TODO(lab14)
  }
  {  // after the last tile
    // TODO(lab14): before the block ends, its shared memory must outlive the warp's TMA stores.
    // HINT: which lane committed the stores, and which given helper waits for all of them?
    cudalab::unused(tma_store, lane);
    // END TODO(lab14)
  }
#else
  cudalab::unused(tm_a, tm_b, tm_c, a_pop, b_pop, c, m, n, k, words, tma_store);
  __trap();  // wgmma, setmaxnreg and tensor TMA need sm_90a (the launcher refuses elsewhere)
#endif
}

/// The kernel's instance for @p k.
template <bool kWide>
void launch(const WsTensorMaps& maps, const int* d_a_pop, const int* d_b_pop, float* d_c, int m,
            int n, int k, int grid, cudaStream_t stream) {
  CUDA_CHECK(cudaFuncSetAttribute(binary_mma_persistent_kernel<kWide>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, kWsSmemBytes));
  binary_mma_persistent_kernel<kWide><<<grid, kWsThreads, kWsSmemBytes, stream>>>(
      maps.a, maps.b, maps.c, d_a_pop, d_b_pop, d_c, m, n, k, row_words(k), maps.c_valid ? 1 : 0);
}

bool aligned(const void* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

}  // namespace

const char* persistent_unavailable_reason() {
  if (!kSm90aBuilt) {
    return "binary_mma_persistent: this build holds no sm_90a code (the advanced part needs "
           "CMAKE_CUDA_ARCHITECTURES to include 90, e.g. 90 or native on an H100 or H200)";
  }
  static thread_local std::string why;
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    why =
        "binary_mma_persistent: wgmma, setmaxnreg and tensor TMA are sm_90a features "
        "(compute capability 9.0: H100, H200); this GPU is " +
        std::to_string(major) + "." + std::to_string(minor);
    return why.c_str();
  }
  return "";
}

void binary_mma_persistent(const std::uint32_t* d_a_bits, const std::uint32_t* d_b_bits,
                           const int* d_a_pop, const int* d_b_pop, float* d_c, int m, int n, int k,
                           cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("binary_mma_persistent: m, n and k must be positive");
  }
  if (!aligned(d_a_bits, 16) || !aligned(d_b_bits, 16) || !aligned(d_c, 16) ||
      !aligned(d_a_pop, 4) || !aligned(d_b_pop, 4)) {
    throw std::invalid_argument(
        "binary_mma_persistent: the bit operands and C must be 16-byte aligned (TMA), the "
        "popcounts 4-byte aligned");
  }
  const char* why = persistent_unavailable_reason();
  if (*why != '\0') throw std::runtime_error(why);
  const WsTensorMaps maps = encode_ws_tensor_maps(d_a_bits, d_b_bits, d_c, m, n, k);
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const long tiles = static_cast<long>((m + kBM - 1) / kBM) * ((n + kBN - 1) / kBN);
  const int grid = static_cast<int>(tiles < sms ? tiles : sms);  // persistent: one block per SM
  if (k < kWsWideK) {
    launch<false>(maps, d_a_pop, d_b_pop, d_c, m, n, k, grid, stream);
  } else {
    launch<true>(maps, d_a_pop, d_b_pop, d_c, m, n, k, grid, stream);
  }
  CUDA_CHECK_LAST_LAUNCH();
}

cudalab::KernelInfo wgmma_persistent_kernel() {
  return {reinterpret_cast<const void*>(binary_mma_persistent_kernel<false>),
          "binary_mma_persistent_kernel", dim3(kWsThreads), kWsSmemBytes};
}

cudalab::KernelInfo wgmma_persistent_wide_k_kernel() {
  return {reinterpret_cast<const void*>(binary_mma_persistent_kernel<true>),
          "binary_mma_persistent_kernel", dim3(kWsThreads), kWsSmemBytes};
}

}  // namespace lab14
