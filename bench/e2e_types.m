## e2e_types (SIZES, KERNEL_MS) -- the default path end to end for each
## class at square sizes: results freed between calls, as a script's loop
## does; 8 calls' warm-up, then the median and best of 7 calls.  Prints each
## against its floor, max (bytes in / 55 GB/s, bytes out / 55 GB/s, the
## kernel's time), and against the floor of all bytes moved, max (bytes in
## and out / 55 GB/s, the kernel's time), where KERNEL_MS (a struct with fields single, double,
## csingle, cdouble, each a vector of milliseconds per size, measured by
## bench_kernels in the same run) gives the kernel's time; without it the
## floor counts the copies only.
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; e2e_types ([4096 8192])'
function e2e_types (sizes = [4096 8192], kernel_ms = struct ())
  gpu_tiled_mtimes (randn (64), randn (64));
  classes = {"single", "double", "csingle", "cdouble"};
  for c = 1:numel (classes)
    for i = 1:numel (sizes)
      n = sizes(i);
      A = operand (classes{c}, n);  B = operand (classes{c}, n);
      es = (4 + 4 * isa (A, "double")) * (1 + iscomplex (A));
      for w = 1:8   # the operands' way chosen in the first 8 calls
        C = gpu_tiled_mtimes (A, B);  clear C;
      endfor
      t = zeros (1, 7);
      for r = 1:numel (t)
        t0 = tic;  C = gpu_tiled_mtimes (A, B);  t(r) = toc (t0);
        clear C;
      endfor
      bytes_in = 2 * n * n * es;  bytes_out = n * n * es;
      floor_s = max (bytes_in, bytes_out) / 55e9;
      floor_all = (bytes_in + bytes_out) / 55e9;
      kern = NaN;
      if (isfield (kernel_ms, classes{c}))
        kern = kernel_ms.(classes{c})(i) / 1e3;
        floor_s = max (floor_s, kern);
        floor_all = max (floor_all, kern);
      endif
      printf ("%-8s %5d: median %.2f ms, best %.2f ms, kernel %.2f ms, floor %.2f ms, x floor %.2f (best %.2f), x all bytes' floor %.2f (best %.2f)\n",
              classes{c}, n, 1e3 * median (t), 1e3 * min (t), 1e3 * kern,
              1e3 * floor_s, median (t) / floor_s, min (t) / floor_s,
              median (t) / floor_all, min (t) / floor_all);
      fflush (stdout);
      clear A B;
    endfor
  endfor
endfunction

function X = operand (cls, n)
  switch (cls)
    case "single"
      X = randn (n, "single");
    case "double"
      X = randn (n);
    case "csingle"
      X = complex (randn (n, "single"), randn (n, "single"));
    otherwise
      X = complex (randn (n), randn (n));
  endswitch
endfunction
