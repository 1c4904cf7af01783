/* Kernel 12 (the benchmark's only; not kept, bench/RESULTS.md): tall,
   thin products (k <= GT_K12_KMAX), as 65536x64x64.

   Kernel 4 runs them one tile per block: every block loads its own copy
   of B's tile (as many bytes as its A tile when k equals the tile width),
   fills its pipeline from nothing and drains it to store C, and 64x64
   tiles need two waves.  Here a block stays resident: it loads its band
   of B (64 columns, all of k) into shared memory once, then multiplies
   strip after strip of A (BM rows) through a cp.async ring whose stages
   run on from one strip into the next, so the next strip's loads and
   this strip's stores of C overlap the multiplies.  The register tile and
   the C stores are kernel 4's (gt_tile.cuh); the sums over k run in the
   same order as kernel 4's.

   A must be 16-byte aligned with lda a multiple of 4 (the launcher
   copies it to scratch otherwise); B is read once per block, element by
   element, in any alignment.  Column-major throughout.  */

#include "gt_bench_kernels.h"
#include "gt_tile.cuh"

#define K12_BN 64
#define K12_BK 32
#define K12_TN 8
static_assert (GT_K12_KMAX % K12_BK == 0, "whole stages of k");

template <int BM, int TM>
using k12_tile = gt_tile<BM, K12_BN, K12_BK, TM, K12_TN>;

/* Stage g of a block's stream: strip blockIdx.x + (g / ksteps) *
   gridDim.x, k from (g % ksteps) * BK, into As ([BK][BM]).  Rows past m
   and k past k are zero-filled.  */
template <int BM, int NT>
static __device__ __forceinline__ void
k12_load (float *As, const float *A, size_t lda, long long m, long long k,
          long long g, int ksteps)
{
  constexpr int ROW_THREADS = BM / 4;               /* a chunk: 4 rows */
  constexpr int KSTEP = NT / ROW_THREADS;           /* k between chunks */
  constexpr int CHUNKS = BM * K12_BK / 4 / NT;
  static_assert (CHUNKS * NT == BM * K12_BK / 4 && NT % ROW_THREADS == 0,
                 "whole chunks per thread");
  const long long strip = blockIdx.x + g / ksteps * (long long) gridDim.x;
  const long long k0 = (g % ksteps) * K12_BK;
  const int mv = (threadIdx.x % ROW_THREADS) * 4;
  const int kk = threadIdx.x / ROW_THREADS;
  const long long row = strip * BM + mv;
  const long long left = m - row;
  const int bytes = left >= 4 ? 16 : (left > 0 ? (int) left * 4 : 0);
#pragma unroll
  for (int i = 0; i < CHUNKS; i++)
    {
      const long long kc = k0 + kk + i * KSTEP;
      const bool in = bytes && kc < k;
      gt_cp_async16_n (As + (kk + i * KSTEP) * BM + mv,
                       in ? A + row + kc * lda : A, in ? bytes : 0);
    }
}

/* MINB resident blocks per SM bound the registers, as in kernel 4.  */
template <int BM, int TM, int STAGES, int MINB>
__global__ void __launch_bounds__ (k12_tile<BM, TM>::NT, MINB)
k12_thin (const float *__restrict__ A, size_t lda,
          const float *__restrict__ B, size_t ldb,
          float *__restrict__ C, size_t ldc,
          long long m, long long n, long long k, bool vc)
{
  typedef k12_tile<BM, TM> T;
  extern __shared__ float4 smem4[];
  float *stages = reinterpret_cast<float *> (smem4);
  float *Bs = stages + STAGES * T::A_FLOATS;   /* [K12_BN][GT_K12_KMAX] */
  const T tile;
  const long long n0 = (long long) blockIdx.y * K12_BN;
  const int ksteps = (int) ((k + K12_BK - 1) / K12_BK);
  const long long strips = (m + BM - 1) / BM;
  const long long mine = strips > blockIdx.x
                         ? (strips - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const long long total = mine * ksteps;

  /* The first stages in flight before B's band is fetched, so the two
     fetches overlap; empty groups keep the wait count uniform.  */
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++)
    {
      if (s < total)
        k12_load<BM, T::NT> (stages + s * T::A_FLOATS, A, lda, m, k, s,
                             ksteps);
      gt_cp_async_commit ();
    }
  /* B is k-contiguous, as Bs is: consecutive threads read consecutive
     elements of a column.  The loop's first barrier publishes it.  */
  for (int e = threadIdx.x; e < K12_BN * GT_K12_KMAX; e += T::NT)
    {
      const int j = e / GT_K12_KMAX, kk = e % GT_K12_KMAX;
      Bs[e] = n0 + j < n && kk < k ? B[kk + (n0 + j) * ldb] : 0.0f;
    }

  float acc[TM][K12_TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < K12_TN; j++)
      acc[i][j] = 0.0f;
  int rs = 0, ws = STAGES - 1;
  int ks = 0;
  long long strip = blockIdx.x;
  for (long long g = 0; g < total; g++)
    {
      gt_cp_async_wait<STAGES - 2> ();
      /* stage g has landed for every thread, and every thread is done
         with the stage the next load overwrites */
      __syncthreads ();
      if (g + STAGES - 1 < total)
        k12_load<BM, T::NT> (stages + ws * T::A_FLOATS, A, lda, m, k,
                             g + STAGES - 1, ksteps);
      gt_cp_async_commit ();
      ws = ws + 1 == STAGES ? 0 : ws + 1;
      tile.template compute<GT_K12_KMAX> (stages + rs * T::A_FLOATS,
                                          Bs + ks * K12_BK, acc);
      rs = rs + 1 == STAGES ? 0 : rs + 1;
      if (++ks == ksteps)
        {
          tile.store (C, ldc, m, n, strip * BM, n0, vc, acc);
#pragma unroll
          for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < K12_TN; j++)
              acc[i][j] = 0.0f;
          ks = 0;
          strip += gridDim.x;
        }
    }
  gt_cp_async_wait<0> ();
}

/* The configurations GT_K12_* name, in order: BM, TM, STAGES, MINB.  */
#define GT_K12_CONFIGS(X) \
  X (128, 8, 3, 3)        \
  X (64, 4, 4, 4)         \
  X (128, 8, 2, 4)

struct k12_entry
{
  void (*fn) (const float *, size_t, const float *, size_t, float *, size_t,
              long long, long long, long long, bool);
  int bm, threads, smem;
};

#define GT_K12_ENTRY(bm, tm, st, minb)                                    \
  { k12_thin<bm, tm, st, minb>, bm, k12_tile<bm, tm>::NT,                 \
    (st * k12_tile<bm, tm>::A_FLOATS + K12_BN * GT_K12_KMAX) * 4 },

static const k12_entry k12_table[GT_K12_CONFIG_COUNT]
  = { GT_K12_CONFIGS (GT_K12_ENTRY) };

static int k12_known[GT_K12_CONFIG_COUNT][GT_MAX_DEVICES];

/* Resident blocks per SM of a configuration on the current device (0: it
   cannot run), asked once per device.  */
extern "C" int
gt_k12_occupancy (int cfg)
{
  if (cfg < 0 || cfg >= GT_K12_CONFIG_COUNT)
    return 0;
  int dev = 0;
  const int seen = gt_device_seen (k12_known[cfg], &dev);
  if (seen)
    return seen < 0 ? 0 : seen - 1;
  const k12_entry *e = &k12_table[cfg];
  return gt_device_remember (
    k12_known[cfg], dev,
    gt_blocks_per_sm ((const void *) e->fn, e->threads, e->smem));
}

extern "C" int
gt_k12_rows (int cfg)
{
  return cfg >= 0 && cfg < GT_K12_CONFIG_COUNT ? k12_table[cfg].bm : 0;
}

/* Blocks along the strips: a share of the resident slots for each band
   of columns, and each block the same number of strips (within one), so
   that no block is left with a strip more than the others.  */
extern "C" long long
gt_k12_blocks (int cfg, size_t m, size_t n, int sms)
{
  const long long strips = gt_ceil_div ((long long) m, gt_k12_rows (cfg));
  const long long bands = gt_ceil_div ((long long) n, K12_BN);
  long long slots = (long long) sms * gt_k12_occupancy (cfg) / bands;
  if (slots < 1)
    slots = 1;
  const long long per = gt_ceil_div (strips, slots);
  return gt_ceil_div (strips, per);
}

extern "C" size_t
gt_k12_work_bytes (size_t m, size_t k, int repack)
{
  return repack ? gt_round4 (m) * k * sizeof (float) : 0;
}

extern "C" cudaError_t
gt_k12_thin (int cfg, const float *A, size_t lda, const float *B, size_t ldb,
             float *C, size_t ldc, size_t m, size_t n, size_t k, void *work,
             cudaStream_t s)
{
  if (cfg < 0 || cfg >= GT_K12_CONFIG_COUNT || k > GT_K12_KMAX)
    return cudaErrorInvalidValue;
  if (m == 0 || n == 0)
    return cudaSuccess;
  const k12_entry *e = &k12_table[cfg];
  const long long bands = gt_ceil_div ((long long) n, K12_BN);
  const gt_device_props *d = gt_device_props_current ();
  if (bands > GT_GRID_YZ_MAX || !d || gt_k12_occupancy (cfg) < 1)
    return cudaErrorInvalidValue;
  cudaError_t err;
  if (!gt_aligned16 (A, lda))
    {
      if (work == NULL)
        return cudaErrorInvalidValue;
      float *a2 = (float *) work;
      if ((err = gt_repack (A, lda, a2, gt_round4 (m), m, k, s))
          != cudaSuccess)
        return err;
      A = a2;
      lda = gt_round4 (m);
    }
  const dim3 grid ((unsigned) gt_k12_blocks (cfg, m, n, d->sms),
                   (unsigned) bands);
  e->fn<<<grid, e->threads, e->smem, s>>> (A, lda, B, ldb, C, ldc,
                                           (long long) m, (long long) n,
                                           (long long) k,
                                           gt_aligned16 (C, ldc));
  return cudaGetLastError ();
}
