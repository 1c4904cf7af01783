/* gt_gemm.h -- kernels, their launchers and the dispatcher (CUDA side).

   Internal to the CUDA half of the package and to the benchmark; the Octave
   glue never includes it.  Every matrix is column-major: element (i,j) of a
   matrix with leading dimension ld is p[i + j*ld]; C = A*B with A m x k,
   B k x n, C m x n.  Each launcher checks its launch and returns the CUDA
   status; nothing here synchronizes.  */

#ifndef GT_GEMM_H
#define GT_GEMM_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels, numbered by technique (each adds to the one before).  */
typedef enum
{
  GT_K1_CLASSIC = 1,  /* one element per thread, TILE x TILE shared tiles */
  GT_K2_REGBLOCK = 2, /* 2-D register blocking, 4x4 per thread, scalar */
  GT_K3_VECTOR = 3,   /* 8x8 per thread, float4 loads and shared reads in
                         a warp layout without padding, register-prefetch
                         double buffer */
  GT_K4_ASYNC = 4,    /* cp.async multi-stage pipeline, 16-wide k steps */
  GT_K5_SPLITK = 5,   /* kernel 4 with k split across blocks, the pieces
                         summed in order by a reduce kernel */
  GT_K6_GEMV = 6,     /* m == 1 or n == 1: memory-bound, split k */
  GT_K7_REGDB = 7,    /* 128x128x8, 8x8 per thread, fragments double-
                         buffered in registers, B transposed in shared
                         memory (a step the benchmark measures; cfg is the
                         blocks per SM its registers are capped for) */
  GT_K8_WIDE = 8,     /* 16x8 per thread, 128x128 tiles of 128 threads,
                         two blocks per SM, or 256x128 of 256 threads
                         (one per SM, optionally stream-K), copies by
                         cp.async (B transposed into scratch first);
                         cfg: GT_K8_* */
  GT_K9_DMMA = 9      /* Hopper: the singles widened to doubles in shared
                         memory and multiplied on the FP64 tensor cores,
                         summed in double (128x128 tiles, 16 warps) */
} gt_kernel_id;

/* Configurations of kernels 4/5 (compile-time tile shapes), BM x BN x BK
   with TM x TN elements per thread; see GT_K4_CONFIGS.  */
typedef enum
{
  GT_CFG_256x128 = 0,     /* 16x8 per thread, 256 threads, BK 16, 3 stages */
  GT_CFG_64x64_K32 = 1,   /* 4x8 per thread, 128 threads, BK 32, 3 stages */
  GT_CFG_128x128 = 2,     /* 8x8 per thread, 256 threads, BK 16, 3 stages */
  GT_CFG_64x64 = 3,       /* 4x8 per thread, 128 threads, BK 16, 4 stages */
  GT_CFG_128x64 = 4,      /* 8x8 per thread, 128 threads, BK 16, 4 stages */
  GT_CFG_128x64_K32 = 5,  /* 8x8 per thread, 128 threads, BK 32, 3 stages */
  GT_CFG_128x128_K32 = 6, /* 8x8 per thread, 256 threads, BK 32, 3 stages */
  GT_CFG_COUNT = 7
} gt_cfg_id;

/* A launch plan: which kernel, which configuration, how many k splits,
   and the device scratch it needs.  */
typedef struct
{
  int kernel;          /* gt_kernel_id */
  int tile;            /* kernel 1 only: 8, 16 or 32 */
  int cfg;             /* kernels 4/5: gt_cfg_id */
  int splits;          /* kernels 5/6: pieces of k, >= 1 */
  size_t work_bytes;   /* device scratch for partial sums */
  int edge_rows;       /* kernels 8/9: the last edge_rows rows and */
  int edge_cols;       /* edge_cols columns of C, left out of the kernel's
                          grid so that it runs whole rounds, go to the
                          plans gt_plan_for would make for those strips */
  int tail;            /* kernel 9 only: the last tail tiles of its grid */
  int tail_splits;     /* run with k split so many ways (gt_k9_dmma_tail) */
} gt_plan;

/* Fastest plan for the shape on the current device (tile = 0), or the
   classic kernel for tile = 8, 16, 32.  repack: the operands fail kernel
   4's alignment (gt_k4_needs_repack), so the plan's scratch covers
   aligned copies.  */
gt_plan gt_plan_for (size_t m, size_t n, size_t k, int tile, int repack);

/* Plan for a given kernel (benchmark); cfg < 0 and splits <= 0 mean
   "choose".  */
gt_plan gt_plan_kernel (int kernel, int cfg, int splits,
                        size_t m, size_t n, size_t k, int repack);

/* Queue C = A*B as planned.  work must hold plan->work_bytes bytes.  */
cudaError_t gt_gemm_run (const gt_plan *plan,
                         const float *A, size_t lda,
                         const float *B, size_t ldb,
                         float *C, size_t ldc,
                         size_t m, size_t n, size_t k,
                         void *work, cudaStream_t stream);

/* The plan of a piece of k (kc long) of a product planned as whole, and
   the run of piece `first`/`last` of them: pieces of k, each starting at a
   multiple of 32, run in order give the bits of gt_gemm_run of whole
   where whole sums each element in one chain over k (kernels 4 without
   splits, 8 and 9).  Kernel 9's pieces carry their double sums in the
   scratch (m x n doubles); others add each piece to C.  */
gt_plan gt_plan_piece (const gt_plan *whole, size_t m, size_t n, size_t kc);
cudaError_t gt_gemm_piece (const gt_plan *p, int first, int last,
                           const float *A, size_t lda,
                           const float *B, size_t ldb,
                           float *C, size_t ldc,
                           size_t m, size_t n, size_t k,
                           void *work, cudaStream_t stream);

/* C += A*B as planned, for plans where gt_plan_accumulates (kernel 4
   without splits): summing pieces of k this way gives the same bits as
   one gt_gemm_run over all of k.  */
int gt_plan_accumulates (const gt_plan *plan);
cudaError_t gt_gemm_accumulate (const gt_plan *plan,
                                const float *A, size_t lda,
                                const float *B, size_t ldb,
                                float *C, size_t ldc,
                                size_t m, size_t n, size_t k,
                                void *work, cudaStream_t stream);

/* One launcher per kernel.  */
cudaError_t gt_k1_classic (int tile, const float *A, size_t lda,
                           const float *B, size_t ldb, float *C, size_t ldc,
                           size_t m, size_t n, size_t k, cudaStream_t s);
cudaError_t gt_k2_regblock (const float *A, size_t lda,
                            const float *B, size_t ldb, float *C, size_t ldc,
                            size_t m, size_t n, size_t k, cudaStream_t s);
cudaError_t gt_k3_vector (const float *A, size_t lda,
                          const float *B, size_t ldb, float *C, size_t ldc,
                          size_t m, size_t n, size_t k, cudaStream_t s);
/* accumulate (splits 1 only): C += A*B, the accumulators starting from C,
   so a product summed over pieces of k rounds exactly as one launch over
   all of k.  */
cudaError_t gt_k4_async (int cfg, int splits, int accumulate,
                         const float *A, size_t lda,
                         const float *B, size_t ldb, float *C, size_t ldc,
                         size_t m, size_t n, size_t k, void *work,
                         cudaStream_t s);
cudaError_t gt_k7_regdb (int min_blocks, const float *A, size_t lda,
                         const float *B, size_t ldb, float *C, size_t ldc,
                         size_t m, size_t n, size_t k, cudaStream_t s);
/* Kernel 8's modes (bits of cfg): A by cp.async (an unaligned A first
   repacked into scratch); B transposed into scratch first, then by
   cp.async.  Without them the operand goes through registers.  With
   both, K16 takes 16 k per shared stage instead of 8.  */
#define GT_K8_A_ASYNC 1
#define GT_K8_B_TRANSPOSED 2
#define GT_K8_K16 4             /* with both by cp.async: 16-k stages */
#define GT_K8_BM256 8           /* with both by cp.async: 256x128 tiles of
                                   256 threads, one block per SM */
#define GT_K8_STREAMK 16        /* with 256x128 tiles and 16-k stages:
                                   stream-K over the resident blocks */
#define GT_K8_DEFAULT_MODE (GT_K8_A_ASYNC | GT_K8_B_TRANSPOSED)
cudaError_t gt_k8_wide (int mode, const float *A, size_t lda,
                        const float *B, size_t ldb, float *C, size_t ldc,
                        size_t m, size_t n, size_t k, void *work,
                        cudaStream_t s);
/* Scratch of kernel 8 in a mode; repack: room for an aligned copy of A.  */
size_t gt_k8_work_bytes (int mode, size_t m, size_t n, size_t k,
                         int repack);
/* Blocks of kernel 8 resident per SM on the current device (0: unknown).  */
int gt_k8_occupancy (int mode);
/* Rows of C per block of kernel 8 in a mode (columns: 128).  */
int gt_k8_rows (int mode);
/* After a device reset: kernel 8's shared-memory limits are set again.  */
void gt_k8_forget (void);
/* Kernel 9, where gt_k9_usable: C rounded once from a double product.  */
cudaError_t gt_k9_dmma (const float *A, size_t lda, const float *B,
                        size_t ldb, float *C, size_t ldc, size_t m, size_t n,
                        size_t k, cudaStream_t s);
/* The same over a piece of k: starting from the sums in pin (m x n
   doubles, leading dimension m) where pin is not NULL, and leaving them in
   pout where pout is not NULL (C then untouched): pieces of k run so,
   each at a multiple of 32, give the bits of one pass.  */
cudaError_t gt_k9_dmma_part (const float *A, size_t lda, const float *B,
                             size_t ldb, float *C, size_t ldc, size_t m,
                             size_t n, size_t k, const double *pin,
                             double *pout, cudaStream_t s);
/* Kernel 9 with k split `splits` ways (pieces of a multiple of 32), the
   pieces' double sums added in order and rounded once by a second
   kernel; work: gt_k9_work_bytes.  */
cudaError_t gt_k9_dmma_split (int splits, const float *A, size_t lda,
                              const float *B, size_t ldb, float *C,
                              size_t ldc, size_t m, size_t n, size_t k,
                              void *work, cudaStream_t s);
size_t gt_k9_work_bytes (int splits, size_t m, size_t n, size_t k);
/* The pieces of k that gt_k9_dmma_split makes of `splits`: returns how
   many, *kc their length (a multiple of 32).  */
long long gt_k9_split_k (int splits, size_t k, long long *kc);
/* Kernel 9 on all tiles of C but the last `tail` (the bottom ones of the
   last column of 128-wide tiles; tail at most the tiles down a column),
   then those with k split `splits` ways: where the tiles just pass a
   multiple of the SMs, a last round of a few tiles, each SM's whole
   time, becomes a short one on all SMs.  work: gt_k9_tail_work_bytes.  */
cudaError_t gt_k9_dmma_tail (int tail, int splits, const float *A,
                             size_t lda, const float *B, size_t ldb,
                             float *C, size_t ldc, size_t m, size_t n,
                             size_t k, void *work, cudaStream_t s);
size_t gt_k9_tail_work_bytes (int tail, int splits, size_t m, size_t n,
                              size_t k);
/* Nonzero where kernel 9 runs on the current device: a Hopper GPU, and a
   build for it.  */
int gt_k9_usable (void);
/* After a device reset: kernel 9's shared-memory limit is set again.  */
void gt_k9_forget (void);
/* Copies a rows x cols matrix to leading dimension ldd (a multiple of 4,
   the padding zero-filled), so kernels can move it in 16-byte pieces.  */
cudaError_t gt_repack (const float *src, size_t lds, float *dst,
                       size_t ldd, size_t rows, size_t cols, cudaStream_t s);
/* C = sum over s < splits of the rows x cols matrices at
   partial + s*rows*cols (leading dimension rows), in split order.  */
cudaError_t gt_k5_reduce (int splits, const float *partial, size_t rows,
                          size_t cols, float *C, size_t ldc, cudaStream_t s);
cudaError_t gt_k6_gemv (int splits, const float *A, size_t lda,
                        const float *B, size_t ldb, float *C, size_t ldc,
                        size_t m, size_t n, size_t k, void *work,
                        cudaStream_t s);

/* Scratch bytes for kernels 4/5 and 6 at a given split.  */
size_t gt_k4_work_bytes (int splits, size_t m, size_t n, size_t k,
                         int repack);
/* Nonzero when A or B is not 16-byte aligned with ld a multiple of 4.  */
int gt_k4_needs_repack (const float *A, size_t lda, const float *B,
                        size_t ldb);
size_t gt_k6_work_bytes (int splits, size_t m, size_t n);

/* cudaSuccess when this build has a kernel image the current device can
   run; otherwise the error that says why.  */
cudaError_t gt_check_kernel_image (void);

/* Compute capabilities compiled into this build, e.g. "sm_75 sm_90".  */
const char *gt_build_archs (void);

#ifdef __cplusplus
}
#endif

#endif
