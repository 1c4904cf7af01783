/* Running a plan: the registry row of its kernel launches it; where the
   plan leaves strips of C beside kernel 8's or 9's whole tiles, they run
   after it on the same stream (they share the scratch), with the plans
   gt_plan_strip made for them when the plan was chosen.  Also the pieces
   of k of the host path's first panel.  */

#include "gt_costs.h"
#include "gt_k11_ozaki.h"
#include "gt_launch.cuh"

/* The same operands, shifted to the block of C at (r0, c0) of size m x n:
   rows r0.. of A, columns c0.. of B.  */
static gt_gemm_args
block_of (const gt_gemm_args *a, gt_type type, size_t r0, size_t c0,
          size_t m, size_t n)
{
  const size_t es = gt_type_size (type);
  gt_gemm_args b = *a;
  b.A = (const char *) a->A + r0 * es;
  b.B = (const char *) a->B + c0 * a->ldb * es;
  b.C = (char *) a->C + (r0 + c0 * a->ldc) * es;
  b.m = m;
  b.n = n;
  b.rows_out = NULL;   /* the blocks of rows are the whole run's */
  return b;
}

static cudaError_t
run_with_strips (const gt_kernel_row *r, const gt_plan *p,
                 const gt_gemm_args *a, cudaStream_t s)
{
  const size_t er = (size_t) p->edge_rows, ec = (size_t) p->edge_cols;
  if (er > a->m || ec > a->n || (p->splits > 1 && (er || ec)))
    return cudaErrorInvalidValue;
  const size_t cm = a->m - er, cn = a->n - ec;
  const gt_gemm_args tiles = block_of (a, p->type, 0, 0, cm, cn);
  cudaError_t err = r->launch (p, &tiles, s);
  const int repack = gt_needs_repack (p->type, a->A, a->lda, a->B, a->ldb);
  if (err == cudaSuccess && er)
    {
      const gt_plan e = gt_plan_strip (p->type, er, a->n, a->k, repack, NULL);
      const gt_gemm_args rows = block_of (a, p->type, cm, 0, er, a->n);
      err = gt_gemm_run (&e, &rows, s);
    }
  if (err == cudaSuccess && ec && cm)
    {
      const gt_plan e = gt_plan_strip (p->type, cm, ec, a->k, repack, NULL);
      const gt_gemm_args cols = block_of (a, p->type, 0, cn, cm, ec);
      err = gt_gemm_run (&e, &cols, s);
    }
  return err;
}

extern "C" size_t
gt_three_layout (gt_type r, size_t m, size_t n, size_t k, size_t *b_off,
                 size_t *p_off)
{
  const size_t es = gt_type_size (r);
  const size_t b3 = gt_bytes_256 (r, gt_ld_16 (es, k) * 3 * n);
  const size_t b4 = gt_bytes_256 (r, gt_ld_16 (es, 2 * k) * 2 * n);
  *b_off = 256;
  *p_off = *b_off + (b3 > b4 ? b3 : b4);
  return *p_off + gt_bytes_256 (r, gt_ld_16 (es, m) * 3 * n);
}

extern "C" int *
gt_three_a_flag (gt_type r, const void *planes, size_t ld, size_t k)
{
  return (int *) ((char *) planes + gt_bytes_256 (r, ld * 3 * k));
}

/* A plan run by kernel 11's launch alone, no strips beside its tiles
   (gt_k11_launch_many's products; gt_plan_keeps_a).  */
static int
k11_alone (const gt_plan *p)
{
  return p->kernel == GT_K11_OZAKI && !p->edge_rows && !p->edge_cols;
}

/* The four products in one where A's or B's planes hold a part that is
   not finite, or parts whose sum overflows (the three would turn such
   Inf into NaN): [Ar Ai] (A's first two planes) times [Br Bi; -Bi Br] is
   [Cr Ci].  */
static cudaError_t
run_four_in_one (gt_type r, const gt_gemm_args *a, char *bp, char *pp,
                 size_t ldp, char *w, cudaStream_t s)
{
  const size_t es = gt_type_size (r), ldb = gt_ld_16 (es, 2 * a->k);
  gt_k11_drop_kept ();   /* the four's run takes the three's scratch */
  cudaError_t err = gt_planes_split (r, GT_PLANES_COLS | GT_PLANES_EXPAND,
                                     a->B, a->ldb, bp, ldb, a->k, a->n, NULL,
                                     s);
  const gt_plan four = gt_plan_four (r, a->m, a->n, a->k);
  const gt_gemm_args g = { a->A, a->lda, bp, ldb, pp, ldp, a->m, 2 * a->n,
                           2 * a->k, w };
  if (err == cudaSuccess)
    err = gt_gemm_run (&four, &g, s);
  if (err == cudaSuccess)
    err = gt_planes_join (r, GT_PLANES_COLS, pp, ldp, a->C, a->ldc, a->m,
                          a->n, s);
  return err;
}

/* How many columns apart A's planes lie: those of all of k
   (a->a_planes_k) where a piece's planes lie in that layout, else its own
   k.  */
static size_t
planes_apart (const gt_gemm_args *a)
{
  return a->a_planes_k ? a->a_planes_k : a->k;
}

/* Gauss's three's parts of a scratch from base, laid out for an m x n
   product of depth k (gt_three_layout): B's planes bp (ld ldb), the
   products' planes pp (ld ldp), and after them the rest (the real plan's
   scratch: kernel 11's places of A among it).  */
typedef struct
{
  char *bp, *pp, *rest;
  size_t ldb, ldp;
} three_parts;

static three_parts
three_parts_at (gt_type r, char *base, size_t m, size_t n, size_t k)
{
  const size_t es = gt_type_size (r);
  size_t b_off, p_off;
  const size_t rest = gt_three_layout (r, m, n, k, &b_off, &p_off);
  const three_parts t = { base + b_off, base + p_off, base + rest,
                          gt_ld_16 (es, k), gt_ld_16 (es, m) };
  return t;
}

/* The operands of Gauss's three products: A's plane j (of a->A, ld
   a->lda), B's plane j and product j's plane in t's parts, each product
   with its own place of A in the scratch work.  */
static void
three_operands (const gt_gemm_args *a, size_t es, const three_parts *t,
                void *work, gt_gemm_args g[3])
{
  const size_t apart = planes_apart (a);
  for (int j = 0; j < 3; j++)
    {
      const gt_gemm_args gj = {
        (const char *) a->A + (size_t) j * apart * a->lda * es, a->lda,
        t->bp + (size_t) j * a->n * t->ldb * es, t->ldb,
        t->pp + (size_t) j * a->n * t->ldp * es, t->ldp, a->m, a->n, a->k,
        work, NULL, a->a_kept, j, 3, NULL, NULL };
      g[j] = gj;
    }
}

/* The join of Gauss's three by blocks of rows, each block's after the
   last product's block (gt_gemm_args.rows_out of that product), then the
   caller's block done.  */
typedef struct
{
  gt_rows_out out;     /* the last product's */
  gt_rows_out *outer;  /* the caller's */
  gt_type r;
  const three_parts *t;
  const gt_gemm_args *a;
} three_rows;

static cudaError_t
three_join_rows (void *arg, int b, cudaStream_t s)
{
  const three_rows *x = (const three_rows *) arg;
  const gt_gemm_args *a = x->a;
  const size_t es = gt_type_size (x->r);
  size_t r0, r1;
  gt_rows_block (a->m, x->out.blocks, b, &r0, &r1);
  cudaError_t err = gt_planes_join3 (
    x->r, x->t->pp + r0 * es, x->t->ldp, (const char *) a->A + r0 * es,
    a->lda, x->t->bp, x->t->ldb, a->k, (char *) a->C + 2 * r0 * es, a->ldc,
    r1 - r0, a->n, NULL, s);
  x->outer->by_rows = x->out.by_rows;
  return err == cudaSuccess ? gt_rows_out_next (x->outer, s) : err;
}

/* Gauss's three products (p->three): B's planes [Br Bi Br+Bi], the
   products of A's three planes by them into [T1 T2 T3], joined into C.
   The real plan is the same for all three; they run in turn on s and
   share its scratch (gt_three_layout), kernel 11's scanned first, all
   three (gt_k11_launch_many).  Whether an operand holds Inf, NaN
   or parts whose sum overflows is learnt from the splits: with a->checks,
   left in that word for the caller; else by a wait on the device (what
   runs next depends on it), and then the four products in one run
   instead.  */
static cudaError_t
run_three (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  const gt_type r = gt_type_real (p->type);
  const size_t es = gt_type_size (r);
  gt_plan rp = *p;
  rp.type = r;
  rp.complex_a = rp.complex_b = rp.three = 0;
  const three_parts t = three_parts_at (r, (char *) a->work, a->m, a->n,
                                        a->k);
  int *flag_b = a->checks ? a->checks : (int *) a->work;
  const int *flags[2] = { gt_three_a_flag (r, a->A, a->lda, a->k), flag_b };
  int seen[2] = { 0, 0 };
  cudaError_t err = a->checks ? cudaSuccess
                              : cudaMemsetAsync (flag_b, 0, sizeof (int), s);
  if (err == cudaSuccess)
    err = gt_planes_split (r, GT_PLANES_COLS | GT_PLANES_SUM, a->B, a->ldb,
                           t.bp, t.ldb, a->k, a->n, flag_b, s);
  /* the caller's word carries A's flag too; else wait for both here */
  if (err == cudaSuccess)
    err = a->checks ? gt_planes_flag_or (a->checks, flags[0], s)
                    : gt_plan_read_back (flags, 2, seen, s);
  if (err != cudaSuccess)
    return err;
  if (seen[0] || seen[1])
    return run_four_in_one (r, a, t.bp, t.pp, t.ldp, t.rest, s);
  static_assert (GT_A_SLOTS >= 3, "a place of A for each product");
  gt_gemm_args g[3];
  three_operands (a, es, &t, t.rest, g);
  g[0].idle = a->idle;
  g[0].idle_arg = a->idle_arg;
  /* kernel 11's three wait once for their scans, not once each */
  const int together = k11_alone (&rp);
  three_rows rows = { { 0, three_join_rows, NULL, 0, 0 }, a->rows_out, r,
                      &t, a };
  rows.out.arg = &rows;
  if (together && a->rows_out && a->rows_out->called == 0)
    {
      rows.out.blocks = a->rows_out->blocks;
      g[2].rows_out = &rows.out;
    }
  if (together)
    err = gt_k11_launch_many (g, 3, s);
  for (int j = 0; j < 3 && err == cudaSuccess && !together; j++)
    err = gt_gemm_run (&rp, &g[j], s);
  if (err == cudaSuccess && rows.out.called == 0)
    err = gt_planes_join3 (r, t.pp, t.ldp, a->A, a->lda, t.bp, t.ldb, a->k,
                           a->C, a->ldc, a->m, a->n, NULL, s);
  return err;
}

/* The sums of Gauss's three products' pieces of k, one m x n of doubles
   each (as kernel 9's pieces carry theirs), first in the scratch, before
   the three's layout (gt_three_layout), which moves with each piece's
   k.  */
static size_t
three_sums_bytes (size_t m, size_t n)
{
  return 3 * gt_bytes_256 (GT_DOUBLE, m * n);
}

/* Gauss's three of complex singles on kernel 11 take pieces of k too,
   each of the three scanned and sliced on its piece alone
   (gt_k11_piece_sums), where gt_plan_head_pieces predicts them to end
   panel 0 sooner than the panel whole after A.  */
static int
three_k11_pieces (const gt_plan *p)
{
  return p->three && p->kernel == GT_K11_OZAKI
         && gt_type_real (p->type) == GT_SINGLE;
}

/* A piece of k of Gauss's three products on kernel 9 or kernel 11
   (gt_plan_piece): a->A holds the planes of A's piece (gt_plan_prepare_a
   of its columns, or its columns of the planes of all of k,
   a->a_planes_k: gt_plan_prepare_a_piece), a->B the piece's rows of B.
   Each of the three carries its sums in its own part of the scratch
   (kernel 11's scratch for the piece after the three's layout); the last
   piece's products give [T1 T2 T3] and C.  On kernel 11 the first
   product's wait for its scan's choice takes the caller's host work
   (a->idle: the next piece's copies in).
   What run_three waits for or takes four products for goes to
   a->checks instead (required), and the caller runs the product again,
   whole: operands with Inf, NaN or parts whose sum overflows, and any
   element whose T is not finite (join3 would need all of k there).  */
static cudaError_t
run_three_piece (const gt_plan *p, int first, int last,
                 const gt_gemm_args *a, cudaStream_t s)
{
  if (!a->checks || a->a_kept)
    return cudaErrorInvalidValue;
  const gt_type r = gt_type_real (p->type);
  const size_t es = gt_type_size (r);
  /* the sums first: the rest of the layout moves with the piece's k
     (kernel 11's scratch for the piece after the three's parts) */
  char *sums = (char *) a->work;
  const three_parts t = three_parts_at (r, sums + three_sums_bytes (a->m,
                                                                    a->n),
                                        a->m, a->n, a->k);
  gt_gemm_args g[3];
  three_operands (a, es, &t, NULL, g);
  cudaError_t err = gt_planes_split (r, GT_PLANES_COLS | GT_PLANES_SUM,
                                     a->B, a->ldb, t.bp, t.ldb, a->k, a->n,
                                     a->checks, s);
  /* A's flag: its planes' own, or (laid out for all of k) the one the
     pieces so far have set */
  const char *planes0 = (const char *) a->A - a->a_planes_k0 * a->lda * es;
  if (err == cudaSuccess)
    err = gt_planes_flag_or (a->checks,
                             gt_three_a_flag (r, planes0, a->lda,
                                              planes_apart (a)), s);
  const gt_plan p9 = gt_plan_make (r, GT_K9_DMMA);
  const int k11 = three_k11_pieces (p);
  for (int j = 0; j < 3 && err == cudaSuccess; j++)
    {
      double *part = (double *) (sums + j * gt_bytes_256 (GT_DOUBLE,
                                                          a->m * a->n));
      if (k11)
        {
          if (j == 0)
            {
              g[j].idle = a->idle;
              g[j].idle_arg = a->idle_arg;
            }
          g[j].a_slot = 0;
          g[j].a_slots = 1;
          err = gt_k11_piece_sums (first, last, &g[j], part, t.rest, j, s);
        }
      else
        err = gt_k9_row_piece (&p9, &g[j], first ? NULL : part,
                               last ? NULL : part, s);
    }
  /* join3 reads A's planes only where its word is NULL (never here: the
     checks are required), so a->A and a->k stand in for the piece's */
  if (err == cudaSuccess && last)
    err = gt_planes_join3 (r, t.pp, t.ldp, a->A, a->lda, t.bp, t.ldb, a->k,
                           a->C, a->ldc, a->m, a->n, a->checks, s);
  return err;
}

/* A complex plan (gt_plan_mixed): B's planes where B is complex, the real
   product of the planes into P, P interleaved into C.  a->A holds A's
   planes (gt_plan_prepare_a) or A itself where it is real; the scratch
   [B planes][P][the real plan's].  */
static cudaError_t
run_planes (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  if (p->three)
    return run_three (p, a, s);
  const gt_type r = gt_type_real (p->type);
  const int ca = p->complex_a, cb = p->complex_b;
  const size_t m2 = ca ? 2 * a->m : a->m, k2 = ca && cb ? 2 * a->k : a->k;
  const size_t n2 = ca ? a->n : 2 * a->n;
  const int mode = ca ? GT_PLANES_ROWS : GT_PLANES_COLS;
  gt_plan rp = *p;
  rp.type = r;
  rp.complex_a = rp.complex_b = 0;
  char *w = (char *) a->work;
  const size_t es = gt_type_size (r);
  gt_gemm_args g = { a->A, a->lda, a->B, a->ldb, NULL, gt_ld_16 (es, m2),
                     m2, n2, k2, NULL, NULL, a->a_kept, 0, 0, a->idle,
                     a->idle_arg };
  cudaError_t err = cudaSuccess;
  if (cb)
    {
      g.B = w;
      g.ldb = gt_ld_16 (es, k2);
      err = gt_planes_split (r, mode, a->B, a->ldb, w, g.ldb, a->k, a->n,
                             NULL, s);
      w += gt_bytes_256 (r, g.ldb * n2);
    }
  g.C = w;
  g.work = w + gt_bytes_256 (r, g.ldc * n2);
  if (err == cudaSuccess)
    err = gt_gemm_run (&rp, &g, s);
  if (err == cudaSuccess)
    err = gt_planes_join (r, mode, g.C, g.ldc, a->C, a->ldc, a->m, a->n, s);
  return err;
}

static cudaError_t
run_any (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  if ((unsigned) p->type >= GT_TYPE_COUNT)
    return cudaErrorInvalidValue;
  if (p->complex_a || p->complex_b)
    return run_planes (p, a, s);
  const gt_kernel_row *r = gt_registry_row (p->kernel);
  if (!r || !gt_row_serves (r, p->type))
    return cudaErrorInvalidValue;
  if (p->edge_rows || p->edge_cols)
    return run_with_strips (r, p, a, s);
  return r->launch (p, a, s);
}

/* Every path of a run ends with all of C's blocks of rows done
   (gt_rows_out): those that took no blocks, at their end.  */
extern "C" cudaError_t
gt_gemm_run (const gt_plan *p, const gt_gemm_args *a, cudaStream_t s)
{
  cudaError_t err = run_any (p, a, s);
  if (err == cudaSuccess && a->rows_out)
    err = gt_rows_out_rest (a->rows_out, s);
  return err;
}

extern "C" int
gt_plan_rows_out (const gt_plan *p, size_t m, size_t w)
{
  const double bytes = (double) m * w * gt_type_size (p->type);
  return k11_alone (p) && p->three && m >= GT_ROWS_OUT_MIN_ROWS
         && bytes >= GT_ROWS_OUT_MIN_BYTES ? GT_ROWS_OUT_BLOCKS : 0;
}

extern "C" void
gt_rows_block (size_t m, int blocks, int b, size_t *r0, size_t *r1)
{
  const size_t tile = GT_OZ_TILE_M;
  const size_t per = (m + blocks - 1) / blocks;
  const size_t rows = (per + tile - 1) / tile * tile;
  *r0 = (size_t) b * rows < m ? (size_t) b * rows : m;
  *r1 = b + 1 < blocks && *r0 + rows < m ? *r0 + rows : m;
}

extern "C" cudaError_t
gt_rows_out_next (gt_rows_out *o, cudaStream_t s)
{
  if (o->called >= o->blocks)
    return cudaErrorInvalidValue;
  const cudaError_t err = o->done (o->arg, o->called, s);
  o->called++;
  return err;
}

extern "C" cudaError_t
gt_rows_out_rest (gt_rows_out *o, cudaStream_t s)
{
  cudaError_t err = cudaSuccess;
  while (err == cudaSuccess && o->called < o->blocks)
    err = gt_rows_out_next (o, s);
  return err;
}

/* Gauss's three products on kernel 9, whose pieces run plain kernel 9
   (no splits of k, clusters or small tiles, as gt_plan_piece makes real
   kernel 9 pieces), and on kernel 11 (three_k11_pieces), each of whose
   runs has a fixed cost (its scans, the wait for their choice, some
   twenty launches for the three): in pieces only where panel 0's work
   is large (gt_plan_head_pieces; bench/RESULTS.md, "Complex products in
   pieces of k" and "Complex single's first panel in kernel 11's
   pieces").  */
static int
three_pieces (const gt_plan *p)
{
  return p->three && (p->kernel == GT_K9_DMMA || three_k11_pieces (p));
}

extern "C" int
gt_plan_has_pieces (const gt_plan *whole)
{
  if (whole->complex_a || whole->complex_b)
    return three_pieces (whole);
  return whole->kernel == GT_K9_DMMA || whole->type == GT_SINGLE;
}

/* Plain kernel 9 with every SM busy, in flop/s of the product: Gauss's
   three, of 8 m n k (77 at 8192^3 on an H100, bench/RESULTS.md), and a
   real product, of 2 m n k (singles widened: 57; doubles 45-55).  */
#define THREE_PIECES_RATE 75e12
#define K9_PIECES_RATE 50e12

/* The share of SMs that plain kernel 9's tiles of an m x w panel fill.  */
static double
pieces_busy (size_t m, size_t w)
{
  const gt_device_props *d = gt_device_props_current ();
  const double sms = d ? d->sms : 132;
  const double tiles = (double) gt_ceil_div (m, GT_K9_TILE)
                       * (double) gt_ceil_div (w, GT_K9_TILE);
  return tiles < sms ? tiles / sms : 1.0;
}

extern "C" int
gt_plan_pieces_pay (const gt_plan *whole, size_t m, size_t w, size_t n,
                    size_t k, double copy_seconds)
{
  const int complex_plan = whole->complex_a || whole->complex_b;
  if (complex_plan ? !three_pieces (whole)
                   : whole->kernel != GT_K9_DMMA
                     && whole->kernel != GT_K11_OZAKI)
    return 0;
  if (three_k11_pieces (whole))
    return w < n;   /* gt_plan_head_pieces judged panel 0's pieces */
  const double busy = pieces_busy (m, w);
  const double seconds = complex_plan
                         ? 8.0 * m * n * k / (THREE_PIECES_RATE * busy)
                         : 2.0 * m * n * k / (K9_PIECES_RATE * busy);
  return seconds < 0.5 * copy_seconds;
}

/* A split's band sharing A, on Gauss's three on kernel 9: its panel 0's
   pieces run plain kernel 9 on the panel's tiles, which must fill about
   this share of the SMs: complex double 4096^3 to 16384^3 split over two
   H200s (128 tiles of 132 SMs and more) took 0.92-0.97 of the time in
   pieces, 2000x20000x2000 (eighths of 256 columns: 32 tiles) 1.225
   (bench/RESULTS.md, "Complex double's bands in pieces").  */
#define BAND_PIECES_FILL 0.9

extern "C" int
gt_plan_band_pieces (const gt_plan *whole, size_t m, size_t w)
{
  return whole->three && whole->kernel == GT_K9_DMMA
         && pieces_busy (m, w) >= BAND_PIECES_FILL;
}

/* Plain kernel 9's pieces of a real single panel (singles widened, 512
   of k a piece, the sums in doubles through device memory): 32 TFLOP/s of
   2 m w k on an H200, where kernel 11 ran the same panel whole at 168
   (16384 x 2048 x 16384: bench/RESULTS.md, "A band's pieces as they
   come").  */
#define K9_SINGLE_PIECES_RATE 32e12

/* The end of a head of `count` pieces of `each` seconds on the GPU,
   after A's arrival at a_seconds: where the pieces keep up with A, its
   last piece after A; else their own time.  */
static double
head_end (double count, double each, double a_seconds)
{
  const double all = count * each;
  return (all > a_seconds ? all : a_seconds) + each;
}

/* What a piece of plain kernel 9 costs beyond its flops at the pieces'
   rate: its launch, the round's fill, and its sums' trip through device
   memory (single 3000x700x5000's pieces of 160 took 70-78 us each, where
   their flops at K9_SINGLE_PIECES_RATE are 30: bench/RESULTS.md, "The
   first panel whole where A comes in fast").  */
#define K9_PIECE_FIXED_SECONDS 45e-6

/* The panel whole must be predicted to end this much sooner than its
   pieces: at single 3000x1500x5000 the model put it 4% sooner and it
   took 2% longer; at 3000x700x5000, 37% sooner, it took 3% less
   (bench/RESULTS.md, "The first panel whole where A comes in fast").  */
#define K9_WHOLE_MARGIN 1.25

/* The end of an m x w panel's head in plain kernel 9's pieces of kc9 of
   its k (HUGE_VAL: no pieces), each its flops at `rate` on the SMs its
   tiles fill and `fixed` seconds more.  */
static double
k9_pieces_end (size_t m, size_t w, size_t k, size_t kc9, double rate,
               double fixed, double a_seconds)
{
  if (!kc9)
    return HUGE_VAL;
  const double each = 2.0 * m * w * kc9 / (rate * pieces_busy (m, w))
                      + fixed;
  return head_end ((double) k / kc9, each, a_seconds);
}

/* A real panel on kernel 9: in pieces unless the panel whole is
   predicted to end clearly sooner after all of A.  Where A comes in
   fast (small k), the pieces' fixed costs outrun it.  */
static int
k9_head_pieces (const gt_plan *whole, size_t m, size_t w, size_t k,
                size_t kc9, double a_seconds)
{
  if (!kc9)
    return GT_HEAD_PIECES;
  const double whole_end
    = a_seconds + 2.0 * m * w * k / (K9_PIECES_RATE * pieces_busy (m, w));
  const double rate = whole->type == GT_SINGLE ? K9_SINGLE_PIECES_RATE
                                               : K9_PIECES_RATE;
  return K9_WHOLE_MARGIN * whole_end
         < k9_pieces_end (m, w, k, kc9, rate, K9_PIECE_FIXED_SECONDS,
                          a_seconds)
         ? GT_HEAD_WHOLE : GT_HEAD_PIECES;
}

/* Complex singles' pieces on kernel 11's three (gt_k11_piece_sums):
   each cost this many times its share of k of the panel whole, A's
   scan and slices included (16384 x 1024 x 2048: 2.75 ms a piece where
   the panel whole took 14.6; 8192 x 1024 x 2048: 1.4 against 3.8), and
   all of A's scan and slices for the panels, about this share of a
   panel: in the first whole panel after them in a band sharing A, else
   made ahead beside the pieces (three_a_ahead_layout), counted here
   after the pieces either way (bench/RESULTS.md, "Complex single's
   first panel in kernel 11's pieces").  */
#define K11_THREE_PIECE_COST 1.5
#define K11_THREE_A_AGAIN 0.25
/* The pieces must be predicted to end this much sooner than the panel
   whole: complex single 8192^3 split over two H200s, predicted level
   with the panel whole, took 1.6% longer in pieces.  */
#define K11_THREE_MARGIN 1.05
/* Where a panel's B takes half the panel's kernel time to come in or
   more, the panels after the first are bound by B's copies, which
   pieces do not shorten (2000x20000x2000 took 1.4% longer in them).  */
#define K11_THREE_B_SHARE 0.5

/* Panel 0 of Gauss's three on kernel 11 in pieces of kc as A arrives
   (the first piece's columns in at a_first_seconds, all of A at
   a_seconds), or whole after A.  */
static int
k11_three_head (size_t m, size_t w, size_t k, size_t kc, double a_seconds,
                double a_first_seconds, double b_panel_seconds)
{
  if (!kc)
    return GT_HEAD_WHOLE;
  const double panel = 3.0 * gt_k11_seconds (m, w, k);
  if (b_panel_seconds >= K11_THREE_B_SHARE * panel)
    return GT_HEAD_WHOLE;
  const double count = ceil ((double) k / kc);
  const double each = K11_THREE_PIECE_COST * panel * kc / k;
  const double by_gpu = a_first_seconds + count * each;
  const double pieces_end = (by_gpu > a_seconds + each ? by_gpu
                                                       : a_seconds + each)
                            + K11_THREE_A_AGAIN * panel;
  return K11_THREE_MARGIN * pieces_end < a_seconds + panel ? GT_HEAD_PIECES
                                                          : GT_HEAD_WHOLE;
}

extern "C" int
gt_plan_head_pieces (const gt_plan *whole, size_t m, size_t w, size_t k,
                     size_t kc9, size_t kc11, double a_seconds,
                     double a_first_seconds, double b_panel_seconds)
{
  if (three_k11_pieces (whole))
    return k11_three_head (m, w, k, kc9, a_seconds, a_first_seconds,
                           b_panel_seconds);
  if (whole->complex_a || whole->complex_b)
    return GT_HEAD_PIECES;
  if (whole->kernel == GT_K9_DMMA)
    return k9_head_pieces (whole, m, w, k, kc9, a_seconds);
  if (whole->kernel != GT_K11_OZAKI)
    return GT_HEAD_PIECES;
  const double whole_end = a_seconds + gt_k11_seconds (m, w, k);
  const double k9_end = k9_pieces_end (m, w, k, kc9, K9_SINGLE_PIECES_RATE,
                                       0, a_seconds);
  const double k11_end = kc11 ? head_end ((double) k / kc11,
                                          gt_k11_piece_seconds (m, w, kc11),
                                          a_seconds)
                              : HUGE_VAL;
  if (k11_end < k9_end && k11_end < whole_end)
    return GT_HEAD_K11_PIECES;
  return k9_end < whole_end ? GT_HEAD_PIECES : GT_HEAD_WHOLE;
}

extern "C" double
gt_plan_head_gpu_seconds (const gt_plan *whole, size_t m, size_t n, size_t k)
{
  if (!(whole->complex_a && whole->complex_b)
      || whole->kernel == GT_K11_OZAKI)
    return 0;
  return 8.0 * m * n * k / THREE_PIECES_RATE;
}

extern "C" double
gt_plan_pieces_head_gpu_seconds (const gt_plan *whole, size_t m, size_t n,
                                 size_t k)
{
  if (whole->complex_a || whole->complex_b || whole->kernel != GT_K9_DMMA
      || whole->type != GT_DOUBLE)
    return 0;
  return 2.0 * m * n * k / K9_PIECES_RATE;
}

extern "C" size_t
gt_plan_piece_min_k (const gt_plan *whole, size_t k)
{
  if (!three_pieces (whole))
    return 0;
  if (three_k11_pieces (whole))
    return k / 8 > GT_K11_PIECE_MIN_K ? k / 8 : GT_K11_PIECE_MIN_K;
  const size_t part = k / GT_THREE_PIECES;
  return part > GT_THREE_PIECE_MIN_K ? part : GT_THREE_PIECE_MIN_K;
}

extern "C" size_t
gt_plan_piece_max_k (const gt_plan *whole, size_t k)
{
  if (!three_k11_pieces (whole))
    return 0;
  static_assert (GT_OZ_A_PART % GT_PIECE_K == 0, "parts of whole pieces");
  return k / 3 / GT_OZ_A_PART * GT_OZ_A_PART;
}

extern "C" int
gt_plan_pieces_alike (const gt_plan *whole)
{
  if (whole->complex_a || whole->complex_b)
    return three_pieces (whole);
  /* gt_plan_piece makes plain kernel 9 (or kernel 4) pieces */
  return gt_plan_has_pieces (whole) && whole->splits <= 1
         && !whole->cluster && !whole->repacked && !whole->k9_tile
         && !whole->streamk
         && (whole->kernel == GT_K9_DMMA || whole->kernel == GT_K4_ASYNC);
}

extern "C" int
gt_plan_waits (const gt_plan *p)
{
  return p->kernel == GT_K11_OZAKI;
}

extern "C" int
gt_plan_keeps_a (const gt_plan *p)
{
  return k11_alone (p);
}

/* Kernel 11's scan of a panel needs all of k: here its pieces are kernel
   9's (the first panel then runs as A arrives, the others emulated);
   kernel 11's own pieces, each scanned apart, are gt_plan_piece_k11's.  */
extern "C" gt_plan
gt_plan_piece (const gt_plan *whole, size_t m, size_t n, size_t kc)
{
  if (three_pieces (whole))
    {
      /* [three sums][three's layout]; no room for the four in one,
         which the pieces never run */
      gt_plan p = *whole;
      size_t b_off, p_off;
      p.work_bytes = three_sums_bytes (m, n)
                     + gt_three_layout (gt_type_real (whole->type), m, n, kc,
                                        &b_off, &p_off);
      if (three_k11_pieces (whole))
        p.work_bytes += gt_k11_piece_scratch (m, n, kc);
      return p;
    }
  if (whole->kernel == GT_K9_DMMA || whole->kernel == GT_K11_OZAKI)
    {
      gt_plan p = gt_plan_make (whole->type, GT_K9_DMMA);
      p.work_bytes = m * n * sizeof (double);
      return p;
    }
  return gt_cost_choose_k4 (whole->type, m, n, kc, -1, 1, 0, NULL);
}

extern "C" gt_plan
gt_plan_piece_k11 (size_t m, size_t n, size_t kc)
{
  gt_plan p = gt_plan_make (GT_SINGLE, GT_K11_OZAKI);
  p.work_bytes = gt_k11_piece_work (m, n, kc);
  return p;
}

extern "C" size_t
gt_plan_a_ahead_bytes (const gt_plan *whole, size_t m, size_t n, size_t k,
                       size_t kc)
{
  /* the three's places of A in the panels' kernel 11 scratch, which lies
     after the three's own layout (run_three) */
  if (three_k11_pieces (whole) && k11_alone (whole))
    {
      const size_t part = gt_k11_a_ahead_bytes (m, k, kc);
      size_t b_off, p_off;
      return part ? gt_three_layout (GT_SINGLE, m, n, k, &b_off, &p_off)
                    + 3 * part
                  : 0;
    }
  if (!k11_alone (whole) || whole->complex_a || whole->complex_b
      || whole->type != GT_SINGLE)
    return 0;
  return gt_k11_a_ahead_bytes (m, k, kc);
}

typedef cudaError_t (*a_ahead_fn) (const gt_gemm_args *, size_t, size_t, int,
                                   int, cudaStream_t);

/* A's columns [k0, k1) made ahead by `make` for a panel of whole's plan:
   Gauss's three each product's A where run_three's products will look for
   it.  */
static cudaError_t
a_ahead_each (a_ahead_fn make, const gt_plan *whole,
              const gt_gemm_args *panel, size_t k0, size_t k1, int first,
              int last, cudaStream_t s)
{
  if (!three_k11_pieces (whole))
    return make (panel, k0, k1, first, last, s);
  const three_parts t = three_parts_at (GT_SINGLE, (char *) panel->work,
                                        panel->m, panel->n, panel->k);
  gt_gemm_args g[3];
  three_operands (panel, gt_type_size (GT_SINGLE), &t, t.rest, g);
  cudaError_t err = cudaSuccess;
  for (int j = 0; j < 3 && err == cudaSuccess; j++)
    err = make (&g[j], k0, k1, first, last, s);
  return err;
}

extern "C" cudaError_t
gt_plan_a_ahead (const gt_plan *whole, const gt_gemm_args *panel, size_t k0,
                 size_t k1, int first, int last, cudaStream_t s)
{
  return a_ahead_each (gt_k11_a_ahead, whole, panel, k0, k1, first, last, s);
}

extern "C" cudaError_t
gt_plan_a_as_in (const gt_plan *whole, const gt_gemm_args *panel, size_t k0,
                 size_t k1, int first, int last, cudaStream_t s)
{
  return a_ahead_each (gt_k11_a_as_in, whole, panel, k0, k1, first, last, s);
}

extern "C" cudaError_t
gt_plan_a_whole (const gt_gemm_args *panel, cudaStream_t s)
{
  return gt_k11_a_whole (panel, s);
}

extern "C" cudaError_t
gt_gemm_piece (const gt_plan *p, int first, int last, const gt_gemm_args *a,
               cudaStream_t s)
{
  if (p->kernel == GT_K11_OZAKI && !p->complex_a && !p->complex_b)
    return gt_k11_piece (first, last, a, s);
  if (three_pieces (p))
    return run_three_piece (p, first, last, a, s);
  if (p->kernel == GT_K9_DMMA)
    {
      if (!(first && last) && !a->work)
        return cudaErrorInvalidValue;
      double *part = (double *) a->work;
      return gt_k9_row_piece (p, a, first ? NULL : part, last ? NULL : part,
                              s);
    }
  if (p->type != GT_SINGLE || p->kernel != GT_K4_ASYNC || p->splits != 1)
    return first && last ? gt_gemm_run (p, a, s) : cudaErrorInvalidValue;
  return gt_k4_async (p->k4_config, 1, 0, !first, (const float *) a->A, a->lda,
                      (const float *) a->B, a->ldb, (float *) a->C, a->ldc,
                      a->m, a->n, a->k, a->work, s);
}

extern "C" cudaError_t
gt_plan_write_tokens (void *word0, void *first, size_t step, size_t b,
                      size_t e, unsigned token, cudaStream_t s)
{
  return gt_tokens_write (word0, first, step, b, e, token, s);
}
