// __gpu_tiled_reset__.cc -- Octave glue for gpu_tiled_reset.

// PKG_ADD: autoload ("__gpu_tiled_reset__", "__gpu_tiled__.oct");
// PKG_DEL: __gpu_tiled_reset__ ();
// PKG_DEL: autoload ("__gpu_tiled_reset__", "__gpu_tiled__.oct", "remove");

#include <octave/oct.h>
#include "gpu_tiled.h"

DEFUN_DLD (__gpu_tiled_reset__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {} __gpu_tiled_reset__ ()\n\
Private: use @code{gpu_tiled_reset}.\n\
@end deftypefn")
{
  if (args.length () != 0)
    print_usage ();
  gt_reset ();
  return ovl ();
}
