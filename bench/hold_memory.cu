/* hold_memory.cu -- another process holding most of a GPU's memory, for
   the out-of-memory demonstrations: allocates all but LEAVE_MIB of device
   DEVICE's free memory, says so, and sleeps SECONDS.
     hold_memory DEVICE LEAVE_MIB SECONDS &  */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cuda_runtime.h>

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: %s DEVICE LEAVE_MIB SECONDS\n", argv[0]);
      return 2;
    }
  const size_t leave = (size_t) atol (argv[2]) << 20;
  size_t free_b = 0, total_b = 0;
  void *p = NULL;
  if (cudaSetDevice (atoi (argv[1])) != cudaSuccess
      || cudaMemGetInfo (&free_b, &total_b) != cudaSuccess
      || free_b <= leave
      || cudaMalloc (&p, free_b - leave) != cudaSuccess)
    {
      fprintf (stderr, "hold_memory: %s\n",
               cudaGetErrorString (cudaGetLastError ()));
      return 1;
    }
  cudaMemGetInfo (&free_b, &total_b);
  printf ("hold_memory: device %s, %.0f MiB free of %.0f\n", argv[1],
          free_b / 1048576.0, total_b / 1048576.0);
  fflush (stdout);
  sleep (atoi (argv[3]));
  return 0;
}
