## e2e_busy (BUSY, N, CSV, DEVICE) -- a split product while another
## process keeps the last GPU busy (BUSY: the path of bench/busy_gpu):
## an N^3 single product (default 16384) on the first GPU alone and on
## every GPU, first with every GPU idle, then with busy_gpu spinning on
## the last one.  Each way after gpu_tiled_reset: the first 3 calls
## apart (the split's first calls cut equal bands: the speeds are not yet
## measured), then 7 more warm-ups and 7 timed calls, results freed; the
## median, best, the time over the first GPU's alone in the same state,
## and the error of 64 sampled rows.  The split's bands are read from
## the trace (GPU_TILED_TRACE=1, each band's summary line on stderr).
## Issue 17's goal: with one GPU busy, the split no slower than the idle
## GPU alone, and right.  Needs two GPUs or more.
##   make -C bench busy_gpu
##   cd bench; octave-cli --eval 'pkg load gpu_tiled; e2e_busy ("./busy_gpu", 16384, "results/e2e-busy-h200x2.csv", "h200x2")'

function e2e_busy (busy = "./busy_gpu", n = 16384, csv = "", device = "")

  devs = gpu_tiled_devices ();
  if (numel (devs) < 2)
    printf ("e2e_busy: skipped, %d usable GPU\n", numel (devs));
    return;
  endif
  if (isempty (device))
    device = gpu_tiled_info ().name;
  endif
  A = random_operand ("single", n, n);  B = random_operand ("single", n, n);
  i = randperm (n, 64);
  R = double (A(i, :)) * double (B);
  logf = tempname ();
  pid = 0;
  started = tic ();
  got = {};
  setenv ("GPU_TILED_TRACE", "1");   # read as each device's context is made
  unwind_protect
    for state = {"idle", "busy"}
      if (strcmp (state{1}, "busy"))
        ## stopped, by its id, once this state's calls are done
        [~, out] = system (sprintf ("%s %d 120 > %s 2>&1 & echo $!", busy,
                                    devs(end), logf));
        pid = str2double (out);
        started = tic ();
        wait_for (logf, "kernels of", 30, pid);
      endif
      t1 = [];
      for set = {devs(1), devs}
        gpu_tiled_devices (set{1});
        gpu_tiled_reset ();
        fprintf (stderr, "=== e2e_busy: %s, devices %s\n", state{1},
                 mat2str (set{1}));
        [first, t, C] = time_calls (A, B);
        err = norm (double (C(i, :)) - R, "fro") / norm (R, "fro");
        clear C;
        if (isempty (t1))   # the first GPU alone, in this state
          t1 = median (t);
        endif
        printf ("%s, devices %-6s %d^3 single: first 3 calls %s ms; median %.2f ms, best %.2f; %.3f of the first GPU alone; error %.2g\n",
                state{1}, mat2str (set{1}), n, mat2str (1e3 * first, 4),
                1e3 * median (t), 1e3 * min (t), median (t) / t1, err);
        got(end+1, :) = {state{1}, numel(set{1}), median(t), min(t), ...
                         median(t) / t1, err};
      endfor
    endfor
  unwind_protect_cleanup
    ## within its 120 s (past them its id may be another's), waiting 10 s
    ## at most for it to go
    if (pid > 0 && toc (started) < 110)
      system (sprintf ("kill %d && for i in $(seq 100); do kill -0 %d 2>/dev/null || break; sleep 0.1; done",
                       pid, pid));
    endif
    unsetenv ("GPU_TILED_TRACE");
    gpu_tiled_devices ([]);
    gpu_tiled_reset ();
  end_unwind_protect
  if (! isempty (csv))
    fid = fopen (csv, "w");
    if (fid < 0)
      error ("e2e_busy: cannot write %s", csv);
    endif
    fprintf (fid, "device,date,state,gpus,m,n,k,seconds,best_seconds,of_first_gpu,rel_err\n");
    date = datestr (now (), "yyyy-mm-dd");
    for r = 1:rows (got)
      fprintf (fid, "%s,%s,%s,%d,%d,%d,%d,%.6g,%.6g,%.4f,%.2g\n", device,
               date, got{r, 1}, got{r, 2}, n, n, n, got{r, 3:6});
    endfor
    fclose (fid);
  endif

endfunction

## 3 calls apart, 7 warm-ups, 7 timed; results freed before each call
function [first, t, C] = time_calls (A, B)
  first = zeros (1, 3);  t = zeros (1, 7);
  C = [];
  for j = 1:17
    clear C;
    t0 = tic;  C = gpu_tiled_mtimes (A, B);  s = toc (t0);
    if (j <= 3)
      first(j) = s;
    elseif (j > 10)
      t(j - 10) = s;
    endif
  endfor
endfunction

## until the file says what, or seconds pass, or process pid has gone
function wait_for (file, what, seconds, pid)
  for w = 1:(10 * seconds)
    [~, out] = system (sprintf ("cat %s 2>/dev/null", file));
    if (! isempty (strfind (out, what)))
      printf ("%s", out);
      return;
    endif
    if (system (sprintf ("kill -0 %d 2>/dev/null", pid)) != 0)
      break;
    endif
    pause (0.1);
  endfor
  error ("e2e_busy: busy_gpu did not say '%s': %s", what, out);
endfunction
