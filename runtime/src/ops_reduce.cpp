// Reductions: one engine (a plan over kept and reduced axes, three loop shapes) behind sum,
// mean, amax, amin, argmax, argmin, any and all. An op is a small "reducer" (identity, step,
// run over a strided line, merge, finish); the engine picks the loop and the threads.
//
// Highway is compiled per target (dynamic dispatch): this file re-includes itself once per
// target through foreach_target.h, and only the HWY_NAMESPACE section differs between passes.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops_reduce.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace vmap::detail::reduce_kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Float sums are taken in T lanes over chunks short enough that rounding stays small (each
// lane adds at most 4096 / (4 * lanes) values), and the chunk sums are added in double.
template <class T>
double sum_run(const T* data, int64_t count) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t chunk = 4096;
  double total = 0.0;
  for (int64_t start = 0; start < count; start += chunk) {
    const int64_t end = std::min(count, start + chunk);
    auto acc0 = hn::Zero(d), acc1 = hn::Zero(d), acc2 = hn::Zero(d), acc3 = hn::Zero(d);
    int64_t i = start;
    for (; i + 4 * lanes <= end; i += 4 * lanes) {
      acc0 = hn::Add(acc0, hn::LoadU(d, data + i));
      acc1 = hn::Add(acc1, hn::LoadU(d, data + i + lanes));
      acc2 = hn::Add(acc2, hn::LoadU(d, data + i + 2 * lanes));
      acc3 = hn::Add(acc3, hn::LoadU(d, data + i + 3 * lanes));
    }
    for (; i + lanes <= end; i += lanes) acc0 = hn::Add(acc0, hn::LoadU(d, data + i));
    const auto acc = hn::Add(hn::Add(acc0, acc1), hn::Add(acc2, acc3));
    T partial = hn::GetLane(hn::SumOfLanes(d, acc));
    for (; i < end; ++i) partial += data[i];
    total += static_cast<double>(partial);
  }
  return total;
}

// sum_run of `rows` rows of `count` values, row r at data + r * row_stride, into totals.
// A row shorter than a vector is added one value at a time in T, from +0 (sum_run's tail);
// whole vectors of such rows do exactly that lane by lane, one row per lane, with gathers:
// the same bits as sum_run row by row, at a vector of rows per add instead of one value.
template <class T>
void sum_rows(const T* data, int64_t row_stride, int64_t rows, int64_t count, double* totals) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using Index = hn::TFromD<decltype(di)>;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t r = 0;
  if (count < lanes && row_stride * lanes <= std::numeric_limits<Index>::max()) {
    HWY_ALIGN Index offsets[HWY_MAX_BYTES / sizeof(T)];
    HWY_ALIGN T sums[HWY_MAX_BYTES / sizeof(T)];
    for (int64_t j = 0; j < lanes; ++j) offsets[j] = static_cast<Index>(j * row_stride);
    const auto index = hn::Load(di, offsets);
    for (; r + lanes <= rows; r += lanes) {
      const T* row = data + r * row_stride;
      auto acc = hn::Zero(d);
      for (int64_t k = 0; k < count; ++k) acc = hn::Add(acc, hn::GatherIndex(d, row + k, index));
      hn::Store(acc, d, sums);
      for (int64_t j = 0; j < lanes; ++j) totals[r + j] = 0.0 + static_cast<double>(sums[j]);
    }
  }
  for (; r < rows; ++r) totals[r] = sum_run(data + r * row_stride, count);
}

// Max (or min) of count >= 1 values; NaN when any value is NaN (as torch's amax/amin).
template <class T, bool is_max>
T extreme_run(const T* data, int64_t count) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  if (count < lanes) {
    T best = data[0];
    for (int64_t i = 0; i < count; ++i) {
      if (std::isnan(data[i])) return data[i];
      best = is_max ? std::max(best, data[i]) : std::min(best, data[i]);
    }
    return best;
  }
  auto best = hn::LoadU(d, data);
  auto nan = hn::IsNaN(best);
  // The last vector overlaps the previous one; max and min do not mind.
  for (int64_t i = lanes;; i += lanes) {
    const auto v = hn::LoadU(d, data + std::min(i, count - lanes));
    nan = hn::Or(nan, hn::IsNaN(v));
    best = is_max ? hn::Max(best, v) : hn::Min(best, v);
    if (i >= count - lanes) break;
  }
  if (!hn::AllFalse(d, nan)) return std::numeric_limits<T>::quiet_NaN();
  return hn::GetLane(is_max ? hn::MaxOfLanes(d, best) : hn::MinOfLanes(d, best));
}

double sum_run_f32(const float* data, int64_t count) { return sum_run(data, count); }
double sum_run_f64(const double* data, int64_t count) { return sum_run(data, count); }
void sum_rows_f32(const float* data, int64_t row_stride, int64_t rows, int64_t count,
                  double* totals) {
  sum_rows(data, row_stride, rows, count, totals);
}
void sum_rows_f64(const double* data, int64_t row_stride, int64_t rows, int64_t count,
                  double* totals) {
  sum_rows(data, row_stride, rows, count, totals);
}
float max_run_f32(const float* data, int64_t count) { return extreme_run<float, true>(data, count); }
float min_run_f32(const float* data, int64_t count) { return extreme_run<float, false>(data, count); }
double max_run_f64(const double* data, int64_t count) {
  return extreme_run<double, true>(data, count);
}
double min_run_f64(const double* data, int64_t count) {
  return extreme_run<double, false>(data, count);
}

}  // namespace vmap::detail::reduce_kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "internal.hpp"
#include "../cuda/device_ops.hpp"

#include <vector>

namespace vmap {
namespace detail {
namespace reduce_kernels {

HWY_EXPORT(sum_run_f32);
HWY_EXPORT(sum_run_f64);
HWY_EXPORT(sum_rows_f32);
HWY_EXPORT(sum_rows_f64);
HWY_EXPORT(max_run_f32);
HWY_EXPORT(min_run_f32);
HWY_EXPORT(max_run_f64);
HWY_EXPORT(min_run_f64);

template <class T>
double simd_sum(const T* x, int64_t count) {
  if constexpr (std::is_same_v<T, float>) return HWY_DYNAMIC_DISPATCH(sum_run_f32)(x, count);
  else return HWY_DYNAMIC_DISPATCH(sum_run_f64)(x, count);
}

template <class T>
void simd_sum_rows(const T* x, int64_t row_stride, int64_t rows, int64_t count, double* totals) {
  if constexpr (std::is_same_v<T, float>)
    HWY_DYNAMIC_DISPATCH(sum_rows_f32)(x, row_stride, rows, count, totals);
  else
    HWY_DYNAMIC_DISPATCH(sum_rows_f64)(x, row_stride, rows, count, totals);
}

template <class T, bool is_max>
T simd_extreme(const T* x, int64_t count) {
  if constexpr (std::is_same_v<T, float>)
    return is_max ? HWY_DYNAMIC_DISPATCH(max_run_f32)(x, count)
                  : HWY_DYNAMIC_DISPATCH(min_run_f32)(x, count);
  else
    return is_max ? HWY_DYNAMIC_DISPATCH(max_run_f64)(x, count)
                  : HWY_DYNAMIC_DISPATCH(min_run_f64)(x, count);
}

}  // namespace reduce_kernels

namespace {

// ---------------------------------------------------------------------------------------------
// The plan

struct Axis {
  int64_t size;
  int64_t stride;  // elements of the input
};

// Up to max_dims axes, outermost first.
struct Axes {
  std::array<Axis, max_dims> items{};
  int count = 0;

  void push(Axis axis) { items[count++] = axis; }
  const Axis& back() const { return items[count - 1]; }
  int64_t numel(int end) const {
    int64_t n = 1;
    for (int i = 0; i < end; ++i) n *= items[i].size;
    return n;
  }
  // Input offset of row-major position `flat` over the first `end` axes.
  int64_t offset(int64_t flat, int end) const {
    int64_t result = 0;
    for (int i = end - 1; i >= 0; --i) {
      result += flat % items[i].size * items[i].stride;
      flat /= items[i].size;
    }
    return result;
  }
  // Merges neighbours that walk memory as one axis (outer stride == inner size * stride).
  void coalesce() {
    if (count == 0) return;
    int merged = 0;
    for (int i = 1; i < count; ++i) {
      Axis& outer = items[merged];
      if (outer.stride == items[i].size * items[i].stride) {
        outer = {outer.size * items[i].size, items[i].stride};
      } else {
        items[++merged] = items[i];
      }
    }
    count = merged + 1;
  }
};

// What a reduction iterates: the output is row-major over `kept`; each output reduces the
// `reduced` axes (ordered so the innermost has the smallest stride). Size-1 axes are dropped.
struct ReducePlan {
  Dims out_sizes;
  Axes kept;
  Axes reduced;
  int64_t out_count = 1;
  int64_t reduce_count = 1;
  std::array<bool, max_dims> is_reduced{};
};

// `dims` empty means every dim (LibTorch's sum(dim=[]) quirk, and amax's default).
ReducePlan plan_reduction(const char* op, const TensorImpl& self, IntList dims, bool keepdim) {
  const int64_t rank = static_cast<int64_t>(self.sizes.size());
  ReducePlan plan;
  if (dims.empty()) {
    std::fill(plan.is_reduced.begin(), plan.is_reduced.begin() + rank, true);
  }
  for (int64_t dim : dims) {
    const int64_t wrapped = wrap_dim(op, dim, rank);
    if (rank == 0) continue;
    if (plan.is_reduced[wrapped]) fail(op, "dim ", wrapped, " appears multiple times in the list of dims");
    plan.is_reduced[wrapped] = true;
  }
  Axes reduced;
  for (int64_t i = 0; i < rank; ++i) {
    const Axis axis{self.sizes[i], self.strides[i]};
    if (plan.is_reduced[i]) {
      if (keepdim) plan.out_sizes.push_back(1);
      plan.reduce_count *= axis.size;
      if (axis.size != 1) reduced.push(axis);
    } else {
      plan.out_sizes.push_back(axis.size);
      plan.out_count *= axis.size;
      if (axis.size != 1) plan.kept.push(axis);
    }
  }
  std::stable_sort(reduced.items.begin(), reduced.items.begin() + reduced.count,
                   [](const Axis& a, const Axis& b) { return a.stride > b.stride; });
  plan.reduced = reduced;
  plan.kept.coalesce();
  plan.reduced.coalesce();
  return plan;
}

// ---------------------------------------------------------------------------------------------
// The engine

// Reducer concept (In: input element, Acc: accumulator, Out: output element):
//   Acc identity() const;
//   Acc step(Acc acc, In x, int64_t position) const;   // position: index along the reduction
//   Acc run(Acc acc, const In* x, int64_t stride, int64_t count, int64_t first_position) const;
//   Acc merge(Acc earlier, Acc later) const;
//   Out finish(Acc acc) const;
// and optionally, for many short contiguous lines at once (line r at x + r * line_stride):
//   void run_lines(const In* x, int64_t line_stride, int64_t lines, int64_t count, Out* out)
//   const;  // out[r] = finish(run(identity(), line r, 1, count, 0)), bit for bit
template <class In, class R>
using AccOf = decltype(std::declval<const R&>().identity());

// Whole-tensor reductions of at least this many elements are split into fixed chunks (so the
// result does not depend on the thread count).
constexpr int64_t split_chunk = 1 << 16;
constexpr int64_t vertical_block = 256;

template <class In, class Out, class R>
void reduce_whole_line(const R& reducer, const In* in, const Axis& line, Out* out) {
  using Acc = AccOf<In, R>;
  const int64_t chunks = (line.size + split_chunk - 1) / split_chunk;
  std::vector<Acc> partials(chunks, reducer.identity());
  parallel_for(chunks, split_chunk, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t first = c * split_chunk;
      partials[c] = reducer.run(reducer.identity(), in + first * line.stride, line.stride,
                                std::min(split_chunk, line.size - first), first);
    }
  });
  Acc acc = partials[0];
  for (int64_t c = 1; c < chunks; ++c) acc = reducer.merge(acc, partials[c]);
  *out = reducer.finish(acc);
}

// Each output reduces its own lines (the innermost reduced axis), outputs split over threads.
template <class In, class Out, class R>
void reduce_by_output(const R& reducer, const In* in, const ReducePlan& plan, Out* out) {
  const Axes& reduced = plan.reduced;
  const Axis line = reduced.count ? reduced.back() : Axis{1, 1};
  const int outer_axes = std::max(reduced.count - 1, 0);
  const int64_t lines = reduced.numel(outer_axes);
  // One contiguous line per output: outputs along the innermost kept axis go to run_lines
  // together (sum(-1) of [20000, 10] is 20000 lines of 10).
  constexpr bool has_run_lines = requires(const In* x, Out* y) {
    reducer.run_lines(x, int64_t{}, int64_t{}, int64_t{}, y);
  };
  if constexpr (has_run_lines) {
    if (reduced.count == 1 && line.stride == 1 && plan.kept.count > 0) {
      const Axis along = plan.kept.back();
      parallel_for(plan.out_count, plan.reduce_count, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end;) {
          const int64_t run = std::min(end - o, along.size - o % along.size);
          reducer.run_lines(in + plan.kept.offset(o, plan.kept.count), along.stride, run,
                            line.size, out + o);
          o += run;
        }
      });
      return;
    }
  }
  parallel_for(plan.out_count, plan.reduce_count, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      const In* base = in + plan.kept.offset(o, plan.kept.count);
      auto acc = reducer.identity();
      for (int64_t l = 0; l < lines; ++l)
        acc = reducer.run(acc, base + reduced.offset(l, outer_axes), line.stride, line.size,
                          l * line.size);
      out[o] = reducer.finish(acc);
    }
  });
}

// The innermost kept axis is contiguous but the reduced axes are not: reduce whole rows at
// once into a block of accumulators, so memory is read in order (sum over dim 0 of [N, M]).
template <class In, class Out, class R>
void reduce_vertically(const R& reducer, const In* in, const ReducePlan& plan, Out* out) {
  using Acc = AccOf<In, R>;
  const Axes& kept = plan.kept;
  const Axes& reduced = plan.reduced;
  const int64_t row = kept.back().size;
  const int64_t blocks_per_row = (row + vertical_block - 1) / vertical_block;
  const int64_t rows = plan.out_count / row;
  parallel_for(rows * blocks_per_row, vertical_block * plan.reduce_count,
               [&](int64_t begin, int64_t end) {
    Acc acc[vertical_block];
    for (int64_t task = begin; task < end; ++task) {
      const int64_t r = task / blocks_per_row;
      const int64_t j0 = task % blocks_per_row * vertical_block;
      const int64_t width = std::min(vertical_block, row - j0);
      const In* base = in + kept.offset(r, kept.count - 1) + j0;
      std::fill(acc, acc + width, reducer.identity());
      for (int64_t k = 0; k < plan.reduce_count; ++k) {
        const In* x = base + reduced.offset(k, reduced.count);
        for (int64_t j = 0; j < width; ++j) acc[j] = reducer.step(acc[j], x[j], k);
      }
      for (int64_t j = 0; j < width; ++j) out[r * row + j0 + j] = reducer.finish(acc[j]);
    }
  });
}

template <class In, class Out, class R>
Tensor reduce(const Tensor& self, const ReducePlan& plan, const R& reducer) {
  Tensor out = empty_tensor(plan.out_sizes, dtype_of<Out>, self.device());
  Out* out_data = impl_of(out).data_as<Out>();
  const In* in = impl_of(self).data_as<In>();
  if (plan.out_count == 0) return out;
  const bool one_line = plan.out_count == 1 && plan.reduced.count == 1;
  const bool vertical = plan.kept.count > 0 && plan.kept.back().stride == 1 &&
                        plan.reduced.count > 0 && plan.reduced.back().stride != 1;
  if (one_line && plan.reduce_count >= 2 * split_chunk) {
    reduce_whole_line(reducer, in, plan.reduced.back(), out_data);
  } else if (vertical) {
    reduce_vertically(reducer, in, plan, out_data);
  } else {
    reduce_by_output(reducer, in, plan, out_data);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reducers

// sum (and mean, with `divisor`): floats accumulate in double, integers and bools in int64.
template <class In, class Out>
struct SumReducer {
  using Acc = std::conditional_t<std::is_floating_point_v<In>, double, int64_t>;
  double divisor = 1.0;  // mean: the number of reduced elements

  Acc identity() const { return 0; }
  Acc step(Acc acc, In x, int64_t) const { return acc + static_cast<Acc>(x); }
  Acc run(Acc acc, const In* x, int64_t stride, int64_t count, int64_t) const {
    if constexpr (std::is_floating_point_v<In>) {
      if (stride == 1) return acc + reduce_kernels::simd_sum(x, count);
    }
    Acc total = 0;
    if (stride == 1) {
      for (int64_t i = 0; i < count; ++i) total += static_cast<Acc>(x[i]);
    } else {
      for (int64_t i = 0; i < count; ++i) total += static_cast<Acc>(x[i * stride]);
    }
    return acc + total;
  }
  void run_lines(const In* x, int64_t line_stride, int64_t lines, int64_t count, Out* out) const
    requires std::is_floating_point_v<In>
  {
    constexpr int64_t batch = 256;
    double totals[batch];
    for (int64_t first = 0; first < lines; first += batch) {
      const int64_t n = std::min(batch, lines - first);
      reduce_kernels::simd_sum_rows(x + first * line_stride, line_stride, n, count, totals);
      for (int64_t r = 0; r < n; ++r) out[first + r] = finish(identity() + totals[r]);
    }
  }
  Acc merge(Acc a, Acc b) const { return a + b; }
  Out finish(Acc acc) const {
    if constexpr (std::is_floating_point_v<Out>) return static_cast<Out>(acc / divisor);
    else return static_cast<Out>(acc);
  }
};

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

// amax / amin: NaN wins (propagates), as in LibTorch.
template <class T, bool is_max>
struct ExtremeReducer {
  T identity() const {
    if constexpr (std::is_same_v<T, bool>) return !is_max;
    else if constexpr (std::is_floating_point_v<T>)
      return is_max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    else return is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  T step(T acc, T x, int64_t) const {
    if (is_nan(acc) || is_nan(x)) return is_nan(acc) ? acc : x;
    return is_max ? std::max(acc, x) : std::min(acc, x);
  }
  T run(T acc, const T* x, int64_t stride, int64_t count, int64_t) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (stride == 1) return step(acc, reduce_kernels::simd_extreme<T, is_max>(x, count), 0);
    }
    if (stride == 1 && !std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < count; ++i) acc = is_max ? std::max(acc, x[i]) : std::min(acc, x[i]);
      return acc;
    }
    for (int64_t i = 0; i < count; ++i) acc = step(acc, x[i * stride], 0);
    return acc;
  }
  T merge(T a, T b) const { return step(a, b, 0); }
  T finish(T acc) const { return acc; }
};

// argmax / argmin: the first position of the extreme value; the first NaN wins outright.
template <class T, bool is_max>
struct ArgReducer {
  struct Acc {
    T value;
    int64_t position;  // -1: nothing seen yet
  };
  static bool better(T candidate, T best) {
    if (is_nan(best)) return false;
    if (is_nan(candidate)) return true;
    return is_max ? candidate > best : candidate < best;
  }
  Acc identity() const { return {T{}, -1}; }
  Acc step(Acc acc, T x, int64_t position) const {
    return acc.position < 0 || better(x, acc.value) ? Acc{x, position} : acc;
  }
  Acc run(Acc acc, const T* x, int64_t stride, int64_t count, int64_t first) const {
    for (int64_t i = 0; i < count; ++i) acc = step(acc, x[i * stride], first + i);
    return acc;
  }
  Acc merge(Acc earlier, Acc later) const {
    if (later.position < 0) return earlier;
    return step(earlier, later.value, later.position);
  }
  int64_t finish(Acc acc) const { return acc.position; }
};

// any (is_any) / all: stops reading a line at the first deciding element.
template <class T, bool is_any>
struct LogicalReducer {
  bool identity() const { return !is_any; }
  bool step(bool acc, T x, int64_t) const { return is_any ? acc || x != T{} : acc && x != T{}; }
  bool run(bool acc, const T* x, int64_t stride, int64_t count, int64_t) const {
    if (acc == is_any) return acc;
    for (int64_t i = 0; i < count; ++i)
      if ((x[i * stride] != T{}) == is_any) return is_any;
    return acc;
  }
  bool merge(bool a, bool b) const { return is_any ? a || b : a && b; }
  bool finish(bool acc) const { return acc; }
};

// ---------------------------------------------------------------------------------------------
// The ops

const TensorImpl& checked_input(const char* op, const Tensor& self) {
  const TensorImpl& impl = impl_of(self, op);
  check_cpu(op, self);
  return impl;
}

Tensor sum_impl(const Tensor& self, IntList dims, bool keepdim) {
  const ReducePlan plan = plan_reduction("sum", impl_of(self, "sum"), dims, keepdim);
  if (self.device() != kCPU)
    return device_reduce("sum", ReduceOp::sum, self, plan.is_reduced, plan.out_sizes,
                         is_floating(self.dtype()) ? self.dtype() : kInt64);
  return visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_floating_point_v<T>)
      return reduce<T, T>(self, plan, SumReducer<T, T>{});
    else
      return reduce<T, int64_t>(self, plan, SumReducer<T, int64_t>{});
  });
}

Tensor mean_impl(const Tensor& self, IntList dims, bool keepdim) {
  const ReducePlan plan = plan_reduction("mean", impl_of(self, "mean"), dims, keepdim);
  if (!is_floating(self.dtype()))
    fail("mean", "could not infer output dtype. Input dtype must be either a floating point "
                 "or complex dtype. Got: ", self.dtype());
  if (self.device() != kCPU)
    return div(device_reduce("mean", ReduceOp::sum, self, plan.is_reduced, plan.out_sizes,
                             self.dtype()),
               static_cast<double>(plan.reduce_count));
  return visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) -> Tensor {
    if constexpr (std::is_floating_point_v<T>) {
      SumReducer<T, T> reducer;
      // 0 elements: 0 / 0 = NaN, as LibTorch.
      reducer.divisor = static_cast<double>(plan.reduce_count);
      return reduce<T, T>(self, plan, reducer);
    }
    __builtin_unreachable();
  });
}

// max/min-like reductions have no identity: reducing zero elements is an error (LibTorch's).
void check_nonempty_reduction(const char* op, const Tensor& self, const ReducePlan& plan,
                              bool dims_given) {
  if (plan.reduce_count != 0 || plan.out_count == 0) return;
  if (!dims_given)
    fail(op, "Expected reduction dim to be specified for input.numel() == 0.");
  for (int64_t d = 0; d < self.dim(); ++d)
    if (plan.is_reduced[d] && self.size(d) == 0)
      fail(op, "Expected reduction dim ", d, " to have non-zero size.");
}

template <bool is_max>
Tensor extreme(const char* op, const Tensor& self, IntList dims, bool keepdim) {
  const ReducePlan plan = plan_reduction(op, impl_of(self, op), dims, keepdim);
  check_nonempty_reduction(op, self, plan, !dims.empty());
  if (self.device() != kCPU)
    return device_reduce(op, is_max ? ReduceOp::max : ReduceOp::min, self, plan.is_reduced,
                         plan.out_sizes, self.dtype());
  return visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) {
    return reduce<T, T>(self, plan, ExtremeReducer<T, is_max>{});
  });
}

// Note [Index reductions on the device]
// argmax/argmin of CUDA tensors are composed of device ops: the extreme along the dim, the
// positions that hold it, the first of them. The CPU's semantics follow: the first occurrence
// wins, and a NaN counts as the extreme (amax/amin propagate it, and only NaNs then match).
template <bool is_max>
Tensor device_arg_extreme(const Tensor& input, int64_t dim, IntList out_sizes) {
  if (input.dim() == 0) return zeros(out_sizes, TensorOptions(kInt64).device(input.device()));
  dim = wrap_dim(is_max ? "argmax" : "argmin", dim, input.dim());
  const int64_t count = input.size(dim);
  const Tensor extreme = is_max ? amax(input, dim, true) : amin(input, dim, true);
  const Tensor holds_extreme = logical_or(eq(input, extreme), ne(input, input));
  Dims position_shape;
  position_shape.resize(static_cast<size_t>(input.dim()), 1);
  position_shape[static_cast<size_t>(dim)] = count;
  const Tensor positions = arange(count).view(position_shape).to(input.device());
  return amin(where(holds_extreme, positions, count), dim).reshape(out_sizes);
}

template <bool is_max>
Tensor arg_extreme(const char* op, const Tensor& self, std::optional<int64_t> dim,
                   bool keepdim) {
  impl_of(self, op);
  if (self.dtype() == kBool) fail(op, "not implemented for 'Bool'");
  // Without a dim: positions in the flattened (row-major) tensor.
  const Tensor input = dim ? self : self.contiguous().reshape({self.numel()});
  const int64_t reduce_dim = dim.value_or(0);
  ReducePlan plan = plan_reduction(op, impl_of(input), IntList(reduce_dim), keepdim);
  check_nonempty_reduction(op, input, plan, dim.has_value());
  if (!dim) {
    plan.out_sizes.assign({});
    for (int64_t d = 0; keepdim && d < self.dim(); ++d) plan.out_sizes.push_back(1);
  }
  if (self.device() != kCPU)
    return device_arg_extreme<is_max>(input, reduce_dim, plan.out_sizes);
  return visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) -> Tensor {
    if constexpr (!std::is_same_v<T, bool>)
      return reduce<T, int64_t>(input, plan, ArgReducer<T, is_max>{});
    __builtin_unreachable();
  });
}

template <bool is_any>
Tensor logical(const char* op, const Tensor& self, IntList dims, bool keepdim) {
  if (impl_of(self, op).device() != kCPU) {  // counts of the deciding elements, on the device
    const Tensor deciding = is_any ? ne(self, 0) : eq(self, 0);
    const Tensor count = sum_impl(deciding, dims, keepdim);
    return is_any ? gt(count, 0) : eq(count, 0);
  }
  const ReducePlan plan = plan_reduction(op, checked_input(op, self), dims, keepdim);
  return visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) {
    return reduce<T, bool>(self, plan, LogicalReducer<T, is_any>{});
  });
}

}  // namespace
}  // namespace detail

Tensor sum(const Tensor& self) { return detail::sum_impl(self, {}, false); }
Tensor sum(const Tensor& self, detail::IntList dims, bool keepdim) {
  return detail::sum_impl(self, dims, keepdim);
}
Tensor mean(const Tensor& self) { return detail::mean_impl(self, {}, false); }
Tensor mean(const Tensor& self, detail::IntList dims, bool keepdim) {
  return detail::mean_impl(self, dims, keepdim);
}
Tensor amax(const Tensor& self, detail::IntList dims, bool keepdim) {
  return detail::extreme<true>("amax", self, dims, keepdim);
}
Tensor amin(const Tensor& self, detail::IntList dims, bool keepdim) {
  return detail::extreme<false>("amin", self, dims, keepdim);
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return detail::arg_extreme<true>("argmax", self, dim, keepdim);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return detail::arg_extreme<false>("argmin", self, dim, keepdim);
}
Tensor any(const Tensor& self) { return detail::logical<true>("any", self, {}, false); }
Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  return detail::logical<true>("any", self, dim, keepdim);
}
Tensor all(const Tensor& self) { return detail::logical<false>("all", self, {}, false); }
Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  return detail::logical<false>("all", self, dim, keepdim);
}

}  // namespace vmap
#endif  // HWY_ONCE
