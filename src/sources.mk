# sources.mk -- the one list of the plug-in's sources, relative to src/.
# Read by src/Makefile.in (the build), Makefile.am (the package tarball)
# and bench/Makefile (the benchmark, which adds bench/kernels).

# The Octave glue: C++, no CUDA types; pkg reads PKG_ADD lines from here
# (gpu_tiled_mtimes.cc is the public function itself, with its tests).
GT_GLUE_SRCS = gpu_tiled_mtimes.cc __gpu_tiled_info__.cc \
               __gpu_tiled_reset__.cc __gpu_tiled_devices__.cc
# The host layer: C, no kernels named.
GT_HOST_SRCS = host/gt_context.c host/gt_options.c host/gt_copy.c \
               host/gt_stage.c host/gt_host.c host/gt_layout.c \
               host/gt_first_panel.c host/gt_panels.c host/gt_blocks.c \
               host/gt_multi.c host/gt_crossover.c host/gt_mtimes.c \
               host/gt_device_call.c host/gt_heap.c host/gt_locked.c \
               host/gt_locked_probe.c host/gt_probe_later.c \
               host/gt_lock_choice.c \
               host/gt_split_rule.c host/gt_band_share.c \
               host/gt_band_threads.c \
               host/gt_head_rule.c \
               host/gt_order.c
GT_HOST_HDRS = host/gt_context.h host/gt_options.h host/gt_copy.h \
               host/gt_stage.h host/gt_product.h host/gt_call.h \
               host/gt_heap.h host/gt_locked.h host/gt_order.h \
               host/gt_marks.h \
               host/gt_lock_choice.h host/gt_split_rule.h host/gt_head_rule.h \
               host/gt_band_share.h host/gt_band_threads.h
# The plan layer: dispatcher, cost models, registry, device facts.
GT_PLAN_SRCS = plan/gt_dispatch.cu plan/gt_costs.cu plan/gt_registry.cu \
               plan/gt_facts.cu plan/gt_run.cu plan/gt_emulate.cu
GT_PLAN_HDRS = plan/gt_plan.h plan/gt_costs.h plan/gt_facts.h
# The kernels, one file each (kernels 2, 3 and 7: bench/kernels).
GT_KERNEL_SRCS = kernels/gt_k1_classic.cu kernels/gt_k4_async.cu \
                 kernels/gt_k10_generic.cu kernels/gt_planes.cu \
                 kernels/gt_k5_reduce.cu kernels/gt_k6_gemv.cu \
                 kernels/gt_k8_wide.cu kernels/gt_k9_dmma.cu \
                 kernels/gt_k11_ozaki.cu kernels/gt_host_words.cu
GT_KERNEL_HDRS = kernels/gt_kernels.h kernels/gt_launch.cuh \
                 kernels/gt_tile.cuh kernels/gt_k11_ozaki.h

GT_CU_SRCS = $(GT_PLAN_SRCS) $(GT_KERNEL_SRCS)
GT_ALL_FILES = gpu_tiled.h sources.mk Makefile.in $(GT_GLUE_SRCS) \
               $(GT_HOST_SRCS) $(GT_HOST_HDRS) $(GT_PLAN_SRCS) \
               $(GT_PLAN_HDRS) $(GT_KERNEL_SRCS) $(GT_KERNEL_HDRS)
