// Compiled fused kernels: what rewritten code calls for a per-example chain of pointwise ops.
//
// Note [Compiled fusion]
// The run-time fusion of Note [Pending values] (rules/src/batched/batched_fused.hpp) interprets a
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
// (a chain spread over statements through per-example locals is one lambda of several
// statements, `x = x * x` five times one pass: Note [Fused regions] in transform/fuse.cpp),
// and vb::fused runs it here, instantiated on Element<float> or Element<double>
// (fused_element.hpp: the runtime's scalar functors on C++ element types), over the
// broadcast physical sizes of its operands (levels first, then the example dims): a strided
// walk whose innermost dim is a plain loop the compiler vectorises (Note [Vector ISA of
// compiled kernels]), sums kept in registers (16 independent lanes of the element type,
// added into the result type every 4096 elements: sum_run; examples of up to 256 elements
// summed side by side along a level dim, each in its elements' order: Note [Short examples
// summed side by side]), chunks of the flattened index on OpenMP threads (parallel_ranges
// in rules/src/fused.cpp), results written straight into the destination (a store, a sum
// or a mean is a whole pending node, Note [Deferred results]: computed into the slot). No
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

// Note [Vector ISA of compiled kernels]
// A fused kernel is compiled in the user's translation unit, with the user's flags: on
// x86-64 without -mavx2 that is SSE2, 4 floats a vector, where the runtime's Highway kernels
// (and a plain loop built with -march=native) use the machine's AVX2 or AVX-512. So each hot
// loop is a lambda the compiler must inline (VMAP_FUSED_LOOP) run by with_vector_isa, which
// calls it through a copy compiled for AVX2 + FMA when the CPU has them (checked once, in
// fused.cpp), the user's ISA otherwise: the runtime's dispatch, done by the compiler.
// Results may then differ from the eager ops by FMA contraction (the compiler's choice, as
// already under -march=native), never by the thread count.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool cpu_has_avx2_fma();
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__AVX2__) && \
    !defined(__CUDACC__)
#define VMAP_FUSED_LOOP __attribute__((always_inline))
template <class Loop>
__attribute__((target("avx2,fma"))) void run_avx2_fma(const Loop& loop) {
  loop();
}
template <bool kDispatch, class Loop>
void with_vector_isa(const Loop& loop) {
  if (kDispatch && cpu_has_avx2_fma()) run_avx2_fma(loop);
  else loop();
}
#else
#define VMAP_FUSED_LOOP
template <bool kDispatch, class Loop>
void with_vector_isa(const Loop& loop) {
  loop();
}
#endif

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
// The value of a compiled store or reduction, of physical `sizes` (the layout's, or its
// level sizes): a whole pending node (Note [Deferred results]) that `compute` fills into the
// destination it gets (or a new tensor, when it gets none).
Value fused_value(const FusedLayout& layout, std::vector<int64_t> sizes, Dtype dtype,
                  std::function<Tensor(const Tensor& destination)> compute);
// Whether a vb::Where is live (a compiled accumulator would ignore it).
bool fused_masked();
// acc op= total, as accumulate() does with a reduced value (acc is 0-d, on the CPU).
void fused_accumulate(Tensor& acc, double total, Reduce op);
void fused_accumulate(Tensor& acc, int64_t total, Reduce op);

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

// Calls f(std::integral_constant<int, mask>) with the walker's inner mask as a constant, so
// a run's loop reads unit-stride operands as arrays and broadcast ones as one value. With
// kMasks, one loop per mask from 1 (up to 3 tensor operands: 7 loops; mask 0, no operand
// stepping through the innermost dim, is only an accumulator's level no operand varies
// along); without, or beyond 3 operands, only the all-unit one. The rest run the loop for
// any strides (-1) when kAny; a caller without it packs its operands so that none is left.
template <std::size_t N, bool kMasks, bool kAny, class F>
void with_inner_mask(int mask, F&& f) {
  constexpr int kAll = (1 << N) - 1;
  bool done = false;
  if constexpr (kMasks && N <= 3) {
    done = [&]<int... M>(std::integer_sequence<int, M...>) {
      return ((mask == M + 1 ? (f(std::integral_constant<int, M + 1>{}), true) : false) || ...);
    }(std::make_integer_sequence<int, kAll>{});
  } else if (mask == kAll) {
    f(std::integral_constant<int, kAll>{});
    done = true;
  }
  if constexpr (kAny)
    if (!done) f(std::integral_constant<int, -1>{});
}

// The kernel's argument I at element k of a run: an Element of the tensor operand it is, or
// the number as passed.
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
          detail::fused_accumulate(acc, total, op);
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

  // A whole pending node of `sizes` and the element type R, filled by fill(R* out).
  template <class R, class Fill>
  static Value deferred(const detail::FusedLayout& layout, std::vector<int64_t> sizes, Fill fill) {
    constexpr Dtype dtype = vmap::detail::dtype_of<R>;
    return detail::fused_value(layout, sizes, dtype, [sizes, fill](const Tensor& destination) {
      const Tensor out = destination.defined() && destination.dtype() == dtype
                             ? destination
                             : vmap::empty(sizes, dtype);
      fill(out.template data_ptr<R>());
      return out;
    });
  }

  template <class T>
  Value compiled_value(const detail::FusedLayout& layout) const {
    using R = ResultOf<T>;
    return deferred<R>(layout, layout.sizes,
                       [*this, layout](R* out) { store<T, R>(layout, out); });
  }

  // Note [Loops per fused kernel]
  // Each loop below is compiled per kernel, per mask (with_inner_mask) and per vector ISA
  // (with_vector_isa): the compile time of a rewritten file. float32, the default dtype, gets
  // them all; a float64 kernel gets one loop per path, in the user's ISA (its broadcast
  // operands read through strides, or packed); long examples' sums (their innermost dim is
  // the example's own, rarely a broadcast) the all-unit and any-stride loops only.
  template <class T>
  static constexpr bool kTuned = std::is_same_v<T, float>;

  // Writes the kernel's elements, in the flattened order of the layout, to `out`.
  template <class T, class R>
  void store(const detail::FusedLayout& layout, R* out) const {
    const detail::Walker<T, kValues> walker(layout);
    const int64_t count = layout.level_count * layout.example_count;
    detail::parallel_ranges(count, 1, [&](int64_t begin, int64_t end) {
      R* target = out + begin;
      walker.walk(begin, end, [&](const auto& at, const auto& inner, int64_t run) {
        detail::with_inner_mask<kValues, kTuned<T>, true>(walker.inner_mask, [&](auto mask) {
          constexpr int kMask = decltype(mask)::value;
          const std::array<const T*, kValues> from = at;
          const std::array<int64_t, kValues> step = inner;
          R* const into = target;
          detail::with_vector_isa<kTuned<T>>([&]() VMAP_FUSED_LOOP {
#pragma omp simd
            for (int64_t k = 0; k < run; ++k)
              into[k] = detail::kernel_at<T, kMask>(kernel_, args_, from, step, k, Indices{});
          });
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
  VMAP_FUSED_LOOP Sum sum_run(const std::array<const T*, kValues>& from,
                              const std::array<int64_t, kValues>& step, int64_t run) const {
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

  template <class T, class Sum, bool kMasks>
  Sum sum_run(const detail::Walker<T, kValues>& walker, const std::array<const T*, kValues>& at,
              const std::array<int64_t, kValues>& inner, int64_t run) const {
    Sum acc = 0;
    detail::with_inner_mask<kValues, kMasks, true>(walker.inner_mask, [&](auto mask) {
      // Locals, not the captured references: the compiler keeps them in registers and
      // vectorises the loop.
      const std::array<const T*, kValues> from = at;
      const std::array<int64_t, kValues> step = inner;
      detail::with_vector_isa<kTuned<T>>(
          [&]() VMAP_FUSED_LOOP { acc = sum_run<T, Sum, decltype(mask)::value>(from, step, run); });
    });
    return acc;
  }

  // Note [Short examples summed side by side]
  // An example of a few hundred elements summed alone is a short chain of dependent adds
  // and a loop too short to vectorise (pairwise distance of width 10). A plain loop
  // (samples/plain/pairwise_distance.cpp) turns it around, and so does this: for each
  // position of the outer level dims, a row of up to kRowBlock examples along the innermost
  // level dim is summed together, the examples' elements k outermost and the row j
  // innermost: sums[j] += kernel(k, j), a vector loop over the row kept in L1. An operand
  // whose stride along the row is neither 0 (one value for the row: x[i][k]) nor 1 is first
  // packed [k][j], contiguous along the row: once for the call when it does not vary along
  // the outer level dims (the y of a pairwise distance), per row otherwise. Each example is
  // still summed by one thread in its elements' order in the element type, so the result
  // does not depend on the thread count; long examples keep sum_run's blocked lanes.
  static constexpr int64_t kShortExample = 256;
  static constexpr int64_t kRowBlock = 512;
  static constexpr int64_t kPackLimit = int64_t{1} << 22;  // elements packed once per call

  template <class T, class R, class Finish>
  void sum_rows(const detail::FusedLayout& layout, R* out, const Finish& finish) const {
    const detail::Walker<T, kValues> walker(layout);
    const int row_dim = walker.rank - 2, example_dim = walker.rank - 1;
    const int64_t width = walker.dims[row_dim], per = walker.dims[example_dim];
    const int64_t blocks = (width + kRowBlock - 1) / kRowBlock;
    enum class Read { direct, packed_once, packed_per_row };
    std::array<Read, kValues> read{};
    std::array<std::vector<T>, kValues> packed;
    int mask = 0;
    bool read_broadcasts = false;  // mask 0 (every operand broadcast) has no loop
    for (std::size_t n = 0; n < kValues; ++n)
      read_broadcasts = read_broadcasts || walker.strides[n][row_dim] != 0;
    read_broadcasts = read_broadcasts && kTuned<T> && kValues <= 3;
    for (std::size_t n = 0; n < kValues; ++n) {
      const int64_t along_row = walker.strides[n][row_dim];
      // Broadcasts read as one value where with_inner_mask has their loops; else packed too.
      const bool direct = along_row == 1 || (along_row == 0 && read_broadcasts);
      if (along_row != 0 || !direct) mask |= 1 << n;
      if (direct) continue;
      bool invariant = per * width <= kPackLimit;
      for (int d = 0; d < row_dim; ++d) invariant = invariant && walker.strides[n][d] == 0;
      if (!invariant) {
        read[n] = Read::packed_per_row;
        continue;
      }
      read[n] = Read::packed_once;
      packed[n].resize(static_cast<std::size_t>(per * width));
      pack(walker.base[n], along_row, walker.strides[n][example_dim], per, width, width,
           packed[n].data());
    }
    const int64_t tasks = layout.level_count / width * blocks;
    detail::parallel_ranges(tasks, per * std::min(width, kRowBlock), [&](int64_t first, int64_t last) {
      std::array<std::vector<T>, kValues> row_buffer;
      for (std::size_t n = 0; n < kValues; ++n)
        if (read[n] == Read::packed_per_row)
          row_buffer[n].resize(static_cast<std::size_t>(per * std::min(width, kRowBlock)));
      std::array<R, kRowBlock> sums;
      for (int64_t task = first; task < last; ++task) {
        const int64_t outer = task / blocks, j0 = task % blocks * kRowBlock;
        const int64_t count = std::min(kRowBlock, width - j0);
        std::array<const T*, kValues> row;
        std::array<int64_t, kValues> k_step;
        for (std::size_t n = 0; n < kValues; ++n) {
          const T* at = walker.base[n];
          for (int64_t d = row_dim - 1, rest = outer; d >= 0; --d) {
            at += rest % walker.dims[d] * walker.strides[n][d];
            rest /= walker.dims[d];
          }
          const int64_t along_row = walker.strides[n][row_dim];
          const int64_t along_example = walker.strides[n][example_dim];
          switch (read[n]) {
            case Read::direct:
              row[n] = at + j0 * along_row;
              k_step[n] = along_example;
              break;
            case Read::packed_once:
              row[n] = packed[n].data() + j0;
              k_step[n] = width;
              break;
            case Read::packed_per_row:
              pack(at + j0 * along_row, along_row, along_example, per, count, count,
                   row_buffer[n].data());
              row[n] = row_buffer[n].data();
              k_step[n] = count;
              break;
          }
        }
        detail::with_inner_mask<kValues, kTuned<T>, false>(mask, [&](auto row_mask) {
          constexpr int kMask = decltype(row_mask)::value;
          const std::array<int64_t, kValues> unused{};
          R* const into = sums.data();
          const std::array<const T*, kValues> start = row;
          const std::array<int64_t, kValues> step = k_step;
          detail::with_vector_isa<kTuned<T>>([&]() VMAP_FUSED_LOOP {
            for (int64_t j = 0; j < count; ++j) into[j] = 0;
            for (int64_t k = 0; k < per; ++k) {
              std::array<const T*, kValues> from;
              for (std::size_t n = 0; n < kValues; ++n) from[n] = start[n] + k * step[n];
#pragma omp simd
              for (int64_t j = 0; j < count; ++j)
                into[j] += detail::kernel_at<T, kMask>(kernel_, args_, from, unused, j, Indices{});
            }
          });
        });
        R* const target = out + outer * width + j0;
        for (int64_t j = 0; j < count; ++j) target[j] = finish(sums[j]);
      }
    });
  }

  // to[k * row_length + j] = from[j * along_row + k * along_example], j < count, k < per.
  template <class T>
  static void pack(const T* from, int64_t along_row, int64_t along_example, int64_t per,
                   int64_t count, int64_t row_length, T* to) {
    for (int64_t j = 0; j < count; ++j)
      for (int64_t k = 0; k < per; ++k)
        to[k * row_length + j] = from[j * along_row + k * along_example];
  }

  // The sum of the kernel over the flattened positions [begin, end).
  template <class T, class Sum, bool kMasks>
  Sum sum_range(const detail::Walker<T, kValues>& walker, int64_t begin, int64_t end) const {
    Sum total = 0;
    walker.walk(begin, end, [&](const auto& at, const auto& inner, int64_t run) {
      total += sum_run<T, Sum, kMasks>(walker, at, inner, run);
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
            sum_range<T, Sum, kTuned<T>>(walker, count * c / chunks, count * (c + 1) / chunks);
    });
    Sum total = 0;
    for (Sum value : partial) total += value;
    return total;
  }

  // Each example's sum (or mean), in the flattened order of the level dims, to `out`.
  template <class T, class R>
  void sum_examples(const detail::FusedLayout& layout, bool mean, R* out) const {
    const int64_t per = layout.example_count;
    auto finish = [&](R total) { return mean ? total / static_cast<R>(per) : total; };
    // One run of `per` elements per example when its dims merged into one, and a level dim
    // to sum along: short examples side by side.
    if (layout.example_rank == 1 && layout.dims.size() >= 2 && per <= kShortExample)
      return sum_rows<T, R>(layout, out, finish);
    const detail::Walker<T, kValues> walker(layout);
    detail::parallel_ranges(layout.level_count, per, [&](int64_t first, int64_t last) {
      for (int64_t p = first; p < last; ++p)
        out[p] = finish(sum_range<T, R, false>(walker, p * per, (p + 1) * per));
    });
  }

  // The chain summed (or averaged) over each example's elements: a whole pending node, so a
  // store computes it straight into its slots.
  template <class Batched>
  Value reduce(bool mean, Batched&& batched_reduction) const {
    const profile::detail::OpScope profiled(mean ? "fused mean" : "fused sum");
    Value result;
    if (!with_layout([&]<class T>(const detail::FusedLayout& layout) {
          using R = ResultOf<T>;
          if constexpr (!std::is_floating_point_v<R>) {
            return false;  // integer sums and means: the batched ops
          } else {
            result = deferred<R>(
                layout,
                std::vector<int64_t>(layout.sizes.begin(), layout.sizes.begin() + layout.levels),
                [*this, layout, mean](R* out) { sum_examples<T, R>(layout, mean, out); });
            return true;
          }
        }))
      return batched_reduction(batched());
    return result;
  }

  Kernel kernel_;
  ArgTuple args_;
};

#undef VMAP_FUSED_LOOP

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
