## test_large -- products whose operands have more than 2^31 elements, so
## 32-bit index arithmetic anywhere on the path (host copies, device
## offsets, kernels) would go wrong.  Needs about 30 GB of host memory and
## 10 GB of GPU memory, so it is not part of `make check`; run it on a GPU
## machine after pkg install:  octave-cli tests/test_large.m
## The double part (a 1073742 x 2000 double A, 17.2 GB) runs where the GPU
## has about 22 GB free and the host 27 GB available, and is skipped
## otherwise.
1;
function r = ifelse (c, a, b)
  if (c) r = a; else r = b; endif
endfunction
## the default path for tile 0, else the classic kernel, and its seconds
function [C, t] = timed_product (A, B, tile)
  t0 = tic;
  if (tile)
    C = gpu_tiled_mtimes (A, B, tile);
  else
    C = gpu_tiled_mtimes (A, B);
  endif
  t = toc (t0);
endfunction

pkg load gpu_tiled
## every product on the GPU: the matrix-vector products below are vector
## products, which the crossover would time on Octave's * from a third call
setenv ("GPU_TILED_CROSSOVER", "off");
n = 46341;                     # n^2 = 2147488281 > 2^31 elements
printf ("A: %d x %d single (%.2f GB, %d elements > 2^31 = %d)\n", n, n,
        4 * n ^ 2 / 1e9, n ^ 2, 2 ^ 31);
A = randn (n, "single");
B = randn (n, 3, "single");
R = double (A) * double (B);
bound = norm (double (A), "fro") * norm (double (B), "fro");
failed = 0;
for tile = [0, 32]
  [C, t] = timed_product (A, B, tile);
  err = norm (double (C) - R, "fro");
  ok = isequal (size (C), [n, 3]) && err <= 4 * n * eps ("single") * bound;
  failed += ! ok;
  printf ("tile %2d: %.2f s, error %.3g (bound %.3g) %s\n", tile, t, err,
          4 * n * eps ("single") * bound, ifelse (ok, "ok", "FAIL"));
endfor
## the matrix-vector kernel on the same A
c = gpu_tiled_mtimes (A, B(:, 1));
err = norm (double (c) - R(:, 1));
ok = err <= 4 * n * eps ("single") * norm (double (A), "fro") * norm (double (B(:, 1)));
failed += ! ok;
printf ("A*x: error %.3g %s\n", err, ifelse (ok, "ok", "FAIL"));
## a wide enough B for the large-product kernels (kernel 9 on Hopper, 8
## elsewhere): 363 x 2 tiles of 128, A's offsets past 2^31 in every tile
## column
B2 = randn (n, 256, "single");
t0 = tic;
C = gpu_tiled_mtimes (A, B2);
t = toc (t0);
R2 = double (A) * double (B2);
err = norm (double (C) - R2, "fro");
bound2 = 4 * n * eps ("single") * norm (double (A), "fro") * norm (double (B2), "fro");
ok = isequal (size (C), [n, 256]) && err <= bound2;
failed += ! ok;
printf ("A*B (256 columns): %.2f s, error %.3g (bound %.3g) %s\n", t, err,
        bound2, ifelse (ok, "ok", "FAIL"));
passed = 4 - failed;
skipped = 0;

## ---- double: more than 2^31 elements of 8 bytes ----
clear A B B2 C R R2 c;
m = ceil (2 ^ 31 / 2000);      # m * 2000 = 2147484000 > 2^31 elements
k = 2000;
gpu_bytes = 8 * (m * k + m * 256) * 1.1;
host_bytes = 8 * (m * k + 3 * m * 256) * 1.1;
[~, meminfo] = system ("grep MemAvailable /proc/meminfo");
host_free = 1024 * sscanf (meminfo, "MemAvailable: %d");
gpu_free = gpu_tiled_info ().free_memory;
if (gpu_free < gpu_bytes || isempty (host_free) || host_free < host_bytes)
  printf ("double: skipped, needs %.1f GB of GPU memory (%.1f free) and %.1f GB of host memory (%.1f available)\n",
          gpu_bytes / 1e9, gpu_free / 1e9, host_bytes / 1e9, host_free / 1e9);
  skipped = 4;
else
  printf ("A: %d x %d double (%.2f GB, %d elements > 2^31 = %d)\n", m, k,
          8 * m * k / 1e9, m * k, 2 ^ 31);
  A = randn (m, k);
  B = randn (k, 3);
  R = A * B;
  bound = 4 * k * eps * norm (A, "fro") * norm (B, "fro");
  for tile = [0, 32]
    [C, t] = timed_product (A, B, tile);
    err = norm (C - R, "fro");
    ok = strcmp (class (C), "double") && isequal (size (C), [m, 3]) && err <= bound;
    failed += ! ok;
    passed += ok;
    printf ("double, tile %2d: %.2f s, error %.3g (bound %.3g) %s\n", tile, t,
            err, bound, ifelse (ok, "ok", "FAIL"));
  endfor
  ## the vector kernel on the same A
  c = gpu_tiled_mtimes (A, B(:, 1));
  err = norm (c - R(:, 1));
  ok = (strcmp (class (c), "double")
        && err <= 4 * k * eps * norm (A, "fro") * norm (B(:, 1)));
  failed += ! ok;
  passed += ok;
  printf ("double A*x: error %.3g %s\n", err, ifelse (ok, "ok", "FAIL"));
  ## a wide enough B for the large-product kernels (kernel 9 on Hopper,
  ## kernel 10 elsewhere): A's offsets pass 2^31 in the last columns
  B2 = randn (k, 256);
  t0 = tic;
  C = gpu_tiled_mtimes (A, B2);
  t = toc (t0);
  R2 = A * B2;
  err = norm (C - R2, "fro");
  bound2 = 4 * k * eps * norm (A, "fro") * norm (B2, "fro");
  ok = strcmp (class (C), "double") && isequal (size (C), [m, 256]) && err <= bound2;
  failed += ! ok;
  passed += ok;
  printf ("double A*B (256 columns): %.2f s, error %.3g (bound %.3g) %s\n", t,
          err, bound2, ifelse (ok, "ok", "FAIL"));
endif
printf ("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
exit (failed > 0);
