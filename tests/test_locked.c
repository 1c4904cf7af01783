/* test_locked.c -- tests of results and operands locked in place
   (src/host/gt_locked.c, gt_locked_probe.c, gt_probe_later.c) without a
   GPU: the CUDA
   runtime's cudaHostRegister and cudaHostUnregister are stand-ins here
   that keep the ranges and refuse overlapping ones, as the runtime does;
   its device memory is host memory, and its copies to the host skip the
   pages a test says were replaced under the lock (the engine writes the
   old page there, which the process no longer sees).  When a range is
   locked, what is unlocked to make room, the check of a copy's pages, the
   operands' probe, the options.  Prints "N passed, N failed".  */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
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
static uintptr_t replaced_lo, replaced_hi;   /* pages the lock lost */
static int copies_fail;   /* the next copy of rows to the host fails
                             midway */
static int probe_copies;  /* copies to the host made */
static size_t probe_rows;  /* their rows (a probe's: its words) */
static int probe_starts;   /* probes begun (their word 0 copied) */
static int fail_at_copy;  /* that copy (counted from 1) fails midway */
static unsigned copy_delay_us;   /* each wait for the copies takes this */
static int syncs_done;           /* waits for the copies ended */

cudaError_t
cudaMalloc (void **p, size_t bytes)
{
  *p = malloc (bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t
cudaFree (void *p)
{
  free (p);
  return cudaSuccess;
}

cudaError_t
cudaMemset (void *p, int v, size_t bytes)
{
  memset (p, v, bytes);
  return cudaSuccess;
}

/* a copy to the host: counted when made or queued; fail: it fails
   midway */
typedef struct
{
  char *dst;
  const char *src;
  size_t dpitch, spitch, width, height;
  int fail;
} host_copy;

static host_copy
count_copy (void *dst, size_t dpitch, const void *src, size_t spitch,
            size_t width, size_t height)
{
  host_copy c = { (char *) dst, (const char *) src, dpitch, spitch, width,
                  height, 0 };
  probe_copies++;
  probe_rows += height;
  probe_starts += height == 1 && width == sizeof (uint32_t)
                  && src != dst;   /* a probe's word 0 */
  if (fail_at_copy == probe_copies)
    {
      fail_at_copy = 0;
      c.fail = 1;
    }
  if (copies_fail && height > 1)   /* the next copy of several rows */
    {
      copies_fail = 0;
      c.fail = 1;
    }
  return c;
}

/* its rows, each where its page is the lock's */
static cudaError_t
apply (const host_copy *c)
{
  for (size_t r = 0; r < c->height; r++)
    {
      if (c->fail && c->height > 1 && r == c->height / 2)
        return cudaErrorUnknown;
      const uintptr_t d = (uintptr_t) (c->dst + r * c->dpitch);
      if (!(replaced_lo <= d && d < replaced_hi))
        memcpy (c->dst + r * c->dpitch, c->src + r * c->spitch, c->width);
    }
  return cudaSuccess;
}

cudaError_t
cudaMemcpy (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k)
{
  (void) k;
  const host_copy c = count_copy (dst, bytes, src, bytes, bytes, 1);
  return apply (&c);
}

cudaError_t
cudaMemcpy2D (void *dst, size_t dpitch, const void *src, size_t spitch,
              size_t width, size_t height, enum cudaMemcpyKind k)
{
  (void) k;
  const host_copy c = count_copy (dst, dpitch, src, spitch, width, height);
  return apply (&c);
}

/* Copies queued on a stream are made at its synchronisation, in order; a
   failed one fails the stream there and what was queued after it is not
   made (so a pass that put words back before its copies were done would
   find them overwritten after).  One stream, one thread at a time.  */
#define QUEUED_MAX 64
static host_copy queued[QUEUED_MAX];
static int queued_n;

static cudaError_t
queue (host_copy c)
{
  if (queued_n == QUEUED_MAX)
    return cudaErrorLaunchOutOfResources;
  queued[queued_n++] = c;
  return cudaSuccess;
}

cudaError_t
cudaMemcpyAsync (void *dst, const void *src, size_t bytes,
                 enum cudaMemcpyKind k, cudaStream_t s)
{
  (void) k;
  (void) s;
  return queue (count_copy (dst, bytes, src, bytes, bytes, 1));
}

cudaError_t
cudaMemcpy2DAsync (void *dst, size_t dpitch, const void *src, size_t spitch,
                   size_t width, size_t height, enum cudaMemcpyKind k,
                   cudaStream_t s)
{
  (void) k;
  (void) s;
  return queue (count_copy (dst, dpitch, src, spitch, width, height));
}

cudaError_t
cudaStreamSynchronize (cudaStream_t s)
{
  (void) s;
  if (copy_delay_us)   /* a slow probe, for a run that begins meanwhile */
    usleep (copy_delay_us);
  cudaError_t err = cudaSuccess;
  for (int i = 0; i < queued_n && err == cudaSuccess; i++)
    err = apply (&queued[i]);
  queued_n = 0;
  __atomic_fetch_add (&syncs_done, 1, __ATOMIC_SEQ_CST);
  return err;
}

/* the product runs' uploads, for the probe after them: none queued
   here; a failing wait stands for a device lost meanwhile */
static int events_waited, event_fails;

static int events_pending;   /* uploads still under way */
static cudaEvent_t event_pending;   /* this one's upload still under way */

cudaError_t
cudaEventSynchronize (cudaEvent_t e)
{
  (void) e;
  events_waited++;
  return event_fails ? cudaErrorUnknown : cudaSuccess;
}

cudaError_t
cudaEventQuery (cudaEvent_t e)
{
  (void) e;
  return event_fails ? cudaErrorUnknown
         : events_pending
           || (e && e == __atomic_load_n (&event_pending, __ATOMIC_SEQ_CST))
           ? cudaErrorNotReady
         : cudaSuccess;
}

/* The device's view of locked memory: the host's addresses moved by
   DEVICE_ALIAS, so that a host address given where the device's is
   meant is caught; none outside a lock, nor where map_refused (the
   probe's tokens then go by copies).  */
#define DEVICE_ALIAS ((uintptr_t) 1 << 44)
static int map_refused;
static int token_kernels;   /* the token kernel's launches */

static int
in_lock (uintptr_t a)
{
  for (int i = 0; i < MAX_REG; i++)
    if (reg[i].hi && reg[i].lo <= a && a < reg[i].hi)
      return 1;
  return 0;
}

cudaError_t
cudaHostGetDevicePointer (void **d, void *p, unsigned int flags)
{
  (void) flags;
  if (map_refused || !in_lock ((uintptr_t) p))
    return cudaErrorInvalidValue;
  *d = (void *) ((uintptr_t) p + DEVICE_ALIAS);
  return cudaSuccess;
}

/* The plan layer's token kernel, as the copies it stands in for (word 0
   alone, the words after it as rows a page apart, queued like them: the
   stores of a page the lock no longer holds go to the old page), at the
   host addresses its device addresses stand for; an address outside the
   locks fails the launch.  */
cudaError_t
gt_plan_write_tokens (void *word0, void *first, size_t step, size_t b,
                      size_t e, unsigned token, cudaStream_t s)
{
  static uint32_t t;
  t = token;
  token_kernels++;
  char *w0 = (char *) ((uintptr_t) word0 - DEVICE_ALIAS);
  char *f = (char *) ((uintptr_t) first - DEVICE_ALIAS);
  const size_t i = b ? b : 1;
  if ((b == 0 && !in_lock ((uintptr_t) w0))
      || (i < e && !in_lock ((uintptr_t) (f + (i - 1) * step))))
    return cudaErrorIllegalAddress;
  cudaError_t err = cudaSuccess;
  if (b == 0)
    err = cudaMemcpyAsync (w0, &t, sizeof t, cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess && i < e)
    err = cudaMemcpy2DAsync (f + (i - 1) * step, step, &t, 0, sizeof t,
                             e - i, cudaMemcpyDeviceToHost, s);
  return err;
}

const char *
cudaGetErrorString (cudaError_t err)
{
  return err == cudaSuccess ? "no error" : "an error";
}

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
  /* as the runtime: not where a page has no mapping */
  unsigned char *in = malloc (bytes / 4096 + 1);
  const int hole = in && mincore (p, bytes, in) && errno == ENOMEM;
  free (in);
  if (hole)
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
  set_env ("GPU_TILED_LOCK_RESULTS", lock);
  set_env ("GPU_TILED_TEST_STALE", stale);
  setenv ("GPU_TILED_LOCK_OPERANDS", "1", 1);
  gt_heap_forget ();
  gt_locked_forget ();
  registers = refuse = 0;
  replaced_lo = replaced_hi = 0;
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

/* A result of a call of its own, as gt_mtimes_host asks.  */
static int
result_call (void *C, size_t bytes, int device)
{
  gt_locked_begin ();
  return gt_locked_result (C, bytes, device);
}

static void
test_when_locked (void)
{
  options ("268435456", NULL, NULL);   /* 256 MiB */
  char *m = pages (160 * MIB);
  char *a = m + 100, *b = m + 40 * MIB + 8, *c = m + 80 * MIB;
  check (!result_call (a, 32 * MIB, -1), "a result the first time: staged");
  check (registers == 0, "and nothing locked");
  check (result_call (a, 32 * MIB, -1), "the same range again: locked");
  check (registers == 1 && gt_results_locked_bytes () == registered ()
         && registered () == 32 * MIB + 4096,
         "its whole pages, once");
  check (result_call (a, 32 * MIB, -1) && registers == 1,
         "a third time: locked still, no new lock");
  check (result_call (a + 4096, 16 * MIB, -1) && registers == 1,
         "a result inside a locked range: locked, no new lock");
  /* results alternating over three ranges: each locked at its second */
  check (!result_call (b, 32 * MIB, -1) && !result_call (c, 32 * MIB, -1),
         "two other results: staged");
  check (result_call (b, 32 * MIB, -1) && result_call (c, 32 * MIB, -1),
         "each again, a call apart: locked");
  check (gt_results_locked_bytes () == registered (), "the count agrees");
  /* a range over two locked ones: one lock in place of the three (a
     copy may not cross from one lock into another) */
  char *d = m + 20 * MIB;
  const int before = registers;
  result_call (d, 32 * MIB, -1);
  check (result_call (d, 32 * MIB, -1) && registers == before + 1
         && within_one (d, 32 * MIB),
         "a range over two locked ones: one lock over all three");
  check (is_registered (a) && !is_registered (b) && within_one (b, 32 * MIB)
         && registered () == 72 * MIB + 4096 + 32 * MIB
         && gt_results_locked_bytes () == registered (),
         "in place of them (the stand-in refuses an overlap)");
  check (result_call (d + 4 * MIB, 40 * MIB, -1) && registers == before + 1,
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
    result_call (call % 2 ? y : x, 36 * MIB, -1);
  const int regs = registers;
  for (int call = 0; call < 10; call++)
    result_call (call % 2 ? y : x, 36 * MIB, -1);
  check (regs <= 3 && registers == regs && within_one (x, 36 * MIB)
         && within_one (y, 36 * MIB),
         "a loop's two results sharing a page: one lock, kept");
  /* memory gone (a heap trimmed): its lock goes at the next lock */
  char *n = pages (40 * MIB);   /* before: not in the hole left */
  munmap (m, 80 * MIB);
  result_call (n, 36 * MIB, -1);
  result_call (n, 36 * MIB, -1);
  check (registered () == 36 * MIB && is_registered (n),
         "ranges whose memory is gone: unlocked");
  /* and at the next call's begin, before any device memory is made */
  munmap (n, 40 * MIB);
  gt_locked_begin ();
  check (registered () == 0, "memory gone: unlocked as the next call "
         "begins, whatever it locks");
}

/* Locks taken under two devices; one device's context lost.  */
static void
test_devices (void)
{
  options ("268435456", NULL, NULL);
  char *m = pages (80 * MIB);
  current = 0;
  result_call (m, 36 * MIB, -1);
  result_call (m, 36 * MIB, -1);
  current = 1;
  result_call (m + 40 * MIB, 36 * MIB, -1);
  result_call (m + 40 * MIB, 36 * MIB, -1);
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
  result_call (m, 36 * MIB, 1);
  result_call (m, 36 * MIB, 1);
  int under = -1;
  for (int i = 0; i < MAX_REG; i++)
    if (reg[i].hi)
      under = reg[i].dev;
  check (under == 1 && current == 0,
         "locked under the product's device, the current one kept");
  gt_locked_forget ();
  check (registered () == 0 && current == 0, "and unlocked under it");
  result_call (m, 36 * MIB, 5);
  check (!result_call (m, 36 * MIB, 5) && registered () == 0
         && current == 0, "a device that is not there: staged");
  check (result_call (m, 36 * MIB, 0) && registered () == 36 * MIB,
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
      result_call (r[i], 40 * MIB, -1);
      result_call (r[i], 40 * MIB, -1);
    }
  check (registered () == 80 * MIB, "a third 40 MiB over 100: the oldest out");
  check (!is_registered (r[0]) && is_registered (r[1])
         && is_registered (r[2]), "the oldest unlocked");
  check (result_call (r[1], 40 * MIB, -1) && registers == 3,
         "a result in a locked range: no new lock");
  check (result_call (r[0], 40 * MIB, -1) && !is_registered (r[2])
         && registered () == 80 * MIB,
         "the oldest back (seen lately): locked, the least used out");
  check (!result_call (m, 120 * MIB, -1) && !result_call (m, 120 * MIB, -1)
         && registered () == 80 * MIB, "a range over the budget: never");
  options ("104857600", "0", NULL);
  result_call (r[3], 40 * MIB, -1);
  check (!result_call (r[3], 40 * MIB, -1) && registers == 0,
         "GPU_TILED_LOCK_RESULTS=0: never");
  options ("0", NULL, NULL);
  result_call (r[3], 40 * MIB, -1);
  check (!result_call (r[3], 40 * MIB, -1), "the result heap off: never");
  options ("104857600", NULL, NULL);
  refuse = 1;
  result_call (r[3], 40 * MIB, -1);
  check (!result_call (r[3], 40 * MIB, -1), "a lock refused: staged");
  refuse = 0;
  result_call (r[1], 40 * MIB, -1);
  check (!result_call (r[1], 40 * MIB, -1) && registers == 0,
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
  gt_locked_begin ();
  gt_locked_result (m, 48 * MIB, -1);
  gt_locked_begin ();
  check (gt_locked_result (m, 48 * MIB, -1), "locked");
  gt_locked_test_drop (m, 48 * MIB);
  unsigned char in[16];
  mincore (m + 24 * MIB, 16 * 4096, in);
  int dropped = 1;
  for (int i = 0; i < 16; i++)
    dropped &= !(in[i] & 1);
  check (dropped, "GPU_TILED_TEST_STALE: 16 pages from C's middle dropped");
  gt_locked_settle (m, 48 * MIB, 1);
  check (gt_results_direct () == 0, "no copy straight: not counted");
  memset (m + 24 * MIB, 3, 16 * 4096);
  gt_locked_begin ();
  gt_locked_test_drop (m, 48 * MIB);
  mincore (m + 24 * MIB, 16 * 4096, in);
  check ((in[0] & 1) && m[24 * MIB] == 3, "and only at its first product");
  gt_locked_went_straight ();
  gt_locked_stale (16);
  gt_locked_settle (m, 48 * MIB, 1);
  check (gt_results_stale_pages () == 16 && gt_results_direct () == 1,
         "counted");
  check (registered () == 0 && gt_results_locked_bytes () == 0,
         "the range unlocked");
  gt_locked_begin ();
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

/* An operand's call: begin, then the operand as gt_mtimes_host asks,
   one product run that reads it, and the probe after it; staged where
   the probe found a page not the lock's (the product runs again so).  */
static int
operand_call (const char *p, size_t bytes, gt_workers *w, int threads)
{
  gt_locked_begin ();
  int in = gt_locked_operand (p, bytes, 0, 1);
  if (in)
    gt_locked_test_replace (p, bytes);
  gt_probe_begin (p, bytes, in, NULL, 0, 0, 0, 0);
  int mask = gt_probe_reads_begin ();
  gt_probe_read_done (&mask, -1, NULL);
  gt_probe_now (1, w, threads);
  in = gt_probe_end (1, w, threads) && in;
  if (in)
    gt_locked_went_in ();
  gt_locked_settle (NULL, 0, 1);
  return in;
}

/* whether every byte of [p, p + n) is v, or i's byte pattern below */
static int
all_bytes (const char *p, size_t n, char v)
{
  for (size_t i = 0; i < n; i++)
    if (p[i] != v)
      return 0;
  return 1;
}

static void
test_operands (gt_workers *w, int threads)
{
  options ("268435456", NULL, NULL);
  char *m = pages (96 * MIB);
  /* 4-byte aligned, from a page's middle: its first word is not a
     page's */
  const char *a = m + 4096 + 1028;
  const size_t bytes = 40 * MIB + 12;
  check (!operand_call (a, bytes, w, threads) && registers == 0,
         "an operand the first time: staged");
  probe_copies = 0;
  check (operand_call (a, bytes, w, threads) && registers == 1
         && within_one (a, bytes), "the same again: locked, checked");
  check (probe_copies == 3, "one word and a 2-D copy for each of two chunks");
  check (all_bytes (m, 96 * MIB, 1), "every word put back, none outside");
  check (gt_operands_direct () == 1 && gt_operands_stale_pages () == 0,
         "counted");
  /* 16 pages replaced under the lock since: found, the range unlocked */
  replaced_lo = (uintptr_t) m + 16 * MIB;
  replaced_hi = replaced_lo + 16 * 4096;
  check (!operand_call (a, bytes, w, threads) && registered () == 0,
         "16 pages replaced under the lock: staged, unlocked");
  check (gt_operands_stale_pages () == 16 && all_bytes (m, 96 * MIB, 1),
         "exactly those 16 found, every word as it was");
  replaced_lo = replaced_hi = 0;
  int later = 0;
  for (int call = 0; call < 16; call++)
    later += operand_call (a, bytes, w, threads);
  check (later == 0 && registers == 1, "not locked again for 16 calls");
  check (operand_call (a, bytes, w, threads) && registers == 2,
         "then locked again");
  replaced_lo = (uintptr_t) m + 16 * MIB;
  replaced_hi = replaced_lo + 4096;
  check (!operand_call (a, bytes, w, threads) && registered () == 0,
         "stale a second time: staged, unlocked");
  replaced_lo = replaced_hi = 0;
  later = 0;
  for (int call = 0; call < 16; call++)
    later += operand_call (a, bytes, w, threads);
  check (later == 0 && registers == 2, "and shunned again for 16 calls");
  check (operand_call (a, bytes, w, threads) && registers == 3,
         "then locked again");
  /* a page that holds the token already cannot tell: staged */
  memset (m + 30 * MIB, 0xa5, 4);
  check (!operand_call (a, bytes, w, threads) && registered () == 0
         && all_bytes (m + 30 * MIB + 4, 4092, 1)
         && (unsigned char) m[30 * MIB] == 0xa5,
         "a word that held the token: staged, the word kept");
  memset (m + 30 * MIB, 1, 4);
  gt_locked_forget ();
  /* a probe that fails midway: staged, every word put back */
  operand_call (a, bytes, w, threads);
  copies_fail = 1;
  probe_copies = 0;
  check (!operand_call (a, bytes, w, threads) && all_bytes (m, 96 * MIB, 1)
         && registered () == 0 && probe_copies == 2,
         "a probe that failed midway: staged, every word put back");
  /* more pages than one probe copy takes (2^16 rows): in three chunks */
  gt_locked_forget ();
  const size_t big_bytes = 520 * MIB;
  char *big = pages (big_bytes);
  options ("1073741824", NULL, NULL);
  operand_call (big, big_bytes, w, threads);
  probe_copies = 0;
  replaced_lo = (uintptr_t) big + 500 * MIB;
  replaced_hi = replaced_lo + 3 * 4096;
  check (!operand_call (big, big_bytes, w, threads) && probe_copies == 4
         && gt_operands_stale_pages () == 3
         && all_bytes (big, big_bytes, 1),
         "520 MiB: the probe in three chunks, 3 pages in the last found");
  /* a copy that fails in the second chunk: every word put back */
  gt_locked_forget ();
  operand_call (big, big_bytes, w, threads);
  replaced_lo = replaced_hi = 0;
  probe_copies = 0;
  fail_at_copy = 3;
  check (!operand_call (big, big_bytes, w, threads) && probe_copies == 3
         && all_bytes (big, big_bytes, 1) && registered () == 0,
         "520 MiB, the second chunk's copy failed: staged, every word back");
  /* probed by the launches' waits (not waiting), the tokens by the
     kernel there (short kernels) where the device maps the lock: 256
     MiB at each, the rest at the next, then nothing; a page replaced in
     the second step still found */
  gt_locked_forget ();
  fail_at_copy = 0;
  operand_call (big, big_bytes, w, threads);
  replaced_lo = (uintptr_t) big + 300 * MIB;
  replaced_hi = replaced_lo + 4096;
  gt_locked_begin ();
  const int big_in = gt_locked_operand (big, big_bytes, 0, 1);
  if (big_in)
    gt_locked_test_replace (big, big_bytes);
  gt_probe_begin (big, big_bytes, big_in, NULL, 0, 0, 0, 1);
  int big_mask = gt_probe_reads_begin ();
  gt_probe_read_done (&big_mask, -1, NULL);
  token_kernels = 0;
  const size_t s1 = gt_probe_now (0, w, threads);
  const size_t s2 = gt_probe_now (0, w, threads);
  const size_t s3 = gt_probe_now (0, w, threads);
  const size_t s4 = gt_probe_now (0, w, threads);
  check (map_refused ? token_kernels == 0 : token_kernels > 0,
         map_refused ? "short kernels, no mapping: the launches' probes by "
                       "copies"
                     : "short kernels: the launches' probes by the kernel");
  const int big_clean = gt_probe_end (1, w, threads);
  gt_locked_settle (NULL, 0, 1);
  check (big_in && s1 == 256 * MIB && s2 == 256 * MIB && s3 == 8 * MIB
         && s4 == 0 && !big_clean && gt_operands_stale_pages () == 1
         && all_bytes (big, big_bytes, 1),
         "520 MiB in the launches' waits: 256 MiB a wait, a page found");
  replaced_lo = replaced_hi = 0;
  munmap (big, big_bytes);
  options ("268435456", NULL, NULL);
  unsetenv ("GPU_TILED_LOCK_OPERANDS");
  gt_locked_forget ();
  gt_locked_begin ();
  check (!gt_locked_operand (a, bytes, 0, 0) && registers == 0,
         "a call on the staged way: staged");
  check (operand_call (a, bytes, w, threads) && registers == 1,
         "unset (timed): the next on the locked way locks what came back");
  gt_locked_begin ();
  check (!gt_locked_operand (a, bytes, 0, 0) && registers == 1,
         "and a call on the staged way after it stages, the lock kept");
  gt_locked_settle (NULL, 0, 1);
  gt_locked_forget ();
  registers = 0;
  setenv ("GPU_TILED_LOCK_OPERANDS", "0", 1);
  gt_locked_forget ();
  operand_call (a, bytes, w, threads);
  check (!operand_call (a, bytes, w, threads) && registers == 0,
         "GPU_TILED_LOCK_OPERANDS=0: never");
  munmap (m, 96 * MIB);
}

/* How far back a range is remembered: one of the last four results'
   ranges (operands never locked, or timed), or of the last eight
   operands' (each kind apart: operands in between do not push a result
   out).  */
static void
test_seen (void)
{
  for (int timed = 0; timed < 2; timed++)
    {
      options ("268435456", NULL, NULL);
      if (timed)
        unsetenv ("GPU_TILED_LOCK_OPERANDS");
      else
        setenv ("GPU_TILED_LOCK_OPERANDS", "0", 1);
      gt_locked_forget ();
      char *m = pages (50 * MIB);
      for (int i = 0; i < 5; i++)
        result_call (m + i * 10 * MIB, 8 * MIB, 0);
      check (!result_call (m, 8 * MIB, 0),
             timed ? "operands timed: a result five calls back not locked"
                   : "operands never: a result five calls back not locked");
      check (result_call (m + 40 * MIB, 8 * MIB, 0),
             "a result two calls back: locked");
      gt_locked_forget ();
      munmap (m, 50 * MIB);
    }
  options ("268435456", NULL, NULL);
  gt_locked_forget ();
  char *m = pages (130 * MIB);
  result_call (m, 8 * MIB, 0);
  for (int i = 1; i < 4; i++)
    {
      char *c = m + i * 30 * MIB;
      gt_locked_begin ();
      gt_locked_operand (c, 8 * MIB, 0, 0);   /* staged way */
      gt_locked_operand (c + 10 * MIB, 8 * MIB, 0, 0);
      gt_locked_result (c + 20 * MIB, 8 * MIB, 0);
    }
  check (result_call (m, 8 * MIB, 0),
         "a result four calls back, six operands since: locked");
  gt_locked_forget ();
  munmap (m, 130 * MIB);
}

/* A lock refused for an operand's memory (read-only, or locked by
   another library) shuns that operand only; locking stays on.  Two
   operands sharing a lock, one stale: the other, checked already, is
   held no more, and the call reads it through the slots.  */
static void
test_operand_refused (void)
{
  options ("268435456", NULL, NULL);
  char *m = pages (200 * MIB);
  char *a = m, *b = m + 40 * MIB + 1024;
  const size_t an = 40 * MIB + 512;   /* a's last page is b's first */
  operand_call (a, 40 * MIB, NULL, 1);
  refuse = 1;
  check (!operand_call (a, 40 * MIB, NULL, 1) && registered () == 0,
         "an operand's lock refused: staged");
  refuse = 0;
  check (!operand_call (a, 40 * MIB, NULL, 1), "and shunned");
  char *r = m + 120 * MIB;
  result_call (r, 40 * MIB, 0);
  check (result_call (r, 40 * MIB, 0), "results still locked");
  gt_locked_forget ();
  for (int call = 0; call < 2; call++)
    {
      gt_locked_begin ();
      gt_locked_operand (a, an, 0, 1);
      gt_locked_operand (b, 40 * MIB, 0, 1);
      gt_locked_settle (NULL, 0, 1);
    }
  check (registers >= 1 && within_one (a, 80 * MIB + 1024),
         "two operands sharing a page: one lock");
  gt_locked_begin ();
  check (gt_locked_operand (a, an, 0, 1)
         && gt_locked_operand (b, 40 * MIB, 0, 1), "both locked");
  replaced_lo = (uintptr_t) b + 20 * MIB;
  replaced_hi = replaced_lo + 4096;
  gt_probe_begin (a, an, 1, b, 40 * MIB, 1, 0, 0);
  int mask = gt_probe_reads_begin ();
  gt_probe_read_done (&mask, -1, NULL);
  check (!gt_probe_end (1, NULL, 1), "b stale: the product again");
  check (!gt_locked_holds (a, an) && registered () == 0,
         "and a, whose lock went with b's, held no more");
  gt_locked_settle (NULL, 0, 1);
  replaced_lo = replaced_hi = 0;
  munmap (m, 200 * MIB);
}

/* The locks' budget (gt_lock_budget): by default an eighth of the host's
   memory, at most 32 GiB, no less than the heap's budget; the heap's
   where GPU_TILED_RESULT_HEAP sets one; 0 under GPU_TILED_LOCK_RESULTS=0
   or with the heap off.  Before the first product, what the options say
   then, nothing fixed; a refused result lock keeps the budget.  */
static void
test_lock_budget (void)
{
  const long phys = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  size_t eighth = (size_t) phys / 8 * (size_t) page;
  eighth = eighth < ((size_t) 32 << 30) ? eighth : (size_t) 32 << 30;
  options ("", NULL, NULL);
  const size_t heap = gt_result_heap_budget ();
  check (heap == 0 || gt_lock_budget () == (eighth > heap ? eighth : heap),
         "the default: an eighth of the memory, at most 32 GiB");
  options ("104857600", NULL, NULL);
  check (gt_lock_budget () == 100 * MIB, "the heap's budget set: kept to");
  setenv ("GPU_TILED_LOCK_RESULTS", "0", 1);
  check (gt_lock_budget () == 0, "before a product: the options as now");
  unsetenv ("GPU_TILED_LOCK_RESULTS");
  check (gt_lock_budget () == 100 * MIB, "and nothing fixed by asking");
  options ("104857600", "0", NULL);
  check (gt_lock_budget () == 0, "GPU_TILED_LOCK_RESULTS=0: 0");
  options ("0", NULL, NULL);
  check (gt_lock_budget () == 0, "the heap off: 0");
  options ("104857600", NULL, NULL);
  char *m = pages (48 * MIB);
  refuse = 1;
  result_call (m, 40 * MIB, -1);
  result_call (m, 40 * MIB, -1);
  check (registers == 0 && gt_lock_budget () == 100 * MIB,
         "a refused lock: none, the budget kept");
  refuse = 0;
  gt_locked_settle (NULL, 0, 1);
  munmap (m, 48 * MIB);
}

/* Operands and a result over the budget: none of a call's own ranges is
   unlocked for another of it, so nothing is locked and unlocked call
   after call.  */
static void
test_operands_budget (void)
{
  options ("104857600", NULL, NULL);   /* 100 MiB */
  char *m = pages (200 * MIB);
  char *a = m, *b = m + 48 * MIB, *c = m + 96 * MIB;
  int regs = 0;
  for (int call = 0; call < 6; call++)
    {
      if (call == 2)
        regs = registers;
      gt_locked_begin ();
      gt_locked_operand (a, 40 * MIB, 0, 1);
      gt_locked_operand (b, 40 * MIB, 0, 1);
      gt_locked_result (c, 40 * MIB, 0);
      gt_locked_settle (c, 40 * MIB, 1);
    }
  check (regs == 2 && registers == 2 && is_registered (a)
         && is_registered (b) && !is_registered (c),
         "three ranges of 40 MiB over 100: two locked once, kept");
  munmap (m, 200 * MIB);
}

/* GPU_TILED_TEST_STALE replaces an operand's pages by copies of
   themselves: its bytes stay as they were.  */
static void
test_operand_replace (void)
{
  options ("268435456", NULL, "1");
  char *m = pages (64 * MIB);
  for (size_t i = 0; i < 64 * MIB; i += 4096)
    m[i + 7] = (char) (i >> 12);
  operand_call (m, 64 * MIB, NULL, 1);
  operand_call (m, 64 * MIB, NULL, 1);   /* the stand-ins can't see it */
  int same = 1;
  for (size_t i = 0; i < 64 * MIB; i += 4096)
    same &= m[i + 7] == (char) (i >> 12) && m[i] == 1;
  check (same, "GPU_TILED_TEST_STALE: an operand's bytes kept");
  munmap (m, 64 * MIB);
}

/* A locked result Y whose tail the heap gave back (trimmed from its top),
   its first page still mapped: a result X that shares that page finds Y
   gone and locks on its own (a lock taking Y in would cover unmapped
   pages, which the runtime refuses, and a result's refused lock turns
   locking off until a reset), and locks go on after.  */
static void
test_gone_tail (void)
{
  options ("268435456", NULL, NULL);
  char *m = pages (64 * MIB);
  char *y = m + 16 * MIB;
  result_call (y, 32 * MIB, -1);
  check (result_call (y, 32 * MIB, -1) && is_registered (y),
         "a result locked");
  munmap (m + 24 * MIB, 40 * MIB);
  const size_t xb = 16 * MIB + 100;
  result_call (m, xb, -1);
  check (result_call (m, xb, -1) && is_registered (m) && !is_registered (y)
         && registered () == 16 * MIB + 4096,
         "its tail gone: that lock dropped, a result sharing its first "
         "page locked alone");
  result_call (m + 4 * MIB, 8 * MIB, -1);
  check (result_call (m + 4 * MIB, 8 * MIB, -1),
         "and results lock after it");
  gt_locked_forget ();
  munmap (m, 24 * MIB);
}

/* A call whose operand [a, a + bytes) is locked (it came back before)
   and is to be probed after the uploads; the copies counted from 0.  */
static void
probe_call (const char *a, size_t bytes)
{
  gt_locked_begin ();
  gt_locked_operand (a, bytes, 0, 1);
  probe_copies = 0;
  gt_probe_begin (a, bytes, 1, NULL, 0, 0, 0, 0);
}

/* One run's uploads of A, then of B, each followed by the probe where
   it is due; none after A's (what).  */
static void
a_then_b (const char *what)
{
  int m = gt_probe_reads_begin ();
  gt_probe_read_done (&m, 0, (cudaEvent_t) 1);
  gt_probe_now (1, NULL, 1);
  check (probe_copies == 0, what);
  gt_probe_read_done (&m, 1, (cudaEvent_t) 1);
  gt_probe_now (1, NULL, 1);
}

static void *
probe_in_thread (void *arg)
{
  (void) arg;
  gt_probe_now (1, NULL, 1);
  return NULL;
}

/* The probe after the product runs' uploads: each operand once every
   run expected has queued its last upload of it and those uploads have
   ended (A while the runs still read B; not before, unless asked to
   wait); an operand that is both A and B after B; by the caller where no
   run got to it; not at all for a product that failed.  */
static void
test_probe_later (void)
{
  options ("268435456", NULL, NULL);
  char *m = pages (128 * MIB);
  char *a = m, *b = m + 64 * MIB;
  const size_t bytes = 40 * MIB;
  operand_call (a, bytes, NULL, 1);
  operand_call (b, bytes, NULL, 1);
  gt_locked_begin ();
  check (gt_locked_operand (a, bytes, 0, 1)
         && gt_locked_operand (b, bytes, 0, 1), "both locked");
  /* two bands */
  probe_copies = events_waited = token_kernels = 0;
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
  gt_probe_expect (2, 1);
  int m1 = gt_probe_reads_begin (), m2 = gt_probe_reads_begin ();
  gt_probe_read_done (&m1, 0, (cudaEvent_t) 1);
  gt_probe_now (1, NULL, 1);
  check (probe_copies == 0, "one band's uploads of A queued: no probe");
  gt_probe_read_done (&m2, 0, (cudaEvent_t) 2);
  events_pending = 1;
  gt_probe_now (0, NULL, 1);
  check (probe_copies == 0, "both, still under way: not without waiting");
  events_pending = 0;
  gt_probe_now (0, NULL, 1);
  check (probe_copies == 3 && events_waited == 2,
         "once they have ended: A probed, while the bands read B");
  check (token_kernels == 0,
         "inside a launch's wait, the kernels not short: by copies");
  gt_probe_read_done (&m1, -1, NULL);
  gt_probe_now (1, NULL, 1);
  check (probe_copies == 3, "B not until both bands are done with it");
  gt_probe_read_done (&m2, 1, (cudaEvent_t) 3);
  gt_probe_now (1, NULL, 1);
  check (probe_copies == 6 && token_kernels > 0,
         "then B, at the run's end: the tokens by the kernel");
  m1 = gt_probe_reads_begin ();   /* a run after it (blocks, a rerun) */
  gt_probe_read_done (&m1, -1, NULL);
  check (m1 == 0 && gt_probe_end (1, NULL, 1) && probe_copies == 6,
         "clean, and not probed again");
  /* A is B: probed once, after B's uploads */
  gt_locked_begin ();
  gt_locked_operand (a, bytes, 0, 1);
  probe_copies = 0;
  gt_probe_begin (a, bytes, 1, a, bytes, 1, 0, 0);
  a_then_b ("A is B: not after A's uploads");
  check (gt_probe_end (1, NULL, 1) && probe_copies == 3,
         "once, after B's");
  /* a run that begins while another run's thread probes waits for it */
  probe_call (a, bytes);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_done (&m1, -1, NULL);
  copy_delay_us = 50000;
  syncs_done = 0;
  pthread_t t;
  const int threaded = pthread_create (&t, NULL, probe_in_thread, NULL) == 0;
  /* the probe under way: its first copy queued (within 2 s) */
  for (int i = 0; threaded && i < 2000
                  && !__atomic_load_n (&probe_copies, __ATOMIC_SEQ_CST); i++)
    usleep (1000);
  const int syncs_before = __atomic_load_n (&syncs_done, __ATOMIC_SEQ_CST);
  m1 = gt_probe_reads_begin ();
  const int syncs_after = __atomic_load_n (&syncs_done, __ATOMIC_SEQ_CST);
  if (threaded)
    pthread_join (t, NULL);
  copy_delay_us = 0;
  check (threaded && syncs_before < 2 && syncs_after == 2 && m1 == 0,
         "a run that begins during a probe waits for its end");
  gt_probe_read_done (&m1, -1, NULL);
  check (gt_probe_end (1, NULL, 1), "and the call is clean");
  /* A and B that share memory (slices of one array; one lock): one
     range, probed after B's uploads, never while B's are still read */
  gt_locked_begin ();
  gt_locked_operand (a, bytes + 4096, 0, 1);
  gt_locked_operand (a + 8 * MIB, bytes, 0, 1);
  probe_copies = 0;
  gt_probe_begin (a, bytes + 4096, 1, a + 8 * MIB, bytes, 1, 0, 0);
  a_then_b ("A meeting B: not after A's uploads");
  check (probe_copies == 3 && gt_probe_end (1, NULL, 1)
         && probe_copies == 3, "once, both, after B's");
  /* and where only A is locked, after B's staged reads */
  gt_locked_begin ();
  gt_locked_operand (a, bytes, 0, 1);
  probe_copies = 0;
  gt_probe_begin (a, bytes, 1, a + 8 * MIB, bytes, 0, 0, 0);
  a_then_b ("A meeting B not locked: not after A's");
  check (gt_probe_end (1, NULL, 1) && probe_copies == 3, "after B's");
  /* a band that never got to its uploads: the caller probes */
  probe_call (a, bytes);
  gt_probe_expect (2, 1);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_done (&m1, -1, NULL);
  gt_probe_now (1, NULL, 1);
  check (probe_copies == 0, "one band of two said: no probe yet");
  check (gt_probe_end (1, NULL, 1) && probe_copies == 3,
         "the caller's end probes");
  /* a failed product: nothing to run again, the range not probed */
  probe_call (a, bytes);
  check (gt_probe_end (0, NULL, 1) && probe_copies == 0
         && gt_locked_holds (a, bytes), "a failed product: no probe");
  /* the uploads' wait failed: not known, so staged and unlocked */
  gt_locked_begin ();
  gt_locked_operand (a, bytes, 0, 1);
  probe_copies = 0;
  event_fails = 1;
  gt_probe_begin (a, bytes, 1, NULL, 0, 0, 0, 0);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_done (&m1, -1, (cudaEvent_t) 1);
  gt_probe_now (0, NULL, 1);
  event_fails = 0;
  check (!gt_probe_end (1, NULL, 1) && probe_copies == 0
         && !gt_locked_holds (a, bytes), "the uploads' wait failed: staged");
  /* nothing locked: nothing to probe, the runs' calls free */
  gt_probe_begin (NULL, 0, 0, NULL, 0, 0, 0, 0);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_done (&m1, -1, (cudaEvent_t) 1);
  gt_probe_now (1, NULL, 1);
  check (m1 == 0 && gt_probe_end (1, NULL, 1) && probe_copies == 0,
         "nothing locked: no probe");
  gt_locked_forget ();
  munmap (m, 128 * MIB);
}

/* Both of a and b locked (they came back before) for a call.  */
static void
lock_both (const char *a, const char *b, size_t bytes)
{
  gt_locked_begin ();
  gt_locked_operand (a, bytes, 0, 1);
  gt_locked_operand (b, bytes, 0, 1);
  probe_rows = 0;
}

/* A band of a split by columns on a thread of its own: its part of B
   said, its uploads done, and (end) the probe at its end, or (END_LAUNCH)
   its parts' probe in its last launch's wait.  */
#define END_LAUNCH 2
typedef struct
{
  const char *part;
  int end;
} band_arg;

static void *
band_with_part (void *arg)
{
  const band_arg *b = arg;
  int m = gt_probe_reads_begin ();
  gt_probe_read_part (m, b->part, 16 * MIB, (cudaEvent_t) 1);
  gt_probe_read_done (&m, -1, (cudaEvent_t) 1);
  if (b->end == END_LAUNCH)
    gt_probe_parts_now (NULL, 1, NULL);
  else if (b->end)
    gt_probe_now (1, NULL, 1);
  return NULL;
}

static int
band_in_thread (const char *part, int end)
{
  band_arg arg = { part, end };
  pthread_t t;
  if (pthread_create (&t, NULL, band_with_part, &arg) != 0)
    return 0;
  pthread_join (t, NULL);
  return 1;
}

/* 128 MiB of pages, A at their start and B 64 MiB on, each of `bytes`
   seen in a call before (so that the next call locks them).  */
static char *
parts_operands (char **a, char **b, size_t bytes)
{
  options ("268435456", NULL, NULL);
  char *m = pages (128 * MIB);
  *a = m;
  *b = m + 64 * MIB;
  operand_call (*a, bytes, NULL, 1);
  operand_call (*b, bytes, NULL, 1);
  return m;
}

/* B in parts: each band of a split by columns probes its own parts of B
   at its end, while another band may still read the rest (not inside a
   launch, beside its uploads), and B's probe after the runs takes only
   what no part took (each word of A and B once in all); a page replaced
   in a part is found; no parts where runs share B's bytes or A meets B,
   and none of another run's.  */
static void
test_probe_parts (void)
{
  const size_t bytes = 40 * MIB, part = 16 * MIB, step = GT_LOCKED_STEP;
  char *a, *b, *m = parts_operands (&a, &b, bytes);
  const cudaEvent_t ev = (cudaEvent_t) 1;
  lock_both (a, b, bytes);
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
  gt_probe_expect (2, 1);
  int m1 = gt_probe_reads_begin ();
  gt_probe_read_part (m1, b + part / 2, part / 2, ev);
  gt_probe_read_part (m1, b, part / 2, ev);
  gt_probe_now (0, NULL, 1);
  check (probe_rows == 0, "a part, inside a launch: not probed");
  gt_probe_read_done (&m1, -1, ev);
  probe_starts = 0;
  events_waited = 0;
  gt_probe_now (1, NULL, 1);
  check (probe_rows == part / step && all_bytes (m, 128 * MIB, 1)
         && events_waited >= 2,
         "at the band's end: its parts, their uploads waited for, while "
         "the other band reads on");
  check (probe_starts == 1, "two parts side by side: one probe");
  check (band_in_thread (b + part, 1) && probe_rows == 2 * bytes / step,
         "the other band's end: its part, A and the rest of B, each word "
         "once");
  check (gt_probe_end (1, NULL, 1) && all_bytes (m, 128 * MIB, 1),
         "clean, every word put back");
  /* in the last launch's wait: the parts whose uploads have ended */
  lock_both (a, b, bytes);
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 1);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_part (m1, b, part / 2, ev);
  gt_probe_read_part (m1, b + part / 2, part / 2, ev);
  events_pending = 1;
  size_t said = gt_probe_parts_now (NULL, 1, NULL);
  check (probe_rows == 0 && said == 0,
         "the last launch, uploads under way: no probe");
  events_pending = 0;
  event_pending = (cudaEvent_t) 2;
  gt_probe_read_part (m1, b + part, part / 2, (cudaEvent_t) 2);
  probe_starts = 0;
  said = gt_probe_parts_now (NULL, 1, NULL);
  event_pending = NULL;
  check (probe_rows == part / step && probe_starts == 1 && said == part,
         "their uploads ended: both parts, as one, not the third, whose "
         "upload goes on (their bytes told)");
  gt_probe_read_done (&m1, -1, ev);
  said = gt_probe_now (1, NULL, 1);
  check (probe_rows == 2 * bytes / step && said == 2 * bytes - part
         && gt_probe_end (1, NULL, 1),
         "then A and the rest of B, each word once (their bytes told)");
  /* a later run (a block of C) with parts at the same bytes: as one
     again */
  lock_both (a, b, bytes);
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
  for (int run = 0; run < 2; run++)
    {
      m1 = gt_probe_reads_begin ();
      gt_probe_read_part (m1, b, part / 2, ev);
      gt_probe_read_part (m1, b + part / 2, part / 2, ev);
      gt_probe_read_done (&m1, -1, ev);
      probe_starts = 0;
      probe_rows = 0;
      gt_probe_parts_now (NULL, 1, NULL);
      check (probe_starts == 1 && probe_rows == part / step,
             run ? "a later run's parts at the same bytes: one probe"
                 : "a run's parts: one probe");
    }
  check (gt_probe_end (1, NULL, 1), "and clean");
  /* 16 pages of the first part replaced under the lock */
  lock_both (a, b, bytes);
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
  replaced_lo = (uintptr_t) b + 4 * MIB;
  replaced_hi = replaced_lo + 16 * step;
  m1 = gt_probe_reads_begin ();
  gt_probe_read_part (m1, b, part, ev);
  gt_probe_read_done (&m1, -1, ev);
  gt_probe_now (1, NULL, 1);
  const size_t stale = gt_operands_stale_pages ();
  check (!gt_probe_end (1, NULL, 1) && !gt_locked_holds (b, bytes)
         && gt_locked_holds (a, bytes)
         && gt_operands_stale_pages () == stale + 16,
         "pages replaced in a part: found, B unlocked, A kept");
  replaced_lo = replaced_hi = 0;
  /* runs that share B (a split by rows): no part taken */
  operand_call (b, bytes, NULL, 1);
  lock_both (a, b, bytes);
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
  gt_probe_expect (2, 0);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_part (m1, b, part, ev);
  gt_probe_read_done (&m1, -1, ev);
  gt_probe_now (1, NULL, 1);
  check (probe_rows == 0, "bands that share B: no part probed");
  check (gt_probe_end (1, NULL, 1) && probe_rows == 2 * bytes / step,
         "B whole at the end");
  /* A meeting B (one range): no part taken */
  gt_locked_begin ();
  gt_locked_operand (a, bytes + step, 0, 1);
  gt_locked_operand (a + 8 * MIB, bytes, 0, 1);
  probe_rows = 0;
  gt_probe_begin (a, bytes + step, 1, a + 8 * MIB, bytes, 1, 0, 0);
  gt_probe_expect (2, 1);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_part (m1, a + 8 * MIB, part, ev);
  gt_probe_read_done (&m1, -1, ev);
  gt_probe_now (1, NULL, 1);
  check (probe_rows == 0, "A meeting B: no part probed");
  check (gt_probe_end (1, NULL, 1)
         && probe_rows == (8 * MIB + bytes) / step, "the range at the end");
  /* another band's part: not this run's to probe; in the rest at the end */
  lock_both (a, b, bytes);
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
  gt_probe_expect (2, 1);
  m1 = gt_probe_reads_begin ();
  const int threaded = band_in_thread (b, 0);
  gt_probe_now (1, NULL, 1);
  check (threaded && probe_rows == 0, "another band's part: not probed");
  gt_probe_read_done (&m1, -1, ev);
  gt_probe_now (1, NULL, 1);
  check (probe_rows == 2 * bytes / step && gt_probe_end (1, NULL, 1),
         "its bytes with the rest of B");
  /* a part's upload whose wait failed: not known, so not clean */
  lock_both (a, b, bytes);
  gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
  m1 = gt_probe_reads_begin ();
  gt_probe_read_part (m1, b, part, ev);
  gt_probe_read_done (&m1, -1, ev);
  event_fails = 1;
  gt_probe_now (1, NULL, 1);
  event_fails = 0;
  check (!gt_probe_end (1, NULL, 1) && !gt_locked_holds (b, bytes),
         "a part's upload wait failed: not clean, B unlocked");
  gt_locked_forget ();
  munmap (m, 128 * MIB);
}

/* The GPU's work ahead of a launch ending 20 ms on, while another
   band's probe (of 100 ms) is under way.  */
static void *
busy_ends_soon (void *arg)
{
  (void) arg;
  usleep (20000);
  __atomic_store_n (&event_pending, NULL, __ATOMIC_SEQ_CST);
  return NULL;
}

/* A band whose last launch finds another band's probe under way: while
   the GPU's work ahead of the launch goes on (busy not happened) it
   waits for that probe, then probes its own part; where that work has
   ended, or ends during the wait, or no busy is given, it probes nothing
   there (its end will).  */
static void
test_probe_parts_wait (void)
{
  const size_t bytes = 40 * MIB, part = 16 * MIB, step = GT_LOCKED_STEP;
  char *a, *b, *m = parts_operands (&a, &b, bytes);
  const cudaEvent_t ev = (cudaEvent_t) 1, busy = (cudaEvent_t) 5;
  static const char *const said_of[] = {
    "the GPU's work ahead done: no wait, no probe",
    "no busy given: no wait, no probe",
    "the GPU's work ahead ends during the wait: no probe, the wait ended"
  };
  for (int way = 0; way < 4; way++)
    {
      lock_both (a, b, bytes);
      gt_probe_begin (a, bytes, 1, b, bytes, 1, 0, 0);
      gt_probe_expect (2, 1);
      int m1 = gt_probe_reads_begin ();
      gt_probe_read_part (m1, b, part, ev);
      gt_probe_read_done (&m1, -1, ev);
      probe_copies = probe_rows = 0;
      syncs_done = 0;
      copy_delay_us = 50000;
      /* the other band's last launch probing its part, slowly */
      const band_arg other = { b + part, END_LAUNCH };
      pthread_t t;
      const int threaded = pthread_create (&t, NULL, band_with_part,
                                           (void *) &other) == 0;
      for (int i = 0; threaded && i < 2000
                      && !__atomic_load_n (&probe_copies, __ATOMIC_SEQ_CST);
           i++)
        usleep (1000);
      __atomic_store_n (&event_pending, way == 0 || way == 3 ? busy : NULL,
                        __ATOMIC_SEQ_CST);
      pthread_t ends;
      const int timed = way == 3
                        && pthread_create (&ends, NULL, busy_ends_soon,
                                           NULL) == 0;
      const size_t said = gt_probe_parts_now (NULL, 1, way != 2 ? busy
                                                                : NULL);
      const int syncs_then = __atomic_load_n (&syncs_done, __ATOMIC_SEQ_CST);
      if (timed)
        pthread_join (ends, NULL);
      __atomic_store_n (&event_pending, NULL, __ATOMIC_SEQ_CST);
      if (threaded)
        pthread_join (t, NULL);
      copy_delay_us = 0;
      /* the other band's probe takes 2 syncs, and this band's 2 more */
      if (way == 0)
        check (threaded && said == part && syncs_then >= 4
               && probe_rows == 2 * part / step,
               "the GPU still busy: waits for the other band's probe, then "
               "probes its part");
      else
        check (threaded && (way < 3 || timed) && said == 0 && syncs_then < 2
               && probe_rows == part / step, said_of[way - 1]);
      gt_probe_now (1, NULL, 1);
      check (gt_probe_end (1, NULL, 1) && probe_rows == 2 * bytes / step,
             "then A and the rest of B at the end, each word once");
    }
  gt_locked_forget ();
  munmap (m, 128 * MIB);
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
  test_gone_tail ();
  /* the probe's tokens by the kernel, then by copies where the device
     gives no mapping */
  for (map_refused = 0; map_refused < 2; map_refused++)
    {
      test_operands (NULL, 1);
      gt_workers *w = gt_workers_new ();
      test_operands (w, 4);   /* the probe's passes on copy threads */
      gt_workers_free (w);
    }
  map_refused = 0;
  test_operands_budget ();
  test_lock_budget ();
  test_operand_refused ();
  test_seen ();
  test_operand_replace ();
  test_probe_later ();
  test_probe_parts ();
  test_probe_parts_wait ();
  return checks_done ();
}
