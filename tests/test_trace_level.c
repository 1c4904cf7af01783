/* test_trace_level.c -- GPU_TILED_TRACE's one reading (gt_trace_level in
   src/host/gt_options.h), which the host layer's three traces share: off
   where unset, empty or 0; the timeline at 2; else the call's trace.
   Prints one line per check and "N passed, N failed".  */

#include <stdlib.h>
#include "gt_options.h"
#include "test_check.h"

static int
level_of (const char *v)
{
  set_env ("GPU_TILED_TRACE", v);
  return gt_trace_level ();
}

int
main (void)
{
  check (level_of (NULL) == 0, "unset: off");
  check (level_of ("") == 0, "empty: off");
  check (level_of ("0") == 0, "0: off");
  check (level_of ("1") == 1, "1: the call's trace");
  check (level_of ("yes") == 1, "any other word: the call's trace");
  check (level_of ("20") == 1, "20 (not 2): the call's trace");
  check (level_of ("2") == 2, "2: the timeline too");
  return checks_done ();
}
