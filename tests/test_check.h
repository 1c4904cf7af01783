/* test_check.h -- the one check of the C tests that need no GPU: a line
   per check, and the counts that main prints as "N passed, N failed"
   (the line the test runner reads).  */

#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

static void
check (int ok, const char *what)
{
  printf ("  %-58s %s\n", what, ok ? "ok" : "FAILED");
  if (ok)
    passed++;
  else
    failed++;
}

/* The counts' line, and main's exit status: nonzero where a check
   failed.  */
static int
checks_done (void)
{
  printf ("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}

#endif
