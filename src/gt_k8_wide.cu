/* Kernel 8: 16x8 per thread, copies that cost no registers.

   Nsight Compute on kernels 4 and 7 against cuBLAS at 4096^3 (H200,
   bench/RESULTS.md) showed cuBLAS issuing in 90% of cycles and ours in
   75-78%: ours stalled on register-bank conflicts ("dispatch stall") and
   on shared loads that came too late ("short scoreboard"), the second
   because the compiler, short of registers, sinks the double-buffered
   fragment loads towards their use.  This kernel keeps kernel 7's
   register double buffering and changes:

   - 16x8 of C per thread (a 128x128 block tile of 128 threads, two
     blocks per SM at up to 255 registers): 6 shared reads feed 128 FMAs
     instead of 4 for 64, and two independent blocks per SM wait at
     their barriers at different times.
   - The FMAs of one k step go row by row of the thread's tile, snaking
     over the columns (measured fastest of five orders; it also has the
     fewest same-bank pairs, tools/ffma-banks).
   - No copy goes through registers: A is m-contiguous, so its 8 x 128
     panel of a stage lands in shared memory by cp.async; B is
     k-contiguous and must be transposed on the way (Bs[k][n]), so the
     launcher first writes B' to scratch with a transpose kernel, after
     which B' is n-contiguous and lands by cp.async too.  Without scratch,
     or with an unaligned A, the affected operand goes through registers
     (modes below).

   Operands need not be aligned: an unaligned A is read element by
   element.  */

#include "gt_gemm.h"
#include "gt_launch.cuh"

#define K8_BM 128
#define K8_BN 128
#define K8_BK 8
#define K8_THREADS 128

/* One thread's share of one operand panel of a stage in the layout the
   FMAs read: R (8, or 4 for B' under 256 threads) consecutive rows (m for
   A, n for B') of one k.  */
template <int R>
struct k8_panel
{
  const float *p;   /* next R elements */
  int rows;         /* rows at and after them inside the matrix, <= R */
  int k_left;       /* k left from this thread's column (<= 0: done) */
  float4 r0, r1;    /* staged through registers (ASYNC false) */

  __device__ __forceinline__ void
  init (const float *base, long long rows_total, long long row0, int kcol,
        size_t ld, long long k)
  {
    const long long r = rows_total - row0;
    rows = r > R ? R : (int) (r > 0 ? r : 0);
    p = rows > 0 ? base + row0 + (size_t) kcol * ld : base;
    k_left = rows > 0 ? (int) k - kcol : 0;
  }

  /* ASYNC: straight to dst in shared memory (zero fill past the edges);
     otherwise into r0, r1 for put ().  */
  template <bool ASYNC>
  __device__ __forceinline__ void
  fetch (size_t step, bool vec, float *dst)
  {
    const int have = k_left > 0 ? rows : 0;
    if (ASYNC)
      {
        gt_cp_async16_n (dst, p, have >= 4 ? 16 : 4 * have);
        if (R > 4)
          gt_cp_async16_n (dst + 4, have > 4 ? p + 4 : p,
                           have >= 8 ? 16 : (have > 4 ? 4 * (have - 4) : 0));
      }
    else
      {
        r0 = gt_ldg4 (p, have, vec);
        r1 = gt_ldg4 (p + 4, have - 4, vec);
      }
    /* Pointers of threads outside the matrix move too but are never
       read through.  */
    p += step;
    k_left -= K8_BK;
  }

  __device__ __forceinline__ void
  put (float *dst) const
  {
    *reinterpret_cast<float4 *> (dst) = r0;
    *reinterpret_cast<float4 *> (dst + 4) = r1;
  }
};

/* B as it is (k-contiguous): one thread's column of a stage, all 8 k,
   through registers, stored transposed.  */
struct k8_bcol
{
  const float *p;
  int k_left;
  float4 r0, r1;

  __device__ __forceinline__ void
  fetch (bool vec)
  {
    r0 = gt_ldg4 (p, k_left, vec);
    r1 = gt_ldg4 (p + 4, k_left - 4, vec);
    p += K8_BK;
    k_left -= K8_BK;
  }

  __device__ __forceinline__ void
  put (float (*bs)[K8_BN], int col) const
  {
    bs[0][col] = r0.x; bs[1][col] = r0.y; bs[2][col] = r0.z;
    bs[3][col] = r0.w; bs[4][col] = r1.x; bs[5][col] = r1.y;
    bs[6][col] = r1.z; bs[7][col] = r1.w;
  }
};

/* ASYNC_A: A by cp.async (A 16-byte aligned).  BT: B is given as B'
   (n x k, ld a multiple of 4, 16-byte aligned) and comes by cp.async;
   otherwise B itself through registers.  K16: with both by cp.async,
   stages of 16 k instead of 8 (half the barriers; each thread copies two
   8-k rows of each panel).  BM: rows of C per block, 128 (128 threads,
   two blocks per SM) or, with both by cp.async, 256 (256 threads, one
   block per SM: the warps of a scheduler then belong to one block and
   run the same stretch of code between barriers).  */
template <bool ASYNC_A, bool BT, bool K16, int BM>
__global__ void __launch_bounds__ (BM, 256 / BM)
k8_wide (const float *__restrict__ A, size_t lda,
         const float *__restrict__ B, size_t ldb,
         float *__restrict__ C, size_t ldc,
         long long m, long long n, long long k, bool va, bool vb, bool vc)
{
  /* Stages in shared memory: three where both operands come by
     cp.async (a copy then has two stages of FMAs to land: H200, 1.5%
     faster at 3000x700x5000, where k is short, and the same at 2048^3 to
     8192^3), two where one passes through registers.  256 rows: four
     8-k stages (48 KiB), or three 16-k stages (72 KiB, dynamic).  */
  constexpr int S = BM == 256 ? (K16 ? 3 : 4) : (ASYNC_A && BT) ? 3 : 2;
  constexpr int BK = (ASYNC_A && BT && K16) ? 2 * K8_BK : K8_BK;
  constexpr bool DYN = S * BK * (BM + K8_BN) * 4 > 48 * 1024;
  __shared__ __align__ (16) float As_s[DYN ? 1 : S][BK][BM];
  __shared__ __align__ (16) float Bs_s[DYN ? 1 : S][BK][K8_BN];
  extern __shared__ __align__ (16) float k8_dyn[];
  float (*As)[BK][BM] = DYN ? reinterpret_cast<float (*)[BK][BM]> (k8_dyn)
                            : As_s;
  float (*Bs)[BK][K8_BN] = DYN
    ? reinterpret_cast<float (*)[BK][K8_BN]> (k8_dyn + S * BK * BM) : Bs_s;
  const int tid = threadIdx.x;
  const long long m0 = (long long) blockIdx.x * BM;
  const long long n0 = (long long) blockIdx.y * K8_BN;

  /* Loading: A's panel by k row (tid / (BM/8)) and 8 rows; B''s by k row
     and RB rows (8 of 128 under 128 threads, 4 under 256); B as it is by
     column (tid) and all 8 k.  */
  constexpr int RB = 8 * K8_BN / BM;
  const int lp_k = tid / (BM / 8), lp_r = (tid % (BM / 8)) * 8;
  const int lb_k = RB == 8 ? lp_k : tid / (K8_BN / RB);
  const int lb_r = RB == 8 ? lp_r : (tid % (K8_BN / RB)) * RB;
  k8_panel<8> la;
  k8_panel<RB> lbt;
  k8_bcol lb;
  la.init (A, m, m0 + lp_r, lp_k, lda, k);
  if (BT)
    lbt.init (B, n, n0 + lb_r, lb_k, ldb, k);
  else
    {
      const bool in = n0 + tid < n;
      lb.p = in ? B + (size_t) (n0 + tid) * ldb : B;
      lb.k_left = in ? (int) k : 0;
    }
  const size_t a_step = K8_BK * lda, bt_step = K8_BK * ldb;

  /* Computing: BM/32 warps as BM/64 (m) x 2 (n), warp tiles of 64 x 64;
     a lane holds rows wm + lm*4 + 16g + {0..3} (g < 4) and columns
     wn + ln*4 + 32h + {0..3} (h < 2).  */
  const int warp = tid / 32, lane = tid % 32;
  const int wm = (warp % (BM / 64)) * 64, wn = (warp / (BM / 64)) * 64;
  const int rm = wm + (lane % 4) * 4, rn = wn + (lane / 4) * 4;

  float acc[8][16];        /* acc[j][i]: column j, row i of the thread */
#pragma unroll
  for (int j = 0; j < 8; j++)
#pragma unroll
    for (int i = 0; i < 16; i++)
      acc[j][i] = 0.0f;
  float a[2][16], b[2][8];

  const int nt = (int) ((k + BK - 1) / BK);
#define K8_FETCH(buf)                                                       \
  do {                                                                      \
    la.fetch<ASYNC_A> (a_step, va, &As[buf][lp_k][lp_r]);                   \
    if (BK > K8_BK)                                                         \
      la.fetch<ASYNC_A> (a_step, va, &As[buf][(lp_k + K8_BK) % BK][lp_r]);  \
    if (BT)                                                                 \
      lbt.template fetch<true> (bt_step, true, &Bs[buf][lb_k][lb_r]);                \
    if (BT && BK > K8_BK)                                                   \
      lbt.template fetch<true> (bt_step, true, &Bs[buf][(lb_k + K8_BK) % BK][lb_r]); \
    else                                                                    \
      lb.fetch (vb);                                                        \
    gt_cp_async_commit ();                                                  \
  } while (0)
#define K8_STORE(buf)                                                       \
  do {                                                                      \
    if (!ASYNC_A)                                                           \
      la.put (&As[buf][lp_k][lp_r]);                                        \
    if (!BT)                                                                \
      lb.put (Bs[buf], tid);                                                \
    gt_cp_async_wait<S - 2> ();                                             \
  } while (0)
#define K8_FRAG(buf, kk, r)                                                 \
  do {                                                                      \
    _Pragma ("unroll")                                                      \
    for (int g = 0; g < 4; g++)                                             \
      gt_lds4 (&a[r][4 * g], &As[buf][kk][rm + 16 * g]);                    \
    _Pragma ("unroll")                                                      \
    for (int h = 0; h < 2; h++)                                             \
      gt_lds4 (&b[r][4 * h], &Bs[buf][kk][rn + 32 * h]);                    \
  } while (0)

  K8_FETCH (0);
#pragma unroll
  for (int f = 1; f < S - 1; f++)
    {
      if (nt > f)
        K8_FETCH (f);
      else
        gt_cp_async_commit ();
    }
  K8_STORE (0);
  __syncthreads ();
  K8_FRAG (0, 0, 0);
  int cur = 0, nxt = 1, fill = (S - 1) % S;
  for (int t = 0; t < nt; t++)
    {
      const bool more = t + 1 < nt;
      /* The stage filled now was last read before the barrier that ended
         the previous stage; the copies land while this stage (and with
         three stages the next) is multiplied.  One commit group per
         stage, empty at the end, keeps the wait counts right.  */
      if (S == 2 && more)
        K8_FETCH (nxt);
      else if (S >= 3)
        {
          if (t + S - 1 < nt)
            K8_FETCH (fill);
          else
            gt_cp_async_commit ();
        }
#pragma unroll
      for (int kk = 0; kk < BK; kk++)
        {
          if (kk < BK - 1)
            K8_FRAG (cur, kk + 1, (kk + 1) & 1);
          else if (more)
            {
              K8_STORE (nxt);
              __syncthreads ();
              K8_FRAG (nxt, 0, 0);
            }
          const int r = kk & 1;
#pragma unroll
          for (int i = 0; i < 16; i++)
#pragma unroll
            for (int jj = 0; jj < 8; jj++)
              {
                const int j = (i & 1) ? 7 - jj : jj;
                acc[j][i] = fmaf (a[r][i], b[r][j], acc[j][i]);
              }
        }
      cur = nxt;
      nxt = nxt + 1 == S ? 0 : nxt + 1;
      fill = fill + 1 == S ? 0 : fill + 1;
    }
#undef K8_FRAG
#undef K8_STORE
#undef K8_FETCH

  /* Row group g of 4 rows at rm + 16 g; column j at rn + j for j < 4,
     rn + 28 + j after.  */
#pragma unroll
  for (int j = 0; j < 8; j++)
    {
      const long long col = n0 + rn + (j < 4 ? j : 28 + j);
      if (col >= n)
        continue;
#pragma unroll
      for (int g = 0; g < 4; g++)
        {
          const long long row = m0 + rm + 16 * g;
          gt_store_col4 (C + row + (size_t) col * ldc, m - row, vc,
                         acc[j][4 * g], acc[j][4 * g + 1], acc[j][4 * g + 2],
                         acc[j][4 * g + 3]);
        }
    }
}

/* B' = B transposed: src is rows x cols (ld lds), dst cols x rows (ld
   ldd).  32x32 tiles through shared memory, padded against conflicts.
   The rows of dst up to a multiple of 4 are zero-filled: kernel 8's
   copies are 16 bytes wide, and reach into them at the edge.  */
__global__ void
k8_transpose (const float *__restrict__ src, size_t lds,
              float *__restrict__ dst, size_t ldd, long long rows,
              long long cols)
{
  __shared__ float t[32][33];
  const long long r0 = (long long) blockIdx.x * 32;
  const long long c0 = (long long) blockIdx.y * 32;
  for (int y = threadIdx.y; y < 32; y += 8)
    {
      const long long r = r0 + threadIdx.x, c = c0 + y;
      if (r < rows && c < cols)
        t[y][threadIdx.x] = src[r + (size_t) c * lds];
    }
  __syncthreads ();
  const long long padded = (cols + 3) / 4 * 4;   /* <= the grid's columns */
  for (int y = threadIdx.y; y < 32; y += 8)
    {
      const long long c = c0 + threadIdx.x, r = r0 + y;
      if (r < rows && c < padded)
        dst[c + (size_t) r * ldd] = c < cols ? t[threadIdx.x][y] : 0.0f;
    }
}

/* Scratch layout: [B'][A repacked], each part a multiple of 4 floats.  */
extern "C" size_t
gt_k8_work_bytes (int mode, size_t m, size_t n, size_t k, int repack)
{
  size_t floats = 0;
  if (mode & GT_K8_B_TRANSPOSED)
    floats += gt_round4 (n) * k;
  if ((mode & GT_K8_A_ASYNC) && repack)
    floats += gt_round4 (m) * k;
  return floats * sizeof (float);
}

/* The instance a mode runs (both operands by cp.async for K16 and 256
   rows; without them those bits do nothing).  */
#define K8_DISPATCH(mode, async_a, bt, CALL)                                \
  do {                                                                      \
    const bool k16_ = ((mode) & GT_K8_K16) != 0;                            \
    const bool wide_ = ((mode) & GT_K8_BM256) != 0;                         \
    if ((async_a) && (bt) && wide_)                                         \
      {                                                                     \
        if (k16_)                                                           \
          CALL (true, true, true, 256);                                     \
        else                                                                \
          CALL (true, true, false, 256);                                    \
      }                                                                     \
    else if ((async_a) && (bt) && k16_)                                     \
      CALL (true, true, true, 128);                                         \
    else if ((async_a) && (bt))                                             \
      CALL (true, true, false, 128);                                        \
    else if (async_a)                                                       \
      CALL (true, false, false, 128);                                       \
    else if (bt)                                                            \
      CALL (false, true, false, 128);                                       \
    else                                                                    \
      CALL (false, false, false, 128);                                      \
  } while (0)

/* Dynamic shared memory of an instance (0: its stages are static).  */
template <bool ASYNC_A, bool BT, bool K16, int BM>
static size_t
k8_dyn_bytes (void)
{
  const int s = BM == 256 ? (K16 ? 3 : 4) : (ASYNC_A && BT) ? 3 : 2;
  const int bk = (ASYNC_A && BT && K16) ? 2 * K8_BK : K8_BK;
  const size_t bytes = (size_t) s * bk * (BM + K8_BN) * sizeof (float);
  return bytes > 48 * 1024 ? bytes : 0;
}

/* Lets an instance with dynamic stages have them (the default limit is
   48 KiB).  */
template <bool ASYNC_A, bool BT, bool K16, int BM>
static cudaError_t
k8_prepare (size_t *dyn)
{
  *dyn = k8_dyn_bytes<ASYNC_A, BT, K16, BM> ();
  if (*dyn == 0)
    return cudaSuccess;
  return cudaFuncSetAttribute (k8_wide<ASYNC_A, BT, K16, BM>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               (int) *dyn);
}

template <bool ASYNC_A, bool BT, bool K16, int BM>
static int
k8_blocks_per_sm (void)
{
  int blocks = 0;
  size_t dyn;
  if (k8_prepare<ASYNC_A, BT, K16, BM> (&dyn) != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (
           &blocks, k8_wide<ASYNC_A, BT, K16, BM>, BM, dyn) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return blocks;
}

extern "C" int
gt_k8_occupancy (int mode)
{
  int blocks = 0;
#define K8_OCC(as, t, k16, bm) blocks = k8_blocks_per_sm<as, t, k16, bm> ()
  K8_DISPATCH (mode, (mode & GT_K8_A_ASYNC) != 0,
               (mode & GT_K8_B_TRANSPOSED) != 0, K8_OCC);
#undef K8_OCC
  return blocks;
}

extern "C" int
gt_k8_rows (int mode)
{
  return (mode & GT_K8_BM256) && (mode & GT_K8_A_ASYNC)
         && (mode & GT_K8_B_TRANSPOSED) ? 256 : K8_BM;
}

template <bool ASYNC_A, bool BT, bool K16, int BM>
static cudaError_t
k8_launch (const float *A, size_t lda, const float *B, size_t ldb, float *C,
           size_t ldc, long long m, long long n, long long k, bool va,
           bool vb, bool vc, cudaStream_t s)
{
  size_t dyn;
  cudaError_t err = k8_prepare<ASYNC_A, BT, K16, BM> (&dyn);
  if (err != cudaSuccess)
    return err;
  dim3 grid ((unsigned) gt_ceil_div (m, BM),
             (unsigned) gt_ceil_div (n, K8_BN));
  k8_wide<ASYNC_A, BT, K16, BM><<<grid, BM, dyn, s>>> (A, lda, B, ldb, C,
                                                       ldc, m, n, k, va, vb,
                                                       vc);
  return cudaGetLastError ();
}

extern "C" cudaError_t
gt_k8_wide (int mode, const float *A, size_t lda, const float *B,
            size_t ldb, float *C, size_t ldc, size_t m, size_t n, size_t k,
            void *work, cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  const long long tiles_m = gt_ceil_div (m, K8_BM);
  const long long tiles_n = gt_ceil_div (n, K8_BN);
  if (tiles_m > 0x7fffffffLL || tiles_n > 65535 || k > 0x7fffffffULL)
    return cudaErrorInvalidValue;
  bool va = gt_aligned16 (A, lda), vb = gt_aligned16 (B, ldb);
  const bool vc = gt_aligned16 (C, ldc);
  const bool bt = (mode & GT_K8_B_TRANSPOSED) && k > 0;
  if ((bt || ((mode & GT_K8_A_ASYNC) && !va && k > 0)) && work == NULL)
    return cudaErrorInvalidValue;
  float *w = (float *) work;
  cudaError_t err;
  if (bt)
    {
      const long long tr = gt_ceil_div (k, 32), tc = gt_ceil_div (n, 32);
      if (tr > 0x7fffffffLL || tc > 65535)
        return cudaErrorInvalidValue;
      k8_transpose<<<dim3 ((unsigned) tr, (unsigned) tc), dim3 (32, 8), 0,
                     s>>> (B, ldb, w, gt_round4 (n), k, n);
      if ((err = cudaGetLastError ()) != cudaSuccess)
        return err;
      B = w;
      ldb = gt_round4 (n);
      vb = true;
      w += gt_round4 (n) * k;
    }
  if ((mode & GT_K8_A_ASYNC) && !va && k > 0)
    {
      if ((err = gt_repack (A, lda, w, gt_round4 (m), m, k, s)) != cudaSuccess)
        return err;
      A = w;
      lda = gt_round4 (m);
      va = true;
    }
  const bool async_a = (mode & GT_K8_A_ASYNC) && va;
#define K8_RUN(as, t, k16, bm)                                              \
  err = k8_launch<as, t, k16, bm> (A, lda, B, ldb, C, ldc, m, n, k, va, vb,  \
                                   vc, s)
  K8_DISPATCH (mode, async_a, bt, K8_RUN);
#undef K8_RUN
  return err;
}
