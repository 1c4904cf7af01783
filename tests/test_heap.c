/* test_heap.c -- tests of result memory (src/host/gt_heap.c): large
   results from the heap, a freed one kept for the next, the option and
   its defaults; they need no GPU.  Prints "N passed, N failed".  */

#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gpu_tiled.h"
#include "gt_heap.h"
#include "test_check.h"

#define MIB ((size_t) 1 << 20)

/* A result as the glue allocates it: between the two calls.  */
static char *
result (size_t bytes, int *began)
{
  *began = gt_result_heap_begin (bytes);
  char *p = malloc (bytes);
  gt_result_heap_end (*began);
  return p;
}

/* bytes glibc has handed out as mappings of their own */
static size_t
mapped (void)
{
  return mallinfo2 ().hblkhd;
}

static void
set_option (const char *value)
{
  set_env ("GPU_TILED_RESULT_HEAP", value);
  gt_heap_forget ();
}

static void
test_on (void)
{
  set_option ("1073741824");
  check (gt_result_heap_budget () == ((size_t) 1 << 30),
         "the option sets the budget");
  int began;
  size_t before = mapped ();
  char *p = result (64 * MIB, &began);
  check (began && p && mapped () == before, "64 MiB from the heap");
  memset (p, 0x5a, 64 * MIB);
  check (gt_result_resident (p, 64 * MIB), "written: resident");
  free (p);
  const unsigned long reused = gt_result_heap_reused ();
  char *q = result (64 * MIB, &began);
  check (q == p, "the next result has the freed one's memory");
  check (q && gt_result_resident (q, 64 * MIB),
         "and its pages are still there");
  check (gt_result_heap_reused () == reused + 1, "and is counted");
  check (q && q[0] == 0x5a && q[64 * MIB - 1] == 0x5a,
         "(the last result's bytes: the library writes all of C)");
  free (q);
  check (!gt_result_heap_begin (16 * MIB),
         "16 MiB: glibc's own threshold decides");
  gt_result_heap_end (0);
  check (!gt_result_heap_begin ((size_t) 2 << 30), "over the budget: not");
  gt_result_heap_end (0);
  /* after the bracket, Octave's own large arrays are mappings again,
     unless the heap holds that much free (the freed result: 64 MiB) */
  before = mapped ();
  char *o = malloc (256 * MIB);
  check (o && mapped () >= before + 256 * MIB,
         "outside the bracket 256 MiB is a mapping");
  check (o && !gt_result_resident (o, 256 * MIB),
         "new memory: not resident");
  free (o);
}

/* Results kept, not freed: the heap grows up to the budget, then they
   are mappings.  */
static void
test_kept (void)
{
  set_option ("268435456");
  char *kept[8];
  int heap = 0, maps = 0;
  for (int i = 0; i < 8; i++)
    {
      int began;
      const size_t before = mapped ();
      kept[i] = result (64 * MIB, &began);
      heap += began;
      maps += mapped () >= before + 64 * MIB;
    }
  check (heap >= 1 && heap + maps == 8 && maps >= 4,
         "kept results: from the heap up to the budget, then mappings");
  check (mallinfo2 ().arena <= 256 * MIB + 64 * MIB,
         "the heap no larger than the budget and a result");
  for (int i = 0; i < 8; i++)
    free (kept[i]);
  check (mallinfo2 ().keepcost <= 320 * MIB,
         "freed, the heap keeps no more than its trim threshold");
  int began;
  char *p = result (64 * MIB, &began);
  check (began && p, "freed, one comes from the heap again");
  free (p);
}

static void
test_off (void)
{
  set_option ("0");
  check (gt_result_heap_budget () == 0, "0 turns it off");
  int began;
  const size_t before = mapped ();
  char *p = result (256 * MIB, &began);
  check (!began && p && mapped () >= before + 256 * MIB,
         "off: 256 MiB is a mapping");
  free (p);
  set_option ("1000");
  check (gt_result_heap_budget () == 0, "a budget under 32 MiB is off");
  set_option ("-1");
  check (gt_result_heap_budget () == 0, "-1 is off, not the most");
  set_option ("4G");
  check (gt_result_heap_budget () == 0, "4G is off, not 4 bytes or 4 GiB");
  set_option ("99999999999");
  check (gt_result_heap_budget () == (size_t) 99999999999ull,
         "a budget over 2 GiB as given (the trim threshold held to an int)");
  check (gt_result_heap_begin ((size_t) 3 << 29),
         "a result of 1.5 GiB from the heap");
  gt_result_heap_end (1);
  check (!gt_result_heap_begin (((size_t) 1 << 31) + 4096),
         "one over 2 GiB not (a freed one would be trimmed)");
  gt_result_heap_end (0);
}

/* A result of 2 GiB (a complex single 16384^2), over the trim threshold
   an int holds: trimming is off from it to the next result, so that a
   freed one at the heap's top stays for the next; a smaller result
   turns trimming on again.  */
static void
test_two_gib (void)
{
  const size_t g2 = (size_t) 1 << 31;
  set_option ("4294967296");
  int began;
  const size_t before = mapped ();
  char *p = result (g2, &began);
  check (began && p && mapped () == before, "2 GiB from the heap");
  if (!p)
    return;
  for (size_t i = 0; i < g2; i += 4096)
    ((volatile char *) p)[i] = 0x3c;   /* every page, which free follows */
  free (p);
  check (mallinfo2 ().keepcost >= g2, "freed: kept at the heap's top");
  const unsigned long reused = gt_result_heap_reused ();
  char *q = result (g2, &began);
  check (q == p && gt_result_resident (q, g2)
         && gt_result_heap_reused () == reused + 1,
         "the next 2 GiB result has its memory, resident");
  free (q);
  char *r = result (64 * MIB, &began);
  free (r);
  check (began && mallinfo2 ().keepcost < 64 * MIB,
         "a smaller result: trimming on again, the heap trimmed");
  p = result (g2, &began);   /* (its pages not touched) */
  free (p);
  check (began && mallinfo2 ().keepcost >= g2, "trimming off again");
  gt_heap_forget ();
  r = malloc (MIB);   /* from the top, and back to it */
  if (r)
    ((volatile char *) r)[0] = 1;   /* (a malloc and free the compiler keeps) */
  free (r);
  check (mallinfo2 ().keepcost < 64 * MIB,
         "a reset: trimming on again, the heap trimmed at the next free");
}

static void
test_defaults (void)
{
  set_option (NULL);
  const long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  size_t want = (size_t) pages / 16 * (size_t) page;
  if (want > ((size_t) 4 << 30))
    want = (size_t) 4 << 30;
  if (want <= 32 * MIB)
    want = 0;
  check (gt_result_heap_budget () == want,
         "default: a sixteenth of memory, at most 4 GiB");
  setenv ("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1", 1);
  gt_heap_forget ();
  check (gt_result_heap_budget () == 0, "malloc tuned by the user: off");
  unsetenv ("GLIBC_TUNABLES");
  setenv ("MALLOC_MMAP_THRESHOLD_", "100000", 1);
  gt_heap_forget ();
  check (gt_result_heap_budget () == 0, "... or by MALLOC_MMAP_THRESHOLD_");
  unsetenv ("MALLOC_MMAP_THRESHOLD_");
  gt_heap_forget ();
  check (gt_result_heap_budget () == want, "and on again when untuned");
}

/* malloc tuned from outside (read by glibc at start): the checks of
   where memory comes from would not hold  */
static int
malloc_env (void)
{
  extern char **environ;
  const char *t = getenv ("GLIBC_TUNABLES");
  for (char **e = environ; *e; e++)
    if (!strncmp (*e, "MALLOC_", 7))
      return 1;
  return t && strstr (t, "malloc") != NULL;
}

int
main (void)
{
  if (malloc_env ())
    {
      printf ("  skipped: malloc is tuned in the environment\n");
      printf ("0 passed, 0 failed, 1 skipped\n");
      return 0;
    }
  test_on ();
  test_kept ();
  test_off ();
  test_two_gib ();
  test_defaults ();
  check (!gt_result_resident (NULL, 1 << 20), "an unmapped range");
  gt_heap_forget ();
  check (gt_result_heap_reused () == 0, "the count starts again at a reset");
  return checks_done ();
}
