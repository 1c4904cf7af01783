## larger_than_device (FACTOR) -- one square single product whose A, B and
## C together take FACTOR times the GPU's whole memory (it goes through in
## blocks of C, A and B sent again as the blocks need them), where the host
## has the memory; the time, 256 sampled elements against double dot
## products, and a small product after it.
##
## Filling 3 x 30 GB with randn would take minutes, so A is a random block
## of rows repeated down the matrix, each repeat scaled by its own power of
## two, and B likewise by columns: each block of C is an exact power-of-two
## multiple of one product, the row blocks' scales all different and the
## column blocks' too, so a block computed from the wrong rows or columns
## shows as a wrong scale.
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; larger_than_device (1.2)'

function larger_than_device (factor = 1.2)
  info = gpu_tiled_info ();
  dev_bytes = info.devices(1).total_memory;
  n = ceil (sqrt (factor * dev_bytes / 12) / 1024) * 1024;
  need = 3 * 4 * n^2;
  [~, out] = system ("awk '/MemAvailable/ {print $2}' /proc/meminfo");
  host = 1024 * str2double (out);
  printf ("device %.1f GB; n = %d: A, B, C %.1f GB together (%.2f x the device); host has %.1f GB free\n",
          dev_bytes / 1e9, n, need / 1e9, need / dev_bytes, host / 1e9);
  if (host < 1.08 * need)
    printf ("not run: the host lacks the memory\n");
    return;
  endif
  rep = 8;  r = n / rep;
  t0 = tic;
  A = kron (single (2 .^ ((1:rep)' - 4)), randn (r, n, "single"));
  B = kron (single (2 .^ (4 - 2 * (1:rep))), randn (n, r, "single"));
  printf ("operands made in %.1f s\n", toc (t0));
  gpu_tiled_reset ();
  t0 = tic;
  C = gpu_tiled_mtimes (A, B);
  t = toc (t0);
  printf ("%d^3 single: %.2f s, %.1f TFLOP/s end to end\n", n, t, 2 * n^3 / t / 1e12);
  i = randi (n, 256, 1);  j = randi (n, 256, 1);
  worst = 0;
  for e = 1:256
    a = double (A(i(e), :));  bcol = double (B(:, j(e)));
    ref = a * bcol;
    bound = n * eps ("single") * norm (a) * norm (bcol);
    worst = max (worst, abs (double (C(i(e), j(e))) - ref) / bound);
  endfor
  printf ("256 sampled elements: worst error %.3g of the bound n * eps * |a| * |b|\n", worst);
  clear A B C;
  S = randn (1000, "single");
  ok = norm (double (gpu_tiled_mtimes (S, S)) - double (S) * double (S), "fro") ...
       <= 1000 * eps ("single") * norm (double (S), "fro") ^ 2;
  printf ("the next call (1000^3): %s\n", {"WRONG", "correct"}{ok + 1});
  info = gpu_tiled_info ();
  printf ("cached on the device afterwards: %.1f MiB\n",
          info.devices(1).cached_device_memory / 2^20);
endfunction
