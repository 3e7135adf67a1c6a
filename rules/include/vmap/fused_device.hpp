// The device side of a compiled fused kernel (Note [Fused kernels on a device] in fused.hpp):
// how a thread finds its elements over the kernel's layout and stores its store's element or
// its example's sum. Compiled by NVRTC, at the head of each device program of a fused kernel
// after the std shims and the element types (rules/src/fused_device.cpp), and into the host,
// where the emulated device runs the same walk thread by thread (Fused::device_host_form).
#pragma once

#include <vmap/fused_element.hpp>
#define VMAP_KERNEL_STD_FROM_LIBCUXX
#include <vmap/kernel_device.hpp>

#ifdef __CUDACC_RTC__
#define VMAP_FUSED_FN __device__ inline
#else
#define VMAP_FUSED_FN inline
#endif

namespace vmap_fused {

using Args = vmap_kernel::FusedArgs;
inline constexpr int kMaxDims = Args::kMaxDims;

// Which thread this is: its block, its index in the block, the block's size.
struct Thread {
  int64_t block;
  int64_t index;
  int64_t threads;
};

template <class N>
VMAP_FUSED_FN N number(const Args& args, int i) {
  N value;
  const unsigned char* from = args.numbers[i];
  for (unsigned k = 0; k < sizeof(N); ++k) reinterpret_cast<unsigned char*>(&value)[k] = from[k];
  return value;
}

// This thread's position among the `count` ones: a block covers a 2-D tile of the last two
// level dims (tile x tile positions) where the layout has them, so the operand rows that
// neighbouring examples share (x[i] and y[j] of a pairwise distance) are read from L1.
VMAP_FUSED_FN bool position(const Args& args, const Thread& thread, int level_rank,
                            int64_t* index) {
  const int64_t block = thread.block;
  int64_t p;
  if (args.tile > 0 && level_rank >= 2) {
    const int64_t rows = args.dims[level_rank - 2], columns = args.dims[level_rank - 1];
    const int64_t tiles_across = (columns + args.tile - 1) / args.tile;
    const int64_t tiles_down = (rows + args.tile - 1) / args.tile;
    const int64_t per_outer = tiles_across * tiles_down;
    const int64_t outer = block / per_outer, in_outer = block % per_outer;
    const int64_t row = in_outer / tiles_across * args.tile + thread.index / args.tile;
    const int64_t column = in_outer % tiles_across * args.tile + thread.index % args.tile;
    if (row >= rows || column >= columns) return false;
    int64_t rest = outer;
    for (int d = level_rank - 3; d >= 0; --d) {
      index[d] = rest % args.dims[d];
      rest /= args.dims[d];
    }
    if (rest != 0) return false;
    index[level_rank - 2] = row;
    index[level_rank - 1] = column;
    return true;
  }
  p = block * thread.threads + thread.index;
  if (p >= args.count) return false;
  for (int d = level_rank - 1; d >= 0; --d) {
    index[d] = p % args.dims[d];
    p /= args.dims[d];
  }
  return true;
}

// out[p] = the kernel's element at p, over every dim.
template <class R, int N, class Element>
VMAP_FUSED_FN void store(const Args& args, const Thread& thread, const Element& element) {
  int64_t index[kMaxDims];
  if (!position(args, thread, args.rank, index)) return;
  int64_t offset[N > 0 ? N : 1];
  int64_t p = 0;
  for (int d = 0; d < args.rank; ++d) p = p * args.dims[d] + index[d];
  for (int n = 0; n < N; ++n) {
    offset[n] = 0;
    for (int d = 0; d < args.rank; ++d) offset[n] += index[d] * args.strides[n][d];
  }
  static_cast<R*>(args.out)[p] = element(offset);
}

// out[p] = the sum (or mean) of the kernel over example p's elements, in their order, in R.
template <class R, int N, class Element>
VMAP_FUSED_FN void sum(const Args& args, const Thread& thread, const Element& element) {
  const int level_rank = args.rank - args.example_rank;
  int64_t index[kMaxDims];
  if (!position(args, thread, level_rank, index)) return;
  int64_t p = 0;
  for (int d = 0; d < level_rank; ++d) p = p * args.dims[d] + index[d];
  int64_t offset[N > 0 ? N : 1];
  for (int n = 0; n < N; ++n) {
    offset[n] = 0;
    for (int d = 0; d < level_rank; ++d) offset[n] += index[d] * args.strides[n][d];
  }
  for (int d = level_rank; d < args.rank; ++d) index[d] = 0;
  R total = 0;
  for (int64_t k = 0; k < args.example_count; ++k) {
    total += element(offset);
    // The next element: the innermost example dim steps, carrying outward.
    for (int d = args.rank - 1; d >= level_rank; --d) {
      for (int n = 0; n < N; ++n) offset[n] += args.strides[n][d];
      if (++index[d] < args.dims[d]) break;
      for (int n = 0; n < N; ++n) offset[n] -= args.dims[d] * args.strides[n][d];
      index[d] = 0;
    }
  }
  static_cast<R*>(args.out)[p] = args.mean ? total / static_cast<R>(args.example_count) : total;
}

}  // namespace vmap_fused
