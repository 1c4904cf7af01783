/* gt_options.c -- reads the GPU_TILED_* options (see gt_options.h).  */

#include <stdlib.h>
#include <string.h>
#include "gt_copy.h"
#include "gt_options.h"
#include "gt_plan.h"

/* Products up to this many bytes (A, B and C together) run on the staging
   memory itself: the kernel reads A and B from pinned host memory over
   PCIe and writes C there, which saves both copy-engine transfers and
   their latency (the GPU's L2 keeps what several blocks read).  */
#define ZEROCOPY_MAX_BYTES ((size_t) 256 << 10)
/* How long the copy helpers spin after a call (bench/RESULTS.md: waking
   them costs 50-85 us; a loop's calls come microseconds apart).  */
#define SPIN_US 2000

static long
env_long (const char *name, long otherwise)
{
  const char *v = getenv (name);
  return v && *v ? strtol (v, NULL, 10) : otherwise;
}

/* A device number, optionally followed by `suffix` (*with then 1); -1
   where the variable is unset or not one.  */
static int
env_device (const char *name, const char *suffix, int *with)
{
  const char *v = getenv (name);
  char *end = NULL;
  const long d = v && *v ? strtol (v, &end, 10) : -1;
  *with = end && suffix && !strcmp (end, suffix);
  return end && (*end == 0 || *with) && d >= 0 && d < 1 << 20 ? (int) d
                                                              : -1;
}

static size_t
env_size (const char *name, size_t otherwise)
{
  const char *v = getenv (name);
  return v && *v ? (size_t) strtoull (v, NULL, 10) : otherwise;
}

/* Nonzero where the option name is set to word.  */
static int
env_is (const char *name, const char *word)
{
  const char *v = getenv (name);
  return v && !strcmp (v, word);
}

int
gt_option_crossover_off (void)
{
  return env_is ("GPU_TILED_CROSSOVER", "off");
}

unsigned long
gt_option_spin_us (void)
{
  const long n = env_long ("GPU_TILED_SPIN_US", SPIN_US);
  return n < 0 ? 0 : (n > 1000000 ? 1000000 : (unsigned long) n);
}

int
gt_option_split_always (void)
{
  return env_is ("GPU_TILED_SPLIT", "always");
}

void
gt_options_read (gt_options *o)
{
  o->trace = gt_trace_level ();
  /* the plan layer's, for every device alike */
  gt_plan_set_emulation (env_is ("GPU_TILED_EMULATE", "off")
                         ? GT_EMULATE_OFF
                         : env_is ("GPU_TILED_EMULATE", "always")
                           ? GT_EMULATE_ALWAYS : GT_EMULATE_COST);
  long n = env_long ("GPU_TILED_PREFAULT_THREADS", 0);
  o->prefault_threads = n > 0 ? (n > 8 ? 8 : (int) n)
                              : gt_prefault_default_threads ();
  n = env_long ("GPU_TILED_THREADS", 0);
  o->copy_threads = n > 0 ? (n > GT_COPY_MAX_THREADS ? GT_COPY_MAX_THREADS
                                                     : (int) n)
                          : gt_copy_default_threads (o->prefault_threads);
  o->threads_given = getenv ("GPU_TILED_THREADS") != NULL
                     || getenv ("GPU_TILED_PREFAULT_THREADS") != NULL;
  o->zerocopy_max = env_size ("GPU_TILED_ZEROCOPY_MAX", ZEROCOPY_MAX_BYTES);
  o->spin_us = gt_option_spin_us ();
  o->device_limit = env_size ("GPU_TILED_DEVICE_LIMIT", 0);
  o->no_ksplit = getenv ("GPU_TILED_NO_KSPLIT") != NULL;
  o->head = getenv ("GPU_TILED_HEAD") == NULL ? -1
            : env_long ("GPU_TILED_HEAD", 0);
  if (o->head < -1)
    o->head = 0;
  o->b_first = env_is ("GPU_TILED_B_FIRST", "1") ? 1
               : env_is ("GPU_TILED_B_FIRST", "0") ? 0 : -1;
  o->poison = getenv ("GPU_TILED_POISON") != NULL;
  o->test_interrupt = getenv ("GPU_TILED_TEST_INTERRUPT") == NULL ? 0
                      : (int) env_long ("GPU_TILED_TEST_INTERRUPT", -1);
  if (o->test_interrupt == 0 && getenv ("GPU_TILED_TEST_INTERRUPT"))
    o->test_interrupt = -1;
  o->test_fail = env_device ("GPU_TILED_TEST_FAIL", ":memory",
                             &o->test_fail_memory);
}
