// __gpu_tiled_info__.cc -- Octave glue for gpu_tiled_info.

// PKG_ADD: autoload ("__gpu_tiled_info__", "__gpu_tiled__.oct");
// PKG_DEL: autoload ("__gpu_tiled_info__", "__gpu_tiled__.oct", "remove");

#include <octave/oct.h>
#include <octave/oct-map.h>
#include "gpu_tiled.h"

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
  s.assign ("driver_version", info.driver_version);
  s.assign ("runtime_version", info.runtime_version);
  s.assign ("build_archs", std::string (info.build_archs));
  return ovl (s);
}
