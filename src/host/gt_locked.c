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
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_options.h"
#include "gt_heap.h"
#include "gt_locked.h"
#include "gt_lock_choice.h"

#define MARK_STEP ((uintptr_t) GT_LOCKED_STEP)
#define SENTINEL 0x7fa5a5a5u   /* a float signalling NaN: the GPU's
                                  arithmetic writes quiet NaNs only */
#define LOCKED_MAX 16          /* ranges locked at once */
#define SEEN_RESULTS 4         /* ranges remembered, not locked: the
                                  last results' */
#define SEEN_OPERANDS 8        /* and the last operands' */
#define SHUN_MAX 4             /* operands found not the lock's */
#define SHUN_CALLS 16          /* not locked again for so many calls */
/* The default budget of locks: an eighth of the host's memory, at most
   32 GiB, and never less than the result heap's.  The heap's own (a
   sixteenth, at most 4 GiB) left a split complex single 16384^3 with B
   staged (A and B 4 GiB together) and a complex double one with both:
   two GPUs' host copies at 25-30 GB/s each, and kernel 11's launches
   late behind them; with 32 GiB, 0.80 and 0.89 of the time
   (bench/RESULTS.md, "Operands locked beyond the result heap's budget").
   Where GPU_TILED_RESULT_HEAP sets a budget, locks keep to it.  */
#define LOCK_SHARE 8
#define LOCK_DEFAULT_MAX ((size_t) 32 << 30)

typedef struct
{
  uintptr_t lo, hi;     /* whole pages; hi 0: a free entry */
  unsigned long used;   /* when last part of a result (LRU) */
  int dev;              /* the device it was locked under */
} range;

static int state;             /* 0 not read since a reset, 1 on, -1 off */
static int operands_on;       /* operands may be locked (unless
                                 GPU_TILED_LOCK_OPERANDS=0) */
static size_t budget;         /* bytes locked at most */
static int test_drops;        /* GPU_TILED_TEST_STALE calls left */
static int trace;             /* GPU_TILED_TRACE: the probes' times told */
static range locked[LOCKED_MAX];
static range seen[SEEN_RESULTS + SEEN_OPERANDS];   /* results first */
static range shun[SHUN_MAX];  /* used: the call from which it may be
                                 locked again */
static size_t locked_bytes;
static unsigned long tick;
static unsigned long call_tick;   /* tick when the call under way began */
static unsigned long calls;
static int drop_now;          /* GPU_TILED_TEST_STALE: this call drops */
static int dropped;           /* and it did */
static unsigned long direct_products, stale_pages;   /* since a reset */
static unsigned long in_products, in_stale_pages;
static int stale_now;         /* pages stale in the product under way */
static int straight_now;      /* copies went straight in it */
static int in_now;            /* uploads read an operand straight in it */
static int fresh;             /* the call under way took a new lock, or
                                 gave one up */

static uintptr_t
page_size (void)
{
  const long p = sysconf (_SC_PAGESIZE);
  return p > 0 ? (uintptr_t) p : 4096;
}

static size_t
lock_budget (void)
{
  const size_t heap = gt_result_heap_budget ();
  if (!heap || gt_result_heap_given ())
    return heap;
  const size_t b = gt_host_memory_share (LOCK_SHARE, LOCK_DEFAULT_MAX);
  return b > heap ? b : heap;
}

/* The budget as the options say it now: 0 under GPU_TILED_LOCK_RESULTS=0.  */
static size_t
budget_now (void)
{
  const char *v = getenv ("GPU_TILED_LOCK_RESULTS");
  return v && v[0] == '0' && !v[1] ? 0 : lock_budget ();
}

static void
settle (void)
{
  if (state)
    return;
  budget = budget_now ();
  state = budget ? 1 : -1;
  operands_on = gt_operands_lock_mode () != 0;
  const char *t = getenv ("GPU_TILED_TEST_STALE");
  test_drops = t ? atoi (t) : 0;
  trace = gt_trace_level () > 0;
}

/* Whether r is locked and shares a page with [lo, hi).  */
static int
overlaps (const range *r, uintptr_t lo, uintptr_t hi)
{
  return r->hi && r->lo < hi && lo < r->hi;
}

/* Makes dev current for a lock's call (locks and unlocks go under the
   device a lock belongs to), *back the device to go back to (-1: none).
   0 where dev cannot be made current (the error cleared).  */
static int
enter (int dev, int *back)
{
  int cur;
  *back = -1;
  if (cudaGetDevice (&cur) != cudaSuccess || cur == dev)
    return 1;
  if (cudaSetDevice (dev) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  *back = cur;
  return 1;
}

static void
leave (int back)
{
  if (back >= 0)
    cudaSetDevice (back);
}

/* Unlocked with the device it was locked under current (a lost device's
   own: dropped, its context's reset frees them).  */
static void
unlock (range *r, int lost)
{
  if (r->dev != lost)
    {
      int back;
      enter (r->dev, &back);   /* where it cannot: under the current one */
      cudaHostUnregister ((void *) r->lo);
      leave (back);
    }
  cudaGetLastError ();
  locked_bytes -= r->hi - r->lo;
  r->lo = r->hi = 0;
  fresh = 1;   /* a call that unlocks pays for it too: no sample */
}

/* Every locked range sharing a page with [lo, hi) unlocked.  */
static void
unlock_overlapping (uintptr_t lo, uintptr_t hi)
{
  for (int i = 0; i < LOCKED_MAX; i++)
    if (overlaps (&locked[i], lo, hi))
      unlock (&locked[i], -1);
}

/* Whether [lo, hi) was one of the last SEEN_RESULTS results' ranges or
   one of the last SEEN_OPERANDS operands' (each kind remembered apart:
   a loop's results are remembered as before whatever its operands);
   it is remembered as the latest of its kind either way.  */
static int
seen_before (uintptr_t lo, uintptr_t hi, int operand)
{
  range *list = seen + (operand ? SEEN_RESULTS : 0);
  const int n = operand ? SEEN_OPERANDS : SEEN_RESULTS;
  int found = 0;
  for (int i = 0; i < SEEN_RESULTS + SEEN_OPERANDS; i++)
    if (seen[i].lo == lo && seen[i].hi == hi)
      {
        found = 1;
        seen[i].lo = seen[i].hi = 0;
      }
  int i = 0;   /* the first free entry, or the oldest, makes room */
  while (i < n - 1 && list[i].hi)
    i++;
  for (; i > 0; i--)
    list[i] = list[i - 1];
  list[0].lo = lo;
  list[0].hi = hi;
  return found;
}

/* The locked range holding all of [lo, hi), or NULL.  */
static range *
holding (uintptr_t lo, uintptr_t hi)
{
  for (int i = 0; i < LOCKED_MAX; i++)
    if (locked[i].hi && locked[i].lo <= lo && hi <= locked[i].hi)
      return &locked[i];
  return NULL;
}

/* [*lo, *hi) grown to take in every locked range it overlaps (a lock may
   not overlap another, and a copy may not cross from one lock into the
   next: the new lock replaces them).  Returns the bytes of the ranges
   taken in.  */
static size_t
take_in (uintptr_t *lo, uintptr_t *hi)
{
  size_t inside = 0;
  for (int grew = 1; grew;)
    {
      grew = 0;
      inside = 0;
      for (int i = 0; i < LOCKED_MAX; i++)
        if (overlaps (&locked[i], *lo, *hi))
          {
            inside += locked[i].hi - locked[i].lo;
            if (locked[i].lo < *lo || locked[i].hi > *hi)
              {
                *lo = locked[i].lo < *lo ? locked[i].lo : *lo;
                *hi = locked[i].hi > *hi ? locked[i].hi : *hi;
                grew = 1;
              }
          }
    }
  return inside;
}

/* Whether the page at p has no mapping.  */
static int
unmapped (uintptr_t p)
{
  unsigned char in;
  return mincore ((void *) p, page_size (), &in) && errno == ENOMEM;
}

/* Ranges whose memory is gone, all of it or its tail (a heap trimmed
   from its top, the range's first page still mapped or mapped again),
   hold pinned pages nothing maps: unlocked.  A lock taking such a range
   in would cover unmapped pages, which the runtime refuses (and a
   result's refused lock turns locking off until a reset).  The first and
   the last page tell: a heap gives memory back from its top, or whole
   mappings.  */
static void
unlock_gone (void)
{
  for (int i = 0; i < LOCKED_MAX; i++)
    if (locked[i].hi && (unmapped (locked[i].lo)
                         || unmapped (locked[i].hi - page_size ())))
      unlock (&locked[i], -1);
}

/* Room for a lock of [lo, hi), which replaces the `inside` bytes of the
   ranges it overlaps: the least recently used other ranges unlocked while
   over the budget or out of entries, but none the call under way uses
   (calls whose operands and result outgrow the budget would otherwise
   lock one and unlock another every time).  Returns 0 where there is
   none.  */
static int
make_room (uintptr_t lo, uintptr_t hi, size_t inside)
{
  for (;;)
    {
      int free_n = 0;
      range *lru = NULL;
      for (int i = 0; i < LOCKED_MAX; i++)
        if (!locked[i].hi)
          free_n++;
        else if (overlaps (&locked[i], lo, hi))
          free_n++;   /* to be replaced */
        else if (locked[i].used <= call_tick
                 && (!lru || locked[i].used < lru->used))
          lru = &locked[i];   /* not one this call uses */
      if (free_n > 0 && locked_bytes - inside + (hi - lo) <= budget)
        return 1;
      if (!lru)
        return 0;
      unlock (lru, -1);
    }
}

/* Locks [lo, hi) as one range, in place of the ranges inside it, under
   device dev (-1: the current one), which the product uses: a lock
   takes a context, and no other device's is made for it.  */
static int
lock_range (uintptr_t lo, uintptr_t hi, int dev, int operand)
{
  if (dev < 0 && cudaGetDevice (&dev) != cudaSuccess)
    dev = 0;
  unlock_overlapping (lo, hi);
  range *r = NULL;
  for (int i = 0; i < LOCKED_MAX && !r; i++)
    if (!locked[i].hi)
      r = &locked[i];
  int back;
  if (!enter (dev, &back))
    return 0;   /* no such device here: this call staged */
  const cudaError_t err = r ? cudaHostRegister ((void *) lo, hi - lo,
                                                cudaHostRegisterPortable
                                                | cudaHostRegisterMapped)
                            : cudaErrorMemoryAllocation;
  leave (back);
  if (err != cudaSuccess)
    {
      /* no device, or memory someone else locked: staged until a reset
         (an operand's own memory, read-only or locked by another
         library, only that operand: the caller shuns it) */
      cudaGetLastError ();
      if (!operand)
        state = -1;
      if (!operand && trace)
        fprintf (stderr, "gpu_tiled: a result's lock of %.1f MB refused "
                 "(%s): nothing locked until gpu_tiled_reset\n",
                 1e-6 * (hi - lo), cudaGetErrorString (err));
      return 0;
    }
  r->lo = lo;
  r->hi = hi;
  r->used = ++tick;
  r->dev = dev;
  locked_bytes += hi - lo;
  fresh = 1;
  return 1;
}

/* Whether [lo, hi) is shunned: an operand found not the lock's lately
   (each such range is remembered until SHUN_CALLS calls later).  */
static int
shunned (uintptr_t lo, uintptr_t hi)
{
  for (int i = 0; i < SHUN_MAX; i++)
    if (shun[i].hi && shun[i].lo == lo && shun[i].hi == hi
        && calls < shun[i].used)
      return 1;
  return 0;
}

/* gt_locked_result's rule, for a result or an operand: whether the pages
   [lo, hi) are locked now (1), locked here where they come back, or not
   (0; -1: the lock was refused).  */
static int
lock_or_hold (uintptr_t lo, uintptr_t hi, int device, int operand)
{
  range *h = holding (lo, hi);
  if (h)
    {
      h->used = ++tick;
      return 1;
    }
  if (!seen_before (lo, hi, operand) || shunned (lo, hi))
    return 0;
  unlock_gone ();
  const size_t inside = take_in (&lo, &hi);
  if (hi - lo > budget || !make_room (lo, hi, inside))
    return 0;
  return lock_range (lo, hi, device, operand) ? 1 : -1;
}

static void
pages_of (const void *p, size_t bytes, uintptr_t *lo, uintptr_t *hi)
{
  const uintptr_t page = page_size ();
  *lo = (uintptr_t) p / page * page;
  *hi = ((uintptr_t) p + bytes + page - 1) / page * page;
}

void
gt_locked_begin (void)
{
  settle ();
  /* Pinned pages of memory the process gave back keep their place in
     the devices' address space: a device buffer made there fails
     (cudaErrorAlreadyMapped, told as out of device memory with 80 GB
     free: twice, each at the first call of a product after the locked
     arrays of a smaller one were freed; bench/RESULTS.md, "Locks of
     memory given back").  So they go before any call can make one, not
     only when a new lock is taken (a mincore a page, about a
     microsecond); a call that unlocks so is no timed sample either
     (gt_locked_fresh).  */
  fresh = 0;
  if (locked_bytes)
    unlock_gone ();
  call_tick = tick;
  calls++;
  if (dropped && test_drops > 0)
    test_drops--;
  dropped = 0;
  drop_now = test_drops > 0;
}

int
gt_locked_fresh (void)
{
  return fresh;
}

int
gt_locked_result (void *C, size_t bytes, int device)
{
  settle ();
  if (state < 0 || !bytes)
    return 0;
  uintptr_t lo, hi;
  pages_of (C, bytes, &lo, &hi);
  return lock_or_hold (lo, hi, device, 0) > 0;
}

/* GPU_TILED_TEST_STALE's pages: 16 marks' whole pages from the middle
   of [p, p + bytes), *mid on; 0 where they do not fit in it.  */
static int
test_pages (const void *p, size_t bytes, uintptr_t *mid, size_t *len)
{
  const uintptr_t page = page_size ();
  *mid = ((uintptr_t) p + bytes / 2) / page * page;
  *len = (16 * MARK_STEP + page - 1) / page * page;
  return *mid >= (uintptr_t) p && *mid + *len <= (uintptr_t) p + bytes;
}

/* GPU_TILED_TEST_STALE: those pages of [p, p + bytes) replaced under the
   lock by copies of themselves (madvise, then the bytes written back),
   as an array freed and made again at the same address would be: the
   operand the caller sees is unchanged, and the probe must find them.  */
static void
test_replace (const void *p, size_t bytes)
{
  uintptr_t mid;
  size_t len;
  if (!test_pages (p, bytes, &mid, &len))
    return;
  char *keep = (char *) malloc (len);
  if (!keep)
    return;
  memcpy (keep, (const void *) mid, len);
  if (!madvise ((void *) mid, len, MADV_DONTNEED))
    memcpy ((void *) mid, keep, len);
  free (keep);
}

/* [lo, hi) (an operand's pages) is not locked again for SHUN_CALLS
   calls: in its own entry where it has one, else the oldest.  */
static void
shun_range (uintptr_t lo, uintptr_t hi)
{
  int o = 0;
  for (int i = 1; i < SHUN_MAX; i++)
    if ((shun[i].lo == lo && shun[i].hi == hi)
        || (!(shun[o].lo == lo && shun[o].hi == hi)
            && shun[i].used < shun[o].used))
      o = i;
  shun[o].lo = lo;
  shun[o].hi = hi;
  shun[o].used = calls + SHUN_CALLS + 1;
}

size_t
gt_locked_probe_told (const void *p, size_t bytes, int device, gt_workers *w,
                      int threads, int by_kernel)
{
  int back;
  size_t missed = (size_t) -1;
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  if (enter (device, &back))
    {
      missed = gt_locked_probe ((const char *) p, bytes, device, w,
                                threads, by_kernel);
      leave (back);
    }
  if (trace)
    {
      clock_gettime (CLOCK_MONOTONIC, &t1);
      fprintf (stderr, "gpu_tiled: an operand of %.1f MB probed in %.3f ms "
               "(%zd pages not the lock's)\n", 1e-6 * bytes,
               1e3 * (t1.tv_sec - t0.tv_sec) + 1e-6 * (t1.tv_nsec - t0.tv_nsec),
               (ssize_t) missed);
    }
  return missed;
}

int
gt_locked_operand (const void *p, size_t bytes, int device, int allow)
{
  settle ();
  if (state < 0 || !operands_on || !bytes || device < 0)
    return 0;
  uintptr_t lo, hi;
  pages_of (p, bytes, &lo, &hi);
  if (!allow)
    {
      /* staged this call, remembered for a call that may lock it (a lock
         it holds ages: the staged way may be the chosen one) */
      seen_before (lo, hi, 1);
      return 0;
    }
  const int got = lock_or_hold (lo, hi, device, 1);
  if (got < 0)
    shun_range (lo, hi);   /* its memory refused a lock */
  if (got <= 0)
    return 0;
  return 1;
}

void
gt_locked_test_replace (const void *p, size_t bytes)
{
  if (!drop_now)
    return;
  test_replace (p, bytes);
  dropped = 1;
}

void
gt_locked_found_stale (const void *p, size_t bytes, size_t missed)
{
  uintptr_t lo, hi;
  pages_of (p, bytes, &lo, &hi);
  if (missed != (size_t) -1)
    in_stale_pages += missed;
  unlock_overlapping (lo, hi);
  shun_range (lo, hi);
  /* what the uploads read straight is thrown away: the product runs
     again */
  __atomic_store_n (&in_now, 0, __ATOMIC_RELAXED);
}

int
gt_locked_holds (const void *p, size_t bytes)
{
  uintptr_t lo, hi;
  pages_of (p, bytes, &lo, &hi);
  return holding (lo, hi) != NULL;
}

void
gt_locked_mark (char *p, size_t bytes)
{
  const uintptr_t end = (uintptr_t) p + bytes;
  for (uintptr_t a = (uintptr_t) p; a < end;
       a = (a / MARK_STEP + 1) * MARK_STEP)
    *(volatile uint32_t *) a = SENTINEL;
}

size_t
gt_locked_unwritten (const char *p, size_t bytes)
{
  const uintptr_t end = (uintptr_t) p + bytes;
  size_t n = 0;
  for (uintptr_t a = (uintptr_t) p; a < end;
       a = (a / MARK_STEP + 1) * MARK_STEP)
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
gt_locked_went_straight (void)
{
  __atomic_store_n (&straight_now, 1, __ATOMIC_RELAXED);
}

void
gt_locked_went_in (void)
{
  __atomic_store_n (&in_now, 1, __ATOMIC_RELAXED);
}

void
gt_locked_settle (void *C, size_t bytes, int ok)
{
  if (__atomic_exchange_n (&in_now, 0, __ATOMIC_RELAXED) && ok)
    __atomic_fetch_add (&in_products, 1, __ATOMIC_RELAXED);
  if (__atomic_exchange_n (&straight_now, 0, __ATOMIC_RELAXED) && ok)
    __atomic_fetch_add (&direct_products, 1, __ATOMIC_RELAXED);
  if (!C)
    return;
  if (!__atomic_exchange_n (&stale_now, 0, __ATOMIC_RELAXED))
    return;
  unlock_overlapping ((uintptr_t) C, (uintptr_t) C + bytes);
}

void
gt_locked_test_drop (void *C, size_t bytes)
{
  if (!drop_now)
    return;
  dropped = 1;
  /* C's memory is not a result yet: nothing of the caller's is lost */
  uintptr_t mid;
  size_t len;
  if (test_pages (C, bytes, &mid, &len))
    madvise ((void *) mid, len, MADV_DONTNEED);
}

void
gt_locked_forget_lost (int lost)
{
  for (int i = 0; i < LOCKED_MAX; i++)
    if (locked[i].hi)
      unlock (&locked[i], lost);
  gt_locked_probe_forget (lost);
  for (int i = 0; i < SEEN_RESULTS + SEEN_OPERANDS; i++)
    seen[i].lo = seen[i].hi = 0;
  for (int i = 0; i < SHUN_MAX; i++)
    shun[i].lo = shun[i].hi = 0;
  state = 0;
  drop_now = dropped = fresh = 0;
  __atomic_store_n (&stale_now, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&straight_now, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&in_now, 0, __ATOMIC_RELAXED);
}

void
gt_locked_forget (void)
{
  gt_locked_forget_lost (-1);
  gt_lock_choice_forget ();
  __atomic_store_n (&direct_products, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&stale_pages, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&in_products, 0, __ATOMIC_RELAXED);
  in_stale_pages = 0;
}

size_t
gt_results_locked_bytes (void)
{
  return locked_bytes;
}

/* Read at the first product since a reset; before it, as the options
   say now, nothing stored (the product reads them then).  A refused lock
   stops new ones but keeps the budget the locks held keep to.  */
size_t
gt_lock_budget (void)
{
  return state ? budget : budget_now ();
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

unsigned long
gt_operands_direct (void)
{
  return __atomic_load_n (&in_products, __ATOMIC_RELAXED);
}

unsigned long
gt_operands_stale_pages (void)
{
  return in_stale_pages;
}
