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

// Note [Staged tiles on a device]
// A sum over examples laid out in tiles reads, in each block, the same operand rows many
// times: x[i] for the tile's j, y[j] for its i. Read by each thread from global memory, a
// warp's load touched 16 rows at once (16 cache lines for 32 floats), and each element's
// offsets were recomputed over every dim: the 2000x2000x64 distance took ~800 us on an H200.
// staged_sum() copies each operand's cells of the block's tile (the rows and columns it varies
// along: 32 for x[i], 1024 for a z[i][j]) into shared memory, a chunk of each example's
// elements at a time, a warp a cell's row (coalesced); a thread then sums kMicro x kMicro
// examples from there, each staged element read once for kMicro of them, the offsets counting
// 0, 1, ... (cells an odd pitch apart: a warp's 16 columns read 16 banks). On the H200: 800 us
// -> 308 us (staged, one example a thread) -> 240 us (a warp a cell's row, 64 elements a
// chunk) -> 150 us (2 x 2 examples a thread; 4 x 4 ran 386 us). Each example's elements are
// still added in their order, in R, so the result is the per-thread walk's to the bit. The
// host decides (args.chunk, rules/src/fused.cpp): where a cell of every operand does not fit,
// sum() walks 16 x 16 tiles thread by thread.
// The walk is one text for the device and the emulated device: each phase is a loop over the
// block's threads (on a device, the one running it) and a barrier, so the host runs the phases
// of a block's threads in turn (VMAP_FOR_EACH_THREAD; a thread's own variables by VMAP_SLOT).
#ifdef __CUDACC_RTC__
#define VMAP_FUSED_BARRIER() __syncthreads()
#define VMAP_FUSED_SLOTS 1
#define VMAP_FOR_EACH_THREAD(t, thread) \
  for (int64_t t = (thread).index, t##_end = t + 1; t < t##_end; ++t)
#define VMAP_SLOT(t) 0
#else
#define VMAP_FUSED_BARRIER()
#define VMAP_FUSED_SLOTS 256  // kTile * kTile
#define VMAP_FOR_EACH_THREAD(t, thread) for (int64_t t = 0; t < (thread).threads; ++t)
#define VMAP_SLOT(t) (t)
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
// neighbouring examples share (x[i] and y[j] of a pairwise distance) are read from L1 (a
// store) or staged once (a sum: staged_sum).
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
  static_cast<R*>(args.out)[p] = element(args.base, offset);
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
    total += element(args.base, offset);
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

// A block's threads: kTile x kTile, each a position of a tile (store(), sum()) or, in a staged
// sum, kMicro x kMicro examples kTile apart: a block then covers (kTile * kMicro)^2 examples,
// and a thread reads each staged element once for kMicro examples (Note [Staged tiles on a
// device]). The shared memory a block stages its operands' cells in, and the most elements of
// an example staged at a time.
inline constexpr int kTile = 16;
inline constexpr int kMicro = 2;
inline constexpr int kStagedBytes = 32768;
inline constexpr int kStagedChunk = 64;
inline constexpr int kWarp = 32;  // the copy's threads a cell (kTile * kTile a multiple)

// A staged tile's cells of operand n: its rows and columns the operand varies along.
VMAP_FUSED_FN int cells_across(const Args& args, int n) {
  return args.strides[n][args.rank - args.example_rank - 1] != 0 ? args.tile : 1;
}
VMAP_FUSED_FN int cells(const Args& args, int n) {
  return (args.strides[n][args.rank - args.example_rank - 2] != 0 ? args.tile : 1) *
         cells_across(args, n);
}

// The elements of each example a sum over tiles of args.tile (kTile * kMicro) stages at a time
// for `operands` operands of `element_bytes`: 0 where a cell of each does not fit. Even, so
// that a cell's pitch is odd (a warp's columns read distinct banks), unless 1.
VMAP_FUSED_FN int staged_chunk(const Args& args, int operands, int element_bytes) {
  int all = 0;
  for (int n = 0; n < operands; ++n) all += cells(args, n);
  if (all == 0) return 0;
  const int most = kStagedBytes / element_bytes / all - 1;
  if (most <= 1) return most > 0 ? most : 0;
  return (most < kStagedChunk ? most : kStagedChunk) & ~1;
}

// The offset of an example's k-th element (in order) in operand n.
VMAP_FUSED_FN int64_t example_offset(const Args& args, int n, int64_t k) {
  if (args.example_rank == 1) return k * args.strides[n][args.rank - 1];
  int64_t offset = 0;
  for (int d = args.rank - 1; d >= args.rank - args.example_rank; --d) {
    offset += k % args.dims[d] * args.strides[n][d];
    k /= args.dims[d];
  }
  return offset;
}

// sum() where args.chunk > 0: a block is a tile of args.tile (kTile * kMicro) square, each
// operand's cells staged in `shared` (kStagedBytes), args.chunk elements of each example at
// a time.
template <class R, class T, int N, class Element>
VMAP_FUSED_FN void staged_sum(const Args& args, const Thread& thread, unsigned char* shared,
                              const Element& element) {
  constexpr int kOperands = N > 0 ? N : 1;
  const int level_rank = args.rank - args.example_rank;
  const int tile = args.tile, chunk = args.chunk;
  const int64_t rows = args.dims[level_rank - 2], columns = args.dims[level_rank - 1];
  const int64_t tiles_across = (columns + tile - 1) / tile;
  const int64_t per_outer = tiles_across * ((rows + tile - 1) / tile);
  const int64_t outer = thread.block / per_outer, in_outer = thread.block % per_outer;
  const int64_t row0 = in_outer / tiles_across * tile, column0 = in_outer % tiles_across * tile;
  // Each operand's offset at the tile's corner, and where its cells start in `shared`, a
  // cell's elements `pitch` apart.
  const int pitch = chunk + 1;
  int64_t corner[kOperands];
  int start[kOperands];
  int used = 0;
  for (int n = 0; n < N; ++n) {
    corner[n] = row0 * args.strides[n][level_rank - 2] + column0 * args.strides[n][level_rank - 1];
    start[n] = used;
    used += cells(args, n) * pitch;
  }
  int64_t rest = outer;
  for (int d = level_rank - 3; d >= 0; --d) {
    for (int n = 0; n < N; ++n) corner[n] += rest % args.dims[d] * args.strides[n][d];
    rest /= args.dims[d];
  }
  if (rest != 0) return;  // past the last tile: the whole block
  T* const stage = reinterpret_cast<T*>(shared);
  R total[kMicro * kMicro][VMAP_FUSED_SLOTS];
  VMAP_FOR_EACH_THREAD(t, thread) {
    for (int m = 0; m < kMicro * kMicro; ++m) total[m][VMAP_SLOT(t)] = 0;
  }
  for (int64_t k0 = 0; k0 < args.example_count; k0 += chunk) {
    const int count = args.example_count - k0 < chunk ? static_cast<int>(args.example_count - k0)
                                                       : chunk;
    // The copy: a warp takes a cell, its lanes consecutive elements of the cell's row.
    VMAP_FOR_EACH_THREAD(t, thread) {
      const int lane = static_cast<int>(t) % kWarp, warp = static_cast<int>(t) / kWarp;
      for (int n = 0; n < N; ++n) {
        const T* from = static_cast<const T*>(args.base[n]);
        const int across_cells = cells_across(args, n), all = cells(args, n);
        for (int cell = warp; cell < all; cell += static_cast<int>(thread.threads) / kWarp) {
          const int down = cell / across_cells, across = cell % across_cells;
          if (row0 + down >= rows || column0 + across >= columns) continue;
          const T* row = from + corner[n] + down * args.strides[n][level_rank - 2] +
                         across * args.strides[n][level_rank - 1];
          for (int k = lane; k < count; k += kWarp)
            stage[start[n] + cell * pitch + k] = row[example_offset(args, n, k0 + k)];
        }
      }
    }
    VMAP_FUSED_BARRIER();
    // The sums: thread (r, c) adds examples (r + kTile * a, c + kTile * b), each element in
    // turn, its operands' offsets counting along their cells.
    VMAP_FOR_EACH_THREAD(t, thread) {
      const int r = static_cast<int>(t) / kTile, c = static_cast<int>(t) % kTile;
      const void* bases[kMicro * kMicro][kOperands];
      bool inside[kMicro * kMicro];
      for (int m = 0; m < kMicro * kMicro; ++m) {
        const int down = r + kTile * (m / kMicro), across = c + kTile * (m % kMicro);
        inside[m] = row0 + down < rows && column0 + across < columns;
        for (int n = 0; n < N; ++n) {
          const int cell = (args.strides[n][level_rank - 2] != 0 ? down : 0) *
                               cells_across(args, n) +
                           (args.strides[n][level_rank - 1] != 0 ? across : 0);
          bases[m][n] = stage + start[n] + cell * pitch;
        }
      }
      int64_t at[kOperands];
      for (int k = 0; k < count; ++k) {
        for (int n = 0; n < N; ++n) at[n] = k;
        for (int m = 0; m < kMicro * kMicro; ++m)
          if (inside[m]) total[m][VMAP_SLOT(t)] += element(bases[m], at);
      }
    }
    VMAP_FUSED_BARRIER();
  }
  VMAP_FOR_EACH_THREAD(t, thread) {
    for (int m = 0; m < kMicro * kMicro; ++m) {
      const int64_t row = row0 + static_cast<int>(t) / kTile + kTile * (m / kMicro);
      const int64_t column = column0 + static_cast<int>(t) % kTile + kTile * (m % kMicro);
      if (row < rows && column < columns) {
        const R sum = total[m][VMAP_SLOT(t)];
        static_cast<R*>(args.out)[(outer * rows + row) * columns + column] =
            args.mean ? sum / static_cast<R>(args.example_count) : sum;
      }
    }
  }
}

}  // namespace vmap_fused
