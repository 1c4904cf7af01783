/* Kernel 9 with its stream-K kernel of doubles (plans with `streamk`),
   which the default path never chooses: measured slower than the plans it
   would replace (bench/RESULTS.md).  The benchmark builds this in place of
   src/kernels/gt_k9_dmma.cu, so the plug-in carries none of it.  */

#define GT_K9_STREAMK 1
#include "gt_k9_dmma.cu"
