/* gt_head_rule.h -- how many of a streamed product's first panels go as
   one head in blocks of A's rows (gt_head_rule.c; internal to the host
   layer; plain C, so tests/test_head_rule.c runs it without a GPU).
   gt_host.c asks it for every product that could take a head.  */

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

/* A head of several panels in pieces of k instead, where panel 0 goes
   in pieces that run the panels' own kernel (real products on kernel 9
   or 4): each piece of A's columns comes with the head's rows of B, and
   its product for all the head's panels runs as soon as it is in.  The
   same product as gt_head_case, its A (a_seconds: this device's own part
   over its own link) in `pieces` pieces, each taking piece_seconds (arg,
   cols) on the GPU for a head of cols columns.  */
typedef struct
{
  size_t w, n, most, pieces;
  double gpu_seconds, a_seconds, b_seconds, c_seconds;
  double (*piece_seconds) (const void *arg, size_t cols);
  const void *arg;
} gt_pieces_head_case;

/* When a call with a head of `panels` panels in pieces (1: panel 0
   alone) is predicted to end.  */
double gt_pieces_head_end (const gt_pieces_head_case *h, size_t panels);

/* The head's panels: 2 or more, or 1 where none pays.  */
size_t gt_pieces_head_panels (const gt_pieces_head_case *h);

#endif
