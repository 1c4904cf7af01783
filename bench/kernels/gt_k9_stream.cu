/* Kernel 9 with a stream-K kernel of doubles (plans with `streamk`), a
   step the default path does not take: measured slower than the plans it
   would replace at every shape tried (bench/RESULTS.md, "Stream-K on
   kernel 9's tiles of doubles").  The benchmark builds this file in place
   of src/kernels/gt_k9_dmma.cu, which it includes, so the plug-in carries
   none of it; rows k9_d_stream and k9s_d_stream of bench_kernels run it.  */

#define GT_K9_STREAMK 1
#include "gt_k9_dmma.cu"

/* ---- stream-K on doubles ----

   Where the tiles of C fill only part of a round of the SMs (1409x3000x777:
   84 large tiles on 132 SMs) splitting k evenly still leaves rounds partly
   empty (3 pieces: 252 blocks, 1.9 rounds).  Stream-K lays the tiles'
   stages of k end to end and cuts them into one equal run per block of a
   grid no larger than the blocks resident at once, so every SM works to
   the end.  A block stores a tile its run covers whole; a tile cut between
   blocks has each of them leave its sums in a slot of the scratch, and the
   last of them to finish (a counter per tile) adds the slots in k order
   and rounds them into C: the same bits whichever block is last, and no
   block ever waits for another (the grid need not even be resident at
   once).  Kernel 8's stream-K (singles) chains a tile's two parts instead;
   here a run is often shorter than a tile, so a tile may be cut in three.  */

/* Stages q0 .. q0 + nt - 1 of a block's run (the count carried over the
   run, so that the barriers' phases carry from one tile to the next):
   stage q is in buffer q % 3, its fill q / 3.  Before a buffer is filled
   again every thread must have read it (stage q - 3).  */
template <typename S>
__device__ __forceinline__ void
k9_run_stages (double (&acc)[2][4][4], double *smem, unsigned long long *full,
               unsigned long long *empty, int q0, int nt,
               k9_d_copier<S> &cp, int wm, int wn, int g, int t)
{
  for (int i = 0; i < 2 && i < nt; i++)
    {
      const int q = q0 + i, b = q % K9_D_STAGES;
      if (q >= K9_D_STAGES)
        k9_wait (&empty[b], ((q - K9_D_STAGES) / K9_D_STAGES) & 1);
      cp.issue (smem + b * S::STAGE, &full[b]);
    }
  for (int i = 0; i < nt; i++)
    {
      const int q = q0 + i, b = q % K9_D_STAGES;
      k9_wait (&full[b], (q / K9_D_STAGES) & 1);
#pragma unroll
      for (int ks = 0; ks < K9_BK / 8; ks++)
        k9_step_d<S> (acc, smem + b * S::STAGE, ks, wm, wn, g, t);
      k9_arrive (&empty[b]);
      if (i + 2 < nt)
        {
          const int r = q + 2, nb = r % K9_D_STAGES;
          if (r >= K9_D_STAGES)
            k9_wait (&empty[nb], ((r - K9_D_STAGES) / K9_D_STAGES) & 1);
          cp.issue (smem + nb * S::STAGE, &full[nb]);
        }
    }
}

/* Where the tiles' stages are cut: block b's run is [b U / G, (b + 1) U /
   G) of U = tiles x L stages, and stage u belongs to the block found
   here.  A block's sums of a cut tile go to its slot 0 where the tile is
   the first of its run, else to slot 1 (the last).  */
struct k9_stream_cut
{
  int L, U, G;   /* U < 2^31 (k9_stream) */

  __device__ __forceinline__ int
  block_of (int u) const
  {
    return (int) ((((long long) u + 1) * G - 1) / U);
  }

  __device__ __forceinline__ int
  start (int b) const
  {
    return (int) ((long long) b * U / G);
  }

  __device__ __forceinline__ int
  slot_of (int b, int tile) const
  {
    return 2 * b + (start (b) / L == tile ? 0 : 1);
  }
};

/* A cut tile: the block leaves its sums in its slot ([element][thread],
   so a warp's words are consecutive) and counts itself in; the last of
   the tile's blocks adds every slot in block order, its own too (its
   registers hold no room for a second tile of sums), and returns 1 with
   the sum in acc.  */
template <int THREADS>
__device__ __forceinline__ int
k9_stream_join (double (&acc)[2][4][4], double *slots, unsigned *counts,
                const k9_stream_cut &cut, int tile, int blk, int *last)
{
  const int size = 32 * THREADS, tid = threadIdx.x;
  double *mine = slots + (size_t) cut.slot_of (blk, tile) * size;
#pragma unroll
  for (int q = 0; q < 8; q++)
#pragma unroll
    for (int c = 0; c < 4; c++)
      __stcg (mine + (q * 4 + c) * THREADS + tid, acc[q / 4][q % 4][c]);
  __threadfence ();
  __syncthreads ();
  const int b0 = cut.block_of (tile * cut.L);
  const int b1 = cut.block_of (tile * cut.L + cut.L - 1);
  if (tid == 0)
    *last = atomicAdd (counts + tile, 1u) == (unsigned) (b1 - b0);
  __syncthreads ();
  if (!*last)
    return 0;
  __threadfence ();
  for (int b = b0; b <= b1; b++)
    {
      const double *p = slots + (size_t) cut.slot_of (b, tile) * size;
#pragma unroll
      for (int q = 0; q < 8; q++)
#pragma unroll
        for (int c = 0; c < 4; c++)
          {
            const double v = __ldcg (p + (q * 4 + c) * THREADS + tid);
            acc[q / 4][q % 4][c] = b == b0 ? v : acc[q / 4][q % 4][c] + v;
          }
    }
  return 1;
}

/* The kernel: block blk's run, tile by tile (the tiles in k9_tile_of's
   bands).  slots: 2 x the grid's tiles of doubles; counts: one per tile,
   zero at launch.  */
template <typename S>
__global__ void __launch_bounds__ (S::THREADS, S::THREADS >= 512 ? 1 : 2)
k9_stream_d (const double *__restrict__ A, size_t lda,
             const double *__restrict__ B, size_t ldb,
             double *__restrict__ C, size_t ldc, long long m, long long n,
             long long k, bool va, bool vb, bool vc, double *slots,
             unsigned *counts, int band)
{
#if K9_ARCH
  extern __shared__ __align__ (16) double k9_smem[];
  __shared__ unsigned long long full[K9_D_STAGES], empty[K9_D_STAGES];
  __shared__ int last;
  k9_stream_cut cut;
  cut.L = (int) ((k + K9_BK - 1) / K9_BK);
  cut.U = (int) (((m + S::BM - 1) / S::BM) * ((n + S::BN - 1) / S::BN)
                 * cut.L);
  cut.G = (int) gridDim.x;
  const int blk = (int) blockIdx.x, e = cut.start (blk + 1);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp % (S::BM / 32)) * 32, wn = (warp / (S::BM / 32)) * 32;
  const int g = lane / 4, t = lane % 4;
  k9_init_barriers (full, empty, K9_D_STAGES, S::THREADS);
  __syncthreads ();   /* the barriers initialized */
  int q = 0;    /* stages of the run so far */
  for (int u = cut.start (blk); u < e;)
    {
      const int tile = u / cut.L, it0 = u - tile * cut.L;
      const int it1 = e - tile * cut.L < cut.L ? e - tile * cut.L : cut.L;
      long long m0, n0;
      k9_tile_of<S::BM, S::BN> (tile, m, n, band, &m0, &n0);
      double acc[2][4][4];
      k9_acc_zero (acc);
      const long long k0 = (long long) it0 * K9_BK;
      const long long kr = (long long) (it1 - it0) * K9_BK;
      k9_d_copier<S> cp;
      cp.init (A + (size_t) k0 * lda, lda, B + k0, ldb, m, n,
               k - k0 < kr ? k - k0 : kr, m0, n0, va, vb);
      k9_run_stages<S> (acc, k9_smem, full, empty, q, it1 - it0, cp, wm, wn,
                        g, t);
      q += it1 - it0;
      if ((it0 == 0 && it1 == cut.L)
          || k9_stream_join<S::THREADS> (acc, slots, counts, cut, tile, blk,
                                         &last))
        k9_store_c (acc, C, ldc, m, n, m0 + wm, n0 + wn, g, t, vc);
      u = tile * cut.L + it1;
    }
#endif
}

/* The stream-K grid: the blocks of shape S resident at once (0 where
   the device cannot say); its slots' bytes, then the counters'.  */
template <typename S>
static long long
k9_stream_grid (void)
{
  const gt_device_props *d = gt_device_props_current ();
  return (long long) (d ? d->sms : 0) * k9_occupancy_of<S> ();
}

template <typename S>
static size_t
k9_stream_slot_bytes (void)
{
  return (size_t) k9_stream_grid<S> () * 2 * S::BM * S::BN * sizeof (double);
}

extern "C" size_t
gt_k9_stream_work_bytes (int tile, size_t m, size_t n)
{
  if (!gt_k9_usable ())
    return 0;
  const int small = k9_small_tile (tile);
  const size_t bm = small ? k9_small::BM : k9_large::BM;
  const size_t tiles = gt_ceil_div (m, bm) * gt_ceil_div (n, bm);
  return (small ? k9_stream_slot_bytes<k9_small> ()
                : k9_stream_slot_bytes<k9_large> ())
         + k9_round_256 (tiles * sizeof (unsigned));
}

/* Doubles by stream-K (k9_stream_d) in blocks of shape S; work:
   gt_k9_stream_work_bytes.  */
template <typename S>
static cudaError_t
k9_stream (const double *A, size_t lda, const double *B, size_t ldb,
           double *C, size_t ldc, size_t m, size_t n, size_t k, void *work,
           cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  if (k == 0)
    return k9_launch<double, S> (A, lda, B, ldb, C, ldc, m, n, k, NULL, NULL,
                                 1, 0, 0, s);
  const long long tiles_m = gt_ceil_div (m, S::BM);
  const long long tiles = tiles_m * gt_ceil_div (n, S::BN);
  const long long units = tiles * gt_ceil_div ((long long) k, K9_BK);
  const long long grid = gt_min_ll (k9_stream_grid<S> (), units);
  if (!work || grid < 1 || units > GT_GRID_X_MAX)
    return cudaErrorInvalidValue;
  unsigned *counts = (unsigned *) ((char *) work
                                   + k9_stream_slot_bytes<S> ());
  cudaError_t err = cudaMemsetAsync (counts, 0, tiles * sizeof (unsigned), s);
  if (err == cudaSuccess)
    err = gt_allow_smem_once ((const void *) k9_stream_d<S>, S::SMEM,
                              k9_stream_attr_done[S::CACHE]);
  if (err != cudaSuccess)
    return err;
  k9_stream_d<S><<<(unsigned) grid, S::THREADS, S::SMEM, s>>> (
    A, lda, B, ldb, C, ldc, (long long) m, (long long) n, (long long) k,
    k9_aligned (A, lda), k9_aligned (B, ldb), k9_aligned (C, ldc),
    (double *) work, counts, tiles_m > K9_BAND ? K9_BAND : 0);
  return cudaGetLastError ();
}
