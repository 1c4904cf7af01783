/* test_locked.c -- tests of results locked in place (src/host/gt_locked.c)
   without a GPU: the CUDA runtime's cudaHostRegister and
   cudaHostUnregister are stand-ins here that keep the ranges and refuse
   overlapping ones, as the runtime does.  When a range is locked, what
   is unlocked to make room, the check of a copy's pages, the options.
   Prints "N passed, N failed".  */

#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "gpu_tiled.h"
#include "gt_heap.h"
#include "gt_locked.h"
#include "test_check.h"

#define MIB ((size_t) 1 << 20)
#define MAX_REG 64

static struct { uintptr_t lo, hi; int dev; } reg[MAX_REG];
static int registers, refuse, current;

cudaError_t
cudaGetDevice (int *d)
{
  *d = current;
  return cudaSuccess;
}

cudaError_t
cudaSetDevice (int d)
{
  if (d < 0 || d > 1)   /* two devices here */
    return cudaErrorInvalidDevice;
  current = d;
  return cudaSuccess;
}

cudaError_t
cudaHostRegister (void *p, size_t bytes, unsigned int flags)
{
  (void) flags;
  const uintptr_t lo = (uintptr_t) p, hi = lo + bytes;
  if (refuse || lo % 4096 || bytes % 4096)
    return cudaErrorInvalidValue;
  for (int i = 0; i < MAX_REG; i++)
    if (reg[i].hi && reg[i].lo < hi && lo < reg[i].hi)
      return cudaErrorHostMemoryAlreadyRegistered;
  for (int i = 0; i < MAX_REG; i++)
    if (!reg[i].hi)
      {
        reg[i].lo = lo;
        reg[i].hi = hi;
        reg[i].dev = current;
        registers++;
        return cudaSuccess;
      }
  return cudaErrorMemoryAllocation;
}

cudaError_t
cudaHostUnregister (void *p)
{
  for (int i = 0; i < MAX_REG; i++)
    if (reg[i].hi && reg[i].lo == (uintptr_t) p && reg[i].dev == current)
      {
        reg[i].lo = reg[i].hi = 0;
        return cudaSuccess;
      }
  return cudaErrorHostMemoryNotRegistered;
}

cudaError_t
cudaGetLastError (void)
{
  return cudaSuccess;
}

/* whether p starts a range registered now */
static int
is_registered (const char *p)
{
  const uintptr_t lo = (uintptr_t) p / 4096 * 4096;
  for (int i = 0; i < MAX_REG; i++)
    if (reg[i].hi && reg[i].lo == lo)
      return 1;
  return 0;
}

/* whether [p, p + bytes) lies in one registered range (a copy may not
   cross from one into another) */
static int
within_one (const char *p, size_t bytes)
{
  for (int i = 0; i < MAX_REG; i++)
    if (reg[i].hi && reg[i].lo <= (uintptr_t) p
        && (uintptr_t) p + bytes <= reg[i].hi)
      return 1;
  return 0;
}

/* bytes registered now (the stand-in's own count) */
static size_t
registered (void)
{
  size_t b = 0;
  for (int i = 0; i < MAX_REG; i++)
    b += reg[i].hi - reg[i].lo;
  return b;
}

static void
options (const char *heap, const char *lock, const char *stale)
{
  setenv ("GPU_TILED_RESULT_HEAP", heap, 1);
  if (lock)
    setenv ("GPU_TILED_LOCK_RESULTS", lock, 1);
  else
    unsetenv ("GPU_TILED_LOCK_RESULTS");
  if (stale)
    setenv ("GPU_TILED_TEST_STALE", stale, 1);
  else
    unsetenv ("GPU_TILED_TEST_STALE");
  gt_heap_forget ();
  gt_locked_forget ();
  registers = refuse = 0;
}

static char *
pages (size_t bytes)
{
  void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    abort ();
  memset (p, 1, bytes);
  return (char *) p;
}

static void
test_when_locked (void)
{
  options ("268435456", NULL, NULL);   /* 256 MiB */
  char *m = pages (160 * MIB);
  char *a = m + 100, *b = m + 40 * MIB + 8, *c = m + 80 * MIB;
  check (!gt_locked_result (a, 32 * MIB, -1), "a result the first time: staged");
  check (registers == 0, "and nothing locked");
  check (gt_locked_result (a, 32 * MIB, -1), "the same range again: locked");
  check (registers == 1 && gt_results_locked_bytes () == registered ()
         && registered () == 32 * MIB + 4096,
         "its whole pages, once");
  check (gt_locked_result (a, 32 * MIB, -1) && registers == 1,
         "a third time: locked still, no new lock");
  check (gt_locked_result (a + 4096, 16 * MIB, -1) && registers == 1,
         "a result inside a locked range: locked, no new lock");
  /* results alternating over three ranges: each locked at its second */
  check (!gt_locked_result (b, 32 * MIB, -1) && !gt_locked_result (c, 32 * MIB, -1),
         "two other results: staged");
  check (gt_locked_result (b, 32 * MIB, -1) && gt_locked_result (c, 32 * MIB, -1),
         "each again, a call apart: locked");
  check (gt_results_locked_bytes () == registered (), "the count agrees");
  /* a range over two locked ones: one lock in place of the three (a
     copy may not cross from one lock into another) */
  char *d = m + 20 * MIB;
  const int before = registers;
  gt_locked_result (d, 32 * MIB, -1);
  check (gt_locked_result (d, 32 * MIB, -1) && registers == before + 1
         && within_one (d, 32 * MIB),
         "a range over two locked ones: one lock over all three");
  check (is_registered (a) && !is_registered (b) && within_one (b, 32 * MIB)
         && registered () == 72 * MIB + 4096 + 32 * MIB
         && gt_results_locked_bytes () == registered (),
         "in place of them (the stand-in refuses an overlap)");
  check (gt_locked_result (d + 4 * MIB, 40 * MIB, -1) && registers == before + 1,
         "a result across the old two: locked, nothing new");
  gt_locked_forget ();
  check (registered () == 0 && gt_results_locked_bytes () == 0,
         "forget: every range unlocked");
  munmap (m, 160 * MIB);
}

/* A loop's C = A*B: the new result is made while the last is alive, so
   results alternate between two ranges that share a page.  */
static void
test_loop (void)
{
  options ("268435456", NULL, NULL);
  char *m = pages (80 * MIB);
  char *x = m + 16, *y = m + 36 * MIB + 2048;   /* a page shared */
  for (int call = 0; call < 10; call++)
    gt_locked_result (call % 2 ? y : x, 36 * MIB, -1);
  const int regs = registers;
  for (int call = 0; call < 10; call++)
    gt_locked_result (call % 2 ? y : x, 36 * MIB, -1);
  check (regs <= 3 && registers == regs && within_one (x, 36 * MIB)
         && within_one (y, 36 * MIB),
         "a loop's two results sharing a page: one lock, kept");
  /* memory gone (a heap trimmed): its lock goes at the next lock */
  char *n = pages (40 * MIB);   /* before: not in the hole left */
  munmap (m, 80 * MIB);
  gt_locked_result (n, 36 * MIB, -1);
  gt_locked_result (n, 36 * MIB, -1);
  check (registered () == 36 * MIB && is_registered (n),
         "ranges whose memory is gone: unlocked");
  munmap (n, 40 * MIB);
}

/* Locks taken under two devices; one device's context lost.  */
static void
test_devices (void)
{
  options ("268435456", NULL, NULL);
  char *m = pages (80 * MIB);
  current = 0;
  gt_locked_result (m, 36 * MIB, -1);
  gt_locked_result (m, 36 * MIB, -1);
  current = 1;
  gt_locked_result (m + 40 * MIB, 36 * MIB, -1);
  gt_locked_result (m + 40 * MIB, 36 * MIB, -1);
  check (registers == 2, "locked under devices 0 and 1");
  current = 1;
  gt_locked_forget_lost (1);
  check (current == 1 && !is_registered (m) && is_registered (m + 40 * MIB)
         && gt_results_locked_bytes () == 0,
         "device 1 lost: 0's unlocked under 0, 1's left to its reset");
  for (int i = 0; i < MAX_REG; i++)
    reg[i].lo = reg[i].hi = 0;
  /* locked under the device the product runs on, not the current one */
  options ("268435456", NULL, NULL);
  current = 0;
  gt_locked_result (m, 36 * MIB, 1);
  gt_locked_result (m, 36 * MIB, 1);
  int under = -1;
  for (int i = 0; i < MAX_REG; i++)
    if (reg[i].hi)
      under = reg[i].dev;
  check (under == 1 && current == 0,
         "locked under the product's device, the current one kept");
  gt_locked_forget ();
  check (registered () == 0 && current == 0, "and unlocked under it");
  gt_locked_result (m, 36 * MIB, 5);
  check (!gt_locked_result (m, 36 * MIB, 5) && registered () == 0
         && current == 0, "a device that is not there: staged");
  check (gt_locked_result (m, 36 * MIB, 0) && registered () == 36 * MIB,
         "and locking still on");
  munmap (m, 80 * MIB);
}

static void
test_budget (void)
{
  options ("104857600", NULL, NULL);   /* 100 MiB */
  char *m = pages (200 * MIB);
  char *r[4] = { m, m + 48 * MIB, m + 96 * MIB, m + 144 * MIB };
  for (int i = 0; i < 3; i++)
    {
      gt_locked_result (r[i], 40 * MIB, -1);
      gt_locked_result (r[i], 40 * MIB, -1);
    }
  check (registered () == 80 * MIB, "a third 40 MiB over 100: the oldest out");
  check (!is_registered (r[0]) && is_registered (r[1])
         && is_registered (r[2]), "the oldest unlocked");
  check (gt_locked_result (r[1], 40 * MIB, -1) && registers == 3,
         "a result in a locked range: no new lock");
  check (gt_locked_result (r[0], 40 * MIB, -1) && !is_registered (r[2])
         && registered () == 80 * MIB,
         "the oldest back (seen lately): locked, the least used out");
  check (!gt_locked_result (m, 120 * MIB, -1) && !gt_locked_result (m, 120 * MIB, -1)
         && registered () == 80 * MIB, "a range over the budget: never");
  options ("104857600", "0", NULL);
  gt_locked_result (r[3], 40 * MIB, -1);
  check (!gt_locked_result (r[3], 40 * MIB, -1) && registers == 0,
         "GPU_TILED_LOCK_RESULTS=0: never");
  options ("0", NULL, NULL);
  gt_locked_result (r[3], 40 * MIB, -1);
  check (!gt_locked_result (r[3], 40 * MIB, -1), "the result heap off: never");
  options ("104857600", NULL, NULL);
  refuse = 1;
  gt_locked_result (r[3], 40 * MIB, -1);
  check (!gt_locked_result (r[3], 40 * MIB, -1), "a lock refused: staged");
  refuse = 0;
  gt_locked_result (r[1], 40 * MIB, -1);
  check (!gt_locked_result (r[1], 40 * MIB, -1) && registers == 0,
         "and no more locks until forget");
  munmap (m, 200 * MIB);
}

static void
test_check_pages (void)
{
  char *m = pages (64 * MIB);
  /* floats from a page's middle to another's, 4 bytes into the last */
  char *p = m + 4096 + 2052;
  const size_t bytes = 10 * 4096 + 4096 - 2052 + 4;   /* pages 1 .. 12 */
  gt_locked_mark (p, bytes);
  check (gt_locked_unwritten (p, bytes) == 12, "a word of each of 12 pages");
  check (m[4096 + 2048] == 1 && m[4096 + 2052 + bytes] == 1,
         "nothing outside the range written");
  memset (p, 0, 4096 - 2052);   /* the first page's part */
  memset (m + 3 * 4096, 0, 2 * 4096);
  memset (p + bytes - 4, 0, 4);   /* the last float, alone on its page */
  check (gt_locked_unwritten (p, bytes) == 8, "4 pages written: 8 left");
  /* 16 pages replaced under the lock before the mark: the engine writes
     the old pages, the process sees the marks in the new */
  madvise (m + 8 * MIB, 16 * 4096, MADV_DONTNEED);
  gt_locked_mark (m, 64 * MIB);
  memset (m, 2, 8 * MIB);
  memset (m + 8 * MIB + 16 * 4096, 2, 56 * MIB - 16 * 4096);
  check (gt_locked_unwritten (m, 64 * MIB) == 16,
         "pages replaced under the lock: found");
  munmap (m, 64 * MIB);
}

static void
test_stale (void)
{
  options ("268435456", NULL, "1");
  char *m = pages (64 * MIB);
  gt_locked_result (m, 48 * MIB, -1);
  check (gt_locked_result (m, 48 * MIB, -1), "locked");
  gt_locked_test_drop (m, 48 * MIB);
  unsigned char in[16];
  mincore (m + 24 * MIB, 16 * 4096, in);
  int dropped = 1;
  for (int i = 0; i < 16; i++)
    dropped &= !(in[i] & 1);
  check (dropped, "GPU_TILED_TEST_STALE: 16 pages from C's middle dropped");
  memset (m + 24 * MIB, 3, 16 * 4096);
  gt_locked_test_drop (m, 48 * MIB);
  mincore (m + 24 * MIB, 16 * 4096, in);
  check ((in[0] & 1) && m[24 * MIB] == 3, "and only at its first product");
  gt_locked_settle (m, 48 * MIB, 1);
  check (gt_results_direct () == 0, "no copy straight: not counted");
  gt_locked_went_straight ();
  gt_locked_stale (16);
  gt_locked_settle (m, 48 * MIB, 1);
  check (gt_results_stale_pages () == 16 && gt_results_direct () == 1,
         "counted");
  check (registered () == 0 && gt_results_locked_bytes () == 0,
         "the range unlocked");
  check (gt_locked_result (m, 48 * MIB, -1) && registered () == 48 * MIB,
         "and locked again at the next call");
  gt_locked_went_straight ();
  gt_locked_settle (m, 48 * MIB, 0);
  check (gt_results_direct () == 1 && registered () == 48 * MIB,
         "a product that failed: not counted, still locked");
  gt_locked_forget ();
  check (gt_results_stale_pages () == 0 && gt_results_direct () == 0,
         "forget: counts from zero");
  munmap (m, 64 * MIB);
}

int
main (void)
{
  test_when_locked ();
  test_loop ();
  test_devices ();
  test_budget ();
  test_check_pages ();
  test_stale ();
  return checks_done ();
}
