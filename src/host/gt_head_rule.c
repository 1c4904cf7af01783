/* gt_head_rule.c -- a head of several panels in blocks of A's rows, or
   in pieces of k (gt_head_rule.h).

   Every panel of C after the first needs all of A, so while A comes in
   the GPU can only work on panel 0: where the other panels are
   kernel-bound, a call takes about A's time plus the rest of the kernel.
   A head of P panels sends their B first, then A by blocks of rows, each
   block's rows of C for all P panels run as soon as the block is in: the
   GPU works on a share P w / n of the product while A comes in.  With
   that share s the call ends at about
     s * B's time + max (A's time, s * kernel) + (1 - s) * kernel,
   least where s * kernel is A's time.  A head is taken only where it is
   predicted to end the call HEAD_GAIN sooner than panel 0 alone, and
   where the kernel outweighs A's and C's copies by HEAD_KERNEL_BOUND:
   nearer their copies' time, products lost (complex double 4096^3, double
   8192^3, and 10000x1000x10000, whose C takes 4 times its kernel;
   bench/RESULTS.md, "A head of panels in blocks of rows").  */

#include "gt_head_rule.h"

#define HEAD_GAIN 0.95
#define HEAD_KERNEL_BOUND 2.2

/* A head in pieces of k (real plans on kernel 9): A's columns come
   straight, so nothing is gathered, and the same model holds where the
   kernel clearly outweighs B's copies, which the head moves before A:
   double 8192^3 in panels of 1024 (the kernel 1.9 times B's copies),
   heads of 2 and 3 panels 0.95 and 0.92 of panel 0 alone, 12288^3 (2.9
   times) 0.97; where the two were nearer (1.4 times: 6000^3, and
   6001x5000x5003) the model's gain was not there (heads of 4: 1.01 and
   1.03), nor at 4096^3 (1.0 times: 1.03 to 1.22).  Heads of half the
   columns or more lost or spread (8192^3: 4 panels 0.97 with calls up to
   1.2 times as long, 6 panels 1.19), so a head takes at most
   PIECES_HEAD_MOST of them, and its GPU time at most PIECES_HEAD_OF_A of
   A's copies.  The kernel must also outweigh C's copies
   (10000x1000x10000, above).  bench/RESULTS.md, "A head of panels in
   pieces of k".  */
#define PIECES_HEAD_OVER_B 1.75
#define PIECES_HEAD_MOST 0.4
#define PIECES_HEAD_OF_A 0.75
#define PIECES_HEAD_GAIN 0.97

double
gt_head_end (const gt_head_case *h, size_t panels)
{
  const double share = h->n ? (double) (panels * h->w) / h->n : 1.0;
  const double head_gpu = share * h->gpu_seconds;
  return share * h->b_seconds
         + (h->a_seconds > head_gpu ? h->a_seconds : head_gpu)
         + (1.0 - share) * h->gpu_seconds;
}

size_t
gt_head_panels (const gt_head_case *h)
{
  if (h->w == 0 || h->most < 2 || h->gpu_seconds <= 0
      || h->gpu_seconds < HEAD_KERNEL_BOUND * h->a_seconds
      || h->gpu_seconds < HEAD_KERNEL_BOUND * h->c_seconds)
    return 0;
  size_t best = 0;
  double best_end = HEAD_GAIN * gt_head_end (h, 1);
  for (size_t p = 2; p <= h->most; p++)
    {
      const double end = gt_head_end (h, p);
      if (end < best_end)
        {
          best = p;
          best_end = end;
        }
    }
  return best;
}

size_t
gt_pieces_head_panels (const gt_head_case *h)
{
  if (h->w == 0 || h->n == 0 || h->most < 2 || h->gpu_seconds <= 0
      || h->gpu_seconds < PIECES_HEAD_OVER_B * h->b_seconds
      || h->gpu_seconds < h->c_seconds)
    return 0;
  size_t best = 0;
  double best_end = PIECES_HEAD_GAIN * gt_head_end (h, 1);
  for (size_t p = 2; p <= h->most; p++)
    {
      const double share = (double) (p * h->w) / h->n;
      if (share > PIECES_HEAD_MOST
          || share * h->gpu_seconds > PIECES_HEAD_OF_A * h->a_seconds)
        break;
      const double end = gt_head_end (h, p);
      if (end < best_end)
        {
          best = p;
          best_end = end;
        }
    }
  return best;
}
