/* gt_head_rule.h -- how many of a streamed product's first panels go as
   one head, in blocks of A's rows or in pieces of k (gt_head_rule.c;
   internal to the host
   layer; plain C, so tests/test_head_rule.c runs it without a GPU).
   gt_layout.c asks it for every product that could take a head.  */

#ifndef GT_HEAD_RULE_H
#define GT_HEAD_RULE_H

#include <stddef.h>

/* A product of n columns in panels of w, at most `most` of them full
   ones that a head may take; gpu_seconds of kernel time for all of it
   as the plan layer predicts it (gt_plan_head_gpu_seconds: 0 where its
   plan takes no head), and A's and B's copies in and C's out.  */
typedef struct
{
  size_t w, n, most;
  double gpu_seconds, a_seconds, b_seconds, c_seconds;
} gt_head_case;

/* When a call with a head of `panels` panels (1: panel 0 alone, as in
   pieces of k or its own blocks of rows) is predicted to end.  */
double gt_head_end (const gt_head_case *h, size_t panels);
/* The head's panels: 2 or more, or 0 where none pays.  */
size_t gt_head_panels (const gt_head_case *h);
/* A head of panels in panel 0's pieces of k (gpu_seconds:
   gt_plan_pieces_head_gpu_seconds): 2 or more, or 0 where none pays.  */
size_t gt_pieces_head_panels (const gt_head_case *h);

#endif
