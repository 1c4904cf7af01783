/* gt_heap.c -- results from the process heap, so that a loop's freed
   result is the next one's memory (gt_result_heap_begin in gpu_tiled.h).

   glibc gives an allocation above its mmap threshold (at most 32 MiB by
   its own rule) a fresh mapping, and unmaps it when it is freed: every
   large result of a loop is new memory, and its first touch costs a page
   fault per page, the kernel zeroing each (a copy out into new memory ran
   at a third of the rate into memory already there; bench/RESULTS.md).
   Between gt_result_heap_begin and gt_result_heap_end mappings are off,
   so the result comes from the heap; the heap keeps up to the budget of
   free memory at its top (the trim threshold), so a freed result stays
   there for the next.  Octave's own allocations keep their mappings: the
   threshold is left at glibc's own ceiling, where a session that has
   freed one large array has it anyway.  */

#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
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
/* the default budget: a sixteenth of the host's memory, at most 4 GiB */
#define BUDGET_SHARE 16
#define BUDGET_MAX ((size_t) 4 << 30)

static int state;        /* 0 not read since gt_reset, 1 on, -1 off */
static int applied;      /* the trim threshold was set */
static size_t budget;    /* bytes; 0 where off */

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

static size_t
default_budget (void)
{
  const long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  const size_t b = pages > 0 && page > 0
                   ? (size_t) pages / BUDGET_SHARE * (size_t) page : 0;
  return b < BUDGET_MAX ? b : BUDGET_MAX;
}

static void
settle (void)
{
  if (state)
    return;
  const char *v = getenv ("GPU_TILED_RESULT_HEAP");
  budget = v && *v ? (size_t) strtoull (v, NULL, 10) : default_budget ();
  if (!HAVE_MALLOPT || malloc_tuned () || budget <= GLIBC_THRESHOLD_MAX)
    budget = 0;
#if HAVE_MALLOPT
  if (budget)
    {
      /* mallopt takes an int; -1 is "never trim" */
      mallopt (M_MMAP_THRESHOLD, (int) GLIBC_THRESHOLD_MAX);
      mallopt (M_TRIM_THRESHOLD, budget <= INT_MAX ? (int) budget : -1);
      applied = 1;
    }
  else if (applied)   /* turned off after gt_reset: trim as glibc would */
    {
      mallopt (M_TRIM_THRESHOLD, (int) (2 * GLIBC_THRESHOLD_MAX));
      applied = 0;
    }
#endif
  state = budget ? 1 : -1;
}

/* The heap grows by a result only up to the budget; beyond, a result
   comes from it only where it holds that much free (a freed result's).
   So results kept, not freed, do not grow it without bound: past the
   budget they are mappings, as without it.  */
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
  if (state < 0 || bytes <= GLIBC_THRESHOLD_MAX || bytes > budget
      || !heap_takes (bytes))
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

void
gt_heap_forget (void)
{
  state = 0;
}

/* Pages of a result looked at to tell memory already there from new.  */
#define SAMPLE_PAGES 16

int
gt_memory_resident (const void *p, size_t bytes)
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
  return 1;
}
