/* test_split_rule.c -- whether a split over two devices pays
   (src/host/gt_split_rule.c), at the shapes measured (bench/RESULTS.md:
   the rule's cases and what the measurements found).  Prints one line
   per check and "N passed, N failed".  */

#include <stdio.h>
#include "gt_split_rule.h"
#include "test_check.h"

/* Two devices that reach each other, split by columns (A shared between
   them) or by rows (B through the host to each); real or complex, single
   or double (es: a real element's bytes), as gt_multi.c asks.  */
static int
pays_by (size_t m, size_t k, size_t n, int complex_, int es, int c_locked,
         int by_cols)
{
  const double e = es * (complex_ ? 2 : 1);
  const gt_split_case s = {
    2.0 * m * n * k * (complex_ ? 4 : 1), es == 4,
    by_cols ? (double) m * k * e : (double) k * n * e,
    (double) m * n * e, 2, by_cols, by_cols, c_locked };
  return gt_split_pays (&s);
}

/* As gt_multi.c's shapes alone would split: by columns where n >= m.  */
static int
pays (size_t m, size_t k, size_t n, int complex_, int es, int c_locked)
{
  return pays_by (m, k, n, complex_, es, c_locked, n >= m);
}

int
main (void)
{
  /* staged copies: the kernel time alone */
  check (pays (8192, 8192, 8192, 0, 4, 0) && pays (8192, 8192, 8192, 0, 8, 0),
         "8192^3 single and double: split");
  check (pays (10000, 1000, 10000, 0, 8, 0)
         && !pays (10000, 1000, 10000, 0, 4, 0),
         "10000x1000x10000, C staged: double split, single not");
  check (!pays (4096, 4096, 4096, 0, 4, 0) && !pays (3000, 700, 5000, 0, 4, 0),
         "4096^3 and 3000x700x5000 single, C staged: not split");
  /* C locked, by columns: the copies out over each link too (two H200s,
     splits forced: all of these won) */
  check (pays (10000, 1000, 10000, 0, 4, 1) && pays (2000, 20000, 2000, 0, 4, 1)
         && pays (4096, 4096, 4096, 0, 4, 1) && pays (3000, 700, 5000, 0, 4, 1)
         && pays (3000, 700, 5000, 0, 8, 1),
         "C locked, by columns: the shapes whose forced split won, split");
  check (!pays (100000, 256, 256, 0, 4, 1) && !pays (100000, 256, 256, 0, 4, 0),
         "100000x256x256 (by rows, where a split lost): never split");
  check (!pays (1024, 1024, 1024, 0, 4, 1) && !pays (2048, 2048, 2048, 0, 4, 1)
         && !pays (1500, 700, 2500, 0, 4, 1),
         "small products, C locked: not split");
  /* without peers the shared operand crosses the host twice */
  const gt_split_case far = { 2.0 * 3000 * 5000 * 700, 1, 3000.0 * 700 * 4,
                              3000.0 * 5000 * 4, 2, 1, 0, 1 };
  double saved, added;
  gt_split_times (&far, &saved, &added);
  check (added > 0.3e-3 + 2 * 3000.0 * 700 * 4 / 47e9 - 1e-9,
         "devices that are not peers: the shared operand counted twice");
  /* the direction: a tall product between peers by columns, where n
     leaves room for the bands; by rows without peers, where n is narrow,
     and where the split is forced (the tests' shapes) */
  check (gt_split_by_cols (16384, 8192, 512, 1, 0)
         && gt_split_by_cols (8192, 8192, 512, 0, 0)
         && gt_split_by_cols (100, 8192, 512, 0, 1),
         "by columns: n >= m, or m > n between peers");
  check (!gt_split_by_cols (16384, 8192, 512, 0, 0)
         && !gt_split_by_cols (100000, 256, 512, 1, 0)
         && !gt_split_by_cols (16384, 8192, 512, 1, 1),
         "by rows: m > n without peers, n narrow, or the split forced");
  /* a real single 16384x8192x8192 (a complex single 8192^3 times a real
     one read as real) split by rows ran as long as one GPU: all of B
     through the host twice outweighs the kernel time saved; by columns
     between peers it pays, C staged or locked; so does a complex double
     8192^3 times a real one (16384x8192x8192 double) */
  check (!pays_by (16384, 8192, 8192, 0, 4, 0, 0)
         && pays_by (16384, 8192, 8192, 0, 4, 0, 1)
         && pays_by (16384, 8192, 8192, 0, 4, 1, 1),
         "single 16384x8192x8192: not by rows, by columns");
  check (pays_by (16384, 8192, 8192, 0, 8, 0, 1),
         "double 16384x8192x8192: by columns");
  return checks_done ();
}
