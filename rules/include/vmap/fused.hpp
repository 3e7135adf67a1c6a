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
// compiled kernels]), sums kept in registers (32 independent lanes of the element type,
// added into the result type every 4096 elements: sum_run; examples of up to 256 elements
// summed side by side along a level dim, each in its elements' order: Note [Short examples
// summed side by side] in rules/src/fused.cpp), chunks of the flattened index on OpenMP
// threads, results written straight into the destination (a store, a sum or a mean is a
// whole pending node, Note [Deferred results]: computed into the slot). No [n, m, d]
// temporary exists.
//
// Only what must see the user's lambda is compiled in the user's file (the compile time of
// a rewritten file): a kernel's loops, each over one run of the innermost dim (pointers,
// strides and a count in, elements or a sum out), reached through plain function pointers
// (KernelCode). Everything else, the layout plan, the walk over the outer dims, the choice
// of a loop by the operands' strides (FusedLoops::pick), packing, threads, the pending node,
// is compiled once, in rules/src/fused.cpp. A call covers the whole runs of the innermost dim
// that follow each other (or a row of examples), so the call through a pointer costs a few
// nanoseconds per such range, not per element.
//
// The same lambda called with the vb::Value operands is today's batched path (eager or
// pending ops), taken when the compiled one does not apply: an operand that is a C++ scalar
// per example, on a device, not float32/float64, of a dtype other than the others', or an
// op the element type does not define for it (the first element is computed alone first; the
// batched ops then raise the eager error). Per-element results equal the eager ops' up to
// the order of a sum's additions (and floating contraction the compiler may apply).
//
// Note [Fused kernels on a device]
// Where the chain's text is the same C++ on a device (transform/fuse_detail.h's portableText:
// no macro, no call of the user's functions, no name of the user's file), the tool also emits
// it (vb::DeviceCode, the first argument). With its operands on a device, a store, a sum, a
// mean or a norm of the kernel is then one launch (rules/src/fused_device.cpp): a device
// program made of the element types themselves (fused_element.hpp and the runtime's scalar
// functors, compiled by NVRTC with libcu++ standing in for the standard library), the lambda
// as written, and fused_device.hpp's walk over the same layout as the CPU's (plan_fused), one
// thread per element stored or per example summed, each example's elements in order, in its
// element type as on the CPU; blocks take 2-D tiles of the last two level dims, and a sum's
// block stages the rows its examples share in shared memory (Note [Staged tiles on a device]
// in fused_device.hpp). The first element's type-level check (an op the dtype lacks) is
// made on the host first. Without device code the batched ops run it on the device, op by
// op, as before.
#pragma once

#include <vmap/batched.hpp>
#include <vmap/fused_element.hpp>
#include <vmap/fused_isa.hpp>
#include <vmap/fused_device.hpp>
#include <vmap/kernel_device.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace vmap::batched {

namespace detail {

// One loop of a compiled kernel over N operands of element type T. Runs (a store, a sum):
// `per` runs of `count` elements, one after another in the walk's order, run r of operand n
// at from[n] + r * step[N + n] and its elements step[n] apart; a store writes their
// per * count elements to `out` (of the kernel's result type), a sum their sum to `*out`.
// One call for many whole runs, not one per run: a short innermost dim (pairwise_sum_prod
// N=100) has many. Rows of examples (Note [Short examples summed side by side]): step[2N]
// rows, row r of operand n at from[n] + r * step[N + n] and of the result at out +
// r * step[2N + 1]; each writes out[j] = the sum over k < per of the element j of its row at
// from[n] + k * step[n], j < count (one call for the rows a thread takes: a call per row
// of a 100x200x10 distance was a tenth of its instructions).
template <class T>
using FusedLoop = void (*)(const void* kernel, const T* const* from, const int64_t* step,
                           int64_t per, int64_t count, void* out);

// A kernel's loops of one kind, one per inner mask where compiled: bit n of a mask set when
// operand n's stride along the run is 1, clear when 0 (it broadcasts: read as one value), so
// that the compiler vectorises each with its reads known. Mask -1 (some other stride): the
// loop for any strides.
template <class T>
struct FusedLoops {
  std::array<FusedLoop<T>, 8> by_mask{};  // masks 1 to 7 (up to 3 tensor operands)
  int all_unit_mask = 0;                  // every operand unit-stride, where compiled
  FusedLoop<T> all_unit = nullptr;
  FusedLoop<T> any = nullptr;  // any strides; null where the caller packs instead
  // The loop for `mask`, or null.
  FusedLoop<T> pick(int mask) const {
    if (mask > 0 && mask < 8 && by_mask[static_cast<std::size_t>(mask)] != nullptr)
      return by_mask[static_cast<std::size_t>(mask)];
    return mask == all_unit_mask && all_unit != nullptr ? all_unit : any;
  }
  bool has_masks() const { return by_mask[1] != nullptr; }
};

// What one use of a kernel (a store, a sum, an accumulator) compiled for operands of
// element type T.
template <class T>
struct TypedKernel {
  Dtype result;  // the dtype of the kernel's elements
  // Computes the element at `first` (one pointer per operand); false when an op is not
  // defined for the element type (the kernel throws, Note [Compiled fusion]).
  bool (*computes)(const void* kernel, const T* const* first);
  // The vector ISA the loops are compiled for (Note [Vector ISA of compiled kernels]);
  // runs: a store's elements or a run's sum; rows: rows of examples (Note [Loops per fused
  // kernel] says which are compiled).
  VectorIsa isa;
  FusedLoops<T> runs;
  FusedLoops<T> rows;
};

// A kernel's argument in its device program (Note [Fused kernels on a device]): a tensor
// operand (no type), or a number of the C++ type named, its bytes.
struct DeviceArgument {
  const char* number_type = nullptr;
  std::array<unsigned char, 8> bytes{};
};

// A kernel as rules/src/fused.cpp runs it: the Fused object and its loops per element type
// (null: not compiled for that type).
struct KernelCode {
  const void* kernel;
  // A copy of the kernel that a pending node computed later keeps alive.
  std::shared_ptr<const void> (*keep)(const void* kernel);
  const TypedKernel<float>* f32;
  const TypedKernel<double>* f64;
  // Its device program's parts (Note [Fused kernels on a device]): the lambda's text (null:
  // none) and the file's name for vmap::batched, whether the program squares its value
  // (norm), and its arguments.
  DeviceCode device;
  bool squared = false;
  void (*device_arguments)(const void* kernel, std::vector<DeviceArgument>& out) = nullptr;
  // The device program's walk (fused_device.hpp) on the host, thread by thread: what the
  // emulated device runs. `sum`: the examples' sums, else the store.
  using WalkOnHost = void (*)(const void* kernel, const vmap_kernel::FusedArgs& args,
                              Dtype element, bool sum, int64_t blocks, int64_t threads);
  WalkOnHost walk_on_host = nullptr;
};

// The compiled kernel's value for a store, its per-example sums (or means; over the
// example dim `dim` alone, walked innermost), or acc op= its total (true when done; with
// `rebinding`, `acc = acc op total`: acc becomes a new tensor of the promoted dtype, as the
// assignment as written makes, and its handle copies keep the old one); nullopt / false when
// it does not apply (the batched ops then run the chain): Note [Compiled fusion].
std::optional<Value> fused_store(const std::vector<Value>& operands, const KernelCode& code);
std::optional<Value> fused_sum(const std::vector<Value>& operands, const KernelCode& code,
                               bool mean, std::optional<int64_t> dim = std::nullopt);
bool fused_accumulate(Tensor& acc, Reduce op, const std::vector<Value>& operands,
                      const KernelCode& code, bool rebinding);

template <class X>
inline constexpr bool is_value_operand = std::is_same_v<X, Value>;

// A kernel's value squared: Fused::norm's sum of squares.
template <class Kernel>
struct Squared {
  Kernel kernel;
  template <class... X>
  VMAP_ELEMENT_INLINE auto operator()(const X&... x) const {
    const auto value = kernel(x...);
    return value * value;
  }
};

// Which of the tensor operands argument I is.
template <std::size_t I, class Args>
inline constexpr std::size_t value_index = [] {
  std::size_t count = 0;
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    ((count += J < I && is_value_operand<std::tuple_element_t<J, Args>>), ...);
  }(std::make_index_sequence<std::tuple_size_v<Args>>());
  return count;
}();

// The kernel's argument I at element k of a run: an Element of the tensor operand it is, or
// the number as passed.
template <class T, std::size_t I, int Mask, class Args, std::size_t N>
decltype(auto) kernel_arg(const Args& args, const std::array<const T*, N>& at,
                          const std::array<int64_t, N>& inner, int64_t k) {
  using X = std::tuple_element_t<I, Args>;
  if constexpr (is_value_operand<X>) {
    constexpr std::size_t n = value_index<I, Args>;
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

template <class Kernel>
inline constexpr bool is_squared = false;
template <class Kernel>
inline constexpr bool is_squared<Squared<Kernel>> = true;

}  // namespace detail

// A pointwise chain with its operands (Note [Compiled fusion]); made by vb::fused.
template <class Kernel, class... Args>
class Fused {
  using ArgTuple = std::tuple<Args...>;
  static constexpr std::size_t kValues = detail::value_count<ArgTuple>;
  using Indices = std::index_sequence_for<Args...>;

 public:
  Fused(Kernel kernel, Args... args) : kernel_(std::move(kernel)), args_(std::move(args)...) {}
  Fused(DeviceCode device, Kernel kernel, Args... args)
      : kernel_(std::move(kernel)), args_(std::move(args)...), device_(device) {}

  // The batched ops on the Values: the chain as eager / pending batched code.
  Value batched() const { return std::apply(kernel_, args_); }

  // A store, or any other use: the chain's value.
  operator Value() const {
    const profile::detail::OpScope profiled("fused");  // Note [Profiled statements]
    if (std::optional<Value> result = detail::fused_store(values(), code<Use::store>()))
      return *std::move(result);
    return batched();
  }

  // The reductions of the whole example (the op table's reduce_all rule), and over one dim
  // (reduce_dim): compiled where the result drops that dim (any of the example's dims);
  // any and all run as the batched ops.
  Value sum() const { return reduce(false); }
  Value mean() const { return reduce(true); }
  Value sum(int64_t dim, bool keepdim = false) const { return reduce(false, dim, keepdim); }
  Value mean(int64_t dim, bool keepdim = false) const { return reduce(true, dim, keepdim); }
  Value any() const { return batched().any(); }
  Value all() const { return batched().all(); }

  // The whole example's norm. p = 2 is the root of the sum of the kernel's squares, the sum
  // compiled as sum()'s (no squares materialised; the eager op's sqrt((|v| * |v|).sum()) up
  // to the order of the additions); any other p, an integer chain, or a sum not compiled:
  // the batched ops.
  Value norm(vmap::detail::Scalar p = 2) const {
    const profile::detail::OpScope profiled("fused norm");
    if (p.to_double() == 2)
      if (std::optional<Value> sum = sum_of_squares()) return batched::sqrt(*sum);
    return batched().norm(p);
  }

  // x.dot(x) of the chain's value x (the tool's form of `d.dot(d)`, Note [Dot products of a
  // value with itself] in transform/fuse_squares.cpp): where x is a vector per example of
  // floats (every tensor operand of one floating dtype), the sum of its squares compiled as
  // norm()'s, no squares materialised; else the batched dot, with its checks and errors.
  Value dot_self() const {
    const profile::detail::OpScope profiled("fused dot");
    const std::vector<Value> operands = values();
    int64_t rank = 0;
    bool floats = !operands.empty();
    for (const Value& v : operands) {
      rank = std::max(rank, v.dim());
      floats &= v.dtype() == operands.front().dtype() && vmap::detail::is_floating(v.dtype());
    }
    if (rank == 1 && floats)
      if (std::optional<Value> sum = sum_of_squares()) return *std::move(sum);
    const Value x = batched();
    return x.dot(x);
  }

  // acc op= the chain, reduced over the levels acc lacks (vb::accumulate), or, `rebinding`,
  // acc = acc op the chain (vb::accumulate_rebinding).
  void accumulate_into(Tensor& acc, Reduce op, bool rebinding = false) const {
    const profile::detail::OpScope profiled("fused accumulate");
    if (detail::fused_accumulate(acc, op, values(), code<Use::accumulate>(), rebinding)) return;
    if (rebinding)
      batched::accumulate_rebinding(acc, batched(), op);
    else
      batched::accumulate(acc, batched(), op);
  }

 private:
  template <class T>
  using ResultOf = std::remove_cvref_t<decltype(detail::kernel_at<T, -1>(
      std::declval<const Kernel&>(), std::declval<const ArgTuple&>(),
      std::declval<const std::array<const T*, kValues>&>(),
      std::declval<const std::array<int64_t, kValues>&>(), int64_t{0}, Indices{}))>;

  // The sum of the squares of each example's elements, compiled (none where it cannot be).
  std::optional<Value> sum_of_squares() const {
    using Squares = Fused<detail::Squared<Kernel>, Args...>;
    const Squares squares = std::apply(
        [&](const Args&... args) {
          return Squares(device_, detail::Squared<Kernel>{kernel_}, args...);
        },
        args_);
    return detail::fused_sum(squares.values(), squares.template code<Squares::Use::sum>(), false);
  }

  // The chain summed (or averaged) over each example's elements, or over its dim `dim`: a
  // whole pending node, so a store computes it straight into its slots.
  Value reduce(bool mean, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const {
    const profile::detail::OpScope profiled(mean ? "fused mean" : "fused sum");
    if (!keepdim)
      if (std::optional<Value> result = detail::fused_sum(values(), code<Use::sum>(), mean, dim))
        return *std::move(result);
    if (!dim) return mean ? batched().mean() : batched().sum();
    return mean ? batched().mean(*dim, keepdim) : batched().sum(*dim, keepdim);
  }

  // The tensor operands, in order.
  std::vector<Value> values() const {
    std::vector<Value> values;
    values.reserve(kValues);
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
    return values;
  }

  // What a use compiles: a store its elements' loops; a sum those of rows of short examples
  // and of a run's sum in the result type; an accumulator those of a run's sum in double
  // (int64 for integer elements), as accumulate() adds a reduced value.
  enum class Use { store, sum, accumulate };
  template <class T, Use kUse>
  using SumOf = std::conditional_t<kUse == Use::sum, ResultOf<T>,
                                   std::conditional_t<std::is_floating_point_v<ResultOf<T>>,
                                                      double, int64_t>>;

  template <Use kUse>
  detail::KernelCode code() const {
    return {this,
            &keep,
            typed<float, kUse, detail::kFusedIsa>(),
            typed<double, kUse, detail::kFusedIsa>(),
            device_,
            detail::is_squared<Kernel>,
            &device_arguments,
            &walk_on_host};
  }

  static void walk_on_host(const void* kernel, const vmap_kernel::FusedArgs& args, Dtype element,
                           bool sum, int64_t blocks, int64_t threads) {
    if (element == kFloat64)
      static_cast<const Fused*>(kernel)->walk_on_host<double>(args, sum, blocks, threads);
    else
      static_cast<const Fused*>(kernel)->walk_on_host<float>(args, sum, blocks, threads);
  }
  template <class T>
  void walk_on_host(const vmap_kernel::FusedArgs& args, bool sum, int64_t blocks,
                    int64_t threads) const {
    using R = ResultOf<T>;
    const auto element = [&](const void* const* bases, const int64_t* at) {
      return static_cast<R>(device_element<T>(bases, at, Indices{}));
    };
    if constexpr (std::is_floating_point_v<R>)
      if (sum && args.chunk > 0) {
        // Note [Staged tiles on a device]: a block's threads phase by phase.
        alignas(16) unsigned char shared[vmap_fused::kStagedBytes];
        for (int64_t b = 0; b < blocks; ++b)
          vmap_fused::staged_sum<R, T, static_cast<int>(kValues)>(
              args, vmap_fused::Thread{b, 0, threads}, shared, element);
        return;
      }
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t t = 0; t < threads; ++t) {
        const vmap_fused::Thread thread{b, t, threads};
        if (!sum)
          vmap_fused::store<R, static_cast<int>(kValues)>(args, thread, element);
        else if constexpr (std::is_floating_point_v<R>)
          vmap_fused::sum<R, static_cast<int>(kValues)>(args, thread, element);
      }
  }
  template <class T, std::size_t... I>
  auto device_element(const void* const* bases, const int64_t* at,
                      std::index_sequence<I...>) const {
    return kernel_(device_argument<T, I>(bases, at)...).value;
  }
  template <class T, std::size_t I>
  decltype(auto) device_argument(const void* const* bases, const int64_t* at) const {
    if constexpr (detail::is_value_operand<std::tuple_element_t<I, ArgTuple>>) {
      constexpr std::size_t n = detail::value_index<I, ArgTuple>;
      return Element<T>{static_cast<const T*>(bases[n])[at[n]]};
    } else {
      return std::get<I>(args_);
    }
  }

  static void device_arguments(const void* kernel, std::vector<detail::DeviceArgument>& out) {
    const Fused& self = *static_cast<const Fused*>(kernel);
    std::apply(
        [&](const auto&... arg) {
          (
              [&] {
                using X = std::remove_cvref_t<decltype(arg)>;
                detail::DeviceArgument argument;
                if constexpr (!detail::is_value_operand<X>) {
                  argument.number_type = vmap_kernel::type_name<X>();
                  std::memcpy(argument.bytes.data(), &arg, sizeof(X));
                }
                out.push_back(argument);
              }(),
              ...);
        },
        self.args_);
  }

  static std::shared_ptr<const void> keep(const void* kernel) {
    return std::make_shared<const Fused>(*static_cast<const Fused*>(kernel));
  }

  // Note [Loops per fused kernel]
  // Each loop is compiled per kernel and per mask (FusedLoops), in one vector ISA (Note
  // [Vector ISA of compiled kernels]): the compile time of a rewritten file, up to about a
  // tenth of a second each with g++ -O3. Each element type gets: a loop per mask, rows of
  // short examples (their long examples' runs, whose innermost dim is the example's own, rarely
  // a broadcast: the all-unit and any-stride loops only, and a sum the all-unit one alone: a
  // long example read with another stride takes the batched ops; the any-stride sum loop was
  // a ninth of a rewritten pairwise_distance's compile time, past its 2x). float64 has the
  // same loops as float32: with the any-stride loop alone, its stores and accumulators of
  // contiguous rows did not vectorise (a per-row sqrt 3.9x the plain loop, float32 1.1x),
  // and without the rows masks its short examples' sums packed a broadcast x[i] again for
  // every row (a 2000x2000x64 distance 7x float32's). (A second copy in the user's ISA for
  // CPUs without AVX2 cost a rewritten pairwise_distance a sixth of its compile time; they
  // take the batched ops.)
  template <class T, Use kUse, detail::VectorIsa kIsa>
  static const detail::TypedKernel<T>* typed() {
    using R = ResultOf<T>;
    if constexpr (kUse == Use::sum && !std::is_floating_point_v<R>) {
      return nullptr;  // integer sums and means: the batched ops
    } else {
      static constexpr detail::TypedKernel<T> kTyped = {
          vmap::detail::dtype_of<R>,
          &computes<T>,
          kIsa, loops<T, kUse, false, kIsa>(), loops<T, kUse, true, kIsa>()};
      return &kTyped;
    }
  }

  // The loops of one kind (kRows: rows of examples, else runs); none where the use has no
  // such loop.
  template <class T, Use kUse, bool kRows, detail::VectorIsa kIsa>
  static constexpr detail::FusedLoops<T> loops() {
    detail::FusedLoops<T> loops;
    if constexpr (!kRows || kUse == Use::sum) {
      constexpr int kAllUnit = (1 << kValues) - 1;
      if constexpr (kValues <= 3 && (kRows || kUse != Use::sum))
        [&]<int... M>(std::integer_sequence<int, M...>) {
          ((loops.by_mask[M + 1] = &loop<T, kUse, kRows, M + 1, kIsa>), ...);
        }(std::make_integer_sequence<int, kAllUnit>{});
      loops.all_unit_mask = kAllUnit;
      loops.all_unit = &loop<T, kUse, kRows, kAllUnit, kIsa>;
      if constexpr (!kRows && kUse != Use::sum) loops.any = &loop<T, kUse, kRows, -1, kIsa>;
    }
    return loops;
  }


  template <class T>
  static bool computes(const void* kernel, const T* const* first) {
    const Fused& self = *static_cast<const Fused*>(kernel);
    std::array<const T*, kValues> at;
    for (std::size_t n = 0; n < kValues; ++n) at[n] = first[n];
    try {
      (void)detail::kernel_at<T, -1>(self.kernel_, self.args_, at,
                                     std::array<int64_t, kValues>{}, 0, Indices{});
    } catch (const vmap::Error&) {
      return false;
    }
    return true;
  }

  // One loop (detail::FusedLoop): a store's run, a run's sum, or a row of examples' sums.
  template <class T, Use kUse, bool kRows, int kMask, detail::VectorIsa kIsa>
  static void loop(const void* kernel, const T* const* at, const int64_t* inner, int64_t per,
                   int64_t run, void* out) {
    const Fused& self = *static_cast<const Fused*>(kernel);
    using R = ResultOf<T>;
    detail::run_in_fused_isa([&]() VMAP_FUSED_LOOP {
      // Locals, not the pointers passed: the compiler keeps them in registers and vectorises
      // the loop. Copied here, inside the ISA's copy: an array stored just before the call
      // and read back in it waits on store-to-load forwarding (16% on pairwise_sum_prod).
      std::array<const T*, kValues> from;
      std::array<int64_t, kValues> step;
      for (std::size_t n = 0; n < kValues; ++n) {
        from[n] = at[n];
        step[n] = inner[n];
      }
      if constexpr (kRows) {
        std::array<int64_t, kValues> next;  // from one row to the next
        for (std::size_t n = 0; n < kValues; ++n) next[n] = inner[kValues + n];
        const int64_t rows = inner[2 * kValues], out_step = inner[2 * kValues + 1];
        R* into = static_cast<R*>(out);
        for (int64_t r = 0; r < rows; ++r, into += out_step) {
          self.sum_row<T, kMask>(from, step, per, run, into);
          for (std::size_t n = 0; n < kValues; ++n) from[n] += next[n];
        }
      } else {
        std::array<int64_t, kValues> next;  // from one run to the next
        for (std::size_t n = 0; n < kValues; ++n) next[n] = inner[kValues + n];
        if constexpr (kUse == Use::store) {
          R* into = static_cast<R*>(out);
          for (int64_t r = 0; r < per; ++r, into += run) {
#pragma omp simd
            for (int64_t k = 0; k < run; ++k)
              into[k] =
                  detail::kernel_at<T, kMask>(self.kernel_, self.args_, from, step, k, Indices{});
            for (std::size_t n = 0; n < kValues; ++n) from[n] += next[n];
          }
        } else {
          using Sum = SumOf<T, kUse>;
          Sum total = 0;
          for (int64_t r = 0; r < per; ++r) {
            total += self.sum_run<T, Sum, kMask>(from, step, run);
            for (std::size_t n = 0; n < kValues; ++n) from[n] += next[n];
          }
          *static_cast<Sum*>(out) = total;
        }
      }
    });
  }

  // The kernel's elements in one run of the innermost dim, summed in Sum. Partial sums are
  // kept in the kernel's own element type, in kSumLanes independent lanes (four AVX2 or two
  // AVX-512 vectors of float, so no add waits on the one before it: 16 lanes, two AVX2
  // chains, bounded pairwise_sum_prod N=4096 by the adds' latency at 1.2x a plain loop;
  // 32: 0.64x), and added into Sum every kSumBlock elements (so a long run's error stays
  // that of a block of a few thousand floats: Note [Compiled fusion]).
  static constexpr int64_t kSumLanes = 32;
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
      // Halves added pairwise: vector adds, a few in a row, not kSumLanes dependent ones.
      for (int64_t half = kSumLanes / 2; half > 0; half /= 2)
        for (int64_t l = 0; l < half; ++l) lanes[l] += lanes[l + half];
      acc += static_cast<Sum>(lanes[0]);
    }
    Lane tail = 0;
    for (; k < run; ++k) tail += element(k);
    return acc + static_cast<Sum>(tail);
  }

  // into[j] = the sum over k < per of the kernel's element j of the row at start[n] + k *
  // step[n], j < count: a row of short examples summed side by side (Note [Short examples
  // summed side by side] in rules/src/fused.cpp).
  template <class T, int kMask, class R>
  VMAP_FUSED_LOOP void sum_row(const std::array<const T*, kValues>& start,
                               const std::array<int64_t, kValues>& step, int64_t per,
                               int64_t count, R* into) const {
    const std::array<int64_t, kValues> unused{};
    // The operands of element k of the row's examples. An operand the row broadcasts (one
    // value for the row) is read into `held` first: read through its pointer, it might be
    // what into[j] stores to, so the compiler loaded it again on every pass over j (a
    // 2000x2000x64 distance's loop).
    auto row_at = [&](int64_t k, std::array<T, kValues>& held) {
      std::array<const T*, kValues> from;
      for (std::size_t n = 0; n < kValues; ++n) {
        from[n] = start[n] + k * step[n];
        if (((kMask >> n) & 1) == 0) {
          held[n] = *from[n];
          from[n] = &held[n];
        }
      }
      return from;
    };
    std::array<T, kValues> held, held_next;
    for (int64_t j = 0; j < count; ++j) into[j] = 0;
    // Two elements of each example per pass over the row, added one after the other (the
    // same order and rounding as one per pass): the row's sums are loaded and stored half as
    // often, and those stores bounded the loop (a 100x200x10 distance's loop alone on AVX2,
    // 13.1 -> 8.4 us; the plain loop's AVX-512 one pass per element takes 11.2 us).
    int64_t k = 0;
    for (; k + 2 <= per; k += 2) {
      const std::array<const T*, kValues> from = row_at(k, held), next = row_at(k + 1, held_next);
#pragma omp simd
      for (int64_t j = 0; j < count; ++j) {
        const R sum = into[j] + detail::kernel_at<T, kMask>(kernel_, args_, from, unused, j, Indices{});
        into[j] = sum + detail::kernel_at<T, kMask>(kernel_, args_, next, unused, j, Indices{});
      }
    }
    if (k < per) {
      const std::array<const T*, kValues> from = row_at(k, held);
#pragma omp simd
      for (int64_t j = 0; j < count; ++j)
        into[j] += detail::kernel_at<T, kMask>(kernel_, args_, from, unused, j, Indices{});
    }
  }

  template <class, class...>
  friend class Fused;  // norm() compiles the kernel's squares

  Kernel kernel_;
  ArgTuple args_;
  DeviceCode device_;  // Note [Fused kernels on a device]
};

// The chain `kernel` over `args`: Values (per-example or loop-invariant tensors) and numbers.
template <class Kernel, class... Args>
auto fused(Kernel kernel, const Args&... args) {
  return Fused<Kernel, std::conditional_t<std::is_arithmetic_v<Args>, Args, Value>...>(
      std::move(kernel), args...);
}
// With the lambda's text, which the kernel runs as on a device (Note [Fused kernels on a
// device]).
template <class Kernel, class... Args>
auto fused(DeviceCode code, Kernel kernel, const Args&... args) {
  return Fused<Kernel, std::conditional_t<std::is_arithmetic_v<Args>, Args, Value>...>(
      code, std::move(kernel), args...);
}

// Note [Slot kernels]
// A run of statements that store into an example's slot and then update it (`out[i] = x[i];
// out[i] *= out[i];`: Note [Slot runs] in transform/fuse_slot.cpp) is one kernel whose first
// operand is the slot, its value stored once:
//
//   vb::at(out, i) = vb::fused_slot([](auto a, const auto& b) {
//     vb::assign(a, b);
//     a *= a;
//     return a;
//   }, vb::at(out, i), vb::at(x, i));
//
// Each store of the run is vb::assign: in the compiled kernel the value converted to the
// slot's element type, in the batched ops a write into the slot's elements (the store as
// written: its conversion, broadcast and errors). The compiled kernel reads every operand
// before it stores, where the statements as written read an operand after the stores before
// it: the same unless the operand shares memory with the slot (`f(out, out)`: the loop's
// overlap guard lets one view be read and written per example; `Tensor r = out[i];`). Then
// the batched ops run the lambda, one statement after another as written. Otherwise the
// store computes into the slot it reads (Pending::elementwise): no temporary, one pass.
namespace detail {
// Whether `other`, computed (not pending: a pending value is a result of its own), views
// memory of `slot`.
bool shares_memory(const Value& slot, const Value& other);
}  // namespace detail

inline void assign(Value& slot, const Value& value) { std::move(slot) = value; }

template <class Kernel, class... Args>
Value fused_slot(Kernel kernel, const Value& slot, const Args&... args) {
  auto shares = [&](const auto& arg) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(arg)>>) return false;
    else return detail::shares_memory(slot, arg);
  };
  auto chain = fused(std::move(kernel), slot, args...);
  if ((shares(args) || ...)) return chain.batched();
  return chain;
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
Value sum(const Fused<Kernel, Args...>& e, int64_t dim, bool keepdim = false) {
  return e.sum(dim, keepdim);
}
template <class Kernel, class... Args>
Value mean(const Fused<Kernel, Args...>& e, int64_t dim, bool keepdim = false) {
  return e.mean(dim, keepdim);
}
template <class Kernel, class... Args>
Value norm(const Fused<Kernel, Args...>& e, vmap::detail::Scalar p = 2) {
  return e.norm(p);
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
template <class Kernel, class... Args>
void accumulate_rebinding(Tensor& acc, const Fused<Kernel, Args...>& e, Reduce op) {
  e.accumulate_into(acc, op, /*rebinding=*/true);
}

}  // namespace vmap::batched
