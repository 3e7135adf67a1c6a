// Compiled fused kernels: what rewritten code calls for a per-example chain of pointwise ops.
//
// Note [Compiled fusion]
// The run-time fusion of Note [Pending values] (rules/src/batched_fused.hpp) interprets a
// node list block by block: the C++ compiler never sees the chain, so `(x[i] - y[j]).pow(2)
// .sum()` runs one runtime op per node per block. Where the tool sees a chain of pointwise
// ops (the op table's unary_pointwise / binary_pointwise rules) over per-example reads,
// loop-invariant tensors and numbers, consumed by a store, a reduction of the whole example
// (sum, mean) or an accumulator, it emits the user's own expression as a generic lambda:
//
//   vb::at(vb::at(out, i), j) =
//       vb::fused([](const auto& a, const auto& b) { return (a - b).pow(2); },
//                 vb::at(x, i), vb::at(y, j)).sum();
//
// and vb::fused runs it here, instantiated on Element<float> or Element<double>
// (fused_element.hpp: the runtime's scalar functors on C++ element types), over the
// broadcast physical sizes of its operands (levels first, then the example dims): a strided
// walk whose innermost dim is a plain loop the compiler vectorises, sums kept in registers
// (16 independent lanes of the element type, added into the result type every 4096
// elements; examples shorter than 16 elements summed 8 side by side, each in order: see
// sum_run and sum_short_examples), chunks of the flattened index on OpenMP threads
// (parallel_ranges in rules/src/fused.cpp), results written straight into the destination
// (a store is a whole pending node, Note [Deferred results]: computed into the slot). No
// [n, m, d] temporary exists.
//
// The same lambda called with the vb::Value operands is today's batched path (eager or
// pending ops), taken when the compiled one does not apply: an operand that is a C++ scalar
// per example, on a device, not float32/float64, of a dtype other than the others', or an
// op the element type does not define for it (the first element is computed alone first; the
// batched ops then raise the eager error). Per-element results equal the eager ops' up to
// the order of a sum's additions (and floating contraction the compiler may apply).
#pragma once

#include <vmap/batched.hpp>
#include <vmap/fused_element.hpp>

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace vmap::batched {

namespace detail {

inline constexpr int kFusedMaxDims = 8;

// The operands of a compiled kernel over one iteration space: the broadcast physical sizes
// with adjacent dims merged where every operand allows it, each operand's element strides
// over those dims (0 where it broadcasts).
struct FusedLayout {
  int64_t levels = 0;                  // level dims of the result
  std::vector<int64_t> sizes;          // broadcast physical sizes, levels first
  int64_t level_count = 1;             // product of the level sizes
  int64_t example_count = 1;           // product of the example sizes
  Dtype dtype = kFloat32;              // every operand's
  std::vector<Tensor> operands;        // aligned to `levels`, kept alive
  std::vector<int64_t> dims;           // merged sizes (level and example dims never merged)
  int64_t example_rank = 0;            // how many of `dims` are example dims
  std::vector<std::vector<int64_t>> strides;  // per operand, over `dims`
};

// The layout of `operands` for a compiled kernel, or nullopt when it does not apply (see
// Note [Compiled fusion]). With `every_example`, the level dims are every active level at its
// full size, also where no operand varies (an accumulator adds each example's value).
std::optional<FusedLayout> plan_fused(const std::vector<Value>& operands, bool every_example);
// Calls body(begin, end) over [0, count) split into contiguous ranges on OpenMP threads,
// when the work (count * cost) is worth threads.
void parallel_ranges(int64_t count, int64_t cost,
                     const std::function<void(int64_t, int64_t)>& body);
// The value of a compiled store: a whole pending node (Note [Deferred results]) that
// `compute` fills into the destination it gets (or a new tensor, when it gets none).
Value fused_value(const FusedLayout& layout, Dtype dtype,
                  std::function<Tensor(const Tensor& destination)> compute);
// Whether a vb::Where is live (a compiled accumulator would ignore it).
bool fused_masked();
// acc op= total, as accumulate() does with a reduced value (total is 0-d).
void fused_accumulate(Tensor& acc, const Tensor& total, Reduce op);

template <class T, std::size_t N>
struct Walker {
  std::array<const T*, N> base;
  std::array<std::array<int64_t, kFusedMaxDims>, N> strides{};
  std::array<int64_t, kFusedMaxDims> dims{};
  int rank = 0;
  // Bit n set: operand n's innermost stride is 1, clear: 0 (it broadcasts); -1 when some
  // operand has another stride.
  int inner_mask = 0;

  explicit Walker(const FusedLayout& layout) {
    rank = static_cast<int>(layout.dims.size());
    for (int d = 0; d < rank; ++d) dims[d] = layout.dims[static_cast<std::size_t>(d)];
    for (std::size_t n = 0; n < N; ++n) {
      base[n] = layout.operands[n].template data_ptr<T>();
      for (int d = 0; d < rank; ++d) strides[n][d] = layout.strides[n][static_cast<std::size_t>(d)];
      const int64_t inner = rank == 0 ? 0 : strides[n][rank - 1];
      if (inner == 1 && inner_mask >= 0) inner_mask |= 1 << n;
      if (inner != 0 && inner != 1) inner_mask = -1;
    }
  }

  // visit(pointers, inner strides, run) for each run of the innermost dim in the flattened
  // positions [begin, end).
  template <class Visit>
  void walk(int64_t begin, int64_t end, Visit&& visit) const {
    std::array<const T*, N> at = base;
    std::array<int64_t, N> inner{};
    if (rank == 0) {
      if (begin < end) visit(at, inner, int64_t{1});
      return;
    }
    std::array<int64_t, kFusedMaxDims> index{};
    int64_t rest = begin;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = rest % dims[d];
      rest /= dims[d];
      for (std::size_t n = 0; n < N; ++n) at[n] += index[d] * strides[n][d];
    }
    for (std::size_t n = 0; n < N; ++n) inner[n] = strides[n][rank - 1];
    const int last = rank - 1;
    for (int64_t position = begin; position < end;) {
      const int64_t run = std::min(end - position, dims[last] - index[last]);
      visit(at, inner, run);
      position += run;
      index[last] += run;
      for (std::size_t n = 0; n < N; ++n) at[n] += run * strides[n][last];
      for (int d = last; d > 0 && index[d] == dims[d]; --d) {
        index[d] = 0;
        ++index[d - 1];
        for (std::size_t n = 0; n < N; ++n)
          at[n] += strides[n][d - 1] - dims[d] * strides[n][d];
      }
    }
  }
};

template <class X>
inline constexpr bool is_value_operand = std::is_same_v<X, Value>;

// The kernel's argument I at element k of a run: an Element of the tensor operand it is, or
// the number as passed.
// Calls f(std::integral_constant<int, mask>) with the walker's inner mask as a constant, so
// a run's loop reads unit-stride operands as arrays and broadcast ones as one value (up to 3
// tensor operands: 8 loops; beyond, only the all-unit one); -1 otherwise (any strides).
template <std::size_t N, class F>
void with_inner_mask(int mask, F&& f) {
  constexpr int kAll = (1 << N) - 1;
  if constexpr (N <= 3) {
    const bool done = [&]<int... M>(std::integer_sequence<int, M...>) {
      return ((mask == M ? (f(std::integral_constant<int, M>{}), true) : false) || ...);
    }(std::make_integer_sequence<int, kAll + 1>{});
    if (!done) f(std::integral_constant<int, -1>{});
  } else {
    if (mask == kAll) f(std::integral_constant<int, kAll>{});
    else f(std::integral_constant<int, -1>{});
  }
}

template <class T, std::size_t I, int Mask, class Args, std::size_t N>
decltype(auto) kernel_arg(const Args& args, const std::array<const T*, N>& at,
                          const std::array<int64_t, N>& inner, int64_t k) {
  using X = std::tuple_element_t<I, Args>;
  if constexpr (is_value_operand<X>) {
    constexpr std::size_t n = [] {
      std::size_t count = 0;
      [&]<std::size_t... J>(std::index_sequence<J...>) {
        ((count += J < I && is_value_operand<std::tuple_element_t<J, Args>>), ...);
      }(std::make_index_sequence<std::tuple_size_v<Args>>());
      return count;
    }();
    if constexpr (Mask < 0) return Element<T>{at[n][k * inner[n]]};
    else if constexpr (((Mask >> n) & 1) != 0) return Element<T>{at[n][k]};
    else return Element<T>{at[n][0]};
  } else {
    return std::get<I>(args);
  }
}

template <class T, int Mask, class Kernel, class Args, std::size_t N, std::size_t... I>
auto kernel_at(const Kernel& kernel, const Args& args, const std::array<const T*, N>& at,
               const std::array<int64_t, N>& inner, int64_t k, std::index_sequence<I...>) {
  return kernel(kernel_arg<T, I, Mask>(args, at, inner, k)...).value;
}

template <class Args>
inline constexpr std::size_t value_count = [] {
  std::size_t count = 0;
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    ((count += is_value_operand<std::tuple_element_t<J, Args>>), ...);
  }(std::make_index_sequence<std::tuple_size_v<Args>>());
  return count;
}();

}  // namespace detail

// A pointwise chain with its operands (Note [Compiled fusion]); made by vb::fused.
template <class Kernel, class... Args>
class Fused {
  using ArgTuple = std::tuple<Args...>;
  static constexpr std::size_t kValues = detail::value_count<ArgTuple>;
  using Indices = std::index_sequence_for<Args...>;

 public:
  Fused(Kernel kernel, Args... args) : kernel_(std::move(kernel)), args_(std::move(args)...) {}

  // The batched ops on the Values: the chain as eager / pending batched code.
  Value batched() const { return std::apply(kernel_, args_); }

  // A store, or any other use: the chain's value.
  operator Value() const {
    const profile::detail::OpScope profiled("fused");  // Note [Profiled statements]
    Value result;
    if (!with_layout([&]<class T>(const detail::FusedLayout& layout) {
          result = compiled_value<T>(layout);
        }))
      return batched();
    return result;
  }

  // The reductions of the whole example (the op table's reduce_all rule); any and all run
  // as the batched ops.
  Value sum() const { return reduce(false, [](const Value& v) { return v.sum(); }); }
  Value mean() const { return reduce(true, [](const Value& v) { return v.mean(); }); }
  Value any() const { return batched().any(); }
  Value all() const { return batched().all(); }

  // acc op= the chain, reduced over the levels acc lacks (vb::accumulate).
  void accumulate_into(Tensor& acc, Reduce op) const {
    const profile::detail::OpScope profiled("fused accumulate");
    if ((op != Reduce::add && op != Reduce::sub) || detail::fused_masked() || acc.dim() != 0 ||
        acc.device() != kCPU ||
        !with_layout([&]<class T>(const detail::FusedLayout& layout) {
          if (layout.example_count != 1) return false;
          // Runs summed in the element type, their totals added in double (sum_run).
          using Sum = std::conditional_t<std::is_floating_point_v<ResultOf<T>>, double, int64_t>;
          const Sum total = sum_all<T, Sum>(layout);
          detail::fused_accumulate(acc, vmap::full({}, total, vmap::detail::dtype_of<Sum>), op);
          return true;
        }, true))
      batched::accumulate(acc, batched(), op);
  }

 private:
  template <class T>
  using ResultOf = std::remove_cvref_t<decltype(detail::kernel_at<T, -1>(
      std::declval<const Kernel&>(), std::declval<const ArgTuple&>(),
      std::declval<const std::array<const T*, kValues>&>(),
      std::declval<const std::array<int64_t, kValues>&>(), int64_t{0}, Indices{}))>;

  // Calls run.template operator()<T>(layout) with T the operands' element type when the
  // compiled kernel applies; false (nothing run) otherwise.
  template <class Run>
  bool with_layout(Run&& run, bool every_example = false) const {
    std::vector<Value> values;
    std::apply(
        [&](const auto&... arg) {
          (
              [&] {
                if constexpr (detail::is_value_operand<std::remove_cvref_t<decltype(arg)>>)
                  values.push_back(arg);
              }(),
              ...);
        },
        args_);
    std::optional<detail::FusedLayout> layout = detail::plan_fused(values, every_example);
    // Nothing to compute: the batched ops do what they do with no elements (an op the
    // dtype lacks still raises).
    if (!layout || layout->level_count * layout->example_count == 0) return false;
    auto typed = [&]<class T>() -> bool {
      if (!first_element_computes<T>(*layout)) return false;
      using Returned = decltype(run.template operator()<T>(*layout));
      if constexpr (std::is_void_v<Returned>) {
        run.template operator()<T>(*layout);
        return true;
      } else {
        return run.template operator()<T>(*layout);
      }
    };
    return layout->dtype == kFloat64 ? typed.template operator()<double>()
                                     : typed.template operator()<float>();
  }

  // The kernel on the first element, alone: an op the element type does not define throws
  // here, before any thread runs it.
  template <class T>
  bool first_element_computes(const detail::FusedLayout& layout) const {
    const detail::Walker<T, kValues> walker(layout);
    try {
      (void)detail::kernel_at<T, -1>(kernel_, args_, walker.base, std::array<int64_t, kValues>{},
                                       0, Indices{});
    } catch (const vmap::Error&) {
      return false;
    }
    return true;
  }

  template <class T>
  Value compiled_value(const detail::FusedLayout& layout) const {
    using R = ResultOf<T>;
    constexpr Dtype dtype = vmap::detail::dtype_of<R>;
    return detail::fused_value(layout, dtype, [*this, layout](const Tensor& destination) {
      const Tensor out = destination.defined() && destination.dtype() == dtype
                             ? destination
                             : vmap::empty(layout.sizes, dtype);
      store<T, R>(layout, out.template data_ptr<R>());
      return out;
    });
  }

  // Writes the kernel's elements, in the flattened order of the layout, to `out`.
  template <class T, class R>
  void store(const detail::FusedLayout& layout, R* out) const {
    const detail::Walker<T, kValues> walker(layout);
    const int64_t count = layout.level_count * layout.example_count;
    detail::parallel_ranges(count, 1, [&](int64_t begin, int64_t end) {
      R* target = out + begin;
      walker.walk(begin, end, [&](const auto& at, const auto& inner, int64_t run) {
        detail::with_inner_mask<kValues>(walker.inner_mask, [&](auto mask) {
          constexpr int kMask = decltype(mask)::value;
          const std::array<const T*, kValues> from = at;
          const std::array<int64_t, kValues> step = inner;
          R* const into = target;
#pragma omp simd
          for (int64_t k = 0; k < run; ++k)
            into[k] = detail::kernel_at<T, kMask>(kernel_, args_, from, step, k, Indices{});
        });
        target += run;
      });
    });
  }

  // The kernel's elements in one run of the innermost dim, summed in Sum. Partial sums are
  // kept in the kernel's own element type, in kSumLanes independent lanes (several vector
  // registers, so no add waits on the one before it: what a hand-written float reduction
  // does), and added into Sum every kSumBlock elements (so a long run's error stays that of
  // a block of a few thousand floats: Note [Compiled fusion]).
  static constexpr int64_t kSumLanes = 16;
  static constexpr int64_t kSumBlock = 4096;
  template <class T, class Sum, int kMask>
  Sum sum_run(const std::array<const T*, kValues>& from, const std::array<int64_t, kValues>& step,
              int64_t run) const {
    using R = ResultOf<T>;
    using Lane = std::conditional_t<std::is_floating_point_v<R>, R, Sum>;
    auto element = [&](int64_t k) {
      return static_cast<Lane>(detail::kernel_at<T, kMask>(kernel_, args_, from, step, k, Indices{}));
    };
    Sum acc = 0;
    int64_t k = 0;
    while (run - k >= kSumLanes) {
      const int64_t block_end = k + std::min(kSumBlock, (run - k) / kSumLanes * kSumLanes);
      std::array<Lane, kSumLanes> lanes{};
      for (; k < block_end; k += kSumLanes)
        for (int64_t l = 0; l < kSumLanes; ++l) lanes[l] += element(k + l);
      Lane block = 0;
      for (const Lane lane : lanes) block += lane;
      acc += static_cast<Sum>(block);
    }
    Lane tail = 0;
    for (; k < run; ++k) tail += element(k);
    return acc + static_cast<Sum>(tail);
  }

  template <class T, class Sum>
  Sum sum_run(const detail::Walker<T, kValues>& walker, const std::array<const T*, kValues>& at,
              const std::array<int64_t, kValues>& inner, int64_t run) const {
    Sum acc = 0;
    detail::with_inner_mask<kValues>(walker.inner_mask, [&](auto mask) {
      // Locals, not the captured references: the compiler keeps them in registers and
      // vectorises the loop.
      const std::array<const T*, kValues> from = at;
      const std::array<int64_t, kValues> step = inner;
      acc = sum_run<T, Sum, decltype(mask)::value>(from, step, run);
    });
    return acc;
  }

  // Examples [e, e + kExampleGroup) of a run of examples (operand n's example e at
  // at[n] + e * outer[n]), each fewer than kSumLanes elements, summed side by side: each
  // example's adds stay in order, but the group's sums do not wait on each other (one
  // short example at a time is a chain of dependent adds). Writes them from `out` on.
  static constexpr int64_t kExampleGroup = 8;
  template <class T, class R, int kMask, class Finish>
  R* sum_short_examples(const std::array<const T*, kValues>& at,
                        const std::array<int64_t, kValues>& outer,
                        const std::array<int64_t, kValues>& step, int64_t per, int64_t e, R* out,
                        const Finish& finish) const {
    std::array<std::array<const T*, kValues>, kExampleGroup> from;
    for (int64_t l = 0; l < kExampleGroup; ++l)
      for (std::size_t n = 0; n < kValues; ++n) from[l][n] = at[n] + (e + l) * outer[n];
    std::array<R, kExampleGroup> sums{};
    for (int64_t k = 0; k < per; ++k)
      for (int64_t l = 0; l < kExampleGroup; ++l)
        sums[l] += detail::kernel_at<T, kMask>(kernel_, args_, from[l], step, k, Indices{});
    for (const R sum : sums) *out++ = finish(sum);
    return out;
  }

  // The sum of the kernel over the flattened positions [begin, end).
  template <class T, class Sum>
  Sum sum_range(const detail::Walker<T, kValues>& walker, int64_t begin, int64_t end) const {
    Sum total = 0;
    walker.walk(begin, end, [&](const auto& at, const auto& inner, int64_t run) {
      total += sum_run<T, Sum>(walker, at, inner, run);
    });
    return total;
  }

  // The sum over every position, on threads: fixed chunks whose partial sums are added in
  // chunk order, so the result does not depend on the thread count.
  template <class T, class Sum>
  Sum sum_all(const detail::FusedLayout& layout) const {
    const detail::Walker<T, kValues> walker(layout);
    const int64_t count = layout.level_count * layout.example_count;
    const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(64, count / 4096));
    std::vector<Sum> partial(static_cast<std::size_t>(chunks), Sum(0));
    detail::parallel_ranges(chunks, count / chunks, [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c)
        partial[static_cast<std::size_t>(c)] =
            sum_range<T, Sum>(walker, count * c / chunks, count * (c + 1) / chunks);
    });
    Sum total = 0;
    for (Sum value : partial) total += value;
    return total;
  }

  // The chain summed (or averaged) over each example's elements.
  template <class Batched>
  Value reduce(bool mean, Batched&& batched_reduction) const {
    const profile::detail::OpScope profiled(mean ? "fused mean" : "fused sum");
    Value result;
    if (!with_layout([&]<class T>(const detail::FusedLayout& layout) {
          using R = ResultOf<T>;
          if constexpr (!std::is_floating_point_v<R>) {
            return false;  // integer sums and means: the batched ops
          } else {
            const Tensor out = vmap::empty(
                std::vector<int64_t>(layout.sizes.begin(), layout.sizes.begin() + layout.levels),
                vmap::detail::dtype_of<R>);
            R* target = out.template data_ptr<R>();
            const int64_t per = layout.example_count;
            auto finish = [&](R total) { return mean ? total / static_cast<R>(per) : total; };
            const detail::Walker<T, kValues> walker(layout);
            // One example per run of the innermost dim when its dims merged into one: a
            // single walk over a range of examples.
            const bool one_run = layout.example_rank == 1;
            detail::parallel_ranges(layout.level_count, per, [&](int64_t first, int64_t last) {
              if (one_run && per > 0) {
                // The examples [first, last) walked as the positions of the level dims,
                // each one run of `per` elements: short examples (pairwise distance of
                // width 10) cost a loop step each, not a walk of their elements.
                detail::Walker<T, kValues> examples = walker;
                --examples.rank;
                const std::array<int64_t, kValues> step = [&] {
                  std::array<int64_t, kValues> inner{};
                  for (std::size_t n = 0; n < kValues; ++n)
                    inner[n] = walker.strides[n][walker.rank - 1];
                  return inner;
                }();
                detail::with_inner_mask<kValues>(walker.inner_mask, [&](auto mask) {
                  constexpr int kMask = decltype(mask)::value;
                  R* next = target + first;
                  examples.walk(first, last, [&](const auto& at, const auto& outer, int64_t count) {
                    int64_t e = 0;
                    if (per < kSumLanes)
                      for (; e + kExampleGroup <= count; e += kExampleGroup)
                        next = sum_short_examples<T, R, kMask>(at, outer, step, per, e, next, finish);
                    for (; e < count; ++e) {
                      std::array<const T*, kValues> from;
                      for (std::size_t n = 0; n < kValues; ++n) from[n] = at[n] + e * outer[n];
                      *next++ = finish(sum_run<T, R, kMask>(from, step, per));
                    }
                  });
                });
                return;
              }
              for (int64_t p = first; p < last; ++p)
                target[p] = finish(sum_range<T, R>(walker, p * per, (p + 1) * per));
            });
            result = Value(out, layout.levels, false);
            return true;
          }
        }))
      return batched_reduction(batched());
    return result;
  }

  Kernel kernel_;
  ArgTuple args_;
};

// The chain `kernel` over `args`: Values (per-example or loop-invariant tensors) and numbers.
template <class Kernel, class... Args>
auto fused(Kernel kernel, const Args&... args) {
  return Fused<Kernel, std::conditional_t<std::is_arithmetic_v<Args>, Args, Value>...>(
      std::move(kernel), args...);
}

// The free forms (`vb::sum(vb::fused(...))`): namespace-scope templates, so that a qualified
// call finds them rather than sum(const Value&) through the conversion.
template <class Kernel, class... Args>
Value sum(const Fused<Kernel, Args...>& e) {
  return e.sum();
}
template <class Kernel, class... Args>
Value mean(const Fused<Kernel, Args...>& e) {
  return e.mean();
}
template <class Kernel, class... Args>
Value any(const Fused<Kernel, Args...>& e) {
  return e.any();
}
template <class Kernel, class... Args>
Value all(const Fused<Kernel, Args...>& e) {
  return e.all();
}

template <class Kernel, class... Args>
void accumulate(Tensor& acc, const Fused<Kernel, Args...>& e, Reduce op) {
  e.accumulate_into(acc, op);
}
template <class Kernel, class... Args>
void accumulate(Value& acc, const Fused<Kernel, Args...>& e, Reduce op) {
  accumulate(acc, e.batched(), op);
}

}  // namespace vmap::batched
