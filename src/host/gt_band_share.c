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
   fewer than two (one call, slow or not, moves no band).  */
static double
share_of (int dev)
{
  const history *h = &hist[dev];
  double v[GT_SHARE_HISTORY];
  const int n = h->count;
  if (n < 2)
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

/* The band whose steps' count most passes (dir 1: falls short of) its
   ideal share, among those above `least` (dir 1: any).  */
static int
most_off (const size_t *s, const double *ideal, int count, size_t least,
          int dir)
{
  int o = -1;
  for (int d = 0; d < count; d++)
    {
      const double off = dir * (ideal[d] - (double) s[d]);
      if ((dir > 0 || s[d] > least)
          && (o < 0 || off > dir * (ideal[o] - (double) s[o])))
        o = d;
    }
  return o;
}

void
gt_share_lengths (const int *devs, int count, size_t total, size_t step,
                  size_t *len)
{
  double w[GT_MAX_DEVICES], ideal[GT_MAX_DEVICES], sum = 0, lo = 0, hi = 0;
  int known = 1;
  if (count < 1 || count > GT_MAX_DEVICES || step == 0)
    {
      for (int d = 0; d < count && d < GT_MAX_DEVICES; d++)
        len[d] = d == 0 ? total : 0;
      return;
    }
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
  /* whole steps by share (ideal, in steps), one at least where there are
     enough, their count made right where the rounding (or the least)
     passed it or fell short; the part step left over goes to the band
     furthest below its share */
  const size_t steps = total / step, least = steps >= (size_t) count;
  size_t s[GT_MAX_DEVICES], given = 0;
  for (int d = 0; d < count; d++)
    {
      ideal[d] = (double) total / step * (w[d] / sum);
      s[d] = (size_t) (ideal[d] + 0.5);
      s[d] = s[d] < least ? least : s[d];
      given += s[d];
    }
  for (; given > steps; given--)
    s[most_off (s, ideal, count, least, -1)]--;
  for (; given < steps; given++)
    s[most_off (s, ideal, count, least, 1)]++;
  const int below = most_off (s, ideal, count, least, 1);
  for (int d = 0; d < count; d++)
    len[d] = s[d] * step + (d == below ? total - steps * step : 0);
}
