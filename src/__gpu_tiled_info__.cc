// __gpu_tiled_info__.cc -- Octave glue for gpu_tiled_info.

// PKG_ADD: autoload ("__gpu_tiled_info__", "__gpu_tiled__.oct");
// PKG_DEL: autoload ("__gpu_tiled_info__", "__gpu_tiled__.oct", "remove");

#include <octave/oct.h>
#include <octave/oct-map.h>
#include <octave/version.h>
#include "gpu_tiled.h"

// What gt_device_info says of one device, as the fields of s.
static void
assign_device (octave_scalar_map& s, const gt_info& info)
{
  s.assign ("usable", info.usable != 0);
  s.assign ("reason", std::string (info.reason));
  s.assign ("device", info.device);
  s.assign ("name", std::string (info.name));
  s.assign ("compute_capability",
            info.usable ? std::to_string (info.cc_major) + "."
                          + std::to_string (info.cc_minor)
                        : std::string ());
  s.assign ("multiprocessors", info.multiprocessors);
  s.assign ("total_memory", static_cast<double> (info.total_bytes));
  s.assign ("free_memory", static_cast<double> (info.free_bytes));
  s.assign ("cached_device_memory",
            static_cast<double> (info.cached_device_bytes));
  s.assign ("cached_pinned_memory",
            static_cast<double> (info.cached_pinned_bytes));
  s.assign ("memory_retries", static_cast<double> (info.memory_retries));
  s.assign ("side_products", static_cast<double> (info.side_products));
  s.assign ("piece_products", static_cast<double> (info.piece_products));
  s.assign ("rows_products", static_cast<double> (info.rows_products));
  s.assign ("head_products", static_cast<double> (info.head_products));
  s.assign ("eighths_products",
            static_cast<double> (info.eighths_products));
  s.assign ("last_rows_products",
            static_cast<double> (info.last_rows_products));
  octave_idx_type count = 0;
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    count += info.peers >> d & 1;
  Matrix peers (1, count);   // 1x0 where it reaches none
  count = 0;
  for (int d = 0; d < GT_MAX_DEVICES; d++)
    if (info.peers >> d & 1)
      peers(count++) = d;
  s.assign ("peers", peers);
}

// Every device the driver shows, one element each.
static octave_map
all_devices (int count)
{
  octave_scalar_map e;
  gt_info none = gt_info ();
  assign_device (e, none);   // the fields, in their order
  octave_map all (dim_vector (1, count), e.keys ());
  for (int d = 0; d < count; d++)
    {
      gt_info info;
      gt_device_info (d, &info);
      assign_device (e, info);
      all.fast_elem_insert (d, e);
    }
  return all;
}

// Kernel 11's counts: single products emulated on the INT8 tensor cores.
static octave_scalar_map
emulation ()
{
  gt_emulation_info e;
  gt_emulation_get (&e);
  octave_scalar_map s;
  s.assign ("usable", e.usable != 0);
  s.assign ("mode", std::string (e.mode == GT_EMULATE_OFF ? "off"
                                 : e.mode == GT_EMULATE_ALWAYS ? "always"
                                 : "cost"));
  s.assign ("products", static_cast<double> (e.products));
  s.assign ("declined", static_cast<double> (e.declined));
  s.assign ("kept_scans", static_cast<double> (e.kept_scans));
  s.assign ("kept_slices", static_cast<double> (e.kept_slices));
  s.assign ("pieces", static_cast<double> (e.pieces));
  s.assign ("a_ahead", static_cast<double> (e.a_ahead));
  s.assign ("last_moduli", e.last_moduli);
  return s;
}

// The crossover of each class of C: what was measured, and where.
static octave_map
crossovers ()
{
  octave_map x;
  for (int t = 0; t < GT_TYPE_COUNT; t++)
    {
      gt_crossover_info c;
      gt_crossover_get (static_cast<gt_type> (t), &c);
      octave_scalar_map e;
      e.assign ("class", std::string (gt_type_name (static_cast<gt_type> (t))));
      e.assign ("measured", c.measured != 0);
      e.assign ("square_n", c.square_n);
      RowVector sizes (GT_CROSSOVER_POINTS), host (GT_CROSSOVER_POINTS),
                gpu (GT_CROSSOVER_POINTS);
      for (int p = 0; p < GT_CROSSOVER_POINTS; p++)
        {
          sizes(p) = c.sizes[p];
          host(p) = c.host_s[p];
          gpu(p) = c.gpu_s[p];
        }
      e.assign ("sizes", sizes);
      e.assign ("host_seconds", host);
      e.assign ("gpu_seconds", gpu);
      e.assign ("host_fixed_seconds", c.host_fixed_s);
      e.assign ("host_flops_per_second", c.host_flops_per_s);
      e.assign ("gpu_fixed_seconds", c.gpu_fixed_s);
      e.assign ("gpu_bytes_per_second", c.gpu_bytes_per_s);
      e.assign ("host_products", static_cast<double> (c.host_products));
      RowVector vg (GT_VECTOR_KINDS), vh (GT_VECTOR_KINDS),
                rg (GT_VECTOR_KINDS), rh (GT_VECTOR_KINDS);
      for (int j = 0; j < GT_VECTOR_KINDS; j++)
        {
          vg(j) = static_cast<double> (c.vector_gpu_calls[j]);
          vh(j) = static_cast<double> (c.vector_host_calls[j]);
          rg(j) = c.vector_gpu_bytes_per_s[j];
          rh(j) = c.vector_host_bytes_per_s[j];
        }
      e.assign ("vector_gpu_calls", vg);
      e.assign ("vector_host_calls", vh);
      e.assign ("vector_gpu_bytes_per_second", rg);
      e.assign ("vector_host_bytes_per_second", rh);
      if (t == 0)
        x = octave_map (dim_vector (1, GT_TYPE_COUNT), e.keys ());
      x.fast_elem_insert (t, e);
    }
  return x;
}

DEFUN_DLD (__gpu_tiled_info__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{s} =} __gpu_tiled_info__ ()\n\
Private: use @code{gpu_tiled_info}.\n\
@end deftypefn")
{
  if (args.length () != 0)
    print_usage ();
  gt_info info;
  if (gt_device_info (GT_DEVICE_DEFAULT, &info) != GT_OK)
    error ("gpu_tiled_info: %s", gt_error_text ());

  octave_scalar_map s;
  assign_device (s, info);
  s.assign ("driver_version", info.driver_version);
  s.assign ("runtime_version", info.runtime_version);
  s.assign ("build_archs", std::string (info.build_archs));
  s.assign ("device_count", info.device_count);
  int used[GT_MAX_DEVICES];
  const int n_used = info.usable ? gt_get_devices (used, GT_MAX_DEVICES) : 0;
  RowVector u (n_used);
  for (int i = 0; i < n_used; i++)
    u(i) = used[i];
  s.assign ("devices_used", u);
  s.assign ("devices", all_devices (info.usable ? info.device_count : 0));
  s.assign ("crossover", crossovers ());
  s.assign ("emulation", emulation ());
#if OCTAVE_MAJOR_VERSION >= 7
  // only from Octave 7 does the glue allocate results through the heap
  s.assign ("result_heap", static_cast<double> (gt_result_heap_budget ()));
#else
  s.assign ("result_heap", 0.0);
#endif
  s.assign ("result_heap_reused",
            static_cast<double> (gt_result_heap_reused ()));
  s.assign ("results_locked",
            static_cast<double> (gt_results_locked_bytes ()));
  s.assign ("lock_budget", static_cast<double> (gt_lock_budget ()));
  s.assign ("results_direct", static_cast<double> (gt_results_direct ()));
  s.assign ("results_stale_pages",
            static_cast<double> (gt_results_stale_pages ()));
  s.assign ("operands_direct", static_cast<double> (gt_operands_direct ()));
  s.assign ("operands_stale_pages",
            static_cast<double> (gt_operands_stale_pages ()));
  const int mode = gt_operands_lock_mode ();
  s.assign ("operands_lock", mode < 0 ? "timed" : mode ? "always" : "never");
  s.assign ("operands_chosen_locked",
            static_cast<double> (gt_operands_chosen (1)));
  s.assign ("operands_chosen_staged",
            static_cast<double> (gt_operands_chosen (0)));
  return ovl (s);
}
