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

#endif
