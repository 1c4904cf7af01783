/* gt_facts.h -- what the cost models know of a device (internal to the
   plan layer): its multiprocessors and the blocks of each kernel variant
   resident on one, asked once per device.  */

#ifndef GT_FACTS_H
#define GT_FACTS_H

#include "gt_kernels.h"

/* Without a device to ask (a plan printed on a machine without a GPU):
   an H100's or H200's multiprocessors.  */
#define GT_FALLBACK_SMS 132

typedef struct
{
  int known;
  int sms;
  int occupancy[GT_K4_CONFIG_COUNT];  /* kernel 4's configurations */
  int k8_occupancy;       /* kernel 8's 128x128 tiles */
  int k8_k16_fits;        /* 16-k stages keep kernel 8's blocks per SM */
  int k8_wide_occupancy;  /* kernel 8's 256x128 tiles (0: they do not fit) */
  int k9_usable;          /* kernel 9 runs here (Hopper) */
} gt_facts;

#ifdef __cplusplus
extern "C" {
#endif

/* The current device's facts (the fallback's without a device).  */
const gt_facts *gt_facts_current (void);

#ifdef __cplusplus
}
#endif

#endif
