/* gt_order.h -- the order in which a band of a product split over several
   devices runs its first panel's pieces of k (internal to the host
   layer; plain C, so tests/test_order.c runs it without a GPU).

   A is cut by columns into one part per band (gt_multi.c); each band
   stages its own part from its first column on and hands it on to the
   others piece by piece (gt_first_panel.c), and takes the others' parts from
   their devices.  A piece is kc columns of A (the last may be shorter);
   piece p is columns [p kc, min ((p + 1) kc, k)).  */

#ifndef GT_ORDER_H
#define GT_ORDER_H

#include <stddef.h>
#include "gpu_tiled.h"

/* Up to this many pieces are ordered by step; with more, the band's own
   first, then the others' in order of k.  */
#define GT_ORDER_MAX 512

typedef struct
{
  size_t k, kc;                       /* A's columns; a piece's */
  int parts;                          /* bands sharing A; 0: not shared */
  size_t bounds[GT_MAX_DEVICES + 1];  /* part i: [bounds[i], bounds[i + 1]) */
  int own;                            /* this band's part */
  int kc_differ;                      /* some band takes other pieces
                                         (gt_shared_a_kc_agree): the own
                                         first order */
} gt_piece_layout;

typedef struct
{
  size_t count, j0, j1;   /* pieces; this band's own ones [j0, j1) */
  int by_step;
  size_t step[GT_ORDER_MAX];
} gt_piece_order;

/* The pieces that lie inside part i, which the band of that part stages,
   each its own piece: [*j0, *j1) (none where A is not shared).  */
void gt_part_pieces (const gt_piece_layout *l, int i, size_t *j0,
                     size_t *j1);

void gt_piece_order_make (const gt_piece_layout *l, gt_piece_order *o);

/* Whether piece p is one of the band's own (its part stages it).  */
static inline int
gt_piece_own (const gt_piece_order *o, size_t p)
{
  return p >= o->j0 && p < o->j1;
}

/* The column up to which a band stages its own part of A (which ends at
   column p1) for its own piece p: the piece's end, and for its last own
   piece all the rest of the part.  */
size_t gt_own_piece_end (const gt_piece_order *o, size_t kc, size_t p1,
                         size_t p);

/* The same for the band's next own piece, where the part is in up to
   column own_end; 0 where nothing of the part is left.  */
size_t gt_own_next_end (const gt_piece_order *o, size_t kc, size_t p1,
                        size_t own_end);

/* The i-th piece to run, piece `last` run before it (i = 0: none).  */
size_t gt_piece_next (const gt_piece_order *o, size_t i, size_t last);

/* A band of a split learns whether every band takes the same pieces
   (agree) only where its order by steps and its own-first order first
   part (mostly at its second piece, once it has staged its first: every
   band has said its pieces by then, so nothing waits for that answer);
   until then both orders run the same pieces, after it the one agree
   chose.  */
typedef struct
{
  gt_piece_order step, own;
  const gt_piece_order *use;   /* NULL: not yet decided */
  int (*agree) (void *arg);
  void *arg;
} gt_piece_orders;

/* l without kc_differ; agree NULL: the order by steps.  */
void gt_piece_orders_make (const gt_piece_layout *l, gt_piece_orders *po,
                           int (*agree) (void *arg), void *arg);
size_t gt_piece_orders_next (gt_piece_orders *po, size_t i, size_t last);

#endif
