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

   Later steps, measured on the H200 (bench/RESULTS.md): 256x128 tiles of
   one block per SM (the warps of a scheduler then share one block's
   barriers and one stretch of the instruction cache), and stream-K over
   the resident blocks where the tiles would leave a last round partly
   empty (k8_stream).

   Operands need not be aligned: an unaligned A is read element by
   element.  */

#include "gt_kernels.h"
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
   run the same stretch of code between barriers).

   Stages in shared memory: three where both operands come by cp.async
   (a copy then has two stages of FMAs to land: H200, 1.5% faster at
   3000x700x5000, where k is short, and the same at 2048^3 to 8192^3),
   two where one passes through registers.  256 rows: four 8-k stages
   (48 KiB), or three 16-k stages (72 KiB, dynamic).  */
template <bool ASYNC_A, bool BT, bool K16, int BM>
struct k8_cfg
{
  static constexpr int S = BM == 256 ? (K16 ? 3 : 4)
                                     : (ASYNC_A && BT) ? 3 : 2;
  static constexpr int BK = (ASYNC_A && BT && K16) ? 2 * K8_BK : K8_BK;
  static constexpr size_t SMEM = (size_t) S * BK * (BM + K8_BN)
                                 * sizeof (float);
  static constexpr bool DYN = SMEM > 48 * 1024;
};

/* The product of one tile of C over nt stages of k from k0 (a multiple
   of the stage), added to acc (acc[j][i]: column j, row i of the
   thread's 16x8).  Ends with every copy landed; the caller syncs before
   the stages are filled again.  One piece of 130 lines: the copies of
   stage s + 2 are interleaved with the FMAs of stage s by hand, and the
   register allocation that the FMA order was measured with (bank pairs,
   bench/RESULTS.md) holds only while ptxas sees the loop whole.  */
template <bool ASYNC_A, bool BT, bool K16, int BM>
__device__ __forceinline__ void
k8_tile_loop (float (&acc)[8][16],
              float (*As)[k8_cfg<ASYNC_A, BT, K16, BM>::BK][BM],
              float (*Bs)[k8_cfg<ASYNC_A, BT, K16, BM>::BK][K8_BN],
              const float *__restrict__ A, size_t lda,
              const float *__restrict__ B, size_t ldb,
              long long m, long long n, long long k, bool va, bool vb,
              long long m0, long long n0, long long k0, int nt)
{
  constexpr int S = k8_cfg<ASYNC_A, BT, K16, BM>::S;
  constexpr int BK = k8_cfg<ASYNC_A, BT, K16, BM>::BK;
  const int tid = threadIdx.x;

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
  la.init (A, m, m0 + lp_r, (int) k0 + lp_k, lda, k);
  if (BT)
    lbt.init (B, n, n0 + lb_r, (int) k0 + lb_k, ldb, k);
  else
    {
      const bool in = n0 + tid < n;
      lb.p = in ? B + (size_t) (n0 + tid) * ldb + k0 : B;
      lb.k_left = in ? (int) (k - k0) : 0;
    }
  const size_t a_step = K8_BK * lda, bt_step = K8_BK * ldb;

  /* Computing: BM/32 warps as BM/64 (m) x 2 (n), warp tiles of 64 x 64;
     a lane holds rows wm + lm*4 + 16g + {0..3} (g < 4) and columns
     wn + ln*4 + 32h + {0..3} (h < 2).  */
  const int warp = tid / 32, lane = tid % 32;
  const int wm = (warp % (BM / 64)) * 64, wn = (warp / (BM / 64)) * 64;
  const int rm = wm + (lane % 4) * 4, rn = wn + (lane / 4) * 4;
  float a[2][16], b[2][8];

#define K8_FETCH(buf)                                                       \
  do {                                                                      \
    la.fetch<ASYNC_A> (a_step, va, &As[buf][lp_k][lp_r]);                   \
    if (BK > K8_BK)                                                         \
      la.fetch<ASYNC_A> (a_step, va, &As[buf][(lp_k + K8_BK) % BK][lp_r]);  \
    if (BT)                                                                 \
      lbt.template fetch<true> (bt_step, true, &Bs[buf][lb_k][lb_r]);       \
    if (BT && BK > K8_BK)                                                   \
      lbt.template fetch<true> (bt_step, true,                              \
                                &Bs[buf][(lb_k + K8_BK) % BK][lb_r]);       \
    else if (!BT)                                                           \
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
}

__device__ __forceinline__ void
k8_acc_zero (float (&acc)[8][16])
{
#pragma unroll
  for (int j = 0; j < 8; j++)
#pragma unroll
    for (int i = 0; i < 16; i++)
      acc[j][i] = 0.0f;
}

/* A thread's 16x8 of C: row group g of 4 rows at rm + 16 g; column j at
   rn + j for j < 4, rn + 28 + j after.  */
template <int BM>
__device__ __forceinline__ void
k8_store_c (const float (&acc)[8][16], float *__restrict__ C, size_t ldc,
            long long m, long long n, long long m0, long long n0, bool vc)
{
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = (warp % (BM / 64)) * 64, wn = (warp / (BM / 64)) * 64;
  const int rm = wm + (lane % 4) * 4, rn = wn + (lane / 4) * 4;
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

/* The stages: static up to 48 KiB, dynamic beyond.  */
#define K8_SMEM(ASYNC_A, BT, K16, BM)                                       \
  typedef k8_cfg<ASYNC_A, BT, K16, BM> cfg_;                                \
  __shared__ __align__ (16) float As_s[cfg_::DYN ? 1 : cfg_::S][cfg_::BK][BM]; \
  __shared__ __align__ (16)                                                 \
    float Bs_s[cfg_::DYN ? 1 : cfg_::S][cfg_::BK][K8_BN];                   \
  extern __shared__ __align__ (16) float k8_dyn[];                          \
  float (*As)[cfg_::BK][BM] = cfg_::DYN                                     \
    ? reinterpret_cast<float (*)[cfg_::BK][BM]> (k8_dyn) : As_s;            \
  float (*Bs)[cfg_::BK][K8_BN] = cfg_::DYN                                  \
    ? reinterpret_cast<float (*)[cfg_::BK][K8_BN]> (k8_dyn                  \
                                                    + cfg_::S * cfg_::BK * BM) \
    : Bs_s

/* One block per tile of C, over all of k.  */
template <bool ASYNC_A, bool BT, bool K16, int BM>
__global__ void __launch_bounds__ (BM, 256 / BM)
k8_wide (const float *__restrict__ A, size_t lda,
         const float *__restrict__ B, size_t ldb,
         float *__restrict__ C, size_t ldc,
         long long m, long long n, long long k, bool va, bool vb, bool vc)
{
  K8_SMEM (ASYNC_A, BT, K16, BM);
  const long long m0 = (long long) blockIdx.x * BM;
  const long long n0 = (long long) blockIdx.y * K8_BN;
  float acc[8][16];
  k8_acc_zero (acc);
  const int nt = (int) ((k + cfg_::BK - 1) / cfg_::BK);
  k8_tile_loop<ASYNC_A, BT, K16, BM> (acc, As, Bs, A, lda, B, ldb, m, n, k,
                                      va, vb, m0, n0, 0, nt);
  k8_store_c<BM> (acc, C, ldc, m, n, m0, n0, vc);
}

/* Stream-K: the tiles' stages of k laid end to end and cut into one
   equal run per resident block, so that no SM idles in a last, partly
   filled round (4096^3 on 256x128 tiles: 512 tiles are 3.88 rounds of
   the SMs).  A run covers whole tiles, and where it starts or ends inside a
   tile, that tile's later part (its "tail") or earlier part (its
   "head").  A block works its head first, then its whole tiles, then its
   tail: the tail starts from the partial sums that the previous block
   left for the same tile (its head, done first there), so each element
   is still one chain of FMAs in k order, the bits of the one-pass
   kernel.  Blocks wait only on the block before them, whose head comes
   first; the grid is no larger than the blocks resident at once.
   partial: a BM x 128 slot per block; flags: one int per block, zero at
   launch.  */
template <int BM>
__global__ void __launch_bounds__ (BM, 256 / BM)
k8_stream (const float *__restrict__ A, size_t lda,
           const float *__restrict__ B, size_t ldb,
           float *__restrict__ C, size_t ldc,
           long long m, long long n, long long k, bool vc,
           float *__restrict__ partial, int *flags, long long tiles_m,
           long long tiles)
{
  K8_SMEM (true, true, true, BM);
  const int tid = threadIdx.x;
  const long long L = (k + cfg_::BK - 1) / cfg_::BK;   /* stages per tile */
  const long long blk = blockIdx.x, blocks = gridDim.x;
  const long long s = blk * (tiles * L) / blocks;
  const long long e = (blk + 1) * (tiles * L) / blocks;
  const long long t_first = s / L, t_last = (e - 1) / L;
  const bool tail = s % L != 0;        /* t_first began in block blk - 1 */
  const bool head = e % L != 0;        /* t_last ends in block blk + 1 */
  const long long full0 = tail ? t_first + 1 : t_first;
  const long long full1 = head ? t_last : t_last + 1;   /* exclusive */
  const long long units = (head ? 1 : 0) + (full1 - full0) + (tail ? 1 : 0);
  float acc[8][16];
  for (long long u = 0; u < units; u++)
    {
      long long t, it0, it1;
      const bool is_head = head && u == 0;
      const bool is_tail = tail && u == units - 1;
      if (is_head)
        t = t_last, it0 = 0, it1 = e - t_last * L;
      else if (is_tail)
        t = t_first, it0 = s - t_first * L, it1 = L;
      else
        t = full0 + u - (head ? 1 : 0), it0 = 0, it1 = L;
      if (u > 0)
        __syncthreads ();   /* the last stages read before refilling */
      if (is_tail)
        {
          if (tid == 0)
            {
              int ready = 0;
              do
                {
                  asm volatile ("ld.acquire.gpu.global.b32 %0, [%1];"
                                : "=r"(ready) : "l"(flags + blk - 1)
                                : "memory");
                  if (!ready)
                    __nanosleep (200);
                }
              while (!ready);
            }
          __syncthreads ();
          const float *p = partial + (size_t) (blk - 1) * BM * K8_BN;
#pragma unroll
          for (int j = 0; j < 8; j++)
#pragma unroll
            for (int i = 0; i < 16; i++)
              acc[j][i] = __ldcg (p + (size_t) (j * 16 + i) * BM + tid);
        }
      else
        k8_acc_zero (acc);
      const long long m0 = (t % tiles_m) * BM, n0 = (t / tiles_m) * K8_BN;
      k8_tile_loop<true, true, true, BM> (acc, As, Bs, A, lda, B, ldb, m, n,
                                          k, true, true, m0, n0,
                                          it0 * cfg_::BK, (int) (it1 - it0));
      if (is_head)
        {
          float *p = partial + (size_t) blk * BM * K8_BN;
#pragma unroll
          for (int j = 0; j < 8; j++)
#pragma unroll
            for (int i = 0; i < 16; i++)
              __stcg (p + (size_t) (j * 16 + i) * BM + tid, acc[j][i]);
          __threadfence ();
          __syncthreads ();
          if (tid == 0)
            asm volatile ("st.release.gpu.global.b32 [%0], %1;"
                          :: "l"(flags + blk), "r"(1) : "memory");
        }
      else
        k8_store_c<BM> (acc, C, ldc, m, n, m0, n0, vc);
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

/* The instance a mode runs (both operands by cp.async for K16 and 256
   rows; without them those bits do nothing), or NONE where this build
   lacks it.  The plug-in builds the instances the default path chooses;
   the benchmark's build (bench/kernels/gt_k8_register_modes.cu) defines
   GT_K8_REGISTER_MODES and adds the steps before them: operands through
   registers, and 256x128 tiles with 8-k stages.  */
#ifdef GT_K8_REGISTER_MODES
#define K8_BENCH_ONLY(CALL, NONE) CALL
#else
#define K8_BENCH_ONLY(CALL, NONE) NONE
#endif
#define K8_DISPATCH(mode, async_a, bt, CALL, NONE)                          \
  do {                                                                      \
    const bool k16_ = ((mode) & GT_K8_K16) != 0;                            \
    const bool wide_ = ((mode) & GT_K8_BM256) != 0;                         \
    if ((async_a) && (bt) && wide_)                                         \
      {                                                                     \
        if (k16_)                                                           \
          CALL (true, true, true, 256);                                     \
        else                                                                \
          K8_BENCH_ONLY (CALL (true, true, false, 256), NONE);              \
      }                                                                     \
    else if ((async_a) && (bt) && k16_)                                     \
      CALL (true, true, true, 128);                                         \
    else if ((async_a) && (bt))                                             \
      CALL (true, true, false, 128);                                        \
    else if (async_a)                                                       \
      K8_BENCH_ONLY (CALL (true, false, false, 128), NONE);                 \
    else if (bt)                                                            \
      K8_BENCH_ONLY (CALL (false, true, false, 128), NONE);                 \
    else                                                                    \
      K8_BENCH_ONLY (CALL (false, false, false, 128), NONE);                \
  } while (0)

/* Devices where the two kernels with dynamic stages, 256x128
   tiles with 16-k stages a block per tile [0] and stream-K [1], have been
   allowed them; a device reset forgets it.  */
static unsigned char k8_attr_done[2][GT_MAX_DEVICES];

extern "C" void
gt_k8_forget (void)
{
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    {
      __atomic_store_n (&k8_attr_done[0][d], 0, __ATOMIC_RELEASE);
      __atomic_store_n (&k8_attr_done[1][d], 0, __ATOMIC_RELEASE);
    }
}

/* Lets a kernel with dynamic stages have them (the default limit is 48
   KiB), once per device (STREAM: the stream-K kernel of the instance);
   *dyn: its dynamic shared memory, 0 where the stages are static.  */
template <bool ASYNC_A, bool BT, bool K16, int BM, bool STREAM>
static cudaError_t
k8_prepare (const void *fn, size_t *dyn)
{
  typedef k8_cfg<ASYNC_A, BT, K16, BM> cfg;
  static_assert (!cfg::DYN || (ASYNC_A && BT && K16 && BM == 256),
                 "k8_attr_done keeps one kernel with dynamic stages");
  *dyn = cfg::DYN ? cfg::SMEM : 0;
  if (*dyn == 0)
    return cudaSuccess;
  return gt_allow_smem_once (fn, *dyn, k8_attr_done[STREAM ? 1 : 0]);
}

template <bool ASYNC_A, bool BT, bool K16, int BM, bool STREAM>
static int
k8_blocks_per_sm (const void *fn)
{
  int blocks = 0;
  size_t dyn;
  if (k8_prepare<ASYNC_A, BT, K16, BM, STREAM> (fn, &dyn) != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&blocks, fn, BM, dyn)
         != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return blocks;
}

/* Stream-K's blocks on the current device: as many as are resident at
   once (0: unknown, or none fit); asked once per device.  */
static int
k8_stream_blocks (void)
{
  static int known[GT_MAX_DEVICES];   /* blocks + 1; 0: not asked yet */
  int dev = 0;
  const int seen = gt_device_seen (known, &dev);
  if (seen < 0)
    return 0;
  if (seen)
    return seen - 1;
  const gt_device_props *d = gt_device_props_current ();
  if (!d)
    return 0;
  return gt_device_remember (
    known, dev, d->sms * k8_blocks_per_sm<true, true, true, 256, true> (
                  (const void *) k8_stream<256>));
}

extern "C" int
gt_k8_occupancy (int mode)
{
  int blocks = 0;
#define K8_OCC(as, t, k16, bm)                                              \
  blocks = k8_blocks_per_sm<as, t, k16, bm, false> (                        \
             (const void *) k8_wide<as, t, k16, bm>)
  K8_DISPATCH (mode, (mode & GT_K8_A_ASYNC) != 0,
               (mode & GT_K8_B_TRANSPOSED) != 0, K8_OCC, blocks = 0);
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
  cudaError_t err = k8_prepare<ASYNC_A, BT, K16, BM, false> (
                      (const void *) k8_wide<ASYNC_A, BT, K16, BM>, &dyn);
  if (err != cudaSuccess)
    return err;
  dim3 grid ((unsigned) gt_ceil_div (m, BM),
             (unsigned) gt_ceil_div (n, K8_BN));
  k8_wide<ASYNC_A, BT, K16, BM><<<grid, BM, dyn, s>>> (A, lda, B, ldb, C,
                                                       ldc, m, n, k, va, vb,
                                                       vc);
  return cudaGetLastError ();
}

/* Scratch layout: [B'][A repacked][stream-K partial sums][flags], each
   part a multiple of 4 floats.  */
extern "C" size_t
gt_k8_work_bytes (int mode, size_t m, size_t n, size_t k, int repack)
{
  size_t floats = 0;
  if (mode & GT_K8_B_TRANSPOSED)
    floats += gt_round4 (n) * k;
  if ((mode & GT_K8_A_ASYNC) && repack)
    floats += gt_round4 (m) * k;
  if ((mode & GT_K8_STREAMK) && gt_k8_rows (mode) == 256)
    {
      /* a tile's partial sums per block, and the blocks' flags */
      const size_t blocks = (size_t) k8_stream_blocks ();
      floats += blocks * 256 * K8_BN + gt_round4 (blocks);
    }
  return floats * sizeof (float);
}

extern "C" cudaError_t
gt_k8_wide (int mode, const float *A, size_t lda, const float *B,
            size_t ldb, float *C, size_t ldc, size_t m, size_t n, size_t k,
            void *work, cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  if (k == 0)   /* no instance of the plug-in's takes an empty k */
    return cudaMemset2DAsync (C, ldc * sizeof (float), 0, m * sizeof (float),
                              n, s);
  const long long tiles_m = gt_ceil_div (m, K8_BM);
  const long long tiles_n = gt_ceil_div (n, K8_BN);
  if (tiles_m > GT_GRID_X_MAX || tiles_n > GT_GRID_YZ_MAX
      || k > (size_t) GT_GRID_X_MAX)
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
      if (tr > GT_GRID_X_MAX || tc > GT_GRID_YZ_MAX)
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
  if ((mode & GT_K8_STREAMK) && async_a && bt && gt_k8_rows (mode) == 256)
    {
      /* Stream-K where each block's run is at least a tile long (no tile
         then has more than two parts); otherwise one block per tile.  */
      const long long blocks = k8_stream_blocks ();
      const long long tiles = gt_ceil_div (m, 256) * tiles_n;
      if (blocks > 0 && tiles >= blocks)
        {
          float *partial = A == w ? w + gt_round4 (m) * k : w;
          int *flags = (int *) (partial + (size_t) blocks * 256 * K8_BN);
          size_t dyn;
          if ((err = cudaMemsetAsync (flags, 0, (size_t) blocks * sizeof (int),
                                      s)) != cudaSuccess
              || (err = k8_prepare<true, true, true, 256, true> (
                          (const void *) k8_stream<256>, &dyn))
                 != cudaSuccess)
            return err;
          k8_stream<256><<<(unsigned) blocks, 256, dyn, s>>> (
            A, lda, B, ldb, C, ldc, m, n, k, vc, partial, flags,
            gt_ceil_div (m, 256), tiles);
          return cudaGetLastError ();
        }
    }
#define K8_RUN(as, t, k16, bm)                                              \
  err = k8_launch<as, t, k16, bm> (A, lda, B, ldb, C, ldc, m, n, k, va, vb,  \
                                   vc, s)
  K8_DISPATCH (mode, async_a, bt, K8_RUN, err = cudaErrorInvalidValue);
#undef K8_RUN
  return err;
}

extern "C" size_t
gt_k8_row_work (const gt_plan *p, size_t m, size_t n, size_t k, int repack)
{
  return gt_k8_work_bytes (p->k8_mode, m, n, k, repack);
}

extern "C" cudaError_t
gt_k8_row_launch (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  return gt_k8_wide (p->k8_mode, (const float *) a->A, a->lda,
                     (const float *) a->B, a->ldb, (float *) a->C, a->ldc,
                     a->m, a->n, a->k, a->work, s);
}
