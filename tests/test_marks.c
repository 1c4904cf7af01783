/* test_marks.c -- tests of the marks a split band hands its part of a
   shared A on by (src/host/gt_marks.h); they need no GPU.  A waiter is
   given the first mark that holds what it needs, never a later one (the
   later marks' copies may still be on their way) and never an earlier
   one that holds less; past the last mark there is none; once the marks
   run out the last one moves on.  Prints "N passed, N failed".  */

#include <stdlib.h>
#include <string.h>
#include "gt_marks.h"
#include "test_check.h"

/* The index of the first mark of m with ready >= need, by a plain scan
   of the marks as added (the model; -1: none).  */
static int
model_first (const size_t *added, int n, size_t need)
{
  const int kept = n < GT_MARKS ? n : GT_MARKS;
  for (int j = 0; j < kept; j++)
    {
      /* past the slots, the last slot holds the last mark added */
      const size_t r = j == GT_MARKS - 1 ? added[n - 1] : added[j];
      if (r >= need)
        return j;
    }
  return -1;
}

int
main (void)
{
  gt_marks m;
  memset (&m, 0, sizeof m);
  check (gt_marks_first (&m, 1) == -1 && gt_marks_ready (&m) == 0,
         "no marks: none holds anything");

  /* four quarters of a 512 MB part, as a band hands them on */
  const size_t q = (size_t) 128 << 20;
  int ok = 1;
  for (int i = 0; i < 4; i++)
    ok &= gt_marks_next (&m) == i && gt_marks_add (&m, (i + 1) * q) == i;
  check (ok && m.count == 4 && gt_marks_ready (&m) == 4 * q,
         "each mark its own slot, in order");
  check (gt_marks_first (&m, 1) == 0 && gt_marks_first (&m, q) == 0,
         "the first quarter's bytes: the first mark, not the last");
  check (gt_marks_first (&m, q + 1) == 1 && gt_marks_first (&m, 3 * q) == 2,
         "a need inside a quarter: that quarter's mark");
  check (gt_marks_first (&m, 4 * q) == 3, "all of the part: the last mark");
  check (gt_marks_first (&m, 4 * q + 1) == -1,
         "more than was handed on: none yet");

  /* more marks than slots: the last slot moves on */
  memset (&m, 0, sizeof m);
  ok = 1;
  for (int i = 0; i < GT_MARKS + 10; i++)
    {
      const int next = gt_marks_next (&m);
      ok &= gt_marks_add (&m, (size_t) (i + 1) * 100) == next;
    }
  check (ok && m.count == GT_MARKS
         && gt_marks_ready (&m) == (size_t) (GT_MARKS + 10) * 100,
         "past the slots: the last mark holds the last bytes");
  check (gt_marks_first (&m, 100) == 0
         && gt_marks_first (&m, (size_t) (GT_MARKS - 1) * 100) == GT_MARKS - 2,
         "past the slots: the earlier marks stay as they were");
  check (gt_marks_first (&m, (size_t) GT_MARKS * 100) == GT_MARKS - 1,
         "past the slots: a need beyond them goes to the last (later) mark");

  /* random rising marks against the model */
  srand (7);
  ok = 1;
  for (int round = 0; round < 2000 && ok; round++)
    {
      size_t added[3 * GT_MARKS];
      const int n = 1 + rand () % (3 * GT_MARKS);
      memset (&m, 0, sizeof m);
      size_t r = 0;
      for (int i = 0; i < n; i++)
        {
          r += 1 + (size_t) (rand () % 1000);
          added[i] = r;
          gt_marks_add (&m, r);
        }
      for (int t = 0; t < 20 && ok; t++)
        {
          const size_t need = 1 + (size_t) rand () % (r + 500);
          const int j = gt_marks_first (&m, need);
          ok &= j == model_first (added, n, need);
          /* the one chosen holds the need, the one before it does not */
          ok &= j < 0 || (m.ready[j] >= need
                          && (j == 0 || m.ready[j - 1] < need));
        }
    }
  check (ok, "random rising marks: the first that holds the need");
  return checks_done ();
}
