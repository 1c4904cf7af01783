/* gt_locked.c -- results locked in place (see gt_locked.h).

   Staged, each byte of C crosses the host's memory three times: the copy
   engine writes a slot, a copy thread reads it and writes the result.
   Written straight into page-locked memory it crosses once, and the
   staging's threads and memory are left to the copies in: on the hosts
   measured, uploads staged beside downloads straight moved a third more
   than both staged (bench/RESULTS.md).  Locking (cudaHostRegister) runs
   at a third of the staging's rate, so it pays only for memory that comes
   back: a loop's freed result, which the result heap (gt_heap.c) makes
   the next one's.  So a range is locked the second time it is a result,
   and stays locked from call to call.

   The lock holds the pages that were there when it was taken.  Where the
   process's page at an address is replaced later (the heap trimmed and
   grown again, malloc_trim), the copy engine writes the old page and the
   process never sees it.  Nothing tells of that, so each copy out checks
   (gt_locked_mark, gt_locked_unwritten): the pages it did not reach are
   copied again through the staging from the result still on the device,
   and the range is unlocked.  */

#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_locked.h"

#define PAGE ((uintptr_t) 4096)
#define SENTINEL 0x7fa5a5a5u   /* a float signalling NaN: the GPU's
                                  arithmetic writes quiet NaNs only */
#define LOCKED_MAX 8           /* ranges locked at once */
#define SEEN_MAX 4             /* results remembered, not locked */

typedef struct
{
  uintptr_t lo, hi;     /* whole pages */
  unsigned long used;   /* when last a result (LRU) */
} range;

static int state;             /* 0 not read since a reset, 1 on, -1 off */
static size_t budget;         /* bytes locked at most */
static int test_drops;        /* GPU_TILED_TEST_STALE calls left */
static range locked[LOCKED_MAX];
static range seen[SEEN_MAX];
static size_t locked_bytes;
static unsigned long tick;
static unsigned long direct_products, stale_pages;   /* since a reset */
static int stale_now;         /* pages stale in the product under way */

static void
settle (void)
{
  if (state)
    return;
  const char *v = getenv ("GPU_TILED_LOCK_RESULTS");
  budget = gt_result_heap_budget ();
  state = budget && !(v && v[0] == '0' && !v[1]) ? 1 : -1;
  const char *t = getenv ("GPU_TILED_TEST_STALE");
  test_drops = t ? atoi (t) : 0;
}

static void
unlock (range *r)
{
  cudaHostUnregister ((void *) r->lo);
  cudaGetLastError ();
  locked_bytes -= r->hi - r->lo;
  r->lo = r->hi = 0;
}

/* Whether [lo, hi) was a result of one of the last SEEN_MAX calls; it is
   remembered as the latest either way.  */
static int
seen_before (uintptr_t lo, uintptr_t hi)
{
  int i = 0;
  while (i < SEEN_MAX - 1 && !(seen[i].lo == lo && seen[i].hi == hi))
    i++;
  const int found = seen[i].lo == lo && seen[i].hi == hi;
  for (; i > 0; i--)   /* the match, or the oldest, makes room */
    seen[i] = seen[i - 1];
  seen[0].lo = lo;
  seen[0].hi = hi;
  return found;
}

/* Room for [lo, hi): ranges it overlaps unlocked (a lock may not
   overlap another), then the least recently used while over the budget
   or out of entries.  Returns the free entry.  */
static range *
make_room (uintptr_t lo, uintptr_t hi)
{
  for (int i = 0; i < LOCKED_MAX; i++)
    if (locked[i].hi && locked[i].lo < hi && lo < locked[i].hi)
      unlock (&locked[i]);
  for (;;)
    {
      range *free_r = NULL, *lru = NULL;
      for (int i = 0; i < LOCKED_MAX; i++)
        if (!locked[i].hi)
          free_r = free_r ? free_r : &locked[i];
        else if (!lru || locked[i].used < lru->used)
          lru = &locked[i];
      if (free_r && locked_bytes + (hi - lo) <= budget)
        return free_r;
      unlock (lru);
    }
}

int
gt_locked_result (void *C, size_t bytes)
{
  settle ();
  if (state < 0 || !bytes)
    return 0;
  const uintptr_t lo = (uintptr_t) C / PAGE * PAGE;
  const uintptr_t hi = ((uintptr_t) C + bytes + PAGE - 1) / PAGE * PAGE;
  for (int i = 0; i < LOCKED_MAX; i++)
    if (locked[i].hi && locked[i].lo <= lo && hi <= locked[i].hi)
      {
        locked[i].used = ++tick;
        return 1;
      }
  if (!seen_before (lo, hi) || hi - lo > budget)
    return 0;
  range *r = make_room (lo, hi);
  if (cudaHostRegister ((void *) lo, hi - lo, cudaHostRegisterPortable)
      != cudaSuccess)
    {
      /* no device, or memory someone else locked: staged until a reset */
      cudaGetLastError ();
      state = -1;
      return 0;
    }
  r->lo = lo;
  r->hi = hi;
  r->used = ++tick;
  locked_bytes += hi - lo;
  return 1;
}

void
gt_locked_mark (char *p, size_t bytes)
{
  const uintptr_t end = (uintptr_t) p + bytes;
  for (uintptr_t a = (uintptr_t) p; a < end; a = (a / PAGE + 1) * PAGE)
    *(volatile uint32_t *) a = SENTINEL;
}

size_t
gt_locked_unwritten (const char *p, size_t bytes)
{
  const uintptr_t end = (uintptr_t) p + bytes;
  size_t n = 0;
  for (uintptr_t a = (uintptr_t) p; a < end; a = (a / PAGE + 1) * PAGE)
    n += *(const volatile uint32_t *) a == SENTINEL;
  return n;
}

void
gt_locked_stale (size_t n)
{
  __atomic_fetch_add (&stale_pages, n, __ATOMIC_RELAXED);
  __atomic_store_n (&stale_now, 1, __ATOMIC_RELAXED);
}

void
gt_locked_settle (void *C, size_t bytes, int ok)
{
  if (ok)
    __atomic_fetch_add (&direct_products, 1, __ATOMIC_RELAXED);
  if (!__atomic_exchange_n (&stale_now, 0, __ATOMIC_RELAXED))
    return;
  const uintptr_t lo = (uintptr_t) C, hi = lo + bytes;
  for (int i = 0; i < LOCKED_MAX; i++)
    if (locked[i].hi && locked[i].lo < hi && lo < locked[i].hi)
      unlock (&locked[i]);
}

void
gt_locked_test_drop (void *C, size_t bytes)
{
  if (test_drops <= 0)
    return;
  test_drops--;
  /* 16 whole pages from the middle of C (its memory is not a result
     yet: nothing of the caller's is lost) */
  const uintptr_t mid = ((uintptr_t) C + bytes / 2) / PAGE * PAGE;
  if (mid >= (uintptr_t) C && mid + 16 * PAGE <= (uintptr_t) C + bytes)
    madvise ((void *) mid, 16 * PAGE, MADV_DONTNEED);
}

void
gt_locked_forget (void)
{
  for (int i = 0; i < LOCKED_MAX; i++)
    if (locked[i].hi)
      unlock (&locked[i]);
  for (int i = 0; i < SEEN_MAX; i++)
    seen[i].lo = seen[i].hi = 0;
  state = 0;
  __atomic_store_n (&direct_products, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&stale_pages, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&stale_now, 0, __ATOMIC_RELAXED);
}

size_t
gt_results_locked_bytes (void)
{
  return locked_bytes;
}

unsigned long
gt_results_direct (void)
{
  return __atomic_load_n (&direct_products, __ATOMIC_RELAXED);
}

unsigned long
gt_results_stale_pages (void)
{
  return __atomic_load_n (&stale_pages, __ATOMIC_RELAXED);
}
