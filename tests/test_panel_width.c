/* test_panel_width.c -- the plan layer's panel widths of a product streamed
   from the host (gt_panel_width, src/plan/gt_dispatch.cu): real products
   off kernel 11 in eighths of n at most where the caller says narrow, and
   not where an eighth is under a tile, where the eighth's plan splits k,
   below 32 MiB, for a given tile or for complex products; and the
   first panel's blocks of A's rows (gt_panel_rows); a complex product's
   panels in eighths (gt_panel_eighths); whether complex singles on
   kernel 11 take panel 0 in pieces (gt_plan_head_pieces); whether a
   split's complex double band does (gt_plan_band_pieces).  Needs no GPU:
   without one the plan layer takes the facts of a 132-SM Hopper; with one,
   its own, so every check holds for any device's facts.  Linked with the
   library's objects as test_device is.  Prints "N passed, N failed".  */

#include <stdio.h>
#include "gpu_tiled.h"
#include "gt_plan.h"
#include "test_check.h"

#define MAX_PANELS 64

/* The host layer's rate for the copies the head rule weighs
   (PIECES_HOST_RATE in gt_layout.c), complex single's 8 bytes.  */
#define HOST_RATE 47e9
#define CS_BYTES 8.0

/* gt_plan_head_pieces for Gauss's three on kernel 11: panel 0 (m x w,
   depth k) in pieces of kc, A's share `parts` (a band sharing A: 2) at
   the host's rate.  */
static int
k11_three_head (const gt_plan *c11, size_t m, size_t w, size_t k, size_t kc,
                int parts)
{
  const double a = CS_BYTES * m * k / parts / HOST_RATE;
  const double first = CS_BYTES * m * kc / HOST_RATE;
  const double b = CS_BYTES * k * w / HOST_RATE;
  return gt_plan_head_pieces (c11, m, w, k, kc, 0, a, first, b);
}

static size_t
width (gt_type t, size_t m, size_t k, size_t n, int narrow)
{
  return gt_panel_width (t, m, n, k, GT_TILE_DEFAULT, MAX_PANELS, narrow);
}

/* gt_panel_eighths' cases, complex double: m, n, k, tile, the width
   asked about, the width wanted */
typedef struct
{
  size_t m, n, k;
  int tile;
  size_t w, want;
  const char *what;
} eighths_case;

static const eighths_case eighths[] = {
  { 2048, 2048, 2048, GT_TILE_DEFAULT, 1024, 256,
    "complex double 2048^3 in panels of 1024: eighths of 256" },
  { 2047, 2049, 1999, GT_TILE_DEFAULT, 1024, 384,
    "complex double n = 2049: eighths in whole tiles (384)" },
  { 2048, 1024, 2048, GT_TILE_DEFAULT, 1024, 256,
    "complex double n = 1024 in one panel: two tiles, not 128" },
  { 3000, 3000, 3000, GT_TILE_DEFAULT, 640, 640,
    "complex double 3000^3 in panels of 640: under a third, kept" },
  { 2048, 300, 2048, GT_TILE_DEFAULT, 300, 300,
    "n = 300: no room for two panels of two tiles, kept" },
  { 2048, 2048, 2048, 16, 1024, 1024, "a tile given: kept" },
  { 1000, 2048, 2048, GT_TILE_DEFAULT, 1024, 1024,
    "complex double of 1000 rows: under 1024, kept" },
};

int
main (void)
{
  /* kernel 11 off: its products are never narrowed, and with it off the
     single product below gets the plans the rule is about on any device */
  gt_plan_set_emulation (GT_EMULATE_OFF);

  /* double 2048^3 (100 MB): 2048 rows (16 tiles) fill the GPU in panels
     wider than an eighth wherever 48 or more of kernel 8's blocks are
     resident at once (a 132-SM Hopper: 264); narrow, eighths */
  const size_t d_wide = width (GT_DOUBLE, 2048, 2048, 2048, 0);
  const size_t d_eighth = width (GT_DOUBLE, 2048, 2048, 2048, 1);
  check (d_eighth == 256, "double 2048^3 narrow: panels of an eighth");
  check (d_wide > d_eighth, "double 2048^3 not narrow: wider panels");
  check (width (GT_DOUBLE, 3000, 3000, 3000, 1) == 384,
         "double 3000^3 narrow: eighths in whole tiles (384)");

  /* an eighth under one tile of columns: as before */
  check (width (GT_DOUBLE, 256, 100000, 256, 1)
         == width (GT_DOUBLE, 256, 100000, 256, 0),
         "double 256x100000x256: an eighth under a tile, not narrowed");

  /* under 32 MiB: one panel either way */
  check (width (GT_DOUBLE, 1024, 1024, 1024, 1) == 1024,
         "double 1024^3 (25 MB): one panel");

  /* an eighth's plan that splits k (single 2047x1999x3001 with kernel 11
     off: 384 columns go to kernel 5): as before */
  const gt_plan p8 = gt_plan_for (GT_SINGLE, 2047, 384, 1999,
                                  GT_TILE_DEFAULT, 0);
  const size_t s_wide = width (GT_SINGLE, 2047, 1999, 3001, 0);
  const size_t s_narrow = width (GT_SINGLE, 2047, 1999, 3001, 1);
  check (p8.kernel != GT_K5_SPLITK || s_narrow == s_wide,
         "an eighth whose plan splits k: not narrowed");
  check (p8.kernel == GT_K5_SPLITK || s_narrow <= 384,
         "an eighth on another plan: narrowed");

  /* complex products keep their own rule */
  check (width (GT_COMPLEX_DOUBLE, 2048, 2048, 2048, 1)
         == width (GT_COMPLEX_DOUBLE, 2048, 2048, 2048, 0),
         "complex double 2048^3: not narrowed");

  /* a given tile: one panel */
  check (gt_panel_width (GT_DOUBLE, 2048, 2048, 2048, 16, MAX_PANELS, 1)
         == 2048, "a tile given: one panel");

  /* blocks of A's rows (gt_panel_rows): the caller's count of them in
     whole tiles; complex plans, or real ones only where C goes out
     straight; none for a height of one block */
  const gt_plan z = gt_plan_mixed (GT_COMPLEX_DOUBLE, 0, 0, 2048, 1024, 2048,
                                   GT_TILE_DEFAULT, 0);
  const gt_plan d = gt_plan_for (GT_DOUBLE, 2048, 256, 2048,
                                 GT_TILE_DEFAULT, 0);
  check (gt_panel_rows (&z, 2048, 0, 4, 0) == 512
         && gt_panel_rows (&z, 2048, 0, 8, 0) == 256,
         "complex double 2048 rows: quarters of 512, eighths of 256");
  check (gt_panel_rows (&z, 3001, 0, 4, 0) == 768,
         "complex double 3001 rows: quarters in whole tiles (768)");
  check (gt_panel_rows (&d, 2048, 0, 4, 1) == 0
         && gt_panel_rows (&d, 2048, 1, 8, 0) == 256,
         "double: blocks of rows only where C goes out straight");
  check (gt_panel_rows (&z, 200, 0, 4, 0) == 0,
         "complex double 200 rows: under two tiles, none");
  /* kernel 11 slices B's panel again in every block: complex plans take
     blocks there only where C is the larger way (out_bound); real ones
     never, even where C goes out straight */
  gt_plan c11 = gt_plan_make (GT_COMPLEX_SINGLE, GT_K11_OZAKI);
  c11.complex_a = c11.complex_b = c11.three = 1;
  gt_plan s11 = gt_plan_make (GT_SINGLE, GT_K11_OZAKI);
  check (gt_panel_rows (&c11, 3001, 0, 4, 1) == 768
         && gt_panel_rows (&c11, 3001, 0, 4, 0) == 0,
         "complex single on kernel 11: blocks of rows only where out-bound");
  check (gt_panel_rows (&s11, 4096, 1, 8, 1) == 0
         && gt_panel_rows (&s11, 4096, 1, 8, 0) == 0,
         "single on kernel 11: no blocks of rows");
  /* kernel 11's pieces of Gauss's three where the panel is large (the
     shapes measured on two H200s, bench/RESULTS.md, "Complex single's
     first panel in kernel 11's pieces") */
  check (k11_three_head (&c11, 16384, 2048, 16384, 2048, 1)
         == GT_HEAD_PIECES
         && k11_three_head (&c11, 16384, 1024, 16384, 2048, 2)
            == GT_HEAD_PIECES,
         "complex single 16384^3, one GPU and a split's band: pieces");
  check (k11_three_head (&c11, 8192, 1024, 8192, 2048, 1) == GT_HEAD_PIECES
         && k11_three_head (&c11, 8192, 1024, 8192, 2048, 2)
            == GT_HEAD_WHOLE,
         "complex single 8192^3: pieces on one GPU, whole in a band");
  check (k11_three_head (&c11, 2000, 1024, 20000, 2496, 1) == GT_HEAD_WHOLE,
         "complex single 2000x20000x2000: B's copies pace it, whole");
  check (k11_three_head (&c11, 16384, 2048, 16384, 0, 1) == GT_HEAD_WHOLE,
         "no piece size: whole");
  /* where a quarter of k falls under kernel 11's least piece, Gauss's
     three may take pieces up to a third of it (in whole parts of A made
     ahead, rounded down), so pieces of that least from 6144 of k on (not
     at 6143), and the rule
     takes them on one GPU (complex single 6144^3 in three, 7168^3 in
     four, on one H200: bench/RESULTS.md, "Gauss's three's A made ahead,
     merged") */
  check (gt_plan_piece_max_k (&c11, 6144) == 2048
         && gt_plan_piece_max_k (&c11, 6143) < 2048
         && gt_plan_piece_max_k (&c11, 7168) == 2368
         && gt_plan_piece_max_k (&s11, 7168) == 0,
         "kernel 11's three: thirds of k in parts of 64; singles: none");
  check (k11_three_head (&c11, 6144, 768, 6144, 2048, 1) == GT_HEAD_PIECES
         && k11_three_head (&c11, 7168, 896, 7168, 2048, 1)
            == GT_HEAD_PIECES,
         "complex single 6144^3 and 7168^3 in pieces of 2048: one GPU");
  /* A made ahead as it arrives for panel 0 whole (gt_layout.c,
     a_as_in_layout): in parts that start on whole parts of 64 columns,
     a band's own part of a shared A among them (the other band's at
     4096 of complex single 8192^3), for Gauss's three and real singles
     on kernel 11 */
  check (gt_plan_a_ahead_bytes (&c11, 8192, 1024, 8192, 1024) > 0
         && gt_plan_a_ahead_bytes (&c11, 8192, 1024, 8192, 4096) > 0
         && gt_plan_a_ahead_bytes (&c11, 6001, 1024, 4000, 1024) > 0
         && gt_plan_a_ahead_bytes (&c11, 8192, 1024, 6001, 3000) == 0
         && gt_plan_a_ahead_bytes (&s11, 4096, 1024, 4096, 2048) > 0,
         "A made ahead: parts on whole parts of 64 columns");
  /* The last panel out by blocks of rows (gt_plan_rows_out): Gauss's
     three on kernel 11 from 48 MiB of C, not real singles, not kernel 9;
     the blocks (gt_rows_block) whole tiles of 256 rows that cover m in
     order, the last ending at m, any after it empty */
  gt_plan c9 = c11;
  c9.kernel = GT_K9_DMMA;
  check (gt_plan_rows_out (&c11, 8192, 1024) == GT_ROWS_OUT_BLOCKS
         && gt_plan_rows_out (&c11, 6144, 1024) == GT_ROWS_OUT_BLOCKS
         && gt_plan_rows_out (&c11, 4096, 1024) == 0
         && gt_plan_rows_out (&c11, 8192, 512) == 0
         && gt_plan_rows_out (&s11, 8192, 4096) == 0
         && gt_plan_rows_out (&c9, 8192, 1024) == 0,
         "the last panel by rows: the three on kernel 11 from 48 MiB");
  const size_t ms[] = { 1, 255, 256, 1025, 3001, 8192, 16383 };
  int tiled = 1;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (int blocks = 2; blocks <= GT_ROWS_OUT_MAX; blocks++)
      {
        size_t at = 0, r0, r1;
        for (int b = 0; b < blocks; b++)
          {
            gt_rows_block (ms[i], blocks, b, &r0, &r1);
            tiled = tiled && r0 == at && r1 >= r0 && r1 <= ms[i]
                    && (r0 % 256 == 0 || r0 == ms[i])
                    && (r1 % 256 == 0 || r1 == ms[i]);
            at = r1;
          }
        tiled = tiled && at == ms[i];
      }
  check (tiled, "blocks of rows: whole tiles, in order, all of m");
  c11.complex_b = c11.three = 0;
  check (gt_panel_rows (&c11, 2048, 0, 4, 1) == 512,
         "complex A times real B on kernel 11, out-bound: quarters");

  /* gt_panel_eighths: a complex product's panels a third of n or wider go
     in eighths in whole tiles, no narrower than two */
  for (size_t i = 0; i < sizeof eighths / sizeof eighths[0]; i++)
    {
      const eighths_case *e = &eighths[i];
      check (gt_panel_eighths (GT_COMPLEX_DOUBLE, e->m, e->n, e->k, e->tile,
                               e->w) == e->want, e->what);
    }

  /* gt_plan_band_pieces: a split's band on Gauss's three on kernel 9 in
     pieces where panel 0's tiles of 128 fill the GPU (the measured
     cases: 32 tiles lost, 1024 gained), on no other plan */
  gt_plan k9 = c11;
  k9.kernel = GT_K9_DMMA;
  k9.complex_a = k9.complex_b = k9.three = 1;
  check (!gt_plan_band_pieces (&k9, 2000, 256),
         "band of 2000 rows, 256 columns (32 tiles): not in pieces");
  check (gt_plan_band_pieces (&k9, 16384, 1024),
         "band of 16384 rows, 1024 columns: in pieces");
  k9.three = 0;
  check (!gt_plan_band_pieces (&k9, 16384, 1024),
         "four products in one: not in pieces");
  k9.three = 1;
  k9.kernel = GT_K11_OZAKI;
  check (!gt_plan_band_pieces (&k9, 16384, 1024),
         "Gauss's three on kernel 11: not by this rule");
  return checks_done ();
}
