/* Kernel 3: kernel 2's register blocking widened to 8x8 per thread on a
   128x128 tile, 16-byte global loads and shared accesses in the warp
   layout of gt_tile.cuh, and a register-prefetch double
   buffer: the next stage's loads are in flight while this one is
   multiplied, with one barrier per stage.  */

#include "gt_bench_kernels.h"
#include "gt_tile.cuh"

#define K3_BM 128
#define K3_BN 128
#define K3_BK 8
typedef gt_tile<K3_BM, K3_BN, K3_BK, 8, 8> k3_tile;

/* One float4 of A's tile and one of B's per thread (BM*BK/4 == NT).  */
struct k3_regs
{
  float4 a, b;
};

__device__ __forceinline__ void
k3_load (k3_regs &r, const float *A, size_t lda, const float *B, size_t ldb,
         long long m, long long n, long long k, long long m0, long long n0,
         long long p0, bool va, bool vb)
{
  const int t = threadIdx.x;
  {
    const int kk = t / (K3_BM / 4), mv = (t % (K3_BM / 4)) * 4;
    const long long gp = p0 + kk, gi = m0 + mv;
    float v[4];
    if (va && gp < k && gi + 3 < m)
      {
        r.a = *reinterpret_cast<const float4 *> (A + gi + gp * lda);
      }
    else
      {
#pragma unroll
        for (int e = 0; e < 4; e++)
          v[e] = (gp < k && gi + e < m) ? A[gi + e + gp * lda] : 0.0f;
        r.a = make_float4 (v[0], v[1], v[2], v[3]);
      }
  }
  {
    const int j = t / (K3_BK / 4), kv = (t % (K3_BK / 4)) * 4;
    const long long gp = p0 + kv, gj = n0 + j;
    float v[4];
    if (vb && gj < n && gp + 3 < k)
      {
        r.b = *reinterpret_cast<const float4 *> (B + gp + gj * ldb);
      }
    else
      {
#pragma unroll
        for (int e = 0; e < 4; e++)
          v[e] = (gj < n && gp + e < k) ? B[gp + e + gj * ldb] : 0.0f;
        r.b = make_float4 (v[0], v[1], v[2], v[3]);
      }
  }
}

__device__ __forceinline__ void
k3_store (const k3_regs &r, float *As, float *Bs)
{
  const int t = threadIdx.x;
  *reinterpret_cast<float4 *> (As + (t / (K3_BM / 4)) * K3_BM
                               + (t % (K3_BM / 4)) * 4) = r.a;
  *reinterpret_cast<float4 *> (Bs + (t / (K3_BK / 4)) * K3_BK
                               + (t % (K3_BK / 4)) * 4) = r.b;
}

__global__ void __launch_bounds__ (k3_tile::NT, 2)
k3_vector (const float *__restrict__ A, size_t lda,
           const float *__restrict__ B, size_t ldb,
           float *__restrict__ C, size_t ldc,
           long long m, long long n, long long k, long long tiles_n,
           bool va, bool vb, bool vc)
{
  static_assert (K3_BM * K3_BK / 4 == k3_tile::NT, "one chunk per thread");
  static_assert (K3_BN * K3_BK / 4 == k3_tile::NT, "one chunk per thread");
  __shared__ __align__ (16) float As[2][k3_tile::A_FLOATS];
  __shared__ __align__ (16) float Bs[2][k3_tile::B_FLOATS];
  const k3_tile tile;
  const long long m0 = (long long) blockIdx.x * K3_BM;

  for (long long bn = blockIdx.y; bn < tiles_n; bn += gridDim.y)
    {
      const long long n0 = bn * K3_BN;
      const long long nt = (k + K3_BK - 1) / K3_BK;
      float acc[8][8] = {};
      k3_regs r;
      if (nt > 0)
        {
          k3_load (r, A, lda, B, ldb, m, n, k, m0, n0, 0, va, vb);
          k3_store (r, As[0], Bs[0]);
        }
      __syncthreads ();
      for (long long t = 0; t < nt; t++)
        {
          const int cur = t & 1;
          if (t + 1 < nt)
            k3_load (r, A, lda, B, ldb, m, n, k, m0, n0, (t + 1) * K3_BK,
                     va, vb);
          tile.compute (As[cur], Bs[cur], acc);
          if (t + 1 < nt)
            k3_store (r, As[cur ^ 1], Bs[cur ^ 1]);
          __syncthreads ();
        }
      tile.store (C, ldc, m, n, m0, n0, vc, acc);
    }
}

extern "C" cudaError_t
gt_k3_vector (const float *A, size_t lda, const float *B, size_t ldb,
              float *C, size_t ldc, size_t m, size_t n, size_t k,
              cudaStream_t s)
{
  if (m == 0 || n == 0)
    return cudaSuccess;
  const long long tiles_n = gt_ceil_div (n, K3_BN);
  dim3 grid ((unsigned) gt_ceil_div (m, K3_BM),
             (unsigned) gt_min_ll (tiles_n, GT_GRID_YZ_MAX));
  k3_vector<<<grid, k3_tile::NT, 0, s>>> (A, lda, B, ldb, C, ldc, m, n, k,
                                          tiles_n, gt_aligned16 (A, lda),
                                          gt_aligned16 (B, ldb),
                                          gt_aligned16 (C, ldc));
  return cudaGetLastError ();
}
