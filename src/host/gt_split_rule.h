/* gt_split_rule.h -- whether a product split over several devices pays
   (gt_split_rule.c; internal to the host layer; plain C, so
   tests/test_split_rule.c runs it without a GPU).  gt_multi.c asks it
   for every product a split could take.  */

#ifndef GT_SPLIT_RULE_H
#define GT_SPLIT_RULE_H

#include <stddef.h>

/* A product of `flops` (gt_flops) of a single class or a double one,
   whose result has c_bytes, split into `count` bands by
   columns (C and B cut, A shared) or by rows (C and A cut, B shared):
   shared_bytes of the operand every band needs, sent device to device
   between peers (else through the host to each); c_locked: C's memory
   is locked, so that the copies out go straight from each device.  */
typedef struct
{
  double flops;
  int single;
  double shared_bytes, c_bytes;
  int count, by_cols, peers, c_locked;
} gt_split_case;

/* Seconds a split saves and adds (the rule: it pays where saved >
   added).  */
void gt_split_times (const gt_split_case *s, double *saved, double *added);
int gt_split_pays (const gt_split_case *s);

/* Whether a split of an m x n product goes by columns (C and B cut, A
   shared), else by rows (C and A cut, B shared).  By columns where
   n >= m; where m > n too, if the devices can share A (share: they reach
   each other, and each can hold all of A beside its band) and n has
   min_cols columns or more (a band for every device): between peers A
   crosses the host once, where by rows every band takes all of B through
   the host, so by the terms above by columns saves at least what by rows
   does.  forced (GPU_TILED_SPLIT=always, for the tests): by the shape
   alone.  */
int gt_split_by_cols (size_t m, size_t n, size_t min_cols, int share,
                      int forced);

#endif
