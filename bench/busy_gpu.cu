/* busy_gpu.cu -- another process keeping a GPU busy, for the split's
   balance by measured speed: kernels that spin on every SM of device
   DEVICE, SPIN_MS each, one after another for SECONDS, so that the
   driver time-slices that GPU between this process and the caller's.
     busy_gpu DEVICE SECONDS [SPIN_MS] &  */

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

/* Nanoseconds on the GPU's global timer.  */
static __device__ unsigned long long
now_ns (void)
{
  unsigned long long t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Each thread spins until ns have passed since it began.  */
static __global__ void
spin (unsigned long long ns, unsigned long long *sink)
{
  const unsigned long long t0 = now_ns ();
  unsigned long long n = 0;
  while (now_ns () - t0 < ns)
    n++;
  if (n == 0)   /* never: keeps the loop from being taken out */
    *sink = n;
}

int
main (int argc, char **argv)
{
  if (argc != 3 && argc != 4)
    {
      fprintf (stderr, "usage: %s DEVICE SECONDS [SPIN_MS]\n", argv[0]);
      return 2;
    }
  const int dev = atoi (argv[1]);
  const double seconds = atof (argv[2]);
  const double spin_ms = argc == 4 ? atof (argv[3]) : 5.0;
  int sms = 0;
  unsigned long long *sink = NULL;
  cudaEvent_t begin, end;
  /* its waits block, so that it takes no host core from the caller */
  if (cudaSetDevice (dev) != cudaSuccess
      || cudaSetDeviceFlags (cudaDeviceScheduleBlockingSync) != cudaSuccess
      || cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev)
         != cudaSuccess
      || cudaMalloc (&sink, sizeof *sink) != cudaSuccess
      || cudaEventCreate (&begin) != cudaSuccess
      || cudaEventCreate (&end) != cudaSuccess)
    {
      fprintf (stderr, "busy_gpu: %s\n",
               cudaGetErrorString (cudaGetLastError ()));
      return 1;
    }
  printf ("busy_gpu: device %d, %d SMs, kernels of %.1f ms for %.0f s\n",
          dev, sms, spin_ms, seconds);
  fflush (stdout);
  const unsigned long long ns = (unsigned long long) (spin_ms * 1e6);
  float ms = 0;
  cudaEventRecord (begin, 0);
  /* two kernels queued, then waited for: the GPU waits for this
     process's next launch a few microseconds in every two kernels */
  for (long i = 0; ms < seconds * 1e3; i++)
    {
      spin<<<2 * sms, 256>>> (ns, sink);
      if (i == 0 && cudaGetLastError () != cudaSuccess)
        {
          fprintf (stderr, "busy_gpu: the kernel did not launch\n");
          return 1;
        }
      if (i % 2)
        {
          cudaEventRecord (end, 0);
          cudaEventSynchronize (end);
          cudaEventElapsedTime (&ms, begin, end);
        }
    }
  cudaError_t err = cudaDeviceSynchronize ();
  if (err != cudaSuccess)
    {
      fprintf (stderr, "busy_gpu: %s\n", cudaGetErrorString (err));
      return 1;
    }
  printf ("busy_gpu: device %d done after %.1f s\n", dev, ms / 1e3);
  return 0;
}
