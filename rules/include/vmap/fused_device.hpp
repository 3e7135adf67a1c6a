// The device side of a compiled fused kernel (Note [Fused kernels on a device] in fused.hpp):
// how a thread finds its elements over the kernel's layout and stores its store's element or
// its example's sum. Compiled by NVRTC only, at the head of each device program of a fused
// kernel, after the std shims and the element types (rules/src/fused_device.cpp).
#pragma once

#include <vmap/fused_element.hpp>
#define VMAP_KERNEL_STD_FROM_LIBCUXX
#include <vmap/kernel_device.hpp>

namespace vmap_fused {

using Args = vmap_kernel::FusedArgs;
inline constexpr int kMaxDims = Args::kMaxDims;

template <class N>
__device__ N number(const Args& args, int i) {
  N value;
  const unsigned char* from = args.numbers[i];
  for (unsigned k = 0; k < sizeof(N); ++k) reinterpret_cast<unsigned char*>(&value)[k] = from[k];
  return value;
}

// This thread's position among the `count` ones: a block covers a 2-D tile of the last two
// level dims (tile x tile positions) where the layout has them, so the operand rows that
// neighbouring examples share (x[i] and y[j] of a pairwise distance) are read from L1.
__device__ inline bool position(const Args& args, int level_rank, int64_t* index) {
  int64_t block = blockIdx.x;
  int64_t p;
  if (args.tile > 0 && level_rank >= 2) {
    const int64_t rows = args.dims[level_rank - 2], columns = args.dims[level_rank - 1];
    const int64_t tiles_across = (columns + args.tile - 1) / args.tile;
    const int64_t tiles_down = (rows + args.tile - 1) / args.tile;
    const int64_t per_outer = tiles_across * tiles_down;
    const int64_t outer = block / per_outer, in_outer = block % per_outer;
    const int64_t row = in_outer / tiles_across * args.tile + threadIdx.x / args.tile;
    const int64_t column = in_outer % tiles_across * args.tile + threadIdx.x % args.tile;
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
  p = block * blockDim.x + threadIdx.x;
  if (p >= args.count) return false;
  for (int d = level_rank - 1; d >= 0; --d) {
    index[d] = p % args.dims[d];
    p /= args.dims[d];
  }
  return true;
}

// out[p] = the kernel's element at p, over every dim.
template <class R, int N, class Element>
__device__ void store(const Args& args, const Element& element) {
  int64_t index[kMaxDims];
  if (!position(args, args.rank, index)) return;
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
__device__ void sum(const Args& args, const Element& element) {
  const int level_rank = args.rank - args.example_rank;
  int64_t index[kMaxDims];
  if (!position(args, level_rank, index)) return;
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
