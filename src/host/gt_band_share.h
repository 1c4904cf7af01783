/* gt_band_share.h -- how wide each device's band of a split product is
   (gt_band_share.c; internal to the host layer; plain C, so
   tests/test_band_share.c runs it without a GPU).  gt_multi.c records
   each split call's band rates and asks for the next call's widths.  */

#ifndef GT_BAND_SHARE_H
#define GT_BAND_SHARE_H

#include <stddef.h>

/* Split calls each device's share follows: the median of its last
   GT_SHARE_HISTORY relative rates, so that one slow call (the host busy
   for a moment, a band's thread started late) moves no band, while a
   device that stays slower (another process's kernels on it) gets less
   once slow calls are most of its history: from the third where it has
   five, from the second after a reset.  */
#define GT_SHARE_HISTORY 5
/* Devices whose shares differ by less than this factor get equal
   bands: a band's plan (and so the order of its sums) follows its
   width, so alike devices keep the same bands, and the same bits, call
   after call.  */
#define GT_SHARE_SPREAD 1.25

/* Every device's history forgotten (gpu_tiled_reset).  */
void gt_share_forget (void);

/* After a split call whose bands ran on devs[0 .. count-1] at rate[i]
   flop/s each (rate 0: the band failed, no measure): each device's rate
   relative to the call's mean joins its history.  A call with fewer
   than two measured bands tells nothing.  */
void gt_share_record (const int *devs, int count, const double *rate);

/* len[i]: device devs[i]'s band of `total` columns (or rows), in whole
   steps (the widest kernel tile), the band furthest below its share
   taking the part step left over.  Equal until every
   device has been measured twice and while their shares are within
   GT_SHARE_SPREAD; else in proportion to them, with at least one step
   each where total allows, so that a device that was slow is still
   measured.  */
void gt_share_lengths (const int *devs, int count, size_t total,
                       size_t step, size_t *len);

#endif
