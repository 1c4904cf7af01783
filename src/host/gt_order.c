/* gt_order.c -- the order of a band's first panel's pieces of k (see
   gt_order.h).  */

#include <stdint.h>
#include "gt_order.h"

void
gt_part_pieces (const gt_piece_layout *l, int i, size_t *j0, size_t *j1)
{
  *j0 = *j1 = 0;
  if (l->parts == 0)
    return;
  const size_t p0 = l->bounds[i], p1 = l->bounds[i + 1];
  const size_t first = (p0 + l->kc - 1) / l->kc;
  size_t last = p1 / l->kc;                /* pieces ending by p1 */
  if (p1 == l->k)
    last = (l->k + l->kc - 1) / l->kc;     /* the shorter last one too */
  if (last > first)
    {
      *j0 = first;
      *j1 = last;
    }
}

/* The step at which the band of part i hands column col on: the own piece
   that stages it, counted from 1 in that band's order (its first piece
   stages the part's columns before it too, its last the columns after
   it); 0 where its part holds no whole piece, so that its band stages all
   of it before any piece.  (A band that takes no pieces hands all of its
   part on first: earlier than this says, which is safe.)  */
static size_t
handed_at (const gt_piece_layout *l, int i, size_t col)
{
  size_t j0, j1;
  gt_part_pieces (l, i, &j0, &j1);
  if (j1 == j0)
    return 0;
  size_t q = col / l->kc;
  q = q < j0 ? j0 : q >= j1 ? j1 - 1 : q;
  return q - j0 + 1;
}

/* The step by which every column of piece p is handed on: the latest,
   over the parts it lies in, of handed_at its last column there.  The
   same for every band.  */
static size_t
piece_step (const gt_piece_layout *l, size_t p)
{
  const size_t k0 = p * l->kc, k1 = k0 + l->kc < l->k ? k0 + l->kc : l->k;
  size_t step = 0;
  for (int i = 0; i < l->parts; i++)
    {
      const size_t p0 = l->bounds[i], p1 = l->bounds[i + 1];
      if (p0 < k1 && p1 > k0)
        {
          const size_t s = handed_at (l, i, (k1 < p1 ? k1 : p1) - 1);
          step = s > step ? s : step;
        }
    }
  return step;
}

void
gt_piece_order_make (const gt_piece_layout *l, gt_piece_order *o)
{
  o->count = (l->k + l->kc - 1) / l->kc;
  gt_part_pieces (l, l->own, &o->j0, &o->j1);
  o->by_step = l->parts > 0 && !l->kc_differ && o->count <= GT_ORDER_MAX;
  for (size_t p = 0; o->by_step && p < o->count; p++)
    o->step[p] = piece_step (l, p);
}

/* Whether piece p runs before piece q: by step, a piece of the band's own
   before another's of the same step, then by k.  */
static int
before (const gt_piece_order *o, size_t p, size_t q)
{
  if (o->step[p] != o->step[q])
    return o->step[p] < o->step[q];
  const int own_p = gt_piece_own (o, p), own_q = gt_piece_own (o, q);
  return own_p != own_q ? own_p : p < q;
}

void
gt_piece_orders_make (const gt_piece_layout *l, gt_piece_orders *po,
                      int (*agree) (void *arg), void *arg)
{
  gt_piece_layout x = *l;
  x.kc_differ = 0;
  gt_piece_order_make (&x, &po->step);
  x.kc_differ = 1;
  gt_piece_order_make (&x, &po->own);
  po->use = agree ? NULL : &po->step;
  po->agree = agree;
  po->arg = arg;
}

size_t
gt_piece_orders_next (gt_piece_orders *po, size_t i, size_t last)
{
  if (!po->use)
    {
      const size_t a = gt_piece_next (&po->step, i, last);
      if (a == gt_piece_next (&po->own, i, last))
        return a;
      po->use = po->agree (po->arg) ? &po->step : &po->own;
    }
  return gt_piece_next (po->use, i, last);
}

/* Without a shared A, in order of k.  In a band sharing it, by the step
   at which the bands hand a piece's columns on: the band's own first
   piece, the others' first pieces, which their bands stage meanwhile,
   its own second, and so on, instead of all of its own first (at
   16384^3 on two GPUs the others' had then taken 8 ms on the GPU after
   the own part: bench/RESULTS.md, "A band's pieces as they come").  The
   order is the same call after call, and so are the sums' bits.  A band
   waits for another's piece only after running its own pieces of no
   later step, so bands never wait for each other in a circle: one
   waiting at step s waits for a band still before s, which cannot be
   waiting for it.  That needs the same pieces in every band that takes
   pieces, which a band checks where this order and the own-first one
   first part (gt_piece_orders, gt_shared_a_kc_agree); where they
   differ, the band's own pieces first, as with too many pieces: each band then hands on all of its
   part before it waits for another's.  A band without pieces hands on
   all of its part before it waits.  */
size_t
gt_piece_next (const gt_piece_order *o, size_t i, size_t last)
{
  if (!o->by_step)
    {
      const size_t own = o->j1 - o->j0;   /* own first, then in order of k */
      if (i < own)
        return o->j0 + i;
      i -= own;
      return i < o->j0 ? i : i + own;
    }
  size_t best = SIZE_MAX;
  for (size_t p = 0; p < o->count; p++)
    if ((i == 0 || before (o, last, p))
        && (best == SIZE_MAX || before (o, p, best)))
      best = p;
  return best;
}

size_t
gt_own_piece_end (const gt_piece_order *o, size_t kc, size_t p1, size_t p)
{
  const size_t end = p + 1 == o->j1 ? p1 : (p + 1) * kc;
  return end < p1 ? end : p1;
}

size_t
gt_own_next_end (const gt_piece_order *o, size_t kc, size_t p1,
                 size_t own_end)
{
  size_t q = own_end / kc;
  if (q < o->j0)
    q = o->j0;
  if (q >= o->j1)
    return 0;
  const size_t end = gt_own_piece_end (o, kc, p1, q);
  return end > own_end ? end : 0;
}
