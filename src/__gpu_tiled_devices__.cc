// __gpu_tiled_devices__.cc -- Octave glue for gpu_tiled_devices.

// PKG_ADD: autoload ("__gpu_tiled_devices__", "__gpu_tiled__.oct");
// PKG_DEL: autoload ("__gpu_tiled_devices__", "__gpu_tiled__.oct", "remove");

#include <vector>
#include <octave/oct.h>
#include "gpu_tiled.h"

DEFUN_DLD (__gpu_tiled_devices__, args, ,
           "-*- texinfo -*-\n\
@deftypefn  {} {@var{list} =} __gpu_tiled_devices__ ()\n\
@deftypefnx {} {@var{list} =} __gpu_tiled_devices__ (@var{set})\n\
Private: use @code{gpu_tiled_devices}.  @var{set} is a vector of device\n\
ordinals, or empty for the default set; @var{list} is the set in use.\n\
@end deftypefn")
{
  if (args.length () > 1)
    print_usage ();
  if (args.length () == 1)
    {
      const NDArray v = args(0).array_value ();
      if (v.numel () > GT_MAX_DEVICES)   // before the count narrows to int
        error ("gpu_tiled_devices: between 0 and %d devices, not %ld",
               GT_MAX_DEVICES, static_cast<long> (v.numel ()));
      std::vector<int> d (v.numel ());
      for (octave_idx_type i = 0; i < v.numel (); i++)
        d[i] = static_cast<int> (v(i));
      if (gt_set_devices (d.data (), static_cast<int> (d.size ())) != GT_OK)
        error ("gpu_tiled_devices: %s", gt_error_text ());
    }
  int d[GT_MAX_DEVICES];
  const int n = gt_get_devices (d, GT_MAX_DEVICES);
  RowVector list (n);
  for (int i = 0; i < n; i++)
    list(i) = d[i];
  return ovl (list);
}
