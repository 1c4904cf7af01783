/* test_band_share.c -- each device's band of a split product
   (src/host/gt_band_share.c): equal bands for alike devices, one slow
   call moving nothing, a device that stays slower getting less, and
   every device kept measured.  Prints one line per check and
   "N passed, N failed".  */

#include <stdio.h>
#include "gt_band_share.h"
#include "test_check.h"

static const int two[2] = { 0, 1 };

static void
record (double r0, double r1)
{
  const double rate[2] = { r0, r1 };
  gt_share_record (two, 2, rate);
}

/* Whether devices 0 and 1 get l0 and l1 of 16384 columns.  */
static int
bands_are (size_t l0, size_t l1)
{
  size_t len[2];
  gt_share_lengths (two, 2, 16384, 256, len);
  return len[0] == l0 && len[1] == l1;
}

int
main (void)
{
  gt_share_forget ();
  check (bands_are (8192, 8192), "nothing measured: equal");
  record (50e12, 10e12);
  check (bands_are (8192, 8192), "one call measured, however slow: equal");
  gt_share_forget ();
  record (50e12, 45e12);
  record (50e12, 45e12);
  check (bands_are (8192, 8192), "within 1.25 of each other: equal");
  record (50e12, 48e12);
  record (50e12, 12e12);   /* one call with device 1's host thread late */
  check (bands_are (8192, 8192), "one slow call: bands unmoved");
  record (50e12, 12e12);
  check (bands_are (8192, 8192), "two slow calls of five: unmoved");
  record (50e12, 16.7e12);
  /* three slow calls of five, the median device 1 at a third of device
     0: shares 1.5 and 0.5 */
  check (bands_are (12288, 4096), "a device that stays slower: a quarter");
  /* calls where device 1's band failed tell nothing: were device 0's
     rate taken alone, its share would become 1 and the bands move */
  for (int i = 0; i < 5; i++)
    record (50e12, 0);
  check (bands_are (12288, 4096), "calls with a failed band: unmoved");
  for (int i = 0; i < 3; i++)
    record (50e12, 50e12);
  check (bands_are (8192, 8192), "alike again for three calls: equal");

  /* a device very much slower still gets one step, so it is measured */
  gt_share_forget ();
  for (int i = 0; i < 3; i++)
    record (50e12, 0.1e12);
  check (bands_are (16128, 256), "a device 500 times slower: one step");
  {
    size_t len[2];
    gt_share_lengths (two, 2, 300, 256, len);
    check (len[0] == 300 && len[1] == 0,
           "too few columns for a step each: the slow one none");
    gt_share_forget ();
    gt_share_lengths (two, 2, 2003, 256, len);
    check (len[0] == 979 && len[1] == 1024,
           "2003 columns, equal: 979 + 1024, the nearest to halves");
  }

  /* three devices, widths always adding up */
  {
    const int three[3] = { 0, 1, 2 };
    const double rate[3] = { 50e12, 25e12, 25e12 };
    gt_share_forget ();
    for (int i = 0; i < 3; i++)
      gt_share_record (three, 3, rate);
    size_t len[3];
    gt_share_lengths (three, 3, 10000, 256, len);
    check (len[0] + len[1] + len[2] == 10000, "three devices: all columns");
    /* 39 steps and 16 columns: 19.53, 9.77 and 9.77 rounded to 20, 10
       and 10, one too many, taken from the band that most passed its
       share, which then takes the 16 */
    check (len[0] == 19 * 256 + 16 && len[1] == 2560 && len[2] == 2560,
           "three: a half and quarters, in steps");
    gt_share_lengths (three, 3, 700, 256, len);
    check (len[0] + len[1] + len[2] == 700 && len[0] % 256 + len[1] % 256
           + len[2] % 256 == 188, "700 columns over three: all of them");
    /* device 0 six times faster than each other: its share, 750 of
       1000, cut back to leave a step each; the part step its own */
    const double fast[3] = { 75e12, 12.5e12, 12.5e12 };
    gt_share_forget ();
    for (int i = 0; i < 3; i++)
      gt_share_record (three, 3, fast);
    gt_share_lengths (three, 3, 1000, 256, len);
    check (len[0] == 488 && len[1] == 256 && len[2] == 256,
           "1000 columns, a step each: the fast one the rest");
  }
  printf ("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
