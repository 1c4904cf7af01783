/* gt_tile.cuh -- the register-tiled block product shared by kernels 3-5.

   A block computes a BM x BN tile of C from shared stages holding
     As[BK][BM]  (A's tile, m contiguous: A is m-contiguous in memory, so
                  a 16-byte global chunk lands as one 16-byte shared store)
     Bs[BN][BK]  (B's tile, k contiguous: B is k-contiguous in memory).
   Each thread holds TM x TN accumulators.  Lanes are 8 along m by 4 along
   n: a thread's rows are TM/4 groups of 4 (group g at g*32 + lane_m*4
   within the warp tile) and its columns are TN consecutive ones.  In a
   quarter-warp (the 8 lanes served together for 16-byte shared accesses)
   the A reads are 8 consecutive float4s (all 32 banks once) and the B
   reads one broadcast float4, with no padding; the four quarter-warps read
   the same A bytes, which Nsight Compute counts as one extra wavefront per
   A read (bench/RESULTS.md).  The 16-byte stores that fill a stage are
   contiguous across lanes and conflict-free.  */

#ifndef GT_TILE_CUH
#define GT_TILE_CUH

#include "gt_launch.cuh"

template <int BM, int BN, int BK, int TM, int TN>
struct gt_tile
{
  static constexpr int NT = (BM / TM) * (BN / TN);     /* threads */
  static constexpr int WM = (TM / 4) * 32;             /* warp tile rows */
  static constexpr int WN = 4 * TN;                    /* warp tile cols */
  static constexpr int WARPS_M = BM / WM;
  static constexpr int A_FLOATS = BM * BK;
  static constexpr int B_FLOATS = BN * BK;
  static constexpr int STAGE_FLOATS = A_FLOATS + B_FLOATS;
  static_assert (TM % 4 == 0 && BK % 4 == 0, "float4 granularity");
  static_assert (WARPS_M * (BN / WN) * 32 == NT, "warp layout covers tile");

  int row0;   /* first row of group 0 within the block tile */
  int col0;   /* first column within the block tile */

  __device__ __forceinline__ gt_tile ()
  {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    row0 = (warp % WARPS_M) * WM + (lane % 8) * 4;
    col0 = (warp / WARPS_M) * WN + (lane / 8) * TN;
  }

  /* acc += As * Bs over the BK columns of one stage; B's columns LDB
     apart (BK in a stage of its own; kernel 12 keeps all of k).  */
  template <int LDB = BK>
  __device__ __forceinline__ void
  compute (const float *As, const float *Bs, float (&acc)[TM][TN]) const
  {
#pragma unroll
    for (int kq = 0; kq < BK; kq += 4)
      {
        float b[TN][4];
#pragma unroll
        for (int j = 0; j < TN; j++)
          gt_lds4 (b[j], Bs + (col0 + j) * LDB + kq);
#pragma unroll
        for (int q = 0; q < 4; q++)
          {
            float a[TM];
#pragma unroll
            for (int g = 0; g < TM / 4; g++)
              gt_lds4 (&a[4 * g], As + (kq + q) * BM + row0 + g * 32);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
              for (int j = 0; j < TN; j++)
                acc[i][j] = fmaf (a[i], b[j][q], acc[i][j]);
          }
      }
  }

  /* Sets acc to the block's tile of the m x n matrix D (leading dimension
     ldd) at block origin (m0, n0), zero outside it: the start of an
     accumulating product.  */
  __device__ __forceinline__ void
  load (const float *D, size_t ldd, long long m, long long n, long long m0,
        long long n0, bool vec, float (&acc)[TM][TN]) const
  {
#pragma unroll
    for (int j = 0; j < TN; j++)
      {
        const long long col = n0 + col0 + j;
#pragma unroll
        for (int g = 0; g < TM / 4; g++)
          {
            const long long row = m0 + row0 + g * 32;
            const float4 v = gt_load_col4 (D + row + col * ldd,
                                           col < n ? m - row : 0, vec);
            acc[4 * g][j] = v.x; acc[4 * g + 1][j] = v.y;
            acc[4 * g + 2][j] = v.z; acc[4 * g + 3][j] = v.w;
          }
      }
  }

  /* Writes acc to the m x n matrix D (leading dimension ldd) at block
     origin (m0, n0), guarded at the edges; 16-byte stores where the four
     rows are inside and aligned.  */
  __device__ __forceinline__ void
  store (float *D, size_t ldd, long long m, long long n, long long m0,
         long long n0, bool vec, const float (&acc)[TM][TN]) const
  {
#pragma unroll
    for (int j = 0; j < TN; j++)
      {
        const long long col = n0 + col0 + j;
        if (col >= n)
          continue;
#pragma unroll
        for (int g = 0; g < TM / 4; g++)
          {
            const long long row = m0 + row0 + g * 32;
            gt_store_col4 (D + row + col * ldd, m - row, vec, acc[4 * g][j],
                           acc[4 * g + 1][j], acc[4 * g + 2][j],
                           acc[4 * g + 3][j]);
          }
      }
  }
};

#endif
