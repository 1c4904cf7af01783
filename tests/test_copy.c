/* test_copy.c -- tests of the host path's copy and prefault helpers
   (src/gt_copy.c); they need no GPU.  Prints "N passed, N failed".  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gt_copy.h"

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

static float
value (size_t i)
{
  return (float) ((i * 2654435761u) % 1000003) - 500000.0f;
}

/* A rows x cols copy from leading dimension sld to dld, the destination
   offset by `shift` floats (so not 16-byte aligned when shift % 4 != 0);
   every destination element outside the copy must keep its poison.  */
static int
pitched_ok (size_t rows, size_t cols, size_t sld, size_t dld, size_t shift,
            int threads)
{
  const size_t ns = sld * cols + 8, nd = dld * cols + shift + 8;
  float *src = malloc (ns * sizeof (float)), *dst = malloc (nd * sizeof (float));
  for (size_t i = 0; i < ns; i++)
    src[i] = value (i);
  for (size_t i = 0; i < nd; i++)
    dst[i] = -1.0f;
  copy_job j = { dst + shift, src, dld, sld, rows, cols };
  gt_copy (&j, threads);
  int ok = 1;
  for (size_t i = 0; i < nd && ok; i++)
    {
      const size_t e = i - shift, c = e / dld, r = e % dld;
      const int inside = i >= shift && c < cols && r < rows;
      ok = dst[i] == (inside ? src[r + c * sld] : -1.0f);
    }
  free (src);
  free (dst);
  return ok;
}

int
main (void)
{
  int ok = 1;
  for (int t = 1; t <= 8; t *= 2)
    ok &= pitched_ok (1000, 600, 1000, 1000, 0, t)
          && pitched_ok (1000, 600, 1000, 1000, 1, t);
  check (ok, "contiguous copies, 1-8 threads, aligned and not");

  ok = 1;
  for (int t = 1; t <= 8; t *= 2)
    ok &= pitched_ok (1023, 700, 1023, 1024, 0, t)
          && pitched_ok (5, 300000, 5, 8, 0, t)
          && pitched_ok (777, 3, 777, 780, 3, t);
  check (ok, "pitched copies (odd rows, padded ld), 1-8 threads");

  gt_workers_stop ();
  ok = pitched_ok (1000, 600, 1000, 1000, 0, 8);
  gt_workers_stop ();
  gt_workers_stop ();
  ok &= pitched_ok (1000, 600, 1000, 1000, 0, 3)
        && pitched_ok (1000, 600, 1000, 1000, 0, 8);
  check (ok, "helpers stop, restart and change count");

  gt_copy_hot (8, 1);
  ok = 1;
  for (int r = 0; r < 20; r++)
    ok &= pitched_ok (1023, 300, 1023, 1024, r % 4, 8);
  gt_copy_hot (8, 0);
  ok &= pitched_ok (1023, 300, 1023, 1024, 0, 8);
  gt_copy_hot (6, 1);   /* a new count while spinning, then stop spinning */
  ok &= pitched_ok (1023, 300, 1023, 1024, 0, 6);
  gt_workers_stop ();
  ok &= pitched_ok (1023, 300, 1023, 1024, 0, 6);
  gt_copy_hot (6, 0);
  check (ok, "spinning helpers (a call's hot phase) copy the same");

  const size_t len = (size_t) 24 << 20;
  unsigned char *p = malloc (len);
  for (size_t i = 0; i < len; i += 4096)
    p[i] = (unsigned char) (i >> 12);
  unsigned char *fresh = malloc (len);
  gt_prefault_start (p, len, 8);
  gt_prefault_wait ();
  gt_prefault_start (fresh, len, 5);
  gt_prefault_wait ();
  gt_prefault_wait ();
  ok = 1;
  for (size_t i = 0; i < len; i += 4096)
    ok &= p[i] == (unsigned char) (i >> 12);
  memset (fresh, 7, len);
  check (ok && fresh[len - 1] == 7,
         "prefault keeps contents, new memory stays usable");
  free (p);
  free (fresh);

  /* Copies may write the region while the helpers fault it in.  */
  ok = 1;
  for (int r = 0; r < 3; r++)
    {
      const size_t n = ((size_t) 40 << 20) / sizeof (float);
      float *src = malloc (n * sizeof (float)), *dst = malloc (n * sizeof (float));
      for (size_t i = 0; i < n; i++)
        src[i] = value (i);
      gt_prefault_start (dst, n * sizeof (float), 2);
      gt_copy_hot (6, 1);
      for (size_t off = 0; off < n; off += n / 5)
        {
          const size_t len = n - off < n / 5 ? n - off : n / 5;
          copy_job j = { dst + off, src + off, len, len, len, 1 };
          gt_copy (&j, 6);
        }
      gt_prefault_wait ();
      gt_copy_hot (6, 0);
      ok &= memcmp (dst, src, n * sizeof (float)) == 0;
      free (src);
      free (dst);
    }
  check (ok, "copies into memory the helpers are faulting in");

  fflush (stdout);
  const pid_t child = fork ();
  if (child == 0)
    _exit (pitched_ok (1000, 600, 1000, 1000, 0, 8) ? 0 : 1);
  int status = 1;
  waitpid (child, &status, 0);
  check (child > 0 && WIFEXITED (status) && WEXITSTATUS (status) == 0,
         "a forked child copies with threads of its own");

  gt_workers_stop ();
  printf ("%d passed, %d failed\n", passed, failed);
  return failed > 0;
}
