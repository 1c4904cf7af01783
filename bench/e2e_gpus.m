## e2e_gpus (CSV, DEVICE) -- end to end from Octave on one GPU and on every
## GPU of the host (gpu_tiled_devices), single and double at the squares
## and odd shapes of the multi-GPU goal, complex single and double at the
## squares: median and best of 7 calls after
## 8 calls' warm-up, results freed between calls; the split result is compared
## with the one-GPU result.  Rows as bench_gpu_tiled_mtimes's CSV, with
## the gpus column.
##   octave-cli --eval 'cd bench; e2e_gpus ("results/e2e-gpus-h200x2.csv", "h200x2")'

function e2e_gpus (csv = "e2e-gpus.csv", device = "")

  all = gpu_tiled_devices ();
  if (isempty (device))
    device = gpu_tiled_info ().name;
  endif
  shapes = [4096 4096 4096; 8192 8192 8192; 16384 16384 16384;
            10000 1000 10000; 2000 20000 2000; 100000 256 256;
            3000 700 5000];
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
        C1 = [];
        for g = unique ([1, numel(all)])
          gpu_tiled_devices (all(1:g));
          [t, C] = time_calls (A, B);
          if (g == 1)
            C1 = C;  t1 = median (t);  diff = 0;
          else
            diff = norm (double (C(:) - C1(:))) / norm (double (C1(:)));
          endif
          clear C;
          floor_s = max ((m * k + k * n) * es, m * n * es) / (g * 55e9);
          printf ("%-14s %6d %6d %6d gpus %d: median %8.3f ms, best %8.3f ms, %.2fx one GPU, of byte floor %.2f, diff %.2g\n",
                  cls{1}, m, k, n, g, 1e3 * median (t), 1e3 * min (t),
                  t1 / median (t), median (t) / floor_s, diff);
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

## 8 calls' warm-up: the speeds measured, and the operands' way chosen
## (a product's first 8 calls time them locked and staged in turn)
function [t, C] = time_calls (A, B)
  for w = 1:8
    C = gpu_tiled_mtimes (A, B);
  endfor
  t = zeros (1, 7);
  for i = 1:7
    clear C;
    t0 = tic;  C = gpu_tiled_mtimes (A, B);  t(i) = toc (t0);
  endfor
endfunction
