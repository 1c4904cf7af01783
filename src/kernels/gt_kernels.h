/* gt_kernels.h -- the kernels' launchers and their registry rows: the door
   between the plan layer (src/plan) and the kernels (src/kernels).

   One file per kernel under src/kernels; each launcher checks its launch
   and returns the CUDA status; nothing here synchronizes.  Every matrix is
   column-major: element (i,j) of a matrix with leading dimension ld is
   p[i + j*ld]; C = A*B with A m x k, B k x n, C m x n.  The typed
   launchers below take floats; a kernel's row functions (gt_kN_row_*)
   take a gt_plan and untyped operands, and are what the registry
   (plan/gt_registry.cu) lists.  */

#ifndef GT_KERNELS_H
#define GT_KERNELS_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "gt_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launch limits of every architecture built (compute capability 3.0 on):
   blocks along x, and along y or z.  */
#define GT_GRID_X_MAX 2147483647LL
#define GT_GRID_YZ_MAX 65535LL

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
  GT_CFG_128x64_B4 = 7,   /* 8x8 per thread, 128 threads, BK 16, 3 stages,
                             four blocks an SM (128 registers) */
  GT_K4_CONFIG_COUNT = 8
} gt_k4_config;

/* One launcher per kernel (kernels 2, 3, 7 and 12: bench/kernels).  */
cudaError_t gt_k1_classic (int tile, const float *A, size_t lda,
                           const float *B, size_t ldb, float *C, size_t ldc,
                           size_t m, size_t n, size_t k, cudaStream_t s);
/* accumulate (splits 1 only): C += A*B, the accumulators starting from C,
   so a product summed over pieces of k rounds exactly as one launch over
   all of k.  cluster: the pieces of k (splits > 1) are added within a
   thread-block cluster where the configuration and device can
   (gt_k4_cluster_max), else by gt_k5_reduce from the scratch.  */
cudaError_t gt_k4_async (int cfg, int splits, int cluster, int accumulate,
                         const float *A, size_t lda,
                         const float *B, size_t ldb, float *C, size_t ldc,
                         size_t m, size_t n, size_t k, void *work,
                         cudaStream_t s);
/* The most pieces of k configuration cfg adds within a cluster on the
   current device (0: it cannot).  */
int gt_k4_cluster_max (int cfg);
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
   last column of 128-wide tiles, tail at most the tiles down a column; or
   a multiple of those, the last whole columns),
   then those with k split `splits` ways: where the tiles just pass a
   multiple of the SMs, a last round of a few tiles, each SM's whole
   time, becomes a short one on all SMs.  work: gt_k9_tail_work_bytes.  */
cudaError_t gt_k9_dmma_tail (int tail, int splits, const float *A,
                             size_t lda, const float *B, size_t ldb,
                             float *C, size_t ldc, size_t m, size_t n,
                             size_t k, void *work, cudaStream_t s);
size_t gt_k9_tail_work_bytes (int tail, int splits, size_t m, size_t n,
                              size_t k);
/* Doubles in columns that are not 16-byte aligned are read 8 bytes at a
   time, slower: a plan with `repacked` copies A and B to aligned scratch
   first, this many bytes before the split's or tail's own.  */
size_t gt_k9_repack_bytes (size_t m, size_t n, size_t k);
/* The scratch of a stream-K plan of doubles (a plan's streamk) in tiles
   of `tile` on the current device: a slot of sums per block and side, a
   counter per tile (0 where kernel 9 cannot run).  The benchmark's build
   only (bench/kernels/gt_k9_stream.cu).  */
size_t gt_k9_stream_work_bytes (int tile, size_t m, size_t n);
/* The most pieces of k of a double product kernel 9 adds within a
   thread-block cluster on the current device (0: none), in tiles of
   `tile` (a plan's k9_tile), and whether a plan's pieces go that way
   (then no partial sums in its scratch).  */
int gt_k9_cluster_max (int tile);
/* The blocks of kernel 9's clusters of z (doubles, tiles of `tile`)
   resident at once on the current device (0: none).  */
int gt_k9_cluster_slots (int tile, int z);
/* Blocks of kernel 9 on doubles in tiles of `tile` resident on one SM of
   the current device (0: none).  */
int gt_k9_occupancy (int tile);
int gt_k9_in_cluster (const gt_plan *p, size_t k);
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
/* cluster: n == 1 with k split up to 8 ways adds the pieces within a
   cluster where the device can (gt_plan.cluster).  */
cudaError_t gt_k6_gemv (int splits, int cluster, const float *A,
                        size_t lda, const float *B, size_t ldb, float *C,
                        size_t ldc, size_t m, size_t n, size_t k,
                        void *work, cudaStream_t s);

/* Scratch bytes for kernels 4/5 and 6 at a given split.  */
size_t gt_k4_work_bytes (int splits, size_t m, size_t n, size_t k,
                         int repack);
/* Nonzero when A or B is not 16-byte aligned with ld a multiple of 4.  */
int gt_k4_needs_repack (const float *A, size_t lda, const float *B,
                        size_t ldb);
size_t gt_k6_work_bytes (int splits, size_t m, size_t n);
/* The most blocks kernel 6 can add its pieces of k within (a cluster) on
   the current device; 0 where it cannot.  */
int gt_k6_cluster_max (void);

/* The shapes and resident blocks of kernel 4's configurations.  */
void gt_k4_shape (int cfg, int *bm, int *bn, int *bk, int *threads,
                  int *smem);
int gt_k4_min_blocks (int cfg);
int gt_k4_occupancy (int cfg);

/* Columns of C per block of kernel 8 (rows: gt_k8_rows).  */
#define GT_K8_TILE_N 128
/* Rows and columns of C per block of kernel 9; doubles also in small
   tiles (a plan's k9_tile), two blocks an SM, for shapes whose large
   tiles leave the SMs short of work.  */
#define GT_K9_TILE 128
#define GT_K9_SMALL_TILE 64

/* The planes of complex products (gt_planes.cu): real is the component
   type (GT_SINGLE or GT_DOUBLE); complex matrices are interleaved, their
   leading dimensions in complex elements, the planes' in reals.  */
#define GT_PLANES_ROWS 0     /* re above im in each column */
#define GT_PLANES_EXPAND 1   /* ROWS, and [-im; re] in columns cols.. */
#define GT_PLANES_COLS 2     /* re in columns 0.., im in columns cols.. */
#define GT_PLANES_SUM 4      /* COLS, and re + im in columns 2 cols..;
                                flag set where a part or the sum is not
                                finite */
/* COLS | EXPAND: [re im; -im re] (2 rows x 2 cols) */
cudaError_t gt_planes_split (gt_type real, int mode, const void *src,
                             size_t lds, void *dst, size_t ldd, size_t rows,
                             size_t cols, int *flag, cudaStream_t s);
/* The same for a piece of a matrix's columns into planes laid out for
   `apart` columns (COLS: dst is the piece's first column in the first
   plane; the others lie apart * ldd further each).  */
cudaError_t gt_planes_split_apart (gt_type real, int mode, const void *src,
                                   size_t lds, void *dst, size_t ldd,
                                   size_t rows, size_t cols, size_t apart,
                                   int *flag, cudaStream_t s);
cudaError_t gt_planes_join (gt_type real, int mode, const void *P,
                            size_t ldp, void *C, size_t ldc, size_t rows,
                            size_t cols, cudaStream_t s);
/* *dst = 1 where *src is nonzero (a split's flag carried into another).  */
cudaError_t gt_planes_flag_or (int *dst, const int *src, cudaStream_t s);
/* C from Gauss's three products [T1 T2 T3] in P, with the SUM planes of
   A (ld lda) and B (ld ldb) for the elements where one is not finite;
   unfinished (NULL, or a device word): the planes are only the last piece
   of k, so such an element sets the word instead.  */
cudaError_t gt_planes_join3 (gt_type real, const void *P, size_t ldp,
                             const void *Ap, size_t lda, const void *Bp,
                             size_t ldb, size_t k, void *C, size_t ldc,
                             size_t rows, size_t cols, int *unfinished,
                             cudaStream_t s);

/* ---- registry rows (plan/gt_registry.cu lists them) ---- */
cudaError_t gt_k1_row_launch (const gt_plan *p, const gt_gemm_args *a,
                              cudaStream_t s);
/* kernels 4 and 5 (5: kernel 4 with splits > 1) */
size_t gt_k4_row_work (const gt_plan *p, size_t m, size_t n, size_t k,
                       int repack);
cudaError_t gt_k4_row_launch (const gt_plan *p, const gt_gemm_args *a,
                              cudaStream_t s);
size_t gt_k6_row_work (const gt_plan *p, size_t m, size_t n, size_t k,
                       int repack);
cudaError_t gt_k6_row_launch (const gt_plan *p, const gt_gemm_args *a,
                              cudaStream_t s);
size_t gt_k8_row_work (const gt_plan *p, size_t m, size_t n, size_t k,
                       int repack);
cudaError_t gt_k8_row_launch (const gt_plan *p, const gt_gemm_args *a,
                              cudaStream_t s);
size_t gt_k9_row_work (const gt_plan *p, size_t m, size_t n, size_t k,
                       int repack);
cudaError_t gt_k9_row_launch (const gt_plan *p, const gt_gemm_args *a,
                              cudaStream_t s);
/* a piece of k of a kernel 9 product, its double sums from pin (unless
   NULL) and to pout (unless NULL, C then untouched) */
cudaError_t gt_k9_row_piece (const gt_plan *p, const gt_gemm_args *a,
                             const double *pin, double *pout,
                             cudaStream_t s);
/* kernel 11 (the policy: plan/gt_emulate.cu) */
int gt_k11_usable (void);
size_t gt_k11_row_work (const gt_plan *p, size_t m, size_t n, size_t k,
                        int repack);
/* the bytes of each further place (gt_gemm_args.a_slots: A's part and
   B's scan part); what the current device's products kept of A
   forgotten (its scratch was used for something else) */
size_t gt_k11_place_bytes (size_t m, size_t n, size_t k);
void gt_k11_drop_kept (void);
cudaError_t gt_k11_row_launch (const gt_plan *p, const gt_gemm_args *a,
                               cudaStream_t s);
/* count products on one scratch, each in its own place (g[i].a_slot of
   g[i].a_slots), with one wait of the host for all their scans */
cudaError_t gt_k11_launch_many (const gt_gemm_args *g, int count,
                                cudaStream_t s);
/* a piece of k of a single product on kernel 11 alone, its double sums
   first in a->work (m x n, as gt_k9_row_piece's: from the second piece
   on, to all but the last; the last writes C), kernel 11's scratch for
   the piece after them: gt_k11_piece_work bytes in all */
size_t gt_k11_piece_work (size_t m, size_t n, size_t kc);
cudaError_t gt_k11_piece (int first, int last, const gt_gemm_args *a,
                          cudaStream_t s);
/* the same with the sums apart from kernel 11's scratch for the piece
   (gt_k11_piece_scratch bytes): Gauss's three pieces, each product
   carrying its own sums; which: the product's place of A in the panels
   (its scan foretells the moduli A made ahead there is sliced for) */
size_t gt_k11_piece_scratch (size_t m, size_t n, size_t kc);
cudaError_t gt_k11_piece_sums (int first, int last, const gt_gemm_args *a,
                               double *sums, void *scratch, int which,
                               cudaStream_t s);
/* A of a product whose first panel runs in kernel 11's pieces, made
   ahead for its other panels as each piece's columns [k0, k1) arrive
   (the pieces in any order; first, last: in the order run), in the place
   where panel (one of those panels, on the whole scratch: all of k)
   finds it kept: scanned into its sums and sliced on scales guessed from
   the first piece (gt_oz_a_guess), the rows guessed wrong sliced again by
   the first panel that keeps it.  That place is the scratch's first
   gt_k11_a_ahead_bytes (0: pieces of kc that do not start on whole parts
   of GT_OZ_A_PART), or, for a product with its place of A among several
   (panel->a_slot of a_slots: Gauss's three), that place, whose moduli
   the pieces' scans of the same place foretold (gt_k11_piece_sums'
   which): the pieces' own scratch goes after them.  */
size_t gt_k11_a_ahead_bytes (size_t m, size_t k, size_t kc);
cudaError_t gt_k11_a_ahead (const gt_gemm_args *panel, size_t k0, size_t k1,
                            int first, int last, cudaStream_t s);
/* The same, where no pieces of kernel 11 ran (their scans foretell the
   moduli): for the moduli kernel 11's last run chose (8 before any).
   gt_k11_a_as_in: A's columns [k0, k1) as they arrive, the first panel
   run whole after the last; gt_k11_a_whole: all of A at once, on its
   rows' own scales, where the first panel ran other pieces (kernel 9's)
   and all of A is there.  */
cudaError_t gt_k11_a_as_in (const gt_gemm_args *panel, size_t k0, size_t k1,
                            int first, int last, cudaStream_t s);
cudaError_t gt_k11_a_whole (const gt_gemm_args *panel, cudaStream_t s);
void gt_k11_forget (void);
/* kernel 10: any real type, any shape and alignment.  On a vector side
   a lane reads GT_K10_LANE_ELEMS elements of es bytes at once (16 bytes);
   with n == 1 a block takes gt_k10_vector_rows rows of A (m rows, on a
   device of sms multiprocessors): 32 lanes' worth where that leaves a
   block per 6 SMs or more (8-byte elements on 132 SMs: from 1,408 rows),
   32 rows, an element a lane, below (bench/RESULTS.md) */
#define GT_K10_LANE_ELEMS(es) ((es) >= 16 ? 1 : 16 / (es))
static inline size_t
gt_k10_vector_rows (size_t es, size_t m, int sms)
{
  const size_t wide = 32 * GT_K10_LANE_ELEMS (es);
  return m / wide >= (size_t) (sms / 6) ? wide : 32;
}
/* the most pieces of k a vector product of this type and shape adds
   within a thread-block cluster on the current device (0: none: not
   Hopper, or no sm_90 code); a plan's cluster asks for that where its
   splits fit */
int gt_k10_cluster_max (gt_type type, size_t m, size_t n);
size_t gt_k10_row_work (const gt_plan *p, size_t m, size_t n, size_t k,
                        int repack);
cudaError_t gt_k10_row_launch (const gt_plan *p, const gt_gemm_args *a,
                               cudaStream_t s);

/* Stores into host memory the device maps (gt_host_words.cu; addresses
   as the device sees them).  gt_tokens_write: the locked-operand probe's
   token into words [b, e), word 0 at word0 and word i > 0 at first +
   (i - 1) * step.  gt_words_to_host: count (at most 256) ints from device
   memory src to dst.  */
cudaError_t gt_tokens_write (void *word0, void *first, size_t step, size_t b,
                             size_t e, unsigned token, cudaStream_t s);
cudaError_t gt_words_to_host (int *dst, const int *src, int count,
                              cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
