/* gt_split_rule.c -- whether a split over several devices pays
   (gt_split_rule.h).

   A split pays where the kernel time it saves is more than what it adds:
   a pipeline of its own for each further device, and, where the devices
   cannot copy from each other, its own copy of the shared operand, staged
   through the host as the other copies are (so counted twice: it takes
   the host's copy bandwidth from them).  Between peers each device stages
   only its part of A and copies the others' device to device: the host
   moves the same bytes as for one device.  Where C's memory is locked and
   the split goes by columns, each device's copies out go straight over
   its own link: the split also saves C's bytes at a link's rate on all
   but one device, and costs less.  By rows it lost (100000x256x256: a
   band's blocks of A's rows go staged), and a tall product split by rows
   sends all of B through the host to every device: between peers it goes
   by columns instead where it can (gt_split_by_cols).  The rates are
   those measured on Hopper hosts (bench/RESULTS.md, "Several GPUs", and
   the fourteenth section's run 8).  */

#include "gt_split_rule.h"

#define SPLIT_KERNEL_RATE 45e12   /* flop/s of one GPU on doubles */
#define SPLIT_KERNEL_RATE_S 100e12   /* on singles (kernel 11 from 4096^3) */
#define SPLIT_HOST_RATE 47e9      /* bytes/s through the pinned staging */
/* A further device's own pipeline: two H200s, each split forced, gained
   from 1.3 ms (double 4096^3, 10.9 -> 9.6 ms) up; with C locked, 0.6 ms
   at 3000x700x5000 single (1.97 -> 1.37 ms) of the 0.65 the rule counts
   saved there */
#define SPLIT_FIXED_S 1e-3
#define SPLIT_FIXED_STRAIGHT_S 0.3e-3
#define SPLIT_LINK_RATE 55e9      /* bytes/s of one link, straight */

void
gt_split_times (const gt_split_case *s, double *saved, double *added)
{
  const double spare = 1 - 1.0 / s->count;
  const int straight = s->c_locked && s->by_cols;
  *saved = s->flops / (s->single ? SPLIT_KERNEL_RATE_S : SPLIT_KERNEL_RATE)
           * spare
           + (straight ? s->c_bytes / SPLIT_LINK_RATE * spare : 0);
  *added = (s->count - 1) * ((s->peers ? 0 : 2) * s->shared_bytes
                             / SPLIT_HOST_RATE
                             + (straight ? SPLIT_FIXED_STRAIGHT_S
                                         : SPLIT_FIXED_S));
}

int
gt_split_by_cols (size_t m, size_t n, size_t min_cols, int share,
                  int forced)
{
  return n >= m || (!forced && share && n >= min_cols);
}

int
gt_split_pays (const gt_split_case *s)
{
  double saved, added;
  gt_split_times (s, &saved, &added);
  return saved > added;
}
