/* test_order.c -- tests of the order of a split band's first-panel pieces
   (src/host/gt_order.c); they need no GPU.  Every band of a layout runs
   its order against a model of the others: a band's own piece stages and
   hands on its columns (its first, the part's columns before it too; its
   last, the rest of the part); another's piece waits until every band
   whose part it lies in has handed its columns on; a band without pieces
   hands all of its part on, then waits for each other part whole.  The
   bands take turns, each going on while it can.  Checked over many
   layouts: each order runs every piece once, no piece runs before the
   band's own columns in it are staged, the bands never all wait, and the
   order of two bands at 16384 of k interleaves as designed.  Prints "N
   passed, N failed".  */

#include <stdlib.h>
#include <string.h>
#include "gt_order.h"
#include "test_check.h"

#define MAX_PIECES 4096

typedef struct
{
  gt_piece_layout l;
  gt_piece_order o;
  int pieces;           /* 0: this band takes no pieces */
  size_t at;            /* next step of its order */
  size_t last;          /* the piece run last */
  size_t staged;        /* its own part staged (and handed on) up to */
} band;

static gt_piece_layout
layout (size_t k, size_t kc, int parts, int own)
{
  gt_piece_layout l;
  memset (&l, 0, sizeof l);
  l.k = k;
  l.kc = kc;
  l.parts = parts;
  l.own = own;
  for (int i = 0; parts > 0 && i <= parts; i++)
    l.bounds[i] = k * i / parts;   /* as gt_shared_a_columns cuts A */
  return l;
}

/* Band b's next step, if it can go on now: 1 went on, 0 waits.  *bad set
   where a piece would run before the band's own columns in it.  */
static int
step (band *bs, int parts, int b, int *bad)
{
  band *x = &bs[b];
  const gt_piece_layout *l = &x->l;
  const size_t k = l->k, kc = l->kc;
  if (!x->pieces)   /* all of its part first, then each other part whole */
    {
      if (x->at >= (size_t) parts)
        return 0;
      const int i = (int) x->at;
      if (i != b && bs[i].staged < l->bounds[i + 1])
        return 0;
      x->at++;
      return 1;
    }
  if (x->at >= x->o.count)
    return 0;
  const size_t p = gt_piece_next (&x->o, x->at, x->last);
  const size_t k0 = p * kc, k1 = k0 + kc < k ? k0 + kc : k;
  if (p >= x->o.j0 && p < x->o.j1)
    {
      const size_t upto = p + 1 == x->o.j1 ? l->bounds[b + 1] : k1;
      x->staged = upto > x->staged ? upto : x->staged;
    }
  else
    for (int i = 0; i < parts; i++)
      {
        const size_t p0 = l->bounds[i], p1 = l->bounds[i + 1];
        if (p0 >= k1 || p1 <= k0)
          continue;
        const size_t need = k1 < p1 ? k1 : p1;
        if (i == b && x->staged < need)
          *bad = 1;
        else if (i != b && bs[i].staged < need)
          return 0;
      }
  x->last = p;
  x->at++;
  return 1;
}

/* One layout: each band's order a permutation of the pieces; run
   together, no piece before its own columns and no band left waiting.
   Band b takes pieces of kcs[b]; guard: the bands are told where those
   of the bands with pieces differ (gt_shared_a_kc_agree).  */
static int
run_bands (size_t k, const size_t *kcs, int parts, unsigned nopieces,
           int guard)
{
  static band bs[GT_MAX_DEVICES];
  static unsigned char seen[MAX_PIECES];
  int differ = 0;
  for (int b = 0; b < parts; b++)
    for (int c = 0; c < parts; c++)
      differ |= !((nopieces >> b) & 1u) && !((nopieces >> c) & 1u)
                && kcs[b] != kcs[c];
  for (int b = 0; b < parts; b++)
    {
      band *x = &bs[b];
      memset (x, 0, sizeof *x);
      x->l = layout (k, kcs[b], parts, b);
      x->l.kc_differ = guard && differ;
      gt_piece_order_make (&x->l, &x->o);
      x->pieces = !((nopieces >> b) & 1u);
      x->staged = x->l.bounds[b];
      if (!x->pieces || x->o.j1 == x->o.j0)   /* hands all of it on first */
        x->staged = x->l.bounds[b + 1];
      memset (seen, 0, x->o.count);
      size_t last = 0;
      for (size_t i = 0; i < x->o.count; i++)
        {
          last = gt_piece_next (&x->o, i, last);
          if (last >= x->o.count || seen[last]++)
            return 0;
        }
    }
  int bad = 0;
  for (;;)
    {
      int went = 0, left = 0;
      for (int b = 0; b < parts; b++)
        {
          while (step (bs, parts, b, &bad))
            went = 1;
          left |= bs[b].pieces ? bs[b].at < bs[b].o.count
                               : bs[b].at < (size_t) parts;
        }
      if (bad)
        return 0;
      if (!left)
        return 1;
      if (!went)
        return 0;   /* every band waits: a circle */
    }
}

static int
run_layout (size_t k, size_t kc, int parts, unsigned nopieces)
{
  size_t kcs[GT_MAX_DEVICES];
  for (int b = 0; b < parts; b++)
    kcs[b] = kc;
  return run_bands (k, kcs, parts, nopieces, 1);
}

static void
test_layouts (void)
{
  unsigned seed = 12345;
  long layouts = 0, bad = 0;
  for (int parts = 2; parts <= 8 && parts <= GT_MAX_DEVICES; parts++)
    for (size_t k = 512; k <= 20000; k += k < 6000 ? 37 : 1999)
      for (size_t kc = 128; kc <= k / 4; kc += 32)
        {
          if ((k + kc - 1) / kc > MAX_PIECES)
            continue;
          seed = seed * 1103515245u + 12345u;
          const unsigned nopieces = (seed >> 8) & ((1u << parts) - 1)
                                    & ((seed >> 16) | (seed >> 20));
          layouts++;
          bad += !run_layout (k, kc, parts, 0);
          bad += !run_layout (k, kc, parts, nopieces);
        }
  char what[80];
  snprintf (what, sizeof what, "%ld layouts: orders whole, no circle", layouts);
  check (bad == 0 && layouts > 10000, what);
}

/* Two bands of 16384 in pieces of 512: own 0, other 16, own 1, other 17 */
static void
test_two_bands (void)
{
  const gt_piece_layout l0 = layout (16384, 512, 2, 0);
  const gt_piece_layout l1 = layout (16384, 512, 2, 1);
  gt_piece_order o0, o1;
  gt_piece_order_make (&l0, &o0);
  gt_piece_order_make (&l1, &o1);
  int ok = o0.count == 32 && o0.by_step;
  size_t a = 0, b = 0;
  for (size_t i = 0; ok && i < 32; i++)
    {
      a = gt_piece_next (&o0, i, a);
      b = gt_piece_next (&o1, i, b);
      ok = a == (i % 2 ? 16 + i / 2 : i / 2)
           && b == (i % 2 ? i / 2 : 16 + i / 2);
    }
  check (ok, "two bands take their own and the other's in turn");
}

/* Not shared: in order of k; more pieces than GT_ORDER_MAX: own first.  */
static void
test_plain_orders (void)
{
  const gt_piece_layout l = layout (10000, 512, 0, 0);
  gt_piece_order o;
  gt_piece_order_make (&l, &o);
  int ok = o.count == 20;
  size_t p = 0;
  for (size_t i = 0; ok && i < o.count; i++)
    ok = (p = gt_piece_next (&o, i, p)) == i;
  check (ok, "A not shared: in order of k");
  const size_t k = 128 * (GT_ORDER_MAX + 64);
  const gt_piece_layout m = layout (k, 128, 2, 1);
  gt_piece_order_make (&m, &o);
  ok = !o.by_step && o.j0 == o.count / 2;
  for (size_t i = 0; ok && i < o.count; i++)
    ok = (p = gt_piece_next (&o, i, p))
         == (i < o.count - o.j0 ? o.j0 + i : i - (o.count - o.j0));
  check (ok, "past GT_ORDER_MAX pieces: its own first, then in order");
  check (run_layout (k, 128, 2, 0), "and no circle");
}

/* Bands whose pieces differ (their plans' least pieces: kernel 11's
   pieces of 2048 beside kernel 9's of 512), some bands without pieces:
   told (bands without pieces count as agreeing), each takes its own
   first and none waits in a circle; untold, some layouts would.  */
static void
test_mixed_pieces (void)
{
  long layouts = 0, bad = 0, circles = 0;
  size_t kcs[GT_MAX_DEVICES];
  for (int parts = 2; parts <= 4; parts++)
    for (size_t k = 4096; k <= 20000; k += 1531)
      for (unsigned pattern = 1; pattern + 1 < 1u << parts; pattern++)
        {
          for (int b = 0; b < parts; b++)
            kcs[b] = (pattern >> b) & 1u ? k / 4 / 32 * 32 : 512;
          for (unsigned nopieces = 0; nopieces < 1u << parts;
               nopieces += 1 + 2 * (parts > 2))
            {
              layouts++;
              bad += !run_bands (k, kcs, parts, nopieces, 1);
              circles += !run_bands (k, kcs, parts, nopieces, 0);
            }
        }
  char what[128];
  snprintf (what, sizeof what, "%ld layouts of mixed pieces: no circle "
            "where told (%ld untold would wait)", layouts, circles);
  check (bad == 0 && circles > 0, what);
}

/* The answer a band gets, and when it asks.  */
typedef struct
{
  int answer, asked;
  size_t at;   /* the piece it was about to choose */
  size_t i;
} asking;

static asking *now;

static int
answer (void *arg)
{
  asking *a = (asking *) arg;
  a->asked++;
  a->at = now->i;
  return a->answer;
}

/* The lazy choice (gt_piece_orders): the order by steps where the bands
   agree, the own-first order where not, piece for piece; asked once at
   most, and for two bands of 16384 in pieces of 512 only at the second
   piece (once the first is staged).  */
static int
lazy_matches (const gt_piece_layout *l, int agree, size_t *asked_at)
{
  gt_piece_layout x = *l;
  x.kc_differ = !agree;
  gt_piece_order want;
  gt_piece_order_make (&x, &want);
  gt_piece_orders po;
  asking a = { agree, 0, 0, 0 };
  now = &a;
  gt_piece_orders_make (l, &po, answer, &a);
  size_t p = 0, q = 0;
  int ok = 1;
  for (size_t i = 0; ok && i < want.count; i++)
    {
      a.i = i;
      p = gt_piece_orders_next (&po, i, p);
      q = gt_piece_next (&want, i, q);
      ok = p == q;
    }
  *asked_at = a.asked ? a.at : (size_t) -1;
  return ok && a.asked <= 1;
}

static void
test_lazy_agree (void)
{
  size_t at;
  const gt_piece_layout two = layout (16384, 512, 2, 1);
  int ok = lazy_matches (&two, 1, &at) && at == 1;
  ok = ok && lazy_matches (&two, 0, &at) && at == 1;
  check (ok, "two bands ask whether their pieces agree at the second piece");
  long bad = 0, layouts = 0;
  for (int parts = 2; parts <= 6; parts++)
    for (size_t k = 600; k <= 20000; k += 977)
      for (size_t kc = 128; kc <= k / 4; kc += 160)
        for (int own = 0; own < parts; own++)
          {
            const gt_piece_layout l = layout (k, kc, parts, own);
            layouts++;
            bad += !lazy_matches (&l, 1, &at) + !lazy_matches (&l, 0, &at);
          }
  char what[96];
  snprintf (what, sizeof what, "%ld layouts: asked lazily, either order "
            "as made", layouts);
  check (bad == 0, what);
}

/* A band's own part staged piece by piece (as piece_stage does: up to
   the piece's end, the last own piece to the part's end) is what
   gt_own_next_end asks for at each step, and nothing after the last;
   two to four bands, k and pieces aligned or not.  */
static void
test_own_next_end (void)
{
  int ok = 1, cases = 0;
  const size_t ks[] = { 16384, 12290, 5000 }, kcs[] = { 2048, 1024, 768 };
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      for (int parts = 2; parts <= 4; parts++)
        for (int own = 0; own < parts; own++)
          {
            const gt_piece_layout l = layout (ks[a], kcs[b], parts, own);
            gt_piece_order o;
            gt_piece_order_make (&l, &o);
            const size_t p0 = l.bounds[own], p1 = l.bounds[own + 1];
            size_t end = p0;
            for (size_t p = o.j0; ok && p < o.j1; p++)
              {
                size_t want = p + 1 == o.j1 ? p1 : (p + 1) * l.kc;
                want = want < p1 ? want : p1;
                ok = gt_own_next_end (&o, l.kc, p1, end)
                     == (want > end ? want : 0);
                end = want > end ? want : end;
              }
            ok = ok && gt_own_next_end (&o, l.kc, p1, end) == 0;
            cases++;
          }
  char what[80];
  snprintf (what, sizeof what,
            "%d layouts: a band's next own piece of A, then none", cases);
  check (ok, what);
}

int
main (void)
{
  test_own_next_end ();
  test_lazy_agree ();
  test_two_bands ();
  test_plain_orders ();
  test_layouts ();
  test_mixed_pieces ();
  return checks_done ();
}
