/* gt_marks.h -- how far a band of a split has handed its part of a
   shared A on (internal to the host layer; plain C, so tests/test_marks.c
   runs it without a GPU).

   Each time the band queues more of its part it adds a mark: A's bytes
   up to `ready` are there once the mark's event has happened on its
   device (the band's events, one a slot: the context's a_done).
   Another band that needs the bytes up to `need` waits for the first mark
   that holds them, not for the last: the marks after it stand for copies
   queued later, which may still be on their way.  */

#ifndef GT_MARKS_H
#define GT_MARKS_H

#include <stddef.h>

/* Marks a part keeps; once they run out, the last moves on (a waiter for
   it then waits for a later record: longer, never too short).  */
#define GT_MARKS 64

typedef struct
{
  int count;
  size_t ready[GT_MARKS];   /* rising */
} gt_marks;

/* The slot the next mark goes to (the slot of its event).  */
static inline int
gt_marks_next (const gt_marks *m)
{
  return m->count < GT_MARKS ? m->count : GT_MARKS - 1;
}

/* The mark that ready goes to (gt_marks_next's slot).  */
static inline int
gt_marks_add (gt_marks *m, size_t ready)
{
  const int j = gt_marks_next (m);
  m->ready[j] = ready;
  m->count = j + 1;
  return j;
}

/* The bytes the last mark holds (0: none yet).  */
static inline size_t
gt_marks_ready (const gt_marks *m)
{
  return m->count ? m->ready[m->count - 1] : 0;
}

/* The first mark that holds the bytes up to need; -1: none does yet.  */
static inline int
gt_marks_first (const gt_marks *m, size_t need)
{
  for (int j = 0; j < m->count; j++)
    if (m->ready[j] >= need)
      return j;
  return -1;
}

#endif
