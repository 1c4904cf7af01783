/* Kernel 8 with every mode: besides the plug-in's instances, the steps the
   default path never chooses (an operand through registers instead of
   cp.async, 256x128 tiles with 8-k stages).  The benchmark builds this in
   place of src/kernels/gt_k8_wide.cu, so the plug-in carries none of
   them.  */

#define GT_K8_REGISTER_MODES 1
#include "gt_k8_wide.cu"
