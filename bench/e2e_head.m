## e2e_head (CSV, DEVICE, CASES) -- a head of several panels in blocks of
## A's rows against none, end to end on the first device alone, as in
## bench/RESULTS.md, "A head of panels in blocks of rows".
##
## CASES: a cell array, one row per product: class ("double", "complex
## double", ...), m, k, n, and a cell of ways, each a GPU_TILED_HEAD value
## ("0": no head, "": as the rule predicts, "4": four panels forced).  The
## first way is the baseline.  Each way, in two rounds in turn: after
## gpu_tiled_reset, 10 warm-up calls (6 from 10^12 flops; the operands'
## locked-or-staged trial among them), then 7 timed calls (4), each
## result freed before the next as a script's loop does.  Prints each
## way's median over both rounds, its best and range, the heads taken and
## the median over the baseline's; writes them to CSV (columns device,
## date, class, m, k, n, head, median_seconds, best_seconds, worst_seconds,
## heads, of_baseline).  Default CASES: complex double 8192^3 and double
## 8192^3, each with no head and as predicted.
##
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; e2e_head ("head.csv", "h200")'

function e2e_head (csv, device, cases = {"complex double", 8192, 8192, 8192, {"0", ""};
                                          "double", 8192, 8192, 8192, {"0", ""}})
  setenv ("GPU_TILED_CROSSOVER", "off");
  d = gpu_tiled_devices ();
  gpu_tiled_devices (d(1));
  f = fopen (csv, "w");
  fprintf (f, "device,date,class,m,k,n,head,median_seconds,best_seconds,worst_seconds,heads,of_baseline\n");
  unwind_protect
    for s = 1:rows (cases)
      [cls, m, k, n, ways] = cases{s, :};
      [A, B] = operands (cls, m, k, n);
      [t, heads] = time_ways (A, B, ways, m * n * k > 1e12);
      base = median (t{1});
      for v = 1:numel (ways)
        name = ways{v};
        if (isempty (name))
          name = "rule";
        endif
        printf ("%-15s %5d %5d %5d head %-4s: median %9.3f ms, best %9.3f, worst %9.3f, heads %2d, of no head %.3f\n",
                cls, m, k, n, name, 1e3 * median (t{v}), 1e3 * min (t{v}),
                1e3 * max (t{v}), heads(v), median (t{v}) / base);
        fprintf (f, "%s,%s,%s,%d,%d,%d,%s,%.6g,%.6g,%.6g,%d,%.4f\n", device,
                 datestr (now (), "yyyy-mm-dd"), cls, m, k, n, name,
                 median (t{v}), min (t{v}), max (t{v}), heads(v),
                 median (t{v}) / base);
      endfor
    endfor
  unwind_protect_cleanup
    fclose (f);
    unsetenv ("GPU_TILED_HEAD");
    gpu_tiled_devices ([]);
    gpu_tiled_reset ();
  end_unwind_protect
endfunction

## Random zero-mean operands of the class.
function [A, B] = operands (cls, m, k, n)
  if (strncmp (cls, "complex", 7))
    base = strtrim (cls(9:end));
    A = complex (randn (m, k, base), randn (m, k, base));
    B = complex (randn (k, n, base), randn (k, n, base));
  else
    A = randn (m, k, cls);
    B = randn (k, n, cls);
  endif
endfunction

## Each way's timed calls over two rounds in turn (t{v}), and the heads it
## took in its last series.
function [t, heads] = time_ways (A, B, ways, large)
  [warm, calls] = deal (10, 7);
  if (large)
    [warm, calls] = deal (6, 4);
  endif
  [t, heads] = time_option_values (A, B, "GPU_TILED_HEAD", ways, 2, warm,
                                   calls,
                                   @() gpu_tiled_info ().head_products);
endfunction
