## e2e_ab (LABEL, SHAPES, CALLS) -- the default path's end-to-end time at
## each shape (rows of SHAPES: m, k, n): a warm-up call, then the median
## and the best of CALLS calls (default 15), each result freed before the
## next call as a script's loop does.  Prints one line per shape, starting
## with LABEL, so runs of two builds taken alternately can be compared:
##
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; e2e_ab ("new", [4096 4096 4096])'

function e2e_ab (label, shapes, calls = 15)
  for s = 1:rows (shapes)
    m = shapes(s, 1);  k = shapes(s, 2);  n = shapes(s, 3);
    A = randn (m, k, "single");  B = randn (k, n, "single");
    C = gpu_tiled_mtimes (A, B);
    t = zeros (1, calls);
    for r = 1:calls
      clear C;
      t0 = tic;  C = gpu_tiled_mtimes (A, B);  t(r) = toc (t0);
    endfor
    printf ("%s %6d %6d %6d median %9.3f ms best %9.3f ms\n", label, m, k, n,
            1e3 * median (t), 1e3 * min (t));
  endfor
endfunction
