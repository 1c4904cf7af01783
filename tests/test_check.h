/* test_check.h -- the one check of the C tests that need no GPU: a line
   per check, and the counts that main prints as "N passed, N failed"
   (the line the test runner reads).  */

#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

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

/* The environment variable `name` set to value, or unset where value is
   NULL: how the tests give an option each of its states.  */
static void
set_env (const char *name, const char *value)
{
  if (value)
    setenv (name, value, 1);
  else
    unsetenv (name);
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
