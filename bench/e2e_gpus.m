## e2e_gpus (CSV, DEVICE, ROUNDS) -- end to end from Octave on one GPU and
## on every GPU of the host (gpu_tiled_devices), single and double at the
## squares and at every other shape of the end-to-end suite (those of
## bench_gpu_tiled_mtimes's 'suite'), complex single and double
## at the squares: for each shape ROUNDS rounds (default 3), each taking
## one GPU and then all of them in turn, 8 calls' warm-up (3 after the
## first round) and 7 timed calls, results freed between calls; the
## median and best of all rounds' calls.  Taken in turn because within a
## single pass through the shapes a split call's median moved more than
## the changes measured (bench/RESULTS.md, "Panel 0's B whole first").
## The split result is compared with the one-GPU result.  Rows as
## bench_gpu_tiled_mtimes's CSV, with the gpus column.
##   octave-cli --eval 'cd bench; e2e_gpus ("results/e2e-gpus-h200x2.csv", "h200x2")'

function e2e_gpus (csv = "e2e-gpus.csv", device = "", rounds = 3)

  all = gpu_tiled_devices ();
  if (isempty (device))
    device = gpu_tiled_info ().name;
  endif
  shapes = [4096 4096 4096; 8192 8192 8192; 16384 16384 16384;
            10000 1000 10000; 2000 20000 2000; 100000 256 256;
            3000 700 5000; 256 100000 256; 1 1000000 64; 64 1000000 1];
  fid = fopen (csv, "w");
  fprintf (fid, "device,date,method,m,n,k,seconds,gflops,speedup_vs_builtin,class,floor_seconds,of_floor,gpus\n");
  date = datestr (now (), "yyyy-mm-dd");
  unwind_protect
    for cls = {"single", "double", "complex single", "complex double"}
      cplx = strncmp (cls{1}, "complex", 7);
      for s = 1:rows (shapes)
        m = shapes(s, 1);  k = shapes(s, 2);  n = shapes(s, 3);
        if (! strcmp (cls{1}, "single") && m * n > 1e8)
          continue;   # 16384^2 of 8 bytes or more: 2 GiB an operand, skipped for time
        endif
        if (cplx && ! (m == k && k == n))
          continue;   # complex: the squares only, for time
        endif
        A = random_operand (cls{1}, m, k);  B = random_operand (cls{1}, k, n);
        es = 4 * 2 ^ (! strcmp (cls{1}, "single") + strcmp (cls{1}, "complex double"));
        flops = (2 + 6 * cplx) * m * n * k;
        gs = unique ([1, numel(all)]);
        T = cell (size (gs));
        for r = 1:rounds
          for j = 1:numel (gs)
            gpu_tiled_devices (all(1:gs(j)));
            [t, C] = time_calls (A, B, 8 - 5 * (r > 1));
            T{j} = [T{j}, t];
            if (j == 1)
              C1 = C;
            endif
          endfor
        endfor
        diffs = norm (double (C(:) - C1(:))) / norm (double (C1(:)));
        clear C;
        t1 = median (T{1});
        for j = 1:numel (gs)
          g = gs(j);  t = T{j};
          diff = diffs * (j > 1);
          floor_s = max ((m * k + k * n) * es, m * n * es) / (g * 55e9);
          printf ("%-14s %6d %6d %6d gpus %d: median %8.3f ms, best %8.3f ms, %.3f of one GPU, of byte floor %.2f, diff %.2g, round medians %s\n",
                  cls{1}, m, k, n, g, 1e3 * median (t), 1e3 * min (t),
                  median (t) / t1, median (t) / floor_s, diff,
                  mat2str (1e3 * median (reshape (t, 7, rounds)), 4));
          fprintf (fid, "%s,%s,default,%d,%d,%d,%.6g,%.4g,NaN,%s,%.6g,%.4g,%d\n",
                   device, date, m, n, k, median (t),
                   flops / median (t) / 1e9, cls{1}, floor_s,
                   median (t) / floor_s, g);
        endfor
        clear A B C1;
      endfor
    endfor
  unwind_protect_cleanup
    gpu_tiled_devices ([]);
    fclose (fid);
  end_unwind_protect

endfunction

## warm calls: the first round's 8 measure the speeds and choose the
## operands' way (a product's first 8 calls time them locked and staged
## in turn); later rounds' 3 bring the operands back.  They free the
## result before each call as the timed calls do: a loop that changes
## from keeping the last result during a call to freeing it first pays
## for it in its next two calls at 16384^3 (bench/RESULTS.md, "Issue 17's
## squares again"), which is not what this benchmark compares
function [t, C] = time_calls (A, B, warm)
  C = [];
  for w = 1:warm
    clear C;
    C = gpu_tiled_mtimes (A, B);
  endfor
  t = zeros (1, 7);
  for i = 1:7
    clear C;
    t0 = tic;  C = gpu_tiled_mtimes (A, B);  t(i) = toc (t0);
  endfor
endfunction
