## test_large -- products whose operands have more than 2^31 elements, so
## 32-bit index arithmetic anywhere on the path (host copies, device
## offsets, kernels) would go wrong.  Needs about 30 GB of host memory and
## 10 GB of GPU memory, so it is not part of `make check`; run it on a GPU
## machine after pkg install:  octave-cli tests/test_large.m
1;
function r = ifelse (c, a, b)
  if (c) r = a; else r = b; endif
endfunction

pkg load gpu_tiled
n = 46341;                     # n^2 = 2147488281 > 2^31 elements
printf ("A: %d x %d single (%.2f GB, %d elements > 2^31 = %d)\n", n, n,
        4 * n ^ 2 / 1e9, n ^ 2, 2 ^ 31);
A = randn (n, "single");
B = randn (n, 3, "single");
R = double (A) * double (B);
bound = norm (double (A), "fro") * norm (double (B), "fro");
failed = 0;
for tile = [0, 32]
  t0 = tic;
  if (tile)
    C = gpu_tiled_mtimes (A, B, tile);
  else
    C = gpu_tiled_mtimes (A, B);
  endif
  t = toc (t0);
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
printf ("%d passed, %d failed, 0 skipped\n", 4 - failed, failed);
exit (failed > 0);
