/* gt_band_share.c -- each device's band of a split product, from the
   devices' rates on earlier split calls (see gt_band_share.h).  */

#include <string.h>
#include "gpu_tiled.h"
#include "gt_band_share.h"

typedef struct
{
  double rel[GT_SHARE_HISTORY];   /* rates relative to their call's mean */
  int count, next;
} history;

static history hist[GT_MAX_DEVICES];

void
gt_share_forget (void)
{
  memset (hist, 0, sizeof hist);
}

void
gt_share_record (const int *devs, int count, const double *rate)
{
  double sum = 0;
  int measured = 0;
  for (int i = 0; i < count; i++)
    if (rate[i] > 0)
      {
        sum += rate[i];
        measured++;
      }
  if (measured < 2)
    return;
  const double mean = sum / measured;
  for (int i = 0; i < count; i++)
    if (rate[i] > 0 && devs[i] >= 0 && devs[i] < GT_MAX_DEVICES)
      {
        history *h = &hist[devs[i]];
        h->rel[h->next] = rate[i] / mean;
        h->next = (h->next + 1) % GT_SHARE_HISTORY;
        h->count += h->count < GT_SHARE_HISTORY;
      }
}

/* The median of a device's history (of two middle ones, the one nearer
   1: two slow calls of four are not yet a slower device); 0 where it has
   none.  */
static double
share_of (int dev)
{
  const history *h = &hist[dev];
  double v[GT_SHARE_HISTORY];
  const int n = h->count;
  if (n == 0)
    return 0;
  memcpy (v, h->rel, n * sizeof *v);
  for (int i = 1; i < n; i++)   /* insertion sort: five at most */
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        const double t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  if (n % 2)
    return v[n / 2];
  const double below = v[n / 2 - 1], above = v[n / 2];
  return 1.0 - below < above - 1.0 ? below : above;
}

void
gt_share_lengths (const int *devs, int count, size_t total, size_t step,
                  size_t *len)
{
  double w[GT_MAX_DEVICES], sum = 0, lo = 0, hi = 0;
  int known = 1;
  for (int d = 0; d < count; d++)
    {
      const double v = devs[d] >= 0 && devs[d] < GT_MAX_DEVICES
                       ? share_of (devs[d]) : 0;
      known &= v > 0;
      lo = d == 0 || v < lo ? v : lo;
      hi = d == 0 || v > hi ? v : hi;
      w[d] = v;
    }
  const int equal = !known || hi <= GT_SHARE_SPREAD * lo;
  for (int d = 0; d < count; d++)
    sum += (w[d] = equal ? 1.0 : w[d]);
  const size_t least = total >= (size_t) count * step ? step : 0;
  size_t given = 0;
  for (int d = 0; d < count; d++)
    {
      size_t l = (size_t) (total * (w[d] / sum) / step + 0.5) * step;
      l = l < least ? least : l;
      /* what the devices after this one need at least */
      const size_t after = (size_t) (count - 1 - d) * least;
      if (d == count - 1 || given + l + after > total)
        l = d == count - 1 ? total - given : total - given - after;
      len[d] = l;
      given += l;
    }
}
