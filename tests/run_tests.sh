#!/bin/sh
# Runs the Octave test suite of gpu_tiled and prints one closing line
#   N passed, N failed, N skipped
# exiting non-zero when any test failed.
#
#   run_tests.sh --tree SRC_BUILD_DIR INST_DIR   the plug-in as built in the tree
#   run_tests.sh --package TARBALL               pkg install into a scratch prefix
set -eu
here=$(cd "$(dirname "$0")" && pwd)
octave=${OCTAVE:-octave-cli}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpu_tiled_tests.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

case "${1:-}" in
  --tree)
    src=$2 inst=$3
    # What pkg would read from PKG_ADD, pointed at the tree's build.
    setup="addpath ('$inst'); addpath ('$src');"
    for f in $(sed -n 's|^// PKG_ADD: autoload ("\([^"]*\)".*|\1|p' "$here"/../src/*.cc); do
      setup="$setup autoload ('$f', '$src/__gpu_tiled__.oct');"
    done
    ;;
  --package)
    tarball=$2
    setup="pkg ('prefix', '$scratch/pkg', '$scratch/pkg');
           pkg ('local_list', '$scratch/octave_packages');
           pkg ('install', '$tarball'); pkg ('load', 'gpu_tiled');"
    ;;
  *)
    echo "usage: $0 --tree SRC INST | --package TARBALL" >&2
    exit 2
    ;;
esac

# The host-side helpers in C (no GPU, no Octave needed).
c_passed=0 c_failed=0 c_skipped=0
# add_counts NAME LOG: prints LOG but its last line, each line under
# NAME, and adds that last line, "N passed, N failed[, N skipped]", to
# the counts (a failure where it is not there)
add_counts () {
  sed -e '$d' -e "s/^  /$1: /" "$2"
  summary=$(tail -n 1 "$2")
  t_passed=$(echo "$summary" | sed -n 's/^\([0-9]*\) passed, .*/\1/p')
  t_failed=$(echo "$summary" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p')
  t_skipped=$(echo "$summary" | sed -n 's/.* failed, \([0-9]*\) skipped$/\1/p')
  if [ -n "$t_passed" ] && [ -n "$t_failed" ]; then
    c_passed=$((c_passed + t_passed))
    c_failed=$((c_failed + t_failed))
    c_skipped=$((c_skipped + ${t_skipped:-0}))
  else
    cat "$2"
    c_failed=$((c_failed + 1))
  fi
}
# c_test NAME CC-ARGUMENTS...: builds tests/NAME.c with the arguments and
# runs it, for 300 s at most (a test of threads that hangs fails instead
# of holding up the run); skipped where a header it needs is not here
# (the CUDA runtime's, on a machine without the toolkit), failed where it
# does not build otherwise (a stand-in missing, an error in the code)
limit=
command -v timeout > /dev/null 2>&1 && limit="timeout 300"
c_test () {
  name=$1; shift
  if ${CC:-cc} -O2 -std=gnu11 -o "$scratch/$name" "$here/$name.c" "$@" \
       2> "$scratch/$name.cc.log"; then
    $limit "$scratch/$name" > "$scratch/$name.log" 2>&1 || true
    add_counts "$name" "$scratch/$name.log"
  elif grep -q 'fatal error: .*\.h: No such file' "$scratch/$name.cc.log"; then
    echo "$name: skipped, a header it needs is not here:"
    cat "$scratch/$name.cc.log"
    c_skipped=$((c_skipped + 1))
  else
    echo "$name: FAILED, it does not build:"; cat "$scratch/$name.cc.log"
    c_failed=$((c_failed + 1))
  fi
}
src_dir="$here/../src"
# the copy helpers
c_test test_copy -pthread -I"$src_dir/host" "$src_dir/host/gt_copy.c"
# result memory: large results from the heap, kept for the next
c_test test_heap -I"$src_dir" -I"$src_dir/host" "$src_dir/host/gt_heap.c"
# results and operands locked in place: when, what makes room, the pages'
# checks (the CUDA runtime's locks and copies stood in for)
c_test test_locked -pthread -I"$src_dir" -I"$src_dir/host" \
  -I"$src_dir/plan" -I"${CUDA_INC:-/usr/local/cuda/include}" \
  "$src_dir/host/gt_locked.c" \
  "$src_dir/host/gt_locked_probe.c" "$src_dir/host/gt_probe_later.c" \
  "$src_dir/host/gt_lock_choice.c" \
  "$src_dir/host/gt_copy.c" \
  "$src_dir/host/gt_heap.c"
# the operands' way, locked or staged, chosen per product by timing
c_test test_lock_choice -I"$src_dir" -I"$src_dir/host" \
  "$src_dir/host/gt_lock_choice.c"
# whether a split over several devices pays
c_test test_split_rule -I"$src_dir/host" "$src_dir/host/gt_split_rule.c"
# each device's band of a split, from the devices' measured rates
c_test test_band_share -I"$src_dir" -I"$src_dir/host" \
  "$src_dir/host/gt_band_share.c"
# the threads that run a split's further bands, kept from call to call
c_test test_band_threads -pthread -I"$src_dir" -I"$src_dir/host" \
  -I"$src_dir/plan" -I"${CUDA_INC:-/usr/local/cuda/include}" \
  "$src_dir/host/gt_band_threads.c"
# how many first panels go as one head in blocks of A's rows
c_test test_head_rule -I"$src_dir/host" "$src_dir/host/gt_head_rule.c" -lm
# the order of a split band's first-panel pieces: whole, and no circle of
# bands waiting for each other
c_test test_order -I"$src_dir" -I"$src_dir/host" "$src_dir/host/gt_order.c"
# the marks a split band hands its part of a shared A on by
c_test test_marks -I"$src_dir/host"
# GPU_TILED_TRACE's one reading, shared by the traces
c_test test_trace_level -I"$src_dir/host"
# the crossover's lines against modelled sides (the library's headers
# need the CUDA runtime's, CUDA_INC)
c_test test_crossover -I"$src_dir" -I"$src_dir/host" -I"$src_dir/plan" \
  -I"${CUDA_INC:-/usr/local/cuda/include}" "$src_dir/host/gt_crossover.c" -lm

# built_test NAME PROGRAM: runs a C test that make check built with the
# library's objects (PROGRAM empty: not asked for)
built_test () {
  [ -n "$2" ] || return 0
  if [ -x "$2" ]; then
    "$2" > "$scratch/$1.log" 2>&1 || true
    add_counts "$1" "$scratch/$1.log"
  else
    echo "$1: FAILED, $2 was not built"
    c_failed=$((c_failed + 1))
  fi
}
# gt_mtimes_device from C (it skips, saying why, without a usable GPU)
built_test test_device "${TEST_DEVICE:-}"
# the plan layer's panel widths (no GPU needed)
built_test test_panel_width "${TEST_PANEL_WIDTH:-}"

# every test block parses, those a machine without a GPU skips included
"$octave" --no-gui --no-init-file --no-window-system --no-history --quiet \
  --eval "addpath ('$here'); parse_test_blocks ($(for f in "$src_dir"/*.cc "$here"/../inst/*.m; do printf "'%s', " "$f"; done | sed 's/, $//'))" \
  > "$scratch/parse.log" 2>&1 || true
add_counts parse_test_blocks "$scratch/parse.log"

cd "$scratch"
"$octave" --no-gui --no-init-file --no-window-system --no-history --quiet --eval "
  $setup
  ifelse_str = @(ok) {'FAILED', 'passed'}{ok + 1};
  names = {'gpu_tiled_mtimes', 'gpu_tiled_info', 'gpu_tiled_reset', 'gpu_tiled_devices'};
  info = gpu_tiled_info ();
  if (info.usable)
    printf ('GPU: %s (compute capability %s)\n', info.name, info.compute_capability);
  else
    printf ('GPU tests skipped: %s\n', info.reason);
  endif
  passed = $c_passed;  failed = $c_failed;  skipped = $c_skipped;
  for i = 1:numel (names)
    [n, nmax, nxfail, nbug, nskip, nrtskip, nreg] = test (names{i}, 'quiet', stdout);
    printf ('%-20s %3d passed of %3d, %3d skipped\n', names{i}, n, nmax, nskip + nrtskip);
    passed += n;
    skipped += nskip + nrtskip;
    failed += nmax - n;
  endfor
  ## pkg unload gives the cached GPU memory back (PKG_DEL); package mode only
  ## (pkg ('list') is empty in tree mode)
  if (info.usable && any (cellfun (@(p) strcmp (p.name, 'gpu_tiled'), pkg ('list'))))
    gpu_tiled_mtimes (randn (1500, 'single'), randn (1500, 'single'));
    held = gpu_tiled_info ().cached_device_memory;
    pkg ('unload', 'gpu_tiled');  pkg ('load', 'gpu_tiled');
    ok = held > 0 && gpu_tiled_info ().cached_device_memory == 0;
    printf ('%-20s %s (%d bytes held before)\n', 'pkg unload releases', ifelse_str (ok), held);
    passed += ok;  failed += ! ok;
  else
    skipped += 1;
  endif
  printf ('%d passed, %d failed, %d skipped\n', passed, failed, skipped);
  exit (failed > 0);
"
