## e2e_option (OPTION, VALUES, CASES, CSV, DEVICE, ROUNDS) -- an A/B of a
## GPU_TILED_* option end to end from Octave, in one process: for each
## case (a row of CASES: class, m, k, n, GPUs; the class of a mixed product
## as A's and B's joined by "*", e.g. "complex single*single"), ROUNDS
## rounds (default 2)
## in turn, each value of the option after gpu_tiled_reset (the options
## are read at a device's set-up), 8 warm-up calls (4 from 10^12 flops;
## the operands' locked-or-staged trial among them) and 7 timed calls,
## each result freed before the next as a script's loop does.  VALUES: a
## cell of strings, "" for the option unset; the first is the baseline.
## Prints each value's median over all rounds, its best and worst, each
## round's median and the median over the baseline's; writes them to CSV
## (columns device, date, option, value, class, m, k, n, gpus,
## median_seconds, best_seconds, worst_seconds, of_first).  A case with
## more GPUs than the host has is skipped.  As bench/RESULTS.md's "Panel
## 0's B whole first", run 5:
##
##   octave-cli --eval 'pkg load gpu_tiled; cd bench; e2e_option ("GPU_TILED_B_FIRST", {"0", ""}, {"single", 8192, 8192, 8192, 1; "single", 8192, 8192, 8192, 2}, "b-first.csv", "h200x2")'

function e2e_option (option, values, cases, csv, device = "", rounds = 2)
  setenv ("GPU_TILED_CROSSOVER", "off");
  all = gpu_tiled_devices ();
  if (isempty (device))
    device = gpu_tiled_info ().name;
  endif
  f = fopen (csv, "w");
  fprintf (f, "device,date,option,value,class,m,k,n,gpus,median_seconds,best_seconds,worst_seconds,of_first\n");
  unwind_protect
    for s = 1:rows (cases)
      [cls, m, k, n, g] = cases{s, :};
      if (g > numel (all))
        printf ("%s %dx%dx%d on %d GPUs: skipped, %d here\n", cls, m, k, n, g,
                numel (all));
        continue;
      endif
      gpu_tiled_devices (all(1:g));
      ab = strsplit (cls, "*");
      A = random_operand (ab{1}, m, k);  B = random_operand (ab{end}, k, n);
      t = time_option_values (A, B, option, values, rounds,
                              8 - 4 * (m * n * k >= 1e12), 7);
      clear A B;
      base = median (t{1});
      for v = 1:numel (values)
        printf ("%s %dx%dx%d, %d GPUs, %s='%s': median %.3f ms, best %.3f, worst %.3f, rounds %s, of the first %.3f\n",
                cls, m, k, n, g, option, values{v}, 1e3 * median (t{v}),
                1e3 * min (t{v}), 1e3 * max (t{v}),
                mat2str (1e3 * median (reshape (t{v}, [], rounds)), 4),
                median (t{v}) / base);
        fprintf (f, "%s,%s,%s,%s,%s,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.4f\n", device,
                 datestr (now (), "yyyy-mm-dd"), option, values{v}, cls, m, k,
                 n, g, median (t{v}), min (t{v}), max (t{v}),
                 median (t{v}) / base);
      endfor
    endfor
  unwind_protect_cleanup
    fclose (f);
    unsetenv (option);
    gpu_tiled_devices ([]);
    gpu_tiled_reset ();
  end_unwind_protect
endfunction

