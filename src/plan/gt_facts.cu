/* Device facts, read in one place: the device's own properties (for the
   dispatcher and the kernels) and the resident blocks of each kernel
   variant (for the cost models).  Both are asked once per device.  */

#include <string.h>
#include "gt_facts.h"

static gt_device_props props[GT_MAX_DEVICES];
static int props_known[GT_MAX_DEVICES];   /* 1 once props[d] is filled */

/* The device a plan is being made for on this thread; -1: none.  */
static __thread int planning_device = -1;

extern "C" int
gt_current_device (int *dev)
{
  if (planning_device >= 0)
    {
      *dev = planning_device;
      return 1;
    }
  if (cudaGetDevice (dev) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return 1;
}

extern "C" int
gt_planning_begin (int dev)
{
  const int outer = planning_device;
  planning_device = dev;
  return outer;
}

extern "C" void
gt_planning_end (int outer)
{
  planning_device = outer;
}

extern "C" const gt_device_props *
gt_device_props_current (void)
{
  int dev = 0;
  if (!gt_current_device (&dev) || dev < 0 || dev >= GT_MAX_DEVICES)
    return NULL;
  if (__atomic_load_n (&props_known[dev], __ATOMIC_ACQUIRE))
    return &props[dev];
  struct cudaDeviceProp p;
  if (cudaGetDeviceProperties (&p, dev) != cudaSuccess
      || p.multiProcessorCount <= 0)
    {
      cudaGetLastError ();
      return NULL;
    }
  gt_device_props *d = &props[dev];
  d->device = dev;
  d->sms = p.multiProcessorCount;
  d->cc_major = p.major;
  d->cc_minor = p.minor;
  d->smem_block_optin = p.sharedMemPerBlockOptin;
  __atomic_store_n (&props_known[dev], 1, __ATOMIC_RELEASE);
  return d;
}

/* Kernel 8 on 256x128 tiles: both operands by cp.async, 16-k stages.  */
#define K8_WIDE_MODE (GT_K8_DEFAULT_MODE | GT_K8_K16 | GT_K8_BM256)

static const gt_facts *
fallback_facts (void)
{
  /* the blocks per SM each variant is built for */
  static gt_facts f;
  if (!f.known)
    {
      f.sms = GT_FALLBACK_SMS;
      for (int c = 0; c < GT_K4_CONFIG_COUNT; c++)
        f.occupancy[c] = gt_k4_min_blocks (c);
      f.k8_occupancy = 2;
      f.k8_k16_fits = 1;
      f.k8_wide_occupancy = 1;
      f.k9_usable = 0;
      f.known = 1;
    }
  return &f;
}

static gt_facts facts[GT_MAX_DEVICES];

extern "C" const gt_facts *
gt_facts_current (void)
{
  const gt_device_props *d = gt_device_props_current ();
  if (!d)
    return fallback_facts ();
  gt_facts *f = &facts[d->device];
  if (f->known)
    return f;
  f->sms = d->sms;
  for (int c = 0; c < GT_K4_CONFIG_COUNT; c++)
    {
      f->occupancy[c] = gt_k4_occupancy (c);
      if (f->occupancy[c] <= 0)
        f->occupancy[c] = gt_k4_min_blocks (c);
    }
  f->k8_occupancy = gt_k8_occupancy (GT_K8_DEFAULT_MODE);
  if (f->k8_occupancy <= 0)
    f->k8_occupancy = 2;
  /* 48 KiB of shared memory per block: two fit on an SM of 100 KiB or
     more, one on smaller ones, where 8-k stages are kept.  */
  f->k8_k16_fits = gt_k8_occupancy (GT_K8_DEFAULT_MODE | GT_K8_K16)
                   >= f->k8_occupancy;
  f->k8_wide_occupancy = gt_k8_occupancy (K8_WIDE_MODE);
  f->k9_usable = gt_k9_usable ();
  f->known = 1;
  return f;
}
