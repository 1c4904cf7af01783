/* gt_heap.c -- results from the process heap, so that a loop's freed
   result is the next one's memory (gt_result_heap_begin in gpu_tiled.h).

   glibc gives an allocation above its mmap threshold (at most 32 MiB by
   its own rule) a fresh mapping, and unmaps it when it is freed: every
   large result of a loop is new memory, and its first touch costs a page
   fault per page, the kernel zeroing each (a copy out into new memory ran
   at a third of the rate into memory already there; bench/RESULTS.md).
   Between gt_result_heap_begin and gt_result_heap_end mappings are off,
   so the result comes from the heap; the heap keeps free memory at its
   top up to a little more than the budget (the trim threshold; above it
   glibc gives back all of it), so a freed result stays there for the
   next.  Octave's own larger arrays stay mappings, unless the heap has
   that much free: the threshold is left at glibc's own ceiling, which a
   session that has freed one large array has reached anyway.  */

#define _GNU_SOURCE
#include <stdint.h>   /* SIZE_MAX, uintptr_t */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gpu_tiled.h"
#include "gt_heap.h"

#if defined __GLIBC__ && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
#include <malloc.h>   /* mallopt; mallinfo2 from glibc 2.33 */
#define HAVE_MALLOPT 1
#else
#define HAVE_MALLOPT 0
#endif

/* glibc's ceiling for its moving mmap threshold on 64-bit hosts, and its
   default number of mappings (DEFAULT_MMAP_THRESHOLD_MAX, DEFAULT_MMAP_MAX) */
#define GLIBC_THRESHOLD_MAX ((size_t) 32 << 20)
#define GLIBC_MMAP_MAX 65536
/* The budget bounds the heap's growth by results: by default a sixteenth
   of the host's memory, at most 4 GiB.  The trim threshold, a quarter
   above it, is an int for mallopt (whose -1, never trim, would keep every
   freed array of the heap for good): at most 2 GiB less 2 MiB.  Results
   up to 1.5 GiB (a complex double 10000x10000) come from the heap, so
   that a freed one at the heap's top stays under that threshold.  Results
   up to 2 GiB (a complex single or double 16384^2) come from it too, with
   trimming off from such a result to the next result of any size: the
   loop's freed result stays for the next, and where the loop ends (or
   makes smaller results) trimming comes back at the next result or at
   gt_reset.  Off for good, it would keep every freed array of the heap
   in the process.  */
#define BUDGET_SHARE 16
#define BUDGET_DEFAULT_MAX ((size_t) 4 << 30)
#define RESULT_TRIMMED_MAX ((size_t) 3 << 29)
#define RESULT_MAX ((size_t) 1 << 31)
#define TRIM_MAX (((size_t) 1 << 31) - ((size_t) 2 << 20))

static int state;        /* 0 not read since gt_reset, 1 on, -1 off */
static int applied;      /* the settings: 0 glibc's own, 1 made for this
                            reading, 2 made for one before gt_reset */
static int held;         /* trimming off (a result over
                            RESULT_TRIMMED_MAX), until the next result */
static size_t budget;    /* bytes; 0 where off */
static int given;        /* GPU_TILED_RESULT_HEAP set it */
static unsigned long reused;   /* results found in memory already */

/* The user tuned malloc already (environment or tunables): leave it.  */
static int
malloc_tuned (void)
{
  const char *t = getenv ("GLIBC_TUNABLES");
  return getenv ("MALLOC_MMAP_THRESHOLD_") || getenv ("MALLOC_TRIM_THRESHOLD_")
         || getenv ("MALLOC_MMAP_MAX_") || getenv ("MALLOC_TOP_PAD_")
         || (t && (strstr (t, "malloc.mmap") || strstr (t, "malloc.trim")
                   || strstr (t, "malloc.top_pad")));
}

size_t
gt_host_memory_share (size_t share, size_t most)
{
  const long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  const size_t b = pages > 0 && page > 0
                   ? (size_t) pages / share * (size_t) page : 0;
  return b < most ? b : most;
}

/* GPU_TILED_RESULT_HEAP: bytes in digits; anything else turns it off.  */
static size_t
option_budget (const char *v)
{
  char *end = NULL;
  const unsigned long long b = v[0] >= '0' && v[0] <= '9'
                               ? strtoull (v, &end, 10) : 0;
  if (!end || *end || b > SIZE_MAX / 2)
    return 0;
  return (size_t) b;
}

/* The option read (no malloc setting changes here: gt_result_heap_budget
   only reports).  */
static void
settle (void)
{
  if (state)
    return;
  const char *v = getenv ("GPU_TILED_RESULT_HEAP");
  given = v && *v;
  budget = given ? option_budget (v)
                 : gt_host_memory_share (BUDGET_SHARE, BUDGET_DEFAULT_MAX);
  if (!HAVE_MALLOPT || malloc_tuned () || budget <= GLIBC_THRESHOLD_MAX)
    budget = 0;
  state = budget ? 1 : -1;
}

/* The trim threshold while on: a quarter above the budget, an int.  */
static int
trim_threshold (void)
{
  const size_t trim = budget + budget / 4;   /* budget <= SIZE_MAX / 2 */
  return (int) (trim < TRIM_MAX ? trim : TRIM_MAX);
}

/* The settings the first result bracket needs, once per reading; turned
   off after a reset, the trim threshold as glibc's own ceiling would set
   it (the mmap threshold stays at that ceiling: glibc has no way back to
   its moving one).  */
static void
apply (void)
{
#if HAVE_MALLOPT
  if (state > 0 && applied != 1)
    {
      mallopt (M_MMAP_THRESHOLD, (int) GLIBC_THRESHOLD_MAX);
      mallopt (M_TRIM_THRESHOLD, trim_threshold ());
      applied = 1;
    }
  else if (state < 0 && applied == 2)
    {
      mallopt (M_TRIM_THRESHOLD, (int) (2 * GLIBC_THRESHOLD_MAX));
      applied = 0;
    }
#endif
}

/* Trimming off (hold) for a result over RESULT_TRIMMED_MAX from the
   heap, else on again at the budget's threshold (held only while the
   heap is on: a reset turns it on before reading the option again).  */
static void
hold_trim (int hold)
{
#if HAVE_MALLOPT
  if (hold == held)
    return;
  mallopt (M_TRIM_THRESHOLD, hold ? -1 : trim_threshold ());
  held = hold;
#else
  (void) hold;
#endif
}

/* The heap grows by a result only while it is under the budget; beyond,
   a result comes from it only where it holds that much free (a freed
   result's).  So results kept, not freed, do not grow it without bound:
   past the budget they are mappings, as without it.  The budget counts
   the whole heap, Octave's own arrays of 32 MiB and less included: where
   they fill it, results are mappings too.  */
static int
heap_takes (size_t bytes)
{
#if HAVE_MALLOPT
  const struct mallinfo2 mi = mallinfo2 ();
  return mi.arena + bytes <= budget
         || (mi.fordblks >= bytes && mi.arena <= budget);
#else
  (void) bytes;
  return 0;
#endif
}

int
gt_result_heap_begin (size_t bytes)
{
  settle ();
  apply ();
  const int take = state > 0 && bytes > GLIBC_THRESHOLD_MAX && bytes <= budget
                   && bytes <= RESULT_MAX && heap_takes (bytes);
  hold_trim (take && bytes > RESULT_TRIMMED_MAX);
  if (!take)
    return 0;
#if HAVE_MALLOPT
  mallopt (M_MMAP_MAX, 0);
#endif
  return 1;
}

void
gt_result_heap_end (int began)
{
#if HAVE_MALLOPT
  if (began)
    mallopt (M_MMAP_MAX, GLIBC_MMAP_MAX);
#else
  (void) began;
#endif
}

size_t
gt_result_heap_budget (void)
{
  settle ();
  return budget;
}

int
gt_result_heap_given (void)
{
  settle ();
  return given;
}

unsigned long
gt_result_heap_reused (void)
{
  return __atomic_load_n (&reused, __ATOMIC_RELAXED);
}

void
gt_heap_forget (void)
{
  hold_trim (0);   /* a reset ends a loop: trimming on, not left off */
  state = 0;
  if (applied)
    applied = 2;   /* to be made again, or undone, at the next result */
  __atomic_store_n (&reused, 0, __ATOMIC_RELAXED);
}

/* Pages of a result looked at to tell memory already there from new.  */
#define SAMPLE_PAGES 16

int
gt_result_resident (const void *p, size_t bytes)
{
  const long ps = sysconf (_SC_PAGESIZE);
  const size_t page = ps > 0 ? (size_t) ps : 4096;
  if (bytes < page)
    return 0;
  const size_t step = (bytes - 1) / (SAMPLE_PAGES - 1);
  for (int i = 0; i < SAMPLE_PAGES; i++)
    {
      const uintptr_t a = ((uintptr_t) p + i * step) / page * page;
      unsigned char in = 0;
      if (mincore ((void *) a, page, &in) != 0 || !(in & 1))
        return 0;
    }
  __atomic_fetch_add (&reused, 1, __ATOMIC_RELAXED);
  return 1;
}
