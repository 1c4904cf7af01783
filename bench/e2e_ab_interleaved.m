## e2e_ab_interleaved (SHAPES, CALLS, OLD, NEW, CLS) -- end-to-end time of two
## builds' default paths in one Octave, call by call: OLD and NEW are
## function handles (the old build loaded under renamed functions, see
## tools/ab-baseline).  At each shape (rows of SHAPES: m, k, n; inputs
## of class CLS, "single" (the default), "double", "complex single" or
## "complex double", drawn once) each is called once to warm up, then CALLS rounds
## call both, the order swapped every round, each result freed before the
## next call.  Prints the medians and the median of the rounds' ratios
## new/old, which the host's drift between rounds moves least.
##
##   e2e_ab_interleaved ([4096 4096 4096], 31, @gpu_tiled_mtimes_old, @gpu_tiled_mtimes)

function e2e_ab_interleaved (shapes, calls, old, new, cls = "single")
  printf ("%s\n%6s %6s %6s %11s %11s %9s\n", cls, "m", "k", "n", "old ms",
          "new ms", "new/old");
  for s = 1:rows (shapes)
    m = shapes(s, 1);  k = shapes(s, 2);  n = shapes(s, 3);
    A = random_operand (cls, m, k);  B = random_operand (cls, k, n);
    f = {old, new};
    t = zeros (calls, 2);
    for w = 1:2
      C = f{w} (A, B);  clear C;
    endfor
    for r = 1:calls
      order = [1 2];
      if (! mod (r, 2))
        order = [2 1];
      endif
      for w = order
        t0 = tic;  C = f{w} (A, B);  t(r, w) = toc (t0);
        clear C;
      endfor
    endfor
    printf ("%6d %6d %6d %11.4f %11.4f %9.4f\n", m, k, n,
            1e3 * median (t(:, 1)), 1e3 * median (t(:, 2)),
            median (t(:, 2) ./ t(:, 1)));
  endfor
endfunction
