/* gt_plan.h -- plans, the dispatcher and the kernel registry: the door
   between the host layer (src/host) and the kernels (src/kernels).

   The host layer asks this layer for a plan (which kernel, its variant, its
   scratch, the panel width of a streamed product) and runs it through
   gt_gemm_run; it never names a kernel, a tile size or a device limit.  The
   kernels are reached only through the rows of the registry.  Matrices are
   column-major: element (i,j) of a matrix with leading dimension ld is
   p[i + j*ld] in elements of the plan's type; C = A*B with A m x k, B k x n,
   C m x n.  Nothing here synchronizes.  */

#ifndef GT_PLAN_H
#define GT_PLAN_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels, numbered by technique (each adds to the one before).  Kernels
   2, 3, 7 and 12 are steps that only the benchmark builds (bench/kernels).  */
typedef enum
{
  GT_K1_CLASSIC = 1,  /* one element per thread, TILE x TILE shared tiles */
  GT_K2_REGBLOCK = 2, /* benchmark: 2-D register blocking, 4x4 per thread */
  GT_K3_VECTOR = 3,   /* benchmark: 8x8 per thread, float4 loads */
  GT_K4_ASYNC = 4,    /* cp.async multi-stage pipeline, 16-wide k steps */
  GT_K5_SPLITK = 5,   /* kernel 4 with k split across blocks, the pieces
                         summed in order by a reduce kernel */
  GT_K6_GEMV = 6,     /* m == 1 or n == 1: memory-bound, split k */
  GT_K7_REGDB = 7,    /* benchmark: 128x128x8, fragments double-buffered */
  GT_K8_WIDE = 8,     /* 16x8 per thread, 128x128 or 256x128 tiles, copies
                         by cp.async (B transposed into scratch first) */
  GT_K9_DMMA = 9,     /* Hopper: singles widened to doubles in shared
                         memory (doubles as they are), multiplied on the
                         FP64 tensor cores */
  GT_K10_GENERIC = 10,/* any real type, any shape: 64x64 tiles, 4x4 per
                         thread (the double path beside kernel 9) */
  GT_K11_OZAKI = 11, /* Hopper (sm_90a): singles emulated on the INT8
                         tensor cores by residues, the number of moduli
                         from a scan of the operands (plan/gt_emulate.cu) */
  GT_K12_THIN = 12,  /* benchmark: tall, thin products (k <= 64), resident
                         blocks keeping B's band in shared memory and
                         streaming strips of A (not kept: slower than
                         kernel 4, bench/RESULTS.md) */
  GT_KERNEL_ID_END = 13
} gt_kernel_id;

/* A field of a wanted plan that the dispatcher is to choose.  */
#define GT_CHOOSE (-1)

/* A launch plan.  Make one with gt_plan_make, which fills every field.  */
typedef struct
{
  int kernel;          /* gt_kernel_id */
  gt_type type;        /* element type of C (and of A and B, unless one
                          is real in a complex product) */
  int complex_a;       /* a complex product: A complex (1) or real (0), */
  int complex_b;       /* B likewise; the kernel's fields below then plan
                          the real product of the planes (gt_run.cu) */
  int three;           /* both complex: three real products (Gauss's),
                          each m x n x k, where four in one would cost
                          more (gt_dispatch.cu) */
  int tile;            /* kernel 1: 8, 16 or 32 */
  int k4_config;       /* kernels 4/5: gt_k4_config (gt_kernels.h); the
                          benchmark's kernel 12: its configuration */
  int k8_mode;         /* kernel 8: GT_K8_* bits (gt_kernels.h) */
  int min_blocks;      /* kernel 7: blocks per SM its registers are for */
  int splits;          /* kernels 5, 6, 9, 10 (vectors): pieces of k,
                          >= 1 */
  int cluster;         /* kernels 5, 6 (n == 1), 9 and 10 (double
                          vectors): the pieces of k added within a
                          thread-block cluster (Hopper, splits <= 8), not
                          by a second kernel */
  size_t work_bytes;   /* device scratch the plan needs */
  int edge_rows;       /* kernels 8/9: the last edge_rows rows and */
  int edge_cols;       /* edge_cols columns of C, left out of the kernel's
                          grid so that it runs whole rounds, go to the
                          plans gt_plan_for would make for those strips */
  int tail;            /* kernel 9: the last tail tiles of its grid */
  int tail_splits;     /* run with k split so many ways */
  int repacked;        /* kernel 9 on doubles: A and B copied first to
                          16-byte aligned scratch (gt_k9_repack_bytes) */
  int k9_tile;         /* kernel 9 on doubles: GT_K9_SMALL_TILE for its
                          64 x 64 tiles (no edges or tail then), else 0:
                          128 x 128 */
  int streamk;         /* kernel 9 on doubles: the tiles' stages of k
                          dealt evenly over the resident blocks
                          (stream-K), in the tiles k9_tile names; the
                          benchmark's build only, never the default
                          path's (bench/RESULTS.md) */
} gt_plan;

/* The plan of `kernel` for `type` with every other field at its neutral
   value: one split, no scratch, no edges or tail, fields to choose
   (k4_config, k8_mode, min_blocks) at GT_CHOOSE.  */
gt_plan gt_plan_make (gt_type type, int kernel);

/* C's rows out block by block as a run writes them (gt_gemm_args.rows_out):
   kernel 11 alone can write blocks of rows in turn (a real single's
   products and combine; Gauss's three's last product and the join), so
   that the copy of the first ones out runs beside the products of the
   last (gt_plan_rows_out says where that is taken); done is called on
   the run's stream once block b of C is written, for every block in
   order, whatever path the run took (all at its end where it took no
   blocks: a scan that declined, the four products in one, strips).
   Block b's rows: gt_rows_block.  */
#define GT_ROWS_OUT_MAX 8
typedef struct
{
  int blocks;          /* 2 to GT_ROWS_OUT_MAX */
  cudaError_t (*done) (void *arg, int b, cudaStream_t s);
  void *arg;
  int called;          /* blocks done so far (the run counts them) */
  int by_rows;         /* set where the run wrote C block by block */
} gt_rows_out;

/* The blocks of rows a panel of C (m x w, plan p) goes out by: Gauss's
   three on kernel 11 alone, where the panel is 48 MiB or more (the
   copy out that the blocks overlap with the third product's last
   blocks is then the longer; bench/RESULTS.md, "The last panel's C out
   by blocks of rows"), else 0 (whole).  */
#define GT_ROWS_OUT_BLOCKS 4
#define GT_ROWS_OUT_MIN_ROWS 1024
#define GT_ROWS_OUT_MIN_BYTES (48.0 * 1048576)
int gt_plan_rows_out (const gt_plan *p, size_t m, size_t w);

/* Rows [*r0, *r1) of block b of `blocks` of m rows: whole tiles of
   kernel 11's products (256 rows) but the last, which may be empty.  */
void gt_rows_block (size_t m, int blocks, int b, size_t *r0, size_t *r1);
/* The next block's done (o->called of them so far), or every block's
   not yet done.  */
cudaError_t gt_rows_out_next (gt_rows_out *o, cudaStream_t s);
cudaError_t gt_rows_out_rest (gt_rows_out *o, cudaStream_t s);

/* The operands of one product (device pointers).  */
typedef struct
{
  const void *A;
  size_t lda;
  const void *B;
  size_t ldb;
  void *C;
  size_t ldc;
  size_t m, n, k;
  void *work;          /* plan.work_bytes of device scratch */
  /* NULL: a plan that chooses its path from what the operands hold
     (Gauss's three products: not where a part is Inf or NaN, or the
     parts' sum overflows) waits for the device to tell it.  A device
     word: it runs its usual path without waiting, and sets the word to
     1 where that path's result may be wrong; the caller then reads the
     word once, at its end, and where it is set runs the product again
     with checks NULL (a pipeline of panels keeps going meanwhile).  */
  int *checks;
  /* Nonzero: the previous run on this scratch was the previous panel of
     the same product (the same A, lda, m and k), on a plan that uses its
     scratch for nothing else (gt_plan_keeps_a), and nothing else has run
     on the scratch since (or, for the first panel after kernel 11's
     pieces, those pieces made A ahead there: gt_plan_a_ahead).  Kernel
     11 then keeps what it made of A where its record of that run says it
     was emulated (a run that declined used the scratch for kernel 9:
     gt_k11_launch_many); other kernels ignore it.  */
  int a_kept;
  /* Several products on one scratch that each keep an A of their own
     (Gauss's three): this one's place, of a_slots (0: one), at most
     GT_A_SLOTS; kernel 11's scratch then has a_slots - 1 more places,
     each one of A's parts and one of B's scan parts (gt_k11_place_bytes
     each).  */
  int a_slot, a_slots;
  /* Host work to do while the run waits on the device (kernel 11 waits
     there for its scans' choice of moduli): called at most once, just
     before that wait, with idle_arg; NULL: none.  A caller that gives it
     does the work itself where it was not called.  */
  void (*idle) (void *arg);
  void *idle_arg;
  /* A piece of k whose A is planes laid out for all of k (Gauss's three:
     gt_plan_prepare_a_piece): A points at the piece's first column, k0
     of them before it, a_planes_k in all; 0: planes of this k alone.  */
  size_t a_planes_k, a_planes_k0;
  /* NULL, or C's rows out block by block (gt_rows_out).  */
  gt_rows_out *rows_out;
} gt_gemm_args;
#define GT_A_SLOTS 3

/* Nonzero when some kernel of this build serves the type.  */
int gt_type_served (gt_type type);

/* The real type of a complex one (the type itself where it is real).  */
gt_type gt_type_real (gt_type type);

/* Fastest plan for the shape on the current device (tile 0), or the
   classic kernel for tile 8, 16, 32.  repack: the operands fail the fast
   kernels' alignment (gt_needs_repack), so the plan's scratch covers
   aligned copies.  A type no kernel serves gives kernel 0.  */
gt_plan gt_plan_for (gt_type type, size_t m, size_t n, size_t k, int tile,
                     int repack);

/* The plan of C = A*B of type c where A or B is real (real_a, real_b) in a
   complex product; as gt_plan_for otherwise.  */
gt_plan gt_plan_mixed (gt_type c, int real_a, int real_b, size_t m,
                       size_t n, size_t k, int tile, int repack);

/* The plan of another panel (n columns) of a product planned as full
   (the same m, k and tile): a complex one on the same planes of A.  */
gt_plan gt_plan_panel (const gt_plan *full, size_t m, size_t n, size_t k,
                       int tile);

/* A complex plan runs on A's planes: where A is complex they are made
   once per product by gt_plan_prepare_a, into gt_plan_a_bytes of device
   memory with leading dimension gt_plan_a_ld (elsewhere A is used as it
   is: 0 bytes).  gt_gemm_run of a complex plan then takes the planes for
   A (with their ld), and B and C as they are (interleaved).  */
size_t gt_plan_a_bytes (const gt_plan *p, size_t m, size_t k);
size_t gt_plan_a_ld (const gt_plan *p, size_t m);
cudaError_t gt_plan_prepare_a (const gt_plan *p, const void *A, size_t lda,
                               void *planes, size_t m, size_t k,
                               cudaStream_t s);
/* Where a plan's pieces of k can take their planes of A in the layout
   of all of k (Gauss's three: its planes lie side by side), so that the
   panels after them find A's planes made: the piece's columns [k0, k0 +
   kc) of A (A: its first column) into planes laid out for k, the
   non-finite flag cleared first where `first`; *piece: the piece's A for
   gt_gemm_args (with a_planes_k = k, a_planes_k0 = k0).  0 where the
   plan's planes are not so laid out.  */
int gt_plan_pieces_fill_planes (const gt_plan *p);
cudaError_t gt_plan_prepare_a_piece (const gt_plan *p, const void *A,
                                     size_t lda, void *planes, size_t m,
                                     size_t k, size_t k0, size_t kc,
                                     int first, const void **piece,
                                     cudaStream_t s);

/* The plan `want` names (its kernel and the fields not GT_CHOOSE; splits 0
   means choose, but for kernels 9 and 10: one piece) completed for the
   shape: the benchmark's way to run one kernel or variant.  */
gt_plan gt_plan_fixed (const gt_plan *want, size_t m, size_t n, size_t k,
                       int repack);

/* The leading dimension the fast kernels read in 16-byte pieces: rows
   elements of es bytes (4, 8 or 16) rounded up to 16 bytes.  */
static inline size_t
gt_ld_16 (size_t es, size_t rows)
{
  const size_t per = 16 / es;
  return (rows + per - 1) / per * per;
}

/* Nonzero when A or B is not 16-byte aligned with ld a multiple of 16
   bytes' worth of elements (gt_ld_16): the fast kernels then copy them
   first, or read them more slowly.  2: doubles with 16-byte aligned
   starts, whose odd leading dimensions kernel 9 takes as they are at
   nearly the aligned speed.  */
int gt_needs_repack (gt_type type, const void *A, size_t lda, const void *B,
                     size_t ldb);

/* Columns of B and C per panel of a product streamed from the host in at
   most max_panels panels (n where one panel is best).  narrow: a real
   product off kernel 11 may go in eighths of n where wider panels would
   fill the GPU (the caller's 0: where one panel would instead run as
   panels side by side).  */
size_t gt_panel_width (gt_type type, size_t m, size_t n, size_t k, int tile,
                       size_t max_panels, int narrow);

/* Columns of B and C per panel where a product streamed in panels of w
   columns would go in eighths of n instead (w where not): for complex
   products whose panel 0 takes no pieces of k (the host layer's choice,
   made at width w).  */
size_t gt_panel_eighths (gt_type type, size_t m, size_t n, size_t k, int tile,
                         size_t w);

/* Columns per sub-panel where the last panel of a product streamed in
   panels (w_last columns, `others` panels before it) is streamed in
   narrower ones: nothing overlaps the last panel's kernel and copy out,
   and a narrower last one shortens that tail.  w_last where it stays
   whole (a kernel that pays per run, as kernel 11's scans, or sub-panels
   that would not fill the GPU); at most max_panels panels in all.  */
size_t gt_panel_tail (const gt_plan *whole, size_t m, size_t w_last,
                      size_t others, size_t max_panels);

/* Rows of A per block where the first panel of a product streamed in
   panels is computed block by block as A's rows arrive, for complex
   products (no pieces of k: gt_plan_has_pieces; they would otherwise wait
   for all of A and its planes before their first kernel), and for real
   ones too where each block's rows of C go out straight as they are done
   (straight: C is locked in place, so its copies out run beside A's
   copies in); 0 where not.  A `blocks`-th of m in whole tiles.  Complex
   plans on kernel 11 only where out_bound: C's bytes enough larger than
   the operands' that its copy out sets the pace.  */
size_t gt_panel_rows (const gt_plan *whole, size_t m, int straight,
                      size_t blocks, int out_bound);

/* Width of the side-by-side panels of a product (C of type c, A or B
   real where real_a, real_b, as gt_plan_mixed) that gt_panel_width leaves
   in one panel: about n / parts in whole column tiles, for kernels that
   the host layer runs on `parts` streams at once, each with its own
   scratch; n where the panels' plans cannot run so (kernel 11, whose runs
   wait for its scans and keep what they made of A in their scratch) and
   for the classic kernel.  */
size_t gt_panel_side (gt_type c, int real_a, int real_b, size_t m, size_t n,
                      size_t k, int tile, size_t parts);

/* Queue C = A*B as planned on stream s.  */
cudaError_t gt_gemm_run (const gt_plan *plan, const gt_gemm_args *a,
                         cudaStream_t s);

/* The plan of a piece of k (kc long) of a product planned as whole, and
   the run of piece `first`/`last` of them: pieces of k, each starting at a
   multiple of GT_PIECE_K, run in order give the bits of gt_gemm_run of whole
   (kernels 4 without splits, 8 and 9 sum each element in one chain over
   k).  Kernel 9's pieces carry their double sums in the scratch; the
   others add each piece to C.  Kernel 11's pieces of a real product are
   kernel 9's (not its bits, its accuracy), or kernel 11's own
   (gt_plan_piece_k11, where gt_plan_head_pieces says), each scanned on
   its own and carrying double sums as kernel 9's do.  Gauss's three products on
   kernel 9 run their pieces on plain kernel 9, each of the three
   carrying its double sums (the whole plan's accuracy; its bits where it
   is plain kernel 9 too); complex singles on kernel 11, on kernel 11's
   own pieces of the three, each scanned on its own (gt_plan_head_pieces
   says where).  Their runs need gt_gemm_args.checks, and A's planes of
   the piece (gt_plan_prepare_a of its columns, or its columns of the
   planes of all of k: gt_plan_prepare_a_piece).  */
#define GT_PIECE_K 32
/* Nonzero where a plan's product can run in pieces of k.  */
int gt_plan_has_pieces (const gt_plan *whole);
/* The least k of a piece that pays for a plan's pieces of a product of
   depth k (0: the caller's own least): Gauss's three each carry m x n
   double sums through device memory from piece to piece, which pieces
   under about 1024 of k no longer amortize, and each piece costs some
   launches (the three, B's planes, A's), so they go in at most
   GT_THREE_PIECES pieces (256x100000x256 complex double in 49 pieces was
   1.19x slower than whole: bench/RESULTS.md); on kernel 11, each of
   whose runs has its fixed costs, pieces of an eighth of k, at least
   GT_K11_PIECE_MIN_K.  */
#define GT_THREE_PIECE_MIN_K 1024
#define GT_THREE_PIECES 16
size_t gt_plan_piece_min_k (const gt_plan *whole, size_t k);
/* The most k of a piece of a plan's product of depth k where a quarter
   of k falls under the plan's least and the caller does not cut A's
   columns into parts of its own (0: none beyond the quarter): for
   Gauss's three on kernel 11 a third of k, rounded down to whole parts
   of A made ahead (GT_OZ_A_PART), so that their pieces of
   GT_K11_PIECE_MIN_K go from k = 6144 on, three or more (complex single
   6144^3 and 7168^3 on one H200 then 0.96-0.97 of the time with panel 0
   whole: bench/RESULTS.md, "Gauss's three's A made ahead, merged").  */
size_t gt_plan_piece_max_k (const gt_plan *whole, size_t k);
/* Whether a product (m x n x k, streamed in panels of w columns) whose
   copies take copy_seconds gains by its first panel in pieces of plain
   kernel 9 (not split over k) where they are not its own kernel's:
   Gauss's three on kernel 9 (their sums through device memory), and a
   real product of one panel on kernel 11 or on kernel 9 split over k.
   Such pieces cost the GPU more than the panel whole, which pays only
   where the GPU's work, at the pieces' rate and with as many SMs as
   their tiles fill, is under half the copies' time (complex double
   256x100000x256, 4 tiles, 1.19x slower in pieces; 500x20000x800, 28
   tiles, 0.89-0.97x; single and double 2000x20000x2000 0.82-0.84x:
   bench/RESULTS.md).  Gauss's three on kernel 11: 1 where the product
   has several panels (gt_plan_head_pieces judges them), else 0.  0 for
   other plans.  (A split's band sharing A on Gauss's three on kernel 9
   goes by gt_plan_band_pieces instead.)  */
int gt_plan_pieces_pay (const gt_plan *whole, size_t m, size_t w, size_t n,
                        size_t k, double copy_seconds);
/* Whether a split's band sharing A whose plan is Gauss's three on kernel
   9 takes its panel 0 (m x w) in pieces of k: where that panel's tiles
   fill the GPU (its GPU would otherwise wait for all of A; the host
   layer asks only where the band has two panels or more).  */
int gt_plan_band_pieces (const gt_plan *whole, size_t m, size_t w);
/* How panel 0 of a product streamed in panels (m x w, depth k), whose A
   takes a_seconds to come in (its first piece's columns a_first_seconds,
   a panel's B b_panel_seconds), goes: GT_HEAD_PIECES (gt_plan_piece's
   pieces of kc9) always where the plan is complex but for Gauss's three
   on kernel 11 (gt_plan_pieces_pay judges those) or on any kernel but
   kernels 9 and 11.  Gauss's three on kernel 11 take pieces of kc9 where
   they are predicted to end panel 0 clearly sooner, a piece after the
   later of A and their GPU time from the first piece's arrival, with
   all of A's scan and slices for the panels after them (in the next
   panel, or made ahead beside the pieces), and where the
   later panels are not bound by B's copies.  A real product
   on kernel 9 takes them unless the panel whole is predicted to end
   clearly sooner after all of A (small k: each piece has a fixed cost
   beside its flops).  A real product on kernel 11 takes, of the panel
   whole (at A's arrival and a run of kernel 11 after it), plain kernel
   9's pieces of kc9 (several times slower than kernel 11,
   bench/RESULTS.md, "A band's pieces as they come") and kernel 11's own
   pieces of kc11 (gt_plan_piece_k11: each pays kernel 11's fixed costs
   and its sums' trips), the one predicted to end first: pieces end a
   piece after the later of A and their own GPU time.  0 for kc9 or
   kc11: not that kind.  */
enum { GT_HEAD_WHOLE = 0, GT_HEAD_PIECES = 1, GT_HEAD_K11_PIECES = 2 };
int gt_plan_head_pieces (const gt_plan *whole, size_t m, size_t w, size_t k,
                         size_t kc9, size_t kc11, double a_seconds,
                         double a_first_seconds, double b_panel_seconds);
/* The kernel time of a product (m x n x k) that a head of several
   panels in blocks of A's rows may take (the host layer's rule,
   gt_head_rule.c, weighs it against the copies), or 0 where its plan
   takes none: real plans (forced, they gained in some runs and lost in
   others: bench/RESULTS.md, "A head of panels in blocks of rows"), and
   kernel 11 (its every run scans and slices its whole B again).  */
double gt_plan_head_gpu_seconds (const gt_plan *whole, size_t m, size_t n,
                                 size_t k);
/* The kernel time of a product whose head of several panels may go in
   panel 0's pieces of k (gt_head_rule.c), or 0 where none may: real
   double plans on kernel 9, whose pieces are plain kernel 9 and whose
   later panels run kernel 9 too (kernel 11's real products run kernel
   9's pieces for panel 0 alone, complex plans Gauss's three; singles on
   kernel 9, whose pieces run widened and slower, were not measured).  */
double gt_plan_pieces_head_gpu_seconds (const gt_plan *whole, size_t m,
                                        size_t n, size_t k);
/* Kernel 11's pieces of a real single product: each scanned and sliced
   on its own, its sums carried in doubles (gt_k11_piece); at least this
   long, as each piece's fixed costs (its scans, the wait for their
   choice, its residues of C and the sums' trips: m x n bytes, not k) are
   paid once a piece.  */
#define GT_K11_PIECE_MIN_K 2048
gt_plan gt_plan_piece_k11 (size_t m, size_t n, size_t kc);
/* A made ahead during such pieces for the panels after them (whole, the
   panels' plan: kernel 11 keeping A; panels n wide), as gt_k11_a_ahead:
   the bytes at the start of the scratch it takes (the pieces' scratch
   then goes after them), 0 where the plan does not keep A or the pieces
   (kc of k) do not fall on whole parts (GT_OZ_A_PART); and its run for
   piece [k0, k1), after that piece's own, on the first panel's operands
   (`panel`: a complex plan's on A's planes of all of k, which the pieces
   made, gt_plan_prepare_a_piece).  Gauss's three on kernel 11 make each
   product's A in its own place of the panels' scratch.  */
size_t gt_plan_a_ahead_bytes (const gt_plan *whole, size_t m, size_t n,
                              size_t k, size_t kc);
cudaError_t gt_plan_a_ahead (const gt_plan *whole, const gt_gemm_args *panel,
                             size_t k0, size_t k1, int first, int last,
                             cudaStream_t s);
/* The same for a first panel run whole (no pieces), A's columns [k0, k1)
   made ahead as they arrive, in parts that start on whole parts of
   GT_OZ_A_PART (gt_plan_a_ahead_bytes of such a part), in any order
   (first, last: in the order run); the moduli the last product chose.  */
cudaError_t gt_plan_a_as_in (const gt_plan *whole, const gt_gemm_args *panel,
                             size_t k0, size_t k1, int first, int last,
                             cudaStream_t s);
/* All of A made ahead in that same place once it is all there, where the
   first panel ran pieces of another kernel (kernel 9's) and the panels
   after it keep A (gt_plan_a_ahead_bytes nonzero for the pieces' kc):
   queued after the last piece, it fills the GPU's wait for the next
   panel's B, which comes after all of A, with the scan and slices of A
   that the first whole panel would run after that B (bench/RESULTS.md,
   "A made ahead after kernel 9's pieces").  */
cudaError_t gt_plan_a_whole (const gt_gemm_args *panel, cudaStream_t s);
/* Nonzero where its pieces run the whole plan's own kernel and form
   (kernel 9 or kernel 4 with k not split: no cluster, small tiles or
   repacking; kernel 11's pieces run on kernel 9, kernel 5's and 8's on
   kernel 4), so that a product run only in pieces loses little speed
   to them (a tail of split tiles or strips beside kernel 9's tiles run
   as plain tiles); and Gauss's three on kernel 9 in any form, whose
   pieces are plain kernel 9 and go only where gt_plan_pieces_pay says.  */
int gt_plan_pieces_alike (const gt_plan *whole);
/* Nonzero where a run of p uses its scratch for nothing but what the
   next panel's run may keep (gt_gemm_args.a_kept): kernel 11 without
   strips, on a real product or on the planes of a complex one (whose
   splits and joins of B and C use scratch of their own; a run of the
   four products in one drops what the three kept).  */
int gt_plan_keeps_a (const gt_plan *p);
/* Nonzero where a run of p waits on the device before it has queued all
   of its work (kernel 11, for its scans' choice of moduli), and calls
   gt_gemm_args.idle there.  */
int gt_plan_waits (const gt_plan *p);
gt_plan gt_plan_piece (const gt_plan *whole, size_t m, size_t n, size_t kc);
cudaError_t gt_gemm_piece (const gt_plan *p, int first, int last,
                           const gt_gemm_args *a, cudaStream_t s);

/* What a device is, read once per device in one place (plan/gt_facts.cu)
   and used by the dispatcher and the kernels alike.  */
typedef struct
{
  int device;                 /* CUDA ordinal */
  int sms;                    /* multiprocessors */
  int cc_major, cc_minor;     /* compute capability */
  size_t smem_block_optin;    /* shared memory a block may ask for */
} gt_device_props;

/* The current device's, NULL where there is no current device.  */
const gt_device_props *gt_device_props_current (void);

/* The current device, as the plan layer and the kernels' per-device
   caches ask for it: while a plan is made (gt_planning_begin to _end, on
   this host thread) the device it is made for, without asking the CUDA
   runtime again (a plan asks dozens of times, 46 ns each on an H100
   host).  0 where there is no current device.  */
int gt_current_device (int *dev);
int gt_planning_begin (int dev);   /* returns what _end restores */
void gt_planning_end (int outer);

/* Where the dispatcher may choose kernel 11 (set by the host layer from
   GPU_TILED_EMULATE when it reads its options).  */
void gt_plan_set_emulation (int mode);
/* gt_reset: kernel 11's counts (gt_emulation_get) start again.  */
void gt_emulation_forget (void);

/* After a device reset: every kernel forgets what it cached per device
   (and the dispatcher its recent plans).  */
void gt_kernels_forget (void);
/* The dispatcher's recent plans are forgotten (what they were made from
   changed).  */
void gt_plans_forget (void);

/* The host layer's locked-operand probe: token stored from the device
   into words [b, e) of host memory the device maps (word 0 at word0,
   word i > 0 at first + (i - 1) * step, device addresses), queued on s
   (gt_tokens_write).  */
cudaError_t gt_plan_write_tokens (void *word0, void *first, size_t step,
                                  size_t b, size_t e, unsigned token,
                                  cudaStream_t s);

/* cudaSuccess when this build has a kernel image the current device can
   run; otherwise the error that says why.  */
cudaError_t gt_check_kernel_image (void);

/* Compute capabilities compiled into this build, e.g. "sm_75 sm_90".  */
const char *gt_build_archs (void);

/* ---- the registry: one row per kernel ---- */

#define GT_TYPE_BIT(t) (1u << (t))

/* Which products a kernel's default-path cost model is offered.  */
enum { GT_SHAPE_MATRIX = 1, GT_SHAPE_VECTOR = 2 };

typedef struct gt_kernel_row
{
  int id;                     /* gt_kernel_id */
  const char *name;
  unsigned types;             /* GT_TYPE_BIT of each type served */
  unsigned shapes;            /* GT_SHAPE_* the default path offers it */
  /* nonzero where it runs on the current device (NULL: wherever the
     build runs) */
  int (*usable) (void);
  /* scratch of a plan of it (NULL: none) */
  size_t (*work_bytes) (const gt_plan *p, size_t m, size_t n, size_t k,
                        int repack);
  cudaError_t (*launch) (const gt_plan *p, const gt_gemm_args *a,
                         cudaStream_t s);
  /* drops what it caches per device (NULL: nothing) */
  void (*forget) (void);
  /* the default path's cost model (plan/gt_costs.cu): its best plan for
     the shape in *p and that plan's cost; HUGE_VAL where it has none
     (NULL: never offered by the default path) */
  double (*propose) (gt_plan *p, size_t m, size_t n, size_t k, int repack);
} gt_kernel_row;

/* Nonzero where row r serves type t.  */
static inline int
gt_row_serves (const gt_kernel_row *r, gt_type t)
{
  return (unsigned) t < GT_TYPE_COUNT && (r->types & GT_TYPE_BIT (t));
}

/* The row of a kernel id, NULL where this build has none.  */
const gt_kernel_row *gt_registry_row (int id);
/* The rows, in the order the dispatcher tries them; *count set.  */
const gt_kernel_row *gt_registry_rows (int *count);

#ifdef __cplusplus
}
#endif

#endif
