// The elementwise engine's iteration: broadcasting inputs to the output's shape, collapsing
// dims, and walking inner runs, split across OpenMP threads when the work is large.
#include "internal.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

namespace vmap::detail {
namespace {

// Side of the square tiles for transposed walks: 32 x 32 elements stay in L1 and the TLB.
constexpr int64_t tile_size = 32;

// Note [Thread grain]
// An op takes a thread per grain (32768 elements x cost) of work begun, as LibTorch's
// at::parallel_for does with its GRAIN_SIZE, and every split is alike: thread t of T takes
// the t-th of T equal contiguous parts (run_loop rounds them to 16 elements). So the zeros()
// that makes an output, the op that writes it and the fused blocks (for_blocks in
// rules/src/batched/batched_fused.cpp) give each thread the same part of it, which stays in that
// core's L2 between them. On the 2-core machine of BENCHMARKS.md, with the second thread
// still spinning from the last region, a fork/join costs about 0.5 us and 2 threads beat 1
// from 16K floats up (memset of 32K floats: 1.9 vs 2.2 us; sqrt: 4.2 vs 7.1 us). The grain
// was 64K elements, each thread taking at least one: the [1000, 100] zeros of the per-row
// sqrt sample ran on one thread, and the sqrt's second thread then wrote lines the first
// had just zeroed in its own cache (that sample at 2 threads: 31 us, 21 us with this split).

// Runs the inner loop over linear element indices [begin, end) of the loop: a part of a row
// alone, whole rows stacked up to the end of their dim (rank 1: one row of everything).
void run_range(const StridedLoop& loop, int64_t begin, int64_t end, InnerLoop inner) {
  const int rank = loop.rank;
  const int64_t inner_size = loop.sizes[rank - 1];
  const int64_t row_dim_size = rank >= 2 ? loop.sizes[rank - 2] : 1;
  std::array<int64_t, max_dims> index{};
  int64_t rest = begin;
  for (int d = rank - 1; d >= 0; --d) {
    index[d] = rest % loop.sizes[d];
    rest /= loop.sizes[d];
  }
  std::array<char*, max_operands> pointers{};
  std::array<int64_t, max_operands> inner_strides{}, row_strides{};
  for (int op = 0; op < loop.operands; ++op) {
    inner_strides[op] = loop.strides[op][rank - 1];
    row_strides[op] = rank >= 2 ? loop.strides[op][rank - 2] : 0;
  }
  while (begin < end) {
    for (int op = 0; op < loop.operands; ++op) {
      char* pointer = loop.base[op];
      for (int d = 0; d < rank; ++d) pointer += index[d] * loop.strides[op][d];
      pointers[op] = pointer;
    }
    const int64_t count = std::min(inner_size - index[rank - 1], end - begin);
    const int64_t rows =
        index[rank - 1] == 0 && count == inner_size && rank >= 2
            ? std::min(row_dim_size - index[rank - 2], (end - begin) / inner_size)
            : 1;
    inner(pointers.data(), inner_strides.data(), count, row_strides.data(), rows);
    begin += count * rows;
    if (rows > 1) index[rank - 2] += rows;
    else index[rank - 1] += count;
    for (int d = rank - 1; d > 0; --d) {
      if (index[d] < loop.sizes[d]) continue;
      index[d] = 0;
      ++index[d - 1];
    }
  }
}

// Whether some operand walks its inner dim with a large stride but its next-outer dim with a
// smaller one (a transposed input or output): row-by-row runs would then touch a new cache
// line (and page) per element, so the last two dims are walked in square tiles instead.
bool wants_tiles(const StridedLoop& loop) {
  if (loop.rank < 2 || loop.sizes[loop.rank - 1] < 2 * tile_size) return false;
  for (int op = 0; op < loop.operands; ++op) {
    const int64_t inner = std::abs(loop.strides[op][loop.rank - 1]);
    const int64_t outer = std::abs(loop.strides[op][loop.rank - 2]);
    if (inner > 64 && outer < inner) return true;
  }
  return false;
}

// The tiled walk: tasks are (index of the dims outside the last two, band of tile_size rows).
void run_tiles(const StridedLoop& loop, int64_t cost_per_element, InnerLoop inner) {
  const int rank = loop.rank;
  const int64_t rows = loop.sizes[rank - 2], columns = loop.sizes[rank - 1];
  const int64_t bands = (rows + tile_size - 1) / tile_size;
  const int64_t outer = loop.numel / (rows * columns);
  std::array<int64_t, max_operands> inner_strides{}, row_strides{};
  for (int op = 0; op < loop.operands; ++op) {
    inner_strides[op] = loop.strides[op][rank - 1];
    row_strides[op] = loop.strides[op][rank - 2];
  }
  parallel_for(outer * bands, cost_per_element * tile_size * columns, [&](int64_t begin, int64_t end) {
    std::array<char*, max_operands> base{};
    std::array<char*, max_operands> pointers{};
    for (int64_t task = begin; task < end; ++task) {
      int64_t rest = task / bands;
      const int64_t band = task % bands;
      for (int op = 0; op < loop.operands; ++op) base[op] = loop.base[op];
      for (int d = rank - 3; d >= 0; --d) {
        const int64_t index = rest % loop.sizes[d];
        rest /= loop.sizes[d];
        for (int op = 0; op < loop.operands; ++op) base[op] += index * loop.strides[op][d];
      }
      const int64_t row_end = std::min(rows, (band + 1) * tile_size);
      const int64_t first_row = band * tile_size;
      for (int64_t column = 0; column < columns; column += tile_size) {
        for (int op = 0; op < loop.operands; ++op)
          pointers[op] = base[op] + first_row * row_strides[op] + column * inner_strides[op];
        inner(pointers.data(), inner_strides.data(), std::min(tile_size, columns - column),
              row_strides.data(), row_end - first_row);
      }
    }
  });
}

}  // namespace

StridedLoop plan_loop(const char* op, const Tensor& out, std::span<const Tensor> inputs) {
  const TensorImpl& out_impl = impl_of(out, op);
  StridedLoop loop;
  loop.operands = static_cast<int>(inputs.size()) + 1;
  if (loop.operands > max_operands) fail(op, "too many operands for the elementwise engine");
  const IntList shape = out_impl.sizes;
  const int rank = static_cast<int>(shape.size());
  loop.numel = out_impl.numel;

  // Per operand byte strides aligned to the output's dims (0 where broadcast).
  std::array<std::array<int64_t, max_dims>, max_operands> strides{};
  loop.base[0] = out_impl.data();
  for (int d = 0; d < rank; ++d) strides[0][d] = out_impl.strides[d] * element_size(out_impl.dtype);
  for (size_t j = 0; j < inputs.size(); ++j) {
    const TensorImpl& in = impl_of(inputs[j], op);
    if (!broadcastable_to(in.sizes, shape))
      fail(op, "shape ", shape_str(in.sizes), " cannot be broadcast to ", shape_str(shape));
    loop.base[j + 1] = in.data();
    const int offset = rank - static_cast<int>(in.sizes.size());
    for (int d = 0; d < rank; ++d) {
      const int in_d = d - offset;
      strides[j + 1][d] = in_d < 0 || in.sizes[in_d] == 1
                              ? 0
                              : in.strides[in_d] * element_size(in.dtype);
    }
  }

  // Drop size-1 dims, then merge each dim into the one outside it when every operand steps
  // through both as through one.
  int collapsed = 0;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 1) continue;
    const bool merge = collapsed > 0 && [&] {
      for (int op_index = 0; op_index < loop.operands; ++op_index)
        if (loop.strides[op_index][collapsed - 1] != strides[op_index][d] * shape[d]) return false;
      return true;
    }();
    if (merge) {
      loop.sizes[collapsed - 1] *= shape[d];
      for (int op_index = 0; op_index < loop.operands; ++op_index)
        loop.strides[op_index][collapsed - 1] = strides[op_index][d];
      continue;
    }
    loop.sizes[collapsed] = shape[d];
    for (int op_index = 0; op_index < loop.operands; ++op_index)
      loop.strides[op_index][collapsed] = strides[op_index][d];
    ++collapsed;
  }
  if (collapsed == 0) {
    loop.sizes[0] = loop.numel == 0 ? 0 : 1;
    collapsed = 1;
  }
  loop.rank = collapsed;
  return loop;
}

void run_loop(const StridedLoop& loop, int64_t cost_per_element, InnerLoop inner) {
  if (loop.numel == 0) return;
  if (wants_tiles(loop)) {
    run_tiles(loop, cost_per_element, inner);
    return;
  }
  const int threads = threads_for(loop.numel * cost_per_element);
  if (threads == 1) {
    run_range(loop, 0, loop.numel, inner);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t thread = omp_get_thread_num();
    const int64_t count = omp_get_num_threads();
    // Chunks aligned to 16 elements keep SIMD runs whole and cache lines unshared.
    const int64_t chunk = (loop.numel / count + 15) / 16 * 16;
    const int64_t begin = std::min(loop.numel, thread * chunk);
    const int64_t end = thread + 1 == count ? loop.numel : std::min(loop.numel, begin + chunk);
    if (begin < end) run_range(loop, begin, end, inner);
  }
}

int threads_for(int64_t work) {
  if (work <= parallel_grain || omp_in_parallel()) return 1;
  return static_cast<int>(
      std::min<int64_t>(omp_get_max_threads(), (work + parallel_grain - 1) / parallel_grain));
}

void parallel_for(int64_t n, int64_t cost_per_item, FunctionRef<void(int64_t, int64_t)> body) {
  if (n <= 0) return;
  const int threads = threads_for(n * cost_per_item);
  if (threads == 1) {
    body(0, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t thread = omp_get_thread_num();
    const int64_t count = omp_get_num_threads();
    const int64_t begin = n * thread / count;
    const int64_t end = n * (thread + 1) / count;
    if (begin < end) body(begin, end);
  }
}

void parallel_for_each(int64_t n, int64_t cost_per_item, FunctionRef<void(int64_t)> body) {
  if (n <= 0) return;
  const int threads = static_cast<int>(std::min<int64_t>(threads_for(n * cost_per_item), n));
  if (threads == 1) {
    for (int64_t k = 0; k < n; ++k) body(k);
    return;
  }
  struct alignas(64) Run {  // a cache line each: the threads bump them at once
    std::atomic<int64_t> next;
    int64_t end;
  };
  std::vector<Run> runs(static_cast<std::size_t>(threads));
  for (int64_t run = 0; run < threads; ++run) {
    runs[static_cast<std::size_t>(run)].next = n * run / threads;
    runs[static_cast<std::size_t>(run)].end = n * (run + 1) / threads;
  }
  // No exception may leave an OpenMP region: the lowest item's is kept and thrown after.
  int64_t failed = n;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const Statement statement = running_statement;  // Note [Errors name the statement]
#pragma omp parallel num_threads(threads)
  {
    const Statement own = std::exchange(running_statement, statement);
    const int thread = omp_get_thread_num();
    for (int step = 0; step < threads; ++step) {  // its own run first (a smaller team: all)
      Run& run = runs[static_cast<std::size_t>((thread + step) % threads)];
      for (int64_t k = run.next++; k < run.end; k = run.next++) {
        try {
          body(k);
        } catch (...) {
          std::lock_guard lock(failure_mutex);
          if (k < failed) {
            failed = k;
            failure = std::current_exception();
          }
        }
      }
    }
    running_statement = own;
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace vmap::detail
