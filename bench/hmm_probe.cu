/* hmm_probe.cu -- can the GPU read and write Octave's own (pageable) memory
   directly, at what rate, and what does it cost the host afterwards?  An
   experiment for the end-to-end path, never linked into the package.

   Where the driver supports pageable memory access (HMM on x86: open
   kernel modules, Linux 6.x), a kernel may dereference malloc'd memory.
   Measured, per buffer of --mib MiB (default 256), median of 5:
     read   a kernel summing a warm malloc'd buffer (as A is in a call)
     write  a kernel filling a malloc'd buffer (as C is)
     host   the host reading the buffer again afterwards (migrated pages
            come back by faults)
   each with the default policy and with the buffer advised to stay on the
   host (cudaMemAdviseSetPreferredLocation host, SetAccessedBy the GPU),
   against cudaMemcpy from the same pageable buffer and from pinned memory.

     nvcc -O2 -arch=sm_90 -o hmm_probe hmm_probe.cu && ./hmm_probe  */

#include <cuda_runtime.h>
#include <string.h>
#include "host_bench.h"

#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e_ = (x);                                                  \
    if (e_ != cudaSuccess) {                                               \
      printf ("%s: %s\n", #x, cudaGetErrorString (e_));                    \
      return 1;                                                            \
    }                                                                      \
  } while (0)

__global__ void
read_sum (const float4 *p, size_t n, float *out)
{
  float s = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    {
      const float4 v = p[i];
      s += v.x + v.y + v.z + v.w;
    }
  if (s == 12345.0f)
    *out = s;   /* keeps the loads */
}

__global__ void
write_fill (float4 *p, size_t n, float v)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    p[i] = make_float4 (v, v, v, v);
}

/* one kernel's time by events, ms */
static float
kernel_ms (int write, float4 *p, size_t n, float *dout, cudaEvent_t a,
           cudaEvent_t b)
{
  float ms = 0;
  cudaEventRecord (a);
  if (write)
    write_fill<<<1056, 512>>> (p, n, 1.0f);
  else
    read_sum<<<1056, 512>>> (p, n, dout);
  cudaEventRecord (b);
  cudaEventSynchronize (b);
  cudaEventElapsedTime (&ms, a, b);
  return ms;
}

static double
host_touch_ms (float *p, size_t bytes)
{
  volatile float s = 0;
  const double t = now ();
  for (size_t i = 0; i < bytes / sizeof (float); i += 1024)
    s += p[i];
  (void) s;
  return 1e3 * (now () - t);
}

static int
run_policy (int advise, size_t bytes, float *dout)
{
  const size_t n = bytes / sizeof (float4);
  cudaEvent_t a, b;
  CK (cudaEventCreate (&a));
  CK (cudaEventCreate (&b));
  double r[5], w[5], h[5], first_r = 0, first_w = 0;
  for (int rep = 0; rep < 5; rep++)
    {
      float *p = (float *) malloc (bytes), *q = (float *) malloc (bytes);
      memset (p, 0, bytes);   /* warm, as Octave's A is */
      memset (q, 0, bytes);
      if (advise)
        {
          int dev = 0;
          cudaGetDevice (&dev);
          cudaMemLocation host, gpu;
          host.type = cudaMemLocationTypeHost;
          host.id = 0;
          gpu.type = cudaMemLocationTypeDevice;
          gpu.id = dev;
          CK (cudaMemAdvise (p, bytes, cudaMemAdviseSetPreferredLocation,
                             host));
          CK (cudaMemAdvise (p, bytes, cudaMemAdviseSetAccessedBy, gpu));
          CK (cudaMemAdvise (q, bytes, cudaMemAdviseSetPreferredLocation,
                             host));
          CK (cudaMemAdvise (q, bytes, cudaMemAdviseSetAccessedBy, gpu));
        }
      const float r1 = kernel_ms (0, (float4 *) p, n, dout, a, b);
      r[rep] = kernel_ms (0, (float4 *) p, n, dout, a, b);
      const float w1 = kernel_ms (1, (float4 *) q, n, dout, a, b);
      w[rep] = kernel_ms (1, (float4 *) q, n, dout, a, b);
      CK (cudaGetLastError ());
      h[rep] = host_touch_ms (q, bytes) + host_touch_ms (p, bytes);
      if (q[0] != 1.0f || q[bytes / sizeof (float) - 1] != 1.0f)
        printf ("  write not seen by the host\n");
      if (rep == 0)
        {
          first_r = r1;
          first_w = w1;
        }
      free (p);
      free (q);
    }
  const double mr = median (r, 5), mw = median (w, 5), mh = median (h, 5);
  printf ("%-8s read: first %.2f ms, again %.2f ms (%.1f GB/s); write: "
          "first %.2f ms, again %.2f ms (%.1f GB/s); host touch after "
          "%.2f ms\n", advise ? "advised" : "default", first_r, mr,
          bytes / mr / 1e6, first_w, mw, bytes / mw / 1e6, mh);
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return 0;
}

int
main (int argc, char **argv)
{
  size_t mib = 256;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp (argv[i], "--mib"))
      mib = strtoul (argv[i + 1], NULL, 10);
  const size_t bytes = mib << 20;
  int dev = 0, pma = 0, pmht = 0, cma = 0;
  CK (cudaSetDevice (dev));
  cudaDeviceGetAttribute (&pma, cudaDevAttrPageableMemoryAccess, dev);
  cudaDeviceGetAttribute (&pmht,
                          cudaDevAttrPageableMemoryAccessUsesHostPageTables,
                          dev);
  cudaDeviceGetAttribute (&cma, cudaDevAttrConcurrentManagedAccess, dev);
  printf ("pageable memory access %d, uses host page tables %d, "
          "concurrent managed access %d; %zu MiB\n", pma, pmht, cma, mib);
  float *dout, *dbuf, *pinned;
  CK (cudaMalloc (&dout, 4));
  CK (cudaMalloc (&dbuf, bytes));
  CK (cudaMallocHost (&pinned, bytes));
  float *pageable = (float *) malloc (bytes);
  memset (pageable, 0, bytes);
  memset (pinned, 0, bytes);
  double t[5];
  for (int rep = 0; rep < 5; rep++)
    {
      const double t0 = now ();
      CK (cudaMemcpy (dbuf, pageable, bytes, cudaMemcpyHostToDevice));
      t[rep] = now () - t0;
    }
  printf ("cudaMemcpy from pageable: %.1f GB/s\n", bytes / median (t, 5) / 1e9);
  for (int rep = 0; rep < 5; rep++)
    {
      const double t0 = now ();
      CK (cudaMemcpy (dbuf, pinned, bytes, cudaMemcpyHostToDevice));
      t[rep] = now () - t0;
    }
  printf ("cudaMemcpy from pinned: %.1f GB/s\n", bytes / median (t, 5) / 1e9);
  if (!pma)
    {
      printf ("no pageable memory access on this system: nothing more\n");
      return 0;
    }
  if (run_policy (0, bytes, dout) || run_policy (1, bytes, dout))
    return 1;
  free (pageable);
  cudaFreeHost (pinned);
  cudaFree (dbuf);
  cudaFree (dout);
  return 0;
}
