/* test_split_rule.c -- whether a split over two devices pays
   (src/host/gt_split_rule.c), at the shapes measured (bench/RESULTS.md:
   the rule's cases and what the measurements found).  Prints one line
   per check and "N passed, N failed".  */

#include <stdio.h>
#include "gt_split_rule.h"
#include "test_check.h"

/* Two devices that reach each other; real or complex, single or double
   (es: a real element's bytes), as gt_multi.c asks.  */
static int
pays (size_t m, size_t k, size_t n, int complex_, int es, int c_locked)
{
  const int by_cols = n >= m;
  const double e = es * (complex_ ? 2 : 1);
  const gt_split_case s = {
    2.0 * m * n * k * (complex_ ? 4 : 1), es == 4,
    by_cols ? (double) m * k * e : (double) k * n * e,
    (double) m * n * e, 2, by_cols, by_cols, c_locked };
  return gt_split_pays (&s);
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
  return checks_done ();
}
